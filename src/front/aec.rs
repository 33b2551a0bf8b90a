//! The turn-based multi-agent environment of a game chosen at run time: the engine of the
//! Python package's PettingZoo environment, [`crate::core::env::AecEnv`] (the core every
//! environment steps) behind one type. Every seat is an agent; chance is drawn from the
//! environment's seeded stream, as the command line's environments draw it.

use crate::core::env::{AecEnv, EnvError};
use crate::core::game::{Action, Game, Player};
use crate::core::random::SgRng;

use super::{DynGame, DynState, FrontError};

/// One episode of PettingZoo's AEC protocol over a game: who acts, their legal actions, each
/// seat's observation, the returns at the end.
pub struct DynAec {
    inner: Box<dyn AecStepper>,
}

/// The environment of one game type behind one type.
trait AecStepper: Send + Sync {
    fn reset(&mut self, seed: Option<u64>);
    fn step(&mut self, action: i64) -> Result<(), FrontError>;
    fn player(&self) -> Option<Player>;
    fn legal(&self) -> &[Action];
    fn observe(&self, seat: Player, out: &mut [f32]);
    fn returns(&self) -> Option<Vec<f64>>;
    fn truncated(&self) -> bool;
    fn ply(&self) -> u32;
    fn rng(&self) -> SgRng;
    fn state(&self) -> DynState;
    fn resume(&mut self, state: &DynState, ply: u32, rng: SgRng) -> Result<(), FrontError>;
    fn boxed_clone(&self) -> Box<dyn AecStepper>;
}

struct Stepper<G: Game> {
    env: AecEnv<G>,
    game: DynGame,
}

impl<G: Game> AecStepper for Stepper<G> {
    fn reset(&mut self, seed: Option<u64>) {
        self.env.reset(seed);
    }

    fn step(&mut self, action: i64) -> Result<(), FrontError> {
        let illegal = || {
            FrontError::Illegal(
                self.env
                    .game()
                    .illegal(self.env.state(), action.to_string()),
            )
        };
        let action = Action::try_from(action).map_err(|_| illegal())?;
        self.env.step(action).map_err(|e| match e {
            EnvError::Illegal(e) => FrontError::Illegal(e),
            EnvError::EpisodeOver => FrontError::Refused(
                "the episode is over: every agent is done (step(None) for each, or reset())".into(),
            ),
            e => FrontError::Refused(e.to_string()),
        })
    }

    fn player(&self) -> Option<Player> {
        self.env.agent_selection()
    }

    fn legal(&self) -> &[Action] {
        self.env.legal_actions()
    }

    fn observe(&self, seat: Player, out: &mut [f32]) {
        self.env.game().observe(self.env.state(), seat, out);
    }

    fn returns(&self) -> Option<Vec<f64>> {
        self.env.returns().map(|r| r.as_slice().to_vec())
    }

    fn truncated(&self) -> bool {
        self.env.truncated()
    }

    fn ply(&self) -> u32 {
        self.env.ply()
    }

    fn rng(&self) -> SgRng {
        self.env.rng().clone()
    }

    fn state(&self) -> DynState {
        self.game.wrap(self.env.state().clone())
    }

    fn resume(&mut self, state: &DynState, ply: u32, rng: SgRng) -> Result<(), FrontError> {
        let state = self.game.unwrap(self.env.game(), state)?.clone();
        self.env.resume(state, ply, rng);
        Ok(())
    }

    fn boxed_clone(&self) -> Box<dyn AecStepper> {
        Box::new(Stepper {
            env: self.env.clone(),
            game: self.game.clone(),
        })
    }
}

impl Clone for DynAec {
    fn clone(&self) -> Self {
        DynAec {
            inner: self.inner.boxed_clone(),
        }
    }
}

impl DynAec {
    /// The environment of `game`, its episode started from `seed` (chance drawn until an agent
    /// acts).
    pub fn new(game: &DynGame, seed: u64) -> DynAec {
        let inner: Box<dyn AecStepper> = with_game!(&game.game, g => {
            #[allow(clippy::clone_on_copy)] // some games are Copy, others not
            let env = AecEnv::new(g.clone(), seed);
            Box::new(Stepper { env, game: game.clone() })
        });
        DynAec { inner }
    }

    /// A new episode: the stream reseeded where `seed` is given (else it goes on), chance
    /// drawn until an agent acts.
    pub fn reset(&mut self, seed: Option<u64>) {
        self.inner.reset(seed);
    }

    /// The agent to act plays `action`; the chance events that follow are drawn. An illegal
    /// action is an error that lists the legal ones, and changes nothing.
    pub fn step(&mut self, action: i64) -> Result<(), FrontError> {
        self.inner.step(action)
    }

    /// The seat to act, or `None` once the episode is over.
    pub fn player(&self) -> Option<Player> {
        self.inner.player()
    }

    /// The legal actions of the seat to act, ascending (none at the end).
    pub fn legal_actions(&self) -> &[Action] {
        self.inner.legal()
    }

    /// `seat`'s observation of the position ([`DynGame::observation_len`] numbers into `out`).
    pub fn observe(&self, seat: Player, out: &mut [f32]) {
        self.inner.observe(seat, out);
    }

    /// Every seat's return once the episode is over.
    pub fn returns(&self) -> Option<Vec<f64>> {
        self.inner.returns()
    }

    /// The episode ended at a cap of the rules (a round cap) rather than by them.
    pub fn truncated(&self) -> bool {
        self.inner.truncated()
    }

    /// The position now.
    pub fn state(&self) -> DynState {
        self.inner.state()
    }

    /// The episode as it stands: (position, plies played, the stream chance is drawn from).
    pub fn export(&self) -> (DynState, u32, SgRng) {
        (self.inner.state(), self.inner.ply(), self.inner.rng())
    }

    /// Goes on from an [`DynAec::export`] of an environment of the same game.
    pub fn resume(&mut self, state: &DynState, ply: u32, rng: SgRng) -> Result<(), FrontError> {
        self.inner.resume(state, ply, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random legal moves, drawn from a stream of the test's.
    fn play(
        env: &mut DynAec,
        moves: usize,
        draw: &mut SgRng,
    ) -> Vec<(Option<Player>, Vec<Action>)> {
        use rand::RngExt;
        let mut seen = Vec::new();
        for _ in 0..moves {
            let Some(p) = env.player() else { break };
            let legal = env.legal_actions().to_vec();
            seen.push((Some(p), legal.clone()));
            env.step(i64::from(legal[draw.random_range(0..legal.len())]))
                .unwrap();
        }
        seen.push((env.player(), env.legal_actions().to_vec()));
        seen
    }

    #[test]
    fn an_exported_episode_goes_on_as_the_original() {
        let game = DynGame::new(
            "hase-und-igel",
            toml::toml! { players = 3 board = "CHCHIHC2H" max_rounds = 6 },
        )
        .unwrap();
        let mut ends = 0;
        for seed in 0..20 {
            let mut env = DynAec::new(&game, seed);
            let mut draw = crate::core::random::rng(seed);
            play(&mut env, 3, &mut draw);
            let (state, ply, rng) = env.export();
            let mut copy = DynAec::new(&game, 999);
            copy.resume(&state, ply, rng).unwrap();
            let mut draw_copy = draw.clone();
            assert_eq!(
                play(&mut env, 200, &mut draw),
                play(&mut copy, 200, &mut draw_copy)
            );
            assert_eq!(env.returns(), copy.returns());
            assert_eq!(env.truncated(), copy.truncated());
            ends += usize::from(env.player().is_none());
        }
        assert_eq!(ends, 20, "every episode ended (the round cap)");
    }

    #[test]
    fn illegal_actions_and_steps_after_the_end_are_errors() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut env = DynAec::new(&game, 1);
        for bad in [-1, 9, 1 << 40] {
            let e = env.step(bad).unwrap_err();
            assert!(e.to_string().contains("legal actions"), "{e}");
        }
        env.step(4).unwrap();
        assert!(env.step(4).is_err(), "taken");
        for a in [0, 2, 1, 6] {
            env.step(a).unwrap();
        }
        assert_eq!(env.player(), None, "x took the diagonal 2-4-6");
        assert_eq!(env.returns(), Some(vec![1.0, -1.0]));
        let e = env.step(5).unwrap_err();
        assert!(e.to_string().contains("episode is over"), "{e}");
        let other = DynGame::new("hexapawn", toml::Table::new()).unwrap();
        assert!(
            env.resume(&other.initial_state(), 0, crate::core::random::rng(0))
                .is_err()
        );
    }
}
