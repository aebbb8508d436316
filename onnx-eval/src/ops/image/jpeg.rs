//! JPEG: Huffman-coded 8-bit images (baseline, extended sequential and progressive), gray or
//! three-component, decoded as libjpeg-turbo decodes them with its defaults, which is what Pillow (the spec's
//! reference) uses: the accurate integer IDCT (`jidctint.c`), "fancy" triangle-filter upsampling
//! of chroma halved in either direction (`jdsample.c`, as the spec describes it), and YCbCr to RGB
//! through its 16-bit fixed-point tables (`jdcolor.c`). Every step is integer arithmetic, so the
//! pixels are exactly libjpeg-turbo's. Other JPEGs (arithmetic-coded, lossless, 12-bit, CMYK)
//! go to the `image` crate, whose decoder rounds differently.

use super::Pixels;
use crate::error::KernelResult;

/// The JPEG image in `bytes`, or `None` where it does not decode.
pub(super) fn decode(
    bytes: &[u8],
    check: impl Fn(usize, usize) -> KernelResult<()>,
) -> KernelResult<Option<Pixels>> {
    match Decoder::default().read(bytes, &check)? {
        Outcome::Decoded(pixels) => Ok(Some(pixels)),
        Outcome::Corrupt => Ok(None),
        Outcome::Unsupported => other(bytes, check),
    }
}

/// A JPEG that our decoder does not take, by the `image` crate (zune-jpeg), whose IDCT and
/// upsampling round differently from libjpeg-turbo's.
fn other(
    bytes: &[u8],
    check: impl Fn(usize, usize) -> KernelResult<()>,
) -> KernelResult<Option<Pixels>> {
    use image::{ColorType, ImageFormat, ImageReader};
    use std::io::Cursor;
    let reader = || ImageReader::with_format(Cursor::new(bytes), ImageFormat::Jpeg);
    let Ok((width, height)) = reader().into_dimensions() else {
        return Ok(None);
    };
    check(height as usize, width as usize)?;
    let Ok(image) = reader().decode() else {
        return Ok(None);
    };
    let (channels, samples) = if image.color() == ColorType::L8 {
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

enum Outcome {
    Decoded(Pixels),
    /// Not a JPEG, or a broken one.
    Corrupt,
    /// A JPEG of a kind this decoder leaves to the `image` crate.
    Unsupported,
}

/// Why reading stopped early.
enum Stop {
    Corrupt,
    Unsupported,
}

type Read<T> = Result<T, Stop>;

/// The zigzag position of each coefficient in natural (row-major) order, and 16 more entries
/// of 63 where a corrupt run points past the block, as libjpeg's `jpeg_natural_order` has.
const NATURAL_ORDER: [usize; 80] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
    63, 63, 63, 63, 63, 63,
];

/// A canonical Huffman table, as libjpeg's `jpeg_huff_decode` walks it: for each code length,
/// the greatest code of that length and where its values start.
#[derive(Clone)]
struct Huffman {
    /// `max_code[l]`: the greatest code of length `l` (1..=16), or -1 where there is none.
    max_code: [i32; 17],
    /// `offset[l]`: the index in `values` of the codes of length `l`, less their first code.
    offset: [i32; 17],
    values: Vec<u8>,
}

impl Huffman {
    fn new(counts: &[u8; 16], values: Vec<u8>) -> Read<Huffman> {
        let mut max_code = [-1; 17];
        let mut offset = [0; 17];
        let (mut code, mut index) = (0i32, 0i32);
        for length in 1..=16 {
            let count = i32::from(counts[length - 1]);
            if count > 0 {
                offset[length] = index - code;
                code += count;
                index += count;
                max_code[length] = code - 1;
            }
            // Codes of a length must fit it; more would not be a prefix code.
            if code > 1 << length {
                return Err(Stop::Corrupt);
            }
            code <<= 1;
        }
        Ok(Huffman {
            max_code,
            offset,
            values,
        })
    }
}

/// What a scan codes.
#[derive(Clone, Copy)]
enum Kind {
    Sequential,
    DcFirst,
    DcRefine,
    AcFirst,
    AcRefine,
}

/// The coefficients of a progressive AC scan: `ss..=se` in zigzag order, scaled by 2^`al`.
#[derive(Clone, Copy)]
struct Band {
    ss: usize,
    se: usize,
    al: u32,
}

/// A component of a scan, with the tables its kind of scan uses.
struct Member {
    index: usize,
    dc: Option<Huffman>,
    ac: Option<Huffman>,
}

/// One component of the frame.
struct Component {
    id: u8,
    h: usize,
    v: usize,
    quant_slot: usize,
    /// The quantization table, latched at the component's first scan as libjpeg does.
    quant: Option<[i32; 64]>,
    /// Blocks a row and rows of blocks, over the whole frame's MCUs.
    blocks_wide: usize,
    blocks_high: usize,
    /// The coefficients of every block, block by block in rows, each in natural order.
    coefficients: Vec<i16>,
    /// The component's own size in samples, `ceil(image size * factor / greatest factor)`.
    width: usize,
    height: usize,
}

struct Frame {
    width: usize,
    height: usize,
    components: Vec<Component>,
    h_max: usize,
    v_max: usize,
    mcus_wide: usize,
    mcus_high: usize,
    progressive: bool,
}

#[derive(Default)]
struct Decoder {
    quant: [Option<[i32; 64]>; 4],
    dc_tables: [Option<Huffman>; 4],
    ac_tables: [Option<Huffman>; 4],
    restart_interval: usize,
    frame: Option<Frame>,
    jfif: bool,
    adobe_transform: Option<u8>,
}

/// The bytes of a JPEG, read front to back.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn byte(&mut self) -> Read<u8> {
        let b = *self.data.get(self.at).ok_or(Stop::Corrupt)?;
        self.at += 1;
        Ok(b)
    }

    fn u16(&mut self) -> Read<u16> {
        Ok(u16::from(self.byte()?) << 8 | u16::from(self.byte()?))
    }

    fn take(&mut self, n: usize) -> Read<&'a [u8]> {
        let end = self.at.checked_add(n).ok_or(Stop::Corrupt)?;
        let slice = self.data.get(self.at..end).ok_or(Stop::Corrupt)?;
        self.at = end;
        Ok(slice)
    }

    /// The next marker's code, skipping fill bytes (0xFF) before it.
    fn marker(&mut self) -> Read<u8> {
        if self.byte()? != 0xff {
            return Err(Stop::Corrupt);
        }
        loop {
            match self.byte()? {
                0xff => continue,
                0 => return Err(Stop::Corrupt),
                code => return Ok(code),
            }
        }
    }

    /// A marker segment's contents (after its length).
    fn segment(&mut self) -> Read<&'a [u8]> {
        let length = usize::from(self.u16()?);
        if length < 2 {
            return Err(Stop::Corrupt);
        }
        self.take(length - 2)
    }
}

impl Decoder {
    fn read(
        mut self,
        data: &[u8],
        check: &impl Fn(usize, usize) -> KernelResult<()>,
    ) -> KernelResult<Outcome> {
        match self.markers(data, check) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(Stop::Corrupt) => return Ok(Outcome::Corrupt),
            Err(Stop::Unsupported) => return Ok(Outcome::Unsupported),
        }
        Ok(match self.frame.take() {
            Some(frame) => match self.pixels(frame) {
                Ok(pixels) => Outcome::Decoded(pixels),
                Err(Stop::Corrupt) => Outcome::Corrupt,
                Err(Stop::Unsupported) => Outcome::Unsupported,
            },
            None => Outcome::Corrupt,
        })
    }

    /// Reads marker by marker to the end of the image. The outer error is the evaluator's size
    /// limit, checked on the frame header.
    fn markers(
        &mut self,
        data: &[u8],
        check: &impl Fn(usize, usize) -> KernelResult<()>,
    ) -> Read<KernelResult<()>> {
        let mut bytes = Bytes { data, at: 0 };
        if bytes.marker()? != 0xd8 {
            return Err(Stop::Corrupt);
        }
        let mut scanned = false;
        loop {
            // The image may end without its EOI once a scan was read, as libjpeg allows.
            if scanned && bytes.at >= data.len() {
                return Ok(Ok(()));
            }
            match bytes.marker()? {
                0xd9 => return Ok(Ok(())),
                // Baseline, extended sequential and progressive, Huffman-coded.
                code @ (0xc0..=0xc2) => {
                    let segment = bytes.segment()?;
                    self.frame_header(segment, code == 0xc2)?;
                    let frame = self.frame.as_ref().ok_or(Stop::Corrupt)?;
                    if let Err(e) = check(frame.height, frame.width) {
                        return Ok(Err(e));
                    }
                    self.allocate();
                }
                // Lossless, hierarchical, arithmetic-coded.
                0xc3 | 0xc5..=0xc7 | 0xc9..=0xcb | 0xcd..=0xcf => {
                    return Err(Stop::Unsupported);
                }
                0xc4 => self.huffman_tables(bytes.segment()?)?,
                0xdb => self.quant_tables(bytes.segment()?)?,
                0xdd => {
                    let segment = bytes.segment()?;
                    if segment.len() != 2 {
                        return Err(Stop::Corrupt);
                    }
                    self.restart_interval =
                        usize::from(u16::from_be_bytes([segment[0], segment[1]]));
                }
                0xda => {
                    let segment = bytes.segment()?;
                    self.scan(segment, &mut bytes)?;
                    scanned = true;
                }
                0xe0 => {
                    let segment = bytes.segment()?;
                    self.jfif |= segment.starts_with(b"JFIF\0");
                }
                0xee => {
                    let segment = bytes.segment()?;
                    if segment.len() >= 12 && segment.starts_with(b"Adobe") {
                        self.adobe_transform = Some(segment[11]);
                    }
                }
                // DNL: a height given after the scan, which libjpeg does not take either.
                0xdc => return Err(Stop::Unsupported),
                // A restart marker outside a scan: libjpeg skips it.
                0xd0..=0xd7 => {}
                0xd8 => return Err(Stop::Corrupt),
                _ => {
                    bytes.segment()?;
                }
            }
        }
    }

    fn frame_header(&mut self, s: &[u8], progressive: bool) -> Read<()> {
        if self.frame.is_some() {
            return Err(Stop::Corrupt);
        }
        if s.len() < 6 {
            return Err(Stop::Corrupt);
        }
        if s[0] != 8 {
            return Err(Stop::Unsupported);
        }
        let height = usize::from(u16::from_be_bytes([s[1], s[2]]));
        let width = usize::from(u16::from_be_bytes([s[3], s[4]]));
        let count = usize::from(s[5]);
        if height == 0 {
            return Err(Stop::Unsupported);
        }
        if width == 0 || s.len() != 6 + 3 * count {
            return Err(Stop::Corrupt);
        }
        if count != 1 && count != 3 {
            return Err(Stop::Unsupported);
        }
        let mut components = Vec::with_capacity(count);
        for c in s[6..].chunks_exact(3) {
            let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
            if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
                return Err(Stop::Corrupt);
            }
            components.push(Component {
                id: c[0],
                h,
                v,
                quant_slot: usize::from(c[2]),
                quant: None,
                blocks_wide: 0,
                blocks_high: 0,
                coefficients: Vec::new(),
                width: 0,
                height: 0,
            });
        }
        let h_max = components.iter().map(|c| c.h).max().unwrap_or(1);
        let v_max = components.iter().map(|c| c.v).max().unwrap_or(1);
        // libjpeg upsamples by whole factors only.
        if components
            .iter()
            .any(|c| h_max % c.h != 0 || v_max % c.v != 0)
        {
            return Err(Stop::Unsupported);
        }
        self.frame = Some(Frame {
            width,
            height,
            components,
            h_max,
            v_max,
            mcus_wide: width.div_ceil(8 * h_max),
            mcus_high: height.div_ceil(8 * v_max),
            progressive,
        });
        Ok(())
    }

    /// The coefficient buffers, once the frame's size passed the limit.
    fn allocate(&mut self) {
        let Some(frame) = &mut self.frame else {
            return;
        };
        for c in &mut frame.components {
            c.blocks_wide = frame.mcus_wide * c.h;
            c.blocks_high = frame.mcus_high * c.v;
            c.coefficients = vec![0; c.blocks_wide * c.blocks_high * 64];
            c.width = (frame.width * c.h).div_ceil(frame.h_max);
            c.height = (frame.height * c.v).div_ceil(frame.v_max);
        }
    }

    fn huffman_tables(&mut self, mut s: &[u8]) -> Read<()> {
        while !s.is_empty() {
            if s.len() < 17 {
                return Err(Stop::Corrupt);
            }
            let (class, slot) = (s[0] >> 4, usize::from(s[0] & 15));
            let counts: [u8; 16] = s[1..17].try_into().map_err(|_| Stop::Corrupt)?;
            let total: usize = counts.iter().map(|&n| usize::from(n)).sum();
            let values = s.get(17..17 + total).ok_or(Stop::Corrupt)?.to_vec();
            let table = Some(Huffman::new(&counts, values)?);
            match (class, slot) {
                (0, 0..=3) => self.dc_tables[slot] = table,
                (1, 0..=3) => self.ac_tables[slot] = table,
                _ => return Err(Stop::Corrupt),
            }
            s = &s[17 + total..];
        }
        Ok(())
    }

    fn quant_tables(&mut self, mut s: &[u8]) -> Read<()> {
        while !s.is_empty() {
            let (precision, slot) = (s[0] >> 4, usize::from(s[0] & 15));
            let size = if precision == 0 { 64 } else { 128 };
            let values = s.get(1..1 + size).ok_or(Stop::Corrupt)?;
            if precision > 1 || slot > 3 {
                return Err(Stop::Corrupt);
            }
            let mut table = [0i32; 64];
            for (k, &natural) in NATURAL_ORDER[..64].iter().enumerate() {
                table[natural] = if precision == 0 {
                    i32::from(values[k])
                } else {
                    i32::from(u16::from_be_bytes([values[2 * k], values[2 * k + 1]]))
                };
            }
            self.quant[slot] = Some(table);
            s = &s[1 + size..];
        }
        Ok(())
    }

    /// A scan: its header `s`, then its entropy-coded data from `bytes`, whose position ends
    /// after it (at the next marker that is no restart marker of the scan).
    fn scan(&mut self, s: &[u8], bytes: &mut Bytes<'_>) -> Read<()> {
        let frame = self.frame.as_mut().ok_or(Stop::Corrupt)?;
        let count = usize::from(*s.first().ok_or(Stop::Corrupt)?);
        if count == 0 || count > 4 || s.len() != 4 + 2 * count {
            return Err(Stop::Corrupt);
        }
        let (ss, se) = (usize::from(s[1 + 2 * count]), usize::from(s[2 + 2 * count]));
        let (ah, al) = (
            u32::from(s[3 + 2 * count] >> 4),
            u32::from(s[3 + 2 * count] & 15),
        );
        let kind = if !frame.progressive {
            // Sequential scans code all 64 coefficients with no successive approximation.
            if (ss, se, ah, al) != (0, 63, 0, 0) {
                return Err(Stop::Corrupt);
            }
            Kind::Sequential
        } else if al > 13 || ah > 13 || (ah != 0 && ah != al + 1) {
            return Err(Stop::Corrupt);
        } else if ss == 0 {
            if se != 0 {
                return Err(Stop::Corrupt);
            }
            if ah == 0 {
                Kind::DcFirst
            } else {
                Kind::DcRefine
            }
        } else {
            // A band of AC coefficients, of one component alone.
            if se < ss || se > 63 || count != 1 {
                return Err(Stop::Corrupt);
            }
            if ah == 0 {
                Kind::AcFirst
            } else {
                Kind::AcRefine
            }
        };
        let uses_dc = matches!(kind, Kind::Sequential | Kind::DcFirst);
        let uses_ac = matches!(kind, Kind::Sequential | Kind::AcFirst | Kind::AcRefine);
        let mut members = Vec::with_capacity(count);
        for c in s[1..1 + 2 * count].chunks_exact(2) {
            let index = frame
                .components
                .iter()
                .position(|k| k.id == c[0])
                .ok_or(Stop::Corrupt)?;
            if members.iter().any(|m: &Member| m.index == index) {
                return Err(Stop::Corrupt);
            }
            let table = |tables: &[Option<Huffman>; 4], slot: u8, used: bool| match used {
                true => tables[usize::from(slot) & 3]
                    .clone()
                    .ok_or(Stop::Corrupt)
                    .map(Some),
                false => Ok(None),
            };
            let dc = table(&self.dc_tables, c[1] >> 4, uses_dc)?;
            let ac = table(&self.ac_tables, c[1] & 15, uses_ac)?;
            let component = &mut frame.components[index];
            if component.quant.is_none() {
                component.quant = Some(self.quant[component.quant_slot].ok_or(Stop::Corrupt)?);
            }
            members.push(Member { index, dc, ac });
        }
        // The MCUs: in an interleaved scan each holds h × v blocks of every member; a scan of one
        // component goes block by block over that component's own blocks.
        let (mcus_wide, mcus_high) = if count == 1 {
            let c = &frame.components[members[0].index];
            (c.width.div_ceil(8), c.height.div_ceil(8))
        } else {
            (frame.mcus_wide, frame.mcus_high)
        };
        let band = Band { ss, se, al };
        let mut bits = Bits::new(bytes);
        let mut predictions = [0i32; 4];
        let mut eob_run = 0u32;
        let mut next_restart = 0u8;
        for mcu in 0..mcus_wide * mcus_high {
            if self.restart_interval > 0 && mcu > 0 && mcu % self.restart_interval == 0 {
                bits.restart(next_restart)?;
                next_restart = (next_restart + 1) & 7;
                predictions = [0; 4];
                eob_run = 0;
            }
            let (mx, my) = (mcu % mcus_wide, mcu / mcus_wide);
            for (slot, member) in members.iter().enumerate() {
                let component = &mut frame.components[member.index];
                let (h, v) = if count == 1 {
                    (1, 1)
                } else {
                    (component.h, component.v)
                };
                for by in 0..v {
                    for bx in 0..h {
                        let (x, y) = (mx * h + bx, my * v + by);
                        let at = (y * component.blocks_wide + x) * 64;
                        let block: &mut [i16; 64] = (&mut component.coefficients[at..at + 64])
                            .try_into()
                            .map_err(|_| Stop::Corrupt)?;
                        let (dc, ac) = (member.dc.as_ref(), member.ac.as_ref());
                        let prediction = &mut predictions[slot];
                        match (kind, dc, ac) {
                            (Kind::Sequential, Some(dc), Some(ac)) => {
                                bits.sequential(dc, ac, prediction, block)?;
                            }
                            (Kind::DcFirst, Some(dc), _) => {
                                bits.dc_first(dc, prediction, al, block)?;
                            }
                            (Kind::DcRefine, ..) => {
                                if bits.bit()? == 1 {
                                    block[0] |= 1 << al;
                                }
                            }
                            (Kind::AcFirst, _, Some(ac)) => {
                                bits.ac_first(ac, band, &mut eob_run, block)?;
                            }
                            (Kind::AcRefine, _, Some(ac)) => {
                                bits.ac_refine(ac, band, &mut eob_run, block)?;
                            }
                            _ => return Err(Stop::Corrupt),
                        }
                    }
                }
            }
        }
        bits.finish();
        Ok(())
    }

    /// The frame's pixels from its coefficients.
    fn pixels(&self, frame: Frame) -> Read<Pixels> {
        let (width, height) = (frame.width, frame.height);
        let mut planes = Vec::with_capacity(frame.components.len());
        for c in &frame.components {
            let quant = c.quant.ok_or(Stop::Corrupt)?;
            let plane = idct_plane(c, &quant);
            planes.push(upsample(
                &plane,
                c.blocks_wide * 8,
                (c.width, c.height),
                (frame.h_max / c.h, frame.v_max / c.v),
                (width, height),
            ));
        }
        if planes.len() == 1 {
            return Ok(Pixels {
                height,
                width,
                channels: 1,
                samples: planes.swap_remove(0),
            });
        }
        // libjpeg's guess of the color space of three components (`jdapimin.c`).
        let ids: Vec<u8> = frame.components.iter().map(|c| c.id).collect();
        let rgb = !self.jfif
            && match self.adobe_transform {
                Some(transform) => transform == 0,
                None => ids == [b'R', b'G', b'B'],
            };
        let mut samples = Vec::with_capacity(width * height * 3);
        let triples = planes[0].iter().zip(&planes[1]).zip(&planes[2]);
        for ((&a, &b), &c) in triples {
            samples.extend(if rgb { [a, b, c] } else { ycc_to_rgb(a, b, c) });
        }
        Ok(Pixels {
            height,
            width,
            channels: 3,
            samples,
        })
    }
}

/// The entropy-coded data of a scan, bit by bit: 0xFF00 is 0xFF; at a marker the data ends and,
/// as in libjpeg, zeros follow.
struct Bits<'a, 'b> {
    bytes: &'a mut Bytes<'b>,
    buffer: u32,
    count: u32,
    /// The marker where the data stopped, not yet read past.
    at_marker: bool,
}

impl<'a, 'b> Bits<'a, 'b> {
    fn new(bytes: &'a mut Bytes<'b>) -> Self {
        Bits {
            bytes,
            buffer: 0,
            count: 0,
            at_marker: false,
        }
    }

    fn bit(&mut self) -> Read<u32> {
        if self.count == 0 {
            let mut byte = 0;
            if !self.at_marker {
                // A file cut off inside the data is corrupt: Pillow reports it truncated.
                let b = *self.bytes.data.get(self.bytes.at).ok_or(Stop::Corrupt)?;
                if b == 0xff {
                    let next = *self
                        .bytes
                        .data
                        .get(self.bytes.at + 1)
                        .ok_or(Stop::Corrupt)?;
                    if next == 0 {
                        self.bytes.at += 2;
                        byte = 0xff;
                    } else {
                        self.at_marker = true;
                    }
                } else {
                    self.bytes.at += 1;
                    byte = b;
                }
            }
            self.buffer = u32::from(byte);
            self.count = 8;
        }
        self.count -= 1;
        Ok((self.buffer >> self.count) & 1)
    }

    fn bits(&mut self, n: u32) -> Read<i32> {
        let mut value = 0;
        for _ in 0..n {
            value = (value << 1) | self.bit()?;
        }
        Ok(value as i32)
    }

    /// A value of `size` bits, the sign in its first bit as JPEG's EXTEND.
    fn signed(&mut self, size: u32) -> Read<i32> {
        let value = self.bits(size)?;
        Ok(if size > 0 && value < 1 << (size - 1) {
            value - (1 << size) + 1
        } else {
            value
        })
    }

    fn symbol(&mut self, table: &Huffman) -> Read<u8> {
        let mut code = 0i32;
        for length in 1..=16 {
            code = (code << 1) | self.bit()? as i32;
            if code <= table.max_code[length] {
                let index = (table.offset[length] + code) as usize;
                return table.values.get(index).copied().ok_or(Stop::Corrupt);
            }
        }
        Err(Stop::Corrupt)
    }

    /// A block's DC difference, added to the prediction, which it becomes.
    fn dc(&mut self, dc: &Huffman, prediction: &mut i32) -> Read<i32> {
        let size = u32::from(self.symbol(dc)?);
        if size > 16 {
            return Err(Stop::Corrupt);
        }
        *prediction = prediction.wrapping_add(self.signed(size)?);
        Ok(*prediction)
    }

    /// One block of a sequential scan, all its coefficients, in natural order.
    fn sequential(
        &mut self,
        dc: &Huffman,
        ac: &Huffman,
        prediction: &mut i32,
        block: &mut [i16; 64],
    ) -> Read<()> {
        *block = [0; 64];
        block[0] = self.dc(dc, prediction)? as i16;
        let mut k = 1;
        while k < 64 {
            let rs = self.symbol(ac)?;
            let (run, size) = (usize::from(rs >> 4), u32::from(rs & 15));
            if size == 0 {
                if run != 15 {
                    break;
                }
                k += 16;
                continue;
            }
            k += run;
            block[NATURAL_ORDER[k.min(79)]] = self.signed(size)? as i16;
            k += 1;
        }
        Ok(())
    }

    /// The first scan of a block's DC coefficient: its high bits, from `al` up.
    fn dc_first(
        &mut self,
        dc: &Huffman,
        prediction: &mut i32,
        al: u32,
        block: &mut [i16; 64],
    ) -> Read<()> {
        block[0] = self.dc(dc, prediction)?.wrapping_shl(al) as i16;
        Ok(())
    }

    /// The length of a run of bands with no more coefficients, itself included: 2^`r` plus `r`
    /// more bits.
    fn eob_run(&mut self, r: u32) -> Read<u32> {
        Ok((1 << r) + self.bits(r)? as u32)
    }

    /// The first scan of a band of AC coefficients (as libjpeg's `decode_mcu_AC_first`).
    fn ac_first(
        &mut self,
        ac: &Huffman,
        band: Band,
        eob_run: &mut u32,
        block: &mut [i16; 64],
    ) -> Read<()> {
        if *eob_run > 0 {
            *eob_run -= 1;
            return Ok(());
        }
        let mut k = band.ss;
        while k <= band.se {
            let rs = self.symbol(ac)?;
            let (run, size) = (usize::from(rs >> 4), u32::from(rs & 15));
            if size == 0 {
                if run != 15 {
                    *eob_run = self.eob_run(run as u32)? - 1;
                    break;
                }
                k += 16;
                continue;
            }
            k += run;
            block[NATURAL_ORDER[k.min(79)]] = self.signed(size)?.wrapping_shl(band.al) as i16;
            k += 1;
        }
        Ok(())
    }

    /// A refining scan of a band (as libjpeg's `decode_mcu_AC_refine`): a correction bit for
    /// each coefficient already nonzero, and new coefficients of ±2^`al`.
    fn ac_refine(
        &mut self,
        ac: &Huffman,
        band: Band,
        eob_run: &mut u32,
        block: &mut [i16; 64],
    ) -> Read<()> {
        let plus = 1i16 << band.al;
        let minus = (-1i16).wrapping_shl(band.al);
        let mut k = band.ss;
        if *eob_run == 0 {
            while k <= band.se {
                let rs = self.symbol(ac)?;
                let (mut run, size) = (i32::from(rs >> 4), rs & 15);
                let mut value = 0;
                if size != 0 {
                    // A new coefficient's size is 1 bit; libjpeg takes others with a warning.
                    value = if self.bit()? == 1 { plus } else { minus };
                } else if run != 15 {
                    *eob_run = self.eob_run(run as u32)?;
                    break;
                }
                // Past coefficients already nonzero (refining each) and `run` zero ones, to
                // where the new one goes.
                while k <= band.se {
                    let coefficient = &mut block[NATURAL_ORDER[k]];
                    if *coefficient != 0 {
                        self.refine(coefficient, plus, minus)?;
                    } else {
                        run -= 1;
                        if run < 0 {
                            break;
                        }
                    }
                    k += 1;
                }
                if value != 0 {
                    block[NATURAL_ORDER[k.min(79)]] = value;
                }
                k += 1;
            }
        }
        if *eob_run > 0 {
            // The rest of the band has no new coefficients, only correction bits.
            while k <= band.se {
                let coefficient = &mut block[NATURAL_ORDER[k]];
                if *coefficient != 0 {
                    self.refine(coefficient, plus, minus)?;
                }
                k += 1;
            }
            *eob_run -= 1;
        }
        Ok(())
    }

    /// A correction bit of a nonzero coefficient: set, it adds 2^`al` away from zero, unless
    /// that bit is already set.
    fn refine(&mut self, coefficient: &mut i16, plus: i16, minus: i16) -> Read<()> {
        if self.bit()? == 1 && *coefficient & plus == 0 {
            let step = if *coefficient >= 0 { plus } else { minus };
            *coefficient = coefficient.wrapping_add(step);
        }
        Ok(())
    }

    /// The restart marker `n` expected between intervals: the bits left in the byte before it
    /// are dropped and the data goes on after it.
    fn restart(&mut self, n: u8) -> Read<()> {
        self.count = 0;
        self.at_marker = false;
        let data = &self.bytes.data[self.bytes.at..];
        // Fill bytes may stand before the marker.
        let fill = data.iter().take_while(|&&b| b == 0xff).count();
        match data.get(fill) {
            Some(&code) if fill > 0 && code == 0xd0 + n => {
                self.bytes.at += fill + 1;
                Ok(())
            }
            _ => Err(Stop::Corrupt),
        }
    }

    /// Leaves the position at the marker after the scan's data, past any bytes left in it.
    fn finish(self) {
        let data = self.bytes.data;
        let mut at = self.bytes.at;
        while at < data.len() {
            if data[at] == 0xff
                && data
                    .get(at + 1)
                    .is_some_and(|&b| b != 0 && !(0xd0..=0xd7).contains(&b))
            {
                break;
            }
            at += 1;
        }
        self.bytes.at = at;
    }
}

/// libjpeg's accurate integer IDCT (`jpeg_idct_islow`): 13-bit constants, two more bits kept
/// between the column pass and the row pass.
mod idct {
    const CONST_BITS: u32 = 13;
    const PASS1_BITS: u32 = 2;
    const FIX_0_298631336: i32 = 2446;
    const FIX_0_390180644: i32 = 3196;
    const FIX_0_541196100: i32 = 4433;
    const FIX_0_765366865: i32 = 6270;
    const FIX_0_899976223: i32 = 7373;
    const FIX_1_175875602: i32 = 9633;
    const FIX_1_501321110: i32 = 12299;
    const FIX_1_847759065: i32 = 15137;
    const FIX_1_961570560: i32 = 16069;
    const FIX_2_053119869: i32 = 16819;
    const FIX_2_562915447: i32 = 20995;
    const FIX_3_072711026: i32 = 25172;

    /// `x` divided by 2^n, rounded half up.
    fn descale(x: i32, n: u32) -> i32 {
        x.wrapping_add(1 << (n - 1)) >> n
    }

    /// The 1-D IDCT of `x` (8 values), each output scaled by 2^`CONST_BITS` and unrounded.
    fn pass(x: [i32; 8]) -> [i32; 8] {
        // Even part.
        let (z2, z3) = (x[2], x[6]);
        let z1 = z2.wrapping_add(z3).wrapping_mul(FIX_0_541196100);
        let tmp2 = z1.wrapping_add(z3.wrapping_mul(-FIX_1_847759065));
        let tmp3 = z1.wrapping_add(z2.wrapping_mul(FIX_0_765366865));
        let tmp0 = x[0].wrapping_add(x[4]).wrapping_shl(CONST_BITS);
        let tmp1 = x[0].wrapping_sub(x[4]).wrapping_shl(CONST_BITS);
        let tmp10 = tmp0.wrapping_add(tmp3);
        let tmp13 = tmp0.wrapping_sub(tmp3);
        let tmp11 = tmp1.wrapping_add(tmp2);
        let tmp12 = tmp1.wrapping_sub(tmp2);
        // Odd part.
        let (t0, t1, t2, t3) = (x[7], x[5], x[3], x[1]);
        let z1 = t0.wrapping_add(t3);
        let z2 = t1.wrapping_add(t2);
        let z3 = t0.wrapping_add(t2);
        let z4 = t1.wrapping_add(t3);
        let z5 = z3.wrapping_add(z4).wrapping_mul(FIX_1_175875602);
        let t0 = t0.wrapping_mul(FIX_0_298631336);
        let t1 = t1.wrapping_mul(FIX_2_053119869);
        let t2 = t2.wrapping_mul(FIX_3_072711026);
        let t3 = t3.wrapping_mul(FIX_1_501321110);
        let z1 = z1.wrapping_mul(-FIX_0_899976223);
        let z2 = z2.wrapping_mul(-FIX_2_562915447);
        let z3 = z3.wrapping_mul(-FIX_1_961570560).wrapping_add(z5);
        let z4 = z4.wrapping_mul(-FIX_0_390180644).wrapping_add(z5);
        let t0 = t0.wrapping_add(z1).wrapping_add(z3);
        let t1 = t1.wrapping_add(z2).wrapping_add(z4);
        let t2 = t2.wrapping_add(z2).wrapping_add(z3);
        let t3 = t3.wrapping_add(z1).wrapping_add(z4);
        [
            tmp10.wrapping_add(t3),
            tmp11.wrapping_add(t2),
            tmp12.wrapping_add(t1),
            tmp13.wrapping_add(t0),
            tmp13.wrapping_sub(t0),
            tmp12.wrapping_sub(t1),
            tmp11.wrapping_sub(t2),
            tmp10.wrapping_sub(t3),
        ]
    }

    /// libjpeg's post-IDCT range limit: the value plus 128, clamped to 0..=255, of the low 10
    /// bits of `x` read as a signed number (as its table indexed with `RANGE_MASK`).
    fn range_limit(x: i32) -> u8 {
        let x = x & 1023;
        match x {
            0..=127 => (x + 128) as u8,
            128..=511 => 255,
            512..=895 => 0,
            _ => (x - 896) as u8,
        }
    }

    /// The samples of one block of dequantized coefficients `coefficients` × `quant` (both
    /// in natural order), into `out` at rows `stride` apart.
    pub(super) fn block(coefficients: &[i16], quant: &[i32; 64], out: &mut [u8], stride: usize) {
        let mut workspace = [0i32; 64];
        for column in 0..8 {
            let x: [i32; 8] = std::array::from_fn(|row| {
                i32::from(coefficients[row * 8 + column]).wrapping_mul(quant[row * 8 + column])
            });
            let y = pass(x);
            for row in 0..8 {
                workspace[row * 8 + column] = descale(y[row], CONST_BITS - PASS1_BITS);
            }
        }
        for row in 0..8 {
            let x: [i32; 8] = workspace[row * 8..row * 8 + 8].try_into().unwrap_or([0; 8]);
            let y = pass(x);
            for column in 0..8 {
                out[row * stride + column] =
                    range_limit(descale(y[column], CONST_BITS + PASS1_BITS + 3));
            }
        }
    }
}

/// A component's samples over all its blocks, `blocks_wide * 8` a row.
fn idct_plane(c: &Component, quant: &[i32; 64]) -> Vec<u8> {
    let stride = c.blocks_wide * 8;
    let mut plane = vec![0u8; stride * c.blocks_high * 8];
    for by in 0..c.blocks_high {
        for bx in 0..c.blocks_wide {
            let at = (by * c.blocks_wide + bx) * 64;
            let out = &mut plane[by * 8 * stride + bx * 8..];
            idct::block(&c.coefficients[at..at + 64], quant, out, stride);
        }
    }
    plane
}

/// A component's plane brought to the image's size: `size` is the component's own (width,
/// height), `factor` how many times the image's it is in each direction. As libjpeg-turbo's
/// `jdsample.c`: a factor of 2 across (on a plane over 2 samples wide), down, or both, uses the
/// triangle filter that weighs the nearer sample 3/4 and the farther 1/4, the edges repeating the
/// last sample, with rounding biases that alternate by output column (or row); other factors
/// repeat each sample.
fn upsample(
    plane: &[u8],
    stride: usize,
    size: (usize, usize),
    factor: (usize, usize),
    image: (usize, usize),
) -> Vec<u8> {
    let (width, height) = size;
    let (image_width, image_height) = image;
    let at = |x: usize, y: usize| i32::from(plane[y * stride + x]);
    // The neighbour of sample `i` on the side of output `o` (even: before, odd: after),
    // repeating the edge.
    let near = |i: usize, o: usize, n: usize| {
        if o.is_multiple_of(2) {
            i.saturating_sub(1)
        } else {
            (i + 1).min(n - 1)
        }
    };
    let mut out = Vec::with_capacity(image_width * image_height);
    for y in 0..image_height {
        for x in 0..image_width {
            let value = match factor {
                (1, 1) => at(x, y),
                (2, 1) if width > 2 => {
                    let i = x / 2;
                    let bias = if x.is_multiple_of(2) { 1 } else { 2 };
                    (3 * at(i, y) + at(near(i, x, width), y) + bias) >> 2
                }
                (1, 2) => {
                    let j = y / 2;
                    let bias = if y.is_multiple_of(2) { 1 } else { 2 };
                    (3 * at(x, j) + at(x, near(j, y, height)) + bias) >> 2
                }
                (2, 2) if width > 2 => {
                    let (i, j) = (x / 2, y / 2);
                    let other_row = near(j, y, height);
                    let column = |i: usize| 3 * at(i, j) + at(i, other_row);
                    let bias = if x.is_multiple_of(2) { 8 } else { 7 };
                    (3 * column(i) + column(near(i, x, width)) + bias) >> 4
                }
                (h, v) => at(x / h, y / v),
            };
            out.push(value as u8);
        }
    }
    out
}

/// libjpeg's YCbCr to RGB (`jdcolor.c`): the chroma terms from tables in 16-bit fixed point,
/// each rounded, then clamped to 0..=255.
fn ycc_to_rgb(y: u8, cb: u8, cr: u8) -> [u8; 3] {
    const ONE_HALF: i32 = 1 << 15;
    // FIX(x) = round(x * 2^16): 1.40200, 1.77200, 0.71414, 0.34414.
    const CR_R: i32 = 91881;
    const CB_B: i32 = 116130;
    const CR_G: i32 = 46802;
    const CB_G: i32 = 22554;
    let (y, cb, cr) = (i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128);
    let red = y + ((CR_R * cr + ONE_HALF) >> 16);
    let green = y + ((-CB_G * cb + ONE_HALF - CR_G * cr) >> 16);
    let blue = y + ((CB_B * cb + ONE_HALF) >> 16);
    [red, green, blue].map(|v| v.clamp(0, 255) as u8)
}
