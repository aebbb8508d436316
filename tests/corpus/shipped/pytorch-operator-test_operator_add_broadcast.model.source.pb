pytorch0.3:|
-
0
12"Add*
	broadcast *
axis torch-jit-exportZ
0


Z
1


b
2


B