//! `--opset` and `--ml-opset` of `convert` and `print`: the version converter behind the
//! commands, and its refusals as errors naming the node.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");

const REDUCE_11: &str = r#"<ir_version: 7, opset_import: ["" : 11]>
g (float[2, 3] x) => (float[2] y) { y = ReduceSum <axes = [1], keepdims = 0> (x) }
"#;

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("onnx-text-cli-opset")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn print_opset_shows_the_converted_text() {
    let dir = temp_dir("print");
    std::fs::write(dir.join("m.onnxtxt"), REDUCE_11).unwrap();
    let (code, stdout, stderr) = run(&dir, &["print", "m.onnxtxt", "--opset", "18"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(r#"opset_import: ["" : 18]"#), "{stdout}");
    assert!(
        stdout.contains("= Constant <value: tensor = int64[1] {1}> ()"),
        "{stdout}"
    );
    assert!(
        stdout.contains("y = ReduceSum <keepdims: int = 0> (x, axes_vc1)"),
        "{stdout}"
    );
}

#[test]
fn convert_opset_writes_the_converted_model_text_to_text_and_to_binary() {
    let dir = temp_dir("convert");
    std::fs::write(dir.join("m.onnxtxt"), REDUCE_11).unwrap();
    let (code, _, stderr) = run(
        &dir,
        &["convert", "m.onnxtxt", "--opset", "13", "-o", "up.onnxtxt"],
    );
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(dir.join("up.onnxtxt")).unwrap();
    assert!(text.contains(r#"opset_import: ["" : 13]"#), "{text}");
    // And back down, from binary.
    let (code, _, stderr) = run(&dir, &["convert", "up.onnxtxt", "-o", "up.onnx"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(&dir, &["print", "up.onnx", "--opset", "11"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("y = ReduceSum <keepdims: int = 0, axes: ints = [1]> (x)"),
        "{stdout}"
    );
}

#[test]
fn a_refused_conversion_names_the_node_and_writes_nothing() {
    let dir = temp_dir("refused");
    let text = r#"<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x, int64[1] axes) => (float[2] y) { y = Squeeze (x, axes) }
"#;
    std::fs::write(dir.join("m.onnxtxt"), text).unwrap();
    let (code, _, stderr) = run(
        &dir,
        &["convert", "m.onnxtxt", "--opset", "12", "-o", "out.onnx"],
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("node 0 (Squeeze, outputs `y`): `axes` is computed at run time and opset 12 needs it as an attribute"),
        "{stderr}"
    );
    assert!(!dir.join("out.onnx").exists());
    let (code, _, stderr) = run(&dir, &["print", "m.onnxtxt", "--opset", "0"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("opset 0 of ai.onnx does not exist"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&dir, &["print", "m.onnxtxt", "--ml-opset", "3"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("the model does not import ai.onnx.ml"),
        "{stderr}"
    );
}
