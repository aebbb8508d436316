
xy"op-type*

a b *
sp *
g *
none*
tpr:
d :
bad domainBo.1