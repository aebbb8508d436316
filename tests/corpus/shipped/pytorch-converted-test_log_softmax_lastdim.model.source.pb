pytorch0.3:h
(
01"
LogSoftmax*
axisÿÿÿÿÿÿÿÿÿ torch-jit-exportZ
0
	

€b
1
	

€B