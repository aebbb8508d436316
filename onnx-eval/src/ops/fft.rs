//! The complex FFT as numpy 2 computes it: the mixed-radix passes of FFTPACK in pocketfft's
//! arrangement (radices 8, then 4, one radix 2 moved to the front, then 3 and 5), operation for
//! operation. onnx's evaluator takes its DFT from `np.fft`, and the kit's expected outputs
//! carry numpy's rounding: an inverse DFT of a float32 signal is computed in float32 (its
//! `1/n` is a float32, which selects the float32 loop), and its exact zeros come out as
//! 1.9e-7, beyond the kit's atol of 1e-7; a forward one (its factor is the integer 1) in f64,
//! rounded to float32 after. `numpy_transform` picks the precision so. Lengths with another
//! prime factor are not handled here.

use std::ops::{Add, Mul, Neg, Sub};

/// The element precision of a transform: f32 or f64.
pub(super) trait Real:
    Copy
    + Default
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + std::ops::Div<Output = Self>
{
    fn from_f64(v: f64) -> Self;
    fn one() -> Self;
}

impl Real for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn one() -> f32 {
        1.0
    }
}

impl Real for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn one() -> f64 {
        1.0
    }
}

/// A complex number of precision `T`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Cplx<T> {
    pub r: T,
    pub i: T,
}

impl<T: Real> Cplx<T> {
    pub fn new(r: T, i: T) -> Cplx<T> {
        Cplx { r, i }
    }
    fn add(self, o: Cplx<T>) -> Cplx<T> {
        Cplx::new(self.r + o.r, self.i + o.i)
    }
    fn sub(self, o: Cplx<T>) -> Cplx<T> {
        Cplx::new(self.r - o.r, self.i - o.i)
    }
    fn scale(self, s: T) -> Cplx<T> {
        Cplx::new(self.r * s, self.i * s)
    }
    /// The product with a twiddle `w`, by its conjugate going forward.
    fn twiddle(self, w: Cplx<T>, forward: bool) -> Cplx<T> {
        if forward {
            Cplx::new(self.r * w.r + self.i * w.i, self.i * w.r - self.r * w.i)
        } else {
            Cplx::new(self.r * w.r - self.i * w.i, self.r * w.i + self.i * w.r)
        }
    }
    /// The product with (1 - i)/sqrt 2 going forward, (1 + i)/sqrt 2 backward.
    fn rotate45(self, forward: bool) -> Cplx<T> {
        let h = T::from_f64(std::f64::consts::FRAC_1_SQRT_2);
        if forward {
            Cplx::new(h * (self.r + self.i), h * (self.i - self.r))
        } else {
            Cplx::new(h * (self.r - self.i), h * (self.i + self.r))
        }
    }
    /// The product with (-1 - i)/sqrt 2 going forward, (-1 + i)/sqrt 2 backward.
    fn rotate135(self, forward: bool) -> Cplx<T> {
        let h = T::from_f64(std::f64::consts::FRAC_1_SQRT_2);
        if forward {
            Cplx::new(h * (self.i - self.r), h * (-self.r - self.i))
        } else {
            Cplx::new(h * (-self.r - self.i), h * (self.r - self.i))
        }
    }
    /// The product with -i going forward, with i backward.
    fn rotate90(self, forward: bool) -> Cplx<T> {
        if forward {
            Cplx::new(self.i, -self.r)
        } else {
            Cplx::new(-self.i, self.r)
        }
    }
}

/// The radices of a length, in the order the passes run, if all are 2, 3, 4, 5 or 8.
fn radices(length: usize) -> Option<Vec<usize>> {
    let mut rest = length;
    let mut factors = Vec::new();
    while rest.is_multiple_of(8) {
        factors.push(8);
        rest /= 8;
    }
    while rest.is_multiple_of(4) {
        factors.push(4);
        rest /= 4;
    }
    if rest.is_multiple_of(2) {
        rest /= 2;
        factors.push(2);
        let last = factors.len() - 1;
        factors.swap(0, last);
    }
    for divisor in [3, 5] {
        while rest.is_multiple_of(divisor) {
            factors.push(divisor);
            rest /= divisor;
        }
    }
    (rest == 1).then_some(factors)
}

/// pi / (4 n), rounded once from the exact value (pocketfft takes it from a long double).
fn eighth_turn(n: usize) -> f64 {
    const PI_LOW: f64 = 1.2246467991473532e-16;
    let divisor = 4.0 * n as f64;
    let q = std::f64::consts::PI / divisor;
    let remainder = (-q).mul_add(divisor, std::f64::consts::PI) + PI_LOW;
    q + remainder / divisor
}

/// exp(2 pi i k / n) for k <= n/2, as pocketfft tabulates it: a coarse and a fine table whose
/// entries are computed by octant symmetry in f64, multiplied in f64, then rounded to `T`.
struct Twiddles {
    n: usize,
    shift: u32,
    fine: Vec<Cplx<f64>>,
    coarse: Vec<Cplx<f64>>,
}

impl Twiddles {
    fn new(n: usize) -> Twiddles {
        let angle = eighth_turn(n);
        let at = |x: usize| -> Cplx<f64> {
            let cos = |m: usize| (m as f64 * angle).cos();
            let sin = |m: usize| (m as f64 * angle).sin();
            let x = x << 3;
            let c = |r: f64, i: f64| Cplx::new(r, i);
            if x < 4 * n {
                if x < 2 * n {
                    if x < n {
                        c(cos(x), sin(x))
                    } else {
                        c(sin(2 * n - x), cos(2 * n - x))
                    }
                } else {
                    let x = x - 2 * n;
                    if x < n {
                        c(-sin(x), cos(x))
                    } else {
                        c(-cos(2 * n - x), sin(2 * n - x))
                    }
                }
            } else {
                let x = 8 * n - x;
                if x < 2 * n {
                    if x < n {
                        c(cos(x), -sin(x))
                    } else {
                        c(sin(2 * n - x), -cos(2 * n - x))
                    }
                } else {
                    let x = x - 2 * n;
                    if x < n {
                        c(-sin(x), -cos(x))
                    } else {
                        c(-cos(2 * n - x), -sin(2 * n - x))
                    }
                }
            }
        };
        let values = (n + 2) / 2;
        let mut shift = 1;
        while (1usize << shift) * (1usize << shift) < values {
            shift += 1;
        }
        let mask = (1usize << shift) - 1;
        let one = Cplx::new(1.0, 0.0);
        let fine = (0..=mask)
            .map(|i| if i == 0 { one } else { at(i) })
            .collect();
        let coarse = (0..values.div_ceil(mask + 1))
            .map(|i| if i == 0 { one } else { at(i * (mask + 1)) })
            .collect();
        Twiddles {
            n,
            shift,
            fine,
            coarse,
        }
    }

    fn get<T: Real>(&self, k: usize) -> Cplx<T> {
        let mask = (1usize << self.shift) - 1;
        let (k, flip) = if 2 * k <= self.n {
            (k, false)
        } else {
            (self.n - k, true)
        };
        let (a, b) = (self.fine[k & mask], self.coarse[k >> self.shift]);
        let r = T::from_f64(a.r * b.r - a.i * b.i);
        let i = T::from_f64(a.r * b.i + a.i * b.r);
        Cplx::new(r, if flip { -i } else { i })
    }
}

/// One pass of radix `ip` over `l1` blocks of `ido` points, `input` to `output`.
struct Pass<'a, T> {
    ido: usize,
    l1: usize,
    forward: bool,
    /// Twiddle `x` (1-based radix index minus one) of point `i`: `tw[i - 1 + x (ido - 1)]`.
    tw: &'a [Cplx<T>],
}

impl<T: Real> Pass<'_, T> {
    fn wa(&self, x: usize, i: usize) -> Cplx<T> {
        self.tw[i - 1 + x * (self.ido - 1)]
    }

    fn radix2(&self, cc: &[Cplx<T>], ch: &mut [Cplx<T>]) {
        let (ido, l1) = (self.ido, self.l1);
        let at = |a: usize, b: usize, c: usize| cc[a + ido * (b + 2 * c)];
        let out = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
        for k in 0..l1 {
            for i in 0..ido {
                let (x, y) = (at(i, 0, k), at(i, 1, k));
                ch[out(i, k, 0)] = x.add(y);
                let d = x.sub(y);
                ch[out(i, k, 1)] = if i == 0 {
                    d
                } else {
                    d.twiddle(self.wa(0, i), self.forward)
                };
            }
        }
    }

    fn radix3(&self, cc: &[Cplx<T>], ch: &mut [Cplx<T>]) {
        let (ido, l1, fwd) = (self.ido, self.l1, self.forward);
        let twr = T::from_f64(-0.5);
        let sign = if fwd { -T::one() } else { T::one() };
        let twi = sign * T::from_f64(0.8660254037844386);
        let at = |a: usize, b: usize, c: usize| cc[a + ido * (b + 3 * c)];
        let out = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
        for k in 0..l1 {
            for i in 0..ido {
                let t0 = at(i, 0, k);
                let (t1, t2) = (at(i, 1, k).add(at(i, 2, k)), at(i, 1, k).sub(at(i, 2, k)));
                ch[out(i, k, 0)] = t0.add(t1);
                let ca = t0.add(t1.scale(twr));
                let cb = Cplx::new(-t2.i * twi, t2.r * twi);
                let (u1, u2) = (ca.add(cb), ca.sub(cb));
                if i == 0 {
                    ch[out(i, k, 1)] = u1;
                    ch[out(i, k, 2)] = u2;
                } else {
                    ch[out(i, k, 1)] = u1.twiddle(self.wa(0, i), fwd);
                    ch[out(i, k, 2)] = u2.twiddle(self.wa(1, i), fwd);
                }
            }
        }
    }

    fn radix4(&self, cc: &[Cplx<T>], ch: &mut [Cplx<T>]) {
        let (ido, l1, fwd) = (self.ido, self.l1, self.forward);
        let at = |a: usize, b: usize, c: usize| cc[a + ido * (b + 4 * c)];
        let out = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
        for k in 0..l1 {
            for i in 0..ido {
                let (c0, c1, c2, c3) = (at(i, 0, k), at(i, 1, k), at(i, 2, k), at(i, 3, k));
                let (t2, t1) = (c0.add(c2), c0.sub(c2));
                let (t3, t4) = (c1.add(c3), c1.sub(c3));
                let t4 = t4.rotate90(fwd);
                if i == 0 {
                    ch[out(i, k, 0)] = t2.add(t3);
                    ch[out(i, k, 2)] = t2.sub(t3);
                    ch[out(i, k, 1)] = t1.add(t4);
                    ch[out(i, k, 3)] = t1.sub(t4);
                } else {
                    ch[out(i, k, 0)] = t2.add(t3);
                    ch[out(i, k, 1)] = t1.add(t4).twiddle(self.wa(0, i), fwd);
                    ch[out(i, k, 2)] = t2.sub(t3).twiddle(self.wa(1, i), fwd);
                    ch[out(i, k, 3)] = t1.sub(t4).twiddle(self.wa(2, i), fwd);
                }
            }
        }
    }

    fn radix8(&self, cc: &[Cplx<T>], ch: &mut [Cplx<T>]) {
        let (ido, l1, fwd) = (self.ido, self.l1, self.forward);
        let at = |a: usize, b: usize, c: usize| cc[a + ido * (b + 8 * c)];
        let out = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
        for k in 0..l1 {
            for i in 0..ido {
                let c: [Cplx<T>; 8] = std::array::from_fn(|j| at(i, j, k));
                let (a1, a5) = (c[1].add(c[5]), c[1].sub(c[5]));
                let (a3, a7) = (c[3].add(c[7]), c[3].sub(c[7]));
                let (a1, a3) = (a1.add(a3), a1.sub(a3).rotate90(fwd));
                let a7 = a7.rotate90(fwd);
                let (a5, a7) = (a5.add(a7).rotate45(fwd), a5.sub(a7).rotate135(fwd));
                let (a0, a4) = (c[0].add(c[4]), c[0].sub(c[4]));
                let (a2, a6) = (c[2].add(c[6]), c[2].sub(c[6]));
                let (a0, a2) = (a0.add(a2), a0.sub(a2));
                let a6 = a6.rotate90(fwd);
                let (a4, a6) = (a4.add(a6), a4.sub(a6));
                let outputs = [
                    a0.add(a1),
                    a4.add(a5),
                    a2.add(a3),
                    a6.add(a7),
                    a0.sub(a1),
                    a4.sub(a5),
                    a2.sub(a3),
                    a6.sub(a7),
                ];
                for (u, value) in outputs.into_iter().enumerate() {
                    ch[out(i, k, u)] = if i == 0 || u == 0 {
                        value
                    } else {
                        value.twiddle(self.wa(u - 1, i), fwd)
                    };
                }
            }
        }
    }

    fn radix5(&self, cc: &[Cplx<T>], ch: &mut [Cplx<T>]) {
        let (ido, l1, fwd) = (self.ido, self.l1, self.forward);
        let sign = if fwd { -T::one() } else { T::one() };
        let tw1r = T::from_f64(0.30901699437494745);
        let tw1i = sign * T::from_f64(0.9510565162951535);
        let tw2r = T::from_f64(-0.8090169943749475);
        let tw2i = sign * T::from_f64(0.5877852522924731);
        let at = |a: usize, b: usize, c: usize| cc[a + ido * (b + 5 * c)];
        let out = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
        for k in 0..l1 {
            for i in 0..ido {
                let t0 = at(i, 0, k);
                let (t1, t4) = (at(i, 1, k).add(at(i, 4, k)), at(i, 1, k).sub(at(i, 4, k)));
                let (t2, t3) = (at(i, 2, k).add(at(i, 3, k)), at(i, 2, k).sub(at(i, 3, k)));
                ch[out(i, k, 0)] = Cplx::new(t0.r + t1.r + t2.r, t0.i + t1.i + t2.i);
                // (u1, u2, twar, twbr, twai, twbi): cb pairs twai with t4 and twbi with t3.
                for (u1, u2, twar, twbr, twai, twbi) in [
                    (1, 4, tw1r, tw2r, tw1i, tw2i),
                    (2, 3, tw2r, tw1r, tw2i, -tw1i),
                ] {
                    let ca = Cplx::new(
                        t0.r + twar * t1.r + twbr * t2.r,
                        t0.i + twar * t1.i + twbr * t2.i,
                    );
                    let cb = Cplx::new(-(twai * t4.i + twbi * t3.i), twai * t4.r + twbi * t3.r);
                    let (a, b) = (ca.add(cb), ca.sub(cb));
                    if i == 0 {
                        ch[out(i, k, u1)] = a;
                        ch[out(i, k, u2)] = b;
                    } else {
                        ch[out(i, k, u1)] = a.twiddle(self.wa(u1 - 1, i), fwd);
                        ch[out(i, k, u2)] = b.twiddle(self.wa(u2 - 1, i), fwd);
                    }
                }
            }
        }
    }
}

/// The DFT of `data` in place (forward: exp(-2 pi i jk/n)), each point then multiplied by
/// `factor` unless it is 1. False, and `data` untouched, if the length has a prime factor
/// other than 2, 3 and 5.
pub(super) fn transform<T: Real>(data: &mut [Cplx<T>], forward: bool, factor: T) -> bool {
    let n = data.len();
    let Some(radices) = radices(n) else {
        return false;
    };
    let odd_passes = radices.len() % 2 == 1;
    let twiddles = Twiddles::new(n.max(1));
    let mut scratch = vec![Cplx::<T>::default(); n];
    let (mut input, mut output) = (&mut *data, &mut scratch[..]);
    let mut l1 = 1;
    for ip in radices {
        let ido = n / (l1 * ip);
        let mut tw: Vec<Cplx<T>> = Vec::new();
        for j in 1..ip {
            for i in 1..ido {
                tw.push(twiddles.get(j * l1 * i));
            }
        }
        let pass = Pass {
            ido,
            l1,
            forward,
            tw: &tw,
        };
        match ip {
            2 => pass.radix2(input, output),
            3 => pass.radix3(input, output),
            4 => pass.radix4(input, output),
            8 => pass.radix8(input, output),
            _ => pass.radix5(input, output),
        }
        std::mem::swap(&mut input, &mut output);
        l1 *= ip;
    }
    // After an odd number of passes the result is in the scratch buffer.
    if odd_passes {
        data.copy_from_slice(&scratch);
    }
    if factor != T::one() {
        data.iter_mut().for_each(|c| *c = c.scale(factor));
    }
    true
}

/// numpy's `fft` (forward) or `ifft` of `points`: a forward transform and any transform of a
/// double signal (`single` false) in f64, an inverse one of a single-precision signal in f32
/// with the factor `1/n` rounded to f32. `None` for a length of another radix.
pub(super) fn numpy_transform(
    points: &[Cplx<f64>],
    forward: bool,
    single: bool,
) -> Option<Vec<Cplx<f64>>> {
    let n = points.len();
    if single && !forward {
        let mut values: Vec<Cplx<f32>> = points
            .iter()
            .map(|p| Cplx::new(p.r as f32, p.i as f32))
            .collect();
        let done = transform(&mut values, false, 1.0 / n as f32);
        return done.then(|| {
            values
                .iter()
                .map(|v| Cplx::new(f64::from(v.r), f64::from(v.i)))
                .collect()
        });
    }
    let mut values = points.to_vec();
    let factor = if forward { 1.0 } else { 1.0 / n as f64 };
    transform(&mut values, forward, factor).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive DFT in f64, to check the passes' indexing on every radix order.
    fn naive(x: &[Cplx<f64>], forward: bool) -> Vec<Cplx<f64>> {
        let n = x.len();
        let sign = if forward { -1.0 } else { 1.0 };
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cplx::default(), |acc, (j, v)| {
                    let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    let w = Cplx::new(angle.cos(), angle.sin());
                    acc.add(Cplx::new(v.r * w.r - v.i * w.i, v.r * w.i + v.i * w.r))
                })
            })
            .collect()
    }

    #[test]
    fn every_radix_order_gives_the_dft() {
        for n in [
            1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 18, 20, 24, 25, 30, 32, 40, 45, 60,
        ] {
            let x: Vec<Cplx<f64>> = (0..n)
                .map(|k| Cplx::new((k as f64 * 0.7).sin(), (k as f64 * 1.3).cos()))
                .collect();
            for forward in [true, false] {
                let mut y = x.clone();
                assert!(transform(&mut y, forward, 1.0));
                for (a, b) in y.iter().zip(naive(&x, forward)) {
                    assert!(
                        (a.r - b.r).abs() < 1e-12 && (a.i - b.i).abs() < 1e-12,
                        "n {n}"
                    );
                }
            }
        }
        let mut seven = vec![Cplx::<f32>::default(); 7];
        assert!(!transform(&mut seven, true, 1.0));
    }

    fn signal<T: Real>(n: usize) -> Vec<Cplx<T>> {
        (0..n)
            .map(|k| {
                let re = ((7 * k) % 11) as f64 - 5.0;
                let im = ((3 * k) % 13) as f64 - 6.0;
                Cplx::new(T::from_f64(re / 4.0), T::from_f64(im / 8.0))
            })
            .collect()
    }

    /// numpy's own transforms, bit for bit (`scripts/gen_fft_goldens.py`), of both precisions
    /// and every length the golden file holds.
    #[test]
    fn transforms_round_as_numpy_does() {
        let goldens = include_str!("goldens/fft_numpy.txt");
        let mut checked = 0;
        for line in goldens.lines().filter(|l| !l.starts_with('#')) {
            let words: Vec<&str> = line.split(' ').collect();
            let (dtype, forward, n) = (words[0], words[1] == "forward", words[2].parse().unwrap());
            let bits: Vec<u64> = words[3..]
                .iter()
                .map(|w| u64::from_str_radix(w, 16).unwrap())
                .collect();
            let single = dtype == "float32";
            let x: Vec<Cplx<f64>> = signal::<f64>(n);
            let y = numpy_transform(&x, forward, single).unwrap();
            let got: Vec<u64> = y
                .iter()
                .flat_map(|c| [c.r, c.i])
                .map(|v| match single {
                    true => u64::from((v as f32).to_bits()),
                    false => v.to_bits(),
                })
                .collect();
            assert_eq!(got, bits, "{dtype} {} of length {n}", words[1]);
            checked += 1;
        }
        assert_eq!(checked, 96);
    }
}
