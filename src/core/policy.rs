//! Policies: how a player picks its move. [`Policy::choose`] draws a move; policies that have a
//! full distribution over the legal actions (random play, perfect play with random ties, every
//! learner's play) also give it through [`Policy::probabilities`], which the exact evaluator
//! reads to compute results by dynamic programming (no sampling). A search AI only chooses.
//!
//! A distribution may leave probability mass unassigned: that mass is resignation (a matchbox
//! with no beads left resigns).

use std::sync::{Arc, RwLock};

use rand::RngExt;

use crate::core::game::{Action, Game};
use crate::core::random::SgRng;

/// Below this, leftover probability mass is rounding noise, not resignation.
const RESIGN_EPSILON: f64 = 1e-9;

pub trait Policy<G: Game>: Send + Sync {
    /// A short description ("random", "optimal", "fuzzy(p=0.1, optimal)").
    fn name(&self) -> String;

    /// Draws an action (`None` = resign). The default samples [`Policy::probabilities`]; a
    /// policy without a distribution overrides it.
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        let mut probs = Vec::with_capacity(legal.len());
        assert!(
            self.probabilities(game, state, legal, &mut probs),
            "policy `{}` has no distribution, so it must implement `choose`",
            self.name()
        );
        sample(legal, &probs, rng)
    }

    /// Fills `probs` with the probability of each action of `legal` (same order) and returns
    /// `true`; the sum may be below one, the rest is the probability of resigning. A policy
    /// that can only draw moves (a search AI) returns `false` and leaves `probs` empty.
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        let _ = (game, state, legal);
        probs.clear();
        false
    }
}

/// A policy behind a reference, a box or a shared pointer (a saved agent read once and played
/// by every run) plays as the policy itself.
macro_rules! forward_policy {
    ($($pointer:ty),+) => {$(
        impl<'a, G: Game, P: Policy<G> + ?Sized> Policy<G> for $pointer {
            fn name(&self) -> String {
                (**self).name()
            }
            fn probabilities(
                &self,
                game: &G,
                state: &G::State,
                legal: &[Action],
                probs: &mut Vec<f64>,
            ) -> bool {
                (**self).probabilities(game, state, legal, probs)
            }
            fn choose(
                &self,
                game: &G,
                state: &G::State,
                legal: &[Action],
                rng: &mut SgRng,
            ) -> Option<Action> {
                (**self).choose(game, state, legal, rng)
            }
        }
    )+};
}

forward_policy!(&'a P, Box<P>, Arc<P>);

/// Draws a chance outcome: the first whose cumulative probability passes one uniform number
/// (the last one if rounding leaves the number past them all). Environments, statistics and
/// benchmarks all draw this way, so a seed gives the same cards everywhere.
pub fn draw_outcome(outcomes: &[(Action, f64)], rng: &mut SgRng) -> Action {
    use rand::RngExt;
    let mut u = rng.random::<f64>();
    for &(a, p) in outcomes {
        if u < p {
            return a;
        }
        u -= p;
    }
    outcomes.last().expect("a chance state has outcomes").0
}

/// The distribution of a policy that plays `pick` for sure (a search's move): 1 on it, 0 on
/// every other action of `legal`; all 0 (resignation) for `None`.
pub fn point_mass(legal: &[Action], pick: Option<Action>, probs: &mut Vec<f64>) {
    probs.clear();
    probs.extend(legal.iter().map(|&a| f64::from(u8::from(Some(a) == pick))));
}

/// Samples an action from `probs`; mass left unassigned (beyond rounding) means resignation.
pub fn sample(legal: &[Action], probs: &[f64], rng: &mut SgRng) -> Option<Action> {
    sample_with(legal, |i| probs[i], rng)
}

/// [`sample`] of the probabilities `prob(i)` gives each action of `legal` (the same draw, bit
/// for bit), for a policy that can say them without writing them down.
#[inline]
pub fn sample_with(
    legal: &[Action],
    prob: impl Fn(usize) -> f64,
    rng: &mut SgRng,
) -> Option<Action> {
    sample_place(legal.len(), prob, rng).map(|i| legal[i])
}

/// [`sample_with`] over `n` actions, giving the place of the action drawn (counting from 0).
#[inline]
pub fn sample_place(n: usize, prob: impl Fn(usize) -> f64, rng: &mut SgRng) -> Option<usize> {
    let total: f64 = (0..n).map(&prob).sum();
    if total <= 0.0 {
        return None;
    }
    let resign = resign_rest(total);
    let mut u = rng.random::<f64>() * (total + resign);
    for i in 0..n {
        let p = prob(i);
        if u < p {
            return Some(i);
        }
        u -= p;
    }
    if resign > 0.0 {
        return None;
    }
    // Rounding carried u past the last action: take the last one that can be played.
    (0..n).rev().find(|&i| prob(i) > 0.0)
}

/// The probability of resigning given action probabilities.
pub fn resign_probability(probs: &[f64]) -> f64 {
    resign_rest(probs.iter().sum::<f64>())
}

/// [`resign_probability`] of probabilities that sum to `total`.
fn resign_rest(total: f64) -> f64 {
    let rest = 1.0 - total;
    if rest <= RESIGN_EPSILON { 0.0 } else { rest }
}

/// Every legal action equally likely.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPolicy;

impl<G: Game> Policy<G> for RandomPolicy {
    fn name(&self) -> String {
        "random".into()
    }
    fn probabilities(&self, _: &G, _: &G::State, legal: &[Action], probs: &mut Vec<f64>) -> bool {
        probs.clear();
        probs.resize(legal.len(), 1.0 / legal.len() as f64);
        true
    }
    fn choose(&self, _: &G, _: &G::State, legal: &[Action], rng: &mut SgRng) -> Option<Action> {
        Some(legal[rng.random_range(0..legal.len())])
    }
}

/// Plays a uniformly random move with probability `p` and the base policy otherwise.
pub struct FuzzyPolicy<P> {
    pub base: P,
    pub p: f64,
}

impl<G: Game, P: Policy<G>> Policy<G> for FuzzyPolicy<P> {
    fn name(&self) -> String {
        format!("fuzzy(p={}, {})", self.p, self.base.name())
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        if !self.base.probabilities(game, state, legal, probs) {
            return false;
        }
        let uniform = self.p / legal.len() as f64;
        for x in probs.iter_mut() {
            *x = uniform + (1.0 - self.p) * *x;
        }
        true
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        if rng.random::<f64>() < self.p {
            Some(legal[rng.random_range(0..legal.len())])
        } else {
            self.base.choose(game, state, legal, rng)
        }
    }
}

/// A policy that one owner may replace while others play it: the frozen copy of a learner
/// that the training loop refreshes every few thousand episodes. Clones share the policy.
pub struct SharedPolicy<P>(Arc<RwLock<P>>);

impl<P> Clone for SharedPolicy<P> {
    fn clone(&self) -> Self {
        SharedPolicy(Arc::clone(&self.0))
    }
}

impl<P> SharedPolicy<P> {
    pub fn new(policy: P) -> Self {
        SharedPolicy(Arc::new(RwLock::new(policy)))
    }
    /// Every clone plays `policy` from now on.
    pub fn replace(&self, policy: P) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = policy;
    }
    /// The policy now in place.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, P> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
    /// The policy now in place, to change it in place (every clone plays the change).
    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, P> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl<G: Game, P: Policy<G>> Policy<G> for SharedPolicy<P> {
    fn name(&self) -> String {
        self.read().name()
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.read().probabilities(game, state, legal, probs)
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        self.read().choose(game, state, legal, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::random::rng;

    #[test]
    fn sampling_follows_probabilities_and_resigns_on_missing_mass() {
        let mut r = rng(7);
        let legal = [3, 5];
        let mut counts = [0usize; 3];
        for _ in 0..10_000 {
            match sample(&legal, &[0.25, 0.25], &mut r) {
                Some(3) => counts[0] += 1,
                Some(5) => counts[1] += 1,
                None => counts[2] += 1,
                Some(_) => unreachable!(),
            }
        }
        assert!(
            (counts[2] as f64 / 10_000.0 - 0.5).abs() < 0.03,
            "{counts:?}"
        );
        assert_eq!(sample(&legal, &[0.0, 0.0], &mut r), None);
        assert!((0..100).all(|_| sample(&legal, &[0.0, 1.0], &mut r) == Some(5)));
        assert_eq!(resign_probability(&[0.5, 0.5 - 1e-12]), 0.0);
    }
}
