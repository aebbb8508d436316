//! ONNX protobuf message types. (Placeholder until the generated types land.)
