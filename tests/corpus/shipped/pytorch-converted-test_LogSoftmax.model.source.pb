pytorch0.3:]

01"
LogSoftmax*
axis torch-jit-exportZ
0



b
1



B