pytorch0.3:™
K
01"MaxPool*
kernel_shape@@ *
pads@@@@ *
strides@@ torch-jit-exportZ
0




b
1




B