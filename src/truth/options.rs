//! What a solve is asked (its options and the memory guard) and how it fails.

use thiserror::Error;

use crate::core::graph::GraphError;

/// Default bound on the number of states the generic solver enumerates (memory guard).
pub const DEFAULT_STATE_LIMIT: usize = 50_000_000;

/// How to solve a game ([`Solve::solve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// The generic solver refuses to enumerate more states than this (a memory guard).
    pub max_states: usize,
    /// Use the generic solver even where the game has its own.
    pub generic: bool,
    /// The game's own solver: count the possible games (wide counters cost memory).
    pub counts: bool,
    /// The game's own solver: keep a value per position (needed to play, or to ask about any
    /// position but the start).
    pub tables: bool,
    /// Show a progress bar on the terminal.
    pub progress: bool,
    /// The process ends once the output is written (the command line's `solve`): a game's own
    /// solver may leave the working memory of its last computation to the operating system
    /// instead of freeing it piece by piece. Off by default: a library caller goes on.
    pub process_ends: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            max_states: DEFAULT_STATE_LIMIT,
            generic: false,
            counts: true,
            tables: true,
            progress: false,
            process_ends: false,
        }
    }
}

#[derive(Debug, Error)]
pub enum SolveError {
    #[error("{game} cannot be solved exactly: {why}")]
    Unsolvable { game: &'static str, why: String },
    #[error("the solver handles two-player games; {game} has {players} players")]
    NotTwoPlayer { game: &'static str, players: usize },
    #[error("the solver handles deterministic games; {game} has a chance event at:\n{state}")]
    Chance { game: &'static str, state: String },
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error("the number of games below a state exceeds 2^256")]
    CountOverflow,
    /// Refused before allocating: more memory than the machine has (or the limit).
    #[error(transparent)]
    Memory(#[from] crate::io::memory::MemoryRefusal),
}
