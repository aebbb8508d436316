//! Deep nesting gets a positioned error, never a stack overflow.

use onnx_syntax::parse::MAX_NESTING;
use onnx_syntax::{parse_graph, parse_node};

/// A node whose attribute holds a graph holding a node … `depth` graphs deep.
fn nested_graphs(depth: usize) -> String {
    let open = "y = If (c) <g = b () => (y) { ";
    format!("{}y = Foo (){}", open.repeat(depth), " }>".repeat(depth))
}

fn nested_types(depth: usize) -> String {
    format!(
        "y = Foo <t = {}float{}> ()",
        "seq(".repeat(depth),
        ")".repeat(depth)
    )
}

#[test]
fn graphs_up_to_the_limit_parse() {
    // The node's own graph attributes count from 1.
    assert!(parse_node(&nested_graphs(MAX_NESTING as usize)).is_ok());
}

#[test]
fn types_up_to_the_limit_parse() {
    // The element type itself is one level.
    assert!(parse_node(&nested_types(MAX_NESTING as usize - 1)).is_ok());
}

#[test]
fn graphs_past_the_limit_are_an_error() {
    let err = parse_node(&nested_graphs(MAX_NESTING as usize + 1)).unwrap_err();
    assert!(err.message().contains("nest more than 32 levels"), "{err}");
}

#[test]
fn hundred_thousand_levels_are_an_error_not_a_crash() {
    for text in [nested_graphs(100_000), nested_types(100_000)] {
        let err = parse_node(&text).unwrap_err();
        assert!(err.message().contains("nest more than"), "{err}");
        assert_eq!(err.line(), 1);
    }
    let graph = format!("g () => () {{ {} }}", nested_graphs(100_000));
    assert!(parse_graph(&graph).is_err());
}

#[test]
fn deep_nesting_at_the_limit_fits_a_small_stack() {
    // Debug builds use the most stack: about 1 MiB at the limit, within a default 2 MiB thread.
    let text = format!(
        "g () => () {{ {} }}",
        nested_graphs(MAX_NESTING as usize - 1)
    );
    let types = nested_types(MAX_NESTING as usize - 1);
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            assert!(parse_graph(&text).is_ok());
            assert!(parse_node(&types).is_ok());
        })
        .unwrap()
        .join()
        .unwrap();
}
