//! Signed jars. A jar's signature (`META-INF/*.SF` with its `.RSA`, `.DSA`,
//! `.EC` block, or `SIG-*`) covers the digest of every entry, listed in the
//! manifest; once weaving changes a class, the JVM refuses to load it
//! (`SecurityException: SHA-256 digest error`). Such a jar loses its
//! signature: the signature files, and the per-entry digests of its manifest.

use major_archive::Archive;

/// What to do with a signed jar whose classes weaving changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SignedJars {
    /// Remove its signature (with a warning naming the jar).
    #[default]
    Strip,
    /// Refuse to weave it: the run fails and writes nothing.
    Refuse,
}

/// Whether `name` is a signature entry: directly in `META-INF/`, named
/// `*.SF`, `*.RSA`, `*.DSA`, `*.EC` or `SIG-*` (any case), as the JDK's jar
/// verifier sees them.
pub fn is_signature_file(name: &str) -> bool {
    let Some(file) = name.strip_prefix("META-INF/") else {
        return false;
    };
    if file.contains('/') || file.is_empty() {
        return false;
    }
    let upper = file.to_ascii_uppercase();
    upper.starts_with("SIG-")
        || [".SF", ".RSA", ".DSA", ".EC"]
            .iter()
            .any(|ext| upper.ends_with(ext) && upper.len() > ext.len())
}

/// The signature files of `a` (empty: not signed). A jar counts as signed
/// when it has a `.SF` file.
pub fn signature_files(a: &Archive) -> Vec<&str> {
    let files: Vec<&str> = a
        .entries()
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| is_signature_file(n))
        .collect();
    if files
        .iter()
        .any(|n| n.to_ascii_uppercase().ends_with(".SF"))
    {
        files
    } else {
        Vec::new()
    }
}

/// A manifest without its entry digests: from every per-entry section
/// (after the main one), the `*-Digest` attributes are removed, and a
/// section left with only its `Name` is removed whole. Everything else —
/// the main section, other attributes, line endings, continuation lines — is
/// kept as it was.
pub fn strip_digests(manifest: &[u8]) -> Vec<u8> {
    // Physical lines, each with its line ending.
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for (i, &b) in manifest.iter().enumerate() {
        let ends = b == b'\n' || (b == b'\r' && manifest.get(i + 1) != Some(&b'\n'));
        if ends {
            lines.push(&manifest[start..=i]);
            start = i + 1;
        }
    }
    if start < manifest.len() {
        lines.push(&manifest[start..]);
    }
    let is_blank = |l: &[u8]| l.iter().all(|&b| b == b'\r' || b == b'\n');
    let mut out = Vec::with_capacity(manifest.len());
    let mut k = 0;
    // The main section, up to and including its blank line.
    while k < lines.len() {
        out.extend_from_slice(lines[k]);
        k += 1;
        if is_blank(lines[k - 1]) {
            break;
        }
    }
    // Per-entry sections.
    while k < lines.len() {
        let mut section: Vec<Vec<&[u8]>> = Vec::new(); // attributes, as their lines
        let mut blank: Option<&[u8]> = None;
        while k < lines.len() {
            let l = lines[k];
            k += 1;
            if is_blank(l) {
                blank = Some(l);
                break;
            }
            match section.last_mut() {
                Some(attr) if l.first() == Some(&b' ') => attr.push(l),
                _ => section.push(vec![l]),
            }
        }
        let kept: Vec<&Vec<&[u8]>> = section
            .iter()
            .filter(|attr| {
                let name = attr[0].split(|&b| b == b':').next().unwrap_or(&[]);
                !String::from_utf8_lossy(name)
                    .to_ascii_lowercase()
                    .ends_with("-digest")
            })
            .collect();
        let only_name = kept.iter().all(|attr| {
            let name = attr[0].split(|&b| b == b':').next().unwrap_or(&[]);
            name.eq_ignore_ascii_case(b"Name")
        });
        if kept.is_empty() || (only_name && kept.len() < section.len()) {
            continue; // nothing but the name of an entry it had digests for
        }
        for attr in kept {
            for l in attr {
                out.extend_from_slice(l);
            }
        }
        if let Some(b) = blank {
            out.extend_from_slice(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_files_are_recognised() {
        for n in [
            "META-INF/ME.SF",
            "META-INF/me.rsa",
            "META-INF/X.DSA",
            "META-INF/K.EC",
            "META-INF/SIG-FOO",
        ] {
            assert!(is_signature_file(n), "{n}");
        }
        for n in [
            "META-INF/MANIFEST.MF",
            "META-INF/sub/X.SF",
            "X.SF",
            "META-INF/.SF",
            "META-INF/services/a.RSA",
        ] {
            assert!(!is_signature_file(n), "{n}");
        }
    }

    #[test]
    fn digests_are_stripped_and_the_rest_kept() {
        let m = b"Manifest-Version: 1.0\r\nMain-Class: app.Main\r\nCreated-By: 17 (x)\r\n\r\n\
Name: app/Main.class\r\nSHA-256-Digest: abc=\r\n\r\n\
Name: app/very/long/name/that/goes/on/and/on/and/on/and/on/Thing.cla\r\n ss\r\nSHA-256-Digest: def=\r\n\r\n\
Name: app/\r\nImplementation-Title: app\r\nSHA1-Digest: x\r\n\r\n";
        let s = strip_digests(m);
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "Manifest-Version: 1.0\r\nMain-Class: app.Main\r\nCreated-By: 17 (x)\r\n\r\n\
Name: app/\r\nImplementation-Title: app\r\n\r\n"
        );
        let plain = b"Manifest-Version: 1.0\nName: x\n";
        assert_eq!(strip_digests(plain), plain);
        let unsigned = b"Manifest-Version: 1.0\n\nName: a/\nSealed: true\n\n";
        assert_eq!(strip_digests(unsigned), unsigned);
    }
}
