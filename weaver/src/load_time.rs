//! Load-time weaving with full coverage: the per-class transformation that
//! `major weave --jdk` applies to every class of the JDK and the program,
//! offered one class at a time, for the single-phase JVMTI agent (`agent/`),
//! which weaves each class as the JVM loads it, from `java.lang.Object` on.
//!
//! ```text
//! aspects ─► weave_run::compile_aspects (javac's output cached) ─┐
//! running JDK's lib/modules + class path + aspect/runtime classes ─► ClassIndex
//!                                                                 ▼
//! LoadTimeWeaver::new: Weaver (full coverage, java.base's added packages)
//!   ├─ added_classes(): MajorBypass, aspects, cflow holders, runtime,
//!   │   each wrapped in the DIB (full_coverage_classes, as `major weave`)
//!   └─ transform(name, bytes): Weaver::weave_class, as `major weave` weaves
//!       each input class: the same bytes for the same class and index
//! ```
//!
//! There is one implementation: [`Weaver::weave_class`] with
//! [`Weaver::full_coverage`] set is what both modes apply to a class (the
//! bootstrap hook into `jdk.internal.misc.VM`, the DIB field of
//! `java.lang.Thread`, the `Builder` hook declaring the added packages in
//! `java.base`, the classes never woven), and [`full_coverage_classes`] is
//! how both make the classes the weave adds.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use major_archive::{Archive, RuntimeImage};
use major_classfile::ClassFile;
use major_pointcut_lang::Program;

use crate::aspects::CompiledAspects;
use crate::index::ClassIndex;
use crate::report::MajorError;
use crate::runtime::RUNTIME_CLASSES;
use crate::weave::{bypass, Weaver};

/// The module that receives the classes the weave adds.
const BASE: &str = "java.base";

/// The classes a full-coverage weave adds, as `major weave --jdk` writes
/// them into `java.base`: every class in `classes` (the woven aspect
/// classes, their extra classes, the cflow state holders, the runtime) with
/// its methods run with the DIB set ([`bypass::wrap_class_in_dib`]), then the
/// bypass class `java.lang.MajorBypass`. Entry names (`p/A.class`), in that
/// order.
pub fn full_coverage_classes(
    classes: impl IntoIterator<Item = (String, Vec<u8>)>,
    index: &ClassIndex,
) -> Result<Vec<(String, Vec<u8>)>, MajorError> {
    let mut out = Vec::new();
    for (n, b) in classes {
        let wrapped = bypass::wrap_class_in_dib(&b, index)
            .map_err(|e| MajorError::Usage(format!("{n} with the DIB set: {e}")))?;
        out.push((n, wrapped));
    }
    let b = bypass::bypass_class(52, index)
        .map_err(|e| MajorError::Usage(format!("bypass class: {e}")))?;
    out.push((format!("{}.class", bypass::BYPASS), b));
    Ok(out)
}

/// The class index of a load-time weave: the classes of `classpath` (jars
/// and directories; missing elements are skipped, as `java` skips them), the
/// compiled aspects, the runtime, and the run-time image `image` (the
/// running JDK's `lib/modules`). Classes the JVM defines at run time are
/// added as they are seen ([`ClassIndex::add_defined`]).
pub fn load_time_index(
    image: Arc<RuntimeImage>,
    classpath: &[PathBuf],
    aspects: &CompiledAspects,
) -> Result<ClassIndex, MajorError> {
    let mut index = ClassIndex::new();
    for p in classpath {
        if std::fs::metadata(p).is_err() {
            continue;
        }
        index.add_shared(Arc::new(Archive::open(p)?));
    }
    for (_, bytes) in &aspects.classes {
        index
            .add_class(bytes)
            .map_err(|e| MajorError::Usage(format!("compiled aspect class: {e}")))?;
    }
    for (_, bytes) in RUNTIME_CLASSES {
        index
            .add_class(bytes)
            .map_err(|e| MajorError::Usage(format!("runtime class: {e}")))?;
    }
    index.add_image(image);
    Ok(index)
}

/// One class as the load-time weaver changed it.
#[derive(Debug)]
pub struct Transformed {
    /// The woven class.
    pub bytes: Vec<u8>,
    /// Its extra class of static parts (internal name, bytes), to be defined
    /// by the same loader.
    pub extra: Option<(String, Vec<u8>)>,
}

/// The full-coverage weaver of one program of aspects, one class at a time.
pub struct LoadTimeWeaver<'p> {
    weaver: Weaver<'p>,
    index: &'p ClassIndex,
    added: Vec<(String, Vec<u8>)>,
    /// Internal names of `added`: never transformed.
    added_names: HashSet<String>,
    /// The packages (internal form) that `java.base` declares for the added
    /// classes.
    base_packages: Vec<String>,
}

impl<'p> LoadTimeWeaver<'p> {
    /// Prepares the weave of `program` (compiled into `aspects`) against
    /// `index` ([`load_time_index`]), whose run-time image is `image`:
    /// matches the advice, weaves the aspect classes, and makes the classes
    /// the weave adds. The packages of the added classes that `image` does
    /// not have in `java.base` join its module descriptor, as in
    /// `major weave --jdk`.
    pub fn new(
        program: &'p Program,
        aspects: &'p CompiledAspects,
        index: &'p ClassIndex,
        image: &RuntimeImage,
    ) -> Result<LoadTimeWeaver<'p>, MajorError> {
        let mut weaver = Weaver::new(program, aspects, index);
        weaver.full_coverage = true;
        let extra_classes = weaver
            .extra_classes()
            .map_err(|e| MajorError::Usage(format!("cflow state classes: {e}")))?;
        let packages: BTreeSet<String> = aspects
            .classes
            .iter()
            .chain(&extra_classes)
            .map(|(n, _)| n.as_str())
            .chain(RUNTIME_CLASSES.iter().map(|(n, _)| *n))
            .filter_map(|n| crate::modules::package_of(n.trim_end_matches(".class")))
            .map(str::to_string)
            .collect();
        let mut base_packages = Vec::new();
        for p in packages {
            let module = image.module_of(&p).map_err(MajorError::from)?;
            if module.as_deref() != Some(BASE) {
                base_packages.push(p);
            }
        }
        if let Some((n, _)) = aspects.classes.iter().find(|(n, _)| !n.contains('/')) {
            return Err(MajorError::Usage(format!(
                "{}: an aspect in the unnamed package cannot join java.base; give the \
                 aspect a package (`package tools;`) to weave it into the JDK",
                n.trim_end_matches(".class")
            )));
        }
        weaver.added_packages = base_packages.iter().map(|p| p.replace('/', ".")).collect();
        // The aspects' own classes, woven as `major weave` weaves them.
        let mut classes = Vec::new();
        for (name, bytes) in &aspects.classes {
            let mut outcome = weaver.weave_aspect_class(bytes).map_err(|e| {
                MajorError::Usage(format!("weaving the compiled aspect class {name}: {e}"))
            })?;
            classes.push((name.clone(), outcome.bytes.take().unwrap_or(bytes.clone())));
            if let Some((n, x)) = outcome.extra.take() {
                classes.push((format!("{n}.class"), x));
            }
        }
        classes.sort_by(|a, b| a.0.cmp(&b.0));
        let runtime = RUNTIME_CLASSES
            .iter()
            .map(|(n, b)| (n.to_string(), b.to_vec()));
        let added = full_coverage_classes(
            classes.into_iter().chain(extra_classes).chain(runtime),
            index,
        )?;
        let added_names = added
            .iter()
            .map(|(n, _)| n.trim_end_matches(".class").to_string())
            .collect();
        Ok(LoadTimeWeaver {
            weaver,
            index,
            added,
            added_names,
            base_packages,
        })
    }

    /// The classes the weave adds (entry names `p/A.class`, bytes): the
    /// aspects, their extra classes, the cflow state holders and the runtime,
    /// each with the DIB set, and `java.lang.MajorBypass` last. The boot
    /// loader must define them (in `java.base`) before woven code reads the
    /// bypass.
    pub fn added_classes(&self) -> &[(String, Vec<u8>)] {
        &self.added
    }

    /// The packages (internal form) of the added classes that `java.base`
    /// lacks, which the woven `jdk.internal.module.Builder` declares in its
    /// descriptor.
    pub fn base_packages(&self) -> &[String] {
        &self.base_packages
    }

    /// The class index.
    pub fn index(&self) -> &ClassIndex {
        self.index
    }

    /// Weaves the class `internal_name` (as the JVM names it; `None` when
    /// it does not say) whose class file is `bytes`: `Ok(None)` when the
    /// class stays as it is (no advice applies, or it is one of the added
    /// classes or a class never woven). The bytes are those `major weave
    /// --jdk` writes for the same class. A class the index did not know
    /// (defined at run time) is added to it first, so that frames of the
    /// classes after it can name it.
    pub fn transform(
        &self,
        internal_name: Option<&str>,
        bytes: &[u8],
    ) -> Result<Option<Transformed>, major_classfile::Error> {
        let owned;
        let name = match internal_name {
            Some(n) => n,
            None => {
                owned = ClassFile::parse(bytes)?.name()?.into_owned();
                &owned
            }
        };
        if self.added_names.contains(name) {
            return Ok(None);
        }
        if !self.index.contains(name) {
            self.index.add_defined(bytes)?;
        }
        let mut outcome = self.weaver.weave_class(bytes)?;
        Ok(outcome.bytes.take().map(|b| Transformed {
            bytes: b,
            extra: outcome.extra.take(),
        }))
    }
}
