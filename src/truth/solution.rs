//! Exact ground truth for deterministic two-player games with an acyclic state graph:
//! retrograde analysis over the [`StateGraph`] labels every reachable state with its value
//! (who wins, in how many plies, the winner hurrying and the loser holding out), the exact
//! number of complete games below it and how many of them each player wins.
//!
//! Counts are exact fixed-width integers ([`GameCount`], 256 bits) with overflow checked: the
//! number of possible games of 8x8 Fox & Hounds already needs 99 bits.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::core::game::{Action, Game, Player, Turn};
use crate::core::graph::{StateGraph, StateId};
use crate::truth::options::SolveError;
use crate::truth::oracle::Oracle;
use crate::truth::report::SolveReport;
use crate::truth::value::Value;

/// Exact count of complete games (paths from a state to the end).
pub type GameCount = ruint::aliases::U256;

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
        Self::solve_showing(game, state_limit, false)
    }

    /// [`Self::solve`], counting the states it enumerates on the terminal when `progress`.
    pub fn solve_showing(game: &G, state_limit: usize, progress: bool) -> Result<Self, SolveError> {
        let started = Instant::now();
        if game.num_players() != 2 {
            return Err(SolveError::NotTwoPlayer {
                game: game.name(),
                players: game.num_players(),
            });
        }
        let graph = StateGraph::build_showing(game, state_limit, progress)?;
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
impl<G: Game> crate::truth::oracle::GraphOracle<G> for Solution<G> {
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
    fn state_parts(&self) -> usize {
        self.graph.state_parts()
    }
    fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&G::State)) {
        self.graph.for_each_state(part, f)
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
    fn tictactoe_is_a_draw() {
        let s = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        assert_eq!(s.value_of(s.graph().start()), Value::Draw);
    }
}
