//! What flows between nodes: tensors, sequences, optionals and maps, converted to and from the
//! public [`Value`] at the model's edges only.

use crate::error::KernelResult;
use crate::tensor::Tensor;
use onnx_value::{Map, Value};

/// One value inside an evaluation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Tensor(Tensor),
    Sequence(Vec<Val>),
    Optional(Option<Box<Val>>),
    Map(Map),
}

impl Val {
    pub fn from_value(value: &Value) -> KernelResult<Val> {
        Ok(match value {
            Value::Tensor(proto) => Val::Tensor(Tensor::from_proto(proto)?),
            Value::Sequence(items) => Val::Sequence(
                items
                    .iter()
                    .map(Val::from_value)
                    .collect::<KernelResult<_>>()?,
            ),
            Value::Optional(inner) => Val::Optional(match inner {
                Some(inner) => Some(Box::new(Val::from_value(inner)?)),
                None => None,
            }),
            Value::Map(map) => Val::Map(map.clone()),
        })
    }

    pub fn into_value(self) -> Value {
        match self {
            Val::Tensor(tensor) => Value::Tensor(tensor.to_proto()),
            Val::Sequence(items) => {
                Value::Sequence(items.into_iter().map(Val::into_value).collect())
            }
            Val::Optional(inner) => Value::Optional(inner.map(|v| Box::new(v.into_value()))),
            Val::Map(map) => Value::Map(map),
        }
    }

    /// What the value is, in a word, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Tensor(_) => "tensor",
            Val::Sequence(_) => "sequence",
            Val::Optional(_) => "optional",
            Val::Map(_) => "map",
        }
    }

    pub fn as_tensor(&self) -> KernelResult<&Tensor> {
        match self {
            Val::Tensor(tensor) => Ok(tensor),
            other => Err(format!("expected a tensor, got a {}", other.kind())),
        }
    }
}
