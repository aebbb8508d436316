
F"x*yZ
a Z
b Z
c 	Z
d 
