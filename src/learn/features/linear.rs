//! A linear value over the game's observation tensor: `v̂(x) = squash(w · observe(x, mover) +
//! b)`, Sutton & Barto §9.4 (linear methods), trained by [`super::FeatureTd`]. Weights `f32`,
//! all 0 at the start.

use serde::{Deserialize, Serialize};

use super::{Approximator, FeatureTd, Output, Target, TdSettings};
use crate::core::game::{Game, Player};
use crate::learn::schedule::{Schedule, checked};
use crate::learn::{Learner, LearnerSpec, NoNote};

/// `kind = "linear"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinearConfig {
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
    #[serde(deserialize_with = "checked_cutoff")]
    pub trace_cutoff: f64,
    /// What an afterstate's value moves toward: `played` (TD(λ)) or `greedy` (Q-learning,
    /// Watkins's Q(λ)).
    #[serde(skip_serializing_if = "Target::is_played")]
    pub target: Target,
}

impl Default for LinearConfig {
    fn default() -> Self {
        LinearConfig {
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

/// A trace cutoff: 0 to below 1.
pub(crate) fn checked_cutoff<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "{v} is not a trace cutoff (0 to below 1)"
        )))
    }
}

impl LinearConfig {
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

impl LearnerSpec for LinearConfig {
    type Note = NoNote;
    const KIND: &'static str = "linear";
    const KEYS: &'static str = "output = \"tanh\" | \"linear\", lambda, alpha, epsilon, gamma, trace_cutoff, target = \"played\" | \"greedy\" (linear value of the observation, TD(λ) or Q-learning on afterstates)";
    /// The observation, read and weighed.
    fn move_cost<G: Game>(&self, game: &G) -> u64 {
        2 * game.observation_len() as u64
    }
    fn default_label(&self) -> String {
        format!("linear {}({})", self.target.method(), self.lambda)
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(FeatureTd::new(
            game,
            label,
            self.settings(),
            Linear::new(game.observation_len(), self.output),
        ))
    }
}

/// `squash(w · x + b)`: the weights, then the bias.
#[derive(Clone, Debug)]
pub struct Linear {
    output: Output,
    weights: Vec<f32>,
}

impl Linear {
    pub fn new(inputs: usize, output: Output) -> Self {
        Linear {
            output,
            weights: vec![0.0; inputs + 1],
        }
    }

    #[inline]
    fn sum(&self, x: &[f32]) -> f32 {
        let (w, b) = self.weights.split_at(self.weights.len() - 1);
        w.iter().zip(x).map(|(w, x)| w * x).sum::<f32>() + b[0]
    }
}

impl<G: Game> Approximator<G> for Linear {
    type Input = Vec<f32>;
    type Base = ();

    fn encode(&self, game: &G, state: &G::State, player: Player, x: &mut Vec<f32>) {
        x.resize(self.weights.len() - 1, 0.0);
        game.observe(state, player, x);
    }

    fn sum(&self, x: &Vec<f32>) -> f32 {
        Linear::sum(self, x)
    }

    fn output(&self) -> Output {
        self.output
    }

    fn value_and_gradient(&self, x: &Vec<f32>, grad: &mut Vec<(u32, f32)>) -> f32 {
        let (v, d) = self.output.squash(self.sum(x));
        grad.clear();
        grad.extend(
            x.iter()
                .enumerate()
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, &x)| (i as u32, x * d)),
        );
        grad.push((x.len() as u32, d));
        v
    }

    fn params(&self) -> &[f32] {
        &self.weights
    }

    fn params_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }
}
