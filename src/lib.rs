//! solvedgym: reinforcement learning on small board games that are solved exactly.
//!
//! Learners play games; an exact solver knows the truth; the evaluator shows how close learning
//! gets. The parts, one module each:
//!
//! - [`game`]: the `Game` trait (pure rules, capabilities) and [`games`]: the registry of
//!   Hexapawn, the chase games, tic-tac-toe, Hackenbush, the dice race.
//! - [`env`](mod@env): Gymnasium-style single-agent and PettingZoo-style turn-based environments.
//! - [`graph`] and [`solve`]: the reachable state graph and exact retrograde analysis;
//!   [`expect`]: exact win probabilities where chance moves; [`cgt`]: combinatorial-game
//!   values (Hackenbush's truth); [`oracle`]: the trait every source of truth answers through.
//! - [`policy`]: random, optimal, greedy and fuzzy players; [`search`]: heuristic game-tree
//!   search (paranoid alpha-beta, max-n, chance by expectation) for any game; [`learn`]: the learners and their registry.
//! - [`eval`]: evaluators (exact dynamic programming, seeded matches) and typed metrics.
//! - [`experiment`]: TOML-configured studies over many seeds, curves and plots.
//! - [`check`]: the environment checker and the playthroughs every game passes;
//!   [`play`], [`fuzz`], [`bench`](mod@bench): the commands' work, as library code.
//! - [`stats`]: playout statistics of any game under one policy (game length, branching,
//!   truncation, wins per seat, chance outcomes such as hare cards, rule events).
//! - [`tournament`]: AI entrants (random, greedy, searches) against each other in seeded deals
//!   with rotated seats: win rates and ranks with intervals, game length, search cost.
//! - [`tune`]: tuning an evaluation's settings by tournaments against a baseline (a screen of
//!   a grid, then a final of the best on fresh deals).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use solvedgym::{env::Env, games::{Hexapawn, HexapawnParams}, policy::RandomPolicy, solve::Solution};
//!
//! let game = Hexapawn::new(HexapawnParams { rows: 3, cols: 3 })?;
//! let solution = Solution::solve(&game, 1_000_000)?;
//! println!("{}", solution.report());                     // black wins in 6 plies
//! let mut env = Env::new(game, 1, Box::new(RandomPolicy), 42)?; // we play black vs random white
//! let (_observation, _info) = env.reset(Some(42));
//! let step = env.step(env.legal_actions()[0])?;           // an illegal action is an Err listing the legal ones
//! assert!(env.step(99).is_err() || step.terminated);
//! # Ok(())
//! # }
//! ```

// First: the registry defines `with_game!`, which the modules below use.
#[macro_use]
pub mod games;

pub mod bench;
pub mod cgt;
pub mod check;
pub mod env;
pub mod eval;
pub mod expect;
pub mod experiment;
pub mod fuzz;
pub mod game;
pub mod graph;
pub mod learn;
pub mod moves;
pub mod oracle;
pub mod play;
pub mod policy;
pub mod search;
pub mod solve;
pub mod stats;
pub mod tabulated;
pub mod tournament;
pub mod tune;

use rand::SeedableRng;

/// The random number generator of every random choice in the crate: xoshiro256++, a named
/// algorithm, so a seed gives the same numbers on every platform and release.
pub type SgRng = rand::rngs::Xoshiro256PlusPlus;

/// A generator seeded with `seed`.
pub fn rng(seed: u64) -> SgRng {
    SgRng::seed_from_u64(seed)
}

/// An independent seed for stream `stream` of a run seeded with `seed` (SplitMix64 mixing),
/// so that e.g. the learner and the environment of one run draw unrelated numbers.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
