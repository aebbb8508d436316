//! The hash maps of the checks, whose keys are names from the text.
//!
//! std's maps hash with SipHash, which costs over a thousand instructions per name when the
//! checks run unoptimized, as the proc macros run them in the default dev profile: hashing was a
//! third of the checks' time on a big literal. These maps hash with FNV-1a and a final mix, a
//! few instructions per byte. Like std's, each map gets a random key of its own, which makes
//! colliding names harder to prepare in advance; FNV is not a keyed hash built to resist
//! that, and a flood of collisions would make checking slow, never wrong.

use std::cell::Cell;
use std::hash::{BuildHasher, Hasher, RandomState};

/// std's `HashMap` with [`RandomKey`] hashing.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, RandomKey>;

/// std's `HashSet` with [`RandomKey`] hashing.
pub(crate) type HashSet<T> = std::collections::HashSet<T, RandomKey>;

/// A map's random key; it builds [`NameHasher`]s starting from it.
#[derive(Clone, Debug)]
pub(crate) struct RandomKey(u64);

impl Default for RandomKey {
    /// A new key: random once per thread, then stepped per map, as std's `RandomState` does.
    fn default() -> RandomKey {
        thread_local! {
            static NEXT: Cell<u64> = Cell::new(RandomState::new().hash_one(0_u8));
        }
        RandomKey(NEXT.with(|next| {
            let key = next.get();
            next.set(key.wrapping_add(0x9e37_79b9_7f4a_7c15));
            key
        }))
    }
}

impl BuildHasher for RandomKey {
    type Hasher = NameHasher;

    fn build_hasher(&self) -> NameHasher {
        NameHasher(self.0)
    }
}

/// FNV-1a from a random start.
pub(crate) struct NameHasher(u64);

/// FNV-1a's multiplier.
const PRIME: u64 = 0x0000_0100_0000_01b3;

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        // A slice pattern on a local: unoptimized, an iterator costs a call per byte, and an
        // index a bounds check.
        let mut hash = self.0;
        let mut rest = bytes;
        while let [byte, tail @ ..] = rest {
            hash = (hash ^ *byte as u64).wrapping_mul(PRIME);
            rest = tail;
        }
        self.0 = hash;
    }

    fn write_u8(&mut self, byte: u8) {
        // A `str` hashes as its bytes and a 0xff: one step, without `write`'s loop.
        self.0 = (self.0 ^ byte as u64).wrapping_mul(PRIME);
    }

    fn finish(&self) -> u64 {
        // The low bits of FNV depend only on the low bits of the input, and the maps pick
        // buckets by the low bits: fold the high half in.
        (self.0 ^ (self.0 >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}
