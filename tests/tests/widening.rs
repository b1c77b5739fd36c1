//! Branch widening: code inserted into a loop pushes both the loop's exit branch
//! and its backward `goto` past 32 KiB; the encoder must turn them into `goto_w`
//! (the conditional one inverted around a `goto_w`), frames must follow, and the
//! program must verify and print what the inserted code counted.

use std::process::Command;

use major_archive::Archive;
use major_classfile::frames::{self, MethodContext};
use major_classfile::opcodes::op;
use major_classfile::{
    method_with_code, write_class, ClassEdit, ClassFile, Code, CodeAttribute, Insn,
};
use major_tests::{jdk17, skip};
use major_weaver::index::ClassIndex;

const SOURCE: &str = r#"
public class Wide {
    static int count;
    public static void main(String[] args) {
        int sum = 0;
        for (int i = 0; i < 10; i++) {
            if (i % 2 == 0) { sum += i; } else { sum -= 1; }
        }
        System.out.println("sum=" + sum + " count=" + count);
    }
}
"#;

/// `count++` as bytecode: 8 bytes.
fn count_increment(field: u16) -> [Insn; 4] {
    [
        Insn::Cp {
            op: op::GETSTATIC,
            index: field,
        },
        Insn::Simple(4),  // iconst_1
        Insn::Simple(96), // iadd
        Insn::Cp {
            op: op::PUTSTATIC,
            index: field,
        },
    ]
}

#[test]
fn branches_past_32k_are_widened_and_verify() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("Wide.java");
    std::fs::write(&src, SOURCE).unwrap();
    let classes = tmp.path().join("classes");
    major_tests::javac(&home, "11", &classes, &[src]);
    let bytes = std::fs::read(classes.join("Wide.class")).unwrap();
    let class = ClassFile::parse(&bytes).unwrap();
    let mut index = ClassIndex::new();
    index.add_archive(&Archive::open(&home.join("lib/modules")).unwrap());
    index.add_class(&bytes).unwrap();

    let mut edit = ClassEdit::new(&class);
    let field = edit.pool.field_ref("Wide", "count", "I").unwrap();
    const REPEAT: usize = 4200; // 4200 * 8 bytes = 33,600 bytes inside the loop
    let (mi, m) = class
        .methods
        .iter()
        .enumerate()
        .find(|(_, m)| class.member_name(m).unwrap() == "main")
        .unwrap();
    let attr = m.attribute("Code").unwrap();
    let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
    let mut code = Code::decode(&parsed, &class.pool).unwrap();
    // Insert after the loop's exit test (the first if_icmpge), i.e. at the top of the body.
    let at = code
        .insns
        .iter()
        .position(|i| matches!(i, Insn::Jump { op: 162, .. }))
        .expect("loop exit branch")
        + 1;
    let inserted: Vec<Insn> = (0..REPEAT).flat_map(|_| count_increment(field)).collect();
    code.insns.splice(at..at, inserted);
    let ctx = MethodContext {
        class_name: "Wide",
        name: "main",
        descriptor: "([Ljava/lang/String;)V",
        is_static: true,
        major_version: class.major_version,
    };
    frames::compute(&mut code, &ctx, &mut edit.pool, &index).unwrap();
    let wide_jumps = code
        .insns
        .iter()
        .filter(|i| matches!(i, Insn::Jump { op: op::GOTO_W, .. }))
        .count();
    assert!(
        wide_jumps >= 2,
        "expected the exit branch and the back edge to become goto_w, got {wide_jumps}"
    );
    assert!(code.layout().code_len > 32 * 1024);
    let mut out = Vec::new();
    code.write_attribute(attr.name_index, &code.layout(), &mut out)
        .unwrap();
    edit.methods.insert(mi, method_with_code(m, &out));
    let woven = write_class(&class, &edit);
    std::fs::write(classes.join("Wide.class"), &woven).unwrap();

    let run = Command::new(home.join("bin/java"))
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&classes)
        .arg("Wide")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(stdout.trim(), format!("sum=15 count={}", 10 * REPEAT));
}

#[test]
fn code_over_64k_is_a_typed_error() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("Wide.java");
    std::fs::write(&src, SOURCE).unwrap();
    let classes = tmp.path().join("classes");
    major_tests::javac(&home, "11", &classes, &[src]);
    let bytes = std::fs::read(classes.join("Wide.class")).unwrap();
    let class = ClassFile::parse(&bytes).unwrap();
    let mut index = ClassIndex::new();
    index.add_archive(&Archive::open(&home.join("lib/modules")).unwrap());
    let mut edit = ClassEdit::new(&class);
    let field = edit.pool.field_ref("Wide", "count", "I").unwrap();
    let m = class
        .methods
        .iter()
        .find(|m| class.member_name(m).unwrap() == "main")
        .unwrap();
    let parsed = CodeAttribute::parse(m.attribute("Code").unwrap(), &class.pool).unwrap();
    let mut code = Code::decode(&parsed, &class.pool).unwrap();
    let inserted: Vec<Insn> = (0..9000).flat_map(|_| count_increment(field)).collect();
    code.insns.splice(0..0, inserted);
    let ctx = MethodContext {
        class_name: "Wide",
        name: "main",
        descriptor: "([Ljava/lang/String;)V",
        is_static: true,
        major_version: class.major_version,
    };
    let err = frames::compute(&mut code, &ctx, &mut edit.pool, &index).unwrap_err();
    assert_eq!(err.kind(), major_classfile::ErrorKind::CodeTooLarge);
    let msg = err.to_string();
    assert!(
        msg.contains("class Wide")
            && msg.contains("main([Ljava/lang/String;)V")
            && msg.contains("65535"),
        "{msg}"
    );
    // The encoder refuses too, whatever path the code takes.
    let err = code
        .write_attribute(1, &code.layout(), &mut Vec::new())
        .unwrap_err();
    assert_eq!(err.kind(), major_classfile::ErrorKind::CodeTooLarge);
}
