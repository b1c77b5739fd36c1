//! Every aspect in the repository's `aspects/` parses and checks; the snapshot shows
//! how each was understood (parse dump, then the checked program).

mod common;

use major_pointcut_lang::{compile, display, parse_file, SourceFile};

fn aspect_files() -> Vec<SourceFile> {
    let mut paths: Vec<_> = std::fs::read_dir(common::aspects_dir())
        .expect("aspects directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "aj" || e == "java"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = format!("aspects/{}", p.file_name().unwrap().to_string_lossy());
            SourceFile::new(name, std::fs::read_to_string(&p).expect("read aspect"))
        })
        .collect()
}

#[test]
fn every_aspect_parses() {
    let files = aspect_files();
    assert!(files.len() >= 8, "the aspects are missing");
    let mut failures = Vec::new();
    for f in &files {
        let unit = parse_file(f).unwrap_or_else(|e| panic!("{}", e.render()));
        let stem = f.name().trim_start_matches("aspects/").replace('.', "_");
        if let Err(e) = common::check_snapshot(
            &format!("aspects/{stem}"),
            &display::dump_unit(&unit, f.text()),
        ) {
            failures.push(e);
        }
    }
    common::report(failures);
}

#[test]
fn all_aspects_check_together() {
    let program = compile(aspect_files()).unwrap_or_else(|e| panic!("{}", e.render()));
    let names: Vec<&str> = program
        .concrete_aspects()
        .map(|a| a.name.as_str())
        .collect();
    for want in [
        "ObjectTracker",
        "ExecutionTracer",
        "CallCounter",
        "CflowProfiler",
        "TimingAspect",
        "CollectionTracing",
        "AnnotatedTracer",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(want)),
            "{want} missing from {names:?}"
        );
    }
    common::assert_snapshot("aspects/program", &display::dump_program(&program));
}

#[test]
fn tricky_java_members_keep_their_extent() {
    let path = common::tests_dir("corpus/JavaMembers.aj");
    let src = SourceFile::new(
        "corpus/JavaMembers.aj",
        std::fs::read_to_string(path).unwrap(),
    );
    let unit = parse_file(&src).unwrap_or_else(|e| panic!("{}", e.render()));
    let program = compile(vec![src.clone()]).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut out = display::dump_unit(&unit, src.text());
    out.push_str(&display::dump_program(&program));
    common::assert_snapshot("java_members", &out);
}
