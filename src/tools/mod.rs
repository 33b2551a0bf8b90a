//! The work behind the commands, as library code that tests call without the binary: benchmarks
//! ([`bench`]), tuning an evaluation ([`tune`]), AI [`tournament`]s, the fuzz-factor table
//! ([`fuzz`]), playout [`stats`], a position's [`moves`], [`play`] in the terminal, and rating
//! searches ([`rate`]) and MCTS ([`mcts_quality`]) against exact truth.

pub mod bench;
pub mod fuzz;
pub mod mcts_quality;
pub mod moves;
pub mod play;
pub mod rate;
pub mod stats;
pub mod tournament;
pub mod tune;
