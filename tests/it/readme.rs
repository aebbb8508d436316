//! The README stays a first page: at most 300 lines, every command of `onnx-text` in its table,
//! an install command that builds what the lock file names, and one minimum Rust version that
//! every crate of the workspace builds with.

const README: &str = include_str!("../../README.md");

fn manifest(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `rust-version = "x.y"` a manifest declares, if it declares its own.
fn rust_version(manifest: &str) -> Option<(u32, u32)> {
    let line = manifest
        .lines()
        .find(|l| l.starts_with("rust-version = \""))?;
    let version = line.split('"').nth(1)?;
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[test]
fn the_readme_is_at_most_300_lines() {
    assert!(
        README.lines().count() <= 300,
        "{} lines",
        README.lines().count()
    );
}

#[test]
fn the_readme_names_every_command_and_installs_locked() {
    for command in [
        "check", "fmt", "convert", "print", "infer", "inline", "run", "lsp",
    ] {
        assert!(
            README.contains(&format!("| `onnx-text {command}")),
            "`onnx-text {command}` is not in the command table"
        );
    }
    assert!(README.contains("cargo install --path onnx-text-cli --locked"));
}

#[test]
fn the_readme_names_the_highest_minimum_rust_of_any_crate() {
    let workspace = manifest("Cargo.toml");
    let members: Vec<String> = workspace
        .lines()
        .skip_while(|l| !l.starts_with("members"))
        .take_while(|l| !l.starts_with(']'))
        .filter_map(|l| {
            l.trim()
                .strip_prefix('"')?
                .strip_suffix("\",")
                .map(str::to_owned)
        })
        .collect();
    assert!(members.len() > 10, "{members:?}");
    let highest = members
        .iter()
        .filter_map(|m| rust_version(&manifest(&format!("{m}/Cargo.toml"))))
        .chain(rust_version(&workspace))
        .max()
        .unwrap();
    let (major, minor) = highest;
    assert!(
        README.contains(&format!(
            "Every crate builds with Rust {major}.{minor} or later"
        )),
        "the README does not say {major}.{minor}"
    );
}
