//! A state file read without being built: its bytes checked whole (digest,
//! structure, every ref and code, as [`State`] reads them) and indexed —
//! where each row of the class table and each entry record lies — and each
//! part decoded only when asked.
//!
//! An update of a few classes starts from a state of thousands of entries
//! (2,040 on guava, and a table of about 5,000 classes) and needs nearly all
//! of them only as bytes to copy into the next state ([`super::next_state`]):
//! building them (names, refs, outcomes, a map of prints) cost more than
//! the weave of the changed class, and its memory a fault per fresh page.

use std::ops::Range;

use super::binary::{self, Reader};
use super::deps::Level;
use super::print::Print;
use super::state::{self, ClassPrint, Dep, StoredOutcome};
#[cfg(test)]
use super::state::{EntryRecord, State};

/// A row of the class table.
struct Row {
    /// The whole row, in the body.
    at: Range<u32>,
    /// The class's name.
    name: Range<u32>,
    /// The levels it holds ([`state::bit`]).
    bits: u8,
}

/// An entry record.
struct Record {
    /// The whole record, in the body.
    at: Range<u32>,
    /// The entry's name.
    name: Range<u32>,
    /// Its input.
    input: u32,
    /// Its hash.
    hash: Print,
    /// Where its outputs begin (their count).
    outputs: u32,
    /// Its refs (their count first).
    deps: Range<u32>,
    /// Whether it has an outcome, and whether that says woven.
    woven: Option<bool>,
}

/// A state file, checked and indexed.
pub struct StateView {
    /// The file.
    bytes: Vec<u8>,
    /// Where the body begins in it.
    start: usize,
    key: Range<u32>,
    rows: Vec<Row>,
    global: Range<u32>,
    records: Vec<Record>,
    added: Range<u32>,
    /// The highest advice number an outcome names.
    max_advice: Option<usize>,
}

/// `r` as a range of `usize`.
fn span(r: &Range<u32>) -> Range<usize> {
    r.start as usize..r.end as usize
}

/// An offset into a body, which is less than 4 GiB (checked when read).
fn off(at: usize) -> u32 {
    at as u32
}

impl StateView {
    /// Checks and indexes the state file `bytes`; the error says why it is
    /// damaged.
    pub fn read(bytes: Vec<u8>) -> Result<StateView, String> {
        let body = binary::body(&bytes, state::header())?;
        if u32::try_from(body.len()).is_err() {
            return Err("larger than 4 GiB".into());
        }
        let start = state::header().len() + 1;
        let mut r = Reader::new(body);
        let key = {
            let k0 = r.at();
            r.str()?;
            off(k0)..off(r.at())
        };
        let count = r.count(r.left())?;
        let mut rows: Vec<Row> = Vec::with_capacity(count);
        let mut last: Option<&str> = None;
        for _ in 0..count {
            let at = r.at();
            let mut bits = 0;
            let (name, _) = state::read_row(&mut r, |l, _| bits |= state::bit(l))?;
            if last.is_some_and(|last| last >= name) {
                return Err("the class table is not sorted".into());
            }
            last = Some(name);
            // (The name's text ends where the bytes print begins.)
            let name_end = name.as_ptr() as usize - body.as_ptr() as usize + name.len();
            rows.push(Row {
                at: off(at)..off(r.at()),
                name: off(name_end - name.len())..off(name_end),
                bits,
            });
        }
        let bits = |i: usize| rows.get(i).map(|r| r.bits);
        let g0 = r.at();
        state::read_refs(&mut r, bits, |_, _| ())?;
        let global = off(g0)..off(r.at());
        let n = r.count(r.left())?;
        let mut records = Vec::with_capacity(n);
        // One outcome at a time, its lists' room reused.
        let mut scratch = StoredOutcome::default();
        let mut max_advice: Option<usize> = None;
        for _ in 0..n {
            let at = r.at();
            let name = r.str()?;
            let name_end = name.as_ptr() as usize - body.as_ptr() as usize + name.len();
            let input = u32::try_from(r.num()?).map_err(|_| "a number out of range")?;
            let hash = r.print()?;
            let outputs = r.at();
            for _ in 0..r.count(r.left())? {
                r.str()?;
            }
            let d0 = r.at();
            state::read_refs(&mut r, bits, |_, _| ())?;
            let deps = off(d0)..off(r.at());
            let woven = if state::read_outcome_into(&mut r, name, &mut scratch)? {
                let most = scratch
                    .hits
                    .iter()
                    .map(|(a, _)| *a)
                    .chain(scratch.kinds.iter().map(|(a, _, _)| *a))
                    .max();
                max_advice = max_advice.max(most);
                Some(scratch.woven)
            } else {
                None
            };
            records.push(Record {
                at: off(at)..off(r.at()),
                name: off(name_end - name.len())..off(name_end),
                input,
                hash,
                outputs: off(outputs),
                deps,
                woven,
            });
        }
        let a0 = r.at();
        for _ in 0..r.count(r.left())? {
            r.str()?;
        }
        let added = off(a0)..off(r.at());
        if !r.done() {
            return Err("bytes after the added files".into());
        }
        Ok(StateView {
            bytes,
            start,
            key,
            rows,
            global,
            records,
            added,
            max_advice,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The body (between the first line and the digest).
    fn body(&self) -> &[u8] {
        &self.bytes[self.start..self.bytes.len() - binary::DIGEST_LEN]
    }

    /// A text of the body, checked UTF-8 when read.
    fn text(&self, r: &Range<u32>) -> &str {
        std::str::from_utf8(&self.body()[span(r)]).unwrap_or_default()
    }

    /// A reader of the body from `at`.
    fn reader_at(&self, at: u32) -> Reader<'_> {
        Reader::new(&self.body()[at as usize..])
    }

    /// The global key.
    pub fn key(&self) -> &str {
        let mut r = self.reader_at(self.key.start);
        r.str().unwrap_or_default()
    }

    /// The highest advice number an outcome names.
    pub fn max_advice(&self) -> Option<usize> {
        self.max_advice
    }

    /// The rows of the class table.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// The name of class `row`.
    pub fn row_name(&self, row: u32) -> &str {
        self.text(&self.rows[row as usize].name)
    }

    /// The levels class `row` holds, as bits ([`state::bit`]).
    pub fn row_bits(&self, row: u32) -> u8 {
        self.rows[row as usize].bits
    }

    /// The bytes of row `row`, as a next state copies them.
    pub fn row_bytes(&self, row: u32) -> &[u8] {
        &self.body()[span(&self.rows[row as usize].at)]
    }

    /// The prints of class `row`.
    pub fn row_print(&self, row: u32) -> ClassPrint {
        let mut r = self.reader_at(self.rows[row as usize].at.start);
        let mut levels = std::collections::BTreeMap::new();
        let bytes = state::read_row(&mut r, |l, p| {
            levels.insert(l, p);
        })
        .map(|(_, b)| b)
        .unwrap_or_default();
        ClassPrint { bytes, levels }
    }

    /// The row of the class `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.rows
            .binary_search_by(|r| self.text(&r.name).cmp(name))
            .ok()
            .map(|i| i as u32)
    }

    /// Refs at `at` (their count first), as (row, level); checked when
    /// the file was read.
    fn refs_at(&self, at: u32, each: impl FnMut(u32, Level)) {
        let bits = |i: usize| self.rows.get(i).map(|r| r.bits);
        let _ = state::read_refs(&mut self.reader_at(at), bits, each);
    }

    /// The classes the weave as a whole looked up.
    pub fn global(&self) -> Vec<(Dep, Level)> {
        let mut v = Vec::new();
        self.refs_at(self.global.start, |row, l| {
            v.push((Dep::from(self.row_name(row)), l))
        });
        v
    }

    /// The files of the classes major added.
    pub fn added(&self) -> Vec<&str> {
        let mut r = self.reader_at(self.added.start);
        let n = r.count(r.left()).unwrap_or(0);
        (0..n).filter_map(|_| r.str().ok()).collect()
    }

    /// The entry records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The name of entry `k`.
    pub fn name(&self, k: u32) -> &str {
        self.text(&self.records[k as usize].name)
    }

    /// The input of entry `k`.
    pub fn input(&self, k: u32) -> usize {
        self.records[k as usize].input as usize
    }

    /// The hash of entry `k`.
    pub fn hash(&self, k: u32) -> Print {
        self.records[k as usize].hash
    }

    /// Whether entry `k` has an outcome that says woven (`None`: no
    /// outcome, it is not a class).
    pub fn woven(&self, k: u32) -> Option<bool> {
        self.records[k as usize].woven
    }

    /// The output files of entry `k`.
    pub fn outputs(&self, k: u32) -> Vec<&str> {
        let rec = &self.records[k as usize];
        let name = self.text(&rec.name);
        let mut r = self.reader_at(rec.outputs);
        let n = r.count(r.left()).unwrap_or(0);
        (0..n)
            .filter_map(|_| r.str().ok())
            .map(|o| if o.is_empty() { name } else { o })
            .collect()
    }

    /// Output file `n` of entry `k` (no list built).
    pub fn output(&self, k: u32, n: usize) -> Option<&str> {
        let rec = &self.records[k as usize];
        let mut r = self.reader_at(rec.outputs);
        let count = r.count(r.left()).ok()?;
        let mut o = None;
        for _ in 0..=n.min(count.checked_sub(1)?) {
            o = r.str().ok();
        }
        (n < count).then(|| match o {
            Some("") => self.text(&rec.name),
            o => o.unwrap_or_default(),
        })
    }

    /// Each (row, level) entry `k`'s weave looked up, in order.
    pub fn deps(&self, k: u32, each: impl FnMut(u32, Level)) {
        self.refs_at(self.records[k as usize].deps.start, each)
    }

    /// The outcome of entry `k`, into `o`; false when it has none.
    pub fn outcome_into(&self, k: u32, o: &mut StoredOutcome) -> bool {
        let rec = &self.records[k as usize];
        let mut r = self.reader_at(rec.deps.end);
        state::read_outcome_into(&mut r, "", o).unwrap_or(false)
    }

    /// The bytes of entry `k`'s record: all of it, and the parts before and
    /// after its refs (a next state whose table moved its rows writes them
    /// again between the two).
    pub fn record_bytes(&self, k: u32) -> (&[u8], &[u8], &[u8]) {
        let rec = &self.records[k as usize];
        let body = self.body();
        (
            &body[span(&rec.at)],
            &body[rec.at.start as usize..rec.deps.start as usize],
            &body[rec.deps.end as usize..rec.at.end as usize],
        )
    }

    /// The whole state, built (for the tests).
    #[cfg(test)]
    pub fn to_state(&self) -> State {
        let table = (0..self.rows() as u32)
            .map(|r| (self.row_name(r).to_string(), self.row_print(r)))
            .collect();
        let entries = (0..self.len() as u32)
            .map(|k| {
                let mut deps = Vec::new();
                self.deps(k, |row, l| deps.push((Dep::from(self.row_name(row)), l)));
                let mut o = StoredOutcome::default();
                let outcome = self.outcome_into(k, &mut o).then(|| Box::new(o));
                EntryRecord {
                    name: self.name(k).to_string(),
                    input: self.input(k),
                    hash: self.hash(k),
                    outputs: self.outputs(k).into_iter().map(str::to_string).collect(),
                    deps,
                    outcome,
                }
            })
            .collect();
        State {
            key: self.key().to_string(),
            table,
            global: self.global(),
            entries,
            added: self.added().into_iter().map(str::to_string).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_answers_what_the_whole_state_holds() {
        let mut table = std::collections::BTreeMap::new();
        for (n, l) in [("a/A", Level::Details), ("b/B", Level::Presence)] {
            table.insert(
                n.to_string(),
                ClassPrint {
                    bytes: "ab".into(),
                    levels: [(l, "01".into())].into(),
                },
            );
        }
        let outcome = StoredOutcome {
            woven: true,
            hits: vec![(3, 1)],
            kinds: vec![(5, "method-call", 1)],
            ..StoredOutcome::default()
        };
        let state = State {
            key: "key".into(),
            table,
            global: vec![("b/B".into(), Level::Presence)],
            entries: vec![
                EntryRecord {
                    name: "a/A.class".into(),
                    input: 1,
                    hash: "00".into(),
                    outputs: vec!["a/A.class".into(), "a/A$MajorStatics.class".into()],
                    deps: vec![
                        ("a/A".into(), Level::Details),
                        ("b/B".into(), Level::Presence),
                    ],
                    outcome: Some(Box::new(outcome.clone())),
                },
                EntryRecord {
                    name: "r.txt".into(),
                    input: 0,
                    hash: "11".into(),
                    outputs: vec!["r.txt".into()],
                    deps: vec![],
                    outcome: None,
                },
            ],
            added: vec!["x/Y.class".into()],
        };
        let v = StateView::read(state.to_bytes()).unwrap();
        assert_eq!(v.key(), "key");
        assert_eq!((v.rows(), v.len()), (2, 2));
        assert_eq!(v.find("b/B"), Some(1));
        assert_eq!(v.find("a/B"), None);
        assert_eq!(v.row_bits(0), state::bit(Level::Details));
        assert_eq!(v.outputs(0), ["a/A.class", "a/A$MajorStatics.class"]);
        assert_eq!(v.outputs(1), ["r.txt"]);
        assert_eq!(v.output(0, 0), Some("a/A.class"));
        assert_eq!(v.output(0, 1), Some("a/A$MajorStatics.class"));
        assert_eq!(
            (v.output(0, 2), v.output(1, 0), v.output(1, 1)),
            (None, Some("r.txt"), None)
        );
        assert_eq!((v.woven(0), v.woven(1)), (Some(true), None));
        assert_eq!(v.max_advice(), Some(5));
        assert_eq!((v.input(0), v.name(1)), (1, "r.txt"));
        let mut o = StoredOutcome::default();
        assert!(v.outcome_into(0, &mut o));
        assert_eq!(o, outcome);
        assert!(!v.outcome_into(1, &mut o));
        assert_eq!(v.added(), ["x/Y.class"]);
        assert_eq!(v.to_state(), state);
        // Each record's bytes: its refs between the parts around them.
        let (whole, before, after) = v.record_bytes(0);
        assert!(whole.starts_with(before) && whole.ends_with(after));
        assert!(before.len() + after.len() < whole.len());
    }

    /// A state file whose digest matches but whose fields do not hold
    /// together (as no weave writes one): each is refused, never read as a
    /// state, and never a panic.
    #[test]
    fn a_sound_digest_over_unsound_fields_is_refused() {
        use super::super::binary::Writer;
        // One row per (name, level code), then the entries' refs.
        let file = |rows: &[(&str, u64)], refs: &[u64], kind: u64, tail: bool| {
            let mut w = Writer::new(state::header(), 256);
            w.text("key");
            w.num(rows.len() as u64);
            for (name, level) in rows {
                w.text(name);
                w.print(&"ab".into());
                w.num(1);
                w.num(*level);
                w.print(&"01".into());
            }
            w.num(0); // global
            w.num(1); // one entry
            w.text("a/A.class");
            w.num(0);
            w.print(&"00".into());
            w.num(1);
            w.text("");
            w.num(refs.len() as u64);
            for r in refs {
                w.num(*r);
            }
            w.byte(1); // an outcome
            w.byte(1);
            w.num(0);
            w.num(0);
            w.num(1);
            w.num(kind);
            w.num(2);
            for _ in 0..5 {
                w.num(0); // hits, kinds, declares, skipped, notes
            }
            w.num(0); // added
            if tail {
                w.byte(7);
            }
            w.finish()
        };
        let kind = super::super::code_of_kind("method-execution").unwrap();
        // Sound: a/A at details (ref 0: index 0, level 2), b/B at presence
        // (ref: +1, level 0).
        let rows = [("a/A", 2), ("b/B", 0)];
        let sound = file(&rows, &[2, 8], kind, false);
        assert!(StateView::read(sound).is_ok());
        let refused = |bytes: Vec<u8>, why: &str| {
            let e = StateView::read(bytes).err().unwrap_or_default();
            assert!(e.contains(why), "{why}: {e}");
        };
        refused(
            file(&[("b/B", 0), ("a/A", 2)], &[], kind, false),
            "not sorted",
        );
        refused(file(&rows, &[2, 8 + 8], kind, false), "out of the table");
        refused(file(&rows, &[1], kind, false), "a level the table lacks");
        refused(file(&rows, &[3], kind, false), "unknown level");
        refused(file(&rows, &[2], 99, false), "unknown join-point kind");
        refused(file(&rows, &[2], kind, true), "bytes after");
        refused(file(&[("a/A", 7)], &[], kind, false), "unknown code");
    }
}
