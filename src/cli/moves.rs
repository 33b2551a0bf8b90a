//! `solvedgym moves`: the legal moves of a position written in the game's notation.

use anyhow::Result;
use solvedgym::with_game;

use super::game_args::{GameArgs, read_state};
use super::output::{Json, print_text};

/// The legal moves of a position (the start unless --state gives one), each in words and
/// with the position it leads to in the game's notation; a move onto a Hase und Igel hare
/// cell lists the cards it may draw with their probabilities.
#[derive(clap::Args)]
#[command(
    after_help = format!("{}\n\nExamples:\n  solvedgym moves tictactoe --state 'x.o/.x./...'\n  \
solvedgym moves hexapawn --state 'bbb/.w./w.w b'\n  \
solvedgym moves hackenbush --state 'lrl right'\n  \
solvedgym moves hase-und-igel --players 2 --state '{{\"hares\": [{{\"cell\": 14, \"carrots\": 40, \"salads\": 3}}, {{\"cell\": 2, \"carrots\": 5, \"salads\": 3}}]}}'",
        solvedgym::games::notation_help()),
    mut_arg("json", |a| a.help("Print the moves as one JSON object")),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// The position in the game's notation (a file, or the text itself; see below), or
    /// `start` (the default): the game's start.
    #[arg(long, value_name = "POSITION")]
    state: Option<String>,
    #[command(flatten)]
    output: Json,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        state,
        output,
    } = args;
    let (game, text) = game.build_at(state.as_deref())?;
    let out = with_game!(&game, g => {
        let state = read_state(g, text.as_deref())?;
        let moves = solvedgym::tools::moves::moves(g, &state);
        if output.json {
            serde_json::to_string_pretty(&moves)?
        } else {
            moves.to_string()
        }
    });
    print_text(&out)
}
