//! What a front beside the command line reaches besides the games: the registered games as a
//! catalogue ([`games`]), a combinatorial game's value ([`value`]), a saved agent evaluated again
//! ([`evaluate_agent`]), and a study run on a thread of its own that the front watches, reports
//! and may stop ([`Study`]): what `solvedgym.run` stands on.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Result;

use crate::experiment::{Observer, RunOptions, StudyOutcome};
use crate::io::source::ConfigError;
use crate::io::text::abbreviated;

pub use crate::experiment::AgentEvaluation;
pub use crate::truth::cgt::Analysis;

/// A registered game as a catalogue lists it: its names, its summary and its parameters with
/// their help and defaults.
pub struct GameEntry {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// `(key, help, default)`; the default as JSON, `None` where the game has none.
    pub params: Vec<(&'static str, &'static str, Option<serde_json::Value>)>,
}

/// Every registered game, in the registry's order.
pub fn games() -> Vec<GameEntry> {
    crate::games::GAMES
        .iter()
        .map(|info| {
            let defaults = info.defaults();
            GameEntry {
                name: info.name,
                aliases: info.aliases,
                summary: info.summary,
                params: info
                    .fields
                    .iter()
                    .map(|(key, help)| {
                        let default = defaults
                            .get(*key)
                            .map(|v| serde_json::to_value(v).unwrap_or(serde_json::Value::Null));
                        (*key, help.trim(), default)
                    })
                    .collect(),
            }
        })
        .collect()
}

/// A combinatorial game in CGSuite's notation analysed, as `solvedgym value` does; the error
/// quotes the start of a long expression.
pub fn value(expression: &str) -> std::result::Result<Analysis, String> {
    crate::truth::cgt::analyse(expression).map_err(|e| {
        let shown = abbreviated(expression, 60);
        format!("{shown}: {e}")
    })
}

/// The agent file at `path` evaluated again, as `solvedgym evaluate` does.
pub fn evaluate_agent(path: &Path, progress: bool) -> Result<AgentEvaluation> {
    crate::experiment::evaluate_agent(path, progress)
}

/// A config as a front gives it: a file, or a text made by the front (its errors name `name`).
pub enum StudyConfig {
    File(PathBuf),
    Text { name: PathBuf, text: String },
}

/// How a study's run asks to be run.
#[derive(Clone, Copy, Default)]
pub struct StudySettings {
    /// Discard the runs stored in the output folders and start over.
    pub fresh: bool,
    /// Write `curves.csv` beside `curves.parquet`.
    pub csv: bool,
    /// The command line's progress bar on stderr.
    pub progress: bool,
}

/// What a finished study wrote, per game.
pub struct GameWritten {
    pub name: String,
    pub dir: PathBuf,
    pub written: Vec<PathBuf>,
}

/// How a study ended, when not with its outputs written.
#[derive(Debug)]
pub enum StudyError {
    /// The study's own error (a config error, a file that cannot be read, a stopped study).
    Failed(anyhow::Error),
    /// The config asked for a shard: no outputs were written.
    Shard,
    /// The study's thread panicked.
    Panicked,
}

/// A study running on a thread of its own: [`Study::wait`] for it a little at a time (so that a
/// front can answer its user meanwhile), [`Study::progress`] to report, [`Study::stop`] to stop
/// it (the runs stored so far are kept, so the same call resumes), then [`Study::finish`].
pub struct Study {
    out: PathBuf,
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    receiver: mpsc::Receiver<Result<StudyOutcome>>,
    outcome: Option<Option<Result<StudyOutcome>>>,
    worker: Option<JoinHandle<()>>,
}

impl Study {
    /// Starts `config` into `out`.
    pub fn start(config: StudyConfig, out: &Path, settings: StudySettings) -> Study {
        let done = Arc::new(AtomicU64::new(0));
        let total = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let watch = {
            let (done, total, stop) = (done.clone(), total.clone(), stop.clone());
            Observer(Arc::new(move |d, t| {
                total.store(t, Ordering::Relaxed);
                done.store(d, Ordering::Relaxed);
                !stop.load(Ordering::Relaxed)
            }))
        };
        let options = RunOptions {
            progress: settings.progress,
            fresh: settings.fresh,
            csv: settings.csv,
            observer: Some(watch),
            ..RunOptions::default()
        };
        let (tx, receiver) = mpsc::channel();
        let worker_out = out.to_path_buf();
        let worker = std::thread::spawn(move || {
            let outcome = match &config {
                StudyConfig::Text { name, text } => {
                    crate::experiment::run_study_text(name, text, &worker_out, &options)
                }
                StudyConfig::File(path) => {
                    crate::experiment::run_study(path, &worker_out, &options)
                }
            };
            // The receiver is gone only where this thread outlived its caller: nothing to tell.
            let _ = tx.send(outcome);
        });
        Study {
            out: out.to_path_buf(),
            done,
            total,
            stop,
            receiver,
            outcome: None,
            worker: Some(worker),
        }
    }

    /// Waits at most `timeout` for the study to end; `true` once it has.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if self.outcome.is_some() {
            return true;
        }
        match self.receiver.recv_timeout(timeout) {
            Ok(outcome) => self.outcome = Some(Some(outcome)),
            Err(mpsc::RecvTimeoutError::Timeout) => return false,
            // The thread ended without sending: it panicked.
            Err(mpsc::RecvTimeoutError::Disconnected) => self.outcome = Some(None),
        }
        true
    }

    /// `(episodes trained, episodes to train)` so far.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Asks the study to stop: the runs under way end at their next report.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for the study's end and says what it wrote.
    pub fn finish(mut self) -> std::result::Result<Vec<GameWritten>, StudyError> {
        while !self.wait(Duration::from_secs(3600)) {}
        let joined = self.worker.take().map(|w| w.join());
        match (self.outcome.take().flatten(), joined) {
            (Some(Ok(StudyOutcome::Finished(summaries))), Some(Ok(()))) => Ok(summaries
                .into_iter()
                .map(|s| GameWritten {
                    dir: self.out.join(&s.name),
                    name: s.name,
                    written: s.written,
                })
                .collect()),
            (Some(Ok(StudyOutcome::Shard(_))), _) => Err(StudyError::Shard),
            (Some(Err(e)), _) => Err(StudyError::Failed(e)),
            _ => Err(StudyError::Panicked),
        }
    }
}

/// A study's error as its message: the chain of causes, as `{:#}` writes it. A config error
/// far along a long line (past `2 * quoted` columns) is written without its source line (which
/// would quote the line whole, and whose caret `io::source` cannot pad past column 65,535).
pub fn error_text(e: &anyhow::Error, quoted: usize) -> String {
    let far = |c: &ConfigError| c.column > 2 * quoted;
    if !e
        .chain()
        .any(|c| c.downcast_ref::<ConfigError>().is_some_and(far))
    {
        return format!("{e:#}");
    }
    let parts: Vec<String> = e
        .chain()
        .map(|c| match c.downcast_ref::<ConfigError>() {
            Some(c) => format!(
                "{}:{}:{}: {}{}",
                c.file.display(),
                c.line,
                c.column,
                c.key
                    .as_deref()
                    .map(|k| format!("`{}`: ", abbreviated(k, quoted)))
                    .unwrap_or_default(),
                c.message
            ),
            None => c.to_string(),
        })
        .collect();
    parts.join(": ")
}
