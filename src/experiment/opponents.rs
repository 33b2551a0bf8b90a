//! Training opponents: the `[[opponents]]` tables of a config and the policies they become
//! (random play, the oracle's perfect play, greedy play on the game's heuristic, a search, Monte-Carlo
//! tree search, a fuzzed one, or a frozen copy of the learner).

use std::num::NonZeroU64;

use serde::{Deserialize, Deserializer, Serialize};

use crate::ai::GreedyPolicy;
use crate::ai::mcts::{MctsOptions, MctsPolicy};
use crate::ai::search::{SearchOptions, SearchPolicy};
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::core::policy::{FuzzyPolicy, Policy, RandomPolicy};
use crate::eval::FrozenPolicy;
use crate::io::source::{ConfigError, Source};
use crate::learn::Learner;
use crate::learn::saved::load_agent;
use crate::learn::schedule::checked;
use crate::truth::OptimalPolicy;
use crate::truth::oracle::Oracle;

/// A training opponent.
#[derive(Clone, Debug, PartialEq)]
pub enum OpponentPolicy {
    Random,
    Optimal,
    /// One-ply greedy play on the game's heuristic ([`GreedyPolicy`]).
    Greedy,
    /// A search on the game's heuristic ([`SearchPolicy`]), by its settings.
    Search(SearchOptions),
    /// Monte-Carlo tree search with random rollouts ([`MctsPolicy`]), by its settings.
    Mcts(MctsOptions),
    Fuzzy {
        p: f64,
        base: Box<OpponentPolicy>,
    },
    /// A saved agent's greedy play (`policy = "agent"`, `agent = "PATH"`: a run's
    /// `agents/*.parquet`, the path as the program's working folder reads it).
    Agent(std::path::PathBuf),
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
        let policy = match self.policy {
            PolicyName::Random => OpponentPolicy::Random,
            PolicyName::Optimal => OpponentPolicy::Optimal,
            PolicyName::Greedy => OpponentPolicy::Greedy,
            PolicyName::Search => OpponentPolicy::Search(
                SearchOptions::parse(self.settings.as_deref().unwrap_or(""))
                    .map_err(|e| src.error(&format!("{path}.settings"), e))?,
            ),
            PolicyName::Mcts => OpponentPolicy::Mcts(
                MctsOptions::parse(self.settings.as_deref().unwrap_or(""))
                    .map_err(|e| src.error(&format!("{path}.settings"), e))?,
            ),
            PolicyName::Fuzzy => OpponentPolicy::Fuzzy {
                p: self.p.ok_or_else(|| {
                    src.error(
                        &format!("{path}.p"),
                        "missing: the probability of a random move",
                    )
                })?,
                base: Box::new(match self.base {
                    None | Some(PolicyName::Optimal) => OpponentPolicy::Optimal,
                    Some(PolicyName::Random) => OpponentPolicy::Random,
                    Some(PolicyName::Greedy) => OpponentPolicy::Greedy,
                    Some(PolicyName::Search) => OpponentPolicy::Search(SearchOptions::default()),
                    Some(_) => {
                        return Err(src.error(
                            &format!("{path}.base"),
                            "a fuzzy opponent's base is \"optimal\", \"greedy\" or \"random\"",
                        ));
                    }
                }),
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
                Some(file) => OpponentPolicy::Agent(file.into()),
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
            OpponentPolicy::Random => {}
            OpponentPolicy::Optimal => t.policy = PolicyName::Optimal,
            OpponentPolicy::Greedy => t.policy = PolicyName::Greedy,
            OpponentPolicy::Search(o) => {
                (t.policy, t.settings) = (PolicyName::Search, Some(o.spec()));
            }
            OpponentPolicy::Mcts(o) => {
                (t.policy, t.settings) = (PolicyName::Mcts, Some(o.spec()));
            }
            OpponentPolicy::Fuzzy { p, base } => {
                t.policy = PolicyName::Fuzzy;
                t.p = Some(*p);
                t.base = Some(match **base {
                    OpponentPolicy::Random => PolicyName::Random,
                    OpponentPolicy::Greedy => PolicyName::Greedy,
                    OpponentPolicy::Search(_) => PolicyName::Search,
                    _ => PolicyName::Optimal,
                });
            }
            OpponentPolicy::Frozen { refresh, play } => {
                (t.policy, t.refresh, t.play) = (PolicyName::Frozen, Some(*refresh), Some(*play));
            }
            OpponentPolicy::Agent(file) => {
                (t.policy, t.agent) = (PolicyName::Agent, Some(file.display().to_string()));
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
            OpponentPolicy::Random => "random".into(),
            OpponentPolicy::Optimal => "optimal".into(),
            OpponentPolicy::Greedy => "greedy".into(),
            OpponentPolicy::Search(o) => format!("search {}", o.spec()),
            OpponentPolicy::Mcts(o) => format!("mcts {}", o.spec()),
            OpponentPolicy::Fuzzy { p, base } => format!("fuzzy {p} {}", base.describe()),
            OpponentPolicy::Agent(file) => format!("agent {}", file.display()),
            OpponentPolicy::Frozen { refresh, play } => match play {
                FrozenPlay::Behaviour => format!("frozen every {refresh}"),
                FrozenPlay::Greedy => format!("frozen greedy every {refresh}"),
            },
        }
    }

    /// Whether playing it needs the game's heuristic (greedy play).
    pub fn needs_heuristic(&self) -> bool {
        match self {
            OpponentPolicy::Greedy | OpponentPolicy::Search(_) => true,
            OpponentPolicy::Fuzzy { base, .. } => base.needs_heuristic(),
            _ => false,
        }
    }

    /// Whether playing it needs an oracle (perfect play).
    pub fn needs_oracle(&self) -> bool {
        match self {
            OpponentPolicy::Optimal => true,
            OpponentPolicy::Fuzzy { base, .. } => base.needs_oracle(),
            OpponentPolicy::Random
            | OpponentPolicy::Greedy
            | OpponentPolicy::Search(_)
            | OpponentPolicy::Agent(_)
            | OpponentPolicy::Mcts(_)
            | OpponentPolicy::Frozen { .. } => false,
        }
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
        Ok(match self {
            OpponentPolicy::Random => Box::new(RandomPolicy),
            OpponentPolicy::Greedy => Box::new(GreedyPolicy),
            OpponentPolicy::Search(o) => Box::new(
                SearchPolicy::for_game(o.clone(), game).map_err(|e| anyhow::anyhow!("{e}"))?,
            ),
            OpponentPolicy::Mcts(o) => {
                Box::new(MctsPolicy::for_game(o.clone(), game).map_err(|e| anyhow::anyhow!("{e}"))?)
            }
            OpponentPolicy::Optimal => match oracle {
                Some(oracle) => Box::new(OptimalPolicy::new(oracle)),
                None => unreachable!("opponents that need an oracle are refused without one"),
            },
            OpponentPolicy::Fuzzy { p, base } => Box::new(FuzzyPolicy {
                base: base.build(game, oracle)?,
                p: *p,
            }),
            OpponentPolicy::Agent(file) => Box::new(load_agent(game, file)?),
            OpponentPolicy::Frozen { .. } => {
                unreachable!("a frozen copy is made from its learner (copy_of), never built alone")
            }
        })
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
