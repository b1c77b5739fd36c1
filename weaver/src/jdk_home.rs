//! A new JDK home made from an installed one: every file of the original
//! shared (a hard link where the file system allows, a copy elsewhere) but
//! for those the caller leaves out to write its own (a woven `lib/modules`,
//! a class-data-sharing archive made for it).
//!
//! HotSpot finds its home from the real path of `libjvm.so` (symbolic links
//! resolved), so the files of the home are never symbolic links into the
//! original home: a link that points inside it becomes the file (or
//! directory) it points to; one that points outside (Debian's
//! `lib/jvm.cfg -> /etc/...`) stays a symbolic link, made absolute.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Fills `home` (created if missing) with the files of the JDK home
/// `original`, leaving out every path (relative to the home) for which
/// `leave_out` answers true. Returns how many files were copied rather than
/// linked.
pub fn assemble(
    original: &Path,
    home: &Path,
    leave_out: &dyn Fn(&Path) -> bool,
) -> io::Result<usize> {
    let original = fs::canonicalize(original)?;
    fs::create_dir_all(home)?;
    let mut copies = 0;
    fill(
        &original,
        &original,
        home,
        Path::new(""),
        leave_out,
        &mut copies,
    )?;
    Ok(copies)
}

fn fill(
    root: &Path,
    from: &Path,
    to: &Path,
    relative: &Path,
    leave_out: &dyn Fn(&Path) -> bool,
    copies: &mut usize,
) -> io::Result<()> {
    let mut items: Vec<_> = fs::read_dir(from)?.collect::<Result<_, _>>()?;
    items.sort_by_key(|e| e.file_name());
    for item in items {
        let rel: PathBuf = relative.join(item.file_name());
        if leave_out(&rel) {
            continue;
        }
        let source = item.path();
        let target = to.join(item.file_name());
        let mut kind = item.file_type()?;
        let mut real = source.clone();
        if kind.is_symlink() {
            match fs::canonicalize(&source) {
                // Inside the home: the file or directory itself.
                Ok(t) if t.starts_with(root) => {
                    kind = fs::metadata(&t)?.file_type();
                    real = t;
                }
                // Elsewhere: the same target, by its absolute path.
                Ok(t) => {
                    std::os::unix::fs::symlink(&t, &target)?;
                    continue;
                }
                // A dangling link stays as it is.
                Err(_) => {
                    std::os::unix::fs::symlink(fs::read_link(&source)?, &target)?;
                    continue;
                }
            }
        }
        if kind.is_dir() {
            fs::create_dir_all(&target)?;
            fill(root, &real, &target, &rel, leave_out, copies)?;
        } else if fs::hard_link(&real, &target).is_err() {
            fs::copy(&real, &target)?;
            *copies += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_files_resolves_inner_links_and_leaves_out() {
        let d = tempfile::tempdir().unwrap();
        let jdk = d.path().join("jdk");
        fs::create_dir_all(jdk.join("lib/server")).unwrap();
        fs::create_dir_all(d.path().join("etc")).unwrap();
        fs::write(jdk.join("lib/server/libjvm.so"), b"jvm").unwrap();
        fs::write(jdk.join("lib/modules"), b"image").unwrap();
        fs::write(d.path().join("etc/jvm.cfg"), b"cfg").unwrap();
        std::os::unix::fs::symlink("../../etc/jvm.cfg", jdk.join("lib/jvm.cfg")).unwrap();
        std::os::unix::fs::symlink("server/libjvm.so", jdk.join("lib/libjvm-link.so")).unwrap();
        let home = d.path().join("home");
        assemble(&jdk, &home, &|p| p == Path::new("lib/modules")).unwrap();
        assert_eq!(fs::read(home.join("lib/server/libjvm.so")).unwrap(), b"jvm");
        assert!(!home.join("lib/modules").exists());
        // A link inside the home became the file; one outside stays a link.
        let inner = fs::symlink_metadata(home.join("lib/libjvm-link.so")).unwrap();
        assert!(inner.file_type().is_file());
        let outer = fs::read_link(home.join("lib/jvm.cfg")).unwrap();
        assert!(outer.is_absolute(), "{}", outer.display());
        assert_eq!(fs::read(home.join("lib/jvm.cfg")).unwrap(), b"cfg");
    }
}
