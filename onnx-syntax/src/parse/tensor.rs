//! Tensor constants: initializers (`float[2] w = {1, 2}`) and attribute tensors
//! (`float[2] t {1, 2}`), with their data stored the way the reference stores it.

use super::Parser;
use super::literal::LitKind;
use crate::dtype::{Storage, elem_type_by_number};
use crate::error::{ParseError, ParseErrorKind};
use crate::hole::{Hole, ListHole, Site};
use crate::lex::TokenKind;
use crate::span::Span;
use crate::syntax::{
    DimValue, ElemType, Tensor, TensorData, TensorValues, Type, TypeKind, ValueInfo,
};

impl Parser<'_> {
    /// The tensor after `name =` in a graph's input or local list; the data is optional.
    pub(super) fn initializer(&mut self, info: &ValueInfo, eq: Span) -> Result<Tensor, ParseError> {
        let Some(ty) = &info.ty else {
            return Err(self.error(
                ParseErrorKind::TensorType,
                info.name.span.to(eq),
                format!(
                    "initializer `{}` needs a tensor type, such as `float[2]`",
                    info.name.text
                ),
            ));
        };
        let (elem_type, dims, mut holes) = self.tensor_type(ty)?;
        let data = self.tensor_data(elem_type, &mut holes)?;
        Ok(Tensor {
            elem_type,
            dims,
            name: info.name.text.clone(),
            data,
            holes,
            type_span: ty.span,
            span: ty.span.to(self.since(eq)),
        })
    }

    /// The rest of an attribute tensor after its type: `name? '='? data?`.
    pub(super) fn attribute_tensor(&mut self, ty: Type) -> Result<Tensor, ParseError> {
        let (elem_type, dims, mut holes) = self.tensor_type(&ty)?;
        let name = if self.peek().kind == TokenKind::Ident {
            let token = self.bump()?;
            self.text(token).to_owned()
        } else {
            String::new()
        };
        self.eat_punct(b'=')?;
        let data = self.tensor_data(elem_type, &mut holes)?;
        Ok(Tensor {
            elem_type,
            dims,
            name,
            data,
            holes,
            type_span: ty.span,
            span: self.since(ty.span),
        })
    }

    /// True if an attribute value that starts with a type is a tensor: `{`, `=` or a name follows.
    pub(super) fn at_tensor_after_type(&self) -> bool {
        let next = self.peek();
        next.is_punct(b'{') || next.is_punct(b'=') || next.kind == TokenKind::Ident
    }

    /// The element type and numeric dims of a tensor constant's type, and the holes among the
    /// dims (macro literals only).
    fn tensor_type(&self, ty: &Type) -> Result<(ElemType, Vec<i64>, Vec<ListHole>), ParseError> {
        let TypeKind::Tensor(elem_type, shape) = &ty.kind else {
            return Err(self.error(
                ParseErrorKind::TensorType,
                ty.span,
                "a tensor constant needs a tensor type, such as `float[2]`",
            ));
        };
        let Some(shape) = shape else {
            return Err(self.error(
                ParseErrorKind::TensorType,
                ty.span,
                "a tensor constant needs a known shape: `[]` has unknown rank",
            ));
        };
        let mut dims = Vec::with_capacity(shape.len());
        let mut holes = Vec::new();
        for dim in shape {
            match &dim.value {
                DimValue::Value(n) => dims.push(*n),
                DimValue::Param(marker) if self.holes && Hole::from_marker(marker).is_some() => {
                    holes.extend(Hole::from_marker(marker).map(|hole| ListHole {
                        hole,
                        site: Site::Dims,
                        index: dims.len(),
                    }));
                }
                _ => {
                    return Err(self.error(
                        ParseErrorKind::TensorType,
                        dim.span,
                        "the dims of a tensor constant must be integers",
                    ));
                }
            }
        }
        Ok((*elem_type, dims, holes))
    }

    /// `{ literal, … }`, `[ "key": "value", … ]` (external data), or nothing. Holes among the
    /// values are added to `holes`.
    fn tensor_data(
        &mut self,
        elem_type: ElemType,
        holes: &mut Vec<ListHole>,
    ) -> Result<TensorData, ParseError> {
        if self.at_punct(b'{') {
            let open = self.bump()?;
            let mut spans = Vec::new();
            let values = self.tensor_values(elem_type, holes, &mut spans)?;
            self.expect_punct(b'}')?;
            Ok(TensorData::Values(values, self.since(open.span), spans))
        } else if self.at_punct(b'[') {
            let open = self.bump()?;
            let entries =
                self.comma_list(b']', false, |p| p.string_pair("an external-data key"))?;
            self.expect_punct(b']')?;
            Ok(TensorData::External(entries, self.since(open.span)))
        } else {
            Ok(TensorData::None)
        }
    }

    /// The comma-separated literals inside `{…}`, converted for the element type. Holes (macro
    /// literals only) are added to `holes`, each after the values written before it.
    fn tensor_values(
        &mut self,
        elem_type: ElemType,
        holes: &mut Vec<ListHole>,
        spans: &mut Vec<Span>,
    ) -> Result<TensorValues, ParseError> {
        let storage = elem_type_by_number(elem_type).map_or(Storage::Float, |t| t.storage);
        macro_rules! values {
            ($variant:ident, $convert:expr) => {{
                let convert = $convert;
                let mut values = Vec::new();
                if !(self.at_punct(b'}')) {
                    loop {
                        match self.at_hole() {
                            Some(hole) => {
                                spans.push(self.bump()?.span);
                                let index = values.len();
                                holes.push(ListHole {
                                    hole,
                                    site: Site::Values,
                                    index,
                                });
                            }
                            None => {
                                let literal = self.literal("a tensor element")?;
                                spans.push(literal.span);
                                values.push(convert(self, literal)?);
                            }
                        }
                        if !self.eat_punct(b',')? {
                            break;
                        }
                    }
                }
                TensorValues::$variant(values)
            }};
        }
        Ok(match storage {
            Storage::Int32 => values!(Int32, |p: &mut Self, lit| {
                let value = p.to_i64(lit, "an integer element")?;
                i32::try_from(value).map_err(|_| {
                    p.error(
                        ParseErrorKind::OutOfRange,
                        lit.span,
                        format!("{value} does not fit in the int32 storage of this tensor"),
                    )
                })
            }),
            Storage::Int64 => values!(Int64, |p: &mut Self, lit| p
                .to_i64(lit, "an integer element")),
            Storage::Uint64 => {
                values!(Uint64, |p: &mut Self, lit| p
                    .to_u64_wrapping(lit, "an integer element"))
            }
            Storage::Float => values!(Float, |p: &mut Self, lit| p.to_f32(lit, "a number")),
            Storage::Double => values!(Double, |p: &mut Self, lit| p.to_f64(lit, "a number")),
            Storage::String => values!(String, |p: &mut Self, lit: super::literal::Literal| {
                if lit.kind == LitKind::Str {
                    Ok(p.literal_bytes(lit))
                } else {
                    Err(p.kind_error(lit, "a string element"))
                }
            }),
        })
    }

    /// `"key" : "value"`
    pub(super) fn string_pair(&mut self, what: &str) -> Result<(String, String), ParseError> {
        let key = self.string(&format!("{what} (a quoted string)"))?;
        self.expect_punct(b':')?;
        let value = self.string("a quoted string value")?;
        Ok((key, value))
    }
}
