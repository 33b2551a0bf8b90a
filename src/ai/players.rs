//! The computer's players by name ([`PlayerSpec`]), as `--ai`, tournaments, configs and the
//! Python package name them: `optimal` (the oracle's strongest player, the FoxBox AI in Fox &
//! Hounds), `greedy` (one ply on the game's heuristic), `random`, Monte-Carlo tree search (`mcts`
//! or `mcts,sims=2000,c=1.4`), a saved agent (`agent=PATH`), or search settings; each with an
//! optional fuzz.

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

/// A computer player by name, as every front writes one — `--ai` of `play` and the vector
/// environments, a tournament's entrants, `rate`, configs' opponents (through their tables) and
/// the Python package: read by [`PlayerSpec::parse`], written back by [`PlayerSpec::name`] and
/// made for a game by [`PlayerSpec::build`]. This is the one place players are parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random moves (`random`).
    Random,
    /// One ply on the game's heuristic (`greedy`, [`GreedyPolicy`]).
    Greedy,
    /// Perfect play (`optimal`): the oracle's strongest player, for games small enough to solve.
    Optimal,
    /// A search with these settings (`depth=4,mode=hybrid`, [`SearchOptions::parse`]).
    Search(SearchOptions),
    /// Monte-Carlo tree search with these settings (`mcts,sims=2000`, [`MctsOptions::parse`]).
    Mcts(MctsOptions),
    /// A saved agent's greedy play (`agent=PATH`: a run's `agents/*.parquet`).
    Agent(std::path::PathBuf),
}

impl PlayerSpec {
    /// The player `spec` names: `optimal`, `greedy`, `random`, `agent=PATH`, `mcts` with its
    /// settings, or search settings (in the grammar of [`crate::ai::settings`]). The error says
    /// what is wrong, without the flag that gave it (each front adds its own).
    pub fn parse(spec: &str) -> Result<PlayerSpec, String> {
        match spec.trim() {
            "" => Err(format!("an empty player: {NAMES}")),
            "optimal" => Ok(PlayerSpec::Optimal),
            "random" => Ok(PlayerSpec::Random),
            "greedy" => Ok(PlayerSpec::Greedy),
            s if s.starts_with("agent=") => match s["agent=".len()..].trim() {
                "" => Err(
                    "agent=PATH: give the file of a saved agent (a run's agents/*.parquet)".into(),
                ),
                path => Ok(PlayerSpec::Agent(path.into())),
            },
            s if MctsOptions::is_mcts(s) => MctsOptions::parse(s).map(PlayerSpec::Mcts),
            s => SearchOptions::parse(s)
                .map(PlayerSpec::Search)
                .map_err(|e| format!("{NAMES}: {e}")),
        }
    }

    /// Its name in the form [`PlayerSpec::parse`] reads, settings in full (so two spellings of
    /// one search are one name): `random`, `greedy`, `optimal`, `depth=4,mode=paranoid,…`,
    /// `mcts,sims=1000,…`, `agent=PATH`.
    pub fn name(&self) -> String {
        match self {
            PlayerSpec::Random => "random".into(),
            PlayerSpec::Greedy => "greedy".into(),
            PlayerSpec::Search(o) => o.spec(),
            PlayerSpec::Mcts(o) => format!("mcts,{}", o.spec()),
            PlayerSpec::Optimal => "optimal".into(),
            PlayerSpec::Agent(path) => format!("agent={}", path.display()),
        }
    }

    /// Why `game` cannot be played by it before anything is built: greedy play and a search on
    /// the heuristic need one, `optimal` needs the game's solution (`solved`).
    pub fn refusal<G: Game>(&self, game: &G, solved: bool) -> Option<String> {
        let heuristic = !self.needs_heuristic() || has_heuristic(game);
        match self {
            PlayerSpec::Optimal if !solved => Some(format!(
                "{} has no exact solver; use greedy or random",
                game.name()
            )),
            PlayerSpec::Greedy if !heuristic => {
                Some(format!("{} has no heuristic; use random", game.name()))
            }
            PlayerSpec::Search(_) if !heuristic => Some(format!(
                "{} has no heuristic to search with (eval=agent:PATH searches on a saved agent's values)",
                game.name()
            )),
            _ => None,
        }
    }

    /// Whether it plays on the game's heuristic: greedy play, and a search that does not
    /// search on a saved agent's values.
    pub fn needs_heuristic(&self) -> bool {
        match self {
            PlayerSpec::Greedy => true,
            PlayerSpec::Search(o) => o.agent.is_none(),
            PlayerSpec::Random
            | PlayerSpec::Optimal
            | PlayerSpec::Mcts(_)
            | PlayerSpec::Agent(_) => false,
        }
    }

    /// The player for `game`, perfect play read from `oracle`; a random move with probability
    /// `fuzz` (but for the random player). The error says why the game refuses it
    /// ([`PlayerSpec::refusal`], a saved agent of another game, settings the game does not have).
    pub fn build<'a, G: Game>(
        &self,
        game: &G,
        fuzz: f64,
        oracle: Option<&'a dyn Oracle<G>>,
    ) -> anyhow::Result<Box<dyn Policy<G> + 'a>> {
        if let Some(why) = self.refusal(game, oracle.is_some()) {
            bail!(why);
        }
        Ok(match (self, oracle) {
            (PlayerSpec::Optimal, Some(oracle)) => oracle.strong_policy(fuzz),
            (PlayerSpec::Optimal, None) => unreachable!("refused above"),
            (PlayerSpec::Greedy, _) => fuzzy(GreedyPolicy, fuzz),
            (PlayerSpec::Random, _) => Box::new(RandomPolicy),
            (PlayerSpec::Agent(path), _) => fuzzy(load_agent(game, path)?, fuzz),
            (PlayerSpec::Mcts(o), _) => fuzzy(
                MctsPolicy::for_game(o.clone(), game).map_err(|e| anyhow!(e))?,
                fuzz,
            ),
            (PlayerSpec::Search(o), _) => fuzzy(
                SearchPolicy::for_game(o.clone(), game).map_err(|e| anyhow!(e))?,
                fuzz,
            ),
        })
    }
}

/// The players' names, for errors.
const NAMES: &str = "optimal, greedy, random, mcts, agent=PATH, or search settings";

/// The computer's player named by `--ai` (`ai`, read by [`PlayerSpec::parse`]) for `game`,
/// playing a random move with probability `fuzz` ([`PlayerSpec::build`]). The refusals name
/// the flags, as the command prints them.
pub fn computer_player<'a, G: Game>(
    game: &G,
    ai: &str,
    fuzz: f64,
    oracle: Option<&'a dyn Oracle<G>>,
) -> anyhow::Result<Box<dyn Policy<G> + 'a>> {
    check_fuzz(fuzz)?;
    let spec = PlayerSpec::parse(ai).map_err(|e| anyhow!("--ai {ai}: {e}"))?;
    spec.build(game, fuzz, oracle)
        .map_err(|e| anyhow!("--ai {ai}: {e:#}"))
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
    fn every_player_spec_reads_back_from_its_name() {
        for text in [
            "random",
            " greedy ",
            "optimal",
            "agent=runs/a.parquet",
            "mcts",
            "mcts, sims=50,c=1.4",
            "depth=3,no-prune",
            "depth = 2, mode=hybrid, chance=sample:4",
            "depth=2,eval=agent:a.parquet,kc=1.2",
        ] {
            let spec = PlayerSpec::parse(text).unwrap();
            assert_eq!(PlayerSpec::parse(&spec.name()), Ok(spec.clone()), "{text}");
        }
        assert_eq!(PlayerSpec::parse("agent=x").unwrap().name(), "agent=x");
        assert_eq!(
            PlayerSpec::parse("mcts,sims=50").unwrap().name(),
            "mcts,sims=50,c=2,rollouts=1"
        );
        for bad in ["", "agent=", "mcts,depth=2", "depth=0", "bogus"] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
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
            "--ai optimal: tictactoe has no exact solver; use greedy or random"
        );
        assert_eq!(
            refusal(&TicTacToe, "greedy", 0.0, None),
            "--ai greedy: tictactoe has no heuristic; use random"
        );
        assert_eq!(
            refusal(&TicTacToe, "depth=3", 0.0, None),
            "--ai depth=3: tictactoe has no heuristic to search with (eval=agent:PATH searches on a saved agent's values)"
        );
        let unknown = refusal(&TicTacToe, "bogus", 0.0, None);
        assert!(
            unknown.starts_with(
                "--ai bogus: optimal, greedy, random, mcts, agent=PATH, or search settings: `bogus`: the settings are depth=N"
            ),
            "{unknown}"
        );
        let hase = hase();
        let depth = refusal(&hase, "depth=x", 0.0, None);
        assert!(
            depth.starts_with(
                "--ai depth=x: optimal, greedy, random, mcts, agent=PATH, or search settings: "
            ),
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
