//! `major serve`: a resident weaver. It listens on a Unix socket and runs
//! `major weave` for each client that connects, in its own process, so that a
//! build tool that weaves often (the Maven plugin, once per module and per
//! build) pays neither a process start nor the loading of the binary's pages
//! per weave: what is left of a one-class update is the update itself.
//!
//! One request at a time, each in the client's working directory, with the
//! server's environment (`JAVA_HOME`, `MAJOR_CACHE_DIR`, `NO_COLOR`: those it
//! was started with). The output is what `major weave` run as a process
//! would write: the same files, byte for byte (the weave is the same code),
//! and the same messages, sent back to the client with the exit code.
//!
//! The protocol, on a stream socket: the client sends a request, the server
//! answers and closes the connection. Numbers are 32-bit big-endian (Java's
//! `DataOutputStream`); a string is its length in bytes, then its UTF-8.
//!
//! ```text
//! request: count, then `count` strings: "major-serve/1", the verb, ...
//!          verb "weave": then the working directory, then the arguments
//!                        after `major` (`weave --aspect A.aj in -o out`)
//!          verb "stop":  nothing more; the server answers, then exits
//! answer:  exit code, standard output (string), standard error (string)
//! ```
//!
//! The server exits after `--idle-timeout` seconds without a request, or when
//! its socket file is removed or replaced (by another server), and removes
//! its socket file when it exits.

use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use major_weaver::report::MajorError;

use crate::weave_command::{self, Console};
use crate::{Cli, Command};

/// A line in the server's log (its standard error), which may be gone (a
/// closed terminal): the server goes on without it.
macro_rules! log {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The first string of every request: the protocol and its version.
const MAGIC: &str = "major-serve/1";

/// The most strings a request may hold, and the most bytes of them all: a
/// command line, not a file.
const MAX_STRINGS: u32 = 1 << 16;
/// See [`MAX_STRINGS`].
const MAX_BYTES: usize = 16 << 20;

/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How often the watchdog looks at the clock and the socket file.
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// What the server shares with its watchdog: the time of the last request.
/// Held while a request runs, so that the watchdog never stops the server
/// in the middle of a weave.
struct Idle {
    since: Instant,
}

/// Runs the server on `socket` until it has been idle for `idle` (or its
/// socket file is gone, or a client asked it to stop).
pub(crate) fn serve(socket: &Path, idle: Duration) -> Result<(), MajorError> {
    let listener = bind(socket)?;
    // A server started by a build (the Maven plugin) leaves the build's
    // session: the build's Ctrl-C or its terminal's hang-up do not end it.
    // One started as a job of a shell leads its process group already, and
    // stays (best effort: its failure changes nothing).
    // SAFETY: setsid(2) takes no arguments and touches no memory.
    unsafe {
        libc::setsid();
    }
    let inode = inode_of(socket);
    log!(
        "major serve: listening on {} (pid {}, exits after {} s idle)",
        socket.display(),
        std::process::id(),
        idle.as_secs()
    );
    let state = Arc::new(Mutex::new(Idle {
        since: Instant::now(),
    }));
    watch(state.clone(), socket.to_path_buf(), inode, idle);
    let home = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    // What a weave leaves for later is done once its client has its answer.
    major_weaver::later::defer();
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
        let started = Instant::now();
        let cpu = cpu_time();
        let (answer, stop) = match read_request(&mut stream) {
            Ok(request) => handle(request, &home),
            Err(e) => (
                Answer::error(2, format!("major serve: bad request: {e}\n")),
                false,
            ),
        };
        // A client gone before its answer loses only that answer.
        let _ = stream
            .write_all(&answer.encode())
            .and_then(|()| stream.flush());
        drop(stream);
        log!(
            "major serve: {} -> exit {} in {:.1} ms (cpu {:.1} ms)",
            answer.what,
            answer.code,
            started.elapsed().as_secs_f64() * 1e3,
            (cpu_time() - cpu).as_secs_f64() * 1e3
        );
        major_weaver::later::run_deferred();
        guard.since = Instant::now();
        drop(guard);
        if stop {
            break;
        }
    }
    remove_own_socket(socket, inode);
    Ok(())
}

/// The CPU time (user and system) of the whole process so far, its threads
/// that ended included.
fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let d = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    d(usage.ru_utime) + d(usage.ru_stime)
}

/// Binds `socket`. A socket file left by a server that is gone is replaced;
/// one a live server listens on is not.
fn bind(socket: &Path) -> Result<UnixListener, MajorError> {
    let fail = |e: std::io::Error| MajorError::Usage(format!("{}: {e}", socket.display()));
    // Whoever can connect can weave as this user: the socket is the user's
    // alone, whatever the umask (its directory should be too).
    let private = |l: UnixListener| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
            .map(|()| l)
            .map_err(fail)
    };
    match UnixListener::bind(socket) {
        Ok(l) => private(l),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            if UnixStream::connect(socket).is_ok() {
                return Err(MajorError::Usage(format!(
                    "{}: a resident weaver already listens there",
                    socket.display()
                )));
            }
            std::fs::remove_file(socket).map_err(fail)?;
            UnixListener::bind(socket).map_err(fail).and_then(private)
        }
        Err(e) => Err(fail(e)),
    }
}

/// Starts the watchdog: it exits the process once the server has been idle
/// for `idle`, or once `socket` is no longer the file the server bound.
fn watch(state: Arc<Mutex<Idle>>, socket: PathBuf, inode: Option<u64>, idle: Duration) {
    std::thread::spawn(move || loop {
        std::thread::sleep(WATCH_EVERY);
        // Held from here to the exit: no request starts meanwhile.
        let guard = state.lock().unwrap_or_else(|p| p.into_inner());
        if inode_of(&socket) != inode {
            log!(
                "major serve: {} was removed or replaced; exiting",
                socket.display()
            );
            std::process::exit(0);
        }
        if guard.since.elapsed() >= idle {
            log!("major serve: idle for {} s; exiting", idle.as_secs());
            remove_own_socket(&socket, inode);
            std::process::exit(0);
        }
    });
}

/// The inode of the file at `socket`, if any: whether it is still the one
/// this server bound.
fn inode_of(socket: &Path) -> Option<u64> {
    std::fs::metadata(socket).map(|m| m.ino()).ok()
}

/// Removes `socket` if it is still the file this server bound.
fn remove_own_socket(socket: &Path, inode: Option<u64>) {
    if inode_of(socket) == inode {
        let _ = std::fs::remove_file(socket);
    }
}

/// Reads a request: its strings.
fn read_request(stream: &mut UnixStream) -> std::io::Result<Vec<String>> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let count = read_u32(stream)?;
    if count > MAX_STRINGS {
        return Err(bad(format!("{count} strings")));
    }
    let mut strings = Vec::with_capacity(count as usize);
    let mut total = 0;
    for _ in 0..count {
        let len = read_u32(stream)?;
        total += len as usize;
        if total > MAX_BYTES {
            return Err(bad(format!("more than {MAX_BYTES} bytes")));
        }
        let mut bytes = vec![0; len as usize];
        stream.read_exact(&mut bytes)?;
        strings.push(String::from_utf8(bytes).map_err(|_| bad("a string not UTF-8".into()))?);
    }
    Ok(strings)
}

fn read_u32(stream: &mut UnixStream) -> std::io::Result<u32> {
    let mut b = [0; 4];
    stream.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

/// The answer to a request.
struct Answer {
    code: i32,
    out: Vec<u8>,
    err: Vec<u8>,
    /// What the request was, for the server's own log.
    what: String,
}

impl Answer {
    /// Exit 0 with nothing printed, for the request `what`.
    fn empty(what: String) -> Answer {
        Answer {
            code: 0,
            out: Vec::new(),
            err: Vec::new(),
            what,
        }
    }

    fn error(code: i32, message: String) -> Answer {
        Answer {
            code,
            err: message.into_bytes(),
            ..Answer::empty("refused".into())
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(12 + self.out.len() + self.err.len());
        b.extend_from_slice(&self.code.to_be_bytes());
        for s in [&self.out, &self.err] {
            // Messages, far below 4 GiB.
            b.extend_from_slice(&(s.len() as u32).to_be_bytes());
            b.extend_from_slice(s);
        }
        b
    }
}

/// Handles one request; whether the server stops after answering it.
fn handle(request: Vec<String>, home: &Path) -> (Answer, bool) {
    let mut strings = request.into_iter();
    if strings.next().as_deref() != Some(MAGIC) {
        return (
            Answer::error(2, format!("major serve: not a {MAGIC} request\n")),
            false,
        );
    }
    match strings.next().as_deref() {
        Some("stop") => (Answer::empty("stop".into()), true),
        Some("weave") => {
            let Some(cwd) = strings.next() else {
                return (
                    Answer::error(2, "major serve: no working directory\n".into()),
                    false,
                );
            };
            let answer = weave(&cwd, home, strings.collect());
            // A panic leaves nothing behind that the next weave reads, but a
            // server that panicked is not one to keep.
            let panicked = answer.code == PANICKED;
            (answer, panicked)
        }
        other => (
            Answer::error(2, format!("major serve: unknown verb {other:?}\n")),
            false,
        ),
    }
}

/// The exit code of a weave that panicked (Rust's own for a panic).
const PANICKED: i32 = 101;

/// Runs `major <args>` (a `weave`) in `cwd`, then goes back to `home`.
fn weave(cwd: &str, home: &Path, args: Vec<String>) -> Answer {
    if let Err(e) = std::env::set_current_dir(cwd) {
        return Answer {
            what: args.join(" "),
            ..Answer::error(2, format!("major serve: {cwd}: {e}\n"))
        };
    }
    let answer = weave_here(args);
    let _ = std::env::set_current_dir(home);
    answer
}

/// Runs `major <args>` (a `weave`) in the current directory.
fn weave_here(args: Vec<String>) -> Answer {
    let mut answer = Answer::empty(args.join(" "));
    let cli = match Cli::try_parse_from(std::iter::once("major".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // Usage errors, --help and --version, as the command prints them.
            let text = e.render().to_string().into_bytes();
            answer.code = e.exit_code();
            if e.use_stderr() {
                answer.err = text;
            } else {
                answer.out = text;
            }
            return answer;
        }
    };
    let Command::Weave(args) = cli.command else {
        answer.code = 2;
        answer.err = b"major serve: a resident weaver runs `major weave` only\n".to_vec();
        return answer;
    };
    let (out, err) = (&mut answer.out, &mut answer.err);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        weave_command::run(args, &mut Console { out, err })
    }));
    match run {
        Ok(code) => answer.code = code.into(),
        Err(_) => {
            answer.code = PANICKED;
            answer.err.extend_from_slice(
                b"major serve: the weave panicked (see the server's log); the server stops\n",
            );
        }
    }
    answer
}
