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
    let cases = trybuild::TestCases::new();
    cases.pass("ui-tests/pass/*.rs");
    cases.compile_fail("ui-tests/fail/*.rs");
}
