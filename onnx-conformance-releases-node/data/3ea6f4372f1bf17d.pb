
BlikeJd8