
F"x*yZ
a 