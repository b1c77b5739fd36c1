//! The single-phase JVMTI agent: `java -agentpath:libmajor_agent.so=aspect=A.aj ...`
//! weaves every class the JVM loads, from `java.lang.Object` on, with the
//! weave `major weave --jdk` applies to the same class
//! ([`major_weaver::load_time::LoadTimeWeaver`]): no woven JDK on disk, and
//! classes defined at run time are woven too.
//!
//! * `Agent_OnLoad` parses the options ([`options`]), compiles the aspects
//!   (javac's output comes from the aspect cache that `major run` filled),
//!   indexes the running JDK's `lib/modules` and the class path, prepares
//!   the weaver, asks for the early capabilities and enables the events.
//! * `ClassFileLoadHook`, from the primordial phase on: each class woven
//!   (in parallel: every loading thread weaves its own classes). A class
//!   that fails is loaded as it was, named on stderr and counted.
//! * `VMStart`, early (before `java.lang` is initialized, so before any
//!   Java code runs): the classes the weave adds (the bypass class, the
//!   aspects, the runtime, cflow holders; see
//!   [`LoadTimeWeaver::added_classes`]) are defined in the boot loader with
//!   JNI `DefineClass`, supers first. Before `java.base` is defined as a
//!   module, a class the boot loader defines joins `java.base`; the woven
//!   `jdk.internal.module.Builder` declares and exports their packages.
//! * `VMDeath`: a summary (with `verbose`, or when some class failed).

mod boot_order;
pub mod class_cache;
pub mod jvmti;
pub mod options;

use std::collections::HashSet;
use std::ffi::{c_char, c_uchar, c_void, CStr};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use major_archive::RuntimeImage;
use major_weaver::jdk::Jdk;
use major_weaver::load_time::{class_name, load_time_index, LoadTimeWeaver, Transformed};
use major_weaver::report::MajorError;
use major_weaver::weave_run::{compile_aspects, AspectSources};

use class_cache::{Cached, ClassCache, Environment};
use jvmti::{jint, jobject, Capabilities, EventCallbacks, JNIEnv, JavaVM, Jni, Jvmti, JvmtiEnv};
use major_weaver::weave::statics;
use options::Options;

/// What the agent counts.
#[derive(Default)]
struct Stats {
    /// Classes the hook was called for.
    seen: AtomicUsize,
    /// Classes woven (changed).
    woven: AtomicUsize,
    /// Classes that failed to weave, loaded as they were.
    failed: AtomicUsize,
    /// Extra classes of static parts defined.
    extras: AtomicUsize,
    /// Reflection accessors woven with an extra class (see
    /// [`reflection_accessor`]).
    accessors: AtomicUsize,
    /// With `woven-image`: classes the hook saw whose bytes are the woven
    /// image's (passed as they are).
    from_image: AtomicUsize,
}

/// Whether the class `name` defined in the (non-null) loader is one of the
/// JDK's generated reflection accessors (`jdk/internal/reflect/Generated*`,
/// JDK 17: defined by the JDK in a fresh `DelegatingClassLoader`; java.base's
/// own classes of that package are the boot loader's). HotSpot skips such a
/// loader when it resolves a name from the accessor's code (it asks the
/// loader's parent), so an extra class of static parts defined beside the
/// accessor would never be found (`NoClassDefFoundError`): it is defined in
/// the parent ([`Jni::non_reflection_loader`]), and finds the accessor by its
/// frame (the weaver's [`statics::reflection_accessor`] names them, and
/// makes their extra classes so).
fn reflection_accessor(name: Option<&str>, loader: jobject) -> bool {
    !loader.is_null() && name.is_some_and(statics::reflection_accessor)
}

/// The agent, set up in `Agent_OnLoad`.
struct Agent {
    jvmti: Jvmti,
    options: Options,
    weaver: LoadTimeWeaver<'static>,
    /// The cache of woven classes (none with `no-class-cache`, or when
    /// there is no cache directory).
    cache: Option<ClassCache>,
    /// Extra classes of boot classes woven before JNI could define them
    /// (the primordial phase), defined at `VMStart`.
    pending: Mutex<Vec<(String, Vec<u8>)>>,
    /// Whether `VMStart` defined the added classes.
    started: AtomicBool,
    /// The time `Agent_OnLoad` took to prepare the weaver.
    setup: std::time::Duration,
    /// Time spent in the hook, in nanoseconds, all threads together.
    hook_nanos: std::sync::atomic::AtomicU64,
    /// The name of every class the hook saw.
    seen: Mutex<Vec<String>>,
    /// With `dump`: the name of every class the cache of woven classes
    /// missed.
    missed: Mutex<Vec<String>>,
    /// Where the order of this run's classes is kept for the next runs.
    order_file: Option<PathBuf>,
    /// Weaving ahead, when on (see [`weave_ahead`]).
    ahead: Option<Ahead>,
    /// The running JDK's image (`java.home`): with `woven-image`, woven
    /// already, and what the hook compares a class's bytes with.
    image: Arc<RuntimeImage>,
    stats: Stats,
}

/// Classes woven on a thread of the agent's own before the JVM asks for
/// them (see [`weave_ahead`]).
struct Ahead {
    /// The running JDK's image, where the classes are read.
    image: Arc<RuntimeImage>,
    /// The classes in the order a previous run loaded them.
    order: Vec<String>,
    /// What the weave made of each class woven ahead, by its cache key
    /// (`None`: it stays as it is); the hook takes its class out.
    done: Mutex<std::collections::HashMap<class_cache::Key, Option<Transformed>>>,
    /// The classes the hook has seen (the thread skips them).
    loaded: Mutex<HashSet<String>>,
    /// Set at `VMDeath`: the thread stops.
    stop: AtomicBool,
    /// Classes woven ahead.
    woven: AtomicUsize,
    /// Of those, the classes the hook took.
    taken: AtomicUsize,
}

/// The file that keeps the order in which a program loaded its classes,
/// for weaving ahead in its next runs:
/// `<aspect cache>/load-order/<image>-<class path>`, each part the first 16
/// hex digits of a SHA-256 of the running image's path or of the class path
/// (so one per JDK and program, whatever the aspects).
fn load_order_file(
    cache: &std::path::Path,
    image: &std::path::Path,
    class_path: &[PathBuf],
) -> PathBuf {
    use sha2::{Digest, Sha256};
    let image = Sha256::digest(image.as_os_str().as_encoded_bytes());
    let mut h = Sha256::new();
    for p in class_path {
        h.update(p.as_os_str().as_encoded_bytes());
        h.update([0]);
    }
    let (image, path) = (
        major_weaver::hex::hex(&image),
        major_weaver::hex::hex(&h.finalize()),
    );
    cache
        .join("load-order")
        .join(format!("{}-{}", &image[..16], &path[..16]))
}

/// The JDK's own list of the classes its start-up loads (`lib/classlist`,
/// which the JDK's build made for its CDS archive by running a small
/// program; sorted by name, not in load order, and holding some classes a
/// program may not load): on a first run, when no run on this JDK has kept
/// an order ([`read_load_order`]), what the thread weaves ahead after the
/// shipped start-up order ([`boot_order`]). A line is a class
/// name, or `@` and a lambda's or lambda form's line, or `#` and a comment.
fn jdk_class_list(java_home: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(java_home.join("lib").join("classlist")).ok()?;
    let names: String = text
        .lines()
        .filter(|l| !l.starts_with(['#', '@']))
        .filter_map(|l| l.split_whitespace().next())
        .flat_map(|n| [n, "\n"])
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The order of classes to weave ahead in: the program's own
/// ([`load_order_file`]), else the latest kept by another program on the
/// same JDK (its JDK classes come first in any program; the rest are
/// classes this program may not have, read in vain); `None` when there is
/// neither.
fn read_load_order(file: &std::path::Path) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string(file) {
        return Some(text);
    }
    let name = file.file_name()?.to_str()?;
    let image = &name[..name.find('-')? + 1];
    let latest = std::fs::read_dir(file.parent()?)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(image)))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()?;
    std::fs::read_to_string(latest.1).ok()
}

static AGENT: OnceLock<Agent> = OnceLock::new();

// The weaver allocates and frees many small objects for every class; mimalloc
// (as in the `major` binary, word-aligned blocks through its plain calls) does
// that faster than the C library's malloc.
// It serves the agent's own (Rust) allocations only, not the JVM's.
#[global_allocator]
static ALLOCATOR: major_weaver::allocator::Allocator = major_weaver::allocator::Allocator;

/// Prints a message of the agent on stderr (a closed stderr is ignored:
/// the agent never panics on it inside the JVM).
fn say(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "major agent: {msg}");
}

/// `major.runtime.FrameClasses.onStack(String internalName)`: the class of
/// the innermost frame of the calling thread whose class has that internal
/// name; `NoClassDefFoundError` if none of its top frames has. HotSpot finds
/// this function among the agents' libraries when the native method is
/// first called. The extra class of a reflection accessor calls it from its
/// static initializer to find the accessor, which it cannot name (see
/// [`reflection_accessor`]); JVMTI reads the stack, and no Java code runs,
/// so no cache of the JDK is warmed that the program would fill itself.
///
/// # Safety
/// Called by the JVM only, with the current thread's `JNIEnv`.
#[no_mangle]
pub unsafe extern "system" fn Java_major_runtime_FrameClasses_onStack(
    env: JNIEnv,
    _class: jobject,
    name: jobject,
) -> jobject {
    /// How deep the frame is looked for: the accessor's extra class's
    /// static initializer is the frame below this one, the accessor's the
    /// next; deeper frames cover an initialization that another class's
    /// initializer started.
    const DEPTH: usize = 64;
    let jni = Jni(env);
    let r = std::panic::catch_unwind(|| {
        let Some(agent) = AGENT.get() else {
            return Err("the major agent is not set up".to_string());
        };
        // SAFETY: `env` is this thread's JNIEnv, `name` the String argument.
        let Some(name) = (unsafe { jni.string_bytes(name) }) else {
            return Err("no class name".to_string());
        };
        let mut signature = Vec::with_capacity(name.len() + 2);
        signature.push(b'L');
        signature.extend_from_slice(&name);
        signature.push(b';');
        // SAFETY: as above; live phase (Java code is running).
        match unsafe { agent.jvmti.frame_class(jni, &signature, DEPTH) }? {
            Some(class) => Ok(class),
            None => Err(format!(
                "{}: no frame of it among the top {DEPTH} of the stack",
                String::from_utf8_lossy(&name)
            )),
        }
    });
    match r {
        Ok(Ok(class)) => class,
        Ok(Err(why)) => {
            // SAFETY: this thread's JNIEnv; the exception is pending on return.
            unsafe { jni.throw(c"java/lang/NoClassDefFoundError", &why) };
            std::ptr::null_mut()
        }
        Err(_) => {
            // SAFETY: as above.
            unsafe {
                jni.throw(
                    c"java/lang/InternalError",
                    "major agent: a panic in FrameClasses.onStack",
                )
            };
            std::ptr::null_mut()
        }
    }
}

/// The JVM's entry point for `-agentpath:`.
///
/// # Safety
/// Called by the JVM with its `JavaVM*` and the option string.
#[no_mangle]
pub unsafe extern "C" fn Agent_OnLoad(
    vm: JavaVM,
    options: *const c_char,
    _reserved: *mut c_void,
) -> jint {
    // Before the first allocation, which maps mimalloc's first arena.
    major_weaver::allocator::no_huge_pages_from_now_on();
    let opts = if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    };
    match std::panic::catch_unwind(|| on_load(vm, &opts)) {
        Ok(Ok(())) => jvmti::JNI_OK,
        Ok(Err(e)) => {
            say(&format!("cannot start: {e}"));
            jvmti::JNI_ERR
        }
        Err(_) => {
            say("cannot start: the agent panicked while starting");
            jvmti::JNI_ERR
        }
    }
}

/// Sets the agent up (see the crate documentation).
///
/// # Safety
/// `vm` is the JVM's `JavaVM*`.
unsafe fn on_load(vm: JavaVM, opts: &str) -> Result<(), String> {
    let options = Options::parse(opts)?;
    let env = jvmti::get_env(vm, jvmti::JVMTI_VERSION_11)
        .map_err(|e| format!("no JVMTI environment of version 11 (GetEnv: {e})"))?;
    let jvmti = Jvmti(env);
    let java_home = jvmti
        .system_property("java.home")
        .map(PathBuf::from)
        .ok_or("the JVM has no java.home")?;
    let class_path: Vec<PathBuf> = jvmti
        .system_property("java.class.path")
        .map(|cp| std::env::split_paths(&cp).collect())
        .unwrap_or_default();
    let feature: u32 = jvmti
        .system_property("java.vm.specification.version")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let start = std::time::Instant::now();
    let (weaver, cache, image) =
        prepare(&options, &java_home, &class_path).map_err(|e| error_text(&e))?;
    // Weaving ahead: with a cache of woven classes (whose keys tell the
    // hook which result is its class's), and the order of a previous run;
    // on a woven image, whose classes are woven already, none.
    let order_file = options
        .cache
        .clone()
        .or_else(major_weaver::aspects::cache::default_dir)
        .filter(|_| !options.woven_image)
        .map(|c| load_order_file(&c, image.path(), &class_path));
    // A cache that holds at least half as many classes as the order names
    // is taken for warm: the thread would only hash classes the cache
    // holds (a class's key is a SHA-256 of its bytes).
    let ahead = match (&cache, &order_file) {
        (Some(c), Some(f)) if !options.no_weave_ahead => read_load_order(f)
            .or_else(|| {
                let list = jdk_class_list(&java_home);
                Some(boot_order::first_run_order(feature, list.as_deref()))
            })
            .filter(|text| c.len() * 2 < text.lines().count())
            .map(|text| Ahead {
                image: image.clone(),
                order: text.lines().map(str::to_string).collect(),
                done: Mutex::new(Default::default()),
                loaded: Mutex::new(HashSet::new()),
                stop: AtomicBool::new(false),
                woven: AtomicUsize::new(0),
                taken: AtomicUsize::new(0),
            }),
        _ => None,
    };
    let setup = start.elapsed();
    if options.woven_image {
        check_woven_image(&weaver, &image, &java_home)?;
    } else if options.added_jar.is_none() && feature > 17 {
        warn_without_added_jar(&options, &weaver, feature);
    }

    // The early hook (from the primordial phase on, for the JDK's first
    // classes) turns class-data sharing off; on a woven image those classes
    // are woven already, and the hook from the live phase on is enough.
    let early = !options.woven_image;
    let mut wanted = Capabilities::default();
    wanted.set(jvmti::CAN_GENERATE_ALL_CLASS_HOOK_EVENTS);
    if early {
        wanted.set(jvmti::CAN_GENERATE_EARLY_CLASS_HOOK_EVENTS);
        wanted.set(jvmti::CAN_GENERATE_EARLY_VMSTART);
    }
    let potential = jvmti.potential_capabilities()?;
    for (bit, name) in [
        (
            jvmti::CAN_GENERATE_ALL_CLASS_HOOK_EVENTS,
            "can_generate_all_class_hook_events",
        ),
        (
            jvmti::CAN_GENERATE_EARLY_CLASS_HOOK_EVENTS,
            "can_generate_early_class_hook_events",
        ),
        (
            jvmti::CAN_GENERATE_EARLY_VMSTART,
            "can_generate_early_vmstart",
        ),
    ]
    .into_iter()
    .filter(|(bit, _)| wanted.has(*bit))
    {
        if !potential.has(bit) {
            return Err(format!("this JVM cannot give the capability {name}"));
        }
    }
    jvmti.add_capabilities(&wanted)?;
    let callbacks = EventCallbacks {
        vm_start: Some(vm_start),
        vm_death: Some(vm_death),
        class_file_load_hook: Some(class_file_load_hook),
        ..Default::default()
    };
    if AGENT
        .set(Agent {
            jvmti,
            options,
            weaver,
            cache,
            pending: Mutex::new(Vec::new()),
            started: AtomicBool::new(false),
            setup,
            hook_nanos: Default::default(),
            seen: Mutex::new(Vec::new()),
            missed: Mutex::new(Vec::new()),
            ahead,
            order_file,
            image,
            stats: Stats::default(),
        })
        .is_err()
    {
        return Err("the agent is loaded twice".into());
    }
    if let Some(cache) = AGENT.get().and_then(|a| a.cache.as_ref()) {
        cache.start_writer();
    }
    if let Some(agent) = AGENT.get().filter(|a| a.ahead.is_some()) {
        let _ = std::thread::Builder::new()
            .name("major weave ahead".into())
            .spawn(move || weave_ahead(agent));
    }
    jvmti.set_event_callbacks(&callbacks)?;
    for e in [
        jvmti::EVENT_VM_START,
        jvmti::EVENT_VM_DEATH,
        jvmti::EVENT_CLASS_FILE_LOAD_HOOK,
    ] {
        jvmti.enable_event(e)?;
    }
    Ok(())
}

/// With `woven-image`: checks that the running JDK's image holds the classes
/// this weave adds to `java.base`, byte for byte: then it was woven with
/// these aspects, this bypass form and this build of the weaver.
fn check_woven_image(
    weaver: &LoadTimeWeaver<'_>,
    image: &RuntimeImage,
    java_home: &std::path::Path,
) -> Result<(), String> {
    for (name, bytes) in weaver.added_classes() {
        let n = name.trim_end_matches(".class");
        let held = image.read_class(n).map_err(|e| e.to_string())?;
        if held.as_deref() != Some(bytes.as_slice()) {
            return Err(format!(
                "woven-image: {} is not a JDK woven with these aspects by this build of \
                 major ({n} {}); weave it with `major weave --jdk`, or run through `major run \
                 --aspect`, which keeps one",
                java_home.display(),
                if held.is_some() {
                    "differs"
                } else {
                    "is missing"
                },
            ));
        }
    }
    Ok(())
}

/// Started without `added-jar` on a JDK after 17: JDK 25 verifies the boot
/// classes the hook changed as the VM starts, before the agent can define the
/// added classes, and a class linked then that needs one (`Throwable` woven
/// with `around` advice needs `AroundClosure`) fails to resolve it, which
/// the JVM does not survive. Writes the jar of the added classes and says
/// how to pass it (`major run --aspect` does).
fn warn_without_added_jar(options: &Options, weaver: &LoadTimeWeaver<'_>, feature: u32) {
    let dir = options
        .cache
        .clone()
        .or_else(major_weaver::aspects::cache::default_dir)
        .map(|c| c.join("added-classes"))
        .filter(|d| std::fs::create_dir_all(d).is_ok())
        .unwrap_or_else(std::env::temp_dir);
    let how = match major_weaver::load_time::added_classes_jar(weaver.added_classes(), &dir) {
        Ok(jar) => format!(
            "add `--patch-module java.base={0}` and the agent option `added-jar={0}`",
            jar.display()
        ),
        Err(e) => format!("(the jar of the added classes could not be written: {e})"),
    };
    say(&format!(
        "warning: JDK {feature} verifies the classes the agent changes while the VM starts, \
         before the agent can define the classes the weave adds: advice that needs them in a \
         class linked then (around advice in java.lang.Throwable) crashes the VM; {how}, or \
         run through `major run --aspect`, which does"
    ));
}

/// The error's text with its causes; an aspect that does not compile with
/// javac's messages (file:line:column, the source line).
fn error_text(e: &MajorError) -> String {
    if let MajorError::AspectCompile(c) = e {
        return format!("{e}:\n{}", c.render().trim_end());
    }
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(c) = src {
        s.push_str(&format!(": {c}"));
        src = c.source();
    }
    s
}

/// The aspects compiled (from the cache), the index over the running JDK
/// and the class path, and the weaver, all kept for the life of the JVM;
/// and the cache of woven classes for them.
fn prepare(
    options: &Options,
    java_home: &std::path::Path,
    class_path: &[PathBuf],
) -> Result<
    (
        LoadTimeWeaver<'static>,
        Option<ClassCache>,
        Arc<RuntimeImage>,
    ),
    MajorError,
> {
    let javac_jdk = match &options.jdk {
        Some(home) => Jdk::at(home).ok_or_else(|| {
            MajorError::Usage(format!(
                "jdk={}: not a JDK (no lib/modules)",
                home.display()
            ))
        })?,
        None => match Jdk::at(java_home).filter(|j| j.javac().is_some()) {
            Some(j) => j,
            None => Jdk::locate().map_err(MajorError::Usage)?,
        },
    };
    let cache = options
        .cache
        .clone()
        .or_else(major_weaver::aspects::cache::default_dir);
    let compiled = compile_aspects(&AspectSources {
        aspects: &options.aspects,
        classpath: class_path.to_vec(),
        jdk: &javac_jdk,
        cache: cache.as_deref(),
    })?;
    for w in &compiled.warnings {
        say(&format!("warning: {w}"));
    }
    let program: &'static _ = Box::leak(Box::new(compiled.program));
    let aspects: &'static _ = Box::leak(Box::new(compiled.aspects));
    let modules = java_home.join("lib").join("modules");
    let image = Arc::new(RuntimeImage::open(&modules)?);
    let index: &'static _ = Box::leak(Box::new(load_time_index(
        image.clone(),
        class_path,
        aspects,
    )?));
    let weaver = LoadTimeWeaver::new(program, aspects, index, &image, options.bypass)?;
    if let Some(jar) = &options.added_jar {
        if !major_weaver::load_time::added_jar_holds(jar, weaver.added_classes()) {
            return Err(MajorError::Usage(format!(
                "added-jar={}: does not hold the {} classes this agent adds (written by \
                 another build of major, or damaged); rerun `major run`, which writes it again",
                jar.display(),
                weaver.added_classes().len()
            )));
        }
    }
    let class_cache = match (&options.class_cache, cache) {
        _ if options.no_class_cache => None,
        (Some(dir), _) => Some(dir.clone()),
        (None, Some(dir)) => Some(dir.join(class_cache::SUBDIR)),
        (None, None) => None,
    };
    let class_cache = match (class_cache, own_library()) {
        (Some(dir), Some(agent)) => {
            let mut sources = Vec::new();
            for p in &options.aspects {
                let text = std::fs::read(p)
                    .map_err(|e| MajorError::Usage(format!("{}: {e}", p.display())))?;
                sources.push((p.clone(), text));
            }
            let env = Environment {
                agent: &agent,
                aspect_sources: &sources,
                aspect_classes: &aspects.classes,
                bypass: major_weaver::load_time::bypass_name(options.bypass),
                image: &modules,
                class_path,
            };
            Some(ClassCache::new(dir, env.key()))
        }
        (Some(dir), None) => {
            say(&format!(
                "warning: class cache {}: not used, the agent cannot tell which file it \
                 was loaded from (its build is part of every key)",
                dir.display()
            ));
            None
        }
        (None, _) => None,
    };
    Ok((weaver, class_cache, image))
}

/// The file of the agent library this code was loaded from (`dladdr`).
fn own_library() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr reads the address of a function of this library and
    // fills `info`; the file name it gives lives as long as the library.
    let found = unsafe { libc::dladdr(own_library as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string owned by the dynamic loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes()));
    std::fs::canonicalize(&path).ok()
}

/// The added classes in an order the boot loader can define them in: each
/// after its super class and interfaces among them.
fn definition_order(classes: &[(String, Vec<u8>)]) -> Vec<&(String, Vec<u8>)> {
    let names: HashSet<&str> = classes
        .iter()
        .map(|(n, _)| n.trim_end_matches(".class"))
        .collect();
    let deps: Vec<Vec<String>> = classes
        .iter()
        .map(|(_, b)| {
            major_classfile::ClassFile::parse(b)
                .map(|c| {
                    let mut d: Vec<String> = c
                        .interface_names()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| s.into_owned())
                        .collect();
                    if let Ok(Some(s)) = c.super_name() {
                        d.push(s.into_owned());
                    }
                    d.retain(|n| names.contains(n.as_str()));
                    d
                })
                .unwrap_or_default()
        })
        .collect();
    let mut done: HashSet<&str> = HashSet::new();
    let mut out = Vec::with_capacity(classes.len());
    while out.len() < classes.len() {
        let before = out.len();
        for (c, d) in classes.iter().zip(&deps) {
            let n = c.0.trim_end_matches(".class");
            if !done.contains(n) && d.iter().all(|x| done.contains(x.as_str())) {
                done.insert(n);
                out.push(c);
            }
        }
        if out.len() == before {
            // A cycle (not valid class files): the rest in the given order.
            out.extend(
                classes
                    .iter()
                    .filter(|c| !done.contains(c.0.trim_end_matches(".class"))),
            );
            break;
        }
    }
    out
}

/// `VMStart` (early): defines the added classes in the boot loader (unless
/// they are on `--patch-module java.base`: option `added-jar`), then the
/// extra classes of boot classes woven in the primordial phase.
unsafe extern "C" fn vm_start(_jvmti: JvmtiEnv, jni: JNIEnv) {
    let Some(agent) = AGENT.get() else { return };
    let jni = Jni(jni);
    let r = std::panic::catch_unwind(|| {
        let mut failed = 0;
        for (name, bytes) in definition_order(agent.weaver.added_classes()) {
            let n = name.trim_end_matches(".class");
            dump(agent, "added", n, bytes);
            if agent.options.added_jar.is_some() || agent.options.woven_image {
                // On --patch-module java.base, or in the woven image's
                // java.base: the boot loader finds them.
                continue;
            }
            // SAFETY: the JNIEnv of this VMStart event, the boot loader.
            if let Err(e) = unsafe { jni.define_class(n, std::ptr::null_mut(), bytes) } {
                say(&format!("{e}: woven code that needs {n} will fail"));
                failed += 1;
            }
        }
        agent.started.store(true, Ordering::SeqCst);
        let pending = std::mem::take(&mut *agent.pending.lock().expect("pending lock"));
        for (name, bytes) in pending {
            // SAFETY: the JNIEnv of this VMStart event, the boot loader.
            unsafe { define_extra(agent, jni, std::ptr::null_mut(), &name, &bytes) };
        }
        failed
    });
    match r {
        Ok(0) => {}
        Ok(n) => {
            say(&format!("{n} added class(es) could not be defined"));
            if agent.options.fatal {
                std::process::exit(70);
            }
        }
        Err(_) => say("defining the added classes panicked"),
    }
}

/// With the `dump` option: writes `bytes` to `DIR/<sub>/<name>.class`.
fn dump(agent: &Agent, sub: &str, name: &str, bytes: &[u8]) {
    let Some(dir) = &agent.options.dump else {
        return;
    };
    let path = dir
        .join(sub)
        .join(format!("{}.class", name.trim_end_matches(".class")));
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, bytes));
    if let Err(e) = written {
        say(&format!("dump: cannot write {}: {e}", path.display()));
    }
}

/// Defines a woven class's extra class of static parts in its loader.
///
/// # Safety
/// As [`Jni::define_class`].
unsafe fn define_extra(agent: &Agent, jni: Jni, loader: jobject, name: &str, bytes: &[u8]) {
    match jni.define_class(name, loader, bytes) {
        Ok(()) => {
            agent.stats.extras.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => failure(agent, name, &e),
    }
}

/// A class that failed to weave (or whose extra class failed to define).
fn failure(agent: &Agent, class: &str, why: &str) {
    agent.stats.failed.fetch_add(1, Ordering::Relaxed);
    say(&format!("{class}: not woven, loaded as it was: {why}"));
    if agent.options.fatal {
        say("failing the run (option `fatal`)");
        std::process::exit(70);
    }
}

/// What the weave makes of the class `name` (as the hook got it) whose
/// class file is `bytes`: from the cache of woven classes when it holds the
/// class, else woven (and stored there). `None`: the class stays as it is.
fn weave_or_fetch(
    agent: &Agent,
    name: Option<&str>,
    bytes: &[u8],
) -> Result<Option<Transformed>, major_classfile::Error> {
    let name = class_name(name, bytes)?;
    if agent.options.woven_image
        && agent.image.read_class(&name).ok().flatten().as_deref() == Some(bytes)
    {
        // The woven image's own class, woven (or left alone) as two-phase
        // weaving decided.
        agent.stats.from_image.fetch_add(1, Ordering::Relaxed);
        return Ok(None);
    }
    if !agent.weaver.admit(&name, bytes)? {
        return Ok(None);
    }
    let Some(cache) = &agent.cache else {
        return agent.weaver.weave(bytes);
    };
    let key = cache.key(&name, bytes);
    match cache.get(&key) {
        Some(Cached::Unchanged) => return Ok(None),
        Some(Cached::Woven { bytes, extra }) => return Ok(Some(Transformed { bytes, extra })),
        None => {
            if agent.options.dump.is_some() {
                agent
                    .missed
                    .lock()
                    .expect("missed lock")
                    .push(name.to_string());
            }
        }
    }
    let ahead = agent
        .ahead
        .as_ref()
        .and_then(|a| a.done.lock().expect("ahead lock").remove(&key));
    let t = match ahead {
        Some(t) => {
            if let Some(a) = &agent.ahead {
                a.taken.fetch_add(1, Ordering::Relaxed);
            }
            t
        }
        None => agent.weaver.weave(bytes)?,
    };
    let value = match &t {
        None => Cached::Unchanged,
        Some(t) => Cached::Woven {
            bytes: t.bytes.clone(),
            extra: t.extra.clone(),
        },
    };
    cache.put(&key, value);
    Ok(t)
}

/// The thread that weaves ahead: the classes of the running image in the
/// order a previous run of the program loaded them
/// ([`load_order_file`]), each unless the hook has seen it or the cache of
/// woven classes holds it, into [`Ahead::done`] under its cache key. The
/// hook that then misses the cache takes its class's result from there
/// instead of weaving it (and stores it, as a class it wove itself): the
/// same function of the same bytes, so the same class. On two cores, the
/// start-up's weaving is shared between the loading thread and this one.
/// A class that fails here is left to the hook, which reports it.
fn weave_ahead(agent: &'static Agent) {
    let (Some(cache), Some(ahead)) = (&agent.cache, &agent.ahead) else {
        return;
    };
    for name in &ahead.order {
        if ahead.stop.load(Ordering::Relaxed) {
            break;
        }
        if ahead.loaded.lock().expect("loaded lock").contains(name) {
            continue;
        }
        let Ok(Some(bytes)) = ahead.image.read_class(name) else {
            continue;
        };
        let key = cache.key(name, &bytes);
        if cache.holds(&key) {
            continue;
        }
        let woven = std::panic::catch_unwind(|| match agent.weaver.admit(name, &bytes) {
            Ok(true) => agent.weaver.weave(&bytes).ok(),
            _ => None,
        });
        if let Ok(Some(t)) = woven {
            ahead.done.lock().expect("ahead lock").insert(key, t);
            ahead.woven.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Keeps the order in which the hook saw the classes of this run (each
/// once) for weaving ahead in later runs, after a run that stored classes
/// or when there is none yet; a failure is ignored.
fn keep_load_order(agent: &Agent) {
    let Some(file) = &agent.order_file else {
        return;
    };
    let stored = agent
        .cache
        .as_ref()
        .is_some_and(|c| c.stats.stored.load(Ordering::Relaxed) > 0);
    if !stored && file.exists() {
        return;
    }
    let seen = agent.seen.lock().expect("seen lock");
    let mut once = HashSet::new();
    let mut text = String::new();
    for n in seen.iter().filter(|n| !n.starts_with('(')) {
        if once.insert(n.as_str()) {
            text.push_str(n);
            text.push('\n');
        }
    }
    drop(seen);
    let Some(dir) = file.parent() else { return };
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes())?;
        tmp.persist(file).map_err(|e| e.error)?;
        Ok(())
    });
    let _ = written;
}

/// `ClassFileLoadHook`: weaves the class.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn class_file_load_hook(
    _jvmti: JvmtiEnv,
    jni: JNIEnv,
    class_being_redefined: jobject,
    loader: jobject,
    name: *const c_char,
    _protection_domain: jobject,
    class_data_len: jint,
    class_data: *const c_uchar,
    new_class_data_len: *mut jint,
    new_class_data: *mut *mut c_uchar,
) {
    let Some(agent) = AGENT.get() else { return };
    if !class_being_redefined.is_null() || class_data.is_null() || class_data_len <= 0 {
        return;
    }
    agent.stats.seen.fetch_add(1, Ordering::Relaxed);
    let bytes = std::slice::from_raw_parts(class_data, class_data_len as usize);
    let name = (!name.is_null())
        .then(|| CStr::from_ptr(name).to_str().ok())
        .flatten();
    let shown = || name.unwrap_or("(a class without a name)").to_string();
    agent.seen.lock().expect("seen lock").push(shown());
    if let (Some(ahead), Some(n)) = (&agent.ahead, name) {
        ahead
            .loaded
            .lock()
            .expect("loaded lock")
            .insert(n.to_string());
    }
    let start = std::time::Instant::now();
    let r = std::panic::catch_unwind(|| weave_or_fetch(agent, name, bytes));
    agent
        .hook_nanos
        .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    if let Some(cache) = &agent.cache {
        for w in cache.take_warnings() {
            say(&w);
        }
    }
    let t = match r {
        Ok(Ok(Some(t))) => t,
        Ok(Ok(None)) => return,
        Ok(Err(e)) => return failure(agent, &shown(), &e.to_string()),
        Err(p) => {
            let why = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            return failure(agent, &shown(), &format!("the weaver panicked: {why}"));
        }
    };
    let Ok(len) = jint::try_from(t.bytes.len()) else {
        return failure(agent, &shown(), "the woven class is over 2 GiB");
    };
    let mem = match agent.jvmti.allocate_copy(&t.bytes) {
        Ok(m) => m,
        Err(e) => return failure(agent, &shown(), &e),
    };
    if let Some(n) = name.map(str::to_string).or_else(|| {
        major_classfile::ClassFile::parse(bytes)
            .and_then(|c| c.name().map(|n| n.into_owned()))
            .ok()
    }) {
        dump(agent, "", &n, &t.bytes);
    }
    // A reflection accessor's extra class goes where the accessor's code
    // finds it: the parent of its `DelegatingClassLoader`.
    let mut extra_loader = loader;
    if t.extra.is_some() && reflection_accessor(name, loader) && !jni.is_null() {
        match Jni(jni).non_reflection_loader(loader) {
            Ok(l) => extra_loader = l,
            Err(e) => {
                agent.jvmti.deallocate(mem);
                return failure(agent, &shown(), &e);
            }
        }
        agent.stats.accessors.fetch_add(1, Ordering::Relaxed);
    }
    if let Some((extra, x)) = t.extra {
        dump(agent, "", &extra, &x);
        if jni.is_null() || !agent.started.load(Ordering::SeqCst) {
            if loader.is_null() {
                agent.pending.lock().expect("pending lock").push((extra, x));
            } else {
                agent.jvmti.deallocate(mem);
                return failure(
                    agent,
                    &shown(),
                    "its extra class cannot be defined before the VM starts",
                );
            }
        } else {
            define_extra(agent, Jni(jni), extra_loader, &extra, &x);
        }
    }
    *new_class_data_len = len;
    *new_class_data = mem;
    agent.stats.woven.fetch_add(1, Ordering::Relaxed);
}

/// `VMDeath`: the summary.
unsafe extern "C" fn vm_death(_jvmti: JvmtiEnv, jni: JNIEnv) {
    let Some(agent) = AGENT.get() else { return };
    let _ = std::panic::catch_unwind(|| {
        // Counted only for a summary or a dump (a call per loaded class).
        let wanted = agent.options.verbose
            || agent.options.dump.is_some()
            || agent.stats.failed.load(Ordering::Relaxed) > 0;
        let unseen = if !wanted {
            Err("not counted".to_string())
        } else if jni.is_null() {
            Err("no JNI environment at VMDeath".to_string())
        } else {
            // SAFETY: the JNIEnv of this VMDeath event (live phase).
            unsafe { agent.jvmti.loaded_class_signatures(Jni(jni)) }.map(|sigs| {
                let seen = agent.seen.lock().expect("seen lock");
                let mut u = Unseen::of(&sigs, &seen);
                if agent.options.woven_image {
                    // Loaded before the hook (live phase on) was called: the
                    // woven image's classes.
                    u.other
                        .retain(|n| !matches!(agent.image.read_class(n), Ok(Some(_))));
                }
                u
            })
        };
        summarize(agent, unseen)
    });
}

/// The loaded classes the hook never saw: the JVM does not hand hidden
/// classes to `ClassFileLoadHook` (JDK 15 on), so they are not woven.
#[derive(Debug, Default, PartialEq, Eq)]
struct Unseen {
    /// Hidden classes of lambdas (`C$$Lambda...`).
    lambdas: usize,
    /// Hidden classes of `java.lang.invoke` (lambda forms, species, method
    /// handle adapters).
    invoke: usize,
    /// Other hidden classes (defined with `Lookup.defineHiddenClass`).
    hidden: Vec<String>,
    /// Classes that are not hidden and that the hook did not see.
    other: Vec<String>,
}

impl Unseen {
    /// Sorts the loaded classes (their signatures) that are not in `seen`
    /// (internal names): arrays and primitive types have no class file and
    /// are left out.
    fn of(signatures: &[String], seen: &[String]) -> Unseen {
        let seen: HashSet<&str> = seen.iter().map(String::as_str).collect();
        let mut u = Unseen::default();
        for sig in signatures {
            let Some(name) = sig.strip_prefix('L').and_then(|s| s.strip_suffix(';')) else {
                continue; // an array or a primitive type
            };
            if seen.contains(name) {
                continue;
            }
            // A hidden class's name ends in `.0x<address>` here (`/0x` in
            // Class.getName()); no class file name holds a `.`.
            let hidden = name
                .rsplit_once(['.', '/'])
                .is_some_and(|(_, last)| last.starts_with("0x"));
            if !hidden {
                u.other.push(name.to_string());
            } else if name.contains("$$Lambda") {
                u.lambdas += 1;
            } else if name.starts_with("java/lang/invoke/") {
                u.invoke += 1;
            } else {
                u.hidden.push(name.to_string());
            }
        }
        u.hidden.sort();
        u.other.sort();
        u
    }

    /// The summary's line.
    fn line(&self) -> String {
        let hidden = self.lambdas + self.invoke + self.hidden.len();
        let mut s = format!(
            "not woven: {hidden} hidden classes ({} lambdas, {} of java.lang.invoke, {} other; \
             the JVM does not hand hidden classes to the hook)",
            self.lambdas,
            self.invoke,
            self.hidden.len()
        );
        if !self.other.is_empty() {
            let shown: Vec<&str> = self.other.iter().take(5).map(String::as_str).collect();
            s.push_str(&format!(
                ", {} other classes the hook never saw ({}{})",
                self.other.len(),
                shown.join(", "),
                if self.other.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            ));
        }
        s
    }
}

/// The summary at exit (and, with `dump`, the names of the classes seen).
fn summarize(agent: &Agent, unseen: Result<Unseen, String>) {
    let s = &agent.stats;
    let failed = s.failed.load(Ordering::Relaxed);
    if let Some(dir) = &agent.options.dump {
        let unseen = unseen.as_ref().map_or(Vec::new(), |u| {
            u.hidden.iter().chain(&u.other).cloned().collect()
        });
        let unseen = Mutex::new(unseen);
        for (file, names) in [
            ("seen.txt", &agent.seen),
            ("cache-misses.txt", &agent.missed),
            ("unseen.txt", &unseen),
        ] {
            let mut names = names.lock().expect("names lock").clone();
            names.sort();
            let path = dir.join(file);
            let written = std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&path, names.join("\n") + "\n"));
            if let Err(e) = written {
                say(&format!("dump: cannot write {}: {e}", path.display()));
            }
        }
    }
    if let Some(a) = &agent.ahead {
        a.stop.store(true, Ordering::Relaxed);
    }
    let waited = agent.cache.as_ref().map(|c| c.finish());
    keep_load_order(agent);
    if agent.options.verbose || failed > 0 {
        say(&format!(
            "{} classes seen, {} woven, {} failed (loaded as they were), {} extra classes, \
             {} classes added to java.base; setup {:.0} ms, weaving {:.0} ms",
            s.seen.load(Ordering::Relaxed),
            s.woven.load(Ordering::Relaxed),
            failed,
            s.extras.load(Ordering::Relaxed),
            agent.weaver.added_classes().len(),
            agent.setup.as_secs_f64() * 1e3,
            agent.hook_nanos.load(Ordering::Relaxed) as f64 / 1e6,
        ));
        if agent.options.woven_image {
            say(&format!(
                "on a woven JDK ({}): {} of its classes passed to the hook as they are, besides \
                 those loaded before the hook was called",
                agent.image.path().display(),
                s.from_image.load(Ordering::Relaxed),
            ));
        }
        let accessors = s.accessors.load(Ordering::Relaxed);
        if accessors > 0 {
            say(&format!(
                "{accessors} reflection accessors (jdk/internal/reflect/Generated*) woven with \
                 an extra class of static parts, defined in their loader's parent"
            ));
        }
        match &unseen {
            Ok(u) => say(&u.line()),
            Err(e) => say(&format!(
                "the classes the hook never saw cannot be counted: {e}"
            )),
        }
        if let Some(a) = &agent.ahead {
            say(&format!(
                "woven ahead: {} classes, {} of them taken by the hook",
                a.woven.load(Ordering::Relaxed),
                a.taken.load(Ordering::Relaxed)
            ));
        }
        if let Some(cache) = &agent.cache {
            let mut line = cache.summary();
            if let Some(w) = waited.filter(|_| cache.stats.stored.load(Ordering::Relaxed) > 0) {
                line.push_str(&format!(
                    " (the last {:.0} ms of them after the program ended)",
                    w.as_secs_f64() * 1e3
                ));
            }
            say(&line);
        }
    }
    if let Some(cache) = &agent.cache {
        for w in cache.take_warnings() {
            say(&w);
        }
        if cache.stats.stored.load(Ordering::Relaxed) > 0 {
            cache.merge_packs(class_cache::MAX_PACKS);
            cache.prune(
                agent
                    .options
                    .class_cache_max
                    .unwrap_or(class_cache::DEFAULT_MAX_BYTES),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unseen_classes_are_sorted_into_hidden_and_other() {
        let sigs: Vec<String> = [
            "Ljava/lang/Object;",
            "[Ljava/lang/Object;",
            "I",
            "Lapp/Main$$Lambda$14.0x0000000800c02a00;",
            "Lapp/Main$$Lambda.0x0000000801001000;",
            "Ljava/lang/invoke/LambdaForm$MH.0x0000000800c01000;",
            "Ljava/lang/String$$StringConcat.0x00000000870c0400;",
            "Lapp/Seen;",
            "Lapp/Missed;",
        ]
        .map(String::from)
        .to_vec();
        let seen = ["java/lang/Object", "app/Seen"].map(String::from).to_vec();
        let u = super::Unseen::of(&sigs, &seen);
        assert_eq!((u.lambdas, u.invoke), (2, 1));
        assert_eq!(
            u.hidden,
            ["java/lang/String$$StringConcat.0x00000000870c0400"]
        );
        assert_eq!(u.other, ["app/Missed"]);
        let line = u.line();
        assert!(
            line.starts_with("not woven: 4 hidden classes (2 lambdas"),
            "{line}"
        );
        assert!(
            line.contains("1 other classes the hook never saw (app/Missed)"),
            "{line}"
        );
    }

    #[test]
    fn a_load_order_is_the_programs_else_the_latest_on_the_same_jdk() {
        let d = tempfile::tempdir().unwrap();
        let (jdk, other) = (
            std::path::Path::new("/jdk/lib/modules"),
            std::path::Path::new("/other/lib/modules"),
        );
        let a = super::load_order_file(d.path(), jdk, &["a.jar".into()]);
        let b = super::load_order_file(d.path(), jdk, &["b.jar".into()]);
        let c = super::load_order_file(d.path(), jdk, &["c.jar".into()]);
        assert_ne!(a, b);
        assert_eq!(super::read_load_order(&a), None);
        std::fs::create_dir_all(a.parent().unwrap()).unwrap();
        std::fs::write(&a, "p/A\n").unwrap();
        std::fs::write(&b, "p/B\n").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .append(true)
            .open(&a)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(super::read_load_order(&a).as_deref(), Some("p/A\n"));
        assert_eq!(super::read_load_order(&c).as_deref(), Some("p/B\n"));
        let elsewhere = super::load_order_file(d.path(), other, &["a.jar".into()]);
        assert_eq!(super::read_load_order(&elsewhere), None);
    }

    #[test]
    fn a_first_run_weaves_ahead_the_jdks_class_list() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(super::jdk_class_list(d.path()), None);
        std::fs::create_dir_all(d.path().join("lib")).unwrap();
        std::fs::write(
            d.path().join("lib/classlist"),
            "# a comment\njava/lang/Object\njava/util/List id: 7\n@lambda-proxy x y\n\n",
        )
        .unwrap();
        assert_eq!(
            super::jdk_class_list(d.path()).as_deref(),
            Some("java/lang/Object\njava/util/List\n")
        );
    }

    #[test]
    fn supers_are_defined_first() {
        // Runtime classes: some extend others; the order puts each after
        // its supers.
        let classes: Vec<(String, Vec<u8>)> = major_weaver::runtime::RUNTIME_CLASSES
            .iter()
            .rev()
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect();
        let order = super::definition_order(&classes);
        assert_eq!(order.len(), classes.len());
        let pos = |n: &str| order.iter().position(|c| c.0 == n).unwrap();
        for (n, b) in &classes {
            let c = major_classfile::ClassFile::parse(b).unwrap();
            if let Some(s) = c.super_name().unwrap() {
                let s = format!("{s}.class");
                if classes.iter().any(|c| c.0 == s) {
                    assert!(pos(&s) < pos(n), "{s} after {n}");
                }
            }
        }
    }
}
