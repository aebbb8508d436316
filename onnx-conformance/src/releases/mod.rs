//! onnx's releases since 1.4.1: the node and model tests each release's wheel ships, and 1.23.2's
//! generated node cases with the model tests of its wheel.

// Not even read without a release selected: 3 MB of source.
#[cfg(any(
    feature = "onnx_1_4_1",
    feature = "onnx_1_5_0",
    feature = "onnx_1_6_0",
    feature = "onnx_1_7_0",
    feature = "onnx_1_8_1",
    feature = "onnx_1_9_0",
    feature = "onnx_1_10_2",
    feature = "onnx_1_11_0",
    feature = "onnx_1_12_0",
    feature = "onnx_1_13_0",
    feature = "onnx_1_14_1",
    feature = "onnx_1_15_0",
    feature = "onnx_1_16_2",
    feature = "onnx_1_17_0",
    feature = "onnx_1_18_0",
    feature = "onnx_1_19_1",
    feature = "onnx_1_20_1",
    feature = "onnx_1_21_0",
    feature = "onnx_1_22_0",
    feature = "onnx_1_23_2",
))]
mod catalog;

use crate::Case;

/// Every release the kit holds, oldest first, and whether this build selected it (its feature;
/// 1.23.2's node cases are always there).
const KNOWN: [(&str, bool); 20] = [
    ("1.4.1", cfg!(feature = "onnx_1_4_1")),
    ("1.5.0", cfg!(feature = "onnx_1_5_0")),
    ("1.6.0", cfg!(feature = "onnx_1_6_0")),
    ("1.7.0", cfg!(feature = "onnx_1_7_0")),
    ("1.8.1", cfg!(feature = "onnx_1_8_1")),
    ("1.9.0", cfg!(feature = "onnx_1_9_0")),
    ("1.10.2", cfg!(feature = "onnx_1_10_2")),
    ("1.11.0", cfg!(feature = "onnx_1_11_0")),
    ("1.12.0", cfg!(feature = "onnx_1_12_0")),
    ("1.13.0", cfg!(feature = "onnx_1_13_0")),
    ("1.14.1", cfg!(feature = "onnx_1_14_1")),
    ("1.15.0", cfg!(feature = "onnx_1_15_0")),
    ("1.16.2", cfg!(feature = "onnx_1_16_2")),
    ("1.17.0", cfg!(feature = "onnx_1_17_0")),
    ("1.18.0", cfg!(feature = "onnx_1_18_0")),
    ("1.19.1", cfg!(feature = "onnx_1_19_1")),
    ("1.20.1", cfg!(feature = "onnx_1_20_1")),
    ("1.21.0", cfg!(feature = "onnx_1_21_0")),
    ("1.22.0", cfg!(feature = "onnx_1_22_0")),
    ("1.23.2", true),
];

const fn selected_count() -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < KNOWN.len() {
        count += KNOWN[i].1 as usize;
        i += 1;
    }
    count
}

static SELECTED: [&str; selected_count()] = {
    let mut selected = [""; selected_count()];
    let (mut i, mut j) = (0, 0);
    while i < KNOWN.len() {
        if KNOWN[i].1 {
            selected[j] = KNOWN[i].0;
            j += 1;
        }
        i += 1;
    }
    selected
};

/// The onnx releases this build holds, oldest first: always `"1.23.2"` (its node cases are
/// [`cases`](crate::cases)), and each older release whose feature is on (`onnx_1_4_1`, …,
/// `onnx_1_22_0`, or `all-releases` for every one).
///
/// ```
/// let releases = onnx_conformance::releases();
/// assert_eq!(releases.last(), Some(&"1.23.2"));
/// // The kit's own tests build with `all-releases`.
/// # #[cfg(feature = "all-releases")]
/// assert_eq!(releases.len(), 20);
/// # #[cfg(feature = "all-releases")]
/// assert_eq!(releases[..3], ["1.4.1", "1.5.0", "1.6.0"]);
/// ```
pub fn releases() -> &'static [&'static str] {
    &SELECTED
}

/// The cases of one onnx release, as its wheel ships them: every node test (sorted by name),
/// then every model test (`simple`, `pytorch-operator`, `pytorch-converted`, each sorted by
/// name; see [`Case::kind`] and [`Case::suite`]). `None` for a release this build does not hold
/// (see [`releases`]).
///
/// For `"1.23.2"` the node cases are [`cases`](crate::cases), which onnx builds in memory
/// rather than ship; with the feature `onnx_1_23_2` the model tests of its wheel follow them.
///
/// ```
/// use onnx_conformance::CaseKind;
///
/// # #[cfg(feature = "onnx_1_9_0")]
/// # {
/// let cases = onnx_conformance::release("1.9.0").unwrap();
/// let node = cases.iter().filter(|c| c.kind() == CaseKind::Node).count();
/// assert_eq!((node, cases.len() - node), (809, 140));
/// let relu = cases.iter().find(|c| c.name() == "test_relu").unwrap();
/// // The opset the model imports: Relu-6 is the version in force at 9.
/// assert_eq!((relu.op_type(), relu.opset_version()), ("Relu", 9));
/// assert!(relu.check(&relu.outputs()).is_ok());
/// # }
/// assert!(onnx_conformance::release("1.0").is_none());
/// ```
pub fn release(version: &str) -> Option<&'static [Case]> {
    macro_rules! release {
        ($($version:literal $feature:literal $cases:ident,)*) => {
            match version {
                $(
                    #[cfg(feature = $feature)]
                    $version => Some(&catalog::$cases),
                )*
                #[cfg(feature = "onnx_1_23_2")]
                "1.23.2" => Some(RELEASE_1_23_2.as_slice()),
                #[cfg(not(feature = "onnx_1_23_2"))]
                "1.23.2" => Some(crate::cases()),
                _ => None,
            }
        };
    }
    release! {
        "1.4.1" "onnx_1_4_1" RELEASE_1_4_1,
        "1.5.0" "onnx_1_5_0" RELEASE_1_5_0,
        "1.6.0" "onnx_1_6_0" RELEASE_1_6_0,
        "1.7.0" "onnx_1_7_0" RELEASE_1_7_0,
        "1.8.1" "onnx_1_8_1" RELEASE_1_8_1,
        "1.9.0" "onnx_1_9_0" RELEASE_1_9_0,
        "1.10.2" "onnx_1_10_2" RELEASE_1_10_2,
        "1.11.0" "onnx_1_11_0" RELEASE_1_11_0,
        "1.12.0" "onnx_1_12_0" RELEASE_1_12_0,
        "1.13.0" "onnx_1_13_0" RELEASE_1_13_0,
        "1.14.1" "onnx_1_14_1" RELEASE_1_14_1,
        "1.15.0" "onnx_1_15_0" RELEASE_1_15_0,
        "1.16.2" "onnx_1_16_2" RELEASE_1_16_2,
        "1.17.0" "onnx_1_17_0" RELEASE_1_17_0,
        "1.18.0" "onnx_1_18_0" RELEASE_1_18_0,
        "1.19.1" "onnx_1_19_1" RELEASE_1_19_1,
        "1.20.1" "onnx_1_20_1" RELEASE_1_20_1,
        "1.21.0" "onnx_1_21_0" RELEASE_1_21_0,
        "1.22.0" "onnx_1_22_0" RELEASE_1_22_0,
    }
}

/// 1.23.2's node cases, then the model tests of its wheel: one vector, as [`release`] gives
/// a slice.
#[cfg(feature = "onnx_1_23_2")]
static RELEASE_1_23_2: std::sync::LazyLock<Vec<Case>> = std::sync::LazyLock::new(|| {
    let node = crate::cases().iter();
    node.chain(&catalog::MODELS_1_23_2).copied().collect()
});

#[cfg(all(test, feature = "onnx_1_9_0"))]
mod tests {
    use crate::Case;
    use crate::harness::{Arguments, release_cases, run_cases};
    use std::sync::Arc;

    /// The harness over a release: each test named with its release, filtered by that name,
    /// judged as the 1.23.2 cases are.
    #[test]
    fn the_harness_names_each_case_with_its_release() {
        let selected = Arc::new(release_cases(&["1.9.0"]).unwrap());
        let no_rules = Arc::new(vec![None; selected.len()]);
        let arguments = Arguments {
            filters: vec!["1.9.0::test_relu".to_string()],
            exact: true,
            threads: Some(1),
            ..Arguments::default()
        };
        let mut report = Vec::new();
        let (conclusion, summary) = run_cases(
            &arguments,
            selected.clone(),
            no_rules.clone(),
            |case: &Case, _| match case.name() {
                "test_relu" => Ok(case.outputs()),
                _ => Err("not Relu"),
            },
            &mut report,
        )
        .unwrap();
        let text = summary.to_string();
        assert!(text.contains("1 cases run: 1 passed"), "{text}");
        let names: Vec<&str> = summary.verdicts().map(|(c, _)| c.name()).collect();
        assert_eq!(names, ["test_relu"]);
        assert_eq!((conclusion.passed, conclusion.failed), (1, 0));
        let report = String::from_utf8(report).unwrap();
        assert!(report.contains("test 1.9.0::test_relu ... ok"), "{report}");

        // A model test is counted under its suite, not an operator.
        let arguments = Arguments {
            filters: vec!["1.9.0::test_sign_model".to_string()],
            ..Arguments::default()
        };
        let (_, summary) = run_cases(
            &arguments,
            selected,
            no_rules,
            |case: &Case, _| Ok::<_, String>(case.outputs()),
            &mut Vec::new(),
        )
        .unwrap();
        let text = summary.to_string();
        assert!(text.contains("  (simple models) 1/1\n"), "{text}");
    }
}
