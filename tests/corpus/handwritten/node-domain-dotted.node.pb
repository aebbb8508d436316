
yx"Foo:com.microsoft