//! Compiles `../proto/onnx.proto` with protox (no system `protoc` needed) and
//! generates the prost types from the resulting descriptor set.
//!
//! Outputs in `OUT_DIR`:
//! - `onnx.rs`: the prost-generated module for package `onnx`;
//! - `onnx_descriptor_set.bin`: the encoded `FileDescriptorSet` (without source info).

use std::env;
use std::path::PathBuf;

/// Directory holding the schema, relative to this crate's manifest. The only
/// place that knows where the proto lives (note: `cargo package` would not
/// include it, as it is outside the crate).
const PROTO_DIR: &str = "../proto";
/// The schema file, relative to `PROTO_DIR`; also its name inside the descriptor set.
const PROTO_FILE: &str = "onnx.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR")?);
    let proto_dir = manifest_dir.join(PROTO_DIR);
    println!(
        "cargo:rerun-if-changed={}",
        proto_dir.join(PROTO_FILE).display()
    );
    println!("cargo:rerun-if-changed=build.rs");

    // With source info, so the proto comments become doc comments on the types.
    let mut compiler = protox::Compiler::new([&proto_dir])?;
    compiler.include_source_info(true).include_imports(true);
    compiler.open_file(PROTO_FILE)?;
    let mut fds = compiler.file_descriptor_set();

    // An attribute holds one of many kinds of value, but inline its message-typed ones would
    // make every `AttributeProto` 1.6 KB: boxed, it is a fifth of that, which the parser's speed
    // and memory depend on (a node has a few attributes).
    let mut config = prost_build::Config::new();
    for field in ["t", "g", "tp", "sparse_tensor"] {
        config.boxed(format!(".onnx.AttributeProto.{field}"));
    }
    config.out_dir(&out_dir).compile_fds(fds.clone())?;

    // The published descriptor set carries no source info: smaller, and stable under comment edits.
    for file in &mut fds.file {
        file.source_code_info = None;
    }
    std::fs::write(
        out_dir.join("onnx_descriptor_set.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    Ok(())
}
