pytorch0.3:q

0
12"Concat*
axis torch-jit-exportZ
0


Z
1


b
2


B