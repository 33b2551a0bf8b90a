//! The config file's format: the serde structs a config is read into before its checks (the top
//! level, `[evaluation]`, `save_agents`, `seeds`, `[plots]`), and the public settings they give.

use super::*;

/// The top level of an experiment file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    pub(super) name: String,
    #[serde(default)]
    pub(super) description: String,
    pub(super) episodes: NonZeroU64,
    pub(super) eval_interval: Option<NonZeroU64>,
    pub(super) seeds: Option<Seeds>,
    #[serde(default)]
    pub(super) base_seed: u64,
    /// Whose learners are kept as agent files: the first N seeds of each learner × opponent,
    /// or "all".
    pub(super) save_agents: Option<SaveAgentsToml>,
    #[serde(default)]
    pub(super) plots: Plots,
    #[serde(default)]
    pub(super) opponents: Vec<OpponentToml>,
    #[serde(default)]
    pub(super) evaluation: EvaluationToml,
    // Read on their own below, a game by its name and a learner by its kind.
    #[serde(rename = "game")]
    pub(super) _game: Option<IgnoredAny>,
    #[serde(rename = "games")]
    pub(super) _games: Option<IgnoredAny>,
    #[serde(rename = "learner")]
    pub(super) _learner: Option<IgnoredAny>,
    #[serde(rename = "learners")]
    pub(super) _learners: Option<IgnoredAny>,
}

/// `[evaluation]`: which evaluator, and how many games the match evaluator plays.
#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct EvaluationToml {
    pub(super) evaluator: Option<EvaluatorName>,
    pub(super) games: Option<NonZeroU64>,
    /// Search settings of an AI the match evaluator also plays against (reference "ai").
    pub(super) ai: Option<String>,
    /// A saved agent every evaluation measures the learner against (reference "agent").
    pub(super) agent: Option<String>,
    /// Game parameters that make the held-out game: the training game with these changed
    /// (Hackenbush's `deal = "held-out"`). Every exact evaluation also scores the learner there.
    pub(super) held_out: Option<toml::Table>,
    /// The greedy policy measured exactly against a best response over the positions it can
    /// face (match evaluator): `true`, or the most positions an evaluation may enumerate per
    /// seat.
    pub(super) best_response: Option<BestResponseToml>,
    /// The greedy policy's optimal-move rate over every position the game's own solver lists
    /// (match evaluator).
    pub(super) all_positions: Option<bool>,
}

/// `best_response = true | false | <positions>`.
#[derive(Clone, Copy, Serialize)]
#[serde(untagged)]
pub(super) enum BestResponseToml {
    On(bool),
    Limit(u64),
}

impl<'de> Deserialize<'de> for BestResponseToml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = BestResponseToml;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "true, false or the most positions an evaluation may enumerate (e.g. 1000000)",
                )
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(BestResponseToml::On(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v).map(BestResponseToml::Limit).map_err(|_| {
                    E::custom(format!(
                        "{v}: a number of positions cannot be negative; give true, false or the most positions an evaluation may enumerate"
                    ))
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(BestResponseToml::Limit(v))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum EvaluatorName {
    Exact,
    Match,
}

/// How a run measures its learners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// By dynamic programming over every position ([`crate::eval::exact`]).
    Exact,
    /// By `games` seeded games against reference policies at each evaluation
    /// ([`crate::eval::matches`]).
    Match { games: NonZeroU64 },
}

/// Games per reference of the match evaluator when the config does not say.
/// The most games one match evaluation plays: 10^8, 2.4 GB of results and minutes of play.
pub const MAX_MATCH_GAMES: u64 = 100_000_000;
pub const DEFAULT_MATCH_GAMES: NonZeroU64 = NonZeroU64::new(200).expect("not zero");

/// `save_agents = N | "all"`.
#[derive(Clone, Copy)]
pub(super) enum SaveAgentsToml {
    Seeds(u64),
    All,
}

impl Serialize for SaveAgentsToml {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SaveAgentsToml::Seeds(n) => s.serialize_u64(*n),
            SaveAgentsToml::All => s.serialize_str("all"),
        }
    }
}

impl<'de> Deserialize<'de> for SaveAgentsToml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = SaveAgentsToml;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "how many seeds of each learner and opponent keep their agent (0 for none, 1 by default) or \"all\"",
                )
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v).map(SaveAgentsToml::Seeds).map_err(|_| {
                    E::custom(format!(
                        "{v}: a number of seeds cannot be negative; give 0 (no agents), a number of seeds or \"all\""
                    ))
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(SaveAgentsToml::Seeds(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                match v {
                    "all" => Ok(SaveAgentsToml::All),
                    other => Err(E::custom(format!(
                        "\"{}\": give \"all\" or a number of seeds (0 for no agents)",
                        crate::io::text::abbreviated(other, 100)
                    ))),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Which runs keep their learner as an agent file (`save_agents`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveAgents {
    /// The runs of the first N seeds of each learner × opponent (N may be 0: none).
    FirstSeeds(u64),
    /// Every run.
    All,
}

/// One agent per learner × opponent: a study of a million seeds writes as many agent files as
/// one of a single seed.
pub const DEFAULT_SAVE_AGENTS: SaveAgents = SaveAgents::FirstSeeds(1);

impl SaveAgents {
    /// Whether the run of the seed at place `index` of the config's seeds keeps its agent.
    pub fn keeps(self, index: usize) -> bool {
        match self {
            SaveAgents::All => true,
            SaveAgents::FirstSeeds(n) => (index as u64) < n,
        }
    }
}

/// `seeds = 20` (seeds base_seed..base_seed+20) or `seeds = [3, 7, 11]`.
pub(super) enum Seeds {
    Count(u64),
    List(Vec<u64>),
}

/// More seeds than this is a typo, not an experiment.
pub(super) const MAX_SEEDS: u64 = 1_000_000;
/// The most episodes a run trains: 10^12.
pub(super) const MAX_EPISODES: u64 = 1_000_000_000_000;

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Seeds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of seeds (e.g. 20) or a list of seeds (e.g. [3, 7, 11])")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Seeds, E> {
                u64::try_from(v).map(Seeds::Count).map_err(|_| {
                    E::custom(format!("{v} seeds: the number of seeds cannot be negative"))
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Seeds, E> {
                Ok(Seeds::Count(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Seeds, A::Error> {
                let mut list = Vec::new();
                while let Some(s) = seq.next_element::<u64>()? {
                    list.push(s);
                }
                Ok(Seeds::List(list))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[plots]`: which metrics to draw, and the band around the mean.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct Plots {
    pub(super) metrics: Option<Vec<String>>,
    #[serde(default)]
    pub(super) band: BandSpec,
}
