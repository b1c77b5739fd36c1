//! `major weave --report json`: real reports validated against
//! `weaver/report.schema.json` and checked against what the weave did: a
//! guava-sized weave, a small program with a `declare warning`, unmatched
//! advice and an empty finalizer, a weave that a `declare error` fails, and
//! the report on standard output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;
use serde_json::Value;

const GUAVA: &str = "/usr/share/java/guava.jar";

fn jdk_with_javac() -> Option<Jdk> {
    let jdk = Jdk::find().filter(|j| j.javac().is_some());
    if jdk.is_none() {
        eprintln!("SKIP: no JDK with javac (set JAVA_HOME)");
    }
    jdk
}

fn major(cwd: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_major"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Validates `report` against the schema; panics listing every violation.
fn validate(report: &Value) {
    let schema: Value = serde_json::from_str(major_weaver::report_json::SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the report violates its schema:\n{}",
        errors.join("\n")
    );
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap())
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", p.display()))
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> u64 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle}")) as u64
        + 1
}

/// "woven N of M classes" from the text summary.
fn text_counts(stderr: &str) -> (u64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("woven "))
        .unwrap_or_else(|| panic!("no summary in:\n{stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

#[test]
fn the_schema_rejects_what_it_should() {
    // The schema is no rubber stamp: a report missing a required part, or
    // with a wrong type, fails.
    let schema: Value = serde_json::from_str(major_weaver::report_json::SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let failed = serde_json::json!({
        "schema_version": 1, "tool": {"name": "major", "version": "0.1.0"},
        "status": "failed", "output": "o", "aspects": [], "error": "e", "declares": []
    });
    assert!(validator.is_valid(&failed));
    let mut no_error = failed.clone();
    no_error.as_object_mut().unwrap().remove("error");
    assert!(!validator.is_valid(&no_error));
    let mut ok_without_summary = failed.clone();
    ok_without_summary["status"] = "ok".into();
    assert!(!validator.is_valid(&ok_without_summary));
    let mut wrong_version = failed;
    wrong_version["schema_version"] = 2.into();
    assert!(!validator.is_valid(&wrong_version));
}

#[test]
fn a_guava_report_matches_its_schema_and_the_weave() {
    if !Path::new(GUAVA).is_file() {
        eprintln!("SKIP: {GUAVA} is absent (Debian package libguava-java)");
        return;
    }
    let Some(_jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let aspect = Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects/ObjectTracker.aj");
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "--no-cache".as_ref(),
            "-a".as_ref(),
            aspect.as_os_str(),
            GUAVA.as_ref(),
            "-o".as_ref(),
            "out.jar".as_ref(),
            "--report".as_ref(),
            "json=report.json".as_ref(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "a report into a file prints nothing");
    let r = read_json(&dir.path().join("report.json"));
    validate(&r);
    assert_eq!(r["status"], "ok");
    assert_eq!(r["inputs"], serde_json::json!([GUAVA]));
    assert_eq!(r["written"], serde_json::json!(["."]));

    // The summary says what the text summary says.
    let s = &r["summary"];
    let (woven, classes) = text_counts(&stderr(&o));
    assert_eq!((count(&s["woven"]), count(&s["classes"])), (woven, classes));
    assert!(classes > 1500 && woven > 500, "{woven} of {classes}");

    // Per class and per advice, the counts add up to the summary.
    let records = r["classes"].as_array().unwrap();
    // The summary counts the inputs' classes; woven aspect classes are
    // listed with no input.
    let woven_records = records
        .iter()
        .filter(|c| c["woven"] == true && !c["input"].is_null())
        .count() as u64;
    assert_eq!(woven_records, woven);
    let shadows: u64 = records
        .iter()
        .flat_map(|c| c["shadows"].as_object().unwrap().values())
        .map(count)
        .sum();
    assert_eq!(shadows, count(&s["advised_shadows"]));
    assert_eq!(
        count(&s["shadows"]["constructor-call"]),
        count(&s["advised_shadows"]),
        "ObjectTracker advises constructor calls only"
    );
    let advice = r["advice"].as_array().unwrap();
    assert_eq!(advice.len(), 1);
    let a = &advice[0];
    assert_eq!(a["kind"], "after returning");
    assert_eq!(a["aspect"], "major.aspects.ObjectTracker");
    let source = std::fs::read_to_string(&aspect).unwrap();
    assert_eq!(count(&a["line"]), line_of(&source, "after() returning"));
    assert_eq!(a["could_match"], serde_json::json!(["constructor-call"]));
    let per_class: u64 = records
        .iter()
        .flat_map(|c| c["advice"].as_array().unwrap())
        .map(|x| count(&x["shadows"]))
        .sum();
    assert_eq!(per_class, count(&a["shadows"]));
    assert_eq!(per_class, shadows, "one advice: one per shadow");
    assert_eq!(
        a["shadows_by_kind"],
        serde_json::json!({ "constructor-call": per_class })
    );
    assert!(r["unmatched_advice"].as_array().unwrap().is_empty());
    // The added classes are the aspect's and the runtime's.
    let added: Vec<&str> = r["added_classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        added.contains(&"major/aspects/ObjectTracker.class"),
        "{added:?}"
    );
    assert!(added.contains(&"major/runtime/Factory.class"), "{added:?}");
    assert_eq!(added.len() as u64, count(&s["added_classes"]));
    // Timings are apart, and add up.
    let phases = r["timings"]["phases"].as_array().unwrap();
    assert!(phases.len() >= 4, "{phases:?}");
    let total: f64 = phases.iter().map(|p| p["ms"].as_f64().unwrap()).sum();
    let reported = r["timings"]["total_ms"].as_f64().unwrap();
    assert!((total - reported).abs() < 0.01 * phases.len() as f64);
}

/// A small program: `app.Main` calls `helper()` from `run()` and has an
/// empty `finalize()`.
const MAIN_JAVA: &str = r#"package app;

public class Main {
    void run() {
        helper();
    }

    static void helper() {
    }

    @SuppressWarnings("deprecation")
    protected void finalize() {
    }

    public static void main(String[] args) {
        new Main().run();
    }
}
"#;

const OTHER_JAVA: &str = r#"package app;

class Other {
    int twice(int x) {
        return 2 * x;
    }
}
"#;

const PROBE_AJ: &str = r#"aspect Probe {
    declare warning: call(void app.Main.helper()): "helper called";

    static void probeHelper() {
    }

    before(): execution(static void Probe.probeHelper()) {
        System.out.println("probe");
    }

    before(): execution(void app.Main.run()) {
        System.out.println("run");
    }

    after(): execution(* app.Main.absent(..)) {
        System.out.println("never");
    }

    before(): execution(void app.Main.finalize()) {
        System.out.println("finalize");
    }
}
"#;

/// Compiles the program into `<dir>/classes`.
fn small_program(jdk: &Jdk, dir: &Path) -> PathBuf {
    let src = dir.join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("Main.java"), MAIN_JAVA).unwrap();
    std::fs::write(src.join("Other.java"), OTHER_JAVA).unwrap();
    let classes = dir.join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-d"])
        .arg(&classes)
        .arg(src.join("Main.java"))
        .arg(src.join("Other.java"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    classes
}

#[test]
fn a_small_report_has_declares_unmatched_advice_and_what_was_left_unwoven() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = small_program(&jdk, dir.path());
    std::fs::write(dir.path().join("Probe.aj"), PROBE_AJ).unwrap();
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "--no-cache".as_ref(),
            "-a".as_ref(),
            "Probe.aj".as_ref(),
            classes.as_os_str(),
            "-o".as_ref(),
            "woven".as_ref(),
            "--report".as_ref(),
            "json".as_ref(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // On standard output: nothing but the report.
    let r: Value = serde_json::from_slice(&o.stdout).expect("stdout is the JSON report");
    validate(&r);
    assert_eq!(r["status"], "ok");
    assert_eq!(r["aspects"], serde_json::json!(["Probe.aj"]));
    assert_eq!(r["output"], "woven");
    let s = &r["summary"];
    assert_eq!(count(&s["classes"]), 2);
    assert_eq!(count(&s["woven"]), 1);
    assert_eq!(count(&s["declare_warnings"]), 1);
    assert_eq!(count(&s["unmatched_advice"]), 1);
    assert_eq!(count(&s["empty_finalizers"]), 1);

    // The advice, with their lines in Probe.aj; the unmatched one named.
    let advice = r["advice"].as_array().unwrap();
    assert_eq!(advice.len(), 4);
    let by_line = |needle: &str| {
        let line = line_of(PROBE_AJ, needle);
        advice
            .iter()
            .find(|a| count(&a["line"]) == line)
            .unwrap_or_else(|| panic!("no advice at line {line}: {advice:?}"))
    };
    let run = by_line("execution(void app.Main.run())");
    let absent = by_line("app.Main.absent");
    let finalize = by_line("app.Main.finalize()");
    assert_eq!(
        (run["kind"].as_str(), count(&run["shadows"])),
        (Some("before"), 1)
    );
    assert_eq!(run["file"], "Probe.aj");
    assert_eq!(run["aspect"], "Probe");
    assert_eq!(count(&absent["shadows"]), 0);
    // The empty finalizer's execution matched (so that advice is no
    // "did not match"), and was left unwoven: counted as matched here, and
    // under `unwoven` below.
    assert_eq!(count(&finalize["shadows"]), 1);
    assert_eq!(r["unmatched_advice"], serde_json::json!([absent["id"]]));
    assert!(stderr(&o).contains("[adviceDidNotMatch]"));

    // The declare warning: where, in which class.
    let declares = r["declares"].as_array().unwrap();
    assert_eq!(declares.len(), 1, "{declares:?}");
    let d = &declares[0];
    assert_eq!(d["kind"], "warning");
    assert_eq!(d["message"], "helper called");
    assert_eq!(d["file"], "Main.java");
    assert_eq!(count(&d["line"]), line_of(MAIN_JAVA, "helper();"));
    assert_eq!(d["class"], "app/Main");
    assert_eq!(d["method"], "run()V", "the method the call is in");
    assert!(stderr(&o).contains(&format!(
        "{} [warning] helper called",
        d["location"].as_str().unwrap()
    )));

    // app/Main: woven, its execution shadow with the run advice; its empty
    // finalizer left unwoven. app/Other: nothing to say, not listed. The
    // aspect class, woven too (its probeHelper), after the inputs' classes
    // and with no input; not counted in the summary's classes.
    let records = r["classes"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{records:?}");
    let main = &records[0];
    let probe = &records[1];
    assert_eq!(probe["name"], "Probe");
    assert_eq!(probe["input"], Value::Null);
    assert_eq!(probe["woven"], true);
    let helper = by_line("execution(static void Probe.probeHelper())");
    assert_eq!(
        probe["advice"],
        serde_json::json!([{
            "advice": helper["id"],
            "shadows": 1,
            "shadows_by_kind": {"method-execution": 1}
        }])
    );
    assert_eq!(count(&s["advised_shadows"]), 2);
    assert_eq!(main["name"], "app/Main");
    assert_eq!(main["input"], 0);
    assert_eq!(main["woven"], true);
    assert_eq!(main["shadows"], serde_json::json!({"method-execution": 1}));
    assert_eq!(
        main["advice"],
        serde_json::json!([
            {"advice": run["id"], "shadows": 1, "shadows_by_kind": {"method-execution": 1}},
            {"advice": finalize["id"], "shadows": 1, "shadows_by_kind": {"method-execution": 1}}
        ])
    );
    assert_eq!(count(&main["empty_finalizers"]), 1);
    assert_eq!(main["declares"], serde_json::json!([d]));
    assert_eq!(
        r["unwoven"]["empty_finalizer_classes"],
        serde_json::json!(["app/Main"])
    );
    assert_eq!(
        r["inputs"],
        serde_json::json!([classes.display().to_string()])
    );
}

/// One advice matching shadows of three kinds: the report counts each kind
/// exactly, per class and per advice, and the counts add up to its shadows.
#[test]
fn advice_is_counted_per_shadow_kind() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = small_program(&jdk, dir.path());
    std::fs::write(
        dir.path().join("Kinds.aj"),
        "aspect Kinds {\n    before(): call(static void app.Main.helper()) \
         || execution(* app..*(..)) && !execution(* main(..)) \
         || call(app.Main.new()) {\n    }\n}\n",
    )
    .unwrap();
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "--no-cache".as_ref(),
            "-a".as_ref(),
            "Kinds.aj".as_ref(),
            classes.as_os_str(),
            "-o".as_ref(),
            "woven".as_ref(),
            "--report".as_ref(),
            "json".as_ref(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    validate(&r);
    let a = &r["advice"][0];
    // Calls: helper() in run(), new Main() in main(). Executions: run(),
    // helper(), finalize() (empty: matched, left unwoven), twice(int).
    let expected = serde_json::json!({
        "method-call": 1,
        "constructor-call": 1,
        "method-execution": 4
    });
    assert_eq!(a["shadows_by_kind"], expected, "{a}");
    assert_eq!(count(&a["shadows"]), 6);
    // Per class: Main's and Other's counts, summing to the advice's.
    let mut sum = std::collections::BTreeMap::<String, u64>::new();
    for c in r["classes"].as_array().unwrap() {
        for x in c["advice"].as_array().unwrap() {
            let kinds = x["shadows_by_kind"].as_object().unwrap();
            let total: u64 = kinds.values().map(count).sum();
            assert_eq!(total, count(&x["shadows"]), "{c}");
            for (k, n) in kinds {
                *sum.entry(k.clone()).or_default() += count(n);
            }
        }
    }
    assert_eq!(serde_json::to_value(&sum).unwrap(), expected);
    let other = r["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "app/Other")
        .expect("app/Other is woven");
    assert_eq!(
        other["advice"][0]["shadows_by_kind"],
        serde_json::json!({"method-execution": 1})
    );
}

#[test]
fn a_declare_error_gives_a_failed_report() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = small_program(&jdk, dir.path());
    std::fs::write(
        dir.path().join("Forbid.aj"),
        "aspect Forbid {\n    declare error: call(void app.Main.helper()): \"no helper\";\n}\n",
    )
    .unwrap();
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "--no-cache".as_ref(),
            "-a".as_ref(),
            "Forbid.aj".as_ref(),
            classes.as_os_str(),
            "-o".as_ref(),
            "woven.jar".as_ref(),
            "--report".as_ref(),
            "json=r.json".as_ref(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!dir.path().join("woven.jar").exists());
    let r = read_json(&dir.path().join("r.json"));
    validate(&r);
    assert_eq!(r["status"], "failed");
    assert!(r["error"].as_str().unwrap().contains("no helper"));
    let d = &r["declares"][0];
    assert_eq!(d["kind"], "error");
    assert_eq!(d["message"], "no helper");
    assert_eq!(d["class"], "app/Main");
    assert_eq!(d["file"], "Main.java");
    assert_eq!(count(&d["line"]), line_of(MAIN_JAVA, "helper();"));
    assert_eq!(d["method"], "run()V");
    // The text report still names the error where a compiler would.
    assert!(
        stderr(&o).contains("Main.java:5 [error] no helper"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_bad_report_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "-a".as_ref(),
            "X.aj".as_ref(),
            "in.jar".as_ref(),
            "-o".as_ref(),
            "o.jar".as_ref(),
            "--report".as_ref(),
            "xml".as_ref(),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the only format is json"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_woven_jdk_report_counts_what_full_coverage_leaves_unwoven() {
    let home = Path::new("/usr/lib/jvm/java-17-openjdk-amd64");
    if !home.join("lib/modules").is_file() {
        eprintln!("SKIP: no JDK 17 at {}", home.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let aspect = Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects/ExecutionCounter.aj");
    let jdk = format!("--jdk={}", home.display());
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            jdk.as_ref(),
            "--jdk-form".as_ref(),
            "patch".as_ref(),
            "--module".as_ref(),
            "java.xml".as_ref(),
            "--no-cache".as_ref(),
            "-a".as_ref(),
            aspect.as_os_str(),
            "-o".as_ref(),
            "woven".as_ref(),
            "--report".as_ref(),
            "json=woven.json".as_ref(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&dir.path().join("woven.json"));
    validate(&r);
    assert_eq!(
        r["jdk"],
        serde_json::json!({"form": "patch", "version": 17, "modules": ["java.base", "java.xml"]})
    );
    // The files as they are in the woven JDK's directory.
    assert_eq!(
        r["written"],
        serde_json::json!(["java.base.jar", "java.xml.jar"])
    );
    for w in r["written"].as_array().unwrap() {
        assert!(dir.path().join("woven").join(w.as_str().unwrap()).is_file());
    }
    // Intrinsics and empty finalizers: the summary's counts are the sums of
    // the classes', and each class is listed under `unwoven`.
    let s = &r["summary"];
    let records = r["classes"].as_array().unwrap();
    for (field, list) in [
        ("intrinsics", "intrinsic_classes"),
        ("empty_finalizers", "empty_finalizer_classes"),
    ] {
        let sum: u64 = records.iter().map(|c| count(&c[field])).sum();
        assert_eq!(sum, count(&s[field]), "{field}");
        assert!(
            sum > 0,
            "ExecutionCounter over java.base meets some {field}"
        );
        let listed = r["unwoven"][list].as_array().unwrap().len();
        let with = records.iter().filter(|c| count(&c[field]) > 0).count();
        assert_eq!(listed, with, "{list}");
    }
    assert!(r["unwoven"]["intrinsic_classes"]
        .as_array()
        .unwrap()
        .contains(&"java/lang/Math".into()));
    assert!(count(&s["woven"]) > 5000, "{s}");
    let packages = r["base_packages_added"].as_array().unwrap();
    assert!(
        packages.iter().any(|p| p == "major/runtime"),
        "{packages:?}"
    );
}

#[test]
fn a_report_inside_the_output_directory_is_refused() {
    // The next weave replaces the directory whole, and would refuse to: it
    // would hold a file major's output manifest does not list.
    let dir = tempfile::tempdir().unwrap();
    let o = major(
        dir.path(),
        &[
            "weave".as_ref(),
            "-a".as_ref(),
            "X.aj".as_ref(),
            "in.jar".as_ref(),
            "-o".as_ref(),
            "woven".as_ref(),
            "--report".as_ref(),
            "json=woven/../woven/r.json".as_ref(),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the report cannot go inside the"),
        "{}",
        stderr(&o)
    );
    // The failure's report could not be written there either: nothing was.
    assert!(!dir.path().join("woven").exists());
}
