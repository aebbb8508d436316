//! Models: `<header>? graph function*`, and the opset lists that headers share.

use super::Parser;
use crate::error::{ParseError, ParseErrorKind};
use crate::syntax::{Model, ModelHeaderEntry, ModelHeaderValue, NodeForm, OpsetImport};

impl Parser<'_> {
    /// model ::= model-header? graph function*
    pub(super) fn parse_model<N: NodeForm>(&mut self) -> Result<Model<N>, ParseError> {
        let header = if self.at_punct(b'<') {
            self.model_header()?
        } else {
            Vec::new()
        };
        let graph = self.parse_graph()?;
        let functions = self.functions_to_end()?;
        Ok(Model {
            header,
            graph,
            functions,
        })
    }

    /// model-header ::= '<' model-kv (',' model-kv)* '>'
    fn model_header(&mut self) -> Result<Vec<ModelHeaderEntry>, ParseError> {
        self.expect_punct(b'<')?;
        let entries = self.comma_list(b'>', false, |p| {
            let key = p.ident("a model header key")?;
            p.expect_punct(b':')?;
            let value = match p.text(key) {
                "ir_version" => match p.one_hole()? {
                    Some(hole) => ModelHeaderValue::IrVersionHole(hole),
                    None => ModelHeaderValue::IrVersion(p.int("an integer IR version")?),
                },
                "opset_import" => ModelHeaderValue::OpsetImport(p.opset_list()?),
                "producer_name" => {
                    ModelHeaderValue::ProducerName(p.string("a quoted producer name")?)
                }
                "producer_version" => {
                    ModelHeaderValue::ProducerVersion(p.string("a quoted producer version")?)
                }
                "domain" => ModelHeaderValue::Domain(p.string("a quoted domain")?),
                "model_version" => match p.one_hole()? {
                    Some(hole) => ModelHeaderValue::ModelVersionHole(hole),
                    None => ModelHeaderValue::ModelVersion(p.int("an integer model version")?),
                },
                "doc_string" => ModelHeaderValue::DocString(p.string("a quoted doc string")?),
                "metadata_props" => {
                    p.expect_punct(b'[')?;
                    let props = p.comma_list(b']', true, |p| p.string_pair("a metadata key"))?;
                    p.expect_punct(b']')?;
                    ModelHeaderValue::MetadataProps(props)
                }
                other => {
                    return Err(p.error(
                        ParseErrorKind::UnknownHeaderKey,
                        key.span,
                        format!(
                            "unknown model header key `{other}`; expected `ir_version`, \
                             `opset_import`, `producer_name`, `producer_version`, `domain`, \
                             `model_version`, `doc_string` or `metadata_props`"
                        ),
                    ));
                }
            };
            Ok(ModelHeaderEntry {
                key_span: key.span,
                value,
            })
        })?;
        self.expect_punct(b'>')?;
        Ok(entries)
    }

    /// opset-list ::= '[' ('"domain"' ':' int (',' …)*)? ']'
    pub(super) fn opset_list(&mut self) -> Result<Vec<OpsetImport>, ParseError> {
        self.expect_punct(b'[')?;
        let imports = self.comma_list(b']', true, |p| {
            let start = p.peek().span;
            let domain = p.string("a quoted opset domain")?;
            p.expect_punct(b':')?;
            let version_hole = p.one_hole()?;
            let version = match version_hole {
                Some(_) => 0,
                None => p.int("an integer opset version")?,
            };
            Ok(OpsetImport {
                domain,
                version,
                version_hole,
                span: p.since(start),
            })
        })?;
        self.expect_punct(b']')?;
        Ok(imports)
    }
}
