backend-test:’
,
x
yz"ArrayFeatureExtractor:
ai.onnx.ml'test_ai_onnx_ml_array_feature_extractorZ
x


Z
y


b
z


B

ai.onnx.ml