//! The view of a large tree that the folded stacks, the flame graph and the
//! speedscope file show: a path per context makes them quadratic in the
//! tree (javac's 752,254 contexts gave a 3 GB `calls.folded` and a 148 MB
//! `speedscope.json`, against 11 MB for the raw profile), and a flame graph
//! cannot draw a context narrower than a pixel anyway. [`prune`] keeps the
//! contexts whose share of a metric's total is at least a fraction, and
//! puts what each kept context's smaller callees hold into one node under
//! it, `[N more contexts]`, so every kept frame keeps its width (its
//! inclusive calls and times). The raw profile always has the whole tree.

use super::{Cct, Metric, Node};

/// What [`prune`] kept and left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pruned {
    /// Contexts of the tree.
    pub contexts: usize,
    /// Contexts kept as they are.
    pub kept: usize,
    /// Remainder nodes added (`[N more contexts]`).
    pub remainders: usize,
    /// The fraction of a metric's total a context needed to be kept.
    pub fraction: f64,
}

/// The frame name of a remainder node standing for `n` contexts.
pub fn remainder_frame(n: usize) -> String {
    format!("[{n} more contexts]")
}

/// The tree without the contexts whose inclusive value is below `fraction`
/// of the total for every metric of the profile (calls: the calls of the
/// subtree; time: the inclusive time), nor their callees. Under each kept
/// context (and at the top, for roots left out), the contexts left out
/// become one remainder node whose calls are their subtrees' calls and whose
/// times are their inclusive times: every kept context has the same subtree
/// totals as before, so a flame graph of the view draws the kept frames
/// at their full width.
pub fn prune(cct: &Cct, fraction: f64) -> (Cct, Pruned) {
    let metrics = cct.metrics();
    let inclusive: Vec<Vec<u64>> = metrics.iter().map(|&m| cct.inclusive_values(m)).collect();
    let totals: Vec<u64> = inclusive
        .iter()
        .map(|v| {
            (0..cct.nodes.len())
                .filter(|&i| cct.nodes[i].parent.is_none())
                .map(|i| v[i])
                .sum()
        })
        .collect();
    // Nodes in each subtree, the node itself included.
    let mut sizes = vec![1usize; cct.nodes.len()];
    for i in (0..cct.nodes.len()).rev() {
        if let Some(p) = cct.nodes[i].parent {
            sizes[p] += sizes[i];
        }
    }
    let big = |i: usize| {
        inclusive
            .iter()
            .zip(&totals)
            .any(|(v, &t)| t > 0 && v[i] as f64 >= t as f64 * fraction)
    };
    let mut view = Cct {
        frames: cct.frames.clone(),
        nodes: Vec::new(),
        has_wall: cct.has_wall,
        has_cpu: cct.has_cpu,
    };
    // The node of each kept context in the view.
    let mut at: Vec<Option<usize>> = vec![None; cct.nodes.len()];
    // Per kept parent (index + 1; 0: the top), the remainder being summed:
    // (contexts, calls, wall, cpu).
    let mut rest: std::collections::BTreeMap<usize, (usize, u64, u64, u64)> =
        std::collections::BTreeMap::new();
    let value = |m: Metric, i: usize| {
        metrics
            .iter()
            .position(|&x| x == m)
            .map_or(0, |k| inclusive[k][i])
    };
    for (i, n) in cct.nodes.iter().enumerate() {
        let parent_kept = match n.parent {
            None => Some(None),
            Some(p) => at[p].map(Some),
        };
        let Some(parent) = parent_kept else {
            continue; // under a context left out: in its remainder already
        };
        if big(i) {
            at[i] = Some(view.nodes.len());
            view.nodes.push(Node {
                parent,
                ..n.clone()
            });
        } else {
            let r = rest.entry(parent.map_or(0, |p| p + 1)).or_default();
            r.0 += sizes[i];
            r.1 += value(Metric::Calls, i);
            r.2 += value(Metric::Wall, i);
            r.3 += value(Metric::Cpu, i);
        }
    }
    let kept = view.nodes.len();
    let remainders = rest.len();
    let mut frame_ids = std::collections::HashMap::new();
    for (parent, (n, calls, wall, cpu)) in rest {
        let name = remainder_frame(n);
        let frame = *frame_ids.entry(name.clone()).or_insert_with(|| {
            view.frames.push(name);
            view.frames.len() - 1
        });
        view.nodes.push(Node {
            parent: parent.checked_sub(1),
            frame,
            calls,
            wall,
            cpu,
        });
    }
    (
        view,
        Pruned {
            contexts: cct.nodes.len(),
            kept,
            remainders,
            fraction,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn keeps_the_big_contexts_and_sums_the_rest_under_their_caller() {
        let cct = sample();
        // Calls in all: 1+2+10+1+1 + 3+3 = 21; wall 1000 + 700; cpu 900 + 650.
        // At a fraction of 0.45, only main (and its subtree's bigger part)
        // stays: work's subtree has 12 of 21 calls.
        let (view, p) = prune(&cct, 0.45);
        let paths = view.paths();
        assert!(paths.contains(&"Main.main(java.lang.String[])".to_string()));
        assert!(paths.contains(&"Main.main(java.lang.String[]);Main.work(int)".to_string()));
        assert_eq!(p.contexts, 7);
        // Every metric's total is kept.
        for m in [Metric::Calls, Metric::Wall, Metric::Cpu] {
            let total = |c: &Cct| -> u64 {
                let v = c.inclusive_values(m);
                c.roots().iter().map(|&r| v[r]).sum()
            };
            assert_eq!(total(&view), total(&cct), "{m:?}");
        }
        // The kept contexts keep their subtree totals.
        let main_of = |c: &Cct| {
            c.paths()
                .iter()
                .position(|q| q == "Main.main(java.lang.String[])")
                .unwrap()
        };
        assert_eq!(
            view.inclusive_values(Metric::Calls)[main_of(&view)],
            cct.inclusive_values(Metric::Calls)[main_of(&cct)]
        );
        assert_eq!(view.nodes[main_of(&view)].wall, 1000);
        // What was left out is in remainder nodes, named with their size.
        assert_eq!(p.kept + p.remainders, view.nodes.len());
        assert!(p.remainders >= 1);
        assert!(view
            .paths()
            .iter()
            .any(|q| q.starts_with("Main.main(java.lang.String[]);[")
                && q.ends_with(" more contexts]")));
        // A fraction of 0 keeps everything, and adds nothing.
        let (all, p) = prune(&cct, 0.0);
        assert_eq!(all, cct);
        assert_eq!((p.kept, p.remainders), (7, 0));
    }
}
