//! `major serve`, the resident weaver, end to end: a client sends `major
//! weave` command lines over its socket (relative paths, in the client's
//! working directory), and gets the same files, byte for byte, and the same
//! messages and exit codes as the `major weave` process; incremental updates
//! through it match full weaves; bad requests are refused without stopping
//! it; it replaces a stale socket file, refuses a live one, and exits when
//! asked, when idle, and when its socket file is removed.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use major_weaver::jdk::Jdk;

/// A request's answer: exit code, standard output, standard error.
struct Answer {
    code: i32,
    out: String,
    err: String,
}

/// Sends `strings` (the protocol's magic first) and reads the answer.
fn request(socket: &Path, strings: &[&str]) -> Answer {
    let mut s = UnixStream::connect(socket).unwrap();
    let mut b = (strings.len() as u32).to_be_bytes().to_vec();
    for x in strings {
        b.extend_from_slice(&(x.len() as u32).to_be_bytes());
        b.extend_from_slice(x.as_bytes());
    }
    s.write_all(&b).unwrap();
    let mut a = Vec::new();
    s.read_to_end(&mut a).unwrap();
    let num = |at: usize| u32::from_be_bytes(a[at..at + 4].try_into().unwrap()) as usize;
    let code = num(0) as i32;
    let n = num(4);
    let out = String::from_utf8(a[8..8 + n].to_vec()).unwrap();
    let m = num(8 + n);
    let err = String::from_utf8(a[12 + n..12 + n + m].to_vec()).unwrap();
    assert_eq!(a.len(), 12 + n + m, "nothing after the answer");
    Answer { code, out, err }
}

/// `major weave <args>` through the server, in `cwd`.
fn weave_via<S: AsRef<str>>(socket: &Path, cwd: &Path, args: &[S]) -> Answer {
    let mut strings = vec!["major-serve/1", "weave", cwd.to_str().unwrap(), "weave"];
    strings.extend(args.iter().map(AsRef::as_ref));
    request(socket, &strings)
}

/// `major weave <args>` as a process, in `cwd`.
fn weave_process<S: AsRef<str>>(cwd: &Path, args: &[S]) -> Answer {
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .current_dir(cwd)
        .arg("weave")
        .args(args.iter().map(AsRef::as_ref))
        .output()
        .unwrap();
    Answer {
        code: o.status.code().unwrap(),
        out: String::from_utf8(o.stdout).unwrap(),
        err: String::from_utf8(o.stderr).unwrap(),
    }
}

/// A running server; stopped (killed) when dropped.
struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    fn start(socket: &Path, idle_seconds: u64) -> Server {
        let child = Command::new(env!("CARGO_BIN_EXE_major"))
            .args([
                "serve",
                "--idle-timeout",
                &idle_seconds.to_string(),
                "--socket",
            ])
            .arg(socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(socket).is_err() {
            assert!(
                Instant::now() < deadline,
                "the server did not start listening"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Server {
            child,
            socket: socket.to_path_buf(),
        }
    }

    /// Waits at most `limit` for the server to exit; its exit code and log.
    fn wait(mut self, limit: Duration) -> (i32, String) {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut log = String::new();
                self.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut log)
                    .unwrap();
                return (status.code().unwrap_or(-1), log);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A small program: `app.Main` calling `app.Helper`, compiled into
/// `<dir>/classes` and jarred into `<dir>/in.jar`; `None` (after printing
/// `SKIP`) without javac.
fn program(dir: &Path, helper_result: i32) -> Option<Jdk> {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return None;
    };
    let src = dir.join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("Main.java"),
        "package app;\npublic class Main {\n    public static void main(String[] a) {\n        System.out.println(Helper.value() + 1);\n    }\n}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("Helper.java"),
        format!("package app;\nclass Helper {{\n    static int value() {{\n        return {helper_result};\n    }}\n}}\n"),
    )
    .unwrap();
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-d"])
        .arg(dir.join("classes"))
        .arg(src.join("Main.java"))
        .arg(src.join("Helper.java"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(jdk.home.join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(dir.join("in.jar"))
        .arg("-C")
        .arg(dir.join("classes"))
        .arg(".")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(jdk)
}

const ASPECT: &str = "aspect Calls {\n    before(): execution(* app..*(..)) {\n        System.out.println(\"in \" + thisJoinPointStaticPart.getSignature().getName());\n    }\n}\n";

/// The report without its timings, which no two runs share.
fn report_without_timings(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.as_object_mut().unwrap().remove("timings");
    v
}

#[test]
fn the_resident_weaver_writes_what_the_command_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(jdk) = program(d, 41) else { return };
    std::fs::write(d.join("Calls.aj"), ASPECT).unwrap();
    std::fs::write(
        d.join("Broken.aj"),
        "aspect Broken {\n    before(): nonsense(* *(..)) {}\n}\n",
    )
    .unwrap();
    let home = jdk.home.to_str().unwrap().to_string();
    let cache = d.join("cache");
    let cache = cache.to_str().unwrap();
    let args = |out: &'static str| -> Vec<String> {
        [
            "--java-home",
            &home,
            "--cache-dir",
            cache,
            "--aspect",
            "Calls.aj",
            "in.jar",
            "-o",
            out,
            "--report",
            "json",
        ]
        .map(String::from)
        .to_vec()
    };
    let server = Server::start(&d.join("s.sock"), 120);

    let by_process = weave_process(d, &args("p.jar"));
    let by_server = weave_via(&server.socket, d, &args("s.jar"));
    assert_eq!(by_process.code, 0, "{}", by_process.err);
    assert_eq!(by_server.code, 0, "{}", by_server.err);
    assert_eq!(
        std::fs::read(d.join("p.jar")).unwrap(),
        std::fs::read(d.join("s.jar")).unwrap(),
        "the same woven jar"
    );
    assert_eq!(
        by_process.err.replace("p.jar", "s.jar"),
        by_server.err,
        "the same messages"
    );
    assert!(
        by_server.err.contains("woven 2 of 2 classes into s.jar"),
        "{}",
        by_server.err
    );
    let mut a = report_without_timings(&by_process.out);
    let b = report_without_timings(&by_server.out);
    a["output"] = b["output"].clone();
    assert_eq!(a, b, "the same report on standard output");
    let run = Command::new(jdk.java())
        .args(["-Xverify:all", "-cp", "s.jar", "app.Main"])
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "in main\nin value\n42\n"
    );

    // One class changed: the server updates its output incrementally, and
    // the update is what a full weave writes.
    std::fs::remove_dir_all(d.join("classes")).unwrap();
    std::fs::remove_file(d.join("in.jar")).unwrap();
    program(d, 99).unwrap();
    let update = weave_via(&server.socket, d, &args("s.jar"));
    assert_eq!(update.code, 0, "{}", update.err);
    assert!(
        update.err.contains("incremental: re-wove 1 of 2 classes"),
        "{}",
        update.err
    );
    let full = weave_process(d, &args("f.jar"));
    assert_eq!(full.code, 0, "{}", full.err);
    assert_eq!(
        std::fs::read(d.join("f.jar")).unwrap(),
        std::fs::read(d.join("s.jar")).unwrap(),
        "the update is the full weave"
    );

    // A broken aspect: the same error, naming the file and line.
    let broken = |out| {
        vec![
            "--java-home".to_string(),
            home.clone(),
            "--aspect".into(),
            "Broken.aj".into(),
            "in.jar".into(),
            "-o".into(),
            out,
        ]
    };
    let e1 = weave_process(d, &broken("b.jar".into()));
    let e2 = weave_via(&server.socket, d, &broken("b.jar".into()));
    assert_eq!((e1.code, e2.code), (2, 2));
    assert_eq!(e1.err, e2.err);
    assert!(e2.err.contains("Broken.aj"), "{}", e2.err);
    assert!(!d.join("b.jar").exists(), "nothing written on failure");

    // Usage errors, other commands, bad requests: refused, the server stays.
    let usage = weave_via(&server.socket, d, &["--bogus"]);
    assert_eq!(usage.code, 2);
    assert!(usage.err.contains("--bogus"), "{}", usage.err);
    let help = weave_via(&server.socket, d, &["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.out.contains("--aspect"), "{}", help.out);
    let other = request(
        &server.socket,
        &[
            "major-serve/1",
            "weave",
            d.to_str().unwrap(),
            "dump",
            "in.jar",
        ],
    );
    assert_eq!(other.code, 2);
    assert!(other.err.contains("`major weave` only"), "{}", other.err);
    let foreign = request(&server.socket, &["hello"]);
    assert_eq!(foreign.code, 2);
    assert!(
        foreign.err.contains("not a major-serve/1 request"),
        "{}",
        foreign.err
    );
    let nowhere = weave_via(&server.socket, &d.join("missing"), &["--help"]);
    assert_eq!(nowhere.code, 2);
    assert!(nowhere.err.contains("missing"), "{}", nowhere.err);
    // A request larger than a command line: refused before it is read.
    {
        let mut s = UnixStream::connect(&server.socket).unwrap();
        let mut b = 2u32.to_be_bytes().to_vec();
        b.extend_from_slice(&(40u32 << 20).to_be_bytes());
        s.write_all(&b).unwrap();
        let mut a = Vec::new();
        s.read_to_end(&mut a).unwrap();
        assert_eq!(&a[..4], &2i32.to_be_bytes());
        assert!(String::from_utf8_lossy(&a).contains("bad request"));
    }
    // The socket is the user's alone.
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&server.socket)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // A client that sends half a request and goes away.
    {
        let mut s = UnixStream::connect(&server.socket).unwrap();
        s.write_all(&5u32.to_be_bytes()).unwrap();
    }
    assert_eq!(
        weave_via(&server.socket, d, &["--help"]).code,
        0,
        "still serving"
    );

    // Asked to stop: it answers, exits 0 and removes its socket.
    let stop = request(&server.socket, &["major-serve/1", "stop"]);
    assert_eq!(stop.code, 0);
    let socket = server.socket.clone();
    let (code, log) = server.wait(Duration::from_secs(10));
    assert_eq!(code, 0, "{log}");
    assert!(!socket.exists(), "the socket file is removed");
    assert!(
        log.contains("-> exit 0"),
        "a line per request in the log: {log}"
    );
}

/// Makes `path` a socket file that no socket listens on, as a server that
/// died leaves it: made by `mknod`, not by binding and closing a listener
/// here. A listener this process bound would be inherited by the children
/// other tests spawn meanwhile, alive until their `exec`: a server probing
/// the file then found it live and refused it, and the test's request went
/// to that listener and was reset when the child's `exec` closed it (a CI
/// run failed so, `ECONNRESET` on the first request).
fn stale_socket(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mknod reads the NUL-terminated path and touches no other memory.
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFSOCK | 0o600, 0) };
    assert_eq!(
        rc,
        0,
        "mknod {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    let meta = std::fs::metadata(path).unwrap();
    use std::os::unix::fs::FileTypeExt;
    assert!(meta.file_type().is_socket());
    assert!(UnixStream::connect(path).is_err(), "nobody listens on it");
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    // A socket file nobody listens on any more.
    stale_socket(&socket);
    assert!(socket.exists());
    let server = Server::start(&socket, 120);
    // Serving (not only bound) before the second one comes.
    assert_eq!(weave_via(&socket, dir.path(), &["--help"]).code, 0);
    let mut second = Command::new(env!("CARGO_BIN_EXE_major"))
        .args(["serve", "--idle-timeout", "30", "--socket"])
        .arg(&socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = second.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = second.kill();
            let (_, log) = server.wait(Duration::from_secs(5));
            panic!("a second server took over a live one's socket; the first's log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
    let mut err = String::new();
    second
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("already listens"), "{err}");
    assert!(socket.exists(), "the live server's socket is left alone");
    assert_eq!(weave_via(&socket, dir.path(), &["--help"]).code, 0);
    // Its socket file removed: the server exits.
    std::fs::remove_file(&socket).unwrap();
    let (code, log) = server.wait(Duration::from_secs(10));
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("removed or replaced"), "{log}");
}

#[test]
fn an_idle_server_exits_and_removes_its_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let server = Server::start(&socket, 1);
    let (code, log) = server.wait(Duration::from_secs(15));
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("idle for 1 s"), "{log}");
    assert!(!socket.exists());
}
