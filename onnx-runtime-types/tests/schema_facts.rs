//! Checks that `proto/onnx.proto`, as compiled by protox (the committed `FILE_DESCRIPTOR_SET`,
//! which `tests/generated_code/` keeps current), describes exactly the schema of onnx 1.23.2
//! recorded in `proto/onnx-1.23.2.facts` (written by `scripts/dump_proto_facts.py` from the
//! wheel's descriptors), and that prost writes the same bytes as the reference serializer.

use std::collections::BTreeSet;

use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{AttributeProto, FILE_DESCRIPTOR_SET, NodeProto, TensorProto};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldOptions, FileDescriptorSet,
    field_descriptor_proto::{Label, Type},
};

const FACTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../proto/onnx-1.23.2.facts");

/// Same escaping as `esc` in scripts/dump_proto_facts.py.
fn esc(s: &str) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x21..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

fn type_name(name: &str) -> String {
    match name {
        "" => "-".to_owned(),
        n => n
            .strip_prefix('.')
            .expect("type names are fully qualified")
            .to_owned(),
    }
}

fn enum_facts(prefix: &str, e: &EnumDescriptorProto, lines: &mut Vec<String>) {
    let full = format!("{prefix}.{}", e.name());
    if e.options.is_some() {
        lines.push(format!("unexpected-options {full}"));
    }
    lines.push(format!("enum {full}"));
    for v in &e.value {
        if v.options.is_some() {
            lines.push(format!("unexpected-options {full}.{}", v.name()));
        }
        lines.push(format!("value {full} {} {}", v.name(), v.number()));
    }
    for r in &e.reserved_range {
        lines.push(format!("reserved_range {full} {} {}", r.start(), r.end()));
    }
    for n in &e.reserved_name {
        lines.push(format!("reserved_name {full} {n}"));
    }
}

fn message_facts(prefix: &str, m: &DescriptorProto, lines: &mut Vec<String>) {
    let full = format!("{prefix}.{}", m.name());
    if m.options.is_some() {
        lines.push(format!("unexpected-options {full}"));
    }
    lines.push(format!("message {full}"));
    for o in &m.oneof_decl {
        if o.options.is_some() {
            lines.push(format!("unexpected-options {full}.{}", o.name()));
        }
        lines.push(format!("oneof {full} {}", o.name()));
    }
    for f in &m.field {
        let packed = f.options.as_ref().and_then(|o| o.packed);
        // Any option other than `packed` is drift.
        let others = f
            .options
            .clone()
            .map(|o| FieldOptions { packed: None, ..o });
        if others.is_some_and(|o| o != FieldOptions::default()) {
            lines.push(format!("unexpected-options {full}.{}", f.name()));
        }
        if f.proto3_optional.is_some() {
            lines.push(format!("unexpected-proto3-optional {full}.{}", f.name()));
        }
        let packed = match packed {
            Some(true) => "true",
            Some(false) => "false",
            None => "-",
        };
        let default = f.default_value.as_deref().map_or("-".to_owned(), esc);
        let oneof = f
            .oneof_index
            .map_or("-", |i| m.oneof_decl[i as usize].name());
        lines.push(format!(
            "field {full} {} {} {} {} {} packed={packed} default={default} oneof={oneof}",
            f.name(),
            f.number(),
            Label::try_from(f.label.expect("label is set"))
                .unwrap()
                .as_str_name(),
            Type::try_from(f.r#type.expect("type is set"))
                .unwrap()
                .as_str_name(),
            type_name(f.type_name()),
        ));
    }
    for r in &m.reserved_range {
        lines.push(format!("reserved_range {full} {} {}", r.start(), r.end()));
    }
    for n in &m.reserved_name {
        lines.push(format!("reserved_name {full} {n}"));
    }
    if !m.extension_range.is_empty() || !m.extension.is_empty() {
        lines.push(format!("unexpected-extensions {full}"));
    }
    for e in &m.enum_type {
        enum_facts(&full, e, lines);
    }
    for nested in &m.nested_type {
        message_facts(&full, nested, lines);
    }
}

fn descriptor_facts() -> Vec<String> {
    let fds = FileDescriptorSet::decode(FILE_DESCRIPTOR_SET).expect("valid descriptor set");
    assert_eq!(fds.file.len(), 1, "onnx.proto imports nothing");
    let file = &fds.file[0];
    let mut lines = Vec::new();
    let syntax = match file.syntax() {
        "" => "proto2",
        s => s,
    };
    lines.push(format!("file package={} syntax={syntax}", file.package()));
    if !file.dependency.is_empty() || !file.extension.is_empty() || !file.service.is_empty() {
        lines.push("unexpected-imports-extensions-or-services".to_owned());
    }
    if let Some(opts) = &file.options {
        if let Some(mode) = opts.optimize_for {
            let mode = prost_types::file_options::OptimizeMode::try_from(mode).unwrap();
            lines.push(format!("file_option optimize_for={}", mode.as_str_name()));
        }
        let others = prost_types::FileOptions {
            optimize_for: None,
            ..opts.clone()
        };
        if others != prost_types::FileOptions::default() {
            lines.push("unexpected-file-options".to_owned());
        }
    }
    for m in &file.message_type {
        message_facts(file.package(), m, &mut lines);
    }
    for e in &file.enum_type {
        enum_facts(file.package(), e, &mut lines);
    }
    lines.sort();
    lines
}

#[test]
fn schema_matches_reference_facts() {
    let text = std::fs::read_to_string(FACTS).unwrap_or_else(|e| panic!("reading {FACTS}: {e}"));
    let expected: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let actual = descriptor_facts();

    let expected_set: BTreeSet<&str> = expected.iter().copied().collect();
    let actual_set: BTreeSet<&str> = actual.iter().map(String::as_str).collect();
    let missing: Vec<_> = expected_set.difference(&actual_set).collect();
    let extra: Vec<_> = actual_set.difference(&expected_set).collect();
    let mut report = String::new();
    for line in &missing {
        report.push_str(&format!("- {line}\n"));
    }
    for line in &extra {
        report.push_str(&format!("+ {line}\n"));
    }
    assert!(
        report.is_empty(),
        "proto/onnx.proto drifted from {FACTS}\n\
         (- expected by the facts but missing from the proto, + present in the proto only):\n{report}"
    );
    assert_eq!(expected.len(), actual.len(), "duplicate fact lines");
    let mut sorted = expected.clone();
    sorted.sort_unstable();
    assert_eq!(expected, sorted, "the facts file is not sorted");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A node with every NodeProto field the text syntax produces, plus
/// doc_string, and an attribute with many fields set (including packed and
/// unpacked repeated scalars in its tensor).
///
/// The reference bytes were produced with onnx 1.23.2 (python protobuf, upb):
///
/// ```python
/// import onnx
/// n = onnx.NodeProto()
/// n.input.extend(["x", ""]); n.output.append("y")
/// n.name = "n0"; n.op_type = "Foo"
/// a = n.attribute.add()
/// a.name = "alpha"; a.ref_attr_name = "r"; a.doc_string = "d"
/// a.type = onnx.AttributeProto.FLOATS
/// a.f = 1.5; a.i = -3; a.s = b"s"
/// a.floats.extend([1.0, 2.0]); a.ints.extend([1, -1]); a.strings.append(b"")
/// a.t.dims.extend([2]); a.t.data_type = 1; a.t.float_data.extend([0.5, 0.25]); a.t.name = ""
/// n.doc_string = "doc"; n.domain = ""; n.overload = "ov"
/// print(n.SerializeToString().hex())
/// ```
const NODE_REFERENCE_HEX: &str = concat!(
    "0a0178",                 // input "x"
    "0a00",                   // input ""
    "120179",                 // output "y"
    "1a026e30",               // name "n0"
    "2203466f6f",             // op_type "Foo"
    "2a4f",                   // attribute (79 bytes):
    "0a05616c706861",         //   name "alpha"
    "150000c03f",             //   f 1.5
    "18fdffffffffffffffff01", //   i -3
    "220173",                 //   s "s"
    "2a10",                   //   t (16 bytes):
    "0802",                   //     dims 2
    "1001",                   //     data_type 1
    "22080000003f0000803e",   //     float_data [0.5, 0.25], packed
    "4200",                   //     name ""
    "3d0000803f3d00000040",   //   floats [1.0, 2.0], unpacked
    "4001",                   //   ints 1
    "40ffffffffffffffffff01", //   ints -1
    "4a00",                   //   strings ""
    "6a0164",                 //   doc_string "d"
    "a00106",                 //   type FLOATS
    "aa010172",               //   ref_attr_name "r"
    "3203646f63",             // doc_string "doc"
    "3a00",                   // domain ""
    "42026f76",               // overload "ov"
);

#[test]
fn node_bytes_match_reference() {
    let node = NodeProto {
        input: vec!["x".into(), String::new()],
        output: vec!["y".into()],
        name: Some("n0".into()),
        op_type: Some("Foo".into()),
        attribute: vec![AttributeProto {
            name: Some("alpha".into()),
            ref_attr_name: Some("r".into()),
            doc_string: Some("d".into()),
            r#type: Some(onnx_runtime_types::attribute_proto::AttributeType::Floats as i32),
            f: Some(1.5),
            i: Some(-3),
            s: Some(b"s".to_vec()),
            floats: vec![1.0, 2.0],
            ints: vec![1, -1],
            strings: vec![Vec::new()],
            t: Some(Box::new(TensorProto {
                dims: vec![2],
                data_type: Some(1),
                float_data: vec![0.5, 0.25],
                name: Some(String::new()),
                ..Default::default()
            })),
            ..Default::default()
        }],
        doc_string: Some("doc".into()),
        domain: Some(String::new()),
        overload: Some("ov".into()),
        ..Default::default()
    };
    let bytes = node.encode_to_vec();
    assert_eq!(hex(&bytes), NODE_REFERENCE_HEX);
    assert_eq!(NodeProto::decode(bytes.as_slice()).unwrap(), node);
}

/// Pins the one known encoding-order difference (see the crate docs,
/// "Encoding order"): prost writes the `TypeProto.value` oneof at the position
/// of its lowest tag (1), so `denotation` (6) follows an `opaque_type` (7)
/// instead of preceding it. With a member numbered below 6 the bytes match.
///
/// Reference bytes, onnx 1.23.2:
///
/// ```python
/// import onnx
/// t = onnx.TypeProto(); t.denotation = "d"; t.tensor_type.elem_type = 1
/// print(t.SerializeToString().hex())  # 0a020801320164
/// t = onnx.TypeProto(); t.denotation = "d"; t.opaque_type.domain = "x"
/// print(t.SerializeToString().hex())  # 3201643a030a0178
/// ```
#[test]
fn type_proto_oneof_order() {
    use onnx_runtime_types::{TypeProto, type_proto};

    let tensor = TypeProto {
        denotation: Some("d".into()),
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(1),
            shape: None,
        })),
    };
    assert_eq!(hex(&tensor.encode_to_vec()), "0a020801320164");

    let opaque = TypeProto {
        denotation: Some("d".into()),
        value: Some(type_proto::Value::OpaqueType(type_proto::Opaque {
            domain: Some("x".into()),
            name: None,
        })),
    };
    let reference = "3201643a030a0178";
    // Same fields, swapped: opaque_type first, then denotation.
    assert_eq!(hex(&opaque.encode_to_vec()), "3a030a0178320164");
    let decoded = TypeProto::decode(
        &*(0..reference.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&reference[i..i + 2], 16).unwrap())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    assert_eq!(decoded, opaque);
}
