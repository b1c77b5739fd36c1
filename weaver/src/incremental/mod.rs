//! Incremental weaving of a class directory into a directory.
//!
//! A weave of one class directory into an output directory (`major weave
//! -a A.aj classes -o woven`) keeps a state file in the output
//! ([`state::STATE_FILE`]). The next weave with the same global key — major
//! itself, the options, the aspects' sources and compiled classes, the
//! runtime ([`global_key`]) — re-weaves only the entries that need it and
//! updates the directory in place ([`Update`]); anything else (no state, a
//! damaged one, another key, an output directory holding files it should
//! not) is a full weave, which writes a fresh state.
//!
//! An entry is re-woven when its bytes changed, when one of its output files
//! is gone, or when a class its weave looked up now looks different at the
//! level it was looked at ([`deps`]: presence, header, details). The weave of
//! a class asks the index about other classes for
//!
//! - supertypes: `+` type patterns, `within`, `this`/`target`/`args` types
//!   (statically true, false, or a runtime test), `handler` types, the
//!   unchecked-exception test of `declare soft`-like checks (details of each
//!   class up the hierarchy);
//! - the declaring type of a call or field shadow: modifiers, annotations,
//!   throws clauses and generic signatures of the member (details);
//! - frames: the common super class of two types where branches meet
//!   (headers of both super-class chains);
//! - existence of named types (presence).
//!
//! All of these go through [`ClassIndex`](crate::index::ClassIndex), which
//! records them ([`deps`]); the caches in front of it replay what their
//! answers were computed from. What the weave as a whole looked up (compiling
//! the pointcuts, the aspects' own classes) is recorded apart: if any of it
//! changed, the weave is full. The state is a function of the inputs alone,
//! so an incremental weave writes the same state file as a full one.

mod binary;
pub mod deps;
mod jar_digest;
mod next_state;
pub mod print;
pub mod stamps;
pub mod state;
mod view;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use major_archive::{Archive, ArchiveKind, Compression, OutputArchive, OutputKind, PreparedEntry};
use major_pointcut_lang::Program;
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet};
use sha2::{Digest, Sha256};

use crate::aspects::CompiledAspects;
use crate::index::ClassIndex;
use crate::report::MajorError;
use crate::weave::{ClassOutcome, DeclareHit, Weaver};
use crate::weave_run::{WeaveOptions, WeaveReport};
use deps::{Deps, Level};
use next_state::{next_state, with_added, Record};
use print::Print;
use stamps::{FileStamp, Known, Mark, StampFile};
use state::{hex, ClassPrint, Dep, EntryRecord, StoredOutcome, STATE_FILE};
use view::StateView;

/// The output directories this process checked, with
/// [`major_archive::check_replace`] and no `--force`, moments before the
/// weave ([`output_checked`]).
static CHECKED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Notes that `major weave` checked, with [`major_archive::check_replace`]
/// and no `--force`, that the output `dir` holds only what major wrote
/// there: an update of it need not list it again (that check is the same
/// listing of the whole directory). A library caller that did not check
/// does not call this, and the update checks.
pub fn output_checked(dir: &Path) {
    if let Ok(mut v) = CHECKED.lock() {
        v.push(dir.to_path_buf());
    }
}

/// Whether [`output_checked`] noted `dir`.
fn checked_already(dir: &Path) -> bool {
    CHECKED.lock().is_ok_and(|v| v.iter().any(|d| d == dir))
}

/// Why a weave into a directory without incremental state is full.
pub const NO_STATE: &str = "no incremental state in the output directory";

/// What an incremental weave did, for the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Input classes re-woven (or woven: every class, in a full weave).
    pub rewoven: usize,
    /// Other input entries re-copied (resources, changed or new).
    pub recopied: usize,
    /// Input classes in all.
    pub classes: usize,
    /// Files of the output removed (their input was deleted).
    pub removed: usize,
    /// Input entries read and hashed to tell whether they changed (the
    /// others were told unchanged by their file stamps or zip CRC-32:
    /// [`stamps`]).
    pub hashed: usize,
    /// Why the weave was full, when it was (`None`: incremental).
    pub full: Option<String>,
}

/// Whether a weave keeps incremental state, without full coverage and
/// multi-release inputs: a class directory woven into a directory (updated
/// in place, [`Update`]), or class directories and jars, one or several,
/// woven into one jar (written whole, the entries that need no weave taken
/// from the previous jar: [`Reuse`]).
pub fn eligible(opts: &WeaveOptions, inputs: &[Arc<Archive>], multi_release: &[bool]) -> bool {
    let into_jar = OutputArchive::kind_for(&opts.output) == OutputKind::Zip;
    let kinds_ok = inputs.iter().all(|a| match a.kind() {
        ArchiveKind::Directory => true,
        ArchiveKind::Zip => into_jar,
        _ => false,
    });
    !inputs.is_empty()
        && (into_jar || inputs.len() == 1)
        && kinds_ok
        && !multi_release.iter().any(|&mr| mr)
        && opts.jars.runtime_jar.is_none()
        && !opts.full_coverage
        && opts.modules.is_empty()
}

/// SHA-256 of this executable: once per process, and kept in `cache` (the
/// aspect cache directory) for the next process of the same executable
/// (same path, size and modification time), since hashing tens of
/// megabytes costs more than an incremental weave of a few classes.
fn executable_digest(cache: Option<&Path>) -> String {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST
        .get_or_init(|| {
            let exe = match std::env::current_exe() {
                Ok(p) => p,
                // Unknown: a key no other run shares, so never incremental.
                Err(e) => return format!("unknown executable ({e}) {}", std::process::id()),
            };
            let stamp = std::fs::metadata(&exe).ok().map(|m| {
                let t = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
                format!("{} {} {:?}", exe.display(), m.len(), t)
            });
            // One file per executable path: two majors sharing a cache
            // directory (two versions, two checkouts) would otherwise hash
            // themselves again on every other run.
            let kept = cache.map(|d| {
                d.join(format!(
                    "executable-digest-{}",
                    short(exe.as_os_str().as_encoded_bytes())
                ))
            });
            if let (Some(stamp), Some(kept)) = (&stamp, &kept) {
                if let Ok(text) = std::fs::read_to_string(kept) {
                    if let Some((s, digest)) = text.rsplit_once('\n') {
                        if s == stamp && digest.len() == 64 {
                            return digest.to_string();
                        }
                    }
                }
            }
            match std::fs::read(&exe) {
                Ok(bytes) => {
                    let digest = hex(&Sha256::digest(&bytes));
                    if let (Some(stamp), Some(kept)) = (&stamp, &kept) {
                        // Best effort: without it the next run hashes again.
                        let temp = kept.with_extension(format!("tmp-{}", std::process::id()));
                        if std::fs::write(&temp, format!("{stamp}\n{digest}")).is_ok() {
                            let _ = std::fs::rename(&temp, kept);
                        }
                    }
                    digest
                }
                Err(e) => format!("unreadable executable ({e}) {}", std::process::id()),
            }
        })
        .clone()
}

/// The key of everything global a weave depends on: major (version and
/// executable), the options that change woven bytes, the aspects (file names
/// and sources, the classes javac made of them) and the runtime classes.
/// Paths are left out (the same classes woven from elsewhere give the same
/// output), and so is the class path: the classes looked up in it are
/// dependencies like any other.
pub fn global_key(opts: &WeaveOptions, program: &Program, aspects: &CompiledAspects) -> String {
    let mut h = Sha256::new();
    let mut put = |label: &str, bytes: &[u8]| {
        h.update((label.len() as u64).to_le_bytes());
        h.update(label.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    put("version", env!("CARGO_PKG_VERSION").as_bytes());
    put(
        "executable",
        executable_digest(opts.cache.as_deref()).as_bytes(),
    );
    let options = format!(
        "strict={} runtime={} full_coverage={} signed={:?}",
        opts.strict, opts.bundle_runtime, opts.full_coverage, opts.jars.signed_jars
    );
    put("options", options.as_bytes());
    for f in &program.files {
        let name = Path::new(f.name())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        put("aspect file", name.as_bytes());
        put("aspect source", f.text().as_bytes());
    }
    for (name, bytes) in &aspects.classes {
        put(name, bytes);
    }
    put("runtime classes", crate::runtime::classes_digest());
    hex(&h.finalize())
}

/// SHA-256 of entry `i` of the input `a`: a class as the index shares it
/// (read once), another file as read.
pub fn hash_entry(index: &ClassIndex, a: &Arc<Archive>, i: usize) -> Result<Print, MajorError> {
    let digest = if a.entries()[i].class_name().is_some() {
        Sha256::digest(&*index.input_bytes(a, i)?)
    } else {
        Sha256::digest(&*a.read(i)?)
    };
    Ok(Print::from(<[u8; 32]>::from(digest)))
}

/// What a run knows of its inputs from the file stamps of the last weave into
/// the same output ([`stamps`]): the entries it need not read, and the
/// stamps it records for the next weave.
pub struct Stamped {
    /// Where the stamps are kept (`None`: no cache directory, no stamps).
    path: Option<PathBuf>,
    /// The stamps of the last weave, if sound.
    old: Option<StampFile>,
    /// The inputs, and their absolute paths.
    inputs: Vec<(Arc<Archive>, String)>,
    /// Per input, per entry: how it is told now, and what the last weave
    /// knew of it if it is told unchanged.
    now: Vec<Vec<(Option<Mark>, Option<Known>)>>,
    /// The JDK image's stamp now.
    image: Option<FileStamp>,
    /// The class path now: absolute paths, and stamps of jars.
    classpath: Vec<(String, Option<FileStamp>)>,
    /// Entries hashed so far by [`hash`](Self::hash), and their hashes.
    hashed: std::sync::atomic::AtomicUsize,
    computed: Vec<Vec<OnceLock<Print>>>,
}

/// `path`, absolute, as text.
fn absolute_text(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

impl Stamped {
    /// Takes the stamps of `inputs` (a class directory's files, a jar's
    /// entries), of the JDK image and of the class path, and matches them
    /// against those the last weave into `opts.output` recorded.
    fn take(opts: &WeaveOptions, inputs: &[Arc<Archive>]) -> Stamped {
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let path = opts
            .cache
            .as_deref()
            .map(|c| stamps::stamps_path(c, &opts.output));
        let old = path.as_deref().and_then(stamps::load);
        let inputs: Vec<(Arc<Archive>, String)> = inputs
            .iter()
            .map(|a| (a.clone(), absolute_text(a.path())))
            .collect();
        let now = inputs
            .iter()
            .enumerate()
            .map(|(k, (a, text))| {
                let recorded = old
                    .as_ref()
                    .and_then(|o| o.inputs.get(k))
                    .filter(|r| r.path == *text);
                // On this thread: a lookup per entry, too little to wake
                // the pool for (`crate::pool`). Entries listed in name
                // order are found one after another.
                let mut near = 0;
                (0..a.entries().len())
                    .map(|i| {
                        let e = &a.entries()[i];
                        let mark = match a.kind() {
                            // A class directory's files: as they were when
                            // the directory was listed (before any was read).
                            ArchiveKind::Directory => a.file_meta(i).map(|m| {
                                let s = FileStamp::from(m);
                                if s.racy(start) {
                                    Mark::Racy
                                } else {
                                    Mark::File(s)
                                }
                            }),
                            _ => a.zip_digest(i).map(|(c, z, u)| Mark::Zip(c, z, u)),
                        };
                        let known = recorded
                            .and_then(|m| m.get_near(&mut near, &e.name))
                            .filter(|r| mark.is_some_and(|m| m != Mark::Racy && m == r.mark))
                            .map(|r| Known {
                                hash: r.hash,
                                class: r.class.map(Arc::from),
                            });
                        (mark, known)
                    })
                    .collect()
            })
            .collect();
        let computed = inputs
            .iter()
            .map(|(a, _)| (0..a.entries().len()).map(|_| OnceLock::new()).collect())
            .collect();
        Stamped {
            path,
            old,
            inputs,
            now,
            image: FileStamp::of(&opts.jdk.modules()),
            hashed: Default::default(),
            computed,
            classpath: opts
                .classpath
                .iter()
                .map(|p| {
                    let jar = p.is_file().then(|| FileStamp::of(p)).flatten();
                    (absolute_text(p), jar)
                })
                .collect(),
        }
    }

    /// The class name in the bytes of entry `i` of input `input`, if the
    /// entry is known unchanged.
    pub fn known_name(&self, input: usize, i: usize) -> Option<Arc<str>> {
        self.now.get(input)?.get(i)?.1.as_ref()?.class.clone()
    }

    /// SHA-256 of entry `i` of input `input` (`a`): as recorded if the
    /// entry is known unchanged, else hashed.
    pub fn hash(
        &self,
        index: &ClassIndex,
        input: usize,
        a: &Arc<Archive>,
        i: usize,
    ) -> Result<Print, MajorError> {
        match self.now.get(input).and_then(|v| v.get(i)?.1.as_ref()) {
            Some(k) => Ok(k.hash),
            None => {
                let Some(slot) = self.computed.get(input).and_then(|v| v.get(i)) else {
                    return hash_entry(index, a, i);
                };
                if let Some(h) = slot.get() {
                    return Ok(*h);
                }
                self.hashed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let h = hash_entry(index, a, i)?;
                Ok(*slot.get_or_init(|| h))
            }
        }
    }

    /// Whether entry `i` of input `input` (`a`) has the SHA-256 `hash`:
    /// compared with the recorded one if the entry is known unchanged, else
    /// with its bytes hashed.
    pub fn same_hash(
        &self,
        index: &ClassIndex,
        input: usize,
        a: &Arc<Archive>,
        i: usize,
        hash: &Print,
    ) -> Result<bool, MajorError> {
        match self.now.get(input).and_then(|v| v.get(i)?.1.as_ref()) {
            Some(k) => Ok(k.hash == *hash),
            None => Ok(self.hash(index, input, a, i)? == *hash),
        }
    }

    /// Whether the last weave's stamps told every input entry unchanged, and
    /// the JDK image and class path are as they were: the stamps to record
    /// are the ones recorded.
    fn all_known(&self) -> bool {
        let Some(old) = &self.old else { return false };
        old.image == self.image
            && old.classpath == self.classpath
            && old.inputs.len() == self.now.len()
            && old
                .inputs
                .iter()
                .zip(&self.now)
                .all(|(m, now)| m.len() == now.len() && now.iter().all(|(_, k)| k.is_some()))
    }

    /// The names of the classes whose prints may differ from those the old
    /// state `old` recorded: the old and new names of the input classes
    /// changed, added or deleted. `None` when the stamps cannot tell (no
    /// sound stamps of that state, the JDK image or a class-path element
    /// changed or is a directory): every print is then computed again.
    fn changed_names(&self, index: &ClassIndex, old: &StateView) -> Option<FxHashSet<Arc<str>>> {
        let recorded = self.old.as_ref()?;
        let same_outside = recorded.state == binary::digest_of(old.bytes())
            && self.image.is_some()
            && recorded.image == self.image
            && recorded.classpath == self.classpath
            && self.classpath.iter().all(|(_, s)| s.is_some())
            && recorded.inputs.len() == self.inputs.len()
            && recorded
                .inputs
                .iter()
                .zip(&self.inputs)
                .all(|(r, (_, q))| r.path == *q);
        if !same_outside {
            return None;
        }
        let mut names: FxHashSet<Arc<str>> = FxHashSet::default();
        let mut present: FxHashSet<(usize, &str)> = FxHashSet::default();
        for (k, (a, _)) in self.inputs.iter().enumerate() {
            let old_entries = &recorded.inputs[k];
            for (i, e) in a.entries().iter().enumerate() {
                present.insert((k, e.name.as_str()));
                if self.now[k][i].1.is_some() {
                    continue;
                }
                // Read by the index: its name now.
                if let Some(n) = index.input_class_name(a, i) {
                    names.insert(Arc::from(n));
                }
                if let Some(c) = old_entries.get(&e.name).and_then(|r| r.class) {
                    names.insert(Arc::from(c));
                }
            }
        }
        for k in 0..old.len() as u32 {
            let (input, name) = (old.input(k), old.name(k));
            if present.contains(&(input, name)) {
                continue;
            }
            let r = recorded.inputs.get(input)?.get(name)?;
            if let Some(c) = r.class {
                names.insert(Arc::from(c));
            }
        }
        Some(names)
    }

    /// Records the stamps of this weave, whose state file is `state` and whose
    /// input entries are `records` (those kept of the state `old`), for the
    /// next weave (best effort).
    fn save(&self, index: &ClassIndex, state: &[u8], records: &[Record], old: Option<&StateView>) {
        let mut p = self.pending(index, records, old);
        p.file.state = binary::digest_of(state);
        p.save();
    }

    /// The stamps of this weave, to be saved once its output is in place
    /// (the digest of its state file set then).
    fn pending(
        &self,
        index: &ClassIndex,
        records: &[Record],
        old: Option<&StateView>,
    ) -> PendingStamps {
        let Some(path) = &self.path else {
            return PendingStamps {
                path: None,
                file: StampFile::default(),
                inputs: Vec::new(),
            };
        };
        fn key<'a>(r: &'a Record, old: Option<&'a StateView>) -> Option<(usize, &'a str, Print)> {
            match r {
                Record::Old(k) => old.map(|v| (v.input(*k), v.name(*k), v.hash(*k))),
                Record::New(e) => Some((e.input, e.name.as_str(), e.hash)),
            }
        }
        // Each input entry's hash is its record's: the records are in input
        // order, one per entry, as a weave makes them (else found by name).
        let by_name: std::cell::OnceCell<HashMap<(usize, &str), Print>> = Default::default();
        let hash_of = |at: usize, input: usize, name: &str| -> Option<Print> {
            match records.get(at).and_then(|r| key(r, old)) {
                Some((k, n, h)) if k == input && n == name => Some(h),
                _ => by_name
                    .get_or_init(|| {
                        records
                            .iter()
                            .filter_map(|r| key(r, old))
                            .map(|(k, n, h)| ((k, n), h))
                            .collect()
                    })
                    .get(&(input, name))
                    .copied(),
            }
        };
        // Encoded from what this weave holds (borrowed): no map of the
        // entries is built for it.
        let mut first = 0;
        let inputs = self
            .inputs
            .iter()
            .enumerate()
            .map(|(k, (a, text))| {
                let mut entries = Vec::with_capacity(a.entries().len());
                for (i, e) in a.entries().iter().enumerate() {
                    let (mark, known) = &self.now[k][i];
                    let (Some(hash), Some(mark)) = (hash_of(first + i, k, &e.name), *mark) else {
                        continue;
                    };
                    let class = match known {
                        Some(k) => k.class.as_deref(),
                        None => index.input_class_name(a, i),
                    };
                    entries.push(stamps::EntryStamp {
                        name: &e.name,
                        hash,
                        class,
                        mark,
                    });
                }
                first += a.entries().len();
                (text.as_str(), entries)
            })
            .collect();
        let file = StampFile {
            state: Print::default(),
            image: self.image,
            output: None,
            classpath: self.classpath.clone(),
            inputs: Vec::new(),
        };
        PendingStamps {
            path: Some(path.clone()),
            file,
            inputs: stamps::encode_inputs(inputs),
        }
    }

    /// The digest ([`jar_digest`]) of the output jar a weave wrote, if the
    /// stamps recorded it and its stamp `now` is still the one recorded.
    fn output_digest(&self, now: Option<FileStamp>) -> Option<Print> {
        let (stamp, sha) = self.old.as_ref()?.output.as_ref()?;
        (now? == *stamp).then_some(*sha)
    }
}

/// The stamps of a weave, saved once its output is in place
/// ([`save`](Self::save), or [`write_beside`] for a jar).
pub struct PendingStamps {
    path: Option<PathBuf>,
    /// All but the inputs' entries.
    file: StampFile,
    /// The inputs' entries, encoded ([`stamps::encode_inputs`]).
    inputs: Vec<u8>,
}

impl PendingStamps {
    /// Saves them (best effort), now or, in a resident weaver, once the
    /// client has its answer ([`crate::later`]: stamps only spare the next
    /// weave hashing, and carry the digest of the state they go with).
    pub fn save(self) {
        crate::later::later(move || {
            if let Some(path) = &self.path {
                stamps::save_encoded(path, &self.file, &self.inputs);
            }
        });
    }
}

/// A short digest (128 bits, hex) of `bytes`.
fn short(bytes: &[u8]) -> Print {
    cut(Sha256::digest(bytes).into())
}

/// A SHA-256 cut to its first 16 bytes.
fn cut(d: [u8; 32]) -> Print {
    Print::digest(&d[..16]).expect("16 bytes make a digest")
}

/// The print of whether a class is present: the marker `1` or `0`.
fn presence(present: bool) -> Print {
    Print::marker(if present { "1" } else { "0" })
}

/// Feeds what [`Level::Details`] shows of a class to `h`, each field
/// length-prefixed.
fn hash_details(d: &crate::index::ClassDetails, h: &mut Sha256) {
    fn s(h: &mut Sha256, v: &str) {
        h.update((v.len() as u64).to_le_bytes());
        h.update(v.as_bytes());
    }
    fn list(h: &mut Sha256, v: &[String]) {
        h.update((v.len() as u64).to_le_bytes());
        for x in v {
            s(h, x);
        }
    }
    fn opt(h: &mut Sha256, v: &Option<String>) {
        match v {
            Some(x) => {
                h.update([1]);
                s(h, x);
            }
            None => h.update([0]),
        }
    }
    s(h, &d.name);
    h.update(d.access.to_le_bytes());
    opt(h, &d.super_name);
    list(h, &d.interfaces);
    list(h, &d.annotations);
    for members in [&d.methods, &d.fields] {
        h.update((members.len() as u64).to_le_bytes());
        for m in members {
            s(h, &m.name);
            s(h, &m.descriptor);
            h.update(m.access.to_le_bytes());
            list(h, &m.annotations);
            list(h, &m.exceptions);
            opt(h, &m.signature);
        }
    }
    opt(h, &d.signature);
    h.update([u8::from(d.nested)]);
}

/// The digest of the bytes class `name` resolves to in `index`.
fn bytes_print(index: &ClassIndex, name: &str) -> Print {
    match index.resolved_bytes(name) {
        None => Print::marker("absent"),
        Some(None) => Print::marker("unread"),
        Some(Some(b)) => short(&b),
    }
}

/// What class `name` shows at `level` in `index`, as a digest.
fn level_print(index: &ClassIndex, name: &str, level: Level) -> Print {
    match level {
        Level::Presence => presence(index.resolved_bytes(name).is_some()),
        Level::Header => short(format!("{:?}", index.class_info_unrecorded(name)).as_bytes()),
        Level::Details => match index.details_unrecorded(name) {
            Some(d) => {
                let mut h = Sha256::new();
                hash_details(&d, &mut h);
                cut(h.finalize().into())
            }
            None => presence(index.resolved_bytes(name).is_some()),
        },
    }
}

/// The prints of `wanted` (name → levels) in `index`. Where `known` has the
/// class with the same bytes, its level prints are taken from there (the
/// same bytes show the same at every level); `current`: `known` holds what
/// the classes are now (their bytes are not read again).
fn prints(
    index: &ClassIndex,
    wanted: &BTreeMap<String, BTreeSet<Level>>,
    known: &BTreeMap<String, ClassPrint>,
    current: bool,
) -> BTreeMap<String, ClassPrint> {
    let wanted: Vec<(&String, &BTreeSet<Level>)> = wanted.iter().collect();
    wanted
        .par_iter()
        .map(|(name, levels)| {
            let bytes = match known.get(*name) {
                Some(p) if current => p.bytes,
                _ => bytes_print(index, name),
            };
            let same = known.get(*name).filter(|p| p.bytes == bytes);
            let levels = levels
                .iter()
                .map(|&l| {
                    let fp = same
                        .and_then(|p| p.levels.get(&l).copied())
                        .unwrap_or_else(|| level_print(index, name, l));
                    (l, fp)
                })
                .collect();
            ((*name).clone(), ClassPrint { bytes, levels })
        })
        .collect()
}

/// `deps` as a state stores them: sorted by name.
fn sorted(deps: Deps) -> Vec<(Dep, Level)> {
    let mut v: Vec<(Dep, Level)> = deps.into_iter().map(|(n, l)| (Dep::from(n), l)).collect();
    v.sort_unstable();
    v
}

/// What the report says of one class's weave, as the state keeps it.
pub fn stored_outcome(o: &ClassOutcome, woven: bool) -> StoredOutcome {
    StoredOutcome {
        woven,
        advised: o.advised.iter().map(|(k, n)| (*k, *n)).collect(),
        hits: o
            .advice_hits
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (i, *n))
            .collect(),
        kinds: o
            .advice_kinds
            .iter()
            .map(|(&(a, k), &n)| (a, k, n))
            .collect(),
        declares: o.declares.clone(),
        skipped: o.skipped_methods.iter().map(|e| e.to_string()).collect(),
        notes: o.notes.clone(),
        empty_finalizers: o.empty_finalizers,
        intrinsics: o.intrinsics,
    }
}

/// The join-point kinds a report counts, in the order of their codes in the
/// state file.
const KINDS: [major_pointcut_lang::matcher::ShadowKind; 11] = {
    use major_pointcut_lang::matcher::ShadowKind as K;
    [
        K::MethodCall,
        K::ConstructorCall,
        K::MethodExecution,
        K::ConstructorExecution,
        K::FieldGet,
        K::FieldSet,
        K::StaticInitialization,
        K::Initialization,
        K::PreInitialization,
        K::ExceptionHandler,
        K::AdviceExecution,
    ]
};

/// The join-point kind name a report counts of code `code` (its index in
/// [`KINDS`]), as `&'static str`.
pub(crate) fn kind_of_code(code: u64) -> Option<&'static str> {
    KINDS
        .get(usize::try_from(code).ok()?)
        .map(|&k| crate::weave::kind_name(k))
}

/// The code of the join-point kind name `name` ([`kind_of_code`]).
pub(crate) fn code_of_kind(name: &str) -> Option<u64> {
    KINDS
        .iter()
        .position(|&k| crate::weave::kind_name(k) == name)
        .map(|i| i as u64)
}

/// Adds a stored outcome of entry `e` (class `class` of input `e.input`) to
/// the report, as `weave_run`'s tally adds a fresh one (its per-class record
/// only if the report keeps them: [`WeaveOptions::class_records`]).
fn tally_stored(
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<(String, DeclareHit)>,
    class: &str,
    e: &EntryRecord,
) {
    let Some(o) = &e.outcome else { return };
    let extra = e.outputs.get(1).map(String::as_str);
    tally_outcome(report, hits, errors, class, (e.input, extra), o);
}

/// [`tally_stored`] of record `k` of the previous state `old` (`scratch`:
/// room to decode its outcome into).
fn tally_old(
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<(String, DeclareHit)>,
    class: &str,
    (old, k): (&StateView, u32),
    scratch: &mut StoredOutcome,
) {
    if !old.outcome_into(k, scratch) {
        return;
    }
    // (The extra class's file only for a per-class record.)
    let extra = report
        .keeps_class_records
        .then(|| old.output(k, 1))
        .flatten();
    tally_outcome(report, hits, errors, class, (old.input(k), extra), scratch);
}

/// Adds what the state kept of a class's weave (`o`, of the entry of input
/// `input` whose extra class went to the file `extra`) to the report.
fn tally_outcome(
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<(String, DeclareHit)>,
    class: &str,
    (input, extra): (usize, Option<&str>),
    o: &StoredOutcome,
) {
    if report.keeps_class_records {
        report
            .class_records
            .extend(class_record(class, input, extra, o));
    }
    report.classes += 1;
    report.woven += usize::from(o.woven);
    report.empty_finalizers += o.empty_finalizers;
    report.intrinsics += o.intrinsics;
    for n in &o.notes {
        if !report.notes.contains(n) {
            report.notes.push(n.clone());
        }
    }
    for &(k, n) in &o.advised {
        *report.advised.entry(k).or_insert(0) += n;
    }
    for (a, n) in &o.hits {
        hits[*a] += n;
    }
    for d in &o.declares {
        if d.is_error {
            errors.push((class.to_string(), d.clone()));
        } else {
            report.declare_warnings.push(d.clone());
        }
    }
    report.skipped_methods.extend(o.skipped.iter().cloned());
}

/// The report's record of a class whose outcome the state kept, as
/// [`ClassRecord::of`](crate::report::ClassRecord::of) makes it of a fresh
/// one.
fn class_record(
    class: &str,
    input: usize,
    extra: Option<&str>,
    o: &StoredOutcome,
) -> Option<crate::report::ClassRecord> {
    let quiet = !o.woven
        && o.skipped.is_empty()
        && o.intrinsics == 0
        && o.empty_finalizers == 0
        && o.notes.is_empty()
        && o.declares.is_empty();
    if quiet {
        return None;
    }
    Some(crate::report::ClassRecord {
        name: class.to_string(),
        input: Some(input),
        release: None,
        woven: o.woven,
        // The class's file, then its extra class's.
        extra_class: extra.map(|f| f.trim_end_matches(".class").to_string()),
        shadows: o.advised.iter().copied().collect(),
        advice: o.hits.clone(),
        advice_kinds: o.kinds.iter().map(|&(a, k, n)| ((a, k), n)).collect(),
        skipped_methods: o.skipped.clone(),
        intrinsics: o.intrinsics,
        empty_finalizers: o.empty_finalizers,
        notes: o.notes.clone(),
        declares: o.declares.clone(),
    })
}

/// The state a run starts from, and what it builds.
pub struct Session {
    dir: PathBuf,
    key: String,
    read: Prefetched,
}

/// What a session reads before it needs the aspects: the inputs' stamps
/// ([`Prefetched::stamps`], on the main thread, which then indexes the
/// inputs with them) and the previous weave's state ([`StateFile::read`], on
/// the thread that compiles or loads the aspects, once they are done). On a
/// one-class update of guava each is 2–3 ms that would otherwise follow the
/// aspects.
pub struct Prefetched {
    stamped: Stamped,
    state: Result<ReadState, Option<String>>,
}

impl Prefetched {
    /// The stamps of `inputs` for a weave (`opts`, [`eligible`] for
    /// incremental state).
    pub fn stamps(opts: &WeaveOptions, inputs: &[Arc<Archive>]) -> Stamped {
        Stamped::take(opts, inputs)
    }

    /// What a session starts from: the stamps, and the state `file` read
    /// from the output `opts.output` (checked, for a jar, against the jar
    /// now there).
    /// `opened`: the output jar as [`OpenedOutput::open`] found it, if it
    /// was opened ahead.
    pub fn new(
        opts: &WeaveOptions,
        stamped: Stamped,
        file: Option<StateFile>,
        opened: Option<OpenedOutput>,
    ) -> Prefetched {
        let state = match file {
            Some(f) => f.check(&opts.output, &stamped, opened),
            None => Err(None),
        };
        Prefetched { stamped, state }
    }
}

/// What a run with incremental state does.
pub enum Mode {
    /// A full weave (through the ordinary writer), recording the new state.
    Full(Box<Recorder>),
    /// An update in place of the output directory.
    Update(Box<Update>),
}

impl Session {
    /// The session of a weave that keeps incremental state ([`eligible`]),
    /// from what was read for it.
    pub fn new(
        opts: &WeaveOptions,
        program: &Program,
        aspects: &CompiledAspects,
        read: Prefetched,
    ) -> Session {
        Session {
            dir: opts.output.clone(),
            key: global_key(opts, program, aspects),
            read,
        }
    }

    /// Decides between a full weave and an update: an update needs a sound
    /// state of the same key, an output directory holding only what major
    /// wrote there, and every class the weave as a whole looked up
    /// (`global`) unchanged.
    pub fn decide(self, index: &ClassIndex, global: Deps, advice: usize) -> Mode {
        let global = sorted(global);
        let Session {
            dir,
            key,
            read: Prefetched { stamped, state },
        } = self;
        let found = previous(&dir, &key, index, &global, advice, &stamped, state);
        // One record per input entry: allocated once, not grown.
        let inputs = stamped.inputs.iter().map(|(a, _)| a.entries().len()).sum();
        let mut recorder = Recorder {
            key,
            global,
            entries: Vec::with_capacity(inputs),
            why: None,
            reuse: None,
            stamped,
            scratch: StoredOutcome::default(),
        };
        let p = match found {
            Ok(p) => p,
            Err(why) => {
                recorder.why = why;
                return Mode::Full(Box::new(recorder));
            }
        };
        if let Some(jar) = p.jar {
            let old = p.old;
            let by_name = (0..old.len() as u32)
                .map(|k| ((old.input(k), name_hash(old.name(k))), k))
                .collect();
            recorder.reuse = Some(Box::new(Reuse {
                by_name,
                taken: (0..old.len()).map(|_| AtomicBool::new(false)).collect(),
                old,
                changed: p.changed,
                fresh: p.fresh,
                jar,
                summary: Summary::default(),
            }));
            return Mode::Full(Box::new(recorder));
        }
        Mode::Update(Box::new(Update {
            dir,
            written_at: p.written_at,
            old: p.old,
            fresh: p.fresh,
            changed: p.changed,
            global: recorder.global,
            key: recorder.key,
            stamped: recorder.stamped,
            records: Vec::new(),
            writes: Vec::new(),
            notes: Vec::new(),
            summary: Summary::default(),
        }))
    }
}

/// A 64-bit hash of an entry's name, to find a previous state's record by
/// (its name compared then: a collision finds none, and the entry is woven
/// again).
fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// The record of the previous state `old` for the entry `name` of input
/// `input`, found through `by_name` ([`name_hash`]).
fn find_record(
    old: &StateView,
    by_name: &HashMap<(usize, u64), u32>,
    input: usize,
    name: &str,
) -> Option<u32> {
    let k = *by_name.get(&(input, name_hash(name)))?;
    (old.name(k) == name).then_some(k)
}

/// Whether a class that record `k` of `old` looked up looks different now
/// (`changed`: per row of its table, the levels that do).
fn touched(old: &StateView, changed: &[u8], k: u32) -> bool {
    if changed.is_empty() {
        return false;
    }
    let mut any = false;
    old.deps(k, |row, l| {
        any |= changed[row as usize] & state::bit(l) != 0
    });
    any
}

/// What the previous weave into an output left, sound and of the same key.
struct Previous {
    /// The state (its file's bytes: a jar's without the jar's digest).
    old: StateView,
    /// When the state file was written.
    written_at: std::time::SystemTime,
    /// The previous jar, for a weave into a jar.
    jar: Option<Archive>,
    /// The prints of the classes of the old table computed again (those the
    /// stamps could not vouch for).
    fresh: BTreeMap<String, ClassPrint>,
    /// Per row of the old table, the levels that look different now (empty:
    /// none does).
    changed: Vec<u8>,
}

/// A state file read and parsed, not yet checked against this weave.
struct ReadState {
    /// The state, or what is wrong with its bytes.
    parsed: Result<StateView, String>,
    /// The file.
    path: PathBuf,
    /// When it was written.
    written_at: std::time::SystemTime,
    /// The previous jar, for a weave into a jar (checked against the digest
    /// the state begins with).
    jar: Option<Archive>,
}

/// The state file the previous weave into an output left, read and checked
/// (what needs neither the aspects, nor the index, nor the stamps).
pub struct StateFile {
    /// The file.
    path: PathBuf,
    /// A jar's first line.
    first: Option<Vec<u8>>,
    /// The state (a jar's: without its first line, the jar's digest), or
    /// what is wrong with its bytes.
    parsed: Result<StateView, String>,
    /// When it was written.
    written_at: std::time::SystemTime,
}

impl StateFile {
    /// Reads and checks the state the previous weave into `output` (a
    /// directory, or a jar: the state is then beside it) left; `None`: no
    /// state to read.
    pub fn read(output: &Path) -> Option<StateFile> {
        let into_jar = OutputArchive::kind_for(output) == OutputKind::Zip;
        let path = if into_jar {
            state_beside(output)
        } else {
            output.join(STATE_FILE)
        };
        let mut bytes = std::fs::read(&path).ok()?;
        // A jar's state begins with the digest of the jar it describes
        // ([`jar_digest`]: its central directory), checked by [`check`].
        let first = if into_jar {
            // (No first line: a damaged state, whose first line reads as
            // another jar's.)
            let n = bytes
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(bytes.len());
            let first = bytes[..n].to_vec();
            // The state moved to the front of the buffer it was read into,
            // not copied into a new one.
            bytes.drain(..(n + 1).min(bytes.len()));
            Some(first)
        } else {
            None
        };
        // The state is written last: an output file changed after it was
        // changed by something else (a compiler writing into the classes
        // directory again), and its entry is woven again.
        let written_at = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
        Some(StateFile {
            path,
            first,
            parsed: StateView::read(bytes),
            written_at,
        })
    }

    /// The state as read, with the previous jar opened for a weave into the
    /// jar `output` if it is the one the state describes (its digest as
    /// `stamped` recorded it, if its stamp is the same, else read and
    /// hashed).
    fn check(
        self,
        output: &Path,
        stamped: &Stamped,
        opened: Option<OpenedOutput>,
    ) -> Result<ReadState, Option<String>> {
        let jar = match &self.first {
            Some(first) => Some(jar_as_left(first, output, stamped, opened).map_err(Some)?),
            None => None,
        };
        Ok(ReadState {
            parsed: self.parsed,
            path: self.path,
            written_at: self.written_at,
            jar,
        })
    }
}

/// The previous weave into `dir`, if this one (of key `key`, whose weave as
/// a whole looked up `global`, with `advice` advice) can build on it; else
/// why not (`None`: no state, nothing to say).
fn previous(
    dir: &Path,
    key: &str,
    index: &ClassIndex,
    global: &[(Dep, Level)],
    advice: usize,
    stamped: &Stamped,
    read: Result<ReadState, Option<String>>,
) -> Result<Previous, Option<String>> {
    let ReadState {
        parsed,
        path,
        written_at,
        jar,
    } = read?;
    let damaged = |why: String| Some(format!("{} is damaged ({why})", path.display()));
    let old = parsed.map_err(damaged)?;
    if old.max_advice().is_some_and(|a| a >= advice) {
        return Err(damaged("an advice number out of range".into()));
    }
    if old.key() != key {
        return Err(Some("the aspects, the options or major changed".into()));
    }
    // (A jar's bytes were checked against its state above; a directory
    // checked by `major weave` before the weave is not listed again.)
    if jar.is_none() && !checked_already(dir) {
        major_archive::check_replace(&[dir.to_path_buf()], &[], false)
            .map_err(|e| Some(format!("the output is not as major left it ({e})")))?;
    }
    // What every class looked up was, and is now: computed again for the
    // classes the stamps cannot vouch for.
    let again = stamped.changed_names(index, &old);
    let mut wanted: BTreeMap<String, BTreeSet<Level>> = BTreeMap::new();
    let mut was: BTreeMap<String, ClassPrint> = BTreeMap::new();
    let mut consider = |r: u32| {
        let p = old.row_print(r);
        let name = old.row_name(r);
        wanted.insert(name.to_string(), p.levels.keys().copied().collect());
        was.insert(name.to_string(), p);
    };
    match &again {
        Some(names) => {
            for n in names {
                if let Some(r) = old.find(n) {
                    consider(r);
                }
            }
        }
        None => (0..old.rows() as u32).for_each(consider),
    }
    let fresh = prints(index, &wanted, &was, false);
    let mut changed = Vec::new();
    for (name, now) in &fresh {
        let bits = was[name]
            .levels
            .iter()
            .filter(|(l, fp)| now.levels.get(l) != Some(fp))
            .fold(0, |b, (l, _)| b | state::bit(*l));
        if let (1.., Some(r)) = (bits, old.find(name)) {
            changed.resize(old.rows(), 0);
            changed[r as usize] |= bits;
        }
    }
    let global_changed = !changed.is_empty()
        && global.iter().any(|(n, l)| {
            old.find(n)
                .is_some_and(|r| changed[r as usize] & state::bit(*l) != 0)
        });
    if global_changed || old.global() != global {
        return Err(Some(
            "a class the aspects name, or their own classes look up, changed".into(),
        ));
    }
    Ok(Previous {
        old,
        written_at,
        jar,
        fresh,
        changed,
    })
}

/// A full weave's state, built entry by entry as the weave goes; into a jar
/// with a sound state, also what the previous weave left that can be reused.
pub struct Recorder {
    key: String,
    global: Vec<(Dep, Level)>,
    entries: Vec<Record>,
    why: Option<String>,
    reuse: Option<Box<Reuse>>,
    stamped: Stamped,
    /// Room to decode a kept record's outcome into.
    scratch: StoredOutcome,
}

/// A weave into a jar whose previous weave left a sound state: the jar is
/// written whole by the ordinary writer, but an input entry whose bytes and
/// lookups are unchanged is not woven again: its woven class (and extra
/// class) are read from the previous jar, and its report from the state. So
/// the output is what a full weave writes, by construction.
pub struct Reuse {
    /// (input, [`name_hash`] of the entry's name) → its record in `old`.
    by_name: HashMap<(usize, u64), u32>,
    /// Which records of `old` a [`Recorder::kept`] entry took (each at most
    /// once: an input may hold two entries of one name).
    taken: Vec<AtomicBool>,
    /// The previous weave's state.
    old: StateView,
    /// Per row of the old table, the levels that look different now.
    changed: Vec<u8>,
    /// The prints of the classes of the old table computed again.
    fresh: BTreeMap<String, ClassPrint>,
    /// The previous output jar (still in place until this weave's replaces it).
    jar: Archive,
    summary: Summary,
}

/// An input entry that needs no weave: its record in the previous state, and
/// the bytes its woven class and extra class (name, bytes) had in the
/// previous output.
pub struct Kept {
    /// The entry's record in the previous state ([`Recorder::keep`]).
    pub old: u32,
    /// The woven class, if the weave changed it.
    pub class: Option<PreparedEntry>,
    /// The extra class beside it.
    pub extra: Option<PreparedEntry>,
}

/// Where the incremental state of a weave into the jar `output` lives: a
/// hidden file beside it (`.NAME.major`), so that the jar holds only what a
/// weave puts there. (Not `.NAME.major-*`: those are the output writer's
/// temporaries.)
pub fn state_beside(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.major"))
}

/// Writes the state of a weave into the jar `output` beside it (after the jar
/// is in place): the jar's digest ([`jar_digest`]) on the first line, then
/// `state`.
pub fn write_beside(
    output: &Path,
    state: &[u8],
    mut stamps: PendingStamps,
) -> Result<(), MajorError> {
    let fail = |e: std::io::Error| MajorError::Usage(format!("{}: {e}", output.display()));
    // Stamped before it is read: a jar changed in between has another stamp.
    let stamp = FileStamp::of(output);
    let sha = jar_digest::of(output).map_err(fail)?;
    let first = format!("output {sha}\n");
    stamps.file.output = stamp.map(|s| (s, sha));
    // The first line, then the state: two writes, not a copy of the state
    // into a buffer of its own.
    binary::replace(&state_beside(output), &[first.as_bytes(), state]).map_err(fail)?;
    stamps.save();
    Ok(())
}

/// The jar `output` opened, if it is the one a state file whose first line
/// is `first` describes: `opened` if it is the file there now (the same
/// stamp), else opened again.
fn jar_as_left(
    first: &[u8],
    output: &Path,
    stamped: &Stamped,
    opened: Option<OpenedOutput>,
) -> Result<Archive, String> {
    let not_as_left = || format!("{} is not as major left it", output.display());
    let now = FileStamp::of(output);
    // The jar's digest: as recorded with its stamp, if the stamp is the
    // same, else read and hashed.
    let sha = match stamped.output_digest(now) {
        Some(sha) => sha,
        None => jar_digest::of(output).map_err(|_| not_as_left())?,
    };
    if first != format!("output {sha}").as_bytes() {
        return Err(not_as_left());
    }
    match opened {
        Some(OpenedOutput { stamp, jar }) if Some(stamp) == now => Ok(jar),
        _ => Archive::open(output).map_err(|e| format!("{}: {e}", output.display())),
    }
}

/// An output jar opened ahead (its central directory read while the weave
/// does other things), with its stamp when it was opened.
pub struct OpenedOutput {
    stamp: FileStamp,
    jar: Archive,
}

impl OpenedOutput {
    /// The jar `output`, if it is one and keeps one stamp while it is
    /// opened.
    pub fn open(output: &Path) -> Option<OpenedOutput> {
        let stamp = FileStamp::of(output)?;
        let jar = Archive::open(output).ok()?;
        (jar.kind() == ArchiveKind::Zip && FileStamp::of(output) == Some(stamp))
            .then_some(OpenedOutput { stamp, jar })
    }
}

/// One input entry as a full weave saw it: its hash and what its weave looked
/// up (from [`observe`]).
pub struct Observed {
    hash: Print,
    deps: Deps,
}

/// Runs `weave` (the weave of entry `i` of `a`) recording what it looks up,
/// and hashes the entry, when `on`.
pub fn observe<T>(
    recorder: Option<&Recorder>,
    index: &ClassIndex,
    input: usize,
    a: &Arc<Archive>,
    i: usize,
    weave: impl FnOnce() -> Result<T, MajorError>,
) -> Result<(T, Option<Observed>), MajorError> {
    let Some(recorder) = recorder else {
        return Ok((weave()?, None));
    };
    let (r, deps) = deps::capture(weave);
    let hash = recorder.stamped.hash(index, input, a, i)?;
    Ok((r?, Some(Observed { hash, deps })))
}

impl Recorder {
    /// Entry `i` of `a` (input `input`), if the previous weave's output can
    /// stand for its weave: its bytes and every class its weave looked up
    /// are as they were, and the previous jar holds its files. `None`
    /// without a previous weave to reuse.
    pub fn kept(
        &self,
        index: &ClassIndex,
        input: usize,
        a: &Arc<Archive>,
        i: usize,
        compression: Compression,
    ) -> Result<Option<Kept>, MajorError> {
        let Some(reuse) = self.reuse.as_deref() else {
            return Ok(None);
        };
        let old = &reuse.old;
        let e = &a.entries()[i];
        let Some(k) = find_record(old, &reuse.by_name, input, &e.name) else {
            return Ok(None);
        };
        if reuse.taken[k as usize].load(Ordering::Relaxed)
            || touched(old, &reuse.changed, k)
            || !self.stamped.same_hash(index, input, a, i, &old.hash(k))?
        {
            return Ok(None);
        }
        // The previous jar's entry `name`, as it is stored there (an earlier
        // weave of the same key deflated the same bytes the same way), else
        // inflated and deflated again.
        let prepared = |name: &str, like: bool| -> Result<Option<PreparedEntry>, MajorError> {
            let Some(k) = reuse.jar.find(name) else {
                return Ok(None);
            };
            let reused = match like {
                true => PreparedEntry::like_reused(compression, a, i, &reuse.jar, k),
                false => PreparedEntry::new_reused(compression, name, &reuse.jar, k),
            };
            if let Some(p) = reused.map_err(MajorError::from)? {
                return Ok(Some(p));
            }
            let Ok(bytes) = reuse.jar.read(k) else {
                return Ok(None);
            };
            Ok(Some(match like {
                true => PreparedEntry::like(OutputKind::Zip, compression, a, i, bytes)?,
                false => PreparedEntry::new(OutputKind::Zip, compression, name, bytes),
            }))
        };
        // A woven class's files: the class under the entry's name, then its
        // extra class (none when an aspect class replaces it).
        let (mut class, mut extra) = (None, None);
        if old.woven(k) == Some(true) && old.output(k, 0) == Some(e.name.as_str()) {
            let Some(c) = prepared(&e.name, true)? else {
                return Ok(None);
            };
            class = Some(c);
            if let Some(x) = old.output(k, 1) {
                let Some(x) = prepared(x, false)? else {
                    return Ok(None);
                };
                extra = Some(x);
            }
        }
        if reuse.taken[k as usize].swap(true, Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(Some(Kept {
            old: k,
            class,
            extra,
        }))
    }

    /// Whether there is a previous weave into a jar to reuse entries of
    /// ([`kept`](Self::kept) can answer `Some`).
    pub fn reusing(&self) -> bool {
        self.reuse.is_some()
    }

    /// Records an entry [`kept`](Self::kept) from the previous weave (its
    /// record `old` there), and adds its class's outcome to the report.
    pub fn keep(
        &mut self,
        old: u32,
        class: &str,
        report: &mut WeaveReport,
        hits: &mut [usize],
        errors: &mut Vec<(String, DeclareHit)>,
    ) {
        if let Some(r) = self.reuse.as_deref() {
            tally_old(
                report,
                hits,
                errors,
                class,
                (&r.old, old),
                &mut self.scratch,
            );
            self.entries.push(Record::Old(old));
        }
    }

    /// Records entry `i` of `a` (input `input`): `outcome` and whether the
    /// class changed if it was woven, and the files it went to.
    pub fn entry(
        &mut self,
        input: usize,
        a: &Archive,
        i: usize,
        seen: Observed,
        outcome: Option<(&ClassOutcome, bool)>,
        outputs: Vec<String>,
    ) {
        if let Some(r) = self.reuse.as_deref_mut() {
            match outcome {
                Some(_) => r.summary.rewoven += 1,
                None => r.summary.recopied += 1,
            }
        }
        self.entries.push(Record::New(Box::new(EntryRecord {
            name: a.entries()[i].name.clone(),
            input,
            hash: seen.hash,
            outputs,
            deps: sorted(seen.deps),
            outcome: outcome.map(|(o, woven)| Box::new(stored_outcome(o, woven))),
        })));
    }

    /// The state of the weave but for the classes major added (known once
    /// the aspects' own classes are woven: [`PreparedState::finish`]), and
    /// the summary: prepared while the output writer finishes.
    pub fn prepare(self, index: &ClassIndex) -> PreparedState {
        let Recorder {
            key,
            global,
            entries,
            why,
            reuse,
            stamped,
            scratch: _,
        } = self;
        let hashed = stamped.hashed.load(Ordering::Relaxed);
        let is_class = |old: Option<&StateView>, e: &Record| match e {
            Record::Old(k) => old.is_some_and(|v| v.woven(*k).is_some()),
            Record::New(e) => e.outcome.is_some(),
        };
        let (old, fresh, summary) = match reuse {
            Some(r) => {
                let Reuse {
                    taken,
                    old,
                    fresh,
                    summary,
                    ..
                } = *r;
                // The old entries neither kept nor woven again.
                let now: FxHashSet<(usize, &str)> = entries
                    .iter()
                    .filter_map(|e| match e {
                        Record::New(e) => Some((e.input, e.name.as_str())),
                        Record::Old(_) => None,
                    })
                    .collect();
                let removed = (0..old.len() as u32)
                    .filter(|&k| {
                        !taken[k as usize].load(Ordering::Relaxed)
                            && !now.contains(&(old.input(k), old.name(k)))
                    })
                    .count();
                let classes = entries.iter().filter(|e| is_class(Some(&old), e)).count();
                let summary = Summary {
                    classes,
                    hashed,
                    removed,
                    ..summary
                };
                (Some(old), fresh, summary)
            }
            None => {
                let classes = entries.iter().filter(|e| is_class(None, e)).count();
                let summary = Summary {
                    hashed,
                    rewoven: classes,
                    classes,
                    full: Some(why.unwrap_or_else(|| NO_STATE.into())),
                    ..Summary::default()
                };
                (None, BTreeMap::new(), summary)
            }
        };
        let body = next_state(index, &key, &global, &entries, old.as_ref(), fresh);
        let pending = stamped.pending(index, &entries, old.as_ref());
        PreparedState {
            body,
            summary,
            pending,
        }
    }
}

/// A weave's state but for the classes major added ([`Recorder::prepare`]).
pub struct PreparedState {
    body: binary::Writer,
    summary: Summary,
    pending: PendingStamps,
}

impl PreparedState {
    /// The state file of the weave, whose added files are `added`; the
    /// summary; and the stamps to save with the state.
    pub fn finish(self, added: &[String]) -> (Vec<u8>, Summary, PendingStamps) {
        let bytes = with_added(self.body, added.iter().map(String::as_str));
        let mut pending = self.pending;
        pending.file.state = binary::digest_of(&bytes);
        (bytes, self.summary, pending)
    }
}

/// A file to write into the output: name, bytes, permission bits (`None`:
/// the default for a new file).
type Write = (String, Vec<u8>, Option<u32>);

/// An incremental weave: the entries that need it re-woven, the output
/// directory updated in place.
pub struct Update {
    dir: PathBuf,
    /// When the old state was written (after every output file).
    written_at: std::time::SystemTime,
    /// The old state.
    old: StateView,
    stamped: Stamped,
    /// The prints of the classes of the old table computed again.
    fresh: BTreeMap<String, ClassPrint>,
    /// Per row of the old table, the levels that look different now.
    changed: Vec<u8>,
    global: Vec<(Dep, Level)>,
    key: String,
    records: Vec<Record>,
    writes: Vec<Write>,
    notes: Vec<String>,
    summary: Summary,
}

/// What the weave of one input entry gives in an update: its record and the
/// files to write.
struct Redone {
    record: EntryRecord,
    writes: Vec<Write>,
}

/// The permission bits of a file, as a directory output copies them.
fn mode_of(path: &Path) -> Option<u32> {
    OutputArchive::mode_of(path)
}

impl Update {
    /// Weaves the entries of `input` that need it (in parallel), adding
    /// every entry's outcome to the report in input order, as a full weave
    /// does; the files are written by [`commit`](Self::commit).
    #[allow(clippy::too_many_arguments)]
    pub fn weave_inputs(
        &mut self,
        weaver: &Weaver<'_>,
        index: &ClassIndex,
        input: &Arc<Archive>,
        replaced: &FxHashSet<&str>,
        added_packages: &BTreeSet<String>,
        report: &mut WeaveReport,
        hits: &mut [usize],
        errors: &mut Vec<(String, DeclareHit)>,
    ) -> Result<(), MajorError> {
        // The old entries by name.
        let view = &self.old;
        let old: HashMap<&str, u32> = (0..view.len() as u32).map(|k| (view.name(k), k)).collect();
        // Every file the old entries left, statted a directory at a time:
        // whether each is still as major left it, a file last modified no
        // later than the state (written after every output). A file
        // rewritten since, e.g. by a compiler writing into the classes
        // directory again, is not; one restored with its old time is taken
        // as it is.
        let out_names: Vec<&str> = (0..view.len() as u32)
            .flat_map(|k| view.outputs(k))
            .collect();
        let left: HashMap<&str, bool> = out_names
            .iter()
            .zip(stamps::stat_under(&self.dir, &out_names))
            .map(|(n, s)| {
                (
                    *n,
                    s.is_some_and(|(s, file)| file && !s.after(self.written_at)),
                )
            })
            .collect();
        let n = input.entries().len();
        // Which entries can stay as they are (with the hash of each).
        type Told = Result<(Option<u32>, Print), MajorError>;
        let told: Vec<Told> = (0..n)
            .into_par_iter()
            .map(|i| {
                let e = &input.entries()[i];
                let hash = self.stamped.hash(index, 0, input, i)?;
                let Some(&k) = old.get(e.name.as_str()) else {
                    return Ok((None, hash));
                };
                let same = view.hash(k) == hash
                    && !touched(view, &self.changed, k)
                    && view.outputs(k).iter().all(|f| left.get(f) == Some(&true));
                Ok((same.then_some(k), hash))
            })
            .collect();
        drop((old, left));
        let (kept, hashes): (Vec<Option<u32>>, Vec<Print>) = told
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let redo: Vec<(usize, Print)> = (0..n)
            .filter(|&i| kept[i].is_none())
            .map(|i| (i, hashes[i]))
            .collect();
        let redone: Vec<Result<Redone, MajorError>> = redo
            .into_par_iter()
            .map(|(i, hash)| redo_entry(weaver, index, input, i, hash, replaced, added_packages))
            .collect();
        let redo: Vec<usize> = (0..n).filter(|&i| kept[i].is_none()).collect();
        let mut redone = redo.iter().copied().zip(redone).peekable();
        let mut records = Vec::with_capacity(n);
        let mut scratch = StoredOutcome::default();
        for (i, k) in kept.iter().enumerate() {
            let e = &input.entries()[i];
            if e.class_name().is_some_and(|n| replaced.contains(n)) {
                self.notes.push(format!(
                    "{}!{}: replaced by the aspect class major compiled",
                    input.path().display(),
                    e.name
                ));
            }
            if e.class_name().is_some() {
                self.summary.classes += 1;
            }
            match k {
                Some(k) => {
                    let class = e.class_name().unwrap_or(&e.name);
                    tally_old(report, hits, errors, class, (&self.old, *k), &mut scratch);
                    records.push(Record::Old(*k));
                }
                None => {
                    let (j, r) = redone.next().expect("one result per entry re-done");
                    debug_assert_eq!(i, j);
                    let r = r?;
                    match &r.record.outcome {
                        Some(_) => {
                            self.summary.rewoven += 1;
                            tally_stored(
                                report,
                                hits,
                                errors,
                                e.class_name().unwrap_or(&e.name),
                                &r.record,
                            );
                        }
                        None => self.summary.recopied += 1,
                    }
                    self.writes.extend(r.writes);
                    records.push(Record::New(Box::new(r.record)));
                }
            }
        }
        self.records = records;
        Ok(())
    }

    /// Brings the output directory up to date: the files of the re-woven
    /// entries and the `added` classes written (those whose bytes differ),
    /// the files of deleted entries removed, the manifest (if the files
    /// listed change) and the state rewritten. The state file goes first and
    /// comes back last: a run interrupted in between leaves no state, and
    /// the next run is full. A run that changes nothing writes nothing.
    pub fn commit(
        mut self,
        index: &ClassIndex,
        added: &[(String, Vec<u8>)],
        report: &mut WeaveReport,
    ) -> Result<Summary, MajorError> {
        let io = |what: &str, path: &Path, e: std::io::Error| {
            MajorError::Usage(format!("{}: {what}: {e}", path.display()))
        };
        // Every file the output will hold, each from one source only.
        let mut files: BTreeSet<String> = BTreeSet::new();
        let old = &self.old;
        let outputs = |r: &Record| -> Vec<String> {
            match r {
                Record::Old(k) => old.outputs(*k).into_iter().map(str::to_string).collect(),
                Record::New(e) => e.outputs.clone(),
            }
        };
        for name in self
            .records
            .iter()
            .flat_map(outputs)
            .chain(added.iter().map(|(n, _)| n.clone()))
        {
            if files.contains(&name) {
                return Err(MajorError::Usage(format!(
                    "{}: {name} would be written twice",
                    self.dir.display()
                )));
            }
            files.insert(name);
        }
        let old_files: BTreeSet<String> = (0..old.len() as u32)
            .flat_map(|k| old.outputs(k))
            .chain(old.added())
            .map(str::to_string)
            .collect();
        let write = |name: &str, bytes: &[u8], mode: Option<u32>| -> Result<(), MajorError> {
            let path = self.dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io("cannot create", parent, e))?;
            }
            major_archive::write_reserved(&path, &[bytes])
                .map_err(|e| io("cannot write", &path, e))?;
            if let Some(mode) = mode {
                set_mode(&path, mode).map_err(|e| io("cannot set the mode of", &path, e))?;
            }
            Ok(())
        };
        let added_writes: Vec<&(String, Vec<u8>)> = added
            .iter()
            .filter(|(name, bytes)| {
                std::fs::read(self.dir.join(name)).ok().as_deref() != Some(bytes.as_slice())
            })
            .collect();
        let fresh = std::mem::take(&mut self.fresh);
        let body = next_state(
            index,
            &self.key,
            &self.global,
            &self.records,
            Some(&self.old),
            fresh,
        );
        let bytes = with_added(body, added.iter().map(|(n, _)| n.as_str()));
        let gone: Vec<&String> = old_files.difference(&files).collect();
        report.notes.append(&mut self.notes);
        self.summary.hashed = self
            .stamped
            .hashed
            .load(std::sync::atomic::Ordering::Relaxed);
        // The encoding is canonical: the same bytes, the same state.
        if self.writes.is_empty()
            && added_writes.is_empty()
            && gone.is_empty()
            && bytes == self.old.bytes()
        {
            // Nothing changed: the output and its state stay as they are,
            // and so do the stamps if every input was told by its stamp.
            if !self.stamped.all_known() {
                let old = Some(&self.old);
                self.stamped
                    .save(index, self.old.bytes(), &self.records, old);
            }
            return Ok(self.summary);
        }
        let state_path = self.dir.join(STATE_FILE);
        match std::fs::remove_file(&state_path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot remove the state", &state_path, e)),
        }
        let listed = |extra: &BTreeSet<String>| -> Result<(), MajorError> {
            let names = files
                .iter()
                .chain(extra)
                .map(String::as_str)
                .chain([STATE_FILE]);
            major_archive::write_dir_manifest(&self.dir, names)
                .map_err(|e| io("cannot write the manifest", &self.dir, e))
        };
        // The manifest lists every file major writes before they are written
        // and no longer lists those removed after: rewritten only when the
        // files change.
        let same_files = files == old_files;
        if !same_files {
            listed(&old_files)?;
        }
        for (name, bytes, mode) in &self.writes {
            write(name, bytes, *mode)?;
        }
        for (name, bytes) in added_writes {
            write(name, bytes, None)?;
        }
        for gone in gone {
            let path = self.dir.join(gone);
            match std::fs::remove_file(&path) {
                Ok(()) => self.summary.removed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("cannot remove", &path, e)),
            }
            // Directories left empty go too, as a full weave makes none.
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| *d != self.dir && d.starts_with(&self.dir)) {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        if !same_files {
            listed(&BTreeSet::new())?;
        }
        write(STATE_FILE, &bytes, None)?;
        self.stamped
            .save(index, &bytes, &self.records, Some(&self.old));
        Ok(self.summary)
    }
}

/// Sets the permission bits of `path`.
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// Weaves (or copies) entry `i` of `input` as a full weave into a directory
/// does (`weave_run`'s `weave_entry` and writer): a woven class with the
/// input file's permission bits and its extra class beside it; a class an
/// aspect class replaces, nothing; a module descriptor with the packages of
/// the added classes; anything else copied.
fn redo_entry(
    weaver: &Weaver<'_>,
    index: &ClassIndex,
    a: &Arc<Archive>,
    i: usize,
    hash: Print,
    replaced: &FxHashSet<&str>,
    added_packages: &BTreeSet<String>,
) -> Result<Redone, MajorError> {
    let e = &a.entries()[i];
    let input_file = a.path().join(&e.name);
    let mode = mode_of(&input_file);
    let copy = |record: EntryRecord| -> Result<Redone, MajorError> {
        Ok(Redone {
            writes: vec![(e.name.clone(), a.read(i)?.into_owned(), mode)],
            record: EntryRecord {
                outputs: vec![e.name.clone()],
                ..record
            },
        })
    };
    let mut record = EntryRecord {
        name: e.name.clone(),
        input: 0,
        hash,
        outputs: Vec::new(),
        deps: Vec::new(),
        outcome: None,
    };
    let class = match e.class_name() {
        Some(c) if !e.name.starts_with(major_archive::VERSIONS) => c,
        _ => return copy(record),
    };
    let bytes = index.input_bytes(a, i)?;
    let (outcome, deps) = deps::capture(|| weaver.weave_class(&bytes));
    let mut outcome = outcome.map_err(|err| MajorError::class(a.path(), &e.name, err))?;
    record.deps = sorted(deps);
    let woven = outcome.bytes.take();
    let extra = outcome.extra.take();
    record.outcome = Some(Box::new(stored_outcome(&outcome, woven.is_some())));
    if replaced.contains(class) {
        return Ok(Redone {
            record,
            writes: Vec::new(),
        });
    }
    let mut writes = Vec::new();
    match woven {
        Some(b) => {
            writes.push((e.name.clone(), b, mode));
            if let Some((n, x)) = extra {
                writes.push((format!("{n}.class"), x, None));
            }
        }
        None if is_module_info(e) && !added_packages.is_empty() => {
            match crate::modules::add_module_packages(&bytes, added_packages)
                .map_err(|err| MajorError::class(a.path(), &e.name, err))?
            {
                Some(b) => writes.push((e.name.clone(), b, mode)),
                None => return copy(record),
            }
        }
        None => return copy(record),
    }
    record.outputs = writes.iter().map(|(n, _, _)| n.clone()).collect();
    Ok(Redone { record, writes })
}

/// Whether `e` is a module descriptor at the root (a directory input has no
/// versioned section that is woven).
fn is_module_info(e: &major_archive::Entry) -> bool {
    e.name == "module-info.class"
}
