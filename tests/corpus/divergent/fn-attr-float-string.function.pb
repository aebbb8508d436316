
F"x*yZ	
a"s 