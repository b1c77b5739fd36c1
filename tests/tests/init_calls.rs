//! The linear search for constructor calls (`init_calls::linear`) against the
//! full type analysis, on every method of guava, commons-lang3 and JDK 17's
//! java.base: wherever the linear pass answers, both must find the same super
//! calls and the same `new`/constructor pairs.

use std::path::Path;

use major_archive::Archive;
use major_classfile::class_reader::ACC_STATIC;
use major_classfile::frames::MethodContext;
use major_classfile::init_calls::{by_analysis, linear, InitCalls};
use major_classfile::{ClassFile, Code, CodeAttribute, Insn, PoolBuilder};
use major_tests::{jdk17, skip, system_jars};
use major_weaver::index::ClassIndex;
use rayon::prelude::*;

/// Instruction indices as ordinals among the non-label instructions, which
/// labels added by the analysis do not change.
fn ordinals(code: &Code, found: &InitCalls) -> (Option<usize>, Vec<(usize, Option<usize>)>) {
    let mut ord = vec![0; code.insns.len() + 1];
    let mut n = 0;
    for (i, insn) in code.insns.iter().enumerate() {
        ord[i] = n;
        if !matches!(insn, Insn::Label(_)) {
            n += 1;
        }
    }
    let mut calls: Vec<_> = found
        .ctor_calls
        .iter()
        .map(|&(c, k)| (ord[c], k.map(|k| ord[k])))
        .collect();
    calls.sort();
    (found.super_call.map(|s| ord[s]), calls)
}

/// (methods with `<init>` calls, answered linearly, mismatches)
fn compare(
    archive: &Path,
    module: Option<&str>,
    index: &ClassIndex,
) -> (usize, usize, Vec<String>) {
    let a = Archive::open(archive).unwrap();
    let results: Vec<(usize, usize, Vec<String>)> = (0..a.entries().len())
        .into_par_iter()
        .filter(|&i| {
            let e = &a.entries()[i];
            e.class_name().is_some() && module.is_none_or(|m| e.name.starts_with(&format!("/{m}/")))
        })
        .map(|i| {
            let bytes = a.read(i).unwrap();
            let class = ClassFile::parse(&bytes).unwrap();
            let name = class.name().unwrap().into_owned();
            let pool = PoolBuilder::new(&class.pool, class.bytes);
            let (mut total, mut answered, mut bad) = (0, 0, Vec::new());
            for m in &class.methods {
                let Some(attr) = m.attribute("Code") else {
                    continue;
                };
                let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
                let code = Code::decode(&parsed, &class.pool).unwrap();
                let has_init = code.insns.iter().any(|x| {
                    matches!(x, Insn::Cp { op: 183, index }
                        if pool.member_ref(*index).is_ok_and(|r| r.name == "<init>"))
                });
                if !has_init {
                    continue;
                }
                total += 1;
                let mname = class.member_name(m).unwrap().into_owned();
                let desc = class.member_descriptor(m).unwrap().into_owned();
                let ctx = MethodContext {
                    class_name: &name,
                    name: &mname,
                    descriptor: &desc,
                    is_static: m.access & ACC_STATIC != 0,
                    major_version: class.major_version,
                };
                let Some(fast) = linear(&code, &ctx, &pool).unwrap() else {
                    continue;
                };
                answered += 1;
                let mut analysed_code = code.clone();
                let full = by_analysis(&mut analysed_code, &ctx, &pool, index).unwrap();
                let (f, s) = (ordinals(&code, &fast), ordinals(&analysed_code, &full));
                if f != s {
                    bad.push(format!(
                        "{name}.{mname}{desc}: linear {f:?}, analysis {s:?}"
                    ));
                }
            }
            (total, answered, bad)
        })
        .collect();
    let mut out = (0, 0, Vec::new());
    for (t, a, b) in results {
        out.0 += t;
        out.1 += a;
        out.2.extend(b);
    }
    out
}

fn check(archive: &Path, module: Option<&str>, jdk: &Path) {
    let mut index = ClassIndex::new();
    index.add_shared(std::sync::Arc::new(Archive::open(archive).unwrap()));
    index.add_image(std::sync::Arc::new(
        major_archive::RuntimeImage::open(&jdk.join("lib/modules")).unwrap(),
    ));
    let (total, answered, bad) = compare(archive, module, &index);
    eprintln!(
        "{}: {total} methods call <init>, {answered} answered by the linear pass, {} mismatches",
        archive.display(),
        bad.len()
    );
    for b in bad.iter().take(20) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} mismatches", bad.len());
    assert!(total > 1000);
    assert!(
        answered * 10 >= total * 8,
        "only {answered} of {total} answered linearly"
    );
}

#[test]
fn linear_init_calls_agree_with_the_analysis() {
    let Some(jdk) = jdk17() else {
        return skip("no JDK 17");
    };
    for jar in system_jars() {
        let n = jar.file_name().unwrap().to_string_lossy().into_owned();
        if n.starts_with("guava") || n.starts_with("commons-lang3") {
            check(&jar, None, &jdk);
        }
    }
    let jmod = jdk.join("jmods/java.base.jmod");
    if jmod.is_file() {
        check(&jmod, None, &jdk);
    } else {
        check(&jdk.join("lib/modules"), Some("java.base"), &jdk);
    }
}
