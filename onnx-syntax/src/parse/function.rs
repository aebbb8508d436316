//! Functions: `<header>? name <attributes>? (inputs) => (outputs) <value-infos>? { nodes }`.

use super::Parser;
use crate::error::{ParseError, ParseErrorKind};
use crate::lex::unescape;
use crate::syntax::{Function, FunctionHeaderEntry, FunctionHeaderValue, Name, NodeForm};

impl Parser<'_> {
    /// function* up to the end of input. In a macro literal, a hole here (`#f`, `..#library`)
    /// stands for functions from Rust: a placeholder function whose name is the hole's marker.
    pub(super) fn functions_to_end<N: NodeForm>(&mut self) -> Result<Vec<Function<N>>, ParseError> {
        let mut functions = Vec::new();
        while !self.at_end() {
            if self.at_hole().is_some() {
                let token = self.bump()?;
                let name = Name {
                    text: unescape(self.text(token)).into_owned(),
                    span: token.span,
                };
                functions.push(Function {
                    header: Vec::new(),
                    name,
                    attributes: Vec::new(),
                    inputs: Vec::new(),
                    outputs: Vec::new(),
                    value_infos: Vec::new(),
                    nodes: Vec::new(),
                    span: token.span,
                });
                continue;
            }
            functions.push(self.parse_function()?);
        }
        Ok(functions)
    }

    /// function ::= fn-header? name fn-attrs? fn-io '=>' fn-io fn-value-infos? node-list
    pub(super) fn parse_function<N: NodeForm>(&mut self) -> Result<Function<N>, ParseError> {
        let start = self.peek().span;
        let header = if self.at_punct(b'<') {
            self.function_header()?
        } else {
            Vec::new()
        };
        let name = self.quotable_name("a function name")?;
        let attributes = if self.at_punct(b'<') {
            self.bump()?;
            let attributes = self.comma_list(b'>', false, Self::function_attribute)?;
            self.expect_punct(b'>')?;
            attributes
        } else {
            Vec::new()
        };
        let inputs = self.value_info_list(b'(', b')')?;
        self.expect_arrow()?;
        let outputs = self.value_info_list(b'(', b')')?;
        let value_infos = if self.at_punct(b'<') {
            self.value_info_list(b'<', b'>')?
        } else {
            Vec::new()
        };
        let nodes = self.parse_node_list()?;
        Ok(Function {
            header,
            name,
            attributes,
            inputs,
            outputs,
            value_infos,
            nodes,
            span: self.since(start),
        })
    }

    /// fn-header ::= '<' fn-kv (',' fn-kv)* '>'
    fn function_header(&mut self) -> Result<Vec<FunctionHeaderEntry>, ParseError> {
        self.expect_punct(b'<')?;
        let entries = self.comma_list(b'>', false, |p| {
            let key = p.ident("a function header key")?;
            p.expect_punct(b':')?;
            let value = match p.text(key) {
                "domain" => FunctionHeaderValue::Domain(p.string("a quoted domain")?),
                "opset_import" => FunctionHeaderValue::OpsetImport(p.opset_list()?),
                "doc_string" => FunctionHeaderValue::DocString(p.string("a quoted doc string")?),
                "overload" => FunctionHeaderValue::Overload(p.string("a quoted overload name")?),
                other => {
                    return Err(p.error(
                        ParseErrorKind::UnknownHeaderKey,
                        key.span,
                        format!(
                            "unknown function header key `{other}`; expected `domain`, \
                             `opset_import`, `doc_string` or `overload`"
                        ),
                    ));
                }
            };
            Ok(FunctionHeaderEntry {
                key_span: key.span,
                value,
            })
        })?;
        self.expect_punct(b'>')?;
        Ok(entries)
    }
}
