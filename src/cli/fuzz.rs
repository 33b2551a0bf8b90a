//! `solvedgym fuzz`: the fuzz-factor table.

use anyhow::Result;
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::output::{Json, print};

/// The fuzz-factor table (gilith/solve's, for Fox & Hounds): how often the side that loses
/// the start wins against the strongest AI when it adds fuzz p, and the fairest p.
#[derive(clap::Args)]
#[command(
    after_help = "The AI gives each move the weight p + (1 - p) if it is in its set S (the \
FoxBox rule in Fox & Hounds, the moves optimal to the ply in other games), p otherwise. The losing \
side of the start plays optimally (maximising its winning chances, computed exactly by dynamic \
programming) against the AI with fuzz p; the second column does the same from the opposite \
position (the first position in breadth-first order whose winner differs from the start's). The \
fairest p gives the first column exactly 0.5 (bisection to 1e-5). Every position is enumerated, \
so boards up to Fox & Hounds 8x8.\n\
Example: solvedgym fuzz fox-hounds --size 8",
    mut_arg("json", |a| a.help("Print the table as JSON")),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    output: Json,
}

pub fn exec(args: Args) -> Result<()> {
    let json = args.output.json;
    let game = args.game.build()?;
    // Progress on stderr unless the output is JSON.
    let table = with_game!(&game, g => solvedgym::tools::fuzz::fuzz_table(g, !json)?);
    print(&table, json)
}
