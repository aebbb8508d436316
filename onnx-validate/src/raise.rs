//! The syntax tree of a decoded model, built from its messages (the reverse of lowering), so
//! that the checks of the syntax read the model itself and never a re-parse of its text.
//!
//! Its spans point into the model's printed text: the printer notes where each part went
//! ([`marked_text`]), and the raise walks the model in the order the printer wrote it, taking
//! one span per marked part. Any name, any string, any number is raised as it is: nothing
//! here has to be readable by the parser.

use std::vec;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType,
    tensor_shape_proto::dimension, type_proto,
};

use onnx_print::{FunctionTypes, attributes_after_inputs, has_default, marked_text};
use onnx_syntax::Span;
use onnx_syntax::dtype::{Storage, elem_type_by_number};
use onnx_syntax::syntax::{
    AttrValue, Attribute, Dim, DimValue, Function, FunctionAttribute, FunctionHeaderEntry,
    FunctionHeaderValue, Graph, Model, ModelHeaderEntry, ModelHeaderValue, Name, Node, OpsetImport,
    Tensor, TensorData, TensorValues, Type, TypeKind, ValueDecl, ValueInfo,
};
use onnx_syntax::tensors::is_external;

/// The printed text of `model` and its syntax tree, positioned in that text.
pub(super) fn raise(model: &ModelProto) -> (String, Model) {
    let (text, marks) = marked_text(model);
    let mut raise = Raise {
        text: &text,
        marks: marks.into_iter(),
    };
    let tree = raise.model(model);
    (text, tree)
}

/// The walk: the text, and the spans of the marked parts not taken yet.
struct Raise<'t> {
    text: &'t str,
    marks: vec::IntoIter<Span>,
}

impl Raise<'_> {
    /// The span of the next marked part (an empty one at the start, should the walk ever take
    /// more than the printer marked: positions are then wrong, never a panic).
    fn next(&mut self) -> Span {
        self.marks.next().unwrap_or_default()
    }

    fn name(&mut self, text: &str) -> Name {
        Name {
            text: text.to_owned(),
            span: self.next(),
        }
    }

    fn names(&mut self, names: &[String]) -> Vec<Name> {
        names.iter().map(|name| self.name(name)).collect()
    }

    fn model(&mut self, model: &ModelProto) -> Model {
        // The printer's order: ir_version, opset_import, then the strings and metadata.
        let mut header = Vec::new();
        let mut entry = |raise: &mut Self, value: &dyn Fn(&mut Self) -> ModelHeaderValue| {
            let key_span = raise.next();
            let value = value(raise);
            header.push(ModelHeaderEntry { key_span, value });
        };
        if let Some(version) = model.ir_version {
            entry(self, &|_| ModelHeaderValue::IrVersion(version));
        }
        entry(self, &|raise| {
            ModelHeaderValue::OpsetImport(raise.opsets(&model.opset_import))
        });
        let strings = [
            (
                &model.producer_name,
                ModelHeaderValue::ProducerName as fn(String) -> _,
            ),
            (&model.producer_version, ModelHeaderValue::ProducerVersion),
            (&model.domain, ModelHeaderValue::Domain),
        ];
        for (field, value) in strings {
            if let Some(text) = field {
                entry(self, &|_| value(text.clone()));
            }
        }
        if let Some(version) = model.model_version {
            entry(self, &|_| ModelHeaderValue::ModelVersion(version));
        }
        if let Some(doc) = &model.doc_string {
            entry(self, &|_| ModelHeaderValue::DocString(doc.clone()));
        }
        if !model.metadata_props.is_empty() {
            entry(self, &|_| {
                let props = model.metadata_props.iter();
                ModelHeaderValue::MetadataProps(
                    props
                        .map(|p| (p.key().to_owned(), p.value().to_owned()))
                        .collect(),
                )
            });
        }
        let graph = self.graph(model.graph.as_ref().unwrap_or(&GraphProto::default()));
        let functions = model.functions.iter().map(|f| self.function(f)).collect();
        Model {
            header,
            graph,
            functions,
        }
    }

    fn opsets(&mut self, imports: &[OperatorSetIdProto]) -> Vec<OpsetImport> {
        (imports.iter())
            .map(|import| OpsetImport {
                domain: import.domain().to_owned(),
                version: import.version(),
                version_hole: None,
                span: self.next(),
            })
            .collect()
    }

    fn graph(&mut self, graph: &GraphProto) -> Graph {
        let span = self.next();
        let name = self.name(graph.name());
        let inputs = (graph.input.iter())
            .map(|info| ValueDecl {
                info: self.value_info(info),
                initializer: None,
            })
            .collect();
        let outputs = graph.output.iter().map(|o| self.value_info(o)).collect();
        // The printer's `<…>` list: initializers, then value infos.
        let mut locals: Vec<ValueDecl> = (graph.initializer.iter())
            .map(|tensor| self.initializer(tensor))
            .collect();
        locals.extend(graph.value_info.iter().map(|info| ValueDecl {
            info: self.value_info(info),
            initializer: None,
        }));
        let nodes = graph.node.iter().map(|n| self.node(n)).collect();
        Graph {
            name,
            inputs,
            outputs,
            locals,
            nodes,
            span,
        }
    }

    fn value_info(&mut self, info: &ValueInfoProto) -> ValueInfo {
        let ty = info.r#type.as_ref().and_then(|ty| self.ty(ty));
        ValueInfo {
            ty,
            name: self.name(info.name()),
        }
    }

    /// An initializer: its tensor, and the value info its type and name declare.
    fn initializer(&mut self, tensor: &TensorProto) -> ValueDecl {
        let (tensor, dims, name_span) = self.tensor(tensor);
        let info = ValueInfo {
            ty: Some(Type {
                kind: TypeKind::Tensor(tensor.elem_type, Some(dims)),
                span: tensor.type_span,
            }),
            name: Name {
                text: tensor.name.clone(),
                span: name_span,
            },
        };
        ValueDecl {
            info,
            initializer: Some(tensor),
        }
    }

    /// A type, or `None` where the printer wrote an incomplete one (a type without a value, or
    /// a nested type left out), which the syntax cannot hold.
    fn ty(&mut self, ty: &TypeProto) -> Option<Type> {
        use type_proto::Value;
        let span = self.next();
        let kind = match ty.value.as_ref()? {
            Value::TensorType(t) => TypeKind::Tensor(t.elem_type(), self.shape(t.shape.as_ref())),
            Value::SparseTensorType(t) => {
                TypeKind::SparseTensor(t.elem_type(), self.shape(t.shape.as_ref()))
            }
            Value::SequenceType(s) => TypeKind::Sequence(Box::new(self.nested(&s.elem_type)?)),
            Value::OptionalType(o) => TypeKind::Optional(Box::new(self.nested(&o.elem_type)?)),
            Value::MapType(m) => TypeKind::Map(m.key_type(), Box::new(self.nested(&m.value_type)?)),
            Value::OpaqueType(o) => TypeKind::Opaque {
                domain: o.domain.clone().filter(|d| !d.is_empty()),
                name: o.name.clone(),
            },
        };
        Some(Type { kind, span })
    }

    fn nested(&mut self, ty: &Option<Box<TypeProto>>) -> Option<Type> {
        self.ty(ty.as_deref()?)
    }

    /// `None` for an unknown rank; the printer marks each dim of a shape that has some.
    fn shape(&mut self, shape: Option<&TensorShapeProto>) -> Option<Vec<Dim>> {
        let dims = (shape?.dim.iter()).map(|dim| Dim {
            value: match &dim.value {
                Some(dimension::Value::DimValue(v)) => DimValue::Value(*v),
                Some(dimension::Value::DimParam(p)) => DimValue::Param(p.clone()),
                None => DimValue::Unknown,
            },
            span: self.next(),
        });
        Some(dims.collect())
    }

    /// A tensor, its dims as a type's, and the span of its name.
    fn tensor(&mut self, tensor: &TensorProto) -> (Tensor, Vec<Dim>, Span) {
        let span = self.next();
        let type_span = self.next();
        let dims = (tensor.dims.iter())
            .map(|&d| Dim {
                value: DimValue::Value(d),
                span: self.next(),
            })
            .collect();
        let name_span = self.next();
        let block = self.next();
        let block = self.trimmed(block);
        let data = match is_external(tensor) {
            true => {
                let entries = (tensor.external_data.iter())
                    .map(|e| (e.key().to_owned(), e.value().to_owned()))
                    .collect();
                TensorData::External(entries, block)
            }
            // The values are those of the typed field the element type is stored in; data in
            // `raw_data` is exact by construction, so no check of the syntax looks at it.
            false => TensorData::Values(typed_values(tensor), block, Vec::new()),
        };
        let tensor = Tensor {
            elem_type: tensor.data_type(),
            dims: tensor.dims.clone(),
            name: tensor.name().to_owned(),
            data,
            holes: Vec::new(),
            type_span,
            span,
        };
        (tensor, dims, name_span)
    }

    /// `span` without the spaces the printer writes ahead of a data block.
    fn trimmed(&self, span: Span) -> Span {
        let text = self.text.get(span.range()).unwrap_or("");
        let spaces = text.len() - text.trim_start().len();
        Span::new(span.start.saturating_add(spaces as u32), span.end)
    }

    fn node(&mut self, node: &NodeProto) -> Node {
        let span = self.next();
        let label = node.name.as_deref().map(|label| self.name(label));
        let outputs = self.names(&node.output);
        let op_span = self.next();
        let overload = self.name(node.overload());
        let overload = Some(overload).filter(|o| !o.text.is_empty());
        let (attributes, inputs) = match attributes_after_inputs(node) {
            true => {
                let inputs = self.names(&node.input);
                (self.attributes(&node.attribute), inputs)
            }
            false => {
                let attributes = self.attributes(&node.attribute);
                (attributes, self.names(&node.input))
            }
        };
        Node {
            label,
            outputs,
            domain: node.domain().to_owned(),
            op_type: node.op_type().to_owned(),
            op_span,
            overload,
            attributes,
            inputs,
            span,
        }
    }

    fn attributes(&mut self, attributes: &[AttributeProto]) -> Vec<Attribute> {
        attributes.iter().map(|a| self.attribute(a)).collect()
    }

    /// An attribute as the printer writes it: `name: type = value`, or `name = @ref` untyped.
    fn attribute(&mut self, attribute: &AttributeProto) -> Attribute {
        let span = self.next();
        let name = self.name(attribute.name());
        let keyword = self.next();
        let ty = attribute_type(attribute);
        let annotation = ty.map(|ty| (ty, keyword));
        let value_span = self.next();
        let value = match &attribute.ref_attr_name {
            Some(target) => Some(AttrValue::Ref(self.name(target))),
            None => ty.and_then(|ty| self.value(attribute, ty)),
        };
        Attribute {
            name,
            annotation,
            ty,
            value,
            value_span,
            holes: Vec::new(),
            span,
        }
    }

    /// An entry of a function's `attribute_proto`: with its default, or only its type.
    fn function_attribute(&mut self, attribute: &AttributeProto) -> FunctionAttribute {
        if has_default(attribute) {
            return FunctionAttribute::Proto(self.attribute(attribute));
        }
        let span = self.next();
        let name = self.name(attribute.name());
        let keyword = self.next();
        let ty = attribute_type(attribute);
        FunctionAttribute::Proto(Attribute {
            name,
            annotation: ty.map(|ty| (ty, keyword)),
            ty,
            value: None,
            value_span: self.next(),
            holes: Vec::new(),
            span,
        })
    }

    /// The value of the field `ty` names, as the printer writes it (a missing single value is
    /// its default). `None` where the syntax has no such value: sparse tensors, and a type
    /// attribute without its type.
    fn value(&mut self, a: &AttributeProto, ty: AttributeType) -> Option<AttrValue> {
        Some(match ty {
            AttributeType::Float => AttrValue::Float(a.f()),
            AttributeType::Int => AttrValue::Int(a.i()),
            AttributeType::String => AttrValue::String(a.s().to_vec()),
            AttributeType::Floats => AttrValue::Floats(a.floats.clone()),
            AttributeType::Ints => AttrValue::Ints(a.ints.clone()),
            AttributeType::Strings => AttrValue::Strings(a.strings.clone()),
            AttributeType::Graph => {
                let graph =
                    a.g.as_deref()
                        .map_or_else(GraphProto::default, Clone::clone);
                AttrValue::Graph(Box::new(self.graph(&graph)))
            }
            AttributeType::Graphs => {
                AttrValue::Graphs(a.graphs.iter().map(|g| self.graph(g)).collect())
            }
            AttributeType::Tensor => {
                let tensor =
                    a.t.as_deref()
                        .map_or_else(TensorProto::default, Clone::clone);
                AttrValue::Tensor(Box::new(self.tensor(&tensor).0))
            }
            AttributeType::Tensors => {
                AttrValue::Tensors(a.tensors.iter().map(|t| self.tensor(t).0).collect())
            }
            AttributeType::TypeProto => AttrValue::TypeProto(Box::new(self.ty(a.tp.as_deref()?)?)),
            AttributeType::TypeProtos => {
                // Every type raised, so that each takes its spans, before any may be missing.
                let types: Vec<Option<Type>> = a.type_protos.iter().map(|t| self.ty(t)).collect();
                AttrValue::TypeProtos(types.into_iter().collect::<Option<_>>()?)
            }
            AttributeType::SparseTensor
            | AttributeType::SparseTensors
            | AttributeType::Undefined => {
                return None;
            }
        })
    }

    fn function(&mut self, function: &FunctionProto) -> Function {
        let span = self.next();
        let mut header = Vec::new();
        let strings = [
            (
                &function.domain,
                FunctionHeaderValue::Domain as fn(String) -> _,
            ),
            (&function.overload, FunctionHeaderValue::Overload),
            (&function.doc_string, FunctionHeaderValue::DocString),
        ];
        for (field, value) in strings {
            if let Some(text) = field {
                header.push(FunctionHeaderEntry {
                    key_span: self.next(),
                    value: value(text.clone()),
                });
            }
        }
        let key_span = self.next();
        let imports = self.opsets(&function.opset_import);
        header.push(FunctionHeaderEntry {
            key_span,
            value: FunctionHeaderValue::OpsetImport(imports),
        });
        let name = self.name(function.name());
        let mut attributes: Vec<FunctionAttribute> = (function.attribute.iter())
            .map(|a| FunctionAttribute::Name(self.name(a)))
            .collect();
        attributes.extend(
            function
                .attribute_proto
                .iter()
                .map(|a| self.function_attribute(a)),
        );
        let types = FunctionTypes::of(function);
        let inputs = self.function_io(&function.input, &types.input_types);
        let outputs = self.function_io(&function.output, &types.output_types);
        let value_infos = types.rest.into_iter().map(|i| self.value_info(i)).collect();
        let nodes = function.node.iter().map(|n| self.node(n)).collect();
        Function {
            header,
            name,
            attributes,
            inputs,
            outputs,
            value_infos,
            nodes,
            span,
        }
    }

    fn function_io(&mut self, names: &[String], types: &[Option<&TypeProto>]) -> Vec<ValueInfo> {
        (names.iter().enumerate())
            .map(|(i, name)| {
                let ty = types.get(i).copied().flatten().and_then(|ty| self.ty(ty));
                ValueInfo {
                    ty,
                    name: self.name(name),
                }
            })
            .collect()
    }
}

/// The attribute's type, if it names one (the lean copy gave one to attributes that had none).
fn attribute_type(attribute: &AttributeProto) -> Option<AttributeType> {
    let ty = AttributeType::try_from(attribute.r#type?).ok()?;
    (ty != AttributeType::Undefined).then_some(ty)
}

/// The values of the typed field that the tensor's element type is stored in.
fn typed_values(tensor: &TensorProto) -> TensorValues {
    let storage = elem_type_by_number(tensor.data_type()).map(|info| info.storage);
    match storage {
        Some(Storage::Int64) => TensorValues::Int64(tensor.int64_data.clone()),
        Some(Storage::Uint64) => TensorValues::Uint64(tensor.uint64_data.clone()),
        Some(Storage::Float) => TensorValues::Float(tensor.float_data.clone()),
        Some(Storage::Double) => TensorValues::Double(tensor.double_data.clone()),
        Some(Storage::String) => TensorValues::String(tensor.string_data.clone()),
        Some(Storage::Int32) | None => TensorValues::Int32(tensor.int32_data.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onnx_syntax::lex::unescape;
    use onnx_syntax::syntax::AttributeTypeSyntax;
    use prost::Message;

    /// [`raise`], checking that the walk took every span the printer marked.
    fn raised(model: &ModelProto) -> (String, Model) {
        let (text, marks) = marked_text(model);
        let mut raise = Raise {
            text: &text,
            marks: marks.into_iter(),
        };
        let tree = raise.model(model);
        assert_eq!(raise.marks.len(), 0, "spans left over");
        (text, tree)
    }

    /// What a span shows, quotes removed and escapes resolved.
    fn shown(text: &str, span: Span) -> String {
        let written = &text[span.range()];
        match written.starts_with('"') {
            true => unescape(written).into_owned(),
            false => written.to_owned(),
        }
    }

    /// Every name, operator, key, dim and type of the tree is where its span says.
    fn assert_placed(text: &str, tree: &Model) {
        let name = |n: &Name| assert_eq!(shown(text, n.span), n.text, "in {text}");
        let ty = |ty: &Type| {
            let written = &text[ty.span.range()];
            if let TypeKind::Tensor(_, Some(dims)) = &ty.kind {
                for dim in dims {
                    let shown = &text[dim.span.range()];
                    match &dim.value {
                        DimValue::Value(v) => assert_eq!(shown, v.to_string()),
                        DimValue::Param(p) => assert_eq!(shown.trim_matches('"'), p),
                        DimValue::Unknown => assert_eq!(shown, "?"),
                    }
                }
            }
            let opens = match &ty.kind {
                TypeKind::Tensor(elem, _) => elem_type_by_number(*elem).map_or("", |t| t.name),
                TypeKind::Sequence(_) => "seq(",
                TypeKind::Map(..) => "map(",
                TypeKind::Optional(_) => "optional(",
                TypeKind::SparseTensor(..) => "sparse_tensor(",
                TypeKind::Opaque { .. } => "opaque(",
            };
            assert!(written.starts_with(opens), "{written}");
        };
        let info = |info: &ValueInfo| {
            name(&info.name);
            info.ty.as_ref().map(ty);
        };
        fn nodes(text: &str, nodes: &[Node], graph: &mut dyn FnMut(&Graph)) {
            for node in nodes {
                let op = match node.domain.is_empty() {
                    true => node.op_type.clone(),
                    false => format!("{}.{}", node.domain, node.op_type),
                };
                assert_eq!(&text[node.op_span.range()], op);
                assert!(text[node.span.range()].contains(&op));
                for n in node.outputs.iter().chain(&node.inputs).chain(&node.label) {
                    assert_eq!(shown(text, n.span), n.text);
                }
                for a in &node.attributes {
                    assert_eq!(&text[a.name.span.range()], a.name.text);
                    assert!(text[a.span.range()].starts_with(&a.name.text));
                    if let Some((ty, span)) = a.annotation {
                        assert_eq!(&text[span.range()], ty.keyword());
                    }
                    match &a.value {
                        Some(AttrValue::Graph(g)) => graph(g),
                        Some(AttrValue::Graphs(gs)) => gs.iter().for_each(&mut *graph),
                        Some(AttrValue::Ref(r)) => assert_eq!(shown(text, r.span), r.text),
                        _ => {}
                    }
                }
            }
        }
        fn graph(text: &str, g: &Graph, info: &dyn Fn(&ValueInfo)) {
            assert_eq!(shown(text, g.name.span), g.name.text);
            assert!(text[g.span.range()].ends_with('}'));
            g.inputs.iter().for_each(|d| info(&d.info));
            g.outputs.iter().for_each(info);
            g.locals.iter().for_each(|d| info(&d.info));
            nodes(text, &g.nodes, &mut |sub| graph(text, sub, info));
        }
        graph(text, &tree.graph, &info);
        for f in &tree.functions {
            name(&f.name);
            f.inputs
                .iter()
                .chain(&f.outputs)
                .chain(&f.value_infos)
                .for_each(info);
            f.attributes.iter().for_each(|a| name(a.name()));
            nodes(text, &f.nodes, &mut |sub| graph(text, sub, &info));
            assert!(text[f.span.range()].starts_with('<'));
        }
        for entry in &tree.header {
            assert!(
                text[entry.key_span.range()]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_')
            );
        }
    }

    #[test]
    fn the_spans_of_a_raised_model_are_those_of_its_printed_parts() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21, "acme" : 1], producer_name: "p",
                       metadata_props: ["k" : "v"]>
            g (float[N, 2] x, "a b") => (float[N, 2] z) <float[2] w = {1, 2}, int64 s> {
                [first] t = Add (x, w)
                c = If <then_branch = g1 () => (u) { u = Identity (t) }, else_branch = g2 () => (u) { u = Neg (t) }> (s)
                z = acme.F:o1 <alpha: float = 1.5, names = ["p", "q"]> (c, "a b")
            }
            <domain: "acme", overload: "o1", opset_import: ["" : 21]>
            F <alpha, beta: int = 2, gamma: floats> (float x, y) => (float z) <float t> {
                t = Elu <alpha: float = @alpha> (x)
                z = Add (t, y)
            }"#;
        let model = onnx_syntax::parse_model(text).unwrap();
        let (printed, tree) = raised(&model);
        assert_placed(&printed, &tree);
        assert_eq!(tree.graph.nodes.len(), 3);
        assert_eq!(tree.functions[0].attributes.len(), 3);
        // Lowering the raised tree gives the model back.
        assert_eq!(onnx_syntax::lower::model(tree), model);
    }

    #[test]
    fn names_the_syntax_cannot_write_are_raised_as_they_are() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = Relu (x) }"#;
        let mut model = onnx_syntax::parse_model(text).unwrap();
        let graph = model.graph.as_mut().unwrap();
        graph.node[0].op_type = Some("../Re lu".to_owned());
        graph.node[0].input[0] = "x\u{0}".to_owned();
        graph.name = Some("a graph".to_owned());
        let (printed, tree) = raised(&model);
        let node = &tree.graph.nodes[0];
        assert_eq!(node.op_type, "../Re lu");
        assert_eq!(&printed[node.op_span.range()], "../Re lu");
        assert_eq!(node.inputs[0].text, "x\u{0}");
        assert_eq!(tree.graph.name.text, "a graph");
    }

    #[test]
    fn incomplete_types_and_attributes_take_exactly_the_spans_printed() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21]>
            g (float[2] x) => (float[2] y) {
                y = Foo <ts: type_protos = [float, seq(float)], t: type_proto = float, b: int = 1> (x)
            }"#;
        let mut model = onnx_syntax::parse_model(text).unwrap();
        let node = &mut model.graph.as_mut().unwrap().node[0];
        // A type without a value, a sequence without its element type, a type attribute
        // without its type, and attributes that hold no field of their type.
        node.attribute[0]
            .type_protos
            .insert(0, TypeProto::default());
        if let Some(type_proto::Value::SequenceType(s)) =
            &mut node.attribute[0].type_protos[2].value
        {
            s.elem_type = None;
        }
        node.attribute[1].tp = None;
        node.attribute[2].i = None;
        node.attribute.push(AttributeProto {
            name: Some("g".into()),
            r#type: Some(AttributeType::Graph as i32),
            ..AttributeProto::default()
        });
        let (printed, tree) = raised(&model);
        assert_placed(&printed, &tree);
        let node = &tree.graph.nodes[0];
        assert_eq!(node.attributes.len(), 4);
        assert_eq!(node.attributes[0].value, None);
        assert_eq!(node.attributes[2].value, Some(AttrValue::Int(0)));
        assert!(matches!(
            node.attributes[3].value,
            Some(AttrValue::Graph(_))
        ));
        assert_eq!(node.inputs[0].text, "x");
    }

    #[test]
    fn every_corpus_binary_raises_with_its_spans_in_place() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/backend");
        let mut models = 0;
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "pb") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(model) = ModelProto::decode(bytes.as_slice()) else {
                continue;
            };
            let (printed, tree) = raised(&model);
            assert_placed(&printed, &tree);
            models += 1;
        }
        assert!(models > 1000, "{models}");
    }
}
