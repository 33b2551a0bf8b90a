//! What the value learners share: which earlier decision a new one backs up, and ε-greedy
//! choice over a row of values.
//!
//! Values are always from the point of view of the player to move (for afterstates: of the
//! player who just moved). A decision is backed up from the learner's next decision in the
//! episode:
//!
//! - in a **two-player zero-sum** game, if that next decision is the other seat's (self-play),
//!   the target is the negated value (negamax): one table serves both seats, and values travel
//!   back one ply at a time;
//! - otherwise from the same seat's next decision (the opponents are part of the
//!   environment, as in single-agent RL), and every seat learns on its own chain in games of
//!   more players.
//!
//! Rewards come only at the end. With discount γ per ply, a decision `k` plies before the next
//! one is worth `γ^k` of it, and a decision `k` plies before the end `γ^(k-1)` of its return:
//! the true value of a win in `n` plies is `γ^(n-1)` ([`crate::eval`] uses the same).

use rand::RngExt;

use super::schedule::Epsilon;
use crate::core::game::{MAX_PLAYERS, Player};
use crate::core::random::SgRng;

/// A decision waiting for its target.
#[derive(Clone, Copy, Debug)]
pub struct Backup<T> {
    /// What the learner updates for the decision: the index of the value it chose (and, for
    /// double Q-learning, which table it updates).
    pub entry: T,
    /// The seat that made the decision.
    pub seat: Player,
    /// +1, or -1 for a negamax backup from the other seat.
    pub sign: f64,
    /// Plies from the decision to the next decision (or to the end).
    pub plies: u32,
}

/// The decisions of an episode not yet backed up.
#[derive(Clone, Debug)]
pub struct Pending<T: Copy> {
    two_player: bool,
    /// The seats in play: the slots beyond them are never used.
    players: usize,
    slots: [Option<(T, u32)>; MAX_PLAYERS],
    last: Option<Player>,
}

impl<T: Copy> Pending<T> {
    pub fn new(num_players: usize) -> Self {
        Pending {
            two_player: num_players == 2,
            players: num_players.min(MAX_PLAYERS),
            slots: [None; MAX_PLAYERS],
            last: None,
        }
    }

    pub fn clear(&mut self) {
        // Every slot, not only the seats in play: a fixed number of stores instead of a loop.
        self.slots = [None; MAX_PLAYERS];
        self.last = None;
    }

    /// Takes out the earlier decision that a new decision by `seat` at `ply` backs up, if any.
    #[inline]
    pub fn take_previous(&mut self, seat: Player, ply: u32) -> Option<Backup<T>> {
        if self.two_player
            && let Some(q) = self.last
            && q != seat
            && let Some((entry, at)) = self.slots[q].take()
        {
            return Some(Backup {
                entry,
                seat: q,
                sign: -1.0,
                plies: ply - at,
            });
        }
        self.slots[seat].take().map(|(entry, at)| Backup {
            entry,
            seat,
            sign: 1.0,
            plies: ply - at,
        })
    }

    /// Remembers the decision by `seat` at `ply`, which updates `entry`.
    #[inline]
    pub fn remember(&mut self, seat: Player, ply: u32, entry: T) {
        self.slots[seat] = Some((entry, ply));
        self.last = Some(seat);
    }

    /// At the end of an episode of `plies` plies: the decisions still waiting, with the plies
    /// from each to the end. Clears them.
    #[inline]
    pub fn take_last(&mut self, plies: u32) -> impl Iterator<Item = Backup<T>> + '_ {
        self.last = None;
        self.slots[..self.players]
            .iter_mut()
            .enumerate()
            .filter_map(move |(seat, slot)| {
                slot.take().map(|(entry, at)| Backup {
                    entry,
                    seat,
                    sign: 1.0,
                    plies: plies - at,
                })
            })
    }
}

/// γ^k.
#[inline]
pub fn discount(gamma: f64, plies: u32) -> f64 {
    if gamma == 1.0 {
        1.0
    } else {
        power(gamma, plies)
    }
}

/// γ^k by `powi`. Out of line for speed: inlined, `powi` ran at every backup, γ = 1 or not.
#[inline(never)]
fn power(gamma: f64, plies: u32) -> f64 {
    gamma.powi(plies as i32)
}

/// The largest of `values` (`-inf` if empty).
#[inline]
pub fn max_of(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// An exploration rate as ε-greedy choice reads it: a number, or an [`Epsilon`] following its
/// schedule.
pub trait Exploration: Copy {
    /// ε > 0: a draw is made at all.
    fn positive(self) -> bool;
    /// `u < ε`.
    fn below(self, u: f64) -> bool;
}

impl Exploration for f64 {
    #[inline(always)]
    fn positive(self) -> bool {
        self > 0.0
    }
    #[inline(always)]
    fn below(self, u: f64) -> bool {
        u < self
    }
}

impl Exploration for &Epsilon {
    #[inline(always)]
    fn positive(self) -> bool {
        Epsilon::positive(self)
    }
    #[inline(always)]
    fn below(self, u: f64) -> bool {
        Epsilon::below(self, u)
    }
}

/// The index of a greedy entry of `values` (ties broken uniformly at random) or, with
/// probability `epsilon`, of a uniformly random one.
#[inline(always)]
pub fn epsilon_greedy(values: &[f64], epsilon: impl Exploration, rng: &mut SgRng) -> usize {
    epsilon_greedy_and_max(values, epsilon, rng).0
}

/// [`epsilon_greedy`], with the largest of `values` when the choice was greedy (`None` when it
/// was random): the greedy scan finds it anyway. The same bits as [`max_of`] when no value is
/// NaN or -0.0 (`f64::max` may return either zero of a pair).
#[inline(always)]
pub fn epsilon_greedy_and_max(
    values: &[f64],
    epsilon: impl Exploration,
    rng: &mut SgRng,
) -> (usize, Option<f64>) {
    // For speed, a copy of the generator that never leaves this function, written back at the
    // end: it stays in registers through the scan (measured on Q-learning's self-play).
    let mut local = rng.clone();
    if epsilon.positive() && epsilon.below(local.random::<f64>()) {
        *rng = local;
        return (rng.random_range(0..values.len()), None);
    }
    let (choice, max) = greedy_and_max(values, &mut local);
    *rng = local;
    (choice, Some(max))
}

/// The index of a greedy entry of `values`, ties broken uniformly at random.
#[inline(always)]
pub fn greedy(values: &[f64], rng: &mut SgRng) -> usize {
    greedy_and_max(values, rng).0
}

/// [`greedy`] and the greedy entry's value.
#[inline(always)]
fn greedy_and_max(values: &[f64], rng: &mut SgRng) -> (usize, f64) {
    let mut best = 0;
    let mut best_value = values[0];
    let mut ties = 1u32;
    for (i, &v) in values.iter().enumerate().skip(1) {
        if v > best_value {
            best = i;
            best_value = v;
            ties = 1;
        } else if v == best_value {
            ties += 1;
            if rng.random_range(0..ties) == 0 {
                best = i;
            }
        }
    }
    (best, best_value)
}

/// The ε-greedy distribution over `values` into `probs`: `1 - ε` shared by the greedy entries,
/// `ε` spread over all.
pub fn epsilon_greedy_probabilities(values: &[f64], epsilon: f64, probs: &mut Vec<f64>) {
    let (max, best, rest) = epsilon_greedy_weights(values, epsilon);
    probs.clear();
    probs.extend(values.iter().map(|&v| if v == max { best } else { rest }));
}

/// The largest of `values`, and the ε-greedy probability of a move of that value
/// (`ε/n + (1 − ε)/ties`) and of any other (`ε/n`), worked out once for the row.
#[inline]
fn epsilon_greedy_weights(values: &[f64], epsilon: f64) -> (f64, f64, f64) {
    let max = max_of(values);
    let ties = values.iter().filter(|&&v| v == max).count() as f64;
    let rest = epsilon / values.len() as f64;
    (max, rest + (1.0 - epsilon) / ties, rest)
}

/// The ε-greedy distribution of an afterstate-value learner at `state`: over the values
/// `values(mover)` gives its `legal` moves (TD's and the feature learners' policies); empty
/// where nobody moves or nothing is legal.
pub fn afterstate_probabilities<G: crate::core::game::Game>(
    game: &G,
    state: &G::State,
    legal: &[crate::core::game::Action],
    epsilon: f64,
    probs: &mut Vec<f64>,
    values: impl FnOnce(crate::core::game::Player) -> Vec<f64>,
) {
    match game.turn(state).player() {
        Some(mover) if !legal.is_empty() => {
            epsilon_greedy_probabilities(&values(mover), epsilon, probs);
        }
        _ => probs.clear(),
    }
}

/// The ε-greedy distribution over a state's row of action values, uniform over its `n` legal
/// actions when the state has no row (every value still initial, so all tie).
pub fn row_probabilities(row: Option<&[f64]>, n: usize, epsilon: f64, probs: &mut Vec<f64>) {
    match row {
        Some(q) if q.len() == n => epsilon_greedy_probabilities(q, epsilon, probs),
        _ => {
            probs.clear();
            probs.resize(n, 1.0 / n as f64);
        }
    }
}

/// A move drawn from [`row_probabilities`] as [`crate::core::policy::sample`] draws it (the
/// same bits), without writing the probabilities down: a frozen copy's move.
pub fn sample_row(
    row: Option<&[f64]>,
    legal: &[crate::core::game::Action],
    epsilon: f64,
    rng: &mut SgRng,
) -> Option<crate::core::game::Action> {
    sample_row_place(row, legal.len(), epsilon, rng).map(|i| legal[i])
}

/// [`sample_row`] over `n` legal actions, giving the place of the move drawn.
#[inline]
pub fn sample_row_place(
    row: Option<&[f64]>,
    n: usize,
    epsilon: f64,
    rng: &mut SgRng,
) -> Option<usize> {
    use crate::core::policy::sample_place;
    match row {
        Some(q) if q.len() == n => {
            let (max, best, rest) = epsilon_greedy_weights(q, epsilon);
            sample_place(n, |i| if q[i] == max { best } else { rest }, rng)
        }
        _ => {
            let p = 1.0 / n as f64;
            sample_place(n, |_| p, rng)
        }
    }
}

/// The expected value of `values` under the ε-greedy distribution.
#[inline]
pub fn epsilon_greedy_expectation(values: &[f64], epsilon: f64) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (1.0 - epsilon) * max_of(values) + epsilon * mean
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::random::rng;

    /// A frozen copy's fused draw is the draw of the written-down probabilities, bit for bit.
    #[test]
    fn sample_row_draws_as_sample_of_row_probabilities() {
        use crate::core::policy::sample;
        use rand::RngExt;
        let mut values = rng(7);
        let mut probs = Vec::new();
        for case in 0..20_000u64 {
            let n = values.random_range(1..10usize);
            // Few distinct values, so that ties are common.
            let q: Vec<f64> = (0..n)
                .map(|_| values.random_range(0..3) as f64 * 0.5)
                .collect();
            let row = (case % 5 != 0).then_some(q.as_slice());
            let epsilon = [0.0, 0.1, 0.5, 1.0][(case % 4) as usize];
            let legal: Vec<u32> = (0..n as u32).map(|a| a * 3 + 1).collect();
            row_probabilities(row, n, epsilon, &mut probs);
            let (mut a, mut b) = (rng(case), rng(case));
            assert_eq!(
                sample(&legal, &probs, &mut a),
                sample_row(row, &legal, epsilon, &mut b),
                "{q:?} {epsilon}"
            );
            assert_eq!(a.random::<u64>(), b.random::<u64>());
        }
    }

    #[test]
    fn self_play_backs_up_from_the_other_seat_with_a_sign_flip() {
        let mut p: Pending<u32> = Pending::new(2);
        assert!(p.take_previous(0, 0).is_none());
        p.remember(0, 0, 10);
        let b = p.take_previous(1, 1).unwrap();
        assert_eq!((b.entry, b.seat, b.sign, b.plies), (10, 0, -1.0, 1));
        p.remember(1, 1, 11);
        let b = p.take_previous(0, 2).unwrap();
        assert_eq!((b.entry, b.seat, b.sign), (11, 1, -1.0));
        p.remember(0, 2, 12);
        let ends: Vec<_> = p.take_last(5).collect();
        assert_eq!(ends.len(), 1);
        assert_eq!((ends[0].entry, ends[0].plies), (12, 3));
    }

    #[test]
    fn one_seat_backs_up_from_its_own_next_decision() {
        let mut p: Pending<u32> = Pending::new(2);
        p.remember(1, 1, 7);
        let b = p.take_previous(1, 3).unwrap();
        assert_eq!((b.entry, b.sign, b.plies), (7, 1.0, 2));
        // Three players: every seat on its own chain.
        let mut p: Pending<u32> = Pending::new(3);
        p.remember(0, 0, 1);
        p.remember(1, 1, 2);
        let b = p.take_previous(1, 4).unwrap();
        assert_eq!((b.entry, b.sign), (2, 1.0));
        assert_eq!(p.take_last(6).map(|b| b.entry).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn greedy_choice_breaks_ties_uniformly() {
        let mut r = rng(3);
        let values = [0.0, 1.0, 1.0, 0.5, 1.0];
        let mut counts = [0u32; 5];
        for _ in 0..30_000 {
            counts[greedy(&values, &mut r)] += 1;
        }
        assert_eq!(counts[0] + counts[3], 0);
        for i in [1, 2, 4] {
            assert!(
                (counts[i] as f64 / 10_000.0 - 1.0).abs() < 0.05,
                "{counts:?}"
            );
        }
        let mut probs = Vec::new();
        epsilon_greedy_probabilities(&values, 0.5, &mut probs);
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((probs[1] - (0.1 + 0.5 / 3.0)).abs() < 1e-12);
        let e = epsilon_greedy_expectation(&values, 0.5);
        assert!((e - (0.5 + 0.5 * 3.5 / 5.0)).abs() < 1e-12);
    }
}
