//! `solvedgym play`: a person against the computer in the terminal.

use anyhow::{Result, bail};
use solvedgym::core::game::{Game, Solver};
use solvedgym::tools::play;
use solvedgym::truth::{Solve, SolveOptions};
use solvedgym::with_game;

use super::game_args::{GameArgs, read_state};
use super::games;

/// Play a game in the terminal against perfect play (optionally fuzzed): the strongest
/// player the game's solver supports (the FoxBox AI in Fox & Hounds); where a game is too
/// large to solve, greedy play on its heuristic (Hase und Igel) or random play.
#[derive(clap::Args)]
#[command(after_help = help())]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// The side you play (a player name such as white, black, x, o, red, or a seat number
    /// from 0).
    #[arg(long = "as", value_name = "PLAYER")]
    seat: Option<String>,
    /// The computer's play: optimal (the exact solver's; the default where the game can be
    /// solved), greedy (one ply on the game's heuristic; the default otherwise, where the
    /// game has one), random, Monte-Carlo tree search ("mcts" or "mcts,sims=2000,c=1.4"; any
    /// game), a saved agent (agent=PATH, as --agent), or a search on the game's heuristic given
    /// by its settings, e.g. "depth=4" or "depth=6,cutoffs=0-0-8-8-4,mode=hybrid" (see --help).
    #[arg(long, value_name = "AI", conflicts_with = "agent")]
    ai: Option<String>,
    /// The computer plays a saved agent: a run's agents/*.parquet (its greedy play), trained
    /// on this game with these parameters.
    #[arg(long, value_name = "PATH")]
    agent: Option<std::path::PathBuf>,
    /// The computer plays a random move with this probability.
    #[arg(long, default_value_t = 0.0, value_parser = super::parse::fuzz)]
    fuzz: f64,
    /// The seed of the computer's random choices (and of a game's random positions where
    /// it has them).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The position to play from, in the game's notation (a file, or the text itself; see
    /// below), or `start` (the default).
    #[arg(long, value_name = "POSITION")]
    state: Option<String>,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        seat,
        ai,
        agent,
        fuzz,
        seed,
        state,
    } = args;
    let ai = ai.or_else(|| agent.map(|p| format!("agent={}", p.display())));
    game.pass("seed", Some(seed.to_string()), false)?;
    let (game, text) = game.build_at(state.as_deref())?;
    with_game!(&game, g => {
        let start = read_state(g, text.as_deref())?;
        let human = play::human_seat(g, seat.as_deref())?;
        let oracle = match g.capabilities().solver {
            Solver::None => None,
            _ => {
                eprintln!("solving {} ...", g.name());
                let options = SolveOptions { progress: true, ..SolveOptions::default() };
                match g.solve(&options) {
                    Ok(oracle) => Some(oracle),
                    // Unless perfect play was asked for, the computer plays without the truth.
                    Err(e) if ai.as_deref() != Some("optimal") => {
                        eprintln!("no exact solution: {e}");
                        None
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        };
        // The solver knows the positions play reaches from the start; one it does not know is
        // played without the truth.
        let oracle = match oracle {
            Some(o) if start != g.initial_state() && o.describe(&start).is_none() => {
                if ai.as_deref() == Some("optimal") {
                    bail!(
                        "--ai optimal: the solver of {} does not know this position (play \
                         from the start does not reach it)",
                        g.name()
                    );
                }
                eprintln!("the solver does not know this position (play from the start does not reach it): the computer plays without it");
                None
            }
            other => other,
        };
        let choice = ai.as_deref().unwrap_or(play::default_ai(g, oracle.is_some()));
        let computer = play::computer_player(g, choice, fuzz, oracle.as_deref())?;
        if choice != "optimal" {
            eprintln!(
                "the computer plays {} (--ai optimal, greedy, random, mcts or search settings)",
                computer.name()
            );
        }
        play::play(
            g,
            start,
            human,
            computer.as_ref(),
            oracle.as_deref(),
            seed,
            &mut std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
        )?;
    });
    Ok(())
}

fn help() -> String {
    format!(
        "Search settings for --ai (comma-separated; games with a heuristic):\n{}\n\
MCTS settings for --ai (after `mcts,`, comma-separated; any game):\n{}\n\
Examples: solvedgym play hase-und-igel --players 3 --as 0\n          \
solvedgym play hase-und-igel --players 2 --ai \"depth=4,mode=hybrid\"\n          \
solvedgym play tictactoe --as o --state 'x../.../...'\n          \
solvedgym play tictactoe --ai mcts,sims=2000\n\n{}\n\n{}",
        solvedgym::ai::search::settings_help(),
        solvedgym::ai::mcts::settings_help(),
        solvedgym::games::notation_help(),
        games::help()
    )
}
