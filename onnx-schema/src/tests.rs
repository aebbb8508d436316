//! The schema table against its generator, and the schema checks on small texts.

use crate::table::{Arity, SOURCE, Table, fnv1a64, table};
use onnx_syntax::syntax::AttributeType;

#[test]
fn the_table_matches_the_counts_and_checksum_the_generator_wrote() {
    let table = Table::parse(SOURCE).expect("the committed table parses");
    let (first, body) = SOURCE.split_once('\n').expect("a header line");
    assert!(first.starts_with("# onnx operator schemas from onnx==1.23.2"));
    assert_eq!(
        table.header.fnv1a64,
        fnv1a64(body.as_bytes()),
        "schemas.txt was edited by hand"
    );
    assert_eq!(table.operator_count(), table.header.operators);
    assert_eq!(table.schema_count(), table.header.schemas);
    assert_eq!(table.set_count(), table.header.sets);
    assert_eq!((table.header.operators, table.header.schemas), (227, 659));
    assert_eq!(
        table.domain_names(),
        [
            "",
            "ai.onnx.ml",
            "ai.onnx.preview",
            "ai.onnx.preview.training"
        ]
    );
}

#[test]
fn the_table_holds_what_onnx_says_of_a_few_operators() {
    let table = table().expect("table");
    let add = table.versions("", "Add").expect("Add");
    let since: Vec<i64> = add.iter().map(|s| s.since).collect();
    assert_eq!(since, [1, 6, 7, 13, 14]);
    assert!(add[0].attribute("broadcast").is_some());
    assert!(add[2].attribute("broadcast").is_none());
    let cast = &table.versions("ai.onnx", "Cast").expect("Cast")[0];
    let to = cast.attribute("to").expect("to");
    assert!(to.required);
    let concat = table
        .versions("", "Concat")
        .expect("Concat")
        .last()
        .expect("a version");
    assert_eq!((concat.min_inputs, concat.max_inputs), (1, usize::MAX));
    assert_eq!(concat.inputs[0].arity, Arity::Variadic);
    let elu = table
        .versions("", "Elu")
        .expect("Elu")
        .last()
        .expect("a version");
    assert_eq!(
        elu.attribute("alpha").map(|a| a.ty),
        Some(AttributeType::Float)
    );
    let upsample = table.versions("", "Upsample").expect("Upsample");
    assert!(upsample.last().expect("a version").deprecated);
    let loop_ = table
        .versions("", "Loop")
        .expect("Loop")
        .last()
        .expect("a version");
    assert!(!loop_.inputs[2].homogeneous);
    let (param, set) = loop_.constraints[0];
    assert_eq!(param, "V");
    assert!(table.set(set).expect("a set").contains(&"tensor(float)"));
    // Each formal parameter holds the types its constraint allows; a fixed type, none.
    let v = &loop_.inputs[2];
    assert_eq!((v.type_str, v.allowed.as_deref()), ("V", table.set(set)));
    let argmax = table.versions("", "ArgMax").expect("ArgMax");
    let reduced = &argmax[0].outputs[0];
    assert_eq!(
        (reduced.type_str, reduced.allowed.as_deref()),
        ("tensor(int64)", None)
    );
    let map = table
        .versions("ai.onnx.ml", "DictVectorizer")
        .expect("DictVectorizer");
    let (_, set) = map[0].constraints[0];
    assert!(
        table
            .set(set)
            .expect("a set")
            .contains(&"map(string, int64)")
    );
}

#[test]
fn malformed_data_is_an_error_not_a_panic() {
    for bad in [
        "# h\nin x single T\n",
        "# h\nop ai.onnx A 1 1 1 1\n",
        "# h\nop ai.onnx A x 1 1 1 1\n",
        "# h\nop ai.onnx A 1 1 1 1 1\nin x sometimes T\n",
        "# h\nop ai.onnx A 1 1 1 1 1\ntc T 0\n",
        "# h\nset 1 tensor(float)\n",
        "# h\nop ai.onnx A 1 1 1 1 1\nattr a integer\n",
        "# h fnv1a64=xyz\n",
        "# h\nop ai.onnx\n",
        // The versions of an operator are together.
        "# h\nop ai.onnx A 1 1 1 1 1\nop ai.onnx B 1 1 1 1 1\nop ai.onnx A 2 1 1 1 1\n",
        // A set is defined before its first use, if in another operator's lines.
        "# h\nop ai.onnx A 1 1 1 1 1\ntc T 0\nop ai.onnx B 1 1 1 1 1\nset 0 tensor(float)\n",
    ] {
        assert!(Table::parse(bad).is_err(), "{bad:?}");
    }
    assert!(Table::parse("").is_ok());
    let good = "# h\nop ai.onnx A 1 1 1 1 1\nset 0 tensor(float)\nop ai.onnx B 1 1 1 1 1\ntc T 0\n";
    assert!(Table::parse(good).is_ok());
}

#[test]
fn a_malformed_operator_is_left_out_when_it_is_looked_up() {
    // The table is indexed first and an operator parsed on its first lookup.
    let table = Table::index("# h\nop ai.onnx A 1 1 1 1 1\nop ai.onnx B 1 x 1 1 1\n")
        .expect("the index is fine");
    assert_eq!(table.versions("", "A").map(<[_]>::len), Some(1));
    assert!(table.versions("", "B").is_none());
    assert!(table.versions("", "C").is_none());
    assert_eq!(table.sorted_operators("").len(), 1);
}
