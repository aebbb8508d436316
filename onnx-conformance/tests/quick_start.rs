//! The quick start (the `Cargo.toml` lines and the test file a runtime copies) reads the same in
//! the crate docs, where the file is a doc test, in the README and in the guide.

use std::path::Path;

/// The first code block after `heading` whose fence opens with `fence`.
fn block(text: &str, heading: &str, fence: &str) -> String {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let rest = &text[start..];
    let open = rest
        .lines()
        .position(|l| l.trim_end() == fence)
        .unwrap_or_else(|| panic!("no {fence} block after {heading:?}"));
    rest.lines()
        .skip(open + 1)
        .take_while(|l| l.trim_end() != "```")
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The crate docs as Markdown, and what rustdoc shows of a Rust block (no `# ` lines).
fn crate_docs() -> String {
    let lib = include_str!("../src/lib.rs");
    lib.lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect()
}

fn shown(rust: &str) -> String {
    rust.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t == "#" || t.starts_with("# "))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_quick_start_is_the_same_everywhere() {
    let docs = crate_docs();
    let toml = block(&docs, "# Quick start", "```toml");
    let file = shown(&block(&docs, "# Quick start", "```rust"));
    assert!(
        toml.contains("[[test]]\nname = \"onnx\"\nharness = false\n"),
        "{toml}"
    );
    assert!(
        file.contains("    onnx_conformance::harness(run)\n"),
        "{file}"
    );
    assert!(!file.contains("if false"), "{file}");
    let readme = read("../README.md");
    let guide = read("../src/guide/conformance_kit.md");
    for (name, text, heading) in [
        ("README.md", &readme, "## The conformance kit"),
        ("src/guide/conformance_kit.md", &guide, "## Quick start"),
    ] {
        assert_eq!(block(text, heading, "```toml"), toml, "{name}");
        assert_eq!(block(text, heading, "```text"), file, "{name}");
    }
}
