//! Holes: the places of a macro literal where Rust values go (`#x`, `#(expr)`, `..#xs`).
//!
//! The macros write each hole into the text as a quoted string holding a *marker*: a
//! private-use character and the hole's number. Where a name or a string may stand (value names,
//! dims, string values), the marker simply is one, so the tree and the lowered protobuf carry it
//! unchanged and the checks only need to know that it is no real name. Where only a number, a
//! node or a function may stand, a parser made with [`Parser::with_holes`] takes the marker and
//! records the hole beside the written values ([`Attribute::holes`], [`Tensor::holes`], …), and
//! lowering leaves a [`ListHoles`] note in the message's `doc_string` for the code generator.
//! Text parsed at runtime never has holes: only the macros enable them.
//!
//! [`Parser::with_holes`]: crate::parse::Parser::with_holes
//! [`Attribute::holes`]: crate::syntax::Attribute::holes
//! [`Tensor::holes`]: crate::syntax::Tensor::holes

use std::fmt::Write;

/// Starts the marker of a hole that stands for one element.
const ONE: char = '\u{E000}';
/// Starts the marker of a spread, which stands for any number of elements.
const SPREAD: char = '\u{E001}';
/// Starts a [`ListHoles`] note.
const NOTE: char = '\u{E002}';

/// One hole: its number among the literal's holes, in text order, and whether it is a spread.
///
/// ```
/// use onnx_syntax::hole::Hole;
/// let hole = Hole { index: 3, spread: true };
/// assert_eq!(Hole::from_marker(&hole.marker()), Some(hole));
/// assert_eq!(Hole::from_marker("x"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hole {
    /// The hole's number: the macro keeps its Rust expression under it.
    pub index: u32,
    /// `..#xs`: any number of elements.
    pub spread: bool,
}

impl Hole {
    /// The marker text that stands for this hole in names, dims and strings.
    pub fn marker(self) -> String {
        let lead = if self.spread { SPREAD } else { ONE };
        format!("{lead}{}", self.index)
    }

    /// The hole whose marker `text` is, if it is one.
    pub fn from_marker(text: &str) -> Option<Hole> {
        if !is_marker(text) {
            return None;
        }
        let mut chars = text.chars();
        let spread = match chars.next()? {
            ONE => false,
            SPREAD => true,
            _ => return None,
        };
        let index = chars.as_str().parse().ok()?;
        Some(Hole { index, spread })
    }
}

/// True if `text` is a hole's marker, not a real name or string.
///
/// ```
/// use onnx_syntax::hole::{Hole, is_marker};
/// assert!(is_marker(&Hole { index: 0, spread: false }.marker()));
/// assert!(!is_marker("x"));
/// ```
pub fn is_marker(text: &str) -> bool {
    // The checks ask this of every name: compare the UTF-8 bytes of U+E000 and U+E001 directly,
    // which costs a few instructions even in the unoptimized proc macro.
    matches!(text.as_bytes(), [0xEE, 0x80, 0x80 | 0x81, ..])
}

/// True if `text` is a spread's marker: it may stand for several names or none.
///
/// ```
/// use onnx_syntax::hole::{Hole, is_spread};
/// assert!(is_spread(&Hole { index: 0, spread: true }.marker()));
/// assert!(!is_spread(&Hole { index: 0, spread: false }.marker()));
/// ```
pub fn is_spread(text: &str) -> bool {
    matches!(text.as_bytes(), [0xEE, 0x80, 0x81, ..])
}

/// True if `text` holds a character reserved for markers, which macro literals cannot contain.
///
/// ```
/// assert!(onnx_syntax::hole::has_reserved("a\u{E001}"));
/// assert!(!onnx_syntax::hole::has_reserved("a"));
/// ```
pub fn has_reserved(text: &str) -> bool {
    text.contains([ONE, SPREAD, NOTE])
}

/// Which list of a tensor or attribute a hole stands in.
///
/// ```
/// use onnx_syntax::hole::Site;
/// assert_ne!(Site::Dims, Site::Values);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The values: an attribute's list, or a tensor's data.
    Values,
    /// A tensor constant's dims.
    Dims,
}

/// A hole inside a list of values: where it goes among the values that were written.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let node = Parser::with_holes("y = Transpose <perm = [1, \"\u{E001}0\"]> (x)")?.node()?;
/// let hole = node.attributes[0].holes[0];
/// assert_eq!((hole.index, hole.hole.spread), (1, true)); // after one written value
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListHole {
    /// The hole.
    pub hole: Hole,
    /// Which list.
    pub site: Site,
    /// How many written values of the list come before it.
    pub index: usize,
}

/// The holes of one tensor or attribute, written as a note into its `doc_string` by lowering
/// and read back by the code generator, which removes it.
///
/// ```
/// use onnx_syntax::hole::{Hole, ListHole, ListHoles, Site};
/// let holes = vec![ListHole { hole: Hole { index: 2, spread: false }, site: Site::Dims, index: 0 }];
/// let note = ListHoles::note(&holes);
/// assert_eq!(ListHoles::from_note(&note), Some(holes));
/// assert_eq!(ListHoles::from_note("a doc string"), None);
/// ```
pub struct ListHoles;

impl ListHoles {
    /// The note for `holes`.
    pub fn note(holes: &[ListHole]) -> String {
        let mut note = String::from(NOTE);
        for hole in holes {
            let site = match hole.site {
                Site::Values => 'v',
                Site::Dims => 'd',
            };
            let spread = if hole.hole.spread { "*" } else { "" };
            let _ = write!(note, "{site}{}:{}{spread};", hole.index, hole.hole.index);
        }
        note
    }

    /// The holes a note records; `None` if `text` is no note.
    pub fn from_note(text: &str) -> Option<Vec<ListHole>> {
        let entries = text.strip_prefix(NOTE)?;
        let mut holes = Vec::new();
        for entry in entries.split_terminator(';') {
            let mut chars = entry.chars();
            let site = match chars.next()? {
                'v' => Site::Values,
                'd' => Site::Dims,
                _ => return None,
            };
            let (index, hole) = chars.as_str().split_once(':')?;
            let (hole, spread) = match hole.strip_suffix('*') {
                Some(hole) => (hole, true),
                None => (hole, false),
            };
            holes.push(ListHole {
                hole: Hole {
                    index: hole.parse().ok()?,
                    spread,
                },
                site,
                index: index.parse().ok()?,
            });
        }
        Some(holes)
    }
}
