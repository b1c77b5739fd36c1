//! Finding a JDK: its home, its `lib/modules` image, and its `java` launcher.

use std::path::{Path, PathBuf};

/// A JDK installation.
#[derive(Debug, Clone)]
pub struct Jdk {
    /// The JDK's home directory.
    pub home: PathBuf,
}

impl Jdk {
    /// The JDK at `home`, if it has a run-time image.
    pub fn at(home: &Path) -> Option<Jdk> {
        home.join("lib/modules").is_file().then(|| Jdk {
            home: home.to_path_buf(),
        })
    }
    /// The JDK named by `JAVA_HOME`, else the one `java` on `PATH` belongs to,
    /// else Debian's default location. A `JAVA_HOME` that names no JDK gives
    /// `None`: it is never silently replaced by another JDK
    /// ([`Jdk::locate`] says what is wrong).
    pub fn find() -> Option<Jdk> {
        Jdk::locate().ok()
    }

    /// As [`Jdk::find`], with the reason when no JDK is found: `JAVA_HOME`
    /// set to something that is not a JDK, or no JDK anywhere.
    pub fn locate() -> Result<Jdk, String> {
        if let Some(h) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
            let home = Path::new(&h);
            return Jdk::at(home).ok_or_else(|| {
                format!(
                    "JAVA_HOME={} is not a JDK (no {}): point JAVA_HOME at a JDK \
                     (e.g. /usr/lib/jvm/java-17-openjdk-amd64), unset it, or pass --jdk",
                    home.display(),
                    home.join("lib/modules").display()
                )
            });
        }
        Jdk::search_path().ok_or_else(|| {
            "no JDK found: install one (apt-get install openjdk-17-jdk-headless), \
             set JAVA_HOME or pass --jdk"
                .to_string()
        })
    }

    /// The JDK the `java` on `PATH` belongs to, else Debian's default location.
    fn search_path() -> Option<Jdk> {
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                let java = dir.join("java");
                if let Ok(real) = std::fs::canonicalize(&java) {
                    if let Some(home) = real.parent().and_then(|b| b.parent()) {
                        if let Some(j) = Jdk::at(home) {
                            return Some(j);
                        }
                    }
                }
            }
        }
        [
            "/usr/lib/jvm/default-java",
            "/usr/lib/jvm/java-17-openjdk-amd64",
        ]
        .iter()
        .find_map(|p| Jdk::at(Path::new(p)))
    }
    /// The run-time image (`lib/modules`).
    pub fn modules(&self) -> PathBuf {
        self.home.join("lib/modules")
    }
    /// The `java` launcher.
    pub fn java(&self) -> PathBuf {
        self.home.join("bin/java")
    }
    /// The feature version of the JDK (17 for `JAVA_VERSION="17.0.15"`),
    /// read from its `release` file; `None` if that file is missing or
    /// does not say.
    pub fn feature_version(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.home.join("release")).ok()?;
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
            .trim()
            .trim_matches('"');
        // "1.8.0_402" is release 8; "17.0.15", "25", "26-ea" are their first number.
        let mut parts = version.split(|c: char| !c.is_ascii_digit());
        match parts.next()?.parse().ok()? {
            1 => parts.next()?.parse().ok(),
            n => Some(n),
        }
    }

    /// The `javac` compiler, if this is a full JDK.
    pub fn javac(&self) -> Option<PathBuf> {
        let p = self.home.join("bin/javac");
        p.is_file().then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_version_from_the_release_file() {
        let d = tempfile::tempdir().unwrap();
        let jdk = Jdk {
            home: d.path().to_path_buf(),
        };
        assert_eq!(jdk.feature_version(), None);
        for (text, v) in [
            ("JAVA_VERSION=\"17.0.15\"\n", Some(17)),
            ("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25\"\n", Some(25)),
            ("JAVA_VERSION=\"1.8.0_402\"\n", Some(8)),
            ("JAVA_VERSION=\"26-ea\"\n", Some(26)),
            ("JAVA_VERSION=\"\"\n", None),
        ] {
            std::fs::write(d.path().join("release"), text).unwrap();
            assert_eq!(jdk.feature_version(), v, "{text}");
        }
    }
}
