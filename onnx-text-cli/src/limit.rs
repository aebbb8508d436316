//! The error limit (`--max-errors N`): a run shows its first N problems, then says how many more
//! there were, as clang's `-ferror-limit` does. A text with two bad attributes in each of its
//! 100,000 nodes would otherwise print 2.4 million lines. The count runs over the whole run
//! (every file of `check`), so the limit is what the terminal receives.

use std::sync::atomic::{AtomicUsize, Ordering};

use onnx_text::Diagnostics;

/// The limit when none is given: clang's.
pub const DEFAULT: usize = 20;

static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT);
static SHOWN: AtomicUsize = AtomicUsize::new(0);
static HIDDEN: AtomicUsize = AtomicUsize::new(0);

/// Sets the limit of the run; 0 is none.
pub fn set(limit: usize) {
    LIMIT.store(limit, Ordering::Relaxed);
}

/// The snippets of `diagnostics` that the limit still lets through, as their `Display` draws
/// them; the others are counted for [`summary`].
pub fn render(diagnostics: &Diagnostics) -> String {
    let limit = LIMIT.load(Ordering::Relaxed);
    let mut out = String::new();
    for index in 0..diagnostics.len() {
        if limit != 0 && SHOWN.load(Ordering::Relaxed) >= limit {
            HIDDEN.fetch_add(diagnostics.len() - index, Ordering::Relaxed);
            break;
        }
        SHOWN.fetch_add(1, Ordering::Relaxed);
        if index > 0 {
            out.push('\n');
        }
        out.push_str(&diagnostics.render(index).unwrap_or_default());
    }
    out
}

/// What the limit left out, if anything: how many problems, and how to see them all.
pub fn summary() -> Option<String> {
    let hidden = HIDDEN.load(Ordering::Relaxed);
    let limit = LIMIT.load(Ordering::Relaxed);
    (hidden > 0).then(|| {
        let total = hidden + SHOWN.load(Ordering::Relaxed);
        format!(
            "note: {hidden} more problem{} not shown: the first {limit} of {total} are; pass \
             --max-errors 0 to see them all, or --max-errors N for the first N",
            if hidden == 1 { " is" } else { "s are" },
        )
    })
}
