//! The `major` command.

mod cache_command;
mod serve;
mod single_phase_run;
mod weave_command;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, Parser, Subcommand};
use major_archive::{Archive, OutputArchive};
use major_classfile::disasm;
use major_weaver::check::{check_archive, module_filter, CheckOptions};
use major_weaver::index::ClassIndex;
use major_weaver::jdk::Jdk;
use major_weaver::report::MajorError;
use major_weaver::woven_jdk::WovenJdk;

// Weaving allocates and frees many small objects on several threads at once;
// mimalloc does that with less time in the allocator than the system's.
#[global_allocator]
static ALLOCATOR: major_weaver::allocator::Allocator = major_weaver::allocator::Allocator;

/// Turns transparent huge pages off for this process. mimalloc asks the kernel
/// for them; where memory is fragmented (say, right after a large JVM exited)
/// the kernel compacts memory in the page fault to provide them, which costs a
/// weave of guava about 10% more time than the huge pages save.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of the calling process; the
    // arguments are plain integers and no memory is passed.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// An aspect weaver for Java bytecode with full coverage of the class library.
#[derive(Parser)]
#[command(name = "major", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Weave aspects into classes: `major weave --aspect Tracer.aj app.jar -o woven.jar`.
    Weave(weave_command::WeaveArgs),
    /// The built-in example: compile a small program, weave it with the ObjectTracker
    /// aspect and a tracer, and run it under `java -Xverify:all`.
    Demo {
        /// Keep the program, aspects, classes and woven classes in DIR.
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
        /// The JDK for javac, the class library and running the program.
        #[arg(long)]
        jdk: Option<PathBuf>,
    },
    /// Disassemble a class (a .class file, or a class inside a jar, directory, jmod or lib/modules).
    Dump {
        /// A .class file or an archive.
        input: PathBuf,
        /// Class to print when INPUT is an archive (internal name, e.g. java/lang/String).
        class: Option<String>,
        /// Print only this method (name, or name plus descriptor).
        #[arg(long)]
        method: Option<String>,
    },
    /// Run a program on a JDK woven by `major weave --jdk`
    /// (`major run WOVEN -- -cp app.jar Main args`), or woven as it loads by
    /// the single-phase agent (`major run --aspect A.aj -- -cp app.jar Main
    /// args`: every class, the JDK's own from java.lang.Object on). The exit
    /// code is the program's.
    Run {
        /// The woven JDK's directory (the -o of `major weave --jdk`).
        #[arg(required_unless_present = "aspects", conflicts_with = "aspects")]
        woven: Option<PathBuf>,
        /// Single-phase: weave this aspect (`.aj`, or an @Aspect `.java`) into
        /// every class as the JVM loads it (repeatable).
        #[arg(long = "aspect", value_name = "FILE")]
        aspects: Vec<PathBuf>,
        /// Single-phase: the JDK that runs the program and compiles the
        /// aspects (default: JAVA_HOME, else the java on PATH).
        #[arg(long, value_name = "DIR", requires = "aspects")]
        java_home: Option<PathBuf>,
        /// Single-phase: the aspect cache (default: as for `major weave`).
        #[arg(long, value_name = "DIR", requires = "aspects")]
        cache_dir: Option<PathBuf>,
        /// Single-phase: the agent prints a summary at exit (classes seen,
        /// woven, failed).
        #[arg(long, requires = "aspects")]
        verbose: bool,
        /// Single-phase: how woven methods bypass their advice (as for
        /// `major weave --jdk`).
        #[arg(long, value_enum, default_value = "guards", requires = "aspects")]
        bypass: major_weaver::weave::bypass::BypassForm,
        /// Single-phase: weave every class as it loads, neither reading nor
        /// writing the cache of woven classes (CACHE_DIR/woven-classes).
        #[arg(long, requires = "aspects")]
        no_class_cache: bool,
        /// Single-phase: a class that fails to weave ends the run with exit
        /// status 70, instead of being loaded as it was with a message (for CI).
        #[arg(long, requires = "aspects")]
        fail_on_weave_error: bool,
        /// Single-phase: run on the JDK woven ahead with these aspects, kept
        /// in the cache (CACHE_DIR/woven-jdks), so that the JVM keeps its
        /// class-data sharing: `auto` takes it when there is one, and after
        /// a run of aspects that ran before without one (from a terminal)
        /// weaves it in the background; `build` weaves it now if missing;
        /// `off` weaves every class as the JVM loads it.
        #[arg(
            long,
            value_enum,
            default_value = "auto",
            value_name = "WHEN",
            requires = "aspects"
        )]
        woven_jdk: major_weaver::woven_jdk_cache::WovenJdkMode,
        /// Print the java command instead of running it.
        #[arg(long)]
        print_command: bool,
        /// The java options, class path, main class and arguments (after `--`).
        #[arg(last = true, value_parser = clap::value_parser!(OsString))]
        args: Vec<OsString>,
    },
    /// Show where major's cache is and what it holds (`major cache`), or
    /// remove it (`major cache clear`): javac's output for aspects, the
    /// single-phase agent's woven classes, added classes and extracted
    /// library. Files major did not write there are never removed.
    Cache {
        /// The cache directory (default: $MAJOR_CACHE_DIR, else
        /// $XDG_CACHE_HOME/major, else ~/.cache/major).
        #[arg(long, value_name = "DIR", global = true)]
        cache_dir: Option<PathBuf>,
        #[command(subcommand)]
        action: Option<CacheAction>,
    },
    /// Profile a program's complete calling contexts: `major profile -- -cp app.jar Main`.
    /// Runs it with the calling-context profiler (every class woven as it
    /// loads, the JDK's included; or on a JDK woven with a profiler, --woven)
    /// and writes calls.folded, flamegraph.svg, speedscope.json and
    /// summary.txt (and wall.folded with --times, wall.folded and cpu.folded
    /// with --cpu) into the output directory.
    /// The exit code is the program's.
    Profile {
        /// The profiler aspects (default: the built-in CctProfiler, or
        /// CctTimeProfiler with --times, or CctCpuProfiler with --cpu).
        #[arg(long = "aspect", value_name = "FILE", conflicts_with = "woven")]
        aspects: Vec<PathBuf>,
        /// Measure wall time per context too (costs two clock reads per call).
        #[arg(long)]
        times: bool,
        /// Measure wall and CPU time per context (the thread's CPU time,
        /// a system call per read: costlier than --times).
        #[arg(long)]
        cpu: bool,
        /// Run on this JDK, woven with a profiler by `major weave --jdk`.
        #[arg(long, value_name = "DIR")]
        woven: Option<PathBuf>,
        /// Single-phase: the JDK that runs the program (default: JAVA_HOME,
        /// else the java on PATH).
        #[arg(long, value_name = "DIR", conflicts_with = "woven")]
        java_home: Option<PathBuf>,
        /// The output directory.
        #[arg(long, short = 'o', value_name = "DIR", default_value = "profile")]
        out: PathBuf,
        /// How many contexts each list of the summary names.
        #[arg(long, value_name = "N", default_value_t = 20)]
        top: usize,
        /// Write every context into the folded stacks, the flame graph and
        /// speedscope.json. By default a tree of over 100,000 contexts is
        /// shown there without the contexts under 1/10,000 of the total,
        /// summed into `[N more contexts]` nodes (profile.cct has them all).
        #[arg(long)]
        all_contexts: bool,
        /// Print the java command the program would run with (the agent,
        /// the profiler's options) instead of running it.
        #[arg(long)]
        print_command: bool,
        /// The java options, class path, main class and arguments (after `--`).
        #[arg(last = true, required = true, value_parser = clap::value_parser!(OsString))]
        args: Vec<OsString>,
    },
    /// Stay resident and weave for clients: `major weave` run for each
    /// client that connects to SOCKET (the Maven plugin with <resident>),
    /// without a process start per weave. Same output as `major weave`; the
    /// server's environment (JAVA_HOME, MAJOR_CACHE_DIR) applies. Exits
    /// after --idle-timeout seconds without a request, or when SOCKET is
    /// removed.
    Serve {
        /// The Unix socket to listen on (put it in a directory only you can
        /// write: whoever can connect can weave as you).
        #[arg(long, value_name = "PATH")]
        socket: PathBuf,
        /// Seconds without a request after which the server exits.
        #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
        idle_timeout: u64,
    },
    /// Print a shell completion script: `major completions bash > /etc/bash_completion.d/major`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the manual pages: major.1 and one per subcommand (major-weave.1, ...)
    /// into DIR; without -o, print major.1 on standard output.
    Man {
        /// The directory for the pages (created if missing).
        #[arg(long, short = 'o', value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run the class-file engine over whole archives and report counts: byte-identical
    /// round trips, byte-identical re-encoding of method bodies, and re-framing.
    Check {
        /// Archives: jars/zips, class directories, .jmod files, JDK lib/modules images.
        /// Default: java.base of the JDK (from --jdk, JAVA_HOME or the java on PATH).
        inputs: Vec<PathBuf>,
        /// Re-encode every method body through the label list and require identical bytes.
        #[arg(long)]
        codec: bool,
        /// Decode every method, drop its StackMapTable, recompute frames, encode.
        #[arg(long)]
        reframe: bool,
        /// With --reframe: first insert stack-neutral code before every third
        /// instruction, and keep each method's original frames (moved) where the
        /// weaver's fast path can, recomputing them elsewhere.
        #[arg(long, requires = "reframe")]
        keep_frames: bool,
        /// Write the re-framed classes here (a directory, or a .jar); usable with
        /// `java --patch-module`. Written atomically. OUT is replaced whole, and only
        /// if it is missing, an empty directory, or an output major wrote (and the
        /// user added nothing to), and is no input; else the run stops (see --force).
        #[arg(long, short = 'o', requires = "reframe")]
        out: Option<PathBuf>,
        /// Replace OUT whatever it is: a file or non-empty directory major did not
        /// write, or an input.
        #[arg(long, requires = "out")]
        force: bool,
        /// In a run-time image (lib/modules), only the classes of this module (e.g. java.base).
        #[arg(long)]
        module: Option<String>,
        /// JDK whose lib/modules completes the class hierarchy (default: JAVA_HOME or the java on PATH).
        #[arg(long)]
        jdk: Option<PathBuf>,
        /// More archives for the class hierarchy only.
        #[arg(long = "classpath", value_delimiter = ':', value_parser = clap::value_parser!(OsString))]
        classpath: Vec<OsString>,
    },
}

/// What `major cache` does.
#[derive(Subcommand, Debug)]
enum CacheAction {
    /// Remove everything major wrote into the cache directory.
    Clear,
}

fn main() -> ExitCode {
    no_huge_pages();
    let cli = Cli::parse();
    // A resident weaver draws no progress on its own terminal and gives
    // freed memory back between requests.
    major_weaver::allocator::keep_freed_memory();
    if !matches!(cli.command, Command::Serve { .. }) {
        major_weaver::progress::enable_on_terminal();
    }
    let r = match cli.command {
        Command::Weave(args) => {
            let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
            let code = weave_command::run(
                args,
                &mut weave_command::Console {
                    out: &mut out,
                    err: &mut err,
                },
            );
            Ok(ExitCode::from(code))
        }
        Command::Profile {
            aspects,
            times,
            cpu,
            woven,
            java_home,
            out,
            top,
            all_contexts,
            print_command,
            args,
        } => major_weaver::profile_run::profile(&major_weaver::profile_run::ProfileRequest {
            aspects,
            times,
            cpu,
            woven,
            java_home,
            out,
            top,
            all_contexts,
            print_command,
            args,
        })
        .map(|code| ExitCode::from(code.clamp(0, 255) as u8)),
        Command::Serve {
            socket,
            idle_timeout,
        } => serve::serve(&socket, std::time::Duration::from_secs(idle_timeout))
            .map(|()| ExitCode::SUCCESS),
        Command::Completions { shell } => completions(shell),
        Command::Man { out } => man(out.as_deref()),
        Command::Demo { keep, jdk } => demo(keep, jdk),
        Command::Run {
            woven: Some(woven),
            print_command,
            args,
            ..
        } => run(&woven, print_command, &args),
        Command::Run {
            woven: None,
            aspects,
            java_home,
            cache_dir,
            verbose,
            print_command,
            bypass,
            no_class_cache,
            fail_on_weave_error,
            woven_jdk,
            args,
        } => single_phase_run::run_agent(
            aspects,
            java_home,
            cache_dir,
            (
                verbose,
                bypass,
                no_class_cache,
                fail_on_weave_error,
                woven_jdk,
            ),
            print_command,
            &args,
        ),
        Command::Cache { cache_dir, action } => match action {
            None => cache_command::show(cache_dir),
            Some(CacheAction::Clear) => cache_command::clear(cache_dir),
        },
        Command::Dump {
            input,
            class,
            method,
        } => dump(&input, class.as_deref(), method.as_deref()),
        Command::Check {
            inputs,
            codec,
            reframe,
            keep_frames,
            out,
            force,
            module,
            jdk,
            classpath,
        } => check(
            &inputs,
            CheckOptions {
                codec,
                reframe,
                keep_frames,
            },
            out.as_deref(),
            force,
            module.as_deref(),
            jdk.as_deref(),
            &class_path(classpath),
        ),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{:?}", miette::Report::new(e));
            ExitCode::from(2)
        }
    }
}

/// The JDK at `path`, or the one `JAVA_HOME`/`PATH` names.
fn jdk_or_default(path: Option<PathBuf>) -> Result<Jdk, MajorError> {
    match path {
        Some(p) => Jdk::at(&p).ok_or_else(|| {
            MajorError::Usage(format!("{}: not a JDK (no lib/modules)", p.display()))
        }),
        None => Jdk::locate().map_err(MajorError::Usage),
    }
}

fn demo(keep: Option<PathBuf>, jdk: Option<PathBuf>) -> Result<ExitCode, MajorError> {
    let jdk = jdk_or_default(jdk)?;
    let ok = major_weaver::demo::run(
        &jdk,
        keep.as_deref(),
        major_weaver::aspects::cache::default_dir(),
    )?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `major completions SHELL`: the completion script on standard output.
fn completions(shell: clap_complete::Shell) -> Result<ExitCode, MajorError> {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "major", &mut out);
    Ok(ExitCode::SUCCESS)
}

/// `major man [-o DIR]`: the manual pages, rendered from the command line's
/// definition (so they never disagree with `--help`).
fn man(out: Option<&Path>) -> Result<ExitCode, MajorError> {
    let cmd = Cli::command();
    match out {
        Some(dir) => {
            let fail = |e: std::io::Error| MajorError::Usage(format!("{}: {e}", dir.display()));
            std::fs::create_dir_all(dir).map_err(fail)?;
            clap_mangen::generate_to(cmd, dir).map_err(fail)?;
            eprintln!("wrote the manual pages into {}", dir.display());
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut page)
                .map_err(|e| MajorError::Usage(format!("rendering the manual page: {e}")))?;
            use std::io::Write;
            std::io::stdout()
                .lock()
                .write_all(&page)
                .map_err(|e| MajorError::Usage(format!("cannot write to stdout: {e}")))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `major run`: the program on a woven JDK; its exit code is passed through.
fn run(woven: &Path, print_command: bool, args: &[OsString]) -> Result<ExitCode, MajorError> {
    let w = WovenJdk::open(woven)?;
    let command = w.command(args);
    if print_command {
        let line: Vec<&std::ffi::OsStr> = std::iter::once(command.get_program())
            .chain(command.get_args())
            .collect();
        println!("{}", major_weaver::woven_jdk::shell_line(&line));
        return Ok(ExitCode::SUCCESS);
    }
    run_passing_status(command)
}

/// Runs `command` with this process's standard streams and returns its exit
/// status as ours (a signal as 128 + its number, as shells do).
fn run_passing_status(mut command: std::process::Command) -> Result<ExitCode, MajorError> {
    let status = command.status().map_err(|e| {
        MajorError::Usage(format!(
            "{}: cannot start: {e}",
            command.get_program().to_string_lossy()
        ))
    })?;
    if let Some(code) = status.code() {
        return Ok(ExitCode::from(code.clamp(0, 255) as u8));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Ok(ExitCode::from((128 + sig).clamp(0, 255) as u8));
        }
    }
    Ok(ExitCode::from(1))
}

/// A class path as `java -cp` reads it: an empty element is the current
/// directory.
fn class_path(elements: Vec<OsString>) -> Vec<PathBuf> {
    elements
        .into_iter()
        .map(|p| {
            if p.is_empty() {
                PathBuf::from(".")
            } else {
                PathBuf::from(p)
            }
        })
        .collect()
}

fn dump(input: &Path, class: Option<&str>, method: Option<&str>) -> Result<ExitCode, MajorError> {
    let (bytes, entry) = if input.is_file() && input.extension().is_some_and(|e| e == "class") {
        (
            std::fs::read(input)
                .map_err(|e| MajorError::Usage(format!("{}: {e}", input.display())))?,
            input.display().to_string(),
        )
    } else {
        let archive = Archive::open(input)?;
        let want = class
            .ok_or_else(|| MajorError::Usage("name the class to dump inside the archive".into()))?;
        let want = want.trim_end_matches(".class").replace('.', "/");
        let i = archive
            .entries()
            .iter()
            .position(|e| e.class_name() == Some(want.as_str()))
            .ok_or_else(|| MajorError::Usage(format!("{}: no class {want}", input.display())))?;
        (
            archive.read(i)?.into_owned(),
            archive.entries()[i].name.clone(),
        )
    };
    let parsed = major_classfile::ClassFile::parse(&bytes)
        .map_err(|e| MajorError::class(input, &entry, e))?;
    if let Some(want) = method {
        let mut names = Vec::new();
        for m in &parsed.methods {
            let name = parsed
                .member_name(m)
                .map_err(|e| MajorError::class(input, &entry, e))?;
            let desc = parsed
                .member_descriptor(m)
                .map_err(|e| MajorError::class(input, &entry, e))?;
            if want == name || want == format!("{name}{desc}") {
                names.clear();
                break;
            }
            names.push(format!("{name}{desc}"));
        }
        if !names.is_empty() || parsed.methods.is_empty() {
            return Err(MajorError::Usage(format!(
                "{entry}: no method `{want}` (give a name or a name with its descriptor); \
                 the methods are: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
    }
    let text = disasm::disassemble_class(&parsed, method)
        .map_err(|e| MajorError::class(input, &entry, e))?;
    // A reader that stops early (`| head`) is not an error.
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(MajorError::Usage(format!("cannot write to stdout: {e}")));
        }
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

fn check(
    inputs: &[PathBuf],
    opts: CheckOptions,
    out: Option<&Path>,
    force: bool,
    module: Option<&str>,
    jdk: Option<&Path>,
    classpath: &[PathBuf],
) -> Result<ExitCode, MajorError> {
    let jdk = match jdk {
        Some(p) => Some(Jdk::at(p).ok_or_else(|| {
            MajorError::Usage(format!("{}: not a JDK (no lib/modules)", p.display()))
        })?),
        // A wrong JAVA_HOME is an error; no JDK at all only leaves the
        // class hierarchy to the inputs (warned about below).
        None => match Jdk::locate() {
            Ok(j) => Some(j),
            Err(e) if std::env::var_os("JAVA_HOME").is_some_and(|h| !h.is_empty()) => {
                return Err(MajorError::Usage(e))
            }
            Err(_) => None,
        },
    };
    // The built-in default: java.base of the JDK.
    let mut module = module;
    let default_input;
    let inputs = if inputs.is_empty() {
        let j = jdk.as_ref().ok_or_else(|| {
            MajorError::Usage(
                "no input given and no JDK found: name an archive, or set JAVA_HOME".into(),
            )
        })?;
        default_input = [j.modules()];
        module = module.or(Some("java.base"));
        eprintln!("no input given: checking java.base of {}", j.home.display());
        &default_input[..]
    } else {
        inputs
    };
    if let Some(out) = out {
        let read: Vec<PathBuf> = inputs.iter().chain(classpath).cloned().collect();
        major_archive::check_replace(&[out.to_path_buf()], &read, force)?;
    }
    let archives: Vec<Archive> = inputs
        .iter()
        .map(|p| Archive::open(p))
        .collect::<Result<_, _>>()?;
    let mut index = ClassIndex::new();
    let t0 = Instant::now();
    if opts.reframe {
        for a in &archives {
            report_errors(index.add_archive(a));
        }
        for p in classpath {
            report_errors(index.add_archive(&Archive::open(p)?));
        }
        match &jdk {
            Some(j) => report_errors(index.add_archive(&Archive::open(&j.modules())?)),
            None => eprintln!("warning: no JDK found (set JAVA_HOME or pass --jdk); the class hierarchy has only the inputs"),
        }
        eprintln!(
            "indexed {} classes in {:.2}s",
            index.len(),
            t0.elapsed().as_secs_f64()
        );
    }
    let mut output = match out {
        Some(p) => {
            let mut o = OutputArchive::create(p, OutputArchive::kind_for(p))?;
            keep_input_mode(&mut o, inputs);
            Some(o)
        }
        None => None,
    };
    let mut failed = false;
    for a in &archives {
        let t = Instant::now();
        let filter = module_filter(module);
        let r = check_archive(a, opts, &index, &filter, output.as_mut());
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{}: {} classes, {} round-trip identical{}{}{}, {} methods, {:.1} MB in {:.2}s ({:.0} MB/s), {} failures",
            a.path().display(),
            r.classes,
            r.round_trip_identical,
            if opts.codec { format!(", {} codec identical", r.codec_identical) } else { String::new() },
            if opts.reframe { format!(", {} re-framed", r.reframed) } else { String::new() },
            if opts.keep_frames { format!(" ({} methods kept their frames)", r.frames_kept) } else { String::new() },
            r.methods,
            r.class_bytes as f64 / 1e6,
            secs,
            r.class_bytes as f64 / 1e6 / secs.max(1e-9),
            r.failures.len()
        );
        failed |= !r.ok();
        for f in r.failures.iter().take(20) {
            eprintln!("  {f}");
        }
        if r.failures.len() > 20 {
            eprintln!("  ... and {} more", r.failures.len() - 20);
        }
    }
    if let Some(o) = output {
        o.finish()?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A jar written from jar inputs gets the permission bits of the first one.
fn keep_input_mode(out: &mut OutputArchive, inputs: &[PathBuf]) {
    if out.kind() == major_archive::OutputKind::Zip {
        if let Some(mode) = inputs
            .iter()
            .find(|p| p.is_file())
            .and_then(|p| OutputArchive::mode_of(p))
        {
            out.set_mode(mode);
        }
    }
}

fn report_errors(errors: Vec<MajorError>) {
    for e in errors.iter().take(5) {
        eprintln!("warning: not indexed: {e}");
    }
}
