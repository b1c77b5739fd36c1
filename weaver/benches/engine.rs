//! Benchmark of the class-file engine over whole JDKs.
//!
//! Every measurement is compared with a baseline measured in the same run:
//! the cost of merely getting the same class-file bytes out of their archive.
//! Ratios are what to look at; absolute times depend on the machine and its
//! load. See `bench/README.md` for what each number means.
//!
//! Run with `cargo bench -p major-weaver --bench engine -- [GROUP...]` (or
//! `bench/run.sh`). Groups: `jmods` (zip read, round trip, codec over all JDK 17
//! jmods), `reframe17`, `reframe25`; default all. Environment:
//! `MAJOR_BENCH_RUNS` (best of N, default 3), `MAJOR_BENCH_JDK17`,
//! `MAJOR_BENCH_JDK25` (JDK homes).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use major_archive::{Archive, OutputArchive, OutputKind};
use major_classfile::rewrite::{reencode_class, Mode};
use major_classfile::{write_class, ClassEdit, ClassFile, ClassHierarchy};
use major_weaver::index::ClassIndex;
use rayon::prelude::*;

const DEFAULT_JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const DEFAULT_JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";
/// The row that stands for all jmods measurements when they are skipped.
const JMODS_SKIP: &str = "jmods: read, round trip, codec";
const GROUPS: [&str; 3] = ["jmods", "reframe17", "reframe25"];

/// The class entries of some archives, as (archive, entry) pairs: the unit of
/// parallel work for every measurement.
struct Classes {
    archives: Vec<Archive>,
    jobs: Vec<(usize, usize)>,
    /// Sum of the declared (uncompressed) sizes of the class entries.
    bytes: u64,
}

impl Classes {
    /// Every class entry of `archives` that `keep` accepts (by entry name).
    fn new(archives: Vec<Archive>, keep: impl Fn(&str) -> bool) -> Classes {
        let mut jobs = Vec::new();
        let mut bytes = 0;
        for (a, archive) in archives.iter().enumerate() {
            for (i, e) in archive.entries().iter().enumerate() {
                if e.class_name().is_some() && keep(&e.name) {
                    jobs.push((a, i));
                    bytes += e.size;
                }
            }
        }
        Classes {
            archives,
            jobs,
            bytes,
        }
    }

    fn mb(&self) -> f64 {
        self.bytes as f64 / 1e6
    }

    /// Name of a job's entry, for messages.
    fn name(&self, (a, i): (usize, usize)) -> String {
        let archive = &self.archives[a];
        format!("{}!{}", archive.path().display(), archive.entries()[i].name)
    }

    /// Bytes of one class.
    fn read(&self, (a, i): (usize, usize)) -> std::borrow::Cow<'_, [u8]> {
        self.archives[a]
            .read(i)
            .unwrap_or_else(|e| panic!("{}: {e}", self.name((a, i))))
    }

    /// Baseline: read (decompress) every class and copy it into a fresh Vec.
    fn read_copy(&self) -> u64 {
        self.jobs
            .par_iter()
            .map(|&job| {
                let bytes = self.read(job);
                let copy = bytes.to_vec();
                black_box(&copy);
                copy.len() as u64
            })
            .sum()
    }

    /// Read, parse, write back unchanged; the bytes must be identical.
    fn round_trip(&self) -> u64 {
        self.jobs
            .par_iter()
            .map(|&job| {
                let bytes = self.read(job);
                let class =
                    ClassFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", self.name(job)));
                let written = write_class(&class, &ClassEdit::new(&class));
                assert!(
                    written == *bytes,
                    "{}: round trip changed the bytes",
                    self.name(job)
                );
                written.len() as u64
            })
            .sum()
    }

    /// Read and `reencode_class` in `mode`; returns the bytes read and the
    /// failures (entry: error).
    fn reencode(&self, mode: Mode, hierarchy: &dyn ClassHierarchy) -> (u64, Vec<String>) {
        let results: Vec<(u64, Option<String>)> = self
            .jobs
            .par_iter()
            .map(|&job| {
                let bytes = self.read(job);
                match reencode_class(&bytes, mode, hierarchy) {
                    Ok((out, _stats)) => {
                        black_box(&out);
                        if mode == Mode::Identity && out != *bytes {
                            let msg = format!("{}: re-encoded class differs", self.name(job));
                            return (bytes.len() as u64, Some(msg));
                        }
                        (bytes.len() as u64, None)
                    }
                    Err(e) => (bytes.len() as u64, Some(format!("{}: {e}", self.name(job)))),
                }
            })
            .collect();
        let total = results.iter().map(|r| r.0).sum();
        (total, results.into_iter().filter_map(|r| r.1).collect())
    }
}

/// What a measurement is held to.
#[derive(Clone, Copy)]
enum Target {
    None,
    /// Best time at most this multiple of the baseline's best time.
    RatioAtMost(f64),
    /// Best time under this many seconds.
    SecondsUnder(f64),
}

/// One line of the final table.
struct Row {
    name: String,
    mb: f64,
    /// Seconds of each run.
    runs: Vec<f64>,
    /// Index of the baseline row in the table.
    baseline: Option<usize>,
    target: Target,
    failures: usize,
    note: String,
    skipped: Option<String>,
}

impl Row {
    fn new(name: &str, mb: f64, baseline: Option<usize>, target: Target) -> Row {
        Row {
            name: name.to_string(),
            mb,
            runs: Vec::new(),
            baseline,
            target,
            failures: 0,
            note: String::new(),
            skipped: None,
        }
    }

    fn skipped(name: &str, reason: String) -> Row {
        let mut r = Row::new(name, 0.0, None, Target::None);
        r.skipped = Some(reason);
        r
    }

    fn best(&self) -> Option<f64> {
        self.runs.iter().copied().reduce(f64::min)
    }
}

struct Bench {
    runs: usize,
    rows: Vec<Row>,
}

impl Bench {
    fn push(&mut self, row: Row) -> usize {
        self.rows.push(row);
        self.rows.len() - 1
    }

    /// Times `f` once, records it in row `r` and prints the run.
    fn run<T>(&mut self, r: usize, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        let secs = t.elapsed().as_secs_f64();
        let row = &mut self.rows[r];
        row.runs.push(secs);
        println!(
            "  {:<38} run {}: {:>7.3} s {:>8.1} MB/s",
            row.name,
            row.runs.len(),
            secs,
            row.mb / secs.max(1e-9)
        );
        out
    }

    fn ratio(&self, r: usize) -> Option<f64> {
        let row = &self.rows[r];
        let base = self.rows[row.baseline?].best()?;
        Some(row.best()? / base.max(1e-9))
    }

    /// The smallest and largest ratio of a run to the baseline run just
    /// before it (the runs are interleaved): how stable the ratio is.
    fn ratio_spread(&self, r: usize) -> Option<(f64, f64)> {
        let row = &self.rows[r];
        let base = &self.rows[row.baseline?];
        let ratios = row
            .runs
            .iter()
            .zip(&base.runs)
            .map(|(t, b)| t / b.max(1e-9));
        ratios.fold(None, |acc, x| match acc {
            None => Some((x, x)),
            Some((lo, hi)) => Some((f64::min(lo, x), f64::max(hi, x))),
        })
    }

    fn print_table(&self) {
        println!();
        println!(
            "{:<38} {:>8} {:>8} {:>8} {:>8}  {:<10} status",
            "measurement", "MB", "best s", "MB/s", "ratio", "target"
        );
        for (i, row) in self.rows.iter().enumerate() {
            if let Some(reason) = &row.skipped {
                println!("{:<38} skipped: {reason}", row.name);
                continue;
            }
            let Some(best) = row.best() else { continue };
            let ratio = self.ratio(i);
            let ratio_s = ratio.map(|x| format!("{x:.2}x")).unwrap_or_default();
            let (target, mut status) = match row.target {
                Target::None => (String::new(), String::new()),
                Target::RatioAtMost(t) => {
                    let ok = ratio.is_some_and(|x| x <= t);
                    (
                        format!("<= {t}x"),
                        if ok { "OK" } else { "MISSED" }.to_string(),
                    )
                }
                Target::SecondsUnder(t) => {
                    let ok = best < t;
                    (
                        format!("< {t} s"),
                        if ok { "OK" } else { "MISSED" }.to_string(),
                    )
                }
            };
            if row.failures > 0 {
                status = format!("{status} FAILED({})", row.failures)
                    .trim()
                    .to_string();
            }
            println!(
                "{:<38} {:>8.1} {:>8.3} {:>8.1} {:>8}  {:<10} {}{}",
                row.name,
                row.mb,
                best,
                row.mb / best.max(1e-9),
                ratio_s,
                target,
                status,
                notes(row, self.ratio_spread(i))
            );
        }
    }

    fn record_failures(&mut self, r: usize, failures: &[String]) {
        let row = &mut self.rows[r];
        row.failures = row.failures.max(failures.len());
        for f in failures.iter().take(3) {
            eprintln!("    failure: {f}");
        }
        if failures.len() > 3 {
            eprintln!("    ... and {} more", failures.len() - 3);
        }
    }
}

fn main() {
    let runs = match std::env::var("MAJOR_BENCH_RUNS") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| {
                eprintln!("MAJOR_BENCH_RUNS={v:?} is not a positive number; using 3");
                3
            }),
        Err(_) => 3,
    };
    // `cargo bench` passes `--bench`; other flags are ignored too.
    let groups: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for g in &groups {
        if !GROUPS.contains(&g.as_str()) {
            eprintln!("unknown group {g:?}; groups are {}", GROUPS.join(", "));
            std::process::exit(2);
        }
    }
    let wanted = |g: &str| groups.is_empty() || groups.iter().any(|x| x == g);
    let jdk17 = env_path("MAJOR_BENCH_JDK17", DEFAULT_JDK17);
    let jdk25 = env_path("MAJOR_BENCH_JDK25", DEFAULT_JDK25);

    println!(
        "major engine benchmark: best of {runs} runs, {} rayon threads",
        rayon::current_num_threads()
    );
    let mut bench = Bench {
        runs,
        rows: Vec::new(),
    };
    if wanted("jmods") {
        jmods(&mut bench, &jdk17);
    }
    if wanted("reframe17") {
        reframe_jdk17(&mut bench, &jdk17);
    }
    if wanted("reframe25") {
        reframe_jdk25(&mut bench, &jdk25);
    }
    bench.print_table();
    match peak_rss_kb() {
        Some(kb) => println!("{:<38} {:>8.1} MB", "peak RSS (VmHWM)", kb as f64 / 1e3),
        None => println!("peak RSS: unavailable (no VmHWM in /proc/self/status)"),
    }
}

fn env_path(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default))
}

/// Measurements 1-3: zip read+copy, round trip and codec over all jmods.
fn jmods(bench: &mut Bench, jdk17: &Path) {
    println!("\n[jmods] all classes of {}/jmods/*.jmod", jdk17.display());
    let dir = jdk17.join("jmods");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jmod"))
            .collect(),
        Err(e) => {
            bench.push(Row::skipped(JMODS_SKIP, format!("{}: {e}", dir.display())));
            return;
        }
    };
    paths.sort();
    if paths.is_empty() {
        bench.push(Row::skipped(
            JMODS_SKIP,
            format!("no .jmod in {}", dir.display()),
        ));
        return;
    }
    let archives: Vec<Archive> = match paths.iter().map(|p| Archive::open(p)).collect() {
        Ok(a) => a,
        Err(e) => {
            bench.push(Row::skipped(JMODS_SKIP, e.to_string()));
            return;
        }
    };
    let classes = Classes::new(archives, |_| true);
    println!(
        "  {} jmods, {} classes, {:.1} MB of class files",
        classes.archives.len(),
        classes.jobs.len(),
        classes.mb()
    );
    let mb = classes.mb();
    let base = bench.push(Row::new("zip read+copy (jmods)", mb, None, Target::None));
    let rt = bench.push(Row::new(
        "round trip (jmods)",
        mb,
        Some(base),
        Target::RatioAtMost(1.5),
    ));
    let codec = bench.push(Row::new(
        "round trip + codec (jmods)",
        mb,
        Some(base),
        Target::None,
    ));
    let empty = ClassIndex::new();
    // Interleaved, so that a change in the machine's load hits baseline and
    // measurement alike.
    for _ in 0..bench.runs {
        let n = bench.run(base, || classes.read_copy());
        assert_eq!(
            n, classes.bytes,
            "bytes read differ from the declared sizes"
        );
        bench.run(rt, || classes.round_trip());
        let (_, failures) = bench.run(codec, || classes.reencode(Mode::Identity, &empty));
        bench.record_failures(codec, &failures);
    }
}

/// Measurement 4 for JDK 17: re-frame java.base.jmod with an index over lib/modules.
fn reframe_jdk17(bench: &mut Bench, jdk17: &Path) {
    println!("\n[reframe17] java.base of {}", jdk17.display());
    let jmod = jdk17.join("jmods/java.base.jmod");
    let modules = jdk17.join("lib/modules");
    let base_name = "zip read+copy java.base 17";
    let name = "reframe java.base 17";
    for p in [&jmod, &modules] {
        if !p.is_file() {
            bench.push(Row::skipped(name, format!("{}: not found", p.display())));
            return;
        }
    }
    let archive = match Archive::open(&jmod) {
        Ok(a) => a,
        Err(e) => {
            bench.push(Row::skipped(name, e.to_string()));
            return;
        }
    };
    let Some(index) = build_index(bench, "index JDK 17 lib/modules", &modules) else {
        return;
    };
    let classes = Classes::new(vec![archive], |_| true);
    reframe(bench, &index, name, &classes, (base_name, &classes), None);
}

/// Measurement 4 for JDK 25: re-frame `/java.base/...` of its lib/modules.
/// JDK 25 has no jmods, so the zip baseline reads the same classes from a
/// temporary jar they are first repacked (deflated) into.
fn reframe_jdk25(bench: &mut Bench, jdk25: &Path) {
    println!("\n[reframe25] java.base of {}", jdk25.display());
    let modules = jdk25.join("lib/modules");
    let name = "reframe java.base 25";
    if !modules.is_file() {
        let reason = format!("{}: not found (set MAJOR_BENCH_JDK25)", modules.display());
        bench.push(Row::skipped(name, reason));
        return;
    }
    let Some(index) = build_index(bench, "index JDK 25 lib/modules", &modules) else {
        return;
    };
    // The index is done with its own opening; this one is for the classes.
    let archive = match Archive::open(&modules) {
        Ok(a) => a,
        Err(e) => {
            bench.push(Row::skipped(name, e.to_string()));
            return;
        }
    };
    let classes = Classes::new(vec![archive], |name| name.starts_with("/java.base/"));
    if classes.jobs.is_empty() {
        let reason = format!("{}: no /java.base/ classes", modules.display());
        bench.push(Row::skipped(name, reason));
        return;
    }
    let t = Instant::now();
    let repacked = match repack(&classes) {
        Ok(r) => r,
        Err(e) => {
            bench.push(Row::skipped(
                name,
                format!("cannot repack java.base 25 into a jar: {e}"),
            ));
            return;
        }
    };
    println!(
        "  repacked {} classes into a temporary jar in {:.3} s",
        repacked.1.jobs.len(),
        t.elapsed().as_secs_f64()
    );
    let image = ("image read+copy java.base 25", &classes);
    let zip = ("zip read+copy java.base 25 (repacked)", &repacked.1);
    reframe(bench, &index, name, &classes, zip, Some(image));
}

/// Writes the classes into a deflated jar in a temporary directory and opens
/// it; the directory lives as long as the returned guard.
fn repack(classes: &Classes) -> Result<(tempfile::TempDir, Classes), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("java.base.jar");
    let mut out = OutputArchive::create(&path, OutputKind::Zip)?;
    for &(a, i) in &classes.jobs {
        let archive = &classes.archives[a];
        let class = archive.entries()[i].class_name().expect("a class entry");
        out.write(&format!("{class}.class"), &archive.read(i)?)?;
    }
    out.finish()?;
    let jar = Archive::open(&path)?;
    let repacked = Classes::new(vec![jar], |_| true);
    if repacked.bytes != classes.bytes {
        return Err("the repacked jar's classes differ in size".into());
    }
    Ok((dir, repacked))
}

/// Builds the class-hierarchy index over `modules` once, timed.
fn build_index(bench: &mut Bench, name: &str, modules: &Path) -> Option<ClassIndex> {
    let t = Instant::now();
    let archive = match Archive::open(modules) {
        Ok(a) => a,
        Err(e) => {
            bench.push(Row::skipped(name, e.to_string()));
            return None;
        }
    };
    let mut index = ClassIndex::new();
    let errors = index.add_archive(&archive);
    let secs = t.elapsed().as_secs_f64();
    let mb = archive
        .entries()
        .iter()
        .filter(|e| e.class_name().is_some())
        .map(|e| e.size)
        .sum::<u64>() as f64
        / 1e6;
    let mut row = Row::new(name, mb, None, Target::None);
    row.runs.push(secs);
    row.failures = errors.len();
    row.note = format!("once, {} classes", index.len());
    println!("  {name}: {} classes in {secs:.3} s", index.len());
    for e in errors.iter().take(3) {
        eprintln!("    not indexed: {e}");
    }
    bench.push(row);
    Some(index)
}

/// `reencode_class(.., Reframe, ..)` of `classes`, against a plain read+copy
/// of the `baseline` classes (and, for information only, of `info`'s).
fn reframe(
    bench: &mut Bench,
    index: &ClassIndex,
    name: &str,
    classes: &Classes,
    baseline: (&str, &Classes),
    info: Option<(&str, &Classes)>,
) {
    println!(
        "  {} classes, {:.1} MB of class files",
        classes.jobs.len(),
        classes.mb()
    );
    let base = bench.push(Row::new(baseline.0, baseline.1.mb(), None, Target::None));
    let info = info.map(|(n, c)| (bench.push(Row::new(n, c.mb(), None, Target::None)), c));
    let rf = bench.push(Row::new(
        name,
        classes.mb(),
        Some(base),
        Target::SecondsUnder(2.0),
    ));
    for _ in 0..bench.runs {
        bench.run(base, || baseline.1.read_copy());
        if let Some((r, c)) = info {
            bench.run(r, || c.read_copy());
        }
        let (_, failures) = bench.run(rf, || classes.reencode(Mode::Reframe, index));
        bench.record_failures(rf, &failures);
    }
    // The index caches common super classes: the first run fills the cache.
    let row = &mut bench.rows[rf];
    row.note = format!("first run {:.3} s", row.runs[0]);
}

/// The notes column of a row: its own note and the spread of its per-run ratios.
fn notes(row: &Row, spread: Option<(f64, f64)>) -> String {
    let mut parts = Vec::new();
    if let Some((lo, hi)) = spread.filter(|_| row.runs.len() > 1) {
        parts.push(format!("per-run ratio {lo:.2}-{hi:.2}x"));
    }
    if !row.note.is_empty() {
        parts.push(row.note.clone());
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("  ({})", parts.join(", "))
    }
}

/// Peak resident set size in kB (`VmHWM`).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
