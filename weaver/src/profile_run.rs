//! `major profile`: runs a program under the calling-context profiler and
//! writes what [`crate::profile::write_profile`] makes of its tree.
//!
//! The program runs through `major run` — single-phase (the agent weaves
//! every class as it loads, with the built-in `CctProfiler.aj`, or
//! `CctTimeProfiler.aj` with `--times`, or `CctCpuProfiler.aj` (wall and
//! CPU time) with `--cpu`, or the user's aspects), or on a JDK
//! woven beforehand (`--woven`) — with `-Dmajor.cct.out` naming the raw
//! profile in the output directory. Then the raw profile is read and the
//! outputs written beside it. The exit code is the program's; a program that
//! ends without a profile (killed, crashed, or `main` never started) gets a
//! message saying so, and no half-written outputs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::profile::{self, Cct, Options};
use crate::report::MajorError;

/// The built-in profiler: the calling-context tree and calls per context.
pub const CCT_PROFILER: &str = include_str!("../../aspects/CctProfiler.aj");
/// The built-in profiler with wall time per context.
pub const CCT_TIME_PROFILER: &str = include_str!("../../aspects/CctTimeProfiler.aj");
/// The built-in profiler with wall and CPU time per context.
pub const CCT_CPU_PROFILER: &str = include_str!("../../aspects/CctCpuProfiler.aj");

/// What `major profile` was asked for.
pub struct ProfileRequest {
    /// The profiler aspects; empty: the built-in one.
    pub aspects: Vec<PathBuf>,
    /// With the built-in profiler: measure wall time too.
    pub times: bool,
    /// With the built-in profiler: measure wall and CPU time too.
    pub cpu: bool,
    /// A JDK woven with a profiler (`major weave --jdk`): run there instead
    /// of weaving as classes load.
    pub woven: Option<PathBuf>,
    /// Single-phase: the JDK that runs the program.
    pub java_home: Option<PathBuf>,
    /// Where the profile goes.
    pub out: PathBuf,
    /// How many contexts the summary names per list.
    pub top: usize,
    /// Write every context into the folded stacks, flame graph and
    /// speedscope file, however large the tree (else trees above
    /// [`profile::FULL_LIMIT`] contexts are pruned there: [`profile::prune`]).
    pub all_contexts: bool,
    /// Print the java command (`major run --print-command`) instead of
    /// running the program.
    pub print_command: bool,
    /// The java options, class path, main class and arguments.
    pub args: Vec<OsString>,
}

/// Runs the program under the profiler and writes the profile's outputs;
/// returns the program's exit code.
pub fn profile(req: &ProfileRequest) -> Result<i32, MajorError> {
    let io = |what: &str, p: &Path, e: std::io::Error| {
        MajorError::Usage(format!("{what} {}: {e}", p.display()))
    };
    std::fs::create_dir_all(&req.out).map_err(|e| io("cannot create", &req.out, e))?;
    let out = req
        .out
        .canonicalize()
        .map_err(|e| io("cannot resolve", &req.out, e))?;
    let raw = out.join("profile.cct");
    // The old profile goes before a run (the run's own is then the only one
    // there); printing the command runs nothing and keeps it.
    if !req.print_command {
        match std::fs::remove_file(&raw) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot remove the old", &raw, e)),
        }
    }
    let major = std::env::current_exe()
        .map_err(|e| MajorError::Usage(format!("cannot find the major binary: {e}")))?;
    let mut cmd = Command::new(major);
    cmd.arg("run");
    if req.print_command {
        cmd.arg("--print-command");
    }
    match &req.woven {
        Some(w) => {
            cmd.arg(w);
        }
        None => {
            let aspects = if req.aspects.is_empty() {
                vec![builtin_profiler(&out, req.times, req.cpu)?]
            } else {
                req.aspects.clone()
            };
            for a in aspects {
                cmd.arg("--aspect").arg(a);
            }
            if let Some(h) = &req.java_home {
                cmd.arg("--java-home").arg(h);
            }
        }
    }
    cmd.arg("--");
    let mut prop = OsString::from("-Dmajor.cct.out=");
    prop.push(&raw);
    cmd.arg(prop);
    if req.times || req.cpu {
        cmd.arg("-Dmajor.cct.times=true");
    }
    if req.cpu {
        cmd.arg("-Dmajor.cct.cpu=true");
    }
    cmd.args(&req.args);
    let status = cmd
        .status()
        .map_err(|e| MajorError::Usage(format!("cannot run `major run`: {e}")))?;
    let code = status.code().unwrap_or(1);
    if req.print_command {
        return Ok(code);
    }
    if !raw.exists() {
        eprintln!(
            "major profile: the program wrote no profile ({}): it ended before its \
             shutdown hooks ran (killed, crashed, or halted), or its main never started, \
             or the aspects do not ask for one (CallingContext.writeAtExit)",
            describe_status(&status)
        );
        return Ok(if code == 0 { 1 } else { code });
    }
    let cct = Cct::read(&raw).map_err(|e| MajorError::Usage(e.to_string()))?;
    // The runtime wrote each thread's tree as it was (format 3); the merged
    // tree replaces it, in canonical order, so equal trees give equal files.
    cct.write_raw_file(&raw)
        .map_err(|e| MajorError::Usage(e.to_string()))?;
    let title = format!("major profile: {}", main_class(&req.args));
    let options = Options {
        title,
        top: req.top,
        full_limit: if req.all_contexts {
            None
        } else {
            Some(profile::FULL_LIMIT)
        },
        ..Options::default()
    };
    let outputs = profile::write_profile_outputs(&cct, &out, &options)
        .map_err(|e| MajorError::Usage(e.to_string()))?;
    let written = &outputs.files;
    let summary = out.join("summary.txt");
    if let Ok(text) = std::fs::read_to_string(&summary) {
        for line in text.lines().take(req.top + 12) {
            eprintln!("{line}");
        }
    }
    eprintln!(
        "major profile: {} contexts, {} frames; wrote {}",
        cct.nodes.len(),
        cct.frames.len(),
        written
            .iter()
            .chain(std::iter::once(&raw))
            .map(|p| p
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    eprintln!("  in {}", out.display());
    if let Some(note) = outputs.pruned_note() {
        eprintln!("major profile: {note}");
    }
    Ok(code)
}

/// Writes the built-in profiler aspect (calls; with wall time; with wall
/// and CPU time) into `out/.aspect/` and returns its
/// path (`major run` compiles it, cached by content).
fn builtin_profiler(out: &Path, times: bool, cpu: bool) -> Result<PathBuf, MajorError> {
    let (name, text) = if cpu {
        ("CctCpuProfiler.aj", CCT_CPU_PROFILER)
    } else if times {
        ("CctTimeProfiler.aj", CCT_TIME_PROFILER)
    } else {
        ("CctProfiler.aj", CCT_PROFILER)
    };
    let dir = out.join(".aspect");
    std::fs::create_dir_all(&dir)
        .map_err(|e| MajorError::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(name);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
        std::fs::write(&path, text)
            .map_err(|e| MajorError::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(path)
}

/// The main class (or `-m`/`-jar` target) among java arguments, for titles.
fn main_class(args: &[OsString]) -> String {
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        match a.as_ref() {
            "-cp" | "-classpath" | "--class-path" | "-p" | "--module-path" | "--add-modules"
            | "--add-opens" | "--add-exports" | "--add-reads" => {
                it.next();
            }
            "-jar" | "-m" | "--module" => {
                return it.next().map(|s| s.into_owned()).unwrap_or_default()
            }
            s if s.starts_with('-') => {}
            s => return s.to_string(),
        }
    }
    "the program".to_string()
}

/// How a process ended, for messages.
fn describe_status(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(c) => format!("exit code {c}"),
        None => "no exit code".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_class_skips_options_and_their_values() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            main_class(&a(&["-Xmx1g", "-cp", "a:b", "p.Main", "x"])),
            "p.Main"
        );
        assert_eq!(main_class(&a(&["-jar", "app.jar", "x"])), "app.jar");
        assert_eq!(main_class(&a(&["-Dk=v"])), "the program");
    }

    #[test]
    fn the_builtin_profilers_use_the_calling_context() {
        for text in [CCT_PROFILER, CCT_TIME_PROFILER, CCT_CPU_PROFILER] {
            assert!(text.contains("thisCallingContext"));
            assert!(text.contains("CallingContext.writeAtExit"));
        }
    }
}
