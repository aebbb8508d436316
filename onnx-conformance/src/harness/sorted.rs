//! A map from names to values, kept as a vector sorted by name.
//!
//! The harness's maps hold at most a few thousand names and are built once per run, so a
//! sorted vector does what a `BTreeMap` would. It costs a runtime's build much less: each
//! `BTreeMap<K, V>` instantiates the tree's node code for its types, which was about a third of
//! the code the kit compiled (see `docs/conformance.md`, the kit's build).

use std::ops::Index;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SortedMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for SortedMap<V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

impl<V> SortedMap<V> {
    /// Where `key` is, or where it would go.
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// Puts `value` under `key`; the value it replaces, if any.
    pub(crate) fn insert(&mut self, key: String, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.get_with_position(key).map(|(_, value)| value)
    }

    /// The value under `key`, made by `V::default()` if there is none.
    pub(crate) fn get_or_default(&mut self, key: String) -> &mut V
    where
        V: Default,
    {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, V::default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// The value under `key`, with its position in [`SortedMap::iter`]'s order.
    pub(crate) fn get_with_position(&self, key: &str) -> Option<(usize, &V)> {
        self.find(key).ok().map(|i| (i, &self.entries[i].1))
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, sorted by name.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, (String, V)> {
        self.entries.iter()
    }
}

impl<V> Index<&str> for SortedMap<V> {
    type Output = V;

    fn index(&self, key: &str) -> &V {
        self.get(key)
            .unwrap_or_else(|| panic!("no entry is named `{key}`"))
    }
}

impl<'a, V> IntoIterator for &'a SortedMap<V> {
    type Item = &'a (String, V);
    type IntoIter = std::slice::Iter<'a, (String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl<V> IntoIterator for SortedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Later entries replace earlier ones of the same name, as in a `BTreeMap`.
impl<V> FromIterator<(String, V)> for SortedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(items: I) -> Self {
        let mut map = SortedMap::default();
        for (key, value) in items {
            map.insert(key, value);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMap;

    #[test]
    fn keeps_names_sorted_and_the_last_value_of_each() {
        let mut map: SortedMap<i32> = [("b", 1), ("a", 2), ("b", 3)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(map.insert("c".into(), 4), None);
        assert_eq!(map.insert("a".into(), 5), Some(2));
        *map.get_or_default("0".into()) += 7;
        let entries: Vec<(String, i32)> = map.clone().into_iter().collect();
        let expected = [("0", 7), ("a", 5), ("b", 3), ("c", 4)];
        assert_eq!(entries, expected.map(|(k, v)| (k.to_string(), v)));
        assert_eq!((map.get("b"), map.get("d"), map["c"]), (Some(&3), None, 4));
        assert_eq!(
            (map.get_with_position("b"), map.get_with_position("bb")),
            (Some((2, &3)), None)
        );
        assert_eq!((map.len(), map.is_empty()), (4, false));
    }
}
