//! Data: a tensor's number of values against its dims, each literal against its element type,
//! and the dims of declared types.
//!
//! The tree keeps the typed values, the span of the `{…}` block and of each value written in it,
//! so that an error points at the offending values.

use super::{Check, Checker, Diagnostic};
use onnx_syntax::dtype::{elem_type_by_number, typed_value_count};
use std::borrow::Cow;

use onnx_syntax::Span;
use onnx_syntax::hole::{ListHole, Site};
use onnx_syntax::syntax::{DimValue, Tensor, TensorData, TensorValues, Type, TypeKind};

/// What `negative_dim` says of a dim below zero, in a written type or a binary model's.
///
/// ```
/// assert_eq!(
///     onnx_check::negative_dim(-1, 1),
///     "the negative dim -1 at axis 1: the IR makes a dim a size, 0 or more; \
///      write an unknown size as a name or `?`"
/// );
/// ```
pub fn negative_dim(dim: i64, axis: usize) -> String {
    format!(
        "the negative dim {dim} at axis {axis}: the IR makes a dim a size, 0 or more; \
         write an unknown size as a name or `?`"
    )
}

/// How data values map to elements.
#[derive(Clone, Copy)]
enum Layout {
    /// One value per element.
    One,
    /// Several elements packed into each value (see [`typed_value_count`]), with how the
    /// message says so.
    Packed(&'static str),
    /// Two values per element: real and imaginary parts.
    Complex,
}

fn layout(elem_type: i32) -> Layout {
    match elem_type {
        // uint4, int4, float4e2m1
        21..=23 => Layout::Packed("two 4-bit elements per value"),
        // uint2, int2
        25 | 26 => Layout::Packed("four 2-bit elements per value"),
        // complex64, complex128
        14 | 15 => Layout::Complex,
        _ => Layout::One,
    }
}

/// The range of the `int32_data` values of an element type, and what they are (empty for plain
/// integers). `None` where the whole int32 range is valid.
fn int32_range(elem_type: i32) -> Option<(i64, i64, &'static str)> {
    const BYTE: i64 = 255;
    Some(match elem_type {
        2 => (0, BYTE, ""),
        3 => (-128, 127, ""),
        4 => (0, 65535, ""),
        5 => (-32768, 32767, ""),
        9 => (0, 1, ""),
        10 | 16 => (0, 65535, "16-bit patterns"),
        17..=20 | 24 => (0, BYTE, "8-bit patterns"),
        21..=23 => (0, BYTE, "bytes of two 4-bit elements"),
        25 | 26 => (0, BYTE, "bytes of four 2-bit elements"),
        27 | 28 => (0, 63, "6-bit patterns"),
        _ => return None,
    })
}

/// The element type's keyword, for messages.
fn type_name(elem_type: i32) -> String {
    elem_type_by_number(elem_type)
        .map_or_else(|| format!("type {elem_type}"), |t| t.name.to_owned())
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The number of values of a data block.
fn value_count(values: &TensorValues) -> usize {
    match values {
        TensorValues::Int32(v) => v.len(),
        TensorValues::Int64(v) => v.len(),
        TensorValues::Uint64(v) => v.len(),
        TensorValues::Float(v) => v.len(),
        TensorValues::Double(v) => v.len(),
        TensorValues::String(v) => v.len(),
    }
}

/// The spans of the values among the elements whose spans are `elements`: without the holes
/// (each [`Site::Values`] hole stands before the value of its index).
/// Without holes (the usual case) they are the elements' spans, not copied.
fn value_spans<'a>(elements: &'a [Span], holes: &[ListHole]) -> Cow<'a, [Span]> {
    if !holes.iter().any(|h| h.site == Site::Values) {
        return Cow::Borrowed(elements);
    }
    let mut hole_positions = holes
        .iter()
        .filter(|h| h.site == Site::Values)
        .enumerate()
        .map(|(earlier, h)| h.index + earlier)
        .peekable();
    let mut spans = Vec::with_capacity(elements.len());
    for (position, &span) in elements.iter().enumerate() {
        if hole_positions.peek() == Some(&position) {
            hole_positions.next();
        } else {
            spans.push(span);
        }
    }
    Cow::Owned(spans)
}

impl<'t> Checker<'t> {
    /// `negative_dim` in a written type, `of` saying whose (``the type of `x` ``), nested
    /// types included.
    pub(super) fn declared_type(&mut self, of: &dyn Fn() -> String, ty: &Type) {
        if !self.on(Check::NegativeDim) {
            return;
        }
        match &ty.kind {
            TypeKind::Tensor(_, Some(dims)) | TypeKind::SparseTensor(_, Some(dims)) => {
                for (axis, dim) in dims.iter().enumerate() {
                    if let DimValue::Value(value @ ..0) = dim.value {
                        let message = format!("{} has {}", of(), negative_dim(value, axis));
                        self.report(Diagnostic::new(Check::NegativeDim, dim.span, message));
                    }
                }
            }
            TypeKind::Sequence(inner) | TypeKind::Optional(inner) | TypeKind::Map(_, inner) => {
                self.declared_type(of, inner)
            }
            TypeKind::Tensor(_, None)
            | TypeKind::SparseTensor(_, None)
            | TypeKind::Opaque { .. } => {}
        }
    }

    pub(super) fn tensor(&mut self, tensor: &'t Tensor) {
        if self.on(Check::NegativeDim) {
            for (axis, &dim) in tensor.dims.iter().enumerate().filter(|(_, d)| **d < 0) {
                let whose = match tensor.name.as_str() {
                    "" => "the tensor".to_owned(),
                    name => format!("the tensor `{name}`"),
                };
                let message = format!("{whose} has {}", negative_dim(dim, axis));
                self.report(Diagnostic::new(
                    Check::NegativeDim,
                    tensor.type_span,
                    message,
                ));
            }
        }
        let TensorData::Values(values, block, spans) = &tensor.data else {
            return;
        };
        if self.on(Check::ElementCountMismatch) {
            self.element_count(tensor, values, *block, spans);
        }
        if self.on(Check::LiteralOutOfRange) {
            self.literal_range(tensor, values, *block, spans);
        }
    }

    /// `float[2, 3]`, `float` (a scalar), as the message shows a tensor's type.
    fn shown_type(tensor: &Tensor) -> String {
        let name = type_name(tensor.elem_type);
        if tensor.dims.is_empty() {
            return format!("the scalar `{name}`");
        }
        let dims: Vec<String> = tensor.dims.iter().map(i64::to_string).collect();
        format!("`{name}[{}]`", dims.join(", "))
    }

    fn element_count(
        &mut self,
        tensor: &Tensor,
        values: &TensorValues,
        block: Span,
        spans: &[Span],
    ) {
        // Holes among the dims, or spreads among the values: the count waits for the values.
        if tensor
            .holes
            .iter()
            .any(|h| h.site == Site::Dims || h.hole.spread)
        {
            return;
        }
        let found = (value_count(values) + tensor.holes.len()) as u64;
        let mut elements = Some(1u64);
        for &dim in &tensor.dims {
            // A negative dim is `negative_dim`'s; no count can match it.
            let Ok(size) = u64::try_from(dim) else {
                return;
            };
            elements = elements.and_then(|e| e.checked_mul(size));
        }
        let layout = layout(tensor.elem_type);
        let expected = elements.and_then(|n| typed_value_count(tensor.elem_type, n));
        let Some(expected) = expected else {
            let span = tensor.type_span;
            self.report(Diagnostic::new(
                Check::ElementCountMismatch,
                span,
                format!("{} has more than 2^64 elements", Self::shown_type(tensor)),
            ));
            return;
        };
        if expected == found {
            return;
        }
        let note = match layout {
            Layout::One => "",
            Layout::Packed(note) => note,
            Layout::Complex => "real and imaginary parts interleaved",
        };
        let note = if note.is_empty() {
            String::new()
        } else {
            format!(" ({note})")
        };
        let message = format!(
            "expected {expected} value{} for {}{note}, found {found}",
            plural(expected),
            Self::shown_type(tensor)
        );
        // Too many: point at the extra values. Too few: at the whole block.
        let mut span = block;
        if found > expected {
            let extra = usize::try_from(expected).ok().and_then(|e| spans.get(e..));
            if let Some((first, last)) = extra.and_then(|s| Some((s.first()?, s.last()?))) {
                span = first.to(*last);
            }
        }
        self.report(Diagnostic::new(Check::ElementCountMismatch, span, message));
    }

    fn literal_range(
        &mut self,
        tensor: &Tensor,
        values: &TensorValues,
        block: Span,
        elements: &[Span],
    ) {
        let spans = value_spans(elements, &tensor.holes);
        match values {
            TensorValues::Int32(values) => {
                let Some((low, high, what)) = int32_range(tensor.elem_type) else {
                    return;
                };
                let fits = |v: &i32| (low..=high).contains(&i64::from(*v));
                if values.iter().all(fits) {
                    return;
                }
                let name = type_name(tensor.elem_type);
                let expected = if (low, high) == (0, 1) {
                    "0 or 1".to_owned()
                } else {
                    format!("{low}..={high}")
                };
                let kind = if what.is_empty() {
                    name
                } else {
                    format!("{name}, whose values are {what}")
                };
                for (k, value) in values.iter().enumerate() {
                    if !fits(value) {
                        let span = spans.get(k).copied().unwrap_or(block);
                        let written = self.written(span, value);
                        self.report(Diagnostic::new(
                            Check::LiteralOutOfRange,
                            span,
                            format!("`{written}` is out of range for {kind}: expected {expected}"),
                        ));
                    }
                }
            }
            TensorValues::Uint64(values) => {
                let uint32 = tensor.elem_type == 12;
                let too_big = uint32 && values.iter().any(|&v| v > u64::from(u32::MAX));
                let source_block = self.source.get(block.range()).unwrap_or("");
                if !too_big && !source_block.contains('-') {
                    return;
                }
                let name = type_name(tensor.elem_type);
                let max = if uint32 {
                    u64::from(u32::MAX)
                } else {
                    u64::MAX
                };
                for (k, &value) in values.iter().enumerate() {
                    let span = spans.get(k).copied();
                    let negative = span
                        .and_then(|span| self.text(span))
                        .is_some_and(|text| text.starts_with('-'));
                    let wrapped = negative && value != 0;
                    if value > max || wrapped {
                        let span = span.unwrap_or(block);
                        let written = self.written(span, &value);
                        let wrap = if wrapped && !uint32 {
                            format!(" (a minus sign wraps around to {value})")
                        } else {
                            String::new()
                        };
                        self.report(Diagnostic::new(
                            Check::LiteralOutOfRange,
                            span,
                            format!(
                                "`{written}` is out of range for {name}: expected 0..={max}{wrap}"
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// The literal as written at `span`, or else its value.
    fn written(&self, span: Span, value: &dyn std::fmt::Display) -> String {
        match self.text(span) {
            Some(text) if !text.is_empty() && !text.starts_with('{') => text.to_owned(),
            _ => value.to_string(),
        }
    }
}
