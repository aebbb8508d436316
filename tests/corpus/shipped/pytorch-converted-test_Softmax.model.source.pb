pytorch0.3:Z

01"Softmax*
axis torch-jit-exportZ
0



b
1



B