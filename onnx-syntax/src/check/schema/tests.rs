//! The schema table against its generator, and the schema checks on small texts.

use super::table::{Arity, SOURCE, Table, fnv1a64, table};
use crate::syntax::AttrType;

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
    assert_eq!(table.sets.len(), table.header.sets);
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
    assert_eq!(elu.attribute("alpha").map(|a| a.ty), Some(AttrType::Float));
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
    assert!(table.sets[set].contains(&"tensor(float)"));
    let map = table
        .versions("ai.onnx.ml", "DictVectorizer")
        .expect("DictVectorizer");
    let (_, set) = map[0].constraints[0];
    assert!(table.sets[set].contains(&"map(string, int64)"));
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
    ] {
        assert!(Table::parse(bad).is_err(), "{bad:?}");
    }
    assert!(Table::parse("").is_ok());
}
