//! The prost code and the descriptor set in `src/generated/` are committed, so that a crate
//! depending on onnx-text never builds the generator (protox, prost-build and what they pull in
//! cost a dependent's cold build several times what its own code does; see
//! `docs/performance.md`). This test keeps them honest: it runs the generator on
//! `proto/onnx.proto` as the build script used to, and fails on any difference, so a schema
//! change or a generator upgrade cannot be forgotten.
//!
//! Regenerate with `ONNX_TEXT_BLESS=1 cargo test -p onnx-runtime-types --test generated_code`,
//! then review the diff.

use std::path::{Path, PathBuf};

/// The schema's directory, relative to this crate (the only place that knows where it lives).
const PROTO_DIR: &str = "../proto";
/// The schema file, relative to `PROTO_DIR`; also its name inside the descriptor set.
const PROTO_FILE: &str = "onnx.proto";
/// Where the generated files are committed, relative to this crate.
const GENERATED_DIR: &str = "src/generated";
/// The environment variable that makes the test rewrite the committed files.
const BLESS: &str = "ONNX_TEXT_BLESS";

/// Runs the generator into `out_dir`, writing:
/// - `onnx.rs`: the prost-generated module for package `onnx`;
/// - `onnx_descriptor_set.bin`: the encoded `FileDescriptorSet` (without source info).
fn generate(out_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(PROTO_DIR);
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
    config.out_dir(out_dir).compile_fds(fds.clone())?;

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

#[test]
fn committed_code_is_what_the_generator_makes_of_the_schema() {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("generated_code");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();
    generate(&out_dir).expect("the generator runs on proto/onnx.proto");

    let committed_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED_DIR);
    let bless = std::env::var_os(BLESS).is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for name in ["onnx.rs", "onnx_descriptor_set.bin"] {
        let fresh = std::fs::read(out_dir.join(name)).unwrap();
        let committed_path = committed_dir.join(name);
        let committed = std::fs::read(&committed_path).unwrap_or_default();
        if fresh == committed {
            continue;
        }
        if bless {
            std::fs::write(&committed_path, &fresh).unwrap();
            eprintln!("rewrote {}", committed_path.display());
        } else {
            stale.push(format!(
                "{GENERATED_DIR}/{name}: {}",
                first_difference(&committed, &fresh)
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "the committed generated code is not what prost-build and protox make of \
         proto/{PROTO_FILE}:\n  {}\nRegenerate with `{BLESS}=1 cargo test -p onnx-runtime-types \
         --test generated_code` and review the diff.",
        stale.join("\n  ")
    );
}

/// Where `committed` and `fresh` first differ: the line, for text, or the byte offset.
fn first_difference(committed: &[u8], fresh: &[u8]) -> String {
    if let (Ok(committed), Ok(fresh)) = (std::str::from_utf8(committed), std::str::from_utf8(fresh))
    {
        let mut committed_lines = committed.lines();
        let mut fresh_lines = fresh.lines();
        for line in 1.. {
            match (committed_lines.next(), fresh_lines.next()) {
                (a, b) if a == b && a.is_some() => continue,
                (a, b) => {
                    let show = |l: Option<&str>| {
                        l.map_or("(end of file)".to_owned(), |l| format!("`{l}`"))
                    };
                    return format!(
                        "line {line} is {} where the generator writes {}",
                        show(a),
                        show(b)
                    );
                }
            }
        }
    }
    let offset = committed
        .iter()
        .zip(fresh)
        .position(|(a, b)| a != b)
        .unwrap_or(committed.len().min(fresh.len()));
    format!(
        "{} bytes where the generator writes {}, first differing at byte {offset}",
        committed.len(),
        fresh.len()
    )
}
