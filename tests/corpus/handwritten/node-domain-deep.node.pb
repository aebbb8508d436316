
yx"Foo:	a.b.c.d.e