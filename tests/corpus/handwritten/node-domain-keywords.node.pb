
yx"map:	float.seq