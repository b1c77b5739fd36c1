//! The incremental state kept in a woven directory ([`STATE_FILE`]): what the
//! last weave read and wrote, per input entry, and what the classes it looked
//! up were.
//!
//! A line-based text file, written in one order so that the same weave gives
//! the same bytes:
//!
//! ```text
//! major incremental state 1
//! key <hex>                               options, aspects, major itself
//! table <n>                               every class looked up, sorted:
//! <name> <bytes-fp> [P|H|D<fp> ...]       what it resolved to, per level asked
//! global <i><L> ...                       looked up by the weave as a whole
//! entry <name> <sha-256> <input>         per input entry, in input order:
//! out <file>                              the files it produced
//! dep <i><L> ...                          the classes its weave looked up
//! outcome <woven 0|1> <empty finalize()> <intrinsics>
//! advised <kind> <n> / hit <advice> <n> / kind <advice> <kind> <n>
//! declare <0|1> <message> <location> <method> <line|->
//! skipped <text> / note <text>            what the report says of it
//! added <file>                            the classes major added
//! end <sha-256 of everything above>
//! ```
//!
//! Names and texts are escaped (`%` with two hex digits for `%`, blanks and
//! control characters). Any line out of place, an unknown version or a
//! digest that does not match makes the file damaged: the weave is then full.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::deps::Level;
use crate::weave::DeclareHit;

/// The name of a class looked up, shared by every record that names it.
pub type Dep = std::sync::Arc<str>;

/// Where the state lives, relative to the output directory.
pub const STATE_FILE: &str = ".major/incremental";

/// The first line: the format and its version.
const HEADER: &str = "major incremental state 3";

/// What the report says of one woven class.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoredOutcome {
    /// The class was changed by the weave.
    pub woven: bool,
    /// Advised shadows per join-point kind.
    pub advised: Vec<(String, usize)>,
    /// Shadows per advice id (only advice with some).
    pub hits: Vec<(usize, usize)>,
    /// Shadows per advice id and join-point kind.
    pub kinds: Vec<(usize, String, usize)>,
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
    /// SHA-256 of its bytes, hex.
    pub hash: String,
    /// The files of the output it produced.
    pub outputs: Vec<String>,
    /// The classes its weave looked up (sorted by name).
    pub deps: Vec<(Dep, Level)>,
    /// For a class that was woven: what the report says of it.
    pub outcome: Option<StoredOutcome>,
}

/// What a looked-up class was: a digest of the bytes its name resolved to,
/// and one per level some weave asked about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassPrint {
    /// Digest of the bytes (or `absent`).
    pub bytes: String,
    /// Digest of what each level asked for shows.
    pub levels: BTreeMap<Level, String>,
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

fn letter(l: Level) -> char {
    match l {
        Level::Presence => 'P',
        Level::Header => 'H',
        Level::Details => 'D',
    }
}

fn from_letter(c: char) -> Option<Level> {
    match c {
        'P' => Some(Level::Presence),
        'H' => Some(Level::Header),
        'D' => Some(Level::Details),
        _ => None,
    }
}

/// `s` with `%`, blanks and control characters as `%XX`.
pub(crate) fn esc(s: &str) -> String {
    let plain = |c: char| c != '%' && !c.is_whitespace() && !c.is_control();
    if !s.is_empty() && s.chars().all(plain) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '%' || c.is_whitespace() || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    if out.is_empty() {
        out.push('%');
    }
    out
}

/// The inverse of [`esc`].
pub(crate) fn unesc(s: &str) -> Option<String> {
    if s == "%" {
        return Some(String::new());
    }
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl State {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let index: std::collections::HashMap<&str, usize> = self
            .table
            .keys()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let refs = |t: &mut String, tag: &str, deps: &[(Dep, Level)]| {
            t.push_str(tag);
            for (n, l) in deps {
                let _ = write!(t, " {}{}", index[&**n], letter(*l));
            }
            t.push('\n');
        };
        let mut t = String::new();
        let _ = writeln!(t, "{HEADER}");
        let _ = writeln!(t, "key {}", self.key);
        let _ = writeln!(t, "table {}", self.table.len());
        for (name, p) in &self.table {
            let _ = write!(t, "{} {}", esc(name), p.bytes);
            for (l, fp) in &p.levels {
                let _ = write!(t, " {}{fp}", letter(*l));
            }
            t.push('\n');
        }
        refs(&mut t, "global", &self.global);
        for e in &self.entries {
            let _ = writeln!(t, "entry {} {} {}", esc(&e.name), e.hash, e.input);
            for o in &e.outputs {
                let _ = writeln!(t, "out {}", esc(o));
            }
            if !e.deps.is_empty() {
                refs(&mut t, "dep", &e.deps);
            }
            if let Some(o) = &e.outcome {
                let _ = writeln!(
                    t,
                    "outcome {} {} {}",
                    u8::from(o.woven),
                    o.empty_finalizers,
                    o.intrinsics
                );
                for (k, n) in &o.advised {
                    let _ = writeln!(t, "advised {} {n}", esc(k));
                }
                for (a, n) in &o.hits {
                    let _ = writeln!(t, "hit {a} {n}");
                }
                for (a, k, n) in &o.kinds {
                    let _ = writeln!(t, "kind {a} {} {n}", esc(k));
                }
                for d in &o.declares {
                    let _ = writeln!(
                        t,
                        "declare {} {} {} {} {}",
                        u8::from(d.is_error),
                        esc(&d.message),
                        esc(&d.location),
                        esc(&d.method),
                        d.line.map_or("-".to_string(), |l| l.to_string())
                    );
                }
                for s in &o.skipped {
                    let _ = writeln!(t, "skipped {}", esc(s));
                }
                for s in &o.notes {
                    let _ = writeln!(t, "note {}", esc(s));
                }
            }
        }
        for a in &self.added {
            let _ = writeln!(t, "added {}", esc(a));
        }
        let digest = hex(&Sha256::digest(t.as_bytes()));
        let _ = writeln!(t, "end {digest}");
        t.into_bytes()
    }

    /// Reads a state file; the error says why it is damaged.
    pub fn parse(bytes: &[u8]) -> Result<State, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
        if !text.ends_with('\n') {
            return Err("truncated".into());
        }
        let body_end = text
            .trim_end_matches('\n')
            .rfind('\n')
            .map(|i| i + 1)
            .ok_or("truncated")?;
        let (body, last) = text.split_at(body_end);
        let digest = last
            .strip_prefix("end ")
            .map(|d| d.trim_end_matches('\n'))
            .ok_or("truncated (no end line)")?;
        if hex(&Sha256::digest(body.as_bytes())) != digest {
            return Err("its digest does not match its contents".into());
        }
        let mut lines = body.lines().enumerate().peekable();
        let bad = |n: usize, what: &str| format!("line {}: {what}", n + 1);
        match lines.next() {
            Some((_, HEADER)) => {}
            _ => return Err("not a state of this version of major".into()),
        }
        let mut state = State::default();
        let (n, l) = lines.next().ok_or("truncated")?;
        state.key = l
            .strip_prefix("key ")
            .ok_or_else(|| bad(n, "expected the key"))?
            .to_string();
        let (n, l) = lines.next().ok_or("truncated")?;
        let count: usize = l
            .strip_prefix("table ")
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| bad(n, "expected the table size"))?;
        let mut names = Vec::with_capacity(count);
        for _ in 0..count {
            let (n, l) = lines.next().ok_or("truncated")?;
            let mut parts = l.split(' ');
            let name = parts
                .next()
                .and_then(unesc)
                .ok_or_else(|| bad(n, "a class name"))?;
            let bytes = parts.next().ok_or_else(|| bad(n, "a digest"))?.to_string();
            let mut levels = BTreeMap::new();
            for p in parts {
                let mut c = p.chars();
                let level = c
                    .next()
                    .and_then(from_letter)
                    .ok_or_else(|| bad(n, "a level"))?;
                levels.insert(level, c.as_str().to_string());
            }
            names.push(Dep::from(name.as_str()));
            state.table.insert(name, ClassPrint { bytes, levels });
        }
        if state.table.len() != count || names.windows(2).any(|w| w[0] >= w[1]) {
            return Err("the class table is not sorted".into());
        }
        let refs = |n: usize, list: &str| -> Result<Vec<(Dep, Level)>, String> {
            list.split(' ')
                .filter(|s| !s.is_empty())
                .map(|r| {
                    let (i, l) = r.split_at(r.len().saturating_sub(1));
                    let i: usize = i.parse().map_err(|_| bad(n, "a class reference"))?;
                    let name = names.get(i).ok_or_else(|| bad(n, "a class reference"))?;
                    let level = l
                        .chars()
                        .next()
                        .and_then(from_letter)
                        .ok_or_else(|| bad(n, "a level"))?;
                    if !state.table[&**name].levels.contains_key(&level) {
                        return Err(bad(n, "a level the table lacks"));
                    }
                    Ok((name.clone(), level))
                })
                .collect()
        };
        let (n, l) = lines.next().ok_or("truncated")?;
        state.global = refs(
            n,
            l.strip_prefix("global")
                .ok_or_else(|| bad(n, "expected the global dependencies"))?,
        )?;
        for (n, l) in lines {
            let (tag, rest) = l.split_once(' ').unwrap_or((l, ""));
            let field = |i: usize| rest.split(' ').nth(i);
            let num = |i: usize| -> Result<usize, String> {
                field(i)
                    .and_then(|f| f.parse().ok())
                    .ok_or_else(|| bad(n, "a number"))
            };
            let text = |i: usize| -> Result<String, String> {
                field(i).and_then(unesc).ok_or_else(|| bad(n, "a text"))
            };
            if tag == "entry" {
                state.entries.push(EntryRecord {
                    name: text(0)?,
                    hash: field(1).ok_or_else(|| bad(n, "a digest"))?.to_string(),
                    input: num(2)?,
                    outputs: Vec::new(),
                    deps: Vec::new(),
                    outcome: None,
                });
                continue;
            }
            if tag == "added" {
                state.added.push(text(0)?);
                continue;
            }
            if !state.added.is_empty() {
                return Err(bad(n, "an entry line after the added files"));
            }
            let e = state
                .entries
                .last_mut()
                .ok_or_else(|| bad(n, "a line before any entry"))?;
            if tag == "outcome" {
                e.outcome = Some(StoredOutcome {
                    woven: num(0)? == 1,
                    empty_finalizers: num(1)?,
                    intrinsics: num(2)?,
                    ..StoredOutcome::default()
                });
                continue;
            }
            match tag {
                "out" => e.outputs.push(text(0)?),
                "dep" => e.deps = refs(n, rest)?,
                _ => {
                    let o = e
                        .outcome
                        .as_mut()
                        .ok_or_else(|| bad(n, "a report line without an outcome"))?;
                    match tag {
                        "advised" => o.advised.push((text(0)?, num(1)?)),
                        "hit" => o.hits.push((num(0)?, num(1)?)),
                        "kind" => o.kinds.push((num(0)?, text(1)?, num(2)?)),
                        "declare" => o.declares.push(DeclareHit {
                            is_error: num(0)? == 1,
                            message: text(1)?,
                            location: text(2)?,
                            method: text(3)?,
                            line: match field(4) {
                                Some("-") => None,
                                _ => Some(num(4)? as u32),
                            },
                        }),
                        "skipped" => o.skipped.push(text(0)?),
                        "note" => o.notes.push(text(0)?),
                        _ => return Err(bad(n, "an unknown line")),
                    }
                }
            }
        }
        Ok(state)
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        let mut table = BTreeMap::new();
        table.insert(
            "java/lang/Object".to_string(),
            ClassPrint {
                bytes: "ab".into(),
                levels: [(Level::Header, "01".to_string())].into(),
            },
        );
        table.insert(
            "p/A b".to_string(),
            ClassPrint {
                bytes: "absent".into(),
                levels: [
                    (Level::Presence, "02".to_string()),
                    (Level::Details, "03".to_string()),
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
                    outcome: Some(StoredOutcome {
                        woven: true,
                        advised: vec![("method-call".into(), 3)],
                        hits: vec![(0, 3)],
                        kinds: vec![(0, "method-call".into(), 3)],
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
                    }),
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
