//! Tabular Q-learning, Sarsa and Expected Sarsa, each optionally doubled.
//!
//! Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018):
//! - "Sarsa (on-policy TD control) for estimating Q ≈ q*", §6.4;
//! - "Q-learning (off-policy TD control) for estimating π ≈ π*", §6.5;
//! - Expected Sarsa, §6.6 (the Sarsa box with the expectation under the ε-greedy policy as
//!   target);
//! - "Double Q-learning, for estimating Q1 ≈ Q2 ≈ q*", §6.7 (applied to all three targets: the
//!   table updated picks the action, the other one values it).
//!
//! `Q(s, a)` is the value of action `a` to the player to move at `s`. Rewards come only at the
//! end of the game, so one decision, `act`, is (γ per ply):
//!
//! ```text
//! choose A from S, ε-greedy on Q                               (on Q1 + Q2 when doubled)
//! back up the decision (S0, A0) it follows, k plies earlier:
//!     Q(S0, A0) ← Q(S0, A0) + α [±γ^k v(S) − Q(S0, A0)]
//!     v(S) = max_a Q(S, a)                     Q-learning
//!          = Q(S, A)                           Sarsa
//!          = Σ_a π(a|S) Q(S, a)                Expected Sarsa, π ε-greedy
//!     − when S is the other seat's (self-play, negamax: see [`super::backup`])
//! remember (S, A)                 (doubled: a fair coin picks the table its backup updates)
//! ```
//!
//! and at the end of the episode (`end_episode`) each decision still waiting, `k`
//! plies before the end, is backed up toward `γ^(k-1) G`, `G` its seat's return.
//!
//! `fast.rs` plays a self-play episode of one table in one piece, faster, with the same moves,
//! random draws and arithmetic as `act`; `learn::tests` holds the two together.

mod fast;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::backup::{
    Pending, discount, epsilon_greedy, epsilon_greedy_expectation, max_of, row_probabilities,
    sample_row_place,
};
use super::epsilon_greedy::EpsilonGreedy;
use super::saved::Snapshot;
use super::schedule::{Decay, Epsilon, Schedule, checked};
use super::table::Table;
use super::{
    Decision, EpisodeOutcome, Learner, Position, play_self_by_moves, play_vs_copy_by_moves,
};
use crate::core::env::{AecEnv, Env};
use crate::core::game::{Action, Game, Returns};
use crate::core::policy::Policy;
use crate::core::random::SgRng;

/// Which target a transition is backed up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The greedy value of the next state (off-policy).
    QLearning,
    /// The value of the action actually taken next (on-policy).
    Sarsa,
    /// The expected value of the next state under the ε-greedy policy.
    ExpectedSarsa,
}

impl Algorithm {
    pub fn label(self) -> &'static str {
        match self {
            Algorithm::QLearning => "Q-learning",
            Algorithm::Sarsa => "SARSA",
            Algorithm::ExpectedSarsa => "Expected SARSA",
        }
    }
}

/// A Q-learning, Sarsa or Expected Sarsa learner.
pub struct QLearner<G: Game> {
    name: String,
    config: QConfig,
    /// `Q` (`Q1` when doubled).
    table: Table<G>,
    /// `Q2`, aligned with `table`'s values (empty unless doubled).
    second: Vec<f64>,
    /// The decisions not yet backed up.
    pending: Pending<Entry>,
    /// Episodes finished.
    episode: u64,
    /// α at this episode.
    alpha: f64,
    /// ε at this episode.
    epsilon: Epsilon,
    /// `Q1 + Q2` over the row chosen from (doubled).
    sums: Vec<f64>,
}

/// The value a decision updates: its index in the table and, doubled, whether it is `Q2`'s.
#[derive(Clone, Copy, Debug)]
struct Entry {
    index: u32,
    second: bool,
}

impl<G: Game> Learner<G> for QLearner<G> {
    fn act(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        let row = self
            .table
            .row_or_insert(game, d.state, d.legal.len(), self.config.initial);
        // Choose A from S, ε-greedy on Q (on Q1 + Q2 when doubled).
        let choice = if self.config.double {
            self.second.resize(self.table.len(), self.config.initial);
            let (q1, q2) = (&self.table.values()[row.clone()], &self.second[row.clone()]);
            self.sums.clear();
            self.sums.extend(q1.iter().zip(q2).map(|(x, y)| x + y));
            epsilon_greedy(&self.sums, &self.epsilon, rng)
        } else {
            epsilon_greedy(&self.table.values()[row.clone()], &self.epsilon, rng)
        };
        // Back up the decision this one follows toward ±γ^k v(S).
        if let Some(b) = self.pending.take_previous(d.seat, d.ply) {
            let next = self.next_value(row.clone(), choice, b.entry.second);
            let target = b.sign * discount(self.config.gamma, b.plies) * next;
            update(
                self.table.values_mut(),
                &mut self.second,
                b.entry,
                target,
                self.alpha,
            );
        }
        // Remember (S, A); doubled, a fair coin picks the table its backup will update.
        let second = self.config.double && rng.random::<bool>();
        let entry = Entry {
            index: (row.start + choice) as u32,
            second,
        };
        self.pending.remember(d.seat, d.ply, entry);
        Some(choice)
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, plies: u32) {
        // Each decision still waiting, k plies before the end, toward γ^(k-1) G.
        let QLearner {
            table,
            second,
            pending,
            config,
            alpha,
            ..
        } = self;
        for b in pending.take_last(plies) {
            let target = discount(config.gamma, b.plies.saturating_sub(1)) * returns[b.seat];
            update(table.values_mut(), second, b.entry, target, *alpha);
        }
        self.episode += 1;
        self.alpha = self.config.alpha.at(self.episode);
        self.epsilon.next_episode();
    }

    /// One table: `fast::play_self`, the episode in one piece. Doubled: move by move.
    fn play_self(&mut self, env: &mut AecEnv<G>, rng: &mut SgRng) -> EpisodeOutcome {
        if self.config.double {
            play_self_by_moves(env, self, rng)
        } else {
            fast::play_self(self, env, rng)
        }
    }

    /// One table, against a copy of its own kind: `fast::play_vs_copy`, the episode in one
    /// piece. Else move by move.
    fn play_vs_copy(
        &mut self,
        env: &mut Env<'_, G>,
        copy: &dyn Learner<G>,
        greedy: bool,
        rng: &mut SgRng,
    ) -> EpisodeOutcome {
        let any: &dyn std::any::Any = copy;
        match any.downcast_ref::<Self>() {
            Some(copy) if !self.config.double => fast::play_vs_copy(self, env, copy, greedy, rng),
            _ => play_vs_copy_by_moves(env, self, copy, greedy, rng),
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.pending.clear();
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
        let epsilon = self.epsilon_for(greedy);
        Some(
            self.choose_with(game, state, legal.len(), epsilon, rng)
                .map(|i| legal[i]),
        )
    }

    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        Some(Box::new(self.frozen()))
    }

    /// The rows changed since the last refresh, in `Q` (and `Q2`), and ε, α and the episode.
    fn refresh_copy(&mut self, _game: &G, copy: &mut Box<dyn Learner<G>>) {
        let Some(to) = super::frozen::downcast::<G, Self>(copy) else {
            *copy = Box::new(self.frozen());
            return;
        };
        self.table
            .refresh_copy(&mut to.table, &mut [(&self.second, &mut to.second)]);
        to.episode = self.episode;
        to.alpha = self.alpha;
        to.epsilon.clone_from(&self.epsilon);
    }

    fn statistics(&self) -> Vec<(crate::learn::Metric, f64)> {
        super::value_learner_statistics(
            ("states_visited", "States", self.table.rows()),
            self.epsilon.value(),
            Some(self.alpha),
        )
    }

    fn learns_values(&self) -> bool {
        true
    }

    fn value(&self, game: &G, state: &G::State) -> Option<f64> {
        Some(self.with_q_values(game, state, |q| q.map_or(self.config.initial, max_of)))
    }

    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        self.with_q_values(game, state, |q| {
            out.from_q_row(q, legal.len(), self.epsilon.value(), self.config.initial);
        });
        true
    }

    fn discount(&self) -> f64 {
        self.config.gamma
    }

    /// `q` (Q1 when doubled), and doubled `q2`, a row per state met.
    fn snapshot(&self, game: &G) -> Option<Snapshot<G>> {
        let mut rows = Vec::new();
        let initial = self.config.initial;
        let saved = self
            .table
            .saved_rows(game, "q", self.table.values(), initial, true, &mut rows)
            .and_then(|()| match self.config.double {
                true => self
                    .table
                    .saved_rows(game, "q2", &self.second, initial, true, &mut rows),
                false => Ok(()),
            });
        saved.ok().map(|()| Snapshot {
            episodes: self.episode,
            rows,
            arrays: Vec::new(),
        })
    }

    fn restore(&mut self, game: &G, snapshot: Snapshot<G>) -> Result<(), String> {
        // `Q2` is written beside the record of changes: a frozen copy is next made whole.
        self.table.forget_changes();
        let initial = self.config.initial;
        self.table
            .restore_rows(game, snapshot.part("q"), initial, true)?;
        if self.config.double {
            self.table
                .restore_aligned(game, snapshot.part("q2"), &mut self.second, initial)?;
        }
        self.episode = snapshot.episodes;
        self.alpha = self.config.alpha.at(self.episode);
        self.epsilon.replay(self.episode);
        Ok(())
    }
}

/// Q(S, A) ← Q(S, A) + α [target − Q(S, A)], in the table `entry` names (`q2` is empty unless
/// doubled).
fn update(q1: &mut [f64], q2: &mut [f64], entry: Entry, target: f64, alpha: f64) {
    let q = if entry.second {
        &mut q2[entry.index as usize]
    } else {
        &mut q1[entry.index as usize]
    };
    *q += alpha * (target - *q);
}

impl<G: Game> QLearner<G> {
    pub fn new(game: &G, name: impl Into<String>, config: QConfig) -> Self {
        // Expected Sarsa reads ε itself at every move: worked out at every episode.
        let exact = config.algorithm == Algorithm::ExpectedSarsa;
        QLearner {
            name: name.into(),
            table: Table::new(game, config.initial),
            second: Vec::new(),
            pending: Pending::new(game.num_players()),
            episode: 0,
            alpha: config.alpha.at(0),
            epsilon: Epsilon::with_exact_value(config.epsilon, exact),
            sums: Vec::new(),
            config,
        }
    }

    pub fn config(&self) -> &QConfig {
        &self.config
    }

    /// A copy of what it has learned, never to be trained ([`Learner::frozen_copy`]).
    fn frozen(&self) -> Self {
        QLearner {
            name: self.name.clone(),
            config: self.config.clone(),
            table: self.table.frozen(),
            second: self.second.clone(),
            pending: self.pending.clone(),
            episode: self.episode,
            alpha: self.alpha,
            epsilon: self.epsilon.clone(),
            sums: Vec::new(),
        }
    }

    /// v(S): the value of the state S whose row is `row`, to the player to move there, that the
    /// decision before is backed up to, A = `choice` taken at S. Doubled, the table being
    /// updated (`second`: Q2) picks the greedy action and the other one values it.
    fn next_value(&self, row: std::ops::Range<usize>, choice: usize, second: bool) -> f64 {
        let q1 = &self.table.values()[row.clone()];
        if !self.config.double {
            return match self.config.algorithm {
                Algorithm::QLearning => max_of(q1),
                Algorithm::Sarsa => q1[choice],
                Algorithm::ExpectedSarsa => epsilon_greedy_expectation(q1, self.epsilon.value()),
            };
        }
        let q2 = &self.second[row];
        let (select, value) = if second { (q2, q1) } else { (q1, q2) };
        match self.config.algorithm {
            Algorithm::QLearning => {
                // Ties for the argmax share equally (the expectation under random tie-breaking):
                // taking the first would read the same action of the other table while the
                // values are still all equal.
                let max = max_of(select);
                let (sum, ties) = select
                    .iter()
                    .zip(value)
                    .filter(|&(&s, _)| s == max)
                    .fold((0.0, 0.0), |(sum, n), (_, &v)| (sum + v, n + 1.0));
                sum / ties
            }
            Algorithm::Sarsa => value[choice],
            Algorithm::ExpectedSarsa => {
                let max = max_of(select);
                let n = select.len() as f64;
                let ties = select.iter().filter(|&&v| v == max).count() as f64;
                select
                    .iter()
                    .zip(value)
                    .map(|(&s, &v)| {
                        let p = self.epsilon.value() / n
                            + if s == max {
                                (1.0 - self.epsilon.value()) / ties
                            } else {
                                0.0
                            };
                        p * v
                    })
                    .sum()
            }
        }
    }

    /// The action values of `state` (the mean of both tables when doubled), if it was met.
    pub fn q_values(&self, game: &G, state: &G::State) -> Option<Vec<f64>> {
        let row = self.table.row(game, state)?;
        Some(self.row_values(row))
    }

    /// `f` of the action values of `state` ([`QLearner::q_values`]), read in place unless the
    /// tables are doubled: the evaluator asks at every position.
    fn with_q_values<R>(
        &self,
        game: &G,
        state: &G::State,
        f: impl FnOnce(Option<&[f64]>) -> R,
    ) -> R {
        match self.table.row(game, state) {
            None => f(None),
            Some(row) if !self.config.double => f(Some(&self.table.values()[row])),
            Some(row) => f(Some(&self.row_values(row))),
        }
    }

    /// The place of a move drawn ε-greedily over its values at `state` with this ε among
    /// `n` legal actions ([`Learner::play_choose`] with ε worked out).
    #[inline]
    fn choose_with(
        &self,
        game: &G,
        state: &G::State,
        n: usize,
        epsilon: f64,
        rng: &mut SgRng,
    ) -> Option<usize> {
        self.with_q_values(game, state, |q| sample_row_place(q, n, epsilon, rng))
    }

    fn row_values(&self, row: std::ops::Range<usize>) -> Vec<f64> {
        let a = &self.table.values()[row.clone()];
        if self.config.double {
            a.iter()
                .zip(&self.second[row])
                .map(|(x, y)| 0.5 * (x + y))
                .collect()
        } else {
            a.to_vec()
        }
    }
}

/// ε-greedy play on a Q-learner's values (ε = 0: greedy, ties shared equally).
impl<G: Game> super::epsilon_greedy::EpsilonGreedy<G> for QLearner<G> {
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
        self.with_q_values(game, state, |q| {
            row_probabilities(q, legal.len(), epsilon, probs)
        });
    }
}

/// `kind = "q-learning"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QConfig {
    pub algorithm: Algorithm,
    /// Double learning: two tables, each updated half the time with the other's valuation.
    pub double: bool,
    /// Step size α by episode.
    #[serde(deserialize_with = "checked::step_size_schedule")]
    pub alpha: Schedule,
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

impl Default for QConfig {
    /// Q-learning.
    fn default() -> Self {
        QConfig::new(Algorithm::QLearning)
    }
}

impl super::LearnerSpec for QConfig {
    type Note = super::NoNote;
    const KIND: &'static str = "q-learning";
    const KEYS: &'static str =
        "algorithm = \"q-learning\" | \"sarsa\" | \"expected-sarsa\"; double = true|false";
    fn default_label(&self) -> String {
        let name = self.algorithm.label();
        if self.double {
            format!("Double {name}")
        } else {
            name.to_string()
        }
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(QLearner::new(game, label, self.clone()))
    }
}

impl QConfig {
    /// The defaults: constant α = 0.5 (the games are deterministic), ε from 1 halving every
    /// 100,000 episodes (GLIE: on-policy SARSA needs ε → 0 to learn optimal play), no discount,
    /// values start at 0. Enough for tic-tac-toe and Hexapawn in 500,000 self-play episodes.
    pub fn new(algorithm: Algorithm) -> Self {
        QConfig {
            algorithm,
            double: false,
            alpha: Schedule::Constant(0.5),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    use crate::learn::tests::{learns, train_self_play};

    impl<G: Game> crate::learn::tests::Inspect<G> for QLearner<G> {
        fn tables(&self) -> Vec<u64> {
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let mut out = bits(self.table.values());
            out.extend(bits(&self.second));
            out.extend([self.table.rows() as u64, self.episode, self.alpha.to_bits()]);
            out
        }
    }

    #[test]
    fn every_variant_learns_tictactoe_and_hexapawn_by_self_play() {
        let mut failures = Vec::new();
        for algorithm in [
            Algorithm::QLearning,
            Algorithm::Sarsa,
            Algorithm::ExpectedSarsa,
        ] {
            for double in [false, true] {
                let config = QConfig {
                    double,
                    ..QConfig::new(algorithm)
                };
                let hexapawn = Hexapawn::new(HexapawnParams::default()).unwrap();
                let mut l = QLearner::new(&hexapawn, "q", config.clone());
                train_self_play(&hexapawn, &mut l, 500_000, 1);
                if let Err(e) = learns(&hexapawn, &l, &format!("{algorithm:?} double={double}")) {
                    failures.push(e);
                }
                let mut l = QLearner::new(&TicTacToe, "q", config);
                train_self_play(&TicTacToe, &mut l, 500_000, 1);
                if let Err(e) = learns(&TicTacToe, &l, &format!("{algorithm:?} double={double}")) {
                    failures.push(e);
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn double_q_learning_values_the_selected_action_with_the_other_table() {
        let game = TicTacToe;
        let config = QConfig {
            double: true,
            ..QConfig::new(Algorithm::QLearning)
        };
        let mut l = QLearner::new(&game, "q", config);
        let s0 = game.initial_state();
        let row = l.table.row_or_insert(&game, &s0, 9, 0.0);
        l.second.resize(l.table.len(), 0.0);
        // Q1 ties everywhere: Q2's values of the tied actions are shared equally.
        l.second[row.start] = 9.0;
        assert!((l.next_value(row.clone(), 0, false) - 1.0).abs() < 1e-12);
        // Q1 selects action 2 alone: Q2 values it.
        l.table.values_mut()[row.start + 2] = 0.5;
        l.second[row.start + 2] = -0.25;
        assert_eq!(l.next_value(row.clone(), 0, false), -0.25);
        // Updating Q2: Q2 selects (action 0), Q1 values it.
        assert_eq!(l.next_value(row, 0, true), 0.0);
    }

    #[test]
    fn one_transition_moves_the_value_toward_the_negated_next_value() {
        let game = TicTacToe;
        let config = QConfig {
            alpha: Schedule::Constant(0.5),
            epsilon: Schedule::Constant(0.0),
            ..QConfig::new(Algorithm::QLearning)
        };
        let mut l = QLearner::new(&game, "q", config);
        let mut r = crate::core::random::rng(1);
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        let d0 = Decision {
            state: &s0,
            seat: 0,
            legal: &legal,
            ply: 0,
        };
        let a0 = l.act(&game, &d0, &mut r).map(|k| legal[k]).unwrap();
        let s1 = game.apply(&s0, a0);
        let mut legal1 = Vec::new();
        game.legal_actions(&s1, &mut legal1);
        // Give the reply position a known value: every action of it worth 0.8 to O.
        let row = l.table.row_or_insert(&game, &s1, legal1.len(), 0.0);
        l.table.values_mut()[row].fill(0.8);
        let d1 = Decision {
            state: &s1,
            seat: 1,
            legal: &legal1,
            ply: 1,
        };
        l.act(&game, &d1, &mut r).unwrap();
        let i = legal.iter().position(|&a| a == a0).unwrap();
        let q = l.q_values(&game, &s0).unwrap();
        assert!((q[i] + 0.4).abs() < 1e-12, "{q:?}");
        // The episode's end backs up O's move with O's return.
        l.end_episode(&game, &Returns::win(2, 1), 2);
        let q1 = l.q_values(&game, &s1).unwrap();
        assert!(q1.iter().any(|&v| (v - 0.9).abs() < 1e-12), "{q1:?}");
    }
}
