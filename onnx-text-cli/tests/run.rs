//! `onnx-text run`: a model through the evaluator, on `.pb` and `.npy` inputs by position or by
//! name, outputs printed or written, and every mistake an error that says what.

use onnx_text::prost::Message;
use onnx_value::Value;
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const EXTERNAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/external");

const MODEL: &str = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[2, 3] x, float[3] b) => (float[2, 3] y, int64[2] s) {
    t = Add (x, b)
    y = Relu (t)
    s = Shape (y)
}
"#;

/// `np.save` of float32 [[-1, 2, -3], [4, -5, 6]], as numpy 2.4 writes it (header padded to 128).
fn npy_x() -> Vec<u8> {
    let mut header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(128) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for v in [-1.0f32, 2.0, -3.0, 4.0, -5.0, 6.0] {
        bytes.extend(v.to_le_bytes());
    }
    bytes
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.onnxtxt"), MODEL).unwrap();
    std::fs::write(dir.path().join("x.npy"), npy_x()).unwrap();
    let b = Value::tensor(&[1.0f32, 1.0, 1.0], &[3]).unwrap();
    std::fs::write(dir.path().join("b.pb"), b.encode()).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn small_outputs_are_printed_whole() {
    let dir = setup();
    let (code, stdout, stderr) = run(dir.path(), &["run", "m.onnxtxt", "x.npy", "b=b.pb"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        "y = float[2, 3] {0.0, 3.0, 0.0, 5.0, 0.0, 7.0}\ns = int64[2] {2, 3}\n"
    );
}

#[test]
fn outputs_go_to_a_folder_as_pb_or_npy_and_are_replaced_only_with_force() {
    let dir = setup();
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "m.onnxtxt", "b=b.pb", "x.npy", "-o", "out"],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let y = std::fs::read(dir.path().join("out/output_0.pb")).unwrap();
    let y = Value::decode(None, &y).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [0.0, 3.0, 0.0, 5.0, 0.0, 7.0]);
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "m.onnxtxt", "x.npy", "b.pb", "-o", "out"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("pass --force to replace it; nothing was written"),
        "{stderr}"
    );
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "m.onnxtxt", "x.npy", "b.pb", "-o", "out", "--npy"],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let s = std::fs::read(dir.path().join("out/output_1.npy")).unwrap();
    assert!(s.starts_with(b"\x93NUMPY\x01\x00"));
    assert!(String::from_utf8_lossy(&s).contains("'descr': '<i8'"));
}

#[test]
fn an_output_may_not_replace_an_input() {
    let dir = setup();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::copy(dir.path().join("b.pb"), dir.path().join("out/output_0.pb")).unwrap();
    let before = std::fs::read(dir.path().join("out/output_0.pb")).unwrap();
    let (code, _, stderr) = run(
        dir.path(),
        &[
            "run",
            "m.onnxtxt",
            "x.npy",
            "out/output_0.pb",
            "-o",
            "out",
            "--force",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        std::fs::read(dir.path().join("out/output_0.pb")).unwrap(),
        before
    );
}

#[test]
fn missing_twice_given_and_ill_shaped_inputs_are_errors() {
    let dir = setup();
    let (code, _, stderr) = run(dir.path(), &["run", "m.onnxtxt", "x.npy"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: input `b` is not given (by position, or as b=FILE)\n"
    );
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "m.onnxtxt", "b=b.pb", "b=b.pb", "x.npy"],
    );
    assert_eq!(code, 2);
    assert_eq!(stderr, "error: input `b` is given twice\n");
    let (code, _, stderr) = run(dir.path(), &["run", "m.onnxtxt", "x.npy", "x.npy"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: m.onnxtxt: input 1 (`b`): expected shape [3], got [2, 3]\n"
    );
    std::fs::write(dir.path().join("bad.npy"), b"\x93NUMPY\x01\x00\x04\x00{}  ").unwrap();
    let (code, _, stderr) = run(dir.path(), &["run", "m.onnxtxt", "bad.npy", "b.pb"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: `bad.npy` (input `x`): the header has no `descr`\n"
    );
}

#[test]
fn a_model_the_checks_reject_is_not_run() {
    let dir = setup();
    std::fs::write(
        dir.path().join("bad.onnxtxt"),
        MODEL.replace("Relu (t)", "Relux (t)"),
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["run", "bad.onnxtxt", "x.npy", "b.pb"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(stderr.contains("Relux"), "{stderr}");
}

/// A binary model whose weights are in a file beside it runs with them: y = x·w + b, with w in
/// `model.bin` and b inside the model.
#[test]
fn binary_models_run_with_their_external_data() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["model.onnx", "model.bin"] {
        std::fs::copy(
            format!("{EXTERNAL}/saved-1024/{file}"),
            dir.path().join(file),
        )
        .unwrap();
    }
    let x = Value::tensor(&[1.0f32; 16], &[1, 16]).unwrap();
    std::fs::write(dir.path().join("x.pb"), x.encode()).unwrap();
    std::fs::write(
        dir.path().join("c.pb"),
        Value::tensor(&[false], &[]).unwrap().encode(),
    )
    .unwrap();
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "model.onnx", "x.pb", "c.pb", "-o", "out"],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let y = Value::decode(
        None,
        &std::fs::read(dir.path().join("out/output_0.pb")).unwrap(),
    )
    .unwrap();
    assert_eq!(y.dims(), Some(vec![1, 32]));

    let weights = std::fs::read(dir.path().join("model.bin")).unwrap();
    let w: Vec<f32> = weights[..2048]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let model =
        onnx_text::ModelProto::decode(&std::fs::read(dir.path().join("model.onnx")).unwrap()[..])
            .unwrap();
    let b = model
        .graph
        .unwrap()
        .initializer
        .into_iter()
        .find(|t| t.name() == "b")
        .unwrap();
    let b = Value::Tensor(b).to_vec::<f32>().unwrap();
    let expected: Vec<f32> = (0..32)
        .map(|j| (0..16).map(|i| w[i * 32 + j]).sum::<f32>() + b[j])
        .collect();
    let y = y.to_vec::<f32>().unwrap();
    for (got, want) in y.iter().zip(&expected) {
        assert!(
            (got - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{y:?} against {expected:?}"
        );
    }
}

#[test]
fn an_unknown_name_in_name_equals_file_names_the_inputs() {
    let dir = setup();
    let (code, stdout, stderr) = run(dir.path(), &["run", "m.onnxtxt", "x.npy", "q=b.pb"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: `q=b.pb`: the model has no input named `q`; its inputs are `x`, `b`\n"
    );
    // A file whose name holds `=` is still a file by position.
    std::fs::copy(dir.path().join("b.pb"), dir.path().join("q=b.pb")).unwrap();
    let (code, _, stderr) = run(dir.path(), &["run", "m.onnxtxt", "x.npy", "q=b.pb"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn the_output_folder_is_checked_before_the_model_runs() {
    let dir = setup();
    // A file where the folder goes: refused before anything runs (a model that cannot run
    // shows it: its error would come first if it ran).
    std::fs::write(dir.path().join("file"), "mine\n").unwrap();
    std::fs::write(
        dir.path().join("bad.onnxtxt"),
        MODEL.replace("Relu", "Nope"),
    )
    .unwrap();
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "bad.onnxtxt", "x.npy", "b.pb", "-o", "file"],
    );
    assert_eq!(
        (code, stderr.as_str()),
        (
            2,
            "error: `file` (-o) is not a folder: run writes one file per output into a folder; \
             nothing was run\n"
        )
    );
    assert_eq!(std::fs::read(dir.path().join("file")).unwrap(), b"mine\n");
    // `-o -` is no folder named `-`.
    let (code, _, stderr) = run(
        dir.path(),
        &["run", "m.onnxtxt", "x.npy", "b.pb", "-o", "-"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("to print the outputs, leave -o out"),
        "{stderr}"
    );
    assert!(!dir.path().join("-").exists());
    // A trailing slash, new folder or existing one.
    for _ in 0..2 {
        let args = ["run", "m.onnxtxt", "x.npy", "b.pb", "-o", "out/", "--force"];
        let (code, _, stderr) = run(dir.path(), &args);
        assert_eq!((code, stderr.as_str()), (0, ""));
        assert!(dir.path().join("out/output_1.pb").is_file());
    }
}
