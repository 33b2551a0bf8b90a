//! `solvedgym bench`: the benchmarks of the solvers, the learners, Hase und Igel, the search AI
//! and Hackenbush values.

use std::fmt::Display;
use std::io::Write;
use std::ops::RangeInclusive;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use solvedgym::tools::bench;

use super::output::Json;

/// Benchmark the exact solvers (wall time, best of --repeat runs, and peak memory of each
/// solve, every case in its own process), or with --learn the learners' training speed.
#[derive(clap::Args)]
#[command(
    after_help = "Cases: Hasenspiel and Fox & Hounds 4x4..10x10 with the layered solver, and \
the generic solver on Hasenspiel and Fox & Hounds 8x8 for comparison.\n\
With --learn: self-play episodes per second on tic-tac-toe on one thread (Q-learning, SARSA, \
Monte-Carlo, TD(0), TD(0.8), MENACE), each learner with its default config, through the same \
environment and learner interfaces the experiments use.\n\
With --hase: Hase und Igel random playouts on the 2008 board (20,000 games each for 2, 3 and 6 \
hares, one thread, plies per second with card draws counted) and the exact solve of a small variant \
(states per second).\n\
With --values: Hackenbush values of seeded random positions (seed 1): hotchpotch graphs of 16 \
edges and trees of 20 (the pycgt anchor's sizes), blue-red and green graphs of 16, blue-red \
stalks and trees of 200 and green graphs of 10,000 edges (shortcuts only), milliseconds per \
position.\n\
Examples: solvedgym bench --repeat 3\n          solvedgym bench --learn --episodes 2000000\n          \
solvedgym bench --learn --only q-learning\n          solvedgym bench --values\n          \
solvedgym bench --hase",
    mut_arg("json", |a| a.help("Print the results as JSON")),
)]
pub struct Args {
    /// Benchmark the learners instead of the solvers.
    #[arg(long, conflicts_with = "values")]
    learn: bool,
    /// Benchmark Hase und Igel instead: random playouts on the 2008 board (2, 3 and 6 hares,
    /// one thread, plies/s; moves and card draws both count) and the exact solve of a small
    /// variant (states/s).
    #[arg(long, conflicts_with_all = ["learn", "values", "max_size"])]
    hase: bool,
    /// Benchmark the search AI instead: from fixed full-board Hase und Igel positions (the
    /// start and after 8, 16, 24, 32 moves of a seeded greedy game) with 2, 3 and 6 hares, one
    /// search per position on one thread at depths 4..=10; nodes, ms and nodes/s per move.
    #[arg(long, conflicts_with_all = ["learn", "values", "max_size", "hase"])]
    search: bool,
    /// With --search: the settings to time (repeatable; `{depth}` stands for each depth;
    /// default "depth={depth},cutoffs=0-0-8-8-4", the same with chance=worst, and with
    /// chance=sample: one card drawn per draw, the seed's tree, which did not branch on
    /// cards). A family stops deepening after a depth that took over 1.5 s a move.
    #[arg(long, value_name = "SETTINGS", requires = "search")]
    ai: Vec<String>,
    /// With --search: the depths (default 4-10).
    #[arg(long, value_name = "A-B", requires = "search", value_parser = super::parse::depths)]
    depths: Option<RangeInclusive<u32>>,
    /// With --search: only these player counts (comma-separated; default 2,3,6).
    #[arg(long, value_name = "N,..", requires = "search", value_delimiter = ',')]
    players: Vec<usize>,
    /// Benchmark Hackenbush values instead: seeded random positions per family, palette
    /// and size, by the general method and with the theory's shortcuts.
    #[arg(long)]
    values: bool,
    /// Training episodes per learner and run (with --learn; default 2,000,000).
    #[arg(long, requires = "learn")]
    episodes: Option<u64>,
    /// With --learn: only this learner (q-learning, sarsa, mc, td0, td0.8, menace).
    #[arg(long, value_name = "LEARNER", requires = "learn")]
    only: Option<String>,
    /// Runs per case (the best time is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Largest Fox & Hounds board for the layered solver (default 10; not with --learn).
    #[arg(long, conflicts_with = "learn")]
    max_size: Option<usize>,
    #[command(flatten)]
    output: Json,
}

/// The settings `bench --search` times without --ai.
const SEARCH_SETTINGS: [&str; 3] = [
    "depth={depth},cutoffs=0-0-8-8-4",
    "depth={depth},cutoffs=0-0-8-8-4,chance=worst",
    "depth={depth},cutoffs=0-0-8-8-4,chance=sample",
];

pub fn exec(args: Args) -> Result<()> {
    let Args {
        learn,
        hase,
        search,
        ai,
        depths,
        players,
        values,
        episodes,
        repeat,
        output,
        only,
        max_size,
    } = args;
    let json = output.json;
    if values && max_size.is_some() {
        bail!(
            "--max-size sets the largest Fox & Hounds board of the solver benchmark, not of --values"
        );
    }
    if search {
        let settings = if ai.is_empty() {
            SEARCH_SETTINGS.map(String::from).to_vec()
        } else {
            ai
        };
        let players = if players.is_empty() {
            bench::SEARCH_PLAYERS.to_vec()
        } else {
            players
        };
        let rows = measure(json, |each| {
            bench::search(&settings, depths.unwrap_or(4..=10), &players, repeat, each)
        })?;
        if !json {
            let mut stdout = std::io::stdout().lock();
            for line in bench::search_goals(&rows) {
                writeln!(stdout, "{line}")?;
            }
        }
    } else if hase {
        measure(json, |each| bench::hase_und_igel(repeat, each))?;
    } else if values {
        measure(json, |each| bench::values(repeat, each))?;
    } else if learn {
        let episodes = episodes.unwrap_or(2_000_000).max(1);
        measure(json, |each| {
            bench::learners(repeat, episodes, only.as_deref(), each)
        })?;
    } else {
        let exe = std::env::current_exe().context("locating the solvedgym executable")?;
        let max_size = max_size.unwrap_or(10);
        measure(json, |each| bench::solvers(&exe, repeat, max_size, each))?;
    }
    Ok(())
}

/// Runs a benchmark, printing each row as it is measured, or with `json` all of them as one
/// JSON array at the end.
fn measure<R: Display + Serialize>(
    json: bool,
    bench: impl FnOnce(&mut dyn FnMut(&R)) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    let mut stdout = std::io::stdout().lock();
    let rows = bench(&mut |row| {
        if !json {
            // The callback returns nothing: a row that cannot be written does not stop the
            // benchmark.
            let _ = writeln!(stdout, "{row}");
        }
    })?;
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    }
    Ok(rows)
}
