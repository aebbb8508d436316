pytorch0.3:N

01"Softplustorch-jit-exportZ
0



b
1



B