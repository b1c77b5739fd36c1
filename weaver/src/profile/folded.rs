//! Folded stacks: `frame;frame;...;frame VALUE` lines, sorted bytewise and
//! `\n`-terminated, the input of flame-graph tools.
//!
//! * `calls.folded`: every node, VALUE its invocation count (the exchange
//!   format of the JVMTI oracle; a flame graph of it shows calls in each
//!   subtree);
//! * `wall.folded`, `cpu.folded`: VALUE the node's SELF time in ns, lines
//!   with no self time left out (a flame graph of it shows inclusive time).

use std::io::Write;

use super::{Cct, Metric};

/// The lines of a metric's folded file, sorted bytewise by path: every node
/// for calls, the nodes with self time for time metrics.
pub fn lines(cct: &Cct, metric: Metric) -> Vec<(String, u64)> {
    let values = cct.self_values(metric);
    let mut lines: Vec<(String, u64)> = cct
        .paths()
        .into_iter()
        .zip(values)
        .filter(|&(_, v)| metric == Metric::Calls || v > 0)
        .collect();
    lines.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    lines
}

/// Writes a metric's folded file.
pub fn write(cct: &Cct, metric: Metric, w: &mut dyn Write) -> std::io::Result<()> {
    for (path, value) in lines(cct, metric) {
        writeln!(w, "{path} {value}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    fn text(metric: Metric) -> String {
        let mut out = Vec::new();
        write(&sample(), metric, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn calls_folded_lists_every_node_sorted() {
        assert_eq!(
            text(Metric::Calls),
            "Main.main(java.lang.String[]) 1
Main.main(java.lang.String[]);Main.work(int) 2
Main.main(java.lang.String[]);Main.work(int);java.util.HashMap.hash(java.lang.Object) 10
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String) 1
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String);Main.work(int) 1
java.lang.Thread.run() 3
java.lang.Thread.run();Main$Worker.run() 3
"
        );
    }

    #[test]
    fn time_folded_has_self_time() {
        assert_eq!(
            text(Metric::Wall),
            "Main.main(java.lang.String[]) 100
Main.main(java.lang.String[]);Main.work(int) 500
Main.main(java.lang.String[]);Main.work(int);java.util.HashMap.hash(java.lang.Object) 100
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String) 250
Main.main(java.lang.String[]);java.io.PrintStream.println(java.lang.String);Main.work(int) 50
java.lang.Thread.run() 10
java.lang.Thread.run();Main$Worker.run() 690
"
        );
        // The self times add up to the roots' inclusive times.
        let total: u64 = text(Metric::Cpu)
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, 900 + 650);
    }
}
