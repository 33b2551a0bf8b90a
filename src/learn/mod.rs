//! Learners and the loops that train them against the environments.
//!
//! A [`Learner`] picks moves at the seats it holds and learns from what happens; it never sees
//! the solution. [`play_vs_opponent`] trains it at one seat of an [`Env`] against a fixed
//! opponent policy; [`play_self`] lets it hold every seat of an [`AecEnv`].

pub mod menace;

use crate::SgRng;
use crate::env::{AecEnv, Env};
use crate::game::{Action, Game, Player, Returns};
use crate::policy::Policy;

pub trait Learner<G: Game>: Send {
    /// A short description for tables and legends ("her", "menace").
    fn name(&self) -> String;
    /// Called before the first move of each episode.
    fn begin_episode(&mut self) {}
    /// The learner's move as `seat` at `state` (`None` = resign). It may remember the choice to
    /// learn from at the end of the episode.
    fn act(
        &mut self,
        game: &G,
        state: &G::State,
        seat: Player,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action>;
    /// Called once the episode is over, with every seat's return.
    fn end_episode(&mut self, game: &G, returns: &Returns);
    /// How the learner plays now (its behaviour policy, without learning), for the evaluator.
    fn policy(&self) -> Box<dyn Policy<G> + '_>;
    /// Its greedy policy: the best action by what it has learned, ties shared equally.
    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_>;
    /// Figures about the learner's memory, recorded with the learning curves (e.g. boxes used).
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// What happened in one training episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpisodeOutcome {
    /// The learner's return (at its seat; at seat 0 in self-play).
    pub reward: f64,
    pub returns: Option<Returns>,
    pub plies: u32,
    pub resigned: Option<Player>,
}

/// Plays one episode of `env` (the learner at `env.seat()`) and lets the learner learn from it.
pub fn play_vs_opponent<G: Game, L: Learner<G> + ?Sized>(
    env: &mut Env<'_, G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    let seat = env.seat();
    let mut legal = Vec::new();
    while !env.is_done() {
        legal.clear();
        legal.extend_from_slice(env.legal_actions());
        let choice = learner.act(env.game(), env.state(), seat, &legal, rng);
        match choice {
            Some(a) => env.step(a).expect("the learner chose an illegal action"),
            None => env.resign().expect("the episode is running"),
        };
    }
    let info = env.info();
    finish(
        env.game(),
        env.returns(),
        seat,
        learner,
        info.ply,
        info.resigned,
    )
}

/// Plays one episode in which the learner holds every seat.
pub fn play_self<G: Game, L: Learner<G> + ?Sized>(
    env: &mut AecEnv<G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    let mut legal = Vec::new();
    while let Some(seat) = env.agent_selection() {
        legal.clear();
        legal.extend_from_slice(env.legal_actions());
        match learner.act(env.game(), env.state(), seat, &legal, rng) {
            Some(a) => env.step(a).expect("the learner chose an illegal action"),
            None => env.resign().expect("the episode is running"),
        }
    }
    let (_, _, _, _, info) = env.last(0);
    finish(
        env.game(),
        env.returns(),
        0,
        learner,
        info.ply,
        info.resigned,
    )
}

fn finish<G: Game, L: Learner<G> + ?Sized>(
    game: &G,
    returns: Option<Returns>,
    seat: Player,
    learner: &mut L,
    plies: u32,
    resigned: Option<Player>,
) -> EpisodeOutcome {
    // A truncated episode has no returns: it ends as a draw for learning purposes.
    let r = returns.unwrap_or_else(|| Returns::zeros(game.num_players()));
    learner.end_episode(game, &r);
    EpisodeOutcome {
        reward: r[seat],
        returns,
        plies,
        resigned,
    }
}
