pytorch0.3:„

012"Split*
axis 

23"Sigmoid

1
34"Multorch-jit-exportZ
0



b
4



B