
F"x*y2eZ
a Z
b Z
c Z
d 