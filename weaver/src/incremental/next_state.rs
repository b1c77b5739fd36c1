//! The state a weave writes for the next one: its records, the class table
//! they refer to, encoded ([`state`]'s format).
//!
//! A record kept from the previous state is copied as its bytes: whole when
//! the table's rows stay where they were (a one-class update that looks up
//! the same classes), else with its refs written again for the rows' new
//! places. A row whose class and levels are unchanged is copied too; the
//! others are written from their prints. The bytes are what encoding the
//! whole state afresh gives (the tests hold them to [`state::State`]'s
//! encoding): the same inputs, the same state, whatever the previous one.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap as HashMap;

use super::binary::Writer;
use super::deps::Level;
use super::state::{self, ClassPrint, Dep, EntryRecord};
use super::view::StateView;
use crate::index::ClassIndex;

/// An entry record of the next state.
pub enum Record {
    /// Record `k` of the previous state, unchanged.
    Old(u32),
    /// A record of this weave (boxed: most records of an update are `Old`,
    /// and a list of them is allocated for every input entry).
    New(Box<EntryRecord>),
}

/// The levels, in order.
const LEVELS: [Level; 3] = [Level::Presence, Level::Header, Level::Details];

/// The levels of `bits`.
fn levels(bits: u8) -> BTreeSet<Level> {
    LEVELS
        .into_iter()
        .filter(|&l| bits & state::bit(l) != 0)
        .collect()
}

/// Where a row of the next table comes from.
enum Row<'a> {
    /// Row `r` of the previous table, as it is.
    Copy(u32),
    /// These prints.
    Print(&'a str, ClassPrint),
    /// Prints to compute.
    Wanted(&'a str),
}

/// The next state, all but its list of the classes major added
/// ([`with_added`] ends it): of key `key`, whose weave as a whole looked
/// up `global`, with `records` (in input order). `old`: the previous state
/// the `Old` records are of; `fresh`: the prints computed again of classes
/// of its table (the others' are as it holds them). Prints of classes no
/// longer in the table, or now asked at a level it does not hold, are
/// computed from `index`.
pub fn next_state(
    index: &ClassIndex,
    key: &str,
    global: &[(Dep, Level)],
    records: &[Record],
    old: Option<&StateView>,
    mut fresh: BTreeMap<String, ClassPrint>,
) -> Writer {
    let rows = old.map_or(0, StateView::rows);
    // The levels asked of each class: of the previous table's classes by
    // row; of the names new records and the weave as a whole give, by the
    // name's address first (most records share their names' allocations).
    let mut asked_old = vec![0u8; rows];
    let mut by_address: HashMap<*const u8, (&str, u8)> = HashMap::default();
    for r in records {
        match r {
            Record::Old(k) => {
                if let Some(v) = old {
                    v.deps(*k, |row, l| asked_old[row as usize] |= state::bit(l));
                }
            }
            Record::New(e) => {
                for (n, l) in &e.deps {
                    by_address.entry(n.as_ptr()).or_insert((n, 0)).1 |= state::bit(*l);
                }
            }
        }
    }
    for (n, l) in global {
        by_address.entry(n.as_ptr()).or_insert((n, 0)).1 |= state::bit(*l);
    }
    let mut asked_new: BTreeMap<&str, u8> = BTreeMap::new();
    // Each address's name and its row in the previous table, if there.
    let addresses: Vec<(*const u8, &str, Option<u32>)> = by_address
        .into_iter()
        .map(|(p, (n, b))| {
            let row = old.and_then(|v| v.find(n));
            match row {
                Some(r) => asked_old[r as usize] |= b,
                None => *asked_new.entry(n).or_default() |= b,
            }
            (p, n, row)
        })
        .collect();

    // The next table: the previous table's rows still asked and the new
    // names, merged in name order.
    let mut table: Vec<Row> = Vec::with_capacity(rows + asked_new.len());
    let mut old_to_new = vec![u32::MAX; rows];
    let mut wanted: BTreeMap<String, BTreeSet<Level>> = BTreeMap::new();
    let mut rest: BTreeMap<String, ClassPrint> = BTreeMap::new();
    let mut new_names = asked_new.iter().peekable();
    let mut identity = asked_new.is_empty();
    for r in 0..rows as u32 {
        let a = asked_old[r as usize];
        if a == 0 {
            identity = false;
            continue;
        }
        let v = old.expect("rows only with a previous state");
        let name = v.row_name(r);
        while let Some((n, b)) = new_names.next_if(|e| *e.0 < name) {
            wanted.insert(n.to_string(), levels(*b));
            table.push(Row::Wanted(n));
        }
        old_to_new[r as usize] = table.len() as u32;
        let asked = levels(a);
        let p = match fresh.remove(name) {
            Some(p) => p,
            None if a == v.row_bits(r) => {
                table.push(Row::Copy(r));
                continue;
            }
            None => v.row_print(r),
        };
        if asked.iter().all(|l| p.levels.contains_key(l)) {
            let mut p = p;
            p.levels.retain(|l, _| asked.contains(l));
            table.push(Row::Print(name, p));
        } else {
            // (What a class asked at a new level needs: its old prints.)
            rest.insert(name.to_string(), p);
            wanted.insert(name.to_string(), asked);
            table.push(Row::Wanted(name));
        }
    }
    for (n, b) in new_names {
        wanted.insert(n.to_string(), levels(*b));
        table.push(Row::Wanted(n));
    }
    let mut computed = super::prints(index, &wanted, &rest, true);
    // The new names' places.
    let new_index: HashMap<&str, u32> = table
        .iter()
        .enumerate()
        .filter_map(|(i, row)| match row {
            Row::Wanted(n) => Some((*n, i as u32)),
            _ => None,
        })
        .collect();
    let at_address: HashMap<*const u8, u32> = addresses
        .iter()
        .map(|&(p, n, row)| {
            let i = match row {
                Some(r) => old_to_new[r as usize],
                None => new_index[n],
            };
            (p, i)
        })
        .collect();
    let refs = |w: &mut Writer, deps: &[(Dep, Level)]| {
        state::write_refs(
            w,
            deps.len(),
            deps.iter().map(|(n, l)| (at_address[&n.as_ptr()], *l)),
        );
    };

    let mut w = Writer::new(
        state::header(),
        old.map_or(0, |v| v.bytes().len()) + 256 * (table.len() + records.len()) + 4096,
    );
    w.text(key);
    w.num(table.len() as u64);
    for row in &table {
        match row {
            Row::Copy(r) => w.raw(old.expect("copied from it").row_bytes(*r)),
            Row::Print(name, p) => state::write_row(&mut w, name, p),
            Row::Wanted(name) => {
                let p = computed.remove(*name).unwrap_or_default();
                state::write_row(&mut w, name, &p);
            }
        }
    }
    refs(&mut w, global);
    w.num(records.len() as u64);
    let mut moved: Vec<(u32, Level)> = Vec::new();
    for r in records {
        match r {
            Record::Old(k) => {
                let v = old.expect("an old record of it");
                let (whole, before, after) = v.record_bytes(*k);
                if identity {
                    w.raw(whole);
                } else {
                    moved.clear();
                    v.deps(*k, |row, l| moved.push((old_to_new[row as usize], l)));
                    w.raw(before);
                    state::write_refs(&mut w, moved.len(), moved.iter().copied());
                    w.raw(after);
                }
            }
            Record::New(e) => state::write_entry(&mut w, e, refs),
        }
    }
    w
}

/// The state [`next_state`] began, with the classes major `added`: its bytes.
pub fn with_added<'a>(mut w: Writer, added: impl ExactSizeIterator<Item = &'a str>) -> Vec<u8> {
    w.num(added.len() as u64);
    for a in added {
        w.text(a);
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incremental::state::{State, StoredOutcome};

    fn print(levels: &[(Level, &str)], bytes: &str) -> ClassPrint {
        ClassPrint {
            bytes: bytes.into(),
            levels: levels.iter().map(|&(l, p)| (l, p.into())).collect(),
        }
    }

    fn record(name: &str, deps: &[(&str, Level)], woven: Option<bool>) -> EntryRecord {
        EntryRecord {
            name: format!("{name}.class"),
            input: 0,
            hash: "ab".repeat(16).as_str().into(),
            outputs: vec![format!("{name}.class")],
            deps: deps.iter().map(|&(n, l)| (Dep::from(n), l)).collect(),
            outcome: woven.map(|woven| {
                Box::new(StoredOutcome {
                    woven,
                    advised: vec![("method-execution", 2)],
                    hits: vec![(0, 2)],
                    ..StoredOutcome::default()
                })
            }),
        }
    }

    /// A previous state of three classes looking up four.
    fn previous() -> State {
        let (p, h, d) = (Level::Presence, Level::Header, Level::Details);
        State {
            key: "k".into(),
            table: [
                ("a/A", print(&[(h, "01"), (d, "02")], "aa")),
                ("a/B", print(&[(h, "03")], "bb")),
                ("a/C", print(&[(p, "1")], "absent")),
                ("java/lang/Object", print(&[(h, "04")], "oo")),
            ]
            .into_iter()
            .map(|(n, p)| (n.to_string(), p))
            .collect(),
            global: vec![("java/lang/Object".into(), h)],
            entries: vec![
                record(
                    "a/A",
                    &[("a/A", d), ("a/B", h), ("java/lang/Object", h)],
                    Some(true),
                ),
                record("a/B", &[("a/B", h), ("a/C", p)], Some(false)),
                record("a/D", &[("a/A", h), ("java/lang/Object", h)], Some(true)),
            ],
            added: vec!["major/runtime/X.class".into()],
        }
    }

    /// The next state's bytes from `old`'s records `kept` and `new`, as
    /// `next_state` writes them and as encoding the whole state does.
    fn both(old: &State, kept: &[u32], new: Vec<EntryRecord>) -> (Vec<u8>, Vec<u8>) {
        let view = StateView::read(old.to_bytes()).unwrap();
        let index = ClassIndex::new();
        let mut records: Vec<Record> = kept.iter().map(|&k| Record::Old(k)).collect();
        records.extend(new.iter().cloned().map(|e| Record::New(Box::new(e))));
        let written = with_added(
            next_state(
                &index,
                &old.key,
                &old.global,
                &records,
                Some(&view),
                BTreeMap::new(),
            ),
            old.added.iter().map(String::as_str),
        );
        // The whole state: the kept records and the new ones, the table the
        // classes they look up, at the levels they ask (the prints of a
        // class or level the old table lacks computed).
        let mut entries: Vec<EntryRecord> = kept
            .iter()
            .map(|&k| old.entries[k as usize].clone())
            .collect();
        entries.extend(new);
        let mut asked: BTreeMap<String, BTreeSet<Level>> = BTreeMap::new();
        for (n, l) in old
            .global
            .iter()
            .chain(entries.iter().flat_map(|e| &e.deps))
        {
            asked.entry(n.to_string()).or_default().insert(*l);
        }
        let mut table = BTreeMap::new();
        let mut wanted = BTreeMap::new();
        let mut rest = BTreeMap::new();
        for (n, levels) in asked {
            match old.table.get(&n) {
                Some(p) if levels.iter().all(|l| p.levels.contains_key(l)) => {
                    let mut p = p.clone();
                    p.levels.retain(|l, _| levels.contains(l));
                    table.insert(n, p);
                }
                known => {
                    if let Some(p) = known {
                        rest.insert(n.clone(), p.clone());
                    }
                    wanted.insert(n, levels);
                }
            }
        }
        table.extend(super::super::prints(&index, &wanted, &rest, true));
        let whole = State {
            key: old.key.clone(),
            table,
            global: old.global.clone(),
            entries,
            added: old.added.clone(),
        };
        (written, whole.to_bytes())
    }

    #[test]
    fn every_record_kept_gives_the_same_bytes() {
        let old = previous();
        let (written, whole) = both(&old, &[0, 1, 2], Vec::new());
        assert_eq!(written, whole);
        assert_eq!(written, old.to_bytes());
    }

    #[test]
    fn a_record_woven_again_with_the_same_lookups_keeps_the_table() {
        let old = previous();
        let mut b = old.entries[1].clone();
        b.hash = "cd".repeat(16).as_str().into();
        let (written, whole) = both(&old, &[0, 2], vec![b]);
        assert_eq!(written, whole);
    }

    #[test]
    fn rows_dropped_added_and_asked_at_new_levels_move_the_kept_records_refs() {
        let (p, h, d) = (Level::Presence, Level::Header, Level::Details);
        let old = previous();
        // a/B now looks up a/E (new), asks a/B at details (a level the
        // table lacks) and no longer a/C (whose row goes).
        let b = record("a/B", &[("a/B", d), ("a/E", p)], Some(true));
        let (written, whole) = both(&old, &[0, 2], vec![b.clone()]);
        assert_eq!(written, whole);
        assert_ne!(written, old.to_bytes());
        // Only the first record kept: a/A's header row dropped too.
        let (written, whole) = both(&old, &[0], vec![b]);
        assert_eq!(written, whole);
        // No record kept: a full weave's state.
        let c = record("a/C", &[("a/C", h), ("java/lang/Object", h)], None);
        let (written, whole) = both(&old, &[], vec![c]);
        assert_eq!(written, whole);
        let view = StateView::read(written).unwrap();
        assert_eq!(view.to_state().entries.len(), 1);
    }
}
