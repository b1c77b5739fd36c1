//! The incremental state kept in a woven directory ([`STATE_FILE`]): what the
//! last weave read and wrote, per input entry, and what the classes it looked
//! up were.
//!
//! A binary file ([`super::binary`]: a first line naming the format and its
//! version, length-prefixed fields, the BLAKE3 digest of everything before it
//! at the end), written in one order so that the same weave gives the same bytes:
//!
//! ```text
//! major incremental state 6\n
//! key                                     options, aspects, major itself
//! table: n, then n times (sorted):        every class looked up
//!   name, bytes print, levels: n, then (level, print) n times
//! global: refs                            looked up by the weave as a whole
//! entries: n, then n times (input order):
//!   name, input, SHA-256, outputs: n texts (empty: the entry's name),
//!   deps: refs,
//!   outcome: 0, or 1 and woven, empty finalize(), intrinsics,
//!     advised (kind, n)*, hits (advice, n)*, kinds (advice, kind, n)*,
//!     declares (error, message, location, method, line+1 or 0)*,
//!     skipped texts, notes texts
//! added: n texts                          the classes major added
//! BLAKE3 digest of everything above (32 bytes)
//! ```
//!
//! A kind is the code of a join-point kind (its place in the list the
//! report counts). Refs are sorted by name, as the table is; a ref is the difference between
//! its class's index in the table and the previous ref's (the first: its
//! index), zig-zag encoded, times 4, plus its level (0 presence, 1 header, 2 details), and
//! must name a level the table holds.
//! Anything out of place, another first line (a state of another version) or
//! a digest that does not match makes the file damaged: the weave is then
//! full.

use std::collections::BTreeMap;

use super::binary::{Reader, Writer};
use super::deps::Level;
use super::print::Print;
use crate::weave::DeclareHit;

/// The name of a class looked up, shared by every record that names it.
pub type Dep = std::sync::Arc<str>;

/// Where the state lives, relative to the output directory.
pub const STATE_FILE: &str = ".major/incremental";

/// The first line: the format and its version.
const HEADER: &str = "major incremental state 6";

/// What the report says of one woven class.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoredOutcome {
    /// The class was changed by the weave.
    pub woven: bool,
    /// Advised shadows per join-point kind (the report's names).
    pub advised: Vec<(&'static str, usize)>,
    /// Shadows per advice id (only advice with some).
    pub hits: Vec<(usize, usize)>,
    /// Shadows per advice id and join-point kind.
    pub kinds: Vec<(usize, &'static str, usize)>,
    /// `declare warning/error` matches.
    pub declares: Vec<DeclareHit>,
    /// Methods left unwoven, as the report words them.
    pub skipped: Vec<String>,
    /// Advice left out at some join points.
    pub notes: Vec<String>,
    /// Empty `finalize()` methods left unwoven.
    pub empty_finalizers: usize,
    /// `@IntrinsicCandidate` methods left unwoven.
    pub intrinsics: usize,
}

/// One input entry as the last weave saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRecord {
    /// The entry's name in its input.
    pub name: String,
    /// Which input (its index on the command line).
    pub input: usize,
    /// SHA-256 of its bytes.
    pub hash: Print,
    /// The files of the output it produced.
    pub outputs: Vec<String>,
    /// The classes its weave looked up (sorted by name).
    pub deps: Vec<(Dep, Level)>,
    /// For a class that was woven: what the report says of it (boxed: a
    /// record is moved several times on its way from the old state to the
    /// new, and most of its size would be this).
    pub outcome: Option<Box<StoredOutcome>>,
}

/// What a looked-up class was: a digest of the bytes its name resolved to,
/// and one per level some weave asked about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassPrint {
    /// Digest of the bytes (or `absent`, `unread`).
    pub bytes: Print,
    /// Digest of what each level asked for shows.
    pub levels: BTreeMap<Level, Print>,
}

/// The whole state, built: what the tests encode and read as the reference
/// ([`super::view::StateView`] reads a state file, [`super::next_state`] writes one).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct State {
    /// Everything global the weave depended on (see [`super::global_key`]).
    pub key: String,
    /// Every class looked up, by name.
    pub table: BTreeMap<String, ClassPrint>,
    /// The classes the weave as a whole looked up (compiling pointcuts...).
    pub global: Vec<(Dep, Level)>,
    /// The input entries, in input order.
    pub entries: Vec<EntryRecord>,
    /// The files of the classes major added (aspects, runtime...).
    pub added: Vec<String>,
}

/// A join-point kind's code ([`super::code_of_kind`]). Only kinds a report
/// counts are stored; any other gets a code no kind has, so that the file
/// reads as damaged and the next weave is full.
fn kind_code(k: &str) -> u64 {
    super::code_of_kind(k).unwrap_or(u64::from(u32::MAX))
}

/// A level's code in a ref.
fn code(l: Level) -> u64 {
    match l {
        Level::Presence => 0,
        Level::Header => 1,
        Level::Details => 2,
    }
}

/// The level of code `c`.
fn level_of(c: u64) -> Option<Level> {
    match c {
        0 => Some(Level::Presence),
        1 => Some(Level::Header),
        2 => Some(Level::Details),
        _ => None,
    }
}

/// Level bits of a class in the table, as a parse checks refs against them.
pub(super) fn bit(l: Level) -> u8 {
    1 << code(l)
}

/// Writes a row of the class table: a class's name and prints.
pub(super) fn write_row(w: &mut Writer, name: &str, p: &ClassPrint) {
    w.text(name);
    w.print(&p.bytes);
    w.num(p.levels.len() as u64);
    for (l, fp) in &p.levels {
        w.num(code(*l));
        w.print(fp);
    }
}

/// Writes `n` refs, given as (index in the table, level) in the table's
/// order: each index as the difference from the one before (mostly one
/// byte; zig-zag, so that any order can be stored).
pub(super) fn write_refs(w: &mut Writer, n: usize, refs: impl Iterator<Item = (u32, Level)>) {
    w.num(n as u64);
    let mut last: i64 = 0;
    for (i, l) in refs {
        let i = i64::from(i);
        let d = i - last;
        w.num((((d << 1) ^ (d >> 63)) as u64) * 4 + code(l));
        last = i;
    }
}

/// Reads the refs [`write_refs`] wrote, checking each against the levels
/// the table holds (`bits(row)`: its [`bit`]s, `None` past the table).
pub(super) fn read_refs(
    r: &mut Reader,
    bits: impl Fn(usize) -> Option<u8>,
    mut each: impl FnMut(u32, Level),
) -> Result<(), String> {
    let n = r.count(r.left())?;
    let mut last: i64 = 0;
    for _ in 0..n {
        let x = r.num()?;
        let level = level_of(x % 4).ok_or("a ref of unknown level")?;
        let z = x / 4;
        let d = (z >> 1) as i64 ^ -((z & 1) as i64);
        last = last.checked_add(d).ok_or("a ref out of the table")?;
        let i = u32::try_from(last).map_err(|_| "a ref out of the table")?;
        let b = bits(i as usize).ok_or("a ref out of the table")?;
        if b & bit(level) == 0 {
            return Err("a ref to a level the table lacks".into());
        }
        each(i, level);
    }
    Ok(())
}

/// Writes an entry record, its refs written by `refs`.
pub(super) fn write_entry(
    w: &mut Writer,
    e: &EntryRecord,
    refs: impl FnOnce(&mut Writer, &[(Dep, Level)]),
) {
    w.text(&e.name);
    w.num(e.input as u64);
    w.print(&e.hash);
    w.num(e.outputs.len() as u64);
    for o in &e.outputs {
        // Most entries' one output is the entry itself.
        w.text(if *o == e.name { "" } else { o });
    }
    refs(w, &e.deps);
    let Some(o) = &e.outcome else {
        w.byte(0);
        return;
    };
    w.byte(1);
    w.byte(u8::from(o.woven));
    w.num(o.empty_finalizers as u64);
    w.num(o.intrinsics as u64);
    w.num(o.advised.len() as u64);
    for (k, n) in &o.advised {
        w.num(kind_code(k));
        w.num(*n as u64);
    }
    w.num(o.hits.len() as u64);
    for (a, n) in &o.hits {
        w.num(*a as u64);
        w.num(*n as u64);
    }
    w.num(o.kinds.len() as u64);
    for (a, k, n) in &o.kinds {
        w.num(*a as u64);
        w.num(kind_code(k));
        w.num(*n as u64);
    }
    w.num(o.declares.len() as u64);
    for d in &o.declares {
        w.byte(u8::from(d.is_error));
        w.text(&d.message);
        w.text(&d.location);
        w.text(&d.method);
        w.num(d.line.map_or(0, |l| u64::from(l) + 1));
    }
    for list in [&o.skipped, &o.notes] {
        w.num(list.len() as u64);
        for s in list {
            w.text(s);
        }
    }
}

/// Reads an entry's outcome into `o` (its lists emptied first, their room
/// kept); false when the entry has none. `name`: the entry's, for errors.
pub(super) fn read_outcome_into(
    r: &mut Reader,
    name: &str,
    o: &mut StoredOutcome,
) -> Result<bool, String> {
    let flag = |r: &mut Reader| match r.byte()? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(format!("{name}: a flag neither 0 nor 1")),
    };
    let num = |r: &mut Reader| -> Result<usize, String> {
        usize::try_from(r.num()?).map_err(|_| "a number out of range".to_string())
    };
    // A join-point kind, one of those a report counts.
    let kind = |r: &mut Reader| -> Result<&'static str, String> {
        let k = r.num()?;
        super::kind_of_code(k).ok_or_else(|| format!("an unknown join-point kind {k}"))
    };
    match r.byte()? {
        0 => return Ok(false),
        1 => {}
        _ => return Err(format!("{name}: an outcome flag neither 0 nor 1")),
    }
    o.woven = flag(r)?;
    o.empty_finalizers = num(r)?;
    o.intrinsics = num(r)?;
    o.advised.clear();
    for _ in 0..r.count(r.left())? {
        o.advised.push((kind(r)?, num(r)?));
    }
    o.hits.clear();
    for _ in 0..r.count(r.left())? {
        o.hits.push((num(r)?, num(r)?));
    }
    o.kinds.clear();
    for _ in 0..r.count(r.left())? {
        o.kinds.push((num(r)?, kind(r)?, num(r)?));
    }
    o.declares.clear();
    for _ in 0..r.count(r.left())? {
        let is_error = flag(r)?;
        o.declares.push(DeclareHit {
            is_error,
            message: r.text()?,
            location: r.text()?,
            method: r.text()?,
            line: match r.num()? {
                0 => None,
                l => Some(u32::try_from(l - 1).map_err(|_| "a line out of range")?),
            },
        });
    }
    o.skipped.clear();
    for _ in 0..r.count(r.left())? {
        o.skipped.push(r.text()?);
    }
    o.notes.clear();
    for _ in 0..r.count(r.left())? {
        o.notes.push(r.text()?);
    }
    Ok(true)
}

/// Reads a row of the class table: its name, its bytes print, and each
/// level it holds with its print (`level` called for each).
pub(super) fn read_row<'a>(
    r: &mut Reader<'a>,
    mut level: impl FnMut(Level, Print),
) -> Result<(&'a str, Print), String> {
    let name = r.str()?;
    let bytes = r.print()?;
    for _ in 0..r.count(3)? {
        let l = level_of(r.num()?).ok_or("a level of unknown code")?;
        level(l, r.print()?);
    }
    Ok((name, bytes))
}

/// The first line of a state file.
pub(super) fn header() -> &'static str {
    HEADER
}

#[cfg(test)]
impl State {
    /// The file's bytes: the reference encoding the tests hold the state's
    /// real writer ([`super::next_state`]) to.
    pub fn to_bytes(&self) -> Vec<u8> {
        let index: rustc_hash::FxHashMap<&str, u32> = self
            .table
            .keys()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let refs = |w: &mut Writer, deps: &[(Dep, Level)]| {
            write_refs(w, deps.len(), deps.iter().map(|(n, l)| (index[&**n], *l)));
        };
        let mut w = Writer::new(HEADER, 4096);
        w.text(&self.key);
        w.num(self.table.len() as u64);
        for (name, p) in &self.table {
            write_row(&mut w, name, p);
        }
        refs(&mut w, &self.global);
        w.num(self.entries.len() as u64);
        for e in &self.entries {
            write_entry(&mut w, e, refs);
        }
        w.num(self.added.len() as u64);
        for a in &self.added {
            w.text(a);
        }
        w.finish()
    }

    /// Reads a state file whole; the error says why it is damaged.
    pub fn parse(bytes: &[u8]) -> Result<State, String> {
        Ok(super::view::StateView::read(bytes.to_vec())?.to_state())
    }
}

/// Lower-case hex of `bytes`.
pub use super::binary::hex;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        let mut table = BTreeMap::new();
        table.insert(
            "java/lang/Object".to_string(),
            ClassPrint {
                bytes: "ab".into(),
                levels: [(Level::Header, "01".into())].into(),
            },
        );
        table.insert(
            "p/A b".to_string(),
            ClassPrint {
                bytes: "absent".into(),
                levels: [
                    (Level::Presence, "02".into()),
                    (Level::Details, "03".into()),
                ]
                .into(),
            },
        );
        State {
            key: "k".into(),
            table,
            global: vec![("p/A b".into(), Level::Presence)],
            entries: vec![
                EntryRecord {
                    name: "p/A b.class".into(),
                    input: 0,
                    hash: "00".into(),
                    outputs: vec!["p/A b.class".into(), "p/A$MajorStatics.class".into()],
                    deps: vec![
                        ("java/lang/Object".into(), Level::Header),
                        ("p/A b".into(), Level::Details),
                    ],
                    outcome: Some(Box::new(StoredOutcome {
                        woven: true,
                        advised: vec![("method-call", 3)],
                        hits: vec![(0, 3)],
                        kinds: vec![(0, "method-call", 3)],
                        declares: vec![
                            DeclareHit {
                                is_error: false,
                                message: "100% bad\nhere".into(),
                                location: "A.java:3".into(),
                                method: "m(I)V".into(),
                                line: Some(3),
                            },
                            DeclareHit {
                                is_error: true,
                                message: "e".into(),
                                location: "p/A".into(),
                                method: "<init>()V".into(),
                                line: None,
                            },
                        ],
                        skipped: vec![String::new()],
                        notes: vec!["n".into()],
                        empty_finalizers: 1,
                        intrinsics: 2,
                    })),
                },
                EntryRecord {
                    name: "res.txt".into(),
                    input: 1,
                    hash: "11".into(),
                    outputs: vec!["res.txt".into()],
                    deps: vec![],
                    outcome: None,
                },
            ],
            added: vec!["major/runtime/X.class".into()],
        }
    }

    #[test]
    fn every_kind_a_report_counts_has_a_code() {
        use major_pointcut_lang::matcher::ShadowKind as K;
        // (Exhaustive: a new kind does not compile here until it is listed.)
        let listed = |k: K| match k {
            K::MethodCall
            | K::ConstructorCall
            | K::MethodExecution
            | K::ConstructorExecution
            | K::FieldGet
            | K::FieldSet
            | K::StaticInitialization
            | K::Initialization
            | K::PreInitialization
            | K::ExceptionHandler
            | K::AdviceExecution => true,
        };
        assert_eq!(super::super::KINDS.len(), 11);
        for (i, &k) in super::super::KINDS.iter().enumerate() {
            assert!(listed(k));
            let name = crate::weave::kind_name(k);
            assert_eq!(super::super::code_of_kind(name), Some(i as u64));
            assert_eq!(super::super::kind_of_code(i as u64), Some(name));
        }
        assert_eq!(super::super::kind_of_code(11), None);
        // A kind without a code makes the state read as damaged.
        let mut s = sample();
        s.entries[0].outcome.as_mut().unwrap().advised[0].0 = "no-such-kind";
        assert!(State::parse(&s.to_bytes()).is_err());
    }

    #[test]
    fn round_trip() {
        let s = sample();
        let bytes = s.to_bytes();
        assert_eq!(State::parse(&bytes).unwrap(), s);
        assert_eq!(State::parse(&bytes).unwrap().to_bytes(), bytes);
    }

    #[test]
    fn damage_is_detected() {
        let bytes = sample().to_bytes();
        // Truncated anywhere, or one byte changed anywhere: refused.
        for cut in (0..bytes.len()).step_by(7) {
            assert!(State::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in (0..bytes.len()).step_by(5) {
            let mut b = bytes.clone();
            b[at] ^= 0x01;
            assert!(State::parse(&b).is_err(), "flip at {at}");
        }
        assert!(State::parse(b"something else\n").is_err());
    }
}
