//! On-policy Monte-Carlo control with ε-soft (ε-greedy) policies.
//!
//! Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §5.4, the box
//! "On-policy first-visit MC control (for ε-soft policies), estimates π ≈ π*"; the every-visit
//! variant as §5.1 describes it; and the constant-α update `Q ← Q + α (G − Q)` of §6.1 (eq.
//! 6.1) in place of sample averages unless `alpha = "average"` asks for them.
//!
//! `Q(s, a)` is the value to the player to move at `s`. At the end of an episode every decision
//! is moved toward its return from the deciding seat's point of view, discounted by γ per ply
//! from the decision to the end (`γ^(k-1)` for a decision `k` plies before the end), so one
//! table serves every seat in self-play.

use serde::de::{self, MapAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::backup::{discount, epsilon_greedy, max_of, row_probabilities};
use super::saved::Snapshot;
use super::schedule::{Decay, Epsilon, Schedule, checked};
use super::table::Table;
use super::{Decision, Learner, Position};
use crate::core::game::{Action, Game, Player, Returns};
use crate::core::policy::Policy;
use crate::core::random::SgRng;

/// Which occurrences of a state-action pair in an episode are averaged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visits {
    First,
    Every,
}

/// How far a value moves toward each new return.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepSize {
    /// Sample averages: α = 1/n for the n-th return of a state-action pair (the §5.4 box).
    /// In a config: `alpha = "average"`.
    Average,
    /// A step size α by episode (a number or a schedule table).
    Schedule(Schedule),
}

impl Serialize for StepSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StepSize::Average => s.serialize_str("average"),
            StepSize::Schedule(schedule) => schedule.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for StepSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StepSizeVisitor;
        impl<'de> Visitor<'de> for StepSizeVisitor {
            type Value = StepSize;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#""average" (sample averages), a number or a schedule table"#)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StepSize, E> {
                match v {
                    "average" => Ok(StepSize::Average),
                    _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<StepSize, E> {
                Ok(StepSize::Schedule(Schedule::Constant(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StepSize, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StepSize, E> {
                self.visit_f64(v as f64)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StepSize, A::Error> {
                Decay::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|decay| StepSize::Schedule(Schedule::Decay(decay)))
            }
        }
        d.deserialize_any(StepSizeVisitor)
    }
}

/// `kind = "monte-carlo"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McConfig {
    pub visits: Visits,
    /// The step size: sample averages or α by episode.
    #[serde(deserialize_with = "checked_step_size")]
    pub alpha: StepSize,
    /// Exploration rate ε by episode.
    #[serde(deserialize_with = "checked::probability_schedule")]
    pub epsilon: Schedule,
    /// Discount per ply.
    #[serde(deserialize_with = "checked::discount")]
    pub gamma: f64,
    /// The value of an action never tried.
    #[serde(deserialize_with = "checked::finite")]
    pub initial: f64,
}

fn checked_step_size<'de, D: Deserializer<'de>>(d: D) -> Result<StepSize, D::Error> {
    let step = StepSize::deserialize(d)?;
    if let StepSize::Schedule(s) = &step {
        s.check(checked::STEP_SIZE).map_err(de::Error::custom)?;
    }
    Ok(step)
}

impl super::LearnerSpec for McConfig {
    type Note = super::NoNote;
    const KIND: &'static str = "monte-carlo";
    const KEYS: &'static str = "visits = \"first\" | \"every\"; alpha = a step size or \"average\"";
    fn default_label(&self) -> String {
        match self.visits {
            Visits::First => "MC".into(),
            Visits::Every => "MC (every visit)".into(),
        }
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(MonteCarlo::new(game, label, self.clone()))
    }
}

impl Default for McConfig {
    /// First visit, constant α = 0.1 (sample averages weigh the early, near-random episodes as
    /// much as the late ones and learn much more slowly here), ε from 1 halving every 100,000
    /// episodes, no discount, values start at 0.
    fn default() -> Self {
        McConfig {
            visits: Visits::First,
            alpha: StepSize::Schedule(Schedule::Constant(0.1)),
            epsilon: Schedule::Decay(Decay::Exponential {
                start: 1.0,
                end: 0.0,
                half_life: 100_000.0,
            }),
            gamma: 1.0,
            initial: 0.0,
        }
    }
}

/// A decision of the episode: the index of the value it chose, who chose it and when.
#[derive(Clone, Copy, Debug)]
struct Visit {
    entry: u32,
    seat: Player,
    ply: u32,
}

/// An on-policy Monte-Carlo control learner.
pub struct MonteCarlo<G: Game> {
    name: String,
    config: McConfig,
    table: Table<G>,
    /// Returns averaged into each value (aligned with the table's values).
    counts: Vec<u32>,
    episode_visits: Vec<Visit>,
    episode: u64,
    epsilon: Epsilon,
}

impl<G: Game> MonteCarlo<G> {
    pub fn new(game: &G, name: impl Into<String>, config: McConfig) -> Self {
        MonteCarlo {
            name: name.into(),
            table: Table::new(game, config.initial),
            counts: Vec::new(),
            episode_visits: Vec::new(),
            episode: 0,
            epsilon: Epsilon::new(config.epsilon),
            config,
        }
    }

    pub fn config(&self) -> &McConfig {
        &self.config
    }

    /// A copy of what play reads, never to be trained ([`Learner::frozen_copy`]).
    fn frozen(&self) -> Self {
        MonteCarlo {
            name: self.name.clone(),
            config: self.config.clone(),
            table: self.table.frozen(),
            counts: Vec::new(),
            episode_visits: Vec::new(),
            episode: self.episode,
            epsilon: self.epsilon.clone(),
        }
    }

    /// The action values of `state`, if it was met.
    pub fn q_values(&self, game: &G, state: &G::State) -> Option<&[f64]> {
        self.table.row(game, state).map(|r| &self.table.values()[r])
    }
}

impl<G: Game> Learner<G> for MonteCarlo<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.episode_visits.clear();
    }

    fn act(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        // Choose ε-greedily on Q(s, ·), and remember the decision for the episode's end.
        let row = self
            .table
            .row_or_insert(game, d.state, d.legal.len(), self.config.initial);
        let choice = epsilon_greedy(&self.table.values()[row.clone()], &self.epsilon, rng);
        self.episode_visits.push(Visit {
            entry: (row.start + choice) as u32,
            seat: d.seat,
            ply: d.ply,
        });
        Some(choice)
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, plies: u32) {
        self.counts.resize(self.table.len(), 0);
        let alpha = match self.config.alpha {
            StepSize::Average => None,
            StepSize::Schedule(a) => Some(a.at(self.episode)),
        };
        let values = self.table.values_mut();
        // Q(s, a) ← Q(s, a) + α [G − Q(s, a)] for each decision (its first visit only, unless
        // every visit counts), G the deciding seat's return discounted to the decision.
        for (i, v) in self.episode_visits.iter().enumerate() {
            if self.config.visits == Visits::First
                && self.episode_visits[..i].iter().any(|u| u.entry == v.entry)
            {
                continue;
            }
            let g = discount(self.config.gamma, plies - v.ply - 1) * returns[v.seat];
            let entry = v.entry as usize;
            self.counts[entry] = self.counts[entry].saturating_add(1);
            let step = alpha.unwrap_or(1.0 / self.counts[entry] as f64);
            values[entry] += step * (g - values[entry]);
        }
        self.episode_visits.clear();
        self.episode += 1;
        self.epsilon.next_episode();
    }

    fn policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, false)
    }

    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, true)
    }

    fn play_probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        probs: &mut Vec<f64>,
    ) -> bool {
        super::epsilon_greedy::play_probabilities(self, (game, state, legal), greedy, probs)
    }

    fn play_choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        rng: &mut SgRng,
    ) -> Option<Option<Action>> {
        use super::epsilon_greedy::EpsilonGreedy;
        let epsilon = self.epsilon_for(greedy);
        Some(super::backup::sample_row(
            self.q_values(game, state),
            legal,
            epsilon,
            rng,
        ))
    }

    /// The table and ε (play reads nothing else: the visit counts stay behind).
    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        Some(Box::new(self.frozen()))
    }

    /// The rows changed since the last refresh, ε and the episode.
    fn refresh_copy(&mut self, _game: &G, copy: &mut Box<dyn Learner<G>>) {
        let Some(to) = super::frozen::downcast::<G, Self>(copy) else {
            *copy = Box::new(self.frozen());
            return;
        };
        self.table.refresh_copy(&mut to.table, &mut []);
        to.episode = self.episode;
        to.epsilon.clone_from(&self.epsilon);
    }

    fn statistics(&self) -> Vec<(crate::learn::Metric, f64)> {
        super::value_learner_statistics(
            ("states_visited", "States", self.table.rows()),
            self.epsilon.value(),
            None,
        )
    }

    fn learns_values(&self) -> bool {
        true
    }

    fn value(&self, game: &G, state: &G::State) -> Option<f64> {
        Some(
            self.q_values(game, state)
                .map_or(self.config.initial, max_of),
        )
    }

    fn discount(&self) -> f64 {
        self.config.gamma
    }

    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        let q = self.q_values(game, state);
        out.from_q_row(q, legal.len(), self.epsilon.value(), self.config.initial);
        true
    }
    /// `q`, a row per state met, and `counts`, the returns averaged into each value.
    fn snapshot(&self, game: &G) -> Option<Snapshot<G>> {
        let mut rows = Vec::new();
        let counts: Vec<f64> = self.counts.iter().map(|&n| n as f64).collect();
        let saved = self
            .table
            .saved_rows(
                game,
                "q",
                self.table.values(),
                self.config.initial,
                true,
                &mut rows,
            )
            .and_then(|()| {
                self.table
                    .saved_rows(game, "counts", &counts, 0.0, true, &mut rows)
            });
        saved.ok().map(|()| Snapshot {
            episodes: self.episode,
            rows,
            arrays: Vec::new(),
        })
    }

    fn restore(&mut self, game: &G, snapshot: Snapshot<G>) -> Result<(), String> {
        self.table.forget_changes();
        self.table
            .restore_rows(game, snapshot.part("q"), self.config.initial, true)?;
        let mut counts = Vec::new();
        self.table
            .restore_aligned(game, snapshot.part("counts"), &mut counts, 0.0)?;
        if counts
            .iter()
            .any(|&n| !(0.0..=u32::MAX as f64).contains(&n) || n.fract() != 0.0)
        {
            return Err("`counts` holds a value that is not a count".to_string());
        }
        self.counts = counts.into_iter().map(|n| n as u32).collect();
        self.episode = snapshot.episodes;
        self.epsilon.replay(self.episode);
        Ok(())
    }
}

impl<G: Game> super::epsilon_greedy::EpsilonGreedy<G> for MonteCarlo<G> {
    fn label(&self) -> &str {
        &self.name
    }
    fn epsilon_now(&self) -> f64 {
        self.epsilon.value()
    }
    fn probabilities_at(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        epsilon: f64,
        probs: &mut Vec<f64>,
    ) {
        let q = self.q_values(game, state);
        row_probabilities(q, legal.len(), epsilon, probs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    use crate::learn::tests::{learns, train_self_play};

    impl<G: Game> crate::learn::tests::Inspect<G> for MonteCarlo<G> {
        fn tables(&self) -> Vec<u64> {
            let mut out: Vec<u64> = self.table.values().iter().map(|x| x.to_bits()).collect();
            out.extend(self.counts.iter().map(|&n| n as u64));
            out.extend([self.table.rows() as u64, self.episode]);
            out
        }
    }

    #[test]
    fn first_and_every_visit_learn_tictactoe_and_hexapawn_by_self_play() {
        let mut failures = Vec::new();
        for visits in [Visits::First, Visits::Every] {
            let config = McConfig {
                visits,
                ..McConfig::default()
            };
            let hexapawn = Hexapawn::new(HexapawnParams::default()).unwrap();
            let mut l = MonteCarlo::new(&hexapawn, "mc", config.clone());
            train_self_play(&hexapawn, &mut l, 500_000, 1);
            failures.extend(learns(&hexapawn, &l, &format!("{visits:?}")).err());
            let mut l = MonteCarlo::new(&TicTacToe, "mc", config);
            train_self_play(&TicTacToe, &mut l, 500_000, 1);
            failures.extend(learns(&TicTacToe, &l, &format!("{visits:?}")).err());
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn step_size_reads_and_writes_average_numbers_and_schedules() {
        #[derive(Deserialize, Serialize)]
        struct Holder {
            alpha: StepSize,
        }
        let read = |text: &str| toml::from_str::<Holder>(text).map(|h| h.alpha);
        for (text, want) in [
            (r#"alpha = "average""#, StepSize::Average),
            ("alpha = 0.25", StepSize::Schedule(Schedule::Constant(0.25))),
            ("alpha = 1", StepSize::Schedule(Schedule::Constant(1.0))),
            (
                r#"alpha = { kind = "linear", start = 0.5, end = 0.1, episodes = 10 }"#,
                StepSize::Schedule(Schedule::Decay(Decay::Linear {
                    start: 0.5,
                    end: 0.1,
                    episodes: 10,
                })),
            ),
        ] {
            let got = read(text).unwrap();
            assert_eq!(got, want, "{text}");
            let written = toml::to_string(&Holder { alpha: got }).unwrap();
            assert_eq!(read(&written).unwrap(), want, "{written}");
        }
        let err = read(r#"alpha = "mean""#).unwrap_err().to_string();
        assert!(err.contains(r#""average""#), "{err}");
    }

    #[test]
    fn returns_are_averaged_from_each_seats_point_of_view() {
        let game = TicTacToe;
        let config = McConfig {
            alpha: StepSize::Average,
            epsilon: Schedule::Constant(0.0),
            ..McConfig::default()
        };
        let mut l = MonteCarlo::new(&game, "mc", config);
        let mut r = crate::core::random::rng(1);
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        let a0 = l
            .act(
                &game,
                &Decision {
                    state: &s0,
                    seat: 0,
                    legal: &legal,
                    ply: 0,
                },
                &mut r,
            )
            .map(|k| legal[k])
            .unwrap();
        let s1 = game.apply(&s0, a0);
        let mut legal1 = Vec::new();
        game.legal_actions(&s1, &mut legal1);
        let a1 = l
            .act(
                &game,
                &Decision {
                    state: &s1,
                    seat: 1,
                    legal: &legal1,
                    ply: 1,
                },
                &mut r,
            )
            .map(|k| legal1[k])
            .unwrap();
        l.end_episode(&game, &Returns::win(2, 1), 2);
        let i0 = legal.iter().position(|&a| a == a0).unwrap();
        let i1 = legal1.iter().position(|&a| a == a1).unwrap();
        assert_eq!(l.q_values(&game, &s0).unwrap()[i0], -1.0);
        assert_eq!(l.q_values(&game, &s1).unwrap()[i1], 1.0);
        // A second return is averaged in (sample averages): make a0 the greedy move again.
        let row = l.table.row(&game, &s0).unwrap();
        for (i, v) in l.table.values_mut()[row].iter_mut().enumerate() {
            if i != i0 {
                *v = -2.0;
            }
        }
        l.begin_episode();
        let again = l.act(
            &game,
            &Decision {
                state: &s0,
                seat: 0,
                legal: &legal,
                ply: 0,
            },
            &mut r,
        );
        assert_eq!(again.map(|k| legal[k]), Some(a0));
        l.end_episode(&game, &Returns::zeros(2), 1);
        assert_eq!(l.q_values(&game, &s0).unwrap()[i0], -0.5);
    }
}
