//! The `Game` trait: the pure rules of a game (no randomness, no I/O), modelled on OpenSpiel's
//! Game/State split. Every game, solver, learner and evaluator in the crate speaks through it.
//!
//! A game has players `0..n` (2 to [`MAX_PLAYERS`]), a [`Turn`] at every state (a player, a
//! chance event, or the end), actions numbered `0..num_distinct_actions()` in a fixed
//! documented order, per-player returns at terminal states, a text rendering, optional board
//! symmetries and an optional dense state index.

use std::fmt::Debug;
use std::hash::Hash;

use serde::Serialize;
use thiserror::Error;

use crate::io::draw::{DrawError, Picture};

/// A player (seat) number, `0..game.num_players()`.
pub type Player = usize;

/// An action (or chance outcome) number in `0..game.num_distinct_actions()`.
pub type Action = u32;

/// The most players any game may have (Hase und Igel is played by up to six).
pub const MAX_PLAYERS: usize = 6;

/// Who acts at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// This player chooses one of the legal actions.
    Player(Player),
    /// Nature draws one of the chance outcomes with its probability.
    Chance,
    /// The game is over; returns are defined.
    Terminal,
}

impl Turn {
    pub fn player(self) -> Option<Player> {
        match self {
            Turn::Player(p) => Some(p),
            _ => None,
        }
    }
    pub fn is_terminal(self) -> bool {
        matches!(self, Turn::Terminal)
    }
}

/// Per-player payoffs at the end of a game (+1 win, -1 loss, 0 draw in two-player games).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Returns {
    values: [f64; MAX_PLAYERS],
    len: u8,
}

impl Returns {
    /// All-zero returns for `n` players (a draw, or "not over yet").
    #[inline]
    pub fn zeros(n: usize) -> Self {
        assert!(
            (1..=MAX_PLAYERS).contains(&n),
            "{n} players is outside 1..={MAX_PLAYERS}"
        );
        Returns {
            values: [0.0; MAX_PLAYERS],
            len: n as u8,
        }
    }
    pub fn from_slice(values: &[f64]) -> Self {
        let mut r = Returns::zeros(values.len());
        r.values[..values.len()].copy_from_slice(values);
        r
    }
    /// Zero-sum win for `winner` among `n` players: +1 for the winner, the -1 shared by the others.
    pub fn win(n: usize, winner: Player) -> Self {
        let mut r = Returns::zeros(n);
        for p in 0..n {
            r.values[p] = if p == winner {
                1.0
            } else {
                -1.0 / (n as f64 - 1.0)
            };
        }
        r
    }
    /// Zero-sum loss for `loser` (used for resignation): -1 for the loser, +1 shared by the others.
    pub fn loss(n: usize, loser: Player) -> Self {
        let mut r = Returns::zeros(n);
        for p in 0..n {
            r.values[p] = if p == loser {
                -1.0
            } else {
                1.0 / (n as f64 - 1.0)
            };
        }
        r
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len as usize]
    }
    pub fn set(&mut self, p: Player, v: f64) {
        self.values[..self.len as usize][p] = v;
    }
    /// The win/draw/loss class of player `p`: it wins if its payoff is strictly the largest,
    /// loses if someone has more, and draws if it shares the top.
    pub fn result_for(&self, p: Player) -> GameResult {
        let mine = self[p];
        let best_other = self
            .as_slice()
            .iter()
            .enumerate()
            .filter(|&(q, _)| q != p)
            .map(|(_, &v)| v)
            .fold(f64::NEG_INFINITY, f64::max);
        if mine > best_other {
            GameResult::Win
        } else if mine < best_other {
            GameResult::Loss
        } else {
            GameResult::Draw
        }
    }
    /// The single player with the strictly largest payoff, if there is one.
    pub fn winner(&self) -> Option<Player> {
        (0..self.len()).find(|&p| self.result_for(p) == GameResult::Win)
    }
}

impl std::ops::Index<Player> for Returns {
    type Output = f64;
    #[inline]
    fn index(&self, p: Player) -> &f64 {
        &self.as_slice()[p]
    }
}

/// Win, draw or loss from one player's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    Loss,
    Draw,
    Win,
}

/// An action that is not legal in the state it was applied to.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error(
    "illegal action {:?} for {player}; legal actions: {}",
    crate::io::text::abbreviated(.action, 100),
    legal_list(.legal)
)]
pub struct IllegalAction {
    /// What was asked for, as typed or as an action number.
    pub action: String,
    /// Who was to act ("white", "chance", "nobody: the game is over").
    pub player: String,
    /// The legal actions in the game's notation.
    pub legal: Vec<String>,
}

fn legal_list(legal: &[String]) -> String {
    const SHOWN: usize = 60;
    if legal.is_empty() {
        "none".to_string()
    } else if legal.len() <= SHOWN {
        legal.join(", ")
    } else {
        format!(
            "{}, … ({} in all)",
            legal[..SHOWN].join(", "),
            crate::io::text::group(&legal.len().to_string())
        )
    }
}

/// What a game is and how its truth can be found, in the spirit of OpenSpiel's `GameType`. The
/// experiment runner, the command line and config checking read it to choose a solver and an
/// evaluator, or to refuse early with the reason and the numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capabilities {
    pub players: usize,
    /// Whether nature moves (dice, cards).
    pub chance: bool,
    /// Whether nature only deals the start (a chance move before any player's, none after):
    /// enumeration still solves such a game, each dealt position exactly.
    pub deal: bool,
    /// Whether the returns of every end sum to zero.
    pub zero_sum: bool,
    /// What perfect play is measured in.
    pub truth: Truth,
    /// How the truth can be found.
    pub solver: Solver,
    /// Where states can repeat: the ply cap after which a game is cut off (truncated).
    pub max_plies: Option<u32>,
    /// An upper bound on the reachable states where the game knows one without enumerating.
    pub states_at_most: Option<u64>,
    /// A rough size where the game can only estimate one (not a bound, and generous: Hase und
    /// Igel's overshoots its small variant 650 times): enumeration is refused early where it is
    /// more than [`ESTIMATE_MARGIN`] times the state limit, and otherwise tried (the limit
    /// still stops it).
    pub states_estimate: Option<u64>,
}

/// How far a game's estimate of its states may exceed the state limit before enumeration is
/// refused without trying.
pub const ESTIMATE_MARGIN: u64 = 1000;

/// What a game's truth is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Truth {
    /// Who wins (or a draw), in how many plies.
    WinDrawLoss,
    /// A combinatorial-game value (a canonical form), from which the winner follows.
    CombinatorialValue,
    /// Each player's expected return (chance, more than two players).
    ExpectedReturns,
}

/// How a game can be solved exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Solver {
    /// Retrograde analysis over every reachable state (the generic solver): two players, no chance,
    /// no repeated states.
    Enumeration,
    /// The game's own exact solver (enumeration still serves small boards), with the command-line
    /// flags it takes.
    Own {
        name: &'static str,
        flags: &'static [&'static str],
    },
    /// No exact solver: search AIs and matches measure play.
    None,
}

impl Capabilities {
    /// A two-player game without chance that enumeration solves.
    pub fn enumerable(players: usize) -> Self {
        Capabilities {
            players,
            chance: false,
            deal: false,
            zero_sum: true,
            truth: Truth::WinDrawLoss,
            solver: if players == 2 {
                Solver::Enumeration
            } else {
                Solver::None
            },
            max_plies: None,
            states_at_most: None,
            states_estimate: None,
        }
    }

    /// Whether enumeration (and so the exact evaluator) applies at all: win/draw/loss truth for
    /// two players without chance (a deal aside), expected results over the state graph for
    /// games with chance or more players; never where states repeat.
    pub fn enumerable_at_all(&self) -> bool {
        self.max_plies.is_none()
            && self.solver != Solver::None
            && match self.truth {
                Truth::ExpectedReturns => true,
                _ => self.players == 2 && (!self.chance || self.deal),
            }
    }

    /// Why the exact evaluator cannot enumerate this game within `limit` states, if it cannot.
    pub fn enumeration_refusal(&self, limit: usize) -> Option<String> {
        if !self.enumerable_at_all() {
            let mut why = Vec::new();
            if self.players != 2 {
                why.push(format!("{} players", self.players));
            }
            if self.chance && !self.deal {
                why.push("chance".to_string());
            }
            if self.max_plies.is_some() {
                why.push("repeated states".to_string());
            }
            if why.is_empty() {
                why.push("no exact solver".to_string());
            }
            return Some(format!(
                "the exact solver enumerates two-player games without chance or repeated states; this game has {}",
                why.join(", ")
            ));
        }
        self.size_refusal(limit)
    }

    /// Why enumeration within `limit` states is refused before it starts: the game's bound or
    /// estimate of its states says it cannot fit (checked by [`crate::core::graph::StateGraph::build`]
    /// before it allocates anything).
    pub fn size_refusal(&self, limit: usize) -> Option<String> {
        let group = |n: u64| crate::io::text::group(&n.to_string());
        match (self.states_at_most, self.states_estimate) {
            (Some(n), _) if n > limit as u64 => Some(format!(
                "up to {} reachable positions, more than the {} the exact solver enumerates",
                group(n),
                group(limit as u64)
            )),
            (_, Some(n)) if n / ESTIMATE_MARGIN > limit as u64 => Some(format!(
                "{} reachable positions by the game's estimate (a rough or an upper bound), more than {} times the {} the exact solver enumerates",
                group(n),
                group(ESTIMATE_MARGIN),
                group(limit as u64)
            )),
            _ => None,
        }
    }
}

/// A game's board as cells with discrete contents ([`Game::board_cells`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardCells {
    /// The board's rows and columns.
    pub rows: usize,
    pub cols: usize,
    /// Each cell's square, `(row from the top, column from the left)`, in the order of
    /// [`Game::cell_values`]: every square of the grid, or some (the dark squares of a
    /// checkerboard). Cells whose squares touch (a king's step) are neighbours.
    pub squares: Vec<(usize, usize)>,
    /// How many contents a cell may have: contents are `0..values`, 0 an empty cell.
    pub values: u8,
}

impl BoardCells {
    /// Every square of a `rows` x `cols` grid, row by row from the top.
    pub fn grid(rows: usize, cols: usize, values: u8) -> Self {
        BoardCells {
            rows,
            cols,
            squares: (0..rows)
                .flat_map(|r| (0..cols).map(move |c| (r, c)))
                .collect(),
            values,
        }
    }
}

/// The rules of a game. Implementations are cheap to clone (parameters only) and hold no state
/// of play: states are values of [`Game::State`].
///
/// Contract checked by [`crate::core::check::check_game`]: at a `Turn::Player` state the legal
/// actions are non-empty and strictly ascending; at a `Turn::Chance` state the outcomes are
/// non-empty with probabilities summing to 1; `apply` of a legal action or outcome never fails;
/// returns are defined at terminal states.
///
/// # Implementation note
///
/// The methods come in five groups, in this order below:
/// 1. **The rules** (14 methods without a default): what every game writes, from
///    [`Game::name`] to [`Game::observe`].
/// 2. **More of the rules**, with defaults for games that lack them: chance outcomes, a round
///    cap, resignation, a position notation, board symmetries, a dense state index and the
///    [`Capabilities`] that say how the game can be solved.
/// 3. **Speed**: answers a game may give faster than the defaults (several at once, or read in
///    place), which must agree with the rules.
/// 4. **For the search and greedy players**: a heuristic, and how a finished seat is treated.
/// 5. **Provided**: built on the others (`try_apply`, `parse_action`, ...); not overridden.
///
/// The rules know nothing of solvers: a game's exact solver is the business of
/// [`Solve`](crate::truth::Solve), which every registered game implements beside its rules.
pub trait Game: Clone + Send + Sync + 'static {
    /// A position, including whose turn it is.
    type State: Clone + Eq + Ord + Hash + Debug + Send + Sync;

    // ===== 1. The rules: what every game writes.

    /// The game's command-line and config name, e.g. "hexapawn".
    fn name(&self) -> &'static str;

    /// The game's parameters as JSON (board size, rule variant), for reports.
    fn params(&self) -> serde_json::Value;

    fn num_players(&self) -> usize;

    /// The player's name as the game's literature uses it ("white", "x", "fox").
    fn player_name(&self, player: Player) -> &'static str;

    /// Size of the action space: every action number is below this.
    fn num_distinct_actions(&self) -> usize;

    fn initial_state(&self) -> Self::State;

    fn turn(&self, state: &Self::State) -> Turn;

    /// Clears `out` and fills it with the legal actions in ascending order (empty unless a
    /// player is to move).
    fn legal_actions(&self, state: &Self::State, out: &mut Vec<Action>);

    /// The state after `action`. The action must be legal (or a chance outcome); use
    /// [`Game::try_apply`] for input that may not be.
    fn apply(&self, state: &Self::State, action: Action) -> Self::State;

    /// Payoffs at a terminal state (zeros elsewhere).
    fn returns(&self, state: &Self::State) -> Returns;

    /// The action in the game's notation, e.g. "b2-b3".
    fn action_to_string(&self, state: &Self::State, action: Action) -> String;

    /// The state drawn as a person would draw the board.
    fn render(&self, state: &Self::State) -> String;

    /// Length of the observation vector produced by [`Game::observe`].
    fn observation_len(&self) -> usize;

    /// A fixed-length numeric encoding of the state from `player`'s point of view (for function
    /// approximation); `out.len() == observation_len()`.
    fn observe(&self, state: &Self::State, player: Player, out: &mut [f32]);

    /// Bounds of each number [`Game::observe`] writes (`low[i] <= out[i] <= high[i]`; infinite
    /// where there is none), as a Gymnasium `Box` space states them. Default: every number is in
    /// 0..=1 (planes of flags), which a game whose encoding says more overrides.
    fn observation_bounds(&self, low: &mut [f32], high: &mut [f32]) {
        low.fill(0.0);
        high.fill(1.0);
    }

    // ===== 2. More of the rules, where a game has them: chance, a round cap, resignation,
    // notation, symmetries, a dense index, what the game is (its capabilities), its picture and
    // its positions' combinatorial-game values.

    /// Clears `out` and fills it with the chance outcomes and their probabilities (empty unless
    /// `turn` is `Chance`).
    fn chance_outcomes(&self, state: &Self::State, out: &mut Vec<(Action, f64)>) {
        let _ = state;
        out.clear();
    }

    /// Whether a terminal `state` was reached by a cap in the rules (a round cap) rather than by
    /// the game's own end: environments report it as truncation, with the returns the rules
    /// give there.
    fn is_cut_off(&self, state: &Self::State) -> bool {
        let _ = state;
        false
    }

    /// Returns when `loser` resigns at `state` (default: a zero-sum loss for the resigner).
    fn resignation_returns(&self, state: &Self::State, loser: Player) -> Returns {
        let _ = state;
        Returns::loss(self.num_players(), loser)
    }

    /// What the game is and how it can be solved (by default: a deterministic game that
    /// enumeration solves when it has two players).
    fn capabilities(&self) -> Capabilities {
        Capabilities::enumerable(self.num_players())
    }

    /// Whether the player's name is a plural ("hounds"), so that sentences agree with it.
    fn player_name_is_plural(&self, player: Player) -> bool {
        let _ = player;
        false
    }

    /// A position in the game's written notation (JSON for Hase und Igel), checked against its
    /// rules; the error says what is wrong. By default a game has no position notation.
    fn read_position(&self, text: &str) -> Result<Self::State, String> {
        let _ = text;
        Err(format!("{} has no position notation", self.name()))
    }

    /// The position in the notation [`Game::read_position`] reads (`None`: the game has none).
    fn write_position(&self, state: &Self::State) -> Option<serde_json::Value> {
        let _ = state;
        None
    }

    /// The position as text that reads back to this very state ([`Game::read_state_key`]): the
    /// key saved agents file their positions under. By default the position's notation; a game
    /// whose notation may name two states (Hackenbush: a graph string names its graph up to
    /// mirror images, and one graph may stand on two dealt boards) writes more.
    fn write_state_key(&self, state: &Self::State) -> Option<String> {
        match self.write_position(state)? {
            serde_json::Value::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }

    /// The state [`Game::write_state_key`] wrote, checked against the rules; the error says
    /// what is wrong. By default the position's notation, read.
    fn read_state_key(&self, text: &str) -> Result<Self::State, String> {
        self.read_position(text)
    }

    /// A move in words ("forward 3 to cell 12 (number 3), pay 6"); by default its notation.
    fn describe_action(&self, state: &Self::State, action: Action) -> String {
        self.action_to_string(state, action)
    }

    /// A rule event a player's move triggers that statistics count by name (Hase und Igel's
    /// stuck rule); chance outcomes are counted by their names without this.
    fn move_event(&self, state: &Self::State, action: Action) -> Option<&'static str> {
        let _ = (state, action);
        None
    }

    /// Number of board symmetries (1 = only the identity). Symmetry 0 is the identity.
    fn num_symmetries(&self) -> usize {
        1
    }

    /// The state mapped by symmetry `sym`.
    fn transform_state(&self, state: &Self::State, sym: usize) -> Self::State {
        debug_assert_eq!(sym, 0);
        state.clone()
    }

    /// The action of `state` mapped by symmetry `sym` (an action of `transform_state(state, sym)`).
    fn transform_action(&self, state: &Self::State, action: Action, sym: usize) -> Action {
        let _ = state;
        debug_assert_eq!(sym, 0);
        action
    }

    /// The symmetry that undoes `sym`.
    fn inverse_symmetry(&self, sym: usize) -> usize {
        sym
    }

    /// The board as cells with discrete contents, where the game's observation is a board
    /// (`None`: it is not). [`Game::cell_values`] reads a position's cells. Learners over board
    /// features (n-tuple networks) read it; the symmetries of the board are those of
    /// [`Game::transform_state`].
    fn board_cells(&self) -> Option<BoardCells> {
        None
    }

    /// The content of each cell of [`Game::board_cells`] at `state` as `player` sees it, each
    /// below [`BoardCells::values`] (`out.len()` is the number of cells; only called when
    /// `board_cells` is `Some`). It says what [`Game::observe`] says, cell by cell.
    fn cell_values(&self, state: &Self::State, player: Player, out: &mut [u8]) {
        let _ = (state, player);
        out.fill(0);
    }

    /// Size of the dense state index, if the game has one: every state maps to an integer below it.
    fn state_index_len(&self) -> Option<usize> {
        None
    }

    /// The dense index of `state` (only called when `state_index_len` is `Some`).
    fn state_index(&self, state: &Self::State) -> usize {
        let _ = state;
        unreachable!("{} has no dense state index", self.name())
    }

    /// The state with dense index `index`, if that index denotes a state.
    fn state_from_index(&self, index: usize) -> Option<Self::State> {
        let _ = index;
        None
    }

    /// The position drawn as a picture (at most [`MAX_SIDE`](crate::io::draw::MAX_SIDE) pixels
    /// a side, the same size for every position of a game with given parameters): what
    /// Gymnasium's `render_mode="rgb_array"` shows. A game draws it with the kit of
    /// [`crate::io::draw`]; by default the picture is its text drawing ([`Game::render`]) under
    /// the status line.
    fn picture(&self, state: &Self::State) -> Result<Picture, DrawError> {
        crate::core::picture::text_drawing(self, state)
    }

    /// The combinatorial-game value of each of `states` in CGSuite's notation (`None` for a
    /// position without one), for a game whose positions have such values (Hackenbush); `None`
    /// for a game without them.
    fn combinatorial_values<'a>(
        &self,
        states: impl Iterator<Item = &'a Self::State>,
    ) -> Option<Vec<Option<String>>>
    where
        Self::State: 'a,
    {
        let _ = states;
        None
    }

    // ===== 3. Speed: a game may answer these faster than the defaults, and must answer them as
    // the rules above would (the environment checker and the playthroughs compare).

    /// [`Game::turn`] and [`Game::legal_actions`] at once: environments ask for both after
    /// every move, and a game whose two share work (the terminal test) does it once here.
    #[inline]
    fn turn_and_legal_actions(&self, state: &Self::State, out: &mut Vec<Action>) -> Turn {
        self.legal_actions(state, out);
        self.turn(state)
    }

    /// The legal actions of `state` (as [`Game::legal_actions`] lists them) where the game keeps
    /// them in memory, as a game played from its state graph does
    /// ([`crate::core::tabulated::Tabulated`]): environments read them there instead of copying
    /// them. `None`: the game works them out.
    #[inline]
    fn legal_actions_in_place(&self, state: &Self::State) -> Option<&[Action]> {
        let _ = state;
        None
    }

    /// Whether [`Game::legal_actions_in_place`] answers at every state: an environment then
    /// reads the legal actions there whenever it needs them and keeps no list of its own.
    #[inline]
    fn keeps_legal_actions(&self) -> bool {
        false
    }

    /// [`Game::apply`] of `action`, the `index`-th of the legal actions of `state` (a player's
    /// state): a game that keeps a position's moves in order reads the result without looking
    /// for the action.
    #[inline]
    fn apply_legal(&self, state: &Self::State, index: usize, action: Action) -> Self::State {
        let _ = index;
        self.apply(state, action)
    }

    /// The state after each of `actions` (legal at `state`), in order, into `out` (cleared
    /// first): [`Game::apply`] of each, unless the game has them at hand (a game played from
    /// its state graph reads all of a position's moves at once).
    #[inline]
    fn apply_each(&self, state: &Self::State, actions: &[Action], out: &mut Vec<Self::State>) {
        out.clear();
        out.extend(actions.iter().map(|&a| self.apply(state, a)));
    }

    /// Size of a dense index over the legal actions of every state, if the game has one
    /// (a game played from its state graph does: [`crate::core::tabulated::Tabulated`]).
    /// Action-value tables then keep every state's row in place, one load from the state.
    fn action_index_len(&self) -> Option<usize> {
        None
    }

    /// Where the legal actions of `state` lie in that index, in their order (only called when
    /// `action_index_len` is `Some`).
    fn action_index(&self, state: &Self::State) -> std::ops::Range<usize> {
        let _ = state;
        unreachable!("{} has no dense action index", self.name())
    }

    // ===== 4. For the search and greedy players: the heuristic, and finished seats.

    /// A static evaluation of `state` for `player` (larger is better; terminal states are
    /// valued by their returns instead), for greedy and search players. `None`: the game has no
    /// heuristic.
    fn heuristic(&self, state: &Self::State, player: Player) -> Option<f64> {
        let _ = (state, player);
        None
    }

    /// Whether `player` has finished the race while others play on (Hase und Igel ranked to the
    /// last place): a search stops below such a move (the reference AI's rule) rather than let a finished
    /// seat "mark time" in the tree. By default no seat finishes before the game ends.
    fn has_finished(&self, state: &Self::State, player: Player) -> bool {
        let _ = (state, player);
        false
    }

    /// The same game with its heuristic changed by `settings` (`key=value` pairs a search player
    /// was given that the search itself does not read, e.g. Hase und Igel's `eval=FILE` or
    /// `kc=1.2`); the rules stay the same. The error names a setting the game does not take.
    fn with_evaluation(&self, settings: &[(String, String)]) -> Result<Self, String> {
        match settings.first() {
            None => Ok(self.clone()),
            Some((k, v)) => Err(format!(
                "`{k}={v}`: not a search setting, and {} takes no evaluation settings",
                self.name()
            )),
        }
    }

    // ===== 5. Provided: built on the methods above; games do not override them.

    /// "black wins", "hounds win".
    fn player_wins(&self, player: Player) -> String {
        let verb = if self.player_name_is_plural(player) {
            "win"
        } else {
            "wins"
        };
        format!("{} {verb}", self.player_name(player))
    }

    /// The state after `action`, or an error listing the legal actions.
    fn try_apply(&self, state: &Self::State, action: Action) -> Result<Self::State, IllegalAction> {
        match self.turn(state) {
            Turn::Player(_) => {
                let mut legal = Vec::new();
                self.legal_actions(state, &mut legal);
                if legal.binary_search(&action).is_ok() {
                    return Ok(self.apply(state, action));
                }
            }
            Turn::Chance => {
                let mut outcomes = Vec::new();
                self.chance_outcomes(state, &mut outcomes);
                if outcomes.iter().any(|&(a, _)| a == action) {
                    return Ok(self.apply(state, action));
                }
            }
            Turn::Terminal => {}
        }
        Err(self.illegal(state, action.to_string()))
    }

    /// Parses an action typed by a person: the game's notation (case-insensitive).
    fn parse_action(&self, state: &Self::State, text: &str) -> Result<Action, IllegalAction> {
        let text = text.trim();
        let mut legal = Vec::new();
        match self.turn(state) {
            Turn::Player(_) => self.legal_actions(state, &mut legal),
            Turn::Chance => {
                let mut outcomes = Vec::new();
                self.chance_outcomes(state, &mut outcomes);
                legal.extend(outcomes.iter().map(|&(a, _)| a));
            }
            Turn::Terminal => {}
        }
        // By name only: a bare action number is the library's, not a name a person reads (on
        // tic-tac-toe's board 0 would be a3).
        for &a in &legal {
            if self.action_to_string(state, a).eq_ignore_ascii_case(text) {
                return Ok(a);
            }
        }
        Err(self.illegal(state, text.to_string()))
    }

    /// The error for an illegal `action` at `state`, listing what is legal.
    fn illegal(&self, state: &Self::State, action: String) -> IllegalAction {
        let (player, legal) = match self.turn(state) {
            Turn::Player(p) => {
                let mut legal = Vec::new();
                self.legal_actions(state, &mut legal);
                (
                    self.player_name(p).to_string(),
                    legal
                        .iter()
                        .map(|&a| self.action_to_string(state, a))
                        .collect(),
                )
            }
            Turn::Chance => {
                let mut outcomes = Vec::new();
                self.chance_outcomes(state, &mut outcomes);
                (
                    "chance".to_string(),
                    outcomes
                        .iter()
                        .map(|&(a, _)| self.action_to_string(state, a))
                        .collect(),
                )
            }
            Turn::Terminal => ("nobody: the game is over".to_string(), Vec::new()),
        };
        IllegalAction {
            action,
            player,
            legal,
        }
    }

    /// The player with the given name (case-insensitive), if any.
    fn player_by_name(&self, name: &str) -> Option<Player> {
        (0..self.num_players()).find(|&p| self.player_name(p).eq_ignore_ascii_case(name))
    }

    /// The canonical representative of `state` under the board symmetries (the smallest image)
    /// and the symmetry that maps `state` onto it.
    fn canonical(&self, state: &Self::State) -> (Self::State, usize) {
        let mut best = state.clone();
        let mut best_sym = 0;
        for sym in 1..self.num_symmetries() {
            let t = self.transform_state(state, sym);
            if t < best {
                best = t;
                best_sym = sym;
            }
        }
        (best, best_sym)
    }
}
