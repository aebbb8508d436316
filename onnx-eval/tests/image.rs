//! ImageDecoder beyond the kit's nine cases: JPEGs of other kinds decode to Pillow's exact pixels,
//! the pixel formats, bytes that are no image (an empty image, as the spec says), the size limit,
//! and no panic on cut or damaged streams.

#![cfg(feature = "image")]

use onnx_eval::{Evaluator, Limits, Value, run};

fn decoder(pixel_format: &str) -> onnx_text::ModelProto {
    let text = format!(
        r#"<ir_version: 9, opset_import: ["" : 20]>
        g (uint8[n] data) => (uint8[h, w, c] image) {{
            image = ImageDecoder <pixel_format: string = "{pixel_format}"> (data)
        }}"#
    );
    onnx_text::parse_model(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn bytes(data: &[u8]) -> Value {
    Value::tensor(data, &[data.len()]).unwrap()
}

/// The decoded image's dims and samples.
fn decode(pixel_format: &str, data: &[u8]) -> (Vec<usize>, Vec<u8>) {
    let out = run(&decoder(pixel_format), &[bytes(data)]).unwrap_or_else(|e| panic!("{e}"));
    (out[0].dims().unwrap(), out[0].to_vec::<u8>().unwrap())
}

/// FNV-1a, 64 bits: a short stand-in for a whole image's expected samples.
fn fnv(samples: &[u8]) -> u64 {
    samples.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The encoded images of the kit's cases (one per format), by case name.
fn kit_images() -> Vec<(String, Vec<u8>)> {
    onnx_conformance::cases()
        .iter()
        .filter(|c| c.name().starts_with("test_image_decoder_decode_"))
        .filter(|c| !c.name().ends_with("_bgr") && !c.name().ends_with("_grayscale"))
        .map(|c| {
            let input = c.inputs().remove(0);
            (c.name().to_string(), input.to_vec::<u8>().unwrap())
        })
        .collect()
}

/// Pillow 13.0.0 (libjpeg-turbo) saved a 27 × 19 image of gradients and noise as each of these
/// JPEGs, and decoded them: the hashes are of its `convert("RGB")` and `convert("L")` samples.
/// They cover what the kit's one JPEG does not: 4:4:4 and 4:2:2, restart markers, progressive
/// scans, a gray image, and sizes that are no multiple of a block.
#[test]
fn jpegs_decode_to_pillows_exact_pixels() {
    let cases = [
        (
            "baseline_444_q95.jpg",
            0xfab9_9568_e1f3_03a1,
            0x17aa_dd6b_e1fe_c251,
        ),
        (
            "baseline_422_restarts.jpg",
            0xb1ad_d7bc_af3c_b911,
            0xa24d_53f2_795d_b9b5,
        ),
        (
            "progressive_420.jpg",
            0x4fa4_82a8_9708_11e3,
            0x8cc7_af24_6caa_04c1,
        ),
        ("gray.jpg", 0xde58_00db_3384_8de2, 0xadb0_1f4c_c71b_08e4),
    ];
    for (name, rgb, gray) in cases {
        let path = format!("{}/tests/data/image/{name}", env!("CARGO_MANIFEST_DIR"));
        let data = std::fs::read(&path).unwrap();
        let (dims, samples) = decode("RGB", &data);
        assert_eq!(dims, [19, 27, 3], "{name}");
        assert_eq!(fnv(&samples), rgb, "{name}: RGB");
        let (dims, samples) = decode("Grayscale", &data);
        assert_eq!(dims, [19, 27, 1], "{name}");
        assert_eq!(fnv(&samples), gray, "{name}: Grayscale");
    }
}

/// A 2 × 1 PPM of red and (0, 128, 255): BGR reverses each pixel, and Grayscale is Pillow's
/// `convert("L")`, (19595 R + 38470 G + 7471 B + 2^15) >> 16.
#[test]
fn pixel_formats_order_or_weigh_the_channels() {
    let ppm = [b"P6\n2 1\n255\n".as_slice(), &[255, 0, 0, 0, 128, 255]].concat();
    assert_eq!(
        decode("RGB", &ppm),
        (vec![1, 2, 3], vec![255, 0, 0, 0, 128, 255])
    );
    assert_eq!(
        decode("BGR", &ppm),
        (vec![1, 2, 3], vec![0, 0, 255, 255, 128, 0])
    );
    assert_eq!(decode("Grayscale", &ppm), (vec![1, 2, 1], vec![76, 104]));
    // A gray image gives its samples as they are, repeated for RGB.
    let pgm = [b"P5\n2 1\n255\n".as_slice(), &[7, 200]].concat();
    assert_eq!(decode("Grayscale", &pgm), (vec![1, 2, 1], vec![7, 200]));
    assert_eq!(
        decode("BGR", &pgm),
        (vec![1, 2, 3], vec![7, 7, 7, 200, 200, 200])
    );
}

#[test]
fn a_pixel_format_the_spec_does_not_name_is_an_error() {
    let error = run(&decoder("RGBA"), &[bytes(b"P5\n1 1\n255\n\0")]).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with(r#"pixel_format must be "RGB", "BGR" or "Grayscale", got "RGBA""#),
        "{error}"
    );
}

/// The spec: "If it can't decode for any reason (e.g. corrupted encoded stream, invalid format),
/// it will return an empty matrix": no image, an unlisted format (GIF), a stream cut short.
#[test]
fn bytes_that_do_not_decode_give_an_empty_image() {
    let mut random = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..3000)
        .map(|_| {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            random as u8
        })
        .collect();
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    for data in [&noise[..], &[], gif] {
        assert_eq!(decode("RGB", data), (vec![0, 0, 3], vec![]));
        assert_eq!(decode("Grayscale", data), (vec![0, 0, 1], vec![]));
    }
    for (name, image) in kit_images() {
        // The first half of the stream, and the right header over noise.
        let half = &image[..image.len() / 2];
        assert_eq!(decode("RGB", half), (vec![0, 0, 3], vec![]), "{name}, cut");
        let mut headed = noise.clone();
        headed[..16].copy_from_slice(&image[..16]);
        let (dims, _) = decode("BGR", &headed);
        assert_eq!(dims, [0, 0, 3], "{name}, header over noise");
    }
}

/// Every seventh prefix of each kit image, and each with one byte changed at many places: an image
/// (a damaged header may give it another size), an empty one or the size limit's error, never a
/// panic.
#[test]
fn cut_or_damaged_streams_never_panic() {
    let rgb = decoder("RGB");
    let evaluator = Evaluator::new(&rgb).unwrap();
    for (name, image) in kit_images() {
        let mut variants: Vec<Vec<u8>> = (0..image.len())
            .step_by(7)
            .map(|n| image[..n].to_vec())
            .collect();
        for at in (0..image.len()).step_by(13) {
            for flip in [0x01, 0xff] {
                let mut damaged = image.clone();
                damaged[at] ^= flip;
                variants.push(damaged);
            }
        }
        for data in variants {
            // A damaged header may claim a huge image: refused by the size limit.
            let out = match evaluator.run(&[bytes(&data)]) {
                Ok(out) => out,
                Err(e) if e.to_string().contains("over the limit") => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            let dims = out[0].dims().unwrap();
            let count = out[0].to_vec::<u8>().unwrap().len();
            assert!(dims.len() == 3 && dims[2] == 3, "{name}: {dims:?}");
            assert_eq!(dims.iter().product::<usize>(), count, "{name}");
        }
    }
}

/// A header that claims more pixels than the evaluator allows is refused before any is decoded.
#[test]
fn an_image_over_the_size_limit_is_an_error() {
    let limits = Limits {
        max_elements: 1 << 20,
        ..Limits::default()
    };
    let evaluator = Evaluator::with_limits(&decoder("RGB"), limits).unwrap();
    // A JPEG frame header of 60000 × 60000, and a PPM one.
    let jpeg = [
        0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0xea, 0x60, 0xea, 0x60, 1, 1, 0x11, 0,
    ];
    let ppm = b"P6\n60000 60000\n255\n".to_vec();
    for data in [jpeg.to_vec(), ppm] {
        let error = evaluator.run(&[bytes(&data)]).unwrap_err().to_string();
        assert!(error.contains("over the limit"), "{error}");
    }
}

#[test]
fn the_stream_must_be_uint8() {
    let model = onnx_text::parse_model(
        r#"<ir_version: 9, opset_import: ["" : 20]>
        g (int8[n] data) => (uint8[h, w, c] image) { image = ImageDecoder (data) }"#,
    )
    .unwrap();
    let error = run(&model, &[Value::tensor(&[1i8, 2], &[2]).unwrap()]).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("encoded_stream must be uint8, got INT8"),
        "{error}"
    );
}
