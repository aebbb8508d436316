//! The `ai.onnx.ml` operators: encoders, classifiers, tree ensembles, maps.

use onnx_runtime_types::AttributeProto;

use crate::node::{Conflict, Node, Rule, conflict, dtype};
use crate::ty::{Dim, Ty};

/// `LabelEncoder` (ai.onnx.ml): the operand's shape; the element type of the values it maps to.
/// From opset 4, onnx requires exactly one attribute of keys and one of values, keys of the
/// operand's element type.
pub fn label_encoder(node: &mut Node) -> Rule {
    if node.opset >= 4 {
        let keys = one_of(node, "keys")?;
        one_of(node, "values")?;
        let count = |kind: &str| -> Result<Option<usize>, Conflict> {
            let names = ["tensor", "strings", "int64s", "floats"].map(|s| format!("{kind}_{s}"));
            names
                .iter()
                .find_map(|name| node.attr(name))
                .map_or(Ok(None), attr_len)
        };
        if let (Some(keys), Some(values)) = (count("keys")?, count("values")?)
            && keys != values
        {
            return Err(conflict(
                0,
                format!("{keys} keys map to {values} values: they must be as many"),
            ));
        }
        if let (Some(key), Some(elem)) = (keys, node.elem(0))
            && key != elem
        {
            return Err(conflict(
                0,
                format!("the keys have element type {key}, operand 0 has {elem}"),
            ));
        }
        // The value of keys not found: one value, as a one-dim tensor.
        if let Some(default) = node.tensor("default_tensor")
            && default.dims != [1]
        {
            return Err(conflict(
                0,
                format!(
                    "default_tensor must be a one-dim tensor of one value, found dims {:?}",
                    default.dims
                ),
            ));
        }
    }
    let elem = if node.attr("values_strings").is_some() {
        Some(dtype::STRING)
    } else if node.attr("values_int64s").is_some() {
        Some(dtype::INT64)
    } else if node.attr("values_floats").is_some() {
        Some(dtype::FLOAT)
    } else {
        node.tensor("values_tensor").and_then(|t| t.data_type)
    };
    let shape = node.shape_of(0);
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// How many values a list attribute holds (a tensor attribute must be one-dim).
fn attr_len(attr: &AttributeProto) -> Result<Option<usize>, Conflict> {
    let lists = [attr.ints.len(), attr.floats.len(), attr.strings.len()];
    if let Some(&n) = lists.iter().find(|&&n| n > 0) {
        return Ok(Some(n));
    }
    let Some(tensor) = attr.t.as_deref() else {
        return Ok(None);
    };
    match tensor.dims.as_slice() {
        [n] => Ok(usize::try_from(*n).ok()),
        dims => Err(conflict(
            0,
            format!(
                "the attribute {} must be a one-dim tensor, found dims {dims:?}",
                attr.name.as_deref().unwrap_or("")
            ),
        )),
    }
}

/// The element type of the one attribute `KIND_tensor`, `KIND_strings`, `KIND_int64s` or
/// `KIND_floats` that `LabelEncoder` must have (`None` for a tensor of no element type).
fn one_of(node: &Node, kind: &str) -> Result<Option<i32>, Conflict> {
    let kinds = [
        ("tensor", None),
        ("strings", Some(dtype::STRING)),
        ("int64s", Some(dtype::INT64)),
        ("floats", Some(dtype::FLOAT)),
    ];
    let mut found = Vec::new();
    for (suffix, elem) in kinds {
        let name = format!("{kind}_{suffix}");
        if let Some(attr) = node.attr(&name) {
            let elem = elem.or_else(|| attr.t.as_ref().and_then(|t| t.data_type));
            found.push((name, elem));
        }
    }
    match found.as_slice() {
        [(_, elem)] => Ok(*elem),
        [] => Err(conflict(
            0,
            format!(
                "one of the attributes {kind}_tensor, {kind}_strings, {kind}_int64s or {kind}_floats is needed"
            ),
        )),
        [(a, _), (b, _), ..] => Err(conflict(
            0,
            format!("only one of the attributes {a} and {b} may be given"),
        )),
    }
}

/// `ArrayFeatureExtractor` (ai.onnx.ml): the input's dims with the last replaced by the
/// number of indices.
pub fn array_feature_extractor(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let count = node
        .dims(1)
        .and_then(Dim::product)
        .map_or(Dim::Unknown, Dim::Known);
    let shape = node.dims(0).filter(|d| d.len() >= 2).map(|d| {
        let mut out = d[..d.len() - 1].to_vec();
        out.push(count.clone());
        out
    });
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `TreeEnsemble` (ai.onnx.ml): `[N, n_targets]` of the input's element type. The input is
/// `[N, features]`; every `nodes_*` attribute has one value per tree node (as many as
/// `nodes_splits`), and `leaf_targetids` one per leaf weight.
pub fn tree_ensemble(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.ranked(0, "X", &[2])?;
    if let Some(splits) = node.attr("nodes_splits")
        && let Some(nodes) = attr_len(splits)?
    {
        let per_node = [
            "nodes_featureids",
            "nodes_hitrates",
            "nodes_modes",
            "nodes_truenodeids",
            "nodes_falsenodeids",
            "nodes_trueleafs",
            "nodes_falseleafs",
            "nodes_missing_value_tracks_true",
        ];
        for name in per_node {
            if let Some(attr) = node.attr(name)
                && let Some(found) = attr_len(attr)?
                && found != nodes
            {
                let message = format!(
                    "the attribute {name} must have {nodes} values (one per tree node, as nodes_splits), found {found}"
                );
                return Err(conflict(0, message));
            }
        }
    }
    if let (Some(targets), Some(weights)) = (node.attr("leaf_targetids"), node.attr("leaf_weights"))
        && let (Some(targets), Some(weights)) = (attr_len(targets)?, attr_len(weights)?)
        && targets != weights
    {
        let message = format!(
            "the attribute leaf_targetids must have {weights} values (one per leaf weight), found {targets}"
        );
        return Err(conflict(0, message));
    }
    let n = node.dim(0, 0);
    // A negative n_targets is a negative dim, which the engine reports.
    let targets = node
        .attr("n_targets")
        .and_then(|a| a.i)
        .map_or(Dim::Unknown, Dim::Known);
    node.set_tensor(0, elem, Some(vec![n, targets]));
    Ok(())
}

/// The labels of an `ai.onnx.ml` classifier: int64 with `classlabels_ints` (or `_int64s`),
/// else strings; their count, where the int labels give it.
fn class_labels(node: &Node) -> (i32, Dim) {
    for name in ["classlabels_ints", "classlabels_int64s"] {
        if let Some(labels) = node.int_list(name).filter(|l| !l.is_empty()) {
            return (dtype::INT64, Dim::Known(labels.len() as i64));
        }
    }
    (dtype::STRING, Dim::Unknown)
}

/// `LinearClassifier` (ai.onnx.ml): a label per row, and a float score per row and class.
pub fn linear_classifier(node: &mut Node) -> Rule {
    let (label, classes) = class_labels(node);
    let rows = match node.dims(0) {
        Some([n, _]) => Some(n.clone()),
        Some([_]) => Some(Dim::Known(1)),
        _ => None,
    };
    node.set_tensor(0, Some(label), rows.clone().map(|n| vec![n]));
    node.set_tensor(1, Some(dtype::FLOAT), rows.map(|n| vec![n, classes]));
    Ok(())
}

/// `SVMClassifier` (ai.onnx.ml): the labels' element type and float scores; onnx gives no
/// shapes.
pub fn svm_classifier(node: &mut Node) -> Rule {
    let (label, _) = class_labels(node);
    node.set_tensor(0, Some(label), None);
    node.set_tensor(1, Some(dtype::FLOAT), None);
    Ok(())
}

/// `CategoryMapper` (ai.onnx.ml): int64 to string or string to int64, the shape kept.
pub fn category_mapper(node: &mut Node) -> Rule {
    let elem = match node.elem(0) {
        Some(dtype::STRING) => dtype::INT64,
        Some(_) => dtype::STRING,
        None => return Ok(()),
    };
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `OneHotEncoder` (ai.onnx.ml): float, the input's dims and one more, the category count.
pub fn one_hot_encoder(node: &mut Node) -> Rule {
    let count = node
        .attr("cats_int64s")
        .map(|a| a.ints.len())
        .filter(|&n| n > 0)
        .or_else(|| node.attr("cats_strings").map(|a| a.strings.len()))
        .map_or(Dim::Unknown, |n| Dim::Known(n as i64));
    let shape = node.shape_of(0).map(|mut d| {
        d.push(count);
        d
    });
    node.set_tensor(0, Some(dtype::FLOAT), shape);
    Ok(())
}

/// `ZipMap` (ai.onnx.ml): a sequence of maps from the labels to float scalars.
pub fn zip_map(node: &mut Node) -> Rule {
    let key = if node.attr("classlabels_int64s").is_some() {
        dtype::INT64
    } else {
        dtype::STRING
    };
    let value = Box::new(Ty::tensor(dtype::FLOAT, Some(Vec::new())));
    node.set(0, Ty::Sequence(Box::new(Ty::Map { key, value })));
    Ok(())
}

/// `DictVectorizer` (ai.onnx.ml): the map's value element type; onnx gives no shape.
pub fn dict_vectorizer(node: &mut Node) -> Rule {
    if let Some(Ty::Map { value, .. }) = node.input(0) {
        let elem = value.elem();
        node.set_tensor(0, elem, None);
    }
    Ok(())
}

/// `CastMap` (ai.onnx.ml): the element type `cast_to` names; onnx gives no shape.
pub fn cast_map(node: &mut Node) -> Rule {
    let elem = match node.string("cast_to") {
        Some(b"TO_STRING") => dtype::STRING,
        Some(b"TO_INT64") => dtype::INT64,
        _ => dtype::FLOAT,
    };
    node.set_tensor(0, Some(elem), None);
    Ok(())
}
