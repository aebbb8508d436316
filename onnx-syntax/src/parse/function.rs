//! Functions: `<header>? name <attributes>? (inputs) => (outputs) <value-infos>? { nodes }`.

use super::Parser;
use crate::error::ParseError;
use crate::syntax::{Function, FunctionHeaderEntry, FunctionHeaderValue};

impl Parser<'_> {
    /// function ::= fn-header? name fn-attrs? fn-io '=>' fn-io fn-value-infos? node-list
    pub(super) fn parse_function(&mut self) -> Result<Function, ParseError> {
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
