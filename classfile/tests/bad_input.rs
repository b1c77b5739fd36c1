//! Malformed inputs: each must be rejected with the right [`ErrorKind`], a message
//! that says what is wrong, and (where the engine knows it) the offset of the
//! offending bytes. Inputs are fixture classes with bytes patched at offsets
//! found by parsing, or minimal classes assembled by hand.

use std::path::Path;

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::constant_pool::Constant;
use major_classfile::frames::{self, MethodContext};
use major_classfile::rewrite::{reencode_class, Mode};
use major_classfile::selfcheck::{check_bytes, EmptyHierarchy};
use major_classfile::{ClassEdit, ClassFile, Code, CodeAttribute, Error, ErrorKind, Insn};

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(format!("{name}.class"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Parses `bytes`, expecting an error; also runs the fuzz property on them.
fn parse_err(bytes: &[u8]) -> Error {
    check_bytes(bytes);
    match ClassFile::parse(bytes) {
        Ok(_) => panic!("malformed class parsed"),
        Err(e) => e,
    }
}

/// Asserts `e`'s kind, that its message contains `needle`, and its offset.
fn expect(e: &Error, kind: ErrorKind, needle: &str, offset: Option<usize>) {
    assert_eq!(e.kind(), kind, "{e}");
    assert!(
        e.message().contains(needle),
        "message {:?} should mention {needle:?}",
        e.message()
    );
    assert_eq!(e.offset(), offset, "{e}");
    let shown = e.to_string();
    assert!(shown.contains(e.message()), "{shown}");
    if let Some(o) = offset {
        assert!(shown.contains(&format!("{o:#x}")), "{shown}");
    }
}

/// Offset of `access_flags`, i.e. the end of the constant pool.
fn pool_end(class: &ClassFile<'_>) -> usize {
    class.pool.byte_range().1
}

// ---------------------------------------------------------------------------
// A tiny class assembler.

/// Constant-pool entries being assembled.
struct Pool {
    bytes: Vec<u8>,
    count: u16,
}

impl Pool {
    fn new() -> Self {
        Pool {
            bytes: Vec::new(),
            count: 1,
        }
    }
    fn utf8(&mut self, s: &str) -> u16 {
        let i = self.count;
        self.bytes.push(1);
        self.bytes
            .extend_from_slice(&(s.len() as u16).to_be_bytes());
        self.bytes.extend_from_slice(s.as_bytes());
        self.count += 1;
        i
    }
    fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        let i = self.count;
        self.bytes.push(7);
        self.bytes.extend_from_slice(&n.to_be_bytes());
        self.count += 1;
        i
    }
    fn long(&mut self, v: i64) -> u16 {
        let i = self.count;
        self.bytes.push(5);
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self.count += 2;
        i
    }
}

/// A `Code` attribute.
fn code_attribute(name: u16, max_stack: u16, max_locals: u16, code: &[u8]) -> Vec<u8> {
    let mut a = Vec::new();
    a.extend_from_slice(&name.to_be_bytes());
    a.extend_from_slice(&(12 + code.len() as u32).to_be_bytes());
    a.extend_from_slice(&max_stack.to_be_bytes());
    a.extend_from_slice(&max_locals.to_be_bytes());
    a.extend_from_slice(&(code.len() as u32).to_be_bytes());
    a.extend_from_slice(code);
    a.extend_from_slice(&[0, 0, 0, 0]); // no handlers, no attributes
    a
}

/// A class file around `pool` (whose count may be overridden) with the given
/// this/super indices and methods.
fn class_file(pool: &Pool, count: u16, this: u16, sup: u16, methods: &[Vec<u8>]) -> Vec<u8> {
    let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52];
    b.extend_from_slice(&count.to_be_bytes());
    b.extend_from_slice(&pool.bytes);
    b.extend_from_slice(&0x0021u16.to_be_bytes());
    b.extend_from_slice(&this.to_be_bytes());
    b.extend_from_slice(&sup.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]); // no interfaces, no fields
    b.extend_from_slice(&(methods.len() as u16).to_be_bytes());
    for m in methods {
        b.extend_from_slice(m);
    }
    b.extend_from_slice(&[0, 0]); // no attributes
    b
}

/// Class `T` with one method `static void m()` whose bytecode is `code`.
fn class_with_code(code: &[u8]) -> Vec<u8> {
    class_with(|_| code.to_vec())
}

/// Class `T` with one method `static void m()` whose bytecode `make_code`
/// returns, after adding what it needs to the pool.
fn class_with(make_code: impl FnOnce(&mut Pool) -> Vec<u8>) -> Vec<u8> {
    let mut pool = Pool::new();
    let this = pool.class("T");
    let sup = pool.class("java/lang/Object");
    let name = pool.utf8("m");
    let desc = pool.utf8("()V");
    let code_name = pool.utf8("Code");
    let code = make_code(&mut pool);
    let code = &code[..];
    let mut m = Vec::new();
    for v in [ACC_STATIC, name, desc, 1] {
        m.extend_from_slice(&v.to_be_bytes());
    }
    m.extend_from_slice(&code_attribute(code_name, 4, 4, code));
    class_file(&pool, pool.count, this, sup, &[m])
}

/// Parses the class and decodes its first method's code.
fn decode_first(bytes: &[u8]) -> Result<Code, Error> {
    let class = ClassFile::parse(bytes).expect("the class itself is well formed");
    let attr = class.methods[0].attribute("Code").expect("has code");
    let parsed = CodeAttribute::parse(attr, &class.pool)?;
    Code::decode(&parsed, &class.pool)
}

#[test]
fn the_assembler_makes_valid_classes() {
    // return
    let b = class_with_code(&[0xB1]);
    check_bytes(&b);
    let class = ClassFile::parse(&b).unwrap();
    assert_eq!(class.name().unwrap(), "T");
    let code = decode_first(&b).unwrap();
    assert_eq!(code.insns, vec![Insn::Simple(0xB1)]);
    reencode_class(&b, Mode::Identity, &EmptyHierarchy).unwrap();
}

// ---------------------------------------------------------------------------
// The class structure.

#[test]
fn truncated_class() {
    let full = fixture("Switches");
    let class = ClassFile::parse(&full).unwrap();
    let pool_start = class.pool.byte_range().0;
    let header = pool_end(&class);
    let method = class.methods[1].offset;
    let last_attr = class.attributes.last().unwrap().offset;
    // (cut, offset reported, what the message names)
    let cuts = [
        (0, 0, "magic"),
        (2, 0, "magic"),
        (6, 6, "major_version"),
        (9, 8, "constant_pool_count"),
        (header + 3, header + 2, "this_class"),
        (method + 5, method + 4, "member descriptor_index"),
        (last_attr + 3, last_attr + 2, "attribute_length"),
    ];
    for (cut, offset, what) in cuts {
        let e = parse_err(&full[..cut]);
        expect(&e, ErrorKind::Truncated, what, Some(offset));
        assert!(e.message().contains("truncated"), "{e}");
    }
    // Inside the constant pool: whatever entry is cut, it is reported at or
    // before the cut.
    for cut in pool_start + 1..pool_start + 40 {
        let e = parse_err(&full[..cut]);
        assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {cut}: {e}");
        let o = e.offset().unwrap();
        assert!(o <= cut && o >= pool_start, "cut at {cut}: {e}");
    }
    // Cutting into an attribute's body: the attribute claims more than is left.
    let e = parse_err(&full[..full.len() - 1]);
    expect(
        &e,
        ErrorKind::AttributeOverrun,
        "but only 1 remain",
        Some(last_attr),
    );
    // And a byte too many is not a class file either.
    let mut long = full.clone();
    long.push(0);
    let e = parse_err(&long);
    expect(
        &e,
        ErrorKind::Malformed,
        "1 trailing bytes",
        Some(full.len()),
    );
}

#[test]
fn bad_magic() {
    let mut b = fixture("Switches");
    b[3] = 0xBF;
    let e = parse_err(&b);
    expect(&e, ErrorKind::BadMagic, "0xcafebabf", Some(0));
    let e = parse_err(b"PK\x03\x04 not a class");
    expect(&e, ErrorKind::BadMagic, "0x504b0304", Some(0));
}

#[test]
fn this_class_past_the_pool() {
    let mut b = fixture("Greeter");
    let class = ClassFile::parse(&b).unwrap();
    let (at, n) = (pool_end(&class) + 2, class.pool.len() as u16);
    for bad in [n, n + 1, 0xFFFF, 0] {
        put_u16(&mut b, at, bad);
        let e = parse_err(&b);
        expect(
            &e,
            ErrorKind::BadCpIndex,
            &format!("index {bad} is out of range"),
            Some(at),
        );
        assert!(e.message().contains(&format!("pool has {n} slots")), "{e}");
    }
}

#[test]
fn this_class_pointing_at_a_utf8() {
    let mut b = fixture("Greeter");
    let class = ClassFile::parse(&b).unwrap();
    let utf8 = class
        .pool
        .entries()
        .iter()
        .position(|c| matches!(c, Constant::Utf8(_)))
        .unwrap() as u16;
    let at = pool_end(&class) + 2;
    put_u16(&mut b, at, utf8);
    let e = parse_err(&b);
    expect(
        &e,
        ErrorKind::WrongTag,
        &format!("constant #{utf8} has tag 1 where tag 7 was expected"),
        Some(at),
    );
    // The same for super_class and for a class reference inside the pool.
    let mut b = fixture("Greeter");
    put_u16(&mut b, at + 2, utf8);
    expect(
        &parse_err(&b),
        ErrorKind::WrongTag,
        "where tag 7",
        Some(at + 2),
    );
}

#[test]
fn wrong_tag_inside_the_pool() {
    // A Class entry naming a Long.
    let mut pool = Pool::new();
    let long = pool.long(7);
    let this = pool.count;
    pool.bytes.push(7);
    pool.bytes.extend_from_slice(&long.to_be_bytes());
    pool.count += 1;
    let b = class_file(&pool, pool.count, this, 0, &[]);
    let e = parse_err(&b);
    expect(
        &e,
        ErrorKind::WrongTag,
        "constant #3: constant #1 has tag 5 where tag 1 was expected",
        Some(10),
    );
    // A Class entry naming the unusable slot after the Long.
    let mut pool = Pool::new();
    pool.long(7);
    let this = pool.count;
    pool.bytes.extend_from_slice(&[7, 0, 2]);
    pool.count += 1;
    let e = parse_err(&class_file(&pool, pool.count, this, 0, &[]));
    expect(
        &e,
        ErrorKind::BadCpIndex,
        "index 2 is out of range or unusable",
        Some(10),
    );
}

#[test]
fn unknown_constant_pool_tag() {
    let mut b = fixture("Lambdas");
    let class = ClassFile::parse(&b).unwrap();
    let first = class.pool.byte_range().0;
    for bad in [0u8, 2, 13, 14, 21, 0xFF] {
        b[first] = bad;
        let e = parse_err(&b);
        expect(
            &e,
            ErrorKind::WrongTag,
            &format!("constant #1 has unknown tag {bad}"),
            Some(first),
        );
    }
}

#[test]
fn long_constant_in_the_last_slot() {
    let mut pool = Pool::new();
    let this = pool.class("T");
    let long = pool.long(1);
    // Declare one slot fewer than the Long needs.
    let b = class_file(&pool, pool.count - 1, this, 0, &[]);
    let e = parse_err(&b);
    let at = 10 + 3 + 1 + 3; // count, Utf8 "T", Class
    expect(
        &e,
        ErrorKind::BadCpIndex,
        &format!("Long/Double constant #{long} takes the pool's last slot"),
        Some(at),
    );
    // With the right count the same pool is fine.
    let b = class_file(&pool, pool.count, this, 0, &[]);
    check_bytes(&b);
    ClassFile::parse(&b).unwrap();
}

#[test]
fn attribute_length_past_the_end() {
    let original = fixture("TryFinally");
    let class = ClassFile::parse(&original).unwrap();
    let mut b = original.clone();
    let at = class.attribute("SourceFile").unwrap().offset;
    put_u32(&mut b, at + 2, 0xFFFF);
    let e = parse_err(&b);
    expect(
        &e,
        ErrorKind::AttributeOverrun,
        "attribute SourceFile claims 65535 bytes but only",
        Some(at),
    );
    // A method attribute (its Code) past the end of the file, with context.
    let mut b = fixture("TryFinally");
    let m = &class.methods[1];
    let code = m.attribute("Code").unwrap();
    put_u32(&mut b, code.offset + 2, u32::MAX);
    let e = parse_err(&b);
    expect(
        &e,
        ErrorKind::AttributeOverrun,
        "in a method: attribute Code claims 4294967295 bytes",
        Some(code.offset),
    );
}

#[test]
fn code_length_past_the_code_attribute() {
    let mut b = fixture("TryFinally");
    let class = ClassFile::parse(&b).unwrap();
    let (mi, m) = class
        .methods
        .iter()
        .enumerate()
        .find(|(_, m)| m.attribute("Code").is_some())
        .unwrap();
    let attr = m.attribute("Code").unwrap();
    let at = attr.data_offset() + 4;
    let len = attr.data.len() as u32;
    put_u32(&mut b, at, len);
    // The class still parses: the attribute itself fits.
    let class = ClassFile::parse(&b).unwrap();
    let attr = class.methods[mi].attribute("Code").unwrap();
    let e = CodeAttribute::parse(attr, &class.pool).unwrap_err();
    expect(
        &e,
        ErrorKind::AttributeOverrun,
        &format!("code_length {len} runs past the Code attribute"),
        Some(at),
    );
    // The whole-class rewrite names the method.
    check_bytes(&b);
    let e = reencode_class(&b, Mode::Identity, &EmptyHierarchy).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AttributeOverrun);
    assert_eq!(e.class(), Some("TryFinally"));
    let name = class.member_name(&class.methods[mi]).unwrap();
    assert!(e.method().unwrap().starts_with(&*name), "{e}");
    assert!(e.to_string().contains("class TryFinally: method "), "{e}");
}

// ---------------------------------------------------------------------------
// Bytecode.

#[test]
fn branch_into_the_middle_of_an_instruction() {
    // 0: sipush 1; 3: goto -2 (-> 1, inside the sipush); 6: return
    let b = class_with_code(&[0x11, 0x00, 0x01, 0xA7, 0xFF, 0xFE, 0xB1]);
    check_bytes(&b);
    let e = decode_first(&b).unwrap_err();
    expect(
        &e,
        ErrorKind::Malformed,
        "branch target 1 is not the start of an instruction",
        None,
    );
    // Past the end and before the start.
    for (rel, target) in [(0x0004u16, 7i64), (0xFFF0, -13)] {
        let [hi, lo] = rel.to_be_bytes();
        let b = class_with_code(&[0x11, 0x00, 0x01, 0xA7, hi, lo, 0xB1]);
        check_bytes(&b);
        let e = decode_first(&b).unwrap_err();
        expect(
            &e,
            ErrorKind::Malformed,
            &format!("branch target {target} is not"),
            None,
        );
    }
    // The whole-class rewrite carries class and method.
    let b = class_with_code(&[0x11, 0x00, 0x01, 0xA7, 0xFF, 0xFE, 0xB1]);
    let e = reencode_class(&b, Mode::Reframe, &EmptyHierarchy).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(
        e.to_string()
            .starts_with("class T: method m()V: branch target 1"),
        "{e}"
    );
}

#[test]
fn invalid_opcode() {
    for bad in [0xCAu8, 0xFE, 0xFF] {
        // 0: nop; 1: <bad>; 2: return
        let b = class_with_code(&[0x00, bad, 0xB1]);
        check_bytes(&b);
        let e = decode_first(&b).unwrap_err();
        expect(
            &e,
            ErrorKind::Malformed,
            &format!("invalid opcode {bad:#04x} at offset 1"),
            Some(1),
        );
    }
    // wide applied to an opcode that has no wide form.
    let b = class_with_code(&[0xC4, 0x00, 0xB1]);
    let e = decode_first(&b).unwrap_err();
    expect(&e, ErrorKind::Malformed, "wide applied to nop", Some(0));
    // An instruction cut by the end of the code.
    let b = class_with_code(&[0x00, 0x11, 0x00]);
    let e = decode_first(&b).unwrap_err();
    expect(
        &e,
        ErrorKind::Truncated,
        "sipush at offset 1 runs past the end",
        Some(1),
    );
}

/// A small `static void m()` with `extra` nops inserted before its first
/// instruction, written as a Code attribute; returns it and the code length.
fn grown(extra: usize) -> (Vec<u8>, usize) {
    let b = class_with_code(&[0x03, 0x99, 0x00, 0x04, 0xB1, 0xB1]); // iconst_0; ifeq +4; return; return
    let mut code = decode_first(&b).unwrap();
    let first = code
        .insns
        .iter()
        .position(|i| i.opcode().is_some())
        .unwrap();
    code.insns
        .splice(first..first, std::iter::repeat_n(Insn::Simple(0), extra));
    let len = code.layout().code_len;
    let mut out = Vec::new();
    match code.write_attribute(1, &code.layout(), &mut out) {
        Ok(()) => (out, len),
        Err(e) => panic!("unexpected: {e}"),
    }
}

#[test]
fn code_too_large_after_inserting_instructions() {
    // 65535 bytes is the limit and still fine.
    let (_, len) = grown(65535 - 6);
    assert_eq!(len, 65535);

    let b = class_with_code(&[0x03, 0x99, 0x00, 0x04, 0xB1, 0xB1]);
    let class = ClassFile::parse(&b).unwrap();
    let attr = class.methods[0].attribute("Code").unwrap();
    let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
    let mut code = Code::decode(&parsed, &class.pool).unwrap();
    // Between the `ifeq` and its target.
    let after = 1 + code
        .insns
        .iter()
        .position(|i| i.opcode() == Some(0x99))
        .unwrap();
    code.insns
        .splice(after..after, std::iter::repeat_n(Insn::Simple(0), 70_000));

    // encode_bytecode and write_attribute refuse it.
    let layout = code.layout();
    assert_eq!(layout.code_len, 70_006);
    let e = code.encode_bytecode(&layout).unwrap_err();
    expect(
        &e,
        ErrorKind::CodeTooLarge,
        "code would be 70006 bytes",
        None,
    );
    assert!(e.message().contains("65535"), "{e}");
    let mut out = Vec::new();
    let e = code
        .write_attribute(attr.name_index, &layout, &mut out)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CodeTooLarge, "{e}");

    // The `ifeq` now jumps over 70000 bytes: frame computation widens it, and the
    // result is still too large to write (if computing frames did not refuse first).
    let mut edit = ClassEdit::new(&class);
    let ctx = MethodContext {
        class_name: "T",
        name: "m",
        descriptor: "()V",
        is_static: true,
        major_version: class.major_version,
    };
    let e = match frames::compute(&mut code, &ctx, &mut edit.pool, &EmptyHierarchy) {
        Err(e) => {
            eprintln!("frames::compute refused: {e}");
            e
        }
        Ok(()) => {
            eprintln!("frames::compute succeeded; write_attribute refuses");
            assert!(
                code.insns.iter().any(|i| i.opcode() == Some(0xC8)),
                "goto_w"
            );
            let layout = code.layout();
            let mut out = Vec::new();
            code.write_attribute(attr.name_index, &layout, &mut out)
                .unwrap_err()
        }
    };
    assert_eq!(e.kind(), ErrorKind::CodeTooLarge, "{e}");
    assert!(!e.to_string().is_empty());
}

#[test]
fn bad_field_descriptor_in_frame_computation() {
    // Regression (found by fuzz_smoke): frame computation sliced an unchecked
    // field descriptor and panicked on `LBroken` (no `;`), `""` or a multi-byte
    // character at its end.
    for bad in ["LBroken", "", "L\u{fcbb}", "Q"] {
        let b = class_with(|pool| {
            let owner = pool.class("T2");
            let name = pool.utf8("f");
            let desc = pool.utf8(bad);
            let nat = pool.count;
            pool.bytes.push(12);
            pool.bytes.extend_from_slice(&name.to_be_bytes());
            pool.bytes.extend_from_slice(&desc.to_be_bytes());
            pool.count += 1;
            let field = pool.count;
            pool.bytes.push(9);
            pool.bytes.extend_from_slice(&owner.to_be_bytes());
            pool.bytes.extend_from_slice(&nat.to_be_bytes());
            pool.count += 1;
            let [hi, lo] = field.to_be_bytes();
            vec![0xB2, hi, lo, 0x57, 0xB1] // getstatic; pop; return
        });
        check_bytes(&b);
        decode_first(&b).unwrap();
        let e = reencode_class(&b, Mode::Reframe, &EmptyHierarchy).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
        assert!(
            e.message()
                .contains(&format!("bad field descriptor {bad:?}")),
            "{e}"
        );
        assert!(e.to_string().starts_with("class T: method m()V: "), "{e}");
    }
}

// ---------------------------------------------------------------------------
// Non-canonical but accepted: the engine normalises these on re-encoding, so
// the fuzz property accepts them while `Mode::Identity` reports the change.

/// A non-boundary offset in the first method body of `bytes` that has a
/// multi-byte instruction, with that body's index and Code attribute.
fn inside_an_instruction(bytes: &[u8]) -> (usize, u16) {
    let class = ClassFile::parse(bytes).unwrap();
    for (mi, m) in class.methods.iter().enumerate() {
        let Some(attr) = m.attribute("Code") else {
            continue;
        };
        let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
        let code = Code::decode(&parsed, &class.pool).unwrap();
        let layout = code.layout();
        for (i, insn) in code.insns.iter().enumerate() {
            let at = layout.insn_offsets[i];
            let next = layout.insn_offsets.get(i + 1).copied();
            if insn.opcode().is_some() && next.is_some_and(|n| n > at + 1) {
                return (mi, at as u16 + 1);
            }
        }
    }
    panic!("no multi-byte instruction");
}

#[test]
fn line_number_inside_an_instruction_is_dropped() {
    let mut b = fixture("Switches");
    let (mi, pc) = inside_an_instruction(&b);
    let lnt = {
        let class = ClassFile::parse(&b).unwrap();
        let attr = class.methods[mi].attribute("Code").unwrap();
        let parsed = CodeAttribute::parse(attr, &class.pool).unwrap();
        parsed.attribute("LineNumberTable").unwrap().data_offset()
    };
    put_u16(&mut b, lnt + 2, pc); // first entry's start_pc
    check_bytes(&b);
    let e = reencode_class(&b, Mode::Identity, &EmptyHierarchy).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert!(
        e.message().contains("re-encoded Code attribute differs"),
        "{e}"
    );
}

#[test]
fn nonzero_reserved_byte_is_zeroed() {
    let mut b = fixture("Lambdas");
    let at = {
        let class = ClassFile::parse(&b).unwrap();
        class
            .methods
            .iter()
            .filter_map(|m| m.attribute("Code"))
            .find_map(|a| {
                let p = CodeAttribute::parse(a, &class.pool).unwrap();
                let code = Code::decode(&p, &class.pool).unwrap();
                let layout = code.layout();
                code.insns
                    .iter()
                    .zip(&layout.insn_offsets)
                    .find(|(i, _)| matches!(i, Insn::InvokeInterface { .. }))
                    .map(|(_, &o)| p.code_offset + o as usize + 4)
            })
            .expect("Lambdas calls an interface method")
    };
    assert_eq!(b[at], 0);
    b[at] = 7;
    check_bytes(&b);
    let e = reencode_class(&b, Mode::Identity, &EmptyHierarchy).unwrap_err();
    assert!(
        e.message().contains("re-encoded Code attribute differs"),
        "{e}"
    );
}
