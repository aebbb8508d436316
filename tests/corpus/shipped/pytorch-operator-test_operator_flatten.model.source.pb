pytorch0.3:b

01"Flatten*
axis torch-jit-exportZ
0




b
1


B