//! Training opponents: the `[[opponents]]` tables of a config and the policies they become
//! (random play, the oracle's perfect play, greedy play on the game's heuristic, a search, Monte-Carlo
//! tree search, a fuzzed one, or a frozen copy of the learner).

use std::num::NonZeroU64;

use serde::{Deserialize, Deserializer, Serialize};

use crate::ai::mcts::MctsOptions;
use crate::ai::players::PlayerSpec;
use crate::ai::search::SearchOptions;
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::core::policy::{FuzzyPolicy, Policy};
use crate::eval::FrozenPolicy;
use crate::io::source::{ConfigError, Source};
use crate::learn::Learner;
use crate::learn::schedule::checked;
use crate::truth::OptimalPolicy;
use crate::truth::oracle::Oracle;

/// A training opponent: a computer player by name ([`PlayerSpec`], the vocabulary of `play`,
/// tournaments and the Python package), a fuzzed one, or a frozen copy of the learner.
///
/// One word differs from the computer's players: a training opponent called `optimal` plays
/// uniformly among the optimal moves ([`OptimalPolicy`], the opponent of Gardner's HER and
/// Michie's MENACE), where the computer's `optimal` plays the strongest of them (longest
/// defence, FoxBox).
#[derive(Clone, Debug, PartialEq)]
pub enum OpponentPolicy {
    /// A computer player: random, optimal (as above), greedy, a search or MCTS by its settings,
    /// or a saved agent's greedy play (`policy = "agent"`, `agent = "PATH"`: a run's
    /// `agents/*.parquet`, the path as the program's working folder reads it).
    Player(PlayerSpec),
    /// `base`, playing a uniformly random move with probability `p`.
    Fuzzy { p: f64, base: PlayerSpec },
    /// A copy of the learner itself, frozen, replaced by a fresh copy every `refresh` episodes.
    Frozen {
        refresh: NonZeroU64,
        play: FrozenPlay,
    },
}

/// Which of the learner's policies its frozen copy plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrozenPlay {
    /// How the learner played when copied, exploration included.
    Behaviour,
    /// Its greedy policy when copied.
    Greedy,
}

/// Episodes between two copies of a frozen opponent when the config does not say.
pub const DEFAULT_REFRESH: NonZeroU64 = NonZeroU64::new(10_000).expect("not zero");

/// An opponent of an experiment: its name (unique) and its policy.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentSpec {
    pub name: String,
    pub policy: OpponentPolicy,
}

/// An `[[opponents]]` table as a config writes it, and as the resolved config writes it back.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpponentToml {
    name: Option<String>,
    policy: PolicyName,
    #[serde(
        default,
        deserialize_with = "some_probability",
        skip_serializing_if = "Option::is_none"
    )]
    p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<PolicyName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh: Option<NonZeroU64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    play: Option<FrozenPlay>,
    /// A search opponent's settings ("depth=4,cutoffs=0-0-8-8-4"), or an MCTS one's
    /// ("sims=1000,c=2").
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<String>,
    /// A saved agent's file.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
}

fn some_probability<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    checked::probability(d).map(Some)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum PolicyName {
    Random,
    Optimal,
    Greedy,
    Search,
    Mcts,
    Fuzzy,
    Frozen,
    Agent,
}

impl PolicyName {
    /// The `policy` of a computer player's table.
    fn of(spec: &PlayerSpec) -> PolicyName {
        match spec {
            PlayerSpec::Random => PolicyName::Random,
            PlayerSpec::Optimal => PolicyName::Optimal,
            PlayerSpec::Greedy => PolicyName::Greedy,
            PlayerSpec::Search(_) => PolicyName::Search,
            PlayerSpec::Mcts(_) => PolicyName::Mcts,
            PlayerSpec::Agent(_) => PolicyName::Agent,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            PolicyName::Random => "random",
            PolicyName::Optimal => "optimal",
            PolicyName::Greedy => "greedy",
            PolicyName::Search => "search",
            PolicyName::Mcts => "mcts",
            PolicyName::Fuzzy => "fuzzy",
            PolicyName::Frozen => "frozen",
            PolicyName::Agent => "agent",
        }
    }
}

impl OpponentToml {
    /// The opponent's name and policy; a key of another policy, or a missing one, is an error
    /// at `path` (`opponents[i]`).
    pub(crate) fn resolve(
        self,
        src: &Source,
        path: &str,
    ) -> Result<(String, OpponentPolicy), ConfigError> {
        let owners = [
            ("p", self.p.is_some(), PolicyName::Fuzzy),
            ("base", self.base.is_some(), PolicyName::Fuzzy),
            ("refresh", self.refresh.is_some(), PolicyName::Frozen),
            ("play", self.play.is_some(), PolicyName::Frozen),
            ("settings", self.settings.is_some(), PolicyName::Search),
            ("agent", self.agent.is_some(), PolicyName::Agent),
        ];
        for (key, given, owner) in owners {
            // Both searches take settings.
            let owned =
                self.policy == owner || (key == "settings" && self.policy == PolicyName::Mcts);
            if given && !owned {
                return Err(src.error(
                    &format!("{path}.{key}"),
                    format!(
                        "`{key}` belongs to policy = \"{}\", not \"{}\"",
                        owner.as_str(),
                        self.policy.as_str()
                    ),
                ));
            }
        }
        let settings = |parse: fn(&str) -> Result<PlayerSpec, String>| {
            parse(self.settings.as_deref().unwrap_or(""))
                .map_err(|e| src.error(&format!("{path}.settings"), e))
        };
        let policy = match self.policy {
            PolicyName::Random => OpponentPolicy::Player(PlayerSpec::Random),
            PolicyName::Optimal => OpponentPolicy::Player(PlayerSpec::Optimal),
            PolicyName::Greedy => OpponentPolicy::Player(PlayerSpec::Greedy),
            PolicyName::Search => OpponentPolicy::Player(settings(|s| {
                SearchOptions::parse(s).map(PlayerSpec::Search)
            })?),
            PolicyName::Mcts => {
                OpponentPolicy::Player(settings(|s| MctsOptions::parse(s).map(PlayerSpec::Mcts))?)
            }
            PolicyName::Fuzzy => OpponentPolicy::Fuzzy {
                p: self.p.ok_or_else(|| {
                    src.error(
                        &format!("{path}.p"),
                        "missing: the probability of a random move",
                    )
                })?,
                base: match self.base {
                    None | Some(PolicyName::Optimal) => PlayerSpec::Optimal,
                    Some(PolicyName::Random) => PlayerSpec::Random,
                    Some(PolicyName::Greedy) => PlayerSpec::Greedy,
                    Some(PolicyName::Search) => PlayerSpec::Search(SearchOptions::default()),
                    Some(_) => {
                        return Err(src.error(
                            &format!("{path}.base"),
                            "a fuzzy opponent's base is \"optimal\", \"greedy\" or \"random\"",
                        ));
                    }
                },
            },
            PolicyName::Frozen => OpponentPolicy::Frozen {
                refresh: self.refresh.unwrap_or(DEFAULT_REFRESH),
                play: self.play.unwrap_or(FrozenPlay::Behaviour),
            },
            PolicyName::Agent => match self.agent.as_deref() {
                None | Some("") => {
                    return Err(src.error(
                        &format!("{path}.agent"),
                        "missing: the file of a saved agent (a run's agents/*.parquet)",
                    ));
                }
                Some(file) => OpponentPolicy::Player(PlayerSpec::Agent(file.into())),
            },
        };
        let name = self.name.unwrap_or_else(|| policy.describe());
        Ok((name, policy))
    }
}

impl OpponentSpec {
    /// The table the resolved config writes, every default filled in.
    pub(crate) fn resolved(&self) -> OpponentToml {
        let mut t = OpponentToml {
            name: Some(self.name.clone()),
            policy: PolicyName::Random,
            p: None,
            base: None,
            refresh: None,
            play: None,
            settings: None,
            agent: None,
        };
        match &self.policy {
            OpponentPolicy::Player(spec) => {
                t.policy = PolicyName::of(spec);
                match spec {
                    PlayerSpec::Search(o) => t.settings = Some(o.spec()),
                    PlayerSpec::Mcts(o) => t.settings = Some(o.spec()),
                    PlayerSpec::Agent(file) => t.agent = Some(file.display().to_string()),
                    PlayerSpec::Random | PlayerSpec::Optimal | PlayerSpec::Greedy => {}
                }
            }
            OpponentPolicy::Fuzzy { p, base } => {
                (t.policy, t.p, t.base) = (PolicyName::Fuzzy, Some(*p), Some(PolicyName::of(base)));
            }
            OpponentPolicy::Frozen { refresh, play } => {
                (t.policy, t.refresh, t.play) = (PolicyName::Frozen, Some(*refresh), Some(*play));
            }
        }
        t
    }

    /// `(refresh, play)` when the opponent is a frozen copy of the learner.
    pub fn frozen(&self) -> Option<(u64, FrozenPlay)> {
        match self.policy {
            OpponentPolicy::Frozen { refresh, play } => Some((refresh.get(), play)),
            _ => None,
        }
    }
}

impl OpponentPolicy {
    /// The name an opponent gets when the config gives none ("fuzzy 0.3 optimal").
    fn describe(&self) -> String {
        match self {
            OpponentPolicy::Player(spec) => describe(spec),
            OpponentPolicy::Fuzzy { p, base } => format!("fuzzy {p} {}", describe(base)),
            OpponentPolicy::Frozen { refresh, play } => match play {
                FrozenPlay::Behaviour => format!("frozen every {refresh}"),
                FrozenPlay::Greedy => format!("frozen greedy every {refresh}"),
            },
        }
    }

    /// The computer player it plays, fuzzed or not (none for a frozen copy).
    fn player(&self) -> Option<&PlayerSpec> {
        match self {
            OpponentPolicy::Player(spec) | OpponentPolicy::Fuzzy { base: spec, .. } => Some(spec),
            OpponentPolicy::Frozen { .. } => None,
        }
    }

    /// Whether playing it needs the game's heuristic (greedy play, a search on the heuristic).
    pub fn needs_heuristic(&self) -> bool {
        self.player().is_some_and(PlayerSpec::needs_heuristic)
    }

    /// Whether playing it needs an oracle (perfect play).
    pub fn needs_oracle(&self) -> bool {
        self.player() == Some(&PlayerSpec::Optimal)
    }

    /// The policy for `game`, reading perfect play from `oracle` (`None`: a game without one;
    /// the config check refuses such opponents before any work starts) and a saved agent from
    /// its file (the config check loads it once; `Err` if it no longer loads). A frozen copy
    /// is made from its learner by [`copy_of`], never here.
    pub fn build<'o, G: Game>(
        &self,
        game: &G,
        oracle: Option<&'o dyn Oracle<G>>,
    ) -> anyhow::Result<Box<dyn Policy<G> + 'o>> {
        match self {
            OpponentPolicy::Player(spec) => player(spec, game, oracle),
            OpponentPolicy::Fuzzy { p, base } => Ok(Box::new(FuzzyPolicy {
                base: player(base, game, oracle)?,
                p: *p,
            })),
            OpponentPolicy::Frozen { .. } => {
                unreachable!("a frozen copy is made from its learner (copy_of), never built alone")
            }
        }
    }
}

/// A computer player's name as an opponent's default name: "random", "search depth=4,…",
/// "mcts sims=1000,…", "agent PATH".
fn describe(spec: &PlayerSpec) -> String {
    match spec {
        PlayerSpec::Search(o) => format!("search {}", o.spec()),
        PlayerSpec::Mcts(o) => format!("mcts {}", o.spec()),
        PlayerSpec::Agent(file) => format!("agent {}", file.display()),
        PlayerSpec::Random | PlayerSpec::Optimal | PlayerSpec::Greedy => spec.name(),
    }
}

/// The opponent `spec` plays for `game`, unfuzzed: the computer's player ([`PlayerSpec::build`]),
/// but for `optimal`, which plays uniformly among the optimal moves ([`OptimalPolicy`]).
fn player<'o, G: Game>(
    spec: &PlayerSpec,
    game: &G,
    oracle: Option<&'o dyn Oracle<G>>,
) -> anyhow::Result<Box<dyn Policy<G> + 'o>> {
    match (spec, oracle) {
        (PlayerSpec::Optimal, Some(oracle)) => Ok(Box::new(OptimalPolicy::new(oracle))),
        (PlayerSpec::Optimal, None) => {
            unreachable!("opponents that need an oracle are refused without one")
        }
        _ => spec.build(game, 0.0, oracle),
    }
}

/// A frozen copy of how `learner` plays now: a copy of the learner of its own kind
/// ([`FrozenPolicy::of_learner`]), brought up to date at each refresh with what the learner
/// changed ([`FrozenPolicy::refresh`]).
pub fn copy_of<'g, G: Game>(
    graph: &'g StateGraph<G>,
    learner: &dyn Learner<G>,
    play: FrozenPlay,
) -> Result<FrozenPolicy<'g, G>, crate::eval::EvalError> {
    FrozenPolicy::of_learner(graph, learner, play == FrozenPlay::Greedy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;
    use crate::truth::Solution;

    /// The probabilities `policy` gives the moves at the state after `moves`.
    fn probabilities(
        policy: &OpponentPolicy,
        oracle: &dyn Oracle<TicTacToe>,
        moves: &[u32],
    ) -> Vec<f64> {
        let game = TicTacToe;
        let built = policy.build(&game, Some(oracle)).unwrap();
        let mut state = game.initial_state();
        for &m in moves {
            state = game.apply(&state, m);
        }
        let mut legal = Vec::new();
        game.legal_actions(&state, &mut legal);
        let mut probs = Vec::new();
        assert!(built.probabilities(&game, &state, &legal, &mut probs));
        probs
    }

    #[test]
    fn an_optimal_opponent_plays_uniformly_among_the_optimal_moves() {
        let solution = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let optimal = OpponentPolicy::Player(PlayerSpec::Optimal);
        // Every first move of tic-tac-toe draws: each is played with 1/9, where the computer's
        // `optimal` (the strongest player) prefers some.
        let first = probabilities(&optimal, &solution, &[]);
        assert!(
            first.iter().all(|&p| (p - 1.0 / 9.0).abs() < 1e-12),
            "{first:?}"
        );
        // After a corner, only the centre draws for O.
        let reply = probabilities(&optimal, &solution, &[0]);
        assert_eq!(reply.iter().filter(|&&p| p > 0.0).count(), 1, "{reply:?}");
        assert_eq!(
            reply[3], 1.0,
            "the centre is the fourth of O's eight moves: {reply:?}"
        );
        // Fuzzed by a half: a half spread over the eight moves, the other half on the centre.
        let fuzzy = OpponentPolicy::Fuzzy {
            p: 0.5,
            base: PlayerSpec::Optimal,
        };
        let fuzzed = probabilities(&fuzzy, &solution, &[0]);
        assert!((fuzzed[3] - (0.5 + 0.5 / 8.0)).abs() < 1e-12, "{fuzzed:?}");
        assert_eq!(fuzzy.describe(), "fuzzy 0.5 optimal");
    }

    #[test]
    fn opponents_name_themselves_as_configs_named_them() {
        let search = SearchOptions::parse("depth=2").unwrap();
        let cases = [
            (
                OpponentPolicy::Player(PlayerSpec::Random),
                "random".to_string(),
            ),
            (
                OpponentPolicy::Player(PlayerSpec::Greedy),
                "greedy".to_string(),
            ),
            (
                OpponentPolicy::Player(PlayerSpec::Search(search.clone())),
                format!("search {}", search.spec()),
            ),
            (
                OpponentPolicy::Player(PlayerSpec::Agent("a.parquet".into())),
                "agent a.parquet".to_string(),
            ),
        ];
        for (policy, name) in cases {
            assert_eq!(policy.describe(), name);
        }
        assert!(OpponentPolicy::Player(PlayerSpec::Greedy).needs_heuristic());
        assert!(!OpponentPolicy::Player(PlayerSpec::Random).needs_oracle());
        let fuzzy = OpponentPolicy::Fuzzy {
            p: 0.1,
            base: PlayerSpec::Optimal,
        };
        assert!(fuzzy.needs_oracle() && !fuzzy.needs_heuristic());
    }
}
