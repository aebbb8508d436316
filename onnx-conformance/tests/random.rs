//! The random operators' cases are compared by their support: other draws pass, in 1.23.2's
//! cases and in every release's; a wrong shape, element type or a value no draw gives fails; a
//! Dropout that draws nothing is still compared value for value.

use onnx_conformance::{Case, Value, cases, release, releases};

fn case(name: &str) -> &'static Case {
    cases().iter().find(|c| c.name() == name).unwrap()
}

/// The node cases of the random operators in 1.23.2 and every release, with their release.
fn random_cases() -> Vec<(&'static str, &'static Case)> {
    let random = ["Bernoulli", "Dropout"];
    releases()
        .iter()
        .flat_map(|&v| release(v).unwrap().iter().map(move |c| (v, c)))
        .filter(|(_, c)| random.contains(&c.op_type()))
        .collect()
}

fn dims(value: &Value) -> Vec<usize> {
    value.dims().unwrap()
}

/// A tensor of `value`'s element type (float or double) and dims, with `data`.
fn like(value: &Value, data: &[f64]) -> Value {
    let dims = dims(value);
    match value.to_vec::<f32>() {
        Ok(_) => {
            let data: Vec<f32> = data.iter().map(|&v| v as f32).collect();
            Value::tensor(&data, &dims).unwrap()
        }
        Err(_) => Value::tensor(data, &dims).unwrap(),
    }
}

fn floats(value: &Value) -> Vec<f64> {
    match value.to_vec::<f32>() {
        Ok(v) => v.into_iter().map(f64::from).collect(),
        Err(_) => value.to_vec::<f64>().unwrap(),
    }
}

/// The error's first line.
fn first_line(case: &Case, outputs: &[Value]) -> String {
    let mismatch = case.check(outputs).expect_err("passes");
    mismatch.to_string().lines().next().unwrap().to_string()
}

#[test]
fn bernoulli_passes_any_draws_of_0_and_1_in_every_release() {
    let mut checked = 0;
    for (version, case) in random_cases() {
        if case.op_type() != "Bernoulli" {
            continue;
        }
        let expected = &case.outputs()[0];
        let y = floats(expected);
        for draws in [
            y.iter().map(|v| 1.0 - v).collect::<Vec<_>>(),
            vec![0.0; y.len()],
            vec![1.0; y.len()],
        ] {
            let outputs = [like(expected, &draws)];
            assert!(
                case.check(&outputs).is_ok(),
                "{version} {}: {draws:?}",
                case.name()
            );
        }
        checked += 1;
    }
    // 6 cases in 1.23.2, and 6 more in the releases that differ from them.
    assert!(checked >= 12, "{checked}");
}

#[test]
fn bernoulli_fails_a_value_outside_0_and_1_a_wrong_shape_or_element_type() {
    let case = case("test_bernoulli_expanded");
    let expected = &case.outputs()[0];
    let mut y = floats(expected);
    y[3] = 2.0;
    assert_eq!(
        first_line(case, &[like(expected, &y)]),
        "test_bernoulli_expanded: output 0 (`y`): element 3 (at [3]): expected 0 or 1 (whatever \
         the draws), got 2.0; 1 of 10 elements differs"
    );
    let mismatch = case.check(&[like(expected, &y)]).unwrap_err();
    assert_eq!(mismatch.summary(), "output 0 (`y`): values differ");
    y[3] = f64::NAN;
    assert!(case.check(&[like(expected, &y)]).is_err());

    let y = floats(expected);
    let longer = Value::tensor(&[y.clone(), vec![0.0]].concat(), &[y.len() + 1]).unwrap();
    assert_eq!(
        first_line(case, &[longer]),
        "test_bernoulli_expanded: output 0 (`y`): expected shape [10], got [11]"
    );
    // test_bernoulli is of doubles: floats are another element type, even of 0s and 1s.
    let singles: Vec<f32> = y.iter().map(|&v| v as f32).collect();
    let singles = Value::tensor(&singles, &[y.len()]).unwrap();
    assert_eq!(
        first_line(case, &[singles]),
        "test_bernoulli_expanded: output 0 (`y`): expected element type DOUBLE, got FLOAT"
    );
    assert_eq!(
        first_line(case, &[]),
        "test_bernoulli_expanded: expected 1 outputs, got 0"
    );
}

/// A draw of Dropout's mask other than onnx's, and the output and mask it gives.
fn redraw(case: &Case) -> (Vec<f64>, Vec<bool>, f64) {
    let inputs = case.inputs();
    let x = floats(&inputs[0]);
    let ratio = match inputs.get(1) {
        Some(r) => floats(r)[0],
        None => 0.5,
    };
    let scale = 1.0 / (1.0 - ratio);
    // Every third element dropped: not onnx's draw, which drops about `ratio` of them at random.
    let mask: Vec<bool> = (0..x.len()).map(|i| i % 3 != 0).collect();
    let y = x
        .iter()
        .zip(&mask)
        .map(|(&x, &keep)| if keep { x * scale } else { 0.0 })
        .collect();
    (y, mask, scale)
}

fn dropout_outputs(case: &Case, y: &[f64], mask: &[bool]) -> Vec<Value> {
    let expected = case.outputs();
    let mut outputs = vec![like(&expected[0], y)];
    if expected.len() == 2 {
        outputs.push(Value::tensor(mask, &dims(&expected[1])).unwrap());
    }
    outputs
}

#[test]
fn dropout_in_training_passes_other_masks_in_every_release() {
    let mut checked = 0;
    for (version, case) in random_cases() {
        if !case.name().starts_with("test_training_dropout") || case.name().contains("zero_ratio") {
            continue;
        }
        let (y, mask, _) = redraw(case);
        let outputs = dropout_outputs(case, &y, &mask);
        assert!(
            case.check(&outputs).is_ok(),
            "{version} {}: {}",
            case.name(),
            case.check(&outputs).unwrap_err()
        );
        checked += 1;
    }
    // 4 cases in each of 1.23.2 and the releases of Dropout 12 and 13.
    assert!(checked >= 12, "{checked}");
}

#[test]
fn dropout_in_training_fails_an_unscaled_element_and_a_mask_that_contradicts_the_output() {
    let case = case("test_training_dropout_mask");
    let (mut y, mut mask, scale) = redraw(case);
    let x = floats(&case.inputs()[0]);
    assert_eq!(scale, 1.0 / (1.0 - 0.75));

    // Kept but not scaled.
    y[1] = x[1];
    let text = first_line(case, &dropout_outputs(case, &y, &mask));
    assert!(
        text.starts_with(&format!(
            "test_training_dropout_mask: output 0 (`y`): element 1 (at [0, 0, 1]): expected 0 or {} (x * scale) (whatever the draws), got ",
            f64::from((x[1] * scale) as f32)
        )),
        "{text}"
    );
    y[1] = x[1] * scale;

    // The output keeps element 1, the mask says dropped; then the reverse at element 0.
    mask[1] = false;
    assert_eq!(
        first_line(case, &dropout_outputs(case, &y, &mask)),
        "test_training_dropout_mask: output 1 (`z`): element 1 (at [0, 0, 1]): expected true, \
         as the output keeps this element (whatever the draws), got false; 1 of 60 elements differs"
    );
    mask[1] = true;
    mask[0] = true;
    assert_eq!(
        first_line(case, &dropout_outputs(case, &y, &mask)),
        "test_training_dropout_mask: output 1 (`z`): element 0 (at [0, 0, 0]): expected false, \
         as the output drops this element (whatever the draws), got true; 1 of 60 elements differs"
    );
    mask[0] = false;
    assert!(case.check(&dropout_outputs(case, &y, &mask)).is_ok());

    // The mask is bool: a float mask of 0s and 1s is another element type.
    let mut outputs = dropout_outputs(case, &y, &mask);
    let ones: Vec<f32> = mask.iter().map(|&m| f32::from(u8::from(m))).collect();
    outputs[1] = Value::tensor(&ones, &dims(&outputs[1])).unwrap();
    assert_eq!(
        first_line(case, &outputs),
        "test_training_dropout_mask: output 1 (`z`): expected element type BOOL, got FLOAT"
    );
}

#[test]
fn dropout_that_draws_nothing_is_compared_value_for_value() {
    // A ratio of 0 in training, and inference (no training_mode): the output is x, every
    // element kept, so a dropped element is wrong even though a draw could drop it.
    for name in [
        "test_training_dropout_zero_ratio_mask",
        "test_dropout_default_mask",
        "test_dropout_default_old",
    ] {
        let case = case(name);
        let mut y = floats(&case.outputs()[0]);
        assert_eq!(y, floats(&case.inputs()[0]), "{name}");
        y[0] = 0.0;
        let mut outputs = case.outputs();
        outputs[0] = like(&outputs[0], &y);
        assert!(
            first_line(case, &outputs).contains("output 0 (`y`): element 0 (at [0"),
            "{name}"
        );
        assert!(
            !first_line(case, &outputs).contains("whatever the draws"),
            "{name}"
        );
    }
}
