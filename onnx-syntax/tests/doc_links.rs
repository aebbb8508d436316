//! Intra-doc links are written as rustdoc resolves them, `[text](crate::path)`, never as an HTML
//! `href="crate::path"`, which rustdoc leaves as it is: a link that goes nowhere in the rendered
//! docs, with no warning. Every `.rs` and `.md` file of the workspace is read (the rendered docs
//! themselves are grepped by `.ci/run` after `cargo doc`).

use std::path::{Path, PathBuf};

/// The files to read under `dir`: Rust and Markdown sources, not build outputs or data.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            let skipped = name.starts_with('.')
                || matches!(name.as_ref(), "target" | "corpus" | "node_modules" | "data");
            if !skipped {
                sources(&path, found);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// Where `text` holds an intra-doc path as an HTML link target: `href="crate::…"` (or `self::`,
/// `super::`, a path with `::` and no `/`).
fn hrefs_to_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for quote in ['"', '\''] {
        let opening = format!("href={quote}");
        for (at, _) in text.match_indices(&opening) {
            let rest = &text[at + opening.len()..];
            let target = rest.split(quote).next().unwrap_or("");
            if target.contains("::") && !target.contains('/') {
                found.push(target.to_owned());
            }
        }
    }
    found
}

#[test]
fn no_intra_doc_link_is_written_as_an_href() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    sources(&root, &mut files);
    // The workspace's crates and guides: an emptied walk fails here instead of passing.
    assert!(files.len() > 100, "{} files", files.len());
    let this_file = Path::new(file!()).file_name().unwrap();
    let mut broken = Vec::new();
    for file in files {
        if file.file_name() == Some(this_file) {
            continue; // its own examples
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for target in hrefs_to_paths(&text) {
            broken.push(format!("{}: href=\"{target}\"", file.display()));
        }
    }
    assert!(
        broken.is_empty(),
        "write these as [`name`](path) intra-doc links:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_check_finds_paths_and_leaves_urls() {
    let doc = r#"/// deeper than <a href="crate::parse::MAX_NESTING">MAX_NESTING</a>, see
/// <a href='super::Span'>Span</a> and <a href="https://onnx.ai/">onnx</a>, or
/// <a href="../onnx_syntax/parse/constant.MAX_NESTING.html">the page</a>."#;
    assert_eq!(
        hrefs_to_paths(doc),
        ["crate::parse::MAX_NESTING", "super::Span"]
    );
}
