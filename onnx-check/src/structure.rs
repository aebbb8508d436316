//! Structure: SSA, definition before use, scopes, produced outputs, duplicate inputs.
//!
//! Each graph or body gets a [`Frame`]: a map from every name it defines to its first
//! definition, built up front, and the index of the node being checked. A definition at
//! position `p` (0 for inputs and initializers, `i + 1` for the outputs of node `i`) is visible
//! to node `i` when `p <= i`; an enclosing frame's current index is the node that holds the
//! subgraph, so a subgraph sees the outer values defined before that node.

use std::collections::hash_map::Entry;

use super::{Check, Checker, Diagnostic, Fix};
use onnx_schema::similar::{closest, edit_distance};
use onnx_syntax::Span;
use onnx_syntax::hash::{HashMap, NameMap};
use onnx_syntax::hole::is_marker;
use onnx_syntax::syntax::{Function, Graph, Name, Node};

/// The first definition of a name in a frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Def {
    /// 0 for inputs and initializers, `i + 1` for the outputs of node `i`.
    position: usize,
    /// The defining name.
    span: Span,
}

/// The names defined by one graph or body.
pub(super) struct Frame<'t> {
    defs: NameMap<'t, Def>,
    /// The index of the node being checked; `usize::MAX` once all nodes are done.
    pub current: usize,
    /// Holes of a macro literal define names here that are not known yet (a name that is a
    /// hole, or spliced nodes), so a name found nowhere may still be defined.
    open: bool,
    /// The node outputs that repeat a name defined before them, as (node index, output slot,
    /// first definition), in node order. Building the frame finds them; they are reported when
    /// their node is checked, which then needs no lookup of its outputs in this frame.
    redefinitions: Vec<(usize, usize, Span)>,
    /// How many of `redefinitions` belong to nodes already checked (or spliced in).
    passed: usize,
}

/// Where a used name is defined, as seen from the current node.
enum Resolution {
    /// Defined before: fine.
    Visible,
    /// Defined only after the use, at this span.
    Later(Span),
    /// Not defined anywhere in scope.
    Missing,
}

/// The state of the structure checks.
#[derive(Default)]
pub(super) struct Scopes<'t> {
    /// One frame per enclosing graph or body, innermost last.
    pub frames: Vec<Frame<'t>>,
    /// Names that nothing defines are inputs of an unknown context (a node list on its own).
    pub free: bool,
}

impl<'t> Frame<'t> {
    fn with_capacity(capacity: usize) -> Frame<'t> {
        Frame {
            defs: NameMap::with_capacity(capacity),
            current: 0,
            open: false,
            redefinitions: Vec::new(),
            passed: 0,
        }
    }

    /// Notes a defining name that may be a hole.
    fn defines(&mut self, name: &str) {
        self.open |= is_marker(name);
    }

    /// Records the outputs of `nodes` after whatever the frame already defines. Redefinitions
    /// keep the first definition; they are reported when their node is checked.
    fn add_nodes(&mut self, nodes: &'t [Node]) {
        // Indexed loops, as iterator adapters cost calls unoptimized.
        let mut index = 0;
        while index < nodes.len() {
            let node = &nodes[index];
            self.defines(&node.op_type);
            let mut slot = 0;
            while slot < node.outputs.len() {
                let output = &node.outputs[slot];
                self.defines(&output.text);
                if !output.text.is_empty() {
                    let def = Def {
                        position: index + 1,
                        span: output.span,
                    };
                    if let Some(first) = self.defs.insert_new(&output.text, def) {
                        self.redefinitions.push((index, slot, first.span));
                    }
                }
                slot += 1;
            }
            index += 1;
        }
    }

    /// The first definition that output `slot` of node `index` repeats, if it repeats one.
    /// Nodes are checked in order, so the redefinitions of earlier nodes are passed.
    fn redefinition(&mut self, index: usize, slot: usize) -> Option<Span> {
        while let Some(&(node, at, first)) = self.redefinitions.get(self.passed) {
            if node > index || (node == index && at > slot) {
                return None;
            }
            self.passed += 1;
            if node == index && at == slot {
                return Some(first);
            }
        }
        None
    }

    /// The frame of a node list: node outputs only.
    pub fn for_nodes(nodes: &'t [Node]) -> Frame<'t> {
        let mut frame = Frame::with_capacity(nodes.len());
        frame.add_nodes(nodes);
        frame
    }

    /// The definition of an input or initializer.
    fn input(span: Span) -> Def {
        Def { position: 0, span }
    }
}

/// The definition of `name` visible from the current nodes of `frames`, innermost first.
fn visible(frames: &[Frame], name: &str) -> Option<Span> {
    let mut index = frames.len();
    while index > 0 {
        index -= 1;
        let frame = &frames[index];
        if let Some(def) = frame.defs.get(name)
            && def.position <= frame.current
        {
            return Some(def.span);
        }
    }
    None
}

impl<'t> Checker<'t> {
    pub(super) fn push_frame(&mut self, frame: Frame<'t>) {
        self.scopes.frames.push(frame);
    }

    /// The frame of a graph: inputs, initializers, node outputs. Reports inputs and
    /// initializers named twice.
    pub(super) fn graph_frame(&mut self, graph: &'t Graph) -> Frame<'t> {
        let mut frame = Frame::with_capacity(graph.inputs.len() + graph.nodes.len());
        let mut initializers: HashMap<&'t str, Span> = HashMap::default();
        for decl in &graph.inputs {
            let name = &decl.info.name;
            frame.defines(&name.text);
            if name.text.is_empty() {
                continue;
            }
            if let Some(first) = frame.defs.insert_new(&name.text, Frame::input(name.span)) {
                let first = first.span;
                self.duplicate_input(name, first, "graph input");
                continue;
            }
            if decl.initializer.is_some() {
                initializers.insert(&name.text, name.span);
            }
        }
        for decl in &graph.locals {
            let name = &decl.info.name;
            frame.defines(&name.text);
            if decl.initializer.is_none() || name.text.is_empty() {
                continue;
            }
            match initializers.entry(&name.text) {
                Entry::Occupied(first) => {
                    let first = *first.get();
                    self.duplicate_input(name, first, "initializer");
                }
                Entry::Vacant(entry) => {
                    entry.insert(name.span);
                    // An initializer named as an input is that input's default value.
                    frame.defs.insert_new(&name.text, Frame::input(name.span));
                }
            }
        }
        frame.add_nodes(&graph.nodes);
        frame
    }

    /// The frame of a function body: its inputs and node outputs. Reports inputs named twice.
    pub(super) fn function_frame(&mut self, function: &'t Function) -> Frame<'t> {
        let mut frame = Frame::with_capacity(function.inputs.len() + function.nodes.len());
        for input in &function.inputs {
            let name = &input.name;
            frame.defines(&name.text);
            if name.text.is_empty() {
                continue;
            }
            if let Some(first) = frame.defs.insert_new(&name.text, Frame::input(name.span)) {
                let first = first.span;
                self.duplicate_input(name, first, "function input");
            }
        }
        frame.add_nodes(&function.nodes);
        frame
    }

    fn duplicate_input(&mut self, name: &Name, first: Span, what: &str) {
        if !self.on(Check::DuplicateInput) {
            return;
        }
        let line = self.line(first);
        let diagnostic = Diagnostic::new(
            Check::DuplicateInput,
            name.span,
            format!("{what} `{}` is already declared at line {line}", name.text),
        )
        .with_label(first, "first declared here");
        self.report(diagnostic);
    }

    /// Where `name` is defined, seen from the current node of every frame.
    fn resolve(&self, name: &str) -> Resolution {
        let frames = self.scopes.frames.as_slice();
        let mut later = None;
        // Innermost first; an indexed loop over a slice, as iterator adapters and indexing a
        // `Vec` cost calls unoptimized.
        let mut index = frames.len();
        while index > 0 {
            index -= 1;
            let frame = &frames[index];
            if let Some(def) = frame.defs.get(name) {
                if def.position <= frame.current {
                    return Resolution::Visible;
                }
                if later.is_none() {
                    later = Some(def.span);
                }
            }
        }
        match later {
            Some(span) => Resolution::Later(span),
            None => Resolution::Missing,
        }
    }

    /// True when a name found nowhere cannot be defined elsewhere: the context is known, and no
    /// hole in scope defines names.
    fn closed(&self) -> bool {
        !self.scopes.free && !self.scopes.frames.iter().any(|frame| frame.open)
    }

    /// A node input: defined before, and somewhere.
    pub(super) fn use_value(&mut self, name: &'t Name) {
        if name.text.is_empty() || is_marker(&name.text) {
            return;
        }
        match self.resolve(&name.text) {
            Resolution::Visible => {}
            Resolution::Later(definition) => self.used_too_early(name, definition),
            Resolution::Missing => {
                if self.closed() && self.on(Check::UndefinedValue) {
                    let message = format!("value `{}` is used but never defined", name.text);
                    let diagnostic = match self.closest_visible(&name.text) {
                        Some(close) => Diagnostic::new(
                            Check::UndefinedValue,
                            name.span,
                            format!("{message}; did you mean `{close}`?"),
                        )
                        .with_fix(Fix::replace(name.span, close)),
                        None => Diagnostic::new(Check::UndefinedValue, name.span, message),
                    };
                    self.report(diagnostic);
                }
            }
        }
    }

    /// The value defined before the current node, in any enclosing scope, whose name is
    /// closest to `name`: the innermost scope first, then each in the order of its definitions.
    /// A name that shares nothing with `name` (`x` for `q`) is no suggestion.
    fn closest_visible(&self, name: &str) -> Option<&'t str> {
        let visible = self.scopes.frames.iter().rev().flat_map(|frame| {
            let defs = frame.defs.iter();
            defs.filter(|(_, def)| def.position <= frame.current)
                .map(|(defined, _)| defined)
        });
        let close = closest(name, visible)?;
        let edits = edit_distance(&name.to_lowercase(), &close.to_lowercase());
        (edits < name.chars().count()).then_some(close)
    }

    fn used_too_early(&mut self, name: &Name, definition: Span) {
        if !self.on(Check::UseBeforeDefinition) {
            return;
        }
        let line = self.line(definition);
        let diagnostic = Diagnostic::new(
            Check::UseBeforeDefinition,
            name.span,
            format!(
                "value `{}` is used before its definition at line {line}",
                name.text
            ),
        )
        .with_label(definition, "defined here");
        self.report(diagnostic);
    }

    /// The outputs of node `index` of the innermost frame: each must be a first definition, in
    /// this frame and among the visible values of the enclosing ones.
    pub(super) fn define_outputs(&mut self, node: &'t Node, index: usize) {
        if !self.on(Check::DuplicateDefinition) {
            return;
        }
        let Some((frame, outer)) = self.scopes.frames.split_last_mut() else {
            return;
        };
        let mut clashes: Vec<(&'t Name, Span, bool)> = Vec::new();
        // An indexed loop, as iterator adapters cost calls unoptimized.
        let mut next = 0;
        while next < node.outputs.len() {
            let (slot, output) = (next, &node.outputs[next]);
            next += 1;
            if output.text.is_empty() {
                continue;
            }
            if let Some(first) = frame.redefinition(index, slot) {
                clashes.push((output, first, false));
            } else if let Some(first) = visible(outer, &output.text) {
                clashes.push((output, first, true));
            }
        }
        if clashes.is_empty() {
            return;
        }
        for (output, first, outer) in clashes {
            let line = self.line(first);
            let place = if outer { " in an enclosing graph" } else { "" };
            let diagnostic = Diagnostic::new(
                Check::DuplicateDefinition,
                output.span,
                format!("`{}` is already defined{place} at line {line}", output.text),
            )
            .with_label(first, "first defined here");
            self.report(diagnostic);
        }
    }

    /// The outputs of the innermost graph or function, once all its nodes are checked.
    pub(super) fn produced(&mut self, outputs: impl Iterator<Item = &'t Name>, what: &str) {
        if let Some(frame) = self.scopes.frames.last_mut() {
            frame.current = usize::MAX;
        }
        for output in outputs {
            if output.text.is_empty() || is_marker(&output.text) {
                continue;
            }
            match self.resolve(&output.text) {
                Resolution::Visible => {}
                Resolution::Later(definition) => self.used_too_early(output, definition),
                Resolution::Missing => {
                    if self.closed() && self.on(Check::UnproducedOutput) {
                        let sources = if what == "graph" {
                            "no input, initializer or node"
                        } else {
                            "no input or node"
                        };
                        self.report(Diagnostic::new(
                            Check::UnproducedOutput,
                            output.span,
                            format!(
                                "{what} output `{}` is never produced: {sources} defines it",
                                output.text
                            ),
                        ));
                    }
                }
            }
        }
    }
}
