//! Peak heap memory of `parse_model` on the node chains, against the size of the protobuf it
//! gives and of the text. A counting allocator records the high-water mark of live bytes
//! during one parse (the text itself is allocated before and not counted).
//!
//! Run: `cargo bench --bench memory`. Prints one line per input:
//! `memory <name> <peak heap bytes> <protobuf bytes> <text bytes>`.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use onnx_text::prost::Message;

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on as is.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is passed on as is.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    for nodes in common::CHAIN_SIZES {
        measure(&format!("chain_{nodes}"), &common::chain(nodes));
    }
    let nodes = common::ATTRIBUTE_CHAIN_NODES;
    measure(
        &format!("chain_attributes_{nodes}"),
        &common::chain_attributes(nodes),
    );
}

/// Prints the peak heap of parsing `text`, the protobuf's size and the text's.
fn measure(name: &str, text: &str) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let model = onnx_text::parse_model(text).unwrap_or_default();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let protobuf = model.encoded_len();
    println!("memory {name} {peak} {protobuf} {}", text.len());
}
