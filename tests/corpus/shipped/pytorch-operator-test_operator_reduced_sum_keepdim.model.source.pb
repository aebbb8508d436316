pytorch0.3:}
/
01"	ReduceSum*
axes@ *
keepdims torch-jit-exportZ
0




b
1




B