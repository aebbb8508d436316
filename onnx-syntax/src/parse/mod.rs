//! The parser: tokens to syntax tree, one small function per grammar rule.
//!
//! The grammar rules live in the submodules, by topic. This module holds the token cursor they
//! share, and the entry points that parse a whole input.

/// `?` for the rules that every node of a literal runs through, as serde_json has it: without
/// optimization, `?` is a call to `Try::branch` that copies the value through, and the macros run
/// the parser unoptimized (a default dev build).
macro_rules! tri {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(error) => return Err(error),
        }
    };
}

mod attribute;
mod function;
mod graph;
mod literal;
mod model;
mod node;
mod tensor;
mod types;

use crate::error::{ParseError, ParseErrorKind};
use crate::hole::Hole;
use crate::lex::{Lexer, Token, TokenKind, unescape};
use crate::span::Span;
use crate::syntax::{Attribute, Entry, Function, Graph, Model, Name, Node, NodeForm, Tree};

/// How deeply graphs and types may nest. Deeper input gets an error instead of exhausting the
/// stack. At the limit an unoptimized build needs about 1 MiB of stack (an optimized one far less);
/// real models stay far below it.
///
/// ```
/// let deep = format!("y = F <t = {}float{}> ()", "seq(".repeat(40), ")".repeat(40));
/// assert!(onnx_syntax::parse_node(&deep).unwrap_err().message().contains("nest more than"));
/// ```
pub const MAX_NESTING: u32 = 32;

/// A cursor over the tokens of one input, with one token of lookahead.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let graph = Parser::new("g (x) => (y) { y = Relu(x) }")?.graph()?;
/// assert_eq!(graph.nodes[0].op_type, "Relu");
/// assert_eq!(graph.nodes[0].span.start, 15); // every tree node knows where it was written
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub struct Parser<'a> {
    lexer: Lexer<'a>,
    next: Token,
    prev_end: u32,
    depth: u32,
    /// Whether hole markers (see [`crate::hole`]) are holes rather than strings.
    holes: bool,
    /// The names of the operand lists being read, and below them those of enclosing lists: see
    /// [`Parser::list_from`].
    names: Vec<Name>,
    /// The attributes of the attribute lists being read, nested graphs' included.
    attributes: Vec<Attribute>,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `source`.
    ///
    /// ```
    /// assert!(onnx_syntax::parse::Parser::new("y = Relu(x)").is_ok());
    /// ```
    pub fn new(source: &'a str) -> Result<Parser<'a>, ParseError> {
        let mut lexer = tri!(Lexer::new(source));
        let next = tri!(lexer.next_token());
        Ok(Parser {
            lexer,
            next,
            prev_end: 0,
            depth: 0,
            holes: false,
            names: Vec::new(),
            attributes: Vec::new(),
        })
    }

    /// A parser of a macro literal, where hole markers stand for Rust values (see
    /// [`crate::hole`]). Only the macros make one.
    ///
    /// ```
    /// use onnx_syntax::parse::Parser;
    /// use onnx_syntax::syntax::AttrValue;
    /// let node = Parser::with_holes("y = Elu <alpha = \"\u{E000}0\"> (x)")?.node()?;
    /// assert!(matches!(node.attributes[0].value, Some(AttrValue::Hole(_))));
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn with_holes(source: &'a str) -> Result<Parser<'a>, ParseError> {
        let mut parser = tri!(Parser::new(source));
        parser.holes = true;
        Ok(parser)
    }

    /// Parses a whole model (`<header>? graph function*`) up to the end of input.
    ///
    /// ```
    /// let model = onnx_syntax::parse::Parser::new("g () => () {} F () => () {}")?.model()?;
    /// assert_eq!(model.functions.len(), 1);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn model(mut self) -> Result<Model, ParseError> {
        let model = tri!(self.parse_model());
        tri!(self.end());
        Ok(model)
    }

    /// Parses one graph, then requires the end of input.
    ///
    /// ```
    /// let graph = onnx_syntax::parse::Parser::new("g => (y) { y = Foo() }")?.graph()?;
    /// assert!(graph.inputs.is_empty());
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn graph(mut self) -> Result<Graph, ParseError> {
        let graph = tri!(self.parse_graph());
        tri!(self.end());
        Ok(graph)
    }

    /// Parses one function, then requires the end of input.
    ///
    /// ```
    /// let f = onnx_syntax::parse::Parser::new("F <a> (x) => (y) { y = Foo(x) }")?.function()?;
    /// assert_eq!(f.attributes.len(), 1);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn function(mut self) -> Result<Function, ParseError> {
        let function = tri!(self.parse_function());
        tri!(self.end());
        Ok(function)
    }

    /// Parses one node, then requires the end of input.
    ///
    /// ```
    /// let node = onnx_syntax::parse::Parser::new("[n] y = Foo(x)")?.node()?;
    /// assert_eq!(node.label.unwrap().text, "n");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn node(mut self) -> Result<Node, ParseError> {
        let node = tri!(self.parse_node());
        tri!(self.end());
        Ok(node)
    }

    /// Parses `{ node* }`, then requires the end of input.
    ///
    /// ```
    /// let nodes = onnx_syntax::parse::Parser::new("{ y = Foo(x) }")?.node_list()?;
    /// assert_eq!(nodes.len(), 1);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn node_list(mut self) -> Result<Vec<Node>, ParseError> {
        let nodes = tri!(self.parse_node_list());
        tri!(self.end());
        Ok(nodes)
    }

    /// Parses functions until the end of input (a function library).
    ///
    /// ```
    /// let lib = onnx_syntax::parse::Parser::new("F () => () {} G () => () {}")?.functions()?;
    /// assert_eq!(lib[1].name.text, "G");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn functions(mut self) -> Result<Vec<Function>, ParseError> {
        self.functions_to_end()
    }

    /// Parses nodes until the end of input (a node sequence without braces).
    ///
    /// ```
    /// let nodes = onnx_syntax::parse::Parser::new("a = F() b = G(a)")?.nodes()?;
    /// assert_eq!(nodes[1].inputs[0].text, "a");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn nodes(mut self) -> Result<Vec<Node>, ParseError> {
        self.nodes_to_end()
    }

    /// Parses the whole input as `entry`, the nodes of its bodies in the form `N`: the tree's
    /// [`Node`]s for [`Entry::parse_with`], protobuf messages for [`Entry::parse_proto`].
    pub(crate) fn entry<N: NodeForm>(mut self, entry: Entry) -> Result<Tree<N>, ParseError> {
        let tree = match entry {
            Entry::Model => Tree::Model(tri!(self.parse_model())),
            Entry::Graph => Tree::Graph(tri!(self.parse_graph())),
            Entry::Function => Tree::Function(tri!(self.parse_function())),
            Entry::Functions => Tree::Functions(tri!(self.functions_to_end())),
            Entry::Node => Tree::Node(tri!(self.parse_node())),
            Entry::Nodes => Tree::Nodes(tri!(self.nodes_to_end())),
            Entry::NodeList => Tree::NodeList(tri!(self.parse_node_list())),
        };
        tri!(self.end());
        Ok(tree)
    }

    /// node* up to the end of input, each node in the form `N`.
    fn nodes_to_end<N: NodeForm>(&mut self) -> Result<Vec<N>, ParseError> {
        let mut nodes = Vec::new();
        while !self.at_end() {
            let node = tri!(self.node_or_hole());
            nodes.push(N::from_node(node));
        }
        Ok(nodes)
    }

    // ---- the token cursor ----
    //
    // The helpers that run for every token are `#[inline(always)]`, which holds even without
    // optimization: the macros run this parser unoptimized (a default dev build), where each call
    // costs more than these small bodies.

    #[inline(always)]
    fn source(&self) -> &'a str {
        self.lexer.source()
    }

    /// The next token, not consumed.
    #[inline(always)]
    fn peek(&self) -> Token {
        self.next
    }

    /// The text of a token.
    #[inline(always)]
    fn text(&self, token: Token) -> &'a str {
        &self.source()[token.span.range()]
    }

    /// Consumes the next token and returns it.
    fn bump(&mut self) -> Result<Token, ParseError> {
        let token = self.next;
        if !matches!(token.kind, TokenKind::Eof) {
            self.prev_end = token.span.end;
            // A `match`, not `?`: this runs for every token, and `?` is a call when unoptimized.
            match self.lexer.next_token() {
                Ok(next) => self.next = next,
                Err(error) => return Err(error),
            }
        }
        Ok(token)
    }

    /// The hole that comes next, if holes are enabled and one does.
    fn at_hole(&self) -> Option<Hole> {
        self.hole_in(self.next)
    }

    /// The hole that `token` is, if holes are enabled and it is one.
    fn hole_in(&self, token: Token) -> Option<Hole> {
        if !self.holes || !matches!(token.kind, TokenKind::Str) {
            return None;
        }
        let text = self.text(token);
        Hole::from_marker(text.get(1..text.len() - 1)?)
    }

    /// Consumes a hole that stands for one value, if one comes next; a spread is an error here.
    fn one_hole(&mut self) -> Result<Option<Hole>, ParseError> {
        match self.at_hole() {
            None => Ok(None),
            Some(hole) if hole.spread => Err(self.error(
                ParseErrorKind::MisplacedHole,
                self.next.span,
                "a spread `..#` stands for several values and cannot stand here",
            )),
            Some(hole) => {
                tri!(self.bump());
                Ok(Some(hole))
            }
        }
    }

    /// The token after the next one.
    fn peek_second(&self) -> Result<Token, ParseError> {
        self.lexer.clone().next_token()
    }

    #[inline(always)]
    fn at_end(&self) -> bool {
        matches!(self.next.kind, TokenKind::Eof)
    }

    #[inline(always)]
    fn at_punct(&self, c: u8) -> bool {
        // `Token::is_punct` inlined by hand: the parser asks this before most tokens.
        matches!(self.next.kind, TokenKind::Punct(p) if p == c)
    }

    /// Consumes the punctuation `c` if it comes next.
    #[inline(always)]
    fn eat_punct(&mut self, c: u8) -> Result<bool, ParseError> {
        if self.at_punct(c) {
            tri!(self.bump());
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes the punctuation `c`, or fails with "expected `c`".
    #[inline(always)]
    fn expect_punct(&mut self, c: u8) -> Result<Token, ParseError> {
        if self.at_punct(c) {
            self.bump()
        } else {
            Err(self.expected(&format!("`{}`", c as char)))
        }
    }

    /// Consumes `=>`, which must be written without a gap.
    fn expect_arrow(&mut self) -> Result<Span, ParseError> {
        let eq = tri!(self.expect_punct(b'=').map_err(|_| self.expected("`=>`")));
        if !(self.at_punct(b'>') && self.next.joined) {
            return Err(if self.at_punct(b'>') {
                self.error(
                    ParseErrorKind::Unexpected,
                    eq.span.to(self.next.span),
                    "`=>` must be written without white space inside",
                )
            } else {
                self.expected("`=>`")
            });
        }
        let gt = tri!(self.bump());
        Ok(eq.span.to(gt.span))
    }

    /// Requires the end of input.
    fn end(&mut self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }

    /// Consumes an identifier.
    #[inline(always)]
    fn ident(&mut self, what: &str) -> Result<Token, ParseError> {
        if matches!(self.next.kind, TokenKind::Ident) {
            self.bump()
        } else {
            Err(self.expected(what))
        }
    }

    /// The name that an identifier token spells.
    #[inline(always)]
    fn ident_name(&self, token: Token) -> Name {
        Name {
            text: self.text(token).to_owned(),
            span: token.span,
        }
    }

    /// Consumes a name: an identifier or a quoted string.
    fn quotable_name(&mut self, what: &str) -> Result<Name, ParseError> {
        match self.next.kind {
            TokenKind::Ident => {
                let token = tri!(self.bump());
                Ok(self.ident_name(token))
            }
            TokenKind::Str => {
                let token = tri!(self.bump());
                Ok(Name {
                    text: unescape(self.text(token)).into_owned(),
                    span: token.span,
                })
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a quoted string literal and returns its contents.
    fn string(&mut self, what: &str) -> Result<String, ParseError> {
        if matches!(self.next.kind, TokenKind::Str) {
            let token = tri!(self.bump());
            Ok(unescape(self.text(token)).into_owned())
        } else {
            Err(self.expected(what))
        }
    }

    /// Parses `item (',' item)*` up to the closing punctuation `close` (not consumed). With
    /// `allow_empty`, the list may be empty. Trailing commas are errors.
    fn comma_list<T>(
        &mut self,
        close: u8,
        allow_empty: bool,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut items = Vec::new();
        if allow_empty && self.at_punct(close) {
            return Ok(items);
        }
        // Room for one item first: most lists hold one, and the first push would make room for
        // four. (A node's own lists, the most numerous, are read onto a stack: `list_from`.)
        items.reserve_exact(1);
        loop {
            items.push(tri!(item(self)));
            if !tri!(self.eat_punct(b',')) {
                return Ok(items);
            }
        }
    }

    /// The items of `stack` from `base` on, moved into a vector of their own, of their exact
    /// length.
    ///
    /// A node's operand and attribute lists are read onto a stack the parser keeps (a list
    /// nested in a graph attribute goes on top of its parent's, and leaves first), and moved off
    /// once complete: one allocation of the right size per list, where pushing onto a fresh
    /// vector reallocates and copies as it grows (a two-input node did both). The tree also
    /// takes no room that its lists never use.
    #[inline(always)]
    fn list_from<T>(stack: &mut Vec<T>, base: usize) -> Vec<T> {
        // `split_off` allocates `len - base` items and copies them once, whatever `base` is.
        stack.split_off(base)
    }

    /// Enters one level of graph or type nesting.
    fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(
                ParseErrorKind::TooDeep,
                self.next.span,
                format!("graphs and types nest more than {MAX_NESTING} levels deep"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// A span from `start` to the end of the last consumed token.
    #[inline(always)]
    fn since(&self, start: Span) -> Span {
        // A plain comparison: `max` is a call when unoptimized.
        let end = if self.prev_end > start.end {
            self.prev_end
        } else {
            start.end
        };
        Span {
            start: start.start,
            end,
        }
    }

    // ---- errors ----

    fn error(&self, kind: ParseErrorKind, span: Span, message: impl Into<String>) -> ParseError {
        ParseError::new(self.source(), span, kind, message)
    }

    /// "expected X, found Y" at the next token.
    fn expected(&self, what: &str) -> ParseError {
        self.error(
            ParseErrorKind::Unexpected,
            self.next.span,
            format!("expected {what}, found {}", self.describe(self.next)),
        )
    }

    /// How a token reads in an error message.
    fn describe(&self, token: Token) -> String {
        if self.hole_in(token).is_some() {
            return "a Rust value `#…`".to_owned();
        }
        let text = shorten(self.text(token));
        match token.kind {
            TokenKind::Eof => "end of input".to_owned(),
            TokenKind::Str => format!("string {text}"),
            _ => format!("`{text}`"),
        }
    }
}

/// At most 40 bytes of `text`, cut at a character boundary, so that messages stay short.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 40;
    if text.len() <= LIMIT {
        return text.to_owned();
    }
    let mut end = LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
