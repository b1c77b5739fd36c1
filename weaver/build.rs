//! Compiles the Java runtime (`runtime-java/src/main/java`) with `javac --release 8`
//! and generates `$OUT_DIR/runtime_classes.rs`, which embeds every class file in
//! the binary (see `src/runtime.rs`); and `$OUT_DIR/embedded_agent.rs`, the
//! single-phase agent library named by `MAJOR_EMBED_AGENT` (if set) embedded
//! in the `major` binary (see `src/single_phase_run.rs`).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let sources_root = manifest_dir.join("../runtime-java/src/main/java");
    let sources_root = sources_root.canonicalize().unwrap_or_else(|e| {
        panic!(
            "the Java runtime sources are missing ({}): {e}",
            sources_root.display()
        )
    });

    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    embed_agent(&out_dir);
    let mut sources = Vec::new();
    collect(&sources_root, &mut sources);
    sources.sort();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }
    if sources.is_empty() {
        panic!("no Java sources under {}", sources_root.display());
    }

    let classes_dir = out_dir.join("runtime-classes");
    if classes_dir.exists() {
        fs::remove_dir_all(&classes_dir)
            .unwrap_or_else(|e| panic!("cannot clear {}: {e}", classes_dir.display()));
    }
    fs::create_dir_all(&classes_dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", classes_dir.display()));

    // An argument file keeps the command line short whatever the number of sources.
    let mut argfile = String::new();
    for source in &sources {
        let path = source.to_str().expect("Java source paths are UTF-8");
        let quoted = path.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(argfile, "\"{quoted}\"").unwrap();
    }
    let argfile_path = out_dir.join("runtime-sources.txt");
    fs::write(&argfile_path, argfile)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", argfile_path.display()));

    let javac = find_javac();
    let output = Command::new(&javac)
        .args([
            "--release",
            "8",
            "-g",
            "-encoding",
            "UTF-8",
            "-implicit:none",
        ])
        .arg("-Xlint:-options")
        .arg("-d")
        .arg(&classes_dir)
        .arg(format!("@{}", argfile_path.display()))
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == ErrorKind::NotFound => panic!(
            "building major needs a JDK to compile its Java runtime, and there is no `javac` \
             (neither in $JAVA_HOME/bin nor on the PATH; looked for {}). Install one \
             (Debian/Ubuntu: `apt-get install openjdk-17-jdk-headless`) or set JAVA_HOME to a JDK.",
            javac.display()
        ),
        Err(e) => panic!("cannot run {}: {e}", javac.display()),
    };
    if !output.status.success() {
        panic!(
            "{} failed to compile the Java runtime ({}):\n{}{}",
            javac.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let mut classes = Vec::new();
    collect_classes(&classes_dir, &classes_dir, &mut classes);
    classes.sort();
    let mut generated = String::from(
        "/// The class files of the Java runtime, as (entry name, bytes), sorted by name:\n\
         /// `org/aspectj/lang/JoinPoint.class`, `major/runtime/Factory.class`, ...\n\
         pub static RUNTIME_CLASSES: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &classes {
        let path = path.to_str().expect("class file paths are UTF-8");
        writeln!(generated, "    ({name:?}, include_bytes!({path:?})),").unwrap();
    }
    generated.push_str("];\n");
    let generated_path = out_dir.join("runtime_classes.rs");
    fs::write(&generated_path, generated)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", generated_path.display()));
}

/// `MAJOR_EMBED_AGENT=/path/libmajor_agent.so`: writes
/// `$OUT_DIR/embedded_agent.rs` with the library's bytes (`include_bytes!`)
/// and a 64-bit FNV-1a hash of them (its content address once extracted);
/// without the variable, `None`.
fn embed_agent(out_dir: &Path) {
    println!("cargo:rerun-if-env-changed=MAJOR_EMBED_AGENT");
    let code = match env::var_os("MAJOR_EMBED_AGENT").filter(|v| !v.is_empty()) {
        None => "None".to_string(),
        Some(lib) => {
            let lib = PathBuf::from(lib);
            println!("cargo:rerun-if-changed={}", lib.display());
            let lib = lib
                .canonicalize()
                .unwrap_or_else(|e| panic!("MAJOR_EMBED_AGENT={}: {e}", lib.display()));
            let bytes = fs::read(&lib)
                .unwrap_or_else(|e| panic!("MAJOR_EMBED_AGENT={}: {e}", lib.display()));
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for b in &bytes {
                hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
            format!(
                "Some((include_bytes!({:?}), \"{hash:016x}\"))",
                lib.display().to_string()
            )
        }
    };
    let path = out_dir.join("embedded_agent.rs");
    fs::write(&path, format!("{code}\n"))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// `$JAVA_HOME/bin/javac` if there is one, else `javac` (from the `PATH`).
fn find_javac() -> PathBuf {
    let exe = if cfg!(windows) { "javac.exe" } else { "javac" };
    if let Some(home) = env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let candidate = Path::new(&home).join("bin").join(exe);
        if candidate.is_file() {
            return candidate;
        }
    }
    PathBuf::from(exe)
}

/// The `.java` files under `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

/// The `.class` files under `dir`, as (entry name relative to `root`, path).
fn collect_classes(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            collect_classes(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "class") {
            let relative = path.strip_prefix(root).expect("under the root");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_str().expect("class names are UTF-8"))
                .collect::<Vec<_>>()
                .join("/");
            out.push((name, path));
        }
    }
}
