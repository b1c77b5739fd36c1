//! The pointcut matcher's view of the program: a [`TypeWorld`] over the
//! class-hierarchy index, with supertype lists cached.

use rustc_hash::FxHashMap as HashMap;
use std::sync::{Arc, RwLock};

use major_pointcut_lang::matcher::TypeWorld;

use crate::index::ClassIndex;

/// A [`TypeWorld`] backed by a [`ClassIndex`].
pub struct IndexWorld<'a> {
    index: &'a ClassIndex,
    supers: RwLock<HashMap<String, Arc<Vec<String>>>>,
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
        if let Some(s) = self.supers.read().expect("lock").get(name) {
            return s.clone();
        }
        let s = Arc::new(self.index.super_types(name));
        self.supers
            .write()
            .expect("lock")
            .insert(name.to_string(), s.clone());
        s
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
        sub == sup || sup == "java/lang/Object" || self.supers(sub).iter().any(|s| s == sup)
    }

    fn declares_method(&self, owner: &str, name: &str, descriptor: &str) -> bool {
        self.index
            .details(owner)
            .is_some_and(|d| d.method(name, descriptor).is_some())
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
        self.index.details(internal_name).is_some_and(|d| d.nested)
    }

    fn class_annotations(&self, internal_name: &str) -> Vec<String> {
        self.index
            .details(internal_name)
            .map(|d| d.annotations.clone())
            .unwrap_or_default()
    }
}
