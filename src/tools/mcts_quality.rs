//! How well MCTS plays, measured exactly against the solver: the game is enumerated and solved
//! once; at every reachable position where a player moves, MCTS searches afresh with each
//! simulation budget, seeded as the player `--ai mcts,...` seeds it (the settings' seed mixed
//! with the position), and its move is optimal where it keeps the position's value (the win,
//! draw or loss; with chance, the mover's best expected result: the oracle's `keeps_value`).
//! The rate comes with its 95 % Wilson interval, and the speed with it (simulations per second
//! of one thread). Positions are searched in parallel, each on its own, so the figures (the
//! speed aside) do not depend on the number of threads.

use std::fmt;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::ai::mcts::{MctsOptions, Rollouts, Tree, position_seed};
use crate::core::game::{Game, Turn};
use crate::core::graph::StateId;
use crate::core::random::rng;
use crate::eval::GraphTruth;
use crate::eval::stats::wilson;
use crate::tools::rate::QualityError;
use crate::truth::{DEFAULT_STATE_LIMIT, SolveError};

/// MCTS at one simulation budget over every position of a game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MctsQualityRow {
    /// The settings in full ([`MctsOptions::spec`]).
    pub settings: String,
    pub sims: u32,
    /// Positions where a player moves (forced moves included: MCTS plays them unsearched).
    pub positions: usize,
    /// Positions where the chosen move keeps the value.
    pub optimal: usize,
    pub optimal_rate: f64,
    /// The 95 % Wilson interval of the rate.
    pub low: f64,
    pub high: f64,
    /// Simulations run over all the positions.
    pub simulations: u64,
    /// Simulations per second of one thread (simulations over the searches' summed time).
    pub sims_per_second: f64,
}

impl fmt::Display for MctsQualityRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>9}  {:>13}  {:>8.4}  [{:.4}, {:.4}]  {:>12}",
            self.sims,
            format!("{}/{}", self.optimal, self.positions),
            self.optimal_rate,
            self.low,
            self.high,
            crate::io::text::group(&format!("{:.0}", self.sims_per_second)),
        )
    }
}

/// The table's header, aligned with [`MctsQualityRow`]'s lines.
pub const HEADER: &str = "     sims        optimal  opt.rate  95% interval          sims/s";

/// Which positions are searched, and how often.
#[derive(Clone, Debug)]
pub struct Positions<S> {
    /// Only these positions (`None`: every reachable position where a player moves).
    pub only: Option<Vec<S>>,
    /// Each search is run this many times (the same search: it is seeded by the position), for
    /// timing a few positions.
    pub repeat: u32,
}

impl<S> Default for Positions<S> {
    fn default() -> Self {
        Positions {
            only: None,
            repeat: 1,
        }
    }
}

/// MCTS with `base` at each budget of `sims`, measured at every position of `game` (enumerated
/// and solved once, at most [`DEFAULT_STATE_LIMIT`] positions) or at the positions `positions`
/// names. `each` sees every row as it is made.
pub fn mcts_quality<G: Game>(
    game: &G,
    base: &MctsOptions,
    sims: &[u32],
    positions: &Positions<G::State>,
    progress: bool,
    each: &mut dyn FnMut(&MctsQualityRow),
) -> Result<Vec<MctsQualityRow>, QualityError> {
    if let Some(why) = game.capabilities().enumeration_refusal(DEFAULT_STATE_LIMIT) {
        return Err(SolveError::Unsolvable {
            game: game.name(),
            why,
        }
        .into());
    }
    if progress {
        eprintln!("solving {} ...", game.name());
    }
    let solution = crate::truth::enumerate(game, DEFAULT_STATE_LIMIT)?;
    let graph = solution.graph();
    let truth = GraphTruth::new(graph, solution.as_oracle())?;
    let movers: Vec<StateId> = match &positions.only {
        None => (0..graph.len() as StateId)
            .filter(|&id| matches!(graph.turn(id), Turn::Player(_)))
            .collect(),
        Some(only) => only
            .iter()
            .map(|s| match graph.id(s) {
                Some(id) if matches!(graph.turn(id), Turn::Player(_)) => Ok(id),
                _ => Err(QualityError::Position(game.render(s))),
            })
            .collect::<Result<_, _>>()?,
    };
    let repeat = positions.repeat.max(1);
    if progress {
        eprintln!(
            "  {} positions, {} where a player moves",
            crate::io::text::group(&graph.len().to_string()),
            crate::io::text::group(&movers.len().to_string())
        );
    }
    let mut rows = Vec::with_capacity(sims.len());
    for &n in sims {
        let options = MctsOptions {
            sims: n,
            ..base.clone()
        };
        let leaf = Rollouts(options.rollouts);
        // Per position: whether its move keeps the value, simulations, seconds.
        let found: Vec<(bool, u64, f64)> = movers
            .par_iter()
            .with_min_len(16)
            .map_init(Tree::new, |tree, &id| {
                let state = graph.state(id);
                let mut r = rng(position_seed(options.seed, state));
                let started = Instant::now();
                let mut result = tree.search(game, state, &options, &leaf, &mut r);
                let mut sims = result.sims;
                for _ in 1..repeat {
                    let mut r = rng(position_seed(options.seed, state));
                    result = tree.search(game, state, &options, &leaf, &mut r);
                    sims += result.sims;
                }
                let seconds = started.elapsed().as_secs_f64();
                let actions = graph.actions(id);
                let k = result
                    .action
                    .and_then(|a| actions.iter().position(|&b| b == a))
                    .unwrap_or(0);
                let keeps = truth.keeps()[graph.edge_range(id).start + k];
                (keeps, sims, seconds)
            })
            .collect();
        let optimal = found.iter().filter(|f| f.0).count();
        let simulations: u64 = found.iter().map(|f| f.1).sum();
        let seconds: f64 = found.iter().map(|f| f.2).sum();
        let positions = movers.len();
        let rate = optimal as f64 / positions.max(1) as f64;
        let (low, high) = wilson(rate, positions as f64);
        let row = MctsQualityRow {
            settings: options.spec(),
            sims: n,
            positions,
            optimal,
            optimal_rate: rate,
            low,
            high,
            simulations,
            sims_per_second: if seconds > 0.0 {
                simulations as f64 / seconds
            } else {
                0.0
            },
        };
        each(&row);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{DiceRace, DiceRaceParams, TicTacToe};

    fn measured<G: Game>(game: &G, sims: &[u32], threads: usize) -> Vec<MctsQualityRow> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut seen = 0;
        let rows = pool
            .install(|| {
                mcts_quality(
                    game,
                    &MctsOptions::default(),
                    sims,
                    &Positions::default(),
                    false,
                    &mut |_| seen += 1,
                )
            })
            .unwrap();
        assert_eq!(seen, sims.len());
        // The speed depends on the machine; everything else must not.
        rows.into_iter()
            .map(|r| MctsQualityRow {
                sims_per_second: 0.0,
                ..r
            })
            .collect()
    }

    #[test]
    fn the_rates_do_not_depend_on_the_threads_and_match_the_player() {
        let one = measured(&TicTacToe, &[10, 50], 1);
        assert_eq!(one, measured(&TicTacToe, &[10, 50], 2));
        assert_eq!(one[0].positions, 4520);
        assert_eq!(
            one[0].simulations,
            10 * one[0].positions as u64 - 10 * forced(&TicTacToe)
        );
        assert!(one[0].optimal_rate < one[1].optimal_rate, "{one:?}");
        assert!(one[0].low < one[0].optimal_rate && one[0].optimal_rate < one[0].high);
        // The rate is that of the player `--ai mcts,sims=10` names, position by position.
        let solution = crate::truth::enumerate(&TicTacToe, 1 << 20).unwrap();
        let graph = solution.graph();
        let player = crate::ai::MctsPolicy::new(MctsOptions::parse("sims=10").unwrap());
        let optimal = (0..graph.len() as StateId)
            .filter(|&id| graph.turn(id).player().is_some())
            .filter(|&id| {
                let a = player.pick(&TicTacToe, graph.state(id), graph.actions(id));
                solution.keeps_value(graph.state(id), a.unwrap()) == Some(true)
            })
            .count();
        assert_eq!(one[0].optimal, optimal);
        // A few positions, searched again for timing: the same moves, the work repeated.
        let start = TicTacToe.initial_state();
        let some = Positions {
            only: Some(vec![start, TicTacToe.apply(&start, 4)]),
            repeat: 3,
        };
        let rows = mcts_quality(
            &TicTacToe,
            &MctsOptions::default(),
            &[10],
            &some,
            false,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((rows[0].positions, rows[0].simulations), (2, 60));
        let end = [0, 3, 1, 4, 2]
            .iter()
            .fold(start, |s, &a| TicTacToe.apply(&s, a));
        let none = Positions {
            only: Some(vec![end]),
            repeat: 1,
        };
        let refused = mcts_quality(
            &TicTacToe,
            &MctsOptions::default(),
            &[10],
            &none,
            false,
            &mut |_| {},
        );
        assert!(refused.unwrap_err().to_string().contains("no player moves"));
        // Chance and three players.
        let race = DiceRace::new(DiceRaceParams::default()).unwrap();
        assert_eq!(measured(&race, &[20], 1), measured(&race, &[20], 2));
    }

    /// Positions with one legal move (played without a simulation).
    fn forced<G: Game>(game: &G) -> u64 {
        let graph = crate::core::graph::StateGraph::build(game, 1 << 20).unwrap();
        (0..graph.len() as StateId)
            .filter(|&id| graph.turn(id).player().is_some() && graph.actions(id).len() == 1)
            .count() as u64
    }
}
