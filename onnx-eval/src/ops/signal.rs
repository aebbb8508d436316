//! Signal processing: DFT (axis as an attribute in version 17, as an operand from 20), STFT, the
//! Hann, Hamming and Blackman windows, and MelWeightMatrix.
//!
//! A full DFT of a length of radices 2, 3 and 5 computes as numpy does (see `fft`), so that
//! it rounds as onnx's evaluator's `np.fft` does. Other transforms compute in f64 with a radix-2 FFT, and Bluestein's chirp-z for
//! other lengths, so that no length costs quadratic time; results round once to the input's
//! type.

use super::fft::{Cplx, numpy_transform};
use super::training::floats_like;
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, Axis, IxDyn, Zip};
use onnx_runtime_types::tensor_proto::DataType;
use std::f64::consts::PI;

pub(super) fn register(r: &mut Registry) {
    r.add("", "DFT", 17, dft);
    r.add("", "DFT", 20, dft);
    r.add("", "STFT", 17, stft);
    r.add("", "HannWindow", 17, window);
    r.add("", "HammingWindow", 17, window);
    r.add("", "BlackmanWindow", 17, window);
    r.add("", "MelWeightMatrix", 17, mel_weight_matrix);
}

/// A complex number, (real, imaginary).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Complex {
    re: f64,
    im: f64,
}

impl Complex {
    fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }
    fn polar(angle: f64) -> Complex {
        Complex::new(angle.cos(), angle.sin())
    }
    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }
    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }
    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
    fn conj(self) -> Complex {
        Complex::new(self.re, -self.im)
    }
    fn scale(self, s: f64) -> Complex {
        Complex::new(self.re * s, self.im * s)
    }
}

/// In-place radix-2 FFT of a power-of-two length; `sign` -1 forward, +1 inverse (unscaled).
fn fft_pow2(x: &mut [Complex], sign: f64) {
    let n = x.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            x.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let step = Complex::polar(sign * 2.0 * PI / len as f64);
        for start in (0..n).step_by(len) {
            let mut w = Complex::new(1.0, 0.0);
            for k in 0..len / 2 {
                let a = x[start + k];
                let b = x[start + k + len / 2].mul(w);
                x[start + k] = a.add(b);
                x[start + k + len / 2] = a.sub(b);
                w = w.mul(step);
            }
        }
        len <<= 1;
    }
}

/// The DFT of any length, unscaled: radix-2 directly, else Bluestein's chirp-z through a
/// power-of-two convolution.
fn fft(x: &[Complex], inverse: bool) -> Vec<Complex> {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    if n <= 1 {
        return x.to_vec();
    }
    if n.is_power_of_two() {
        let mut y = x.to_vec();
        fft_pow2(&mut y, sign);
        return y;
    }
    // k² mod 2n keeps the chirp's angle small, and so exact enough.
    let chirp: Vec<Complex> = (0..n)
        .map(|k| {
            let k2 = (k as u128 * k as u128 % (2 * n as u128)) as f64;
            Complex::polar(sign * PI * k2 / n as f64)
        })
        .collect();
    let m = (2 * n - 1).next_power_of_two();
    let mut a = vec![Complex::default(); m];
    for k in 0..n {
        a[k] = x[k].mul(chirp[k]);
    }
    let mut b = vec![Complex::default(); m];
    b[0] = chirp[0].conj();
    for k in 1..n {
        b[k] = chirp[k].conj();
        b[m - k] = chirp[k].conj();
    }
    fft_pow2(&mut a, -1.0);
    fft_pow2(&mut b, -1.0);
    for (p, q) in a.iter_mut().zip(&b) {
        *p = p.mul(*q);
    }
    fft_pow2(&mut a, 1.0);
    (0..n)
        .map(|k| a[k].scale(1.0 / m as f64).mul(chirp[k]))
        .collect()
}

/// A scalar integer operand.
fn scalar_int(t: &Tensor, what: &str) -> KernelResult<i64> {
    match t.to_i64_vec()?[..] {
        [v] => Ok(v),
        _ => Err(format!(
            "{what} must be one integer, got shape {:?}",
            t.shape()
        )),
    }
}

/// A real ([..., 1]) or complex ([..., 2]) signal as complex numbers, without its last axis.
fn complex_signal(x: &Tensor) -> KernelResult<(ArrayD<Complex>, bool)> {
    let shape = x.shape();
    let (&parts, dims) = shape
        .split_last()
        .ok_or("a signal needs a last axis of 1 (real) or 2 (complex)")?;
    if parts != 1 && parts != 2 {
        return Err(format!(
            "the last axis of a signal is 1 (real) or 2 (complex), got shape {shape:?}"
        ));
    }
    let values = x.to_f64_vec()?;
    let numbers: Vec<Complex> = values
        .chunks(parts)
        .map(|c| Complex::new(c[0], c.get(1).copied().unwrap_or(0.0)))
        .collect();
    let array = ArrayD::from_shape_vec(IxDyn(dims), numbers).map_err(|e| e.to_string())?;
    Ok((array, parts == 2))
}

/// Complex numbers back to a tensor of `dtype` with a last axis of 2, or 1 holding the real
/// parts.
fn signal_tensor(array: &ArrayD<Complex>, real: bool, dtype: DataType) -> KernelResult<Tensor> {
    let mut shape = array.shape().to_vec();
    shape.push(if real { 1 } else { 2 });
    let mut values = Vec::with_capacity(array.len() * 2);
    for c in array.iter() {
        values.push(c.re);
        if !real {
            values.push(c.im);
        }
    }
    floats_like(&Tensor::zeros(dtype, &shape)?, values)
}

/// DFT: along `axis` (an attribute defaulting to 1 in version 17, an operand defaulting to -2
/// from 20), of `dft_length` points (the signal cut or zero-padded); `onesided` keeps the
/// first n/2 + 1 bins of a real signal's transform, or with `inverse` rebuilds a real signal
/// from them.
fn dft(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let rank = x.rank();
    if rank < 2 {
        return Err(format!(
            "DFT needs a signal axis and a last axis, got shape {:?}",
            x.shape()
        ));
    }
    let requested = if ctx.since >= 20 {
        match tensor_opt(inputs, 2)? {
            Some(a) => scalar_int(a, "axis")?,
            None => -2,
        }
    } else {
        ctx.int("axis", 1)
    };
    let axis = if requested < 0 {
        requested + rank as i64
    } else {
        requested
    };
    if axis < 0 || axis > rank as i64 - 2 {
        return Err(format!("axis {requested} is out of range for rank {rank}"));
    }
    let axis = axis as usize;
    let inverse = ctx.int("inverse", 0) != 0;
    let onesided = ctx.int("onesided", 0) != 0;
    let (signal, complex) = complex_signal(x)?;
    let dim = signal.shape()[axis];
    let irfft = onesided && inverse;
    let length = match tensor_opt(inputs, 1)? {
        Some(t) => {
            let n = scalar_int(t, "dft_length")?;
            usize::try_from(n)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("dft_length must be positive, got {n}"))?
        }
        None if irfft => 2 * dim.saturating_sub(1),
        None => dim,
    };
    if length == 0 {
        return Err("a DFT of no points".to_string());
    }
    if onesided && !inverse && complex {
        return Err("a one-sided forward DFT takes a real signal".to_string());
    }
    let bins = if onesided && !inverse {
        length / 2 + 1
    } else {
        length
    };
    let mut out_shape = signal.shape().to_vec();
    out_shape[axis] = bins;
    ctx.checked_count(&out_shape)?;
    ctx.check_size(2 * signal.len() as u128 / dim.max(1) as u128 * length as u128)?;
    let mut output = ArrayD::<Complex>::default(IxDyn(&out_shape));
    Zip::from(signal.lanes(Axis(axis)))
        .and(output.lanes_mut(Axis(axis)))
        .for_each(|line, mut out| {
            let points: Vec<Complex> = if irfft {
                hermitian_spectrum(line.to_vec(), length)
            } else {
                (0..length)
                    .map(|k| line.get(k).copied().unwrap_or_default())
                    .collect()
            };
            let single = x.dtype != DataType::Double;
            let numpy_like = match irfft {
                true => None,
                false => as_numpy(&points, inverse, single),
            };
            let transformed = match numpy_like {
                Some(values) => values,
                None => {
                    let scale = if inverse { 1.0 / length as f64 } else { 1.0 };
                    fft(&points, inverse)
                        .into_iter()
                        .map(|v| v.scale(scale))
                        .collect()
                }
            };
            for (o, v) in out.iter_mut().zip(transformed) {
                *o = v;
            }
        });
    one(signal_tensor(&output, irfft, x.dtype)?)
}

/// The full DFT of `points` as numpy computes it (`fft::numpy_transform`), if it takes the
/// length.
fn as_numpy(points: &[Complex], inverse: bool, single: bool) -> Option<Vec<Complex>> {
    let values: Vec<Cplx<f64>> = points.iter().map(|p| Cplx::new(p.re, p.im)).collect();
    let values = numpy_transform(&values, !inverse, single)?;
    Some(values.into_iter().map(|v| Complex::new(v.r, v.i)).collect())
}

/// The full spectrum of `length` points of a real signal from its first bins (n/2 + 1 used,
/// zero-padded if fewer), by conjugate symmetry.
fn hermitian_spectrum(half: Vec<Complex>, length: usize) -> Vec<Complex> {
    let kept = length / 2 + 1;
    let bin = |k: usize| half.get(k).copied().unwrap_or_default();
    (0..length)
        .map(|k| {
            if k < kept {
                bin(k)
            } else {
                bin(length - k).conj()
            }
        })
        .collect()
}

/// STFT: DFTs of `frame_length` points of a [batch, length, 1 or 2] signal, every `frame_step`
/// samples, each frame multiplied by `window` (all ones without one); one-sided by default.
fn stft(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    if x.rank() != 3 {
        return Err(format!(
            "STFT takes a [batch, length, 1 or 2] signal, got {:?}",
            x.shape()
        ));
    }
    let (signal, complex) = complex_signal(x)?;
    let (batch, length) = (signal.shape()[0], signal.shape()[1]);
    let step = scalar_int(tensor(inputs, 1)?, "frame_step")?;
    let step = usize::try_from(step)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| format!("frame_step must be positive, got {step}"))?;
    let window = tensor_opt(inputs, 2)?.map(Tensor::to_f64_vec).transpose()?;
    let frame_length = match (tensor_opt(inputs, 3)?, &window) {
        (Some(t), _) => {
            let n = scalar_int(t, "frame_length")?;
            usize::try_from(n).map_err(|_| format!("frame_length {n} is negative"))?
        }
        (None, Some(w)) => w.len(),
        (None, None) => length,
    };
    if let Some(w) = &window
        && w.len() != frame_length
    {
        return Err(format!(
            "the window has {} points for frames of {frame_length}",
            w.len()
        ));
    }
    if frame_length == 0 || frame_length > length {
        return Err(format!(
            "frames of {frame_length} samples in a signal of {length}"
        ));
    }
    let onesided = ctx.int("onesided", 1) != 0;
    if onesided && complex {
        return Err("a one-sided STFT takes a real signal".to_string());
    }
    let frames = (length - frame_length) / step + 1;
    let bins = if onesided {
        frame_length / 2 + 1
    } else {
        frame_length
    };
    let shape = [batch, frames, bins];
    ctx.checked_count(&shape)?;
    ctx.check_size((batch * frames) as u128 * frame_length as u128)?;
    let mut output = ArrayD::<Complex>::default(IxDyn(&shape));
    for b in 0..batch {
        for f in 0..frames {
            let frame: Vec<Complex> = (0..frame_length)
                .map(|k| {
                    let w = window.as_ref().map_or(1.0, |w| w[k]);
                    signal[[b, f * step + k]].scale(w)
                })
                .collect();
            for (k, v) in fft(&frame, false).into_iter().take(bins).enumerate() {
                output[[b, f, k]] = v;
            }
        }
    }
    one(signal_tensor(&output, false, x.dtype)?)
}

/// The float type of the `output_datatype` attribute (float by default).
fn output_type(ctx: &Ctx<'_>) -> KernelResult<DataType> {
    let code = ctx.int("output_datatype", DataType::Float as i64);
    DataType::try_from(code as i32).map_err(|_| format!("unknown output_datatype {code}"))
}

/// A tensor of `dtype` from f64 values: floats rounded, integers truncated.
pub(super) fn numbers_as(
    dtype: DataType,
    shape: &[usize],
    values: Vec<f64>,
) -> KernelResult<Tensor> {
    let like = Tensor::zeros(dtype, shape)?;
    match like.data {
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) => floats_like(&like, values),
        _ => integers_as(dtype, shape, &values),
    }
}

fn integers_as(dtype: DataType, shape: &[usize], values: &[f64]) -> KernelResult<Tensor> {
    let shape = IxDyn(shape);
    let err = |e: ndarray::ShapeError| e.to_string();
    macro_rules! ints {
        ($variant:ident, $t:ty) => {
            Data::$variant(
                ArrayD::from_shape_vec(shape, crate::tensor::map_slice(values, &|v| v as $t))
                    .map_err(err)?,
            )
        };
    }
    let data = match dtype {
        DataType::Int8 => ints!(I8, i8),
        DataType::Int16 => ints!(I16, i16),
        DataType::Int32 => ints!(I32, i32),
        DataType::Int64 => ints!(I64, i64),
        DataType::Uint8 => ints!(U8, u8),
        DataType::Uint16 => ints!(U16, u16),
        DataType::Uint32 => ints!(U32, u32),
        DataType::Uint64 => ints!(U64, u64),
        other => {
            return Err(format!("{} is not a number type", other.as_str_name()));
        }
    };
    Ok(Tensor { dtype, data })
}

/// The three windows: a0 - a1·cos(2πn/N) + a2·cos(4πn/N) for n in 0..size, N the size when
/// `periodic` (the default), else size - 1.
fn window(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let size = scalar_int(tensor(inputs, 0)?, "size")?;
    let size = usize::try_from(size).map_err(|_| format!("window size {size} is negative"))?;
    ctx.checked_count(&[size])?;
    let (a0, a1, a2) = match ctx.op_type {
        "HannWindow" => (0.5, 0.5, 0.0),
        "HammingWindow" => (25.0 / 46.0, 21.0 / 46.0, 0.0),
        _ => (0.42, 0.5, 0.08),
    };
    let period = if ctx.int("periodic", 1) != 0 {
        size as f64
    } else {
        size as f64 - 1.0
    };
    let values = (0..size)
        .map(|n| {
            let angle = 2.0 * PI * n as f64 / period;
            a0 - a1 * angle.cos() + a2 * (2.0 * angle).cos()
        })
        .collect();
    one(numbers_as(output_type(ctx)?, &[size], values)?)
}

/// A scalar operand as f64.
fn scalar_f64(t: &Tensor, what: &str) -> KernelResult<f64> {
    match t.to_f64_vec()?[..] {
        [v] => Ok(v),
        _ => Err(format!(
            "{what} must be one number, got shape {:?}",
            t.shape()
        )),
    }
}

/// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangles, peak 1, between bins spaced
/// evenly on the mel scale (mel(f) = 2595·log10(1 + f/700)) from the lower to the upper edge.
/// The spec leaves the spacing and the bin rounding open: as onnx's evaluator, the edges are
/// num_mel_bins + 2 points a (high - low) / (num_mel_bins + 2) mel step apart, each taken to
/// the spectrogram bin floor((dft_length + 1) · f / sample_rate).
fn mel_weight_matrix(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let mel_bins = scalar_int(tensor(inputs, 0)?, "num_mel_bins")?;
    let dft_length = scalar_int(tensor(inputs, 1)?, "dft_length")?;
    let sample_rate = scalar_int(tensor(inputs, 2)?, "sample_rate")?;
    let lower = scalar_f64(tensor(inputs, 3)?, "lower_edge_hertz")?;
    let upper = scalar_f64(tensor(inputs, 4)?, "upper_edge_hertz")?;
    if mel_bins < 0 || dft_length <= 0 || sample_rate <= 0 {
        return Err(format!(
            "num_mel_bins {mel_bins}, dft_length {dft_length}, sample_rate {sample_rate}: none may be negative, the last two not zero"
        ));
    }
    let (mel_bins, spectrum_bins) = (mel_bins as usize, dft_length as usize / 2 + 1);
    ctx.checked_count(&[spectrum_bins, mel_bins])?;
    // onnx's evaluator takes log1p in the edges' own type (float), then divides by ln 10 in f64.
    let mel = |hz: f64| f64::from(2595.0f32 * ((hz as f32) / 700.0).ln_1p()) / 10f64.ln();
    let (low_mel, high_mel) = (mel(lower), mel(upper));
    let step = (high_mel - low_mel) / (mel_bins + 2) as f64;
    let edges: Vec<i64> = (0..mel_bins + 2)
        .map(|i| {
            let hz = 700.0 * ((i as f64 * step + low_mel) / 2595.0 * 10f64.ln()).exp_m1();
            ((dft_length + 1) as f64 * hz / sample_rate as f64).floor() as i64
        })
        .collect();
    let mut matrix = vec![0.0; spectrum_bins * mel_bins];
    let mut set = |bin: i64, mel: usize, value: f64| -> KernelResult<()> {
        let row = usize::try_from(bin)
            .ok()
            .filter(|&b| b < spectrum_bins)
            .ok_or_else(|| {
                format!("a mel band's edge falls on bin {bin}, outside 0..{spectrum_bins}")
            })?;
        matrix[row * mel_bins + mel] = value;
        Ok(())
    };
    for i in 0..mel_bins {
        let (left, center, right) = (edges[i], edges[i + 1], edges[i + 2]);
        if center == left {
            set(center, i, 1.0)?;
        } else {
            for j in left..=center {
                set(j, i, (j - left) as f64 / (center - left) as f64)?;
            }
        }
        for j in center..right {
            set(j, i, (right - j) as f64 / (right - center) as f64)?;
        }
    }
    one(numbers_as(
        output_type(ctx)?,
        &[spectrum_bins, mel_bins],
        matrix,
    )?)
}

#[cfg(test)]
mod tests {
    use super::{Complex, fft};
    use crate::Value;

    /// Bluestein's transform of a length that is no power of two agrees with the DFT's sum.
    #[test]
    fn fft_of_any_length_is_the_dft() {
        let x: Vec<Complex> = (0..6)
            .map(|k| Complex::new(k as f64, 1.0 - k as f64))
            .collect();
        let y = fft(&x, false);
        for (k, yk) in y.iter().enumerate() {
            let mut sum = Complex::default();
            for (n, xn) in x.iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (k * n) as f64 / 6.0;
                sum = sum.add(xn.mul(Complex::polar(angle)));
            }
            assert!(
                (sum.re - yk.re).abs() < 1e-9 && (sum.im - yk.im).abs() < 1e-9,
                "{k}"
            );
        }
    }

    fn dft_of_ramp(opset: i64, node: &str) -> Vec<f32> {
        let model = onnx_text::parse_model(&format!(
            "<ir_version: 9, opset_import: [\"\" : {opset}]>
            g (float[2,2,1] x) => (float[2,2,2] y) {{ {node} }}"
        ))
        .unwrap();
        let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2, 1]).unwrap();
        crate::run(&model, &[x]).unwrap()[0]
            .to_vec::<f32>()
            .unwrap()
    }

    /// By hand from the spec: DFT-17's axis attribute defaults to 1, DFT-20's axis operand to
    /// -2 (here axis 1 as well); axis 0 pairs [1, 3] and [2, 4]: sums 4, 6 and differences -2.
    #[test]
    fn dft_17_axis_attribute_and_20_default() {
        let along_1 = [3.0, 0.0, -1.0, 0.0, 7.0, 0.0, -1.0, 0.0];
        assert_eq!(dft_of_ramp(17, "y = DFT (x)"), along_1);
        assert_eq!(dft_of_ramp(20, "y = DFT (x)"), along_1);
        assert_eq!(
            dft_of_ramp(17, "y = DFT <axis: int = 0> (x)"),
            [4.0, 0.0, 6.0, 0.0, -2.0, 0.0, -2.0, 0.0]
        );
    }
}
