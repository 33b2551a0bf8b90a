//! The flags of what a command prints and how, declared once and flattened into every command
//! that takes them: `--json` ([`Json`]), with `--quiet` ([`Output`]), `--threads` ([`Threads`]);
//! and the printing they lead to. A command whose flag reads differently in its help gives its
//! own words with `mut_arg`.

use std::io::Write;

use anyhow::{Context, Result};
use solvedgym::experiment::summary::RunSummary;

/// A place in a command's help after every flag listed in the order declared (clap numbers
/// those from 0) and before `--help` (999): for a flag flattened in with others that its
/// command lists apart from them.
pub const LATE: usize = 990;

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Json {
    /// Print the results as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Output {
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub format: Json,
}

impl Output {
    pub fn json(self) -> bool {
        self.format.json
    }

    /// Whether to draw progress on stderr: not with --quiet, nor with --json, whose reader is a
    /// program.
    pub fn progress(self) -> bool {
        !self.quiet && !self.format.json
    }
}

#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Threads {
    /// Worker threads (default: all cores; at most 4 a core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
}

impl Threads {
    /// More threads than this per core only cost memory and switching.
    const MOST_PER_CORE: usize = 4;

    /// Sizes the global pool of the parallel work (before any of it starts).
    pub fn set(self) -> Result<()> {
        if let Some(t) = self.threads {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let most = Self::MOST_PER_CORE * cores;
            if t == 0 || t > most {
                anyhow::bail!(
                    "--threads {t}: this machine has {cores} cores; give 1 to {most} (at most \
                     {} a core; results do not depend on it)",
                    Self::MOST_PER_CORE
                );
            }
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build_global()
                .context("setting the number of threads")?;
        }
        Ok(())
    }
}

/// Prints `value` to stdout as pretty JSON (`--json`) or as its text.
pub fn print<T: serde::Serialize + std::fmt::Display>(value: &T, json: bool) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(value)?)?;
    } else {
        writeln!(stdout, "{value}")?;
    }
    Ok(())
}

/// Prints `text` and one line end (whatever white space it ends in).
pub fn print_text(text: &str) -> Result<()> {
    writeln!(std::io::stdout().lock(), "{}", text.trim_end())?;
    Ok(())
}

/// The summaries of a run or a merge: tables, or JSON (one object for an experiment, an
/// array for a study of several games).
pub fn print_summaries(summaries: &[RunSummary], json: bool) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        let text = match summaries {
            [one] => serde_json::to_string_pretty(one)?,
            many => serde_json::to_string_pretty(many)?,
        };
        writeln!(stdout, "{text}")?;
    } else {
        for summary in summaries {
            writeln!(stdout, "{summary}")?;
        }
    }
    Ok(())
}
