//! Distribution: the `major` binary alone is the whole tool (the runtime
//! classes are inside it), and its shell completions and manual pages come
//! from the same command-line definition as `--help`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn major_in(cwd: &Path, exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn major(args: &[&str]) -> Output {
    major_in(
        &std::env::temp_dir(),
        Path::new(env!("CARGO_BIN_EXE_major")),
        args,
    )
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The subcommands `major --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let names = commands_in(&ok(&major(&["--help"])));
    for known in [
        "weave",
        "run",
        "dump",
        "check",
        "demo",
        "completions",
        "man",
    ] {
        assert!(names.iter().any(|n| n == known), "{known} not in {names:?}");
    }
    names
}

/// The commands a `--help` text lists (none without a `Commands:` section),
/// `help` left out.
fn commands_in(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// Whether `shell` is installed; prints why a check is skipped if not.
fn have(shell: &str) -> bool {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIP (syntax check only): {shell} is not installed");
    }
    found
}

#[test]
fn completions_parse_and_name_every_subcommand() {
    let commands = subcommands();
    let dir = tempfile::tempdir().unwrap();
    for (shell, check) in [
        ("bash", Some(&["-n"][..])),
        ("zsh", Some(&["-n"][..])),
        ("fish", Some(&["--no-execute"][..])),
        ("elvish", None),
        ("powershell", None),
    ] {
        let script = ok(&major(&["completions", shell]));
        for c in &commands {
            assert!(script.contains(c.as_str()), "{shell}: no {c}");
        }
        // Options of the subcommands too (fish writes `-l report`).
        assert!(script.contains("report"), "{shell}: no --report");
        let file = dir.path().join(format!("major.{shell}"));
        std::fs::write(&file, &script).unwrap();
        if let Some(args) = check {
            if have(shell) {
                let o = Command::new(shell).args(args).arg(&file).output().unwrap();
                assert!(
                    o.status.success(),
                    "{shell} rejects the script: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
    // Bash completes the subcommands for real.
    let probe = format!(
        "source {}; COMP_WORDS=(major we); COMP_CWORD=1; _major major we major; echo \"${{COMPREPLY[@]}}\"",
        dir.path().join("major.bash").display()
    );
    let o = Command::new("bash").arg("-c").arg(&probe).output().unwrap();
    assert_eq!(ok(&o).trim(), "weave");
    assert!(!major(&["completions", "tcsh"]).status.success());
}

#[test]
fn manual_pages_cover_every_subcommand() {
    let commands = subcommands();
    let page = ok(&major(&["man"]));
    assert!(page.contains("\n.TH major 1 "), "{page}");
    assert!(
        page.contains("major \\- An aspect weaver for Java bytecode"),
        "the NAME line: {page}"
    );
    for c in &commands {
        assert!(page.contains(c.as_str()), "major.1 does not name {c}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    ok(&major(&["man", "-o", out.to_str().unwrap()]));
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // A page per command, and per command of a command (`major cache clear`).
    let mut expected = vec!["major.1".to_string()];
    for c in &commands {
        expected.push(format!("major-{c}.1"));
        for sub in commands_in(&ok(&major(&[c, "--help"]))) {
            expected.push(format!("major-{c}-{sub}.1"));
        }
    }
    expected.sort();
    assert_eq!(files, expected);
    let weave = std::fs::read_to_string(out.join("major-weave.1")).unwrap();
    for option in ["\\-\\-report", "\\-\\-aspect", "\\-\\-jdk"] {
        assert!(weave.contains(option), "major-weave.1 has no {option}");
    }
    // The pages render without warnings where groff is installed.
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("SKIP (rendering): groff is not installed");
        return;
    }
    for f in &files {
        let o = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .arg(out.join(f))
            .output()
            .unwrap();
        let text = ok(&o);
        let warnings = String::from_utf8_lossy(&o.stderr);
        assert!(warnings.trim().is_empty(), "{f}: {warnings}");
        assert!(text.contains("major"), "{f} renders empty");
    }
}

/// The binary copied alone into an empty directory, run from another one,
/// with an empty home and cache: `major demo` compiles, weaves (the JDK,
/// with the runtime classes from inside the binary) and runs its program.
#[test]
fn the_binary_alone_runs_the_demo() {
    let Some(jdk) = major_weaver::jdk::Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac (set JAVA_HOME)");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    let cwd = root.path().join("elsewhere");
    let home = root.path().join("home");
    for d in [&bin, &cwd, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let exe: PathBuf = bin.join("major");
    std::fs::copy(env!("CARGO_BIN_EXE_major"), &exe).unwrap();
    let mut demo = Command::new(&exe);
    demo.current_dir(&cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .arg("demo")
        .arg("--jdk")
        .arg(&jdk.home);
    let o = output_of_fresh_copy(&mut demo);
    let out = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(out.contains("total area of 6 shapes: 58"), "{out}");
    // The aspect's own report, from the woven program.
    let tracker = err
        .lines()
        .chain(out.lines())
        .find(|l| l.starts_with("ObjectTracker: "))
        .unwrap_or_else(|| panic!("the woven program did not report:\n{out}\n{err}"));
    assert!(tracker.contains(" allocations"), "{tracker}");
    // It left nothing in the working directory, and only its cache in HOME.
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
    let bin_files: Vec<_> = std::fs::read_dir(&bin).unwrap().collect();
    assert_eq!(bin_files.len(), 1, "files appeared beside the binary");
}

/// Runs `c`, whose program was just written: while the copy was open for
/// writing, another test of this process may have forked a child that still
/// holds that descriptor until it execs, and executing the file then fails
/// with ETXTBSY ("Text file busy"). Retried a few times, as that window
/// closes in milliseconds.
fn output_of_fresh_copy(c: &mut Command) -> Output {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match c.output() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            r => return r.unwrap(),
        }
    }
}
