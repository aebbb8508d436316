
y
zx"Add:ai.onnx