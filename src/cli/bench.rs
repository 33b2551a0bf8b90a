//! `solvedgym bench`: the benchmarks, one mode each (`bench learn`, `bench search`, ...), each
//! with its own flags; `bench` alone times the solvers.

use std::fmt::Display;
use std::io::Write;
use std::ops::RangeInclusive;

use anyhow::{Context, Result};
use serde::Serialize;
use solvedgym::tools::bench;

use super::output::Json;

/// What the solver benchmark times, for `bench` and `bench solvers`.
const SOLVER_CASES: &str = "Cases: Hasenspiel and Fox & Hounds 4x4..10x10 (up to --max-size) \
with the layered solver, and the generic solver on Hasenspiel and Fox & Hounds 8x8 for comparison.";

/// Benchmark the exact solvers (wall time, best of --repeat runs, and peak memory of each
/// solve, every case in its own process), or with a mode the learners' training speed, Hase
/// und Igel, the search AI or Hackenbush values.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = format!(
        "Without a mode, `bench` is `bench solvers`. {SOLVER_CASES}\n\
Each mode's flags and cases: `solvedgym bench MODE --help`.\n\
Examples: solvedgym bench --repeat 3\n          solvedgym bench learn --episodes 2000000\n          \
solvedgym bench learn --only q-learning\n          solvedgym bench regimes\n          solvedgym bench values\n          \
solvedgym bench hase\n          solvedgym bench search --depths 4-6 --players 2"
    )
)]
pub struct Args {
    #[command(subcommand)]
    mode: Option<Mode>,
    #[command(flatten)]
    solvers: Solvers,
}

#[derive(clap::Subcommand)]
enum Mode {
    /// Benchmark the exact solvers (the default): wall time, best of --repeat runs, and peak
    /// memory of each solve, every case in its own process.
    #[command(after_help = format!("{SOLVER_CASES}\nExample: solvedgym bench solvers --repeat 3"))]
    Solvers(Solvers),
    /// Benchmark the learners' training speed: self-play episodes per second on tic-tac-toe on
    /// one thread.
    #[command(
        after_help = "Q-learning, SARSA, Monte-Carlo, TD(0), TD(0.8) and MENACE, each \
learner with its default config, through the same environment and learner interfaces the \
experiments use.\n\
Examples: solvedgym bench learn --episodes 2000000\n          \
solvedgym bench learn --only q-learning"
    )]
    Learn(Learn),
    /// Benchmark the training regimes of Q-learning: self-play, alternate seats against a
    /// frozen copy refreshed after every game, and against a fixed opponent, episodes per
    /// second on tic-tac-toe and Hexapawn on one thread.
    #[command(
        after_help = "One-table Q-learning with its defaults, each game played from its state \
graph as runs play it: self-play; the learner taking the seats in turn against a frozen copy of \
itself refreshed after every game (the rows the game changed copied, as runs do), and the same \
with the copy tabulated whole at every refresh (the way runs refreshed it before; a hundredth of \
the episodes); and against random play. The last column: time per episode over self-play's.\n\
Examples: solvedgym bench regimes\n          solvedgym bench regimes --episodes 500000 --repeat 1"
    )]
    Regimes(Regimes),
    /// Benchmark the value learners over features: TD(λ) self-play on Fox & Hounds 8x8 by its
    /// rules, TD updates (afterstates backed up) per second on one thread.
    #[command(
        after_help = "Cases: an n-tuple network of 32 tuples of 6 cells with λ = 0, 0.5 and \
0.9, a linear value and a perceptron of 32 tanh units (on a tenth of the episodes) with λ = 0.5, \
each with its other keys at their defaults.\n\
Examples: solvedgym bench ntuple --episodes 20000\n          \
solvedgym bench ntuple --only n-tuple --repeat 1"
    )]
    Ntuple(Features),
    /// Benchmark Hase und Igel: random playouts on the 2008 board (2, 3 and 6 hares, one thread,
    /// plies/s; moves and card draws both count) and the exact solve of a small variant
    /// (states/s).
    #[command(after_help = "The playouts: 20,000 games for each number of hares.\n\
Example: solvedgym bench hase")]
    Hase(Common),
    /// Benchmark the search AI: nodes, ms and nodes/s per move.
    #[command(
        after_help = "From fixed full-board Hase und Igel positions (the start and after \
8, 16, 24, 32 moves of a seeded greedy game) with 2, 3 and 6 hares, one search per position on \
one thread at each depth.\n\
Examples: solvedgym bench search\n          \
solvedgym bench search --depths 4-6 --players 2 --ai \"depth={depth},order\""
    )]
    Search(Search),
    /// Benchmark Hackenbush values: seeded random positions per family, palette and size, by
    /// the general method and with the theory's shortcuts.
    #[command(
        after_help = "Positions of seed 1: hotchpotch graphs of 16 edges and trees of 20 \
(the pycgt anchor's sizes), blue-red and green graphs of 16, blue-red stalks and trees of 200 and \
green graphs of 10,000 edges (shortcuts only), milliseconds per position.\n\
Example: solvedgym bench values"
    )]
    Values(Common),
    /// Measure MCTS against the exact solution: its optimal-move rate over every position of
    /// a solved game at each simulation budget, with the 95 % Wilson interval and the
    /// simulations per second of one thread.
    #[command(after_help = mcts_help())]
    Mcts(Mcts),
}

// The flags of every mode.
#[derive(clap::Args)]
#[command(mut_arg("json", |a| a.help("Print the results as JSON")))]
struct Common {
    /// Runs per case (the best time is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    #[command(flatten)]
    output: Json,
}

#[derive(clap::Args)]
struct Solvers {
    /// Largest Fox & Hounds board for the layered solver (4 to 12: even sizes; 12 needs
    /// about 12 GB and --no-counts, so the bench stops at 10 unless asked)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(4..=12))]
    max_size: u16,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
struct Learn {
    /// Training episodes per learner and run (default 2,000,000).
    #[arg(long)]
    episodes: Option<u64>,
    /// Only this learner (q-learning, sarsa, mc, td0, td0.8, menace).
    #[arg(long, value_name = "LEARNER")]
    only: Option<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
struct Regimes {
    /// Training episodes per regime and run (default 2,000,000).
    #[arg(long)]
    episodes: Option<u64>,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
struct Features {
    /// Training episodes per case and run (default 20,000).
    #[arg(long)]
    episodes: Option<u64>,
    /// Only the cases whose label contains this (e.g. n-tuple, linear, mlp, "TD(0.5)").
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
struct Search {
    /// The settings to time (repeatable; `{depth}` stands for each depth; default
    /// "depth={depth},cutoffs=0-0-8-8-4", the same with chance=worst, and with chance=sample:
    /// one card drawn per draw, the reference AI's tree, which did not branch on cards). A family stops
    /// deepening after a depth that took over 1.5 s a move.
    #[arg(long, value_name = "SETTINGS")]
    ai: Vec<String>,
    /// The depths.
    #[arg(long, value_name = "A-B", default_value = "4-10", value_parser = super::parse::depths)]
    depths: RangeInclusive<u32>,
    /// Only these player counts (comma-separated; default 2,3,6).
    #[arg(long, value_name = "N,..", value_delimiter = ',')]
    players: Vec<usize>,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
#[command(mut_arg("threads", |a| a.help(
    "Worker threads (default: all cores). The rates do not depend on it (the speed does)"
)))]
struct Mcts {
    #[command(flatten)]
    game: super::game_args::GameArgs,
    /// The simulation budgets (comma-separated).
    #[arg(
        long,
        value_name = "N,..",
        value_delimiter = ',',
        default_value = "10,100,1000"
    )]
    sims: Vec<u32>,
    /// The other MCTS settings, e.g. "c=1.4,seed=3" (sims= comes from --sims).
    #[arg(long = "ai", value_name = "SETTINGS", default_value = "mcts")]
    ai: String,
    /// Only this position (repeatable; `start` is the start), in the game's notation.
    #[arg(long = "state", value_name = "POSITION")]
    states: Vec<String>,
    /// Run each search this many times (the same search; for timing a few positions).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    repeat: u32,
    #[command(flatten)]
    output: super::output::Output,
    #[command(flatten)]
    threads: super::output::Threads,
}

fn mcts_help() -> String {
    format!(
        "At every reachable position where a player moves, MCTS searches afresh, seeded as \
`--ai mcts,...` seeds it (the settings' seed mixed with the position), and its move counts as \
optimal where it keeps the position's value (win, draw or loss; with chance, the mover's best \
expected result). Forced moves count (MCTS plays them without a simulation). sims/s: \
simulations per second of one thread.\n\nMCTS settings (comma-separated, after `mcts,`):\n{}\n\n\
Examples: solvedgym bench mcts tictactoe --sims 10,100,1000\n          \
solvedgym bench mcts hexapawn --sims 100 --ai mcts,c=1.4,seed=2\n          \
solvedgym bench mcts tictactoe --sims 1000 --state start --state 'x../.o./...' --repeat 10",
        solvedgym::ai::mcts::settings_help()
    )
}

/// The settings `bench search` times without --ai.
const SEARCH_SETTINGS: [&str; 3] = [
    "depth={depth},cutoffs=0-0-8-8-4",
    "depth={depth},cutoffs=0-0-8-8-4,chance=worst",
    "depth={depth},cutoffs=0-0-8-8-4,chance=sample",
];

pub fn exec(args: Args) -> Result<()> {
    match args.mode.unwrap_or(Mode::Solvers(args.solvers)) {
        Mode::Solvers(Solvers { max_size, common }) => {
            let exe = std::env::current_exe().context("locating the solvedgym executable")?;
            measure(common.output.json, |each| {
                bench::solvers(&exe, common.repeat, usize::from(max_size), each)
            })?;
        }
        Mode::Learn(Learn {
            episodes,
            only,
            common,
        }) => {
            let episodes = episodes.unwrap_or(2_000_000).max(1);
            measure(common.output.json, |each| {
                bench::learners(common.repeat, episodes, only.as_deref(), each)
            })?;
        }
        Mode::Regimes(Regimes { episodes, common }) => {
            let episodes = episodes.unwrap_or(2_000_000).max(1);
            measure(common.output.json, |each| {
                bench::regimes(common.repeat, episodes, each)
            })?;
        }
        Mode::Ntuple(Features {
            episodes,
            only,
            common,
        }) => {
            let episodes = episodes.unwrap_or(20_000).max(1);
            measure(common.output.json, |each| {
                bench::features(common.repeat, episodes, only.as_deref(), each)
            })?;
        }
        Mode::Hase(common) => {
            measure(common.output.json, |each| {
                bench::hase_und_igel(common.repeat, each)
            })?;
        }
        Mode::Search(Search {
            ai,
            depths,
            players,
            common,
        }) => {
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
            let rows = measure(common.output.json, |each| {
                bench::search(&settings, depths, &players, common.repeat, each)
            })?;
            if !common.output.json {
                let mut stdout = std::io::stdout().lock();
                for line in bench::search_goals(&rows) {
                    writeln!(stdout, "{line}")?;
                }
            }
        }
        Mode::Values(common) => {
            measure(common.output.json, |each| {
                bench::values(common.repeat, each)
            })?;
        }
        Mode::Mcts(Mcts {
            game,
            sims,
            ai,
            states,
            repeat,
            output,
            threads,
        }) => {
            use solvedgym::ai::mcts::MctsOptions;
            use solvedgym::core::game::Game;
            let base = MctsOptions::parse(&ai).map_err(|e| anyhow::anyhow!("--ai {ai}: {e}"))?;
            if ai.split(',').any(|p| p.trim().starts_with("sims=")) {
                anyhow::bail!(
                    "--ai {ai}: --sims gives the simulation budgets; write the settings without sims="
                );
            }
            if let Some(&bad) = sims.iter().find(|&&n| !(1..=100_000_000).contains(&n)) {
                anyhow::bail!("--sims {bad}: a number of simulations from 1 to 100000000");
            }
            threads.set()?;
            let game = game.build()?;
            let json = output.json();
            solvedgym::with_game!(&game, g => {
                let only = (!states.is_empty())
                    .then(|| {
                        states
                            .iter()
                            .map(|t| {
                                if t.trim() == "start" {
                                    Ok(g.initial_state())
                                } else {
                                    super::game_args::read_state(g, Some(t))
                                }
                            })
                            .collect::<Result<Vec<_>>>()
                    })
                    .transpose()?;
                let positions = solvedgym::tools::mcts_quality::Positions { only, repeat };
                let spec = base.spec();
                let settings: Vec<&str> =
                    spec.split(',').filter(|p| !p.starts_with("sims=")).collect();
                let mut header = !json;
                measure(json, |each| {
                    solvedgym::tools::mcts_quality::mcts_quality(
                        g,
                        &base,
                        &sims,
                        &positions,
                        output.progress(),
                        &mut |row| {
                            // After the solve, which may refuse the game.
                            if std::mem::take(&mut header) {
                                println!(
                                    "{}: MCTS ({}) against the exact solution",
                                    g.name(),
                                    settings.join(",")
                                );
                                println!("{}", solvedgym::tools::mcts_quality::HEADER);
                            }
                            each(row)
                        },
                    )
                    .with_context(|| format!("measuring MCTS on {}", g.name()))
                })?;
            });
        }
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
