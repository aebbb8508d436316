pytorch0.3:J

01"Sqrttorch-jit-exportZ
0


b
1


B