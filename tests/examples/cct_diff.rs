//! Compares an oracle's tree with major's as the whole-tree test does
//! (`tests/tests/cct_whole_tree.rs`), for looking into a failure:
//!
//!     cargo run --release -p major-tests --example cct_diff -- JDK_HOME ORACLE.cct PROFILE.cct [LIMIT]
//!
//! prints the comparison's report: the unexplained differences first (at
//! most LIMIT, default all), then each category with its size.

use std::path::Path;

use major_tests::cct_compare::categories::{is_hidden_class, Classifier, JdkMethods};
use major_tests::cct_compare::{compare_ccts, splice, Cct};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: cct_diff JDK_HOME ORACLE.cct PROFILE.cct [LIMIT]");
        std::process::exit(2);
    }
    let jdk = JdkMethods::open(Path::new(&args[0])).unwrap_or_else(|e| panic!("{e}"));
    let whole = Cct::read(Path::new(&args[1])).unwrap_or_else(|e| panic!("{e}"));
    let mut major = Cct::read(Path::new(&args[2])).unwrap_or_else(|e| panic!("{e}"));
    // Two oracle trees (MAJOR_CCT_DIFF_SPLICE_BOTH=1): hidden classes out of
    // the right one too.
    if std::env::var_os("MAJOR_CCT_DIFF_SPLICE_BOTH").is_some() {
        major = splice(&major, &is_hidden_class).0;
    }
    let limit = args
        .get(3)
        .map_or(usize::MAX, |l| l.parse().expect("LIMIT"));
    let (oracle, hidden, calls) = splice(&whole, &is_hidden_class);
    let classifier = Classifier::new(&jdk, &oracle);
    let c = compare_ccts("oracle", &oracle, "major", &major, &|d| {
        classifier.classify(d).map(str::to_string)
    });
    println!(
        "hidden-class frames spliced out of the oracle's tree: {hidden} nodes ({calls} calls)"
    );
    print!("{}", c.report(limit));
}
