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
    let ia = h.class_info(a).ok_or_else(|| unknown(a))?;
    let ib = h.class_info(b).ok_or_else(|| unknown(b))?;
    if ia.is_interface || ib.is_interface {
        return Ok(Arc::from(OBJECT));
    }
    // Chain of a, then walk b's chain until it meets it.
    let mut chain: Vec<Arc<str>> = vec![Arc::from(a)];
    let mut cur = ia.super_name;
    while let Some(s) = cur {
        if chain.len() > 10_000 {
            return Err(Error::malformed(
                None,
                format!("cyclic super classes above {a}"),
            ));
        }
        cur = if &*s == OBJECT {
            None
        } else {
            h.class_info(&s).ok_or_else(|| unknown(&s))?.super_name
        };
        chain.push(s);
    }
    let mut cur: Option<Arc<str>> = Some(Arc::from(b));
    let mut steps = 0;
    while let Some(s) = cur {
        if chain.contains(&s) {
            return Ok(s);
        }
        steps += 1;
        if steps > 10_000 {
            return Err(Error::malformed(
                None,
                format!("cyclic super classes above {b}"),
            ));
        }
        cur = if &*s == OBJECT {
            None
        } else {
            h.class_info(&s).ok_or_else(|| unknown(&s))?.super_name
        };
    }
    Ok(Arc::from(OBJECT))
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
}
