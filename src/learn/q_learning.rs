//! Tabular Q-learning, SARSA and Expected SARSA, each optionally doubled.
//!
//! Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018):
//! - "Sarsa (on-policy TD control) for estimating Q ≈ q*", §6.4;
//! - "Q-learning (off-policy TD control) for estimating π ≈ π*", §6.5;
//! - Expected Sarsa, §6.6 (the Sarsa box with the expectation under the ε-greedy policy as
//!   target);
//! - "Double Q-learning, for estimating Q1 ≈ Q2 ≈ q*", §6.7 (applied to all three targets: the
//!   table updated picks the action, the other one values it).
//!
//! `Q(s, a)` is the value of action `a` to the player to move at `s`; decisions are backed up
//! as [`super::backup`] describes (negamax between the two seats in self-play), rewards come at
//! the end, γ per ply. The behaviour policy is ε-greedy on `Q` (on `Q1 + Q2` when doubled).

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::backup::{
    Pending, discount, epsilon_greedy, epsilon_greedy_and_max, epsilon_greedy_expectation, max_of,
    row_probabilities,
};
use super::schedule::{Decay, Paced, Schedule, checked};
use super::table::{RowsOf, Table};
use super::{Decision, EpisodeOutcome, Learner, Position, play_self_by_moves};
use crate::core::env::AecEnv;
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

/// A decision waiting for its target: its slot in the table and which table it updates.
#[derive(Clone, Copy, Debug)]
struct Slot {
    index: u32,
    second: bool,
}

/// A Q-learning, SARSA or Expected SARSA learner.
pub struct QLearner<G: Game> {
    name: String,
    config: QConfig,
    /// `Q` (`Q1` when doubled).
    table: Table<G>,
    /// `Q2`, aligned with `table`'s values (empty unless doubled).
    second: Vec<f64>,
    pending: Pending<Slot>,
    episode: u64,
    alpha: f64,
    epsilon: Paced,
    scratch: Vec<f64>,
    /// γ = 1: no discount to work out. A flag apart from γ on purpose: tested on γ itself,
    /// the compiler sees that γ^k is 1 there anyway and calls powi every time.
    undiscounted: bool,
}

impl<G: Game> QLearner<G> {
    pub fn new(game: &G, name: impl Into<String>, config: QConfig) -> Self {
        // Expected SARSA reads ε itself at every move: worked out at every episode.
        let epsilon =
            Paced::with_value_known(config.epsilon, config.algorithm == Algorithm::ExpectedSarsa);
        let alpha = config.alpha.at(0);
        QLearner {
            name: name.into(),
            table: Table::new(game, config.initial),
            second: Vec::new(),
            pending: Pending::new(game.num_players()),
            episode: 0,
            alpha,
            epsilon,
            scratch: Vec::new(),
            undiscounted: config.gamma == 1.0,
            config,
        }
    }

    pub fn config(&self) -> &QConfig {
        &self.config
    }

    /// What a move with one table reads of the config and the schedules.
    #[inline]
    fn hot(&self) -> Hot {
        Hot {
            algorithm: self.config.algorithm,
            initial: self.config.initial,
            gamma: self.config.gamma,
            undiscounted: self.undiscounted,
            alpha: self.alpha,
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

    /// The value of the next state that the pending decision is backed up to (from the view
    /// of the player to move there), given the action `choice` just taken there.
    #[inline]
    fn next_value(&self, row: std::ops::Range<usize>, choice: usize, second: bool) -> f64 {
        let a = &self.table.values()[row.clone()];
        if !self.config.double {
            return next_of_row(a, self.config.algorithm, &self.epsilon, choice);
        }
        let b = &self.second[row];
        // The table being updated selects, the other evaluates.
        let (select, value) = if second { (b, a) } else { (a, b) };
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
}

/// γ^plies ([`discount`]), 1 without looking at γ when `undiscounted`.
#[inline]
fn discount_over(undiscounted: bool, gamma: f64, plies: u32) -> f64 {
    if undiscounted {
        1.0
    } else {
        powered(gamma, plies)
    }
}

/// [`discount`] out of line: inlined, its `powi` (free of side effects) would be computed ahead
/// of the test on `undiscounted` whichever way the test goes, one call per backup.
#[inline(never)]
fn powered(gamma: f64, plies: u32) -> f64 {
    discount(gamma, plies)
}

/// What a move of a one-table learner reads of its config, copied out for the episode.
struct Hot {
    algorithm: Algorithm,
    initial: f64,
    gamma: f64,
    undiscounted: bool,
    alpha: f64,
}

/// The value of the next state of one table's row `a` (from the view of the player to move
/// there), given the action `choice` just taken there.
#[inline]
fn next_of_row(a: &[f64], algorithm: Algorithm, epsilon: &Paced, choice: usize) -> f64 {
    match algorithm {
        Algorithm::QLearning => max_of(a),
        Algorithm::Sarsa => a[choice],
        Algorithm::ExpectedSarsa => epsilon_greedy_expectation(a, epsilon.value()),
    }
}

/// A one-table learner's moves in a self-play episode, played on to its end.
#[inline(always)]
fn moves_of_episode<G: Game>(
    env: &mut AecEnv<G>,
    table: &mut impl RowsOf<G>,
    hot: &Hot,
    epsilon: &Paced,
    pending: &mut Pending<Slot>,
    rng: &mut SgRng,
) {
    env.play_out(|game, state, seat, legal, ply| {
        let d = Decision {
            state,
            seat,
            legal,
            ply,
        };
        Some(single_move(table, hot, epsilon, pending, game, &d, rng))
    })
    .expect("a place among the legal actions");
}

/// A one-table learner's move: its choice at `d`, and the backup of the decision it follows.
#[inline(always)]
fn single_move<G: Game>(
    table: &mut impl RowsOf<G>,
    hot: &Hot,
    epsilon: &Paced,
    pending: &mut Pending<Slot>,
    game: &G,
    d: &Decision<G>,
    rng: &mut SgRng,
) -> usize {
    let row = table.row_or_insert(game, d.state, d.legal.len(), hot.initial);
    let (choice, greedy_max) = epsilon_greedy_and_max(&table.values()[row.clone()], epsilon, rng);
    if let Some(b) = pending.take(d.seat, d.ply) {
        let next = match greedy_max {
            // The greedy scan's maximum is `max_of` of the row, bit for bit: no value is NaN
            // (all are finite) nor -0.0 (a sum is -0.0 only if both terms are, so no update
            // makes one unless `initial` is one).
            Some(max)
                if hot.algorithm == Algorithm::QLearning
                    && hot.initial.to_bits() != (-0.0f64).to_bits() =>
            {
                max
            }
            _ => next_of_row(&table.values()[row.clone()], hot.algorithm, epsilon, choice),
        };
        let target = b.sign * discount_over(hot.undiscounted, hot.gamma, b.plies) * next;
        update(table.values_mut(), &mut [], b.item, target, hot.alpha);
    }
    let slot = Slot {
        index: (row.start + choice) as u32,
        second: false,
    };
    pending.push(d.seat, d.ply, slot);
    choice
}

#[inline]
fn update(first: &mut [f64], second: &mut [f64], slot: Slot, target: f64, alpha: f64) {
    let q = if slot.second {
        &mut second[slot.index as usize]
    } else {
        &mut first[slot.index as usize]
    };
    *q += alpha * (target - *q);
}

impl<G: Game> Learner<G> for QLearner<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.pending.clear();
    }

    fn act(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<Action> {
        self.act_at(game, d, rng).map(|k| d.legal[k])
    }

    fn act_at(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        if !self.config.double {
            let hot = self.hot();
            let QLearner {
                table,
                pending,
                epsilon,
                ..
            } = self;
            return Some(single_move(table, &hot, epsilon, pending, game, d, rng));
        }
        let n = d.legal.len();
        let row = self
            .table
            .row_or_insert(game, d.state, n, self.config.initial);
        self.second.resize(self.table.len(), self.config.initial);
        self.scratch.clear();
        let (a, b) = (&self.table.values()[row.clone()], &self.second[row.clone()]);
        self.scratch.extend(a.iter().zip(b).map(|(x, y)| x + y));
        let choice = epsilon_greedy(&self.scratch, &self.epsilon, rng);
        if let Some(b) = self.pending.take(d.seat, d.ply) {
            let next = self.next_value(row.clone(), choice, b.item.second);
            let target =
                b.sign * discount_over(self.undiscounted, self.config.gamma, b.plies) * next;
            update(
                self.table.values_mut(),
                &mut self.second,
                b.item,
                target,
                self.alpha,
            );
        }
        let slot = Slot {
            index: (row.start + choice) as u32,
            second: rng.random::<bool>(),
        };
        self.pending.push(d.seat, d.ply, slot);
        Some(choice)
    }

    /// One table: the episode in one piece, the pending decisions and the generator in locals
    /// (moves chosen and learned as by `act_at`, the same function).
    fn play_self(&mut self, env: &mut AecEnv<G>, rng: &mut SgRng) -> EpisodeOutcome {
        if self.config.double {
            return play_self_by_moves(env, self, rng);
        }
        self.begin_episode();
        env.reset(None);
        let mut pending = self.pending.clone();
        let mut local = rng.clone();
        let hot = self.hot();
        let epsilon = self.epsilon.clone();
        match self.table.in_place() {
            // The table's parts as locals too.
            Some(mut rows) => {
                moves_of_episode(env, &mut rows, &hot, &epsilon, &mut pending, &mut local)
            }
            None => moves_of_episode(
                env,
                &mut self.table,
                &hot,
                &epsilon,
                &mut pending,
                &mut local,
            ),
        }
        *rng = local;
        self.pending = pending;
        super::finish(
            env.game(),
            env.returns(),
            0,
            self,
            env.ply(),
            env.resigned(),
        )
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, plies: u32) {
        let (undiscounted, gamma, alpha) = (self.undiscounted, self.config.gamma, self.alpha);
        let values = self.table.values_mut();
        for b in self.pending.finish(plies) {
            let target =
                discount_over(undiscounted, gamma, b.plies.saturating_sub(1)) * returns[b.seat];
            update(values, &mut self.second, b.item, target, alpha);
        }
        self.episode += 1;
        self.alpha = self.config.alpha.at(self.episode);
        self.epsilon.next_episode();
    }

    fn policy(&self) -> Box<dyn Policy<G> + '_> {
        Box::new(QPolicy {
            learner: self,
            epsilon: self.epsilon.value(),
        })
    }

    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_> {
        Box::new(QPolicy {
            learner: self,
            epsilon: 0.0,
        })
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
}

/// ε-greedy play on a Q-learner's values (ε = 0: greedy, ties shared equally).
struct QPolicy<'a, G: Game> {
    learner: &'a QLearner<G>,
    epsilon: f64,
}

impl<G: Game> Policy<G> for QPolicy<'_, G> {
    fn name(&self) -> String {
        format!("{} (ε = {})", self.learner.name, self.epsilon)
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.learner.with_q_values(game, state, |q| {
            row_probabilities(q, legal.len(), self.epsilon, probs)
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    use crate::learn::tests::{learns, train_self_play};

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
        let a0 = l.act(&game, &d0, &mut r).unwrap();
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
