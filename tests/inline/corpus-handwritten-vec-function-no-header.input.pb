:gZ
xb
y 	
F"x*y