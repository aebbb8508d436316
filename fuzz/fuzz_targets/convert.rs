//! The `convert` fuzz target: a model (text, after a selector byte) converted to every opset of
//! the default domain from 1 to the newest, and to targets out of range. The converter must
//! answer each with a model or an error, never a panic; a converted model converts back to its
//! own opset without a panic either.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(model) = onnx_syntax::parse_model(text) else {
        return;
    };
    let newest = onnx_schema::newest_opset("").unwrap_or(1);
    // The selector picks a target, out of range too (0 and newest + 1).
    let target = i64::from(selector) % (newest + 2);
    if let Ok(converted) = onnx_version_converter::convert_version(&model, target) {
        let source = model.opset_import.iter().find(|i| i.domain.as_deref().unwrap_or("").is_empty());
        if let Some(version) = source.and_then(|i| i.version).filter(|v| (1..=newest).contains(v)) {
            let _ = onnx_version_converter::convert_version(&converted, version);
        }
    }
    let _ = onnx_version_converter::convert_opsets(&model, &[("ai.onnx.ml", target), ("", target)]);
});
