//! The comparison of a runtime's outputs with expected ones, as onnx's test runner compares them
//! (`numpy.testing.assert_allclose`), and exactly where it is silent.

use crate::elements::{self, Elements};
use crate::value::{Map, Value};
use onnx_runtime_types::TensorProto;
use onnx_runtime_types::tensor_proto::DataType;
use std::fmt;

/// Relative and absolute tolerance of floating elements:
/// `|actual - expected| <= atol + rtol * |expected|`. The default is onnx's runner's
/// (`rtol = 1e-3`, `atol = 1e-7`); bfloat16 elements take `rtol.max(2^-6)`.
///
/// ```
/// let tolerance = onnx_value::Tolerance { rtol: 1e-5, ..Default::default() };
/// assert_eq!((tolerance.rtol, tolerance.atol), (1e-5, 1e-7));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            rtol: 1e-3,
            atol: 1e-7,
        }
    }
}

impl Tolerance {
    /// Whether `actual` is close enough to `expected`: within `atol + rtol * |expected|`, NaN
    /// equal to NaN, an infinity only to itself.
    ///
    /// ```
    /// let tolerance = onnx_value::Tolerance::default();
    /// assert!(tolerance.close(1.0, 1.0005));
    /// assert!(!tolerance.close(1.0, 1.002));
    /// assert!(tolerance.close(f64::NAN, f64::NAN));
    /// assert!(!tolerance.close(f64::INFINITY, f64::MAX));
    /// ```
    pub fn close(self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan();
        }
        if expected.is_infinite() || actual.is_infinite() {
            return expected == actual;
        }
        (actual - expected).abs() <= self.atol + self.rtol * expected.abs()
    }
}

/// What every element of an output must be whatever random draws made it: the comparison of
/// an output that no runtime can match value for value (a random operator's, unseeded or
/// seeded by a generator of its own), by [`compare_support`].
///
/// ```
/// use onnx_value::Support;
///
/// /// Bernoulli's draws: 0 or 1.
/// struct ZeroOrOne;
///
/// impl Support for ZeroOrOne {
///     fn holds(&self, _index: usize, value: f64) -> bool {
///         value == 0.0 || value == 1.0
///     }
///     fn describe(&self, _index: usize) -> String {
///         "0 or 1".to_string()
///     }
/// }
///
/// assert!(ZeroOrOne.holds(3, 1.0) && !ZeroOrOne.holds(3, 0.5));
/// ```
pub trait Support {
    /// Whether `value` may be the element at `index` (row-major) of the output. Integers and
    /// bools come as numbers (`true` is 1); a string or complex element is never in a support.
    fn holds(&self, index: usize, value: f64) -> bool;
    /// What the element at `index` may be, in words (`0 or 1`, `a value in [0, 1]`), for the
    /// mismatch's message.
    fn describe(&self, index: usize) -> String;
}

/// onnx's runner widens rtol to two bfloat16 ULPs for bfloat16 outputs.
const BFLOAT16_RTOL: f64 = 1.0 / 64.0;

/// Why outputs are not the expected ones: where the first difference is, and what it is.
///
/// ```
/// use onnx_value::{Tolerance, Value, compare};
///
/// let one = [Value::tensor(&[1i64], &[1]).unwrap()];
/// let mismatch = compare(&one, &[], Tolerance::default()).unwrap_err();
/// assert_eq!(mismatch.to_string(), "expected 1 outputs, got 0");
/// let mismatch = mismatch.in_case("test_one", "<ir_version: 8> ...");
/// assert_eq!(mismatch.to_string(), "test_one: expected 1 outputs, got 0\nthe model:\n<ir_version: 8> ...");
/// ```
#[derive(Clone, Debug)]
pub struct Mismatch(Box<Details>);

#[derive(Clone, Debug)]
struct Details {
    /// The case's name and its model's text, when the comparison was a case's.
    case: Option<(String, String)>,
    /// Where: "" for the list of outputs, else "output 0 (`y`)" and any item path in it.
    place: String,
    difference: Difference,
    tolerance: Tolerance,
}

impl Mismatch {
    /// The same mismatch, named as a test case's and followed by its model's text.
    ///
    /// ```
    /// use onnx_value::{Tolerance, Value, compare};
    ///
    /// let expected = [Value::tensor(&[true], &[]).unwrap()];
    /// let actual = [Value::tensor(&[false], &[]).unwrap()];
    /// let mismatch = compare(&expected, &actual, Tolerance::default()).unwrap_err();
    /// assert!(mismatch.in_case("test_not", "...").to_string().starts_with("test_not: output 0: element 0"));
    /// ```
    pub fn in_case(mut self, name: &str, model_text: &str) -> Mismatch {
        self.0.case = Some((name.to_string(), model_text.to_string()));
        self
    }

    /// Where the first difference is and what differs there, without the values: the part of
    /// the mismatch that stays the same while a wrong result changes its numbers (the
    /// conformance kit's expectation file records it for cases expected to give wrong outputs).
    ///
    /// ```
    /// use onnx_value::{Tolerance, Value, compare, compare_named};
    ///
    /// let expected = [Value::tensor(&[1.0f32, 2.0], &[2]).unwrap()];
    /// let wrong = [Value::tensor(&[1.0f32, 2.5], &[2]).unwrap()];
    /// let mismatch = compare_named(&expected, &wrong, &["y"], Tolerance::default()).unwrap_err();
    /// assert_eq!(mismatch.summary(), "output 0 (`y`): values differ");
    /// let mismatch = compare(&expected, &[], Tolerance::default()).unwrap_err();
    /// assert_eq!(mismatch.summary(), "the number of outputs differs");
    /// ```
    pub fn summary(&self) -> String {
        let details = &self.0;
        let what = match &details.difference {
            Difference::Count { .. } if details.place.is_empty() => {
                return "the number of outputs differs".to_string();
            }
            Difference::Count { .. } => "the number of items differs",
            Difference::Kind { .. } => "the kind of value differs",
            Difference::ElementType { .. } => "the element type differs",
            Difference::Shape { .. } => "the shape differs",
            Difference::MapKey { .. } => "a map key differs",
            // Out of a random output's support is wrong values too, so that an entry written
            // for values that differ still holds.
            Difference::Element { .. } | Difference::Support(_) => "values differ",
            Difference::Unreadable(_) => "the tensor cannot be read",
        };
        if details.place.is_empty() {
            what.to_string()
        } else {
            format!("{}: {what}", details.place)
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Difference {
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
        /// How many elements differ, and of how many.
        differing: usize,
        count: usize,
    },
    /// An element outside the support of a random output (boxed: the enum stays the size of
    /// its other variants).
    Support(Box<Outside>),
    /// The actual tensor's data cannot be read.
    Unreadable(String),
}

/// The first element of a random output outside its support.
#[derive(Clone, Debug, PartialEq)]
struct Outside {
    index: usize,
    at: Vec<usize>,
    support: String,
    actual: String,
    /// How many elements are outside, and of how many.
    outside: usize,
    count: usize,
}

impl std::error::Error for Mismatch {}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let details = &self.0;
        if let Some((name, _)) = &details.case {
            write!(f, "{name}: ")?;
        }
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
                differing,
                count,
            } => write!(
                f,
                "element {index} (at {at:?}): expected {expected}, got {actual} \
                 (rtol {:?}, atol {:?}); {differing} of {count} elements {}",
                details.tolerance.rtol,
                details.tolerance.atol,
                if *differing == 1 { "differs" } else { "differ" }
            )?,
            Difference::Support(outside) => {
                let Outside {
                    index,
                    at,
                    support,
                    actual,
                    outside,
                    count,
                } = &**outside;
                write!(
                    f,
                    "element {index} (at {at:?}): expected {support} (whatever the draws), got \
                 {actual}; {outside} of {count} elements {}",
                    if *outside == 1 { "differs" } else { "differ" }
                )?
            }
            Difference::Unreadable(why) => write!(f, "cannot read the tensor: {why}")?,
        }
        if let Some((_, text)) = &details.case {
            write!(f, "\nthe model:\n{text}")?;
        }
        Ok(())
    }
}

/// Compares values in order (outputs, say): equal counts, kinds, element types and shapes,
/// floating elements within `tolerance`, NaN equal to NaN and an infinity only to itself, the
/// rest exactly. The first difference is the mismatch, and it counts the elements that differ.
///
/// ```
/// use onnx_value::{Tolerance, Value, compare};
///
/// let expected = [Value::tensor(&[1.0f32, f32::NAN], &[2]).unwrap()];
/// let close = [Value::tensor(&[1.0005f32, f32::NAN], &[2]).unwrap()];
/// assert!(compare(&expected, &close, Tolerance::default()).is_ok());
/// assert!(compare(&expected, &close, Tolerance { rtol: 1e-4, atol: 0.0 }).is_err());
/// ```
pub fn compare(expected: &[Value], actual: &[Value], tolerance: Tolerance) -> Result<(), Mismatch> {
    compare_named(expected, actual, &[], tolerance)
}

/// [`compare`], naming each output in the mismatch by its name in `names`.
///
/// ```
/// use onnx_value::{Tolerance, Value, compare_named};
///
/// let expected = [Value::tensor(&[1u8], &[1]).unwrap()];
/// let actual = [Value::tensor(&[1u8, 2], &[2]).unwrap()];
/// let mismatch = compare_named(&expected, &actual, &["y"], Tolerance::default()).unwrap_err();
/// assert_eq!(mismatch.to_string(), "output 0 (`y`): expected shape [1], got [2]");
/// ```
pub fn compare_named(
    expected: &[Value],
    actual: &[Value],
    names: &[&str],
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    compare_support(expected, actual, names, tolerance, &[])
}

/// [`compare_named`], but an output with a [`Support`] in `supports` (at its position) is
/// compared by it rather than by its expected values: its kind, element type and shape must be
/// the expected ones, and each element must be in the support. An output past the end of
/// `supports`, or with `None`, is compared as [`compare`] does.
///
/// ```
/// use onnx_value::{Support, Tolerance, Value, compare_support};
///
/// /// A uniform draw in [0, 1].
/// struct Unit;
///
/// impl Support for Unit {
///     fn holds(&self, _: usize, value: f64) -> bool {
///         (0.0..=1.0).contains(&value)
///     }
///     fn describe(&self, _: usize) -> String {
///         "a value in [0, 1]".to_string()
///     }
/// }
///
/// let expected = [Value::tensor(&[0.25f32, 0.5], &[2]).unwrap()];
/// let other_draws = [Value::tensor(&[0.75f32, 0.125], &[2]).unwrap()];
/// let unit: [Option<&dyn Support>; 1] = [Some(&Unit)];
/// assert!(compare_support(&expected, &other_draws, &["y"], Tolerance::default(), &unit).is_ok());
///
/// let outside = [Value::tensor(&[0.75f32, 1.5], &[2]).unwrap()];
/// let mismatch = compare_support(&expected, &outside, &["y"], Tolerance::default(), &unit).unwrap_err();
/// assert_eq!(
///     mismatch.to_string(),
///     "output 0 (`y`): element 1 (at [1]): expected a value in [0, 1] (whatever the draws), got 1.5; 1 of 2 elements differs"
/// );
/// assert_eq!(mismatch.summary(), "output 0 (`y`): values differ");
///
/// // The shape and the element type are still the expected ones'.
/// let longer = [Value::tensor(&[0.5f32; 3], &[3]).unwrap()];
/// assert!(compare_support(&expected, &longer, &["y"], Tolerance::default(), &unit).is_err());
/// let doubles = [Value::tensor(&[0.5f64; 2], &[2]).unwrap()];
/// assert!(compare_support(&expected, &doubles, &["y"], Tolerance::default(), &unit).is_err());
/// ```
pub fn compare_support(
    expected: &[Value],
    actual: &[Value],
    names: &[&str],
    tolerance: Tolerance,
    supports: &[Option<&dyn Support>],
) -> Result<(), Mismatch> {
    outputs(expected, actual, names, tolerance, supports).map_err(|(place, difference)| {
        Mismatch(Box::new(Details {
            case: None,
            place,
            difference,
            tolerance,
        }))
    })
}

/// Compares outputs in order; the first difference wins.
fn outputs(
    expected: &[Value],
    actual: &[Value],
    names: &[&str],
    tolerance: Tolerance,
    supports: &[Option<&dyn Support>],
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
        let compared = match (supports.get(i).copied().flatten(), e, a) {
            (Some(support), Value::Tensor(e), Value::Tensor(a)) => {
                supported(e, a, support).map_err(|d| (String::new(), d))
            }
            _ => value(e, a, tolerance),
        };
        compared.map_err(|(path, d)| (format!("{place}{path}"), d))?;
    }
    Ok(())
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
                expected: e.kind(),
                actual: a.kind(),
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

/// The element types and shapes of two tensors must be equal, whatever their values.
fn same_type_and_shape(expected: &TensorProto, actual: &TensorProto) -> Result<(), Difference> {
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
    Ok(())
}

/// A random output: the expected one's element type and shape, each element in `support`.
fn supported(
    expected: &TensorProto,
    actual: &TensorProto,
    support: &dyn Support,
) -> Result<(), Difference> {
    same_type_and_shape(expected, actual)?;
    let a = elements::decode(actual).map_err(Difference::Unreadable)?;
    let count = a.len();
    let holds = |i: usize| match &a {
        Elements::Float(v) => support.holds(i, v[i]),
        Elements::Int(v) => support.holds(i, v[i] as f64),
        Elements::Bool(v) => support.holds(i, f64::from(u8::from(v[i]))),
        Elements::Complex(_) | Elements::String(_) => false,
    };
    let mut first = None;
    let mut outside = 0;
    for i in 0..count {
        if !holds(i) {
            first = first.or(Some(i));
            outside += 1;
        }
    }
    let Some(index) = first else {
        return Ok(());
    };
    Err(Difference::Support(Box::new(Outside {
        index,
        at: coordinates(index, &expected.dims),
        support: support.describe(index),
        actual: show_element(&a, index),
        outside,
        count,
    })))
}

fn tensor(
    expected: &TensorProto,
    actual: &TensorProto,
    tolerance: Tolerance,
) -> Result<(), Difference> {
    same_type_and_shape(expected, actual)?;
    let e_type = expected.data_type.unwrap_or(0);
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
    let count = e.len();
    match first_difference(&e, &a, tolerance) {
        None => Ok(()),
        Some((index, differing, e, a)) => Err(Difference::Element {
            index,
            at: coordinates(index, &expected.dims),
            expected: e,
            actual: a,
            differing,
            count,
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

/// A float as short as it reads (f32-exact values as f32), in scientific notation when very
/// large or small, as Rust's `Debug` writes floats.
fn show(v: f64) -> String {
    if f64::from(v as f32) == v || v.is_nan() {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    }
}

/// Element `i` as the mismatch shows it.
fn show_element(elements: &Elements, i: usize) -> String {
    match elements {
        Elements::Float(v) => show(v[i]),
        Elements::Complex(v) => format!("{}{:+}i", show(v[i].0), v[i].1),
        Elements::Int(v) => v[i].to_string(),
        Elements::Bool(v) => v[i].to_string(),
        Elements::String(v) => format!("{:?}", String::from_utf8_lossy(&v[i])),
    }
}

/// The first element that differs, as (index, how many differ, expected, actual). The element
/// counts agree, as the decoder checks them against the (equal) dims.
fn first_difference(
    expected: &Elements,
    actual: &Elements,
    tolerance: Tolerance,
) -> Option<(usize, usize, String, String)> {
    /// The first differing index and the count, by `differs`. A loop over indices: an
    /// iterator chain here was compiled for each element kind and closure (see
    /// `elements::each`).
    fn scan<T>(e: &[T], a: &[T], differs: impl Fn(&T, &T) -> bool) -> Option<(usize, usize)> {
        let mut first = None;
        let mut count = 0;
        for i in 0..e.len().min(a.len()) {
            if differs(&e[i], &a[i]) {
                first = first.or(Some(i));
                count += 1;
            }
        }
        first.map(|i| (i, count))
    }
    let found = match (expected, actual) {
        (Elements::Float(e), Elements::Float(a)) => scan(e, a, |&e, &a| !tolerance.close(e, a)),
        (Elements::Complex(e), Elements::Complex(a)) => scan(e, a, |e, a| {
            let parts = [e.0, e.1, a.0, a.1];
            if parts.iter().any(|v| v.is_nan() || v.is_infinite()) {
                return !(tolerance.close(e.0, a.0) && tolerance.close(e.1, a.1));
            }
            let distance = (a.0 - e.0).hypot(a.1 - e.1);
            distance > tolerance.atol + tolerance.rtol * e.0.hypot(e.1)
        }),
        (Elements::Int(e), Elements::Int(a)) => scan(e, a, |e, a| e != a),
        (Elements::Bool(e), Elements::Bool(a)) => scan(e, a, |e, a| e != a),
        (Elements::String(e), Elements::String(a)) => scan(e, a, |e, a| e != a),
        // The element types are equal, so the decoded kinds are too.
        _ => unreachable!("equal element types decode to the same kind"),
    };
    found.map(|(i, n)| (i, n, show_element(expected, i), show_element(actual, i)))
}
