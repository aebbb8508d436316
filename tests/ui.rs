//! Compile-time behaviour of the macros, pinned by trybuild: `ui-tests/pass` must compile and run,
//! and each `ui-tests/fail/*.rs` must fail with exactly the diagnostics in its `.stderr`.
//!
//! rustc's rendering changes between releases, so the expected output is tied to the toolchain
//! named in `ui-tests/TOOLCHAIN`. After a compiler upgrade, re-bless consciously:
//! `TRYBUILD=overwrite cargo test --test ui`, review the diff, and update `ui-tests/TOOLCHAIN`.

use std::process::Command;

#[test]
fn ui() {
    let pinned = include_str!("../ui-tests/TOOLCHAIN").trim();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = Command::new(rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    let current = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert_eq!(
        current, pinned,
        "the UI expectations were blessed with another compiler; re-bless them (see tests/ui.rs)"
    );
    copy_include_data();
    let cases = trybuild::TestCases::new();
    cases.pass("ui-tests/pass/*.rs");
    cases.compile_fail("ui-tests/fail/*.rs");
}

/// Copies `ui-tests/data/` to where the cases' `include_onnx!` looks for it. trybuild builds the
/// cases as a crate of its own, in `<target>/tests/trybuild/<crate>`, whose `CARGO_MANIFEST_DIR`
/// the paths are relative to. (Were the layout to change, the cases would fail to find the files,
/// and say so.)
fn copy_include_data() {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp");
    let to = target.join("tests/trybuild/onnx-text/ui-tests/data");
    std::fs::create_dir_all(&to).unwrap();
    let from = concat!(env!("CARGO_MANIFEST_DIR"), "/ui-tests/data");
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}
