//! Attribute defaults, which the schema table does not carry: `defaults.txt`, generated from
//! the onnx wheel by `scripts/gen_converter_defaults.py`.

use std::collections::HashMap;
use std::sync::LazyLock;

use onnx_runtime_types::AttributeProto;
use onnx_runtime_types::attribute_proto::AttributeType;
use onnx_schema::table::Schema;

const SOURCE: &str = include_str!("defaults.txt");

/// The default value of an attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DefaultValue {
    Int(i64),
    Float(f32),
    String(String),
    Ints(Vec<i64>),
    Floats(Vec<f32>),
}

impl DefaultValue {
    /// Whether `attribute` holds this value.
    pub(crate) fn is_held_by(&self, attribute: &AttributeProto) -> bool {
        match self {
            DefaultValue::Int(v) => attribute.i.unwrap_or(0) == *v,
            DefaultValue::Float(v) => attribute.f.unwrap_or(0.0) == *v,
            DefaultValue::String(v) => attribute.s.as_deref().unwrap_or_default() == v.as_bytes(),
            DefaultValue::Ints(v) => attribute.ints == *v,
            DefaultValue::Floats(v) => attribute.floats == *v,
        }
    }

    /// The attribute `name` set to this value.
    pub(crate) fn to_attribute(&self, name: &str) -> AttributeProto {
        let mut attribute = AttributeProto {
            name: Some(name.to_owned()),
            ..Default::default()
        };
        let ty = match self {
            DefaultValue::Int(v) => {
                attribute.i = Some(*v);
                AttributeType::Int
            }
            DefaultValue::Float(v) => {
                attribute.f = Some(*v);
                AttributeType::Float
            }
            DefaultValue::String(v) => {
                attribute.s = Some(v.clone().into_bytes());
                AttributeType::String
            }
            DefaultValue::Ints(v) => {
                attribute.ints = v.clone();
                AttributeType::Ints
            }
            DefaultValue::Floats(v) => {
                attribute.floats = v.clone();
                AttributeType::Floats
            }
        };
        attribute.r#type = Some(ty as i32);
        attribute
    }
}

/// (domain, operator, since) → its attributes' defaults.
type Defaults = HashMap<(&'static str, &'static str, i64), Vec<(&'static str, DefaultValue)>>;

static DEFAULTS: LazyLock<Defaults> = LazyLock::new(|| {
    let mut defaults = Defaults::new();
    for line in SOURCE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let ((domain, operator, since, name), value) =
            parse_line(line).unwrap_or_else(|| unreachable!("defaults.txt is malformed: {line}"));
        defaults
            .entry((domain, operator, since))
            .or_default()
            .push((name, value));
    }
    defaults
});

type Key = (&'static str, &'static str, i64, &'static str);

fn parse_line(line: &'static str) -> Option<(Key, DefaultValue)> {
    let mut fields = line.splitn(6, ' ');
    let domain = fields.next()?;
    let operator = fields.next()?;
    let since = fields.next()?.parse().ok()?;
    let name = fields.next()?;
    let kind = fields.next()?;
    let text = fields.next()?;
    let list = |text: &'static str| -> Vec<&'static str> {
        match text {
            "-" => Vec::new(),
            _ => text.split(',').collect(),
        }
    };
    let value = match kind {
        "int" => DefaultValue::Int(text.parse().ok()?),
        "float" => DefaultValue::Float(text.parse().ok()?),
        "string" => DefaultValue::String(unquote(text)?),
        "ints" => DefaultValue::Ints(
            list(text)
                .iter()
                .map(|v| v.parse().ok())
                .collect::<Option<_>>()?,
        ),
        "floats" => DefaultValue::Floats(
            list(text)
                .iter()
                .map(|v| v.parse().ok())
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    };
    Some(((domain, operator, since, name), value))
}

/// A JSON string of plain characters (the modes and names the schemas default to).
fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then(|| inner.to_owned())
}

/// The default of `schema`'s attribute `name`, if it has one.
pub(crate) fn default_value(schema: &Schema, name: &str) -> Option<&'static DefaultValue> {
    let domain = if schema.domain.is_empty() {
        "ai.onnx"
    } else {
        schema.domain
    };
    let attributes = DEFAULTS.get(&(domain, schema.name, schema.since))?;
    attributes
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses_and_softmax_changed_its_default_at_13() {
        let count: usize = DEFAULTS.values().map(Vec::len).sum();
        assert_eq!(count, SOURCE.lines().count() - 1);
        let softmax = |since| crate::steps::schema("ai.onnx", "Softmax", since).unwrap();
        assert_eq!(
            default_value(softmax(11), "axis"),
            Some(&DefaultValue::Int(1))
        );
        assert_eq!(
            default_value(softmax(13), "axis"),
            Some(&DefaultValue::Int(-1))
        );
    }
}
