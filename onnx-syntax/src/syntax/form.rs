//! The forms a text can take ([`Entry`]) and the syntax tree of each ([`Tree`]): the parser's
//! entry points name them; `entry.rs` above the parser and the lowering runs the pipeline for
//! any of them.

use super::{Function, Graph, Model, Node, NodeForm};

crate::named_enum! {
    path "onnx_syntax::Entry";
    /// Which form a text takes: the entry points of the parser.
    ///
    /// ```
    /// use onnx_syntax::Entry;
    /// assert_eq!(Entry::NodeList.name(), "node_list");
    /// assert_eq!("node_list".parse::<Entry>(), Ok(Entry::NodeList));
    /// assert_eq!(Entry::ALL.len(), 7);
    /// ```
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum Entry {
        /// A model: an optional `<…>` header, a graph, then any number of functions.
        #[default]
        Model = "model",
        /// A graph.
        Graph = "graph",
        /// One function, with its optional `<…>` header.
        Function = "function",
        /// A function library: functions one after the other, each with an optional header.
        Functions = "functions",
        /// One node.
        Node = "node",
        /// Nodes one after the other, without braces.
        Nodes = "nodes",
        /// A braced node list `{ node* }`, the form of ONNX function bodies.
        NodeList = "node_list",
    }
    unknown UnknownEntry("entry point", "entry points");
}

/// The syntax tree of a text of any form, with spans into the text. Its bodies hold [`Node`]s,
/// or for [`Entry::parse_proto`] nodes already lowered (see [`NodeForm`]).
///
/// ```
/// use onnx_syntax::{Entry, Tree};
/// let tree = Entry::Function.parse("F (x) => (y) { y = Neg(x) }")?;
/// let Tree::Function(function) = &tree else { unreachable!() };
/// assert_eq!(function.name.text, "F");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Tree<N = Node> {
    /// A model.
    Model(Model<N>),
    /// A graph on its own.
    Graph(Graph<N>),
    /// A function on its own.
    Function(Function<N>),
    /// A function library.
    Functions(Vec<Function<N>>),
    /// A node on its own.
    Node(Node),
    /// Nodes without braces.
    Nodes(Vec<N>),
    /// A braced node list.
    NodeList(Vec<N>),
}

impl<N: NodeForm> Tree<N> {
    /// The entry point that gives this tree.
    ///
    /// ```
    /// use onnx_syntax::Entry;
    /// assert_eq!(Entry::NodeList.parse("{ y = Neg(x) }")?.entry(), Entry::NodeList);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn entry(&self) -> Entry {
        match self {
            Tree::Model(_) => Entry::Model,
            Tree::Graph(_) => Entry::Graph,
            Tree::Function(_) => Entry::Function,
            Tree::Functions(_) => Entry::Functions,
            Tree::Node(_) => Entry::Node,
            Tree::Nodes(_) => Entry::Nodes,
            Tree::NodeList(_) => Entry::NodeList,
        }
    }
}
