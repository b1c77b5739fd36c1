//! The raw profile's format 3: every thread's own tree, as the runtime
//! (`major.runtime.CallingContext.writeProfile`) writes it at the end of a
//! profiled run, merged here into one [`Cct`].
//!
//! ```text
//! major-cct 3
//! metrics calls[ wall_ns][ cpu_ns]
//! frames N
//! FRAME                          N lines: frame 0, 1, ...
//! threads T
//! nodes M                        T times: one thread's tree, M lines follow
//! UP<TAB>FRAME<TAB>values        the thread's nodes 1..=M in number order;
//!                                UP an earlier node's number, 0 for the
//!                                thread's outermost frames
//! ```
//!
//! The runtime writes what it has, as it is: merging and sorting there would
//! add to the profiled program's own time (a shutdown hook of it), and cost
//! the JVM a compilation of the code that does it. Here the threads' trees
//! are merged, roots by frame and children by frame, nodes never entered
//! (a count of 0) dropped with everything below them, and the result put in
//! canonical order: frames sorted by name, nodes depth first with siblings
//! by frame name — the tree a format-2 file of the same contexts gives.

use std::collections::HashMap;

use super::{node_line, Cct, Metric, Node, ProfileError};

/// No merged node: the thread's root (its number 0), or a node dropped.
const ROOT: usize = usize::MAX;
const DROPPED: usize = usize::MAX - 1;

/// Parses the rest of a format-3 profile, after its metrics line.
pub(super) fn parse_v3<'t>(
    mut lines: impl Iterator<Item = (usize, &'t str)>,
    metrics: &[Metric],
    err: &dyn Fn(usize, String) -> ProfileError,
) -> Result<Cct, ProfileError> {
    let count = |lines: &mut dyn Iterator<Item = (usize, &'t str)>, what: &str| {
        let (n, l) = lines
            .next()
            .ok_or_else(|| err(0, format!("the file ends before `{what} N`")))?;
        l.strip_prefix(what)
            .and_then(|r| r.strip_prefix(' '))
            .and_then(|r| r.parse::<usize>().ok())
            .ok_or_else(|| err(n, format!("expected `{what} N`, found {l:?}")))
    };
    let frame_count = count(&mut lines, "frames")?;
    let mut frames = Vec::with_capacity(frame_count);
    for _ in 0..frame_count {
        let (_, f) = lines
            .next()
            .ok_or_else(|| err(0, "the file ends inside the frame table".into()))?;
        frames.push(f.to_string());
    }
    let thread_count = count(&mut lines, "threads")?;
    let mut merged: Vec<Node> = Vec::new();
    let mut by_key: HashMap<(usize, usize), usize> = HashMap::new();
    // A thread's node numbers to merged nodes (ROOT for its root).
    let mut local: Vec<usize> = Vec::new();
    for _ in 0..thread_count {
        let nodes = count(&mut lines, "nodes")?;
        local.clear();
        local.push(ROOT);
        for i in 1..=nodes {
            let (n, line) = lines
                .next()
                .ok_or_else(|| err(0, "the file ends inside a thread's nodes".into()))?;
            let (up, frame, [calls, wall, cpu]) = node_line(n, line, frames.len(), metrics, err)?;
            let up = usize::try_from(up)
                .ok()
                .filter(|&u| u < i)
                .ok_or_else(|| err(n, format!("parent {up} is not an earlier node")))?;
            let parent = local[up];
            if parent == DROPPED || calls == 0 {
                local.push(DROPPED);
                continue;
            }
            let at = *by_key.entry((parent, frame)).or_insert_with(|| {
                merged.push(Node {
                    parent: (parent != ROOT).then_some(parent),
                    frame,
                    calls: 0,
                    wall: 0,
                    cpu: 0,
                });
                merged.len() - 1
            });
            let m = &mut merged[at];
            m.calls += calls;
            m.wall += wall;
            m.cpu += cpu;
            local.push(at);
        }
    }
    if let Some((n, l)) = lines.find(|(_, l)| !l.is_empty()) {
        return Err(err(n, format!("text after the last thread: {l:?}")));
    }
    Ok(canonical(
        frames,
        merged,
        metrics.contains(&Metric::Wall),
        metrics.contains(&Metric::Cpu),
    ))
}

/// The tree of `nodes` (parents before children) in canonical order: the
/// frames it uses sorted by name, its nodes depth first with siblings in
/// frame-name order.
fn canonical(frames: Vec<String>, nodes: Vec<Node>, has_wall: bool, has_cpu: bool) -> Cct {
    let mut used: Vec<usize> = nodes.iter().map(|n| n.frame).collect();
    used.sort_unstable();
    used.dedup();
    used.sort_by(|&a, &b| frames[a].cmp(&frames[b]));
    let mut renumber = vec![usize::MAX; frames.len()];
    for (new, &old) in used.iter().enumerate() {
        renumber[old] = new;
    }
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        match n.parent {
            Some(p) => kids[p].push(i),
            None => roots.push(i),
        }
    }
    let by_name = |list: &mut Vec<usize>| list.sort_by_key(|&k| renumber[nodes[k].frame]);
    by_name(&mut roots);
    kids.iter_mut().for_each(by_name);
    let mut out = Vec::with_capacity(nodes.len());
    // (merged node, its parent's place in `out`), the next to visit last.
    let mut todo: Vec<(usize, Option<usize>)> = roots.iter().rev().map(|&r| (r, None)).collect();
    while let Some((i, parent)) = todo.pop() {
        let n = &nodes[i];
        out.push(Node {
            parent,
            frame: renumber[n.frame],
            ..n.clone()
        });
        let at = out.len() - 1;
        todo.extend(kids[i].iter().rev().map(|&k| (k, Some(at))));
    }
    let mut frames: Vec<Option<String>> = frames.into_iter().map(Some).collect();
    Cct {
        frames: used.iter().map(|&f| frames[f].take().unwrap()).collect(),
        nodes: out,
        has_wall,
        has_cpu,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::Cct;

    /// Two threads, their roots' children interleaved and in no order, a
    /// node never entered (with a child), frames unsorted and one unused.
    const V3: &str =
        "major-cct 3\nmetrics calls wall_ns\nframes 5\nM.main()\nB.b()\nA.a()\nU.unused()\nD.d()\n\
threads 2\n\
nodes 4\n0\t0\t1\t100\n1\t1\t2\t60\n1\t2\t1\t30\n2\t2\t5\t10\n\
nodes 5\n0\t4\t1\t7\n0\t0\t1\t40\n2\t1\t1\t20\n1\t3\t0\t0\n4\t2\t1\t1\n";

    /// The same contexts merged, as a format-2 file (sorted) has them.
    const V2: &str =
        "major-cct 2\nmetrics calls wall_ns\nframes 4\nA.a()\nB.b()\nD.d()\nM.main()\n\
nodes 5\n-1\t2\t1\t7\n-1\t3\t2\t140\n1\t0\t1\t30\n1\t1\t3\t80\n3\t0\t5\t10\n";

    #[test]
    fn the_threads_trees_merge_into_the_tree_format_2_has() {
        let v3 = Cct::parse(V3, Path::new("p.cct")).unwrap();
        let v2 = Cct::parse(V2, Path::new("q.cct")).unwrap();
        assert_eq!(v3, v2);
        // Written out, it is that format-2 file, byte for byte.
        let mut raw = Vec::new();
        v3.write_raw(&mut raw).unwrap();
        assert_eq!(String::from_utf8(raw).unwrap(), V2);
        assert_eq!(
            v3.paths(),
            [
                "D.d()",
                "M.main()",
                "M.main();A.a()",
                "M.main();B.b()",
                "M.main();B.b();A.a()"
            ]
        );
    }

    #[test]
    fn malformed_thread_trees_are_refused_with_their_line() {
        for (text, line, message) in [
            (
                "major-cct 3\nmetrics calls\nframes 1\nA.a()\nthreads 1\nnodes 1\n1\t0\t1\n",
                7,
                "parent 1 is not an earlier node",
            ),
            (
                "major-cct 3\nmetrics calls\nframes 1\nA.a()\nthreads 1\nnodes 1\n0\t1\t1\n",
                7,
                "the frame is not in the frame table",
            ),
            (
                "major-cct 3\nmetrics calls\nframes 1\nA.a()\nthreads 2\nnodes 1\n0\t0\t1\n",
                0,
                "the file ends before `nodes N`",
            ),
            (
                "major-cct 3\nmetrics calls\nframes 1\nA.a()\nthreads 1\nnodes 1\n0\t0\t1\nextra\n",
                8,
                "text after the last thread: \"extra\"",
            ),
        ] {
            let e = Cct::parse(text, Path::new("x.cct"))
                .unwrap_err()
                .to_string();
            assert_eq!(e, format!("x.cct:{line}: {message}"), "{text:?}");
        }
    }
}
