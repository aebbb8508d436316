//! The comparison of a runtime's outputs with a case's expected ones, as onnx's runner compares
//! them (`numpy.testing.assert_allclose`), and exactly where it is silent.

use crate::elements::{self, Elements};
use crate::value::{Map, Value};
use onnx_text::TensorProto;
use onnx_text::tensor_proto::DataType;
use std::fmt;

/// Relative and absolute tolerance: `|actual - expected| <= atol + rtol * |expected|`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

/// onnx's runner widens rtol to two bfloat16 ULPs for bfloat16 outputs.
const BFLOAT16_RTOL: f64 = 1.0 / 64.0;

/// Why a runtime's outputs are not a case's expected outputs.
///
/// ```
/// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
/// let mismatch = case.check(&[]).unwrap_err();
/// assert!(mismatch.to_string().starts_with("test_abs: expected 1 outputs, got 0"));
/// ```
#[derive(Clone, Debug)]
pub struct Mismatch(pub(crate) Box<Details>);

#[derive(Clone, Debug)]
pub(crate) struct Details {
    pub(crate) case: &'static str,
    pub(crate) text: &'static str,
    /// Where: "" for the list of outputs, else "output 0 (`y`)" and any item path in it.
    pub(crate) place: String,
    pub(crate) difference: Difference,
    pub(crate) tolerance: Tolerance,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Difference {
    /// Outputs, sequence items or map entries.
    Count {
        expected: usize,
        actual: usize,
    },
    /// A tensor where a sequence was expected, and so on.
    Kind {
        expected: &'static str,
        actual: &'static str,
    },
    ElementType {
        expected: String,
        actual: String,
    },
    Shape {
        expected: Vec<i64>,
        actual: Vec<i64>,
    },
    MapKey {
        index: usize,
    },
    Element {
        index: usize,
        at: Vec<usize>,
        expected: String,
        actual: String,
    },
    /// The actual tensor's data cannot be read.
    Unreadable(String),
}

impl std::error::Error for Mismatch {}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let details = &self.0;
        write!(f, "{}: ", details.case)?;
        if !details.place.is_empty() {
            write!(f, "{}: ", details.place)?;
        }
        match &details.difference {
            Difference::Count { expected, actual } => {
                let what = if details.place.is_empty() {
                    "outputs"
                } else {
                    "items"
                };
                write!(f, "expected {expected} {what}, got {actual}")?
            }
            Difference::Kind { expected, actual } => {
                write!(f, "expected a {expected}, got a {actual}")?
            }
            Difference::ElementType { expected, actual } => {
                write!(f, "expected element type {expected}, got {actual}")?
            }
            Difference::Shape { expected, actual } => {
                write!(f, "expected shape {expected:?}, got {actual:?}")?
            }
            Difference::MapKey { index } => write!(f, "map key {index} differs")?,
            Difference::Element {
                index,
                at,
                expected,
                actual,
            } => write!(
                f,
                "element {index} (at {at:?}): expected {expected}, got {actual} \
                 (rtol {:?}, atol {:?})",
                details.tolerance.rtol, details.tolerance.atol
            )?,
            Difference::Unreadable(why) => write!(f, "cannot read the tensor: {why}")?,
        }
        write!(f, "\nthe model:\n{}", details.text)
    }
}

/// Compares outputs in order; the first difference wins.
pub(crate) fn outputs(
    expected: &[Value],
    actual: &[Value],
    names: &[String],
    tolerance: Tolerance,
) -> Result<(), (String, Difference)> {
    if expected.len() != actual.len() {
        let difference = Difference::Count {
            expected: expected.len(),
            actual: actual.len(),
        };
        return Err((String::new(), difference));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        let place = match names.get(i) {
            Some(name) => format!("output {i} (`{name}`)"),
            None => format!("output {i}"),
        };
        value(e, a, tolerance).map_err(|(path, d)| (format!("{place}{path}"), d))?;
    }
    Ok(())
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Tensor(_) => "tensor",
        Value::Sequence(_) => "sequence",
        Value::Optional(_) => "optional",
        Value::Map(_) => "map",
    }
}

/// Compares two values; the error's path says where inside them (", item 2").
fn value(
    expected: &Value,
    actual: &Value,
    tolerance: Tolerance,
) -> Result<(), (String, Difference)> {
    match (expected, actual) {
        (Value::Tensor(e), Value::Tensor(a)) => {
            tensor(e, a, tolerance).map_err(|d| (String::new(), d))
        }
        (Value::Sequence(e), Value::Sequence(a)) => items(e, a, tolerance),
        (Value::Optional(e), Value::Optional(a)) => match (e, a) {
            (None, None) => Ok(()),
            (Some(e), Some(a)) => {
                value(e, a, tolerance).map_err(|(p, d)| (format!(", its value{p}"), d))
            }
            (e, a) => {
                let name = |o: &Option<Box<Value>>| {
                    if o.is_some() {
                        "full optional"
                    } else {
                        "empty optional"
                    }
                };
                Err((
                    String::new(),
                    Difference::Kind {
                        expected: name(e),
                        actual: name(a),
                    },
                ))
            }
        },
        (Value::Map(e), Value::Map(a)) => map(e, a, tolerance),
        (e, a) => Err((
            String::new(),
            Difference::Kind {
                expected: kind(e),
                actual: kind(a),
            },
        )),
    }
}

fn items(
    expected: &[Value],
    actual: &[Value],
    tolerance: Tolerance,
) -> Result<(), (String, Difference)> {
    if expected.len() != actual.len() {
        return Err((
            String::new(),
            Difference::Count {
                expected: expected.len(),
                actual: actual.len(),
            },
        ));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        value(e, a, tolerance).map_err(|(p, d)| (format!(", item {i}{p}"), d))?;
    }
    Ok(())
}

fn map(expected: &Map, actual: &Map, tolerance: Tolerance) -> Result<(), (String, Difference)> {
    if expected.key_type != actual.key_type {
        let difference = Difference::ElementType {
            expected: type_name(expected.key_type),
            actual: type_name(actual.key_type),
        };
        return Err((", keys".to_string(), difference));
    }
    if expected.entries.len() != actual.entries.len() {
        let difference = Difference::Count {
            expected: expected.entries.len(),
            actual: actual.entries.len(),
        };
        return Err((String::new(), difference));
    }
    for (i, ((ek, ev), (ak, av))) in expected.entries.iter().zip(&actual.entries).enumerate() {
        if ek != ak {
            return Err((String::new(), Difference::MapKey { index: i }));
        }
        value(ev, av, tolerance).map_err(|(p, d)| (format!(", entry {i}{p}"), d))?;
    }
    Ok(())
}

pub(crate) fn type_name(ty: i32) -> String {
    match DataType::try_from(ty) {
        Ok(t) => t.as_str_name().to_string(),
        Err(_) => format!("{ty} (unknown)"),
    }
}

fn tensor(
    expected: &TensorProto,
    actual: &TensorProto,
    tolerance: Tolerance,
) -> Result<(), Difference> {
    let (e_type, a_type) = (
        expected.data_type.unwrap_or(0),
        actual.data_type.unwrap_or(0),
    );
    if e_type != a_type {
        return Err(Difference::ElementType {
            expected: type_name(e_type),
            actual: type_name(a_type),
        });
    }
    if expected.dims != actual.dims {
        return Err(Difference::Shape {
            expected: expected.dims.clone(),
            actual: actual.dims.clone(),
        });
    }
    let e = elements::decode(expected)
        .map_err(|why| Difference::Unreadable(format!("the expected one: {why}")))?;
    let a = elements::decode(actual).map_err(Difference::Unreadable)?;
    let tolerance = if e_type == DataType::Bfloat16 as i32 {
        Tolerance {
            rtol: tolerance.rtol.max(BFLOAT16_RTOL),
            ..tolerance
        }
    } else {
        tolerance
    };
    match first_difference(&e, &a, tolerance) {
        None => Ok(()),
        Some((index, e, a)) => Err(Difference::Element {
            index,
            at: coordinates(index, &expected.dims),
            expected: e,
            actual: a,
        }),
    }
}

/// The row-major coordinates of a flat index.
fn coordinates(mut index: usize, dims: &[i64]) -> Vec<usize> {
    let mut at = vec![0; dims.len()];
    for (slot, &d) in at.iter_mut().zip(dims).rev() {
        let d = d.max(1) as usize;
        *slot = index % d;
        index /= d;
    }
    at
}

/// Whether a float is close enough: NaN equals NaN, an infinity only itself.
fn close(expected: f64, actual: f64, tolerance: Tolerance) -> bool {
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected.is_infinite() || actual.is_infinite() {
        return expected == actual;
    }
    (actual - expected).abs() <= tolerance.atol + tolerance.rtol * expected.abs()
}

/// A float as short as it reads (f32-exact values as f32), in scientific notation when very
/// large or small, as Rust's `Debug` writes floats.
fn show(v: f64) -> String {
    if f64::from(v as f32) == v || v.is_nan() {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    }
}

/// The first element that differs: (index, expected, actual) as text. The element counts
/// agree, as the decoder checks them against the (equal) dims.
fn first_difference(
    expected: &Elements,
    actual: &Elements,
    tolerance: Tolerance,
) -> Option<(usize, String, String)> {
    match (expected, actual) {
        (Elements::Float(e), Elements::Float(a)) => e
            .iter()
            .zip(a)
            .position(|(&e, &a)| !close(e, a, tolerance))
            .map(|i| (i, show(e[i]), show(a[i]))),
        (Elements::Complex(e), Elements::Complex(a)) => e
            .iter()
            .zip(a)
            .position(|(e, a)| {
                let any_nan = [e.0, e.1, a.0, a.1].iter().any(|v| v.is_nan());
                if any_nan || [e.0, e.1, a.0, a.1].iter().any(|v| v.is_infinite()) {
                    return !(close(e.0, a.0, tolerance) && close(e.1, a.1, tolerance));
                }
                let distance = (a.0 - e.0).hypot(a.1 - e.1);
                distance > tolerance.atol + tolerance.rtol * e.0.hypot(e.1)
            })
            .map(|i| {
                let c = |(re, im): (f64, f64)| format!("{}{:+}i", show(re), im);
                (i, c(e[i]), c(a[i]))
            }),
        (Elements::Int(e), Elements::Int(a)) => e
            .iter()
            .zip(a)
            .position(|(e, a)| e != a)
            .map(|i| (i, e[i].to_string(), a[i].to_string())),
        (Elements::Bool(e), Elements::Bool(a)) => e
            .iter()
            .zip(a)
            .position(|(e, a)| e != a)
            .map(|i| (i, e[i].to_string(), a[i].to_string())),
        (Elements::String(e), Elements::String(a)) => {
            e.iter().zip(a).position(|(e, a)| e != a).map(|i| {
                let s = |b: &[u8]| format!("{:?}", String::from_utf8_lossy(b));
                (i, s(&e[i]), s(&a[i]))
            })
        }
        // The element types are equal, so the decoded kinds are too.
        _ => unreachable!("equal element types decode to the same kind"),
    }
}
