//! Prints how aspect files are understood: `cargo run --example ajdump -- FILE..`.
//! `.aj`/`.java` files are parsed and checked together; `.pc` files hold one
//! pointcut per line.
use major_pointcut_lang::{compile, display, parse_file, parse_pointcut, SourceFile};

fn main() {
    let mut files = Vec::new();
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read");
        if path.ends_with(".pc") {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                match parse_pointcut(&SourceFile::new("pc", line)) {
                    Ok(p) => println!("{line}\n  => {p}"),
                    Err(e) => print!("{line}\n{}", e.render()),
                }
            }
            continue;
        }
        let src = SourceFile::new(&path, text);
        match parse_file(&src) {
            Ok(u) => print!("{}", display::dump_unit(&u, src.text())),
            Err(e) => print!("{}", e.render()),
        }
        files.push(src);
    }
    if !files.is_empty() {
        match compile(files) {
            Ok(p) => print!("{}", display::dump_program(&p)),
            Err(e) => print!("{}", e.render()),
        }
    }
}
