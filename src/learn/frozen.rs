//! A learner's frozen copy, the opponent of the regimes in which a learner trains against
//! itself as it was (`policy = "frozen"`, refreshed every `refresh` episodes): a learner of the
//! same kind that is never trained ([`Learner::frozen_copy`]), brought up to date by copying
//! what the learner changed since the last refresh ([`Learner::refresh_copy`]), and played
//! through its behaviour or greedy policy.

use std::cell::RefCell;

use super::Learner;
use crate::core::game::{Action, Game};
use crate::core::policy::{Policy, sample};
use crate::core::random::SgRng;

/// A learner's frozen copy, played as a policy: its behaviour policy (exploration included) or
/// its greedy one, as the learner played when copied.
pub struct FrozenCopy<G: Game> {
    copy: Box<dyn Learner<G>>,
    greedy: bool,
}

impl<G: Game> FrozenCopy<G> {
    /// A copy of `learner` as it is now, played greedily if `greedy` (`None`: the learner makes
    /// no copy of itself).
    pub fn of(learner: &dyn Learner<G>, greedy: bool) -> Option<Self> {
        Some(FrozenCopy {
            copy: learner.frozen_copy()?,
            greedy,
        })
    }

    /// Brings the copy up to date with `learner`, the learner it was made from: afterwards it
    /// plays as a fresh copy would.
    pub fn refresh(&mut self, game: &G, learner: &mut dyn Learner<G>) {
        learner.refresh_copy(game, &mut self.copy);
    }

    /// The copy itself.
    pub fn learner(&self) -> &dyn Learner<G> {
        self.copy.as_ref()
    }

    /// Whether it plays the greedy policy.
    pub fn greedy(&self) -> bool {
        self.greedy
    }
}

impl<G: Game> Policy<G> for FrozenCopy<G> {
    fn name(&self) -> String {
        match self.greedy {
            true => self.copy.greedy_policy().name(),
            false => self.copy.policy().name(),
        }
    }

    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.copy
            .play_probabilities(game, state, legal, self.greedy, probs)
    }

    /// [`Policy::choose`]'s default (the same draw), without allocating per move.
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        choose(self.copy.as_ref(), self.greedy, game, state, legal, rng)
    }
}

/// The move a frozen copy `copy` plays at `state` (greedily if `greedy`): drawn from its
/// [`Learner::play_probabilities`] as [`sample`] draws it, through [`Learner::play_choose`]
/// where the copy offers it.
pub fn choose<G: Game, L: Learner<G> + ?Sized>(
    copy: &L,
    greedy: bool,
    game: &G,
    state: &G::State,
    legal: &[Action],
    rng: &mut SgRng,
) -> Option<Action> {
    if let Some(pick) = copy.play_choose(game, state, legal, greedy, rng) {
        return pick;
    }
    thread_local! {
        static PROBS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    }
    PROBS.with_borrow_mut(|probs| {
        assert!(
            copy.play_probabilities(game, state, legal, greedy, probs),
            "a learner's frozen copy has a distribution"
        );
        sample(legal, probs, rng)
    })
}

/// `copy` as a learner of type `L`, if it is one (a learner's [`Learner::refresh_copy`] finds
/// its own kind's copy so).
pub(crate) fn downcast<G: Game, L: Learner<G>>(copy: &mut Box<dyn Learner<G>>) -> Option<&mut L> {
    let any: &mut dyn std::any::Any = copy.as_mut();
    any.downcast_mut::<L>()
}
