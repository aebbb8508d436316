//! Attributes: `<name: type = value, …>` on nodes, and the attribute list of a function.

use super::Parser;
use super::literal::{LitKind, Word, classify_word};
use crate::dtype::starts_type;
use crate::error::{ParseError, ParseErrorKind};
use crate::hole::{ListHole, Site};
use crate::lex::TokenKind;
use crate::span::Span;
use crate::syntax::{
    ATTRIBUTE_TYPES, AttrValue, Attribute, AttributeType, AttributeTypeSyntax, FunctionAttribute,
    attribute_type,
};

/// An attribute annotation: the type keyword after `:` and its span.
type Annotation = Option<(AttributeType, Span)>;

/// An attribute's type (`None` where the value does not say), its value, and the holes among a
/// list's elements.
type TypedValue = (Option<AttributeType>, AttrValue, Vec<ListHole>);

impl Parser<'_> {
    /// attr-list ::= '<' attribute (',' attribute)* '>'
    pub(super) fn attr_list(&mut self) -> Result<Vec<Attribute>, ParseError> {
        tri!(self.expect_punct(b'<'));
        // Read onto the parser's stack of attributes (see `list_from`), as `comma_list` would
        // read them into a vector: an attribute's value may be a graph with attribute lists.
        let base = self.attributes.len();
        loop {
            let attribute = tri!(self.attribute());
            self.attributes.push(attribute);
            if !tri!(self.eat_punct(b',')) {
                break;
            }
        }
        tri!(self.expect_punct(b'>'));
        Ok(Self::list_from(&mut self.attributes, base))
    }

    /// attribute ::= identifier (':' attr-type)? '=' attr-value
    fn attribute(&mut self) -> Result<Attribute, ParseError> {
        let token = tri!(self.ident("an attribute name"));
        let name = self.ident_name(token);
        let annotation = tri!(self.annotation());
        tri!(self.expect_punct(b'='));
        let value_start = self.peek().span;
        let (ty, value, holes) = tri!(self.attr_value(annotation));
        Ok(Attribute {
            name,
            annotation,
            ty,
            value: Some(value),
            value_span: self.since(value_start),
            holes,
            span: self.since(token.span),
        })
    }

    /// fn-attr ::= name | name (':' attr-type)? ('=' attr-value)?
    ///
    /// A bare name declares an attribute; an annotation and/or a default makes an `attribute_proto`
    /// entry. `F <a: float>` (a typed attribute without default) is allowed.
    pub(super) fn function_attribute(&mut self) -> Result<FunctionAttribute, ParseError> {
        let name = tri!(self.quotable_name("an attribute name"));
        if !self.at_punct(b':') && !self.at_punct(b'=') {
            return Ok(FunctionAttribute::Name(name));
        }
        let annotation = tri!(self.annotation());
        let value_start = self.peek().span;
        let (ty, value, holes) = if tri!(self.eat_punct(b'=')) {
            let value_start = self.peek().span;
            let (ty, value, holes) = tri!(self.attr_value(annotation));
            (ty, Some((value, self.since(value_start))), holes)
        } else {
            (annotation.map(|(ty, _)| ty), None, Vec::new())
        };
        let span = self.since(name.span);
        let value_span = value
            .as_ref()
            .map_or(Span::at(value_start.start), |(_, span)| *span);
        Ok(FunctionAttribute::Proto(Attribute {
            name,
            annotation,
            ty,
            value: value.map(|(value, _)| value),
            value_span,
            holes,
            span,
        }))
    }

    /// (':' attr-type)?
    fn annotation(&mut self) -> Result<Annotation, ParseError> {
        if !tri!(self.eat_punct(b':')) {
            return Ok(None);
        }
        let token = tri!(self.ident("an attribute type"));
        let word = self.text(token);
        match attribute_type(word) {
            Some(ty) => Ok(Some((ty, token.span))),
            None => {
                let known: Vec<_> = ATTRIBUTE_TYPES.iter().map(|(_, kw)| *kw).collect();
                Err(self.error(
                    ParseErrorKind::UnknownAttributeType,
                    token.span,
                    format!(
                        "unknown attribute type `{word}`; expected one of {}",
                        known.join(", ")
                    ),
                ))
            }
        }
    }

    /// attr-value ::= '[' (single (',' single)*)? ']' | single
    ///
    /// Returns the attribute's type (`None` for an `@ref` or a hole without annotation), its
    /// value, and the holes among a list's elements.
    fn attr_value(&mut self, annotation: Annotation) -> Result<TypedValue, ParseError> {
        if self.at_punct(b'[') {
            return self.list_value(annotation);
        }
        let expected = annotation.map(|(ty, _)| ty);
        if let Some(hole) = tri!(self.one_hole()) {
            return Ok((expected, AttrValue::Hole(hole), Vec::new()));
        }
        let start = self.peek().span;
        let int_as_float = matches!(expected, Some(AttributeType::Float));
        let value = tri!(self.single_value(int_as_float));
        let Some(ty) = value_type(&value) else {
            // A reference takes its type from the annotation, whatever it is.
            return Ok((expected, value, Vec::new()));
        };
        if let Some((annotated, _)) = annotation
            && annotated != ty
        {
            return Err(self.error(
                ParseErrorKind::InvalidAttributeValue,
                self.since(start),
                format!(
                    "expected {} value, found {} value",
                    article(annotated),
                    article(ty)
                ),
            ));
        }
        Ok((Some(ty), value, Vec::new()))
    }

    /// A list value. Its element type is the annotation's, or else the first element's.
    ///
    /// As in the reference, a single-value annotation names the element type: `a: int = [1, 2]`
    /// is INTS. Only an empty list needs a list annotation.
    fn list_value(&mut self, annotation: Annotation) -> Result<TypedValue, ParseError> {
        let open = tri!(self.bump());
        let mut element = annotation.map(|(ty, _)| list_element(ty).unwrap_or(ty));
        // Elements go straight into the list of their type: no vector of single values.
        let mut list = element.map(empty_list);
        let mut len = 0;
        let mut holes = Vec::new();
        if !self.at_punct(b']') {
            loop {
                if let Some(hole) = self.at_hole() {
                    tri!(self.bump());
                    holes.push(ListHole {
                        hole,
                        site: Site::Values,
                        index: len,
                    });
                    if !tri!(self.eat_punct(b',')) {
                        break;
                    }
                    continue;
                }
                if self.at_punct(b'[') {
                    return Err(self.error(
                        ParseErrorKind::InvalidAttributeValue,
                        self.peek().span,
                        "lists of attribute values do not nest",
                    ));
                }
                let start = self.peek().span;
                let value = tri!(self.single_value(element == Some(AttributeType::Float)));
                let Some(ty) = value_type(&value) else {
                    return Err(self.error(
                        ParseErrorKind::InvalidAttributeValue,
                        self.since(start),
                        "an attribute reference `@…` cannot be a list element",
                    ));
                };
                match element {
                    None => {
                        element = Some(ty);
                        list = Some(empty_list(ty));
                    }
                    Some(expected) if expected == ty => {}
                    Some(expected) => {
                        return Err(self.error(
                            ParseErrorKind::InvalidAttributeValue,
                            self.since(start),
                            format!(
                                "list elements must all be of type `{}` (set by the {}), found {} value",
                                expected.keyword(),
                                if annotation.is_some() { "annotation" } else { "first element" },
                                article(ty)
                            ),
                        ));
                    }
                }
                if let Some(list) = &mut list {
                    push_element(list, value);
                }
                len += 1;
                if !tri!(self.eat_punct(b',')) {
                    break;
                }
            }
        }
        tri!(self.expect_punct(b']'));
        if element.is_none() && !holes.is_empty() {
            // Holes only: the schema or the Rust values give the type.
            return Ok((None, AttrValue::EmptyList, holes));
        }
        let Some(element) = element.filter(|_| {
            len > 0 || !holes.is_empty() || annotation.is_some_and(|(ty, _)| ty.is_list())
        }) else {
            return Err(self.error(
                ParseErrorKind::InvalidAttributeValue,
                self.since(open.span),
                "an empty list needs a list type annotation, such as `name: ints = []`",
            ));
        };
        let list_type = element.list_of().unwrap_or(element);
        let value = list.unwrap_or_else(|| empty_list(element));
        Ok((Some(list_type), value, holes))
    }

    /// One value: a literal, a type or tensor constant, a graph, or an `@ref`.
    ///
    /// With `int_as_float`, an integer literal becomes a FLOAT (the annotation or list says float).
    fn single_value(&mut self, int_as_float: bool) -> Result<AttrValue, ParseError> {
        let next = self.peek();
        Ok(match next.kind {
            TokenKind::Ident if starts_type(self.text(next)) => {
                let ty = tri!(self.ty());
                if self.at_tensor_after_type() {
                    AttrValue::Tensor(Box::new(tri!(self.attribute_tensor(ty))))
                } else {
                    AttrValue::TypeProto(Box::new(ty))
                }
            }
            TokenKind::Ident if matches!(classify_word(self.text(next)), Word::Other) => {
                let token = tri!(self.bump());
                let name = self.ident_name(token);
                AttrValue::Graph(Box::new(tri!(self.graph_after_name(name))))
            }
            TokenKind::Punct(b'@') => {
                tri!(self.bump());
                AttrValue::Ref(tri!(self.quotable_name("an attribute name after `@`")))
            }
            _ => {
                let literal = tri!(self.literal("an attribute value"));
                match literal.kind {
                    LitKind::Int if !int_as_float => {
                        AttrValue::Int(tri!(self.to_i64(literal, "an integer")))
                    }
                    LitKind::Int | LitKind::Float => {
                        AttrValue::Float(tri!(self.to_f32(literal, "a number")))
                    }
                    LitKind::Str => AttrValue::String(self.literal_bytes(literal)),
                }
            }
        })
    }
}

/// The attribute type of a single value; `None` for a reference.
fn value_type(value: &AttrValue) -> Option<AttributeType> {
    Some(match value {
        AttrValue::Float(_) => AttributeType::Float,
        AttrValue::Int(_) => AttributeType::Int,
        AttrValue::String(_) => AttributeType::String,
        AttrValue::Tensor(_) => AttributeType::Tensor,
        AttrValue::Graph(_) => AttributeType::Graph,
        AttrValue::TypeProto(_) => AttributeType::TypeProto,
        _ => return None,
    })
}

/// The element type of a list type (`Ints` → `Int`); `None` for single-value types.
fn list_element(list: AttributeType) -> Option<AttributeType> {
    ATTRIBUTE_TYPES
        .iter()
        .map(|(ty, _)| *ty)
        .find(|ty| ty.list_of() == Some(list))
}

/// An empty list value whose elements are of type `element`.
fn empty_list(element: AttributeType) -> AttrValue {
    match element {
        AttributeType::Float => AttrValue::Floats(Vec::new()),
        AttributeType::Int => AttrValue::Ints(Vec::new()),
        AttributeType::String => AttrValue::Strings(Vec::new()),
        AttributeType::Tensor => AttrValue::Tensors(Vec::new()),
        AttributeType::Graph => AttrValue::Graphs(Vec::new()),
        AttributeType::TypeProto => AttrValue::TypeProtos(Vec::new()),
        _ => AttrValue::EmptyList,
    }
}

/// Appends the single value `value` to `list`. `list_value` has checked that the value is of the
/// list's element type, so nothing is ever left out here.
fn push_element(list: &mut AttrValue, value: AttrValue) {
    match (list, value) {
        (AttrValue::Floats(v), AttrValue::Float(x)) => v.push(x),
        (AttrValue::Ints(v), AttrValue::Int(x)) => v.push(x),
        (AttrValue::Strings(v), AttrValue::String(x)) => v.push(x),
        (AttrValue::Tensors(v), AttrValue::Tensor(x)) => v.push(*x),
        (AttrValue::Graphs(v), AttrValue::Graph(x)) => v.push(*x),
        (AttrValue::TypeProtos(v), AttrValue::TypeProto(x)) => v.push(*x),
        _ => {}
    }
}

/// "a `float`", "an `int`".
fn article(ty: AttributeType) -> String {
    let keyword = ty.keyword();
    let article = if keyword.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} `{keyword}`")
}
