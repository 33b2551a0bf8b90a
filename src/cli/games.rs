//! `solvedgym games`: the games and their parameters, a list that the commands taking a game
//! also print under their help.

use anyhow::Result;
use solvedgym::games::GAMES;

use super::output::print_text;

pub fn exec() -> Result<()> {
    print_text(&help())
}

/// Every registered game with its summary and parameters.
pub fn help() -> String {
    let mut s = String::from("Games:\n");
    for g in GAMES {
        s.push_str(&format!(
            "  {:<12} {}\n               parameters: {}\n",
            g.name,
            g.summary,
            g.params_help()
        ));
    }
    s
}
