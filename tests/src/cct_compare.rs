//! Compares two calling-context trees in the `calls.folded` exchange format
//! (`frame;frame;...;frame COUNT`, one line per node: what the JVMTI oracle
//! `tests/jvmti/cct_oracle.c` and major's CCT profiler both write).
//!
//! A difference is a node only in one tree, or a node in both with other
//! counts. A node only in one tree whose caller is also only there is part
//! of its caller's difference: only the topmost node of a missing subtree is
//! a difference, with the size of what hangs under it. A caller-supplied
//! classifier assigns differences to named categories of known, explained
//! differences ("bootstrap phase", "the runtime's own methods"); the rest
//! are unexplained, and [`Comparison::report`] lists them first.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

pub use major_weaver::profile::Cct;

/// A calling-context tree as `calls.folded` gives it: path -> count.
pub type Folded = BTreeMap<String, u64>;

/// Parses `calls.folded` text; `origin` names it in errors (with the line).
pub fn parse_folded(text: &str, origin: &str) -> Result<Folded, String> {
    let mut tree = Folded::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.is_empty() {
            continue;
        }
        let (path, count) = line
            .rsplit_once(' ')
            .ok_or_else(|| format!("{origin}:{n}: expected `path COUNT`, found {line:?}"))?;
        let count: u64 = count
            .parse()
            .map_err(|_| format!("{origin}:{n}: count {count:?} is not a number"))?;
        if path.is_empty() || path.split(';').any(str::is_empty) {
            return Err(format!("{origin}:{n}: empty frame in {path:?}"));
        }
        if tree.insert(path.to_string(), count).is_some() {
            return Err(format!("{origin}:{n}: path listed twice: {path}"));
        }
    }
    Ok(tree)
}

/// Reads a `calls.folded` file.
pub fn read_folded(path: &Path) -> Result<Folded, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_folded(&text, &path.display().to_string())
}

/// The caller's context of a path (`None` for a root).
pub fn parent(path: &str) -> Option<&str> {
    path.rsplit_once(';').map(|(p, _)| p)
}

/// The innermost frame of a path.
pub fn leaf(path: &str) -> &str {
    path.rsplit(';').next().unwrap_or(path)
}

/// Which tree a node is only in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Only in the first (left) tree.
    Left,
    /// Only in the second (right) tree.
    Right,
}

/// One difference between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// A subtree only in one tree: its topmost node (whose caller, if any,
    /// is in both trees), its count, and how many nodes and calls hang
    /// under it.
    Only {
        /// The tree it is in.
        side: Side,
        /// The topmost node's path.
        path: String,
        /// Its count.
        count: u64,
        /// Nodes under it (not counting itself).
        descendants: usize,
        /// Calls of the whole subtree, itself included.
        subtree_calls: u64,
    },
    /// A node in both trees with different counts.
    Count {
        /// The node's path.
        path: String,
        /// Its count in the left tree.
        left: u64,
        /// Its count in the right tree.
        right: u64,
    },
}

impl Difference {
    /// The node's path.
    pub fn path(&self) -> &str {
        match self {
            Difference::Only { path, .. } | Difference::Count { path, .. } => path,
        }
    }

    /// One line for people, with the trees' names.
    pub fn describe(&self, left: &str, right: &str) -> String {
        match self {
            Difference::Only {
                side,
                path,
                count,
                descendants,
                subtree_calls,
            } => {
                let name = if *side == Side::Left { left } else { right };
                format!(
                    "only in {name}: {path} {count} (+{descendants} nodes under it, {subtree_calls} calls in all)"
                )
            }
            Difference::Count {
                path,
                left: l,
                right: r,
            } => format!("count {left} {l} != {right} {r}: {path}"),
        }
    }
}

/// The result of [`compare`].
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// The left tree's name (for reports).
    pub left_name: String,
    /// The right tree's name.
    pub right_name: String,
    /// Nodes in both trees with equal counts.
    pub equal: usize,
    /// Differences no category explains, in path order.
    pub unexplained: Vec<Difference>,
    /// Explained differences by category, each in path order.
    pub explained: BTreeMap<String, Vec<Difference>>,
}

impl Comparison {
    /// Whether every difference is explained.
    pub fn is_exact(&self) -> bool {
        self.unexplained.is_empty()
    }

    /// The size of each category: differences, nodes involved (a missing
    /// subtree counts all its nodes) and calls involved (a count mismatch
    /// counts the absolute difference).
    pub fn category_sizes(&self) -> BTreeMap<String, (usize, usize, u64)> {
        self.explained
            .iter()
            .map(|(name, diffs)| (name.clone(), size(diffs)))
            .collect()
    }

    /// A report: the unexplained differences first (at most `limit` of
    /// them listed), then each category with its size and first examples.
    pub fn report(&self, limit: usize) -> String {
        let (l, r) = (&self.left_name, &self.right_name);
        let mut s = String::new();
        let (n, nodes, calls) = size(&self.unexplained);
        let _ = writeln!(
            s,
            "{l} vs {r}: {} nodes equal; UNEXPLAINED: {n} differences ({nodes} nodes, {calls} calls)",
            self.equal
        );
        for d in self.unexplained.iter().take(limit) {
            let _ = writeln!(s, "  {}", d.describe(l, r));
        }
        if self.unexplained.len() > limit {
            let _ = writeln!(s, "  ... and {} more", self.unexplained.len() - limit);
        }
        for (name, diffs) in &self.explained {
            let (n, nodes, calls) = size(diffs);
            let _ = writeln!(
                s,
                "explained, {name}: {n} differences ({nodes} nodes, {calls} calls)"
            );
            for d in diffs.iter().take(limit.min(3)) {
                let _ = writeln!(s, "  {}", d.describe(l, r));
            }
        }
        s
    }
}

fn size(diffs: &[Difference]) -> (usize, usize, u64) {
    let mut nodes = 0;
    let mut calls = 0u64;
    for d in diffs {
        match d {
            Difference::Only {
                descendants,
                subtree_calls,
                ..
            } => {
                nodes += descendants + 1;
                calls += subtree_calls;
            }
            Difference::Count { left, right, .. } => {
                nodes += 1;
                calls += left.abs_diff(*right);
            }
        }
    }
    (diffs.len(), nodes, calls)
}

/// Compares two trees. `classify` names the category of a known difference,
/// or returns `None` for an unexplained one; it sees only topmost nodes of
/// missing subtrees (what hangs under them goes with them).
pub fn compare(
    left_name: &str,
    left: &Folded,
    right_name: &str,
    right: &Folded,
    classify: &dyn Fn(&Difference) -> Option<String>,
) -> Comparison {
    let mut c = Comparison {
        left_name: left_name.to_string(),
        right_name: right_name.to_string(),
        ..Comparison::default()
    };
    let mut diffs = Vec::new();
    for (path, &l) in left {
        match right.get(path) {
            Some(&r) if r == l => c.equal += 1,
            Some(&r) => diffs.push(Difference::Count {
                path: path.clone(),
                left: l,
                right: r,
            }),
            None => {}
        }
    }
    diffs.extend(only_in(Side::Left, left, right));
    diffs.extend(only_in(Side::Right, right, left));
    diffs.sort_by(|a, b| a.path().cmp(b.path()));
    for d in diffs {
        match classify(&d) {
            Some(category) => c.explained.entry(category).or_default().push(d),
            None => c.unexplained.push(d),
        }
    }
    c
}

/// Compares two `calls.folded` files as [`compare`] does, reading them line
/// by line side by side (merge order), so that only the differences are
/// held: for trees too large to read whole (javac's is gigabytes). Both
/// files must be sorted bytewise, as the oracle and major write them (an
/// out-of-order line is an error naming file and line): then a node's
/// subtree follows it, and a node only in one file whose path extends the
/// open missing subtree's belongs to it.
pub fn compare_files(
    left: &Path,
    right: &Path,
    classify: &dyn Fn(&Difference) -> Option<String>,
) -> Result<Comparison, String> {
    let mut l = SortedLines::open(left)?;
    let mut r = SortedLines::open(right)?;
    let mut c = Comparison {
        left_name: left.display().to_string(),
        right_name: right.display().to_string(),
        ..Comparison::default()
    };
    let mut diffs: Vec<Difference> = Vec::new();
    // Per side, the open missing subtree: its path and its index in diffs.
    let mut open: [Option<(String, usize)>; 2] = [None, None];
    let mut a = l.next()?;
    let mut b = r.next()?;
    loop {
        let (side, path, count) = match (&a, &b) {
            (None, None) => break,
            (Some((p, x)), Some((q, y))) if p == q => {
                if x == y {
                    c.equal += 1;
                } else {
                    diffs.push(Difference::Count {
                        path: p.clone(),
                        left: *x,
                        right: *y,
                    });
                }
                a = l.next()?;
                b = r.next()?;
                continue;
            }
            (Some((p, x)), Some((q, _))) if p.as_bytes() < q.as_bytes() => {
                let v = (Side::Left, p.clone(), *x);
                a = l.next()?;
                v
            }
            (Some((p, x)), None) => {
                let v = (Side::Left, p.clone(), *x);
                a = l.next()?;
                v
            }
            (_, Some((q, y))) => {
                let v = (Side::Right, q.clone(), *y);
                b = r.next()?;
                v
            }
        };
        let slot = &mut open[side as usize];
        let under = slot.as_ref().is_some_and(|(root, _)| {
            path.len() > root.len()
                && path.starts_with(root.as_str())
                && path.as_bytes()[root.len()] == b';'
        });
        if under {
            let i = slot.as_ref().unwrap().1;
            if let Difference::Only {
                descendants,
                subtree_calls,
                ..
            } = &mut diffs[i]
            {
                *descendants += 1;
                *subtree_calls += count;
            }
        } else {
            *slot = Some((path.clone(), diffs.len()));
            diffs.push(Difference::Only {
                side,
                path,
                count,
                descendants: 0,
                subtree_calls: count,
            });
        }
    }
    for d in diffs {
        match classify(&d) {
            Some(category) => c.explained.entry(category).or_default().push(d),
            None => c.unexplained.push(d),
        }
    }
    Ok(c)
}

/// The `path COUNT` lines of a sorted `calls.folded` file, one at a time.
struct SortedLines {
    origin: String,
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    n: usize,
    last: String,
}

impl SortedLines {
    fn open(path: &Path) -> Result<SortedLines, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(SortedLines {
            origin: path.display().to_string(),
            lines: std::io::BufRead::lines(std::io::BufReader::new(f)),
            n: 0,
            last: String::new(),
        })
    }

    fn next(&mut self) -> Result<Option<(String, u64)>, String> {
        loop {
            let Some(line) = self.lines.next() else {
                return Ok(None);
            };
            self.n += 1;
            let line = line.map_err(|e| format!("{}:{}: {e}", self.origin, self.n))?;
            if line.is_empty() {
                continue;
            }
            let (path, count) = line.rsplit_once(' ').ok_or_else(|| {
                format!(
                    "{}:{}: expected `path COUNT`, found {line:?}",
                    self.origin, self.n
                )
            })?;
            let count: u64 = count.parse().map_err(|_| {
                format!(
                    "{}:{}: count {count:?} is not a number",
                    self.origin, self.n
                )
            })?;
            if self.n > 1 && line.as_bytes() <= self.last.as_bytes() {
                return Err(format!(
                    "{}:{}: not sorted bytewise after the line before",
                    self.origin, self.n
                ));
            }
            let path = path.to_string();
            self.last = line;
            return Ok(Some((path, count)));
        }
    }
}

/// Compares two trees given as node tables ([`Cct`]: major's raw profile
/// format 2, which the oracle writes too with `format=cct`), as [`compare`]
/// does for folded trees: nodes are matched from the roots down by frame
/// name, so the paths are made only for the differences (javac's tree has
/// 750,000 nodes, whose folded paths take gigabytes). Invocation counts are
/// compared; other metrics are ignored.
pub fn compare_ccts(
    left_name: &str,
    left: &Cct,
    right_name: &str,
    right: &Cct,
    classify: &dyn Fn(&Difference) -> Option<String>,
) -> Comparison {
    let mut c = Comparison {
        left_name: left_name.to_string(),
        right_name: right_name.to_string(),
        ..Comparison::default()
    };
    let (lk, rk) = (kids_by_frame(left), kids_by_frame(right));
    let (lsize, rsize) = (subtree_sizes(left), subtree_sizes(right));
    let mut diffs = Vec::new();
    // Pairs of matched nodes (usize::MAX: the virtual root above the roots).
    let mut stack = vec![(usize::MAX, usize::MAX)];
    while let Some((l, r)) = stack.pop() {
        let (lc, rc) = (&lk[l.wrapping_add(1)], &rk[r.wrapping_add(1)]);
        for (frame, &a) in lc {
            match rc.get(frame) {
                Some(&b) => {
                    let (x, y) = (left.nodes[a].calls, right.nodes[b].calls);
                    if x == y {
                        c.equal += 1;
                    } else {
                        diffs.push(Difference::Count {
                            path: cct_path(left, a),
                            left: x,
                            right: y,
                        });
                    }
                    stack.push((a, b));
                }
                None => diffs.push(only(Side::Left, left, a, lsize[a])),
            }
        }
        for (frame, &b) in rc {
            if !lc.contains_key(frame) {
                diffs.push(only(Side::Right, right, b, rsize[b]));
            }
        }
    }
    diffs.sort_by(|a, b| a.path().cmp(b.path()));
    for d in diffs {
        match classify(&d) {
            Some(category) => c.explained.entry(category).or_default().push(d),
            None => c.unexplained.push(d),
        }
    }
    c
}

/// The tree without the frames `remove` names: each removed node's
/// children attach to its caller (to the top for a root), and contexts that
/// become equal merge, their counts added. Returns the tree, and the number
/// of nodes and calls removed.
pub fn splice(cct: &Cct, remove: &dyn Fn(&str) -> bool) -> (Cct, usize, u64) {
    let mut out = Cct {
        frames: cct.frames.clone(),
        nodes: Vec::new(),
        has_wall: cct.has_wall,
        has_cpu: cct.has_cpu,
    };
    // Each node's node in `out` (None: the top), for removed nodes their
    // caller's.
    let mut at: Vec<Option<usize>> = Vec::with_capacity(cct.nodes.len());
    let mut child: HashMap<(Option<usize>, usize), usize> = HashMap::new();
    let (mut nodes, mut calls) = (0, 0);
    for (i, n) in cct.nodes.iter().enumerate() {
        let parent = n.parent.and_then(|p| at[p]);
        if remove(cct.frame(i)) {
            nodes += 1;
            calls += n.calls;
            at.push(parent);
            continue;
        }
        let k = *child.entry((parent, n.frame)).or_insert_with(|| {
            out.nodes.push(major_weaver::profile::Node {
                parent,
                frame: n.frame,
                calls: 0,
                wall: 0,
                cpu: 0,
            });
            out.nodes.len() - 1
        });
        let m = &mut out.nodes[k];
        m.calls += n.calls;
        m.wall += n.wall;
        m.cpu += n.cpu;
        at.push(Some(k));
    }
    (out, nodes, calls)
}

/// For the virtual root (index 0) and each node (index + 1): its children
/// by frame name.
fn kids_by_frame(cct: &Cct) -> Vec<HashMap<&str, usize>> {
    let mut kids = vec![HashMap::new(); cct.nodes.len() + 1];
    for (i, n) in cct.nodes.iter().enumerate() {
        let p = n.parent.map_or(0, |p| p + 1);
        kids[p].insert(cct.frame(i), i);
    }
    kids
}

/// Each node's subtree: (nodes under it, calls of the whole subtree).
fn subtree_sizes(cct: &Cct) -> Vec<(usize, u64)> {
    let mut s: Vec<(usize, u64)> = cct.nodes.iter().map(|n| (0, n.calls)).collect();
    for i in (0..cct.nodes.len()).rev() {
        if let Some(p) = cct.nodes[i].parent {
            s[p].0 += s[i].0 + 1;
            s[p].1 += s[i].1;
        }
    }
    s
}

fn only(
    side: Side,
    cct: &Cct,
    node: usize,
    (descendants, subtree_calls): (usize, u64),
) -> Difference {
    Difference::Only {
        side,
        path: cct_path(cct, node),
        count: cct.nodes[node].calls,
        descendants,
        subtree_calls,
    }
}

/// The path of a node, `frame;...;frame` from its root.
pub fn cct_path(cct: &Cct, node: usize) -> String {
    let mut frames = vec![cct.frame(node)];
    let mut at = cct.nodes[node].parent;
    while let Some(p) = at {
        frames.push(cct.frame(p));
        at = cct.nodes[p].parent;
    }
    frames.reverse();
    frames.join(";")
}

/// The topmost nodes of `tree` that `other` lacks, with their subtrees' sizes.
fn only_in(side: Side, tree: &Folded, other: &Folded) -> Vec<Difference> {
    let mut out = Vec::new();
    // Paths are sorted, so a subtree's nodes follow its root ("p" < "p;..."),
    // though other siblings may sort between them ("p(" < "p;"): check the
    // prefix of each node against the open topmost node.
    let mut tops: BTreeMap<&str, usize> = BTreeMap::new();
    for (path, &count) in tree {
        if other.contains_key(path) {
            continue;
        }
        let topmost = match parent(path) {
            Some(p) => other.contains_key(p) || !tree.contains_key(p),
            None => true,
        };
        if topmost {
            tops.insert(path, out.len());
            out.push(Difference::Only {
                side,
                path: path.clone(),
                count,
                descendants: 0,
                subtree_calls: count,
            });
        } else {
            // Find the topmost missing ancestor.
            let mut at = parent(path);
            while let Some(p) = at {
                if let Some(&i) = tops.get(p) {
                    if let Difference::Only {
                        descendants,
                        subtree_calls,
                        ..
                    } = &mut out[i]
                    {
                        *descendants += 1;
                        *subtree_calls += count;
                    }
                    break;
                }
                at = parent(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Folded {
        parse_folded(text, "t").unwrap()
    }

    const ORACLE: &str = "\
Main.main() 1
Main.main();A.a() 2
Main.main();A.a();B.b() 4
Main.main();C.c() 1
Main.main();C.c();D.d() 1
Main.main();C.c();D.d();E.e() 3
java.lang.Thread.run() 2
";

    const WOVEN: &str = "\
Main.main() 1
Main.main();A.a() 2
Main.main();A.a();B.b() 5
Main.main();Rt.enter() 9
Main.main();Rt.enter();Rt.grow() 1
Main.main();X.x() 1
java.lang.Thread.run() 2
";

    #[test]
    fn finds_missing_subtrees_and_count_mismatches() {
        let c = compare("oracle", &tree(ORACLE), "woven", &tree(WOVEN), &|_| None);
        assert!(!c.is_exact());
        assert_eq!(c.equal, 3);
        assert_eq!(
            c.unexplained,
            vec![
                Difference::Count {
                    path: "Main.main();A.a();B.b()".into(),
                    left: 4,
                    right: 5
                },
                Difference::Only {
                    side: Side::Left,
                    path: "Main.main();C.c()".into(),
                    count: 1,
                    descendants: 2,
                    subtree_calls: 5
                },
                Difference::Only {
                    side: Side::Right,
                    path: "Main.main();Rt.enter()".into(),
                    count: 9,
                    descendants: 1,
                    subtree_calls: 10
                },
                Difference::Only {
                    side: Side::Right,
                    path: "Main.main();X.x()".into(),
                    count: 1,
                    descendants: 0,
                    subtree_calls: 1
                },
            ]
        );
    }

    #[test]
    fn node_tables_compare_as_the_folded_trees_do() {
        let cct = |text: &str| Cct::parse_calls_folded(text, Path::new("t")).unwrap();
        let by_table = compare_ccts("oracle", &cct(ORACLE), "woven", &cct(WOVEN), &|_| None);
        let by_paths = compare("oracle", &tree(ORACLE), "woven", &tree(WOVEN), &|_| None);
        assert_eq!(by_table.equal, by_paths.equal);
        assert_eq!(by_table.unexplained, by_paths.unexplained);
        let t = cct(ORACLE);
        assert_eq!(
            cct_path(&t, t.nodes.len() - 1),
            "Main.main();C.c();D.d();E.e()"
        );
    }

    #[test]
    fn splicing_attaches_callees_to_the_caller_and_merges() {
        let t = Cct::parse_calls_folded(
            "M.m() 1\nM.m();L$$Lambda.run() 2\nM.m();L$$Lambda.run();A.a() 2\nM.m();A.a() 3\nM.m();A.a();B.b() 1\n",
            Path::new("t"),
        )
        .unwrap();
        let (s, nodes, calls) = splice(&t, &|f| f.contains("$$Lambda"));
        assert_eq!((nodes, calls), (1, 2));
        let mut lines: Vec<(String, u64)> = (0..s.nodes.len())
            .map(|i| (cct_path(&s, i), s.nodes[i].calls))
            .collect();
        lines.sort();
        assert_eq!(
            lines,
            vec![
                ("M.m()".to_string(), 1),
                ("M.m();A.a()".to_string(), 5),
                ("M.m();A.a();B.b()".to_string(), 1)
            ]
        );
    }

    #[test]
    fn the_classifier_explains_and_counts_categories_and_the_report_lists_the_rest_first() {
        let classify = |d: &Difference| -> Option<String> {
            if leaf(d.path()).starts_with("Rt.") {
                Some("runtime's own methods".into())
            } else if matches!(
                d,
                Difference::Only {
                    side: Side::Left,
                    ..
                }
            ) {
                Some("bootstrap phase".into())
            } else {
                None
            }
        };
        let c = compare("oracle", &tree(ORACLE), "woven", &tree(WOVEN), &classify);
        assert_eq!(c.unexplained.len(), 2);
        let sizes = c.category_sizes();
        assert_eq!(sizes["runtime's own methods"], (1, 2, 10));
        assert_eq!(sizes["bootstrap phase"], (1, 3, 5));
        let report = c.report(10);
        let first = report.lines().next().unwrap();
        assert_eq!(
            first,
            "oracle vs woven: 3 nodes equal; UNEXPLAINED: 2 differences (2 nodes, 2 calls)"
        );
        let unexplained_at = report.find("count oracle 4 != woven 5").unwrap();
        let category_at = report.find("explained, bootstrap phase").unwrap();
        assert!(unexplained_at < category_at, "{report}");
        assert!(report.contains(
            "only in woven: Main.main();Rt.enter() 9 (+1 nodes under it, 10 calls in all)"
        ));
        // Everything explained: exact.
        let all = |_: &Difference| Some("known".to_string());
        assert!(compare("a", &tree(ORACLE), "b", &tree(WOVEN), &all).is_exact());
    }

    #[test]
    fn equal_trees_are_exact_and_subtrees_interleaved_by_sorting_stay_together() {
        let t = tree(ORACLE);
        let c = compare("a", &t, "b", &t, &|_| None);
        assert!(c.is_exact());
        assert_eq!(c.equal, t.len());
        // "p(" sorts between "p" and "p;...": the subtree of p still goes with p.
        let left = tree("R.r() 1\nR.r();P.p() 1\nR.r();P.p();Q.q() 2\nR.r();P.p(int) 1\n");
        let right = tree("R.r() 1\nR.r();P.p(int) 1\n");
        let c = compare("a", &left, "b", &right, &|_| None);
        assert_eq!(
            c.unexplained,
            vec![Difference::Only {
                side: Side::Left,
                path: "R.r();P.p()".into(),
                count: 1,
                descendants: 1,
                subtree_calls: 3
            }]
        );
    }

    #[test]
    fn the_file_comparison_agrees_with_the_one_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (l, r) = (dir.path().join("oracle"), dir.path().join("woven"));
        std::fs::write(&l, ORACLE).unwrap();
        std::fs::write(&r, WOVEN).unwrap();
        let classify = |d: &Difference| -> Option<String> {
            leaf(d.path())
                .starts_with("Rt.")
                .then(|| "runtime".to_string())
        };
        let files = compare_files(&l, &r, &classify).unwrap();
        let memory = compare("oracle", &tree(ORACLE), "woven", &tree(WOVEN), &classify);
        assert_eq!(files.equal, memory.equal);
        assert_eq!(files.unexplained, memory.unexplained);
        assert_eq!(files.explained, memory.explained);
        // Unsorted input is refused, naming the line.
        std::fs::write(&r, "B.b() 1\nA.a() 1\n").unwrap();
        let e = compare_files(&l, &r, &classify).unwrap_err();
        assert!(
            e.ends_with("woven:2: not sorted bytewise after the line before"),
            "{e}"
        );
    }

    #[test]
    fn parse_errors_name_origin_and_line() {
        let e = parse_folded("A.a() 1\nA.a();B.b() x\n", "oracle.folded").unwrap_err();
        assert_eq!(e, "oracle.folded:2: count \"x\" is not a number");
        let e = parse_folded("A.a() 1\nA.a() 2\n", "f").unwrap_err();
        assert_eq!(e, "f:2: path listed twice: A.a()");
        let e = parse_folded("nocount\n", "f").unwrap_err();
        assert!(e.starts_with("f:1: expected `path COUNT`"), "{e}");
        let e = parse_folded("A.a();;B.b() 1\n", "f").unwrap_err();
        assert!(e.starts_with("f:1: empty frame"), "{e}");
    }
}

/// Running programs under the JVMTI oracle (`tests/jvmti/cct_oracle.c`):
/// building it, the CCT test programs (`tests/java/cct/`), and the summary
/// line it prints at exit.
pub mod oracle {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::{parse_folded, Folded};

    /// The CCT test programs of `tests/java/cct/` (their main classes).
    pub const PROGRAMS: &[&str] = &[
        "CctRecursion",
        "CctExceptions",
        "CctReflection",
        "CctLambdas",
        "CctThreads",
        "CctStatics",
        "CctLeaves",
    ];

    fn tests_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// Builds the oracle against `home`'s JNI headers into `dir`
    /// (`libcct_oracle.so`); `Err` says why not (no headers, no C
    /// compiler), a compile error panics.
    pub fn build(home: &Path, dir: &Path) -> Result<PathBuf, String> {
        let include = home.join("include");
        if !include.join("jvmti.h").is_file() {
            return Err(format!("{} has no include/jvmti.h", home.display()));
        }
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let lib = dir.join("libcct_oracle.so");
        let out = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-I{}", include.display()))
            .arg(format!("-I{}", include.join("linux").display()))
            .arg("-o")
            .arg(&lib)
            .arg(tests_dir().join("jvmti/cct_oracle.c"))
            .output()
            .map_err(|e| format!("no C compiler ({cc}: {e})"))?;
        assert!(
            out.status.success(),
            "{cc} tests/jvmti/cct_oracle.c: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(lib)
    }

    /// Compiles the CCT test programs with `jdk`'s javac (`--release 11`,
    /// so JDK 11 and later run them) into `out`.
    pub fn compile_programs(jdk: &Path, out: &Path) {
        let mut sources: Vec<PathBuf> = std::fs::read_dir(tests_dir().join("java/cct"))
            .expect("tests/java/cct")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "java"))
            .collect();
        sources.sort();
        crate::javac(jdk, "11", out, &sources);
    }

    /// What the oracle printed at exit (its `cct_oracle: N threads, ...` line).
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Stats {
        /// Threads that had an event.
        pub threads: u64,
        /// Nodes of the merged tree.
        pub nodes: u64,
        /// Distinct methods seen.
        pub methods: u64,
        /// MethodEntry events recorded.
        pub entries: u64,
        /// MethodExit events matched with an entry.
        pub exits: u64,
        /// Of those, exits by exception.
        pub exits_by_exception: u64,
        /// Exits of frames entered before recording started (dropped).
        pub dropped_exits: u64,
        /// Frames still open at VM death.
        pub open_frames: u64,
        /// With check=1: events at which the recorded depth differed from
        /// the thread's real frame count.
        pub depth_mismatches: Option<u64>,
    }

    impl Stats {
        /// Reads the summary line out of the oracle's stderr.
        pub fn parse(stderr: &str) -> Option<Stats> {
            let line = stderr
                .lines()
                .find(|l| l.starts_with("cct_oracle: ") && l.contains(" threads, "))?;
            let numbers: Vec<u64> = line
                .split(|c: char| !c.is_ascii_digit())
                .filter(|w| !w.is_empty())
                .map(|w| w.parse().unwrap())
                .collect();
            Some(Stats {
                threads: numbers[0],
                nodes: numbers[1],
                methods: numbers[2],
                entries: numbers[3],
                exits: numbers[4],
                exits_by_exception: numbers[5],
                dropped_exits: numbers[6],
                open_frames: numbers[7],
                depth_mismatches: numbers.get(8).copied(),
            })
        }
    }

    /// One run of a program under the oracle.
    #[derive(Debug)]
    pub struct Run {
        /// The tree the oracle wrote.
        pub tree: Folded,
        /// The oracle's text of it, as written.
        pub text: String,
        /// Its exit summary.
        pub stats: Stats,
        /// The program's and the oracle's stderr.
        pub stderr: String,
    }

    /// Runs `main` from `classpath` with `java` under the oracle `lib`, with
    /// the oracle options `options` (`check=1`, `start=...`; `out=` is
    /// added), writing into `out`. Panics (with the output) if the program
    /// fails or the oracle writes nothing.
    pub fn run(
        java: &Path,
        lib: &Path,
        options: &str,
        classpath: &Path,
        main: &str,
        out: &Path,
    ) -> Run {
        let mut agent = format!("-agentpath:{}=out={}", lib.display(), out.display());
        if !options.is_empty() {
            agent.push(',');
            agent.push_str(options);
        }
        let o = Command::new(java)
            .arg(&agent)
            .arg("-cp")
            .arg(classpath)
            .arg(main)
            .output()
            .expect("run java");
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(
            o.status.success(),
            "{main} under the oracle failed ({}):\n{}{stderr}",
            o.status,
            String::from_utf8_lossy(&o.stdout)
        );
        let text = std::fs::read_to_string(out)
            .unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", out.display()));
        let tree = parse_folded(&text, &out.display().to_string()).unwrap();
        let stats = Stats::parse(&stderr)
            .unwrap_or_else(|| panic!("no cct_oracle summary line in:\n{stderr}"));
        Run {
            tree,
            text,
            stats,
            stderr,
        }
    }
}

/// The named categories of differences between major's whole calling-context
/// tree (JDK frames included) and the JVMTI oracle's, each a rule over a
/// difference's path and the two trees (ARCHITECTURE.md, "Calling context").
/// The oracle's tree is the left one, major's the right one.
pub mod categories {
    use std::collections::HashMap;
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use major_weaver::index::ClassIndex;
    use major_weaver::profile::frame_name;

    use super::{leaf, parent, Cct, Difference, Side};

    /// The profiler's own: frames of its runtime (`major.`), and the JVM's
    /// shutdown, during which the profile is written (what runs after the
    /// hook that writes it is not in it; the hook is major's).
    pub const OWN: &str = "the profiler's own (runtime, shutdown hook)";
    /// One-time work that runs where a class is first used: class
    /// initializers (which run where the profiler's runtime or the other
    /// order of class loading first needs the class, and build state the
    /// oracle's run takes from the CDS archive, like `Long$LongCache`), and
    /// the lazily filled caches of `java.lang.Class` (its name, reflection
    /// data and factory; the runtime reflects on classes).
    pub const FIRST_USE: &str = "class initialization and Class caches (first use elsewhere)";
    /// Under a class-loading frame: woven classes load the runtime's classes
    /// and carry other bytes, so the class loaders' work differs; and a
    /// thread's release at its end of the native buffers the module system
    /// took reading the patch of java.base that holds the runtime's classes.
    pub const CLASS_LOADING: &str = "class loading (the weave's loads and bytes)";
    /// Work that depends on timing: reference processing (when the GC
    /// runs), waiting for other threads (`Thread.join`, `Object.wait`,
    /// parking), and the `run()` of a thread the JDK starts during boot
    /// (Common-Cleaner), which records only when its first scheduling
    /// comes after recording starts, and gets as far as it gets before the
    /// VM exits.
    pub const TIMING: &str = "timing (reference processing, waiting for threads)";
    /// Class-data sharing: the weaving agent's class-file hook turns the CDS
    /// archive off, so the JDK's lookups in it take other paths, and lambda
    /// proxy classes the oracle's run finds archived are spun in major's.
    pub const CDS: &str = "class-data sharing (off under the weaving agent)";
    /// Shared JDK tables (hash tables, interned method types, cached string
    /// hashes, growable arrays) hold what the weave added too; identity hash
    /// tables place keys by identity hash codes, which differ between runs.
    pub const TABLES: &str = "JDK tables (what the weave added, identity hashes)";
    /// Inside a method without a woven body (native, intrinsic candidate,
    /// never woven): major enters its frame at the call and nothing under it.
    pub const INSIDE_BODYLESS: &str = "inside a method without a woven body";
    /// A method without a woven body that major does not enter: reached by
    /// dispatch through another declaration, or an overridable method of
    /// `Object` with parameters, or called from native code.
    pub const BODYLESS_NOT_ENTERED: &str = "method without a woven body, not entered at its call";
    /// Frames of classes never woven because the VM defines them without a
    /// class-file hook (hidden classes: lambda proxies, lambda forms) and
    /// method-handle holders; their callees attach to the nearest woven frame.
    pub const HIDDEN: &str = "hidden classes and method-handle holders";
    /// Methods HotSpot's interpreter runs as intrinsics, posting no
    /// MethodEntry: only major's tree has them (and their callees).
    pub const INTERPRETER_INTRINSICS: &str = "interpreter intrinsics (no MethodEntry)";
    /// A callee that major attaches to the nearest woven frame, where the
    /// oracle has it under frames major cannot see (the two categories
    /// above).
    pub const REATTACHED: &str = "callees of frames major cannot see, re-attached";

    /// Methods HotSpot's template interpreter replaces by intrinsic entries
    /// (`AbstractInterpreter::MethodKind`): no MethodEntry event is posted
    /// for them, and their bodies' calls do not run.
    pub const INTERPRETER_INTRINSIC_FRAMES: &[&str] = &[
        "java.lang.ref.Reference.get()",
        "java.lang.Math.sin(double)",
        "java.lang.Math.cos(double)",
        "java.lang.Math.tan(double)",
        "java.lang.Math.abs(double)",
        "java.lang.Math.sqrt(double)",
        "java.lang.StrictMath.sqrt(double)",
        "java.lang.Math.log(double)",
        "java.lang.Math.log10(double)",
        "java.lang.Math.pow(double,double)",
        "java.lang.Math.exp(double)",
        "java.lang.Math.fma(double,double,double)",
        "java.lang.Math.fma(float,float,float)",
        "java.util.zip.CRC32.update(int,int)",
        "java.util.zip.CRC32.updateBytes(int,byte[],int,int)",
        "java.util.zip.CRC32.updateByteBuffer(int,long,int,int)",
        "java.util.zip.CRC32C.updateBytes(int,byte[],int,int)",
        "java.util.zip.CRC32C.updateDirectByteBuffer(int,long,int,int)",
        "java.lang.Float.intBitsToFloat(int)",
        "java.lang.Float.floatToRawIntBits(float)",
        "java.lang.Double.longBitsToDouble(long)",
        "java.lang.Double.doubleToRawLongBits(double)",
        // JDK 19 and later.
        "java.lang.Thread.currentThread()",
        // JDK 20 and later.
        "java.lang.Float.float16ToFloat(short)",
        "java.lang.Float.floatToFloat16(float)",
    ];

    /// What the JDK's class files say about methods, by frame name: whether
    /// a method has no woven body (native, `@IntrinsicCandidate`, or of a
    /// class major never weaves).
    pub struct JdkMethods {
        index: ClassIndex,
        cache: Mutex<HashMap<String, bool>>,
    }

    impl JdkMethods {
        /// Reads the classes of `jdk_home`'s `lib/modules`.
        pub fn open(jdk_home: &Path) -> Result<JdkMethods, String> {
            let path = jdk_home.join("lib/modules");
            let image = major_archive::RuntimeImage::open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let mut index = ClassIndex::new();
            index.add_image(Arc::new(image));
            Ok(JdkMethods {
                index,
                cache: Mutex::new(HashMap::new()),
            })
        }

        /// Whether the method of `frame` has no woven body: native, an
        /// intrinsic candidate, or of a class never woven. False for frames
        /// not found in the JDK.
        pub fn bodyless(&self, frame: &str) -> bool {
            if let Some(&b) = self.cache.lock().unwrap().get(frame) {
                return b;
            }
            let b = self.lookup(frame);
            self.cache.lock().unwrap().insert(frame.to_string(), b);
            b
        }

        fn lookup(&self, frame: &str) -> bool {
            let Some(open) = frame.find('(') else {
                return false;
            };
            let Some(dot) = frame[..open].rfind('.') else {
                return false;
            };
            let class = frame[..dot].replace('.', "/");
            let method = &frame[dot + 1..open];
            let Some(details) = self.index.details(&class) else {
                return false;
            };
            if major_weaver::weave::bypass::never_woven(&class) {
                return true;
            }
            details.methods.iter().any(|m| {
                m.name == method
                    && frame_name(&class, &m.name, &m.descriptor) == frame
                    && (m.access & 0x0100 != 0
                        || m.annotations.iter().any(|a| {
                            a == "jdk/internal/vm/annotation/IntrinsicCandidate"
                                || a == "jdk/internal/HotSpotIntrinsicCandidate"
                        }))
            })
        }
    }

    /// Whether a frame is of a hidden class: a lambda proxy or a lambda
    /// form. The VM defines them without the class-file hook, so major never
    /// weaves them: the test splices them out of the oracle's tree
    /// ([`super::splice`]) before comparing.
    pub fn is_hidden_class(frame: &str) -> bool {
        let class = frame.split('(').next().unwrap_or(frame);
        let class = class.rsplit_once('.').map_or(class, |(c, _)| c);
        // Lambda forms' classes are `LambdaForm$MH`, `$DMH`, `$BMH`...:
        // upper-case tags, unlike the nested classes `LambdaForm$Name`.
        // JDK 24's string concatenation spins `String$$StringConcat`.
        class.contains("$$Lambda")
            || class.ends_with("$$StringConcat")
            || class
                .strip_prefix("java.lang.invoke.LambdaForm$")
                .is_some_and(|tag| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_uppercase()))
    }

    /// Whether a frame is of a hidden class ([`is_hidden_class`]) or a
    /// method-handle holder class (`java.lang.invoke.*$Holder`).
    pub fn is_hidden(frame: &str) -> bool {
        let class = frame.split('(').next().unwrap_or(frame);
        let class = class.rsplit_once('.').map_or(class, |(c, _)| c);
        is_hidden_class(frame)
            || (class.starts_with("java.lang.invoke.") && class.ends_with("$Holder"))
    }

    fn is_class_loading(frame: &str) -> bool {
        // The release, as a thread ends, of the per-thread native buffers
        // the module system took in it while reading `major run`'s patch of
        // java.base (the runtime's classes, `--patch-module`).
        frame == "jdk.internal.misc.TerminatingThreadLocal.threadTerminated()"
            || frame.starts_with("java.lang.ClassLoader.")
            || frame.starts_with("java.security.SecureClassLoader.")
            || frame.starts_with("java.net.URLClassLoader")
            || frame.starts_with("jdk.internal.loader.")
            || frame.starts_with("java.lang.Class.forName")
    }

    /// The `run()` of threads the JDK starts during boot whose code is not
    /// otherwise reference processing (the Common-Cleaner is an
    /// `InnocuousThread`): started before recording starts, each enters its
    /// `run()` when it is first scheduled, before or after, and a tree has
    /// it at its root only if after; how far it gets below it before the VM
    /// exits is timing as well.
    const BOOT_THREAD_RUNS: &[&str] = &["jdk.internal.misc.InnocuousThread.run()"];

    fn is_timing(frame: &str) -> bool {
        frame.starts_with("java.lang.Thread.join(")
            || frame.starts_with("java.lang.ThreadGroup.add(")
            || frame.starts_with("java.lang.ThreadGroup.remove(")
            || frame.starts_with("java.lang.Object.wait(")
            || frame.starts_with("java.util.concurrent.locks.LockSupport.park")
            || is_reference_processing(frame)
    }

    fn is_reference_processing(frame: &str) -> bool {
        frame.starts_with("java.lang.ref.Reference$ReferenceHandler.")
            || frame.starts_with("java.lang.ref.Reference.processPendingReferences(")
            || frame.starts_with("java.lang.ref.Reference.enqueueFromPending(")
            || frame.starts_with("java.lang.ref.ReferenceQueue.")
            || frame.starts_with("java.lang.ref.Finalizer")
            || frame.starts_with("jdk.internal.ref.CleanerImpl.")
            || frame.contains(".expungeStaleElements()")
            || frame.contains(".expungeStaleEntries()")
    }

    fn is_table(frame: &str) -> bool {
        frame.starts_with("java.util.concurrent.ConcurrentHashMap.")
            || frame.starts_with("java.util.HashMap.resize(")
            || frame.starts_with("java.util.HashMap.putVal(")
            || frame.starts_with("java.lang.invoke.MethodType$ConcurrentWeakInternSet.")
            || frame.starts_with("java.lang.invoke.MethodType.makeImpl(")
            || frame == "java.lang.String.hashCode()"
            || frame.starts_with("java.util.ArrayList.grow(")
            || frame.starts_with("java.util.ArrayList.add(")
            || frame.starts_with("java.util.IdentityHashMap.")
            || frame.starts_with("java.util.HashMap$TreeNode.")
            || frame.starts_with("java.util.WeakHashMap.")
    }

    fn is_own(frame: &str) -> bool {
        frame.starts_with("major.")
            || frame.starts_with("java.lang.Shutdown.")
            || frame.starts_with("java.lang.ApplicationShutdownHooks")
    }

    /// Classifies the differences of the oracle's tree (left) and major's
    /// (right).
    pub struct Classifier<'a> {
        jdk: &'a JdkMethods,
        oracle: &'a Cct,
        oracle_kids: Vec<HashMap<&'a str, usize>>,
    }

    impl<'a> Classifier<'a> {
        /// A classifier for differences between `oracle` and major's tree.
        pub fn new(jdk: &'a JdkMethods, oracle: &'a Cct) -> Classifier<'a> {
            Classifier {
                jdk,
                oracle,
                oracle_kids: super::kids_by_frame(oracle),
            }
        }

        /// The category of a difference, or `None` for an unexplained one.
        /// The rules, first match wins:
        ///
        /// 1. [`OWN`]: a frame of the path is major's runtime's or the
        ///    JVM's shutdown's;
        ///    or a count at a root `Thread.<init>`/`ThreadGroup.add` (the
        ///    shutdown hook's thread);
        /// 2. [`CLASS_LOADING`]: a frame of the path is a class loader's;
        /// 3. [`TIMING`]: a frame of the path processes references, waits
        ///    for another thread or adds or removes a thread of a group; or a
        ///    subtree at or under a root that is a boot thread's `run()` (the
        ///    thread runs beside the program until the VM exits: how far it
        ///    gets is timing), but not that root's own count;
        ///    [`CDS`]: a frame of the path looks into the CDS archive or
        ///    spins a lambda proxy class;
        /// 4. [`FIRST_USE`]: a frame of the path is a class initializer or
        ///    reads `Class`'s reflection data; a subtree only in the
        ///    oracle's or a count whose caller is `java.lang.Class`'s;
        /// 5. [`INSIDE_BODYLESS`]: a subtree in one tree only whose caller
        ///    has no woven body;
        /// 6. [`BODYLESS_NOT_ENTERED`]: a subtree only in the oracle's whose
        ///    top frame has no woven body;
        /// 7. [`HIDDEN`]: a subtree only in the oracle's whose top frame is
        ///    a hidden class's or holder's;
        /// 8. [`INTERPRETER_INTRINSICS`]: a subtree only in major's whose
        ///    top frame or caller is an interpreter intrinsic;
        /// 9. [`REATTACHED`]: a subtree only in major's, `P;F`, where the
        ///    oracle has `P;X;..;F` through at most three frames major cannot
        ///    see (without a woven body, or hidden);
        /// 10. [`TABLES`]: a frame of the path is a shared JDK table's.
        pub fn classify(&self, d: &Difference) -> Option<&'static str> {
            let path = d.path();
            let frames: Vec<&str> = path.split(';').collect();
            if frames.iter().any(|f| is_own(f)) {
                return Some(OWN);
            }
            if matches!(d, Difference::Count { .. })
                && (frames[0].starts_with("java.lang.Thread.<init>(")
                    || frames[0].starts_with("java.lang.ThreadGroup.add("))
            {
                return Some(OWN);
            }
            if frames.iter().any(|f| is_class_loading(f)) {
                return Some(CLASS_LOADING);
            }
            if frames.iter().any(|f| is_timing(f)) {
                return Some(TIMING);
            }
            if BOOT_THREAD_RUNS.contains(&frames[0])
                && (frames.len() > 1 || matches!(d, Difference::Only { .. }))
            {
                return Some(TIMING);
            }
            if frames.iter().any(|f| {
                f.starts_with("java.lang.invoke.LambdaProxyClassArchive.")
                    || f.starts_with("java.lang.invoke.InnerClassLambdaMetafactory.")
                    || f.starts_with("jdk.internal.misc.CDS.")
            }) {
                return Some(CDS);
            }
            if frames.iter().any(|f| {
                f.contains(".<clinit>(")
                    || f.starts_with("java.lang.Class.reflectionData(")
                    || f.starts_with("java.lang.Class.newReflectionData(")
                    || f.starts_with("java.lang.Class.privateGetDeclared")
                    || f.starts_with("java.lang.Class.getConstructor0(")
                    || f.starts_with("java.lang.Class.getMethod0(")
                    // Method handle constants of system classes are cached in
                    // Lookup's lookaside table: the first resolution anywhere
                    // (the runtime's, the bootstrap's) fills it.
                    || f.starts_with("java.lang.invoke.MethodHandles$Lookup.linkMethodHandleConstant(")
            }) {
                return Some(FIRST_USE);
            }
            let top = leaf(path);
            let caller = parent(path).map(leaf);
            if matches!(d, Difference::Count { .. })
                && caller.is_some_and(|c| c.starts_with("java.lang.Class."))
            {
                return Some(FIRST_USE);
            }
            if let Difference::Only { side, .. } = d {
                if top.contains(".<clinit>(")
                    || (*side == Side::Left
                        && caller.is_some_and(|c| c.starts_with("java.lang.Class.")))
                {
                    return Some(FIRST_USE);
                }
                if caller.is_some_and(|c| self.jdk.bodyless(c)) {
                    return Some(INSIDE_BODYLESS);
                }
                match side {
                    Side::Left if self.jdk.bodyless(top) => return Some(BODYLESS_NOT_ENTERED),
                    Side::Left if is_hidden(top) => return Some(HIDDEN),
                    Side::Right
                        if INTERPRETER_INTRINSIC_FRAMES.contains(&top)
                            || caller
                                .is_some_and(|c| INTERPRETER_INTRINSIC_FRAMES.contains(&c)) =>
                    {
                        return Some(INTERPRETER_INTRINSICS)
                    }
                    Side::Right if self.reattached(&frames) => return Some(REATTACHED),
                    _ => {}
                }
            }
            if frames.iter().any(|f| is_table(f)) {
                return Some(TABLES);
            }
            None
        }

        /// Whether the oracle has the callee `frames` (a path only in
        /// major's tree) under its caller through frames major cannot see.
        fn reattached(&self, frames: &[&str]) -> bool {
            let (callee, callers) = frames.split_last().unwrap();
            // The caller's node in the oracle's tree (the virtual root: 0).
            let mut at = 0;
            for f in callers {
                match self.oracle_kids[at].get(f) {
                    Some(&n) => at = n + 1,
                    None => return false,
                }
            }
            let mut level = vec![at];
            for _ in 0..3 {
                let mut next = Vec::new();
                for &n in &level {
                    for (f, &k) in &self.oracle_kids[n] {
                        if n != at && f == callee {
                            return true;
                        }
                        if is_hidden(f) || self.jdk.bodyless(f) {
                            next.push(k + 1);
                        }
                    }
                }
                level = next;
            }
            level
                .iter()
                .any(|&n| self.oracle_kids[n].contains_key(callee))
        }

        /// The oracle's tree.
        pub fn oracle(&self) -> &Cct {
            self.oracle
        }
    }
    #[cfg(test)]
    mod tests {
        use super::*;

        fn no_jdk() -> JdkMethods {
            JdkMethods {
                index: ClassIndex::new(),
                cache: Mutex::new(HashMap::new()),
            }
        }

        #[test]
        fn hidden_classes_by_name() {
            assert!(is_hidden_class("p.Main$$Lambda.run()"));
            assert!(is_hidden_class(
                "java.lang.invoke.LambdaForm$MH.invoke(java.lang.Object)"
            ));
            assert!(is_hidden_class(
                "java.lang.String$$StringConcat.concat(java.lang.Object,long,java.lang.Object)"
            ));
            assert!(!is_hidden_class(
                "java.lang.invoke.LambdaForm$Name.<init>(int)"
            ));
            assert!(!is_hidden_class(
                "java.lang.StringConcatHelper.prepend(int,byte,byte[],long)"
            ));
        }

        fn only(side: Side, path: &str) -> Difference {
            Difference::Only {
                side,
                path: path.into(),
                count: 1,
                descendants: 11,
                subtree_calls: 13,
            }
        }

        #[test]
        fn a_boot_threads_run_at_a_root_and_below_it_is_timing_and_nowhere_else() {
            let jdk = no_jdk();
            let oracle = Cct {
                frames: vec![],
                nodes: vec![],
                has_wall: false,
                has_cpu: false,
            };
            let c = Classifier::new(&jdk, &oracle);
            let run = "jdk.internal.misc.InnocuousThread.run()";
            assert_eq!(c.classify(&only(Side::Right, run)), Some(TIMING));
            assert_eq!(c.classify(&only(Side::Left, run)), Some(TIMING));
            // Below it, whatever the thread got to before the VM exited
            // (a CI run's tree had its first call only in major's).
            let below = format!("{run};java.lang.Thread.currentThread()");
            assert_eq!(c.classify(&only(Side::Right, &below)), Some(TIMING));
            assert_eq!(c.classify(&only(Side::Left, &below)), Some(TIMING));
            let count_below = Difference::Count {
                path: below.clone(),
                left: 1,
                right: 2,
            };
            assert_eq!(c.classify(&count_below), Some(TIMING));
            // Under a caller, or a count of it, it explains nothing.
            let under = format!("App.main(java.lang.String[]);{run}");
            assert_eq!(c.classify(&only(Side::Right, &under)), None);
            let count = Difference::Count {
                path: run.into(),
                left: 1,
                right: 2,
            };
            assert_eq!(c.classify(&count), None);
        }
    }
}
