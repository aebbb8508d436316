
yx"Foo:com.ms