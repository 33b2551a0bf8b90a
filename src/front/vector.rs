//! Many environments of one game stepped in one call: the Python package's Gymnasium vector
//! environment stands on this, so that Python pays its per-call cost once per batch rather
//! than once per move.
//!
//! Each environment is a [`crate::core::env::Env`]: the learner holds one seat, computer
//! players hold the others, chance is drawn from the environment's own seeded stream. An
//! episode that ends is started again on the next step (Gymnasium's "next step" autoreset: the
//! action given for it then is ignored), so every call steps every environment.

use std::sync::Arc;

use crate::ai::players::{check_fuzz, computer_player};
use crate::core::env::Env;
use crate::core::game::{Action, Game, Player};
use crate::core::policy::Policy;
use crate::core::random::SgRng;
use crate::truth::oracle::Oracle;

use super::{DynGame, FrontError, solve_for_optimal};

/// Where one call writes its results: row `i` of each belongs to environment `i`.
pub struct Batch<'a> {
    /// `num_envs x observation_len`: the learner's observation.
    pub observations: &'a mut [f32],
    /// `num_envs x num_distinct_actions`: the learner's legal actions (every action at an
    /// episode's last observation, where the next step's action is ignored).
    pub masks: &'a mut [bool],
    /// The learner's reward for the step (its return at the end, 0 before).
    pub rewards: &'a mut [f64],
    pub terminated: &'a mut [bool],
    pub truncated: &'a mut [bool],
}

/// `num_envs` environments of one game, seat and opponent (see the module's help).
pub struct DynVector {
    inner: Box<dyn Stepper>,
    num_envs: usize,
    observation_len: usize,
    num_actions: usize,
}

/// The environments of one game type behind one type.
trait Stepper: Send {
    fn reset(&mut self, seeds: &[u64], out: &mut Batch<'_>);
    fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError>;
}

/// Perfect play from a solution shared by every environment of a batch.
struct SharedOptimal<G: Game> {
    oracle: Arc<dyn Oracle<G>>,
    fuzz: f64,
}

impl<G: Game> Policy<G> for SharedOptimal<G> {
    fn name(&self) -> String {
        self.oracle.strong_policy(self.fuzz).name()
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        self.oracle
            .strong_policy(self.fuzz)
            .choose(game, state, legal, rng)
    }
}

struct Envs<G: Game> {
    envs: Vec<Env<'static, G>>,
    /// The episode of environment `i` ended at the last call: the next one starts another.
    ended: Vec<bool>,
    /// An illegal action ends the episode with reward -1 instead of being an error.
    illegal_loses: bool,
    seat: Player,
}

impl<G: Game> Envs<G> {
    /// Writes environment `i`'s observation and mask.
    fn write(&self, i: usize, out: &mut Batch<'_>) {
        let env = &self.envs[i];
        let game = env.game();
        let n = game.observation_len();
        game.observe(
            env.state(),
            self.seat,
            &mut out.observations[i * n..(i + 1) * n],
        );
        let a = game.num_distinct_actions();
        let mask = &mut out.masks[i * a..(i + 1) * a];
        if env.is_done() {
            mask.fill(true);
        } else {
            mask.fill(false);
            for &action in env.legal_actions() {
                mask[action as usize] = true;
            }
        }
    }
}

impl<G: Game> Stepper for Envs<G> {
    fn reset(&mut self, seeds: &[u64], out: &mut Batch<'_>) {
        for (i, &seed) in seeds.iter().enumerate() {
            self.envs[i].reset(Some(seed));
            self.ended[i] = false;
            out.rewards[i] = 0.0;
            out.terminated[i] = false;
            out.truncated[i] = false;
            self.write(i, out);
        }
    }

    fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError> {
        // Every action is checked before any environment moves: an error leaves all as they
        // were.
        let legal = |env: &Env<'static, G>, a: i64| {
            Action::try_from(a)
                .ok()
                .filter(|a| env.legal_actions().binary_search(a).is_ok())
        };
        if !self.illegal_loses {
            for (i, env) in self.envs.iter().enumerate() {
                if !self.ended[i] && legal(env, actions[i]).is_none() {
                    let source = env.game().illegal(env.state(), actions[i].to_string());
                    return Err(FrontError::IllegalIn { env: i, source });
                }
            }
        }
        for (i, &action) in actions.iter().enumerate() {
            let env = &mut self.envs[i];
            if self.ended[i] {
                env.reset(None);
                self.ended[i] = false;
                out.rewards[i] = 0.0;
                out.terminated[i] = false;
                out.truncated[i] = false;
            } else {
                match legal(env, action) {
                    Some(a) => {
                        let step = env.step(a).expect("a legal action");
                        out.rewards[i] = step.reward;
                        out.terminated[i] = step.terminated;
                        out.truncated[i] = step.truncated;
                        self.ended[i] = step.terminated || step.truncated;
                    }
                    None => {
                        // The "illegal move loses" rule: the episode ends where it stood.
                        out.rewards[i] = -1.0;
                        out.terminated[i] = true;
                        out.truncated[i] = false;
                        self.ended[i] = true;
                    }
                }
            }
            self.write(i, out);
            if self.ended[i] {
                let a = self.envs[i].game().num_distinct_actions();
                out.masks[i * a..(i + 1) * a].fill(true);
            }
        }
        Ok(())
    }
}

impl DynVector {
    /// `num_envs` environments of `game`: the learner plays `seat`, the computer player `ai`
    /// (as [`DynGame::computer`] names them) with `fuzz` every other seat. `optimal` solves the
    /// game once for all. Seeded by [`DynVector::reset`].
    pub fn new(
        game: &DynGame,
        num_envs: usize,
        seat: i64,
        ai: &str,
        fuzz: f64,
        illegal_loses: bool,
    ) -> Result<DynVector, FrontError> {
        const MAX_ENVS: usize = 1 << 20;
        if num_envs == 0 || num_envs > MAX_ENVS {
            return Err(FrontError::Refused(format!(
                "num_envs = {num_envs}: between 1 and {MAX_ENVS}"
            )));
        }
        // Every step returns fresh arrays of these sizes: refused before anything is made.
        const MAX_BYTES: usize = 8 << 30;
        let (obs, actions) = (game.observation_len(), game.num_distinct_actions());
        let per_env = 4 * obs + actions + 8 + 2;
        if num_envs.saturating_mul(per_env) > MAX_BYTES {
            return Err(FrontError::Refused(format!(
                "num_envs = {num_envs}: each step's arrays would take {} bytes ({num_envs} x                  ({obs} observation floats x 4 + {actions} mask bytes + 10)); at most {MAX_BYTES}",
                num_envs.saturating_mul(per_env)
            )));
        }
        let seat = game.seat(seat)?;
        let refused = |e: anyhow::Error| FrontError::Refused(format!("{e:#}"));
        check_fuzz(fuzz).map_err(refused)?;
        let inner: Box<dyn Stepper> = with_game!(&game.game, g => {
            let oracle: Option<Arc<dyn Oracle<_>>> = if ai == "optimal" {
                Some(Arc::from(solve_for_optimal(g)?))
            } else {
                None
            };
            let mut envs = Vec::with_capacity(num_envs);
            for _ in 0..num_envs {
                let mut opponents: Vec<Option<Box<dyn Policy<_>>>> = Vec::new();
                for p in 0..g.num_players() {
                    opponents.push(match &oracle {
                        _ if p == seat => None,
                        Some(oracle) => Some(Box::new(SharedOptimal {
                            oracle: oracle.clone(),
                            fuzz,
                        })),
                        None => Some(computer_player(g, ai, fuzz, None).map_err(refused)?),
                    });
                }
                #[allow(clippy::clone_on_copy)] // some games are Copy, others not
                let env = Env::with_opponents(g.clone(), seat, opponents, 0)
                    .map_err(|e| FrontError::Refused(e.to_string()))?;
                envs.push(env);
            }
            Box::new(Envs {
                envs,
                ended: vec![false; num_envs],
                illegal_loses,
                seat,
            })
        });
        Ok(DynVector {
            inner,
            num_envs,
            observation_len: game.observation_len(),
            num_actions: game.num_distinct_actions(),
        })
    }

    pub fn num_envs(&self) -> usize {
        self.num_envs
    }

    /// Starts every environment afresh, environment `i` seeded with `seeds[i]`.
    pub fn reset(&mut self, seeds: &[u64], out: &mut Batch<'_>) -> Result<(), FrontError> {
        self.check(seeds.len(), "seeds", out)?;
        self.inner.reset(seeds, out);
        Ok(())
    }

    /// Plays `actions[i]` in environment `i` (ignored where its episode ended at the last
    /// call: it starts again). An illegal action is an error and no environment moves, unless
    /// illegal actions lose.
    pub fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError> {
        self.check(actions.len(), "actions", out)?;
        self.inner.step(actions, out)
    }

    fn check(&self, given: usize, what: &str, out: &Batch<'_>) -> Result<(), FrontError> {
        let n = self.num_envs;
        let sizes = [
            (given, n, what),
            (
                out.observations.len(),
                n * self.observation_len,
                "observations",
            ),
            (out.masks.len(), n * self.num_actions, "masks"),
            (out.rewards.len(), n, "rewards"),
            (out.terminated.len(), n, "terminated"),
            (out.truncated.len(), n, "truncated"),
        ];
        for (len, want, name) in sizes {
            if len != want {
                return Err(FrontError::Refused(format!(
                    "{name}: {len} numbers for {n} environments; {want} expected"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Buffers {
        obs: Vec<f32>,
        masks: Vec<bool>,
        rewards: Vec<f64>,
        terminated: Vec<bool>,
        truncated: Vec<bool>,
    }

    impl Buffers {
        fn new(v: &DynVector) -> Buffers {
            let n = v.num_envs();
            Buffers {
                obs: vec![0.0; n * v.observation_len],
                masks: vec![false; n * v.num_actions],
                rewards: vec![0.0; n],
                terminated: vec![false; n],
                truncated: vec![false; n],
            }
        }
        fn batch(&mut self) -> Batch<'_> {
            Batch {
                observations: &mut self.obs,
                masks: &mut self.masks,
                rewards: &mut self.rewards,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
            }
        }
        /// The first legal action of each environment.
        fn first_legal(&self, actions: usize) -> Vec<i64> {
            self.masks
                .chunks(actions)
                .map(|m| m.iter().position(|&b| b).unwrap() as i64)
                .collect()
        }
    }

    #[test]
    fn episodes_end_restart_and_an_illegal_action_moves_nothing() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut v = DynVector::new(&game, 3, 0, "random", 0.0, false).unwrap();
        let mut b = Buffers::new(&v);
        v.reset(&[1, 2, 3], &mut b.batch()).unwrap();
        let before = b.obs.clone();
        let e = v.step(&[4, 4, 99], &mut b.batch()).unwrap_err();
        assert!(matches!(e, FrontError::IllegalIn { env: 2, .. }), "{e}");
        assert_eq!(b.obs, before, "no environment moved");
        let mut ends = 0;
        let mut ended = [false; 3];
        for _ in 0..40 {
            let actions = b.first_legal(9);
            v.step(&actions, &mut b.batch()).unwrap();
            for (i, ended) in ended.iter_mut().enumerate() {
                if *ended {
                    assert_eq!(b.rewards[i], 0.0, "a new episode starts");
                    assert!(b.obs[i * 27 + 18..(i + 1) * 27].iter().all(|&x| x == 1.0));
                }
                *ended = b.terminated[i] || b.truncated[i];
                ends += usize::from(*ended);
            }
        }
        assert!(ends >= 6);
        assert!(DynVector::new(&game, 0, 0, "random", 0.0, false).is_err());
        let big = DynGame::new("hackenbush", toml::toml! { random = 2 edges = 4096 }).unwrap();
        let e = DynVector::new(&big, 1 << 20, 0, "random", 0.0, false)
            .err()
            .unwrap();
        assert!(e.to_string().contains("at most 8589934592"), "{e}");
        assert!(DynVector::new(&game, 2, 2, "random", 0.0, false).is_err());
        assert!(DynVector::new(&game, 2, 0, "greedy", 0.0, false).is_err());
        assert!(
            v.step(&[0, 0], &mut b.batch()).is_err(),
            "three environments"
        );
    }

    #[test]
    fn perfect_play_inside_never_loses() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut v = DynVector::new(&game, 16, 1, "optimal", 0.0, false).unwrap();
        let mut b = Buffers::new(&v);
        v.reset(&(0..16).collect::<Vec<_>>(), &mut b.batch())
            .unwrap();
        for _ in 0..30 {
            let actions = b.first_legal(9);
            v.step(&actions, &mut b.batch()).unwrap();
            assert!(b.rewards.iter().all(|&r| r <= 0.0));
        }
    }
}
