//! Types: `float[N, 3]`, `seq(T)`, `map(K, V)`, `optional(T)`, `sparse_tensor(T[dims])`,
//! `opaque(domain, name)`.

use super::Parser;
use crate::dtype::{TYPE_KEYWORDS, elem_type_by_name, similar_elem_types, starts_type};
use crate::error::{ParseError, ParseErrorKind};
use crate::lex::{TokenKind, unescape};
use crate::span::Span;
use crate::syntax::{Dim, DimValue, ElemType, Shape, Type, TypeKind, ValueDecl, ValueInfo};

impl Parser<'_> {
    /// True if a type starts here: an element type name or a type keyword.
    pub(super) fn at_type(&self) -> bool {
        self.peek().kind == TokenKind::Ident && starts_type(self.text(self.peek()))
    }

    /// type ::= prim shape? | seq(type) | map(prim, type) | optional(type)
    ///        | sparse_tensor(prim shape?) | opaque(…)
    pub(super) fn ty(&mut self) -> Result<Type, ParseError> {
        self.enter()?;
        let result = self.ty_inner();
        self.leave();
        result
    }

    fn ty_inner(&mut self) -> Result<Type, ParseError> {
        let keyword = self.ident("a type")?;
        let word = self.text(keyword);
        let kind = if let Some(elem) = elem_type_by_name(word) {
            TypeKind::Tensor(elem.number, self.shape_suffix()?)
        } else if !TYPE_KEYWORDS.contains(&word) {
            // `seq(flaot[3])`: a word in a type's place that is no type.
            return Err(self.unknown_elem_type(word, keyword.span));
        } else {
            self.expect_punct(b'(')?;
            let kind = match word {
                "seq" => TypeKind::Sequence(Box::new(self.ty()?)),
                "optional" => TypeKind::Optional(Box::new(self.ty()?)),
                "map" => {
                    let key = self.prim_type("a primitive key type (`map` keys have no shape)")?;
                    self.expect_punct(b',')?;
                    TypeKind::Map(key, Box::new(self.ty()?))
                }
                "sparse_tensor" => {
                    let elem = self.prim_type("a primitive element type for `sparse_tensor`")?;
                    TypeKind::SparseTensor(elem, self.shape_suffix()?)
                }
                "opaque" => self.opaque_args()?,
                _ => unreachable!("TYPE_KEYWORDS has these five words"),
            };
            self.expect_punct(b')')?;
            kind
        };
        Ok(Type {
            kind,
            span: self.since(keyword.span),
        })
    }

    /// A bare element type name, without shape.
    fn prim_type(&mut self, what: &str) -> Result<ElemType, ParseError> {
        if self.peek().kind == TokenKind::Ident
            && let Some(elem) = elem_type_by_name(self.text(self.peek()))
        {
            self.bump()?;
            return Ok(elem.number);
        }
        Err(self.expected(what))
    }

    /// `[dims]`, `[]` (unknown rank: `None`) or nothing (a scalar: an empty shape).
    fn shape_suffix(&mut self) -> Result<Option<Shape>, ParseError> {
        if !self.eat_punct(b'[')? {
            return Ok(Some(Shape::new()));
        }
        if self.eat_punct(b']')? {
            return Ok(None);
        }
        let dims = self.comma_list(b']', false, Self::dim)?;
        self.expect_punct(b']')?;
        Ok(Some(dims))
    }

    /// dim ::= '?' | string | identifier | integer
    fn dim(&mut self) -> Result<Dim, ParseError> {
        let next = self.peek();
        let value = match next.kind {
            TokenKind::Punct(b'?') => {
                self.bump()?;
                DimValue::Unknown
            }
            TokenKind::Str => {
                self.bump()?;
                DimValue::Param(unescape(self.text(next)).into_owned())
            }
            TokenKind::Ident => {
                self.bump()?;
                DimValue::Param(self.text(next).to_owned())
            }
            _ => DimValue::Value(self.int("a dimension (an integer, a name or `?`)")?),
        };
        Ok(Dim {
            value,
            span: self.since(next.span),
        })
    }

    /// The inside of `opaque(…)`: nothing, `a.b.c` (a name), or `a.b, T` (a domain and a name).
    fn opaque_args(&mut self) -> Result<TypeKind, ParseError> {
        if self.at_punct(b')') {
            return Ok(TypeKind::Opaque {
                domain: None,
                name: None,
            });
        }
        let first = self.dotted_name("an opaque type name")?;
        if self.eat_punct(b',')? {
            let name = self.ident("an opaque type name")?;
            Ok(TypeKind::Opaque {
                domain: Some(first),
                name: Some(self.text(name).to_owned()),
            })
        } else {
            Ok(TypeKind::Opaque {
                domain: None,
                name: Some(first),
            })
        }
    }

    /// identifier ('.' identifier)*
    fn dotted_name(&mut self, what: &str) -> Result<String, ParseError> {
        let first = self.ident(what)?;
        let mut name = self.text(first).to_owned();
        while self.eat_punct(b'.')? {
            let part = self.ident(what)?;
            name.push('.');
            name.push_str(self.text(part));
        }
        Ok(name)
    }

    /// value-info ::= type? name. The type is read when the next word is a type keyword.
    pub(super) fn value_info(&mut self) -> Result<ValueInfo, ParseError> {
        let ty = if self.at_type() {
            Some(self.ty()?)
        } else {
            None
        };
        let word = self.peek();
        let name = self.quotable_name("a value name")?;
        if ty.is_none() && word.kind == TokenKind::Ident {
            self.after_untyped_name(&name.text, word.span)?;
        }
        Ok(ValueInfo { ty, name })
    }

    /// A name with no type is followed by `,`, a closing bracket or `=`. A shape or another name
    /// after it (`flaot[N] x`, `Float x`) means the name was a mistyped element type: say so,
    /// where onnx's parser says "expected `)`, found `[`". A name after it is taken for a
    /// missing comma instead, unless the word is close to an element type's name.
    fn after_untyped_name(&self, word: &str, span: Span) -> Result<(), ParseError> {
        let next = self.peek().kind;
        let shape = next == TokenKind::Punct(b'[');
        let name = matches!(next, TokenKind::Ident | TokenKind::Str);
        if shape || (name && !similar_elem_types(word).is_empty()) {
            return Err(self.unknown_elem_type(word, span));
        }
        Ok(())
    }

    /// "unknown element type", with the names it may have meant.
    fn unknown_elem_type(&self, word: &str, span: Span) -> ParseError {
        let similar: Vec<String> = (similar_elem_types(word).iter())
            .map(|name| format!("`{name}`"))
            .collect();
        let message = match similar.split_last() {
            None => format!("unknown element type `{word}`"),
            Some((last, [])) => format!("unknown element type `{word}`; did you mean {last}?"),
            Some((last, others)) => format!(
                "unknown element type `{word}`; did you mean {} or {last}?",
                others.join(", ")
            ),
        };
        self.error(ParseErrorKind::Unexpected, span, message)
    }

    /// A value info, with `= data` allowed when `allow_initializer`.
    pub(super) fn value_decl(&mut self, allow_initializer: bool) -> Result<ValueDecl, ParseError> {
        let info = self.value_info()?;
        let initializer = if allow_initializer && self.at_punct(b'=') {
            let eq = self.bump()?;
            Some(self.initializer(&info, eq.span)?)
        } else {
            None
        };
        Ok(ValueDecl { info, initializer })
    }
}

#[cfg(test)]
mod tests {
    /// The message and 1-based column of the error parsing `signature` as a graph's.
    fn error_of(signature: &str) -> (String, usize) {
        let text = format!("g ({signature}) => (float y) {{ y = Relu(x) }}");
        let err = crate::parse_graph(&text).unwrap_err();
        (err.message().to_owned(), err.column())
    }

    #[test]
    fn a_mistyped_element_type_is_named_with_the_nearest_names() {
        let cases = [
            (
                "flaot[N] x",
                "unknown element type `flaot`; did you mean `float`?",
            ),
            (
                "Float x",
                "unknown element type `Float`; did you mean `float`?",
            ),
            (
                "FLOAT[2] x",
                "unknown element type `FLOAT`; did you mean `float`?",
            ),
            (
                "int x",
                "unknown element type `int`; did you mean `int8`, `int16`, `int32` or `int64`?",
            ),
            (
                "float32[3] x",
                "unknown element type `float32`; did you mean `float`?",
            ),
            ("tensor[3] x", "unknown element type `tensor`"),
            (
                "seq(flaot[3]) x",
                "unknown element type `flaot`; did you mean `float`?",
            ),
        ];
        for (signature, message) in cases {
            let (found, column) = error_of(signature);
            assert_eq!(found, message, "{signature}");
            // At the word, not at what follows it.
            let word = message.split('`').nth(1).unwrap();
            assert_eq!(column, 4 + signature.find(word).unwrap(), "{signature}");
        }
    }

    #[test]
    fn a_missing_comma_between_names_is_not_taken_for_a_type() {
        // `x y` is two names without a comma: neither is near an element type's name.
        let (found, _) = error_of("float x y");
        assert_eq!(found, "expected `)`, found `y`");
        // Valid signatures are untouched, a quoted name too.
        let valid = "g (float[N] x, \"int\", xs) => (float y) { y = Relu(x) }";
        assert!(crate::parse_graph(valid).is_ok());
    }
}
