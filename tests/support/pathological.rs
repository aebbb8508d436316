//! Generators of pathological inputs: very long lines, deep nesting, huge claimed shapes and
//! huge attribute lists. Shared by `tests/it/limits.rs` (which checks the results) and
//! `examples/limits.rs` (which measures time and memory).
#![allow(dead_code)] // each includer uses some of them

/// A model on one line of at least `bytes` bytes: a chain of `Relu` nodes.
pub fn long_line_model(bytes: usize) -> String {
    let mut text = String::from(
        r#"<ir_version: 10, opset_import: ["" : 21]> g (float[N] v0) => (float[N] y) { "#,
    );
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!("v{} = Relu(v{i}) ", i + 1));
        i += 1;
    }
    text.push_str(&format!("y = Relu(v{i}) }}"));
    text
}

/// A node with one string attribute of `bytes` bytes, on one line.
pub fn long_string_node(bytes: usize) -> String {
    format!(r#"y = Foo <s = "{}"> (x)"#, "abc\\\"".repeat(bytes / 5))
}

/// A `Constant` node whose tensor holds at least `bytes` bytes of literals, on one line, with
/// dims that match the number of values.
pub fn long_tensor_node(bytes: usize) -> String {
    let literals = ["1.5", "-2", "3e-3", "-inf", "0"];
    let count = bytes / 4;
    let values: Vec<&str> = (0..count).map(|i| literals[i % literals.len()]).collect();
    format!(
        "y = Constant <value = float[{count}] {{{}}}> ()",
        values.join(", ")
    )
}

/// A tensor whose shape claims `elements` elements, with three values.
pub fn claimed_shape_node(elem_type: &str, elements: u64) -> String {
    format!("y = Constant <value = {elem_type}[{elements}] {{1, 2, 3}}> ()")
}

/// A graph with an initializer whose shape claims a billion elements.
pub fn claimed_shape_graph() -> String {
    "g (float[1000, 1000, 1000] w = {1, 2, 3}) => (float[1000, 1000, 1000] y) { y = Identity(w) }"
        .to_owned()
}

/// A node with `count` attributes: all named `a` when `same_name`, else `a0`, `a1`, ….
pub fn many_attributes_node(count: usize, same_name: bool) -> String {
    let mut text = String::from("y = Foo <");
    for i in 0..count {
        if i > 0 {
            text.push_str(", ");
        }
        if same_name {
            text.push_str("a = 1");
        } else {
            text.push_str(&format!("a{i} = {i}"));
        }
    }
    text.push_str("> (x)");
    text
}

/// A node whose attribute holds a graph holding a node … `depth` graphs deep.
pub fn nested_graphs(depth: usize) -> String {
    let open = "y = If (c) <g = b () => (y) { ";
    format!("{}y = Foo (){}", open.repeat(depth), " }>".repeat(depth))
}

/// A node whose attribute is a type `depth` levels deep: `seq(seq(…float…))`.
pub fn nested_types(depth: usize) -> String {
    format!(
        "y = Foo <t = {}float{}> ()",
        "seq(".repeat(depth),
        ")".repeat(depth)
    )
}

/// `open` repeated `depth` times at the place of an attribute value (lists, parentheses, …).
pub fn nested_in_attribute(open: &str, close: &str, depth: usize) -> String {
    format!(
        "y = Foo <a = {}1{}> ()",
        open.repeat(depth),
        close.repeat(depth)
    )
}
