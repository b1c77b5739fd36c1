//! Real-program workloads (issue 12): javac, xalan, h2, hsqldb, lucene 4.10 and
//! antlr4, each driven by a small Java program of `tests/workloads/src`
//! (package `workloads.<name>`) on inputs generated from fixed seeds, so they
//! can be run on a plain JDK and on a woven one and their results compared.
//!
//! How to use it:
//!
//! 1. [`prepare`] with a JDK compiles the drivers with that JDK's `javac`
//!    (`--release 17`), puts each workload's driver classes in a jar of its
//!    own (`jars/workloads-<name>.jar`, so it can be woven like the library
//!    jars) and generates every input once (`inputs/<name>/`).
//! 2. [`Prepared::class_path`] is a workload's application: its driver jar
//!    and the library jars it runs ([`Workload::app_jars`], from
//!    `/usr/share/java`). Weave those (and `major-runtime.jar` if the runtime
//!    is not in a woven `java.base`), then
//! 3. [`Prepared::run`] runs the workload with any `java` and JVM options,
//!    on the plain class path or on a replacement one (the woven jars), in a
//!    fresh work directory. Its [`Outcome`] has the exit status, the output,
//!    the time taken and a SHA-256 [`Outcome::digest`] over the result files
//!    (`out/` of the work directory: sorted relative paths and contents) and
//!    stdout. Databases, indexes and other scratch files are written beside
//!    `out/` and are not digested; stderr (where aspects report) is not either.
//! 4. [`Digests`] holds the expected digest of each workload per JDK feature
//!    version, recorded from unwoven runs in `tests/workloads/digests.toml`
//!    (rewritten by the workload test when `MAJOR_BLESS=1`).
//!
//! The drivers are deterministic: no timestamps, hash-order iteration, thread
//! timing or absolute paths reach their results. Each run gets
//! [`FIXED_JVM_OPTIONS`] (locale, time zone, encoding) before the caller's
//! options, so the machine's settings do not change the results either.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// Where the Debian packages put the workloads' jars.
pub const SHARE_JAVA: &str = "/usr/share/java";

/// JVM options every run gets before the caller's: the locale, time zone and
/// file encoding the recorded digests were taken with.
pub const FIXED_JVM_OPTIONS: &[&str] = &[
    "-Duser.language=en",
    "-Duser.country=US",
    "-Duser.timezone=UTC",
    "-Dfile.encoding=UTF-8",
];

/// How long a run may take before it is killed (woven runs are slower).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// One workload: a driver class and the library jars it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Short name (`javac`, `xalan`, ...): the driver's package is `workloads.<name>`.
    pub name: &'static str,
    /// What the workload does and what its results are.
    pub about: &'static str,
    /// The jars of `/usr/share/java` on its class path, in class-path order.
    pub jars: &'static [&'static str],
    /// The Debian packages that install [`Workload::jars`].
    pub packages: &'static [&'static str],
}

impl Workload {
    /// The driver's main class, `workloads.<name>.Main`.
    pub fn main_class(&self) -> String {
        format!("workloads.{}.Main", self.name)
    }

    /// The application (library) jars of the workload, in class-path order;
    /// the driver jar is [`Prepared::driver_jar`]. Empty for javac, whose
    /// code is the JDK's `jdk.compiler` module.
    pub fn app_jars(&self) -> Vec<PathBuf> {
        self.jars
            .iter()
            .map(|j| Path::new(SHARE_JAVA).join(j))
            .collect()
    }

    /// The application jars that are not installed.
    pub fn missing_jars(&self) -> Vec<PathBuf> {
        self.app_jars()
            .into_iter()
            .filter(|p| !p.is_file())
            .collect()
    }
}

/// Every workload, in a fixed order.
pub fn all() -> Vec<Workload> {
    vec![
        Workload {
            name: "javac",
            about: "the JDK's javac (javax.tools, in the same JVM) compiles a generated source tree \
                    (generics, lambdas, inner classes, enums, records, switch on strings); the class \
                    files written, javac's diagnostics, and the compiled program's output",
            jars: &[],
            packages: &[],
        },
        Workload {
            name: "xalan",
            about: "xalan's interpretive XSLT processor (not the JDK's XSLTC) transforms a generated \
                    catalogue (keys, sorting, xsl:number, recursion, string functions); the output \
                    documents",
            // xercesImpl is the XML parser xalan finds through JAXP; xalan's
            // manifest also names xml-apis.jar, whose javax.xml classes the
            // JDK's java.xml module supplies (and which Debian does not link).
            jars: &["xalan2.jar", "serializer.jar", "xercesImpl.jar"],
            packages: &["libxalan2-java", "libxerces2-java"],
        },
        Workload {
            name: "h2",
            about: "H2 2.1 file database: tables, batched inserts, indexes, a rolled-back \
                    transaction, joins, aggregates, subqueries, updates; every query's rows",
            // h2's manifest names lucene-core 8 and slf4j: only its full-text
            // search and logging adapters use them, which the workload does not.
            jars: &["h2.jar"],
            packages: &["libh2-java"],
        },
        Workload {
            name: "hsqldb",
            about: "HSQLDB 2 file database (cached tables), the same SQL workload as h2; every \
                    query's rows",
            // hsqldb's servlet dependency is only for its HTTP server.
            jars: &["hsqldb.jar"],
            packages: &["libhsqldb-java"],
        },
        Workload {
            name: "lucene",
            about: "Lucene 4.10 indexes a generated corpus into an FSDirectory (serial merges, \
                    deletes, forceMerge), then term, phrase, boolean, prefix, wildcard, range and \
                    parsed queries, scored and sorted; the hits",
            jars: &[
                "lucene-core-4.10.4.jar",
                "lucene-analyzers-common-4.10.4.jar",
                "lucene-queryparser-4.10.4.jar",
            ],
            packages: &["liblucene4.10-java"],
        },
        Workload {
            name: "antlr4",
            about: "the ANTLR 4.7 tool (in the same JVM) generates a Java parser, lexer, listener \
                    and visitor from a grammar, then the grammar's interpreters parse a generated \
                    program; the generated files and the parse tree",
            // The tool's own dependencies that it loads: the antlr4 runtime,
            // antlr3's runtime (its grammar-of-grammars parser) and
            // StringTemplate 4 (code generation). icu4j, treelayout and
            // javax.json (Debian dependencies of the package) serve only the
            // Unicode-data generator, the GUI and -Xlog JSON; no class of
            // theirs is loaded by this workload.
            jars: &[
                "antlr4.jar",
                "antlr4-runtime.jar",
                "antlr3-runtime.jar",
                "stringtemplate4.jar",
            ],
            packages: &[
                "antlr4",
                "libantlr4-runtime-java",
                "libantlr3-runtime-java",
                "libstringtemplate4-java",
            ],
        },
    ]
}

/// The workload called `name`.
pub fn by_name(name: &str) -> Option<Workload> {
    all().into_iter().find(|w| w.name == name)
}

/// `tests/workloads` of the repository.
pub fn workloads_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads")
}

/// The drivers' Java sources, `tests/workloads/src`.
pub fn source_dir() -> PathBuf {
    workloads_dir().join("src")
}

/// The feature version of the JDK at `jdk_home` (17, 25, ...), from its
/// `release` file.
pub fn jdk_feature(jdk_home: &Path) -> Result<u32, String> {
    let release = jdk_home.join("release");
    let text = std::fs::read_to_string(&release)
        .map_err(|e| format!("reading {}: {e}", release.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))
        .map(|v| v.trim_matches('"'))
        .and_then(|v| v.split(['.', '-', '+']).next()?.parse().ok())
        .ok_or_else(|| format!("{}: no JAVA_VERSION=\"N...\" line", release.display()))
}

/// The drivers compiled and the inputs generated by one JDK, in one directory.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The directory holding `classes/`, `jars/` and `inputs/`.
    pub dir: PathBuf,
    /// The JDK that compiled the drivers and generated the inputs.
    pub jdk_home: PathBuf,
    /// That JDK's feature version.
    pub feature: u32,
    /// How long [`Prepared::run`] lets a run take before killing it.
    pub timeout: Duration,
}

/// Compiles the drivers with the `javac` of `jdk_home` into `dir/classes`, puts
/// each workload's driver classes (and the shared `workloads.*` classes) into
/// `dir/jars/workloads-<name>.jar`, and generates every workload's inputs into
/// `dir/inputs/<name>` (with that JDK's `java`). `dir` is created if missing.
/// Fails, naming what is missing and the Debian packages to install, if any
/// workload's jars are not installed.
pub fn prepare(jdk_home: &Path, dir: &Path) -> Result<Prepared, String> {
    let feature = jdk_feature(jdk_home)?;
    let missing: Vec<String> = all()
        .iter()
        .filter(|w| !w.missing_jars().is_empty())
        .map(|w| {
            format!(
                "{} needs {:?} (Debian: {})",
                w.name,
                w.missing_jars(),
                w.packages.join(" ")
            )
        })
        .collect();
    if !missing.is_empty() {
        return Err(format!("workload jars missing: {}", missing.join("; ")));
    }
    let classes = dir.join("classes");
    let jars = dir.join("jars");
    let inputs = dir.join("inputs");
    // A second prepare into the same directory must not jar stale classes.
    if classes.exists() {
        std::fs::remove_dir_all(&classes)
            .map_err(|e| format!("removing old classes {}: {e}", classes.display()))?;
    }
    for d in [&classes, &jars] {
        std::fs::create_dir_all(d).map_err(|e| format!("creating {}: {e}", d.display()))?;
    }
    let mut sources = Vec::new();
    java_sources(&source_dir(), &mut sources)?;
    sources.sort();
    let compile_cp: Vec<PathBuf> = all().iter().flat_map(|w| w.app_jars()).collect();
    let out = Command::new(jdk_home.join("bin/javac"))
        .args([
            "--release",
            "17",
            "-g",
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-d",
        ])
        .arg(&classes)
        .arg("-cp")
        .arg(join_paths(&compile_cp)?)
        .args(&sources)
        .output()
        .map_err(|e| format!("running {}/bin/javac: {e}", jdk_home.display()))?;
    if !out.status.success() {
        return Err(format!(
            "javac of the workload drivers ({}) failed:\n{}{}",
            source_dir().display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let prepared = Prepared {
        dir: dir.to_path_buf(),
        jdk_home: jdk_home.to_path_buf(),
        feature,
        timeout: DEFAULT_TIMEOUT,
    };
    for w in all() {
        write_driver_jar(&classes, w.name, &prepared.driver_jar(&w))?;
    }
    if inputs.exists() {
        std::fs::remove_dir_all(&inputs)
            .map_err(|e| format!("removing old inputs {}: {e}", inputs.display()))?;
    }
    let out = Command::new(jdk_home.join("bin/java"))
        .args(FIXED_JVM_OPTIONS)
        .arg("-cp")
        .arg(&classes)
        .arg("workloads.gen.Generate")
        .arg(&inputs)
        .output()
        .map_err(|e| format!("running {}/bin/java: {e}", jdk_home.display()))?;
    if !out.status.success() {
        return Err(format!(
            "generating the workload inputs into {} failed:\n{}{}",
            inputs.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(prepared)
}

/// Every `.java` file under `dir`.
fn java_sources(dir: &Path, into: &mut Vec<PathBuf>) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
        let p = e
            .map_err(|e| format!("reading {}: {e}", dir.display()))?
            .path();
        if p.is_dir() {
            java_sources(&p, into)?;
        } else if p.extension().is_some_and(|x| x == "java") {
            into.push(p);
        }
    }
    Ok(())
}

/// Writes `jar` with the classes of `workloads/<name>/` and the shared
/// classes directly in `workloads/`.
fn write_driver_jar(classes: &Path, name: &str, jar: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    relative_files(classes, classes, &mut files)?;
    let prefix = format!("workloads/{name}/");
    let mut out = major_archive::OutputArchive::create(jar, major_archive::OutputKind::Zip)
        .map_err(|e| format!("creating {}: {e}", jar.display()))?;
    out.write(
        "META-INF/MANIFEST.MF",
        format!("Manifest-Version: 1.0\r\nMain-Class: workloads.{name}.Main\r\n\r\n").as_bytes(),
    )
    .map_err(|e| format!("writing {}: {e}", jar.display()))?;
    for rel in files {
        let shared = rel.starts_with("workloads/") && rel[10..].find('/').is_none();
        if rel.starts_with(&prefix) || shared {
            let bytes = std::fs::read(classes.join(&rel))
                .map_err(|e| format!("reading {}: {e}", classes.join(&rel).display()))?;
            out.write(&rel, &bytes)
                .map_err(|e| format!("writing {rel} to {}: {e}", jar.display()))?;
        }
    }
    out.finish()
        .map_err(|e| format!("finishing {}: {e}", jar.display()))
}

/// Every file under `dir`, as `/`-separated paths relative to `root`, sorted.
fn relative_files(root: &Path, dir: &Path, into: &mut Vec<String>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading {}: {e}", dir.display()))?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            relative_files(root, &p, into)?;
        } else {
            let rel = p.strip_prefix(root).expect("under root");
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            into.push(parts.join("/"));
        }
    }
    into.sort();
    Ok(())
}

/// `paths` joined with `:` for a class path.
fn join_paths(paths: &[PathBuf]) -> Result<OsString, String> {
    std::env::join_paths(paths).map_err(|e| format!("class path {paths:?}: {e}"))
}

/// What one run of a workload did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The JVM's exit status (killed after the timeout: not a success).
    pub status: ExitStatus,
    /// Whether the run was killed for taking longer than [`Prepared::timeout`].
    pub timed_out: bool,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error (aspects report here; not digested).
    pub stderr: String,
    /// SHA-256 (lower-case hex) over the result files and stdout; see [`digest_results`].
    pub digest: String,
    /// The number of result files under `out/`.
    pub files: usize,
    /// Wall time from start to exit.
    pub elapsed: Duration,
    /// CPU time (user and system, every thread of the JVM: JIT compilers and
    /// the garbage collector too). Less sensitive than the wall time to other
    /// work on the machine.
    pub cpu: Duration,
}

/// The CPU time of this process's children that have exited and been waited
/// for (`getrusage(RUSAGE_CHILDREN)`).
fn children_cpu() -> Duration {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

impl Outcome {
    /// Whether the JVM exited with status 0 in time.
    pub fn success(&self) -> bool {
        self.status.success() && !self.timed_out
    }

    /// A report for assertion messages: status, time, digest, stdout and the
    /// end of stderr.
    pub fn describe(&self) -> String {
        let tail: Vec<&str> = self.stderr.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!(
            "status {}{}, {:.2} s, {} files, digest {}\nstdout:\n{}stderr (last 40 lines):\n{}",
            self.status,
            if self.timed_out { " (timed out)" } else { "" },
            self.elapsed.as_secs_f64(),
            self.files,
            self.digest,
            self.stdout,
            tail.join("\n")
        )
    }
}

impl Prepared {
    /// The jar of workload `w`'s driver classes, `jars/workloads-<name>.jar`.
    pub fn driver_jar(&self, w: &Workload) -> PathBuf {
        self.dir
            .join("jars")
            .join(format!("workloads-{}.jar", w.name))
    }

    /// The whole application of `w`: its driver jar, then [`Workload::app_jars`].
    /// These are the jars to weave; their file names are distinct, so
    /// `major weave <class_path...> -o DIR` writes `DIR/<file name>` for each.
    pub fn class_path(&self, w: &Workload) -> Vec<PathBuf> {
        let mut cp = vec![self.driver_jar(w)];
        cp.extend(w.app_jars());
        cp
    }

    /// The inputs of `w`, `inputs/<name>`.
    pub fn inputs(&self, w: &Workload) -> PathBuf {
        self.dir.join("inputs").join(w.name)
    }

    /// Runs `w` with `java`: [`FIXED_JVM_OPTIONS`], then `jvm_options`, then
    /// `-cp` with `class_path` (the woven replacements of
    /// [`Prepared::class_path`], plus any runtime jar) or, if `None`, the plain
    /// [`Prepared::class_path`], in the work directory `work` (created; it must
    /// be missing or empty). The driver writes its results to `work/out`.
    /// Errors only if the run could not be started or its results not read;
    /// a failing JVM is an [`Outcome`] whose [`Outcome::success`] is false.
    pub fn run(
        &self,
        w: &Workload,
        java: &Path,
        jvm_options: &[OsString],
        class_path: Option<&[PathBuf]>,
        work: &Path,
    ) -> Result<Outcome, String> {
        std::fs::create_dir_all(work).map_err(|e| format!("creating {}: {e}", work.display()))?;
        let not_empty = std::fs::read_dir(work)
            .map_err(|e| format!("reading {}: {e}", work.display()))?
            .next()
            .is_some();
        if not_empty {
            return Err(format!(
                "work directory {} of workload {} is not empty",
                work.display(),
                w.name
            ));
        }
        let cp = match class_path {
            Some(cp) => cp.to_vec(),
            None => self.class_path(w),
        };
        let cpu_before = children_cpu();
        let start = Instant::now();
        let mut child = Command::new(java)
            .args(FIXED_JVM_OPTIONS)
            .args(jvm_options)
            .arg("-cp")
            .arg(join_paths(&cp)?)
            .arg(w.main_class())
            .arg(self.inputs(w))
            .current_dir(work)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {} for workload {}: {e}", java.display(), w.name))?;
        let stdout = drain(child.stdout.take().expect("piped stdout"));
        let stderr = drain(child.stderr.take().expect("piped stderr"));
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > self.timeout => {
                    timed_out = true;
                    let _ = child.kill();
                    break child
                        .wait()
                        .map_err(|e| format!("waiting for workload {}: {e}", w.name))?;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("waiting for workload {}: {e}", w.name)),
            }
        };
        let elapsed = start.elapsed();
        let cpu = children_cpu().saturating_sub(cpu_before);
        let stdout = stdout.join().expect("stdout reader");
        let stderr = stderr.join().expect("stderr reader");
        let (digest, files) = digest_results(&work.join("out"), stdout.as_bytes())?;
        Ok(Outcome {
            status,
            timed_out,
            stdout,
            stderr,
            digest,
            files,
            elapsed,
            cpu,
        })
    }
}

/// Reads `r` to the end on a thread of its own (so a chatty JVM never blocks
/// on a full pipe), lossily as UTF-8.
fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// SHA-256 (lower-case hex) over the files under `out` (sorted by their
/// `/`-separated relative paths; each as `file <path>\n<length>\n<bytes>`)
/// followed by `stdout <length>\n<bytes>`; with the number of files. A missing
/// `out` counts as no files.
pub fn digest_results(out: &Path, stdout: &[u8]) -> Result<(String, usize), String> {
    let mut files = Vec::new();
    if out.is_dir() {
        relative_files(out, out, &mut files)?;
    }
    let mut h = Sha256::new();
    for rel in &files {
        let bytes =
            std::fs::read(out.join(rel)).map_err(|e| format!("reading result {rel}: {e}"))?;
        h.update(format!("file {rel}\n{}\n", bytes.len()).as_bytes());
        h.update(&bytes);
    }
    h.update(format!("stdout {}\n", stdout.len()).as_bytes());
    h.update(stdout);
    let digest = h
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    Ok((digest, files.len()))
}

/// The recorded digests: workload name → digest, per JDK feature version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digests {
    /// `jdk<feature>` (e.g. `jdk17`) → workload name → SHA-256 hex.
    pub by_jdk: BTreeMap<String, BTreeMap<String, String>>,
}

impl Digests {
    /// `tests/workloads/digests.toml`.
    pub fn path() -> PathBuf {
        workloads_dir().join("digests.toml")
    }

    /// Reads `path` (a missing file is no digests).
    pub fn load(path: &Path) -> Result<Digests, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Digests::default()),
            Err(e) => return Err(format!("reading {}: {e}", path.display())),
        };
        let by_jdk: BTreeMap<String, BTreeMap<String, String>> =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Digests { by_jdk })
    }

    /// The recorded digest of `workload` on JDK `feature`.
    pub fn get(&self, feature: u32, workload: &str) -> Option<&str> {
        self.by_jdk
            .get(&format!("jdk{feature}"))?
            .get(workload)
            .map(String::as_str)
    }

    /// Records `digest` for `workload` on JDK `feature`.
    pub fn set(&mut self, feature: u32, workload: &str, digest: &str) {
        self.by_jdk
            .entry(format!("jdk{feature}"))
            .or_default()
            .insert(workload.to_string(), digest.to_string());
    }

    /// Writes the digests to `path` (sections and keys sorted).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut text = String::from(
            "# Expected SHA-256 of each workload's results (the files under out/ and stdout;\n\
             # see tests/src/workloads.rs), per JDK feature version, recorded from unwoven runs.\n\
             # Rewrite with: MAJOR_BLESS=1 cargo test --release -p major-tests --test workloads\n",
        );
        for (jdk, digests) in &self.by_jdk {
            text.push_str(&format!("\n[{jdk}]\n"));
            for (w, d) in digests {
                text.push_str(&format!("{w} = \"{d}\"\n"));
            }
        }
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    }
}
