//! The Java runtime that woven code and compiled aspects call, embedded in the
//! binary.
//!
//! The classes come from `runtime-java/src/main/java`, compiled by the build
//! script with `javac --release 8` (so they load on Java 8 and later):
//!
//! * `org.aspectj.lang` and `org.aspectj.lang.reflect`: AspectJ's join point API
//!   (`JoinPoint`, `ProceedingJoinPoint`, `Signature`, `SourceLocation`, ...), so
//!   that existing advice bodies compile unchanged and print what AspectJ prints;
//! * `org.aspectj.lang.annotation`: the annotation-style annotations (`@Aspect`,
//!   `@Before`, ...);
//! * `major.runtime`: what woven code calls: `Factory` (static parts, signatures
//!   and join points from names and descriptors), `AroundClosure`,
//!   `MethodHandleClosure` (code-style `proceed(..)`) and `JoinPointClosure`
//!   (`ProceedingJoinPoint.proceed(..)`), `Conversions` (boxing), `CFlowCounter`
//!   and `CFlowStack`.

use std::path::{Path, PathBuf};

use major_archive::{ArchiveError, OutputArchive, OutputKind};
use sha2::{Digest, Sha256};

include!(concat!(env!("OUT_DIR"), "/runtime_classes.rs"));

/// The manifest written first in the runtime jar.
const MANIFEST: &[u8] = b"Manifest-Version: 1.0\r\nCreated-By: major\r\n\r\n";

/// The bytes of one runtime class, by entry name (`major/runtime/Factory.class`).
pub fn runtime_class(name: &str) -> Option<&'static [u8]> {
    RUNTIME_CLASSES
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| RUNTIME_CLASSES[i].1)
}

/// Writes every runtime class into a jar at `path` (a zip whatever the file name
/// says), after a `META-INF/MANIFEST.MF`. The bytes depend only on the embedded
/// classes: entries in name order, fixed timestamps.
pub fn write_runtime_jar(path: &Path) -> Result<(), ArchiveError> {
    let mut out = OutputArchive::create(path, OutputKind::Zip)?;
    out.write("META-INF/MANIFEST.MF", MANIFEST)?;
    for (name, bytes) in RUNTIME_CLASSES {
        out.write(name, bytes)?;
    }
    out.finish()
}

/// The SHA-256 of the embedded runtime classes (each name and bytes,
/// length-prefixed), computed once per process: the runtime jar's name, the
/// aspect cache's key and the incremental state's key all hold it, and
/// hashing the classes for each cost as much as the three together.
pub fn classes_digest() -> &'static [u8; 32] {
    static DIGEST: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    DIGEST.get_or_init(|| {
        let mut h = Sha256::new();
        for (name, bytes) in RUNTIME_CLASSES {
            h.update((name.len() as u64).to_le_bytes());
            h.update(name.as_bytes());
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        h.finalize().into()
    })
}

/// The runtime jar kept in `dir` (a cache directory), written there first if
/// it is missing or damaged: its name holds a hash of the embedded classes,
/// so one jar serves every weave by the same build of major and nothing is
/// written per weave. Its raw (compressed) entries are copied into woven
/// outputs as they are, so a damaged byte anywhere in it must be caught: the
/// BLAKE3 digest of the whole file, taken when it was written, is kept beside
/// it (`<jar>.blake3`, hex) and compared with the file's on every use (a
/// hash of its 70 KB, where inflating its classes to compare them took a
/// one-class incremental weave of guava 3% of its time). A jar or digest
/// file that is missing, damaged, or of another build is written again.
pub fn cached_runtime_jar(dir: &Path) -> Result<PathBuf, ArchiveError> {
    let hex = crate::hex::hex(&classes_digest()[..8]);
    let path = dir.join(format!("major-runtime-{hex}.jar"));
    let sum = dir.join(format!("major-runtime-{hex}.jar.blake3"));
    let digest_of =
        |jar: &Path| std::fs::read(jar).map(|bytes| blake3::hash(&bytes).to_hex().to_string());
    let intact = match (digest_of(&path), std::fs::read(&sum)) {
        (Ok(have), Ok(kept)) => have.as_bytes() == kept.as_slice(),
        _ => false,
    };
    if !intact {
        write_runtime_jar(&path)?;
        // The bytes are a function of the embedded classes (the same in every
        // process of this build), so a concurrent writer's jar is this one.
        let io = |source| ArchiveError::Io {
            path: sum.clone(),
            entry: None,
            source,
        };
        let digest = digest_of(&path).map_err(io)?;
        // Into place by rename (a temporary removed if that fails), as the
        // aspect cache writes its entries.
        let mut tmp = tempfile::Builder::new()
            .prefix(".major-runtime-")
            .tempfile_in(dir)
            .map_err(io)?;
        std::io::Write::write_all(&mut tmp, digest.as_bytes()).map_err(io)?;
        tmp.persist(&sum).map_err(|e| io(e.error))?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use major_archive::Archive;

    /// The cached jar is written once, reused, and rewritten when damaged.
    #[test]
    fn cached_jar_is_reused_and_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let jar = cached_runtime_jar(dir.path()).unwrap();
        let written = std::fs::metadata(&jar).unwrap().modified().unwrap();
        let a = Archive::open(&jar).unwrap();
        assert_eq!(a.entries().len(), RUNTIME_CLASSES.len() + 1);
        assert_eq!(cached_runtime_jar(dir.path()).unwrap(), jar);
        assert_eq!(
            std::fs::metadata(&jar).unwrap().modified().unwrap(),
            written
        );
        // A jar with the right number of entries but another class in it.
        {
            let mut out =
                major_archive::OutputArchive::create(&jar, major_archive::OutputKind::Zip).unwrap();
            for (i, (name, _)) in RUNTIME_CLASSES.iter().enumerate() {
                out.write(
                    name,
                    if i == 0 {
                        b"\xCA\xFE\xBA\xBE other"
                    } else {
                        RUNTIME_CLASSES[i].1
                    },
                )
                .unwrap();
            }
            out.write("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n")
                .unwrap();
            out.finish().unwrap();
        }
        assert_eq!(
            Archive::open(&jar).unwrap().entries().len(),
            RUNTIME_CLASSES.len() + 1
        );
        assert_eq!(cached_runtime_jar(dir.path()).unwrap(), jar);
        let a = Archive::open(&jar).unwrap();
        assert_eq!(
            &*a.read(a.find(RUNTIME_CLASSES[0].0).unwrap()).unwrap(),
            RUNTIME_CLASSES[0].1
        );
        std::fs::write(&jar, b"damaged").unwrap();
        assert_eq!(cached_runtime_jar(dir.path()).unwrap(), jar);
        assert_eq!(
            Archive::open(&jar).unwrap().entries().len(),
            RUNTIME_CLASSES.len() + 1
        );
        let good = std::fs::read(&jar).unwrap();
        // One byte flipped in the middle (compressed class data; the central
        // directory still reads): written again.
        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x40;
        std::fs::write(&jar, &flipped).unwrap();
        cached_runtime_jar(dir.path()).unwrap();
        assert_eq!(std::fs::read(&jar).unwrap(), good);
        // A damaged or missing digest file: the jar written again, the
        // digest with it.
        let sum = dir.path().join(format!(
            "{}.blake3",
            jar.file_name().unwrap().to_str().unwrap()
        ));
        let kept = std::fs::read(&sum).unwrap();
        assert_eq!(kept, blake3::hash(&good).to_hex().as_bytes());
        for damage in [Some(&b"0000"[..]), None] {
            match damage {
                Some(bytes) => std::fs::write(&sum, bytes).unwrap(),
                None => std::fs::remove_file(&sum).unwrap(),
            }
            std::fs::write(&jar, &flipped).unwrap();
            cached_runtime_jar(dir.path()).unwrap();
            assert_eq!(std::fs::read(&jar).unwrap(), good);
            assert_eq!(std::fs::read(&sum).unwrap(), kept);
        }
        // Nothing else left in the directory (no temporary file).
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn classes_are_sorted_and_complete() {
        assert!(RUNTIME_CLASSES.windows(2).all(|w| w[0].0 < w[1].0));
        for name in [
            "org/aspectj/lang/JoinPoint.class",
            "org/aspectj/lang/JoinPoint$StaticPart.class",
            "org/aspectj/lang/ProceedingJoinPoint.class",
            "org/aspectj/lang/reflect/MethodSignature.class",
            "org/aspectj/lang/annotation/Around.class",
            "major/runtime/Factory.class",
            "major/runtime/MethodHandleClosure.class",
            "major/runtime/JoinPointClosure.class",
            "major/runtime/Conversions.class",
            "major/runtime/CFlowStack.class",
        ] {
            let bytes = runtime_class(name).unwrap_or_else(|| panic!("{name} is missing"));
            assert_eq!(&bytes[..4], &[0xCA, 0xFE, 0xBA, 0xBE], "{name}");
            // Major version 52: loadable on Java 8.
            assert_eq!(u16::from_be_bytes([bytes[6], bytes[7]]), 52, "{name}");
        }
        assert!(runtime_class("major/runtime/Nope.class").is_none());
    }

    #[test]
    fn jar_is_deterministic() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jar");
        let b = dir.path().join("b.jar");
        write_runtime_jar(&a).unwrap();
        write_runtime_jar(&b).unwrap();
        let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        assert_eq!(a, b);
        assert_eq!(&a[..2], b"PK");
    }
}
