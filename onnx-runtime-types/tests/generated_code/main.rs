//! The code and the descriptor set in `src/generated/` are committed, so that a crate depending
//! on onnx-text never builds the generator (protox, prost-build and what they pull in cost a
//! dependent's cold build several times what its own code does; see `docs/performance.md`). This
//! test keeps them honest: it runs the generator on `proto/onnx.proto` as the build script used
//! to, and fails on any difference, so a schema change or a generator upgrade cannot be forgotten.
//!
//! The generator is prost-build, for the types, and our `codegen` for what prost's derive macros
//! implemented (so that the crate needs prost without its `derive` feature, and a dependent's
//! build does not wait for syn and prost-derive). prost-build's own output, derives and all, is
//! committed too, under `tests/prost_derive/`: `tests/derive_equivalence.rs` compiles it and checks
//! that both encode and decode alike.
//!
//! Regenerate with `ONNX_TEXT_BLESS=1 cargo test -p onnx-runtime-types --test generated_code`,
//! then review the diff. The test links the crate, so it runs only while the committed code
//! compiles: should a change to the schema or the generator leave it broken, restore
//! `src/generated/` from git (whose code compiles, if stale) and run the test again.

mod codegen;

use std::path::{Path, PathBuf};

/// The schema's directory, relative to this crate (the only place that knows where it lives).
const PROTO_DIR: &str = "../proto";
/// The schema file, relative to `PROTO_DIR`; also its name inside the descriptor set.
const PROTO_FILE: &str = "onnx.proto";
/// The environment variable that makes the test rewrite the committed files.
const BLESS: &str = "ONNX_TEXT_BLESS";

/// Each file the generator writes, as (name in its output directory, committed path relative to
/// this crate).
const FILES: [(&str, &str); 4] = [
    ("onnx.rs", "src/generated/onnx.rs"),
    ("onnx_impls.rs", "src/generated/onnx_impls.rs"),
    (
        "onnx_descriptor_set.bin",
        "src/generated/onnx_descriptor_set.bin",
    ),
    ("prost_derive.rs", "tests/prost_derive/onnx.rs"),
];

/// Runs the generator into `out_dir`, writing the files of `FILES`:
/// - `onnx.rs`: the types of package `onnx`, as prost-build writes them but without prost's
///   derives;
/// - `onnx_impls.rs`: what those derives implemented, from `codegen`;
/// - `onnx_descriptor_set.bin`: the encoded `FileDescriptorSet` (without source info);
/// - `prost_derive.rs`: prost-build's own output, with the derives.
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
    let prost_dir = out_dir.join("prost-build");
    std::fs::create_dir_all(&prost_dir)?;
    config.out_dir(&prost_dir).compile_fds(fds.clone())?;
    let prost_output = std::fs::read_to_string(prost_dir.join("onnx.rs"))?;

    let code = codegen::generate(&fds, &prost_output);
    std::fs::write(out_dir.join("onnx.rs"), code.types)?;
    std::fs::write(out_dir.join("onnx_impls.rs"), code.impls)?;
    std::fs::write(out_dir.join("prost_derive.rs"), prost_output)?;

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

    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os(BLESS).is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, committed) in FILES {
        let fresh = std::fs::read(out_dir.join(name)).unwrap();
        let committed_path = crate_dir.join(committed);
        let committed_bytes = std::fs::read(&committed_path).unwrap_or_default();
        if fresh == committed_bytes {
            continue;
        }
        if bless {
            std::fs::create_dir_all(committed_path.parent().unwrap()).unwrap();
            std::fs::write(&committed_path, &fresh).unwrap();
            eprintln!("rewrote {}", committed_path.display());
        } else {
            stale.push(format!(
                "{committed}: {}",
                first_difference(&committed_bytes, &fresh)
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "the committed generated code is not what protox, prost-build and codegen make of \
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
