//! The one question frame computation asks about classes: "what is the common
//! super class of A and B". Implementations answer it from an index of the inputs
//! and the JDK, never by loading classes.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};

/// What the hierarchy knows about one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// Internal name of the super class (`None` for `java/lang/Object`).
    pub super_name: Option<Arc<str>>,
    /// Whether the class is an interface.
    pub is_interface: bool,
}

/// A source of class relations.
pub trait ClassHierarchy: Sync {
    /// Super class and kind of the class with internal name `name`.
    fn class_info(&self, name: &str) -> Option<ClassInfo>;

    /// The most specific common super class of two classes (internal names, not
    /// arrays). Interfaces count as `java/lang/Object`, as in the verifier.
    /// Implementations may override this to cache.
    fn common_super_class(&self, a: &str, b: &str) -> Result<Arc<str>> {
        common_super_class_uncached(self, a, b)
    }
}

/// The name of the root class.
pub const OBJECT: &str = "java/lang/Object";

fn unknown(name: &str) -> Error {
    Error::new(
        ErrorKind::UnknownClass,
        None,
        format!("class {name} is not in the class hierarchy (add it to the class path)"),
    )
}

/// Walks super-class chains to find the common super class of `a` and `b`.
///
/// A class missing from the hierarchy is an error only where the answer
/// depends on what lies above it: when `b`'s chain meets the known part of
/// `a`'s chain (`a`, its super class, ... up to the first missing class), the
/// meeting point is the answer whatever the missing classes are (an
/// application class whose super class is an optional library class not on
/// the class path still merges with that library class).
pub fn common_super_class_uncached<H: ClassHierarchy + ?Sized>(
    h: &H,
    a: &str,
    b: &str,
) -> Result<Arc<str>> {
    if a == b {
        return Ok(Arc::from(a));
    }
    if a == OBJECT || b == OBJECT {
        return Ok(Arc::from(OBJECT));
    }
    let ia = h.class_info(a);
    let ib = h.class_info(b);
    if ia.as_ref().is_some_and(|i| i.is_interface) || ib.as_ref().is_some_and(|i| i.is_interface) {
        return Ok(Arc::from(OBJECT));
    }
    // The known part of a's chain, and the first class missing from it.
    let mut chain: Vec<Arc<str>> = vec![Arc::from(a)];
    let mut missing: Option<Arc<str>> = None;
    let mut info = ia;
    loop {
        if chain.len() > 10_000 {
            return Err(Error::malformed(
                None,
                format!("cyclic super classes above {a}"),
            ));
        }
        let Some(i) = info else {
            missing = chain.last().cloned();
            break;
        };
        let Some(s) = i.super_name else { break };
        info = if &*s == OBJECT {
            None
        } else {
            h.class_info(&s)
        };
        let done = &*s == OBJECT;
        chain.push(s);
        if done {
            break;
        }
    }
    // b's chain up to the first class in a's chain.
    let mut cur: Arc<str> = Arc::from(b);
    let mut info = ib;
    let mut steps = 0;
    loop {
        if chain.contains(&cur) {
            return Ok(cur);
        }
        steps += 1;
        if steps > 10_000 {
            return Err(Error::malformed(
                None,
                format!("cyclic super classes above {b}"),
            ));
        }
        let Some(i) = info else {
            return Err(unknown(&cur));
        };
        let Some(s) = i.super_name else { break };
        info = if &*s == OBJECT {
            None
        } else {
            h.class_info(&s)
        };
        if &*s == OBJECT {
            break;
        }
        cur = s;
    }
    // b's whole chain is known and meets a's only at Object: that is the
    // answer when a's chain is known too.
    match missing {
        Some(m) => Err(unknown(&m)),
        None => Ok(Arc::from(OBJECT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Map(HashMap<&'static str, (Option<&'static str>, bool)>);
    impl ClassHierarchy for Map {
        fn class_info(&self, name: &str) -> Option<ClassInfo> {
            self.0.get(name).map(|(s, i)| ClassInfo {
                super_name: s.map(Arc::from),
                is_interface: *i,
            })
        }
    }

    #[test]
    fn common_super() {
        let h = Map(HashMap::from([
            ("java/lang/Object", (None, false)),
            ("A", (Some("java/lang/Object"), false)),
            ("B", (Some("A"), false)),
            ("C", (Some("A"), false)),
            ("D", (Some("C"), false)),
            ("I", (Some("java/lang/Object"), true)),
        ]));
        assert_eq!(&*h.common_super_class("B", "D").unwrap(), "A");
        assert_eq!(&*h.common_super_class("D", "C").unwrap(), "C");
        assert_eq!(&*h.common_super_class("B", "I").unwrap(), OBJECT);
        assert_eq!(
            h.common_super_class("B", "Nope").unwrap_err().kind(),
            ErrorKind::UnknownClass
        );
    }

    #[test]
    fn missing_classes_matter_only_above_the_answer() {
        // E and F extend the missing class M; G extends A.
        let h = Map(HashMap::from([
            ("java/lang/Object", (None, false)),
            ("A", (Some("java/lang/Object"), false)),
            ("E", (Some("M"), false)),
            ("F", (Some("M"), false)),
            ("G", (Some("A"), false)),
            ("I", (Some("java/lang/Object"), true)),
        ]));
        for (a, b, want) in [
            ("E", "F", "M"),
            ("E", "M", "M"),
            ("M", "E", "M"),
            ("E", "I", OBJECT),
            ("M", "I", OBJECT),
        ] {
            assert_eq!(&*h.common_super_class(a, b).unwrap(), want, "{a} {b}");
        }
        // Whether M (or whatever is above it) extends A is not known.
        for (a, b) in [
            ("E", "G"),
            ("G", "E"),
            ("M", "A"),
            ("A", "M"),
            ("Nope", "M"),
        ] {
            let e = h.common_super_class(a, b).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::UnknownClass, "{a} {b}");
        }
    }
}
