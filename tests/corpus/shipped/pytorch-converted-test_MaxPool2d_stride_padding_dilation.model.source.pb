model:¤
_
XY"MaxPool*
	dilations@
@
 *
kernel_shape@<@P *
pads@
@@
@ *
strides@
@
 graphZ
X



è
èb
Y



+
B