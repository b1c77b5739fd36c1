//! Cross-check of our reader against an independent one (the `cafebabe` crate).
//!
//! For the fixture classes and for a corpus of real classes, both readers must
//! agree on: version, class/super/interface names, access flags, field and method
//! names and descriptors, the constant pool (count and entries by kind), and per
//! method `max_stack`, `max_locals`, code length and exception-table length.
//!
//! The corpus is every `.class` file under `$MAJOR_ORACLE_DIR` when that is set;
//! otherwise the classes of the JDK's `java.base.jmod`, extracted with the `jmod`
//! tool into a temporary directory; otherwise the test says why it skips the
//! corpus. Classes the oracle cannot parse are counted and reported, not failed;
//! our reader must parse every one of them, and every class also goes through
//! the fuzz property (`selfcheck::check_bytes`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cafebabe::attributes::AttributeData;
use cafebabe::constant_pool::{ConstantPoolItem, LiteralConstant};
use cafebabe::{ClassAccessFlags, FieldAccessFlags, MethodAccessFlags, ParseOptions};
use major_classfile::constant_pool::Constant;
use major_classfile::selfcheck::check_bytes;
use major_classfile::{ClassFile, CodeAttribute, Result};

/// Everything compared, as plain values.
#[derive(Debug, PartialEq, Eq)]
struct View {
    version: (u16, u16),
    access: u16,
    name: String,
    super_name: Option<String>,
    interfaces: Vec<String>,
    /// (access, name, descriptor)
    fields: Vec<(u16, String, String)>,
    methods: Vec<MethodView>,
    /// `constant_pool_count`.
    pool_count: Option<usize>,
    /// Entries other than Utf8 (which the oracle does not list), by kind.
    pool_kinds: BTreeMap<&'static str, usize>,
}

#[derive(Debug, PartialEq, Eq)]
struct MethodView {
    access: u16,
    name: String,
    descriptor: String,
    /// (max_stack, max_locals, code length, exception-table length)
    code: Option<(u16, u16, usize, usize)>,
}

fn ours(bytes: &[u8]) -> Result<View> {
    let c = ClassFile::parse(bytes)?;
    let class_mask = ClassAccessFlags::all().bits();
    let field_mask = FieldAccessFlags::all().bits();
    let method_mask = MethodAccessFlags::all().bits();
    let mut pool_kinds = BTreeMap::new();
    for e in c.pool.entries() {
        let k = match e {
            Constant::Unusable | Constant::Utf8(_) => continue,
            Constant::Integer(_) => "Integer",
            Constant::Float(_) => "Float",
            Constant::Long(_) => "Long",
            Constant::Double(_) => "Double",
            Constant::Class(_) => "Class",
            Constant::String(_) => "String",
            Constant::Fieldref(..) => "Fieldref",
            Constant::Methodref(..) => "Methodref",
            Constant::InterfaceMethodref(..) => "InterfaceMethodref",
            Constant::NameAndType(..) => "NameAndType",
            Constant::MethodHandle(..) => "MethodHandle",
            Constant::MethodType(_) => "MethodType",
            Constant::Dynamic(..) => "Dynamic",
            Constant::InvokeDynamic(..) => "InvokeDynamic",
            Constant::Module(_) => "Module",
            Constant::Package(_) => "Package",
        };
        *pool_kinds.entry(k).or_insert(0) += 1;
    }
    let mut fields = Vec::new();
    for f in &c.fields {
        fields.push((
            f.access & field_mask,
            c.member_name(f)?.into_owned(),
            c.member_descriptor(f)?.into_owned(),
        ));
    }
    let mut methods = Vec::new();
    for m in &c.methods {
        let code = match m.attribute("Code") {
            Some(a) => {
                let p = CodeAttribute::parse(a, &c.pool)?;
                Some((
                    p.max_stack,
                    p.max_locals,
                    p.code.len(),
                    p.exception_table.len(),
                ))
            }
            None => None,
        };
        methods.push(MethodView {
            access: m.access & method_mask,
            name: c.member_name(m)?.into_owned(),
            descriptor: c.member_descriptor(m)?.into_owned(),
            code,
        });
    }
    Ok(View {
        version: (c.major_version, c.minor_version),
        access: c.access & class_mask,
        name: c.name()?.into_owned(),
        super_name: c.super_name()?.map(|s| s.into_owned()),
        interfaces: c
            .interface_names()?
            .into_iter()
            .map(|s| s.into_owned())
            .collect(),
        fields,
        methods,
        pool_count: Some(c.pool.len()),
        pool_kinds,
    })
}

fn oracle(bytes: &[u8]) -> std::result::Result<View, String> {
    let mut opts = ParseOptions::default();
    opts.parse_bytecode(false);
    let c = cafebabe::parse_class_with_options(bytes, &opts).map_err(|e| e.to_string())?;
    let mut pool_kinds = BTreeMap::new();
    for item in c.constantpool_iter() {
        let k = match item {
            ConstantPoolItem::LiteralConstant(l) => match l {
                LiteralConstant::Integer(_) => "Integer",
                LiteralConstant::Float(_) => "Float",
                LiteralConstant::Long(_) => "Long",
                LiteralConstant::Double(_) => "Double",
                LiteralConstant::String(_) | LiteralConstant::StringBytes(_) => "String",
            },
            ConstantPoolItem::ClassInfo(_) => "Class",
            ConstantPoolItem::FieldRef(_) => "Fieldref",
            ConstantPoolItem::MethodRef(_) => "Methodref",
            ConstantPoolItem::InterfaceMethodRef(_) => "InterfaceMethodref",
            ConstantPoolItem::NameAndType(_) => "NameAndType",
            ConstantPoolItem::MethodHandle(_) => "MethodHandle",
            ConstantPoolItem::MethodType(_) => "MethodType",
            ConstantPoolItem::Dynamic(_) => "Dynamic",
            ConstantPoolItem::InvokeDynamic(_) => "InvokeDynamic",
            ConstantPoolItem::ModuleInfo(_) => "Module",
            ConstantPoolItem::PackageInfo(_) => "Package",
        };
        *pool_kinds.entry(k).or_insert(0) += 1;
    }
    let methods = c
        .methods
        .iter()
        .map(|m| MethodView {
            access: m.access_flags.bits(),
            name: m.name.to_string(),
            descriptor: m.descriptor.to_string(),
            code: m.attributes.iter().find_map(|a| match &a.data {
                AttributeData::Code(d) => Some((
                    d.max_stack,
                    d.max_locals,
                    d.code.len(),
                    d.exception_table.len(),
                )),
                _ => None,
            }),
        })
        .collect();
    Ok(View {
        version: (c.major_version, c.minor_version),
        access: c.access_flags.bits(),
        name: c.this_class.to_string(),
        super_name: c.super_class.as_ref().map(|s| s.to_string()),
        interfaces: c.interfaces.iter().map(|s| s.to_string()).collect(),
        fields: c
            .fields
            .iter()
            .map(|f| {
                (
                    f.access_flags.bits(),
                    f.name.to_string(),
                    f.descriptor.to_string(),
                )
            })
            .collect(),
        methods,
        // The oracle does not expose the count; checked against the raw field.
        pool_count: None,
        pool_kinds,
    })
}

#[derive(Default)]
struct Tally {
    classes: usize,
    methods: usize,
    agreed: usize,
    oracle_failed: Vec<String>,
    ours_failed: Vec<String>,
    mismatches: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: &str, bytes: &[u8]) {
        self.classes += 1;
        let mine = match ours(bytes) {
            Ok(v) => v,
            Err(e) => {
                self.ours_failed.push(format!("{what}: {e}"));
                return;
            }
        };
        self.methods += mine.methods.len();
        // Whatever our reader accepts also passes the fuzz property.
        check_bytes(bytes);
        let raw_count = bytes
            .get(8..10)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize);
        if mine.pool_count != raw_count {
            self.mismatches.push(format!(
                "{what}: constant-pool count {:?}, file says {raw_count:?}",
                mine.pool_count
            ));
        }
        let theirs = match oracle(bytes) {
            Ok(v) => v,
            Err(e) => {
                self.oracle_failed.push(format!("{what}: {e}"));
                return;
            }
        };
        let mine = View {
            pool_count: None,
            ..mine
        };
        if mine == theirs {
            self.agreed += 1;
        } else {
            self.mismatches
                .push(format!("{what}: {}", describe(&mine, &theirs)));
        }
    }

    fn report(&self, corpus: &str, elapsed: std::time::Duration) {
        eprintln!(
            "oracle [{corpus}]: {} classes ({} methods) in {elapsed:?}: {} agreed, \
             {} mismatches, oracle could not parse {}, ours could not parse {}",
            self.classes,
            self.methods,
            self.agreed,
            self.mismatches.len(),
            self.oracle_failed.len(),
            self.ours_failed.len()
        );
        for s in self.oracle_failed.iter().take(5) {
            eprintln!("  oracle could not parse {s}");
        }
        for s in self.mismatches.iter().take(20) {
            eprintln!("  MISMATCH {s}");
        }
        for s in self.ours_failed.iter().take(20) {
            eprintln!("  OURS FAILED {s}");
        }
        assert!(
            self.ours_failed.is_empty(),
            "{corpus}: our reader rejected {} classes",
            self.ours_failed.len()
        );
        assert!(
            self.mismatches.is_empty(),
            "{corpus}: {} classes read differently",
            self.mismatches.len()
        );
    }
}

/// The first field that differs, for the report.
fn describe(a: &View, b: &View) -> String {
    macro_rules! field {
        ($f:ident) => {
            if a.$f != b.$f {
                return format!("{}: ours {:?}, oracle {:?}", stringify!($f), a.$f, b.$f);
            }
        };
    }
    field!(version);
    field!(access);
    field!(name);
    field!(super_name);
    field!(interfaces);
    field!(fields);
    field!(pool_kinds);
    if a.methods.len() != b.methods.len() {
        return format!(
            "method count: ours {}, oracle {}",
            a.methods.len(),
            b.methods.len()
        );
    }
    for (x, y) in a.methods.iter().zip(&b.methods) {
        if x != y {
            return format!("method: ours {x:?}, oracle {y:?}");
        }
    }
    "views differ".into()
}

fn class_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => class_files(&p, out),
            Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "class") => out.push(p),
            _ => {}
        }
    }
}

fn check_dir(corpus: &str, dir: &Path) {
    let start = Instant::now();
    let mut files = Vec::new();
    class_files(dir, &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "{corpus}: no .class files under {}",
        dir.display()
    );
    let mut t = Tally::default();
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let rel = f.strip_prefix(dir).unwrap_or(f);
        t.check(&rel.display().to_string(), &bytes);
    }
    t.report(corpus, start.elapsed());
}

#[test]
fn fixtures_agree_with_the_oracle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let start = Instant::now();
    let mut files = Vec::new();
    class_files(&dir, &mut files);
    assert!(files.len() >= 4);
    let mut t = Tally::default();
    for f in &files {
        t.check(&f.display().to_string(), &std::fs::read(f).unwrap());
    }
    t.report("fixtures", start.elapsed());
    assert!(t.oracle_failed.is_empty(), "the oracle reads the fixtures");
    assert_eq!(t.agreed, files.len());
}

/// `java.base.jmod` of the JDK, if there is one.
fn java_base_jmod() -> Option<PathBuf> {
    let homes = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64")]);
    homes
        .map(|h| h.join("jmods/java.base.jmod"))
        .find(|p| p.is_file())
}

#[test]
fn corpus_agrees_with_the_oracle() {
    if let Some(dir) = std::env::var_os("MAJOR_ORACLE_DIR") {
        let dir = PathBuf::from(dir);
        check_dir(&format!("MAJOR_ORACLE_DIR={}", dir.display()), &dir);
        return;
    }
    let Some(jmod) = java_base_jmod() else {
        eprintln!(
            "oracle: skipping the corpus: MAJOR_ORACLE_DIR is not set and no \
             java.base.jmod was found (JAVA_HOME/jmods or the Debian JDK 17)"
        );
        return;
    };
    let tmp = std::env::temp_dir().join(format!("major-oracle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let status = Command::new("jmod")
        .arg("extract")
        .arg("--dir")
        .arg(&tmp)
        .arg(&jmod)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            let _ = std::fs::remove_dir_all(&tmp);
            eprintln!("oracle: skipping the corpus: `jmod extract` failed ({s})");
            return;
        }
        Err(e) => {
            eprintln!("oracle: skipping the corpus: cannot run `jmod` ({e})");
            return;
        }
    }
    check_dir(&jmod.display().to_string(), &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
}
