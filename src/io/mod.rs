//! What crosses the program's edge, shared by the layers above: files written atomically
//! ([`files`]), hashes that must not move ([`hash`]), TOML read with the line of every key
//! ([`source`]), charts drawn with plotters ([`plot`]), pictures of positions ([`draw`]),
//! tables of named columns and their CSV ([`table`]), Parquet files with their metadata ([`parquet`]), progress on the terminal
//! ([`progress`]), the memory work may take ([`memory`]), what built the program ([`version`])
//! and messages in a reader's words ([`text`]). Nothing here knows a game.

pub mod draw;
pub mod files;
pub mod hash;
pub mod memory;
pub mod parquet;
pub mod plot;
pub mod progress;
pub mod source;
pub mod table;
pub mod text;
pub mod version;
