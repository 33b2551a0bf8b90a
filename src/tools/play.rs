//! A person plays a game in the terminal against the computer: `solvedgym play`. The computer
//! plays what `--ai` names ([`computer_player`], from [`crate::ai::players`]): by default the oracle's strongest player
//! (perfect play, the FoxBox AI), or greedy or random play where a game has no oracle; `?` asks
//! the oracle for the value of the position and of every move.

use std::io::{self, BufRead, Write};

use anyhow::Context;

pub use crate::ai::players::{check_fuzz, computer_player, default_ai};
use crate::core::game::{Game, Player, Turn};
use crate::core::policy::{Policy, sample};
use crate::truth::oracle::Oracle;

/// The seat a person takes by `--as`: a player's name (in any case) or a seat number from 0;
/// seat 0 without one.
pub fn human_seat<G: Game>(game: &G, name: Option<&str>) -> anyhow::Result<Player> {
    let Some(name) = name else {
        return Ok(0);
    };
    let names: Vec<_> = (0..game.num_players())
        .map(|p| game.player_name(p))
        .collect();
    match name.parse::<usize>() {
        Ok(seat) if seat < names.len() => Ok(seat),
        _ => game.player_by_name(name).with_context(|| {
            format!(
                "--as {name}: the players of {} are {} (or seats 0 to {})",
                game.name(),
                names.join(", "),
                names.len() - 1
            )
        }),
    }
}

/// Plays one game from `start`: the person holds `human`, `ai` every other seat; chance events
/// are drawn with the generator seeded by `seed`. Reads moves from `input` until the game ends,
/// the input ends, or the person types `quit`.
#[allow(clippy::too_many_arguments)]
pub fn play<G: Game>(
    game: &G,
    start: G::State,
    human: Player,
    ai: &dyn Policy<G>,
    oracle: Option<&dyn Oracle<G>>,
    seed: u64,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut rng = crate::core::random::rng(seed);
    let mut state = start;
    let mut legal = Vec::new();
    let mut outcomes = Vec::new();
    let mut buf = Vec::new();
    writeln!(
        out,
        "You play {}. Type a move, `?` for the solver's verdict, `moves` for the legal moves, `quit` to stop.",
        game.player_name(human)
    )?;
    let resigned = loop {
        writeln!(out, "\n{}", game.render(&state))?;
        match game.turn(&state) {
            Turn::Terminal => break None,
            Turn::Chance => {
                game.chance_outcomes(&state, &mut outcomes);
                let actions: Vec<_> = outcomes.iter().map(|&(a, _)| a).collect();
                let probs: Vec<_> = outcomes.iter().map(|&(_, p)| p).collect();
                let a = sample(&actions, &probs, &mut rng).expect("chance outcomes sum to one");
                let (name, words) = (
                    game.action_to_string(&state, a),
                    game.describe_action(&state, a),
                );
                if words == name {
                    writeln!(out, "chance: {name}")?;
                } else {
                    writeln!(out, "chance: {name}: {words}")?;
                }
                state = game.apply(&state, a);
            }
            Turn::Player(p) if p == human => {
                game.legal_actions(&state, &mut legal);
                let shown: Vec<_> = legal
                    .iter()
                    .map(|&a| game.action_to_string(&state, a))
                    .collect();
                write!(out, "your move [{}]: ", shown.join(" "))?;
                out.flush()?;
                buf.clear();
                if input.read_until(b'\n', &mut buf)? == 0 {
                    writeln!(out, "\nend of input: the game is left unfinished")?;
                    return Ok(());
                }
                // Whatever was typed, even bytes that are not UTF-8, is only a move to look up.
                let line = String::from_utf8_lossy(&buf);
                match line.trim() {
                    "quit" | "exit" => return Ok(()),
                    "?" => match oracle {
                        None => writeln!(
                            out,
                            "no exact solution to ask: {} has none in this setting",
                            game.name()
                        )?,
                        Some(oracle) => {
                            let unknown = || "unknown".to_string();
                            let now = oracle.describe(&state).unwrap_or_else(unknown);
                            writeln!(out, "solver: {now}")?;
                            for &a in &legal {
                                let after = oracle.describe_move(&state, a).unwrap_or_else(unknown);
                                writeln!(
                                    out,
                                    "  {:<8} -> {after}",
                                    game.action_to_string(&state, a)
                                )?;
                            }
                        }
                    },
                    "moves" | "" => writeln!(out, "legal moves: {}", shown.join(", "))?,
                    text => match game.parse_action(&state, text) {
                        Ok(a) => state = game.apply(&state, a),
                        Err(e) => writeln!(out, "{e}")?,
                    },
                }
            }
            Turn::Player(p) => {
                game.legal_actions(&state, &mut legal);
                match ai.choose(game, &state, &legal, &mut rng) {
                    Some(a) => {
                        writeln!(
                            out,
                            "{} plays {}",
                            game.player_name(p),
                            game.action_to_string(&state, a)
                        )?;
                        state = game.apply(&state, a);
                    }
                    None => break Some(p),
                }
            }
        }
    };
    let returns = match resigned {
        Some(p) => {
            writeln!(out, "{} resigns.", game.player_name(p))?;
            game.resignation_returns(&state, p)
        }
        None => game.returns(&state),
    };
    match returns.winner() {
        Some(w) if w == human => writeln!(out, "You win."),
        Some(w) => writeln!(out, "{}.", game.player_wins(w)),
        None => writeln!(out, "Draw."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;
    use crate::truth::OptimalPolicy;
    use crate::truth::Solution;

    #[test]
    fn a_seat_is_named_by_player_or_number() {
        assert_eq!(human_seat(&TicTacToe, None).unwrap(), 0);
        assert_eq!(human_seat(&TicTacToe, Some("o")).unwrap(), 1);
        assert_eq!(human_seat(&TicTacToe, Some("X")).unwrap(), 0);
        assert_eq!(human_seat(&TicTacToe, Some("1")).unwrap(), 1);
        for bad in ["5", "bad"] {
            assert_eq!(
                format!("{:#}", human_seat(&TicTacToe, Some(bad)).unwrap_err()),
                format!("--as {bad}: the players of tictactoe are x, o (or seats 0 to 1)")
            );
        }
    }

    fn session(typed: &str) -> String {
        let solution = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let ai = OptimalPolicy::new(&solution);
        let mut out = Vec::new();
        play(
            &TicTacToe,
            TicTacToe.initial_state(),
            0,
            &ai,
            Some(&solution),
            1,
            &mut typed.as_bytes(),
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_verdict_names_every_move_and_illegal_moves_are_refused() {
        let text = session("?\nz9\nquit\n");
        assert!(text.contains("solver: draw"), "{text}");
        assert_eq!(text.matches(" -> draw").count(), 9, "{text}");
        assert!(text.contains("illegal action \"z9\""), "{text}");
    }

    #[test]
    fn a_game_with_chance_and_three_players_plays_to_the_end() {
        use crate::games::DiceRace;
        let game = DiceRace::default();
        let mut out = Vec::new();
        let typed = "?\n".to_string() + &"dash\n".repeat(20);
        play(
            &game,
            game.initial_state(),
            0,
            &crate::core::policy::RandomPolicy,
            None,
            5,
            &mut typed.as_bytes(),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("no exact solution to ask"), "{text}");
        assert!(text.contains("chance: roll"), "{text}");
        assert!(
            text.contains("green plays") && text.contains("blue plays"),
            "{text}"
        );
        assert!(
            text.trim_end().ends_with("You win.") || text.trim_end().ends_with("wins."),
            "{text}"
        );
    }

    /// A game starts where it is told: here x has two in a row and o to move must block.
    #[test]
    fn play_starts_from_the_position_given() {
        let solution = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let ai = OptimalPolicy::new(&solution);
        let start = TicTacToe.read_position("xx./o../... o").unwrap();
        let mut out = Vec::new();
        play(
            &TicTacToe,
            start,
            1,
            &ai,
            Some(&solution),
            1,
            &mut "c3\nquit\n".as_bytes(),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("You play o."), "{text}");
        assert!(text.contains("3  x x .\n"), "{text}");
        assert!(text.contains("x plays"), "{text}");
    }

    #[test]
    fn perfect_play_never_loses_to_a_person_who_plays_the_first_legal_move() {
        // Every "moves" line is answered by the first legal move until the game ends.
        let mut typed = String::new();
        for square in ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"] {
            typed.push_str(square);
            typed.push('\n');
        }
        let text = session(&typed);
        assert!(
            text.contains("o wins.") || text.contains("Draw."),
            "perfect play lost: {text}"
        );
    }
}
