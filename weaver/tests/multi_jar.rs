//! An application of several jars woven in one run (`major weave a.jar b.jar
//! -o DIR`): one woven jar per input under its own name, each with its
//! manifest, services and resources, the runtime and aspects in a jar of
//! their own; and class paths with empty elements, read as `java` reads them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_archive::Archive;
use major_weaver::jdk::Jdk;

fn jdk_with_javac() -> Option<Jdk> {
    let jdk = Jdk::find().filter(|j| j.javac().is_some());
    if jdk.is_none() {
        eprintln!("SKIP: no JDK with javac");
    }
    jdk
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Compiles `sources` (name, text) into `out` with `--release 11`, with `cp`.
fn javac(jdk: &Jdk, dir: &Path, out: &Path, cp: &[&Path], sources: &[(&str, &str)]) {
    let mut files = Vec::new();
    for (name, body) in sources {
        let p = dir.join("src").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        files.push(p);
    }
    let mut c = Command::new(jdk.javac().unwrap());
    c.args(["--release", "11", "-nowarn", "-d"]).arg(out);
    if !cp.is_empty() {
        c.arg("-cp").arg(std::env::join_paths(cp).unwrap());
    }
    let o = c.args(&files).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

fn jar_dir(jdk: &Jdk, from: &Path, to: &Path) {
    let o = Command::new(jdk.home.join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(to)
        .arg("-C")
        .arg(from)
        .arg(".")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

fn aspect(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../aspects")
        .join(name)
}

fn installed(jar: &str) -> Option<PathBuf> {
    let p = Path::new("/usr/share/java").join(jar);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: {} missing (apt-get install libxalan2-java)",
            p.display()
        );
        None
    }
}

/// Entry names and contents of a jar, in order.
fn contents(jar: &Path) -> Vec<(String, Vec<u8>)> {
    let a = Archive::open(jar).unwrap();
    (0..a.entries().len())
        .map(|i| (a.entries()[i].name.clone(), a.read(i).unwrap().into_owned()))
        .collect()
}

const XSLT_JAVA: &str = r#"import java.io.StringReader;
import java.io.StringWriter;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;

public class Xslt {
    public static void main(String[] args) throws Exception {
        String xsl = "<xsl:stylesheet version='1.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
            + "<xsl:output method='xml' indent='no'/>"
            + "<xsl:template match='/list'><out count='{count(item)}'>"
            + "<xsl:for-each select='item'><xsl:sort select='@n' data-type='number' order='descending'/>"
            + "<i><xsl:value-of select='concat(@n, \":\", translate(., \"abc\", \"ABC\"))'/></i>"
            + "</xsl:for-each></out></xsl:template></xsl:stylesheet>";
        String xml = "<list><item n='2'>banana</item><item n='10'>cab</item><item n='7'>apple</item></list>";
        TransformerFactory f = TransformerFactory.newInstance();
        System.out.println(f.getClass().getName());
        Transformer t = f.newTransformer(new StreamSource(new StringReader(xsl)));
        StringWriter w = new StringWriter();
        t.transform(new StreamSource(new StringReader(xml)), new StreamResult(w));
        System.out.println(w);
    }
}
"#;

/// xalan2.jar and serializer.jar woven together with ObjectTracker into a
/// directory: one woven jar each (same names, same manifests, services and
/// resources, same entries), the runtime and aspect in major-runtime.jar; an
/// XSLT transform through the woven jars (found by the services entry) gives
/// the unwoven output, and the tracker counts allocations inside xalan.
#[test]
fn xalan_and_its_serializer_are_woven_into_one_jar_each() {
    let Some(jdk) = jdk_with_javac() else { return };
    let (Some(xalan), Some(serializer)) = (installed("xalan2.jar"), installed("serializer.jar"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let classes = dir.path().join("classes");
    javac(&jdk, dir.path(), &classes, &[], &[("Xslt.java", XSLT_JAVA)]);
    let out = dir.path().join("woven");
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("-a")
        .arg(aspect("ObjectTracker.aj"))
        .arg(&xalan)
        .arg(&serializer)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["major-runtime.jar", "serializer.jar", "xalan2.jar"],
        "{}",
        text(&o)
    );
    // Each woven jar has exactly its input's entries, in order; everything
    // but classes byte for byte, and some classes changed.
    for (input, name) in [(&xalan, "xalan2.jar"), (&serializer, "serializer.jar")] {
        let (before, after) = (contents(input), contents(&out.join(name)));
        assert_eq!(
            before.iter().map(|e| &e.0).collect::<Vec<_>>(),
            after.iter().map(|e| &e.0).collect::<Vec<_>>(),
            "{name}: entries"
        );
        let mut changed = 0;
        for ((n, a), (_, b)) in before.iter().zip(&after) {
            if n.ends_with(".class") {
                changed += usize::from(a != b);
            } else {
                assert_eq!(a, b, "{name}: {n} changed");
            }
        }
        assert!(changed > 10, "{name}: only {changed} classes woven");
    }
    let runtime: Vec<String> = contents(&out.join("major-runtime.jar"))
        .into_iter()
        .map(|e| e.0)
        .collect();
    for class in [
        "major/aspects/ObjectTracker.class",
        "org/aspectj/lang/JoinPoint.class",
    ] {
        assert!(runtime.iter().any(|n| n == class), "{class} in {runtime:?}");
    }
    let run = |cp: &[&Path]| {
        let o = Command::new(jdk.java())
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(std::env::join_paths(cp).unwrap())
            .arg("Xslt")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        o
    };
    let plain = run(&[&xalan, &serializer, &classes]);
    let woven = run(&[
        &out.join("xalan2.jar"),
        &out.join("serializer.jar"),
        &out.join("major-runtime.jar"),
        &classes,
    ]);
    let stdout = String::from_utf8_lossy(&woven.stdout);
    assert!(
        stdout.starts_with("org.apache.xalan.processor.TransformerFactoryImpl\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("<out count=\"3\"><i>10:CAB</i>"),
        "{stdout}"
    );
    assert_eq!(plain.stdout, woven.stdout);
    let stderr = String::from_utf8_lossy(&woven.stderr);
    let allocations: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ObjectTracker: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no ObjectTracker line:\n{stderr}"));
    assert!(allocations > 100, "{stderr}");
}

/// The added classes go into a woven input when `--runtime-jar` names it.
#[test]
fn the_runtime_goes_into_the_jar_named() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    javac(
        &jdk,
        dir.path(),
        &a,
        &[],
        &[("p/A.java", "package p;\npublic class A {\n    public static Object make() { return new StringBuilder(\"a\"); }\n}\n")],
    );
    javac(
        &jdk,
        dir.path(),
        &b,
        &[&a],
        &[("q/Main.java", "package q;\npublic class Main {\n    public static void main(String[] x) { System.out.println(p.A.make()); }\n}\n")],
    );
    let (a_jar, b_jar) = (dir.path().join("a.jar"), dir.path().join("b.jar"));
    jar_dir(&jdk, &a, &a_jar);
    jar_dir(&jdk, &b, &b_jar);
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--no-cache")
        .arg("-a")
        .arg(aspect("ObjectTracker.aj"))
        .arg(&a_jar)
        .arg(&b_jar)
        .args(["--runtime-jar", "b.jar", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(!out.join("major-runtime.jar").exists());
    let names: Vec<String> = contents(&out.join("b.jar"))
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert!(
        names.iter().any(|n| n == "major/runtime/Factory.class"),
        "{names:?}"
    );
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(std::env::join_paths([out.join("a.jar"), out.join("b.jar")]).unwrap())
        .arg("q.Main")
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.starts_with("a\n") && t.contains("ObjectTracker: "), "{t}");
}

/// An empty `--classpath` element is the current directory, as for `java -cp`:
/// a weave that needs a class found only there works from that directory.
#[test]
fn an_empty_class_path_element_is_the_current_directory() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (lib, app) = (dir.path().join("lib"), dir.path().join("app"));
    javac(
        &jdk,
        dir.path(),
        &lib,
        &[],
        &[
            ("l/Base.java", "package l;\npublic class Base {}\n"),
            (
                "l/One.java",
                "package l;\npublic class One extends Base {}\n",
            ),
            (
                "l/Two.java",
                "package l;\npublic class Two extends Base {}\n",
            ),
        ],
    );
    javac(
        &jdk,
        dir.path(),
        &app,
        &[&lib],
        &[(
            "a/Use.java",
            "package a;\npublic class Use {\n    static Object pick(boolean c) {\n        l.Base b = c ? new l.One() : new l.Two();\n        return b;\n    }\n    public static void main(String[] x) { System.out.println(pick(x.length == 0).getClass().getSimpleName()); }\n}\n",
        )],
    );
    let app_jar = dir.path().join("app.jar");
    jar_dir(&jdk, &app, &app_jar);
    let weave = |cp: Option<&str>, out: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
        c.current_dir(&lib)
            .arg("weave")
            .arg("--java-home")
            .arg(&jdk.home)
            .arg("--no-cache")
            .arg("-a")
            .arg(aspect("ObjectTracker.aj"))
            .arg(&app_jar)
            .arg("-o")
            .arg(dir.path().join(out));
        if let Some(cp) = cp {
            c.arg("--classpath").arg(cp);
        }
        c.output().unwrap()
    };
    // Without the library the frames of `pick` cannot be computed: it is
    // left unwoven, with a warning naming the missing class.
    let o = weave(None, "none.jar");
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("left unwoven") && t.contains("pick"), "{t}");
    for (cp, out) in [("", "empty.jar"), (":", "colon.jar"), ("::", "two.jar")] {
        let o = weave(Some(cp), out);
        assert!(o.status.success(), "--classpath {cp:?}: {}", text(&o));
        let run = Command::new(jdk.java())
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(std::env::join_paths([dir.path().join(out), lib.clone()]).unwrap())
            .arg("a.Use")
            .output()
            .unwrap();
        let t = text(&run);
        assert!(run.status.success() && t.starts_with("One\n"), "{t}");
    }
}
