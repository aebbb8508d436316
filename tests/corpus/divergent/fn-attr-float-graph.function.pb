
F"x*yZ
a2zz 