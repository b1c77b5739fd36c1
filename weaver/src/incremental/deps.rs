//! Which classes a weave looked up, and how much of each it looked at.
//!
//! Every question the weaver asks about a class other than the one it weaves
//! goes through [`ClassIndex`](crate::index::ClassIndex) (directly, through the
//! matcher's [`IndexWorld`](crate::weave::world::IndexWorld), or through the
//! frame computation's `ClassHierarchy`). Those entry points call [`note`];
//! while a [`capture`] (or a [`Recording`]) is active on the thread, the name
//! and the [`Level`] asked are recorded. The caches in front of the index
//! ("common super class of A and B", the supertypes of a class) keep the
//! names their answer was computed from ([`capture`] around the computation)
//! and [`note_all`] them on every hit, so what a class records does not depend
//! on which class asked first.

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

/// How much of a class an answer depended on. Each level includes the ones
/// before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Whether the class exists.
    Presence,
    /// Its super class and whether it is an interface (frames, supertype walks).
    Header,
    /// Everything [`ClassDetails`](crate::index::ClassDetails) holds: modifiers,
    /// interfaces, annotations, the members' names, descriptors, modifiers,
    /// annotations, exceptions and signatures. Never method bodies.
    Details,
}

impl Level {
    /// The name used in the state file.
    pub fn name(self) -> &'static str {
        match self {
            Level::Presence => "presence",
            Level::Header => "header",
            Level::Details => "details",
        }
    }

    /// The level named `s` in the state file.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "presence" => Some(Level::Presence),
            "header" => Some(Level::Header),
            "details" => Some(Level::Details),
            _ => None,
        }
    }
}

/// The classes looked up: internal name → the highest level asked.
pub type Deps = HashMap<Box<str>, Level>;

/// Names recorded by a cached computation, replayed on each cache hit.
pub type Replay = Arc<[(Box<str>, Level)]>;

thread_local! {
    /// The lookups recorded on this thread, while a capture is active.
    static CURRENT: RefCell<Option<Deps>> = const { RefCell::new(None) };
}

/// Records that the answer being computed depends on class `name` at `level`
/// (nothing when no capture is active on this thread).
pub fn note(name: &str, level: Level) {
    CURRENT.with(|c| {
        if let Some(deps) = c.borrow_mut().as_mut() {
            add(deps, name, level);
        }
    });
}

/// [`note`] for each of `names` (a cached answer's [`Replay`]).
pub fn note_all(names: &[(Box<str>, Level)]) {
    CURRENT.with(|c| {
        if let Some(deps) = c.borrow_mut().as_mut() {
            for (n, l) in names {
                add(deps, n, *l);
            }
        }
    });
}

fn add(deps: &mut Deps, name: &str, level: Level) {
    match deps.get_mut(name) {
        Some(l) => *l = (*l).max(level),
        None => {
            deps.insert(name.into(), level);
        }
    }
}

/// Runs `f` recording its lookups; returns its result and what it looked up.
/// An enclosing capture on the same thread sees the lookups too.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Deps) {
    let recording = Recording::start(true);
    let r = f();
    let mine = recording.finish();
    CURRENT.with(|c| {
        if let Some(outer) = c.borrow_mut().as_mut() {
            for (n, l) in &mine {
                add(outer, n, *l);
            }
        }
    });
    (r, mine)
}

/// [`capture`] as a cache stores it: the names in a fixed order.
pub fn capture_replay<T>(f: impl FnOnce() -> T) -> (T, Replay) {
    let (r, deps) = capture(f);
    let mut v: Vec<(Box<str>, Level)> = deps.into_iter().collect();
    v.sort_unstable();
    (r, v.into())
}

/// A capture that spans code which may return early (`?`): lookups on this
/// thread are recorded from [`Recording::start`] until
/// [`Recording::finish`]; dropped unfinished, it just stops recording.
#[must_use = "finish the recording to get what was looked up"]
pub struct Recording {
    outer: Option<Option<Deps>>,
}

impl Recording {
    /// Starts recording on this thread (`on` false: a recording that records
    /// nothing, for runs that keep no incremental state).
    pub fn start(on: bool) -> Recording {
        if !on {
            return Recording { outer: None };
        }
        let outer = CURRENT.with(|c| c.borrow_mut().replace(Deps::default()));
        Recording { outer: Some(outer) }
    }

    /// Stops recording and returns what was looked up.
    pub fn finish(mut self) -> Deps {
        match self.outer.take() {
            Some(outer) => CURRENT.with(|c| {
                let mut c = c.borrow_mut();
                std::mem::replace(&mut *c, outer).unwrap_or_default()
            }),
            None => Deps::default(),
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            CURRENT.with(|c| *c.borrow_mut() = outer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_nest_and_keep_the_highest_level() {
        note("ignored", Level::Details);
        let ((), outer) = capture(|| {
            note("a", Level::Presence);
            let ((), inner) = capture(|| {
                note("a", Level::Details);
                note("b", Level::Header);
            });
            assert_eq!(inner.len(), 2);
            note("b", Level::Presence);
        });
        assert_eq!(outer.get("a"), Some(&Level::Details));
        assert_eq!(outer.get("b"), Some(&Level::Header));
        assert!(!outer.contains_key("ignored"));
        let r = Recording::start(true);
        note_all(&[("c".into(), Level::Header)]);
        let got = r.finish();
        assert_eq!(got.get("c"), Some(&Level::Header));
        // Nothing recorded once finished.
        note("d", Level::Header);
        let r = Recording::start(true);
        drop(r);
        let ((), after) = capture(|| ());
        assert!(after.is_empty());
    }
}
