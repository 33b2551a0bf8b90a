//! Exact truth: what perfect play gives every position, and the solvers that find it.
//!
//! A game's truth is reached through the [`Oracle`] trait (a position's [`Value`], whether a
//! move keeps it, the optimal moves); [`Solve`] gives a game's best solver. The solvers here
//! are generic: retrograde analysis over every reachable state ([`Solution`]: win, draw or loss
//! in plies, exact game counts) and exact expected results where nature moves or more than two
//! play ([`ExpectSolution`]); [`cgt`] holds the combinatorial-game values of Hackenbush. A game
//! with a solver of its own (the chase games' layered one) implements [`Solve`] in its folder.

pub mod cgt;
pub mod expect;
pub mod options;
pub mod oracle;
pub mod report;
pub mod solution;
pub mod solve;
pub mod value;

pub use expect::ExpectSolution;
pub use options::{DEFAULT_STATE_LIMIT, SolveError, SolveOptions};
pub use oracle::{GraphOracle, OptimalPolicy, Oracle};
pub use report::{SolveOutput, SolveReport};
pub use solution::{GameCount, Solution};
pub use solve::{Solve, enumerate};
pub use value::{Outcome, Value};
