//! The entry names an output has written, each once: kept in one buffer
//! (no allocation per name) and found by their hash, so that the thousands
//! of entries of a library's jar are checked for duplicates cheaply.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

/// No further name of the same hash.
const END: u32 = u32::MAX;

/// A set of names, in the order they were added.
#[derive(Default)]
pub(crate) struct Names {
    /// Every name, one after another.
    text: String,
    /// Where each name starts and ends in `text`, and the next name of the
    /// same hash (or [`END`]).
    spans: Vec<(usize, usize, u32)>,
    /// A hash → the last name added with it.
    last: FxHashMap<u64, u32>,
}

impl Names {
    /// Adds `name`; `false` if it is there already.
    pub(crate) fn insert(&mut self, name: &str) -> bool {
        self.insert_hashed(name, FxBuildHasher.hash_one(name))
    }

    /// [`insert`](Self::insert), `hash` being `name`'s.
    fn insert_hashed(&mut self, name: &str, hash: u64) -> bool {
        let head = self.last.get(&hash).copied().unwrap_or(END);
        let mut k = head;
        while k != END {
            let (start, end, next) = self.spans[k as usize];
            if &self.text[start..end] == name {
                return false;
            }
            k = next;
        }
        let Ok(id) = u32::try_from(self.spans.len()) else {
            panic!("more than 4 billion entry names in one output");
        };
        let start = self.text.len();
        self.text.push_str(name);
        self.spans.push((start, self.text.len(), head));
        self.last.insert(hash, id);
        true
    }

    /// Makes room for `additional` more names (of about 48 bytes).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.text.reserve(additional * 48);
        self.spans.reserve(additional);
        self.last.reserve(additional);
    }

    /// How many names there are.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The names, in the order they were added.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans.iter().map(|&(s, e, _)| &self.text[s..e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_once_in_order() {
        let mut n = Names::default();
        assert!(n.is_empty());
        for name in ["a/B.class", "a/", "", "a/B.clas", "x"] {
            assert!(n.insert(name), "{name}");
        }
        for name in ["a/B.class", "a/", "", "x"] {
            assert!(!n.insert(name), "{name} twice");
        }
        assert_eq!(n.len(), 5);
        let all: Vec<&str> = n.iter().collect();
        assert_eq!(all, ["a/B.class", "a/", "", "a/B.clas", "x"]);
    }

    #[test]
    fn names_of_one_hash_are_told_apart() {
        // Every name filed under one hash: compared, not taken for another.
        let mut n = Names::default();
        for name in ["p", "q", "r"] {
            assert!(n.insert_hashed(name, 7), "{name}");
        }
        for name in ["p", "q", "r"] {
            assert!(!n.insert_hashed(name, 7), "{name} twice");
        }
        assert!(n.insert_hashed("s", 7));
        assert_eq!(n.iter().collect::<Vec<_>>(), ["p", "q", "r", "s"]);
    }
}
