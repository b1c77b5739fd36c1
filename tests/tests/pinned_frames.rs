//! Pinned frames (`frames::compute_pinned`: the original frames kept, frames
//! computed only where code was inserted) against recomputed ones
//! (`frames::compute`), on every method with frames of JDK 17's java.base
//! with guards inserted as full coverage weaves them
//! (`rewrite::insert_guards`). Both tables must have frames at the same
//! offsets, and each pair must be equivalent: at every slot, one type is
//! assignable to the other (the pinned one may be less precise where the
//! original frame was: javac's frames merge less than the analysis does,
//! and the other way round at merges the original compiler saw). That both
//! are valid is `reframe_verify`'s and `woven_jdk`'s part (HotSpot's
//! verifier); here, that they describe the same states.

use major_archive::Archive;
use major_classfile::class_reader::ACC_STATIC;
use major_classfile::frames::{self, read_stack_map, MethodContext, Original, Value};
use major_classfile::rewrite::insert_guards;
use major_classfile::{ClassFile, ClassHierarchy, Code, CodeAttr, CodeAttribute, PoolBuilder};
use major_tests::{jdk17, skip};
use major_weaver::index::ClassIndex;
use rayon::prelude::*;

fn stack_map(code: &Code) -> Option<Vec<u8>> {
    code.attributes.iter().find_map(|a| match a {
        CodeAttr::StackMapTable { data, .. } => Some(data.clone()),
        _ => None,
    })
}

/// Whether the verifier takes `from` where `to` is expected (interfaces as
/// `Object`, as the verifier does; where unsure, no).
fn assignable(from: &Value, to: &Value, h: &dyn ClassHierarchy) -> bool {
    match (from, to) {
        _ if from == to => true,
        (_, Value::Top) => true,
        (Value::Null, Value::Object(_)) => true,
        (Value::Object(_), Value::Object(t)) if t == "java/lang/Object" => true,
        (Value::Object(f), Value::Object(t)) if !f.starts_with('[') && !t.starts_with('[') => {
            h.class_info(t).is_some_and(|c| c.is_interface)
                || h.common_super_class(f, t).is_ok_and(|s| &*s == t)
        }
        _ => false,
    }
}

fn equivalent(a: &[Value], b: &[Value], h: &dyn ClassHierarchy) -> bool {
    let n = a.len().max(b.len());
    (0..n).all(|k| {
        let (x, y) = (
            a.get(k).unwrap_or(&Value::Top),
            b.get(k).unwrap_or(&Value::Top),
        );
        assignable(x, y, h) || assignable(y, x, h)
    })
}

#[test]
fn pinned_frames_are_equivalent_to_recomputed_ones() {
    let Some(jdk) = jdk17() else {
        return skip("no JDK 17");
    };
    let jmod = jdk.join("jmods/java.base.jmod");
    let (archive, module) = if jmod.is_file() {
        (jmod, None)
    } else {
        (jdk.join("lib/modules"), Some("java.base"))
    };
    let mut index = ClassIndex::new();
    index.add_shared(std::sync::Arc::new(Archive::open(&archive).unwrap()));
    index.add_image(std::sync::Arc::new(
        major_archive::RuntimeImage::open(&jdk.join("lib/modules")).unwrap(),
    ));
    let a = Archive::open(&archive).unwrap();
    let results: Vec<(usize, usize, usize, Vec<String>)> = (0..a.entries().len())
        .into_par_iter()
        .filter(|&i| {
            let e = &a.entries()[i];
            e.class_name().is_some() && module.is_none_or(|m| e.name.starts_with(&format!("/{m}/")))
        })
        .map(|i| {
            let bytes = a.read(i).unwrap();
            let class = ClassFile::parse(&bytes).unwrap();
            let name = class.name().unwrap().into_owned();
            let mut pool = PoolBuilder::new(&class.pool, class.bytes);
            let (mut with_frames, mut pinned, mut frames_compared) = (0, 0, 0);
            let mut bad = Vec::new();
            for m in &class.methods {
                let Some(attr) = m.attribute("Code") else {
                    continue;
                };
                let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
                let code = Code::decode(&parsed, &class.pool).unwrap();
                let Some(table) = stack_map(&code) else {
                    continue;
                };
                with_frames += 1;
                let mname = class.member_name(m).unwrap().into_owned();
                let desc = class.member_descriptor(m).unwrap().into_owned();
                let ctx = MethodContext {
                    class_name: &name,
                    name: &mname,
                    descriptor: &desc,
                    is_static: m.access & ACC_STATIC != 0,
                    major_version: class.major_version,
                };
                let mut woven = code.clone();
                insert_guards(&mut woven);
                let original = Original {
                    insns: &code.insns,
                    handlers: &code.handlers,
                    stack_map: Some(&table),
                    max_stack: code.max_stack,
                    max_locals: code.max_locals,
                    min_skipped_percent: 0,
                };
                let mut kept = woven.clone();
                let Ok(Some(true)) =
                    frames::compute_pinned(&mut kept, &ctx, &mut pool, &index, &original)
                else {
                    continue;
                };
                pinned += 1;
                let mut full = woven;
                full.set_stack_map(0, None);
                frames::compute(&mut full, &ctx, &mut pool, &index).unwrap();
                let k = read_stack_map(&stack_map(&kept).unwrap_or_default(), &ctx, &pool);
                let f = read_stack_map(&stack_map(&full).unwrap_or_default(), &ctx, &pool);
                let (Ok(k), Ok(f)) = (k, f) else {
                    bad.push(format!("{name}.{mname}{desc}: a table does not read back"));
                    continue;
                };
                let offsets =
                    |v: &[frames::FrameAt]| v.iter().map(|x| x.offset).collect::<Vec<_>>();
                if offsets(&k) != offsets(&f) {
                    bad.push(format!(
                        "{name}.{mname}{desc}: frames at {:?} pinned, {:?} recomputed",
                        offsets(&k),
                        offsets(&f)
                    ));
                    continue;
                }
                for (x, y) in k.iter().zip(&f) {
                    frames_compared += 1;
                    if x.stack.len() != y.stack.len()
                        || !equivalent(&x.locals, &y.locals, &index)
                        || !equivalent(&x.stack, &y.stack, &index)
                    {
                        bad.push(format!(
                            "{name}.{mname}{desc} at {}: pinned {:?} {:?}, recomputed {:?} {:?}",
                            x.offset, x.locals, x.stack, y.locals, y.stack
                        ));
                    }
                }
            }
            (with_frames, pinned, frames_compared, bad)
        })
        .collect();
    let (mut with_frames, mut pinned, mut compared, mut bad) = (0, 0, 0, Vec::new());
    for (w, p, c, b) in results {
        with_frames += w;
        pinned += p;
        compared += c;
        bad.extend(b);
    }
    eprintln!(
        "{with_frames} methods with frames; {pinned} pinned; {compared} frames compared; {} differ",
        bad.len()
    );
    for b in bad.iter().take(20) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} pinned frames differ", bad.len());
    assert!(
        with_frames > 10_000,
        "only {with_frames} methods with frames"
    );
    assert!(
        pinned * 10 > with_frames * 9,
        "only {pinned} of {with_frames} methods pinned"
    );
}
