//! The step table is exhaustive: every step of every operator, up and down, is crossed by an
//! adapter, refused as a whole, compatible as derived, or checked per node; and a step that
//! moves an attribute to an input (or back) is never left to the per-node check, which would
//! refuse every node using it without saying so.

use super::*;

/// Every step between neighbouring live versions of every operator of `domain`, both ways.
fn all_steps(domain: &'static str) -> Vec<Step<'static>> {
    let mut steps = Vec::new();
    for (operator, versions) in table().unwrap().sorted_operators(domain) {
        let live: Vec<i64> = versions
            .iter()
            .filter(|s| !s.deprecated)
            .map(|s| s.since)
            .collect();
        for pair in live.windows(2) {
            steps.push(Step {
                domain,
                operator,
                from: pair[0],
                to: pair[1],
            });
            steps.push(Step {
                domain,
                operator,
                from: pair[1],
                to: pair[0],
            });
        }
    }
    steps
}

/// The attributes of `from` that are inputs of `to` (by name, as onnx named the moves).
fn moved(step: &Step<'_>) -> Vec<&'static str> {
    let (Some(from), Some(to)) = (
        schema(step.domain, step.operator, step.from),
        schema(step.domain, step.operator, step.to),
    ) else {
        return Vec::new();
    };
    let names = |s: &Schema| {
        s.inputs
            .iter()
            .map(|f| f.name.to_ascii_lowercase())
            .collect::<Vec<_>>()
    };
    let (from_inputs, to_inputs) = (names(from), names(to));
    let attribute_to_input = from
        .attributes
        .iter()
        .filter(|a| to.attribute(a.name).is_none())
        .filter(|a| to_inputs.contains(&a.name.to_ascii_lowercase()))
        .map(|a| a.name);
    let input_to_attribute = to
        .attributes
        .iter()
        .filter(|a| from.attribute(a.name).is_none())
        .filter(|a| from_inputs.contains(&a.name.to_ascii_lowercase()))
        .map(|a| a.name);
    attribute_to_input.chain(input_to_attribute).collect()
}

#[test]
fn every_step_that_moves_an_attribute_to_an_input_has_an_adapter_or_a_stated_refusal() {
    let mut unhandled = Vec::new();
    let mut kinds = std::collections::BTreeMap::new();
    for domain in ["ai.onnx", "ai.onnx.ml"] {
        for step in all_steps(domain) {
            let crossing = crossing(&step);
            *kinds
                .entry(
                    format!("{crossing:?}")
                        .split('(')
                        .next()
                        .unwrap()
                        .to_owned(),
                )
                .or_insert(0) += 1;
            let moves = moved(&step);
            if crossing == Crossing::CheckedPerNode && !moves.is_empty() {
                unhandled.push(format!(
                    "{} {} → {}: {}",
                    step.operator,
                    step.from,
                    step.to,
                    moves.join(", ")
                ));
            }
        }
    }
    assert!(
        unhandled.is_empty(),
        "steps that move attributes without an adapter:\n{}",
        unhandled.join("\n")
    );
    // Each kind occurs: the table is not all one answer.
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

#[test]
fn the_adapters_and_refusals_name_real_steps() {
    let live = |domain: &str, operator: &str, version: i64| {
        versions(domain, operator).is_some_and(|all| all.iter().any(|s| s.since == version))
    };
    for &(domain, operator, version, _) in crate::refusals::SEMANTIC_CHANGES {
        assert!(
            live(domain, operator, version),
            "{operator}-{version} is not a version"
        );
    }
    for (domain, operators, from, to) in crate::adapters::rule_steps() {
        for operator in operators {
            assert!(
                live(domain, operator, from),
                "{operator}-{from} is not a version"
            );
            // `to` is 0 for an operator the target does not have yet.
            assert!(
                to == 0 || live(domain, operator, to),
                "{operator}-{to} is not a version"
            );
        }
    }
}

#[test]
fn upward_compatibility_is_derived_from_the_signatures() {
    let step = |operator, from, to| {
        crossing(&Step {
            domain: "ai.onnx",
            operator,
            from,
            to,
        })
    };
    // Relu-14 added bfloat16 and the int types: a superset.
    assert_eq!(step("Relu", 6, 13), Crossing::Compatible);
    // BatchNormalization-9 removed `spatial`: checked per node.
    assert_eq!(step("BatchNormalization", 7, 9), Crossing::CheckedPerNode);
    // Dropout-7 removed `is_test`, whose value says how the node runs: an adapter.
    assert_eq!(step("Dropout", 6, 7), Crossing::Adapter);
    // Downward is always checked per node.
    assert_eq!(step("Relu", 13, 6), Crossing::CheckedPerNode);
}
