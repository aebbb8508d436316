
xy"Foo*
aªb*
c ªd e