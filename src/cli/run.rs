//! `solvedgym run`: an experiment or a study from its TOML config, every finished run stored as
//! it ends.

use std::path::PathBuf;

use anyhow::Result;
use solvedgym::experiment::{RunOptions, StudyOutcome};

use super::output::{Output, Threads, print, print_summaries};

/// Run an experiment described by a TOML file; writes curves, summary and plots. Each
/// finished run is stored as it ends, so an interrupted run resumes where it stopped.
#[derive(clap::Args)]
#[command(
    after_help = help(),
    mut_arg("json", |a| a.help(
        "Print the summary (the same as summary.json) as JSON instead of a table"
    )),
)]
pub struct Args {
    /// The experiment config (TOML).
    config: PathBuf,
    /// Folder for the results (default: notebooks-data/); a subfolder named after the
    /// experiment is created in it.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Output,
    /// Discard the runs an earlier, interrupted run stored in the output folder (of this
    /// config or another) and start over. Without it, the stored runs of the same config
    /// are read instead of trained again, and those of a changed config are refused.
    #[arg(long)]
    fresh: bool,
    /// Run only share K of N of the runs (1 <= K <= N), balanced by expected cost, and store
    /// them in the output folder without writing outputs; `solvedgym merge` then combines
    /// the N folders. For clusters: one shard per job, e.g. --shard 2/8 --out shards/2.
    #[arg(long, value_name = "K/N")]
    shard: Option<solvedgym::experiment::shard::Shard>,
    /// Play every game by its own rules, move by move, rather than from its enumerated
    /// state graph (where the evaluator enumerates it anyway). The same bytes, slower: for
    /// checking a game, or that the two agree.
    #[arg(long)]
    own_rules: bool,
    /// Also write curves.csv: the same long-form table as curves.parquet, as text (large:
    /// one row per measurement, e.g. 47 MB for experiments/her-gardner.toml).
    #[arg(long)]
    csv: bool,
}

pub fn exec(args: Args) -> Result<()> {
    args.threads.set()?;
    let out = args.out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
    let options = RunOptions {
        progress: args.output.progress(),
        fresh: args.fresh,
        shard: args.shard,
        own_rules: args.own_rules,
        csv: args.csv,
        observer: None,
    };
    match solvedgym::experiment::run_study(&args.config, &out, &options)? {
        StudyOutcome::Finished(summaries) => print_summaries(&summaries, args.output.json()),
        StudyOutcome::Shard(report) => print(&report, args.output.json()),
    }
}

fn help() -> String {
    format!(
        "{}Learners (kind):\n{}{}",
        "\
A config names a [game] (or several [[games]]: a study), one or more [[learners]] and, unless the
learners play themselves, [[opponents]]. Every key is checked; a mistake names file, line and key.

",
        solvedgym::learn::LearnerConfig::help(),
        "  alpha and epsilon: a number or { kind = \"linear\" | \"exponential\", ... }
Seats: seat = \"self-play\" (default), a player name, or \"alternate\" (every seat in turn).
Opponents: policy = \"optimal\" | \"random\" | \"greedy\" (one ply on the game's heuristic) |
\"fuzzy\" (p, base) | \"frozen\" (a copy of the learner, refresh = N games; with
seat = \"alternate\").

Output: <out>/<name>/curves.parquet (with --csv also curves.csv), config.toml (resolved: every
default filled in, reruns to the same bytes), summary.json, summary.md, <metric>.png/.svg. The full format:
docs/experiments.md and the commented files of experiments/ and configs/.

Long studies: each run (learner x opponent x seed) is stored in <out>/<name>/runs/ the moment it
ends. Run the same command again after an interruption (Ctrl-C, a killed job, a full disk) and it
trains only the runs not stored, then writes the same bytes as an uninterrupted run and removes
runs/. A changed config is refused (both config hashes are named); --fresh starts over.
--shard K/N splits the runs across machines: see `solvedgym merge --help`.

Examples:
  solvedgym run experiments/her-gardner.toml
  solvedgym run experiments/learners-compare.toml     # long (5 min on 2 cores): the study, 6 learners x 6 games
  solvedgym run configs/menace-hexapawn-selfplay.toml --out runs --json
  solvedgym run experiments/her-gardner.toml --fresh   # discard stored runs, start over
  solvedgym run experiments/learners-compare.toml --shard 1/4 --out shards/1   # long: a quarter of the study"
    )
}
