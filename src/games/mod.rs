//! The games, and the registry that turns a name plus parameters (from the command line or a
//! config file) into a game. A game is its own file or folder plus a line in each of the short
//! lists below: [`AnyGame`], [`with_game!`](crate::with_game) and [`GAMES`] (names, aliases,
//! summaries and the parameter help, read off each game's typed parameters, from which the
//! command line's parameter flags are made). This is the one place where game names are matched;
//! everything else is generic over [`Game`] and reached through `with_game!`.

use thiserror::Error;

use crate::core::game::{Capabilities, Game};
use crate::io::text::{abbreviated, did_you_mean, plain_words};

#[macro_use]
pub mod spec;

// The registry. Adding a game: its file or folder (its `GameSpec` and `Game`), then a line in
// each list below: the module, its types, the `AnyGame` variant, the arm of `with_game!` and
// its specs in `GAMES`. Two specs may build the same type (Hexapawn and octapawn).

pub mod chase;
pub mod dice_race;
pub mod hackenbush;
pub mod hase_igel;
pub mod hexapawn;
pub mod tictactoe;

pub use spec::{GameSpec, InvalidParams, ParamsDoc};

pub use chase::{Chase, Escape, FoxHoundsParams, HasenspielParams};
pub use dice_race::{DiceRace, DiceRaceParams};
pub use hackenbush::{Hackenbush, HackenbushParams};
pub use hase_igel::{HaseUndIgel, HaseUndIgelParams};
pub use hexapawn::{Hexapawn, HexapawnParams, OctapawnParams};
pub use tictactoe::{TicTacToe, TicTacToeParams};

/// A game chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyGame {
    Hexapawn(Hexapawn),
    Chase(Chase),
    TicTacToe(TicTacToe),
    DiceRace(DiceRace),
    Hackenbush(Hackenbush),
    HaseUndIgel(HaseUndIgel),
}

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so generic code is
/// monomorphised per game.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::games::AnyGame::Hexapawn($g) => $body,
            $crate::games::AnyGame::Chase($g) => $body,
            $crate::games::AnyGame::TicTacToe($g) => $body,
            $crate::games::AnyGame::DiceRace($g) => $body,
            $crate::games::AnyGame::Hackenbush($g) => $body,
            $crate::games::AnyGame::HaseUndIgel($g) => $body,
        }
    };
}

/// Every game the toolkit ships, in the order `solvedgym games` lists them.
pub const GAMES: &[GameInfo] = &[
    GameInfo::of::<HexapawnParams>(),
    GameInfo::of::<OctapawnParams>(),
    GameInfo::of::<FoxHoundsParams>(),
    GameInfo::of::<HasenspielParams>(),
    GameInfo::of::<TicTacToeParams>(),
    GameInfo::of::<DiceRaceParams>(),
    GameInfo::of::<HackenbushParams>(),
    GameInfo::of::<HaseUndIgelParams>(),
];

macro_rules! any_game_from {
    ($($game:ident),*) => {
        $(impl From<$game> for AnyGame {
            fn from(g: $game) -> Self {
                AnyGame::$game(g)
            }
        })*
    };
}
any_game_from!(
    Hexapawn,
    Chase,
    TicTacToe,
    DiceRace,
    Hackenbush,
    HaseUndIgel
);

/// What a user can ask for: a registered game's names, summary and parameters.
pub struct GameInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// Each parameter's name and help.
    pub fields: &'static [(&'static str, &'static str)],
    defaults: fn() -> toml::Table,
    build: fn(toml::Table) -> Result<AnyGame, GameSpecError>,
    resolve: fn(toml::Table) -> Result<toml::Table, GameSpecError>,
    position_params: fn(&str) -> serde_json::Map<String, serde_json::Value>,
}

impl GameInfo {
    const fn of<S: GameSpec>() -> GameInfo
    where
        AnyGame: From<S::Game>,
    {
        GameInfo {
            name: S::NAME,
            aliases: S::ALIASES,
            summary: S::SUMMARY,
            fields: S::FIELDS,
            defaults: defaults::<S>,
            build: build::<S>,
            resolve: resolve::<S>,
            position_params: S::position_params,
        }
    }

    /// The parameters a position written in the game's notation carries
    /// ([`GameSpec::position_params`]).
    pub fn position_params(&self, text: &str) -> serde_json::Map<String, serde_json::Value> {
        (self.position_params)(text)
    }

    /// The parameters with every default filled in, as the typed parameters write them
    /// (a parameter whose default depends on others and has no value of its own, such as Hase
    /// und Igel's `carrots`, is left out: [`AnyGame::resolved_params`] fills it from the game).
    pub fn resolve(&self, params: toml::Table) -> Result<toml::Table, GameSpecError> {
        (self.resolve)(params)
    }

    /// The game with these parameters (unknown parameters are errors; missing ones take their
    /// defaults).
    pub fn build(&self, params: toml::Table) -> Result<AnyGame, GameSpecError> {
        (self.build)(params)
    }

    /// The parameters' defaults (a parameter whose default depends on others is left out).
    pub fn defaults(&self) -> toml::Table {
        (self.defaults)()
    }

    /// The game with its default parameters.
    pub fn default_game(&self) -> AnyGame {
        self.build(toml::Table::new())
            .expect("a game's default parameters make a game")
    }

    /// The parameters with their defaults and help: `rows = 3 (board rows), cols = 3 (...)`.
    pub fn params_help(&self) -> String {
        if self.fields.is_empty() {
            return "none".to_string();
        }
        let defaults = (self.defaults)();
        self.fields
            .iter()
            .map(|(name, doc)| match defaults.get(*name) {
                Some(v) => format!("{name} = {v} ({})", doc.trim()),
                None => format!("{name} ({})", doc.trim()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The parameters whose defaults are text (a board, a position): a command-line value of
    /// digits is text for them.
    pub fn text_params(&self) -> Vec<&'static str> {
        let defaults = (self.defaults)();
        self.fields
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| defaults.get(*name).is_some_and(toml::Value::is_str))
            .collect()
    }

    /// What the game is and how it can be solved, with its default parameters.
    pub fn capabilities(&self) -> Capabilities {
        let game = self.default_game();
        with_game!(&game, g => g.capabilities())
    }

    /// The registered game called `name` (case-insensitive; `-` and `_` ignored).
    pub fn find(name: &str) -> Option<&'static GameInfo> {
        let key = normalize(name);
        GAMES.iter().find(|g| g.answers_to(&key))
    }

    /// Whether the game takes the parameter `key`.
    pub fn takes(&self, key: &str) -> bool {
        self.fields.iter().any(|(k, _)| *k == key)
    }

    fn answers_to(&self, key: &str) -> bool {
        normalize(self.name) == key || self.aliases.iter().any(|a| normalize(a) == key)
    }
}

fn defaults<S: GameSpec>() -> toml::Table {
    match toml::Value::try_from(S::default()) {
        Ok(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    }
}

fn resolve<S: GameSpec>(table: toml::Table) -> Result<toml::Table, GameSpecError> {
    let params =
        S::deserialize(toml::Value::Table(table)).map_err(|e| bad::<S>(None, e.to_string()))?;
    match toml::Value::try_from(params) {
        Ok(toml::Value::Table(t)) => Ok(t),
        _ => Ok(toml::Table::new()),
    }
}

fn build<S: GameSpec>(table: toml::Table) -> Result<AnyGame, GameSpecError>
where
    AnyGame: From<S::Game>,
{
    // An unknown key is found here, not from serde's message (which quotes it whole and lists
    // the fields without help): its name abbreviated, the closest field suggested.
    let fields = || S::FIELDS.iter().map(|(f, _)| *f);
    if let Some(key) = table.keys().find(|k| !fields().any(|f| f == k.as_str())) {
        let message = format!(
            "unknown field `{}`{}",
            abbreviated(key, 100),
            did_you_mean(key, fields())
        );
        return Err(bad::<S>(Some(key.clone()), message));
    }
    let params = S::deserialize(toml::Value::Table(table)).map_err(|e| {
        // TOML names the key on a line of its own ("in `size`"): it leads the message here.
        let message = e.to_string();
        let message = message.trim_end();
        match message.rsplit_once('\n') {
            Some((what, at)) if at.starts_with("in `") && at.ends_with('`') => {
                let key = &at["in `".len()..at.len() - 1];
                bad::<S>(Some(key.to_string()), format!("{key}: {what}"))
            }
            _ => bad::<S>(None, message.to_string()),
        }
    })?;
    params
        .build()
        .map(AnyGame::from)
        .map_err(|e| bad::<S>(Some(e.key.to_string()), e.to_string()))
}

fn bad<S: GameSpec>(key: Option<String>, message: String) -> GameSpecError {
    // The parameter list helps where the key is unknown; a bad value of a known key needs
    // only its own message.
    let known = key.as_deref().is_some_and(|k| {
        let field = k.split('.').next().unwrap_or(k);
        S::FIELDS.iter().any(|(f, _)| *f == field)
    });
    let params = if known {
        String::new()
    } else {
        GAMES
            .iter()
            .find(|g| g.name == S::NAME)
            .map_or_else(String::new, |g| {
                format!(" (parameters: {})", g.params_help())
            })
    };
    GameSpecError::BadParams {
        game: S::NAME.to_string(),
        key,
        message: plain_words(message.trim()),
        params,
    }
}

/// Names are case-insensitive and ignore `-` and `_` ("Tic-Tac-Toe" is tictactoe).
fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Each game's position notation, for the help of the commands that take `--state` (`moves`,
/// `play`, `solve`): what `moves` writes, these read.
pub fn notation_help() -> String {
    "Positions (--state) in each game's notation; `start` is the start:\n  \
tictactoe      the rows from the top separated by /, x, o or . per cell: `x.o/.x./...` \
(the side to move follows from the counts)\n  \
hexapawn       the rows from the top (Black's home rank first), w, b or . per square, then the \
side to move: `bbb/.w./w.w b` (the rows and columns are the board's)\n  \
fox-hounds     the rows from the top as the board is drawn, f (fox), h (hound) or . on every \
square, then the side to move: `..f./..../..../.h.h fox` (the size is the board's); hasenspiel: \
w (white's rabbit) and b (black pawns), `white` or `black`\n  \
dice-race      every runner's square in seat order, the runner to act, and the roll once rolled: \
`2,1,3 red 3` (the runners are the squares')\n  \
hackenbush     the standing edges as a CGSuite graph string, then the mover (left or right): \
`lrl right` (the graph becomes the game's position)\n  \
hase-und-igel  JSON: {\"to_move\": 0, \"round\": 12, \"hares\": [{\"cell\": 45, \"carrots\": 26, \
\"salads\": 2}, {\"cell\": 29, \"carrots\": 19, \"salads\": 0, \"skip\": true}]}; per hare: cell, \
carrots, salads, and optional eat (eats a salad next turn), skip (misses the next turn), place \
(finishing place, on the goal); optional: to_move (seat or colour), round, phase (move, card, \
choice, over), paid, extra, and any game parameter (board, players, carrots, salads, deck, end, \
max_rounds), as `moves --json` writes them\n\
A position is given as text or as a file holding it."
        .to_string()
}

/// A game name or parameter that does not make a game.
#[derive(Debug, Error, PartialEq)]
pub enum GameSpecError {
    #[error(
        "unknown game `{}`{}; the games are: {}",
        abbreviated(name, 100),
        did_you_mean(name, every_name()),
        game_names()
    )]
    UnknownGame { name: String },
    #[error("{game}: {message}{params}")]
    BadParams {
        game: String,
        /// The parameter at fault, when known.
        key: Option<String>,
        message: String,
        /// " (parameters: …)" where the key is not one of the game's, else empty.
        params: String,
    },
}

/// Every name and alias a game answers to.
fn every_name() -> impl Iterator<Item = &'static str> {
    GAMES
        .iter()
        .flat_map(|g| std::iter::once(g.name).chain(g.aliases.iter().copied()))
}

fn game_names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

impl AnyGame {
    /// The game called `name` with the given parameters (unknown parameters are errors).
    /// Names are case-insensitive; `-` and `_` are ignored ("tic-tac-toe" works).
    pub fn from_spec(name: &str, table: toml::Table) -> Result<AnyGame, GameSpecError> {
        GameInfo::find(name)
            .ok_or_else(|| GameSpecError::UnknownGame {
                name: name.to_string(),
            })?
            .build(table)
    }

    pub fn name(&self) -> &'static str {
        with_game!(self, g => g.name())
    }

    /// The parameters `params` (of the game registered as `name`, which built this game) with
    /// every default filled in: the typed parameters' own, then what the game itself reports for
    /// those whose default depends on the others (Hase und Igel's `carrots`). Building the game
    /// from them gives the same game.
    pub fn resolved_params(
        &self,
        name: &str,
        params: toml::Table,
    ) -> Result<toml::Table, GameSpecError> {
        let info = GameInfo::find(name).ok_or_else(|| GameSpecError::UnknownGame {
            name: name.to_string(),
        })?;
        let mut table = info.resolve(params)?;
        let reported = with_game!(self, g => g.params());
        for (key, _) in info.fields {
            if table.contains_key(*key) {
                continue;
            }
            let value = match reported.get(*key) {
                Some(serde_json::Value::Number(n)) => match n.as_i64() {
                    Some(i) => toml::Value::Integer(i),
                    None => match n.as_f64() {
                        Some(f) => toml::Value::Float(f),
                        None => continue,
                    },
                },
                Some(serde_json::Value::String(s)) => toml::Value::String(s.clone()),
                Some(serde_json::Value::Bool(b)) => toml::Value::Boolean(*b),
                _ => continue,
            };
            table.insert(key.to_string(), value);
        }
        Ok(table)
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
        let err = AnyGame::from_spec("hexapwan", toml::Table::new()).unwrap_err();
        assert!(
            err.to_string().contains("(did you mean `hexapawn`?)"),
            "{err}"
        );
        let mut t = toml::Table::new();
        t.insert("colls".into(), 4.into());
        let err = AnyGame::from_spec("hexapawn", t).unwrap_err().to_string();
        assert!(
            err.contains("unknown field `colls` (did you mean `cols`?)"),
            "{err}"
        );
        let mut t = toml::Table::new();
        t.insert("rows".into(), 1.5.into());
        let err = AnyGame::from_spec("hexapawn", t).unwrap_err().to_string();
        assert!(
            err.contains("rows: got `1.5`, expected a whole number"),
            "{err}"
        );
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

    /// A game's name is written once, in its spec: every game a spec builds answers to a
    /// registered name (its own, or the spec it shares a type with: octapawn is a Hexapawn).
    #[test]
    fn every_game_answers_to_a_registered_name() {
        for info in GAMES {
            let game = info.default_game();
            assert!(
                GAMES.iter().any(|g| g.name == game.name()),
                "{} builds a game named {}",
                info.name,
                game.name()
            );
            assert!(GameInfo::find(game.name()).is_some(), "{}", game.name());
        }
    }
}
