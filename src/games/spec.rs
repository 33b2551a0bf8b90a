//! What a game writes to join the registry: its typed parameters ([`game_params!`], with their
//! defaults and help) and its [`GameSpec`] (name, aliases, summary, and how the parameters build
//! the game), and the error its constructor gives for parameters it rejects.

use serde::Serialize;
use serde::de::DeserializeOwned;
use thiserror::Error;

use crate::core::game::Game;

/// A game's typed parameters with their defaults and one line of help each: `game_params!`
/// writes the struct, its `Default` and this table from one declaration.
pub trait ParamsDoc {
    /// Each field's name and its doc comment.
    const FIELDS: &'static [(&'static str, &'static str)];
}

/// Declares a game's parameter struct: every field with a doc comment (the help text) and a
/// default (`name: type = default`). The struct's own attributes (derives, serde) pass through.
macro_rules! game_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[doc = $doc:literal])+ $fvis:vis $field:ident : $ty:ty = $default:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name { $( $(#[doc = $doc])+ $fvis $field: $ty ),* }
        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default ),* }
            }
        }
        impl $crate::games::spec::ParamsDoc for $name {
            const FIELDS: &'static [(&'static str, &'static str)] =
                &[$( (stringify!($field), concat!($($doc),+)) ),*];
        }
    };
}

/// What makes a game from a name: its typed parameters are the key. The name, aliases and
/// summary are what `solvedgym games` lists; `build` checks the parameters.
pub trait GameSpec: Serialize + DeserializeOwned + Default + ParamsDoc {
    /// The name on the command line and in configs ("fox-hounds").
    const NAME: &'static str;
    /// Other names it answers to ("fox-and-hounds").
    const ALIASES: &'static [&'static str] = &[];
    /// One line for `solvedgym games`.
    const SUMMARY: &'static str;
    type Game: Game;
    fn build(self) -> Result<Self::Game, InvalidParams>;

    /// The parameters a position written in the game's notation carries (a board's size, the
    /// runners, Hackenbush's graph), by key: `moves`, `play` and `solve` take them from
    /// `--state` unless a flag gives them. By default the keys of a JSON object (Hase und
    /// Igel's positions carry the game's parameters); nothing for other text.
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::from_str(text) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        }
    }
}

/// Parameters a game's constructor rejects: which parameter, and why.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{key} = {value}: {reason}")]
pub struct InvalidParams {
    pub key: &'static str,
    pub value: String,
    pub reason: String,
}

impl InvalidParams {
    pub fn new(key: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        InvalidParams {
            key,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
