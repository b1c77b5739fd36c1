//! `summary.txt`: the profile's totals, then per metric the hottest calling
//! contexts by inclusive and by self value, and the hottest methods (self
//! value summed over their contexts), application and JDK apart: a context
//! is the JDK's when its innermost frame is ([`super::Options::is_jdk`]).
//! Ties are broken by path, so the text is deterministic.

use std::collections::BTreeMap;
use std::io::Write;

use super::{Cct, Metric, Options};

/// How many callers a context's line shows before eliding the rest.
const CALLERS_SHOWN: usize = 3;

/// Writes the summary of `cct`.
pub fn write(cct: &Cct, options: &Options<'_>, w: &mut dyn Write) -> std::io::Result<()> {
    let depths = cct.depths();
    let jdk: Vec<bool> = (0..cct.nodes.len())
        .map(|i| (options.is_jdk)(cct.frame(i)))
        .collect();
    writeln!(w, "{}", options.title)?;
    writeln!(w)?;
    writeln!(
        w,
        "contexts: {} ({} JDK, {} application), methods: {}, roots: {}, deepest context: {} frames",
        cct.nodes.len(),
        jdk.iter().filter(|&&j| j).count(),
        jdk.iter().filter(|&&j| !j).count(),
        cct.frames.len(),
        cct.roots().len(),
        depths.iter().max().copied().unwrap_or(0)
    )?;
    for metric in cct.metrics() {
        let own = cct.self_values(metric);
        let total: u64 = own.iter().sum();
        let jdk_total: u64 = (0..own.len()).filter(|&i| jdk[i]).map(|i| own[i]).sum();
        writeln!(
            w,
            "{}: {} {} in all, {} in JDK contexts ({}), {} in application contexts ({})",
            metric_title(metric),
            group(total),
            metric.unit(),
            group(jdk_total),
            percent(jdk_total, total),
            group(total - jdk_total),
            percent(total - jdk_total, total)
        )?;
    }
    for metric in cct.metrics() {
        let own = cct.self_values(metric);
        let inclusive = cct.inclusive_values(metric);
        let total: u64 = own.iter().sum();
        let inclusive_name = match metric {
            Metric::Calls => "calls in the subtree",
            _ => "inclusive",
        };
        let self_name = match metric {
            Metric::Calls => "calls",
            _ => "self",
        };
        for (side, is_jdk) in [("application", false), ("JDK", true)] {
            let nodes: Vec<usize> = (0..cct.nodes.len()).filter(|&i| jdk[i] == is_jdk).collect();
            for (kind, values) in [(inclusive_name, &inclusive), (self_name, &own)] {
                writeln!(w)?;
                writeln!(
                    w,
                    "== {}: hottest {side} contexts by {kind} ({}) ==",
                    metric_title(metric),
                    metric.unit()
                )?;
                let mut ranked: Vec<usize> =
                    nodes.iter().copied().filter(|&i| values[i] > 0).collect();
                // Ties in the order of the nodes, which the profile fixes
                // (paths would be deterministic too, but a tree of a million
                // contexts has gigabytes of them).
                ranked.sort_by(|&a, &b| values[b].cmp(&values[a]).then(a.cmp(&b)));
                if ranked.is_empty() {
                    writeln!(w, "  (none)")?;
                }
                for &i in ranked.iter().take(options.top) {
                    writeln!(
                        w,
                        "  {:>15} {:>6}  {}",
                        group(values[i]),
                        percent(values[i], total),
                        cct.frame(i)
                    )?;
                    writeln!(w, "  {:>22}  {}", "", callers(cct, i, depths[i]))?;
                }
            }
            // Methods: self value summed over every context of the frame.
            let mut methods: BTreeMap<&str, u64> = BTreeMap::new();
            for &i in &nodes {
                *methods.entry(cct.frame(i)).or_default() += own[i];
            }
            let mut methods: Vec<(&str, u64)> =
                methods.into_iter().filter(|&(_, v)| v > 0).collect();
            methods.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            writeln!(w)?;
            writeln!(
                w,
                "== {}: hottest {side} methods by {self_name}, all contexts ({}) ==",
                metric_title(metric),
                metric.unit()
            )?;
            if methods.is_empty() {
                writeln!(w, "  (none)")?;
            }
            for (frame, v) in methods.into_iter().take(options.top) {
                writeln!(w, "  {:>15} {:>6}  {frame}", group(v), percent(v, total))?;
            }
        }
    }
    Ok(())
}

fn metric_title(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        Metric::Wall => "wall time",
        Metric::Cpu => "CPU time",
    }
}

/// `<- caller <- caller ... (N frames deep)`.
fn callers(cct: &Cct, node: usize, depth: usize) -> String {
    let mut s = String::new();
    let mut at = cct.nodes[node].parent;
    let mut shown = 0;
    while let Some(p) = at {
        if shown == CALLERS_SHOWN {
            s.push_str(" <- ...");
            break;
        }
        s.push_str(" <- ");
        s.push_str(cct.frame(p));
        shown += 1;
        at = cct.nodes[p].parent;
    }
    if s.is_empty() {
        s.push_str(" (a root)");
    }
    format!("{} ({depth} frames deep)", s.trim_start())
}

/// A number with thousands separators.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    let head = digits.len() % 3;
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && i % 3 == head {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn percent(part: u64, total: u64) -> String {
    if total == 0 {
        return "-".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    fn text(options: &Options<'_>) -> String {
        let mut out = Vec::new();
        write(&sample(), options, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The lines of the section whose header contains `header`.
    fn section(text: &str, header: &str) -> Vec<String> {
        let mut lines = text.lines().skip_while(|l| !l.contains(header));
        lines
            .next()
            .unwrap_or_else(|| panic!("no section {header}:\n{text}"));
        lines
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn totals_and_hottest_contexts_split_by_jdk() {
        let t = text(&Options::default());
        assert!(t.contains("contexts: 7 (3 JDK, 4 application), methods: 6, roots: 2, deepest context: 3 frames"), "{t}");
        // Calls: 21 in all, hash (10) and Thread.run (3) are the JDK's.
        assert!(t.contains("calls: 21 calls in all, 14 in JDK contexts (66.7%), 7 in application contexts (33.3%)"), "{t}");
        let app = section(
            &t,
            "calls: hottest application contexts by calls in the subtree",
        );
        assert!(
            app[0].contains("15") && app[0].ends_with("Main.main(java.lang.String[])"),
            "{app:?}"
        );
        assert!(app[1].contains("(a root) (1 frames deep)"), "{app:?}");
        let jdk = section(&t, "wall time: hottest JDK contexts by self");
        // println: 300 - 50 = 250 self; hash: 100; Thread.run: 10.
        assert!(
            jdk[0].contains("250") && jdk[0].ends_with("println(java.lang.String)"),
            "{jdk:?}"
        );
        assert!(
            jdk[2].contains("100") && jdk[2].ends_with("hash(java.lang.Object)"),
            "{jdk:?}"
        );
        assert!(
            jdk[3].contains("<- Main.work(int) <- Main.main(java.lang.String[]) (3 frames deep)"),
            "{jdk:?}"
        );
        let methods = section(&t, "wall time: hottest application methods by self");
        // work: 500 + 50 in two contexts; Worker.run 690.
        assert_eq!(methods.len(), 3, "{methods:?}");
        assert!(methods[0].ends_with("Main$Worker.run()") && methods[0].contains("690"));
        assert!(methods[1].ends_with("Main.work(int)") && methods[1].contains("550"));
    }

    #[test]
    fn the_caller_decides_what_is_the_jdk_and_how_many_are_listed() {
        let everything_jdk = |_: &str| true;
        let t = text(&Options {
            is_jdk: &everything_jdk,
            top: 1,
            ..Options::default()
        });
        assert!(t.contains("contexts: 7 (7 JDK, 0 application)"));
        assert_eq!(
            section(&t, "calls: hottest application contexts by calls").len(),
            1
        );
        assert_eq!(
            section(&t, "calls: hottest application contexts by calls")[0],
            "  (none)"
        );
        assert_eq!(
            section(&t, "CPU time: hottest JDK contexts by inclusive").len(),
            2
        );
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
    }
}
