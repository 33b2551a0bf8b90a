//! The games, and the registry that turns a name plus parameters (from the command line or a
//! config file) into a game. This is the one place where game names are matched; everything
//! else is generic over [`Game`](crate::game::Game) and reached through [`with_game!`].

pub mod chase;
pub mod hexapawn;
pub mod tictactoe;

use serde::Deserialize;
use thiserror::Error;

pub use chase::{Chase, Escape, FoxHoundsParams, HasenspielParams};
pub use hexapawn::{Hexapawn, HexapawnParams};
pub use tictactoe::{TicTacToe, TicTacToeParams};

/// What a user can ask for: name, parameters and a one-line description.
pub struct GameInfo {
    pub name: &'static str,
    pub params: &'static str,
    pub summary: &'static str,
}

/// Every game the toolkit ships, for `--help` and error messages.
pub const GAMES: &[GameInfo] = &[
    GameInfo {
        name: "hexapawn",
        params: "rows (default 3), cols (default 3)",
        summary: "Gardner's Hexapawn; 4x4 is octapawn",
    },
    GameInfo {
        name: "octapawn",
        params: "rows (default 4), cols (default 4)",
        summary: "Hexapawn on 4x4 (another name for hexapawn with rows = cols = 4)",
    },
    GameInfo {
        name: "fox-hounds",
        params: "size (even, 2..16, default 8), escape (area | square | none, default area)",
        summary: "Fox & Hounds: a fox against B/2 hounds on the dark squares (gilith/solve rules)",
    },
    GameInfo {
        name: "hasenspiel",
        params: "escape (rear-pawn | first-row | none, default rear-pawn)",
        summary: "the rabbit game: White's rabbit against four black pawns on 8x8 (mancap314 rules)",
    },
    GameInfo {
        name: "tictactoe",
        params: "none",
        summary: "tic-tac-toe, the cross-check",
    },
];

/// A game chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyGame {
    Chase(Chase),
    Hexapawn(Hexapawn),
    TicTacToe(TicTacToe),
}

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so generic code
/// is monomorphised per game.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::games::AnyGame::Chase($g) => $body,
            $crate::games::AnyGame::Hexapawn($g) => $body,
            $crate::games::AnyGame::TicTacToe($g) => $body,
        }
    };
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

/// A game name or parameter that does not make a game.
#[derive(Debug, Error, PartialEq)]
pub enum GameSpecError {
    #[error("unknown game `{name}`; the games are: {}", game_names())]
    UnknownGame { name: String },
    #[error("{game}: {message} (parameters: {params})")]
    BadParams {
        game: String,
        /// The parameter at fault, when known.
        key: Option<String>,
        message: String,
        params: &'static str,
    },
}

fn game_names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

fn params<'de, P: Deserialize<'de>>(
    game: &'static str,
    table: toml::Table,
) -> Result<P, GameSpecError> {
    P::deserialize(toml::Value::Table(table)).map_err(|e| {
        let message = e.to_string();
        let key = message
            .strip_prefix("unknown field `")
            .and_then(|m| m.split('`').next())
            .map(String::from);
        bad(game, key, message)
    })
}

fn bad(game: &'static str, key: Option<String>, message: String) -> GameSpecError {
    let info = GAMES.iter().find(|g| g.name == game).expect("registered");
    GameSpecError::BadParams {
        game: game.to_string(),
        key,
        message: message.trim().to_string(),
        params: info.params,
    }
}

fn invalid(game: &'static str, e: InvalidParams) -> GameSpecError {
    bad(game, Some(e.key.to_string()), e.to_string())
}

impl AnyGame {
    /// The game called `name` with the given parameters (unknown parameters are errors).
    /// Names are case-insensitive; `-` and `_` are ignored ("tic-tac-toe" works).
    pub fn from_spec(name: &str, table: toml::Table) -> Result<AnyGame, GameSpecError> {
        let key: String = name
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        match key.as_str() {
            "hexapawn" | "octapawn" => {
                let mut table = table;
                if key == "octapawn" {
                    // Octapawn is 4x4 unless told otherwise.
                    for side in ["rows", "cols"] {
                        table.entry(side).or_insert(toml::Value::Integer(4));
                    }
                }
                let p: HexapawnParams = params("hexapawn", table)?;
                Hexapawn::new(p)
                    .map(AnyGame::Hexapawn)
                    .map_err(|e| invalid("hexapawn", e))
            }
            "foxhounds" | "foxandhounds" | "foxhound" => {
                let p: FoxHoundsParams = params("fox-hounds", table)?;
                Chase::fox_hounds(p)
                    .map(AnyGame::Chase)
                    .map_err(|e| invalid("fox-hounds", e))
            }
            "hasenspiel" => {
                let p: HasenspielParams = params("hasenspiel", table)?;
                Chase::hasenspiel(p)
                    .map(AnyGame::Chase)
                    .map_err(|e| invalid("hasenspiel", e))
            }
            "tictactoe" => {
                let p: TicTacToeParams = params("tictactoe", table)?;
                TicTacToe::new(p)
                    .map(AnyGame::TicTacToe)
                    .map_err(|e| invalid("tictactoe", e))
            }
            _ => Err(GameSpecError::UnknownGame {
                name: name.to_string(),
            }),
        }
    }

    pub fn name(&self) -> &'static str {
        use crate::game::Game;
        with_game!(self, g => g.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_parameters() {
        let g = AnyGame::from_spec("Tic-Tac-Toe", toml::Table::new()).unwrap();
        assert_eq!(g.name(), "tictactoe");
        let mut t = toml::Table::new();
        t.insert("rows".into(), 4.into());
        assert!(matches!(
            AnyGame::from_spec("hexapawn", t).unwrap(),
            AnyGame::Hexapawn(h) if h.rows() == 4 && h.cols() == 3
        ));
        let mut t = toml::Table::new();
        t.insert("size".into(), 8.into());
        let err = AnyGame::from_spec("hexapawn", t).unwrap_err().to_string();
        assert!(err.contains("size") && err.contains("rows"), "{err}");
        let err = AnyGame::from_spec("chess", toml::Table::new()).unwrap_err();
        assert!(
            err.to_string()
                .contains("hexapawn, octapawn, fox-hounds, hasenspiel, tictactoe")
        );
        // Octapawn is 4x4 unless a size is given.
        let mut t = toml::Table::new();
        t.insert("rows".into(), 5.into());
        assert!(matches!(
            AnyGame::from_spec("octapawn", t).unwrap(),
            AnyGame::Hexapawn(h) if h.rows() == 5 && h.cols() == 4
        ));
        let mut t = toml::Table::new();
        t.insert("rows".into(), 3.into());
        t.insert("cols".into(), 3.into());
        assert!(matches!(
            AnyGame::from_spec("octapawn", t).unwrap(),
            AnyGame::Hexapawn(h) if h.rows() == 3 && h.cols() == 3
        ));
        // A size whose product overflows is an error, not a wrap-around.
        let mut t = toml::Table::new();
        t.insert("rows".into(), (1i64 << 62).into());
        t.insert("cols".into(), 4.into());
        assert!(AnyGame::from_spec("hexapawn", t).is_err());
    }
}
