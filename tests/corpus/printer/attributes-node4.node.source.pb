el"
EmptyLists*
a *
b *
c *
d 	*
e 
*
f *
g 