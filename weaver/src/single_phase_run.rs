//! `major run --aspect A.aj -- <java args>`: the program run under the
//! single-phase agent ([`major_weaver::load_time::AgentRun`]), with the agent
//! library embedded in this binary when it was built with
//! `MAJOR_EMBED_AGENT` (see `weaver/build.rs`), else found beside it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use major_weaver::report::MajorError;

use super::{jdk_or_default, run_passing_status};

/// The agent library embedded at build time (its bytes and content hash),
/// or `None`.
const EMBEDDED_AGENT: Option<(&[u8], &str)> =
    include!(concat!(env!("OUT_DIR"), "/embedded_agent.rs"));

/// `major run --aspect`: the program under the single-phase agent; its exit
/// code is passed through.
pub fn run_agent(
    aspects: Vec<PathBuf>,
    java_home: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    (verbose, bypass, no_class_cache, fatal, woven_jdk): (
        bool,
        major_weaver::weave::bypass::BypassForm,
        bool,
        bool,
        major_weaver::woven_jdk_cache::WovenJdkMode,
    ),
    print_command: bool,
    args: &[OsString],
) -> Result<ExitCode, MajorError> {
    let cache = cache_dir.or_else(major_weaver::aspects::cache::default_dir);
    let run = major_weaver::load_time::AgentRun {
        aspects,
        jdk: jdk_or_default(java_home)?,
        cache: cache.clone(),
        agent: major_weaver::load_time::find_agent(EMBEDDED_AGENT, cache.as_deref())?,
        verbose,
        bypass,
        no_class_cache,
        fatal,
        woven_jdk,
    };
    let prepared = run.prepare(args)?;
    let command = prepared.command;
    if print_command {
        let line: Vec<&std::ffi::OsStr> = std::iter::once(command.get_program())
            .chain(command.get_args())
            .collect();
        println!("{}", major_weaver::woven_jdk::shell_line(&line));
        return Ok(ExitCode::SUCCESS);
    }
    let status = run_passing_status(command);
    if let Some((jdks, key, source)) = prepared.build_after {
        if jdks.build_in_background(&key, &source) {
            eprintln!(
                "major run: these aspects ran before: weaving the JDK with them in the \
                 background, once, so that later runs start faster (--woven-jdk=off: never)"
            );
        }
    }
    status
}
