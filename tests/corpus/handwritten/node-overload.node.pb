
yx"Foo*
a :com.msBv2