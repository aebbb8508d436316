//! The README stays a first page: at most 300 lines, every command of `onnx-text` in its table,
//! an install command that builds what the lock file names, and the one minimum Rust version that
//! every crate of the workspace declares.

const README: &str = include_str!("../../README.md");

fn manifest(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `rust-version = "x.y"` a manifest declares itself, if any.
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
fn every_crate_declares_the_workspace_rust_and_the_readme_names_it() {
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
    for member in &members {
        let own = manifest(&format!("{member}/Cargo.toml"));
        assert!(
            own.lines().any(|l| l == "rust-version.workspace = true"),
            "{member} does not take the workspace's rust-version"
        );
    }
    let (major, minor) = rust_version(&workspace).expect("the workspace declares a rust-version");
    assert!(
        README.contains(&format!(
            "Every crate declares one minimum Rust, {major}.{minor}"
        )),
        "the README does not say {major}.{minor}"
    );
}
