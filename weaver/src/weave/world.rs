//! The pointcut matcher's view of the program: a [`TypeWorld`] over the
//! class-hierarchy index, with supertype lists cached.
//!
//! The index may miss classes (an optional library not on the class path).
//! An answer that depended on a missing class is recorded for the thread
//! asking ([`IndexWorld::recording`]), so the weaver can tell a "no" it knows
//! from a "no" it guessed.

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::sync::{Arc, RwLock};

use major_pointcut_lang::matcher::TypeWorld;

use crate::incremental::deps;
use crate::index::ClassIndex;

/// Supertypes of a class, and the first class missing on the way.
type Supers = (Arc<Vec<String>>, Option<Arc<str>>);

/// [`Supers`] cached, with the classes the walk looked at (replayed to
/// [`deps`] on each hit, for incremental weaving).
type CachedSupers = (Supers, deps::Replay);

thread_local! {
    /// The missing classes consulted on this thread while recording.
    static MISSING: RefCell<Option<Vec<Arc<str>>>> = const { RefCell::new(None) };
}

/// Notes that an answer depended on the missing class `name`.
fn consulted_missing(name: &Arc<str>) {
    MISSING.with(|m| {
        if let Some(v) = m.borrow_mut().as_mut() {
            if !v.contains(name) {
                v.push(name.clone());
            }
        }
    });
}

/// A [`TypeWorld`] backed by a [`ClassIndex`].
pub struct IndexWorld<'a> {
    index: &'a ClassIndex,
    supers: RwLock<HashMap<String, CachedSupers>>,
}

impl<'a> IndexWorld<'a> {
    /// A world over `index`.
    pub fn new(index: &'a ClassIndex) -> Self {
        IndexWorld {
            index,
            supers: RwLock::new(HashMap::default()),
        }
    }

    /// The index behind the world.
    pub fn index(&self) -> &'a ClassIndex {
        self.index
    }

    /// Every proper supertype of `name`, cached.
    pub fn supers(&self, name: &str) -> Arc<Vec<String>> {
        let (s, missing) = self.supers_checked(name);
        if let Some(m) = &missing {
            consulted_missing(m);
        }
        s
    }

    fn supers_checked(&self, name: &str) -> Supers {
        if let Some((s, from)) = self.supers.read().expect("lock").get(name) {
            deps::note_all(from);
            return s.clone();
        }
        let ((s, missing), from) = deps::capture_replay(|| self.index.super_types_checked(name));
        let v = (Arc::new(s), missing.map(Arc::from));
        self.supers
            .write()
            .expect("lock")
            .insert(name.to_string(), (v.clone(), from));
        v
    }

    /// Records `name` as consulted when it is a class the index lacks (arrays
    /// are no classes to find).
    fn note_if_missing(&self, name: &str) {
        if !name.starts_with('[') && !self.index.contains(name) {
            consulted_missing(&Arc::from(name));
        }
    }

    /// Runs `f` (which asks this world questions) and returns its result with
    /// the classes missing from the index that some answer depended on.
    pub fn recording<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<Arc<str>>) {
        let outer = MISSING.with(|m| m.borrow_mut().replace(Vec::new()));
        let r = f();
        let missing = MISSING.with(|m| {
            let mut m = m.borrow_mut();
            let mine = m.take().unwrap_or_default();
            // An enclosing recording sees these too.
            *m = outer.map(|mut o| {
                o.extend(
                    mine.iter()
                        .filter(|n| !o.contains(n))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
                o
            });
            mine
        });
        (r, missing)
    }
}

impl TypeWorld for IndexWorld<'_> {
    fn exists(&self, internal_name: &str) -> bool {
        self.index.contains(internal_name)
    }

    fn super_types(&self, internal_name: &str) -> Vec<String> {
        self.supers(internal_name).to_vec()
    }

    fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        if sub == sup || sup == "java/lang/Object" {
            return true;
        }
        let (supers, missing) = self.supers_checked(sub);
        if supers.iter().any(|s| s == sup) {
            return true;
        }
        if let Some(m) = &missing {
            consulted_missing(m);
        }
        false
    }

    fn declares_method(&self, owner: &str, name: &str, descriptor: &str) -> bool {
        match self.index.details(owner) {
            Some(d) => d.method(name, descriptor).is_some(),
            None => {
                self.note_if_missing(owner);
                false
            }
        }
    }

    fn method_signature(&self, owner: &str, name: &str, descriptor: &str) -> Option<String> {
        let declared = |c: &str| {
            self.index
                .details(c)
                .and_then(|d| d.method(name, descriptor).map(|m| m.signature.clone()))
        };
        match declared(owner) {
            Some(s) => s,
            None => self
                .supers(owner)
                .iter()
                .find_map(|c| declared(c))
                .flatten(),
        }
    }

    fn class_signature(&self, internal_name: &str) -> Option<String> {
        self.index.details(internal_name)?.signature.clone()
    }

    fn methods_named(&self, owner: &str, name: &str) -> Vec<(String, Option<String>, u16)> {
        self.index
            .details(owner)
            .map(|d| {
                d.methods
                    .iter()
                    .filter(|m| m.name == name)
                    .map(|m| (m.descriptor.clone(), m.signature.clone(), m.access))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn is_nested(&self, internal_name: &str) -> bool {
        self.index.is_nested(internal_name)
    }

    fn class_annotations(&self, internal_name: &str) -> Vec<String> {
        match self.index.details(internal_name) {
            Some(d) => d.annotations.clone(),
            None => {
                self.note_if_missing(internal_name);
                Vec::new()
            }
        }
    }
}
