//! What one operator's rule sees of its node: the operand types, the attributes, and the
//! values of small integer tensors, which shape computations carry from node to node.

use std::sync::Arc;

use onnx_runtime_types::{AttributeProto, GraphProto, NodeProto, TensorProto};

use super::graph::Scope;
use super::ty::{Dim, Shape, Ty, show_shape};

/// `TensorProto.DataType` numbers that the rules name.
pub mod dtype {
    pub const FLOAT: i32 = 1;
    pub const UINT8: i32 = 2;
    pub const INT32: i32 = 6;
    pub const INT64: i32 = 7;
    pub const STRING: i32 = 8;
    pub const BOOL: i32 = 9;
    pub const FLOAT16: i32 = 10;
    pub const DOUBLE: i32 = 11;
    pub const BFLOAT16: i32 = 16;
}

/// The most values a propagated integer tensor holds; longer ones are not followed.
pub const MAX_DATA: usize = 4096;

/// One node, as its rule sees it, and what the rule infers.
pub struct Node<'a, 's> {
    /// The node.
    pub proto: &'a NodeProto,
    /// The opset version of the node's domain.
    pub opset: i64,
    /// The types of the operands, in order (`None`: unknown or left out), shared with the
    /// scope rather than copied.
    pub inputs: Vec<Option<Arc<Ty>>>,
    /// The values of the operands that are small integer tensors, flattened; the list stops
    /// (or is empty) where the rest have none.
    pub data: Vec<Option<Arc<Vec<Dim>>>>,
    /// The inferred types of the results (an operand's, shared, where a result has its type).
    pub outputs: Vec<Option<Arc<Ty>>>,
    /// The inferred values of the results; empty until a rule sets one (most set none).
    pub out_data: Vec<Option<Vec<Dim>>>,
    /// The first negative dim a rule gave a result (`set` keeps it unknown), with the result.
    pub negative: Option<(usize, i64)>,
    /// The scope the node is in, for its subgraphs.
    pub(super) scope: &'s Scope<'s>,
    /// The engine, for the node's subgraphs.
    pub(super) engine: &'s mut dyn Subgraphs,
}

/// Infers subgraphs for the rules of the nodes that hold them.
pub(super) trait Subgraphs {
    /// The result types of `graph` with these input types, with `outer` visible.
    fn subgraph(
        &mut self,
        graph: &GraphProto,
        inputs: &[Option<Ty>],
        outer: &Scope<'_>,
    ) -> Vec<Option<Ty>>;
}

/// Why a rule gave up: the operands do not fit the operator.
pub struct Conflict {
    /// The operand at fault, if one is.
    pub input: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// A rule's result.
pub type Rule = Result<(), Conflict>;

/// An error on operand `input`.
pub fn conflict(input: usize, message: impl Into<String>) -> Conflict {
    Conflict {
        input: Some(input),
        message: message.into(),
    }
}

impl<'a> Node<'a, '_> {
    /// The type of operand `i`.
    pub fn input(&self, i: usize) -> Option<&Ty> {
        self.inputs.get(i)?.as_deref()
    }

    /// Whether operand `i` is given (not left out with `""`).
    pub fn has_input(&self, i: usize) -> bool {
        self.proto.input.get(i).is_some_and(|n| !n.is_empty())
    }

    /// Whether result `i` is asked for (not left out with `""`).
    pub fn has_output(&self, i: usize) -> bool {
        self.proto.output.get(i).is_some_and(|n| !n.is_empty())
    }

    /// The element type of operand `i`.
    pub fn elem(&self, i: usize) -> Option<i32> {
        self.input(i)?.elem()
    }

    /// The dims of operand `i`, if its rank is known.
    pub fn dims(&self, i: usize) -> Option<&[Dim]> {
        self.input(i)?.dims()
    }

    /// Dim `k` of operand `i`, or unknown.
    pub fn dim(&self, i: usize, k: usize) -> Dim {
        self.dims(i)
            .and_then(|d| d.get(k).cloned())
            .unwrap_or(Dim::Unknown)
    }

    /// The element type attribute `output_dtype` where it is set (not 0), else `fallback`.
    pub fn output_dtype_or(&self, fallback: Option<i32>) -> Option<i32> {
        self.attr("output_dtype")
            .and_then(|a| a.i)
            .filter(|&i| i != 0)
            .map(|i| i as i32)
            .or(fallback)
    }

    /// The dims of operand `i`, if its rank is known, as a vector of its own.
    pub fn shape_of(&self, i: usize) -> Option<Vec<Dim>> {
        self.dims(i).map(<[Dim]>::to_vec)
    }

    /// Result 0 carries operand 0's value, where the operator only moves or reshapes it.
    pub fn pass_data(&mut self) {
        if let Some(data) = self.data(0).map(<[Dim]>::to_vec) {
            self.set_data(0, data);
        }
    }

    /// The value of operand `i` (a small integer tensor), flattened.
    pub fn data(&self, i: usize) -> Option<&[Dim]> {
        self.data.get(i)?.as_deref().map(Vec::as_slice)
    }

    /// The value of operand `i`, or, for an integer scalar or vector of known length whose
    /// value is not known, that many unknown elements: shape computations stay partly known
    /// (`Concat` of a known and an unknown part).
    pub fn values(&self, i: usize) -> Option<Vec<Dim>> {
        if let Some(data) = self.data(i) {
            return Some(data.to_vec());
        }
        let ty = self.input(i)?;
        if !matches!(ty.elem()?, dtype::INT64 | dtype::INT32) {
            return None;
        }
        let len = match ty.dims()? {
            [] => 1,
            [n] => usize::try_from(n.known()?).ok()?,
            _ => return None,
        };
        (len <= MAX_DATA).then(|| vec![Dim::Unknown; len])
    }

    /// The value of operand `i` when every element is known.
    pub fn ints(&self, i: usize) -> Option<Vec<i64>> {
        self.data(i)?.iter().map(Dim::known).collect()
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.proto
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }

    /// An int attribute, or `default`.
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attr(name).and_then(|a| a.i).unwrap_or(default)
    }

    /// An ints attribute, if given.
    pub fn int_list(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).map(|a| a.ints.clone())
    }

    /// A string attribute, if given.
    pub fn string(&self, name: &str) -> Option<&'a [u8]> {
        self.attr(name).and_then(|a| a.s.as_deref())
    }

    /// A tensor attribute, if given.
    pub fn tensor(&self, name: &str) -> Option<&'a TensorProto> {
        self.attr(name).and_then(|a| a.t.as_deref())
    }

    /// A graph attribute, if given.
    pub fn graph(&self, name: &str) -> Option<&'a GraphProto> {
        self.attr(name).and_then(|a| a.g.as_deref())
    }

    /// Sets result `i` to `ty`. A negative dim (from hostile values) becomes unknown.
    pub fn set(&mut self, i: usize, mut ty: Ty) {
        if let Some(dim) = ty.forget_negative_dims() {
            self.negative.get_or_insert((i, dim));
        }
        if let Some(slot) = self.outputs.get_mut(i) {
            *slot = Some(Arc::new(ty));
        }
    }

    /// Sets result `i` to a tensor.
    pub fn set_tensor(&mut self, i: usize, elem: Option<i32>, shape: Shape) {
        self.set(i, Ty::tensor(elem.unwrap_or(0), shape));
    }

    /// Sets the value of result `i`.
    pub fn set_data(&mut self, i: usize, values: Vec<Dim>) {
        if values.len() > MAX_DATA || i >= self.outputs.len() {
            return;
        }
        if self.out_data.len() <= i {
            self.out_data.resize(self.outputs.len(), None);
        }
        self.out_data[i] = Some(values);
    }

    /// Result `i` has operand `from`'s type.
    pub fn same_as_input(&mut self, i: usize, from: usize) {
        let ty = self.inputs.get(from).cloned().flatten();
        if let (Some(ty), Some(slot)) = (ty, self.outputs.get_mut(i)) {
            *slot = Some(ty);
        }
    }

    /// Infers the results of a subgraph with these types for its inputs (those it declares
    /// stay where a type here is `None`); outer values are visible.
    pub fn subgraph(&mut self, graph: &'a GraphProto, inputs: &[Option<Ty>]) -> Vec<Option<Ty>> {
        self.engine.subgraph(graph, inputs, self.scope)
    }

    /// A conflict on each of `operands` that is left out with `""`, for an operator that needs
    /// its type (onnx's inference reads every one of them).
    pub fn written(&self, operands: impl IntoIterator<Item = usize>) -> Result<(), Conflict> {
        for i in operands {
            if self.proto.input.get(i).is_some_and(String::is_empty) {
                let message =
                    format!("operand {i} is left out with `\"\"`, but its type is needed");
                return Err(conflict(i, message));
            }
        }
        Ok(())
    }

    /// A conflict on operand `i` (named `what` in the message) when its rank is known and not
    /// one of `ranks`; its dims otherwise, if known.
    pub fn ranked(
        &self,
        i: usize,
        what: &str,
        ranks: &[usize],
    ) -> Result<Option<&[Dim]>, Conflict> {
        let Some(dims) = self.dims(i) else {
            return Ok(None);
        };
        if ranks.contains(&dims.len()) {
            return Ok(Some(dims));
        }
        let wanted = match ranks {
            [] => "no rank".to_owned(),
            [one] => format!("rank {one}"),
            [init @ .., last] => {
                let init: Vec<String> = init.iter().map(usize::to_string).collect();
                format!("rank {} or {last}", init.join(", "))
            }
        };
        Err(rank_conflict(i, what, &wanted, dims))
    }

    /// A conflict on operand `i` (named `what` in the message) when its rank is known and
    /// below `min`.
    pub fn rank_at_least(&self, i: usize, what: &str, min: usize) -> Result<(), Conflict> {
        match self.dims(i) {
            Some(dims) if dims.len() < min => {
                Err(rank_conflict(i, what, &format!("rank {min} or more"), dims))
            }
            _ => Ok(()),
        }
    }

    /// onnx's unification of operand `i` (named `what`) with the sizes an operator shares
    /// between operands: where its rank is known it must be `sizes.len()`, and each dim is
    /// unified ([`unify`]) with its size, named in the message.
    pub fn unify_operand(&self, i: usize, what: &str, sizes: &mut [(&str, &mut Dim)]) -> Rule {
        let Some(dims) = self.ranked(i, what, &[sizes.len()])? else {
            return Ok(());
        };
        for ((name, size), found) in sizes.iter_mut().zip(dims) {
            unify(size, found, i, name)?;
        }
        Ok(())
    }

    /// An axis attribute or value made non-negative for rank `rank`; a conflict on `input`
    /// when it is out of range.
    pub fn axis(&self, axis: i64, rank: usize, input: usize) -> Result<usize, Conflict> {
        let r = rank as i64;
        if axis < -r || axis >= r {
            return Err(conflict(
                input,
                format!("axis {axis} is out of range for rank {rank}"),
            ));
        }
        Ok(if axis < 0 { axis + r } else { axis } as usize)
    }
}

/// onnx's unification of a size an operator shares between operands (the batch of the query
/// and of the key): `size` takes the first known value (or, failing one, a name) that operand
/// `input` shows as `found`, and a known value that differs from it is a conflict.
pub fn unify(size: &mut Dim, found: &Dim, input: usize, what: &str) -> Rule {
    match (&*size, found) {
        (Dim::Known(a), Dim::Known(b)) if a != b => Err(conflict(
            input,
            format!("operand {input}: {what} {b}, against {a} elsewhere"),
        )),
        (Dim::Symbol(_) | Dim::Unknown, Dim::Known(_)) | (Dim::Unknown, Dim::Symbol(_)) => {
            *size = found.clone();
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Operand `i` (`what`) has `dims`, not the rank `wanted` says.
fn rank_conflict(i: usize, what: &str, wanted: &str, dims: &[Dim]) -> Conflict {
    let found = show_shape(dims);
    let message = format!(
        "operand {i} ({what}) must have {wanted}, found {found} (rank {})",
        dims.len()
    );
    conflict(i, message)
}

/// The values of an integer tensor of at most [`MAX_DATA`] elements.
pub fn tensor_ints(tensor: &TensorProto) -> Option<Vec<i64>> {
    let count = tensor
        .dims
        .iter()
        .try_fold(1_i64, |n, &d| n.checked_mul(d))?;
    if count < 0 || count as usize > MAX_DATA {
        return None;
    }
    let values: Vec<i64> = match tensor.data_type? {
        dtype::INT64 => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
            None => tensor.int64_data.clone(),
        },
        dtype::INT32 => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(4)
                .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap_or([0; 4]))))
                .collect(),
            None => tensor.int32_data.iter().map(|&v| i64::from(v)).collect(),
        },
        _ => return None,
    };
    (values.len() as i64 == count).then_some(values)
}

/// The type of a tensor constant.
pub fn tensor_type(tensor: &TensorProto) -> Ty {
    Ty::tensor(
        tensor.data_type.unwrap_or(0),
        Some(
            tensor
                .dims
                .iter()
                .map(|&d| if d >= 0 { Dim::Known(d) } else { Dim::Unknown })
                .collect(),
        ),
    )
}
