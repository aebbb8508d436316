
yx"Bar:Foo