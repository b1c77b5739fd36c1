//! `major check`: run the class-file engine over every class of an archive and
//! count what holds: byte-identical round trips, byte-identical re-encoding of every
//! method body through the label list, and (optionally) re-framing of every method.

use std::path::PathBuf;

use major_archive::{Archive, ArchiveKind, OutputArchive};
use major_classfile::rewrite::{reencode_class, Mode};
use major_classfile::{write_class, ClassEdit, ClassFile, ClassHierarchy};
use rayon::prelude::*;

use crate::report::MajorError;

/// What to check.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    /// Also re-encode every method body and require identical bytes.
    pub codec: bool,
    /// Also re-frame every method (decode, recompute frames, encode).
    pub reframe: bool,
    /// With `reframe`: first insert stack-neutral code throughout each method,
    /// and keep its original frames where that is possible (see
    /// `major_classfile::kept_frames`).
    pub keep_frames: bool,
}

/// Which entries of an archive to check.
pub type EntryFilter<'a> = &'a (dyn Fn(&major_archive::Entry) -> bool + Sync);

/// An [`EntryFilter`] for the classes of one module of a run-time image
/// (entries named `/module/...`); other archives are not filtered.
pub fn module_filter(module: Option<&str>) -> impl Fn(&major_archive::Entry) -> bool + Sync + '_ {
    move |e| match module {
        Some(m) if e.name.starts_with('/') => e.name[1..]
            .strip_prefix(m)
            .is_some_and(|r| r.starts_with('/')),
        _ => true,
    }
}

/// Counts for one archive.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// The archive.
    pub archive: PathBuf,
    /// Class entries seen.
    pub classes: usize,
    /// Classes that read and wrote back byte-identically.
    pub round_trip_identical: usize,
    /// Classes whose every method body re-encoded byte-identically.
    pub codec_identical: usize,
    /// Classes re-framed without error.
    pub reframed: usize,
    /// Methods whose original frames were kept (with `keep_frames`).
    pub frames_kept: usize,
    /// Method bodies processed by the codec or re-framing pass.
    pub methods: usize,
    /// Bytes of class files processed.
    pub class_bytes: u64,
    /// Everything that failed, naming entry, class, method and offset.
    pub failures: Vec<MajorError>,
}

impl CheckReport {
    /// True when nothing failed.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

struct One {
    round_trip: bool,
    codec: bool,
    reframed: Option<Vec<u8>>,
    methods: usize,
    kept: usize,
    bytes: u64,
    failures: Vec<MajorError>,
}

/// The entry name a class is written under in a class-path directory or jar.
pub fn output_name(archive: &Archive, index: usize) -> Option<String> {
    archive.entries()[index]
        .class_name()
        .map(|n| format!("{n}.class"))
}

/// Checks every class of `archive`. With `out`, the result is written there in
/// archive order: a jar or directory input is mirrored (re-framed classes replace
/// the originals, every other entry and every class that failed is copied as it
/// was, raw); a jmod or run-time image gives its classes under their class-path
/// names (`java/lang/Object.class`), ready for `--patch-module`.
pub fn check_archive(
    archive: &Archive,
    opts: CheckOptions,
    hierarchy: &dyn ClassHierarchy,
    filter: EntryFilter<'_>,
    out: Option<&mut OutputArchive>,
) -> CheckReport {
    let path = archive.path().to_path_buf();
    let mut results: Vec<Option<Result<One, MajorError>>> = archive
        .entries()
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            (e.class_name().is_some() && filter(e))
                .then(|| check_one(archive, i, &e.name, opts, hierarchy))
        })
        .collect();
    let mut report = CheckReport {
        archive: path,
        ..Default::default()
    };
    let mirror = matches!(archive.kind(), ArchiveKind::Zip | ArchiveKind::Directory);
    let mut out = out;
    for (i, r) in results.iter_mut().enumerate() {
        let mut reframed = None;
        match r.take() {
            None => {
                // Not a class (or filtered out): a mirrored archive keeps it as it is.
                if let (Some(o), true) = (out.as_deref_mut(), mirror) {
                    if filter(&archive.entries()[i]) {
                        if let Err(e) = o.copy_raw(archive, i) {
                            report.failures.push(e.into());
                        }
                    }
                }
                continue;
            }
            Some(Err(e)) => {
                report.classes += 1;
                report.failures.push(e);
            }
            Some(Ok(one)) => {
                report.classes += 1;
                report.round_trip_identical += one.round_trip as usize;
                report.codec_identical += one.codec as usize;
                report.methods += one.methods;
                report.frames_kept += one.kept;
                report.class_bytes += one.bytes;
                report.failures.extend(one.failures);
                if one.reframed.is_some() {
                    report.reframed += 1;
                }
                reframed = one.reframed;
            }
        }
        let Some(o) = out.as_deref_mut() else {
            continue;
        };
        let written = match (reframed, mirror) {
            (Some(bytes), true) => o.write_like(archive, i, &bytes),
            // A class that failed stays as it was: nothing in the output is lost.
            (None, true) => o.copy_raw(archive, i),
            (Some(bytes), false) => match output_name(archive, i) {
                Some(name) => o.write(&name, &bytes),
                None => Ok(()),
            },
            (None, false) => match output_name(archive, i) {
                Some(name) => archive.read(i).and_then(|b| o.write(&name, &b)),
                None => Ok(()),
            },
        };
        if let Err(e) = written {
            report.failures.push(e.into());
        }
    }
    report
}

fn check_one(
    archive: &Archive,
    i: usize,
    entry: &str,
    opts: CheckOptions,
    hierarchy: &dyn ClassHierarchy,
) -> Result<One, MajorError> {
    let bytes = archive.read(i)?;
    let err = |e| MajorError::class(archive.path(), entry, e);
    let class = ClassFile::parse(&bytes).map_err(err)?;
    let written = write_class(&class, &ClassEdit::new(&class));
    let mut one = One {
        round_trip: written == *bytes,
        codec: false,
        reframed: None,
        methods: 0,
        kept: 0,
        bytes: bytes.len() as u64,
        failures: Vec::new(),
    };
    if !one.round_trip {
        one.failures.push(err(major_classfile::Error::malformed(
            None,
            "round trip changed the bytes",
        )));
    }
    if opts.codec {
        match reencode_class(&bytes, Mode::Identity, hierarchy) {
            Ok((_, stats)) => {
                one.codec = true;
                one.methods = stats.methods;
            }
            Err(e) => one.failures.push(err(e)),
        }
    }
    if opts.reframe {
        let mode = if opts.keep_frames {
            Mode::KeepFrames
        } else {
            Mode::Reframe
        };
        match reencode_class(&bytes, mode, hierarchy) {
            Ok((b, stats)) => {
                one.methods = stats.methods;
                one.kept = stats.kept;
                one.reframed = Some(b);
            }
            Err(e) => one.failures.push(err(e)),
        }
    }
    Ok(one)
}
