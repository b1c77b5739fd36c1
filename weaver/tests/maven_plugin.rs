//! The Maven plugin (`maven/`) with real `mvn`, offline against Debian's
//! repository: the plugin is built and installed into a local repository in a
//! temporary directory, then the sample project (`maven/sample`: a library and
//! an application module) is built with `mvn -o verify` through a sequence of
//! edits: a first build weaves and runs the tests of both modules on woven
//! classes; an unchanged build re-weaves nothing; a changed class re-weaves its
//! module once (not twice over woven classes); a broken aspect and a declare
//! error fail the build with the file and line in Maven's format; fixing them
//! builds again (these four in a resident major, `major serve`, started by
//! the plugin and stopped by the test); weaving into another directory leaves
//! `target/classes` as javac wrote it. The woven jars are run with `java`.

use std::path::{Path, PathBuf};
use std::process::Command;

const MAJOR: &str = env!("CARGO_BIN_EXE_major");

/// Debian's Maven repository, which the offline builds resolve from.
const DEBIAN_REPO: &str = "/usr/share/maven-repo";

/// What the builds need from Debian's repository (packages named in `.ci/run`).
const NEEDED: &[(&str, &str)] = &[
    (
        "org/apache/maven/plugins/maven-plugin-plugin/3.7.1",
        "libmaven-plugin-tools-java",
    ),
    (
        "org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
        "libmaven-compiler-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-resources-plugin/3.3.0",
        "libmaven-resources-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-jar-plugin/3.3.0",
        "libmaven-jar-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-install-plugin/3.1.0",
        "libmaven-install-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-surefire-plugin/2.22.3",
        "libsurefire-java",
    ),
    ("junit/junit/4.13.2", "junit4"),
    ("org/aspectj/aspectjrt/1.9.5", "libaspectj-java"),
];

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    if Command::new("mvn").arg("-v").output().is_err() {
        return Some("no `mvn` on PATH (Debian package maven)".into());
    }
    if Command::new("javac").arg("-version").output().is_err() {
        return Some("no `javac` on PATH".into());
    }
    let lacking: Vec<&str> = NEEDED
        .iter()
        .filter(|(dir, _)| !Path::new(DEBIAN_REPO).join(dir).is_dir())
        .map(|(_, package)| *package)
        .collect();
    if !lacking.is_empty() {
        return Some(format!(
            "{DEBIAN_REPO} lacks what the Debian packages {} provide",
            lacking.join(", ")
        ));
    }
    None
}

/// Runs Maven offline against Debian's repository.
struct Maven {
    settings: PathBuf,
    repo: PathBuf,
    cache: PathBuf,
}

impl Maven {
    /// `mvn -o -B ARGS` in `dir`: whether it succeeded, and what it printed.
    fn run(&self, dir: &Path, args: &[&str]) -> (bool, String) {
        let out = Command::new("mvn")
            .current_dir(dir)
            .args(["-o", "-B", "-s"])
            .arg(&self.settings)
            .arg("-Daether.offline.protocols=file")
            .arg(format!("-Dmaven.repo.local={}", self.repo.display()))
            .arg(format!("-Dmajor.executable={MAJOR}"))
            .args(args)
            // Compiled aspects are cached here, not in the user's cache.
            .env("MAJOR_CACHE_DIR", &self.cache)
            .env_remove("MAVEN_OPTS")
            .output()
            .expect("run mvn");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    /// `mvn -o verify` on the sample, which must succeed.
    fn verify(&self, sample: &Path, step: &str) -> String {
        self.verify_with(sample, step, &[])
    }

    /// `mvn -o ARGS verify` on the sample, which must succeed.
    fn verify_with(&self, sample: &Path, step: &str, args: &[&str]) -> String {
        let args: Vec<&str> = args.iter().copied().chain(["verify"]).collect();
        let (ok, out) = self.run(sample, &args);
        assert!(ok, "{step}: mvn -o verify failed:\n{out}");
        out
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(&name));
        } else {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

/// Replaces `from` by `to` in the file (which must hold `from`).
fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{}: no `{from}`", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

/// The 1-based line of `file` holding `needle`.
fn line_of(file: &Path, needle: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{}: no line with `{needle}`", file.display()))
        + 1
}

/// The sample application from its woven jars: what it prints.
fn run_app(sample: &Path) -> String {
    let cp = format!(
        "{}:{}",
        sample.join("app/target/app-1.0.jar").display(),
        sample.join("lib/target/lib-1.0.jar").display()
    );
    let out = Command::new("java")
        .args(["-Xverify:all", "-cp", &cp, "sample.app.Main"])
        .output()
        .expect("run java");
    assert!(
        out.status.success(),
        "the woven sample failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asks the resident major on `socket` to stop (`major serve`'s protocol).
fn stop_resident(socket: &Path) {
    use std::io::{Read, Write};
    let mut s = std::os::unix::net::UnixStream::connect(socket).unwrap();
    let mut request = 2u32.to_be_bytes().to_vec();
    for x in ["major-serve/1", "stop"] {
        request.extend_from_slice(&(x.len() as u32).to_be_bytes());
        request.extend_from_slice(x.as_bytes());
    }
    s.write_all(&request).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    assert_eq!(
        &answer[..4],
        &0i32.to_be_bytes(),
        "the resident major stops"
    );
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn maven_plugin_weaves_the_sample_project() {
    if let Some(why) = missing() {
        eprintln!("SKIP: {why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../maven");
    let tmp = tempfile::tempdir().unwrap();
    let maven = Maven {
        settings: root.join("offline-settings.xml"),
        repo: tmp.path().join("repo"),
        cache: tmp.path().join("major-cache"),
    };

    // The plugin, built from its sources and installed into the local repository.
    let plugin = tmp.path().join("plugin");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::copy(root.join("pom.xml"), plugin.join("pom.xml")).unwrap();
    copy_tree(&root.join("src"), &plugin.join("src"));
    let (ok, out) = maven.run(&plugin, &["install"]);
    assert!(ok, "building the plugin failed:\n{out}");

    let sample = tmp.path().join("sample");
    copy_tree(&root.join("sample"), &sample);
    let s = sample.display().to_string();

    // 1. The first build weaves both modules and runs their tests on woven classes.
    let out = maven.verify(&sample, "first build");
    for woven in [
        format!("major: woven 1 of 1 classes into {s}/lib/target/classes"),
        format!("major: woven 1 of 3 classes into {s}/app/target/classes"),
        format!("major: woven 1 of 1 classes into {s}/lib/target/test-classes"),
    ] {
        assert!(out.contains(&woven), "no `{woven}` in:\n{out}");
    }
    assert!(
        out.contains("Tests run: 3, Failures: 0, Errors: 0, Skipped: 0")
            && out.contains("Tests run: 2, Failures: 0, Errors: 0, Skipped: 0"),
        "the tests of both modules did not all run and pass:\n{out}"
    );
    // The application's aspect prints from the application's tests.
    assert_eq!(count(&out, "[audit] add 5 apple"), 1, "{out}");
    let warning = format!(
        "[WARNING] {s}/app/src/main/java/sample/app/Main.java:[{},1] Main prints to System.out",
        line_of(
            &sample.join("app/src/main/java/sample/app/Main.java"),
            "System.out"
        )
    );
    assert!(out.contains(&warning), "no `{warning}` in:\n{out}");
    assert_eq!(
        run_app(&sample),
        "[audit] add 5 apple\n[audit] add 2 pear\n[audit] remove 4 apple\n\
         paid 360 cents, 1 apple(s) left\n"
    );

    // 2. Nothing changed: nothing is woven again.
    let out = maven.verify(&sample, "unchanged build");
    assert_eq!(
        count(&out, "major: nothing to weave (unchanged)"),
        3,
        "lib's classes and test classes and app's classes are unchanged:\n{out}"
    );
    assert_eq!(count(&out, "major: woven"), 0, "{out}");
    assert_eq!(count(&out, "[audit] add 5 apple"), 1, "{out}");

    // Steps 3 to 6 weave in a resident major (`major serve`), started by the
    // first weave of step 3: the same builds, the same messages.
    let resident_dir = tmp.path().join("resident");
    let resident_prop = format!("-Dmajor.residentDirectory={}", resident_dir.display());
    let resident = &["-Dmajor.resident=true", resident_prop.as_str()][..];

    // 3. One class of the application changed: its module is woven again, from
    // the unwoven classes (advice applied once, not twice); the library is not.
    edit(
        &sample.join("app/src/main/java/sample/app/Main.java"),
        "cents, ",
        "cents; ",
    );
    let out = maven.verify_with(&sample, "build after a change", resident);
    assert!(
        out.contains(&format!(
            "major: woven 1 of 3 classes into {s}/app/target/classes"
        )),
        "{out}"
    );
    assert_eq!(
        count(&out, "major: nothing to weave (unchanged)"),
        2,
        "lib is unchanged:\n{out}"
    );
    assert_eq!(
        run_app(&sample),
        "[audit] add 5 apple\n[audit] add 2 pear\n[audit] remove 4 apple\n\
         paid 360 cents; 1 apple(s) left\n"
    );

    // 4. A broken aspect fails the build at its file and line.
    let audit = sample.join("app/src/main/aspect/Audit.aj");
    let good = std::fs::read_to_string(&audit).unwrap();
    edit(&audit, "changes++;", "changes++");
    let (ok, out) = maven.run(&sample, &[resident[0], resident[1], "verify"]);
    assert!(!ok, "a broken aspect built:\n{out}");
    let error = format!(
        "[ERROR] {}:[{},",
        audit.display(),
        line_of(&audit, "changes++")
    );
    assert!(out.contains(&error), "no `{error}` in:\n{out}");
    assert!(out.contains("BUILD FAILURE"), "{out}");

    // 5. A declare error fails the build at the offending call.
    std::fs::write(
        &audit,
        good.replacen(
            "    declare warning",
            "    declare error: call(* sample.lib.Inventory.count(..)) && within(sample.app.Shop): \
             \"ask Shop.left\";\n    declare warning",
            1,
        ),
    )
    .unwrap();
    let (ok, out) = maven.run(&sample, &[resident[0], resident[1], "verify"]);
    assert!(!ok, "a declare error did not fail the build:\n{out}");
    let shop = sample.join("app/src/main/java/sample/app/Shop.java");
    let error = format!(
        "[ERROR] {}:[{},1] ask Shop.left",
        shop.display(),
        line_of(&shop, "inventory.count(item)")
    );
    assert!(out.contains(&error), "no `{error}` in:\n{out}");

    // 6. The aspect fixed: the build passes on the classes woven before.
    std::fs::write(&audit, &good).unwrap();
    let out = maven.verify_with(&sample, "build after the fix", resident);
    assert_eq!(
        count(&out, "major: nothing to weave (unchanged)"),
        3,
        "the failed weaves left the woven classes as they were:\n{out}"
    );
    assert_eq!(count(&out, "[audit] add 5 apple"), 1, "{out}");
    assert_eq!(
        run_app(&sample),
        "[audit] add 5 apple\n[audit] add 2 pear\n[audit] remove 4 apple\n\
         paid 360 cents; 1 apple(s) left\n"
    );

    // The weaves of steps 3 to 5 ran in one resident major (step 6 wove
    // nothing); it is stopped here rather than left to idle out.
    let sockets: Vec<PathBuf> = std::fs::read_dir(&resident_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sock"))
        .collect();
    assert_eq!(sockets.len(), 1, "one resident major: {sockets:?}");
    let log = std::fs::read_to_string(sockets[0].with_extension("log")).unwrap();
    assert_eq!(
        count(&log, "major serve: listening on"),
        1,
        "started once:\n{log}"
    );
    assert_eq!(count(&log, "-> exit 0"), 1, "step 3's weave:\n{log}");
    assert_eq!(
        count(&log, "-> exit 2"),
        2,
        "steps 4 and 5's failed weaves:\n{log}"
    );
    stop_resident(&sockets[0]);

    // 7. Woven into another directory: target/classes stays unwoven, and the
    // tests and jars of the rest of the build take the woven classes.
    // An aspect whose advice matches nothing gets its warnings at its lines.
    let other = tmp.path().join("sample-woven-apart");
    copy_tree(&root.join("sample"), &other);
    let unused = other.join("app/src/main/aspect/Unused.aj");
    std::fs::write(
        &unused,
        "package sample.app;\n\npublic aspect Unused {\n    \
         before(): execution(* sample.app.Nope.run()) { }\n}\n",
    )
    .unwrap();
    let (ok, out) = maven.run(&other, &["-Dmajor.outputDirectory=target/woven", "verify"]);
    assert!(ok, "weaving into target/woven failed:\n{out}");
    let o = other.display().to_string();
    for woven in [
        format!("major: woven 1 of 1 classes into {o}/lib/target/woven"),
        format!("major: woven 1 of 3 classes into {o}/app/target/woven"),
    ] {
        assert!(out.contains(&woven), "no `{woven}` in:\n{out}");
    }
    let u = unused.display();
    for warning in [
        format!(
            "[WARNING] {u}:[4,27] no match for this type name: sample.app.Nope \
             [Xlint:invalidAbsoluteTypeName]"
        ),
        format!(
            "[WARNING] {u}:[4,1] before advice in sample.app.Unused has not been applied \
             [adviceDidNotMatch]"
        ),
    ] {
        assert!(out.contains(&warning), "no `{warning}` in:\n{out}");
    }
    assert!(
        !other
            .join("app/target/classes/sample/app/Audit.class")
            .exists(),
        "target/classes was woven"
    );
    assert_eq!(
        run_app(&other),
        "[audit] add 5 apple\n[audit] add 2 pear\n[audit] remove 4 apple\n\
         paid 360 cents, 1 apple(s) left\n"
    );
}
