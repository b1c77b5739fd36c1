//! The fuzz property ([`major_classfile::selfcheck::check_bytes`]) as a smoke test:
//! real class files, unchanged and under thousands of deterministic mutations.
//!
//! Seeds are the fixtures in `tests/data/` (compiled from `tests/data/src/` with
//! `javac --release 11 -g -d tests/data tests/data/src/*.java`) plus, when `javac`
//! is on the PATH, a few classes compiled at test time with the local compiler's
//! default release.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use major_classfile::rewrite::{reencode_class, Mode};
use major_classfile::selfcheck::{check_bytes, EmptyHierarchy};
use major_classfile::{ClassFile, CodeAttribute};

const FIXTURES: [&str; 4] = ["Switches", "TryFinally", "Lambdas", "Greeter"];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    FIXTURES
        .iter()
        .map(|n| {
            let p = data_dir().join(format!("{n}.class"));
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (n.to_string(), b)
        })
        .collect()
}

/// Java sources compiled at test time (when `javac` exists): features the
/// `--release 11` fixtures cannot have (records, switch expressions, pattern
/// matching) and a method with more than 256 locals (`wide`).
const RUNTIME_SOURCES: &[(&str, &str)] = &[
    (
        "Point.java",
        r#"public record Point(int x, int y) {
    public Point {
        if (x < 0) throw new IllegalArgumentException("x " + x);
    }
    public static String kind(Object o) {
        if (o instanceof Point p && p.x() == p.y()) return "diagonal";
        return switch (o.hashCode() % 4) {
            case 0 -> "zero";
            case 1, 2 -> "small";
            default -> { String s = "other"; yield s + o; }
        };
    }
}
"#,
    ),
    (
        "Sealed.java",
        r#"public sealed interface Sealed permits Sealed.A, Sealed.B {
    final class A implements Sealed {}
    final class B implements Sealed {
        enum Color { RED, GREEN }
        int pick(Color c) {
            switch (c) { case RED: return 1; default: return 2; }
        }
    }
}
"#,
    ),
];

/// A method with 300 `long` locals, so loads and stores need `wide`.
fn many_locals_source() -> String {
    let mut s = String::from("public class ManyLocals {\n  public static long f(long a) {\n");
    for i in 0..300 {
        s.push_str(&format!("    long v{i} = a + {i}L;\n"));
    }
    s.push_str("    long t = 0;\n");
    for i in (0..300).step_by(7) {
        s.push_str(&format!("    t += v{i}; v{i} += 1000;\n"));
    }
    s.push_str("    return t;\n  }\n}\n");
    s
}

/// The runtime-compiled seeds (compiled once per test process; empty, with the
/// reason printed, when `javac` is missing or fails).
fn compiled_at_test_time() -> Vec<(String, Vec<u8>)> {
    static SEEDS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    SEEDS.get_or_init(|| compile().unwrap_or_default()).clone()
}

fn compile() -> Option<Vec<(String, Vec<u8>)>> {
    if Command::new("javac").arg("-version").output().is_err() {
        eprintln!("fuzz_smoke: skipping runtime-compiled seeds: javac is not on the PATH");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("major-fuzz-smoke-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).ok()?;
    let mut srcs = Vec::new();
    for (name, text) in RUNTIME_SOURCES {
        let p = dir.join(name);
        std::fs::write(&p, text).ok()?;
        srcs.push(p);
    }
    let p = dir.join("ManyLocals.java");
    std::fs::write(&p, many_locals_source()).ok()?;
    srcs.push(p);
    let out = Command::new("javac")
        .arg("-g")
        .arg("-d")
        .arg(&dir)
        .args(&srcs)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "fuzz_smoke: skipping runtime-compiled seeds: javac failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    let mut classes = Vec::new();
    for e in std::fs::read_dir(&dir).ok()?.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "class") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            classes.push((name, std::fs::read(&p).ok()?));
        }
    }
    classes.sort();
    let _ = std::fs::remove_dir_all(&dir);
    Some(classes)
}

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: [u8; 6] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE];
const INTERESTING16: [u16; 6] = [0xFFFF, 0x8000, 0x7FFF, 0x0100, 0x00FF, 0];

/// One random mutation of `seed`.
fn mutate(seed: &[u8], code: &[(usize, usize)], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    let n = b.len();
    // Bias some picks to the header and pool, and some into method bodies
    // (`code` holds the bytecode ranges), where most structure sits.
    let pos = |rng: &mut Rng| match rng.below(4) {
        0 => rng.below(n.min(64)),
        1 if !code.is_empty() => {
            let (s, e) = code[rng.below(code.len())];
            s + rng.below(e - s)
        }
        _ => rng.below(n),
    };
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        if b.is_empty() {
            break;
        }
        let n = b.len();
        let pick = rng.below(8);
        if n < 2 && matches!(pick, 3 | 6) {
            continue;
        }
        match pick {
            0 => {
                let i = pos(rng).min(n - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = pos(rng).min(n - 1);
                b[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            2 => {
                let i = pos(rng).min(n - 1);
                b[i] = rng.next() as u8;
            }
            3 => {
                // A u16 field set to a large (or boundary) value.
                let i = pos(rng).min(n.saturating_sub(2));
                let v = INTERESTING16[rng.below(INTERESTING16.len())];
                b[i..i + 2].copy_from_slice(&v.to_be_bytes());
            }
            4 => {
                // Duplicate a range in place.
                let s = rng.below(n);
                let len = 1 + rng.below(32.min(n - s));
                let chunk = b[s..s + len].to_vec();
                let at = rng.below(n + 1);
                b.splice(at..at, chunk);
            }
            5 => {
                // Remove a range.
                let s = rng.below(n);
                let len = 1 + rng.below(16.min(n - s));
                b.drain(s..s + len);
            }
            6 => {
                // Small add/subtract on a u16 (lengths and indices).
                let i = pos(rng).min(n.saturating_sub(2));
                let v = u16::from_be_bytes([b[i], b[i + 1]]);
                let d = 1 + rng.below(4) as u16;
                let v = if rng.below(2) == 0 {
                    v.wrapping_add(d)
                } else {
                    v.wrapping_sub(d)
                };
                b[i..i + 2].copy_from_slice(&v.to_be_bytes());
            }
            _ => {
                // Truncate.
                b.truncate(rng.below(n));
            }
        }
    }
    b
}

/// Byte ranges of the bytecode of every method body of `class`.
fn code_ranges(class: &[u8]) -> Vec<(usize, usize)> {
    let c = ClassFile::parse(class).expect("seeds parse");
    c.methods
        .iter()
        .filter_map(|m| m.attribute("Code"))
        .map(|a| {
            let p = CodeAttribute::parse(a, &c.pool).expect("seed code parses");
            (p.code_offset, p.code_offset + p.code.len())
        })
        .filter(|(s, e)| s < e)
        .collect()
}

#[test]
fn seeds_round_trip_exactly() {
    let mut seeds = fixtures();
    seeds.extend(compiled_at_test_time());
    let mut methods = 0;
    for (name, bytes) in &seeds {
        check_bytes(bytes);
        // Real javac output is canonical: Identity must succeed, not just not panic.
        ClassFile::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (out, stats) = reencode_class(bytes, Mode::Identity, &EmptyHierarchy)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&out, bytes, "{name}");
        methods += stats.methods;
    }
    assert!(methods > 20, "{methods} method bodies");
    let names: Vec<&str> = seeds.iter().map(|s| s.0.as_str()).collect();
    eprintln!(
        "fuzz_smoke: {} seed classes ({methods} method bodies) round-trip exactly: {}",
        seeds.len(),
        names.join(" ")
    );
}

#[test]
fn truncations_at_every_length() {
    let start = Instant::now();
    let mut n = 0;
    for (_, bytes) in fixtures() {
        for len in 0..bytes.len() {
            check_bytes(&bytes[..len]);
            n += 1;
            assert!(
                ClassFile::parse(&bytes[..len]).is_err(),
                "a truncated class must not parse (length {len})"
            );
        }
    }
    eprintln!("fuzz_smoke: {n} truncations in {:?}", start.elapsed());
}

#[test]
fn single_byte_overwrites() {
    // Every position of the smallest fixtures, with each interesting value.
    let start = Instant::now();
    let mut n = 0;
    for (_, bytes) in fixtures().into_iter().filter(|(name, _)| name != "Lambdas") {
        let mut b = bytes.clone();
        for i in 0..b.len() {
            let orig = b[i];
            for v in INTERESTING {
                if v != orig {
                    b[i] = v;
                    check_bytes(&b);
                    n += 1;
                }
            }
            b[i] = orig;
        }
    }
    eprintln!(
        "fuzz_smoke: {n} single-byte overwrites in {:?}",
        start.elapsed()
    );
}

#[test]
fn random_mutations() {
    let start = Instant::now();
    let mut seeds = fixtures();
    seeds.extend(compiled_at_test_time());
    // `MAJOR_FUZZ_SMOKE_ITERS` / `MAJOR_FUZZ_SMOKE_SEED` scale a longer local run.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let per_seed = env("MAJOR_FUZZ_SMOKE_ITERS").unwrap_or(2500);
    let mut rng = Rng(env("MAJOR_FUZZ_SMOKE_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15) | 1);
    let mut parsed = 0;
    let mut total = 0;
    for (_, seed) in &seeds {
        let code = code_ranges(seed);
        for _ in 0..per_seed {
            let m = mutate(seed, &code, &mut rng);
            check_bytes(&m);
            total += 1;
            if ClassFile::parse(&m).is_ok() {
                parsed += 1;
            }
        }
    }
    eprintln!(
        "fuzz_smoke: {total} random mutations of {} seeds ({parsed} still parsed) in {:?}",
        seeds.len(),
        start.elapsed()
    );
}
