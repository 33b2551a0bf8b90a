//! `solvedgym moves`: the legal moves of a position written in the game's notation.

use anyhow::{Context, Result, bail};
use solvedgym::core::game::Game;
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::output::{Json, print_text};

/// The legal moves of a position written in the game's notation, each in words (with
/// --json also the position it leads to); a move onto a Hase und Igel hare cell lists the
/// cards it may draw with their probabilities. Games with a position notation: hase-und-igel.
#[derive(clap::Args)]
#[command(
    after_help = "The position is JSON (a file, or the text itself). Hase und Igel:\n  \
{\"to_move\": 0, \"round\": 12, \"hares\": [{\"cell\": 45, \"carrots\": 26, \"salads\": 2},\n  \
{\"cell\": 29, \"carrots\": 19, \"salads\": 0, \"skip\": true}]}\nPer hare: cell, carrots, salads; optional \
eat (eats a salad next turn), skip (misses the next turn), place (finishing place, on the goal). \
Optional: to_move (seat or colour), round, phase (move, card, choice, over), paid, extra, and any \
game parameter (board, players, carrots, salads, deck, end, max_rounds): the positions `moves \
--json` writes carry them all.\n\
Example: solvedgym moves hase-und-igel --players 2 --state '{\"hares\": [{\"cell\": 14, \"carrots\": 40, \"salads\": 3}, {\"cell\": 2, \"carrots\": 5, \"salads\": 3}]}'",
    mut_arg("json", |a| a.help("Print the moves as one JSON object")),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// The position: a JSON file, or the JSON itself.
    #[arg(long, value_name = "FILE|JSON")]
    state: String,
    #[command(flatten)]
    output: Json,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        state,
        output,
    } = args;
    let text = match std::fs::read_to_string(&state) {
        Ok(text) => text,
        Err(_) if serde_json::from_str::<serde_json::Value>(&state).is_ok() => state.clone(),
        Err(_) if state.trim_start().starts_with('{') => state.clone(),
        Err(e) => bail!(
            "--state {}: neither a readable file ({e}) nor JSON",
            solvedgym::core::text::abbreviated(&state, 60)
        ),
    };
    let position: serde_json::Value =
        serde_json::from_str(&text).context("--state: the position is not JSON")?;
    game.take_from_position(&position)?;
    let game = game.build()?;
    let out = with_game!(&game, g => {
        let state = g
            .read_position(&text)
            .map_err(|e| anyhow::anyhow!("--state: {e}"))?;
        let moves = solvedgym::tools::moves::moves(g, &state);
        if output.json {
            serde_json::to_string_pretty(&moves)?
        } else {
            moves.to_string()
        }
    });
    print_text(&out)
}
