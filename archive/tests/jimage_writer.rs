//! `ImageWriter` against the JDKs of the machine: every resource of JDK 17's
//! and JDK 25's `lib/modules` rewritten and read back; then a JDK home whose
//! `lib/modules` is the rewritten image runs `java -version`, a program
//! (collections, lambdas, XML, the `jrt:/` file system), javac, and a CDS
//! archive dumped anew, with the same output as the JDK itself; and an
//! image with a class in a package java.base's descriptor does not list.
//! Each test is skipped with a message when its JDK is missing.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use major_archive::{Archive, ImageWriter};

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// The JDK at `path` if it has what the test needs (`lib/modules`, and
/// `bin/java` and `bin/javac` if `runnable`); otherwise prints why the test
/// is skipped.
fn jdk(path: &str, runnable: bool) -> Option<PathBuf> {
    let home = PathBuf::from(path);
    let mut needed = vec![home.join("lib/modules")];
    if runnable {
        needed.push(home.join("bin/java"));
        needed.push(home.join("bin/javac"));
    }
    match needed.iter().find(|p| !p.exists()) {
        Some(missing) => {
            eprintln!("SKIP: {} does not exist", missing.display());
            None
        }
        None => Some(home),
    }
}

/// Links `from` to `to` (a hard link, a copy across file systems or where
/// linking is not allowed); a symbolic link is made anew with the same
/// target.
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        return std::os::unix::fs::symlink(fs::read_link(from)?, to);
    }
    if fs::hard_link(from, to).is_err() {
        fs::copy(from, to)?;
    }
    Ok(())
}

/// Copies the tree `from` to `to` with [`link_or_copy`], leaving out the
/// files for which `skip` (given the path relative to `from`) is true.
fn link_tree(from: &Path, to: &Path, rel: &Path, skip: &dyn Fn(&Path) -> bool) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for item in fs::read_dir(from)? {
        let item = item?;
        let rel = rel.join(item.file_name());
        if skip(&rel) {
            continue;
        }
        let target = to.join(item.file_name());
        if item.file_type()?.is_dir() {
            link_tree(&item.path(), &target, &rel, skip)?;
        } else {
            link_or_copy(&item.path(), &target)?;
        }
    }
    Ok(())
}

/// Makes `home` a JDK home like `original` but for its run-time image:
/// `bin/`, `conf/`, `lib/` and `release` linked (or copied), except
/// `lib/modules` (the caller writes its own there) and the CDS archives
/// `lib/server/*.jsa` (made for the original image, they would be refused;
/// `java -Xshare:dump` makes new ones). The JVM takes `java.home` from the
/// real path of `libjvm.so`, which is why it is a hard link or a copy here,
/// never a symbolic link.
fn assemble_jdk_home(original: &Path, home: &Path) -> io::Result<()> {
    let skip = |rel: &Path| {
        rel == Path::new("lib/modules")
            || (rel.starts_with("lib/server") && rel.extension().is_some_and(|e| e == "jsa"))
    };
    for dir in ["bin", "conf", "lib"] {
        link_tree(&original.join(dir), &home.join(dir), Path::new(dir), &skip)?;
    }
    link_or_copy(&original.join("release"), &home.join("release"))
}

/// Runs `command`, which must succeed; answers its output.
fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The median time of `runs` runs of `command`.
fn median_time(runs: usize, mut command: impl FnMut() -> Command) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            run(&mut command());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// Writes every resource of the JDK's image to a new image, reads it back:
/// the same entries (resources and index entries), the same bytes.
fn round_trip(jdk_path: &str) {
    let Some(jdk) = jdk(jdk_path, false) else {
        return;
    };
    let original = Archive::open(&jdk.join("lib/modules")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("modules");
    let start = Instant::now();
    let writer = ImageWriter::from_image(&original, &path).unwrap();
    let copied = start.elapsed();
    writer.write().unwrap();
    let written = start.elapsed();
    let copy = Archive::open(&path).unwrap();
    let names = |a: &Archive| {
        a.entries()
            .iter()
            .map(|e| (e.name.clone(), e.is_dir))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&copy), names(&original));
    let mut bytes = 0;
    let mut resources = 0;
    for (i, entry) in original.entries().iter().enumerate() {
        if entry.is_dir {
            continue;
        }
        let expected = original.read(i).unwrap();
        assert_eq!(*copy.read(i).unwrap(), *expected, "{}", entry.name);
        bytes += expected.len();
        resources += 1;
    }
    assert!(resources > 25_000, "{resources}");
    eprintln!(
        "{}: {resources} resources ({bytes} bytes, {} with the index) copied in {copied:?}, \
         written in {written:?} in all",
        jdk.display(),
        fs::metadata(&path).unwrap().len()
    );
}

#[test]
fn jdk17_image_round_trip() {
    round_trip(JDK17);
}

#[test]
fn jdk25_image_round_trip() {
    round_trip(JDK25);
}

/// A program that exercises what a JDK's image serves: core classes,
/// collections and streams, a lambda, the XML parser (java.xml), locale
/// data, the module graph and the `jrt:/` file system over the image's
/// directory entries.
const PROBE: &str = r#"
import java.net.URI;
import java.nio.file.*;
import java.util.*;
import java.util.function.Function;
import java.util.stream.*;
import javax.xml.parsers.DocumentBuilderFactory;

public class Probe {
    public static void main(String[] args) throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        for (String w : "the quick brown fox jumps over the lazy dog the end".split(" ")) {
            counts.merge(w, 1, Integer::sum);
        }
        System.out.println(counts);
        Function<Integer, Integer> square = x -> x * x;
        System.out.println(IntStream.rangeClosed(1, 10).boxed().map(square)
            .collect(Collectors.toList()));
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(
                "<a><b x='1'>text</b><b x='2'/></a>".getBytes()));
        var bs = doc.getElementsByTagName("b");
        System.out.println("xml: " + bs.getLength() + " b, first "
            + bs.item(0).getTextContent() + ", x=" + ((org.w3c.dom.Element) bs.item(1)).getAttribute("x"));
        System.out.println(String.format(Locale.GERMANY, "%,.2f", 1234567.891));
        System.out.println(java.time.format.DateTimeFormatter.ofPattern("EEEE d MMMM", Locale.FRANCE)
            .format(java.time.LocalDate.of(2024, 2, 29)));
        System.out.println("modules: " + ModuleLayer.boot().modules().size());
        System.out.println("java.base packages: " + Object.class.getModule().getPackages().size());
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        try (Stream<Path> s = Files.walk(jrt.getPath("/modules/java.base/java/lang"))) {
            List<String> files = s.filter(Files::isRegularFile).map(Path::toString).sorted()
                .collect(Collectors.toList());
            System.out.println("jrt java.lang: " + files.size() + " files, first " + files.get(0)
                + ", last " + files.get(files.size() - 1));
        }
        try (Stream<Path> s = Files.list(jrt.getPath("/packages/java.lang"))) {
            System.out.println("jrt /packages/java.lang: "
                + s.map(Path::toString).sorted().collect(Collectors.toList()));
        }
        try (Stream<Path> s = Files.list(jrt.getPath("/modules"))) {
            System.out.println("jrt /modules: " + s.count());
        }
        byte[] object = Files.readAllBytes(jrt.getPath("/modules/java.base/java/lang/Object.class"));
        System.out.println("Object.class: " + object.length + " bytes");
        System.out.println(ServiceLoader.load(java.nio.file.spi.FileSystemProvider.class)
            .stream().count() >= 0);
    }
}
"#;

/// The class to compile with javac from the new home.
const HELLO: &str = r#"
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello from " + Runtime.version().feature());
    }
}
"#;

/// A class for a package of java.base that the module's descriptor does
/// not list, one for a package it lists, and a program that tries to reach
/// them.
const ADDED: &str = r#"
package p.added;

public class Hello {
    public static String hello() { return "hello from p.added"; }
}
"#;

const ADDED_TO_EXISTING: &str = r#"
package jdk.internal.misc;

public class MajorAdded {
    public static String hello() { return "hello from jdk.internal.misc"; }
}
"#;

const ADDED_PROBE: &str = r#"
import java.net.URI;
import java.nio.file.*;

public class AddedProbe {
    public static void main(String[] args) throws Exception {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        for (String name : args) {
            String path = name.replace('.', '/') + ".class";
            String pkg = name.substring(0, name.lastIndexOf('.'));
            System.out.println(name + ":");
            System.out.println("jrt class: " + Files.exists(jrt.getPath("/modules/java.base/" + path)));
            System.out.println("jrt package: " + Files.exists(jrt.getPath("/packages/" + pkg + "/java.base")));
            System.out.println("java.base lists " + pkg + ": "
                + Object.class.getModule().getPackages().contains(pkg));
            try (var in = Object.class.getModule().getResourceAsStream(path)) {
                System.out.println("resource from java.base: "
                    + (in == null ? "null" : in.readAllBytes().length + " bytes"));
            }
            try {
                Class<?> c = Class.forName(name, false, null);
                System.out.println("forName: loaded in " + c.getModule() + ", loader " + c.getClassLoader());
            } catch (Throwable t) {
                System.out.println("forName: " + t);
            }
        }
    }
}
"#;

/// Compiles `sources` (name, text) with the javac of `jdk` into `out`,
/// with `options` first.
fn javac(jdk: &Path, out: &Path, options: &[&str], sources: &[(&str, &str)]) {
    let src = out.with_extension("src");
    let mut command = Command::new(jdk.join("bin/javac"));
    command.args(options).arg("-d").arg(out);
    for (name, text) in sources {
        let file = src.join(name);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, text).unwrap();
        command.arg(file);
    }
    run(&mut command);
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A JDK home with the rewritten image runs like the JDK itself, with CDS
/// off, then with a CDS archive dumped for the new image.
fn new_home_runs(jdk_path: &str) {
    let Some(jdk) = jdk(jdk_path, true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    assemble_jdk_home(&jdk, &home).unwrap();
    let original_image = Archive::open(&jdk.join("lib/modules")).unwrap();
    let start = Instant::now();
    ImageWriter::from_image(&original_image, &home.join("lib/modules"))
        .unwrap()
        .write()
        .unwrap();
    let write_time = start.elapsed();
    let java = |home: &Path| {
        let mut command = Command::new(home.join("bin/java"));
        command
            .env_remove("JAVA_TOOL_OPTIONS")
            .env_remove("JDK_JAVA_OPTIONS");
        command
    };

    // -version, CDS off.
    let expected = run(java(&jdk).args(["-Xshare:off", "-version"]));
    let got = run(java(&home).args(["-Xshare:off", "-version"]));
    assert_eq!(stderr(&got), stderr(&expected));
    let properties =
        run(java(&home).args(["-Xshare:off", "-XshowSettings:properties", "-version"]));
    let java_home = format!("java.home = {}", home.display());
    assert!(
        stderr(&properties).contains(&java_home),
        "{}",
        stderr(&properties)
    );

    // The probe program.
    let classes = dir.path().join("classes");
    javac(&jdk, &classes, &[], &[("Probe.java", PROBE)]);
    let probe =
        |home: &Path, share: &str| run(java(home).args([share, "-cp"]).arg(&classes).arg("Probe"));
    let expected = stdout(&probe(&jdk, "-Xshare:off"));
    assert!(expected.contains("xml: 2 b, first text, x=2"), "{expected}");
    assert!(expected.contains("jrt java.lang: "), "{expected}");
    assert_eq!(stdout(&probe(&home, "-Xshare:off")), expected);

    // javac of the new home compiles as the JDK's own does.
    let by_jdk = dir.path().join("by-jdk");
    javac(&jdk, &by_jdk, &[], &[("Hello.java", HELLO)]);
    let by_home = dir.path().join("by-home");
    let hello_src = by_jdk.with_extension("src").join("Hello.java");
    run(java(&home)
        .args([
            "-Xshare:off",
            "-m",
            "jdk.compiler/com.sun.tools.javac.Main",
            "-d",
        ])
        .arg(&by_home)
        .arg(&hello_src));
    assert_eq!(
        fs::read(by_home.join("Hello.class")).unwrap(),
        fs::read(by_jdk.join("Hello.class")).unwrap()
    );
    let hello = run(java(&home)
        .arg("-Xshare:off")
        .arg("-cp")
        .arg(&by_home)
        .arg("Hello"));
    assert!(
        stdout(&hello).starts_with("hello from "),
        "{}",
        stdout(&hello)
    );

    // A CDS archive for the new image, then used.
    let dump_start = Instant::now();
    run(java(&home).arg("-Xshare:dump"));
    let dump_time = dump_start.elapsed();
    assert!(home.join("lib/server/classes.jsa").exists());
    let expected_version = run(java(&jdk).args(["-Xshare:on", "-version"]));
    let got = run(java(&home).args(["-Xshare:on", "-version"]));
    assert_eq!(stderr(&got), stderr(&expected_version));
    assert_eq!(stdout(&probe(&home, "-Xshare:on")), expected);
    // Classes do come from the archive.
    let loads = run(java(&home).args(["-Xshare:on", "-Xlog:class+load=info", "-version"]));
    let shared = stdout(&loads)
        .lines()
        .filter(|l| l.contains("source: shared objects file"))
        .count();
    assert!(shared > 300, "only {shared} classes from the CDS archive");

    let runs = 5;
    let original_cds = median_time(runs, || {
        let mut c = java(&jdk);
        c.arg("-version");
        c
    });
    let original_off = median_time(runs, || {
        let mut c = java(&jdk);
        c.args(["-Xshare:off", "-version"]);
        c
    });
    let home_off = median_time(runs, || {
        let mut c = java(&home);
        c.args(["-Xshare:off", "-version"]);
        c
    });
    let home_cds = median_time(runs, || {
        let mut c = java(&home);
        c.args(["-Xshare:on", "-version"]);
        c
    });
    eprintln!(
        "{}: image written in {write_time:?}, CDS dumped in {dump_time:?}; \
         java -version (median of {runs}): JDK {original_cds:?} (its CDS), \
         JDK -Xshare:off {original_off:?}, new home -Xshare:off {home_off:?}, \
         new home with its new CDS {home_cds:?}; {shared} classes from CDS",
        jdk.display()
    );
}

#[test]
fn jdk17_home_with_written_image_runs() {
    new_home_runs(JDK17);
}

#[test]
fn jdk25_home_with_written_image_runs() {
    new_home_runs(JDK25);
}

/// Classes added to java.base: in a package that java.base's descriptor
/// does not list, the image serves the class (the `jrt:/` file system, the
/// module's resources), but the boot loader finds classes of a package only
/// through the package's module as the module system defined it, from the
/// descriptors compiled into java.base (`SystemModules`), so
/// `Class.forName` does not find it; in a package the descriptor lists,
/// the class loads in java.base, with CDS off and with an archive dumped
/// for the image.
fn added_package(jdk_path: &str) {
    let Some(jdk) = jdk(jdk_path, true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let added = dir.path().join("added");
    javac(
        &jdk,
        &added,
        &[
            "--patch-module",
            &format!("java.base={}", added.with_extension("src").display()),
        ],
        &[
            ("p/added/Hello.java", ADDED),
            ("jdk/internal/misc/MajorAdded.java", ADDED_TO_EXISTING),
        ],
    );
    let home = dir.path().join("home");
    assemble_jdk_home(&jdk, &home).unwrap();
    let original_image = Archive::open(&jdk.join("lib/modules")).unwrap();
    let mut writer = ImageWriter::from_image(&original_image, &home.join("lib/modules")).unwrap();
    let mut sizes = Vec::new();
    for class in ["p/added/Hello.class", "jdk/internal/misc/MajorAdded.class"] {
        let bytes = fs::read(added.join(class)).unwrap();
        sizes.push(bytes.len());
        writer.add("java.base", class, bytes).unwrap();
    }
    writer.write().unwrap();

    let classes = dir.path().join("classes");
    javac(&jdk, &classes, &[], &[("AddedProbe.java", ADDED_PROBE)]);
    let new_package = [
        "p.added.Hello:".to_owned(),
        "jrt class: true".to_owned(),
        "jrt package: true".to_owned(),
        "java.base lists p.added: false".to_owned(),
        format!("resource from java.base: {} bytes", sizes[0]),
        "forName: java.lang.ClassNotFoundException: p/added/Hello".to_owned(),
    ];
    let existing_package = [
        "jdk.internal.misc.MajorAdded:".to_owned(),
        "jrt class: true".to_owned(),
        "jrt package: true".to_owned(),
        "java.base lists jdk.internal.misc: true".to_owned(),
        format!("resource from java.base: {} bytes", sizes[1]),
        "forName: loaded in module java.base, loader null".to_owned(),
    ];
    let expected: Vec<&str> = new_package
        .iter()
        .chain(&existing_package)
        .map(String::as_str)
        .collect();
    run(Command::new(home.join("bin/java")).arg("-Xshare:dump"));
    for share in ["-Xshare:off", "-Xshare:on"] {
        let output = run(Command::new(home.join("bin/java"))
            .arg(share)
            .arg("-cp")
            .arg(&classes)
            .args([
                "AddedProbe",
                "p.added.Hello",
                "jdk.internal.misc.MajorAdded",
            ]));
        let text = stdout(&output);
        eprintln!(
            "{} {share}: classes added to java.base:\n{text}",
            jdk.display()
        );
        assert_eq!(text.lines().collect::<Vec<_>>(), expected, "{share}");
    }
}

#[test]
fn jdk17_added_package() {
    added_package(JDK17);
}

#[test]
fn jdk25_added_package() {
    added_package(JDK25);
}

/// An image made by jlink with compressed resources, rewritten in place
/// (the writer reads the mapped source while writing its replacement):
/// the resources come out uncompressed, and the image's own `java` runs
/// as before.
#[test]
fn jlink_compressed_image_rewritten_in_place() {
    let Some(jdk) = jdk(JDK25, true) else {
        return;
    };
    let jlink = jdk.join("bin/jlink");
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let made = Command::new(&jlink)
        .args([
            "--add-modules",
            "java.base,java.xml",
            "--compress=zip-6",
            "--output",
        ])
        .arg(&image)
        .output();
    match made {
        Ok(output) if output.status.success() => {}
        other => {
            eprintln!("SKIP: {} did not make an image: {other:?}", jlink.display());
            return;
        }
    }
    let modules = image.join("lib/modules");
    let java = || {
        let mut command = Command::new(image.join("bin/java"));
        command.args(["-Xshare:off", "--list-modules"]);
        command
    };
    let before = stdout(&run(&mut java()));
    assert!(before.contains("java.xml@"), "{before}");
    let compressed_size = fs::metadata(&modules).unwrap().len();
    let source = Archive::open(&modules).unwrap();
    ImageWriter::from_image(&source, &modules)
        .unwrap()
        .write()
        .unwrap();
    let rewritten = Archive::open(&modules).unwrap();
    assert_eq!(rewritten.entries(), source.entries());
    for (i, entry) in source.entries().iter().enumerate() {
        if !entry.is_dir {
            assert_eq!(
                *rewritten.read(i).unwrap(),
                *source.read(i).unwrap(),
                "{}",
                entry.name
            );
        }
    }
    drop(source);
    let size = fs::metadata(&modules).unwrap().len();
    assert!(
        size > compressed_size * 3 / 2,
        "{size} vs {compressed_size} compressed"
    );
    assert_eq!(stdout(&run(&mut java())), before);
}
