model:•
V
XY"MaxPool*
	dilations@
 *
kernel_shape@È *
pads@d@d *
strides@
 graphZ
X



à¶b
Y



½ªB