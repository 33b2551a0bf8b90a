//! `solvedgym stats`: playout statistics of one policy at every seat.

use anyhow::{Result, bail};
use solvedgym::core::game::Game;
use solvedgym::tools::stats;
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::games;
use super::output::{Output, Threads, print_text};

/// Playout statistics: every seat plays one policy and nature draws from the seed; game
/// length, legal moves per decision, truncation at a round cap, wins per seat, chance
/// outcomes drawn (Hase und Igel's hare cards) and rule events (its stuck rule).
#[derive(clap::Args)]
#[command(
    after_help = games::help(),
    mut_arg("json", |a| a.help("Print the statistics as one JSON object")),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// Games to play (1 to 1,000,000,000).
    #[arg(long, default_value_t = 10_000, value_parser = super::parse::games)]
    games: u64,
    /// The policy every seat plays: random, or greedy (one ply on the game's heuristic).
    #[arg(long, default_value = "random",
          value_parser = clap::builder::PossibleValuesParser::new(stats::POLICIES))]
    policy: String,
    /// The seed of the chance draws and the players' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Output,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        games,
        policy,
        seed,
        threads,
        output,
    } = args;
    threads.set()?;
    game.pass("seed", Some(seed.to_string()), false)?;
    let game = game.build()?;
    let text = with_game!(&game, g => {
        if policy == "greedy" && g.heuristic(&g.initial_state(), 0).is_none() {
            bail!("--policy greedy: {} has no heuristic; use --policy random", g.name());
        }
        let p = stats::policy_named(&policy).expect("clap checked the name");
        let s = stats::playout_stats(g, p.as_ref(), games, seed, output.progress());
        if output.json() { serde_json::to_string_pretty(&s)? } else { s.to_string() }
    });
    print_text(&text)
}
