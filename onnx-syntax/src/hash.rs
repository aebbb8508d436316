//! The hash maps of the checks and of shape inference, whose keys are names from the text.
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
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomKey>;

/// std's `HashSet` with [`RandomKey`] hashing.
pub type HashSet<T> = std::collections::HashSet<T, RandomKey>;

/// A map's random key; it builds [`NameHasher`]s starting from it.
#[derive(Clone, Debug)]
pub struct RandomKey(u64);

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
pub struct NameHasher(u64);

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

/// A map from names to values for the lookups the checks make for every node (a frame's
/// definitions, a scope's types): open addressing with linear probing. It is written for the
/// unoptimized proc macros, where a lookup in std's map costs about a thousand instructions (its
/// group probing is many small calls there) and one here a few hundred. Names hash with
/// [`NameHasher`] from a random key of the map's own, as in [`HashMap`].
#[derive(Debug)]
pub struct NameMap<'t, V> {
    /// (hash, name, value), in insertion order.
    entries: Vec<(u64, &'t str, V)>,
    /// For each bucket, 1 + the index of its entry, or 0 for none: zeros, so that making the
    /// buckets costs one allocation. A power of two long, and at most half full, so that a
    /// probe soon meets an empty bucket.
    buckets: Vec<usize>,
    key: RandomKey,
}

/// Where a name is in a [`NameMap`].
enum Found {
    /// At this entry.
    Entry(usize),
    /// Not there; it would go in this bucket.
    Vacant(usize),
}

impl<'t, V> NameMap<'t, V> {
    /// An empty map with room for `capacity` names.
    pub fn with_capacity(capacity: usize) -> NameMap<'t, V> {
        let buckets = capacity.max(4).saturating_mul(2).next_power_of_two();
        NameMap {
            entries: Vec::with_capacity(capacity),
            buckets: vec![0; buckets],
            key: RandomKey::default(),
        }
    }

    fn hash(&self, name: &str) -> u64 {
        // As `str` hashes: its bytes, then 0xff.
        let mut hasher = self.key.build_hasher();
        hasher.write(name.as_bytes());
        hasher.write_u8(0xff);
        hasher.finish()
    }

    fn find(&self, name: &str, hash: u64) -> Found {
        // Indexing slices, not `Vec`s: unoptimized, indexing a `Vec` is a call of its own.
        let (buckets, entries) = (self.buckets.as_slice(), self.entries.as_slice());
        let mask = buckets.len() - 1;
        let mut bucket = hash as usize & mask;
        loop {
            let entry = match buckets[bucket] {
                0 => return Found::Vacant(bucket),
                entry => entry - 1,
            };
            let (found, key, _) = &entries[entry];
            if *found == hash && *key == name {
                return Found::Entry(entry);
            }
            bucket = (bucket + 1) & mask;
        }
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        match self.find(name, self.hash(name)) {
            Found::Entry(entry) => Some(&self.entries[entry].2),
            Found::Vacant(_) => None,
        }
    }

    /// The names and their values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&'t str, &V)> {
        self.entries.iter().map(|(_, name, value)| (*name, value))
    }

    /// Inserts `value` for `name` unless `name` has a value: then returns that one.
    pub fn insert_new(&mut self, name: &'t str, value: V) -> Option<&V> {
        let hash = self.hash(name);
        match self.find(name, hash) {
            Found::Entry(entry) => Some(&self.entries[entry].2),
            Found::Vacant(bucket) => {
                self.push(name, hash, bucket, value);
                None
            }
        }
    }

    /// The value of `name`, made with `V::default()` if it had none, and whether it was made:
    /// one lookup, where `get` then `insert_new` would be two.
    pub fn slot(&mut self, name: &'t str) -> (&mut V, bool)
    where
        V: Default,
    {
        let hash = self.hash(name);
        match self.find(name, hash) {
            Found::Entry(entry) => (&mut self.entries[entry].2, false),
            Found::Vacant(bucket) => {
                let entry = self.push(name, hash, bucket, V::default());
                (&mut self.entries[entry].2, true)
            }
        }
    }

    /// Adds the entry of `name`, which `find` said would go in `bucket`; gives its index.
    fn push(&mut self, name: &'t str, hash: u64, mut bucket: usize, value: V) -> usize {
        if (self.entries.len() + 1) * 2 > self.buckets.len() {
            self.buckets = vec![0; self.buckets.len() * 2];
            for entry in 0..self.entries.len() {
                let (hash, name, _) = self.entries[entry];
                if let Found::Vacant(bucket) = self.find(name, hash) {
                    self.buckets[bucket] = entry + 1;
                }
            }
            if let Found::Vacant(moved) = self.find(name, hash) {
                bucket = moved;
            }
        }
        self.entries.push((hash, name, value));
        self.buckets[bucket] = self.entries.len();
        self.entries.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::NameMap;

    #[test]
    fn a_name_map_keeps_the_first_value_of_each_name_as_it_grows() {
        let names: Vec<String> = (0..1000).map(|i| format!("x{i}")).collect();
        let mut map = NameMap::with_capacity(0);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(map.insert_new(name, i), None);
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(map.insert_new(name, 0), Some(&i));
            assert_eq!(map.get(name), Some(&i));
        }
        assert_eq!(map.get("y"), None);
        let (value, made) = map.slot("x7");
        assert!(!made);
        *value = 70;
        assert_eq!(map.get("x7"), Some(&70));
        assert_eq!(map.slot("new"), (&mut 0, true));
        assert_eq!(map.get("new"), Some(&0));
        assert_eq!(map.get(""), None);
        let order: Vec<&str> = map.iter().map(|(name, _)| name).take(3).collect();
        assert_eq!(order, ["x0", "x1", "x2"]);
    }
}
