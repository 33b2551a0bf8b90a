//! The study-wide progress: one bar over the episodes still to train, with the runs done, and
//! the [`Observer`] a program may watch it with (and stop the study through).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use super::Observer;

/// The study-wide progress: one bar over the episodes still to train, with the runs done, and
/// the observer a program may watch it with.
pub(super) struct Progress {
    pub(super) bar: ProgressBar,
    /// Whether it shows anything: the bar, the notes above it, a solver's own progress.
    pub(super) on: bool,
    done: AtomicUsize,
    all: usize,
    watch: Option<Watch>,
}

/// An [`Observer`] and what it has been told.
struct Watch {
    observer: Observer,
    episodes: u64,
    trained: AtomicU64,
    start: Instant,
    /// Milliseconds from `start` before which it is not told again.
    next_ms: AtomicU64,
    stopped: AtomicBool,
}

impl Progress {
    pub(super) fn new(
        on: bool,
        episodes: u64,
        done: usize,
        all: usize,
        observer: Option<Observer>,
    ) -> Progress {
        let bar = if on && episodes > 0 {
            let bar = ProgressBar::new(episodes);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} {msg} [{bar:25.cyan/blue}] {human_pos}/{human_len} episodes, {rate} ({eta} left)",
                )
                .expect("valid template")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn fmt::Write| {
                        let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
                    },
                )
                .progress_chars("=> "),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        bar.set_prefix(format!("{done}/{all} runs"));
        Progress {
            bar,
            on,
            done: AtomicUsize::new(done),
            all,
            watch: observer.map(|observer| Watch {
                observer,
                episodes,
                trained: AtomicU64::new(0),
                start: Instant::now(),
                next_ms: AtomicU64::new(0),
                stopped: AtomicBool::new(false),
            }),
        }
    }
    /// `episodes` more are trained; an error where the observer stopped the study.
    pub(super) fn advance(&self, episodes: u64) -> Result<()> {
        self.bar.inc(episodes);
        let Some(w) = &self.watch else {
            return Ok(());
        };
        let trained = w.trained.fetch_add(episodes, Ordering::Relaxed) + episodes;
        let now = w.start.elapsed().as_millis() as u64;
        let next = w.next_ms.load(Ordering::Relaxed);
        // One thread of those that find the interval over tells the observer.
        if now >= next
            && w.next_ms
                .compare_exchange(
                    next,
                    now + Observer::INTERVAL.as_millis() as u64,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
            && !(w.observer.0)(trained.min(w.episodes), w.episodes)
        {
            w.stopped.store(true, Ordering::Relaxed);
        }
        if w.stopped.load(Ordering::Relaxed) {
            anyhow::bail!("stopped: the runs stored so far are kept, run again to resume");
        }
        Ok(())
    }
    /// Training is over: the bar is cleared, the observer told the last figures.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
        if let Some(w) = &self.watch {
            (w.observer.0)(
                w.trained.load(Ordering::Relaxed).min(w.episodes),
                w.episodes,
            );
        }
    }
    /// A line above the bar (stderr, also when it is not a terminal).
    pub(super) fn note(&self, line: impl fmt::Display) {
        if self.on {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }
    /// One more run is done (and stored).
    pub(super) fn run_done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_prefix(format!("{done}/{} runs", self.all));
    }
}
