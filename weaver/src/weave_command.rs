//! `major weave`: its options, its run, and what it prints, on the
//! process's own standard output and error or into the buffers a resident
//! weaver ([`crate::serve`]) sends back to its client.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use major_archive::{OutputArchive, OutputKind};
use major_weaver::jdk::Jdk;
use major_weaver::report::MajorError;
use major_weaver::report_json::{JdkContext, ReportContext, ReportTarget};
use major_weaver::signed::SignedJars;
use major_weaver::weave_run::{self, JarOptions, WeaveOptions};
use major_weaver::woven_jdk::JdkWeaveOptions;

use crate::{class_path, jdk_or_default};

/// Where a command's messages go.
pub(crate) struct Console<'a> {
    /// Standard output: the report of `--report json`.
    pub out: &'a mut dyn Write,
    /// Standard error: the summary, the warnings, the errors.
    pub err: &'a mut dyn Write,
}

/// Runs `major weave` with `args`, its messages on `console`; the exit code:
/// 0, or 2 after an error (printed there).
pub(crate) fn run(args: WeaveArgs, console: &mut Console) -> u8 {
    let r = report_outside_output(&args).and_then(|()| {
        let target = args.report.clone();
        let cx = ReportContext {
            output: args.out.clone(),
            aspects: args.aspects.clone(),
            jdk: None,
            written: None,
        };
        let r = weave(args, &cx, console);
        if let (Some(t), Err(e)) = (&target, &r) {
            let failure = major_weaver::report_json::render_failure(e, &cx);
            if let Err(w) = t.write(&failure, console.out) {
                let _ = writeln!(console.err, "{:?}", miette::Report::new(w));
            }
        }
        r
    });
    match r {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(console.err, "{:?}", miette::Report::new(e));
            2
        }
    }
}

/// The options of `major weave`.
#[derive(clap::Args)]
pub(crate) struct WeaveArgs {
    /// Aspect files: code style (.aj) or annotation style (@Aspect .java); repeat for several.
    #[arg(long = "aspect", short = 'a', required = true)]
    aspects: Vec<PathBuf>,
    /// Inputs: jars/zips or class directories. Several inputs woven into a
    /// directory give one woven jar (or directory) per input, under its name.
    /// With --jdk, the program's inputs woven together with the JDK (optional).
    #[arg(required_unless_present = "jdk")]
    inputs: Vec<PathBuf>,
    /// The output: a .jar/.zip, or a directory. Written atomically. OUT is replaced
    /// whole, and only if it is missing, an empty directory, or an output major wrote
    /// (and the user added nothing to), and is no input; else the run stops (see --force).
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Replace OUT whatever it is: a file or non-empty directory major did not write,
    /// or an input (weaving in place).
    #[arg(long)]
    force: bool,
    /// With several inputs woven into a directory: the jar there that gets the
    /// aspect and runtime classes (an input's file name puts them into that
    /// woven jar). Default: major-runtime.jar.
    #[arg(long, value_name = "NAME")]
    runtime_jar: Option<String>,
    /// A signed jar whose classes the aspects change: `strip` removes its
    /// signature (with a warning), `refuse` fails the run.
    #[arg(long, value_enum, default_value = "strip", value_name = "WHAT")]
    signed_jars: SignedJars,
    /// More archives for type resolution only (not woven, not copied). An
    /// empty element is the current directory, as for `java -cp`.
    #[arg(long = "classpath", value_delimiter = ':', value_parser = clap::value_parser!(OsString))]
    classpath: Vec<OsString>,
    /// Weave the JDK itself (full coverage): every module of its run-time image
    /// (or those --module names), with the inputs if any, into the directory OUT:
    /// one patch jar per changed module, the woven inputs, and OUT/java.args, the
    /// options that run a program on it (`major run OUT -- ...` or
    /// `java @OUT/java.args ...`). JDK: JAVA_HOME, else the java on PATH.
    #[arg(long, value_name = "JAVA_HOME", num_args = 0..=1)]
    jdk: Option<Option<PathBuf>>,
    /// With --jdk: the form of the woven JDK: `image`, a JDK home of its own
    /// (woven run-time image, its own class-data-sharing archive, the JDK's
    /// other files shared by hard links; run OUT/bin/java), or `patch`, jars
    /// for --patch-module beside the JDK (lighter; slower start-up).
    #[arg(
        long,
        value_enum,
        default_value = "image",
        value_name = "FORM",
        requires = "jdk"
    )]
    jdk_form: major_weaver::woven_jdk::JdkForm,
    /// The JDK for javac and the class library when weaving a program only
    /// (default: JAVA_HOME, else the java on PATH).
    #[arg(long, value_name = "DIR", conflicts_with = "jdk")]
    java_home: Option<PathBuf>,
    /// Do not put the runtime classes (org.aspectj.lang, major.runtime) into the output.
    #[arg(long)]
    no_runtime: bool,
    /// Fail when a method cannot be woven soundly because a class it needs is missing
    /// from the class path (an optional dependency not installed); by default such a
    /// method is left unwoven with a warning naming it and the missing class.
    #[arg(long)]
    strict: bool,
    /// Full coverage: the inputs include the Java class library (e.g. java.base.jmod);
    /// every woven method checks the bootstrap and thread-local bypasses on entry, and
    /// the aspects run with the thread-local bypass set. Run the result with
    /// --patch-module java.base=OUT.
    #[arg(long)]
    full_coverage: bool,
    /// With full coverage (--jdk, --full-coverage): how a woven method skips its
    /// advice while a bypass is on (the VM booting, or advice running):
    /// `guards`, one decision on entry that every woven shadow tests, or
    /// `duplicate`, the woven and the original body in one method (FERRARI).
    #[arg(long, value_enum, default_value = "guards", value_name = "FORM")]
    bypass: major_weaver::weave::bypass::BypassForm,
    /// With --jdk: weave only this module of the JDK (repeat for several; java.base
    /// is always woven). With a JDK run-time image (`$JAVA_HOME/lib/modules`) as
    /// input: weave this module of it (repeat for several), each into
    /// OUT/<module>.jar holding its changed classes (a --patch-module jar).
    #[arg(long = "module", value_name = "NAME")]
    modules: Vec<String>,
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
    /// Also give a machine-readable report: `json` on standard output, `json=FILE`
    /// into FILE (every woven class with its shadows and advice, unmatched advice,
    /// declare warnings, what was left unwoven and why, added classes, timings;
    /// schema: weaver/report.schema.json). A failed weave gets a report too.
    #[arg(long, value_name = "json[=FILE]", value_parser = ReportTarget::parse)]
    report: Option<ReportTarget>,
}

fn weave(args: WeaveArgs, cx: &ReportContext, console: &mut Console) -> Result<(), MajorError> {
    if args.jdk.is_some() {
        return weave_jdk(args, cx, console);
    }
    // The class path is read by the run too: no output replaces it either.
    let classpath = class_path(args.classpath);
    let read: Vec<PathBuf> = args.inputs.iter().chain(&classpath).cloned().collect();
    // Several inputs woven into a directory: each woven jar there is an output.
    // An image's modules are one input each, woven into <module>.jar.
    let is_image = |p: &PathBuf| p.file_name().is_some_and(|n| n == "modules") && p.is_file();
    let names: Vec<std::ffi::OsString> = args
        .inputs
        .iter()
        .flat_map(|i| {
            if is_image(i) && !args.modules.is_empty() {
                args.modules
                    .iter()
                    .map(|m| std::ffi::OsString::from(format!("{m}.jar")))
                    .collect()
            } else {
                i.file_name()
                    .map(|n| n.to_os_string())
                    .into_iter()
                    .collect::<Vec<_>>()
            }
        })
        .collect();
    let per_input = OutputArchive::kind_for(&args.out) == OutputKind::Directory
        && (names.len() > 1 || args.runtime_jar.is_some());
    let targets: Vec<PathBuf> = if per_input {
        names
            .iter()
            .map(|n| args.out.join(n))
            .chain(std::iter::once(
                args.out.join(
                    args.runtime_jar
                        .as_deref()
                        .unwrap_or(major_weaver::outputs::DEFAULT_RUNTIME_JAR),
                ),
            ))
            .collect()
    } else {
        vec![args.out.clone()]
    };
    major_archive::check_replace(&targets, &read, args.force)?;
    if !args.force {
        // An incremental update need not list the output again.
        for t in &targets {
            major_weaver::incremental::output_checked(t);
        }
    }
    let jdk = jdk_or_default(args.java_home)?;
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
        classpath,
        jdk,
        bundle_runtime: !args.no_runtime,
        strict: args.strict,
        full_coverage: args.full_coverage,
        bypass: args.bypass,
        modules: args.modules,
        class_records: args.report.is_some(),
        cache,
        jars: JarOptions {
            runtime_jar: args.runtime_jar,
            signed_jars: args.signed_jars,
        },
    };
    let report = weave_run::run(&opts)?;
    weave_run::print_report(&report, &args.out, args.timings, console.err);
    if let Some(t) = &args.report {
        t.write(&major_weaver::report_json::render(&report, cx), console.out)?;
    }
    Ok(())
}

/// `major weave --jdk`: the JDK's modules and the inputs into a woven JDK.
fn weave_jdk(args: WeaveArgs, cx: &ReportContext, console: &mut Console) -> Result<(), MajorError> {
    let jdk = match args.jdk.as_ref().and_then(|h| h.as_deref()) {
        Some(home) => Jdk::at(home).ok_or_else(|| {
            let hint = if home.is_file() || home.extension().is_some() {
                format!(
                    " (if {} is an input: --jdk takes an optional JAVA_HOME, so write                      --jdk=JAVA_HOME, or put --jdk after the inputs)",
                    home.display()
                )
            } else {
                String::new()
            };
            MajorError::Usage(format!(
                "--jdk {}: not a JDK (no lib/modules){hint}",
                home.display()
            ))
        })?,
        None => Jdk::locate().map_err(MajorError::Usage)?,
    };
    if OutputArchive::kind_for(&args.out) != OutputKind::Directory {
        return Err(MajorError::Usage(format!(
            "-o {}: a woven JDK is a directory (patch jars per module and the java              options to run them); name a directory",
            args.out.display()
        )));
    }
    if args.no_runtime {
        return Err(MajorError::Usage(
            "--no-runtime: a woven JDK needs the runtime classes in java.base".into(),
        ));
    }
    let classpath = class_path(args.classpath);
    let read: Vec<PathBuf> = args
        .inputs
        .iter()
        .chain(&classpath)
        .cloned()
        .chain(std::iter::once(jdk.home.clone()))
        .collect();
    major_archive::check_replace(std::slice::from_ref(&args.out), &read, args.force)?;
    let cache = if args.no_cache {
        None
    } else {
        args.cache_dir
            .or_else(major_weaver::aspects::cache::default_dir)
    };
    let jdk_home = jdk.home.clone();
    let opts = JdkWeaveOptions {
        form: args.jdk_form,
        aspects: args.aspects,
        jdk,
        modules: args.modules,
        inputs: args.inputs,
        classpath,
        output: args.out.clone(),
        cache,
        strict: args.strict,
        signed_jars: args.signed_jars,
        bypass: args.bypass,
    };
    let (report, woven) = major_weaver::woven_jdk::weave(&opts)?;
    weave_run::print_report(&report, &args.out, args.timings, console.err);
    if let Some(t) = &args.report {
        // The woven JDK's files, as they are in OUT (the weave wrote them
        // into a staging directory).
        let mut written: Vec<String> = match woven.form {
            major_weaver::woven_jdk::JdkForm::Image => vec!["lib/modules".to_string()],
            major_weaver::woven_jdk::JdkForm::Patch => {
                woven.modules.iter().map(|m| format!("{m}.jar")).collect()
            }
        };
        written.extend(woven.inputs.iter().cloned());
        let cx = ReportContext {
            jdk: Some(JdkContext {
                form: match woven.form {
                    major_weaver::woven_jdk::JdkForm::Image => "image",
                    major_weaver::woven_jdk::JdkForm::Patch => "patch",
                }
                .to_string(),
                version: woven.version,
                modules: woven.modules.clone(),
            }),
            written: Some(written),
            ..cx.clone()
        };
        t.write(
            &major_weaver::report_json::render(&report, &cx),
            console.out,
        )?;
    }
    let how = match woven.form {
        major_weaver::woven_jdk::JdkForm::Image => {
            format!("{} -cp APP MAIN", woven.java().display())
        }
        major_weaver::woven_jdk::JdkForm::Patch => format!(
            "{} @{} -cp APP MAIN",
            woven.java().display(),
            woven.dir.join(major_weaver::woven_jdk::ARGS_FILE).display()
        ),
    };
    let _ = writeln!(
        console.err,
        "woven JDK {} ({:?}, from {}): woven {} of its modules ({}); added to java.base: {} \
         classes (listed in {}); run a program on it with\n  major run {} -- -cp APP MAIN\n  {how}",
        woven.version,
        woven.form,
        jdk_home.display(),
        woven.modules.len(),
        woven.modules.join(", "),
        woven.added_classes.len(),
        woven.dir.join(major_weaver::woven_jdk::INFO_FILE).display(),
        args.out.display(),
    );
    Ok(())
}

/// Refuses a `--report json=FILE` inside a directory output: the output is
/// replaced whole, and only if major wrote all of it, so a report there
/// would make the next weave refuse to replace it.
fn report_outside_output(args: &WeaveArgs) -> Result<(), MajorError> {
    let Some(ReportTarget::File(file)) = &args.report else {
        return Ok(());
    };
    // Absolute, with `.` and `..` resolved by name (the paths need not exist).
    let lexical = |p: &Path| {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let mut out = PathBuf::new();
        for c in abs.components() {
            match c {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                c => out.push(c),
            }
        }
        out
    };
    let directory = OutputArchive::kind_for(&args.out) == OutputKind::Directory;
    if directory && lexical(file).starts_with(lexical(&args.out)) {
        return Err(MajorError::Usage(format!(
            "--report json={}: the report cannot go inside the output directory {} \
             (which the next weave replaces whole); write it beside it",
            file.display(),
            args.out.display()
        )));
    }
    Ok(())
}
