//! Evaluators: how a learner's play compares with the truth. [`Evaluator`] is the seam the
//! experiment runner uses, with two implementations: [`exact::ExactEvaluator`] computes
//! everything by dynamic programming over the state graph (the programs are in `dp.rs`, their
//! items re-exported here: [`GraphTruth`], [`Profile`], [`evaluate_policy`],
//! [`expected_result`], [`worst_case`], ...), and [`matches::MatchEvaluator`] plays seeded games
//! against reference policies where no graph can be enumerated; beside it,
//! [`response::ResponseEvaluator`] measures the greedy policy exactly against a best response
//! over the positions it can face (`[evaluation] best_response`). All record typed [`Metric`]s.
//! An [`EvalError`] is a dynamic program's failure (a graph too large, a policy without a
//! distribution, a position the oracle does not know), so it is defined beside them.

mod dp;
pub mod exact;
mod frozen;
pub mod matches;
pub mod response;
pub mod stats;

pub use crate::learn::{Metric, Role};
pub use dp::{
    AlongPlay, BestReply, EvalError, ExpectedResult, FrozenPolicy, GraphTruth, Objective,
    PolicyReport, Profile, ThrowMass, best_reply, evaluate_policy, evaluate_profile,
    evaluate_profiles, evaluate_with_throws, expected_result, expected_result_of, minimax_return,
    optimal_rate_along_play, results_against, throw_mass, worst_case, worst_case_of,
};

use crate::core::game::Game;
use crate::learn::Learner;

/// A source of measurements of a learner: the experiment runner records what it returns, in
/// the order of [`Evaluator::metrics`], at every evaluation.
pub trait Evaluator<G: Game>: Send + Sync {
    /// What one evaluation records.
    fn metrics(&self) -> &[Metric];
    /// One value per metric. `copy` is the frozen copy of the learner it trains against, if
    /// its opponent is one.
    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, EvalError>;
}
