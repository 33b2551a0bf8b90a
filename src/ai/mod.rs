//! Players that think at play time rather than learn: heuristic game-tree [`search`] and
//! one-ply [`greedy`] play on a game's heuristic.

pub mod greedy;
pub mod players;
pub mod search;

pub use greedy::GreedyPolicy;
pub use search::{SearchOptions, SearchPolicy};
