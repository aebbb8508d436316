//! Nodes: `[label] outputs = domain.Op:overload <attributes> (inputs)`.

use super::Parser;
use crate::error::{ParseError, ParseErrorKind};
use crate::lex::{TokenKind, unescape};
use crate::span::Span;
use crate::syntax::{Name, Node, NodeForm};

impl Parser<'_> {
    /// node-list ::= '{' node* '}', each node in the form `N`.
    pub(super) fn parse_node_list<N: NodeForm>(&mut self) -> Result<Vec<N>, ParseError> {
        tri!(self.expect_punct(b'{'));
        let mut nodes = Vec::new();
        while !self.at_punct(b'}') {
            if !self.at_node_start() {
                return Err(self.expected("a node or `}`"));
            }
            let node = tri!(self.node_or_hole());
            nodes.push(N::from_node(node));
        }
        tri!(self.bump());
        Ok(nodes)
    }

    /// A node, or in a macro literal a hole standing for nodes from Rust (`#node`, `..#nodes`):
    /// a placeholder node whose operator is the hole's marker. A hole followed by `=` or `,` is
    /// an output name instead.
    pub(super) fn node_or_hole(&mut self) -> Result<Node, ParseError> {
        if self.at_hole().is_none() || {
            let after = tri!(self.peek_second());
            after.is_punct(b'=') || after.is_punct(b',')
        } {
            return self.parse_node();
        }
        let token = tri!(self.bump());
        Ok(Node {
            label: None,
            outputs: Vec::new(),
            domain: String::new(),
            op_type: unescape(self.text(token)).into_owned(),
            op_span: token.span,
            overload: None,
            attributes: Vec::new(),
            inputs: Vec::new(),
            span: token.span,
        })
    }

    /// True if a node can start here: a label, an output, or the `=` of a node without outputs.
    fn at_node_start(&self) -> bool {
        let next = self.peek();
        matches!(next.kind, TokenKind::Ident | TokenKind::Str)
            || [b'[', b',', b'='].iter().any(|&c| next.is_punct(c))
    }

    /// node ::= label? operands '=' op-id (':' identifier)? attr-list? '(' operands ')' attr-list?
    ///
    /// The attribute list may stand before or after the inputs, but not in both places.
    pub(super) fn parse_node(&mut self) -> Result<Node, ParseError> {
        let start = self.peek().span;
        let label = if self.at_punct(b'[') {
            Some(tri!(self.label()))
        } else {
            None
        };
        let outputs = tri!(self.operands(b'='));
        tri!(self.expect_punct(b'='));
        let (domain, op_type, op_span) = tri!(self.op_id());
        let overload = if tri!(self.eat_punct(b':')) {
            let token = tri!(self.ident("an overload name"));
            Some(self.ident_name(token))
        } else {
            None
        };
        let attributes_first = self.at_punct(b'<');
        let mut attributes = if attributes_first {
            tri!(self.attr_list())
        } else {
            Vec::new()
        };
        tri!(self.expect_punct(b'('));
        let inputs = tri!(self.operands(b')'));
        tri!(self.expect_punct(b')'));
        if self.at_punct(b'<') {
            if attributes_first {
                return Err(self.error(
                    ParseErrorKind::Unexpected,
                    self.peek().span,
                    "a node has one attribute list, before or after its inputs, not both",
                ));
            }
            attributes = tri!(self.attr_list());
        }
        Ok(Node {
            label,
            outputs,
            domain,
            op_type,
            op_span,
            overload,
            attributes,
            inputs,
            span: self.since(start),
        })
    }

    /// label ::= '[' name? ']'
    fn label(&mut self) -> Result<Name, ParseError> {
        let open = tri!(self.bump());
        let name = if self.at_punct(b']') {
            Name {
                text: String::new(),
                span: Span::at(open.span.end),
            }
        } else {
            tri!(self.quotable_name("a node name"))
        };
        tri!(self.expect_punct(b']'));
        Ok(name)
    }

    /// op-id ::= identifier? ('.' identifier)*: the domain is every part but the last.
    ///
    /// As in the reference, the name may be empty (`x = (y)`) and a leading dot is ignored.
    fn op_id(&mut self) -> Result<(String, String, Span), ParseError> {
        let start = self.peek().span;
        // The last part read so far; the parts before it are already in `domain`.
        let mut last = None;
        if matches!(self.peek().kind, TokenKind::Ident) {
            let token = tri!(self.bump());
            last = Some(self.text(token));
        }
        if last.is_none() && ![b'.', b'(', b'<', b':'].iter().any(|&c| self.at_punct(c)) {
            return Err(self.expected("an operator name"));
        }
        let mut domain = String::new();
        while tri!(self.eat_punct(b'.')) {
            let token = tri!(self.ident("an operator or domain name after `.`"));
            if let Some(part) = last.replace(self.text(token)) {
                if !domain.is_empty() {
                    domain.push('.');
                }
                domain.push_str(part);
            }
        }
        let span = match last {
            None => Span::at(start.start),
            Some(_) => self.since(start),
        };
        Ok((domain, last.unwrap_or_default().to_owned(), span))
    }

    /// The operand list of a node, up to `close` (not consumed). Empty entries stand for missing
    /// operands: `(,x)` is `["", "x"]`, and one trailing comma is ignored: `(x,)` is `["x"]`.
    fn operands(&mut self, close: u8) -> Result<Vec<Name>, ParseError> {
        // Read onto the parser's stack of names (see `list_from`).
        let base = self.names.len();
        while !self.at_punct(close) {
            if self.at_punct(b',') {
                let comma = tri!(self.bump());
                self.names.push(Name {
                    text: String::new(),
                    span: Span::at(comma.span.start),
                });
                continue;
            }
            if !matches!(self.peek().kind, TokenKind::Ident | TokenKind::Str) {
                let what = format!("a value name, `,` or `{}`", close as char);
                return Err(self.expected(&what));
            }
            let name = tri!(self.quotable_name("a value name"));
            self.names.push(name);
            if !tri!(self.eat_punct(b',')) {
                break;
            }
        }
        Ok(Self::list_from(&mut self.names, base))
    }
}
