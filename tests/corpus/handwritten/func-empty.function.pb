
F