//! The progress bar of a long weave, on standard error.
//!
//! Shown only when the `major` command turned it on ([`enable_on_terminal`]:
//! standard error is a terminal) and only once a weave has run for a second
//! (so quick weaves print nothing but their summary); the library alone
//! (tests, the Maven plugin through the binary with a pipe) never draws one.
//! The bar is cleared when the weave ends, before the summary is printed.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether this process draws progress bars.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// How long a weave runs before its bar appears, unless
/// `MAJOR_PROGRESS_DELAY_MS` says otherwise (the tests set it to 0).
const DEFAULT_DELAY: Duration = Duration::from_secs(1);

/// Turns progress bars on for this process if standard error is a terminal
/// (and `MAJOR_NO_PROGRESS` is not set); returns whether they are on.
pub fn enable_on_terminal() -> bool {
    let on = std::io::stderr().is_terminal() && std::env::var_os("MAJOR_NO_PROGRESS").is_none();
    ENABLED.store(on, Ordering::Relaxed);
    on
}

/// The progress of one phase over a known number of items. Does nothing
/// unless bars are on; draws nothing before the delay has passed; clears
/// itself when dropped.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    delay: Duration,
    shown: bool,
}

impl Progress {
    /// Starts the phase `what` over `total` items (input entries).
    pub fn start(what: &'static str, total: u64) -> Progress {
        let bar = ENABLED.load(Ordering::Relaxed).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(
                "{prefix} [{bar:40}] {pos}/{len} entries, {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(what);
            bar
        });
        let delay = std::env::var("MAJOR_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_DELAY);
        Progress {
            bar,
            started: Instant::now(),
            delay,
            shown: false,
        }
    }

    /// Counts `n` more items done; shows the bar once the delay has passed.
    pub fn advance(&mut self, n: u64) {
        let Some(bar) = &self.bar else {
            return;
        };
        bar.inc(n);
        if !self.shown && self.started.elapsed() >= self.delay {
            self.shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar.force_draw();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
