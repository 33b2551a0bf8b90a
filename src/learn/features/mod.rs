//! Value functions over features: semi-gradient TD(λ) on afterstate values with a function
//! approximator in place of a table, so that what is learned at one position carries to
//! positions never met.
//!
//! Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), the box
//! "Semi-gradient TD(λ) for estimating v̂ ≈ v_π" of §12.2 (accumulating traces over the
//! parameters), on afterstates (§6.8) in self-play as TD-Gammon learned (Tesauro 1995): the
//! learner plays ε-greedily on `v̂(x)` of the afterstates `x` of its legal moves (a move that
//! ends the game is valued by its return, from the rules), and moves `v̂` of its previous
//! afterstate toward the value of the next one it chooses (negated when that is the other
//! seat's, in two-player self-play: [`super::backup`]) or toward the return, γ per ply: exactly
//! the scheme of [`super::td`], whose table becomes `v̂(x; w)`.
//!
//! What an afterstate is worth is read as the mover sees it: the approximator reads the game's
//! observation (`Game::observe(after, mover)`, [`linear`], [`mlp`]) or its board cells
//! (`Game::cell_values(after, mover)`, [`ntuple`]). The approximators share [`Approximator`]:
//! a value and its gradient with respect to the parameters, which the learner [`FeatureTd`]
//! follows.
//!
//! Traces are kept sparse: the parameters with a trace, and the traces in a dense vector. A
//! trace that decays below `trace_cutoff` in size is dropped (set to 0), so that a step costs
//! the parameters of the last few positions rather than of the whole episode; `trace_cutoff =
//! 0` keeps every trace (the textbook box). Where a position's gradient touches few parameters
//! (n-tuple networks) the trace is kept as the last steps' gradients, each with its decay
//! factor (the same sum), and a step whose factor falls below `trace_cutoff` is dropped.

pub mod linear;
pub mod mlp;
pub mod ntuple;

use serde::{Deserialize, Serialize};

use super::backup::{Backup, Pending, afterstate_probabilities, discount, epsilon_greedy};
use super::saved::Snapshot;
use super::schedule::{Epsilon, Schedule};
use super::{Decision, Learner, Metric};
use crate::core::game::{Action, Game, Player, Returns};
use crate::core::policy::Policy;
use crate::core::random::SgRng;

/// How a value is squashed from the approximator's sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Output {
    /// `tanh(sum)`: values in (-1, 1), the range of the returns.
    Tanh,
    /// The sum itself.
    Linear,
}

impl Output {
    /// The value of `sum`, and its derivative.
    #[inline(always)]
    pub fn squash(self, sum: f32) -> (f32, f32) {
        match self {
            Output::Tanh => {
                let v = sum.tanh();
                (v, 1.0 - v * v)
            }
            Output::Linear => (sum, 1.0),
        }
    }
}

/// What the TD(λ) learner over features reads of its config (every feature learner's config
/// has these keys).
#[derive(Clone, Debug, PartialEq)]
pub struct TdSettings {
    pub lambda: f64,
    pub alpha: Schedule,
    pub epsilon: Schedule,
    pub gamma: f64,
    pub trace_cutoff: f64,
    pub target: Target,
}

/// What an afterstate's value moves toward (`target` in a config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The value of the move the mover plays next, exploratory or not: TD(λ) on afterstates,
    /// on-policy (Sarsa(λ) on afterstates; TD-Gammon's scheme).
    #[default]
    Played,
    /// The value of the best move at the next decision, whatever is played: Q-learning with
    /// function approximation, off-policy, as Watkins's Q(λ): after an exploratory move the
    /// traces are cut, so no return of a move the greedy policy would not play flows back.
    /// (On afterstates `Q(s, a) = V(s ∘ a)`: the network values the position a move makes.)
    Greedy,
}

impl Target {
    /// The default, left out of a resolved config (configs written before the key read to the
    /// same hash).
    pub fn is_played(&self) -> bool {
        *self == Target::Played
    }
    /// "TD" or "Q", for labels.
    pub fn method(self) -> &'static str {
        match self {
            Target::Played => "TD",
            Target::Greedy => "Q",
        }
    }
}

/// A differentiable value `v̂(x; w)` of a position's features `x`, with parameters `w`.
pub trait Approximator<G: Game>: Clone + Send + Sync + 'static {
    /// A position's features as the approximator reads them (weight indices, an observation).
    type Input: Clone + Default + Send + Sync;
    /// What the afterstates of one decision share, to read them faster (and room for that).
    type Base: Default + Send + Sync;

    /// The features of `state` as `player` sees it.
    fn encode(&self, game: &G, state: &G::State, player: Player, x: &mut Self::Input);
    /// Prepares `base` for [`Approximator::encode_after`] of the afterstates of `state`'s moves
    /// by `player`.
    fn prepare(&self, game: &G, state: &G::State, player: Player, base: &mut Self::Base) {
        let _ = (game, state, player, base);
    }
    /// [`Approximator::encode`] of `after`, an afterstate of the state `base` was prepared
    /// for: the same features, found faster where they can be.
    fn encode_after(
        &self,
        game: &G,
        after: &G::State,
        player: Player,
        base: &mut Self::Base,
        x: &mut Self::Input,
    ) {
        let _ = base;
        self.encode(game, after, player, x)
    }
    /// The sum `v̂` squashes: `v̂(x) = output(sum(x))`.
    fn sum(&self, x: &Self::Input) -> f32;
    /// How the sum is squashed.
    fn output(&self) -> Output;
    /// `v̂(x)`.
    #[inline]
    fn value(&self, x: &Self::Input) -> f32 {
        self.output().squash(self.sum(x)).0
    }
    /// `v̂(x)`, and its gradient `∇_w v̂(x)` as (parameter, derivative) pairs in `grad` (cleared
    /// first; a parameter may come more than once, its derivatives then add up).
    fn value_and_gradient(&self, x: &Self::Input, grad: &mut Vec<(u32, f32)>) -> f32;
    /// The parameters `w`.
    fn params(&self) -> &[f32];
    fn params_mut(&mut self) -> &mut [f32];
    /// The step size α is divided by this: the number of parameters each position reads with
    /// weight 1 (an n-tuple network's), so that α is the step of the value, as Sutton & Barto
    /// §9.6 advise (α = 1 / E[xᵀx]); 1 otherwise.
    fn step_divisor(&self) -> f32 {
        1.0
    }
    /// Whether a position's gradient touches few of the parameters (an n-tuple network's): the
    /// learner then keeps its traces as the gradients of the last steps with their decay
    /// factors rather than one trace per parameter (the same sum `e`, fewer memory accesses).
    fn sparse_gradient(&self) -> bool {
        false
    }
    /// Figures about the approximator for the learner's statistics, beside "weights".
    fn statistics(&self) -> Vec<(Metric, f64)> {
        Vec::new()
    }
}

/// One backup chain's traces: sparse, over the parameters.
#[derive(Clone, Debug, Default)]
struct Trace {
    /// The trace of every parameter (0 where it has none).
    e: Vec<f32>,
    /// The parameters with a trace, each once.
    active: Vec<u32>,
    /// Whether each parameter is in `active`.
    listed: Vec<bool>,
    /// The link factor of the chain's last backup (`±γ^k`): traces decay by `λ` times it.
    link: f64,
}

impl Trace {
    fn clear(&mut self) {
        for &i in &self.active {
            self.e[i as usize] = 0.0;
            self.listed[i as usize] = false;
        }
        self.active.clear();
        self.link = 0.0;
    }
}

/// One backup chain's traces kept by step: `e = Σ_k c_k ∇v̂(x_k)` over the last steps `k`, each
/// gradient stored with its factor `c_k` (the product of the decays since).
#[derive(Clone, Debug, Default)]
struct Steps {
    /// The steps' gradients, one after another.
    grads: Vec<(u32, f32)>,
    /// Each step: where its gradient lies in `grads`, and its factor.
    steps: Vec<(u32, u32, f32)>,
    /// The first step still traced (those before have decayed below the cutoff).
    first: usize,
}

impl Steps {
    fn clear(&mut self) {
        self.grads.clear();
        self.steps.clear();
        self.first = 0;
    }

    /// `e ← decay · e + grad`, then `w ← w + step · e`.
    #[inline]
    fn update(&mut self, decay: f32, cutoff: f32, grad: &[(u32, f32)], step: f32, w: &mut [f32]) {
        for s in &mut self.steps[self.first..] {
            s.2 *= decay;
        }
        // A factor of 0 (λ = 0 is handled before; a link of 0 at the chain's start) or below
        // the cutoff ends a step's trace.
        while self.first < self.steps.len()
            && (self.steps[self.first].2.abs() < cutoff || self.steps[self.first].2 == 0.0)
        {
            self.first += 1;
        }
        if self.first == self.steps.len() {
            self.clear();
        } else if self.first >= 64 {
            // Drop the decayed steps' gradients, now and then.
            let from = self.steps[self.first].0;
            self.grads.drain(..from as usize);
            self.steps.drain(..self.first);
            self.first = 0;
            for s in &mut self.steps {
                s.0 -= from;
                s.1 -= from;
            }
        }
        let start = self.grads.len() as u32;
        self.grads.extend_from_slice(grad);
        self.steps.push((start, self.grads.len() as u32, 1.0));
        for &(from, to, c) in &self.steps[self.first..] {
            let c = step * c;
            for &(i, g) in &self.grads[from as usize..to as usize] {
                w[i as usize] += c * g;
            }
        }
    }
}

/// Semi-gradient TD(λ) on afterstate values `v̂(x; w)` of an [`Approximator`].
pub struct FeatureTd<G: Game, A: Approximator<G>> {
    name: String,
    settings: TdSettings,
    approx: A,
    /// The seats whose afterstates wait for their target (entries: the seat, whose features
    /// `held` keeps).
    pending: Pending<u32>,
    held: Vec<A::Input>,
    chains: Vec<Trace>,
    /// The chains' traces by step, where the gradient is sparse.
    by_steps: Vec<Steps>,
    sparse: bool,
    two_player: bool,
    episode: u64,
    alpha: f64,
    epsilon: Epsilon,
    updates: u64,
    // Buffers reused from move to move.
    values: Vec<f64>,
    afters: Vec<G::State>,
    ends_game: Vec<bool>,
    inputs: Vec<A::Input>,
    base: A::Base,
    grad: Vec<(u32, f32)>,
    ends: Vec<Backup<u32>>,
}

impl<G: Game, A: Approximator<G>> FeatureTd<G, A> {
    pub fn new(game: &G, name: impl Into<String>, settings: TdSettings, approx: A) -> Self {
        let players = game.num_players();
        let two_player = players == 2;
        let n = approx.params().len();
        let sparse = approx.sparse_gradient();
        let count = if two_player { 1 } else { players };
        let chains = (0..count)
            .map(|_| Trace {
                e: if sparse { Vec::new() } else { vec![0.0; n] },
                listed: if sparse { Vec::new() } else { vec![false; n] },
                ..Trace::default()
            })
            .collect();
        let by_steps = (0..count).map(|_| Steps::default()).collect();
        FeatureTd {
            name: name.into(),
            pending: Pending::new(players),
            held: vec![A::Input::default(); players],
            chains,
            by_steps,
            sparse,
            two_player,
            episode: 0,
            alpha: settings.alpha.at(0),
            epsilon: Epsilon::new(settings.epsilon),
            updates: 0,
            values: Vec::new(),
            afters: Vec::new(),
            ends_game: Vec::new(),
            inputs: Vec::new(),
            base: A::Base::default(),
            grad: Vec::new(),
            ends: Vec::new(),
            settings,
            approx,
        }
    }

    pub fn approximator(&self) -> &A {
        &self.approx
    }

    /// A copy of its weights and settings, never to be trained ([`Learner::frozen_copy`]).
    fn frozen(&self) -> Self {
        FeatureTd {
            name: self.name.clone(),
            settings: self.settings.clone(),
            approx: self.approx.clone(),
            pending: self.pending.clone(),
            held: self.held.clone(),
            chains: self.chains.clone(),
            by_steps: self.by_steps.clone(),
            sparse: self.sparse,
            two_player: self.two_player,
            episode: self.episode,
            alpha: self.alpha,
            epsilon: self.epsilon.clone(),
            updates: self.updates,
            values: Vec::new(),
            afters: Vec::new(),
            ends_game: Vec::new(),
            inputs: Vec::new(),
            base: A::Base::default(),
            grad: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// TD updates made so far (one per afterstate backed up).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The value of afterstate `after` to `mover`, who just moved: exact at the end of the
    /// game, `v̂` otherwise.
    pub fn afterstate_value(&self, game: &G, after: &G::State, mover: Player) -> f64 {
        if game.turn(after).is_terminal() {
            game.returns(after)[mover]
        } else {
            let mut x = A::Input::default();
            self.approx.encode(game, after, mover, &mut x);
            self.approx.value(&x) as f64
        }
    }

    /// The values of the moves of `state` to `mover`, in `legal` order.
    fn move_values(&self, game: &G, state: &G::State, mover: Player, legal: &[Action]) -> Vec<f64> {
        legal
            .iter()
            .map(|&a| self.afterstate_value(game, &game.apply(state, a), mover))
            .collect()
    }

    /// What the learner chooses on among the moves of `state` ([`choice_values`]).
    fn choice_values(
        &self,
        game: &G,
        state: &G::State,
        mover: Player,
        legal: &[Action],
    ) -> Vec<f64> {
        let mut x = A::Input::default();
        let mut ends = Vec::with_capacity(legal.len());
        let mut values: Vec<f64> = legal
            .iter()
            .map(|&a| {
                let after = game.apply(state, a);
                let end = game.turn(&after).is_terminal();
                ends.push(end);
                if end {
                    game.returns(&after)[mover]
                } else {
                    self.approx.encode(game, &after, mover, &mut x);
                    self.approx.sum(&x) as f64
                }
            })
            .collect();
        if ends.iter().any(|&e| e) {
            squash_sums(self.approx.output(), &mut values, &ends);
        }
        values
    }

    /// `w ← w + α δ e` after `e ← λ link e + ∇v̂(x)`, for the features `x` held for `seat`
    /// and the target `target` (`link` relates the value backed up to its target).
    fn backup(&mut self, seat: Player, target: f64, link: f64) {
        let x = &self.held[seat];
        let v = self.approx.value_and_gradient(x, &mut self.grad);
        let delta = target - v as f64;
        let step = (self.alpha * delta) as f32 / self.approx.step_divisor();
        self.updates += 1;
        let lambda = self.settings.lambda;
        let w = self.approx.params_mut();
        if lambda == 0.0 {
            for &(i, g) in &self.grad {
                w[i as usize] += step * g;
            }
            return;
        }
        let c = if self.two_player { 0 } else { seat };
        let chain = &mut self.chains[c];
        let decay = (lambda * chain.link) as f32;
        let cutoff = self.settings.trace_cutoff as f32;
        if self.sparse {
            self.by_steps[c].update(decay, cutoff, &self.grad, step, w);
            chain.link = link;
            return;
        }
        let mut k = 0;
        while k < chain.active.len() {
            let i = chain.active[k] as usize;
            let e = chain.e[i] * decay;
            if e.abs() < cutoff || e == 0.0 {
                chain.e[i] = 0.0;
                chain.listed[i] = false;
                chain.active.swap_remove(k);
            } else {
                chain.e[i] = e;
                k += 1;
            }
        }
        for &(i, g) in &self.grad {
            if !chain.listed[i as usize] {
                chain.listed[i as usize] = true;
                chain.active.push(i);
            }
            chain.e[i as usize] += g;
        }
        for &i in &chain.active {
            w[i as usize] += step * chain.e[i as usize];
        }
        chain.link = link;
    }
}

impl<G: Game, A: Approximator<G>> Learner<G> for FeatureTd<G, A> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.pending.clear();
        for c in &mut self.chains {
            c.clear();
        }
        for s in &mut self.by_steps {
            s.clear();
        }
    }

    fn act(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        // The value of each move's afterstate to the mover: exact if it ends the game.
        game.apply_each(d.state, d.legal, &mut self.afters);
        self.values.clear();
        self.ends_game.clear();
        if self.inputs.len() < self.afters.len() {
            self.inputs.resize(self.afters.len(), A::Input::default());
        }
        self.approx.prepare(game, d.state, d.seat, &mut self.base);
        let mut any_end = false;
        for (k, after) in self.afters.iter().enumerate() {
            let terminal = game.turn(after).is_terminal();
            any_end |= terminal;
            self.ends_game.push(terminal);
            self.values.push(if terminal {
                game.returns(after)[d.seat]
            } else {
                let x = &mut self.inputs[k];
                self.approx
                    .encode_after(game, after, d.seat, &mut self.base, x);
                self.approx.sum(x) as f64
            });
        }
        let output = self.approx.output();
        if any_end {
            squash_sums(output, &mut self.values, &self.ends_game);
        }
        // Choose a move ε-greedily on those values (on the sums where no move ends the game:
        // the same order, see `choice_values`).
        let choice = epsilon_greedy(&self.values, &self.epsilon, rng);
        let value = if any_end || self.ends_game[choice] {
            self.values[choice]
        } else {
            output.squash(self.values[choice] as f32).0 as f64
        };
        // Q-learning's target: the best move's value, and whether the move chosen is not one.
        let (value, explored) = match self.settings.target {
            Target::Played => (value, false),
            Target::Greedy => {
                let best = (0..self.values.len())
                    .max_by(|&a, &b| self.values[a].total_cmp(&self.values[b]))
                    .expect("a decision has moves");
                let greedy = if any_end {
                    self.values[best]
                } else {
                    output.squash(self.values[best] as f32).0 as f64
                };
                (greedy, self.values[choice] < self.values[best])
            }
        };
        // The afterstate chosen before moves toward ±γ^k v̂ of the one chosen now (or of the
        // best one).
        if let Some(b) = self.pending.take_previous(d.seat, d.ply) {
            let link = b.sign * discount(self.settings.gamma, b.plies);
            self.backup(b.seat, link * value, link);
        }
        if explored {
            let c = if self.two_player { 0 } else { d.seat };
            self.chains[c].clear();
            self.by_steps[c].clear();
        }
        if !self.ends_game[choice] {
            std::mem::swap(&mut self.held[d.seat], &mut self.inputs[choice]);
            self.pending.remember(d.seat, d.ply, d.seat as u32);
        }
        Some(choice)
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, plies: u32) {
        let mut ends = std::mem::take(&mut self.ends);
        ends.extend(self.pending.take_last(plies));
        for b in ends.drain(..) {
            let link = discount(self.settings.gamma, b.plies.saturating_sub(1));
            self.backup(b.seat, link * returns[b.seat], link);
        }
        self.ends = ends;
        self.episode += 1;
        self.alpha = self.settings.alpha.at(self.episode);
        self.epsilon.next_episode();
    }

    fn policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, false)
    }

    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, true)
    }

    fn play_probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        probs: &mut Vec<f64>,
    ) -> bool {
        super::epsilon_greedy::play_probabilities(self, (game, state, legal), greedy, probs)
    }

    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        Some(Box::new(self.frozen()))
    }

    /// Every weight (a weight change reaches many positions: no record of changes is kept),
    /// ε, α and the episode.
    fn refresh_copy(&mut self, _game: &G, copy: &mut Box<dyn Learner<G>>) {
        let Some(to) = super::frozen::downcast::<G, Self>(copy) else {
            *copy = Box::new(self.frozen());
            return;
        };
        to.approx.params_mut().copy_from_slice(self.approx.params());
        to.episode = self.episode;
        to.alpha = self.alpha;
        to.updates = self.updates;
        to.epsilon.clone_from(&self.epsilon);
    }

    fn statistics(&self) -> Vec<(Metric, f64)> {
        let mut out = vec![
            (Metric::of("weights"), self.approx.params().len() as f64),
            (Metric::of("epsilon"), self.epsilon.value()),
            (Metric::of("alpha"), self.alpha),
        ];
        out.extend(self.approx.statistics());
        out
    }

    fn learns_values(&self) -> bool {
        true
    }

    fn value(&self, game: &G, state: &G::State) -> Option<f64> {
        let mover = game.turn(state).player()?;
        let mut legal = Vec::new();
        game.legal_actions(state, &mut legal);
        Some(super::backup::max_of(
            &self.move_values(game, state, mover, &legal),
        ))
    }

    /// `v̂` of the position as `player` reads it (the value of an afterstate of theirs), from
    /// any seat: what the search's leaves ask (exact at the end).
    fn position_value(&self, game: &G, state: &G::State, player: Player) -> Option<f64> {
        Some(self.afterstate_value(game, state, player))
    }

    fn discount(&self) -> f64 {
        self.settings.gamma
    }

    /// `weights`, every parameter of the approximator in its order (the features themselves,
    /// n-tuples included, are rebuilt from the config and its seeds).
    fn snapshot(&self, _game: &G) -> Option<Snapshot<G>> {
        Some(Snapshot {
            episodes: self.episode,
            rows: Vec::new(),
            arrays: vec![(
                "weights".to_string(),
                self.approx.params().iter().map(|&w| f64::from(w)).collect(),
            )],
        })
    }

    fn restore(&mut self, _game: &G, snapshot: Snapshot<G>) -> Result<(), String> {
        let weights = snapshot
            .arrays
            .iter()
            .find(|(name, _)| name == "weights")
            .map(|(_, w)| w)
            .ok_or("no `weights` in the file")?;
        let params = self.approx.params_mut();
        if weights.len() != params.len() {
            return Err(format!(
                "{} weights in the file, the config builds {}",
                weights.len(),
                params.len()
            ));
        }
        for (p, &w) in params.iter_mut().zip(weights) {
            let narrow = w as f32;
            if f64::from(narrow) != w && !w.is_nan() {
                return Err(format!("weight {w} is not a 32-bit float"));
            }
            *p = narrow;
        }
        self.episode = snapshot.episodes;
        self.alpha = self.settings.alpha.at(self.episode);
        self.epsilon.replay(self.episode);
        Ok(())
    }
}

/// The values of the moves whose sums `values` holds, squashed, where `ends` says a move ends
/// the game (its value, the return, is already there).
///
/// The learner chooses on the sums when no move ends the game, and on the values otherwise:
/// `output` keeps the order of the sums, so the greedy moves are the same, and a step saves a
/// `tanh` per move (what that gains: docs/performance.md). Only sums so large that
/// `tanh` rounds them to the same `f32` (beyond about ±9) tie as values and not as sums.
fn squash_sums(output: Output, values: &mut [f64], ends: &[bool]) {
    for (v, &end) in values.iter_mut().zip(ends) {
        if !end {
            *v = output.squash(*v as f32).0 as f64;
        }
    }
}

impl<G: Game, A: Approximator<G>> super::epsilon_greedy::EpsilonGreedy<G> for FeatureTd<G, A> {
    fn label(&self) -> &str {
        &self.name
    }
    fn epsilon_now(&self) -> f64 {
        self.epsilon.value()
    }
    fn probabilities_at(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        epsilon: f64,
        probs: &mut Vec<f64>,
    ) {
        afterstate_probabilities(game, state, legal, epsilon, probs, |mover| {
            self.choice_values(game, state, mover, legal)
        });
    }
}

#[cfg(test)]
mod tests;
