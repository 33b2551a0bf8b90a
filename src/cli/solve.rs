//! `solvedgym solve`: a game solved exactly, its report printed.

use std::io::Write;

use anyhow::{Result, bail};
use solvedgym::core::game::{Game, Solver, Turn};
use solvedgym::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions, SolveOutput, SolveReport};
use solvedgym::with_game;

use super::game_args::{GameArgs, read_state};
use super::games;
use super::output::{LATE, Output, print};

/// Solve a game exactly: value of the start, reachable states, possible games.
#[derive(clap::Args)]
#[command(
    after_help = format!("{}\n\n{}", solvedgym::games::notation_help(), games::help()),
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
    /// A position in the game's notation (a file, or the text itself; see below), or `start`
    /// (the default): the game is solved and the position's value and every move's are
    /// printed. A Hackenbush graph becomes the game's position.
    #[arg(long, value_name = "POSITION")]
    state: Option<String>,
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
        state,
    } = args;
    game.pass("seed", seed.map(|s| s.to_string()), true)?;
    let (game, text) = game.build_at(state.as_deref())?;
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
        process_ends: true,
    };
    // A position other than the start: its value and its moves' from the solution.
    if let Some(text) = &text {
        let answer = with_game!(&game, g => {
            let state = read_state(g, Some(text))?;
            (state != g.initial_state())
                .then(|| position_value(g, &state, &options))
                .transpose()?
        });
        if let Some(answer) = answer {
            return print(&answer, output.json());
        }
    }
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

/// What the solution says of one position: its value and every move's.
#[derive(serde::Serialize)]
struct PositionValue {
    game: String,
    position: String,
    value: String,
    moves: Vec<MoveValue>,
}

#[derive(serde::Serialize)]
struct MoveValue {
    #[serde(rename = "move")]
    notation: String,
    value: String,
    /// Whether the move keeps the position's value.
    keeps: Option<bool>,
}

impl std::fmt::Display for PositionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} at {}: {}", self.game, self.position, self.value)?;
        for m in &self.moves {
            let mark = if m.keeps == Some(true) { "*" } else { " " };
            writeln!(f, "  {mark} {:<10} -> {}", m.notation, m.value)?;
        }
        if !self.moves.is_empty() {
            write!(f, "(* keeps the value)")?;
        }
        Ok(())
    }
}

/// Solves `game` and reads the value of `state` and of each of its moves; a position the
/// solution does not hold (play from the start does not reach it) is refused.
fn position_value<G: Solve>(
    game: &G,
    state: &G::State,
    options: &SolveOptions,
) -> Result<PositionValue> {
    let oracle = game.solve(options)?;
    let position = solvedgym::core::notation::position_text(game, state).unwrap_or_default();
    let Some(value) = oracle.describe(state) else {
        bail!(
            "--state {}: the solution of {} does not hold this position (play from the start \
             does not reach it)",
            solvedgym::io::text::abbreviated(&position, 60),
            game.name()
        );
    };
    let mut legal = Vec::new();
    if let Turn::Player(_) = game.turn(state) {
        game.legal_actions(state, &mut legal);
    }
    let moves = legal
        .iter()
        .map(|&a| MoveValue {
            notation: game.action_to_string(state, a),
            value: oracle
                .describe_move(state, a)
                .unwrap_or_else(|| "unknown".into()),
            keeps: oracle.keeps_value(state, a),
        })
        .collect();
    Ok(PositionValue {
        game: game.name().to_string(),
        position,
        value,
        moves,
    })
}
