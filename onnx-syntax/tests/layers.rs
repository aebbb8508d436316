//! The modules of this crate in layers, as the pipeline runs: a module may use modules of its
//! own layer or below, never above. The crates above (schema, inference, checks, printer,
//! validator) are kept out by cargo, which refuses an import of a crate that is not a
//! dependency; inside one crate only this test does it.

use std::path::Path;

/// The modules, lowest first; modules in one entry are one layer.
const LAYERS: &[&[&str]] = &[
    &["span", "named", "hash", "similar", "dtype", "domain"],
    &["render"],
    &["error"],
    &["lex"],
    &["hole", "syntax"],
    &["diagnostic"],
    &["parse"],
    &["lower", "tensors"],
    &["entry"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every `crate::module` that `source` names in code (doc comments and comments left out).
fn used_modules(source: &str) -> Vec<(usize, String)> {
    let mut used = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            used.push((number + 1, name));
        }
    }
    used
}

/// The top module a source file belongs to: `parse` for `src/parse/node.rs`.
fn top_module(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
    let name = first.as_os_str().to_str().unwrap();
    name.trim_end_matches(".rs").to_owned()
}

fn sources(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_module_of_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    let mut checked = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = top_module(relative);
        if top == "lib" {
            continue; // The root re-exports from every layer.
        }
        let own = layer(&top).unwrap_or_else(|| panic!("module `{top}` is in no layer of LAYERS"));
        let source = std::fs::read_to_string(file).unwrap();
        for (line, used) in used_modules(&source) {
            let Some(theirs) = layer(&used) else {
                continue; // A root item (`crate::Span`) or the `named_enum!` macro.
            };
            checked += 1;
            if theirs > own {
                upward.push(format!(
                    "{}:{line}: `{top}` uses `{used}`",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} imports found: is the scan broken?"
    );
    assert!(
        upward.is_empty(),
        "imports up the layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_scan_finds_an_upward_import() {
    let found = used_modules("use crate::entry::Entry; // crate::parse in a comment\n");
    assert_eq!(found, [(1, "entry".to_owned())]);
    assert!(layer("entry") > layer("parse"));
}
