//! What the fronts other than the command line reach (the Python package in `python/`): a game
//! chosen at run time by name and parameters, whose positions travel behind one type
//! ([`DynState`]) and are checked against the game that made them. Every answer comes from the
//! game's own rules (no rule exists twice), and every input a front can pass is checked here,
//! so that no input from Python reaches a panic: a position of another game, an illegal action,
//! an action number out of range, a player that does not exist are each an [`FrontError`].

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use thiserror::Error;

mod aec;
mod crew;
mod picture;
mod solution;
pub mod study;
mod vector;
pub use aec::DynAec;
pub use picture::{MAX_SIDE, Picture};
pub use solution::{BestResponse, DynSolution, Evaluation, Illegal, Opponent, Output, PolicyTable};
pub use vector::{Autoreset, Batch, DynVector, EpisodeRecord, ExternalPlayer, OpponentSpec};

use crate::ai::players::{check_fuzz, computer_player};
use crate::core::game::{Action, Game, IllegalAction, Player, Turn};
use crate::core::notation::position_text;
use crate::core::policy::{Policy, draw_outcome};
pub use crate::core::random::{SgRng, rng};
use crate::games::{AnyGame, GameInfo, GameSpecError};
use crate::io::hash::{FNV_OFFSET, fnv1a};
/// Messages in a reader's words, as the library writes its own.
pub use crate::io::text::{abbreviated, plain_words, quote_short};

/// The Parquet files of runs and agents as a host without polars writes and reads them: the
/// codec it registers and the tables the codec is handed.
pub mod parquet {
    pub use crate::io::parquet::{Codec, set_codec};
    pub use crate::io::table::{Table, Text, Values};
}
use crate::truth::oracle::Oracle;
use crate::truth::{Solve, SolveOptions};

/// What a front asked for that cannot be.
#[derive(Debug, Error)]
pub enum FrontError {
    /// No such game, or parameters it does not take.
    #[error(transparent)]
    Game(#[from] GameSpecError),
    /// A position made by another game (or by the same game with other parameters).
    #[error("this position is one of {made_by}, not of {this}")]
    ForeignState { made_by: String, this: String },
    /// An action that is not legal where it was played.
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
    /// An illegal action given to one environment of a [`DynVector`].
    #[error("environment {env}: {source}")]
    IllegalIn { env: usize, source: IllegalAction },
    /// A player number the game does not have.
    #[error("{game} has players 0..{players}; there is no player {player}")]
    NoPlayer {
        game: &'static str,
        players: usize,
        player: i64,
    },
    /// A position in the game's notation that does not read.
    #[error("{0}")]
    Notation(String),
    /// A request refused with its reason: a computer player that cannot be made or cannot
    /// move, a game too big to solve, a position number out of range, a policy table that is
    /// not one.
    #[error("{0}")]
    Refused(String),
}

/// A position of some game, behind one type: cheap to clone (shared), compared and hashed as
/// the game's own positions are.
#[derive(Clone)]
pub struct DynState {
    /// The [`DynGame::id`] of the game that made it.
    game: u64,
    state: Arc<dyn StateObject>,
}

/// A game's position type seen through a trait object: what [`DynState`] needs of it.
trait StateObject: Any + Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    fn equals(&self, other: &dyn StateObject) -> bool;
    fn hash_value(&self) -> u64;
}

impl<S: Clone + Eq + Hash + fmt::Debug + Send + Sync + 'static> StateObject for S {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn equals(&self, other: &dyn StateObject) -> bool {
        other.as_any().downcast_ref::<S>() == Some(self)
    }
    fn hash_value(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }
}

impl PartialEq for DynState {
    fn eq(&self, other: &Self) -> bool {
        self.game == other.game && self.state.equals(other.state.as_ref())
    }
}

impl Eq for DynState {}

impl Hash for DynState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.game.hash(h);
        self.state.hash_value().hash(h);
    }
}

impl fmt::Debug for DynState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.state.fmt(f)
    }
}

/// Who acts at a position, as OpenSpiel numbers it: a player, chance (-1) or nobody (-4).
pub const CHANCE_PLAYER: i64 = -1;
/// See [`CHANCE_PLAYER`].
pub const TERMINAL_PLAYER: i64 = -4;

/// A registered game chosen at run time.
#[derive(Clone)]
pub struct DynGame {
    game: AnyGame,
    info: &'static GameInfo,
    /// FNV-1a of the name and the parameters: positions of two games with equal ids are
    /// interchangeable.
    id: u64,
    /// The parameters as given (see [`DynGame::given_params`]).
    given: toml::Table,
}

/// Two games are equal where their names and parameters are: their positions are
/// interchangeable (what a game rebuilt from its name and parameters in another process needs).
impl PartialEq for DynGame {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for DynGame {}

impl Hash for DynGame {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.id.hash(h);
    }
}

impl fmt::Debug for DynGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl DynGame {
    /// The game called `name` (any of its names and aliases, as on the command line) with
    /// `params` (missing ones take their defaults; unknown or invalid ones are errors).
    pub fn new(name: &str, params: toml::Table) -> Result<DynGame, FrontError> {
        let info = GameInfo::find(name).ok_or_else(|| GameSpecError::UnknownGame {
            name: name.to_string(),
        })?;
        let game = info.build(params.clone())?;
        let described = format!("{} {}", info.name, with_game!(&game, g => g.params()));
        Ok(DynGame {
            game,
            info,
            id: fnv1a(FNV_OFFSET, described.as_bytes()),
            given: params,
        })
    }

    pub fn info(&self) -> &'static GameInfo {
        self.info
    }

    /// The parameters as they were given to [`DynGame::new`], defaults not filled in: with
    /// [`GameInfo::name`] they make this game again (an equal one), where [`DynGame::params`]
    /// need not (a Hackenbush game that deals names its boards there beside what dealt them).
    pub fn given_params(&self) -> &toml::Table {
        &self.given
    }

    /// The game itself, for code generic over [`Game`] (through `with_game!`).
    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    /// The game's parameters, every default filled in.
    pub fn params(&self) -> serde_json::Value {
        with_game!(&self.game, g => g.params())
    }

    pub fn name(&self) -> &'static str {
        with_game!(&self.game, g => g.name())
    }

    pub fn num_players(&self) -> usize {
        with_game!(&self.game, g => g.num_players())
    }

    pub fn player_names(&self) -> Vec<&'static str> {
        with_game!(&self.game, g => (0..g.num_players()).map(|p| g.player_name(p)).collect())
    }

    pub fn num_distinct_actions(&self) -> usize {
        with_game!(&self.game, g => g.num_distinct_actions())
    }

    pub fn observation_len(&self) -> usize {
        with_game!(&self.game, g => g.observation_len())
    }

    /// Whether the game has chance events.
    pub fn has_chance(&self) -> bool {
        with_game!(&self.game, g => g.capabilities().chance)
    }

    fn wrap<S: Clone + Eq + Hash + fmt::Debug + Send + Sync + 'static>(&self, s: S) -> DynState {
        DynState {
            game: self.id,
            state: Arc::new(s),
        }
    }

    /// `state` as a position of `game` (this game), or the error that it is another's.
    fn unwrap<'s, G: Game>(
        &self,
        _game: &G,
        state: &'s DynState,
    ) -> Result<&'s G::State, FrontError> {
        let foreign = || FrontError::ForeignState {
            made_by: format!("another game ({:?})", state.state),
            this: self.describe(),
        };
        if state.game != self.id {
            return Err(foreign());
        }
        state
            .state
            .as_any()
            .downcast_ref::<G::State>()
            .ok_or_else(foreign)
    }

    /// "fox-hounds {size = 8, …}": the game and its parameters.
    pub fn describe(&self) -> String {
        format!("{} {}", self.name(), self.params())
    }

    pub fn initial_state(&self) -> DynState {
        with_game!(&self.game, g => self.wrap(g.initial_state()))
    }

    /// Who acts: a player's number, [`CHANCE_PLAYER`] or [`TERMINAL_PLAYER`].
    pub fn current_player(&self, state: &DynState) -> Result<i64, FrontError> {
        with_game!(&self.game, g => {
            Ok(match g.turn(self.unwrap(g, state)?) {
                Turn::Player(p) => p as i64,
                Turn::Chance => CHANCE_PLAYER,
                Turn::Terminal => TERMINAL_PLAYER,
            })
        })
    }

    pub fn is_terminal(&self, state: &DynState) -> Result<bool, FrontError> {
        Ok(self.current_player(state)? == TERMINAL_PLAYER)
    }

    pub fn is_chance_node(&self, state: &DynState) -> Result<bool, FrontError> {
        Ok(self.current_player(state)? == CHANCE_PLAYER)
    }

    /// Whether a terminal position was reached by a cap in the rules (a round cap): an
    /// environment reports it as truncation.
    pub fn is_cut_off(&self, state: &DynState) -> Result<bool, FrontError> {
        with_game!(&self.game, g => Ok(g.is_cut_off(self.unwrap(g, state)?)))
    }

    /// The legal actions in ascending order (empty unless a player is to move).
    pub fn legal_actions(&self, state: &DynState) -> Result<Vec<Action>, FrontError> {
        with_game!(&self.game, g => {
            let mut out = Vec::new();
            g.legal_actions(self.unwrap(g, state)?, &mut out);
            Ok(out)
        })
    }

    /// The chance outcomes and their probabilities (empty unless chance acts).
    pub fn chance_outcomes(&self, state: &DynState) -> Result<Vec<(Action, f64)>, FrontError> {
        with_game!(&self.game, g => {
            let mut out = Vec::new();
            g.chance_outcomes(self.unwrap(g, state)?, &mut out);
            Ok(out)
        })
    }

    /// The position after `action` (a legal action, or a chance outcome where chance acts);
    /// anything else is an error that lists what is legal.
    pub fn apply(&self, state: &DynState, action: i64) -> Result<DynState, FrontError> {
        with_game!(&self.game, g => {
            let s = self.unwrap(g, state)?;
            let next = match Action::try_from(action) {
                Ok(a) => g.try_apply(s, a)?,
                Err(_) => return Err(g.illegal(s, action.to_string()).into()),
            };
            Ok(self.wrap(next))
        })
    }

    /// `state` after the chance events that follow it, drawn with `rng`: a position where a
    /// player acts or the game is over.
    pub fn settle(&self, state: DynState, rng: &mut SgRng) -> Result<DynState, FrontError> {
        with_game!(&self.game, g => {
            let mut s = self.unwrap(g, &state)?;
            if g.turn(s) != Turn::Chance {
                return Ok(state);
            }
            let mut outcomes = Vec::new();
            let mut next;
            loop {
                g.chance_outcomes(s, &mut outcomes);
                next = g.apply(s, draw_outcome(&outcomes, rng));
                if g.turn(&next) != Turn::Chance {
                    return Ok(self.wrap(next));
                }
                s = &next;
            }
        })
    }

    /// The payoffs at a terminal position (zeros elsewhere).
    pub fn returns(&self, state: &DynState) -> Result<Vec<f64>, FrontError> {
        with_game!(&self.game, g => Ok(g.returns(self.unwrap(g, state)?).as_slice().to_vec()))
    }

    fn seat(&self, player: i64) -> Result<Player, FrontError> {
        usize::try_from(player)
            .ok()
            .filter(|&p| p < self.num_players())
            .ok_or(FrontError::NoPlayer {
                game: self.name(),
                players: self.num_players(),
                player,
            })
    }

    /// The game's numeric encoding of the position from `player`'s point of view
    /// ([`Game::observe`]), [`DynGame::observation_len`] numbers.
    pub fn observation(&self, state: &DynState, player: i64) -> Result<Vec<f32>, FrontError> {
        let p = self.seat(player)?;
        with_game!(&self.game, g => {
            let s = self.unwrap(g, state)?;
            let mut out = vec![0.0; g.observation_len()];
            g.observe(s, p, &mut out);
            Ok(out)
        })
    }

    /// The bounds of each number of [`DynGame::observation`] (low, high; infinite where the
    /// rules set none).
    pub fn observation_bounds(&self) -> (Vec<f32>, Vec<f32>) {
        with_game!(&self.game, g => {
            let n = g.observation_len();
            let (mut low, mut high) = (vec![0.0; n], vec![0.0; n]);
            g.observation_bounds(&mut low, &mut high);
            (low, high)
        })
    }

    /// The action in the game's notation; an action that is neither legal nor a chance
    /// outcome here is an error.
    pub fn action_to_string(&self, state: &DynState, action: i64) -> Result<String, FrontError> {
        self.apply(state, action)?;
        with_game!(&self.game, g => Ok(g.action_to_string(self.unwrap(g, state)?, action as Action)))
    }

    /// The action a person typed (the game's notation, case-insensitive).
    pub fn string_to_action(&self, state: &DynState, text: &str) -> Result<Action, FrontError> {
        with_game!(&self.game, g => {
            g.parse_action(self.unwrap(g, state)?, text).map_err(|mut e| {
                // The input may be megabytes long: the message quotes its start.
                e.action = abbreviated(&e.action, 100);
                e.into()
            })
        })
    }

    /// The position drawn as a person draws the board.
    pub fn render(&self, state: &DynState) -> Result<String, FrontError> {
        with_game!(&self.game, g => Ok(g.render(self.unwrap(g, state)?)))
    }

    /// The position in the game's notation (what the command line's `--state` reads).
    pub fn write_position(&self, state: &DynState) -> Result<String, FrontError> {
        with_game!(&self.game, g => {
            let s = self.unwrap(g, state)?;
            position_text(g, s).ok_or_else(|| {
                FrontError::Notation(format!("{} has no position notation", g.name()))
            })
        })
    }

    /// A position in the game's notation, checked against its rules.
    pub fn read_position(&self, text: &str) -> Result<DynState, FrontError> {
        with_game!(&self.game, g => {
            let s = g.read_position(text).map_err(FrontError::Notation)?;
            Ok(self.wrap(s))
        })
    }

    /// The key that names the state exactly (what saved agents' `position` column holds): the
    /// notation, and in Hackenbush the board, standing edges and mover after ` @ `.
    pub fn write_state_key(&self, state: &DynState) -> Result<String, FrontError> {
        with_game!(&self.game, g => {
            let s = self.unwrap(g, state)?;
            g.write_state_key(s).ok_or_else(|| {
                FrontError::Notation(format!("{} has no position notation", g.name()))
            })
        })
    }

    /// The state a key names, checked against the rules.
    pub fn read_state_key(&self, text: &str) -> Result<DynState, FrontError> {
        with_game!(&self.game, g => {
            let s = g.read_state_key(text).map_err(FrontError::Notation)?;
            Ok(self.wrap(s))
        })
    }
}

/// A computer player of a [`DynGame`], by name: `optimal` (perfect play from the game's exact
/// solver; the FoxBox AI in Fox & Hounds), `greedy`, `random`, `mcts` with its settings, a saved
/// agent (`agent=PATH`), or search settings (`depth=3`), as `solvedgym play --ai` names them;
/// with `fuzz`, a random move with that probability.
pub struct DynPlayer {
    /// The [`DynGame::id`] of the game it plays.
    game: u64,
    name: String,
    player: Box<dyn Any + Send + Sync>,
}

/// A [`DynPlayer`] for one game type.
enum Held<G: Game> {
    /// The solver's strongest player, made afresh from the oracle at each move (it borrows it).
    Optimal(Box<dyn Oracle<G>>, f64),
    Policy(Box<dyn Policy<G>>),
}

impl fmt::Debug for DynPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl DynPlayer {
    /// What it plays ("fuzzy(p=0.1, optimal)", "random").
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The exact truth the `optimal` computer player plays from (refused with the numbers where the
/// game is too big to solve, as `solve` refuses it).
fn solve_for_optimal<G: Game + Solve>(g: &G) -> Result<Box<dyn Oracle<G>>, FrontError> {
    let options = SolveOptions {
        counts: false,
        ..SolveOptions::default()
    };
    g.solve(&options)
        .map_err(|e| FrontError::Refused(format!("optimal: {e}")))
}

impl DynGame {
    /// The computer player `ai` plays with `fuzz`; `optimal` solves the game first (refused
    /// with the numbers where the game is too big to solve, as `solve` refuses it).
    pub fn computer(&self, ai: &str, fuzz: f64) -> Result<DynPlayer, FrontError> {
        // The message may quote `ai`, which may be megabytes long: it quotes its start.
        let refused =
            |e: anyhow::Error| FrontError::Refused(quote_short(format!("{e:#}"), ai, 100));
        with_game!(&self.game, g => {
            if ai == "optimal" {
                check_fuzz(fuzz).map_err(refused)?;
                let oracle = solve_for_optimal(g)?;
                let name = oracle.strong_policy(fuzz).name();
                return Ok(DynPlayer {
                    game: self.id,
                    name,
                    player: Box::new(Held::Optimal(oracle, fuzz)),
                });
            }
            let policy = computer_player(g, ai, fuzz, None).map_err(refused)?;
            Ok(DynPlayer {
                game: self.id,
                name: policy.name(),
                player: Box::new(Held::Policy(policy)),
            })
        })
    }

    /// The move `player` makes at `state` (a player's turn), drawn with `seed`; `None` where
    /// it resigns.
    pub fn choose(
        &self,
        player: &DynPlayer,
        state: &DynState,
        seed: u64,
    ) -> Result<Option<Action>, FrontError> {
        with_game!(&self.game, g => {
            let s = self.unwrap(g, state)?;
            let held = player.player.downcast_ref::<Held<_>>();
            let held: &Held<_> = match held.filter(|_| player.game == self.id) {
                Some(h) => h,
                None => {
                    return Err(FrontError::Refused(format!(
                        "the player {} was made for another game",
                        player.name
                    )))
                }
            };
            if g.turn(s).player().is_none() {
                return Err(FrontError::Refused(format!(
                    "{} cannot move here: no player is to move",
                    player.name
                )));
            }
            let mut legal = Vec::new();
            g.legal_actions(s, &mut legal);
            let mut rng = crate::core::random::rng(seed);
            Ok(match held {
                Held::Optimal(oracle, fuzz) => {
                    oracle.strong_policy(*fuzz).choose(g, s, &legal, &mut rng)
                }
                Held::Policy(p) => p.choose(g, s, &legal, &mut rng),
            })
        })
    }
}

/// A saved agent opened for a front: what its file says, the game it was saved from, its play
/// as a computer player (its learner's greedy policy, as `--ai agent=PATH` plays it), and the
/// file's bytes as they were read (what the agent is in another process: [`DynAgent::restore`]).
pub struct DynAgent {
    pub path: std::path::PathBuf,
    pub header: crate::learn::saved::AgentHeader,
    pub game: DynGame,
    pub player: DynPlayer,
    /// The file's contents, the very bytes the header and the learner were read from.
    pub contents: Vec<u8>,
}

impl DynAgent {
    /// Opens the agent at `path` (its learner restored and checked, as `solvedgym evaluate`
    /// and `--ai agent=PATH` open it) on the game and parameters its header names, and keeps
    /// the file's bytes ([`DynAgent::contents`]), read once it has opened as an agent (so that
    /// no other file is read whole). A file replaced meanwhile (another size or modification
    /// time than before it was opened) is refused, so that the contents are what was opened.
    pub fn load(path: &std::path::Path) -> Result<DynAgent, FrontError> {
        let stamp = |path: &std::path::Path| {
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.len(), m.modified().ok()))
        };
        let before = stamp(path);
        let mut agent = Self::open(path)?;
        let contents = std::fs::read(path)
            .map_err(|e| FrontError::Refused(format!("{}: {e}", path.display())))?;
        if before.is_none()
            || before != stamp(path)
            || before.map(|(len, _)| len) != Some(contents.len() as u64)
        {
            return Err(FrontError::Refused(format!(
                "{}: the file changed while it was read; open it again",
                path.display()
            )));
        }
        agent.contents = contents;
        Ok(agent)
    }

    /// The agent whose file held `contents` and was at `path` where it was opened (a pickled
    /// agent, in another process or on another machine). Opened from `path` itself where that
    /// file still holds these very bytes (so its `path` and `spec` stay the same); else from a
    /// copy written to the temporary folder (`solvedgym-agents/`, named by a hash of the
    /// contents and the file's name), which is kept: the copy's `agent=PATH` names a file that
    /// an environment's opponent can open later. The agent opened is checked to be these bytes.
    pub fn restore(path: &std::path::Path, contents: &[u8]) -> Result<DynAgent, FrontError> {
        // A file of another size (or no file) here is not read at all.
        let same_size =
            std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == contents.len() as u64);
        if same_size
            && std::fs::read(path).is_ok_and(|on_disk| on_disk == contents)
            && let Ok(agent) = Self::load(path)
            && agent.contents == contents
        {
            return Ok(agent);
        }
        let failed = |what: &str, e: &dyn fmt::Display| {
            FrontError::Refused(format!(
                "the agent of {} ({} bytes) could not be {what}: {e}",
                abbreviated(&path.display().to_string(), 100),
                contents.len(),
            ))
        };
        let dir = std::env::temp_dir().join("solvedgym-agents");
        std::fs::create_dir_all(&dir).map_err(|e| failed("copied to a temporary file", &e))?;
        // The shared temporary folder is anyone's: a `solvedgym-agents` that is a link (to a
        // folder elsewhere) is refused, never written through.
        if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_dir()) {
            return Err(failed(
                "copied to a temporary file",
                &format!("{} is not a folder (a link is not followed)", dir.display()),
            ));
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| n.len() <= 100)
            .unwrap_or("agent.parquet");
        let copy = dir.join(format!("{:016x}-{name}", fnv1a(FNV_OFFSET, contents)));
        let held = std::fs::metadata(&copy)
            .is_ok_and(|m| m.is_file() && m.len() == contents.len() as u64)
            && std::fs::read(&copy).is_ok_and(|held| held == contents);
        if !held {
            // Written whole under a name of its own, then renamed: a process opening the copy
            // at the same time sees the old file or the new one, never half of one.
            let write = || -> std::io::Result<()> {
                use std::io::Write;
                let mut file = tempfile::NamedTempFile::new_in(&dir)?;
                file.write_all(contents)?;
                file.persist(&copy).map_err(|e| e.error)?;
                Ok(())
            };
            write().map_err(|e| failed("copied to a temporary file", &e))?;
        }
        let agent = Self::load(&copy)?;
        if agent.contents != contents {
            return Err(failed(
                "opened",
                &format!("{} changed while it was read", copy.display()),
            ));
        }
        Ok(agent)
    }

    fn open(path: &std::path::Path) -> Result<DynAgent, FrontError> {
        let refused = |e: anyhow::Error| FrontError::Refused(format!("{e:#}"));
        let header = crate::learn::saved::read_header(path).map_err(refused)?;
        let params: toml::Table =
            serde_json::from_value(header.game_params.clone()).map_err(|e| {
                FrontError::Refused(format!(
                    "{}: the game's parameters {} do not read: {e}",
                    path.display(),
                    header.game_params
                ))
            })?;
        let game = DynGame::new(&header.game, params)?;
        let text = path.to_str().ok_or_else(|| {
            FrontError::Refused(format!("{}: a path that is not UTF-8", path.display()))
        })?;
        let player = game.computer(&format!("agent={text}"), 0.0)?;
        Ok(DynAgent {
            path: path.to_path_buf(),
            header,
            game,
            player,
            contents: Vec::new(),
        })
    }

    /// The computer player's name for it (`agent=PATH`): an environment's `opponent`.
    pub fn spec(&self) -> String {
        format!("agent={}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn game(name: &str) -> DynGame {
        DynGame::new(name, toml::Table::new()).unwrap()
    }

    #[test]
    fn every_registered_game_plays_through_the_front() {
        let capped = DynGame::new("hase-und-igel", toml::toml! { max_rounds = 2 }).unwrap();
        let games = crate::games::GAMES.iter().map(|info| game(info.name));
        for g in games.chain([capped]) {
            let info = g.info();
            let (low, high) = g.observation_bounds();
            let within = |obs: &[f32]| {
                let out = (0..obs.len()).find(|&i| !(low[i] <= obs[i] && obs[i] <= high[i]));
                assert!(
                    out.is_none(),
                    "{}: observation {obs:?} out of bounds at {out:?}",
                    info.name
                );
            };
            let mut s = g.initial_state();
            let mut rng = crate::core::random::rng(7);
            for _ in 0..400 {
                let player = g.current_player(&s).unwrap();
                for p in 0..g.num_players() {
                    within(&g.observation(&s, p as i64).unwrap());
                }
                if player == TERMINAL_PLAYER {
                    assert_eq!(g.returns(&s).unwrap().len(), g.num_players());
                    break;
                }
                let actions: Vec<i64> = if player == CHANCE_PLAYER {
                    g.chance_outcomes(&s)
                        .unwrap()
                        .iter()
                        .map(|&(a, _)| a as i64)
                        .collect()
                } else {
                    let obs = g.observation(&s, player).unwrap();
                    assert_eq!(obs.len(), g.observation_len());
                    g.legal_actions(&s)
                        .unwrap()
                        .iter()
                        .map(|&a| a as i64)
                        .collect()
                };
                let a = actions[rng.random_range(0..actions.len())];
                assert!(!g.action_to_string(&s, a).unwrap().is_empty());
                s = g.apply(&s, a).unwrap();
                if let Ok(text) = g.write_position(&s) {
                    let back = g.read_position(&text).unwrap();
                    assert_eq!(g.write_position(&back).unwrap(), text, "{}", info.name);
                }
            }
        }
    }

    #[test]
    fn foreign_states_illegal_actions_and_players_are_errors() {
        let ttt = game("tictactoe");
        let hex = game("hexapawn");
        let s = hex.initial_state();
        assert!(matches!(
            ttt.legal_actions(&s),
            Err(FrontError::ForeignState { .. })
        ));
        // The same game with other parameters is another game.
        let big = DynGame::new("hexapawn", toml::toml! { rows = 4 cols = 4 }).unwrap();
        assert!(big.apply(&s, 0).is_err());
        // Equal parameters: interchangeable.
        assert_eq!(
            game("hexapawn").legal_actions(&s).unwrap(),
            hex.legal_actions(&s).unwrap()
        );
        let t = ttt.initial_state();
        for bad in [-1, 9, 1 << 40, i64::MIN, i64::MAX] {
            let e = ttt.apply(&t, bad).unwrap_err().to_string();
            assert!(e.contains("legal actions: a3"), "{e}");
            assert!(ttt.action_to_string(&t, bad).is_err());
        }
        let played = ttt.apply(&t, 4).unwrap();
        assert!(ttt.apply(&played, 4).is_err(), "a taken square");
        for p in [-1, 2, i64::MAX] {
            assert!(matches!(
                ttt.observation(&t, p),
                Err(FrontError::NoPlayer { .. })
            ));
        }
        assert!(DynGame::new("chess", toml::Table::new()).is_err());
        assert!(DynGame::new("fox-hounds", toml::toml! { size = 7 }).is_err());
        assert!(ttt.read_position("x.o/.x./...!").is_err());
    }

    #[test]
    fn computer_players_play_their_own_game_only() {
        let ttt = game("tictactoe");
        let optimal = ttt.computer("optimal", 0.0).unwrap();
        let random = ttt.computer("random", 0.0).unwrap();
        assert_eq!(random.name(), "random");
        // Perfect play against random play never loses, from either seat.
        for seed in 0..20u64 {
            let mut s = ttt.initial_state();
            let mut k = 0;
            while !ttt.is_terminal(&s).unwrap() {
                let who = ttt.current_player(&s).unwrap();
                let p = if (who as u64 + seed).is_multiple_of(2) {
                    &optimal
                } else {
                    &random
                };
                let a = ttt.choose(p, &s, seed * 100 + k).unwrap().unwrap();
                s = ttt.apply(&s, a as i64).unwrap();
                k += 1;
            }
            let optimal_seat = (seed % 2) as usize;
            assert!(ttt.returns(&s).unwrap()[optimal_seat] >= 0.0);
        }
        assert!(
            ttt.computer("greedy", 0.0).is_err(),
            "tic-tac-toe has no heuristic"
        );
        assert!(ttt.computer("optimal", 1.5).is_err());
        assert!(ttt.computer("depth=x", 0.0).is_err());
        let other = DynGame::new("hexapawn", toml::Table::new()).unwrap();
        assert!(other.choose(&optimal, &other.initial_state(), 1).is_err());
        let big = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        assert!(
            big.choose(&optimal, &big.initial_state(), 1).is_ok(),
            "equal games"
        );
        let over = ["xxx/oo./...", "x"]
            .iter()
            .find_map(|t| ttt.read_position(t).ok());
        if let Some(over) = over {
            assert!(ttt.choose(&random, &over, 1).is_err());
        }
    }

    #[test]
    fn games_are_equal_where_their_names_and_parameters_are() {
        use std::collections::HashSet;
        let small = DynGame::new("hexapawn", toml::toml! { rows = 3 cols = 3 }).unwrap();
        let again = DynGame::new(
            small.name(),
            serde_json::from_value(small.params()).unwrap(),
        );
        assert_eq!(small, again.unwrap());
        let deals = DynGame::new("hackenbush", toml::toml! { random = 3 edges = 6 }).unwrap();
        let again = DynGame::new(deals.info().name, deals.given_params().clone()).unwrap();
        assert_eq!(deals, again);
        let octapawn = DynGame::new("octapawn", toml::Table::new()).unwrap();
        let again = DynGame::new(octapawn.info().name, octapawn.given_params().clone());
        assert_eq!(octapawn, again.unwrap());
        assert_eq!(small, game("hexapawn"), "the defaults given or not");
        let big = DynGame::new("hexapawn", toml::toml! { rows = 4 cols = 4 }).unwrap();
        assert_ne!(small, big);
        assert_ne!(game("tictactoe"), small);
        let set: HashSet<DynGame> = [small.clone(), game("hexapawn"), big].into_iter().collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn positions_compare_and_hash_as_the_games_do() {
        use std::collections::HashSet;
        let g = game("tictactoe");
        let s = g.initial_state();
        let a = g.apply(&g.apply(&s, 0).unwrap(), 4).unwrap();
        let b = g.read_position(&g.write_position(&a).unwrap()).unwrap();
        assert_eq!(a, b);
        let set: HashSet<DynState> = [a.clone(), b, s.clone()].into_iter().collect();
        assert_eq!(set.len(), 2);
        assert_ne!(a, s);
        assert_ne!(s, game("hexapawn").initial_state());
    }
}
