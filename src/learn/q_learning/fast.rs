//! A self-play episode of one-table Q-learning, Sarsa or Expected Sarsa, played in one piece.
//!
//! Every move is `QLearner::act`'s with one table: choose ε-greedily, back up the decision it
//! follows, remember this one; the same random draws and the same floating-point operations in
//! the same order (`learn::tests` holds the two together, episode by episode). Only where things
//! are kept and what is worked out twice differ, for speed:
//!
//! - the pending decisions, the generator, ε and, for a table laid out by the action index, the
//!   table's parts are locals of the episode, which stay in registers from move to move, not
//!   fields behind `&mut self` (what that gains: docs/performance.md, Learners);
//! - Q-learning's target reads the maximum that the greedy choice's scan found, not a second
//!   scan of the row;
//! - with γ = 1 no γ^k is worked out, by a flag rather than a test on γ (see [`powered`]).

use super::{Algorithm, Entry, QLearner};
use crate::core::env::{AecEnv, Env};
use crate::core::game::{Action, Game, Player};
use crate::core::random::SgRng;
use crate::learn::backup::{
    Pending, discount, epsilon_greedy_and_max, epsilon_greedy_expectation, max_of,
};
use crate::learn::epsilon_greedy::EpsilonGreedy;
use crate::learn::schedule::Epsilon;
use crate::learn::table::StateRows;
use crate::learn::{Decision, EpisodeOutcome, Learner, finish};

/// What a move reads of the learner's settings, copied out for the episode.
struct Settings {
    algorithm: Algorithm,
    initial: f64,
    gamma: f64,
    /// γ = 1.
    undiscounted: bool,
    alpha: f64,
}

/// What a move reads and writes besides the table, taken out of the learner for the episode
/// (kept in locals, see the module's notes) and given back at its end.
struct Locals {
    settings: Settings,
    epsilon: Epsilon,
    pending: Pending<Entry>,
    rng: SgRng,
}

impl Locals {
    /// Begins the learner's episode and takes its locals out, with a copy of the generator.
    #[inline(always)]
    fn begin<G: Game>(learner: &mut QLearner<G>, rng: &SgRng) -> Self {
        learner.begin_episode();
        Locals {
            settings: Settings {
                algorithm: learner.config.algorithm,
                initial: learner.config.initial,
                gamma: learner.config.gamma,
                undiscounted: learner.config.gamma == 1.0,
                alpha: learner.alpha,
            },
            epsilon: learner.epsilon.clone(),
            pending: learner.pending.clone(),
            rng: rng.clone(),
        }
    }

    /// One move of the learner at `d` ([`one_move`]).
    #[inline(always)]
    fn one_move<G: Game>(
        &mut self,
        table: &mut impl StateRows<G>,
        game: &G,
        d: &Decision<G>,
    ) -> usize {
        one_move(
            table,
            &self.settings,
            &self.epsilon,
            &mut self.pending,
            game,
            d,
            &mut self.rng,
        )
    }

    /// Gives the pending decisions and the generator back, and ends the episode with
    /// `seat`'s reward.
    #[inline(always)]
    fn end<G: Game>(
        self,
        learner: &mut QLearner<G>,
        rng: &mut SgRng,
        game: &G,
        (returns, seat, plies, resigned): (
            Option<crate::core::game::Returns>,
            usize,
            u32,
            Option<usize>,
        ),
    ) -> EpisodeOutcome {
        *rng = self.rng;
        learner.pending = self.pending;
        finish(game, returns, seat, learner, plies, resigned)
    }
}

/// One self-play episode of a one-table learner ([`crate::learn::Learner::play_self`]).
pub(super) fn play_self<G: Game>(
    learner: &mut QLearner<G>,
    env: &mut AecEnv<G>,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    let mut locals = Locals::begin(learner, rng);
    env.reset(None);
    match learner.table.by_action_index() {
        Some(mut rows) => play_moves(env, &mut rows, &mut locals),
        None => play_moves(env, &mut learner.table, &mut locals),
    }
    let end = (env.returns(), 0, env.ply(), env.resigned());
    locals.end(learner, rng, env.game(), end)
}

/// One episode of a one-table learner against its frozen copy `copy`
/// ([`crate::learn::Learner::play_vs_copy`]): its moves as in self-play, the copy's drawn as
/// the copy plays ([`Learner::play_choose`]) with the environment's random stream.
pub(super) fn play_vs_copy<G: Game>(
    learner: &mut QLearner<G>,
    env: &mut Env<'_, G>,
    copy: &QLearner<G>,
    greedy: bool,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    let mut locals = Locals::begin(learner, rng);
    // The copy's ε, worked out once for the episode.
    let epsilon = copy.epsilon_for(greedy);
    let theirs = |game: &G, state: &G::State, _, legal: &[_], rng: &mut SgRng| {
        copy.choose_with(game, state, legal.len(), epsilon, rng)
    };
    match learner.table.by_action_index() {
        Some(mut rows) => moves_vs_copy(env, &mut rows, &mut locals, theirs),
        None => moves_vs_copy(env, &mut learner.table, &mut locals, theirs),
    }
    let end = (env.returns(), env.seat(), env.ply(), env.resigned());
    locals.end(learner, rng, env.game(), end)
}

/// The moves of an episode against a frozen copy, played from the reset to its end.
#[inline(always)]
fn moves_vs_copy<G: Game>(
    env: &mut Env<'_, G>,
    table: &mut impl StateRows<G>,
    locals: &mut Locals,
    theirs: impl FnMut(&G, &G::State, Player, &[Action], &mut SgRng) -> Option<usize>,
) {
    let seat = env.seat();
    env.play_episode(
        |game, state, legal, ply| {
            let d = Decision {
                state,
                seat,
                legal,
                ply,
            };
            Some(locals.one_move(table, game, &d))
        },
        theirs,
    );
}

/// The moves of the episode, played on to its end.
#[inline(always)]
fn play_moves<G: Game>(env: &mut AecEnv<G>, table: &mut impl StateRows<G>, locals: &mut Locals) {
    env.play_out(|game, state, seat, legal, ply| {
        let d = Decision {
            state,
            seat,
            legal,
            ply,
        };
        Some(locals.one_move(table, game, &d))
    })
    .expect("a place among the legal actions");
}

/// One move (`QLearner::act` with one table): the place of the action chosen at `d`.
#[inline(always)]
fn one_move<G: Game>(
    table: &mut impl StateRows<G>,
    settings: &Settings,
    epsilon: &Epsilon,
    pending: &mut Pending<Entry>,
    game: &G,
    d: &Decision<G>,
    rng: &mut SgRng,
) -> usize {
    let row = table.row_or_insert(game, d.state, d.legal.len(), settings.initial);
    let (choice, greedy_max) = epsilon_greedy_and_max(&table.values()[row.clone()], epsilon, rng);
    if let Some(b) = pending.take_previous(d.seat, d.ply) {
        let next = match greedy_max {
            // The scan's maximum is `max_of` of the row, bit for bit: no value is NaN (all are
            // finite) nor -0.0 (a sum is -0.0 only if both terms are, so no update makes one
            // unless `initial` is one).
            Some(max)
                if settings.algorithm == Algorithm::QLearning
                    && settings.initial.to_bits() != (-0.0f64).to_bits() =>
            {
                max
            }
            _ => next_value(
                &table.values()[row.clone()],
                settings.algorithm,
                epsilon,
                choice,
            ),
        };
        let target = b.sign * discount_over(settings.undiscounted, settings.gamma, b.plies) * next;
        update(table.values_mut(), b.entry, target, settings.alpha);
    }
    let entry = Entry {
        index: (row.start + choice) as u32,
        second: false,
    };
    pending.remember(d.seat, d.ply, entry);
    choice
}

/// v(S) of one table's row `q` at S, A = `choice` taken there (`QLearner::next_value`).
#[inline]
fn next_value(q: &[f64], algorithm: Algorithm, epsilon: &Epsilon, choice: usize) -> f64 {
    match algorithm {
        Algorithm::QLearning => max_of(q),
        Algorithm::Sarsa => q[choice],
        Algorithm::ExpectedSarsa => epsilon_greedy_expectation(q, epsilon.value()),
    }
}

/// Q(S, A) ← Q(S, A) + α [target − Q(S, A)] for the one table's `entry`.
#[inline]
fn update(q: &mut [f64], entry: Entry, target: f64, alpha: f64) {
    let q = &mut q[entry.index as usize];
    *q += alpha * (target - *q);
}

/// γ^plies, 1 without looking at γ when `undiscounted`.
#[inline]
fn discount_over(undiscounted: bool, gamma: f64, plies: u32) -> f64 {
    if undiscounted {
        1.0
    } else {
        powered(gamma, plies)
    }
}

/// [`discount`] out of line, for speed: inlined, its `powi` ran at every backup, γ = 1 or not.
#[inline(never)]
fn powered(gamma: f64, plies: u32) -> f64 {
    discount(gamma, plies)
}
