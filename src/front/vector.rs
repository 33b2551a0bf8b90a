//! Environments of one game stepped in Rust: the engine of the Python package's Gymnasium
//! environments, the single one (`solvedgym/<Name>-v0`, one environment) and the vector one
//! (many), so that both play the same episodes from the same seeds and Python pays its
//! per-call cost once per batch rather than once per move.
//!
//! Each environment is a [`crate::core::env::Env`]: the learner holds one seat, computer
//! players (or a caller's [`ExternalPlayer`], such as a Python callable) hold the others, and
//! chance is drawn from the environment's own seeded stream. Episode `k` of an environment
//! seeded with `s` draws from a stream seeded by `derive_seed(s, k)`, so an episode is the
//! same whatever came before it in its environment, and the moves of the episode so far are
//! all it takes to make it again ([`DynVector::snapshot`], [`DynVector::restore`]).
//!
//! What happens when an episode ends is the [`Autoreset`] mode: Gymnasium's "next step" (the
//! next call starts another, ignoring its action), "same step" (another starts at once, its
//! first observation returned and the last one put aside), or none (the single environment:
//! a step after the end is an error until `reset`). At an episode's last observation every
//! action is marked legal (no action is asked for there), so a masked policy never meets an
//! empty mask.

use std::sync::{Arc, Mutex};

use crate::ai::players::{check_fuzz, computer_player};
use crate::core::env::{Env, EnvError};
use crate::core::game::{Action, Game, Player};
use crate::core::policy::Policy;
use crate::core::random::{SgRng, derive_seed};
use crate::truth::oracle::Oracle;

use super::crew::{Crew, Part};
use super::{DynGame, DynState, FrontError, solve_for_optimal};

/// The stream of [`DynVector::sample_legal`], apart from the environments' own.
const SAMPLE_STREAM: u64 = 0x5A3D_1E9A_11C7_0F42;

/// What happens when an episode ends (Gymnasium's `AutoresetMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Autoreset {
    /// The call that ends an episode returns its last observation; the next call starts
    /// another there and ignores the action given for it (reward 0, not done).
    NextStep,
    /// The call that ends an episode starts another at once: it returns the new episode's
    /// first observation, with the ended episode's reward and flags, and the last observation
    /// in [`Batch::final_observations`].
    SameStep,
    /// The episode stays over: a step is an error until it is reset (the single environment).
    Off,
}

/// Where one call writes its results: row `i` of each belongs to environment `i`.
pub struct Batch<'a> {
    /// `num_envs x observation_len`: the learner's observation.
    pub observations: &'a mut [f32],
    /// `num_envs x num_distinct_actions`: the learner's legal actions (every action at an
    /// episode's last observation, where no action is asked for).
    pub masks: &'a mut [bool],
    /// The learner's reward for the step (its return at the end, 0 before).
    pub rewards: &'a mut [f64],
    pub terminated: &'a mut [bool],
    pub truncated: &'a mut [bool],
    /// Set where the learner's action was illegal and lost (illegal actions lose).
    pub illegal: &'a mut [bool],
    /// In the [`Autoreset::SameStep`] mode, `num_envs x observation_len`: the last
    /// observation of each episode that ended in this call (other rows are left as they are).
    pub final_observations: Option<&'a mut [f32]>,
}

/// A player outside the library, such as a Python callable: asked for the move of `seat` at
/// `state` (a position of `game` where `seat` is to move). An error stops the episode (the
/// environment must be reset) and is returned by the call that asked.
pub trait ExternalPlayer: Send + Sync {
    fn choose(&self, game: &DynGame, state: &DynState, seat: Player) -> Result<i64, FrontError>;
}

/// Who plays the seats other than the learner's.
pub enum OpponentSpec<'a> {
    /// A computer player by name, as [`DynGame::computer`] names them.
    Computer(&'a str),
    /// A player outside the library.
    External(Arc<dyn ExternalPlayer>),
}

/// An environment's episode as its moves: what [`DynVector::restore`] plays again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpisodeRecord {
    /// The environment's seed, and the number of its episode (`None` before its first reset).
    pub seed: u64,
    pub episode: Option<u64>,
    /// The learner's actions in this episode, in order (an illegal one that lost included).
    pub moves: Vec<i64>,
    /// The answers of the external players in this episode, in order.
    pub answers: Vec<i64>,
    /// The episode is over and waits for the next step or a reset.
    pub ended: bool,
    /// An external player failed: only a reset goes on.
    pub broken: bool,
}

/// `num_envs` environments of one game, seat and opponent (see the module's help).
pub struct DynVector {
    inner: Box<dyn Stepper>,
    game: DynGame,
    num_envs: usize,
    observation_len: usize,
    num_actions: usize,
    autoreset: Autoreset,
}

/// The environments of one game type behind one type.
trait Stepper: Send {
    fn reset(
        &mut self,
        seeds: &[Option<u64>],
        which: Option<&[bool]>,
        out: &mut Batch<'_>,
    ) -> Result<(), FrontError>;
    fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError>;
    fn state(&self, i: usize) -> DynState;
    fn snapshot(&self) -> Vec<EpisodeRecord>;
    fn sample_legal(&mut self, draw: u64, out: &mut [i64]);
    fn restore(&mut self, records: &[EpisodeRecord]) -> Result<(), FrontError>;
    fn set_threads(&mut self, threads: usize, part_min: usize);
    fn parts(&self) -> usize;
}

/// The threads a step may take unless told: the cores this process may run on.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
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

/// What an environment's external players did in its episode: their answers (played again
/// from `replay` first when an episode is made again), and the error that stopped it.
#[derive(Default)]
struct Answers {
    /// Off until the environment's first reset: the environment plays its opponents' first
    /// moves when it is made, and an external player is not asked before the caller resets.
    live: bool,
    replay: std::collections::VecDeque<i64>,
    given: Vec<i64>,
    failed: Option<FrontError>,
}

/// An [`ExternalPlayer`] at one seat of one environment, as a [`Policy`].
struct External {
    player: Arc<dyn ExternalPlayer>,
    game: DynGame,
    seat: Player,
    answers: Arc<Mutex<Answers>>,
}

impl<G: Game> Policy<G> for External {
    fn name(&self) -> String {
        "external".to_string()
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        _rng: &mut SgRng,
    ) -> Option<Action> {
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        if answers.failed.is_some() || !answers.live {
            return None;
        }
        let answer = match answers.replay.pop_front() {
            Some(a) => Ok(a),
            None => {
                // Not holding the lock while the player runs (it may take long, or call back).
                drop(answers);
                let got = self
                    .player
                    .choose(&self.game, &self.game.wrap(state.clone()), self.seat);
                answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
                got
            }
        };
        let answer = answer.and_then(|a| {
            Action::try_from(a)
                .ok()
                .filter(|a| legal.binary_search(a).is_ok())
                .map(|action| (a, action))
                .ok_or_else(|| FrontError::Illegal(game.illegal(state, a.to_string())))
        });
        match answer {
            Ok((a, action)) => {
                answers.given.push(a);
                Some(action)
            }
            Err(e) => {
                // The seat resigns to stop the episode where it stands; the error is returned.
                answers.failed = Some(e);
                None
            }
        }
    }
}

/// One environment and where its episode stands.
struct Slot<G: Game> {
    env: Env<'static, G>,
    record: EpisodeRecord,
    /// The answers of its external players (none without them).
    answers: Option<Arc<Mutex<Answers>>>,
}

struct Envs<G: Game> {
    slots: Vec<Slot<G>>,
    /// What each environment's next step admits, kept beside the slots (a few bytes each) so
    /// that a step's check of every action before any moves reads no slot: at 8,192
    /// environments the slots outgrow the cache, and a check that read them cost a seventh of
    /// the step. Made again after every change of a slot (by its write, or [`Envs::refresh`]);
    /// debug builds check it against the slot at every step.
    gates: Vec<Gate>,
    /// A player outside the library plays: every step on the caller's thread.
    external: bool,
    /// The most threads a step takes, each with `part_min` environments or more.
    threads: usize,
    part_min: usize,
    /// The threads of its steps beside the caller's: made at the first step that takes more
    /// than one, kept for the next, made again in a forked copy of the process.
    crew: Option<Crew>,
    rules: Rules,
    game: DynGame,
}

/// What an environment's next step admits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gate {
    /// No step: the episode is over (or never started, or broken).
    Refuse,
    /// Any action: none is asked for (the episode waits for its next-step reset, or ended
    /// before the learner's move), or illegal actions lose.
    Any,
    /// The legal actions, as bits (every action below 64).
    Legal(u64),
    /// Look at the slot: an action of 64 or more is legal.
    Slot,
}

impl Gate {
    /// `Some(admitted)` where the gate decides alone.
    #[inline]
    fn admits(self, action: i64) -> Option<bool> {
        match self {
            Gate::Refuse => Some(false),
            Gate::Any => Some(true),
            Gate::Legal(bits) => Some((0..64).contains(&action) && bits >> action & 1 == 1),
            Gate::Slot => None,
        }
    }
}

/// How one step of one environment ended.
struct Played {
    reward: f64,
    terminated: bool,
    truncated: bool,
    illegal: bool,
}

impl<G: Game> Slot<G> {
    /// An external player's error, taken (the episode is then broken).
    fn failure(&mut self) -> Option<FrontError> {
        let answers = self.answers.as_ref()?;
        let mut answers = answers.lock().unwrap_or_else(|e| e.into_inner());
        let e = answers.failed.take()?;
        self.record.broken = true;
        Some(e)
    }

    /// Starts episode `episode` of seed `seed`, the external players answering from `replay`
    /// first.
    fn start(&mut self, seed: u64, episode: u64, replay: &[i64]) -> Result<(), FrontError> {
        if let Some(answers) = &self.answers {
            let mut answers = answers.lock().unwrap_or_else(|e| e.into_inner());
            answers.replay = replay.iter().copied().collect();
            answers.given.clear();
            answers.failed = None;
            answers.live = true;
        }
        // The record's lists are cleared, not made anew: an episode is a few steps, and a
        // fresh list would cost an allocation per episode.
        let record = &mut self.record;
        (record.seed, record.episode) = (seed, Some(episode));
        record.moves.clear();
        record.answers.clear();
        (record.ended, record.broken) = (false, false);
        self.env.reset(Some(derive_seed(seed, episode)));
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The next episode of the environment's seed.
    fn restart(&mut self) -> Result<(), FrontError> {
        let next = self.record.episode.map_or(0, |k| k.wrapping_add(1));
        self.start(self.record.seed, next, &[])
    }

    fn legal(&self, a: i64) -> Option<Action> {
        Action::try_from(a)
            .ok()
            .filter(|a| self.env.legal_actions().binary_search(a).is_ok())
    }

    /// Plays the learner's `action` (legal, or losing when illegal actions lose).
    fn play(&mut self, action: i64) -> Result<Played, FrontError> {
        self.record.moves.push(action);
        if self.env.is_done() {
            // The episode ended before the learner's first move (an opponent resigned, or the
            // game ended in the plies before the learner's seat): the reset showed its last
            // observation with every action legal, and this step tells how it ended; the
            // action plays nothing.
            self.record.ended = true;
            return Ok(Played {
                reward: self.env.reward(),
                terminated: self.env.terminated(),
                truncated: self.env.truncated(),
                illegal: false,
            });
        }
        let played = match self.legal(action) {
            Some(a) => {
                self.env.act(a).map_err(|e| match e {
                    EnvError::Illegal(e) => FrontError::Illegal(e),
                    e => FrontError::Refused(e.to_string()),
                })?;
                if let Some(e) = self.failure() {
                    return Err(e);
                }
                Played {
                    reward: self.env.reward(),
                    terminated: self.env.terminated(),
                    truncated: self.env.truncated(),
                    illegal: false,
                }
            }
            // The "illegal move loses" rule: the episode ends where it stood.
            None => Played {
                reward: -1.0,
                terminated: true,
                truncated: false,
                illegal: true,
            },
        };
        self.record.ended = played.terminated || played.truncated || self.env.is_done();
        Ok(played)
    }
}

/// The rules every environment of a batch plays by.
#[derive(Clone, Copy)]
struct Rules {
    /// An illegal action ends the episode with reward -1 instead of being an error.
    illegal_loses: bool,
    seat: Player,
    autoreset: Autoreset,
}

/// Environments a step gives to one thread: each takes at least this many (below it, making
/// the thread costs about what it saves).
const PART_MIN: usize = 2048;

impl<G: Game> Slot<G> {
    /// Writes the environment's observation and mask to row `i` of `out`, and returns its gate
    /// (its legal actions are in the cache from the mask just written).
    fn write(&self, rules: Rules, i: usize, out: &mut Batch<'_>) -> Gate {
        let game = self.env.game();
        let n = game.observation_len();
        game.observe(
            self.env.state(),
            rules.seat,
            &mut out.observations[i * n..(i + 1) * n],
        );
        let a = game.num_distinct_actions();
        let mask = &mut out.masks[i * a..(i + 1) * a];
        if self.record.ended || self.record.broken || self.env.is_done() {
            mask.fill(true);
        } else {
            mask.fill(false);
            for &action in self.env.legal_actions() {
                mask[action as usize] = true;
            }
        }
        self.gate(rules)
    }

    /// What the environment's next step admits ([`Envs::check`] says why where it refuses).
    fn gate(&self, rules: Rules) -> Gate {
        let waits = self.record.ended && rules.autoreset == Autoreset::NextStep;
        if self.record.episode.is_none() || self.record.broken || (self.record.ended && !waits) {
            return Gate::Refuse;
        }
        if waits || self.env.is_done() || rules.illegal_loses {
            return Gate::Any;
        }
        let mut bits = 0u64;
        for &a in self.env.legal_actions() {
            if a >= 64 {
                return Gate::Slot;
            }
            bits |= 1 << a;
        }
        Gate::Legal(bits)
    }

    /// The environment's part of a step (its action checked already), written to row `i` of
    /// `out`, its gate made again (by the caller after an error).
    fn step(
        &mut self,
        gate: &mut Gate,
        rules: Rules,
        i: usize,
        action: i64,
        out: &mut Batch<'_>,
    ) -> Result<(), FrontError> {
        out.clear(i);
        if self.record.ended {
            // Next-step autoreset: this call starts the next episode.
            self.restart()?;
            *gate = self.write(rules, i, out);
            return Ok(());
        }
        let played = self.play(action)?;
        out.rewards[i] = played.reward;
        out.terminated[i] = played.terminated;
        out.truncated[i] = played.truncated;
        out.illegal[i] = played.illegal;
        *gate = self.write(rules, i, out);
        if self.record.ended && rules.autoreset == Autoreset::SameStep {
            if let Some(finals) = out.final_observations.as_deref_mut() {
                let n = self.env.game().observation_len();
                finals[i * n..(i + 1) * n].copy_from_slice(&out.observations[i * n..(i + 1) * n]);
            }
            self.restart()?;
            *gate = self.write(rules, i, out);
        }
        Ok(())
    }

    /// The uniformly random legal action of [`DynVector::sample_legal`].
    fn sample_legal(&self, draw: u64) -> i64 {
        let record = &self.record;
        let legal = self.env.legal_actions();
        match record.episode {
            Some(episode) if !legal.is_empty() && !record.ended && !record.broken => {
                // A function of the environment's seed, its episode, the moves made in it and
                // the draw: nothing to keep, so a copy of the environments draws as the
                // original would.
                let key = derive_seed(
                    derive_seed(derive_seed(record.seed, SAMPLE_STREAM), episode),
                    draw ^ (record.moves.len() as u64).rotate_left(40),
                );
                let k = ((u128::from(key) * legal.len() as u128) >> 64) as usize;
                i64::from(legal[k])
            }
            // No action is asked for: every action is legal, and none moves anything.
            _ => 0,
        }
    }
}

impl Batch<'_> {
    /// The same rows, borrowed for a shorter time.
    fn reborrow(&mut self) -> Batch<'_> {
        Batch {
            observations: &mut *self.observations,
            masks: &mut *self.masks,
            rewards: &mut *self.rewards,
            terminated: &mut *self.terminated,
            truncated: &mut *self.truncated,
            illegal: &mut *self.illegal,
            final_observations: self.final_observations.as_deref_mut(),
        }
    }

    fn clear(&mut self, i: usize) {
        self.rewards[i] = 0.0;
        self.terminated[i] = false;
        self.truncated[i] = false;
        self.illegal[i] = false;
    }

    /// Rows `..k` and rows `k..`, for observations of `obs` numbers and `actions` actions.
    fn split_at(self, k: usize, obs: usize, actions: usize) -> (Self, Self) {
        let (o0, o1) = self.observations.split_at_mut(k * obs);
        let (m0, m1) = self.masks.split_at_mut(k * actions);
        let (r0, r1) = self.rewards.split_at_mut(k);
        let (te0, te1) = self.terminated.split_at_mut(k);
        let (tr0, tr1) = self.truncated.split_at_mut(k);
        let (i0, i1) = self.illegal.split_at_mut(k);
        let (f0, f1) = match self.final_observations {
            Some(f) => {
                let (f0, f1) = f.split_at_mut(k * obs);
                (Some(f0), Some(f1))
            }
            None => (None, None),
        };
        let part = |observations, masks, rewards, terminated, truncated, illegal, finals| Batch {
            observations,
            masks,
            rewards,
            terminated,
            truncated,
            illegal,
            final_observations: finals,
        };
        (
            part(o0, m0, r0, te0, tr0, i0, f0),
            part(o1, m1, r1, te1, tr1, i1, f1),
        )
    }
}

/// Steps the environments of `slots` (row `i` of `out` the environment `slots[i]`).
fn step_rows<G: Game>(
    slots: &mut [Slot<G>],
    gates: &mut [Gate],
    rules: Rules,
    actions: &[i64],
    out: &mut Batch<'_>,
) -> Result<(), FrontError> {
    let rows = slots.iter_mut().zip(gates.iter_mut()).zip(actions);
    for (i, ((slot, gate), &action)) in rows.enumerate() {
        if let Err(e) = slot.step(gate, rules, i, action, out) {
            // The gate is made by the step's write; an error may leave the slot elsewhere.
            *gate = slot.gate(rules);
            return Err(e);
        }
    }
    Ok(())
}

impl<G: Game> Envs<G> {
    /// Writes environment `i`'s observation and mask, and makes its gate.
    fn write(&mut self, i: usize, out: &mut Batch<'_>) {
        self.gates[i] = self.slots[i].write(self.rules, i, out);
    }

    /// Whether environment `i` takes `action` in its next step: the error a step gives if not.
    fn check(&self, i: usize, action: i64) -> Result<(), FrontError> {
        let slot = &self.slots[i];
        match slot.gate(self.rules) {
            Gate::Refuse => Err(FrontError::Refused(format!(
                "environment {i}: the episode is over: call reset()"
            ))),
            Gate::Any => Ok(()),
            _ if slot.legal(action).is_some() => Ok(()),
            _ => {
                let env = &slot.env;
                let source = env.game().illegal(env.state(), action.to_string());
                Err(FrontError::IllegalIn { env: i, source })
            }
        }
    }

    /// After environment `i` changed: its gate made again.
    fn refresh(&mut self, i: usize) {
        self.gates[i] = self.slots[i].gate(self.rules);
    }

    /// The crew for `parts` parts (one fewer threads: the caller steps a part), made if need
    /// be; `None` for one part or where the system gives no threads.
    fn crew(crew: &mut Option<Crew>, parts: usize) -> Option<&mut Crew> {
        if parts < 2 {
            return None;
        }
        if crew
            .as_ref()
            .is_none_or(|c| !c.is_here() || c.size() != parts - 1)
        {
            // The old crew stops its threads as it drops (a forked copy's has none to stop).
            crew.take();
            *crew = Crew::new(parts - 1);
        }
        crew.as_mut()
    }

    /// How many threads a step of the batch takes: one where a player outside the library
    /// plays (a Python callable holds the interpreter), else up to `threads`, each with at
    /// least `part_min` environments.
    fn parts(&self) -> usize {
        if self.external {
            return 1;
        }
        self.threads
            .min(self.slots.len() / self.part_min.max(1))
            .max(1)
    }
}

impl<G: Game> Stepper for Envs<G> {
    fn reset(
        &mut self,
        seeds: &[Option<u64>],
        which: Option<&[bool]>,
        out: &mut Batch<'_>,
    ) -> Result<(), FrontError> {
        for i in 0..self.slots.len() {
            out.clear(i);
            if which.is_none_or(|w| w[i]) {
                let slot = &mut self.slots[i];
                let started = match seeds[i] {
                    Some(seed) => slot.start(seed, 0, &[]),
                    None => slot.restart(),
                };
                if let Err(e) = started {
                    self.refresh(i);
                    return Err(e);
                }
            }
            self.write(i, out);
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError> {
        // Every action is checked before any environment moves: an error leaves all as they
        // were.
        for (i, (&gate, &action)) in self.gates.iter().zip(actions).enumerate() {
            let admitted = gate.admits(action);
            debug_assert!(
                admitted.is_none_or(|a| a == self.check(i, action).is_ok()),
                "environment {i}: gate {gate:?} is stale"
            );
            if admitted != Some(true) {
                self.check(i, action)?;
            }
        }
        let parts = self.parts();
        let rules = self.rules;
        let Some(crew) = Envs::<G>::crew(&mut self.crew, parts) else {
            return step_rows(&mut self.slots, &mut self.gates, rules, actions, out);
        };
        // Each thread steps rows of its own. Errors come in the order of the parts (an error
        // is a failing player outside the library, which keeps to one thread).
        let (obs, acts) = (
            self.game.observation_len(),
            self.game.num_distinct_actions(),
        );
        let size = self.slots.len().div_ceil(parts);
        let mut batches = Vec::with_capacity(parts);
        let mut rest = out.reborrow();
        while rest.rewards.len() > size {
            let (part, more) = rest.split_at(size, obs, acts);
            batches.push(part);
            rest = more;
        }
        batches.push(rest);
        let mut results: Vec<Result<(), FrontError>> = Vec::with_capacity(parts);
        results.resize_with(parts, || Ok(()));
        let work: Vec<Part<'_>> = self
            .slots
            .chunks_mut(size)
            .zip(self.gates.chunks_mut(size))
            .zip(actions.chunks(size))
            .zip(batches)
            .zip(&mut results)
            .map(|((((slots, gates), actions), mut batch), result)| {
                Box::new(move || *result = step_rows(slots, gates, rules, actions, &mut batch))
                    as Part<'_>
            })
            .collect();
        crew.run(work);
        results.into_iter().collect()
    }

    fn state(&self, i: usize) -> DynState {
        self.game.wrap(self.slots[i].env.state().clone())
    }

    fn sample_legal(&mut self, draw: u64, out: &mut [i64]) {
        let sample = |slots: &[Slot<G>], out: &mut [i64]| {
            for (slot, out) in slots.iter().zip(out) {
                *out = slot.sample_legal(draw);
            }
        };
        let parts = self.parts();
        let Some(crew) = Envs::<G>::crew(&mut self.crew, parts) else {
            return sample(&self.slots, out);
        };
        let size = self.slots.len().div_ceil(parts);
        let work: Vec<Part<'_>> = self
            .slots
            .chunks(size)
            .zip(out.chunks_mut(size))
            .map(|(slots, out)| Box::new(move || sample(slots, out)) as Part<'_>)
            .collect();
        crew.run(work);
    }

    fn snapshot(&self) -> Vec<EpisodeRecord> {
        self.slots
            .iter()
            .map(|slot| {
                let mut record = slot.record.clone();
                if let Some(answers) = &slot.answers {
                    let answers = answers.lock().unwrap_or_else(|e| e.into_inner());
                    record.answers = answers.given.clone();
                }
                record
            })
            .collect()
    }

    fn set_threads(&mut self, threads: usize, part_min: usize) {
        (self.threads, self.part_min) = (threads.max(1), part_min.max(1));
    }

    fn parts(&self) -> usize {
        Envs::parts(self)
    }

    fn restore(&mut self, records: &[EpisodeRecord]) -> Result<(), FrontError> {
        let restored = self.restore_slots(records);
        for i in 0..self.slots.len() {
            self.refresh(i);
        }
        restored
    }
}

impl<G: Game> Envs<G> {
    fn restore_slots(&mut self, records: &[EpisodeRecord]) -> Result<(), FrontError> {
        for (i, (slot, record)) in self.slots.iter_mut().zip(records).enumerate() {
            let again = |e: FrontError| {
                FrontError::Refused(format!(
                    "environment {i}: its episode does not play again ({e}): is the opponent \
                     the one it was played against?"
                ))
            };
            let Some(episode) = record.episode else {
                slot.record = EpisodeRecord {
                    seed: record.seed,
                    ..EpisodeRecord::default()
                };
                continue;
            };
            slot.start(record.seed, episode, &record.answers)
                .map_err(again)?;
            // An episode an external player broke is played up to the move before it broke.
            let moves = if record.broken {
                &record.moves[..record.moves.len().saturating_sub(1)]
            } else {
                &record.moves[..]
            };
            for &m in moves {
                let asked = !slot.env.is_done();
                if slot.record.ended
                    || (asked && !self.rules.illegal_loses && slot.legal(m).is_none())
                {
                    return Err(again(FrontError::Refused(format!("move {m}"))));
                }
                slot.play(m).map_err(again)?;
            }
            slot.record.broken = record.broken;
            slot.record.moves = record.moves.clone();
            if slot.record.ended != record.ended {
                return Err(again(FrontError::Refused("the end".into())));
            }
        }
        Ok(())
    }
}

impl DynVector {
    /// `num_envs` environments of `game`: the learner plays `seat`, `opponent` with `fuzz`
    /// every other seat (`optimal` solves the game once for all), episodes end as `autoreset`
    /// says. Seeded by [`DynVector::reset`].
    pub fn new(
        game: &DynGame,
        num_envs: usize,
        seat: i64,
        opponent: OpponentSpec<'_>,
        fuzz: f64,
        illegal_loses: bool,
        autoreset: Autoreset,
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
        let per_env = 4 * obs + actions + 8 + 3;
        if num_envs.saturating_mul(per_env) > MAX_BYTES {
            return Err(FrontError::Refused(format!(
                "num_envs = {num_envs}: each step's arrays would take {} bytes ({num_envs} x \
                 ({obs} observation floats x 4 + {actions} mask bytes + 11)); at most {MAX_BYTES}",
                num_envs.saturating_mul(per_env)
            )));
        }
        let seat = game.seat(seat)?;
        let refused = |e: anyhow::Error| FrontError::Refused(format!("{e:#}"));
        check_fuzz(fuzz).map_err(refused)?;
        let inner: Box<dyn Stepper> = with_game!(&game.game, g => {
            // One player per seat, shared by every environment (each draws from its own
            // environment's stream).
            let shared: Option<Arc<dyn Policy<_>>> = match &opponent {
                OpponentSpec::Computer("optimal") => Some(Arc::new(SharedOptimal {
                    oracle: Arc::from(solve_for_optimal(g)?),
                    fuzz,
                })),
                OpponentSpec::Computer(ai) => {
                    Some(Arc::from(computer_player(g, ai, fuzz, None).map_err(refused)?))
                }
                OpponentSpec::External(_) => None,
            };
            let mut slots = Vec::with_capacity(num_envs);
            for _ in 0..num_envs {
                let answers = match &opponent {
                    OpponentSpec::External(_) => Some(Arc::new(Mutex::new(Answers::default()))),
                    OpponentSpec::Computer(_) => None,
                };
                let mut opponents: Vec<Option<Box<dyn Policy<_>>>> = Vec::new();
                for p in 0..g.num_players() {
                    opponents.push(match (&opponent, &shared, &answers) {
                        _ if p == seat => None,
                        (_, Some(policy), _) => Some(Box::new(policy.clone())),
                        (OpponentSpec::External(player), _, Some(answers)) => Some(Box::new(External {
                            player: player.clone(),
                            game: game.clone(),
                            seat: p,
                            answers: answers.clone(),
                        })),
                        _ => unreachable!("a computer player or an external one"),
                    });
                }
                #[allow(clippy::clone_on_copy)] // some games are Copy, others not
                let env = Env::with_opponents(g.clone(), seat, opponents, 0)
                    .map_err(|e| FrontError::Refused(e.to_string()))?;
                slots.push(Slot {
                    env,
                    record: EpisodeRecord::default(),
                    answers,
                });
            }
            Box::new(Envs {
                gates: vec![Gate::Refuse; slots.len()],
                external: matches!(opponent, OpponentSpec::External(_)),
                threads: default_threads(),
                part_min: PART_MIN,
                crew: None,
                slots,
                rules: Rules {
                    illegal_loses,
                    seat,
                    autoreset,
                },
                game: game.clone(),
            })
        });
        Ok(DynVector {
            inner,
            game: game.clone(),
            num_envs,
            observation_len: game.observation_len(),
            num_actions: game.num_distinct_actions(),
            autoreset,
        })
    }

    pub fn num_envs(&self) -> usize {
        self.num_envs
    }

    pub fn autoreset(&self) -> Autoreset {
        self.autoreset
    }

    /// Starts environments afresh: each of `which` (every one when `None`), environment `i`
    /// with seed `seeds[i]`, or with the next episode of its seed where that is `None`. The
    /// others keep their episode and their observation.
    pub fn reset(
        &mut self,
        seeds: &[Option<u64>],
        which: Option<&[bool]>,
        out: &mut Batch<'_>,
    ) -> Result<(), FrontError> {
        self.check(seeds.len(), "seeds", out)?;
        if let Some(which) = which {
            self.check(which.len(), "reset_mask", out)?;
        }
        self.inner.reset(seeds, which, out)
    }

    /// Plays `actions[i]` in environment `i` (ignored where its episode ended at the last
    /// call in the next-step mode: it starts again). An illegal action is an error and no
    /// environment moves, unless illegal actions lose; so is a step of an episode that is over
    /// where none starts by itself.
    pub fn step(&mut self, actions: &[i64], out: &mut Batch<'_>) -> Result<(), FrontError> {
        self.check(actions.len(), "actions", out)?;
        let finals = out.final_observations.as_ref().map(|f| f.len());
        let want = self.num_envs * self.observation_len;
        if (self.autoreset == Autoreset::SameStep) != finals.is_some()
            || finals.unwrap_or(want) != want
        {
            return Err(FrontError::Refused(format!(
                "final observations: {want} numbers in the same-step mode, none in the others"
            )));
        }
        self.inner.step(actions, out)
    }

    /// The position of environment `i`.
    pub fn state(&self, i: usize) -> Result<DynState, FrontError> {
        if i >= self.num_envs {
            return Err(FrontError::Refused(format!(
                "environment {i}: there are {}",
                self.num_envs
            )));
        }
        Ok(self.inner.state(i))
    }

    /// The game.
    pub fn game(&self) -> &DynGame {
        &self.game
    }

    /// A uniformly random legal action of every environment (0 where an episode is over and no
    /// action is asked for), written to `out`: draw `draw` of a stream of its own, a function
    /// of each environment's seed, episode and moves (the environments' own streams, and so
    /// their episodes, are left as they are). A caller draws again with another `draw`.
    pub fn sample_legal(&mut self, draw: u64, out: &mut [i64]) -> Result<(), FrontError> {
        if out.len() != self.num_envs {
            return Err(FrontError::Refused(format!(
                "actions: {} numbers for {} environments",
                out.len(),
                self.num_envs
            )));
        }
        self.inner.sample_legal(draw, out);
        Ok(())
    }

    /// Lets a step (and [`DynVector::sample_legal`]) take up to `threads` threads, each with
    /// 2,048 environments or more, and never more than the process has cores (`None`: as many
    /// as it has, the default; a thread more would only wait for a core, spinning).
    /// The results are the same whatever the number: each environment is stepped by one
    /// thread, from its own stream. A player outside the library keeps every step on the
    /// caller's thread.
    pub fn set_threads(&mut self, threads: Option<usize>) {
        let cores = default_threads();
        self.inner
            .set_threads(threads.map_or(cores, |t| t.min(cores)), PART_MIN);
    }

    /// The threads a step of these environments takes.
    pub fn threads(&self) -> usize {
        self.inner.parts()
    }

    /// [`DynVector::set_threads`] with parts of at least `part_min` environments (tests).
    #[cfg(test)]
    fn set_parts(&mut self, threads: usize, part_min: usize) {
        self.inner.set_threads(threads, part_min);
    }

    /// Every environment's episode as its moves.
    pub fn snapshot(&self) -> Vec<EpisodeRecord> {
        self.inner.snapshot()
    }

    /// Plays the episodes of `records` (a [`DynVector::snapshot`] of environments of the same
    /// game, seat and opponents) again, so that each environment goes on as it would have.
    pub fn restore(&mut self, records: &[EpisodeRecord]) -> Result<(), FrontError> {
        if records.len() != self.num_envs {
            return Err(FrontError::Refused(format!(
                "{} episodes for {} environments",
                records.len(),
                self.num_envs
            )));
        }
        self.inner.restore(records)
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
            (out.illegal.len(), n, "illegal"),
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
        illegal: Vec<bool>,
        finals: Option<Vec<f32>>,
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
                illegal: vec![false; n],
                finals: (v.autoreset() == Autoreset::SameStep)
                    .then(|| vec![0.0; n * v.observation_len]),
            }
        }
        fn batch(&mut self) -> Batch<'_> {
            Batch {
                observations: &mut self.obs,
                masks: &mut self.masks,
                rewards: &mut self.rewards,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
                illegal: &mut self.illegal,
                final_observations: self.finals.as_deref_mut(),
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

    fn vector(game: &DynGame, n: usize, ai: &str, autoreset: Autoreset) -> DynVector {
        DynVector::new(
            game,
            n,
            0,
            OpponentSpec::Computer(ai),
            0.0,
            false,
            autoreset,
        )
        .unwrap()
    }

    #[test]
    fn episodes_end_restart_and_an_illegal_action_moves_nothing() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut v = vector(&game, 3, "random", Autoreset::NextStep);
        let mut b = Buffers::new(&v);
        v.reset(&[Some(1), Some(2), Some(3)], None, &mut b.batch())
            .unwrap();
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
        let new = |g: &DynGame, n, seat, ai| {
            DynVector::new(
                g,
                n,
                seat,
                OpponentSpec::Computer(ai),
                0.0,
                false,
                Autoreset::NextStep,
            )
        };
        assert!(new(&game, 0, 0, "random").is_err());
        let big = DynGame::new("hackenbush", toml::toml! { random = 2 edges = 4096 }).unwrap();
        let e = new(&big, 1 << 20, 0, "random").err().unwrap();
        assert!(e.to_string().contains("at most 8589934592"), "{e}");
        assert!(new(&game, 2, 2, "random").is_err());
        assert!(new(&game, 2, 0, "greedy").is_err());
        assert!(
            v.step(&[0, 0], &mut b.batch()).is_err(),
            "three environments"
        );
    }

    #[test]
    fn perfect_play_inside_never_loses() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut v = DynVector::new(
            &game,
            16,
            1,
            OpponentSpec::Computer("optimal"),
            0.0,
            false,
            Autoreset::NextStep,
        )
        .unwrap();
        let mut b = Buffers::new(&v);
        let seeds: Vec<_> = (0..16).map(Some).collect();
        v.reset(&seeds, None, &mut b.batch()).unwrap();
        for _ in 0..30 {
            let actions = b.first_legal(9);
            v.step(&actions, &mut b.batch()).unwrap();
            assert!(b.rewards.iter().all(|&r| r <= 0.0));
        }
    }

    #[test]
    fn same_step_mode_starts_at_once_and_a_snapshot_plays_again() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let (mut next, mut same) = (
            vector(&game, 1, "random", Autoreset::NextStep),
            vector(&game, 1, "random", Autoreset::SameStep),
        );
        let (mut bn, mut bs) = (Buffers::new(&next), Buffers::new(&same));
        next.reset(&[Some(5)], None, &mut bn.batch()).unwrap();
        same.reset(&[Some(5)], None, &mut bs.batch()).unwrap();
        let mut copy = None;
        let mut after = Vec::new();
        let mut ends = 0;
        for t in 0..60 {
            let actions = bn.first_legal(9);
            next.step(&actions, &mut bn.batch()).unwrap();
            same.step(&actions, &mut bs.batch()).unwrap();
            assert_eq!(
                (bn.rewards[0], bn.terminated[0], bn.truncated[0]),
                (bs.rewards[0], bs.terminated[0], bs.truncated[0])
            );
            if bn.terminated[0] || bn.truncated[0] {
                ends += 1;
                assert_eq!(bs.finals.as_ref().unwrap(), &bn.obs);
                assert!(
                    bn.masks.iter().all(|&m| m),
                    "every action at the last observation"
                );
                // The next-step vector starts the episode at its next call, whatever the action.
                next.step(&[99], &mut bn.batch()).unwrap();
                assert_eq!(bn.rewards[0], 0.0);
            }
            assert_eq!((&bn.obs, &bn.masks), (&bs.obs, &bs.masks));
            if copy.is_some() {
                after.push((actions, bs.obs.clone(), bs.rewards.clone()));
            }
            if t == 7 {
                copy = Some(same.snapshot());
            }
        }
        assert!(ends > 5);
        // A snapshot made again goes on as the original went on.
        let records = copy.unwrap();
        let mut a = vector(&game, 1, "random", Autoreset::SameStep);
        let mut ba = Buffers::new(&a);
        a.restore(&records).unwrap();
        assert_eq!(a.snapshot(), records);
        for (actions, obs, rewards) in after {
            a.step(&actions, &mut ba.batch()).unwrap();
            assert_eq!((ba.obs.clone(), ba.rewards.clone()), (obs, rewards));
        }
    }

    #[test]
    fn reset_of_some_environments_keeps_the_others() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let mut v = vector(&game, 3, "random", Autoreset::Off);
        let mut b = Buffers::new(&v);
        v.reset(&[Some(1), Some(2), Some(3)], None, &mut b.batch())
            .unwrap();
        v.step(&b.first_legal(9), &mut b.batch()).unwrap();
        let before = b.obs.clone();
        v.reset(
            &[None, Some(9), None],
            Some(&[false, true, false]),
            &mut b.batch(),
        )
        .unwrap();
        assert_eq!(b.obs[..27], before[..27]);
        assert_eq!(b.obs[54..], before[54..]);
        assert!(
            b.obs[27 + 18..54].iter().all(|&x| x == 1.0),
            "a fresh board"
        );
        // Without autoreset, a step after the end is refused.
        while !b.terminated.iter().chain(&b.truncated).any(|&d| d) {
            v.step(&b.first_legal(9), &mut b.batch()).unwrap();
        }
        let e = v.step(&b.first_legal(9), &mut b.batch()).unwrap_err();
        assert!(e.to_string().contains("call reset()"), "{e}");
    }

    #[test]
    fn sampled_actions_are_legal_uniform_and_leave_the_episodes_alone() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let n = 9000;
        let (mut a, mut b) = (
            vector(&game, n, "random", Autoreset::NextStep),
            vector(&game, n, "random", Autoreset::NextStep),
        );
        let (mut ba, mut bb) = (Buffers::new(&a), Buffers::new(&b));
        let seeds: Vec<_> = (0..n as u64).map(Some).collect();
        a.reset(&seeds, None, &mut ba.batch()).unwrap();
        b.reset(&seeds, None, &mut bb.batch()).unwrap();
        let mut actions = vec![0; n];
        a.sample_legal(0, &mut actions).unwrap();
        // Every first move about as often: 1,000 each expected, 3.3 standard deviations 100.
        let mut counts = [0; 9];
        actions.iter().for_each(|&x| counts[x as usize] += 1);
        assert!(
            counts.iter().all(|&c| (900..=1100).contains(&c)),
            "{counts:?}"
        );
        let mut again = vec![0; n];
        a.sample_legal(0, &mut again).unwrap();
        assert_eq!(actions, again, "a draw is a function of its number");
        a.sample_legal(1, &mut again).unwrap();
        let same = actions.iter().zip(&again).filter(|(x, y)| x == y).count();
        assert!(same < n / 5, "another draw, other actions ({same} alike)");
        assert!(a.sample_legal(0, &mut [0; 3]).is_err());
        // Played: never illegal (illegal actions are errors here); sampling changes nothing of
        // the episodes (b plays the same actions without sampling).
        for t in 0..30 {
            a.sample_legal(t, &mut actions).unwrap();
            a.step(&actions, &mut ba.batch()).unwrap();
            b.step(&actions, &mut bb.batch()).unwrap();
            assert_eq!((&ba.obs, &ba.rewards), (&bb.obs, &bb.rewards));
        }
        assert_eq!(a.snapshot(), b.snapshot());
    }

    /// A step is taken exactly when every environment's action is one its last mask marks
    /// (or illegal actions lose) and its episode is not over without a reset (the mode that
    /// does not reset): the masks handed out are the contract, and the step's own check (the
    /// gates beside the slots) must keep it through ends, resets of some environments, errors
    /// that change nothing, and a snapshot played again in another vector. Tic-tac-toe (the
    /// gate's bits) and Hase und Igel (131 actions: the slot looked at; chance between moves).
    #[test]
    fn a_step_is_taken_exactly_when_the_masks_say_so() {
        let games = [
            DynGame::new("tictactoe", toml::Table::new()).unwrap(),
            DynGame::new("hase-und-igel", toml::Table::new()).unwrap(),
        ];
        assert!(games[1].num_distinct_actions() > 64);
        let modes = [Autoreset::NextStep, Autoreset::SameStep, Autoreset::Off];
        use rand::RngExt;
        let mut rng = crate::core::random::rng(7);
        for game in &games {
            for (mode, loses) in modes.iter().flat_map(|&m| [(m, false), (m, true)]) {
                let n = 6;
                let new = || {
                    let opponent = OpponentSpec::Computer("random");
                    DynVector::new(game, n, 0, opponent, 0.0, loses, mode).unwrap()
                };
                let mut v = new();
                let mut b = Buffers::new(&v);
                let seeds: Vec<_> = (0..n as u64).map(Some).collect();
                v.reset(&seeds, None, &mut b.batch()).unwrap();
                let a = v.num_actions;
                let mut over = vec![false; n];
                let (mut taken, mut refused) = (0, 0);
                for t in 0..300 {
                    // Now and then a reset of some environments, those whose episode is over
                    // (without a reset: the mode that does not reset) among them.
                    if rng.random_bool(0.15) {
                        let which: Vec<bool> =
                            (0..n).map(|i| over[i] || rng.random_bool(0.3)).collect();
                        v.reset(&vec![None; n], Some(&which), &mut b.batch())
                            .unwrap();
                        over.iter_mut().zip(&which).for_each(|(o, &w)| *o &= !w);
                    }
                    if t == 150 {
                        // The rest is played by a copy made from the snapshot.
                        let mut copy = new();
                        copy.reset(&seeds, None, &mut Buffers::new(&copy).batch())
                            .unwrap();
                        copy.restore(&v.snapshot()).unwrap();
                        v = copy;
                    }
                    // Mostly a marked action, now and then any action at all.
                    let actions: Vec<i64> = (0..n)
                        .map(|i| {
                            let row = &b.masks[i * a..(i + 1) * a];
                            let marked: Vec<usize> = (0..a).filter(|&k| row[k]).collect();
                            if rng.random_bool(0.9) {
                                marked[rng.random_range(0..marked.len())] as i64
                            } else {
                                rng.random_range(0..a) as i64
                            }
                        })
                        .collect();
                    let expected =
                        (0..n).all(|i| !over[i] && (loses || b.masks[i * a + actions[i] as usize]));
                    let before = (b.obs.clone(), b.masks.clone());
                    let got = v.step(&actions, &mut b.batch());
                    assert_eq!(
                        got.is_ok(),
                        expected,
                        "{:?} at step {t}: {got:?}",
                        game.name()
                    );
                    if got.is_ok() {
                        taken += 1;
                        if mode == Autoreset::Off {
                            for (o, (&te, &tr)) in
                                over.iter_mut().zip(b.terminated.iter().zip(&b.truncated))
                            {
                                *o |= te || tr;
                            }
                        }
                    } else {
                        refused += 1;
                        assert_eq!((&b.obs, &b.masks), (&before.0, &before.1), "nothing moved");
                    }
                }
                assert!(
                    taken > 30 && (refused > 30 || loses),
                    "{taken} taken, {refused} refused"
                );
            }
        }
    }

    /// Threads change nothing: environments stepped in three parts (of 4, 4 and 3) give, step
    /// for step, what one thread gives: every array, every error, every sampled action and
    /// every snapshot, through ends, partial resets, refused steps and illegal actions that
    /// lose, in every autoreset mode.
    #[test]
    fn threads_change_nothing() {
        let games = [
            DynGame::new("tictactoe", toml::Table::new()).unwrap(),
            DynGame::new("hase-und-igel", toml::Table::new()).unwrap(),
        ];
        let modes = [Autoreset::NextStep, Autoreset::SameStep, Autoreset::Off];
        use rand::RngExt;
        let mut rng = crate::core::random::rng(11);
        for game in &games {
            for (mode, loses) in modes.iter().flat_map(|&m| [(m, false), (m, true)]) {
                let n = 11;
                let new = |threads: usize| {
                    let opponent = OpponentSpec::Computer("random");
                    let mut v = DynVector::new(game, n, 0, opponent, 0.0, loses, mode).unwrap();
                    v.set_parts(threads, 2);
                    v
                };
                let (mut one, mut three) = (new(1), new(3));
                assert_eq!((one.threads(), three.threads()), (1, 3));
                let (mut b1, mut b3) = (Buffers::new(&one), Buffers::new(&three));
                let seeds: Vec<_> = (0..n as u64).map(|s| Some(s * 17)).collect();
                one.reset(&seeds, None, &mut b1.batch()).unwrap();
                three.reset(&seeds, None, &mut b3.batch()).unwrap();
                let a = one.num_actions;
                let mut refused = 0;
                for t in 0..200 {
                    if rng.random_bool(0.1) {
                        let which: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
                        let none = vec![None; n];
                        one.reset(&none, Some(&which), &mut b1.batch()).unwrap();
                        three.reset(&none, Some(&which), &mut b3.batch()).unwrap();
                    }
                    let (mut s1, mut s3) = (vec![0; n], vec![0; n]);
                    one.sample_legal(t, &mut s1).unwrap();
                    three.sample_legal(t, &mut s3).unwrap();
                    assert_eq!(s1, s3, "sampled at step {t}");
                    let actions: Vec<i64> = s1
                        .iter()
                        .map(|&s| {
                            if rng.random_bool(0.97) {
                                s
                            } else {
                                rng.random_range(0..a) as i64
                            }
                        })
                        .collect();
                    let (r1, r3) = (
                        one.step(&actions, &mut b1.batch()),
                        three.step(&actions, &mut b3.batch()),
                    );
                    assert_eq!(
                        r1.as_ref().map_err(|e| e.to_string()),
                        r3.as_ref().map_err(|e| e.to_string()),
                        "step {t}"
                    );
                    refused += usize::from(r1.is_err());
                    let all = |b: &Buffers| {
                        (
                            b.obs.clone(),
                            b.masks.clone(),
                            b.rewards.clone(),
                            b.terminated.clone(),
                        )
                    };
                    assert_eq!(all(&b1), all(&b3), "{:?} step {t}", game.name());
                    assert_eq!(
                        (&b1.truncated, &b1.illegal, &b1.finals),
                        (&b3.truncated, &b3.illegal, &b3.finals)
                    );
                    if mode == Autoreset::Off && rng.random_bool(0.2) {
                        let over: Vec<bool> = b1
                            .terminated
                            .iter()
                            .zip(&b1.truncated)
                            .map(|(&a, &b)| a || b)
                            .collect();
                        let none = vec![None; n];
                        one.reset(&none, Some(&over), &mut b1.batch()).unwrap();
                        three.reset(&none, Some(&over), &mut b3.batch()).unwrap();
                    }
                }
                assert_eq!(one.snapshot(), three.snapshot());
                assert!(loses || refused > 0, "{mode:?}: no step was refused");
            }
        }
    }
}
