//! A small multilayer perceptron over the game's observation tensor: one or two hidden layers
//! (tanh or ReLU), `v̂(x) = squash(wₒ · h(x) + bₒ)`, its gradient by backpropagation, trained
//! by [`super::FeatureTd`] (traces over every parameter), as TD-Gammon trained its network.
//! Parameters `f32`, drawn uniformly in ±1/√fan-in with `init_seed`; the forward pass keeps
//! its layers on the stack (at most [`MAX_WIDTH`] units each), so a step allocates nothing.

use serde::{Deserialize, Serialize};

use super::{Approximator, FeatureTd, Output, Target, TdSettings};
use crate::core::game::{Game, Player};
use crate::core::random::rng;
use crate::learn::schedule::{Schedule, checked};
use crate::learn::{Learner, LearnerSpec, NoNote};

/// The most units a hidden layer may have.
pub const MAX_WIDTH: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    Tanh,
    Relu,
}

/// `kind = "mlp"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MlpConfig {
    /// Units of each hidden layer: one or two layers of 1 to 256.
    #[serde(deserialize_with = "checked_hidden")]
    pub hidden: Vec<usize>,
    /// `tanh` or `relu`.
    pub activation: Activation,
    /// The seed of the initial parameters.
    pub init_seed: u64,
    /// `tanh` or `linear`.
    pub output: Output,
    /// Trace decay λ (0: TD(0); 1: Monte-Carlo).
    #[serde(deserialize_with = "checked::trace_decay")]
    pub lambda: f64,
    /// Step size α by episode.
    #[serde(deserialize_with = "checked::step_size_schedule")]
    pub alpha: Schedule,
    /// Exploration rate ε by episode.
    #[serde(deserialize_with = "checked::probability_schedule")]
    pub epsilon: Schedule,
    /// Discount per ply.
    #[serde(deserialize_with = "checked::discount")]
    pub gamma: f64,
    /// Traces smaller than this are dropped (0: keep all).
    #[serde(deserialize_with = "super::linear::checked_cutoff")]
    pub trace_cutoff: f64,
    /// What an afterstate's value moves toward: `played` (TD(λ)) or `greedy` (Q-learning,
    /// Watkins's Q(λ)).
    #[serde(skip_serializing_if = "Target::is_played")]
    pub target: Target,
}

impl Default for MlpConfig {
    fn default() -> Self {
        MlpConfig {
            hidden: vec![32],
            activation: Activation::Tanh,
            init_seed: 0,
            output: Output::Tanh,
            lambda: 0.5,
            alpha: Schedule::Constant(0.01),
            epsilon: Schedule::Constant(0.1),
            gamma: 1.0,
            trace_cutoff: 0.001,
            target: Target::Played,
        }
    }
}

fn checked_hidden<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<usize>, D::Error> {
    let v = Vec::<u64>::deserialize(d)?;
    if (1..=2).contains(&v.len()) && v.iter().all(|&u| (1..=MAX_WIDTH as u64).contains(&u)) {
        Ok(v.into_iter().map(|u| u as usize).collect())
    } else {
        Err(serde::de::Error::custom(format!(
            "{v:?} is not one or two hidden layers of 1 to {MAX_WIDTH} units"
        )))
    }
}

impl MlpConfig {
    pub fn settings(&self) -> TdSettings {
        TdSettings {
            lambda: self.lambda,
            alpha: self.alpha,
            epsilon: self.epsilon,
            gamma: self.gamma,
            trace_cutoff: self.trace_cutoff,
            target: self.target,
        }
    }
}

impl LearnerSpec for MlpConfig {
    type Note = NoNote;
    const KIND: &'static str = "mlp";
    const KEYS: &'static str = "hidden = [32], activation = \"tanh\" | \"relu\", init_seed, output, lambda, alpha, epsilon, gamma, trace_cutoff, target = \"played\" | \"greedy\" (perceptron on the observation, TD(λ) or Q-learning on afterstates)";
    /// The observation, then each layer's weights.
    fn move_cost<G: Game>(&self, game: &G) -> u64 {
        let mut fan_in = game.observation_len() as u64;
        let mut cost = fan_in;
        for &w in self.hidden.iter().take(2).chain(std::iter::once(&1)) {
            let w = w.clamp(1, MAX_WIDTH) as u64;
            cost = cost.saturating_add(fan_in.saturating_mul(w));
            fan_in = w;
        }
        cost
    }
    fn default_label(&self) -> String {
        let widths: Vec<String> = self.hidden.iter().map(|w| w.to_string()).collect();
        format!(
            "MLP {} {}({})",
            widths.join("-"),
            self.target.method(),
            self.lambda
        )
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(FeatureTd::new(
            game,
            label,
            self.settings(),
            Mlp::new(game.observation_len(), self),
        ))
    }
}

/// The network: for each layer its weights (units x inputs, by unit) then biases; the output
/// unit's weights and bias last.
#[derive(Clone, Debug)]
pub struct Mlp {
    inputs: usize,
    /// Units per hidden layer (one or two layers).
    widths: Vec<usize>,
    activation: Activation,
    output: Output,
    params: Vec<f32>,
}

impl Mlp {
    pub fn new(inputs: usize, config: &MlpConfig) -> Self {
        use rand::RngExt;
        let widths: Vec<usize> = config
            .hidden
            .iter()
            .take(2)
            .map(|&w| w.clamp(1, MAX_WIDTH))
            .collect();
        let mut r = rng(config.init_seed);
        let mut params = Vec::new();
        let mut fan_in = inputs;
        for &w in widths.iter().chain(std::iter::once(&1)) {
            let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
            params.extend((0..w * fan_in).map(|_| r.random_range(-bound..bound)));
            params.extend(std::iter::repeat_n(0.0, w));
            fan_in = w;
        }
        Mlp {
            inputs,
            widths,
            activation: config.activation,
            output: config.output,
            params,
        }
    }

    #[inline(always)]
    fn act(&self, z: f32) -> f32 {
        match self.activation {
            Activation::Tanh => z.tanh(),
            Activation::Relu => z.max(0.0),
        }
    }

    /// The derivative of the activation, from its value.
    #[inline(always)]
    fn act_slope(&self, h: f32) -> f32 {
        match self.activation {
            Activation::Tanh => 1.0 - h * h,
            Activation::Relu => (h > 0.0) as u8 as f32,
        }
    }

    /// One layer: `out[j] = act(W[j] · input + b[j])` from the parameters at `at`; returns
    /// where the next layer's start.
    #[inline]
    fn layer(&self, at: usize, input: &[f32], out: &mut [f32], activate: bool) -> usize {
        let (n, m) = (input.len(), out.len());
        let (w, b) = (&self.params[at..at + n * m], &self.params[at + n * m..]);
        for j in 0..m {
            let z = w[j * n..(j + 1) * n]
                .iter()
                .zip(input)
                .map(|(w, x)| w * x)
                .sum::<f32>()
                + b[j];
            out[j] = if activate { self.act(z) } else { z };
        }
        at + n * m + m
    }

    /// The hidden layers' values and the output's sum.
    fn forward(&self, x: &[f32], h: &mut [[f32; MAX_WIDTH]; 2]) -> f32 {
        let w0 = self.widths[0];
        let (h0, h1) = h.split_at_mut(1);
        let mut at = self.layer(0, &x[..self.inputs], &mut h0[0][..w0], true);
        let last: &[f32] = if let Some(&w1) = self.widths.get(1) {
            at = self.layer(at, &h0[0][..w0], &mut h1[0][..w1], true);
            &h1[0][..w1]
        } else {
            &h0[0][..w0]
        };
        let mut s = [0.0f32];
        self.layer(at, last, &mut s, false);
        s[0]
    }
}

impl<G: Game> Approximator<G> for Mlp {
    type Input = Vec<f32>;
    type Base = ();

    fn encode(&self, game: &G, state: &G::State, player: Player, x: &mut Vec<f32>) {
        x.resize(self.inputs, 0.0);
        game.observe(state, player, x);
    }

    fn sum(&self, x: &Vec<f32>) -> f32 {
        let mut h = [[0.0; MAX_WIDTH]; 2];
        self.forward(x, &mut h)
    }

    fn output(&self) -> Output {
        self.output
    }

    fn value_and_gradient(&self, x: &Vec<f32>, grad: &mut Vec<(u32, f32)>) -> f32 {
        let mut h = [[0.0; MAX_WIDTH]; 2];
        let (v, d) = self.output.squash(self.forward(x, &mut h));
        grad.clear();
        let n = self.inputs;
        let w0 = self.widths[0];
        // Where each layer's parameters start.
        let l1 = n * w0 + w0;
        let (w1, out_at) = match self.widths.get(1) {
            Some(&w1) => (w1, l1 + w0 * w1 + w1),
            None => (0, l1),
        };
        let last_width = if w1 > 0 { w1 } else { w0 };
        let last = if w1 > 0 { 1 } else { 0 };
        // The output unit.
        let mut delta_last = [0.0f32; MAX_WIDTH];
        for j in 0..last_width {
            let hj = h[last][j];
            grad.push(((out_at + j) as u32, d * hj));
            delta_last[j] = d * self.params[out_at + j] * self.act_slope(hj);
        }
        grad.push(((out_at + last_width) as u32, d));
        // The second hidden layer, if any, and the error it sends back.
        let mut delta0 = [0.0f32; MAX_WIDTH];
        if w1 > 0 {
            for (j, &dj) in delta_last[..w1].iter().enumerate() {
                let row = l1 + j * w0;
                for k in 0..w0 {
                    grad.push(((row + k) as u32, dj * h[0][k]));
                    delta0[k] += dj * self.params[row + k];
                }
                grad.push(((l1 + w0 * w1 + j) as u32, dj));
            }
            for (d0, &hk) in delta0[..w0].iter_mut().zip(&h[0][..w0]) {
                *d0 *= self.act_slope(hk);
            }
        } else {
            delta0 = delta_last;
        }
        // The first layer.
        for (k, &dk) in delta0[..w0].iter().enumerate() {
            for (i, &xi) in x[..n].iter().enumerate() {
                if xi != 0.0 {
                    grad.push(((k * n + i) as u32, dk * xi));
                }
            }
            grad.push(((n * w0 + k) as u32, dk));
        }
        v
    }

    fn params(&self) -> &[f32] {
        &self.params
    }

    fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }
}
