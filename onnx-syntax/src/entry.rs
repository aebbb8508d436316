//! The entry points of the syntax, as one type: [`Entry`] says which form a text takes (a model,
//! a graph, a function, …), [`Tree`] is what parsing it gives, and [`Proto`] what lowering the
//! tree gives. Every caller that serves several forms (the `parse_*` and `check_*` functions,
//! the macros, the CLI, the fuzz targets) dispatches here (the checks add theirs in
//! `onnx-check`), as rust-analyzer's `TopEntryPoint`
//! serves all its entry points.
//!
//! ```
//! use onnx_syntax::{Entry, Proto};
//!
//! let text = "t = Abs(x)  y = Neg(t)";
//! let entry: Entry = "nodes".parse()?;
//! let tree = entry.parse(text)?;
//! let Proto::Nodes(nodes) = tree.lower() else { unreachable!() };
//! assert_eq!(nodes[1].input, ["t"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use onnx_runtime_types::prost::{DecodeError, Message};
use onnx_runtime_types::{FunctionProto, GraphProto, ModelProto, NodeProto};

use crate::error::ParseError;
use crate::lower::{self, encode};
use crate::parse::Parser;
use crate::syntax::{Entry, NodeForm, Tree};

impl Entry {
    /// Parses `text` as this form, to its syntax tree. Text after the form is an error.
    ///
    /// ```
    /// use onnx_syntax::{Entry, Tree};
    /// let tree = Entry::Graph.parse("g (x) => (y) { y = Neg(x) }")?;
    /// assert!(matches!(tree, Tree::Graph(_)));
    /// assert!(Entry::Node.parse("g (x) => (y) { y = Neg(x) }").is_err());
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn parse(self, text: &str) -> Result<Tree, ParseError> {
        self.parse_with(Parser::new(text)?)
    }

    /// Parses this form with `parser`, for a parser made otherwise (with holes, say).
    ///
    /// ```
    /// use onnx_syntax::{Entry, parse::Parser};
    /// let tree = Entry::Node.parse_with(Parser::new("y = Neg(x)")?)?;
    /// assert_eq!(tree.entry(), Entry::Node);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn parse_with(self, parser: Parser<'_>) -> Result<Tree, ParseError> {
        parser.entry(self)
    }

    /// Parses `text` as this form straight to its protobuf messages: what
    /// [`parse`](Entry::parse) then [`Tree::lower`] give, with each node lowered as soon as it
    /// is read, so that no tree of the whole text is built (see [`NodeForm`]). The runtime
    /// `parse_*` functions use it.
    ///
    /// ```
    /// use onnx_syntax::Entry;
    /// let text = "g (x) => (y) { t = Abs(x)  y = Neg <a = 1> (t) }";
    /// assert_eq!(Entry::Graph.parse_proto(text)?, Entry::Graph.parse(text)?.lower());
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn parse_proto(self, text: &str) -> Result<Proto, ParseError> {
        let tree: Tree<NodeProto> = Parser::new(text)?.entry(self)?;
        Ok(tree.lower())
    }

    /// Decodes protobuf bytes as this form; a list (functions, nodes) is its messages
    /// length-delimited one after the other, as [`Proto::encode`] writes it.
    ///
    /// ```
    /// use onnx_syntax::Entry;
    /// let nodes = Entry::Nodes.parse("t = Abs(x)  y = Neg(t)")?.lower();
    /// let bytes = nodes.clone().encode();
    /// assert_eq!(Entry::Nodes.decode(&bytes).unwrap(), nodes);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn decode(self, mut bytes: &[u8]) -> Result<Proto, DecodeError> {
        fn list<M: Message + Default>(bytes: &mut &[u8]) -> Result<Vec<M>, DecodeError> {
            let mut messages = Vec::new();
            while !bytes.is_empty() {
                messages.push(M::decode_length_delimited(&mut *bytes)?);
            }
            Ok(messages)
        }
        Ok(match self {
            Entry::Model => Proto::Model(ModelProto::decode(bytes)?),
            Entry::Graph => Proto::Graph(GraphProto::decode(bytes)?),
            Entry::Function => Proto::Function(FunctionProto::decode(bytes)?),
            Entry::Functions => Proto::Functions(list(&mut bytes)?),
            Entry::Node => Proto::Node(NodeProto::decode(bytes)?),
            Entry::Nodes => Proto::Nodes(list(&mut bytes)?),
            Entry::NodeList => Proto::NodeList(list(&mut bytes)?),
        })
    }
}

impl<N: NodeForm> Tree<N> {
    /// The protobuf messages of the tree.
    ///
    /// ```
    /// use onnx_syntax::{Entry, Proto};
    /// let proto = Entry::Node.parse("y = Neg(x)")?.lower();
    /// assert!(matches!(proto, Proto::Node(node) if node.op_type.as_deref() == Some("Neg")));
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn lower(self) -> Proto {
        match self {
            Tree::Model(model) => Proto::Model(lower::model(model)),
            Tree::Graph(graph) => Proto::Graph(lower::graph(graph)),
            Tree::Function(function) => Proto::Function(lower::function(function)),
            Tree::Functions(functions) => {
                Proto::Functions(functions.into_iter().map(lower::function).collect())
            }
            Tree::Node(node) => Proto::Node(lower::node(node)),
            Tree::Nodes(nodes) => Proto::Nodes(N::into_protos(nodes)),
            Tree::NodeList(nodes) => Proto::NodeList(N::into_protos(nodes)),
        }
    }
}

/// The protobuf messages of a text of any form.
///
/// ```
/// use onnx_syntax::{Entry, Proto};
/// let proto = Entry::Functions.parse("F (x) => (y) { y = Abs(x) } G (x) => (y) { y = F(x) }")?.lower();
/// assert!(matches!(&proto, Proto::Functions(list) if list.len() == 2));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Proto {
    /// A `ModelProto`.
    Model(ModelProto),
    /// A `GraphProto`.
    Graph(GraphProto),
    /// A `FunctionProto`.
    Function(FunctionProto),
    /// A function library.
    Functions(Vec<FunctionProto>),
    /// A `NodeProto`.
    Node(NodeProto),
    /// Nodes, written without braces.
    Nodes(Vec<NodeProto>),
    /// Nodes, written as a braced node list.
    NodeList(Vec<NodeProto>),
}

impl Proto {
    /// The protobuf bytes, as prost writes them; a list is its messages length-delimited one
    /// after the other ([`Entry::decode`] reads them back). Models and graphs are written
    /// without prost's repeated measuring of nested messages, which matters for big literals
    /// in the macros (the bytes are the same; a test checks it on the conformance corpus).
    ///
    /// ```
    /// use onnx_syntax::{Entry, Proto};
    /// use onnx_runtime_types::prost::Message;
    /// let Proto::Node(node) = Entry::Node.parse("y = Neg(x)")?.lower() else { unreachable!() };
    /// assert_eq!(Proto::Node(node.clone()).encode(), node.encode_to_vec());
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        fn list<M: Message>(messages: &[M]) -> Vec<u8> {
            let mut bytes = Vec::new();
            for message in messages {
                // Writing to a Vec cannot fail.
                let _ = message.encode_length_delimited(&mut bytes);
            }
            bytes
        }
        match self {
            Proto::Model(model) => encode::model(model),
            Proto::Graph(graph) => encode::graph(graph),
            Proto::Function(function) => function.encode_to_vec(),
            Proto::Functions(functions) => list(functions),
            Proto::Node(node) => node.encode_to_vec(),
            Proto::Nodes(nodes) | Proto::NodeList(nodes) => list(nodes),
        }
    }
}

/// The typed value of a [`Proto`] of the one form that gives it, for the `parse_*` and
/// `check_*` functions.
pub trait FromProto: Sized {
    /// The form that gives `Self`.
    fn from_proto(proto: Proto) -> Option<Self>;
}

macro_rules! from_proto {
    ($($($variant:ident)|+ => $ty:ty),* $(,)?) => {$(
        impl FromProto for $ty {
            fn from_proto(proto: Proto) -> Option<$ty> {
                match proto {
                    $(Proto::$variant(value))|+ => Some(value),
                    _ => None,
                }
            }
        }
    )*};
}

from_proto! {
    Model => ModelProto,
    Graph => GraphProto,
    Function => FunctionProto,
    Functions => Vec<FunctionProto>,
    Node => NodeProto,
    Nodes | NodeList => Vec<NodeProto>,
}

/// The typed value that `entry` gives for `proto`, which `entry` made.
pub fn typed<T: FromProto>(entry: Entry, proto: Proto) -> T {
    T::from_proto(proto).unwrap_or_else(|| unreachable!("entry point {entry} gave another form"))
}
