el"
EmptyLists*
a *
b *
c *
g 