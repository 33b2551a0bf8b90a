//! The commands of the `solvedgym` binary, one module each in the shape of cargo's
//! `commands/`: an `Args` that clap derives and an `exec` that runs it. The work itself is
//! library code (`solvedgym::tools`, `experiment`, `truth`); a command reads its flags, calls it
//! and prints. What several commands share lives beside them: the game and its parameters
//! ([`game_args`]), the output flags and printing ([`output`]), value parsers ([`parse`]).

pub mod bench;
pub mod evaluate;
pub mod fuzz;
pub mod game_args;
pub mod games;
pub mod merge;
pub mod moves;
pub mod output;
pub mod parse;
pub mod play;
pub mod rate;
pub mod run;
pub mod solve;
pub mod stats;
pub mod tournament;
pub mod tune;
pub mod value;
