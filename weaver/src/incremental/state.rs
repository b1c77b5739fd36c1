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

use super::binary::{self, Reader, Writer};
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

/// The whole state.
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
fn bit(l: Level) -> u8 {
    1 << code(l)
}

impl State {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let index: rustc_hash::FxHashMap<&str, u64> = self
            .table
            .keys()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u64))
            .collect();
        // Sorted by name as the table is: each index is stored as the
        // difference from the one before (mostly one byte; zig-zag, so that
        // any order can be stored).
        let refs = |w: &mut Writer, deps: &[(Dep, Level)]| {
            w.num(deps.len() as u64);
            let mut last: i64 = 0;
            for (n, l) in deps {
                let i = index[&**n] as i64;
                let d = i - last;
                w.num((((d << 1) ^ (d >> 63)) as u64) * 4 + code(*l));
                last = i;
            }
        };
        // Room for the whole file at once (about 150 bytes per class and per
        // entry on guava): growing it would copy it into fresh pages, each a
        // page fault; room left untouched costs none.
        let mut w = Writer::new(HEADER, 256 * (self.table.len() + self.entries.len()) + 4096);
        w.text(&self.key);
        w.num(self.table.len() as u64);
        for (name, p) in &self.table {
            w.text(name);
            w.print(&p.bytes);
            w.num(p.levels.len() as u64);
            for (l, fp) in &p.levels {
                w.num(code(*l));
                w.print(fp);
            }
        }
        refs(&mut w, &self.global);
        w.num(self.entries.len() as u64);
        for e in &self.entries {
            w.text(&e.name);
            w.num(e.input as u64);
            w.print(&e.hash);
            w.num(e.outputs.len() as u64);
            for o in &e.outputs {
                // Most entries' one output is the entry itself.
                w.text(if *o == e.name { "" } else { o });
            }
            refs(&mut w, &e.deps);
            let Some(o) = &e.outcome else {
                w.byte(0);
                continue;
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
        w.num(self.added.len() as u64);
        for a in &self.added {
            w.text(a);
        }
        w.finish()
    }

    /// Reads a state file; the error says why it is damaged.
    pub fn parse(bytes: &[u8]) -> Result<State, String> {
        let mut r = Reader::new(binary::body(bytes, HEADER)?);
        let mut state = State {
            key: r.text()?,
            ..State::default()
        };
        let count = r.count(r.left())?;
        // The table's names, shared by the refs, and the levels each holds.
        let mut names: Vec<(Dep, u8)> = Vec::with_capacity(count);
        // Sorted: the map is built from them in one go.
        let mut table = Vec::with_capacity(count);
        for _ in 0..count {
            let name = r.str()?;
            if names.last().is_some_and(|(last, _)| **last >= *name) {
                return Err("the class table is not sorted".into());
            }
            let bytes = r.print()?;
            let mut levels = BTreeMap::new();
            let mut bits = 0;
            for _ in 0..r.count(3)? {
                let level = level_of(r.num()?).ok_or("a level of unknown code")?;
                bits |= bit(level);
                levels.insert(level, r.print()?);
            }
            names.push((Dep::from(name), bits));
            table.push((name.to_string(), ClassPrint { bytes, levels }));
        }
        state.table = table.into_iter().collect();
        let refs = |r: &mut Reader| -> Result<Vec<(Dep, Level)>, String> {
            let n = r.count(r.left())?;
            let mut v = Vec::with_capacity(n);
            let mut last: i64 = 0;
            for _ in 0..n {
                let x = r.num()?;
                let level = level_of(x % 4).ok_or("a ref of unknown level")?;
                let z = x / 4;
                let d = (z >> 1) as i64 ^ -((z & 1) as i64);
                last = last.checked_add(d).ok_or("a ref out of the table")?;
                let (name, bits) = usize::try_from(last)
                    .ok()
                    .and_then(|i| names.get(i))
                    .ok_or("a ref out of the table")?;
                if bits & bit(level) == 0 {
                    return Err("a ref to a level the table lacks".into());
                }
                v.push((name.clone(), level));
            }
            Ok(v)
        };
        state.global = refs(&mut r)?;
        let num = |r: &mut Reader| -> Result<usize, String> {
            usize::try_from(r.num()?).map_err(|_| "a number out of range".to_string())
        };
        // A join-point kind, one of those a report counts.
        let kind = |r: &mut Reader| -> Result<&'static str, String> {
            let k = r.num()?;
            super::kind_of_code(k).ok_or_else(|| format!("an unknown join-point kind {k}"))
        };
        let entries = r.count(r.left())?;
        state.entries.reserve(entries);
        for _ in 0..entries {
            let name = r.text()?;
            let input = num(&mut r)?;
            let hash = r.print()?;
            let outputs = (0..r.count(r.left())?)
                .map(|_| match r.str()? {
                    "" => Ok(name.clone()),
                    o => Ok(o.to_string()),
                })
                .collect::<Result<_, String>>()?;
            let deps = refs(&mut r)?;
            let outcome = match r.byte()? {
                0 => None,
                1 => {
                    let mut o = StoredOutcome {
                        woven: match r.byte()? {
                            0 => false,
                            1 => true,
                            _ => return Err(format!("{name}: a flag neither 0 nor 1")),
                        },
                        empty_finalizers: num(&mut r)?,
                        intrinsics: num(&mut r)?,
                        ..StoredOutcome::default()
                    };
                    let n = r.count(r.left())?;
                    o.advised.reserve_exact(n);
                    for _ in 0..n {
                        o.advised.push((kind(&mut r)?, num(&mut r)?));
                    }
                    let n = r.count(r.left())?;
                    o.hits.reserve_exact(n);
                    for _ in 0..n {
                        o.hits.push((num(&mut r)?, num(&mut r)?));
                    }
                    let n = r.count(r.left())?;
                    o.kinds.reserve_exact(n);
                    for _ in 0..n {
                        o.kinds.push((num(&mut r)?, kind(&mut r)?, num(&mut r)?));
                    }
                    for _ in 0..r.count(r.left())? {
                        let is_error = match r.byte()? {
                            0 => false,
                            1 => true,
                            _ => return Err(format!("{name}: a flag neither 0 nor 1")),
                        };
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
                    for _ in 0..r.count(r.left())? {
                        o.skipped.push(r.text()?);
                    }
                    for _ in 0..r.count(r.left())? {
                        o.notes.push(r.text()?);
                    }
                    Some(Box::new(o))
                }
                _ => return Err(format!("{name}: an outcome flag neither 0 nor 1")),
            };
            state.entries.push(EntryRecord {
                name,
                input,
                hash,
                outputs,
                deps,
                outcome,
            });
        }
        for _ in 0..r.count(r.left())? {
            state.added.push(r.text()?);
        }
        if !r.done() {
            return Err("bytes after the added files".into());
        }
        Ok(state)
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
