//! The order in which a JDK's start-up loads its classes, shipped with the
//! agent for first runs: the order to weave ahead in when no run on this JDK
//! has kept one (`load_order_file` in the crate root).
//!
//! A first run weaves every class the JVM loads, most of them in the JVM's
//! start-up, a burst of some 420 classes in an order fixed by the JDK's
//! version (the same whatever the program): `java.lang.Object`, `String`,
//! the classes `System.initPhase1..3` need, the module system, the class
//! path's loader. The thread that weaves ahead is of use only when it weaves
//! the classes the JVM asks for next; in the JDK's `lib/classlist` (sorted by
//! name) it was not: the loading thread wove 45 ms of its classes itself,
//! against 10–15 ms in this order (a hello world with ExecutionCounter on
//! JDK 17, bench/README.md, Session 22). The orders come from
//! `boot-orders/generate.sh` (a hello world with class-data sharing off, as
//! under the agent's early hook); a JDK whose version has none takes the
//! nearest version's: most of a start-up's classes stay from one version to
//! the next, and a class the image does not have is skipped.

/// The shipped orders, by the JDK's feature version.
const ORDERS: &[(u32, &str)] = &[
    (17, include_str!("../boot-orders/jdk17.txt")),
    (25, include_str!("../boot-orders/jdk25.txt")),
];

/// The start-up order of JDK `feature` (the nearest shipped version's,
/// the older of two as near), as class names; `#` lines are comments.
pub fn boot_order(feature: u32) -> impl Iterator<Item = &'static str> {
    let (_, text) = ORDERS
        .iter()
        .min_by_key(|(v, _)| (v.abs_diff(feature), *v))
        .expect("an order is shipped");
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The order to weave ahead in on a first run: JDK `feature`'s start-up
/// order ([`boot_order`]), then the classes of `class_list` (the JDK's
/// `lib/classlist` names, one per line) it does not hold.
pub fn first_run_order(feature: u32, class_list: Option<&str>) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    // (The shipped names, `'static`, as the class list's shorter lifetime.)
    let boot = boot_order(feature).map(|n| -> &str { n });
    for name in boot.chain(class_list.into_iter().flat_map(str::lines)) {
        if seen.insert(name) {
            out.push_str(name);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_order_starts_with_object_and_holds_only_class_names() {
        for (v, _) in ORDERS {
            let names: Vec<&str> = boot_order(*v).collect();
            assert_eq!(names[0], "java/lang/Object", "JDK {v}");
            assert!(names.len() > 300, "JDK {v}: {}", names.len());
            assert!(
                names
                    .iter()
                    .all(|n| !n.contains(['.', ' ']) && n.contains('/')),
                "JDK {v}"
            );
            assert!(names.contains(&"java/lang/System"), "JDK {v}");
        }
    }

    #[test]
    fn a_version_without_an_order_takes_the_nearest() {
        let first = |v| boot_order(v).collect::<Vec<_>>();
        assert_eq!(first(11), first(17));
        assert_eq!(first(21), first(17), "the older of two as near");
        assert_eq!(first(22), first(25));
        assert_eq!(first(26), first(25));
        assert_ne!(first(17), first(25));
    }

    #[test]
    fn the_class_list_follows_without_repeats() {
        let order = first_run_order(17, Some("java/lang/Object\nzz/Extra\nzz/Extra\n"));
        let names: Vec<&str> = order.lines().collect();
        assert_eq!(names[0], "java/lang/Object");
        assert_eq!(names.last(), Some(&"zz/Extra"));
        assert_eq!(
            names.iter().filter(|n| **n == "java/lang/Object").count(),
            1
        );
        assert_eq!(names.len(), boot_order(17).count() + 1);
        assert_eq!(
            first_run_order(17, None).lines().count(),
            boot_order(17).count()
        );
    }
}
