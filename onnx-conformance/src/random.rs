//! The cases of random operators, compared by what holds of every draw rather than by the draws
//! onnx's generator happened to make.
//!
//! A case of Bernoulli, RandomUniform(Like), RandomNormal(Like) or Multinomial, or of Dropout in
//! training mode (its mask is drawn), expects the values of one run of numpy's generator. No
//! runtime is bound to that generator: an unseeded draw is anything, and even a seeded one is
//! only the runtime's own sequence (the spec leaves the generator open). Comparing such outputs
//! value for value fails good runtimes, or passes them by chance (a Bernoulli draw of a few
//! elements matches now and then). So each such output is compared by everything that does not
//! depend on the draws: its kind, element type and shape as exactly as ever, and each element
//! within the distribution's support:
//! - Bernoulli: 0 or 1;
//! - RandomUniform(Like): within `[low, high]` (the bounds rounded to the element type);
//! - RandomNormal(Like): finite;
//! - Multinomial: an integer in `[0, classes)`, `classes` the input's second dim;
//! - Dropout in training with a ratio above 0: each output element 0 or `x * scale`
//!   (`scale = 1 / (1 - ratio)`, rounded to the element type, within the case's tolerance), and
//!   the mask true where the output keeps a nonzero element, false where it drops one (either
//!   where `x * scale` is 0 or NaN, which keeping and dropping give alike).
//!
//! Dropout in inference, or in training with a ratio of 0, draws nothing and is compared value
//! for value. Only node cases are concerned: a model test is compared as its outputs are.

use crate::{Case, CaseKind};
use onnx_runtime_types::tensor_proto::DataType;
use onnx_runtime_types::{GraphProto, NodeProto, TensorProto};
use onnx_value::elements::{self, Elements};
use onnx_value::{Support, Tolerance, Value};

/// How each output of `case` is compared when it depends on draws: `None` for a case compared
/// value for value; otherwise a support for each drawn output, in order (`None` for an output
/// that is not drawn). `inputs` are the case's inputs and `actual` the runtime's outputs.
pub(crate) fn supports(
    case: &Case,
    graph: &GraphProto,
    inputs: &[Value],
    actual: &[Value],
    tolerance: Tolerance,
) -> Option<Vec<Option<Box<dyn Support>>>> {
    if case.kind() != CaseKind::Node || !case.domain().is_empty() {
        return None;
    }
    // The operator's node; an `_expanded` case has none (its function body instead), and its
    // operator's attributes take their defaults, as the body's own nodes are given them.
    let node = graph.node.iter().find(|n| n.op_type() == case.op_type());
    let float = |name: &str, default: f32| {
        node.and_then(|n| float_attribute(n, name))
            .unwrap_or(default)
    };
    let support: Box<dyn Support> = match case.op_type() {
        "Bernoulli" => Box::new(ZeroOrOne),
        "RandomUniform" | "RandomUniformLike" => {
            let data_type = output_type(graph)?;
            let bounds = [f64::from(float("low", 0.0)), f64::from(float("high", 1.0))];
            let Elements::Float(bounds) = rounded(data_type, &bounds)? else {
                return None;
            };
            Box::new(Within {
                low: bounds[0],
                high: bounds[1],
            })
        }
        "RandomNormal" | "RandomNormalLike" => Box::new(Finite),
        "Multinomial" => {
            let classes = *inputs.first()?.dims()?.get(1)?;
            Box::new(Class { classes })
        }
        "Dropout" => return dropout(case, graph, node?, inputs, actual, tolerance),
        _ => return None,
    };
    Some(vec![Some(support)])
}

/// Dropout's two supports (the output, the mask) when it draws its mask: in training with a
/// ratio above 0.
fn dropout(
    case: &Case,
    graph: &GraphProto,
    node: &NodeProto,
    inputs: &[Value],
    actual: &[Value],
    tolerance: Tolerance,
) -> Option<Vec<Option<Box<dyn Support>>>> {
    // The graph input that feeds the node's operand `index`, if one does.
    let operand = |index: usize| -> Option<&TensorProto> {
        let name = node.input.get(index).filter(|n| !n.is_empty())?;
        let position = graph.input.iter().position(|i| i.name() == name)?;
        inputs.get(position)?.as_tensor()
    };
    let first = |index: usize| elements::decode(operand(index)?).ok();
    // Dropout 1 and 6 train unless `is_test`; 7 and 10 only infer; from 12 on, the
    // `training_mode` operand says, and the ratio is an operand too.
    let (training, ratio) = match case.opset_version() {
        ..7 => {
            let is_test = node.attribute.iter().find(|a| a.name() == "is_test");
            let ratio = float_attribute(node, "ratio").unwrap_or(0.5);
            (is_test.is_none_or(|a| a.i() == 0), f64::from(ratio))
        }
        7..12 => (false, 0.0),
        _ => {
            let training = match node.input.get(2).filter(|n| !n.is_empty()) {
                None => false,
                Some(_) => match first(2)? {
                    Elements::Bool(v) => *v.first()?,
                    _ => return None,
                },
            };
            let ratio = match node.input.get(1).filter(|n| !n.is_empty()) {
                None => 0.5,
                Some(_) => match first(1)? {
                    Elements::Float(v) => *v.first()?,
                    _ => return None,
                },
            };
            (training, ratio)
        }
    };
    if !training || ratio == 0.0 {
        return None;
    }
    let x = operand(0)?;
    let Elements::Float(x_values) = elements::decode(x).ok()? else {
        return None;
    };
    let scale = 1.0 / (1.0 - ratio);
    let scaled: Vec<f64> = x_values.iter().map(|v| v * scale).collect();
    let data_type = DataType::try_from(x.data_type()).ok()?;
    let Elements::Float(kept) = rounded(data_type, &scaled)? else {
        return None;
    };
    // The mask is checked against the output the runtime gave, once that output is in its
    // support (the outputs are compared in order, so a wrong output is reported first).
    let output = actual.first().and_then(Value::as_tensor);
    let output = match output.map(elements::decode) {
        Some(Ok(Elements::Float(values))) => values,
        _ => Vec::new(),
    };
    let dropped = Dropped {
        kept: kept.clone(),
        tolerance,
    };
    let mask = Mask { kept, output };
    Some(vec![Some(Box::new(dropped)), Some(Box::new(mask))])
}

fn float_attribute(node: &NodeProto, name: &str) -> Option<f32> {
    let attribute = node.attribute.iter().find(|a| a.name() == name)?;
    Some(attribute.f())
}

/// The element type of the graph's first output, as its type says.
fn output_type(graph: &GraphProto) -> Option<DataType> {
    use onnx_runtime_types::type_proto::Value as Type;
    let ty = graph.output.first()?.r#type.as_ref()?.value.as_ref()?;
    let Type::TensorType(tensor) = ty else {
        return None;
    };
    DataType::try_from(tensor.elem_type()).ok()
}

/// `values` rounded to `data_type`, as a runtime stores them.
fn rounded(data_type: DataType, values: &[f64]) -> Option<Elements> {
    let dims = [values.len() as i64];
    let tensor = elements::encode(data_type, &dims, &Elements::Float(values.to_vec()), false);
    elements::decode(&tensor.ok()?).ok()
}

/// Bernoulli's draws.
struct ZeroOrOne;

impl Support for ZeroOrOne {
    fn holds(&self, _: usize, value: f64) -> bool {
        value == 0.0 || value == 1.0
    }
    fn describe(&self, _: usize) -> String {
        "0 or 1".to_string()
    }
}

/// A uniform draw.
struct Within {
    low: f64,
    high: f64,
}

impl Support for Within {
    fn holds(&self, _: usize, value: f64) -> bool {
        (self.low..=self.high).contains(&value)
    }
    fn describe(&self, _: usize) -> String {
        format!("a value in [{}, {}]", self.low, self.high)
    }
}

/// A normal draw.
struct Finite;

impl Support for Finite {
    fn holds(&self, _: usize, value: f64) -> bool {
        value.is_finite()
    }
    fn describe(&self, _: usize) -> String {
        "a finite value".to_string()
    }
}

/// A class drawn by Multinomial.
struct Class {
    classes: usize,
}

impl Support for Class {
    fn holds(&self, _: usize, value: f64) -> bool {
        value >= 0.0 && value < self.classes as f64 && value.fract() == 0.0
    }
    fn describe(&self, _: usize) -> String {
        format!("an integer in [0, {})", self.classes)
    }
}

/// Dropout's output: each element dropped (0) or kept (`x * scale`).
struct Dropped {
    /// `x * scale`, rounded to the element type.
    kept: Vec<f64>,
    tolerance: Tolerance,
}

impl Support for Dropped {
    fn holds(&self, index: usize, value: f64) -> bool {
        let kept = self.kept.get(index).copied().unwrap_or(f64::NAN);
        value == 0.0 || self.tolerance.close(kept, value)
    }
    fn describe(&self, index: usize) -> String {
        match self.kept.get(index) {
            Some(kept) => format!("0 or {kept} (x * scale)"),
            None => "0 or x * scale".to_string(),
        }
    }
}

/// Dropout's mask: true where the output keeps its element.
struct Mask {
    kept: Vec<f64>,
    /// The runtime's output.
    output: Vec<f64>,
}

impl Mask {
    /// The mask's element at `index` as the output says it (1 kept, 0 dropped), or `None` where
    /// either is the output's.
    fn expected(&self, index: usize) -> Option<f64> {
        let kept = self.kept.get(index).copied().unwrap_or(f64::NAN);
        if kept == 0.0 || kept.is_nan() {
            return None;
        }
        let output = self.output.get(index).copied().unwrap_or(f64::NAN);
        Some(if output == 0.0 { 0.0 } else { 1.0 })
    }
}

impl Support for Mask {
    fn holds(&self, index: usize, value: f64) -> bool {
        match self.expected(index) {
            Some(expected) => value == expected,
            None => value == 0.0 || value == 1.0,
        }
    }
    fn describe(&self, index: usize) -> String {
        match self.expected(index) {
            Some(1.0) => "true, as the output keeps this element".to_string(),
            Some(_) => "false, as the output drops this element".to_string(),
            None => "true or false".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The operators that onnx's node cases do not test (RandomUniform, RandomNormal, their
    //! `Like` forms, Multinomial, Dropout before 7), on cases made here.
    use crate::{Case, Value};
    use onnx_runtime_types::prost::Message;

    fn leak(values: &[Value]) -> &'static [&'static [u8]] {
        let files: Vec<&'static [u8]> = values.iter().map(|v| &*Vec::leak(v.encode())).collect();
        Vec::leak(files)
    }

    /// A node case of `op_type` at `opset` of the model `text`.
    fn case(
        text: &str,
        op_type: &'static str,
        opset: i64,
        inputs: &[Value],
        outputs: &[Value],
    ) -> Case {
        let model = onnx_text::parse_model(text).unwrap().encode_to_vec();
        Case {
            name: "test_made_here",
            suite: "node",
            op_type,
            domain: "",
            opset_version: opset,
            rtol: 1e-3,
            atol: 1e-7,
            text: String::leak(text.to_string()),
            model: Box::leak(Box::new(&*Vec::leak(model))),
            inputs: leak(inputs),
            outputs: leak(outputs),
            constant_inputs: &[],
        }
    }

    fn floats(values: &[f32]) -> Value {
        Value::tensor(values, &[values.len()]).unwrap()
    }

    /// The message of the check's mismatch, without the case's name and model.
    fn mismatch(case: &Case, outputs: &[Value]) -> String {
        let text = case.check(outputs).unwrap_err().to_string();
        let line = text.lines().next().unwrap();
        line.trim_start_matches("test_made_here: ").to_string()
    }

    #[test]
    fn a_uniform_draw_is_within_low_and_high() {
        let text = "<ir_version: 8, opset_import: [\"\" : 22]> g () => (float[3] y) {
            y = RandomUniform <low: float = -1.0, high: float = 2.0, shape: ints = [3]> ()
        }";
        let case = case(text, "RandomUniform", 22, &[], &[floats(&[0.5, 1.5, -0.5])]);
        assert!(case.check(&[floats(&[-1.0, 2.0, 0.0])]).is_ok());
        assert_eq!(
            mismatch(&case, &[floats(&[-1.0, 2.5, 3.0])]),
            "output 0 (`y`): element 1 (at [1]): expected a value in [-1, 2] (whatever the \
             draws), got 2.5; 2 of 3 elements differ"
        );
        assert!(case.check(&[floats(&[0.0, f32::NAN, 0.0])]).is_err());
        assert!(case.check(&[floats(&[0.0, 0.0])]).is_err());
    }

    #[test]
    fn uniform_bounds_are_rounded_to_the_element_type() {
        // 0.1 is no float16: a draw at the low end is float16's nearest, below 0.1.
        let text = "<ir_version: 8, opset_import: [\"\" : 22]> g (float16[2] x) => (float16[2] y) {
            y = RandomUniformLike <low: float = 0.1, high: float = 0.2> (x)
        }";
        // float16 codes: 0.1 is 0x2e66 (0.09998), 0.2 is 0x3266 (0.19995), 0.15 is 0x30cd,
        // 0.09 is 0x2dc3.
        let half = |codes: [u16; 2]| {
            let raw = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
            Value::Tensor(onnx_runtime_types::TensorProto {
                dims: vec![2],
                data_type: Some(onnx_runtime_types::tensor_proto::DataType::Float16 as i32),
                raw_data: Some(raw),
                ..Default::default()
            })
        };
        let case = case(
            text,
            "RandomUniformLike",
            22,
            &[half([0, 0])],
            &[half([0x30cd, 0x30cd])],
        );
        assert!(case.check(&[half([0x2e66, 0x3266])]).is_ok());
        assert!(case.check(&[half([0x2dc3, 0x3266])]).is_err());
    }

    #[test]
    fn a_normal_draw_is_finite() {
        let text = "<ir_version: 8, opset_import: [\"\" : 22]> g (float[2] x) => (float[2] y) {
            y = RandomNormalLike <mean: float = 10.0> (x)
        }";
        let case = case(
            text,
            "RandomNormalLike",
            22,
            &[floats(&[0.0, 0.0])],
            &[floats(&[9.5, 10.5])],
        );
        assert!(case.check(&[floats(&[-1e30, 1e30])]).is_ok());
        assert_eq!(
            mismatch(&case, &[floats(&[f32::INFINITY, 1.0])]),
            "output 0 (`y`): element 0 (at [0]): expected a finite value (whatever the draws), \
             got inf; 1 of 2 elements differs"
        );
        assert!(case.check(&[floats(&[1.0, f32::NAN])]).is_err());
        let doubles = Value::tensor(&[1.0f64, 2.0], &[2]).unwrap();
        assert!(case.check(&[doubles]).is_err());
    }

    #[test]
    fn a_multinomial_draw_is_a_class() {
        let text = "<ir_version: 8, opset_import: [\"\" : 22]> g (float[1,3] x) => (int32[1,4] y) {
            y = Multinomial <sample_size: int = 4> (x)
        }";
        let x = Value::tensor(&[0.0f32, 0.0, 0.0], &[1, 3]).unwrap();
        let y = |v: [i32; 4]| Value::tensor(&v, &[1, 4]).unwrap();
        let case = case(text, "Multinomial", 22, &[x], &[y([0, 1, 2, 2])]);
        assert!(case.check(&[y([2, 2, 2, 0])]).is_ok());
        assert_eq!(
            mismatch(&case, &[y([0, 3, -1, 1])]),
            "output 0 (`y`): element 1 (at [0, 1]): expected an integer in [0, 3) (whatever the \
             draws), got 3; 2 of 4 elements differ"
        );
        let longs = Value::tensor(&[0i64, 1, 2, 2], &[1, 4]).unwrap();
        assert!(case.check(&[longs]).is_err());
    }

    #[test]
    fn dropout_before_7_draws_unless_is_test() {
        let training = "<ir_version: 3, opset_import: [\"\" : 6]> g (float[4] x) => (float[4] y) {
            y = Dropout <ratio: float = 0.5> (x)
        }";
        let x = floats(&[1.0, 2.0, 3.0, 4.0]);
        let x = std::slice::from_ref(&x);
        let case = case(training, "Dropout", 6, x, &[floats(&[2.0, 0.0, 6.0, 0.0])]);
        assert!(case.check(&[floats(&[0.0, 4.0, 0.0, 8.0])]).is_ok());
        assert_eq!(
            mismatch(&case, &[floats(&[1.0, 4.0, 0.0, 8.0])]),
            "output 0 (`y`): element 0 (at [0]): expected 0 or 2 (x * scale) (whatever the \
             draws), got 1.0; 1 of 4 elements differs"
        );
        let test = training.replace("ratio: float = 0.5", "ratio: float = 0.5, is_test: int = 1");
        let case = super::tests::case(&test, "Dropout", 6, x, x);
        assert!(case.check(x).is_ok());
        assert!(case.check(&[floats(&[0.0, 4.0, 0.0, 8.0])]).is_err());
    }
}
