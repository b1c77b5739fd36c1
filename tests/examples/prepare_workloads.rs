//! Prepares the workloads (drivers compiled into jars, inputs generated) into
//! a directory, as the tests do, and prints each one's class path, main class
//! and input directory (for benchmarks that run them by hand):
//!
//!     cargo run --release -p major-tests --example prepare_workloads -- JAVA_HOME DIR [NAME...]
//!
//! Each printed line: `NAME<TAB>CLASS_PATH<TAB>MAIN_CLASS<TAB>INPUTS`.

use std::path::Path;

use major_tests::workloads::{all, by_name, prepare};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: prepare_workloads JAVA_HOME DIR [NAME...]");
        std::process::exit(2);
    }
    let prepared = prepare(Path::new(&args[0]), Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("prepare_workloads: {e}");
        std::process::exit(1);
    });
    let chosen: Vec<_> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|n| {
                by_name(n).unwrap_or_else(|| {
                    eprintln!("prepare_workloads: no workload called {n}");
                    std::process::exit(2);
                })
            })
            .collect()
    } else {
        all()
    };
    for w in chosen {
        let cp = std::env::join_paths(prepared.class_path(&w)).expect("class path");
        println!(
            "{}\t{}\t{}\t{}",
            w.name,
            cp.to_string_lossy(),
            w.main_class(),
            prepared.inputs(&w).display()
        );
    }
}
