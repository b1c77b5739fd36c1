//! The fuzz property (`major_pointcut_lang::fuzz::property`: no panic, spans inside
//! the input) over deterministic mutations of the aspects, the malformed inputs and
//! the pointcut corpus, plus hostile shapes (deep nesting, long chains). A few
//! seconds; `FUZZ_SMOKE_ITERATIONS` changes the count.

mod common;

use std::panic;

use major_pointcut_lang::fuzz::property;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\"",
    "'",
    "\"\"\"",
    "/*",
    "*/",
    "//",
    ";",
    ":",
    ",",
    ".",
    "..",
    "*",
    "+",
    "!",
    "&&",
    "||",
    "@",
    "\\",
    "\n",
    " ",
    "é",
    "call(",
    "execution(",
    "args(",
    "this(",
    "if(",
    "cflow(",
    "pointcut ",
    "before()",
    "after() returning",
    "around",
    "proceed(",
    "aspect ",
    "abstract ",
    "declare ",
    "new",
    "int",
    "x",
    "..*",
    "throws ",
    "@Before(\"",
    "@Aspect ",
];

fn seeds() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [common::aspects_dir(), common::tests_dir("malformed")] {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e != "md") {
                out.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    let corpus = std::fs::read_to_string(common::tests_dir("corpus/pointcuts.txt")).unwrap();
    for line in corpus
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        out.push(line.to_string());
        out.push(format!(
            "aspect A {{ pointcut p(Object x): {line}; before(): {line} {{ }} }}"
        ));
    }
    out
}

fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(rng: &mut Rng, seed: &str, others: &[String]) -> String {
    let mut s = seed.to_string();
    for _ in 0..1 + rng.below(4) {
        let a = boundary(&s, rng.below(s.len() + 1));
        let b = boundary(&s, a + rng.below(16));
        match rng.below(6) {
            0 => s.replace_range(a..b, ""),
            1 => s.insert_str(a, INTERESTING[rng.below(INTERESTING.len())]),
            2 => {
                let piece = s[a..b].to_string();
                s.insert_str(b, &piece);
            }
            3 => s.truncate(a),
            4 => {
                let o = &others[rng.below(others.len())];
                let x = boundary(o, rng.below(o.len() + 1));
                let y = boundary(o, x + rng.below(64));
                s.insert_str(a, &o[x..y]);
            }
            _ => {
                let c = INTERESTING[rng.below(INTERESTING.len())];
                s.replace_range(a..b, c);
            }
        }
    }
    s
}

fn check(input: &str) {
    let r = panic::catch_unwind(|| property(input));
    if let Err(e) = r {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("property failed ({msg}) on input:\n{input:?}");
    }
}

#[test]
fn mutations_never_panic() {
    let seeds = seeds();
    let iterations: usize = std::env::var("FUZZ_SMOKE_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for seed in &seeds {
        check(seed);
    }
    for _ in 0..iterations {
        let seed = &seeds[rng.below(seeds.len())];
        let m = mutate(&mut rng, seed, &seeds);
        check(&m);
    }
}

#[test]
fn hostile_shapes_are_rejected_not_crashed() {
    let deep_parens = format!("{}within(A){}", "(".repeat(5000), ")".repeat(5000));
    let deep_bangs = format!("{}within(A)", "!".repeat(5000));
    let long_chain = vec!["within(A)"; 5000].join(" && ");
    let long_or_types = format!("within({})", vec!["A"; 5000].join(" || "));
    let deep_body = format!(
        "aspect A {{ before(): call(* *(..)) {}{} }}",
        "{".repeat(5000),
        "}".repeat(5000)
    );
    let mut chain = String::from("aspect A {\n pointcut p0(): within(A);\n");
    for i in 1..40 {
        chain.push_str(&format!(
            " pointcut p{i}(): p{}() || p{}();\n",
            i - 1,
            i - 1
        ));
    }
    chain.push_str(" before(): p39() { }\n}\n");
    for input in [
        deep_parens,
        deep_bangs,
        long_chain,
        long_or_types,
        deep_body,
        chain,
    ] {
        check(&input);
    }
}
