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
    let width = GAMES.iter().map(|g| g.name.len()).max().unwrap_or(0);
    let mut s = String::from("Games:\n");
    for g in GAMES {
        s.push_str(&format!(
            "  {:<width$}  {}\n  {:<width$}  parameters: {}\n",
            g.name,
            g.summary,
            "",
            g.params_help()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    /// Every name stands apart from its summary, however long the longest name.
    #[test]
    fn names_and_summaries_have_a_gap() {
        for line in super::help().lines().skip(1) {
            let text = line.trim_start();
            if !text.starts_with("parameters:") {
                let name = text.split(' ').next().unwrap();
                assert!(text[name.len()..].starts_with("  "), "{line}");
            }
        }
    }
}
