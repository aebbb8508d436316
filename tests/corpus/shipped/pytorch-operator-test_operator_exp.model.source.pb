pytorch0.3:I

01"Exptorch-jit-exportZ
0


b
1


B