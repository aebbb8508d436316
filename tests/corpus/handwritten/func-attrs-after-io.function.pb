
F"x*yb
a