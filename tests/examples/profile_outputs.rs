//! Writes the outputs of a raw profile as `major profile` does (for sizing
//! them on real trees):
//!
//!     cargo run --release -p major-tests --example profile_outputs -- PROFILE.cct OUT_DIR [--all-contexts | FRACTION]

use std::path::Path;
use std::time::Instant;

use major_weaver::profile::{write_profile_outputs, Cct, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: profile_outputs PROFILE.cct OUT_DIR [--all-contexts]");
        std::process::exit(2);
    }
    let cct = Cct::read(Path::new(&args[0])).unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let mut options = Options::default();
    match args.get(2).map(String::as_str) {
        Some("--all-contexts") => options.full_limit = None,
        Some(f) => options.min_fraction = f.parse().expect("FRACTION"),
        None => {}
    }
    let written = write_profile_outputs(&cct, Path::new(&args[1]), &options)
        .unwrap_or_else(|e| panic!("{e}"));
    for f in &written.files {
        let size = std::fs::metadata(f).map_or(0, |m| m.len());
        println!("{:>12} {}", size, f.display());
    }
    if let Some(note) = written.pruned_note() {
        println!("{note}");
    }
    println!(
        "{} contexts, {:.1} s",
        cct.nodes.len(),
        start.elapsed().as_secs_f64()
    );
}
