pytorch0.3:g

01"Neg

12"Softmax*
axis torch-jit-exportZ
0



b
2



B