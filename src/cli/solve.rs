//! `solvedgym solve`: a game solved exactly, its report printed.

use std::io::Write;

use anyhow::{Result, bail};
use solvedgym::core::game::{Game, Solver};
use solvedgym::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions, SolveOutput, SolveReport};
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::games;
use super::output::{LATE, Output, print};

/// Solve a game exactly: value of the start, reachable states, possible games.
#[derive(clap::Args)]
#[command(
    after_help = games::help(),
    mut_arg("json", |a| a.help("Print the figures as one JSON object")),
    // --json leads the command's own flags; --quiet and --seed close them.
    mut_arg("quiet", |a| a.display_order(LATE)),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    output: Output,
    /// Refuse to enumerate more states than this (a memory guard of the generic solver and
    /// of the enumerating ones of Hase und Igel and the dice race; default 50,000,000).
    #[arg(long)]
    max_states: Option<usize>,
    /// Use the generic solver even where a game has its own (Fox & Hounds, Hasenspiel).
    #[arg(long)]
    generic: bool,
    /// A game's own solver: skip the exact game counts (saves memory on huge boards).
    #[arg(long)]
    no_counts: bool,
    /// A game's own solver: keep no per-position tables (only the start's value and the
    /// counts).
    #[arg(long)]
    no_tables: bool,
    /// The seed of a game's random positions (Hackenbush's `--random` data sets).
    #[arg(long, display_order = LATE + 1)]
    seed: Option<u64>,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        output,
        max_states,
        generic,
        no_counts,
        no_tables,
        seed,
    } = args;
    game.pass("seed", seed.map(|s| s.to_string()), true)?;
    let game = game.build()?;
    let solver = with_game!(&game, g => g.capabilities().solver);
    let own_flags = match solver {
        Solver::Own { flags, .. } if !generic => flags,
        _ => &[],
    };
    for (flag, given) in [("no-counts", no_counts), ("no-tables", no_tables)] {
        if given && !own_flags.contains(&flag) {
            bail!(
                "--{flag} applies to a game's own solver that takes it; {} is solved by {}",
                game.name(),
                match solver {
                    _ if generic => "the generic solver (--generic)",
                    Solver::Own { name, .. } => name,
                    _ => "enumeration",
                }
            );
        }
    }
    if generic && !matches!(solver, Solver::Own { .. }) {
        bail!(
            "--generic: {} has no solver of its own; the generic solver is the one it uses",
            game.name()
        );
    }
    if max_states.is_some()
        && matches!(solver, Solver::Own { .. })
        && !generic
        && !own_flags.contains(&"max-states")
    {
        bail!(
            "--max-states bounds the generic solver; {} uses its own (add --generic to enumerate)",
            game.name()
        );
    }
    let options = SolveOptions {
        max_states: max_states.unwrap_or(DEFAULT_STATE_LIMIT),
        generic,
        counts: !no_counts,
        tables: !no_tables,
        progress: output.progress(),
    };
    match with_game!(&game, g => g.solve_output(&options)?) {
        SolveOutput::Report(report) => print_report(*report, output.json()),
        SolveOutput::Entries(entries) => {
            let mut stdout = std::io::stdout().lock();
            for (text, object) in entries {
                if output.json() {
                    writeln!(stdout, "{}", serde_json::to_string(&object)?)?;
                } else {
                    writeln!(stdout, "{text}")?;
                }
            }
            Ok(())
        }
    }
}

/// The report with the peak memory of this process, the cost of the solve that `bench` reads.
fn print_report(mut report: SolveReport, json: bool) -> Result<()> {
    if let Some(mb) = solvedgym::tools::bench::peak_memory_mb() {
        report
            .extra
            .insert("peak_memory_mb".to_string(), serde_json::json!(mb));
    }
    print(&report, json)
}
