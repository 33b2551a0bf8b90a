//! ε-greedy play, written once for the learners that value moves (Q-learning, TD,
//! Monte-Carlo, the feature learners): each says how it spreads its probabilities over the
//! legal moves at a given ε ([`EpsilonGreedy::probabilities_at`]); its behaviour policy, its
//! greedy policy (ε = 0) and the probabilities a frozen copy plays from are built here.

use super::Learner;
use crate::core::game::{Action, Game};
use crate::core::policy::Policy;

/// A learner that plays ε-greedy over the values it gives the legal moves.
pub trait EpsilonGreedy<G: Game>: Learner<G> {
    /// Its name, as its policies show it.
    fn label(&self) -> &str;
    /// ε of its behaviour policy now.
    fn epsilon_now(&self) -> f64;
    /// Its probabilities over `legal` at `state` when it explores with `epsilon` (1 − ε
    /// shared by the best moves, ε spread over all).
    fn probabilities_at(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        epsilon: f64,
        probs: &mut Vec<f64>,
    );

    /// ε of the behaviour policy, or 0 for the greedy one.
    fn epsilon_for(&self, greedy: bool) -> f64 {
        if greedy { 0.0 } else { self.epsilon_now() }
    }
}

/// The behaviour policy (`greedy = false`) or the greedy policy of `learner`.
pub fn policy<G: Game, L: EpsilonGreedy<G>>(learner: &L, greedy: bool) -> Box<dyn Policy<G> + '_> {
    Box::new(EpsilonGreedyPolicy {
        learner,
        epsilon: learner.epsilon_for(greedy),
    })
}

/// [`Learner::play_probabilities`] of an ε-greedy learner, without building a policy.
pub fn play_probabilities<G: Game, L: EpsilonGreedy<G>>(
    learner: &L,
    (game, state, legal): (&G, &G::State, &[Action]),
    greedy: bool,
    probs: &mut Vec<f64>,
) -> bool {
    learner.probabilities_at(game, state, legal, learner.epsilon_for(greedy), probs);
    true
}

struct EpsilonGreedyPolicy<'a, L> {
    learner: &'a L,
    epsilon: f64,
}

impl<G: Game, L: EpsilonGreedy<G>> Policy<G> for EpsilonGreedyPolicy<'_, L> {
    fn name(&self) -> String {
        format!("{} (ε = {})", self.learner.label(), self.epsilon)
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.learner
            .probabilities_at(game, state, legal, self.epsilon, probs);
        true
    }
}
