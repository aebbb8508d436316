//! The evaluator never panics, whatever it is fed: every kit model, run on its own inputs and on
//! inputs bent out of shape (an element type swapped, dims changed, values that are indices gone
//! out of range), answers with outputs or an error, never a panic.

use onnx_conformance::cases;
use onnx_eval::{Evaluator, Limits, Value};
use onnx_value::elements::{Elements, decode, encode};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Small limits, so that inputs that ask for much are refused quickly.
const LIMITS: Limits = Limits {
    max_elements: 1 << 22,
    max_loop_iterations: 1 << 12,
};

/// Ways to bend a tensor input.
fn bent(value: &Value, how: usize) -> Option<Value> {
    let Value::Tensor(tensor) = value else {
        return None;
    };
    let elements = decode(tensor).ok()?;
    let data_type =
        onnx_text::tensor_proto::DataType::try_from(tensor.data_type.unwrap_or(0)).ok()?;
    let (dims, elements) = match (how, elements) {
        // The same elements, flattened to one dim.
        (0, e) => (vec![e.len() as i64], e),
        // One element more on the last axis (or a scalar made a vector of two).
        (1, e) => {
            let mut dims = tensor.dims.clone();
            match dims.last_mut() {
                Some(last) => *last += 1,
                None => dims.push(2),
            }
            let count = dims.iter().product::<i64>() as usize;
            (dims, grow(e, count))
        }
        // Integers far out of any range: indices, axes, counts.
        (2, Elements::Int(v)) => (
            tensor.dims.clone(),
            Elements::Int(v.iter().map(|_| 1 << 40).collect()),
        ),
        (3, Elements::Int(v)) => (
            tensor.dims.clone(),
            Elements::Int(v.iter().map(|_| -(1 << 40)).collect()),
        ),
        // No elements at all.
        (4, e) => (vec![0], grow(e, 0)),
        _ => return None,
    };
    encode(data_type, &dims, &elements, true)
        .ok()
        .map(Value::Tensor)
}

/// The elements cycled or cut to `count`.
fn grow(elements: Elements, count: usize) -> Elements {
    fn cycle<T: Clone + Default>(v: Vec<T>, count: usize) -> Vec<T> {
        if v.is_empty() {
            return vec![T::default(); count];
        }
        v.iter().cycle().take(count).cloned().collect()
    }
    match elements {
        Elements::Float(v) => Elements::Float(cycle(v, count)),
        Elements::Complex(v) => Elements::Complex(cycle(v, count)),
        Elements::Int(v) => Elements::Int(cycle(v, count)),
        Elements::Bool(v) => Elements::Bool(cycle(v, count)),
        Elements::String(v) => Elements::String(cycle(v, count)),
    }
}

#[test]
fn no_kit_model_panics_on_its_inputs_or_on_bent_ones() {
    let mut panics = Vec::new();
    for case in cases() {
        let model = case.model();
        let Ok(evaluator) = Evaluator::with_limits(&model, LIMITS) else {
            continue;
        };
        let inputs = case.inputs();
        let mut trials = vec![("its inputs".to_string(), inputs.clone())];
        for (i, input) in inputs.iter().enumerate() {
            for how in 0..5 {
                if let Some(input) = bent(input, how) {
                    let mut changed = inputs.clone();
                    changed[i] = input;
                    trials.push((format!("input {i} bent {how}"), changed));
                }
            }
        }
        for (what, inputs) in trials {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let _ = evaluator.run(&inputs).map_err(|e| e.to_string());
            }));
            if let Err(panic) = outcome {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                panics.push(format!("{} ({what}): {message}", case.name()));
            }
        }
    }
    assert!(
        panics.is_empty(),
        "{} runs panicked:\n{}",
        panics.len(),
        panics.join("\n")
    );
}

/// A one-node ai.onnx.ml model over `x` (float [2, 2] unless `input` says otherwise).
fn ml_model(input: &str, output: &str, node: &str) -> onnx_text::ModelProto {
    let text = format!(
        "<ir_version: 9, opset_import: [\"ai.onnx.ml\" : 5, \"\" : 21]>
        g ({input}) => ({output}) {{ {node} }}"
    );
    onnx_text::parse_model(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs `model` on `inputs` under LIMITS: an error naming a node, never a panic or outputs.
fn refused(what: &str, model: &onnx_text::ModelProto, inputs: &[Value]) -> Result<(), String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        Evaluator::with_limits(model, LIMITS).and_then(|e| e.run(inputs))
    }));
    match outcome {
        Err(_) => Err(format!("{what}: panicked")),
        Ok(Ok(_)) => Err(format!("{what}: gave outputs")),
        Ok(Err(e)) if e.to_string().contains(", node ") => Ok(()),
        Ok(Err(e)) => Err(format!("{what}: the error names no node: {e}")),
    }
}

const TREE: &str = "nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
    nodes_featureids: ints = [0, 0, 0], nodes_values: floats = [0.5, 0, 0], \
    nodes_modes: strings = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"]";

/// Hostile models of the ai.onnx.ml operators: attribute lists of the wrong length, ids out of
/// range, cyclic trees, huge class and target counts, features beyond X's. Each is an error
/// naming the node.
#[test]
fn hostile_ml_models_are_errors_naming_the_node() {
    let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let xi = "float[2, 2] x";
    let clf = "int64[2] y, float[2, 2] z";
    let reg = "float[2, 1] y";
    let classifier = |extra: &str| {
        format!(
            "y, z = ai.onnx.ml.TreeEnsembleClassifier <{extra}, classlabels_int64s: ints = [0, 1]> (x)"
        )
    };
    let branches = "nodes_truenodeids: ints = [1, 0, 0], nodes_falsenodeids: ints = [2, 0, 0]";
    let weights = "class_treeids: ints = [0, 0], class_nodeids: ints = [1, 2], \
        class_ids: ints = [0, 1], class_weights: floats = [1, 1]";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "featureids shorter than the nodes",
            classifier(&format!(
                "nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
                 nodes_featureids: ints = [0], nodes_values: floats = [0.5, 0, 0], \
                 nodes_modes: strings = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"], {branches}, {weights}"
            )),
            xi,
            clf,
        ),
        (
            "a true child that does not exist",
            classifier(&format!(
                "{TREE}, nodes_truenodeids: ints = [9, 0, 0], nodes_falsenodeids: ints = [2, 0, 0], {weights}"
            )),
            xi,
            clf,
        ),
        (
            "a cycle",
            classifier(
                "nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
                 nodes_featureids: ints = [0, 0, 0], nodes_values: floats = [0.5, 0.5, 0], \
                 nodes_modes: strings = [\"BRANCH_LEQ\", \"BRANCH_LEQ\", \"LEAF\"], \
                 nodes_truenodeids: ints = [1, 0, 0], nodes_falsenodeids: ints = [2, 2, 0], \
                 class_treeids: ints = [0], class_nodeids: ints = [2], class_ids: ints = [0], \
                 class_weights: floats = [1]",
            ),
            xi,
            clf,
        ),
        (
            "a feature beyond X's",
            classifier(
                &format!("nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
                 nodes_featureids: ints = [7, 0, 0], nodes_values: floats = [0.5, 0, 0], \
                 nodes_modes: strings = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"], {branches}, {weights}"),
            ),
            xi,
            clf,
        ),
        (
            "a negative feature",
            classifier(
                &format!("nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
                 nodes_featureids: ints = [-1, 0, 0], nodes_values: floats = [0.5, 0, 0], \
                 nodes_modes: strings = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"], {branches}, {weights}"),
            ),
            xi,
            clf,
        ),
        (
            "a class id beyond the labels",
            classifier(&format!(
                "{TREE}, {branches}, class_treeids: ints = [0], class_nodeids: ints = [1], \
                 class_ids: ints = [5], class_weights: floats = [1]"
            )),
            xi,
            clf,
        ),
        (
            "a weight on a node that does not exist",
            classifier(&format!(
                "{TREE}, {branches}, class_treeids: ints = [3], class_nodeids: ints = [1], \
                 class_ids: ints = [0], class_weights: floats = [1]"
            )),
            xi,
            clf,
        ),
        (
            "a node listed twice",
            classifier(&format!(
                "nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 1], \
                 nodes_featureids: ints = [0, 0, 0], nodes_values: floats = [0.5, 0, 0], \
                 nodes_modes: strings = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"], {branches}, {weights}"
            )),
            xi,
            clf,
        ),
        (
            "an unknown node mode",
            classifier(&format!(
                "nodes_treeids: ints = [0, 0, 0], nodes_nodeids: ints = [0, 1, 2], \
                 nodes_featureids: ints = [0, 0, 0], nodes_values: floats = [0.5, 0, 0], \
                 nodes_modes: strings = [\"BRANCH_XX\", \"LEAF\", \"LEAF\"], {branches}, {weights}"
            )),
            xi,
            clf,
        ),
        (
            "a huge target count",
            format!(
                "y = ai.onnx.ml.TreeEnsembleRegressor <{TREE}, {branches}, \
                 n_targets: int = 1000000000000, target_treeids: ints = [0], \
                 target_nodeids: ints = [1], target_ids: ints = [0], target_weights: floats = [1]> (x)"
            ),
            xi,
            reg,
        ),
        (
            "weights longer than their ids",
            format!(
                "y = ai.onnx.ml.TreeEnsembleRegressor <{TREE}, {branches}, n_targets: int = 1, \
                 target_treeids: ints = [0], target_nodeids: ints = [1], target_ids: ints = [0], \
                 target_weights: floats = [1, 2, 3]> (x)"
            ),
            xi,
            reg,
        ),
        (
            "TreeEnsemble 5: a leaf that does not exist",
            "y = ai.onnx.ml.TreeEnsemble <n_targets: int = 1, tree_roots: ints = [0], \
             nodes_featureids: ints = [0], nodes_splits: tensor = float[1] {0.5}, \
             nodes_modes: tensor = uint8[1] {0}, nodes_truenodeids: ints = [0], \
             nodes_trueleafs: ints = [1], nodes_falsenodeids: ints = [4], \
             nodes_falseleafs: ints = [1], leaf_targetids: ints = [0], \
             leaf_weights: tensor = float[1] {1.0}> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "TreeEnsemble 5: a member node without a set",
            "y = ai.onnx.ml.TreeEnsemble <n_targets: int = 1, tree_roots: ints = [0], \
             nodes_featureids: ints = [0], nodes_splits: tensor = float[1] {0.5}, \
             nodes_modes: tensor = uint8[1] {6}, nodes_truenodeids: ints = [0], \
             nodes_trueleafs: ints = [1], nodes_falsenodeids: ints = [0], \
             nodes_falseleafs: ints = [1], leaf_targetids: ints = [0], \
             leaf_weights: tensor = float[1] {1.0}> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "TreeEnsemble 5: a root beyond the nodes",
            "y = ai.onnx.ml.TreeEnsemble <n_targets: int = 1, tree_roots: ints = [3], \
             nodes_featureids: ints = [0], nodes_splits: tensor = float[1] {0.5}, \
             nodes_modes: tensor = uint8[1] {0}, nodes_truenodeids: ints = [0], \
             nodes_trueleafs: ints = [1], nodes_falsenodeids: ints = [0], \
             nodes_falseleafs: ints = [1], leaf_targetids: ints = [0], \
             leaf_weights: tensor = float[1] {1.0}> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "TreeEnsemble 5: a huge target count",
            "y = ai.onnx.ml.TreeEnsemble <n_targets: int = 100000000000, tree_roots: ints = [0], \
             nodes_featureids: ints = [0], nodes_splits: tensor = float[1] {0.5}, \
             nodes_modes: tensor = uint8[1] {0}, nodes_truenodeids: ints = [0], \
             nodes_trueleafs: ints = [1], nodes_falsenodeids: ints = [0], \
             nodes_falseleafs: ints = [1], leaf_targetids: ints = [0], \
             leaf_weights: tensor = float[1] {1.0}> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "SVMClassifier: vectors_per_class for other classes",
            "y, z = ai.onnx.ml.SVMClassifier <classlabels_ints: ints = [0, 1], \
             vectors_per_class: ints = [1, 1, 1], support_vectors: floats = [1, 2, 3, 4, 5, 6], \
             coefficients: floats = [1, 1, 1], rho: floats = [0], kernel_type: string = \"RBF\"> (x)"
                .to_string(),
            xi,
            clf,
        ),
        (
            "SVMClassifier: support vectors of the wrong length",
            "y, z = ai.onnx.ml.SVMClassifier <classlabels_ints: ints = [0, 1], \
             vectors_per_class: ints = [1, 1], support_vectors: floats = [1, 2, 3], \
             coefficients: floats = [1, 1], rho: floats = [0]> (x)"
                .to_string(),
            xi,
            clf,
        ),
        (
            "SVMClassifier: too few rho and probabilities",
            "y, z = ai.onnx.ml.SVMClassifier <classlabels_ints: ints = [0, 1, 2], \
             vectors_per_class: ints = [1, 1, 1], support_vectors: floats = [1, 2, 3, 4, 5, 6], \
             coefficients: floats = [1, 1, 1, 1, 1, 1], rho: floats = [0], prob_a: floats = [1], \
             prob_b: floats = [1]> (x)"
                .to_string(),
            xi,
            clf,
        ),
        (
            "SVMRegressor: coefficients for other supports",
            "y = ai.onnx.ml.SVMRegressor <n_supports: int = 2, support_vectors: floats = [1, 2], \
             coefficients: floats = [1], rho: floats = [0]> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "LinearClassifier: coefficients of the wrong length",
            "y, z = ai.onnx.ml.LinearClassifier <classlabels_ints: ints = [0, 1, 2], \
             coefficients: floats = [1, 2], intercepts: floats = [0, 0, 0]> (x)"
                .to_string(),
            xi,
            clf,
        ),
        (
            "LinearRegressor: a huge target count",
            "y = ai.onnx.ml.LinearRegressor <targets: int = 100000000000, coefficients: floats = [1, 2]> (x)"
                .to_string(),
            xi,
            reg,
        ),
        (
            "ZipMap: labels for other columns",
            "z = ai.onnx.ml.ZipMap <classlabels_int64s: ints = [1, 2, 3]> (x)".to_string(),
            xi,
            "seq(map(int64, float)) z",
        ),
        (
            "Scaler: a scale per other feature",
            "y = ai.onnx.ml.Scaler <scale: floats = [1, 2, 3], offset: floats = [0]> (x)"
                .to_string(),
            xi,
            "float[2, 2] y",
        ),
        (
            "Imputer: imputed values per other feature",
            "y = ai.onnx.ml.Imputer <imputed_value_floats: floats = [1, 2, 3]> (x)".to_string(),
            xi,
            "float[2, 2] y",
        ),
        (
            "Normalizer: an unknown norm",
            "y = ai.onnx.ml.Normalizer <norm: string = \"L7\"> (x)".to_string(),
            xi,
            "float[2, 2] y",
        ),
        (
            "OneHotEncoder: an unknown category with zeros 0",
            "y = ai.onnx.ml.OneHotEncoder <cats_int64s: ints = [1], zeros: int = 0> (x)".to_string(),
            xi,
            "float[2, 2, 1] y",
        ),
        (
            "FeatureVectorizer: dimensions for other inputs",
            "y = ai.onnx.ml.FeatureVectorizer <inputdimensions: ints = [2, 2]> (x)".to_string(),
            xi,
            "float[2, 4] y",
        ),
        (
            "DictVectorizer: a tensor for the map",
            "y = ai.onnx.ml.DictVectorizer <int64_vocabulary: ints = [1, 2]> (x)".to_string(),
            xi,
            "float[1, 2] y",
        ),
        (
            "ArrayFeatureExtractor: an index beyond the axis",
            "i = Constant <value: tensor = int64[1] {9}> () \n y = ai.onnx.ml.ArrayFeatureExtractor (x, i)"
                .to_string(),
            xi,
            "float[2, 1] y",
        ),
    ];
    let mut faults = Vec::new();
    for (what, node, input, output) in &cases {
        if let Err(fault) = refused(
            what,
            &ml_model(input, output, node),
            std::slice::from_ref(&x),
        ) {
            faults.push(fault);
        }
    }
    // No rows, so that only the count per row can stop the allocation of a row's scores.
    let no_rows = Value::tensor::<f32>(&[], &[0, 2]).unwrap();
    let huge = format!(
        "y = ai.onnx.ml.TreeEnsembleRegressor <{TREE}, {branches}, n_targets: int = 1000000000000, \
         target_treeids: ints = [0], target_nodeids: ints = [1], target_ids: ints = [0], \
         target_weights: floats = [1]> (x)"
    );
    if let Err(fault) = refused(
        "a huge target count on no rows",
        &ml_model("float[0, 2] x", reg, &huge),
        &[no_rows],
    ) {
        faults.push(fault);
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// A tree 20,000 nodes deep is walked without recursion; the same chain closed into a cycle is
/// an error naming the node.
#[test]
fn deep_and_cyclic_trees() {
    let depth = 20_000;
    let list = |f: &dyn Fn(usize) -> String| (0..=depth).map(f).collect::<Vec<_>>().join(", ");
    let build = |last_true: usize| {
        let modes = list(&|i| {
            if i < depth {
                "\"BRANCH_LEQ\"".into()
            } else {
                "\"LEAF\"".into()
            }
        });
        let ids = list(&|i| i.to_string());
        let trues = list(&|i| {
            if i < depth {
                (i + 1).to_string()
            } else {
                "0".into()
            }
        });
        let trues = trues.replacen(&format!(", {depth}, 0"), &format!(", {last_true}, 0"), 1);
        let falses = list(&|i| {
            if i < depth {
                depth.to_string()
            } else {
                "0".into()
            }
        });
        let zeros = list(&|_| "0".into());
        let values = list(&|_| "9".into());
        let node = format!(
            "y = ai.onnx.ml.TreeEnsembleRegressor <nodes_treeids: ints = [{zeros}], \
             nodes_nodeids: ints = [{ids}], nodes_featureids: ints = [{zeros}], \
             nodes_values: floats = [{values}], nodes_modes: strings = [{modes}], \
             nodes_truenodeids: ints = [{trues}], nodes_falsenodeids: ints = [{falses}], \
             n_targets: int = 1, target_treeids: ints = [0], target_nodeids: ints = [{depth}], \
             target_ids: ints = [0], target_weights: floats = [2.5]> (x)"
        );
        ml_model("float[2, 2] x", "float[2, 1] y", &node)
    };
    let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let y = Evaluator::with_limits(&build(depth), LIMITS)
        .unwrap()
        .run(std::slice::from_ref(&x))
        .unwrap();
    assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.5, 2.5]);
    // The node before the leaf points back at the root.
    refused("a 20,000-node cycle", &build(0), &[x]).unwrap();
}

/// The fuzz target `eval`'s seeds of the ai.onnx.ml operators (fuzz/seeds/eval) parse and run
/// to outputs on the zeros the target feeds, so that the fuzzer starts inside those kernels.
#[test]
fn the_ml_fuzz_seeds_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/eval");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let model = onnx_text::parse_model(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let x = Value::tensor(&[0.0f32; 4], &[2, 2]).unwrap();
        let outputs = Evaluator::with_limits(&model, LIMITS)
            .and_then(|e| e.run(&[x]))
            .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert_eq!(outputs.len(), model.graph.unwrap().output.len());
        count += 1;
    }
    assert!(count >= 5, "{count} seeds");
}
