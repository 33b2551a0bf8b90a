//! The computer's players by name, as `--ai`, configs and the Python package name them:
//! `optimal` (the oracle's strongest player, the FoxBox AI in Fox & Hounds), `greedy` (one ply
//! on the game's heuristic), `random`, Monte-Carlo tree search (`mcts` or `mcts,sims=2000,c=1.4`),
//! a saved agent (`agent=PATH`), or search settings; each with an optional fuzz.

use anyhow::{anyhow, bail, ensure};

use crate::ai::{GreedyPolicy, MctsOptions, MctsPolicy, SearchOptions, SearchPolicy};
use crate::core::game::Game;
use crate::core::policy::{FuzzyPolicy, Policy, RandomPolicy};
use crate::learn::saved::load_agent;
use crate::truth::oracle::Oracle;

/// Checks the computer's `--fuzz`: the probability of a random move.
pub fn check_fuzz(fuzz: f64) -> anyhow::Result<()> {
    ensure!(
        (0.0..=1.0).contains(&fuzz),
        "--fuzz {}: a probability between 0 and 1",
        crate::io::text::short_number(fuzz)
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
/// FoxBox AI in Fox & Hounds), `greedy` (one ply on the game's heuristic), `random`, `mcts`
/// with its settings ([`MctsOptions::parse`]; any game, no heuristic needed), a saved agent's
/// greedy play (`agent=PATH`, refused when saved from another game), or search
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
        (spec, _) if spec.starts_with("agent=") => {
            let path = &spec["agent=".len()..];
            ensure!(
                !path.is_empty(),
                "--ai agent=PATH: give the file of a saved agent (a run's agents/*.parquet)"
            );
            let agent = load_agent(game, std::path::Path::new(path))
                .map_err(|e| anyhow!("--ai {spec}: {e:#}"))?;
            Ok(fuzzy(agent, fuzz))
        }
        (spec, _) if MctsOptions::is_mcts(spec) => {
            let options = MctsOptions::parse(spec).map_err(|e| anyhow!("--ai {spec}: {e}"))?;
            let policy =
                MctsPolicy::for_game(options, game).map_err(|e| anyhow!("--ai {spec}: {e}"))?;
            Ok(fuzzy(policy, fuzz))
        }
        (spec, _) => {
            let options = SearchOptions::parse(spec).map_err(|e| {
                anyhow!("--ai {spec}: optimal, greedy, random, or search settings: {e}")
            })?;
            ensure!(
                heuristic || options.agent.is_some(),
                "--ai {spec}: {} has no heuristic to search with (eval=agent:PATH searches on a saved agent's values)",
                game.name()
            );
            let policy =
                SearchPolicy::for_game(options, game).map_err(|e| anyhow!("--ai {spec}: {e}"))?;
            Ok(fuzzy(policy, fuzz))
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

/// Whether the game has a heuristic (greedy play and the search need one).
pub fn has_heuristic<G: Game>(game: &G) -> bool {
    game.heuristic(&game.initial_state(), 0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{HaseUndIgel, HaseUndIgelParams, TicTacToe};
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
    fn mcts_plays_any_game_and_its_bad_settings_are_refused_by_name() {
        let name =
            |ai: &str, fuzz: f64| computer_player(&TicTacToe, ai, fuzz, None).unwrap().name();
        assert_eq!(name("mcts", 0.0), "mcts(sims=1000,c=2,rollouts=1)");
        assert_eq!(
            name("mcts,sims=50,c=1.4,seed=3", 0.0),
            "mcts(sims=50,c=1.4,rollouts=1,seed=3)"
        );
        assert_eq!(
            name("mcts,sims=50", 0.2),
            "fuzzy(p=0.2, mcts(sims=50,c=2,rollouts=1))"
        );
        // No heuristic needed: it plays Hase und Igel as it plays tic-tac-toe.
        let hase = hase();
        let player = computer_player(&hase, "mcts,sims=20", 0.0, None).unwrap();
        let state = hase.initial_state();
        let mut legal = Vec::new();
        hase.legal_actions(&state, &mut legal);
        let a = player.choose(&hase, &state, &legal, &mut crate::core::random::rng(1));
        assert!(legal.contains(&a.unwrap()));
        assert_eq!(
            refusal(&TicTacToe, "mcts,sims=0", 0.0, None),
            "--ai mcts,sims=0: `sims=0`: sims is a number of simulations from 1 to 100000000"
        );
        let bad = refusal(&TicTacToe, "mcts,depth=3", 0.0, None);
        assert!(
            bad.starts_with(
                "--ai mcts,depth=3: `depth=3`: not an MCTS setting; the settings are sims=N"
            ),
            "{bad}"
        );
        assert_eq!(
            refusal(&TicTacToe, "mcts", 1.5, None),
            "--fuzz 1.5: a probability between 0 and 1"
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
            "--ai depth=3: tictactoe has no heuristic to search with (eval=agent:PATH searches on a saved agent's values)"
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
                format!(
                    "--fuzz {}: a probability between 0 and 1",
                    crate::io::text::short_number(fuzz)
                )
            );
        }
    }
}
