//! A game's best solver ([`Solve`]), and enumeration by the truth a game needs.

use crate::core::game::{Game, Solver, Truth};
use crate::core::tabulated::Tabulated;
use crate::truth::expect::ExpectSolution;
use crate::truth::options::{SolveError, SolveOptions};
use crate::truth::oracle::{GraphOracle, Oracle};
use crate::truth::report::SolveOutput;
use crate::truth::solution::Solution;

/// A game's exact truth by the best solver it has. Every registered game implements it: most
/// with the generic retrograde analysis (`impl Solve for TicTacToe {}`), a game with a solver
/// of its own by overriding [`Solve::solve`] (and [`Solve::solve_output`] where what
/// `solvedgym solve` prints is not one report).
pub trait Solve: Game + Sized {
    /// The game's truth: by default the generic retrograde analysis ([`Solution`]); a game with
    /// its own solver overrides this (and uses enumeration anyway when `options.generic` asks
    /// for it).
    fn solve(&self, options: &SolveOptions) -> Result<Box<dyn Oracle<Self>>, SolveError> {
        if let Solver::None = self.capabilities().solver {
            return Err(SolveError::Unsolvable {
                game: self.name(),
                why: self
                    .capabilities()
                    .enumeration_refusal(options.max_states)
                    .unwrap_or_default(),
            });
        }
        Ok(Box::new(Solution::solve_showing(
            self,
            options.max_states,
            options.progress,
        )?))
    }

    /// What `solvedgym solve` prints for this game: by default the report of [`Solve::solve`].
    fn solve_output(&self, options: &SolveOptions) -> Result<SolveOutput, SolveError> {
        Ok(SolveOutput::Report(Box::new(self.solve(options)?.report())))
    }
}

/// Enumerates `game` with the solver its truth needs: expected results where nature moves or
/// more than two play ([`ExpectSolution`]), win/draw/loss in plies otherwise ([`Solution`]).
pub fn enumerate<G: Game>(game: &G, limit: usize) -> Result<Box<dyn GraphOracle<G>>, SolveError> {
    Ok(match game.capabilities().truth {
        Truth::ExpectedReturns => Box::new(ExpectSolution::solve(game, limit)?),
        _ => Box::new(Solution::solve(game, limit)?),
    })
}

/// A game played from its state graph is solved by enumeration, as every game whose positions
/// the experiment runner enumerates.
impl Solve for Tabulated {}
