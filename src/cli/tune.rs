//! `solvedgym tune`: a game's evaluation tuned by tournaments over a grid of settings.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use super::output::{Output, Threads};

/// Tune a game's evaluation by tournaments: every point of a grid of evaluation settings
/// plays a baseline head to head on the same deals (the screen), and the best few play
/// again on fresh deals (the final).
#[derive(clap::Args)]
#[command(
    after_help = "The config (TOML) names the [game], the [search] settings every \
entrant uses and the baseline's evaluation settings, a [grid] of evaluation keys and their values \
(every combination is a candidate), [screen] deals and the [final]'s finalists and deals. Written \
to the output folder: screen.csv and final.csv (one row per candidate, best first), summary.json, \
best.txt (the tuned evaluation settings) and config.toml.\n\
Example: solvedgym tune configs/hase-und-igel-tuning.toml   # long (6 min on 2 cores)",
    mut_arg("threads", |a| a.help(
        "Worker threads (default: all cores). Results do not depend on it (timings do)"
    )),
    mut_arg("json", |a| a.help(
        "Print summary.json's content instead of the tables (no progress bar)"
    )),
)]
pub struct Args {
    /// The tuning config (TOML), e.g. configs/hase-und-igel-tuning.toml.
    config: PathBuf,
    /// Folder for the results (default: notebooks-data/<name>/).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Output,
}

pub fn exec(args: Args) -> Result<()> {
    args.threads.set()?;
    let (report, dir) = solvedgym::tools::tune::run_file(
        &args.config,
        args.out.as_deref(),
        args.output.progress(),
    )?;
    let mut stdout = std::io::stdout().lock();
    if args.output.json() {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(stdout, "{report}")?;
        writeln!(stdout, "results: {}", dir.display())?;
    }
    Ok(())
}
