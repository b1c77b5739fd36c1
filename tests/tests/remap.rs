//! Code offsets in tables follow the code: after inserting instructions at the top
//! of a method, the exception table, LineNumberTable, LocalVariableTable,
//! LocalVariableTypeTable and type annotations on code all shift by exactly the
//! inserted length, and the class still verifies and runs.

use std::process::Command;

use major_archive::Archive;
use major_classfile::code::TypeAnnotationTarget;
use major_classfile::frames::{self, MethodContext};
use major_classfile::{
    method_with_code, write_class, ClassEdit, ClassFile, Code, CodeAttr, CodeAttribute, Insn,
};
use major_tests::{jdk17, skip};
use major_weaver::index::ClassIndex;

const SOURCE: &str = r#"
import java.lang.annotation.*;
import java.util.*;
@Target(ElementType.TYPE_USE) @Retention(RetentionPolicy.RUNTIME) @interface Ann {}
public class Remap {
    static Object f(Object x) {
        @Ann String s = (@Ann String) x;
        List<String> l = new @Ann ArrayList<>();
        try { l.add(s); if (l.size() > 5) throw new IllegalStateException(); }
        catch (@Ann RuntimeException e) { return e; }
        if (x instanceof @Ann Integer) return 1;
        switch (s.length()) { case 0: return "empty"; case 1: return "one"; case 2: return "two"; default: return s + l.size(); }
    }
    public static void main(String[] a) { System.out.println(f("hi") + " " + f("abc")); }
}
"#;

/// Every code offset named by the tables of `code`, in a fixed order.
fn offsets(code: &Code) -> Vec<(String, u32)> {
    let layout = code.layout();
    let at = |l| layout.offset(l);
    let mut v = Vec::new();
    for h in &code.handlers {
        v.push(("handler".to_string(), at(h.start)));
        v.push(("handler".to_string(), at(h.end)));
        v.push(("handler".to_string(), at(h.handler)));
    }
    for a in &code.attributes {
        match a {
            CodeAttr::LineNumbers { entries, .. } => {
                v.extend(entries.iter().map(|(l, _)| ("line".to_string(), at(*l))))
            }
            CodeAttr::LocalVariables { entries, types, .. } => {
                for e in entries {
                    v.push((format!("local{types}"), at(e.start)));
                    v.push((format!("local{types}"), at(e.end)));
                }
            }
            CodeAttr::TypeAnnotations { entries, .. } => {
                for t in entries {
                    match &t.target {
                        TypeAnnotationTarget::LocalVar(r) => {
                            v.extend(r.iter().flat_map(|(s, e, _)| {
                                [
                                    ("ta-local".to_string(), at(*s)),
                                    ("ta-local".to_string(), at(*e)),
                                ]
                            }))
                        }
                        TypeAnnotationTarget::Offset(l)
                        | TypeAnnotationTarget::TypeArgument(l, _) => {
                            v.push((format!("ta-{:#x}", t.target_type), at(*l)))
                        }
                        TypeAnnotationTarget::Catch(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
    v
}

#[test]
fn tables_follow_inserted_code() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("Remap.java");
    std::fs::write(&src, SOURCE).unwrap();
    let classes = tmp.path().join("classes");
    major_tests::javac(&home, "11", &classes, &[src]);
    let bytes = std::fs::read(classes.join("Remap.class")).unwrap();
    let class = ClassFile::parse(&bytes).unwrap();
    let mut index = ClassIndex::new();
    index.add_archive(&Archive::open(&home.join("lib/modules")).unwrap());
    index.add_class(&bytes).unwrap();

    let (mi, m) = class
        .methods
        .iter()
        .enumerate()
        .find(|(_, m)| class.member_name(m).unwrap() == "f")
        .unwrap();
    let attr = m.attribute("Code").unwrap();
    let mut code = Code::decode(
        &CodeAttribute::parse(attr, &class.pool).unwrap(),
        &class.pool,
    )
    .unwrap();
    let before = offsets(&code);
    let kinds: std::collections::BTreeSet<&str> = before.iter().map(|(k, _)| k.as_str()).collect();
    for k in [
        "handler",
        "line",
        "localfalse",
        "localtrue",
        "ta-local",
        "ta-0x43",
        "ta-0x44",
        "ta-0x47",
    ] {
        assert!(kinds.contains(k), "javac did not produce {k}: {kinds:?}");
    }
    assert!(code.attributes.iter().any(|a| matches!(a, CodeAttr::TypeAnnotations { entries, .. } if entries.iter().any(|t| matches!(t.target, TypeAnnotationTarget::Catch(_))))));

    const SHIFT: usize = 100; // a multiple of 4, so switch padding stays the same
    code.insns
        .splice(0..0, std::iter::repeat_n(Insn::Simple(0), SHIFT));
    let mut edit = ClassEdit::new(&class);
    let ctx = MethodContext {
        class_name: "Remap",
        name: "f",
        descriptor: "(Ljava/lang/Object;)Ljava/lang/Object;",
        is_static: true,
        major_version: class.major_version,
    };
    frames::compute(&mut code, &ctx, &mut edit.pool, &index).unwrap();
    let mut out = Vec::new();
    code.write_attribute(attr.name_index, &code.layout(), &mut out)
        .unwrap();
    edit.methods.insert(mi, method_with_code(m, &out));
    let woven = write_class(&class, &edit);

    // Read the result back and compare every table offset.
    let again = ClassFile::parse(&woven).unwrap();
    let m2 = &again.methods[mi];
    let code2 = Code::decode(
        &CodeAttribute::parse(m2.attribute("Code").unwrap(), &again.pool).unwrap(),
        &again.pool,
    )
    .unwrap();
    let after = offsets(&code2);
    assert_eq!(before.len(), after.len());
    for ((k1, o1), (k2, o2)) in before.iter().zip(&after) {
        assert_eq!(k1, k2);
        // Ranges that started at offset 0 (parameters) start at the inserted code now.
        assert_eq!(
            *o2 as usize,
            *o1 as usize + SHIFT,
            "{k1} at {o1} moved to {o2}"
        );
    }

    std::fs::write(classes.join("Remap.class"), &woven).unwrap();
    let run = Command::new(home.join("bin/java"))
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&classes)
        .arg("Remap")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "two abc1");
}
