pytorch0.3:~
0
01"
ReduceMean*
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