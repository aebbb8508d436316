pytorch0.3:R

01"Selutorch-jit-exportZ
0



b
1



B