//! Players that think at play time rather than learn: heuristic game-tree [`search`],
//! Monte-Carlo tree search ([`mcts`]) and one-ply [`greedy`] play on a game's heuristic.

pub mod greedy;
pub mod mcts;
pub mod players;
pub mod search;
pub mod settings;

pub use greedy::GreedyPolicy;
pub use mcts::{MctsOptions, MctsPolicy};
pub use search::{SearchOptions, SearchPolicy};
