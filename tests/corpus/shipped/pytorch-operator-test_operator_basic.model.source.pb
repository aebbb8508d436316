pytorch0.3:‘

0
12"Add

0
23"Mul

34"Tanh

45"Sigmoid

56"Negtorch-jit-exportZ
0


Z
1


b
6


B