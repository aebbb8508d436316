//! ImageDecoder: the encoded bytes of a BMP, JPEG, JPEG 2000, TIFF, PNG, WebP or PNM image to
//! its pixels, `uint8` height × width × channels, in RGB, BGR or Grayscale.
//!
//! The spec's reference is Pillow (onnx's own evaluator and its test data decode with it), so each
//! format decodes to what Pillow gives: the `image` crate's decoders for BMP, PNG, PNM, TIFF and
//! WebP (lossy WebP included: it follows libwebp), `hayro-jpeg2000` for JPEG 2000, and for
//! JPEG (baseline and progressive) a decoder of our own (`image/jpeg.rs`) with libjpeg-turbo's
//! integer IDCT, fancy upsampling and color tables, which the `image` crate's JPEG decoder does
//! not reproduce (it rounds up to 2 off on the kit's image). Bytes
//! that do not decode give an empty image, `[0, 0, channels]`, as the spec says.
//!
//! Measured against Pillow 13 on images it saved: JPEG (every sampling, progressive, restart
//! markers, gray), PNG, BMP, PNM, TIFF (raw, LZW, deflate), WebP (lossy, lossless, alpha) and
//! lossless or rate-limited JPEG 2000 decode to its exact pixels. Where they do not: irreversible
//! (9/7) JPEG 2000, a few samples off by one (float wavelets round apart); 16-bit images, which
//! are scaled to 8 bits where Pillow clips; palette TIFF, which the `image` crate refuses (empty).
//!
//! The codecs are behind onnx-eval's `image` feature (on by default); without it the operator is
//! an error that names the feature.

use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

#[cfg(feature = "image")]
mod jpeg;

pub(super) fn register(r: &mut Registry) {
    r.add("", "ImageDecoder", 20, image_decoder);
}

/// The `pixel_format` attribute.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PixelFormat {
    Rgb,
    Bgr,
    Grayscale,
}

impl PixelFormat {
    fn channels(self) -> usize {
        match self {
            PixelFormat::Grayscale => 1,
            PixelFormat::Rgb | PixelFormat::Bgr => 3,
        }
    }
}

/// A decoded image: `channels` (1 for a gray image, 3 for a color one) samples a pixel, row by
/// row.
#[cfg_attr(not(feature = "image"), allow(dead_code))]
struct Pixels {
    height: usize,
    width: usize,
    channels: usize,
    samples: Vec<u8>,
}

fn image_decoder(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let format = match ctx.string("pixel_format").as_deref().unwrap_or("RGB") {
        "RGB" => PixelFormat::Rgb,
        "BGR" => PixelFormat::Bgr,
        "Grayscale" => PixelFormat::Grayscale,
        other => {
            return Err(format!(
                "pixel_format must be \"RGB\", \"BGR\" or \"Grayscale\", got {other:?}"
            ));
        }
    };
    let stream = tensor(inputs, 0)?;
    let Data::U8(stream) = &stream.data else {
        return Err(format!(
            "encoded_stream must be uint8, got {}",
            stream.type_name()
        ));
    };
    let bytes: Vec<u8> = stream.iter().copied().collect();
    let pixels = decode(ctx, &bytes, format)?;
    let channels = format.channels();
    let (shape, samples) = match pixels {
        Some(p) => (
            [p.height, p.width, channels],
            convert(&p.samples, p.channels, format),
        ),
        None => ([0, 0, channels], Vec::new()),
    };
    let array = ArrayD::from_shape_vec(IxDyn(&shape), samples).map_err(|e| e.to_string())?;
    one(Tensor::from_data(Data::U8(array)))
}

/// The samples of an image of `channels` (1 or 3) per pixel in `format`. Pillow's `convert("L")`
/// weighs R, G and B by ITU-R 601-2 (0.299, 0.587, 0.114) in 16-bit fixed point and rounds half
/// up; a gray image is already what it gives.
fn convert(samples: &[u8], channels: usize, format: PixelFormat) -> Vec<u8> {
    match (channels, format) {
        (1, PixelFormat::Grayscale) | (3, PixelFormat::Rgb) => samples.to_vec(),
        (1, _) => samples.iter().flat_map(|&v| [v, v, v]).collect(),
        (_, PixelFormat::Bgr) => samples
            .chunks_exact(3)
            .flat_map(|p| [p[2], p[1], p[0]])
            .collect(),
        (_, _) => samples
            .chunks_exact(3)
            .map(|p| {
                let luma =
                    u32::from(p[0]) * 19595 + u32::from(p[1]) * 38470 + u32::from(p[2]) * 7471;
                ((luma + 0x8000) >> 16) as u8
            })
            .collect(),
    }
}

#[cfg(not(feature = "image"))]
fn decode(_: &Ctx<'_>, _: &[u8], _: PixelFormat) -> KernelResult<Option<Pixels>> {
    Err(
        "ImageDecoder needs onnx-eval's `image` feature (its image codecs), which this build \
         leaves out"
            .to_string(),
    )
}

/// The image in `bytes`, or `None` where they are no image of a format the spec lists or do not
/// decode. An image whose result would pass the evaluator's size limit is an error, found from
/// its header before its pixels are decoded.
#[cfg(feature = "image")]
fn decode(ctx: &Ctx<'_>, bytes: &[u8], format: PixelFormat) -> KernelResult<Option<Pixels>> {
    let check = |height: usize, width: usize| {
        ctx.check_size((height as u128) * (width as u128) * format.channels() as u128)
    };
    if bytes.starts_with(&[0xff, 0xd8]) {
        return jpeg::decode(bytes, check);
    }
    if bytes.starts_with(b"\x00\x00\x00\x0cjP  ") || bytes.starts_with(&[0xff, 0x4f, 0xff, 0x51]) {
        return jpeg2000(bytes, check);
    }
    others(ctx, bytes, check)
}

/// A JPEG 2000 image (a JP2 file or a bare codestream), by `hayro-jpeg2000`.
#[cfg(feature = "image")]
fn jpeg2000(
    bytes: &[u8],
    check: impl Fn(usize, usize) -> KernelResult<()>,
) -> KernelResult<Option<Pixels>> {
    use hayro_jpeg2000::{ColorSpace, DecodeSettings, DecoderContext, Image};
    // Strict: a stream cut short or damaged is an error, as it is to OpenJPEG under Pillow,
    // where the lenient mode decodes what it can.
    let settings = DecodeSettings {
        strict: true,
        ..DecodeSettings::default()
    };
    let Ok(image) = Image::new(bytes, &settings) else {
        return Ok(None);
    };
    let (height, width) = (image.height() as usize, image.width() as usize);
    check(height, width)?;
    let channels = match image.color_space() {
        ColorSpace::Gray => 1,
        ColorSpace::RGB => 3,
        // CMYK, ICC-based and unknown spaces: Pillow opens none of them as L or RGB either.
        _ => return Ok(None),
    };
    let mut context = DecoderContext::default();
    let Ok(decoded) = image.decode(&mut context) else {
        return Ok(None);
    };
    let stored = decoded.data_u8();
    let per_pixel = channels + usize::from(image.has_alpha());
    if stored.len() != height * width * per_pixel {
        return Ok(None);
    }
    // The alpha channel, last, is dropped: the output has the pixel format's channels alone.
    let samples = stored
        .chunks_exact(per_pixel)
        .flat_map(|p| &p[..channels])
        .copied()
        .collect();
    Ok(Some(Pixels {
        height,
        width,
        channels,
        samples,
    }))
}

/// BMP, PNG, PNM, TIFF and WebP, by the `image` crate.
#[cfg(feature = "image")]
fn others(
    ctx: &Ctx<'_>,
    bytes: &[u8],
    check: impl Fn(usize, usize) -> KernelResult<()>,
) -> KernelResult<Option<Pixels>> {
    use image::{ColorType, ImageFormat, ImageReader};
    use std::io::Cursor;
    let Ok(format) = image::guess_format(bytes) else {
        return Ok(None);
    };
    if !matches!(
        format,
        ImageFormat::Bmp
            | ImageFormat::Png
            | ImageFormat::Pnm
            | ImageFormat::Tiff
            | ImageFormat::WebP
    ) {
        return Ok(None);
    }
    let reader = || {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
        // The decoders' own buffers stay within what the evaluator allows a result, in bytes
        // (16-bit RGBA at most: 8 a pixel).
        let mut limits = image::Limits::default();
        limits.max_alloc = Some(ctx.model.limits.max_elements.saturating_mul(8));
        reader.limits(limits);
        reader
    };
    let Ok((width, height)) = reader().into_dimensions() else {
        return Ok(None);
    };
    check(height as usize, width as usize)?;
    let Ok(image) = reader().decode() else {
        return Ok(None);
    };
    let gray = matches!(
        image.color(),
        ColorType::L8 | ColorType::La8 | ColorType::L16 | ColorType::La16
    );
    let (channels, samples) = if gray {
        (1, image.into_luma8().into_raw())
    } else {
        (3, image.into_rgb8().into_raw())
    };
    Ok(Some(Pixels {
        height: height as usize,
        width: width as usize,
        channels,
        samples,
    }))
}

#[cfg(all(test, not(feature = "image")))]
mod tests {
    use crate::Value;

    /// Without its codecs the operator says which feature brings them.
    #[test]
    fn without_the_feature_the_error_names_it() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 9, opset_import: ["" : 20]>
            g (uint8[n] data) => (uint8[h, w, c] image) { image = ImageDecoder (data) }"#,
        )
        .unwrap();
        let data = Value::tensor(b"P5\n1 1\n255\n\0", &[12]).unwrap();
        let error = crate::run(&model, &[data]).unwrap_err().to_string();
        assert!(error.contains("onnx-eval's `image` feature"), "{error}");
    }
}
