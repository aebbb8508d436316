//! The types that inference works with: lighter than `TypeProto` to compare and combine, and
//! converted from and to it at the edges.

use onnx_runtime_types::{TensorShapeProto, TypeProto, tensor_shape_proto, type_proto};

/// One dimension of a shape.
///
/// ```
/// use onnx_infer::Dim;
/// assert!(Dim::Symbol("N".into()).compatible(&Dim::Known(3)));
/// assert!(!Dim::Known(3).compatible(&Dim::Known(4)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known size.
    Known(i64),
    /// A size named by the model (`N`): equal to every other dim of that name.
    Symbol(String),
    /// A size nothing says anything about.
    Unknown,
}

impl Dim {
    /// The known size, if there is one.
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// assert_eq!(Dim::Known(3).known(), Some(3));
    /// assert_eq!(Dim::Unknown.known(), None);
    /// ```
    pub fn known(&self) -> Option<i64> {
        match self {
            Dim::Known(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether the two can be the same size (`N` and `3` can; `3` and `4` cannot).
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// assert!(Dim::Unknown.compatible(&Dim::Known(4)));
    /// ```
    pub fn compatible(&self, other: &Dim) -> bool {
        match (self, other) {
            (Dim::Known(a), Dim::Known(b)) => a == b,
            _ => true,
        }
    }

    /// The product of dims, if every one is known and it does not overflow.
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// assert_eq!(Dim::product(&[Dim::Known(2), Dim::Known(3)]), Some(6));
    /// assert_eq!(Dim::product(&[Dim::Known(i64::MAX), Dim::Known(2)]), None);
    /// ```
    pub fn product<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Option<i64> {
        dims.into_iter()
            .try_fold(1_i64, |acc, d| acc.checked_mul(d.known()?))
    }

    /// The product of two dims as onnx's inference takes it: two sizes multiply; a size of 1
    /// leaves the other dim as it is, a symbol included (`N` times 1 is `N`); anything else is
    /// unknown.
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// let n = Dim::Symbol("N".into());
    /// assert_eq!(n.times(&Dim::Known(1)), n);
    /// assert_eq!(Dim::Known(2).times(&Dim::Known(3)), Dim::Known(6));
    /// assert_eq!(n.times(&Dim::Known(2)), Dim::Unknown);
    /// assert_eq!(n.times(&n), Dim::Unknown);
    /// ```
    pub fn times(&self, other: &Dim) -> Dim {
        match (self, other) {
            (Dim::Known(a), Dim::Known(b)) => a.checked_mul(*b).map_or(Dim::Unknown, Dim::Known),
            (Dim::Known(1), kept) | (kept, Dim::Known(1)) => kept.clone(),
            _ => Dim::Unknown,
        }
    }

    /// The product of dims by [`times`](Dim::times), 1 for none: what onnx's inference makes
    /// of a run of dims it multiplies (`Flatten`'s two halves).
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// let n = Dim::Symbol("N".into());
    /// assert_eq!(Dim::times_all(&[n.clone(), Dim::Known(1)]), n);
    /// assert_eq!(Dim::times_all(&[]), Dim::Known(1));
    /// ```
    pub fn times_all<'a>(dims: impl IntoIterator<Item = &'a Dim>) -> Dim {
        dims.into_iter().fold(Dim::Known(1), |acc, d| acc.times(d))
    }

    /// The dim divided by a size as onnx's inference takes it: a size divides (rounding down);
    /// a symbol divided by 1 stays itself; anything else is unknown.
    ///
    /// ```
    /// # use onnx_infer::Dim;
    /// let h = Dim::Symbol("H".into());
    /// assert_eq!(h.divided(1), h);
    /// assert_eq!(Dim::Known(8).divided(2), Dim::Known(4));
    /// assert_eq!(h.divided(2), Dim::Unknown);
    /// ```
    pub fn divided(&self, by: i64) -> Dim {
        match self {
            Dim::Known(n) if by != 0 => Dim::Known(n / by),
            kept if by == 1 => kept.clone(),
            _ => Dim::Unknown,
        }
    }
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            // A macro literal's hole stays its marker, for the macro to write the hole's Rust
            // expression in its place (`#b`); no runtime text holds one.
            Dim::Symbol(s)
                if onnx_syntax::lex::is_identifier(s) || onnx_syntax::hole::is_marker(s) =>
            {
                f.write_str(s)
            }
            Dim::Symbol(s) => write!(f, "{s:?}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A shape: its dims, or `None` where even the rank is unknown.
///
/// ```
/// use onnx_infer::{Dim, Shape};
/// let unknown_rank: Shape = None;
/// let scalar: Shape = Some(vec![]);
/// assert_ne!(unknown_rank, scalar);
/// ```
pub type Shape = Option<Vec<Dim>>;

/// The type of a value.
///
/// ```
/// use onnx_infer::{Dim, Ty};
/// let ty = Ty::tensor(1, Some(vec![Dim::Symbol("N".into()), Dim::Known(3)]));
/// assert_eq!(ty.to_string(), "float[N, 3]");
/// assert_eq!(Ty::from_proto(&ty.to_proto()), Some(ty));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A tensor of element type `elem` (a `TensorProto.DataType` number; 0 if unknown).
    Tensor { elem: i32, shape: Shape },
    /// A sparse tensor.
    Sparse { elem: i32, shape: Shape },
    /// A sequence of values of one type.
    Sequence(Box<Ty>),
    /// An optional value.
    Optional(Box<Ty>),
    /// A map from a key element type to values.
    Map { key: i32, value: Box<Ty> },
}

impl Ty {
    /// The type in the operator schemas' spelling (`tensor(float)`, `seq(tensor(int64))`), if its
    /// element types are known: what the type constraints of a called body are checked with.
    pub(crate) fn schema_name(&self) -> Option<String> {
        let elem =
            |number: i32| onnx_syntax::dtype::elem_type_by_number(number).map(|info| info.name);
        Some(match self {
            Ty::Tensor { elem: number, .. } => format!("tensor({})", elem(*number)?),
            Ty::Sparse { elem: number, .. } => format!("sparse_tensor({})", elem(*number)?),
            Ty::Sequence(inner) => format!("seq({})", inner.schema_name()?),
            Ty::Optional(inner) => format!("optional({})", inner.schema_name()?),
            Ty::Map { key, value } => match &**value {
                Ty::Tensor { elem: number, .. } => {
                    format!("map({}, {})", elem(*key)?, elem(*number)?)
                }
                other => format!("map({}, {})", elem(*key)?, other.schema_name()?),
            },
        })
    }

    /// A tensor type.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert_eq!(Ty::tensor(7, Some(vec![])).to_string(), "int64");
    /// assert_eq!(Ty::tensor(7, None).to_string(), "int64[]");
    /// ```
    pub fn tensor(elem: i32, shape: Shape) -> Ty {
        Ty::Tensor { elem, shape }
    }

    /// The element type of a tensor or sparse tensor.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert_eq!(Ty::tensor(7, None).elem(), Some(7));
    /// ```
    pub fn elem(&self) -> Option<i32> {
        match self {
            Ty::Tensor { elem, .. } | Ty::Sparse { elem, .. } if *elem != 0 => Some(*elem),
            _ => None,
        }
    }

    /// A known negative dim anywhere in the type, nested ones included.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// let seq = Ty::Sequence(Box::new(Ty::tensor(1, Some(vec![Dim::Known(2), Dim::Known(-1)]))));
    /// assert_eq!(seq.negative_dim(), Some(-1));
    /// assert_eq!(Ty::tensor(1, Some(vec![Dim::Known(0)])).negative_dim(), None);
    /// ```
    pub fn negative_dim(&self) -> Option<i64> {
        match self {
            Ty::Tensor { shape, .. } | Ty::Sparse { shape, .. } => shape
                .iter()
                .flatten()
                .find_map(|d| d.known().filter(|&n| n < 0)),
            Ty::Sequence(inner) | Ty::Optional(inner) => inner.negative_dim(),
            Ty::Map { value, .. } => value.negative_dim(),
        }
    }

    /// The dims of a tensor or sparse tensor with a known rank.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert_eq!(Ty::tensor(1, Some(vec![Dim::Known(2)])).dims(), Some(&[Dim::Known(2)][..]));
    /// ```
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            Ty::Tensor { shape, .. } | Ty::Sparse { shape, .. } => shape.as_deref(),
            _ => None,
        }
    }

    /// The rank of a tensor, if known.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert_eq!(Ty::tensor(1, None).rank(), None);
    /// ```
    pub fn rank(&self) -> Option<usize> {
        self.dims().map(<[Dim]>::len)
    }

    /// Whether a value of type `other` can have this type: the same element type and rank where
    /// both are known, and no known dim against another known dim (`N` fits `3`, `float[]` fits
    /// any shape), as onnx merges a declared type with an inferred one.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// let declared = Ty::tensor(1, Some(vec![Dim::Symbol("N".into()), Dim::Known(3)]));
    /// assert!(declared.fits(&Ty::tensor(1, Some(vec![Dim::Known(8), Dim::Known(3)]))));
    /// assert!(!declared.fits(&Ty::tensor(1, Some(vec![Dim::Known(8), Dim::Known(4)]))));
    /// assert!(!declared.fits(&Ty::tensor(7, Some(vec![Dim::Known(8), Dim::Known(3)]))));
    /// assert!(Ty::tensor(1, None).fits(&declared));
    /// assert!(Ty::tensor(0, None).fits(&Ty::tensor(7, None))); // 0: the element type is unknown
    /// ```
    pub fn fits(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Tensor { shape: a, .. }, Ty::Tensor { shape: b, .. })
            | (Ty::Sparse { shape: a, .. }, Ty::Sparse { shape: b, .. }) => {
                let elems = match (self.elem(), other.elem()) {
                    (Some(x), Some(y)) => x == y,
                    _ => true,
                };
                elems
                    && match (a, b) {
                        (Some(a), Some(b)) => {
                            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
                        }
                        _ => true,
                    }
            }
            (Ty::Sequence(a), Ty::Sequence(b)) | (Ty::Optional(a), Ty::Optional(b)) => a.fits(b),
            (Ty::Map { value: a, .. }, Ty::Map { value: b, .. }) => a.fits(b),
            _ => true,
        }
    }

    /// Makes negative dims unknown: they are no sizes. Gives the first one it forgot.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// let mut ty = Ty::tensor(1, Some(vec![Dim::Known(-2)]));
    /// assert_eq!(ty.forget_negative_dims(), Some(-2));
    /// assert_eq!(ty.dims(), Some(&[Dim::Unknown][..]));
    /// assert_eq!(ty.forget_negative_dims(), None);
    /// ```
    pub fn forget_negative_dims(&mut self) -> Option<i64> {
        match self {
            Ty::Tensor { shape, .. } | Ty::Sparse { shape, .. } => {
                let mut first = None;
                for d in shape.iter_mut().flatten() {
                    if let Some(n) = d.known().filter(|&n| n < 0) {
                        first.get_or_insert(n);
                        *d = Dim::Unknown;
                    }
                }
                first
            }
            Ty::Sequence(inner) | Ty::Optional(inner) | Ty::Map { value: inner, .. } => {
                inner.forget_negative_dims()
            }
        }
    }

    /// Reads a `TypeProto`; `None` for one with nothing set.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert_eq!(Ty::from_proto(&Default::default()), None);
    /// ```
    pub fn from_proto(proto: &TypeProto) -> Option<Ty> {
        Some(match proto.value.as_ref()? {
            type_proto::Value::TensorType(t) => Ty::Tensor {
                elem: t.elem_type.unwrap_or(0),
                shape: t.shape.as_ref().and_then(shape_from_proto),
            },
            type_proto::Value::SparseTensorType(t) => Ty::Sparse {
                elem: t.elem_type.unwrap_or(0),
                shape: t.shape.as_ref().and_then(shape_from_proto),
            },
            type_proto::Value::SequenceType(s) => {
                Ty::Sequence(Box::new(Ty::from_proto(s.elem_type.as_deref()?)?))
            }
            type_proto::Value::OptionalType(o) => {
                Ty::Optional(Box::new(Ty::from_proto(o.elem_type.as_deref()?)?))
            }
            type_proto::Value::MapType(m) => Ty::Map {
                key: m.key_type.unwrap_or(0),
                value: Box::new(Ty::from_proto(m.value_type.as_deref()?)?),
            },
            _ => return None,
        })
    }

    /// The `TypeProto` of this type.
    ///
    /// ```
    /// # use onnx_infer::{Dim, Ty};
    /// assert!(Ty::tensor(1, None).to_proto().value.is_some());
    /// ```
    pub fn to_proto(&self) -> TypeProto {
        let value = match self {
            Ty::Tensor { elem, shape } => type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(*elem),
                shape: shape.as_deref().map(shape_to_proto),
            }),
            Ty::Sparse { elem, shape } => {
                type_proto::Value::SparseTensorType(type_proto::SparseTensor {
                    elem_type: Some(*elem),
                    shape: shape.as_deref().map(shape_to_proto),
                })
            }
            Ty::Sequence(inner) => {
                type_proto::Value::SequenceType(Box::new(type_proto::Sequence {
                    elem_type: Some(Box::new(inner.to_proto())),
                }))
            }
            Ty::Optional(inner) => {
                type_proto::Value::OptionalType(Box::new(type_proto::Optional {
                    elem_type: Some(Box::new(inner.to_proto())),
                }))
            }
            Ty::Map { key, value } => type_proto::Value::MapType(Box::new(type_proto::Map {
                key_type: Some(*key),
                value_type: Some(Box::new(value.to_proto())),
            })),
        };
        TypeProto {
            value: Some(value),
            ..TypeProto::default()
        }
    }
}

impl std::fmt::Display for Ty {
    /// The type as people write it in the text syntax: `float[N, 10]`, `float` (a scalar),
    /// `float[]` (no shape), `seq(int64[3])`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let elem = |e: i32| onnx_syntax::dtype::elem_type_by_number(e).map_or("?", |t| t.name);
        match self {
            Ty::Tensor { elem: e, shape } | Ty::Sparse { elem: e, shape } => {
                if matches!(self, Ty::Sparse { .. }) {
                    f.write_str("sparse_tensor(")?;
                }
                f.write_str(elem(*e))?;
                // As the syntax writes them: `float` is a scalar, `float[]` has no shape.
                match shape {
                    Some(dims) if dims.is_empty() => {}
                    Some(dims) => f.write_str(&show_shape(dims))?,
                    None => f.write_str("[]")?,
                }
                if matches!(self, Ty::Sparse { .. }) {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Ty::Sequence(inner) => write!(f, "seq({inner})"),
            Ty::Optional(inner) => write!(f, "optional({inner})"),
            Ty::Map { key, value } => write!(f, "map({}, {value})", elem(*key)),
        }
    }
}

/// The dims of a shape; `None` when a macro literal's spread of Rust values (`..#dims`) makes
/// even the rank unknown.
fn shape_from_proto(shape: &TensorShapeProto) -> Option<Vec<Dim>> {
    use tensor_shape_proto::dimension::Value;
    let spread = |d: &tensor_shape_proto::Dimension| matches!(&d.value, Some(Value::DimParam(p)) if onnx_syntax::hole::is_spread(p));
    if shape.dim.iter().any(spread) {
        return None;
    }
    let dims = shape
        .dim
        .iter()
        .map(|d| match &d.value {
            // A negative size is no size: inference treats it as unknown.
            Some(Value::DimValue(n)) if *n >= 0 => Dim::Known(*n),
            Some(Value::DimParam(s)) if !s.is_empty() => Dim::Symbol(s.clone()),
            _ => Dim::Unknown,
        })
        .collect();
    Some(dims)
}

fn shape_to_proto(dims: &[Dim]) -> TensorShapeProto {
    use tensor_shape_proto::dimension::Value;
    TensorShapeProto {
        dim: dims
            .iter()
            .map(|d| tensor_shape_proto::Dimension {
                value: match d {
                    Dim::Known(n) => Some(Value::DimValue(*n)),
                    Dim::Symbol(s) => Some(Value::DimParam(s.clone())),
                    Dim::Unknown => None,
                },
                ..Default::default()
            })
            .collect(),
    }
}

/// Writes a shape for messages as people write it in the text syntax: `[N, 3, ?]`.
pub(super) fn show_shape(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims.iter().map(Dim::to_string).collect();
    format!("[{}]", parts.join(", "))
}
