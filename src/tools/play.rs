//! A person plays a game in the terminal against the computer: `solvedgym play`. The computer
//! plays what `--ai` names ([`computer_player`]): by default the oracle's strongest player
//! (perfect play, the FoxBox AI), or greedy or random play where a game has no oracle; `?` asks
//! the oracle for the value of the position and of every move.

use std::io::{self, BufRead, Write};

use anyhow::{Context, anyhow, bail, ensure};

use crate::ai::{GreedyPolicy, SearchOptions, SearchPolicy};
use crate::core::game::{Game, Player, Turn};
use crate::core::policy::{FuzzyPolicy, Policy, RandomPolicy, sample};
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

/// Checks the computer's `--fuzz`: the probability of a random move.
pub fn check_fuzz(fuzz: f64) -> anyhow::Result<()> {
    ensure!(
        (0.0..=1.0).contains(&fuzz),
        "--fuzz {fuzz}: a probability between 0 and 1"
    );
    Ok(())
}

/// The AI the computer plays when `--ai` names none: the strongest there is, that is perfect
/// play where the game was `solved`, else greedy play on the game's heuristic where it has one,
/// else random play.
pub fn default_ai<G: Game>(game: &G, solved: bool) -> &'static str {
    if solved {
        "optimal"
    } else if has_heuristic(game) {
        "greedy"
    } else {
        "random"
    }
}

/// The computer's player named by `--ai` (`ai`): `optimal` (the oracle's strongest player, the
/// FoxBox AI in Fox & Hounds), `greedy` (one ply on the game's heuristic), `random`, or search
/// settings ([`SearchOptions::parse`], checked against the game). Every player but the random
/// one plays a random move with probability `fuzz`. The refusals name the flags, as the command
/// prints them.
pub fn computer_player<'a, G: Game>(
    game: &G,
    ai: &str,
    fuzz: f64,
    oracle: Option<&'a dyn Oracle<G>>,
) -> anyhow::Result<Box<dyn Policy<G> + 'a>> {
    check_fuzz(fuzz)?;
    let heuristic = has_heuristic(game);
    match (ai, oracle) {
        ("optimal", Some(oracle)) => Ok(oracle.strong_policy(fuzz)),
        ("optimal", None) => bail!(
            "--ai optimal: {} has no exact solver; use --ai greedy or random",
            game.name()
        ),
        ("greedy", _) if !heuristic => bail!(
            "--ai greedy: {} has no heuristic; use --ai random",
            game.name()
        ),
        ("greedy", _) => Ok(fuzzy(GreedyPolicy, fuzz)),
        ("random", _) => Ok(Box::new(RandomPolicy)),
        (spec, _) => {
            let options = SearchOptions::parse(spec).map_err(|e| {
                anyhow!("--ai {spec}: optimal, greedy, random, or search settings: {e}")
            })?;
            ensure!(
                heuristic,
                "--ai {spec}: {} has no heuristic to search with",
                game.name()
            );
            options
                .evaluator(game)
                .map_err(|e| anyhow!("--ai {spec}: {e}"))?;
            Ok(fuzzy(SearchPolicy::new(options), fuzz))
        }
    }
}

/// `policy`, playing a random move with probability `fuzz` where it is above 0.
fn fuzzy<G: Game, P: Policy<G> + 'static>(policy: P, fuzz: f64) -> Box<dyn Policy<G>> {
    if fuzz > 0.0 {
        Box::new(FuzzyPolicy {
            base: policy,
            p: fuzz,
        })
    } else {
        Box::new(policy)
    }
}

fn has_heuristic<G: Game>(game: &G) -> bool {
    game.heuristic(&game.initial_state(), 0).is_some()
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
    use crate::games::{HaseUndIgel, HaseUndIgelParams, TicTacToe};
    use crate::truth::OptimalPolicy;
    use crate::truth::Solution;

    fn hase() -> HaseUndIgel {
        HaseUndIgel::new(HaseUndIgelParams {
            players: 2,
            ..HaseUndIgelParams::default()
        })
        .unwrap()
    }

    /// The refusal `computer_player` gives, in full.
    fn refusal<G: Game>(game: &G, ai: &str, fuzz: f64, oracle: Option<&dyn Oracle<G>>) -> String {
        match computer_player(game, ai, fuzz, oracle) {
            Ok(p) => panic!("--ai {ai} was taken: {}", p.name()),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn each_ai_name_gives_its_player() {
        let solution = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let name = |ai: &str, fuzz: f64| {
            computer_player(&TicTacToe, ai, fuzz, Some(&solution))
                .unwrap()
                .name()
        };
        assert_eq!(name("optimal", 0.0), "fuzzy(p=0, optimal)");
        assert_eq!(name("optimal", 0.25), "fuzzy(p=0.25, optimal)");
        assert_eq!(name("random", 0.0), "random");
        assert_eq!(name("random", 0.5), "random");
        let hase = hase();
        let name = |ai: &str, fuzz: f64| computer_player(&hase, ai, fuzz, None).unwrap().name();
        assert_eq!(name("greedy", 0.0), "greedy");
        assert_eq!(name("greedy", 0.25), "fuzzy(p=0.25, greedy)");
        let search = name("depth=2,mode=hybrid", 0.0);
        assert!(search.starts_with("search(depth=2,mode=hybrid"), "{search}");
        let fuzzed = name("depth=2", 0.1);
        assert!(
            fuzzed.starts_with("fuzzy(p=0.1, search(depth=2"),
            "{fuzzed}"
        );
    }

    #[test]
    fn the_default_ai_is_the_strongest_the_game_allows() {
        assert_eq!(default_ai(&TicTacToe, true), "optimal");
        assert_eq!(default_ai(&TicTacToe, false), "random");
        assert_eq!(default_ai(&hase(), false), "greedy");
    }

    #[test]
    fn an_ai_the_game_cannot_play_is_refused_with_the_reason() {
        assert_eq!(
            refusal(&TicTacToe, "optimal", 0.0, None),
            "--ai optimal: tictactoe has no exact solver; use --ai greedy or random"
        );
        assert_eq!(
            refusal(&TicTacToe, "greedy", 0.0, None),
            "--ai greedy: tictactoe has no heuristic; use --ai random"
        );
        assert_eq!(
            refusal(&TicTacToe, "depth=3", 0.0, None),
            "--ai depth=3: tictactoe has no heuristic to search with"
        );
        let unknown = refusal(&TicTacToe, "bogus", 0.0, None);
        assert!(
            unknown.starts_with(
                "--ai bogus: optimal, greedy, random, or search settings: `bogus`: the settings are depth=N"
            ),
            "{unknown}"
        );
        let hase = hase();
        let depth = refusal(&hase, "depth=x", 0.0, None);
        assert!(
            depth.starts_with("--ai depth=x: optimal, greedy, random, or search settings: "),
            "{depth}"
        );
        // A key the search does not read goes to the game's evaluation, which refuses it.
        let eval = refusal(&hase, "depth=2,bogus=1", 0.0, None);
        assert!(eval.starts_with("--ai depth=2,bogus=1: "), "{eval}");
        assert!(eval.contains("bogus"), "{eval}");
        for fuzz in [2.0, -0.5, f64::NAN] {
            assert_eq!(
                refusal(&hase, "greedy", fuzz, None),
                format!("--fuzz {fuzz}: a probability between 0 and 1")
            );
        }
    }

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
