//! Calling-context profiles: the raw profile the CCT profiler's runtime
//! writes (`profile.cct`), read into a tree ([`Cct`]), and the outputs made
//! from it by [`write_profile`]:
//!
//! * `calls.folded` ([`folded`]): one line per node, `frame;...;frame COUNT`,
//!   COUNT the node's invocation count: the exchange format the JVMTI oracle
//!   writes too (`tests/jvmti/cct_oracle.c`);
//! * `wall.folded`, `cpu.folded` ([`folded`]): self time per node, in ns;
//! * `flamegraph.svg` ([`flamegraph`]), through the `inferno` crate;
//! * `speedscope.json` ([`speedscope`]): speedscope's file format;
//! * `summary.txt` ([`summary`]): totals and the hottest contexts, JDK and
//!   application apart.
//!
//! The raw profile:
//!
//! ```text
//! major-cct 1   (or the linear formats 2, see `parse_v2`, and 3, each
//!                thread's tree as the runtime writes it: [`thread_trees`])
//! metrics calls wall_ns cpu_ns
//! <path>\t<calls>\t<wall_ns>\t<cpu_ns>
//! ```
//!
//! The second line names the metric columns (`calls` first; `wall_ns` and
//! `cpu_ns` optional); then one line per node: its path of frame names
//! ([`names::frame_name`]) joined by `;`, from the thread's outermost recorded
//! frame, and its values, INCLUSIVE (time from entry to exit of the context,
//! summed over its invocations). All threads' trees are already merged. Every
//! node's parent path has a line of its own.

pub mod flamegraph;
pub mod folded;
pub mod names;
pub mod prune;
pub mod speedscope;
pub mod summary;
mod thread_trees;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use names::{frame_name, is_jdk_frame};
pub use prune::{prune, Pruned};

/// An error reading a raw profile or writing the outputs, naming the file
/// (and line).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ProfileError {
    /// A line of a profile could not be read.
    #[error("{file}:{line}: {message}")]
    #[diagnostic(code(major::profile::parse))]
    Parse {
        /// The profile read.
        file: PathBuf,
        /// The 1-based line number (0: the file as a whole).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    #[diagnostic(code(major::profile::io))]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

impl ProfileError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        ProfileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A metric of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Invocation counts (always present).
    Calls,
    /// Wall-clock time, ns.
    Wall,
    /// Thread CPU time, ns.
    Cpu,
}

impl Metric {
    /// The metric's column name in the raw profile.
    pub fn column(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Wall => "wall_ns",
            Metric::Cpu => "cpu_ns",
        }
    }

    /// The unit of its values, for people.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Wall | Metric::Cpu => "ns",
        }
    }

    /// A short name (`calls`, `wall`, `cpu`): the stem of its folded file.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Wall => "wall",
            Metric::Cpu => "cpu",
        }
    }
}

/// The rest of a format-2 raw profile (what `major.runtime.CallingContext`
/// writes), after its metrics line: `frames N`, N frame names, `nodes M`, M
/// lines `PARENT<TAB>FRAME<TAB>values` (PARENT an earlier node's number or
/// -1, FRAME a frame's number), linear in the number of contexts.
fn parse_v2<'t>(
    mut lines: impl Iterator<Item = (usize, &'t str)>,
    metrics: &[Metric],
    err: &dyn Fn(usize, String) -> ProfileError,
) -> Result<Cct, ProfileError> {
    let mut count = |what: &str| -> Result<usize, ProfileError> {
        let (n, l) = lines
            .next()
            .ok_or_else(|| err(0, format!("the file ends before `{what} N`")))?;
        l.strip_prefix(what)
            .and_then(|r| r.strip_prefix(' '))
            .and_then(|r| r.parse().ok())
            .ok_or_else(|| err(n, format!("expected `{what} N`, found {l:?}")))
    };
    let frame_count = count("frames")?;
    let mut cct = Cct {
        has_wall: metrics.contains(&Metric::Wall),
        has_cpu: metrics.contains(&Metric::Cpu),
        ..Cct::default()
    };
    for _ in 0..frame_count {
        let (_, f) = lines
            .next()
            .ok_or_else(|| err(0, "the file ends inside the frame table".into()))?;
        cct.frames.push(f.to_string());
    }
    let node_count = {
        let (n, l) = lines
            .next()
            .ok_or_else(|| err(0, "the file ends before `nodes N`".into()))?;
        l.strip_prefix("nodes ")
            .and_then(|r| r.parse::<usize>().ok())
            .ok_or_else(|| err(n, format!("expected `nodes N`, found {l:?}")))?
    };
    for _ in 0..node_count {
        let (n, line) = lines
            .next()
            .ok_or_else(|| err(0, "the file ends inside the node list".into()))?;
        let (parent, frame, values) = node_line(n, line, cct.frames.len(), metrics, err)?;
        let parent = match parent {
            -1 => None,
            p if p >= 0 && (p as usize) < cct.nodes.len() => Some(p as usize),
            p => return Err(err(n, format!("parent {p} is not an earlier node"))),
        };
        cct.nodes.push(Node {
            parent,
            frame,
            calls: values[0],
            wall: values[1],
            cpu: values[2],
        });
    }
    if let Some((n, l)) = lines.find(|(_, l)| !l.is_empty()) {
        return Err(err(n, format!("text after the last node: {l:?}")));
    }
    Ok(cct)
}

/// The fields of a node line of a format-2 or format-3 raw profile on line
/// `n`: `PARENT<TAB>FRAME<TAB>values` (the values in `metrics`' order), the
/// frame checked against the frame table's size.
pub(crate) fn node_line(
    n: usize,
    line: &str,
    frames: usize,
    metrics: &[Metric],
    err: &dyn Fn(usize, String) -> ProfileError,
) -> Result<(i64, usize, [u64; 3]), ProfileError> {
    let mut fields = line.split('\t');
    let mut next = |what: &str| {
        fields
            .next()
            .ok_or_else(|| err(n, format!("missing the {what} column")))
    };
    let parent: i64 = next("parent")?
        .parse()
        .map_err(|_| err(n, "the parent is not a number".into()))?;
    let frame: usize = next("frame")?
        .parse()
        .ok()
        .filter(|&f| f < frames)
        .ok_or_else(|| err(n, "the frame is not in the frame table".into()))?;
    let mut values = [0u64; 3];
    for &m in metrics {
        let v = next(m.column())?;
        values[m as usize] = v
            .parse()
            .map_err(|_| err(n, format!("{} value {v:?} is not a count", m.column())))?;
    }
    if fields.next().is_some() {
        return Err(err(n, "more columns than the metrics line names".into()));
    }
    Ok((parent, frame, values))
}

/// One node of a [`Cct`]: a calling context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The caller's node; `None` for a thread's outermost recorded frame.
    pub parent: Option<usize>,
    /// Index of the node's frame name in [`Cct::frames`].
    pub frame: usize,
    /// How many times the context was entered.
    pub calls: u64,
    /// Inclusive wall time, ns (0 without the metric).
    pub wall: u64,
    /// Inclusive CPU time, ns (0 without the metric).
    pub cpu: u64,
}

/// A calling-context tree (all threads merged): its frame names, and its
/// nodes, each parent before its children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cct {
    /// The distinct frame names, in the order first seen.
    pub frames: Vec<String>,
    /// The nodes, parents before children.
    pub nodes: Vec<Node>,
    /// Whether the profile has wall time.
    pub has_wall: bool,
    /// Whether the profile has CPU time.
    pub has_cpu: bool,
}

impl Cct {
    /// Reads a raw profile (`profile.cct`).
    pub fn read(path: &Path) -> Result<Cct, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|e| ProfileError::io(path, e))?;
        Cct::parse(&text, path)
    }

    /// Parses the text of a raw profile; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Cct, ProfileError> {
        let err = |line: usize, message: String| ProfileError::Parse {
            file: file.to_path_buf(),
            line,
            message,
        };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let version = match lines.next() {
            Some((_, "major-cct 1")) => 1,
            Some((_, "major-cct 2")) => 2,
            Some((_, "major-cct 3")) => 3,
            Some((n, l)) => {
                return Err(err(
                    n,
                    format!("not a major-cct 1, 2 or 3 profile (first line {l:?})"),
                ))
            }
            None => return Err(err(0, "empty file, not a major-cct profile".into())),
        };
        let (n, header) = lines
            .next()
            .ok_or_else(|| err(1, "no metrics line after the header".into()))?;
        let mut columns = header.split(' ');
        if columns.next() != Some("metrics") || columns.next() != Some("calls") {
            return Err(err(
                n,
                format!("expected `metrics calls [wall_ns] [cpu_ns]`, found {header:?}"),
            ));
        }
        let mut metrics = vec![Metric::Calls];
        for c in columns {
            let m = match c {
                "wall_ns" => Metric::Wall,
                "cpu_ns" => Metric::Cpu,
                _ => return Err(err(n, format!("unknown or repeated metric {c:?}"))),
            };
            if metrics.contains(&m) {
                return Err(err(n, format!("metric {c:?} named twice")));
            }
            metrics.push(m);
        }
        if version == 2 {
            return parse_v2(lines, &metrics, &err);
        }
        if version == 3 {
            return thread_trees::parse_v3(lines, &metrics, &err);
        }
        let mut rows = Vec::new();
        for (n, line) in lines {
            if line.is_empty() {
                continue;
            }
            let mut fields = line.split('\t');
            let path = fields.next().unwrap_or("");
            let mut values = [0u64; 3];
            for &m in &metrics {
                let v = fields
                    .next()
                    .ok_or_else(|| err(n, format!("missing the {} column", m.column())))?;
                values[m as usize] = v
                    .parse()
                    .map_err(|_| err(n, format!("{} value {v:?} is not a count", m.column())))?;
            }
            if let Some(extra) = fields.next() {
                return Err(err(
                    n,
                    format!("more columns than the metrics line names ({extra:?})"),
                ));
            }
            rows.push((n, path, values));
        }
        let mut builder = Builder::default();
        builder.cct.has_wall = metrics.contains(&Metric::Wall);
        builder.cct.has_cpu = metrics.contains(&Metric::Cpu);
        // Shorter paths first, so each parent exists before its children.
        rows.sort_by_key(|&(n, path, _)| (path.matches(';').count(), n));
        for (n, path, [calls, wall, cpu]) in rows {
            builder.add(path, calls, wall, cpu).map_err(|m| err(n, m))?;
        }
        Ok(builder.cct)
    }

    /// Parses `calls.folded` text (`path COUNT` lines, as the JVMTI oracle
    /// writes): a tree with invocation counts only. A node whose parent has
    /// no line of its own is an error.
    pub fn parse_calls_folded(text: &str, file: &Path) -> Result<Cct, ProfileError> {
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let bad = |message: String| ProfileError::Parse {
                file: file.to_path_buf(),
                line: i + 1,
                message,
            };
            let (path, count) = line
                .rsplit_once(' ')
                .ok_or_else(|| bad("expected `path COUNT`".into()))?;
            let count: u64 = count
                .parse()
                .map_err(|_| bad(format!("count {count:?} is not a number")))?;
            rows.push((i + 1, path, count));
        }
        rows.sort_by_key(|&(n, path, _)| (path.matches(';').count(), n));
        let mut builder = Builder::default();
        for (n, path, count) in rows {
            builder
                .add(path, count, 0, 0)
                .map_err(|message| ProfileError::Parse {
                    file: file.to_path_buf(),
                    line: n,
                    message,
                })?;
        }
        Ok(builder.cct)
    }

    /// The frame name of a node.
    pub fn frame(&self, node: usize) -> &str {
        &self.frames[self.nodes[node].frame]
    }

    /// A node's value of a metric (inclusive).
    pub fn value(&self, node: usize, metric: Metric) -> u64 {
        let n = &self.nodes[node];
        match metric {
            Metric::Calls => n.calls,
            Metric::Wall => n.wall,
            Metric::Cpu => n.cpu,
        }
    }

    /// Whether the profile has a metric.
    pub fn has(&self, metric: Metric) -> bool {
        match metric {
            Metric::Calls => true,
            Metric::Wall => self.has_wall,
            Metric::Cpu => self.has_cpu,
        }
    }

    /// The metrics the profile has, `Calls` first.
    pub fn metrics(&self) -> Vec<Metric> {
        [Metric::Calls, Metric::Wall, Metric::Cpu]
            .into_iter()
            .filter(|&m| self.has(m))
            .collect()
    }

    /// Each node's children, in node order.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut kids = vec![Vec::new(); self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                kids[p].push(i);
            }
        }
        kids
    }

    /// The nodes without a parent.
    pub fn roots(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].parent.is_none())
            .collect()
    }

    /// Each node's depth (a root is at depth 1).
    pub fn depths(&self) -> Vec<usize> {
        let mut d = vec![0; self.nodes.len()];
        for i in 0..self.nodes.len() {
            d[i] = self.nodes[i].parent.map_or(1, |p| d[p] + 1);
        }
        d
    }

    /// The SELF value of every node for a metric: for time, its inclusive
    /// time less its children's (0 where clock granularity makes the
    /// children's sum larger); for calls, the node's own count.
    pub fn self_values(&self, metric: Metric) -> Vec<u64> {
        let mut own: Vec<u64> = (0..self.nodes.len())
            .map(|i| self.value(i, metric))
            .collect();
        if metric != Metric::Calls {
            for (i, n) in self.nodes.iter().enumerate() {
                if let Some(p) = n.parent {
                    own[p] = own[p].saturating_sub(self.value(i, metric));
                }
            }
        }
        own
    }

    /// The subtree totals of a metric: for calls, the node's count plus all
    /// its descendants' (what a flame graph of `calls.folded` shows); for
    /// time, the inclusive value itself.
    pub fn inclusive_values(&self, metric: Metric) -> Vec<u64> {
        let mut total: Vec<u64> = (0..self.nodes.len())
            .map(|i| self.value(i, metric))
            .collect();
        if metric == Metric::Calls {
            for i in (0..self.nodes.len()).rev() {
                if let Some(p) = self.nodes[i].parent {
                    total[p] = total[p].saturating_add(total[i]);
                }
            }
        }
        total
    }

    /// Writes the tree as a format-2 raw profile (see `parse_v2`), nodes and
    /// frames in the tree's order: the canonical file of a tree read from a
    /// format-3 profile (frames sorted, siblings by frame name), which
    /// [`Cct::parse`] reads back into an equal tree.
    pub fn write_raw(&self, w: &mut dyn Write) -> std::io::Result<()> {
        let metrics: String = self
            .metrics()
            .iter()
            .map(|m| format!(" {}", m.column()))
            .collect();
        writeln!(
            w,
            "major-cct 2\nmetrics{metrics}\nframes {}",
            self.frames.len()
        )?;
        for f in &self.frames {
            writeln!(w, "{f}")?;
        }
        writeln!(w, "nodes {}", self.nodes.len())?;
        for n in &self.nodes {
            let parent = n.parent.map_or(-1, |p| p as i64);
            write!(w, "{parent}\t{}\t{}", n.frame, n.calls)?;
            if self.has_wall {
                write!(w, "\t{}", n.wall)?;
            }
            if self.has_cpu {
                write!(w, "\t{}", n.cpu)?;
            }
            writeln!(w)?;
        }
        Ok(())
    }

    /// [`Cct::write_raw`] into `path`, whole or not at all (through a
    /// temporary file renamed into place).
    pub fn write_raw_file(&self, path: &Path) -> Result<(), ProfileError> {
        write_atomically(path, |w| self.write_raw(w))
    }

    /// The path of every node, `frame;frame;...`.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let p = match n.parent {
                Some(p) => format!("{};{}", paths[p], self.frame(i)),
                None => self.frame(i).to_string(),
            };
            paths.push(p);
        }
        paths
    }
}

/// Builds a [`Cct`] from paths given parents first.
#[derive(Default)]
struct Builder {
    cct: Cct,
    frame_ids: HashMap<String, usize>,
    by_path: HashMap<String, usize>,
}

impl Builder {
    fn add(&mut self, path: &str, calls: u64, wall: u64, cpu: u64) -> Result<(), String> {
        if path.is_empty() {
            return Err("empty path".into());
        }
        if self.by_path.contains_key(path) {
            return Err(format!("path listed twice: {path}"));
        }
        let (parent, frame) = match path.rsplit_once(';') {
            Some((parent, frame)) => {
                let p = *self.by_path.get(parent).ok_or_else(|| {
                    format!("the caller's context has no line of its own: {parent}")
                })?;
                (Some(p), frame)
            }
            None => (None, path),
        };
        if frame.is_empty() {
            return Err(format!("empty frame name in {path}"));
        }
        let next = self.cct.frames.len();
        let id = *self.frame_ids.entry(frame.to_string()).or_insert(next);
        if id == next {
            self.cct.frames.push(frame.to_string());
        }
        self.by_path.insert(path.to_string(), self.cct.nodes.len());
        self.cct.nodes.push(Node {
            parent,
            frame: id,
            calls,
            wall,
            cpu,
        });
        Ok(())
    }
}

/// What [`write_profile`] writes, and how.
pub struct Options<'a> {
    /// The flame graph's title.
    pub title: String,
    /// The metric of `flamegraph.svg`; `None`: wall time if the profile has
    /// it, else CPU time, else calls.
    pub flame_metric: Option<Metric>,
    /// How many contexts each list of `summary.txt` names.
    pub top: usize,
    /// Whether a frame is the JDK's (the summary's JDK/application split;
    /// a context is the JDK's when its innermost frame is).
    pub is_jdk: &'a dyn Fn(&str) -> bool,
    /// Above this many contexts, the folded stacks, the flame graph and
    /// the speedscope file show the tree [`prune`]d to
    /// [`Options::min_fraction`] (the summary and the raw profile keep it
    /// whole); `None`: always the whole tree.
    pub full_limit: Option<usize>,
    /// The share of a metric's total a context needs to be shown when the
    /// tree is pruned.
    pub min_fraction: f64,
}

/// The default of [`Options::full_limit`]: trees up to this many contexts
/// are written whole (their folded stacks stay within some hundred MB).
pub const FULL_LIMIT: usize = 100_000;

/// The default of [`Options::min_fraction`]: one in 10,000, 0.12 pixel of a
/// 1,200-pixel flame graph, whose frames narrower than 0.1 pixel inferno
/// does not draw anyway. On javac's tree of a million contexts it keeps
/// 14,875 (and 10,717 remainder nodes): 89 MB of folded stacks instead of
/// 3 GB, 5 MB of speedscope JSON instead of 148 MB.
pub const MIN_FRACTION: f64 = 1e-4;

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            title: "major calling-context profile".into(),
            flame_metric: None,
            top: 20,
            is_jdk: &is_jdk_frame,
            full_limit: Some(FULL_LIMIT),
            min_fraction: MIN_FRACTION,
        }
    }
}

impl Options<'_> {
    /// The metric of the flame graph for `cct`.
    pub fn flame_metric(&self, cct: &Cct) -> Metric {
        self.flame_metric.unwrap_or(if cct.has_wall {
            Metric::Wall
        } else if cct.has_cpu {
            Metric::Cpu
        } else {
            Metric::Calls
        })
    }
}

/// What [`write_profile_outputs`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The files, in the order written.
    pub files: Vec<PathBuf>,
    /// Set when the tree was larger than [`Options::full_limit`]: what the
    /// folded stacks, flame graph and speedscope file show of it.
    pub pruned: Option<Pruned>,
}

impl Written {
    /// A line for people on what the outputs show, when they were pruned.
    pub fn pruned_note(&self) -> Option<String> {
        self.pruned.map(|p| {
            format!(
                "{} contexts: the folded stacks, flame graph and speedscope file show the {} \
                 holding at least {} of a metric's total, the rest as {} `[N more contexts]` \
                 nodes (profile.cct has them all; --all-contexts writes them all)",
                p.contexts,
                p.kept,
                fraction_text(p.fraction),
                p.remainders
            )
        })
    }
}

fn fraction_text(f: f64) -> String {
    if f > 0.0 && f < 1.0 {
        format!("1/{:.0}", 1.0 / f)
    } else {
        format!("{f}")
    }
}

/// Writes every output of `cct` into `out_dir` (created if missing):
/// `calls.folded`, `wall.folded` and `cpu.folded` when the profile has those
/// metrics, `flamegraph.svg`, `speedscope.json` and `summary.txt`. Each file
/// is written whole to a temporary name and then renamed, so a file is
/// either complete or absent. Returns the files written, in that order.
/// Trees above [`Options::full_limit`] contexts are pruned in the folded
/// stacks, flame graph and speedscope file: see [`write_profile_outputs`].
pub fn write_profile(
    cct: &Cct,
    out_dir: &Path,
    options: &Options<'_>,
) -> Result<Vec<PathBuf>, ProfileError> {
    write_profile_outputs(cct, out_dir, options).map(|w| w.files)
}

/// [`write_profile`], telling whether the tree was pruned: above
/// [`Options::full_limit`] contexts, the folded stacks, the flame graph and
/// the speedscope file show [`prune`]`(cct, options.min_fraction)`, and
/// `summary.txt` (the whole tree's) ends with a line saying so.
pub fn write_profile_outputs(
    cct: &Cct,
    out_dir: &Path,
    options: &Options<'_>,
) -> Result<Written, ProfileError> {
    let pruned_view = options
        .full_limit
        .filter(|&limit| cct.nodes.len() > limit)
        .map(|_| prune(cct, options.min_fraction));
    let (view, pruned) = match &pruned_view {
        Some((v, p)) => (v, Some(*p)),
        None => (cct, None),
    };
    let mut result = Written {
        files: Vec::new(),
        pruned,
    };
    let note = result.pruned_note();
    write_views(
        cct,
        view,
        out_dir,
        options,
        note.as_deref(),
        &mut result.files,
    )?;
    Ok(result)
}

fn write_views(
    cct: &Cct,
    view: &Cct,
    out_dir: &Path,
    options: &Options<'_>,
    note: Option<&str>,
    written: &mut Vec<PathBuf>,
) -> Result<(), ProfileError> {
    std::fs::create_dir_all(out_dir).map_err(|e| ProfileError::io(out_dir, e))?;
    for metric in view.metrics() {
        let path = out_dir.join(format!("{}.folded", metric.name()));
        write_atomically(&path, |w| folded::write(view, metric, w))?;
        written.push(path);
    }
    let path = out_dir.join("flamegraph.svg");
    write_atomically(&path, |w| flamegraph::write(view, options, w))?;
    written.push(path);
    let path = out_dir.join("speedscope.json");
    write_atomically(&path, |w| speedscope::write(view, &options.title, w))?;
    written.push(path);
    let path = out_dir.join("summary.txt");
    write_atomically(&path, |w| {
        summary::write(cct, options, w)?;
        match note {
            Some(n) => writeln!(w, "\n{n}"),
            None => Ok(()),
        }
    })?;
    written.push(path);
    Ok(())
}

/// Writes `path` through `write` into `path.tmp`, then renames it.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), ProfileError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = std::fs::File::create(&tmp).map_err(|e| ProfileError::io(&tmp, e))?;
    let mut w = std::io::BufWriter::new(file);
    let result = write(&mut w).and_then(|()| w.flush());
    drop(w);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(ProfileError::io(path, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| ProfileError::io(path, e))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A hand-made profile: two threads' trees merged, main calling
    /// work (twice) and JDK code, a worker thread's run.
    pub(crate) const RAW: &str = "major-cct 1
metrics calls wall_ns cpu_ns
Main.main(java.lang.String[])\t1\t1000\t900
Main.main(java.lang.String[]);Main.work(int)\t2\t600\t500
Main.main(java.lang.String[]);Main.work(int);java.util.HashMap.hash(java.lang.Object)\t10\t100\t80
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String)\t1\t300\t200
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String);Main.work(int)\t1\t50\t40
java.lang.Thread.run()\t3\t700\t650
java.lang.Thread.run();Main$Worker.run()\t3\t690\t640
";

    pub(crate) fn sample() -> Cct {
        Cct::parse(RAW, Path::new("sample.cct")).unwrap()
    }

    #[test]
    fn parses_a_raw_profile_into_a_tree() {
        let cct = sample();
        assert!(cct.has_wall && cct.has_cpu);
        assert_eq!(cct.nodes.len(), 7);
        assert_eq!(cct.roots().len(), 2);
        // Main.work(int) is one frame, at two nodes.
        let work: Vec<usize> = (0..cct.nodes.len())
            .filter(|&i| cct.frame(i) == "Main.work(int)")
            .collect();
        assert_eq!(work.len(), 2);
        assert_eq!(cct.nodes[work[0]].frame, cct.nodes[work[1]].frame);
        let paths = cct.paths();
        let hash = paths
            .iter()
            .position(|p| p.ends_with("hash(java.lang.Object)"))
            .unwrap();
        assert_eq!(cct.nodes[hash].calls, 10);
        assert_eq!(cct.depths()[hash], 3);
        assert_eq!(cct.frame(cct.nodes[hash].parent.unwrap()), "Main.work(int)");
    }

    #[test]
    fn self_and_inclusive_values() {
        let cct = sample();
        let paths = cct.paths();
        let at = |p: &str| paths.iter().position(|q| q == p).unwrap();
        let main = at("Main.main(java.lang.String[])");
        let wall = cct.self_values(Metric::Wall);
        assert_eq!(wall[main], 1000 - 600 - 300);
        assert_eq!(cct.self_values(Metric::Cpu)[main], 900 - 500 - 200);
        assert_eq!(
            cct.inclusive_values(Metric::Calls)[main],
            1 + 2 + 10 + 1 + 1
        );
        assert_eq!(cct.self_values(Metric::Calls)[main], 1);
        assert_eq!(cct.inclusive_values(Metric::Wall)[main], 1000);
    }

    #[test]
    fn calls_only_profiles_and_metric_order() {
        let text = "major-cct 1\nmetrics calls cpu_ns\nA.a()\t1\t5\nA.a();B.b()\t2\t3\n";
        let cct = Cct::parse(text, Path::new("x.cct")).unwrap();
        assert!(!cct.has_wall && cct.has_cpu);
        assert_eq!(cct.metrics(), vec![Metric::Calls, Metric::Cpu]);
        assert_eq!(cct.nodes[1].cpu, 3);
        // Children listed before their parents are fine.
        let text = "major-cct 1\nmetrics calls\nA.a();B.b()\t2\nA.a()\t1\n";
        let cct = Cct::parse(text, Path::new("x.cct")).unwrap();
        assert_eq!(cct.paths(), vec!["A.a()", "A.a();B.b()"]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let cases = [
            ("", "x.cct:0: empty file"),
            ("major-cct 4\n", "x.cct:1: not a major-cct 1, 2 or 3"),
            (
                "major-cct 1\nmetrics wall_ns\n",
                "x.cct:2: expected `metrics calls",
            ),
            ("major-cct 1\nmetrics calls bogus\n", "x.cct:2: unknown"),
            (
                "major-cct 1\nmetrics calls\nA.a()\tx\n",
                "x.cct:3: calls value \"x\"",
            ),
            (
                "major-cct 1\nmetrics calls wall_ns\nA.a()\t1\n",
                "x.cct:3: missing the wall_ns",
            ),
            (
                "major-cct 1\nmetrics calls\nA.a()\t1\t2\n",
                "x.cct:3: more columns",
            ),
            (
                "major-cct 1\nmetrics calls\nA.a()\t1\nA.a()\t1\n",
                "x.cct:4: path listed twice",
            ),
            (
                "major-cct 1\nmetrics calls\nA.a()\t1\nA.a();B.b();C.c()\t1\n",
                "x.cct:4: the caller's context has no line",
            ),
        ];
        for (text, want) in cases {
            let e = Cct::parse(text, Path::new("x.cct"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn format_2_reads_the_same_tree_as_format_1() {
        let v1 =
            "major-cct 1\nmetrics calls wall_ns\nA.a()\t2\t50\nA.a();B.b()\t3\t20\nC.c()\t1\t5\n";
        let v2 = "major-cct 2\nmetrics calls wall_ns\nframes 3\nA.a()\nB.b()\nC.c()\nnodes 3\n\
                  -1\t0\t2\t50\n0\t1\t3\t20\n-1\t2\t1\t5\n";
        let a = Cct::parse(v1, Path::new("a.cct")).unwrap();
        let b = Cct::parse(v2, Path::new("b.cct")).unwrap();
        let lines = |c: &Cct| folded::lines(c, Metric::Calls);
        assert_eq!(lines(&a), lines(&b));
        assert_eq!(b.inclusive_values(Metric::Wall), vec![50, 20, 5]);
        for (text, want) in [
            (
                "major-cct 2\nmetrics calls\nframes 1\nA.a()\nnodes 1\n0\t0\t1\n",
                "x.cct:6: parent 0 is not an earlier node",
            ),
            (
                "major-cct 2\nmetrics calls\nframes 1\nA.a()\nnodes 1\n-1\t1\t1\n",
                "x.cct:6: the frame is not in the frame table",
            ),
            (
                "major-cct 2\nmetrics calls\nframes 2\nA.a()\n",
                "x.cct:0: the file ends inside the frame table",
            ),
        ] {
            let e = Cct::parse(text, Path::new("x.cct"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn calls_folded_round_trip() {
        let cct = sample();
        let mut out = Vec::new();
        folded::write(&cct, Metric::Calls, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let back = Cct::parse_calls_folded(&text, Path::new("calls.folded")).unwrap();
        let mut a: Vec<(String, u64)> = cct
            .paths()
            .into_iter()
            .zip(cct.nodes.iter().map(|n| n.calls))
            .collect();
        let mut b: Vec<(String, u64)> = back
            .paths()
            .into_iter()
            .zip(back.nodes.iter().map(|n| n.calls))
            .collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        let e = Cct::parse_calls_folded("A.a() 1\nA.a() one\n", Path::new("c.folded"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.folded:2: count \"one\""), "{e}");
    }

    /// A large tree: 3 roots, each a chain of 40 frames, each chain frame
    /// calling 100 leaves; one hot path gets almost all the calls.
    fn large() -> Cct {
        let mut cct = Cct {
            has_wall: true,
            ..Cct::default()
        };
        for f in 0..140 {
            cct.frames.push(format!("p.C{f}.m()"));
        }
        for root in 0..3 {
            let mut parent = None;
            for depth in 0..40 {
                let hot = root == 0;
                let chain = cct.nodes.len();
                cct.nodes.push(Node {
                    parent,
                    frame: depth,
                    calls: if hot { 1000 } else { 1 },
                    wall: (40 - depth as u64) * if hot { 1_000_000 } else { 10 },
                    cpu: 0,
                });
                for leaf in 0..100 {
                    cct.nodes.push(Node {
                        parent: Some(chain),
                        frame: 40 + leaf,
                        calls: if hot && leaf == 0 { 50_000 } else { 1 },
                        wall: 1,
                        cpu: 0,
                    });
                }
                parent = Some(chain);
            }
        }
        cct
    }

    #[test]
    fn large_trees_are_pruned_in_the_flame_graph_outputs_only() {
        let cct = large();
        assert_eq!(cct.nodes.len(), 3 * 40 * 101);
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            full_limit: Some(1000),
            min_fraction: 1e-2,
            flame_metric: Some(Metric::Calls),
            ..Options::default()
        };
        let w = write_profile_outputs(&cct, dir.path(), &options).unwrap();
        let p = w.pruned.expect("pruned above the limit");
        assert_eq!(p.contexts, cct.nodes.len());
        // The hot chain and its hot leaves are kept, the 99 cold leaves of
        // each of its frames summed into one node, the cold roots into one.
        assert_eq!(p.kept, 40 * 2);
        assert_eq!(p.remainders, 40 + 1);
        let calls = std::fs::read_to_string(dir.path().join("calls.folded")).unwrap();
        assert_eq!(calls.lines().count(), p.kept + p.remainders);
        assert!(calls.contains(";[99 more contexts] 99\n"), "{calls}");
        assert!(
            calls.lines().any(|l| l == "[8080 more contexts] 8080"),
            "{calls}"
        );
        // The calls in all are the same: every frame keeps its width.
        let sum = |text: &str| -> u64 {
            text.lines()
                .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
                .sum()
        };
        let all: u64 = cct.nodes.iter().map(|n| n.calls).sum();
        assert_eq!(sum(&calls), all);
        let wall = std::fs::read_to_string(dir.path().join("wall.folded")).unwrap();
        let roots_wall: u64 = cct.roots().iter().map(|&r| cct.nodes[r].wall).sum();
        assert_eq!(sum(&wall), roots_wall);
        // The flame graph is drawn from the view, and says what it left out.
        let svg = std::fs::read_to_string(dir.path().join("flamegraph.svg")).unwrap();
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("more contexts]"));
        // The summary is the whole tree's, with the note at its end.
        let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
        assert!(
            summary
                .trim_end()
                .ends_with("--all-contexts writes them all)"),
            "{summary}"
        );
        assert!(summary.contains("12120 contexts"), "{summary}");
        // Without a limit, everything.
        let whole = tempfile::tempdir().unwrap();
        let w = write_profile_outputs(
            &cct,
            whole.path(),
            &Options {
                full_limit: None,
                ..Options::default()
            },
        )
        .unwrap();
        assert!(w.pruned.is_none() && w.pruned_note().is_none());
        let calls = std::fs::read_to_string(whole.path().join("calls.folded")).unwrap();
        assert_eq!(calls.lines().count(), cct.nodes.len());
    }

    #[test]
    fn write_profile_writes_every_output_and_nothing_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_profile(&sample(), dir.path(), &Options::default()).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "calls.folded",
                "wall.folded",
                "cpu.folded",
                "flamegraph.svg",
                "speedscope.json",
                "summary.txt"
            ]
        );
        let mut listed: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        listed.sort();
        let mut want = names.clone();
        want.sort();
        assert_eq!(listed, want, "no .tmp file left");
        // Deterministic: a second run writes the same bytes.
        let again = tempfile::tempdir().unwrap();
        write_profile(&sample(), again.path(), &Options::default()).unwrap();
        for n in &names {
            assert_eq!(
                std::fs::read(dir.path().join(n)).unwrap(),
                std::fs::read(again.path().join(n)).unwrap(),
                "{n} differs between two runs"
            );
        }
    }
}
