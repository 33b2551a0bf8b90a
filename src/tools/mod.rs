//! The work behind the commands, as library code that tests call without the binary: benchmarks
//! ([`bench`]), tuning an evaluation ([`tune`]), AI [`tournament`]s, the fuzz-factor table
//! ([`fuzz`]), playout [`stats`], a position's [`moves`], [`play`] in the terminal, and rating
//! searches against exact truth ([`rate`]).

pub mod bench;
pub mod fuzz;
pub mod moves;
pub mod play;
pub mod rate;
pub mod stats;
pub mod tournament;
pub mod tune;
