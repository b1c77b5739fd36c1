//! A woven JDK: the aspects woven into every module of a JDK's run-time
//! image (full coverage, behind the bypasses of [`crate::weave::bypass`]),
//! together with the program's own inputs, and the `java` options that run
//! a program on the result.
//!
//! The form is a directory of patches, one jar per module the weave changed
//! (`java.base.jar`, `java.xml.jar`, ...), holding only the changed classes:
//! the JVM takes every other class from the JDK's own image
//! (`--patch-module`). The aspect, runtime, bypass and extra classes join
//! `java.base.jar`, so that every module reads them (every module reads
//! `java.base`) and the boot loader defines them; the woven `java.base`
//! declares their packages and exports them to every module
//! ([`crate::weave::module_descriptors`]). The program's woven inputs sit
//! beside the patches under their own names. The directory holds:
//!
//! * [`ARGS_FILE`]: the options, for `java @DIR/java.args -cp ... Main`;
//! * [`INFO_FILE`]: the JDK it was woven from, the patched modules, the
//!   woven inputs and the classes the weave added, read by `major run`.
//!
//! Why patches rather than a new run-time image: a patch leaves the JDK
//! untouched, costs only the changed classes, and works on any JDK (JDK 25
//! ships without jmods, which `jlink` needs). Its price is start-up:
//! `--patch-module java.base` turns class-data sharing off (see
//! `bench/README.md`).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Instant;

use major_archive::{Archive, ImageWriter, OutputDir};

use crate::jdk::Jdk;
use crate::report::MajorError;
use crate::signed::SignedJars;
use crate::weave_run::{self, JarOptions, WeaveOptions, WeaveReport};

/// The `java` argument file of a woven JDK: `java @DIR/java.args ...`.
pub const ARGS_FILE: &str = "java.args";

/// What a woven JDK records about itself (see [`WovenJdk::open`]).
pub const INFO_FILE: &str = "woven-jdk.txt";

/// The first line of [`INFO_FILE`].
const INFO_HEADER: &str = "# a JDK woven by major";

/// The JDK feature versions whose class library major weaves.
pub const SUPPORTED_VERSIONS: RangeInclusive<u32> = 17..=25;

/// The module that receives the classes the weave adds.
const BASE: &str = "java.base";

/// The form a woven JDK takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum JdkForm {
    /// A JDK home of its own: the JDK's files shared (hard links, or
    /// copies), a woven run-time image (`lib/modules`) and a class-data
    /// sharing archive made for it; `WOVEN/bin/java` runs it, with no
    /// options. Starts as fast as the JDK it was woven from.
    #[default]
    Image,
    /// Patch jars of the changed classes beside the JDK, for
    /// `--patch-module` (`java @WOVEN/java.args`): light to make, but
    /// patching `java.base` turns class-data sharing off.
    Patch,
}

/// What to weave into a woven JDK.
#[derive(Debug, Clone)]
pub struct JdkWeaveOptions {
    /// The form of the woven JDK.
    pub form: JdkForm,
    /// Aspect files.
    pub aspects: Vec<PathBuf>,
    /// The JDK whose modules are woven (and whose javac compiles the aspects).
    pub jdk: Jdk,
    /// The modules to weave (empty: every module with classes). `java.base`
    /// is always woven: it receives the aspects.
    pub modules: Vec<String>,
    /// The program's inputs, woven in the same run.
    pub inputs: Vec<PathBuf>,
    /// More archives for type resolution only.
    pub classpath: Vec<PathBuf>,
    /// The woven JDK's directory.
    pub output: PathBuf,
    /// The aspect cache ([`WeaveOptions::cache`]).
    pub cache: Option<PathBuf>,
    /// See [`WeaveOptions::strict`].
    pub strict: bool,
    /// What becomes of the program's signed jars.
    pub signed_jars: SignedJars,
    /// How woven methods bypass their advice.
    pub bypass: crate::weave::bypass::BypassForm,
}

/// A woven JDK directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WovenJdk {
    /// The directory.
    pub dir: PathBuf,
    /// Its form.
    pub form: JdkForm,
    /// The home whose `java` runs it: the JDK it was woven from (a patch),
    /// or the directory itself (an image).
    pub java_home: PathBuf,
    /// The JDK's feature version.
    pub version: u32,
    /// The modules woven (in a patch, each with `<module>.jar` in the
    /// directory).
    pub modules: Vec<String>,
    /// Those of `modules` that the JVM resolves only when asked
    /// (`--add-modules`, or a module that requires them): patching a
    /// module the JVM does not resolve earns a warning at every start, so
    /// their patches are added only when the command names them.
    pub on_request: Vec<String>,
    /// The program's woven inputs: paths relative to the directory
    /// (`app.jar` in a patch, `app/app.jar` in an image).
    pub inputs: Vec<String>,
    /// The packages the weave added to `java.base` (internal form,
    /// `major/runtime`): its woven module descriptor declares and exports
    /// them to every module.
    pub exports: Vec<String>,
    /// The classes the weave added to `java.base` (entry names).
    pub added_classes: Vec<String>,
}

/// Weaves `opts.jdk` and the program's inputs into `opts.output`; nothing
/// is written unless all went well. The caller checked that the output may
/// be replaced.
pub fn weave(opts: &JdkWeaveOptions) -> Result<(WeaveReport, WovenJdk), MajorError> {
    let version = check_jdk(&opts.jdk)?;
    let image_path = opts.jdk.modules();
    let image = Archive::open(&image_path)?;
    let all = image.image_modules();
    let modules: Vec<String> = if opts.modules.is_empty() {
        all
    } else {
        let mut chosen: BTreeSet<String> = BTreeSet::new();
        chosen.insert(BASE.to_string());
        for m in &opts.modules {
            if !all.contains(m) {
                return Err(MajorError::Usage(format!(
                    "--module {m}: {} holds no module `{m}` with classes (it holds {})",
                    image_path.display(),
                    all.join(", ")
                )));
            }
            chosen.insert(m.clone());
        }
        chosen.into_iter().collect()
    };

    let out = OutputDir::create(&opts.output)?;
    // An image is built from the patches, woven into a staging directory.
    let staging = match opts.form {
        JdkForm::Patch => out.path().to_path_buf(),
        JdkForm::Image => out.path().join(".staging"),
    };
    let base_jar = format!("{BASE}.jar");
    let run = WeaveOptions {
        aspects: opts.aspects.clone(),
        inputs: std::iter::once(image_path.clone())
            .chain(opts.inputs.iter().cloned())
            .collect(),
        output: staging.clone(),
        classpath: opts.classpath.clone(),
        jdk: opts.jdk.clone(),
        bundle_runtime: true,
        cache: opts.cache.clone(),
        strict: opts.strict,
        full_coverage: true,
        bypass: opts.bypass,
        jars: JarOptions {
            runtime_jar: Some(base_jar.clone()),
            signed_jars: opts.signed_jars,
        },
        modules: modules.clone(),
        class_records: true,
    };
    // The image form's JDK home (the JDK's other files, hard-linked) does
    // not depend on the weave: it is put together meanwhile.
    let (report, home) = std::thread::scope(|scope| {
        let home = (opts.form == JdkForm::Image).then(|| {
            scope.spawn(|| {
                let started = Instant::now();
                assemble_home(&opts.jdk, out.path()).map(|()| started.elapsed())
            })
        });
        let report = weave_run::run(&run);
        let home = home.map(|h| h.join().expect("assembling the JDK home panicked"));
        (report, home)
    });
    let mut report = report?;
    if let Some(home) = home {
        report.timings.push(("JDK home (beside)", home?));
    }
    let mut clock = Instant::now();
    let mut lap = |report: &mut WeaveReport, phase: &'static str| {
        let now = Instant::now();
        report.timings.push((phase, now - clock));
        clock = now;
    };

    // Classes the boot loader defines in a named module need a package.
    if let Some(c) = report
        .added_classes
        .iter()
        .find(|c| !c.contains('/') && c.ends_with(".class"))
    {
        return Err(MajorError::Usage(format!(
            "{}: an aspect in the unnamed package cannot join java.base; give the \
             aspect a package (`package tools;`) to weave it into the JDK",
            c.trim_end_matches(".class")
        )));
    }
    let file_name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let written: BTreeSet<String> = report.written.iter().map(file_name).collect();
    let patched: Vec<String> = modules
        .iter()
        .filter(|m| written.contains(&format!("{m}.jar")))
        .cloned()
        .collect();
    let inputs: Vec<String> = report
        .written
        .iter()
        .map(file_name)
        .filter(|n| !patched.iter().any(|m| *n == format!("{m}.jar")))
        .collect();
    let exports = report.base_packages_added.clone();
    let io = |what: &str, e: std::io::Error| {
        MajorError::Usage(format!("{}: writing {what}: {e}", opts.output.display()))
    };
    let dir = std::path::absolute(&opts.output).unwrap_or_else(|_| opts.output.clone());
    let woven = match opts.form {
        JdkForm::Patch => {
            let resolved = default_modules(&opts.jdk)?;
            let on_request: Vec<String> = patched
                .iter()
                .filter(|m| !resolved.contains(*m))
                .cloned()
                .collect();
            WovenJdk {
                dir,
                form: JdkForm::Patch,
                java_home: std::path::absolute(&opts.jdk.home)
                    .unwrap_or_else(|_| opts.jdk.home.clone()),
                version,
                modules: patched,
                on_request,
                inputs,
                exports,
                added_classes: report.added_classes.clone(),
            }
        }
        JdkForm::Image => {
            build_image(&image, &staging, &patched, out.path())?;
            lap(&mut report, "build image");
            // The archive is dumped while the staging directory is
            // cleared up.
            let dump = start_cds_dump(&opts.jdk, out.path())?;
            // The program's woven inputs go to app/.
            let app = out.path().join(APP);
            std::fs::create_dir_all(&app).map_err(|e| io(APP, e))?;
            for i in &inputs {
                std::fs::rename(staging.join(i), app.join(i)).map_err(|e| io(i, e))?;
            }
            std::fs::remove_dir_all(&staging).map_err(|e| io("the staging directory", e))?;
            dump.wait()?;
            lap(&mut report, "CDS dump");
            WovenJdk {
                java_home: dir.clone(),
                dir,
                form: JdkForm::Image,
                version,
                modules: patched,
                on_request: Vec::new(),
                inputs: inputs.iter().map(|i| format!("{APP}/{i}")).collect(),
                exports,
                added_classes: report.added_classes.clone(),
            }
        }
    };
    std::fs::write(out.path().join(ARGS_FILE), woven.args_file()).map_err(|e| io(ARGS_FILE, e))?;
    std::fs::write(out.path().join(INFO_FILE), woven.info()).map_err(|e| io(INFO_FILE, e))?;
    out.finish()?;
    Ok((report, woven))
}

/// Where an image-form woven JDK keeps the program's woven inputs.
const APP: &str = "app";

/// Writes `home/lib/modules`: the JDK's run-time image with the classes of
/// each module's patch (in `staging`) replacing or joining its own.
fn build_image(
    source: &Archive,
    staging: &Path,
    modules: &[String],
    home: &Path,
) -> Result<(), MajorError> {
    let mut writer = ImageWriter::from_image(source, &home.join("lib/modules"))?;
    for m in modules {
        let patch = Archive::open(&staging.join(format!("{m}.jar")))?;
        for (i, e) in patch.entries().iter().enumerate() {
            if e.is_dir || e.class_name().is_none() {
                continue;
            }
            let bytes = patch.read(i)?.into_owned();
            if writer.contains(m, &e.name) {
                writer.replace(m, &e.name, bytes)?;
            } else {
                writer.add(m, &e.name, bytes)?;
            }
        }
    }
    writer.write()?;
    Ok(())
}

/// Fills `home` with the rest of the JDK (its files shared: `jdk_home`), all
/// but the run-time image (woven), the jmods (unwoven: a jlink from them
/// would lose the weave), the sources and the class-data-sharing archives
/// (made for the unwoven image; [`start_cds_dump`] makes the woven image's).
fn assemble_home(jdk: &Jdk, home: &Path) -> Result<(), MajorError> {
    let leave_out = |p: &Path| {
        p == Path::new("lib/modules")
            || p == Path::new("jmods")
            || p == Path::new("lib/src.zip")
            || (p.extension().is_some_and(|e| e == "jsa"))
    };
    crate::jdk_home::assemble(&jdk.home, home, &leave_out)
        .map(|_| ())
        .map_err(|e| {
            MajorError::Usage(format!(
                "{}: making a JDK home from {}: {e}",
                home.display(),
                jdk.home.display()
            ))
        })
}

/// A `java -Xshare:dump` running on a woven home.
struct CdsDump {
    java: PathBuf,
    child: std::process::Child,
}

/// Starts making a class-data-sharing archive for the woven image of `home`
/// (assembled, its `lib/modules` written), so that it starts as fast as the
/// JDK: `java -Xshare:dump` from the JDK's class list less its
/// `@lambda-form-invoker` lines (with them the dump regenerates the
/// `java.lang.invoke` holder and species classes, unwoven, in place of the
/// image's woven ones). [`CdsDump::wait`] waits for it.
fn start_cds_dump(jdk: &Jdk, home: &Path) -> Result<CdsDump, MajorError> {
    // The list is written to a file of its own: the home's `lib/classlist`
    // is the JDK's, hard-linked.
    let java = home.join("bin/java");
    let mut dump = std::process::Command::new(&java);
    dump.arg("-Xshare:dump");
    if let Ok(list) = std::fs::read_to_string(jdk.home.join("lib/classlist")) {
        let kept: String = list
            .lines()
            .filter(|l| !l.starts_with("@lambda-form-invoker"))
            .map(|l| format!("{l}\n"))
            .collect();
        let file = home.join("lib/major-classlist");
        std::fs::write(&file, kept)
            .map_err(|e| MajorError::Usage(format!("{}: {e}", file.display())))?;
        dump.arg(format!("-XX:SharedClassListFile={}", file.display()));
    }
    let child = dump
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| MajorError::Usage(format!("{}: cannot run: {e}", java.display())))?;
    Ok(CdsDump { java, child })
}

impl CdsDump {
    /// Waits for the dump; its output is the error if it failed.
    fn wait(self) -> Result<(), MajorError> {
        let o = self
            .child
            .wait_with_output()
            .map_err(|e| MajorError::Usage(format!("{}: cannot run: {e}", self.java.display())))?;
        if !o.status.success() {
            return Err(MajorError::Usage(format!(
                "{} -Xshare:dump failed on the woven image ({}):\n{}{}",
                self.java.display(),
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )));
        }
        Ok(())
    }
}

/// The modules the JDK's `java` resolves when it runs a program from the
/// class path: the roots of the unnamed module and what they require or bind
/// (`java --show-module-resolution -version`).
fn default_modules(jdk: &Jdk) -> Result<BTreeSet<String>, MajorError> {
    let out = std::process::Command::new(jdk.java())
        .args(["-Xshare:auto", "--show-module-resolution", "-version"])
        .output()
        .map_err(|e| MajorError::Usage(format!("{}: cannot run: {e}", jdk.java().display())))?;
    if !out.status.success() {
        return Err(MajorError::Usage(format!(
            "{} --show-module-resolution -version failed ({}): {}",
            jdk.java().display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let mut modules = BTreeSet::new();
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        // "root M jrt:/M", "M requires N jrt:/N", "M binds N jrt:/N"
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["root", m, ..] => {
                modules.insert(m.to_string());
            }
            [m, "requires" | "binds", n, ..] => {
                modules.insert(m.to_string());
                modules.insert(n.to_string());
            }
            _ => {}
        }
    }
    if !modules.contains(BASE) {
        return Err(MajorError::Usage(format!(
            "{} --show-module-resolution -version: no module resolution in its output",
            jdk.java().display()
        )));
    }
    Ok(modules)
}

/// The JDK's feature version, if major weaves its class library.
fn check_jdk(jdk: &Jdk) -> Result<u32, MajorError> {
    let version = jdk.feature_version().ok_or_else(|| {
        MajorError::Usage(format!(
            "{}: no JAVA_VERSION in its `release` file: cannot tell which JDK this is",
            jdk.home.display()
        ))
    })?;
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(MajorError::Usage(format!(
            "{}: JDK {version} is not supported for weaving the class library \
             (supported: JDK {} to {})",
            jdk.home.display(),
            SUPPORTED_VERSIONS.start(),
            SUPPORTED_VERSIONS.end()
        )));
    }
    Ok(version)
}

impl WovenJdk {
    /// The `java` options that run a program on the woven JDK, with the
    /// directory where it is now: the patches of the modules the JVM
    /// resolves by default, and of those of [`on_request`](Self::on_request)
    /// that `requested` names (`ALL-SYSTEM`: all).
    pub fn java_options(&self, requested: &[String]) -> Vec<String> {
        if self.form == JdkForm::Image {
            return Vec::new();
        }
        let all = requested.iter().any(|r| r == "ALL-SYSTEM");
        let modules: Vec<&String> = self
            .modules
            .iter()
            .filter(|m| all || !self.on_request.contains(m) || requested.contains(m))
            .collect();
        // The added packages need no --add-exports: the woven java.base
        // declares and exports them (weave::module_descriptors).
        modules
            .iter()
            .map(|m| {
                format!(
                    "--patch-module={m}={}",
                    self.dir.join(format!("{m}.jar")).display()
                )
            })
            .collect()
    }

    /// Where the woven form of the program's input `original` (woven with
    /// the JDK, named by its file name) is.
    pub fn woven_input(&self, original: &Path) -> Option<PathBuf> {
        let name = original.file_name()?.to_str()?;
        self.inputs
            .iter()
            .find(|i| Path::new(i).file_name().and_then(|n| n.to_str()) == Some(name))
            .map(|i| self.dir.join(i))
    }

    /// The `java` launcher that runs the woven JDK.
    pub fn java(&self) -> PathBuf {
        self.java_home.join("bin/java")
    }

    /// The command that runs `java` on the woven JDK with `args` (options,
    /// class path, main class and its arguments).
    pub fn command(&self, args: &[OsString]) -> std::process::Command {
        let mut c = std::process::Command::new(self.java());
        c.args(self.java_options(&requested_modules(args)))
            .args(args);
        c
    }

    /// The contents of [`ARGS_FILE`]: one option a line, quoted as `java`
    /// reads argument files where a path needs it; the patches of the
    /// modules resolved only on request are left in comments.
    fn args_file(&self) -> String {
        if self.form == JdkForm::Image {
            // No path: the image runs from wherever it is.
            return "# a woven JDK image needs no options: run its bin/java directly\n".into();
        }
        let mut text = format!(
            "# java options of a JDK woven by major: java @{ARGS_FILE} -cp APP MAIN ARGS\n"
        );
        for o in self.java_options(&[]) {
            text.push_str(&quote_arg(&o));
            text.push('\n');
        }
        if !self.on_request.is_empty() {
            text.push_str(
                "# woven modules that java resolves only when asked (--add-modules M): add\n\
                 # their --patch-module when you do\n",
            );
            for m in &self.on_request {
                let jar = self.dir.join(format!("{m}.jar"));
                let _ = writeln!(text, "# --patch-module={m}={}", jar.display());
            }
        }
        text
    }

    /// The contents of [`INFO_FILE`].
    pub(crate) fn info(&self) -> String {
        let mut t = format!(
            "{INFO_HEADER} {}: run a program on it with `major run DIR -- ARGS` \
             or `JAVA @DIR/{ARGS_FILE} ARGS`\n",
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            t,
            "form={}",
            match self.form {
                JdkForm::Image => "image",
                JdkForm::Patch => "patch",
            }
        );
        // A patch names the JDK it patches; an image is its own home (`.`),
        // so that its files hold no path (see `open`).
        let _ = match self.form {
            JdkForm::Image => writeln!(t, "java.home=."),
            JdkForm::Patch => writeln!(t, "java.home={}", self.java_home.display()),
        };
        let _ = writeln!(t, "version={}", self.version);
        for m in &self.modules {
            let _ = writeln!(t, "module={m}");
        }
        for m in &self.on_request {
            let _ = writeln!(t, "on-request={m}");
        }
        for i in &self.inputs {
            let _ = writeln!(t, "input={i}");
        }
        for p in &self.exports {
            let _ = writeln!(t, "export={p}");
        }
        for c in &self.added_classes {
            let _ = writeln!(t, "added={c}");
        }
        t
    }

    /// Reads the woven JDK at `dir` (written by [`weave`]), wherever the
    /// directory is now.
    pub fn open(dir: &Path) -> Result<WovenJdk, MajorError> {
        let info = dir.join(INFO_FILE);
        let text = std::fs::read_to_string(&info).map_err(|e| {
            MajorError::Usage(format!(
                "{}: not a woven JDK ({}: {e}); make one with `major weave --jdk`",
                dir.display(),
                info.display()
            ))
        })?;
        if !text.starts_with(INFO_HEADER) {
            return Err(MajorError::Usage(format!(
                "{}: not a woven JDK (its {INFO_FILE} was not written by major)",
                dir.display()
            )));
        }
        let mut w = WovenJdk {
            dir: std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
            form: JdkForm::Patch,
            java_home: PathBuf::new(),
            version: 0,
            modules: Vec::new(),
            on_request: Vec::new(),
            inputs: Vec::new(),
            exports: Vec::new(),
            added_classes: Vec::new(),
        };
        for line in text.lines().skip(1) {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            match key {
                "form" if value == "image" => w.form = JdkForm::Image,
                "java.home" => w.java_home = PathBuf::from(value),
                "version" => w.version = value.parse().unwrap_or(0),
                "module" => w.modules.push(value.to_string()),
                "on-request" => w.on_request.push(value.to_string()),
                "input" => w.inputs.push(value.to_string()),
                "export" => w.exports.push(value.to_string()),
                "added" => w.added_classes.push(value.to_string()),
                _ => {}
            }
        }
        // An image is its own home, wherever it is now.
        if w.form == JdkForm::Image {
            w.java_home = w.dir.clone();
        }
        if !w.java().is_file() {
            return Err(MajorError::Usage(format!(
                "{}: woven from the JDK at {}, whose java is gone ({} is missing); \
                 weave again with `major weave --jdk`",
                dir.display(),
                w.java_home.display(),
                w.java().display()
            )));
        }
        for m in w.modules.iter().filter(|_| w.form == JdkForm::Patch) {
            let jar = w.dir.join(format!("{m}.jar"));
            if !jar.is_file() {
                return Err(MajorError::Usage(format!(
                    "{}: the patch of module {m} ({}) is missing; weave again",
                    dir.display(),
                    jar.display()
                )));
            }
        }
        Ok(w)
    }
}

/// The modules a `java` command line asks for beyond the defaults: those
/// of `--add-modules` (in either spelling) and the module of `-m`/`--module`.
fn requested_modules(args: &[OsString]) -> Vec<String> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let value = if let Some(v) = a.strip_prefix("--add-modules=") {
            Some(v.to_string())
        } else if a == "--add-modules" || a == "-m" || a == "--module" {
            i += 1;
            args.get(i).cloned()
        } else {
            a.strip_prefix("--module=").map(str::to_string)
        };
        if let Some(v) = value {
            // `-m mod/Main`: the module is before the slash.
            out.extend(
                v.split(',')
                    .map(|m| m.split('/').next().unwrap_or(m).to_string()),
            );
        }
        i += 1;
    }
    out
}

/// `arg` as one argument of a `java` argument file: as it is when it holds
/// no white space, quote or `#`; else in double quotes, with `\` and `"`
/// escaped.
fn quote_arg(arg: &str) -> String {
    if !arg.is_empty()
        && !arg
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\'' || c == '#' || c == '\\')
    {
        return arg.to_string();
    }
    let mut q = String::from("\"");
    for c in arg.chars() {
        match c {
            '\\' => q.push_str("\\\\"),
            '"' => q.push_str("\\\""),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// `args` as a shell command line (POSIX `sh` quoting where needed), for
/// `major run --print-command`.
pub fn shell_line<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    args.iter()
        .map(|a| {
            let a = a.as_ref().to_string_lossy();
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
            if plain {
                a.into_owned()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dir: &Path, home: &Path) -> WovenJdk {
        WovenJdk {
            dir: dir.to_path_buf(),
            form: JdkForm::Patch,
            java_home: home.to_path_buf(),
            version: 17,
            modules: vec!["java.base".into(), "java.xml".into(), "jdk.jcmd".into()],
            on_request: vec!["jdk.jcmd".into()],
            inputs: vec!["app.jar".into()],
            exports: vec!["major/runtime".into(), "tools".into()],
            added_classes: vec!["tools/Tracker.class".into()],
        }
    }

    #[test]
    fn options_patch_each_module() {
        let w = sample(Path::new("/w"), Path::new("/jdk"));
        assert_eq!(
            w.java_options(&[]),
            [
                "--patch-module=java.base=/w/java.base.jar",
                "--patch-module=java.xml=/w/java.xml.jar",
            ]
        );
        // A module resolved only on request is patched when the command asks.
        let args: Vec<OsString> = ["--add-modules", "jdk.jcmd,java.sql", "-cp", "x", "M"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(requested_modules(&args), ["jdk.jcmd", "java.sql"]);
        let opts = w.java_options(&requested_modules(&args));
        assert!(opts.contains(&"--patch-module=jdk.jcmd=/w/jdk.jcmd.jar".to_string()));
        assert_eq!(
            requested_modules(&[OsString::from("--module=m.app/p.Main")]),
            ["m.app"]
        );
        assert!(w
            .args_file()
            .contains("# --patch-module=jdk.jcmd=/w/jdk.jcmd.jar"));
    }

    #[test]
    fn the_info_file_reads_back_where_the_directory_is_now() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("jdk");
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("bin/java"), b"").unwrap();
        let moved = d.path().join("moved");
        std::fs::create_dir(&moved).unwrap();
        for m in ["java.base", "java.xml", "jdk.jcmd"] {
            std::fs::write(moved.join(format!("{m}.jar")), b"").unwrap();
        }
        let w = sample(Path::new("/elsewhere"), &home);
        std::fs::write(moved.join(INFO_FILE), w.info()).unwrap();
        let back = WovenJdk::open(&moved).unwrap();
        assert_eq!(
            back,
            WovenJdk {
                dir: moved.clone(),
                ..w
            }
        );
        std::fs::remove_file(moved.join("java.xml.jar")).unwrap();
        let err = WovenJdk::open(&moved).unwrap_err().to_string();
        assert!(err.contains("java.xml") && err.contains("missing"), "{err}");
        let err = WovenJdk::open(d.path()).unwrap_err().to_string();
        assert!(err.contains("not a woven JDK"), "{err}");
    }

    #[test]
    fn an_image_s_files_hold_no_path() {
        let d = tempfile::tempdir().unwrap();
        let made = d.path().join("made");
        let w = WovenJdk {
            form: JdkForm::Image,
            java_home: made.clone(),
            ..sample(&made, &made)
        };
        let (info, args) = (w.info(), w.args_file());
        for text in [&info, &args] {
            assert!(!text.contains(&*made.to_string_lossy()), "{text}");
        }
        // Read back where it is now, it is its own home.
        let moved = d.path().join("moved");
        std::fs::create_dir_all(moved.join("bin")).unwrap();
        std::fs::write(moved.join("bin/java"), b"").unwrap();
        std::fs::write(moved.join(INFO_FILE), info).unwrap();
        let back = WovenJdk::open(&moved).unwrap();
        assert_eq!((back.form, &back.java_home), (JdkForm::Image, &moved));
    }

    #[test]
    fn argument_file_quoting() {
        assert_eq!(quote_arg("--x=/a/b"), "--x=/a/b");
        assert_eq!(quote_arg("--x=/a b/c"), "\"--x=/a b/c\"");
        assert_eq!(quote_arg(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(
            shell_line(&["java", "-cp", "a b", "it's"]),
            r#"java -cp 'a b' 'it'\''s'"#
        );
    }
}
