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
use std::path::{Path, PathBuf};
use std::sync::Arc;

use major_archive::{Archive, RuntimeImage};
use major_classfile::ClassFile;
use major_pointcut_lang::Program;

use crate::aspects::CompiledAspects;
use crate::index::ClassIndex;
use crate::report::MajorError;
use crate::runtime::RUNTIME_CLASSES;
use crate::weave::{bypass, context, Weaver};
use crate::woven_jdk_cache::{Lookup, WovenJdkCache, WovenJdkMode, WovenJdkSource};

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
    dispatches: &[bypass::Dispatch],
    index: &ClassIndex,
) -> Result<Vec<(String, Vec<u8>)>, MajorError> {
    let mut out = Vec::new();
    for (n, b) in classes {
        let wrapped = bypass::wrap_class_in_dib(&b, index)
            .and_then(|w| context::annotate_inlining(n.trim_end_matches(".class"), w))
            .map_err(|e| MajorError::Usage(format!("{n} with the DIB set: {e}")))?;
        out.push((n, wrapped));
    }
    let b = bypass::bypass_class(52, index, dispatches)
        .and_then(|b| context::annotate_inlining(bypass::BYPASS, b))
        .map_err(|e| MajorError::Usage(format!("bypass class: {e}")))?;
    out.push((format!("{}.class", bypass::BYPASS), b));
    Ok(out)
}

/// The jar of the classes a load-time weave adds ([`LoadTimeWeaver::added_classes`]),
/// for `--patch-module java.base=JAR`: `dir/added-<hash>.jar`, named by its
/// contents, written once (by temporary file and rename, so concurrent runs
/// are safe) and reused while a jar of that name holds exactly these classes.
///
/// Why: JDK 25 verifies the boot classes a `ClassFileLoadHook` changed (JDK
/// 17 does not), and classes linked in the primordial phase (before the
/// agent can define anything: `java.lang.Throwable` woven with `around`
/// advice needs `major.runtime.AroundClosure`) then fail to resolve the
/// added classes; the JVM recursed to a stack overflow. On the patch the boot
/// loader finds them from the start, as in the two-phase patch form.
pub fn added_classes_jar(added: &[(String, Vec<u8>)], dir: &Path) -> Result<PathBuf, MajorError> {
    let mut key = crate::aspects::cache::CacheKey::new();
    for (name, bytes) in added {
        key.bytes(name, bytes);
    }
    let path = dir.join(format!("added-{}.jar", &key.finish()[..16]));
    if added_jar_holds(&path, added) {
        return Ok(path);
    }
    let mut out = major_archive::OutputArchive::create(&path, major_archive::OutputKind::Zip)
        .map_err(MajorError::from)?;
    for (name, bytes) in added {
        out.write(name, bytes).map_err(MajorError::from)?;
    }
    out.finish().map_err(MajorError::from)?;
    Ok(path)
}

/// Whether the jar at `path` holds exactly the classes `added` (a missing
/// or damaged jar does not).
pub fn added_jar_holds(path: &Path, added: &[(String, Vec<u8>)]) -> bool {
    let Ok(jar) = Archive::open(path) else {
        return false;
    };
    let classes = jar
        .entries()
        .iter()
        .filter(|e| e.class_name().is_some())
        .count();
    classes == added.len()
        && added.iter().all(|(name, bytes)| {
            jar.find(name)
                .and_then(|i| jar.read(i).ok())
                .is_some_and(|b| *b == **bytes)
        })
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
    /// `major weave --jdk`. `bypass`: the form of the bypass checks (as
    /// `major weave --bypass`).
    pub fn new(
        program: &'p Program,
        aspects: &'p CompiledAspects,
        index: &'p ClassIndex,
        image: &RuntimeImage,
        bypass: bypass::BypassForm,
    ) -> Result<LoadTimeWeaver<'p>, MajorError> {
        let mut weaver = Weaver::new(program, aspects, index);
        weaver.full_coverage = true;
        weaver.bypass_form = bypass;
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
            &weaver.dispatches(),
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
    /// classes after it can name it. The same as [`admit`](Self::admit)
    /// then [`weave`](Self::weave).
    pub fn transform(
        &self,
        internal_name: Option<&str>,
        bytes: &[u8],
    ) -> Result<Option<Transformed>, major_classfile::Error> {
        let name = class_name(internal_name, bytes)?;
        if !self.admit(&name, bytes)? {
            return Ok(None);
        }
        self.weave(bytes)
    }

    /// The first half of [`transform`](Self::transform), which a caller
    /// that caches woven classes runs for every class, cached or not:
    /// `false` for the classes the weave added (never woven); a class the
    /// index does not know (defined at run time) is added to it, so that
    /// matching and frames of later classes can name it.
    pub fn admit(&self, name: &str, bytes: &[u8]) -> Result<bool, major_classfile::Error> {
        if self.added_names.contains(name) {
            return Ok(false);
        }
        if !self.index.contains(name) {
            self.index.add_defined(bytes)?;
        }
        Ok(true)
    }

    /// The second half of [`transform`](Self::transform): the class woven
    /// (`None` when it stays as it is), for a class [`admit`](Self::admit)
    /// let through.
    pub fn weave(&self, bytes: &[u8]) -> Result<Option<Transformed>, major_classfile::Error> {
        let mut outcome = self.weaver.weave_class(bytes)?;
        Ok(outcome.bytes.take().map(|b| Transformed {
            bytes: b,
            extra: outcome.extra.take(),
        }))
    }
}

/// The internal name of a class: `internal_name` as the JVM gave it, else
/// the one its class file `bytes` declares.
pub fn class_name<'a>(
    internal_name: Option<&'a str>,
    bytes: &[u8],
) -> Result<std::borrow::Cow<'a, str>, major_classfile::Error> {
    match internal_name {
        Some(n) => Ok(std::borrow::Cow::Borrowed(n)),
        None => Ok(std::borrow::Cow::Owned(
            ClassFile::parse(bytes)?.name()?.into_owned(),
        )),
    }
}

/// The file name of the agent library (`cargo build` puts it beside the
/// `major` binary).
pub const AGENT_LIBRARY: &str = "libmajor_agent.so";

/// What `major run --aspect` runs: `java` with the single-phase agent.
#[derive(Debug, Clone)]
pub struct AgentRun {
    /// Aspect sources.
    pub aspects: Vec<PathBuf>,
    /// The JDK that runs the program (and whose javac compiles the aspects).
    pub jdk: crate::jdk::Jdk,
    /// The aspect cache directory.
    pub cache: Option<PathBuf>,
    /// The agent library.
    pub agent: PathBuf,
    /// The agent reports a summary at exit.
    pub verbose: bool,
    /// The form of the bypass checks.
    pub bypass: bypass::BypassForm,
    /// Weave every class, without the agent's cache of woven classes
    /// (the agent's `no-class-cache`).
    pub no_class_cache: bool,
    /// A class that fails to weave ends the run (exit status 70) instead of
    /// being loaded as it was (the agent's `fatal`).
    pub fatal: bool,
    /// Whether the program runs on a JDK woven with the aspects ahead, kept
    /// in the cache ([`crate::woven_jdk_cache`]).
    pub woven_jdk: WovenJdkMode,
}

/// The `java` command of an [`AgentRun`], and what to do after it.
pub struct AgentCommand {
    /// The command.
    pub command: std::process::Command,
    /// The woven JDK it runs on, if any.
    pub woven_jdk: Option<crate::woven_jdk::WovenJdk>,
    /// A woven JDK to weave in the background after the program ends
    /// ([`WovenJdkCache::build_in_background`]): these aspects ran before
    /// without one.
    pub build_after: Option<(WovenJdkCache, String, WovenJdkSource)>,
}

/// The name of a bypass form, as `--bypass` and the agent's `bypass=` take it.
pub fn bypass_name(form: bypass::BypassForm) -> &'static str {
    match form {
        bypass::BypassForm::Guards => "guards",
        bypass::BypassForm::Duplicate => "duplicate",
    }
}

/// The bypass form of that name ([`bypass_name`]).
pub fn bypass_form(name: &str) -> Option<bypass::BypassForm> {
    [bypass::BypassForm::Guards, bypass::BypassForm::Duplicate]
        .into_iter()
        .find(|f| bypass_name(*f) == name)
}

/// The agent library beside the running `major` binary (or in the cargo
/// `deps/` directory there).
pub fn agent_beside_major() -> Result<PathBuf, MajorError> {
    let exe = std::env::current_exe()
        .map_err(|e| MajorError::Usage(format!("cannot find the major binary: {e}")))?;
    let lib = exe.with_file_name(AGENT_LIBRARY);
    // Beside the binary (an installation, `cargo build`), or in cargo's
    // `deps/` there (after `cargo test`, which does not copy it up): the
    // newer of the two.
    let deps = exe
        .parent()
        .map(|d| d.join("deps").join(AGENT_LIBRARY))
        .unwrap_or_else(|| lib.clone());
    let newest = [&lib, &deps]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p)))
        .filter(|(_, p)| p.is_file())
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p.clone());
    if let Some(found) = newest {
        Ok(found)
    } else {
        Err(MajorError::Usage(format!(
            "{}: no agent library beside major (build it with `cargo build --release -p \
             major-agent`, which puts it beside target/release/major)",
            lib.display()
        )))
    }
}

/// The agent library for `major run --aspect`: `$MAJOR_AGENT_LIBRARY` if
/// set; else the library embedded in the `major` binary (`embedded`: its
/// bytes and content hash, see `weaver/build.rs`), extracted into `cache`
/// ([`extract_agent`]; the system's temporary directory when there is no
/// cache or it cannot be written); else the library beside the binary
/// ([`agent_beside_major`]).
pub fn find_agent(
    embedded: Option<(&[u8], &str)>,
    cache: Option<&Path>,
) -> Result<PathBuf, MajorError> {
    if let Some(p) = std::env::var_os("MAJOR_AGENT_LIBRARY").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(MajorError::Usage(format!(
                "MAJOR_AGENT_LIBRARY={}: no such file",
                p.display()
            )))
        };
    }
    let Some((bytes, hash)) = embedded else {
        return agent_beside_major();
    };
    let in_cache = cache.map(|c| extract_agent(bytes, hash, &c.join("agent")));
    match in_cache {
        Some(Ok(p)) => Ok(p),
        _ => extract_agent(bytes, hash, &std::env::temp_dir()).map_err(|e| {
            MajorError::Usage(format!(
                "cannot write the agent library embedded in major to {}: {e}",
                std::env::temp_dir().display()
            ))
        }),
    }
}

/// Writes the agent library `bytes` (content hash `hash`) into `dir` as
/// `libmajor_agent-<hash>.so`, unless a file of that name and size is
/// there already (another run extracted it): written to a temporary file
/// in `dir` and renamed, so concurrent runs never load half a library.
pub fn extract_agent(bytes: &[u8], hash: &str, dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join(format!("libmajor_agent-{hash}.so"));
    if std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".libmajor_agent-")
        .tempfile_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// The class path `java` would give a program run with `args` (`-cp`,
/// `-classpath`, `--class-path`, `-jar`, else `CLASSPATH`, else `.`), as
/// the agent reads it from `java.class.path`.
pub fn java_class_path(args: &[std::ffi::OsString]) -> Vec<PathBuf> {
    let args = expand_arg_files(args);
    let mut cp: Option<std::ffi::OsString> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        match s.as_ref() {
            "-cp" | "-classpath" | "--class-path" => cp = it.next().cloned(),
            "-jar" => {
                cp = it.next().cloned();
                break;
            }
            _ if s.starts_with("--class-path=") => {
                cp = Some(s["--class-path=".len()..].into());
            }
            // The first argument that is no option is the main class: what
            // follows is the program's.
            _ if !s.starts_with('-') => break,
            _ => {}
        }
    }
    let cp = cp
        .or_else(|| std::env::var_os("CLASSPATH").filter(|c| !c.is_empty()))
        .unwrap_or_else(|| ".".into());
    std::env::split_paths(&cp).collect()
}

/// The java arguments with each `@argfile` (before the main class) replaced
/// by the arguments in the file, as `java` reads them: separated by white
/// space, quoted with `"` or `'` (a quoted part may hold spaces), `#` to the
/// end of the line a comment; `@@x` is the argument `@x`. A file that cannot
/// be read is left as it is (java reports it).
pub fn expand_arg_files(args: &[std::ffi::OsString]) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut main_seen = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if main_seen {
            out.push(a.clone());
            continue;
        }
        if let Some(rest) = s.strip_prefix("@@") {
            out.push(format!("@{rest}").into());
            continue;
        }
        if let Some(file) = s.strip_prefix('@') {
            if let Ok(text) = std::fs::read_to_string(file) {
                out.extend(arg_file_words(&text).into_iter().map(Into::into));
                continue;
            }
        }
        // The main class ends the java options (options taking a value
        // carry it in the next argument).
        if !s.starts_with('-') {
            main_seen = !out.last().is_some_and(|p: &std::ffi::OsString| {
                let p = p.to_string_lossy();
                matches!(
                    p.as_ref(),
                    "-cp"
                        | "-classpath"
                        | "--class-path"
                        | "-p"
                        | "--module-path"
                        | "--add-modules"
                        | "--add-opens"
                        | "--add-exports"
                        | "--add-reads"
                        | "--patch-module"
                        | "--upgrade-module-path"
                        | "--limit-modules"
                )
            });
        }
        if s == "-jar" || s == "-m" || s == "--module" {
            out.push(a.clone());
            if let Some(next) = it.next() {
                out.push(next.clone());
            }
            main_seen = true;
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The words of an `@argfile` (see [`expand_arg_files`]).
fn arg_file_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c == '#' && !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

impl AgentRun {
    /// Compiles the aspects as the agent will (so that it finds javac's
    /// output in the cache, and so that an aspect that does not compile is
    /// reported before the JVM starts), and returns the `java` command that
    /// runs `args` (java options, class path, main class and its arguments)
    /// with the agent.
    pub fn command(
        &self,
        args: &[std::ffi::OsString],
    ) -> Result<std::process::Command, MajorError> {
        Ok(self.prepare(args)?.command)
    }

    /// [`Self::command`], with the woven JDK it runs on (if any) and the one
    /// to weave after it (see [`WovenJdkMode`]): `build` weaves it here,
    /// before the program runs.
    pub fn prepare(&self, args: &[std::ffi::OsString]) -> Result<AgentCommand, MajorError> {
        let classpath = java_class_path(args);
        let compiled = crate::weave_run::compile_aspects(&crate::weave_run::AspectSources {
            aspects: &self.aspects,
            classpath: classpath.clone(),
            jdk: &self.jdk,
            cache: self.cache.as_deref(),
        })?;
        for w in &compiled.warnings {
            eprintln!("warning: {w}");
        }
        let mut woven_jdk = None;
        let mut build_after = None;
        let wanted = match self.woven_jdk {
            WovenJdkMode::Off => false,
            WovenJdkMode::Build => true,
            // The class cache off: every class woven as it loads.
            WovenJdkMode::Auto => !self.no_class_cache,
        };
        if let (true, Some(cache)) = (wanted, &compiled.cache_dir) {
            let source = WovenJdkSource {
                jdk: self.jdk.clone(),
                aspects: self.aspects.clone(),
                classpath: classpath.clone(),
                bypass: self.bypass,
                cache: cache.clone(),
            };
            let jdks = WovenJdkCache::new(cache);
            let key = source.key(&compiled.aspects)?;
            woven_jdk = match jdks.lookup(&key) {
                Lookup::Ready(w) => Some(w),
                Lookup::Missing => None,
                Lookup::Damaged(why) => {
                    eprintln!(
                        "major run: warning: the woven JDK of these aspects is damaged ({why}); \
                         running without it (--woven-jdk=build weaves it again)"
                    );
                    None
                }
            };
            if woven_jdk.is_some() {
                // Run on it.
            } else if self.woven_jdk == WovenJdkMode::Build {
                eprintln!(
                    "major run: weaving the JDK with the aspects, once (later runs start from it)"
                );
                woven_jdk = Some(jdks.build(&key, &source)?);
            } else if std::io::IsTerminal::is_terminal(&std::io::stderr()) && jdks.ran_before(&key)
            {
                build_after = Some((jdks, key, source));
            }
        }
        let mut options = Vec::new();
        let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
        for a in &self.aspects {
            options.push(format!("aspect={}", absolute(a).display()));
        }
        // The classes the weave adds, on `--patch-module java.base` (see
        // [`added_classes_jar`]): made here as the agent makes them. Only
        // where the JVM verifies what the hook changed (after JDK 17; JDK 17
        // gets them defined at VMStart, as the image form has them, with no
        // module patch whose reading would run Java code).
        let added_jar = if woven_jdk.is_some()
            || self.jdk.feature_version().is_some_and(|v| v <= 17)
        {
            None
        } else {
            let image = Arc::new(RuntimeImage::open(&self.jdk.modules())?);
            let index = load_time_index(image.clone(), &java_class_path(args), &compiled.aspects)?;
            let weaver = LoadTimeWeaver::new(
                &compiled.program,
                &compiled.aspects,
                &index,
                &image,
                self.bypass,
            )?;
            let dir = self
                .cache
                .as_ref()
                .map(|c| c.join("added-classes"))
                .filter(|d| std::fs::create_dir_all(d).is_ok())
                .unwrap_or_else(std::env::temp_dir);
            Some(absolute(&added_classes_jar(weaver.added_classes(), &dir)?))
        };
        if let Some(jar) = &added_jar {
            options.push(format!("added-jar={}", jar.display()));
        }
        if let Some(c) = &compiled.cache_dir {
            options.push(format!("cache={}", absolute(c).display()));
        }
        options.push(format!("jdk={}", absolute(&self.jdk.home).display()));
        if self.bypass != bypass::BypassForm::default() {
            options.push(format!("bypass={}", bypass_name(self.bypass)));
        }
        if self.verbose {
            options.push("verbose".into());
        }
        if self.no_class_cache {
            options.push("no-class-cache".into());
        }
        if self.fatal {
            options.push("fatal".into());
        }
        if woven_jdk.is_some() {
            options.push("woven-image".into());
        }
        // A path with a comma: the options go into a file (one a line),
        // named by its content, which the agent reads (`=@FILE`).
        let options = if options.iter().any(|o| o.contains(',') || o.contains('\n')) {
            if options.iter().any(|o| o.contains('\n')) {
                return Err(MajorError::Usage(
                    "a path of the agent's options holds a line break".into(),
                ));
            }
            let text = options.join("\n") + "\n";
            let dir = self
                .cache
                .as_ref()
                .map(|c| c.join("agent-options"))
                .filter(|d| std::fs::create_dir_all(d).is_ok())
                .unwrap_or_else(std::env::temp_dir);
            let mut key = crate::aspects::cache::CacheKey::new();
            key.bytes("agent options", text.as_bytes());
            let file = dir.join(format!("{}.options", &key.finish()[..16]));
            if std::fs::read(&file).ok().as_deref() != Some(text.as_bytes()) {
                let mut tmp = tempfile::Builder::new()
                    .prefix(".options-")
                    .tempfile_in(&dir)
                    .and_then(|mut t| {
                        std::io::Write::write_all(&mut t, text.as_bytes()).map(|()| t)
                    })
                    .map_err(|e| {
                        MajorError::Usage(format!("{}: cannot write: {e}", dir.display()))
                    })?;
                tmp.as_file_mut().sync_all().ok();
                tmp.persist(&file).map_err(|e| {
                    MajorError::Usage(format!("{}: cannot write: {}", file.display(), e.error))
                })?;
            }
            format!("@{}", file.display())
        } else {
            options.join(",")
        };
        let java = woven_jdk
            .as_ref()
            .map_or_else(|| self.jdk.java(), |w| w.java());
        let mut c = std::process::Command::new(java);
        c.arg(format!(
            "-agentpath:{}={options}",
            absolute(&self.agent).display(),
        ))
        .args(added_jar.iter().flat_map(|jar| {
            [
                std::ffi::OsString::from("--patch-module"),
                format!("java.base={}", jar.display()).into(),
            ]
        }))
        .args(args);
        Ok(AgentCommand {
            command: c,
            woven_jdk,
            build_after,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn cp(args: &[&str]) -> Vec<PathBuf> {
        java_class_path(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn the_embedded_agent_is_extracted_once_by_content() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("agent");
        let p = extract_agent(b"ELF one", "00aa", &dir).unwrap();
        assert_eq!(p, dir.join("libmajor_agent-00aa.so"));
        assert_eq!(std::fs::read(&p).unwrap(), b"ELF one");
        // A file of the right size is taken as it is; one of another size
        // (cut short) is written again.
        let again = extract_agent(b"ELF one", "00aa", &dir).unwrap();
        assert_eq!(again, p);
        std::fs::write(&p, b"ELF").unwrap();
        extract_agent(b"ELF one", "00aa", &dir).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"ELF one");
        // Another build: another file beside it.
        let q = extract_agent(b"ELF two!", "00bb", &dir).unwrap();
        assert_ne!(p, q);
        assert!(p.is_file() && q.is_file());
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file left");
    }

    #[test]
    fn arg_files_are_read_as_java_reads_them() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("args");
        std::fs::write(
            &f,
            "# the class path\n-cp \"lib/a b.jar:c.jar\"  -Xmx1g\n'x y' # trailing\n",
        )
        .unwrap();
        let at = format!("@{}", f.display());
        assert_eq!(
            cp(&["-Xss1m", &at, "Main"]),
            vec![PathBuf::from("lib/a b.jar"), PathBuf::from("c.jar")]
        );
        let expanded = expand_arg_files(&[OsString::from(&at)]);
        assert_eq!(expanded, ["-cp", "lib/a b.jar:c.jar", "-Xmx1g", "x y"]);
        // After the main class, `@x` is the program's; `@@` escapes.
        let after = expand_arg_files(&[
            OsString::from("-cp"),
            "d".into(),
            "Main".into(),
            at.clone().into(),
        ]);
        assert_eq!(after.last().unwrap(), &OsString::from(&at));
        assert_eq!(expand_arg_files(&["@@x".into()]), ["@x"]);
        assert_eq!(
            expand_arg_files(&["@/no/such/file".into()]),
            ["@/no/such/file"]
        );
    }

    #[test]
    fn bypass_names_round_trip() {
        for f in [bypass::BypassForm::Guards, bypass::BypassForm::Duplicate] {
            assert_eq!(bypass_form(bypass_name(f)), Some(f));
        }
        assert_eq!(bypass_form("none"), None);
    }

    #[test]
    fn class_path_as_java_reads_it() {
        assert_eq!(
            cp(&["-Xmx1g", "-cp", "a.jar:b", "Main", "-cp", "x"]),
            vec![PathBuf::from("a.jar"), PathBuf::from("b")]
        );
        assert_eq!(
            cp(&["--class-path=c.jar", "M"]),
            vec![PathBuf::from("c.jar")]
        );
        assert_eq!(
            cp(&["-jar", "app.jar", "-cp", "y"]),
            vec![PathBuf::from("app.jar")]
        );
        if std::env::var_os("CLASSPATH").is_none() {
            assert_eq!(cp(&["Main", "-cp", "z"]), vec![PathBuf::from(".")]);
        }
    }
}
