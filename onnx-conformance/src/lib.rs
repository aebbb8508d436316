//! onnx's node test suite as a Rust crate: every node case of onnx 1.23.2 (1,884), each a small
//! model with its inputs and expected outputs, for Rust ONNX runtimes to run in `cargo test`,
//! with no Python and no download.
//!
//! # Quick start
//!
//! A runtime's whole integration is one test file and these lines in its `Cargo.toml`
//! (`onnx-text` names the model's types, `ModelProto` and the rest, as [`Case::model`] returns
//! them; the test target runs its own `main`):
//!
//! ```toml
//! [dev-dependencies]
//! # Not on a registry yet: a path to a clone of onnx-text, or from git each crate as
//! # `{ git = "<that clone's URL>", rev = "<a commit>" }`; once published, `"0.1"`.
//! onnx-conformance = { path = "../onnx-text/onnx-conformance" }
//! onnx-text = { path = "../onnx-text" }
//!
//! [[test]]
//! name = "onnx"
//! harness = false
//! ```
//!
//! The test file, `tests/onnx.rs`: `run` gets a case and its inputs and returns the outputs
//! (here a stand-in runtime that knows Relu only; replace its body by your runtime's calls):
//!
//! ```rust
//! use onnx_conformance::{Case, Value};
//! use onnx_text::ModelProto;
//!
//! fn run(case: &Case, inputs: Vec<Value>) -> Result<Vec<Value>, String> {
//!     let model: ModelProto = case.model();
//!     let graph = model.graph.unwrap_or_default();
//!     let [node] = graph.node.as_slice() else {
//!         return Err("one node only".to_string());
//!     };
//!     if node.op_type() != "Relu" {
//!         return Err(format!("{} is not implemented", node.op_type()));
//!     }
//!     let x: Vec<f32> = inputs[0].to_vec().map_err(|e| e.to_string())?;
//!     let dims = inputs[0].dims().unwrap_or_default();
//!     let y: Vec<f32> = x.iter().map(|v| v.max(0.0)).collect();
//!     Ok(vec![Value::tensor(&y, &dims).map_err(|e| e.to_string())?])
//! }
//!
//! fn main() {
//! #   if false {
//!     onnx_conformance::harness(run)
//! #   }
//! #   // What this runtime gives: Relu's case passes, the others err.
//! #   let case = |name| onnx_conformance::cases().iter().find(|c| c.name() == name).unwrap();
//! #   let relu = case("test_relu");
//! #   relu.check(&run(relu, relu.inputs()).unwrap()).unwrap();
//! #   let abs = case("test_abs");
//! #   assert_eq!(run(abs, abs.inputs()).unwrap_err(), "Abs is not implemented");
//! }
//! ```
//!
//! Then, once, `ONNX_CONFORMANCE_WRITE=1 cargo test --test onnx` runs every case and writes
//! `onnx-conformance.toml` beside `Cargo.toml` with each case that fails now and how; commit it,
//! and `cargo test` is green until something changes: a case that starts passing, or fails
//! otherwise than the file says, fails the run (see [the expectation
//! file](#the-expectation-file)). Each case is its own test (`cargo test --test onnx -- abs`
//! filters, `-- --list` lists, `-- --help` lists libtest's options that the harness takes). The run ends with a summary: how
//! many cases passed, failed (wrong outputs), erred (the runtime returned an error or
//! panicked) and failed as expected, the coverage of each operator, and the kit's closing line.
//! A failing case's message shows the first difference, how many elements differ, and the
//! model as text:
//!
//! ```text
//! ---- test_softsign ----
//! test_softsign: output 0 (`y`): element 0 (at [0, 0, 0]): expected 0.6382124, got 1.7640524 (rtol 0.001, atol 1e-7); 60 of 60 elements differ
//! the model:
//! <
//!    ir_version: 10,
//!    opset_import: ["" : 22],
//!    producer_name: "backend-test"
//! >
//! test_softsign (float[3,4,5] x) => (float[3,4,5] y) {
//!    y = Softsign (x)
//! }
//! ```
//!
//! # The expectation file
//!
//! `onnx-conformance.toml` lists the cases a runtime is known to fail, and how each fails, so
//! that `cargo test` is green while the runtime is incomplete, and turns red when anything
//! changes: the file can only shrink, and it cannot hide a new failure behind an old one.
//!
//! ```toml
//! # A whole operator: every case of it but its `_expanded` ones (those run its function
//! # body). An operator outside the default domain is written "domain.Op".
//! [operators]
//! Acos = "error"
//! "ai.onnx.ml.Binarizer" = { error = "ai.onnx.ml is not implemented" }
//!
//! # Names: `*` stands for any characters. The first pattern that matches applies.
//! [patterns]
//! "test_attention_*" = "error"
//!
//! # One case; its entry comes before any pattern's or operator's.
//! [cases]
//! test_abs = "error"
//! test_add_uint8 = { wrong = "output 0 (`C`): values differ" }
//! ```
//!
//! Each entry says how its cases fail, by its kind alone or by its kind and a text:
//! - `"error"`: the runtime returns an error or panics, whatever the message.
//!   `{ error = "…" }`: and the error's message (`the runtime failed: …`, or
//!   `the runtime panicked: …`) contains the text.
//! - `"wrong"`: the runtime returns outputs that [`Case::check`] rejects.
//!   `{ wrong = "…" }`: and the mismatch's summary ([`Mismatch::summary`]: where the first
//!   difference is and what differs there, without the values, as `output 0 (`y`): values
//!   differ` or `output 1 (`z`): the shape differs`) contains the text.
//!
//! A listed case whose entry holds passes its test, marked `[expected to fail]`. A listed case
//! that **passes** fails its test (remove its entry; for an operator's or a pattern's, narrow
//! it), and so does one that **fails otherwise**: an error where the entry says wrong outputs
//! or the reverse, an error whose message no longer contains the entry's text (`{ error =
//! "Acos is not implemented" }` written, and Acos now implemented but failing on float16), wrong
//! outputs elsewhere than the text says (another output, or the shape where the values were
//! wrong). The test's message shows the entry and what the case gives now. The kind alone keeps
//! a file valid while the runtime rewords its messages; a text narrows an entry, and should be
//! the stable part of a message (not a pointer or a time). `{ error = "" }` is `"error"`.
//!
//! The file is checked before any case runs: faults of syntax, entries that name no case or
//! operator, and ones that cover no case (each case they match has its own entry, or an earlier
//! pattern's) stop the run with exit code 2, every fault of the file reported at once with its
//! line and column.
//!
//! **Write mode.** `ONNX_CONFORMANCE_WRITE=1 cargo test --test onnx` runs the cases, prints
//! the usual report, rewrites the file from the run and exits 0 (whatever failed: the file now
//! says so). Entries that still hold are kept as they are, with their text (a hand-written
//! "Acos is not implemented" stays); an operator's or pattern's entry that some case of it
//! contradicts gives way to one entry per case of it that still fails; a case's own entry goes
//! when the case passes, and takes the new failure when it fails otherwise; every other
//! failing case gets an entry of its kind alone (`"error"` or `"wrong"`). Then an operator
//! whose every case (that an operator's entry would cover) has an entry of its own, all alike,
//! gets one `[operators]` entry in their place: a runtime that lacks an operator has one line
//! for it. With a filter (`-- abs`), entries of the cases that did not run are kept. Comments
//! are not kept.
//!
//! **Another file.** [`Harness`] runs the cases with an expectation file at another path, so
//! that a crate can hold two harness tests (1.23.2's cases and the older releases', say), each
//! with its own file:
//!
//! ```no_run
//! // tests/onnx_releases.rs, a second test target with `harness = false`.
//! onnx_conformance::Harness::new()
//!     .releases(&["1.9.0"])
//!     .expectation_file("onnx-conformance-releases.toml")
//!     .run(|case, inputs| Err::<Vec<onnx_conformance::Value>, _>(format!("{} is not implemented", case.op_type())))
//! ```
//!
//! **The closing lines.** libtest's closing line counts an expected failure as passed; the
//! harness then prints a summary (the coverage of each operator) and a closing line of its
//! own that counts them apart, and counts apart from the failures the listed cases that pass
//! now (they fail the run too, until their entries go):
//!
//! ```text
//! test result: ok. 1884 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 14.61s
//! ...
//! onnx-conformance result: ok. 1270 passed; 0 failed; 0 newly passing; 614 expected failures (587 errors, 27 wrong outputs); 0 filtered out
//! ```
//!
//! # The data
//!
//! `scripts/gen_conformance.py` builds onnx's cases in memory
//! (`onnx.backend.test.loader.load_model_tests(kind="node")`; onnx ships no files of them any
//! more), with numpy's and Python's generators seeded so that every run gives the same bytes,
//! and writes them to the crate `onnx-conformance-data`, which this one reads them from.
//! Each case keeps:
//! - its model as ONNX text ([`Case::text`]), printed by this project's printer; the model
//!   itself ([`Case::model`]) is that text built in by `include_onnx_bytes!`, with every check
//!   on, as its protobuf encoding, decoded when asked for; so each model is checked when the
//!   kit compiles (reading, checking and encoding the 1,884 models is about 0.6 s of the kit's
//!   own compile, the checks alone about 0.1 s; see `docs/conformance.md`);
//! - its inputs and expected outputs, exactly as onnx's generator serialized them: a
//!   `TensorProto` (`raw_data` or a typed field, as onnx made it), or a `SequenceProto`,
//!   `OptionalProto` or `MapProto` when the graph's value has that type;
//! - its tolerances (onnx's runner: `rtol = 1e-3`, `atol = 1e-7` for every node case), its
//!   operator, domain and opset version, and which inputs a runtime may take as constants
//!   ([`Case::constant_inputs`]).
//!
//! # Every release since 1.4.1
//!
//! [`releases`] and [`release`] give the node and model tests of every onnx release from 1.4.1
//! to 1.22.0 (the last patch release of each minor: 1.4.1, 1.5.0, 1.6.0, 1.7.0, 1.8.1, 1.9.0,
//! 1.10.2, 1.11.0, 1.12.0, 1.13.0, 1.14.1, 1.15.0, 1.16.2, 1.17.0, 1.18.0, 1.19.1, 1.20.1,
//! 1.21.0, 1.22.0), as the files of each release's wheel hold them, and 1.23.2's cases with the
//! model tests of its wheel. A runtime names the releases it tests with the kit's features, and
//! builds only those:
//!
//! ```toml
//! [dev-dependencies]
//! onnx-conformance = { path = "../onnx-text/onnx-conformance", features = ["onnx_1_9_0", "onnx_1_13_0"] }
//! # or, once published: { version = "0.1", features = [...] }
//! ```
//!
//! (`all-releases` selects every one; `onnx_1_23_2` adds 1.23.2's model tests to
//! `release("1.23.2")`.) [`harness_releases`] runs the releases a runtime names, each case as
//! its own test named with its release (`1.9.0::test_abs`), with filtering and the expectation
//! file as [`harness`] has them. The data is in two crates the features turn on,
//! `onnx-conformance-releases-node` and `onnx-conformance-releases-model`, each file stored
//! once however many releases hold it, and each model compiled only when a selected release
//! holds it. `scripts/gen_releases.py` downloads the wheels and writes that data.
//!
//! - A node test ([`CaseKind::Node`]) is one operator, as in [`cases`]; a model test
//!   ([`CaseKind::Model`], [`Case::suite`] `simple`, `pytorch-operator` or `pytorch-converted`)
//!   is a whole model, with an empty [`Case::op_type`].
//! - Every case of these releases has one data set (`test_data_set_0`), and so one case.
//! - Tolerances: `rtol = 1e-3`, `atol = 1e-7` for every node and model case, as onnx's runner of
//!   each release uses them (its loader's defaults; none of these cases sets others).
//! - The inputs and expected outputs are the `.pb` files of the wheel, byte for byte, including
//!   one that onnx shipped broken (1.4.1's `test_cast_FLOAT_to_STRING`, whose expected output
//!   holds 3 strings for 12 elements; see `docs/conformance.md`).
//! - The models that break a rule of the checks (15 cases, in 1.4.1, 1.13.0 to 1.15.0 and
//!   1.16.2) are built with exactly the checks they fail allowed; `docs/divergences.md` lists
//!   them and why.
//!
//! # What the text form changes
//!
//! [`Case::model`] is the same model as onnx's `model.onnx`, but not the same bytes, in four
//! ways that the text cannot carry and that do not change what the model computes:
//! - a node or an `opset_import` entry without a `domain` field comes back with `domain: ""`
//!   (the default domain either way);
//! - a tensor inside an attribute (a `Constant`'s value, in the `If` cases) without a `name`
//!   comes back named `""`;
//! - such a tensor's `raw_data` comes back as its typed field (`float_data`, …), with the same
//!   values;
//! - so does an initializer's (in the older releases' model tests: onnx 1.23.2's node cases
//!   have none).
//!
//! The generators check each text against onnx's model with exactly these differences undone,
//! and `scripts/conformance_onnxruntime.py` runs both in onnxruntime on the kit's inputs (see
//! `docs/conformance.md` for its figures).
//!
//! # Comparison
//!
//! [`Case::check`] compares as onnx's runner does, and more exactly where it is silent: floating
//! types within `|actual - expected| <= atol + rtol * |expected|` (rtol at least 2^-6 for
//! bfloat16, as onnx's runner widens it), NaN equal to NaN, an infinity equal only to itself;
//! integers, bool and strings exactly; element types and shapes must be equal. The kit decodes
//! float16, bfloat16, the float8 kinds (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0), float6, float4,
//! and 4-bit and 2-bit integers itself.
//!
//! **Random operators** are compared by what does not depend on the draws. The expected outputs
//! of Bernoulli, RandomUniform(Like), RandomNormal(Like), Multinomial and Dropout in training
//! mode (its mask is drawn) are one run of numpy's generator, which no runtime is bound to: a
//! value-for-value comparison fails a correct runtime, or passes it by chance (a few Bernoulli
//! draws match now and then), so a run would pass or fail at random. Their outputs keep every
//! check that holds whatever the draws (kind, element type, shape), and each element must be in
//! the distribution's support: 0 or 1 for Bernoulli; within `[low, high]` for a uniform draw; finite
//! for a normal one; an integer in `[0, classes)` for Multinomial; for Dropout in training with a
//! ratio above 0, each output element 0 or `x * scale` (`scale = 1 / (1 - ratio)`, within the
//! tolerances) and the mask true exactly where the output keeps an element. The `_expanded`
//! cases (Bernoulli's function body) are compared alike. A Dropout that draws nothing
//! (inference, or a ratio of 0) is compared value for value, as is every model test.

mod harness;
mod node_cases;
mod random;
mod releases;

pub use harness::{Harness, harness, harness_releases};
/// The values, their comparison and its tolerances, shared with the evaluator (`onnx_eval`):
/// one `Value` type for both.
pub use onnx_value::{
    Element, Map, MapKey, Mismatch, Support, Tolerance, Value, compare, compare_named,
    compare_support,
};
pub use releases::{release, releases};

use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{ModelProto, ValueInfoProto};

/// One case: a model, its inputs and its expected outputs. A node case of onnx 1.23.2
/// ([`cases`]), or a node or model case of one of onnx's releases ([`release`]).
///
/// ```
/// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_relu").unwrap();
/// assert_eq!((case.op_type(), case.domain(), case.opset_version()), ("Relu", "", 14));
/// // The expected outputs pass their own check.
/// assert!(case.check(&case.outputs()).is_ok());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Case {
    name: &'static str,
    /// onnx's folder of the case: `node`, `simple`, `pytorch-operator` or `pytorch-converted`.
    suite: &'static str,
    op_type: &'static str,
    domain: &'static str,
    opset_version: i64,
    rtol: f64,
    atol: f64,
    text: &'static str,
    /// The model's protobuf encoding, made at compile time from `text` by `include_onnx_bytes!`
    /// (which parses and checks it as `include_onnx!` does): a reference to a static's bytes,
    /// so that the older releases' catalog points into its data crates without copying them.
    model: &'static &'static [u8],
    inputs: &'static [&'static [u8]],
    outputs: &'static [&'static [u8]],
    constant_inputs: &'static [usize],
}

/// What a case tests: one operator (onnx's node tests) or a whole model (onnx's model tests,
/// in the older releases of [`release`]).
///
/// ```
/// use onnx_conformance::CaseKind;
///
/// assert!(onnx_conformance::cases().iter().all(|c| c.kind() == CaseKind::Node));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaseKind {
    /// A node test (`onnx/backend/test/data/node`): a model of one operator, or of the function
    /// body of one (`_expanded`), named by [`Case::op_type`].
    Node,
    /// A model test (`onnx/backend/test/data/{simple,pytorch-operator,pytorch-converted}`): a
    /// whole model, often of several operators; [`Case::op_type`] and [`Case::domain`] are
    /// empty, and [`Case::suite`] names onnx's folder.
    Model,
}

/// Every case, sorted by name.
///
/// ```
/// let cases = onnx_conformance::cases();
/// assert_eq!(cases.len(), 1884);
/// assert!(cases.windows(2).all(|w| w[0].name() < w[1].name()));
/// ```
pub fn cases() -> &'static [Case] {
    &node_cases::CASES
}

impl Case {
    /// The case's name, as onnx names it (`test_abs`, `test_abs_expanded`, …).
    ///
    /// ```
    /// assert_eq!(onnx_conformance::cases()[0].name(), "test_abs");
    /// ```
    pub fn name(&self) -> &str {
        self.name
    }

    /// Whether the case tests one operator or a whole model.
    ///
    /// ```
    /// use onnx_conformance::CaseKind;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.kind(), CaseKind::Node);
    /// ```
    pub fn kind(&self) -> CaseKind {
        if self.suite == "node" {
            CaseKind::Node
        } else {
            CaseKind::Model
        }
    }

    /// onnx's folder of the case, under `onnx/backend/test/data/`: `node` for a node test, and
    /// `simple`, `pytorch-operator` or `pytorch-converted` for a model test.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.suite(), "node");
    /// ```
    pub fn suite(&self) -> &str {
        self.suite
    }

    /// The operator the case tests. An `_expanded` case runs the operator's function body, and
    /// is counted under the operator it expands. Empty for a model test.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_softsign_expanded_ver18").unwrap();
    /// assert_eq!(case.op_type(), "Softsign");
    /// assert!(case.model().graph.unwrap().node.iter().all(|n| n.op_type() != "Softsign"));
    /// ```
    pub fn op_type(&self) -> &str {
        self.op_type
    }

    /// The operator's domain: `""` for the default one, or `ai.onnx.ml`,
    /// `ai.onnx.preview.training`, ….
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_adam").unwrap();
    /// assert_eq!(case.domain(), "ai.onnx.preview.training");
    /// ```
    pub fn domain(&self) -> &str {
        self.domain
    }

    /// The version of the operator's domain the model imports (of the default domain, for a
    /// model test).
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.opset_version(), 13);
    /// ```
    pub fn opset_version(&self) -> i64 {
        self.opset_version
    }

    /// The model as ONNX text.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert!(case.text().contains("y = Abs (x)"));
    /// ```
    pub fn text(&self) -> &str {
        self.text
    }

    /// The model: [`Case::text`] parsed (see the crate docs for how it differs from onnx's
    /// `model.onnx`).
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.model(), onnx_text::parse_model(case.text()).unwrap());
    /// ```
    pub fn model(&self) -> ModelProto {
        ModelProto::decode(*self.model).unwrap_or_else(|e| {
            unreachable!("include_onnx_bytes! made bytes that do not decode: {e}")
        })
    }

    /// The inputs, one per graph input, in order. In a model test of a model before IR 4 the
    /// graph also lists its initializers as inputs, after the ones given here (as onnx's runner
    /// feeds it, one value per file).
    ///
    /// ```
    /// use onnx_conformance::Value;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_sequence_insert_at_back").unwrap();
    /// assert!(matches!(&case.inputs()[0], Value::Sequence(items) if items.len() == 3));
    /// ```
    pub fn inputs(&self) -> Vec<Value> {
        let graph = self.model().graph.unwrap_or_default();
        self.decode(self.inputs, &graph.input)
    }

    /// The expected outputs, one per graph output, in order.
    ///
    /// ```
    /// use onnx_conformance::Value;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_optional_has_element_empty_optional_input").unwrap();
    /// assert!(matches!(case.inputs()[..], [Value::Optional(None)]));
    /// assert!(matches!(case.outputs()[..], [Value::Tensor(_)]));
    /// ```
    pub fn outputs(&self) -> Vec<Value> {
        let graph = self.model().graph.unwrap_or_default();
        self.decode(self.outputs, &graph.output)
    }

    /// The names of the inputs, in the order of [`Case::inputs`]: for a runtime that takes its
    /// inputs by name.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_add").unwrap();
    /// assert_eq!(case.input_names(), ["x", "y"]);
    /// ```
    pub fn input_names(&self) -> Vec<String> {
        let graph = self.model().graph.unwrap_or_default();
        let fed = graph.input.iter().take(self.inputs.len());
        fed.map(|input| input.name().to_string()).collect()
    }

    /// The names of the outputs, in the order of [`Case::outputs`] and of what [`Case::check`]
    /// takes.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_training_dropout_mask").unwrap();
    /// assert_eq!(case.output_names(), ["y", "z"]);
    /// ```
    pub fn output_names(&self) -> Vec<String> {
        let graph = self.model().graph.unwrap_or_default();
        graph.output.iter().map(|o| o.name().to_string()).collect()
    }

    /// A runtime's outputs, given with their names in any order, put in the case's order for
    /// [`Case::check`]: for a runtime that returns its outputs by name. An error names an output
    /// the case has and the runtime did not give, one given twice, or one the case does not have.
    ///
    /// ```
    /// use onnx_conformance::Value;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_training_dropout_mask").unwrap();
    /// let [y, z] = case.outputs().try_into().unwrap();
    /// let outputs = case.outputs_by_name([("z", z.clone()), ("y", y.clone())]).unwrap();
    /// assert!(case.check(&outputs).is_ok());
    /// assert_eq!(
    ///     case.outputs_by_name([("y", y.clone())]).unwrap_err(),
    ///     "test_training_dropout_mask: the runtime gave no output `z`"
    /// );
    /// assert_eq!(
    ///     case.outputs_by_name([("y", y), ("z", z.clone()), ("w", z)]).unwrap_err(),
    ///     "test_training_dropout_mask: the runtime gave an output `w`, which the model does not have"
    /// );
    /// ```
    pub fn outputs_by_name<S: AsRef<str>>(
        &self,
        named: impl IntoIterator<Item = (S, Value)>,
    ) -> Result<Vec<Value>, String> {
        let names = self.output_names();
        let mut slots: Vec<Option<Value>> = vec![None; names.len()];
        for (name, value) in named {
            let name = name.as_ref();
            let Some(i) = names.iter().position(|n| n == name) else {
                return Err(format!(
                    "{}: the runtime gave an output `{name}`, which the model does not have",
                    self.name
                ));
            };
            if slots[i].replace(value).is_some() {
                return Err(format!(
                    "{}: the runtime gave output `{name}` twice",
                    self.name
                ));
            }
        }
        names
            .iter()
            .zip(slots)
            .map(|(name, slot)| {
                slot.ok_or_else(|| format!("{}: the runtime gave no output `{name}`", self.name))
            })
            .collect()
    }

    /// The inputs' files, as onnx wrote them (`input_0.pb`, …): a serialized `TensorProto`, or
    /// a `SequenceProto`, `OptionalProto` or `MapProto` when the graph's input has that type.
    /// [`Case::inputs`] decodes them.
    ///
    /// ```
    /// use onnx_text::prost::Message;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// let x = onnx_text::TensorProto::decode(case.input_files()[0]).unwrap();
    /// assert_eq!(x.dims, [3, 4, 5]);
    /// ```
    pub fn input_files(&self) -> &'static [&'static [u8]] {
        self.inputs
    }

    /// The expected outputs' files, as onnx wrote them (`output_0.pb`, …); see
    /// [`Case::input_files`].
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.output_files().len(), 1);
    /// ```
    pub fn output_files(&self) -> &'static [&'static [u8]] {
        self.outputs
    }

    /// The positions (in [`Case::inputs`]) of the inputs a runtime may take as constants: every
    /// tensor input but the first. onnx's node tests feed as data what real models usually
    /// hold as initializers (a reduction's `axes`, a `Reshape`'s shape, `BatchNormalization`'s
    /// scale, bias, mean and variance); a runtime that needs those to be constant folds them
    /// into the model. An operator that takes no data has its first input hinted too: a
    /// window's size (`BlackmanWindow`, `HammingWindow`, `HannWindow`), `MelWeightMatrix`'s
    /// scalars, `ConstantOfShape`'s shape, `Range`'s bounds. A model test (of [`release`])
    /// hints, of its inputs after the first, the tensors that its nodes read only after their
    /// own first input (the shape of `test_expand_shape_model1`'s `Expand`).
    ///
    /// ```
    /// let case = |name| onnx_conformance::cases().iter().find(|c| c.name() == name).unwrap();
    /// assert_eq!(case("test_reshape_reordered_all_dims").constant_inputs(), [1]);
    /// assert_eq!(case("test_hannwindow").constant_inputs(), [0]);
    /// ```
    pub fn constant_inputs(&self) -> &[usize] {
        self.constant_inputs
    }

    /// The tolerances (`rtol`, `atol`) of floating outputs; bfloat16 outputs take
    /// `rtol.max(2^-6)`.
    ///
    /// ```
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// assert_eq!(case.tolerance(), (1e-3, 1e-7));
    /// ```
    pub fn tolerance(&self) -> (f64, f64) {
        (self.rtol, self.atol)
    }

    /// Compares a runtime's outputs with the expected ones (see the crate docs for how).
    ///
    /// ```
    /// use onnx_conformance::Value;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
    /// let mut outputs = case.outputs();
    /// let Value::Tensor(y) = &mut outputs[0] else { unreachable!() };
    /// y.raw_data.as_mut().unwrap()[0..4].copy_from_slice(&7.5f32.to_le_bytes());
    /// let mismatch = case.check(&outputs).unwrap_err().to_string();
    /// assert!(mismatch.starts_with("test_abs: output 0 (`y`): element 0 (at [0, 0, 0]): expected "));
    /// assert!(mismatch.contains(", got 7.5 (rtol 0.001, atol 1e-7); 1 of 60 elements differs\nthe model:\n<"));
    /// ```
    ///
    /// A random operator's outputs are compared by their support (see the crate docs): other
    /// draws pass, a value no draw gives fails.
    ///
    /// ```
    /// use onnx_conformance::Value;
    ///
    /// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_bernoulli").unwrap();
    /// let y = case.outputs()[0].to_vec::<f64>().unwrap();
    /// let dims = case.outputs()[0].dims().unwrap();
    /// let other_draws: Vec<f64> = y.iter().map(|v| 1.0 - v).collect();
    /// assert!(case.check(&[Value::tensor(&other_draws, &dims).unwrap()]).is_ok());
    /// let mut half = other_draws.clone();
    /// half[0] = 0.5;
    /// let mismatch = case.check(&[Value::tensor(&half, &dims).unwrap()]).unwrap_err();
    /// assert!(mismatch.to_string().starts_with(
    ///     "test_bernoulli: output 0 (`y`): element 0 (at [0]): expected 0 or 1 (whatever the draws), got 0.5; 1 of 10 elements differs"
    /// ));
    /// ```
    pub fn check(&self, actual: &[Value]) -> Result<(), Mismatch> {
        let graph = self.model().graph.unwrap_or_default();
        let names: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
        let expected = self.decode(self.outputs, &graph.output);
        let tolerance = Tolerance {
            rtol: self.rtol,
            atol: self.atol,
        };
        let inputs = self.decode(self.inputs, &graph.input);
        let supports = random::supports(self, &graph, &inputs, actual, tolerance);
        let supports: Vec<Option<&dyn Support>> = supports
            .iter()
            .flatten()
            .map(|support| support.as_deref())
            .collect();
        compare_support(&expected, actual, &names, tolerance, &supports)
            .map_err(|mismatch| mismatch.in_case(self.name, self.text))
    }

    fn decode(&self, files: &[&[u8]], infos: &[ValueInfoProto]) -> Vec<Value> {
        files
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                Value::decode(infos.get(i).and_then(|v| v.r#type.as_ref()), bytes).unwrap_or_else(
                    |why| {
                        // The committed data is read back by the kit's own tests.
                        panic!(
                            "{}: value {i} of the kit's data cannot be read: {why}",
                            self.name
                        )
                    },
                )
            })
            .collect()
    }
}
