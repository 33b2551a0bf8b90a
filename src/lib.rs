//! solvedgym: reinforcement learning on small board games that are solved exactly.
//!
//! Learners play games; an exact solver knows the truth; the evaluator shows how close learning
//! gets. The crate is built in layers, each using only those below it (docs/layout.md):
//!
//! | layer | what it holds |
//! |---|---|
//! | [`tools`] | the commands' work as library code: benchmarks, tournaments, tuning, play, stats |
//! | [`experiment`] | TOML-configured studies over many seeds: curves, summaries, plots |
//! | [`ai`], [`eval`] | search, greedy and saved-agent players; evaluators: exact dynamic programming over the state graph, seeded matches |
//! | [`games`], [`learn`] | the games and their registry; the learners |
//! | [`truth`] | exact truth: oracles, the generic solvers, combinatorial-game values |
//! | [`core`] | the `Game` trait, state graph, environments, policies, the environment checker |
//! | [`io`] | atomic files, TOML with line numbers, charts, progress bars |
//!
//! The types most programs need are re-exported here.
//!
//! Solve a game, then play it as an environment:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use solvedgym::{Env, Hexapawn, HexapawnParams, RandomPolicy, Solution};
//!
//! let game = Hexapawn::new(HexapawnParams { rows: 3, cols: 3 })?;
//! let solution = Solution::solve(&game, 1_000_000)?;
//! println!("{}", solution.report()); // black wins in 6 plies
//!
//! // We play black (seat 1) against random white.
//! let mut env = Env::new(game, 1, Box::new(RandomPolicy), 42)?;
//! env.reset(Some(42));
//! assert!(env.step(99).is_err()); // an illegal action is an error listing the legal ones
//! let first = env.legal_actions()[0];
//! env.step(first)?;
//! # Ok(())
//! # }
//! ```
//!
//! Train a learner by self-play and measure it against the exact truth:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use solvedgym::learn::q_learning::{QConfig, QLearner};
//! use solvedgym::{AecEnv, Learner, Solution, TicTacToe, evaluate_policy, play_self};
//!
//! let mut learner = QLearner::new(&TicTacToe, "Q-learning", QConfig::default());
//! let mut env = AecEnv::new(TicTacToe, 1);
//! let mut rng = solvedgym::rng(7);
//! for _ in 0..20_000 {
//!     play_self(&mut env, &mut learner, &mut rng);
//! }
//! let truth = Solution::solve(&TicTacToe, 1_000_000)?;
//! let report = evaluate_policy(&truth, &[0, 1], learner.greedy_policy().as_ref())?;
//! println!("optimal moves along optimal play: {:.1} %", 100.0 * report.optimal_rate_optimal_play);
//! # Ok(())
//! # }
//! ```

// Layers, lowest first: each imports only from those below it (tests/layers.rs checks it;
// docs/layout.md draws it). `io` and `games` stand to the side.
pub mod io;

pub mod core;

pub mod truth;

#[macro_use]
pub mod games;

pub mod learn;

pub mod ai;
pub mod eval;

pub mod experiment;

pub mod front;
pub mod tools;

pub use crate::ai::{GreedyPolicy, SearchOptions, SearchPolicy};
pub use crate::core::env::{AecEnv, Env, Step};
pub use crate::core::game::{
    Action, Capabilities, Game, GameResult, IllegalAction, Player, Returns, Turn,
};
pub use crate::core::graph::StateGraph;
pub use crate::core::policy::{FuzzyPolicy, Policy, RandomPolicy};
pub use crate::core::random::{SgRng, derive_seed, rng};
pub use crate::eval::{PolicyReport, evaluate_policy};
pub use crate::experiment::{RunOptions, run_study};
pub use crate::games::{
    AnyGame, Chase, DiceRace, GAMES, Hackenbush, HaseUndIgel, Hexapawn, HexapawnParams, TicTacToe,
};
pub use crate::learn::{Learner, LearnerConfig, play_self, play_vs_opponent};
pub use crate::truth::{ExpectSolution, Oracle, Solution, Solve, SolveOptions, Value};
