
sparse_tensor
stringfloatseq"optional*
int64 :mapBopaque