//! Bad inputs and hostile models get errors that say where, never a panic.

use onnx_eval::{Evaluator, Limits, Value, run};

fn model(text: &str) -> onnx_text::ModelProto {
    onnx_text::parse_model(text).unwrap_or_else(|e| panic!("{e}"))
}

const ADD: &str = r#"
    <ir_version: 10, opset_import: ["" : 21]>
    add (float[2, N] a, float[2, N] b) => (float[2, N] c) { c = Add (a, b) }
"#;

#[test]
fn a_wrong_input_count_type_or_shape_names_the_input() {
    let add = model(ADD);
    let ones = |dims: &[usize]| Value::tensor(&vec![1.0f32; dims.iter().product()], dims).unwrap();
    let error = run(&add, &[ones(&[2, 3])]).unwrap_err();
    assert_eq!(error.to_string(), "the graph takes 2 inputs, 1 were given");
    let ints = Value::tensor(&[1i64, 2], &[2, 1]).unwrap();
    let error = run(&add, &[ones(&[2, 1]), ints]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input 1 (`b`): expected a tensor of FLOAT, got INT64"
    );
    let error = run(&add, &[ones(&[3, 1]), ones(&[2, 1])]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input 0 (`a`): expected shape [2, N], got [3, 1]"
    );
    let error = run(&add, &[Value::Sequence(vec![]), ones(&[2, 1])]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input 0 (`a`): expected a tensor, got a sequence"
    );
}

#[test]
fn a_kernel_error_names_the_graph_node_operator_and_outputs() {
    // N differs between the inputs: the shapes do not broadcast.
    let add = model(ADD);
    let a = Value::tensor(&[1.0f32; 6], &[2, 3]).unwrap();
    let b = Value::tensor(&[1.0f32; 4], &[2, 2]).unwrap();
    let error = run(&add, &[a, b]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "graph `add`, node 0 (Add, outputs `c`): shapes [2, 3] and [2, 2] do not broadcast"
    );
}

#[test]
fn a_bad_reshape_is_an_error_of_its_node() {
    let reshape = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[6] x, int64[2] shape) => (float[?, ?] y) {
            t = Relu (x)
            y = Reshape (t, shape)
        }
        "#,
    );
    let x = Value::tensor(&[0.0f32; 6], &[6]).unwrap();
    let shape = Value::tensor(&[4i64, -1], &[2]).unwrap();
    let error = run(&reshape, &[x, shape]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "graph `g`, node 1 (Reshape, outputs `y`): cannot reshape [6] to [4, -1]"
    );
}

#[test]
fn an_unknown_operator_version_or_domain_is_an_error_of_new() {
    let unknown = |text: &str| Evaluator::new(&model(text)).unwrap_err().to_string();
    // Relu exists from version 1 of the default domain; a domain nobody defines does not.
    assert_eq!(
        unknown(
            r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
            g (float[1] x) => (float[1] y) { y = com.acme.Relu (x) }"#
        ),
        "graph `g`, node 0 (Relu, outputs `y`): no operator Relu in domain `com.acme` at opset 1"
    );
    // Gelu came in version 20.
    assert_eq!(
        unknown(
            r#"<ir_version: 10, opset_import: ["" : 19]>
            g (float[1] x) => (float[1] y) { y = Gelu (x) }"#
        ),
        "graph `g`, node 0 (Gelu, outputs `y`): no operator Gelu in domain `` at opset 19"
    );
}

#[test]
fn a_tensor_beyond_the_size_limit_is_refused_before_it_is_made() {
    let expand = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21]>
        g (int64[3] shape) => (float[?, ?, ?] y) { y = ConstantOfShape (shape) }
        "#,
    );
    // 2^60 elements: allocating would abort the process.
    let shape = Value::tensor(&[1i64 << 20, 1 << 20, 1 << 20], &[3]).unwrap();
    let error = run(&expand, &[shape]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "graph `g`, node 0 (ConstantOfShape, outputs `y`): the result would hold \
         1152921504606846976 elements, over the limit of 268435456 (Limits::max_elements)"
    );
}

#[test]
fn a_loop_that_would_not_end_stops_at_the_iteration_limit() {
    // No trip count, and a condition that stays true.
    let forever = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21]>
        g (bool cond, float x) => (float y) {
            y = Loop ("", cond, x) <body = body (int64 i, bool c, float v) => (bool c_out, float v_out) {
                c_out = Identity (c)
                v_out = Identity (v)
            }>
        }
        "#,
    );
    let limits = Limits {
        max_loop_iterations: 100,
        ..Default::default()
    };
    let evaluator = Evaluator::with_limits(&forever, limits).unwrap();
    let inputs = [
        Value::tensor(&[true], &[]).unwrap(),
        Value::tensor(&[1.0f32], &[]).unwrap(),
    ];
    let error = evaluator.run(&inputs).unwrap_err();
    assert_eq!(
        error.to_string(),
        "graph `g`, node 0 (Loop, outputs `y`): the loop ran 100 iterations, the limit \
         (Limits::max_loop_iterations)"
    );
}

#[test]
fn loops_carry_values_stack_scan_outputs_and_read_the_outer_scope() {
    // Three trips: the carried sum adds the outer `step` each time; each trip's sum is scanned.
    let counting = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21]>
        g (int64 trips, float step) => (float total, float[3] sums) {
            total, sums = Loop (trips, "", zero) <body = body (int64 i, bool c, float s) => (bool c_out, float s_out, float scanned) {
                c_out = Identity (c)
                s_out = Add (s, step)
                scanned = Identity (s_out)
            }>
            zero = Constant <value = float {0.0}> ()
        }
        "#,
    );
    let error = run(
        &counting,
        &[
            Value::tensor(&[3i64], &[]).unwrap(),
            Value::tensor(&[0.5f32], &[]).unwrap(),
        ],
    );
    // `zero` is used before it is defined: the evaluator says so at the Loop.
    assert_eq!(
        error.unwrap_err().to_string(),
        "graph `g`, node 0 (Loop, outputs `total`, `sums`): input `zero` has no value"
    );
    let ordered = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21]>
        g (int64 trips, float step) => (float total, float[3] sums) {
            zero = Constant <value = float {0.0}> ()
            total, sums = Loop (trips, "", zero) <body = body (int64 i, bool c, float s) => (bool c_out, float s_out, float scanned) {
                c_out = Identity (c)
                s_out = Add (s, step)
                scanned = Identity (s_out)
            }>
        }
        "#,
    );
    let outputs = run(
        &ordered,
        &[
            Value::tensor(&[3i64], &[]).unwrap(),
            Value::tensor(&[0.5f32], &[]).unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(outputs[0].to_vec::<f32>().unwrap(), [1.5]);
    assert_eq!(outputs[1].to_vec::<f32>().unwrap(), [0.5, 1.0, 1.5]);
    assert_eq!(outputs[1].dims(), Some(vec![3]));
}

#[test]
fn model_local_functions_take_attributes_by_reference_with_their_defaults() {
    // `Scale` multiplies by its attribute `by`, 2.0 unless the call says otherwise; it calls
    // `Twice`, a function of its own.
    let functions = model(
        r#"
        <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[2] x) => (float[2] a, float[2] b) {
            a = local.Scale (x)
            b = local.Scale <by = 5.0> (x)
        }
        <domain: "local", opset_import: ["" : 21, "local" : 1]>
        Scale <by: float = 2.0> (x) => (y) {
            k = Constant <value_float: float = @by> ()
            t = Mul (x, k)
            y = local.Twice (t)
        }
        <domain: "local", opset_import: ["" : 21]>
        Twice (x) => (y) {
            y = Add (x, x)
        }
        "#,
    );
    let outputs = run(&functions, &[Value::tensor(&[1.0f32, -3.0], &[2]).unwrap()]).unwrap();
    assert_eq!(outputs[0].to_vec::<f32>().unwrap(), [4.0, -12.0]);
    assert_eq!(outputs[1].to_vec::<f32>().unwrap(), [10.0, -30.0]);
}

/// Initializers are read in place, not copied into each run's scope: a fed input of the same
/// name (an IR 3 model's weight with a default) still shadows the initializer, and the other
/// initializers read the same on every run.
#[test]
fn a_fed_input_shadows_an_initializer_of_its_name() {
    let model = model(
        r#"<ir_version: 3, opset_import: ["" : 13]>
        g (float[1] x, float[1] w) => (float[1] z)
        <float[1] w = {2.0}, float[1] b = {1.0}>
        {
            y = Mul (x, w)
            z = Add (y, b)
        }"#,
    );
    let evaluator = Evaluator::new(&model).unwrap();
    let x = Value::tensor(&[3.0f32], &[1]).unwrap();
    for (w, z) in [(5.0f32, 16.0f32), (7.0, 22.0)] {
        let w = Value::tensor(&[w], &[1]).unwrap();
        let out = evaluator.run(&[x.clone(), w]).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [z]);
    }
}

/// A graph input with an initializer need not be fed: the values given feed either every
/// input or those without an initializer, each in the graph's order, whatever the IR version.
/// Any other count is an error that names both counts; a fed value that overrides an
/// initializer is checked against the input's declaration.
#[test]
fn inputs_with_an_initializer_are_optional_to_feed() {
    for ir in [3, 10] {
        // The weight comes first: a short feed skips it rather than take the first position.
        let model = model(&format!(
            r#"<ir_version: {ir}, opset_import: ["" : 13]>
            g (float[1] w, float[1] x, float[1] b, float[1] y) => (float[1] z)
            <float[1] w = {{2.0}}, float[1] b = {{1.0}}>
            {{
                p = Mul (x, w)
                q = Add (p, b)
                z = Sub (q, y)
            }}"#
        ));
        let evaluator = Evaluator::new(&model).unwrap();
        let f = |v: f32| Value::tensor(&[v], &[1]).unwrap();
        let z = |inputs: &[Value]| evaluator.run(inputs).map(|o| o[0].to_vec::<f32>().unwrap());
        // x = 3, y = 10: 3 * 2 + 1 - 10.
        assert_eq!(z(&[f(3.0), f(10.0)]).unwrap(), [-3.0], "IR {ir}");
        // Every input fed: w = 5 and b = 0 override the initializers.
        assert_eq!(
            z(&[f(5.0), f(3.0), f(0.0), f(10.0)]).unwrap(),
            [5.0],
            "IR {ir}"
        );
        // The initializers are untouched by an overriding run.
        assert_eq!(z(&[f(3.0), f(10.0)]).unwrap(), [-3.0], "IR {ir}");
        for count in [0, 1, 3, 5] {
            let error = z(&vec![f(1.0); count]).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "the graph takes 4 inputs, 2 of them without an initializer: give 4, or 2; \
                     {count} were given"
                ),
                "IR {ir}"
            );
        }
        let ints = Value::tensor(&[5i64], &[1]).unwrap();
        let error = z(&[ints, f(3.0), f(0.0), f(10.0)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "input 0 (`w`): expected a tensor of FLOAT, got INT64"
        );
        // A short feed names the inputs it fills by their graph positions.
        let error = z(&[f(3.0), Value::tensor(&[1.0f32, 2.0], &[2]).unwrap()]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "input 3 (`y`): expected shape [1], got [2]"
        );
    }
}
