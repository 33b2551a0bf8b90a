//! `solvedgym play`: a person against the computer in the terminal.

use anyhow::Result;
use solvedgym::core::game::{Game, Solver};
use solvedgym::tools::play;
use solvedgym::truth::{Solve, SolveOptions};
use solvedgym::with_game;

use super::game_args::GameArgs;
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
    /// game has one), random, or a search on the game's heuristic given by its settings,
    /// e.g. "depth=4" or "depth=6,cutoffs=0-0-8-8-4,mode=hybrid" (see --help).
    #[arg(long, value_name = "AI")]
    ai: Option<String>,
    /// The computer plays a random move with this probability.
    #[arg(long, default_value_t = 0.0, value_parser = super::parse::fuzz)]
    fuzz: f64,
    /// The seed of the computer's random choices (and of a game's random positions where
    /// it has them).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        seat,
        ai,
        fuzz,
        seed,
    } = args;
    game.pass("seed", Some(seed.to_string()), false)?;
    let game = game.build()?;
    with_game!(&game, g => {
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
        let choice = ai.as_deref().unwrap_or(play::default_ai(g, oracle.is_some()));
        let computer = play::computer_player(g, choice, fuzz, oracle.as_deref())?;
        if choice != "optimal" {
            eprintln!(
                "the computer plays {} (--ai optimal, greedy, random or search settings)",
                computer.name()
            );
        }
        play::play(
            g,
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
Examples: solvedgym play hase-und-igel --players 3 --as 0\n          \
solvedgym play hase-und-igel --players 2 --ai \"depth=4,mode=hybrid\"\n\n{}",
        solvedgym::ai::search::settings_help(),
        games::help()
    )
}
