//! The class-hierarchy index: internal name → super class, interface flag, for
//! every class of the inputs and of a JDK, built by reading class headers in
//! parallel (no class is loaded). It implements [`ClassHierarchy`] and caches
//! the answers to "common super class of A and B".

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use major_archive::Archive;
use major_classfile::class_reader::ACC_INTERFACE;
use major_classfile::hierarchy::common_super_class_uncached;
use major_classfile::{ClassFile, ClassHierarchy, ClassInfo};
use rayon::prelude::*;

use crate::report::MajorError;

/// Cached answers: (a, b) with a <= b → common super class.
type SuperCache = RwLock<HashMap<(Arc<str>, Arc<str>), Arc<str>>>;

/// The index. The first definition of a name wins (class-path order).
#[derive(Default)]
pub struct ClassIndex {
    classes: HashMap<Arc<str>, ClassInfo>,
    cache: SuperCache,
}

impl ClassIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of classes indexed.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Adds one class file; returns its name. An existing entry is kept.
    pub fn add_class(&mut self, bytes: &[u8]) -> Result<Arc<str>, major_classfile::Error> {
        let (name, info) = header(bytes)?;
        self.classes.entry(name.clone()).or_insert(info);
        Ok(name)
    }

    /// Adds every class of `archive` (read in parallel). Entries that fail to
    /// parse are returned as errors and left out of the index.
    pub fn add_archive(&mut self, archive: &Archive) -> Vec<MajorError> {
        let found: Vec<Result<(Arc<str>, ClassInfo), MajorError>> = archive
            .entries()
            .par_iter()
            .enumerate()
            .filter(|(_, e)| {
                e.class_name()
                    .is_some_and(|n| n != "module-info" && !n.ends_with("/module-info"))
            })
            .map(|(i, e)| {
                let bytes = archive.read(i)?;
                header(&bytes).map_err(|err| MajorError::class(archive.path(), &e.name, err))
            })
            .collect();
        let mut errors = Vec::new();
        for r in found {
            match r {
                Ok((name, info)) => {
                    self.classes.entry(name).or_insert(info);
                }
                Err(e) => errors.push(e),
            }
        }
        errors
    }
}

/// Name, super class and interface flag of a class file.
fn header(bytes: &[u8]) -> Result<(Arc<str>, ClassInfo), major_classfile::Error> {
    let c = ClassFile::parse(bytes)?;
    let name: Arc<str> = Arc::from(&*c.name()?);
    let super_name = c.super_name()?.map(|s| Arc::from(&*s));
    Ok((
        name,
        ClassInfo {
            super_name,
            is_interface: c.access & ACC_INTERFACE != 0,
        },
    ))
}

impl ClassHierarchy for ClassIndex {
    fn class_info(&self, name: &str) -> Option<ClassInfo> {
        self.classes.get(name).cloned()
    }

    fn common_super_class(&self, a: &str, b: &str) -> major_classfile::Result<Arc<str>> {
        let key = if a <= b {
            (Arc::from(a), Arc::from(b))
        } else {
            (Arc::from(b), Arc::from(a))
        };
        if let Some(r) = self.cache.read().expect("cache lock").get(&key) {
            return Ok(r.clone());
        }
        let r = common_super_class_uncached(self, a, b)?;
        self.cache
            .write()
            .expect("cache lock")
            .insert(key, r.clone());
        Ok(r)
    }
}
