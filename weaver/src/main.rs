//! The `major` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use major_archive::{Archive, OutputArchive};
use major_classfile::disasm;
use major_weaver::check::{check_archive, module_filter, CheckOptions};
use major_weaver::index::ClassIndex;
use major_weaver::jdk::Jdk;
use major_weaver::report::MajorError;
use major_weaver::weave_run::{self, WeaveOptions};

// Weaving allocates and frees many small objects on several threads at once;
// mimalloc does that with less time in the allocator than the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// major: an aspect weaver for Java bytecode with full coverage of the class library.
#[derive(Parser)]
#[command(name = "major", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Weave aspects into classes: `major weave --aspect Tracer.aj app.jar -o woven.jar`.
    Weave(WeaveArgs),
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
        /// `java --patch-module`. Written atomically.
        #[arg(long, short = 'o', requires = "reframe")]
        out: Option<PathBuf>,
        /// In a run-time image (lib/modules), only the classes of this module (e.g. java.base).
        #[arg(long)]
        module: Option<String>,
        /// JDK whose lib/modules completes the class hierarchy (default: JAVA_HOME or the java on PATH).
        #[arg(long)]
        jdk: Option<PathBuf>,
        /// More archives for the class hierarchy only.
        #[arg(long = "classpath", value_delimiter = ':')]
        classpath: Vec<PathBuf>,
    },
}

/// The options of `major weave`.
#[derive(clap::Args)]
struct WeaveArgs {
    /// Aspect files: code style (.aj) or annotation style (@Aspect .java); repeat for several.
    #[arg(long = "aspect", short = 'a', required = true)]
    aspects: Vec<PathBuf>,
    /// Inputs: jars/zips or class directories.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The output: a .jar/.zip, or a directory. Written atomically.
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// More archives for type resolution only (not woven, not copied).
    #[arg(long = "classpath", value_delimiter = ':')]
    classpath: Vec<PathBuf>,
    /// The JDK for javac and the class library (default: JAVA_HOME or the java on PATH).
    #[arg(long)]
    jdk: Option<PathBuf>,
    /// Do not put the runtime classes (org.aspectj.lang, major.runtime) into the output.
    #[arg(long)]
    no_runtime: bool,
    /// Fail when a method cannot be woven soundly because a class it needs is missing
    /// from the class path (an optional dependency not installed); by default such a
    /// method is left unwoven with a warning naming it and the missing class.
    #[arg(long)]
    strict: bool,
    /// Where compiled aspects are cached, so that weaving again with unchanged aspects
    /// skips javac (default: $MAJOR_CACHE_DIR, else $XDG_CACHE_HOME/major, else ~/.cache/major).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Always compile the aspects with javac; neither read nor write the cache.
    #[arg(long, conflicts_with = "cache_dir")]
    no_cache: bool,
    /// Print the wall time of each phase (aspects, index, match, weave and write, finish).
    #[arg(long)]
    timings: bool,
}

fn main() -> ExitCode {
    no_huge_pages();
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Weave(args) => weave(args),
        Command::Demo { keep, jdk } => demo(keep, jdk),
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
            module.as_deref(),
            jdk.as_deref(),
            &classpath,
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
        None => Jdk::find()
            .ok_or_else(|| MajorError::Usage("no JDK found: set JAVA_HOME or pass --jdk".into())),
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

fn weave(args: WeaveArgs) -> Result<ExitCode, MajorError> {
    let jdk = jdk_or_default(args.jdk)?;
    let cache = if args.no_cache {
        None
    } else {
        args.cache_dir
            .or_else(major_weaver::aspects::cache::default_dir)
    };
    let opts = WeaveOptions {
        aspects: args.aspects,
        inputs: args.inputs,
        output: args.out.clone(),
        classpath: args.classpath,
        jdk,
        bundle_runtime: !args.no_runtime,
        strict: args.strict,
        cache,
    };
    let report = weave_run::run(&opts)?;
    weave_run::print_report(&report, &args.out, args.timings);
    Ok(ExitCode::SUCCESS)
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
    module: Option<&str>,
    jdk: Option<&Path>,
    classpath: &[PathBuf],
) -> Result<ExitCode, MajorError> {
    let jdk = match jdk {
        Some(p) => Some(Jdk::at(p).ok_or_else(|| {
            MajorError::Usage(format!("{}: not a JDK (no lib/modules)", p.display()))
        })?),
        None => Jdk::find(),
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
        Some(p) => Some(OutputArchive::create(p, OutputArchive::kind_for(p))?),
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

fn report_errors(errors: Vec<MajorError>) {
    for e in errors.iter().take(5) {
        eprintln!("warning: not indexed: {e}");
    }
}
