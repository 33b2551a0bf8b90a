//! Exact ground truth for deterministic two-player games with an acyclic state graph:
//! retrograde analysis over the [`StateGraph`] labels every reachable state with its value
//! (who wins, in how many plies, the winner hurrying and the loser holding out), the exact
//! number of complete games below it and how many of them each player wins.
//!
//! Counts are exact fixed-width integers ([`GameCount`], 256 bits) with overflow checked: the
//! number of possible games of 8x8 Fox & Hounds already needs 99 bits.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use thiserror::Error;

use crate::game::{Action, Game, GameResult, Player, Turn};
use crate::graph::{GraphError, StateGraph, StateId};
use crate::oracle::Oracle;

/// Exact count of complete games (paths from a state to the end).
pub type GameCount = ruint::aliases::U256;

/// Default bound on the number of states the generic solver enumerates (memory guard).
pub const DEFAULT_STATE_LIMIT: usize = 50_000_000;

/// The game-theoretic value of a state under perfect play: the winner reaches the end as fast
/// as it can, the loser as slowly as it can.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win { winner: Player, plies: u32 },
    Draw,
}

/// A value seen from one player's side, as the seeds write it ("win in 7").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { plies: u32 },
    Loss { plies: u32 },
    Draw,
}

impl Value {
    /// A sort key for `player`: larger is better (a faster win, a slower loss).
    pub fn key_for(self, player: Player) -> i64 {
        match self {
            Value::Win { winner, plies } if winner == player => (1 << 40) - plies as i64,
            Value::Win { plies, .. } => -(1 << 40) + plies as i64,
            Value::Draw => 0,
        }
    }
    pub fn result_for(self, player: Player) -> GameResult {
        match self {
            Value::Win { winner, .. } if winner == player => GameResult::Win,
            Value::Win { .. } => GameResult::Loss,
            Value::Draw => GameResult::Draw,
        }
    }
    pub fn outcome_for(self, player: Player) -> Outcome {
        match self {
            Value::Win { winner, plies } if winner == player => Outcome::Win { plies },
            Value::Win { plies, .. } => Outcome::Loss { plies },
            Value::Draw => Outcome::Draw,
        }
    }
    pub fn winner(self) -> Option<Player> {
        match self {
            Value::Win { winner, .. } => Some(winner),
            Value::Draw => None,
        }
    }
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win { plies, .. } => Some(plies),
            Value::Draw => None,
        }
    }
    /// The value seen one ply earlier (a parent reaching this state): one more ply to the end.
    pub fn one_ply_earlier(self) -> Value {
        match self {
            Value::Win { winner, plies } => Value::Win {
                winner,
                plies: plies + 1,
            },
            Value::Draw => Value::Draw,
        }
    }
    /// "black wins in 11 plies", "draw".
    pub fn describe<G: Game>(self, game: &G) -> String {
        match self {
            Value::Win { winner, plies } => format!(
                "{} in {plies} {}",
                game.player_wins(winner),
                if plies == 1 { "ply" } else { "plies" }
            ),
            Value::Draw => "draw".to_string(),
        }
    }
}

/// How to solve a game ([`Game::solve`]).
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
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            max_states: DEFAULT_STATE_LIMIT,
            generic: false,
            counts: true,
            tables: true,
            progress: false,
        }
    }
}

/// A progress bar for solvers that work in phases of numbered steps (layers).
pub struct PhaseProgress(Option<indicatif::ProgressBar>);

impl PhaseProgress {
    /// A bar on the terminal when `show`, nothing otherwise.
    pub fn new(show: bool) -> Self {
        PhaseProgress(show.then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg:12} [{bar:40}] {pos}/{len} layers {elapsed}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar
        }))
    }
    /// `done` of `all` steps of `phase` are finished.
    pub fn report(&self, phase: &str, done: usize, all: usize) {
        if let Some(bar) = &self.0 {
            bar.set_length(all as u64);
            bar.set_message(phase.to_string());
            bar.set_position(done as u64);
        }
    }
}

impl Drop for PhaseProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
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
}

/// What `solvedgym solve` prints: the exact solver's report, or (for a game whose truth is
/// not a table of states, such as Hackenbush's values) one entry per position, each a text for
/// people and an object for JSON (one line each with `--json`).
#[derive(Clone, Debug)]
pub enum SolveOutput {
    Report(Box<SolveReport>),
    Entries(Vec<(String, serde_json::Value)>),
}

/// The games below state `i` and each player's wins there: the sums over its children.
fn add_counts(
    children: &[StateId],
    i: usize,
    games: &mut [GameCount],
    wins: &mut [Vec<GameCount>; 2],
) -> Result<(), SolveError> {
    let (mut total, mut w0, mut w1) = (GameCount::ZERO, GameCount::ZERO, GameCount::ZERO);
    for &c in children {
        let c = c as usize;
        total = total
            .checked_add(games[c])
            .ok_or(SolveError::CountOverflow)?;
        w0 = w0
            .checked_add(wins[0][c])
            .ok_or(SolveError::CountOverflow)?;
        w1 = w1
            .checked_add(wins[1][c])
            .ok_or(SolveError::CountOverflow)?;
    }
    games[i] = total;
    wins[0][i] = w0;
    wins[1][i] = w1;
    Ok(())
}

/// Every reachable state of a game with its exact value and game counts.
pub struct Solution<G: Game> {
    graph: StateGraph<G>,
    values: Vec<Value>,
    games: Vec<GameCount>,
    wins: [Vec<GameCount>; 2],
    seconds: f64,
}

impl<G: Game> Solution<G> {
    /// Solves `game` with the generic retrograde analysis (at most `state_limit` states).
    pub fn solve(game: &G, state_limit: usize) -> Result<Self, SolveError> {
        let started = Instant::now();
        if game.num_players() != 2 {
            return Err(SolveError::NotTwoPlayer {
                game: game.name(),
                players: game.num_players(),
            });
        }
        let graph = StateGraph::build(game, state_limit)?;
        let n = graph.len();
        let mut values = vec![Value::Draw; n];
        let mut games = vec![GameCount::ZERO; n];
        let mut wins = [vec![GameCount::ZERO; n], vec![GameCount::ZERO; n]];
        for &v in graph.post_order()? {
            let i = v as usize;
            match graph.turn(v) {
                Turn::Terminal => {
                    let value = match game.returns(graph.state(v)).winner() {
                        Some(winner) => Value::Win { winner, plies: 0 },
                        None => Value::Draw,
                    };
                    values[i] = value;
                    games[i] = GameCount::from(1u8);
                    if let Some(w) = value.winner() {
                        wins[w][i] = GameCount::from(1u8);
                    }
                }
                Turn::Player(p) => {
                    let mut best: Option<Value> = None;
                    for &c in graph.children(v) {
                        let value = values[c as usize].one_ply_earlier();
                        if best.is_none_or(|b| value.key_for(p) > b.key_for(p)) {
                            best = Some(value);
                        }
                    }
                    values[i] = best.expect("a player state has legal actions");
                    add_counts(graph.children(v), i, &mut games, &mut wins)?;
                }
                Turn::Chance => {
                    // A deal: nature picks the position before anyone moves. Its children are
                    // solved as they are; the deal itself has no win/loss value (a placeholder
                    // is kept, and `value` answers `None` there). Chance after a player's move
                    // is beyond this solver.
                    if v != graph.start() {
                        return Err(SolveError::Chance {
                            game: game.name(),
                            state: game.render(graph.state(v)),
                        });
                    }
                    add_counts(graph.children(v), i, &mut games, &mut wins)?;
                }
            }
        }
        Ok(Solution {
            graph,
            values,
            games,
            wins,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    pub fn game(&self) -> &G {
        self.graph.game()
    }
    pub fn graph(&self) -> &StateGraph<G> {
        &self.graph
    }
    pub fn id(&self, state: &G::State) -> Option<StateId> {
        self.graph.id(state)
    }
    pub fn value_of(&self, id: StateId) -> Value {
        self.values[id as usize]
    }
    /// The value of a position (`None` for one the solution does not hold, and for a deal).
    pub fn value(&self, state: &G::State) -> Option<Value> {
        let id = self.id(state)?;
        (!matches!(self.graph.turn(id), Turn::Chance)).then(|| self.value_of(id))
    }

    /// The start in words: its value, or for a deal each player's share of the dealt
    /// positions they win (by probability).
    pub fn describe_start(&self) -> String {
        let game = self.game();
        let start = self.graph.start();
        if !matches!(self.graph.turn(start), Turn::Chance) {
            return self.value_of(start).describe(game);
        }
        let mut share = [0.0f64; 2];
        for (&c, &p) in self
            .graph
            .children(start)
            .iter()
            .zip(self.graph.probabilities(start))
        {
            if let Some(w) = self.value_of(c).winner() {
                share[w] += p;
            }
        }
        format!(
            "a deal of {} positions: {} with probability {:.3}, {} with probability {:.3}",
            self.graph.children(start).len(),
            game.player_wins(0),
            share[0],
            game.player_wins(1),
            share[1]
        )
    }
    /// Number of complete games from `id` to the end.
    pub fn games_of(&self, id: StateId) -> GameCount {
        self.games[id as usize]
    }
    /// Number of those games `player` wins.
    pub fn wins_of(&self, id: StateId, player: Player) -> GameCount {
        self.wins[player][id as usize]
    }
    /// Seconds the solve took (enumeration included).
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The value each move of `id` leads to, seen from the parent (one ply added), in action
    /// order.
    pub fn move_values(&self, id: StateId) -> impl Iterator<Item = (Action, Value)> + '_ {
        self.graph
            .actions(id)
            .iter()
            .zip(self.graph.children(id))
            .map(|(&a, &c)| (a, self.values[c as usize].one_ply_earlier()))
    }

    /// The moves that are optimal to the ply: fastest win, longest defence (ties kept).
    pub fn optimal_actions_at(&self, id: StateId, out: &mut Vec<Action>) {
        out.clear();
        if let Turn::Player(p) = self.graph.turn(id) {
            let best = self.value_of(id).key_for(p);
            out.extend(
                self.move_values(id)
                    .filter(|(_, v)| v.key_for(p) == best)
                    .map(|(a, _)| a),
            );
        }
    }

    /// The figures `solvedgym solve` prints.
    pub fn report(&self) -> SolveReport {
        let game = self.game();
        let start = self.graph.start();
        let value = self.value_of(start);
        let deal_free = !matches!(self.graph.turn(start), Turn::Chance);
        let terminal_states = (0..self.graph.len() as StateId)
            .filter(|&id| self.graph.turn(id).is_terminal())
            .count();
        let games = self.games_of(start);
        let mut wins = BTreeMap::new();
        let mut draws = games;
        for p in 0..2 {
            let w = self.wins_of(start, p);
            draws -= w;
            wins.insert(game.player_name(p).to_string(), w.to_string());
        }
        let winning_states = (0..2)
            .map(|p| {
                let count = (0..self.graph.len() as StateId)
                    .filter(|&id| !matches!(self.graph.turn(id), Turn::Chance))
                    .filter(|&id| self.value_of(id).winner() == Some(p))
                    .count();
                (game.player_name(p).to_string(), count)
            })
            .collect();
        SolveReport {
            game: game.name().to_string(),
            params: game.params(),
            players: (0..2).map(|p| game.player_name(p).to_string()).collect(),
            states: self.graph.len(),
            terminal_states,
            games: games.to_string(),
            wins,
            draws: draws.to_string(),
            winner: deal_free
                .then(|| value.winner().map(|w| game.player_name(w).to_string()))
                .flatten(),
            plies: deal_free.then(|| value.plies()).flatten(),
            start: self.describe_start(),
            winning_states,
            seconds: Some(self.seconds),
            extra: BTreeMap::new(),
        }
    }
}

/// The enumerated solution answers from its tables: no move is applied.
impl<G: Game> crate::oracle::GraphOracle<G> for Solution<G> {
    fn graph(&self) -> &StateGraph<G> {
        &self.graph
    }
    fn as_oracle(&self) -> &dyn Oracle<G> {
        self
    }
    fn seconds(&self) -> f64 {
        self.seconds
    }
    fn describe_start(&self) -> String {
        Solution::describe_start(self)
    }
}

impl<G: Game> Oracle<G> for Solution<G> {
    fn game(&self) -> &G {
        self.graph.game()
    }
    fn value(&self, state: &G::State) -> Option<Value> {
        Solution::value(self, state)
    }
    fn move_value(&self, state: &G::State, action: Action) -> Option<Value> {
        let id = self.id(state)?;
        self.move_values(id)
            .find(|&(a, _)| a == action)
            .map(|(_, v)| v)
    }
    fn optimal_actions(&self, state: &G::State, legal: &[Action], out: &mut Vec<Action>) -> bool {
        out.clear();
        let Some(id) = self.id(state) else {
            return false;
        };
        debug_assert_eq!(
            self.graph.actions(id),
            legal,
            "legal actions in graph order"
        );
        self.optimal_actions_at(id, out);
        !out.is_empty()
    }
    fn report(&self) -> SolveReport {
        Solution::report(self)
    }
}

/// The summary of a solved game, as printed by `solvedgym solve --json`. Counts of games are
/// decimal strings because they do not fit in a JSON number.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    pub game: String,
    pub params: serde_json::Value,
    /// The players in turn order (the first moves first).
    pub players: Vec<String>,
    /// Reachable positions, the start and terminal positions included.
    pub states: usize,
    pub terminal_states: usize,
    /// Complete games (distinct move sequences from the start to an end).
    pub games: String,
    /// Of those, the games each player wins.
    pub wins: BTreeMap<String, String>,
    pub draws: String,
    /// Who wins the start under perfect play (`null` for a draw).
    pub winner: Option<String>,
    /// Plies to the end under perfect play when there is a winner.
    pub plies: Option<u32>,
    /// The start's value in words.
    pub start: String,
    /// Reachable states each player wins under perfect play.
    pub winning_states: BTreeMap<String, usize>,
    /// Wall-clock time of the solve (left out where output must be reproducible).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Game-specific figures (FoxBox values, shares), flattened into the JSON object.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl std::fmt::Display for SolveReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params = match &self.params {
            serde_json::Value::Object(m) if !m.is_empty() => format!(
                " ({})",
                m.iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => String::new(),
        };
        writeln!(f, "{}{}", self.game, params)?;
        writeln!(f, "  start:           {}", self.start)?;
        // A solver that does not enumerate (values, probabilities) reports no states.
        if self.states > 0 {
            writeln!(
                f,
                "  states:          {} reachable ({} terminal)",
                group(&self.states.to_string()),
                group(&self.terminal_states.to_string())
            )?;
        }
        writeln!(f, "  possible games:  {}", group(&self.games))?;
        // Solvers of games with chance count no wins (their truth is probabilities).
        if !self.wins.is_empty() {
            for player in &self.players {
                if let Some(w) = self.wins.get(player) {
                    writeln!(f, "    won by {player:<8} {}", group(w))?;
                }
            }
            writeln!(f, "    drawn          {}", group(&self.draws))?;
        }
        for player in &self.players {
            let Some(n) = self.winning_states.get(player) else {
                continue;
            };
            writeln!(
                f,
                "  states {player} wins: {} ({:.2} %)",
                group(&n.to_string()),
                100.0 * *n as f64 / self.states as f64
            )?;
        }
        for (key, value) in &self.extra {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) if key.ends_with("_mb") => {
                    format!("{:.1} MiB", n.as_f64().unwrap_or(0.0))
                }
                serde_json::Value::Number(n) if n.is_f64() => {
                    format!("{:.4} %", 100.0 * n.as_f64().unwrap_or(0.0))
                }
                serde_json::Value::Object(m) => {
                    // Per-player figures in seat order, others as they come.
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort_by_key(|k| self.players.iter().position(|p| p == *k));
                    keys.iter()
                        .map(|k| {
                            let v = &m[k.as_str()];
                            match v.as_f64() {
                                Some(x) if v.is_f64() => format!("{k} {x:.4}"),
                                _ => format!("{k} {v}"),
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                }
                serde_json::Value::Array(items) if items.is_empty() => "none".to_string(),
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(", "),
                v => group(&v.to_string()),
            };
            let name = key.strip_suffix("_mb").unwrap_or(key).replace('_', " ");
            writeln!(f, "  {name}: {text}")?;
        }
        match self.seconds {
            Some(s) => write!(f, "  solved in {s:.3} s"),
            None => Ok(()),
        }
    }
}

/// "255168" -> "255,168" (anything that is not all digits is left as it is).
pub fn group(digits: &str) -> String {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;

    #[test]
    fn keys_order_fast_wins_before_slow_wins_before_draws_before_long_losses() {
        let p = 0;
        let win1 = Value::Win {
            winner: 0,
            plies: 1,
        };
        let win5 = Value::Win {
            winner: 0,
            plies: 5,
        };
        let loss2 = Value::Win {
            winner: 1,
            plies: 2,
        };
        let loss8 = Value::Win {
            winner: 1,
            plies: 8,
        };
        let mut v = [loss2, Value::Draw, win5, loss8, win1];
        v.sort_by_key(|x| std::cmp::Reverse(x.key_for(p)));
        assert_eq!(v, [win1, win5, Value::Draw, loss8, loss2]);
    }

    #[test]
    fn grouping_digits() {
        assert_eq!(group("255168"), "255,168");
        assert_eq!(group("5478"), "5,478");
        assert_eq!(group("12"), "12");
    }

    #[test]
    fn tictactoe_is_a_draw() {
        let s = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        assert_eq!(s.value_of(s.graph().start()), Value::Draw);
    }
}
