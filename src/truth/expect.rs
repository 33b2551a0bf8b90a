//! Exact win probabilities of games with chance: expectiminimax for two players, and for more
//! each seat's paranoid value (its win probability when every other seat plays against it),
//! over the reachable state graph of a game that ends (acyclic: a ply or round cap in the
//! state makes a repeating game so). The first piece of exact truth for games such as Hase und
//! Igel on small tracks; the dice race is its test bed.
//!
//! For seat p: a terminal state is worth 1 if p won, else 0; p's own turns take the best
//! child, the other seats' turns the worst (for p), chance the expectation.

use std::time::Instant;

use std::collections::BTreeMap;

use crate::core::game::{Action, Game, Player, Turn};
use crate::core::graph::{StateGraph, StateId};
use crate::truth::options::SolveError;
use crate::truth::oracle::Oracle;
use crate::truth::report::SolveReport;
use crate::truth::value::Value;

/// Every reachable state with each seat's paranoid win probability.
pub struct ExpectSolution<G: Game> {
    graph: StateGraph<G>,
    /// `values[p][id]`: seat p's win probability at `id` against the coalition of the others.
    values: Vec<Vec<f64>>,
    seconds: f64,
}

impl<G: Game> ExpectSolution<G> {
    /// Solves `game` (at most `state_limit` states).
    pub fn solve(game: &G, state_limit: usize) -> Result<Self, SolveError> {
        Self::solve_showing(game, state_limit, false)
    }

    /// [`Self::solve`], counting the states it enumerates on the terminal when `progress`.
    pub fn solve_showing(game: &G, state_limit: usize, progress: bool) -> Result<Self, SolveError> {
        let started = Instant::now();
        let graph = StateGraph::build_showing(game, state_limit, progress)?;
        let order = graph.post_order()?.to_vec();
        let n = game.num_players();
        let mut values = vec![vec![0.0; graph.len()]; n];
        for (p, value) in values.iter_mut().enumerate() {
            for &id in &order {
                let i = id as usize;
                let children = graph.children(id).iter().map(|&c| value[c as usize]);
                value[i] = match graph.turn(id) {
                    Turn::Terminal => {
                        let won = game.returns(graph.state(id)).winner() == Some(p);
                        f64::from(u8::from(won))
                    }
                    Turn::Player(q) if q == p => children.fold(f64::NEG_INFINITY, f64::max),
                    Turn::Player(_) => children.fold(f64::INFINITY, f64::min),
                    Turn::Chance => graph
                        .probabilities(id)
                        .iter()
                        .zip(children)
                        .map(|(pr, v)| pr * v)
                        .sum(),
                };
            }
        }
        Ok(ExpectSolution {
            graph,
            values,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    pub fn graph(&self) -> &StateGraph<G> {
        &self.graph
    }

    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Seat `p`'s win probability at `state` against the coalition of the others.
    pub fn win_probability(&self, state: &G::State, p: Player) -> Option<f64> {
        let id = self.graph.id(state)?;
        Some(self.values[p][id as usize])
    }

    /// The mover's moves at `state` that keep its best win probability (within 1e-12), in
    /// action order; empty where nobody moves or the state is unknown.
    pub fn best_moves(&self, state: &G::State) -> Vec<Action> {
        let Some(id) = self.graph.id(state) else {
            return Vec::new();
        };
        let Turn::Player(p) = self.graph.turn(id) else {
            return Vec::new();
        };
        let best = self.values[p][id as usize];
        self.graph
            .actions(id)
            .iter()
            .zip(self.graph.children(id))
            .filter(|&(_, &c)| self.values[p][c as usize] >= best - 1e-12)
            .map(|(&a, _)| a)
            .collect()
    }

    /// Each seat's win probability from the start.
    pub fn start_probabilities(&self) -> Vec<f64> {
        let start: StateId = self.graph.start();
        self.values.iter().map(|v| v[start as usize]).collect()
    }
}

impl<G: Game> ExpectSolution<G> {
    fn probabilities_in_words(&self, state: &G::State) -> Option<String> {
        let game = self.graph.game();
        let id = self.graph.id(state)?;
        let parts: Vec<String> = (0..game.num_players())
            .map(|p| format!("{} {:.3}", game.player_name(p), self.values[p][id as usize]))
            .collect();
        // With more than two, each seat's chance is against all the others together.
        let against = if game.num_players() > 2 {
            " (each seat against all the others)"
        } else {
            ""
        };
        Some(format!("win probabilities{against}: {}", parts.join(", ")))
    }
}

impl<G: Game> crate::truth::oracle::GraphOracle<G> for ExpectSolution<G> {
    fn graph(&self) -> &StateGraph<G> {
        &self.graph
    }
    fn as_oracle(&self) -> &dyn Oracle<G> {
        self
    }
    fn seconds(&self) -> f64 {
        self.seconds
    }
    fn has_values(&self) -> bool {
        false
    }
    fn win_probability(&self, id: StateId, p: Player) -> Option<f64> {
        Some(*self.values.get(p)?.get(id as usize)?)
    }
}

/// The truth where chance moves: no win/loss in plies (`value` is `None`), but each seat's
/// win probability, and the moves that keep the mover's.
impl<G: Game> Oracle<G> for ExpectSolution<G> {
    fn game(&self) -> &G {
        self.graph.game()
    }
    fn state_parts(&self) -> usize {
        self.graph.state_parts()
    }
    fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&G::State)) {
        self.graph.for_each_state(part, f)
    }
    fn value(&self, _state: &G::State) -> Option<Value> {
        None
    }
    fn describe(&self, state: &G::State) -> Option<String> {
        self.probabilities_in_words(state)
    }
    fn describe_move(&self, state: &G::State, action: Action) -> Option<String> {
        let game = self.graph.game();
        let Turn::Player(p) = game.turn(state) else {
            return None;
        };
        let v = self.win_probability(&game.apply(state, action), p)?;
        Some(format!(
            "{} wins with probability {v:.3}",
            game.player_name(p)
        ))
    }
    fn keeps_value(&self, state: &G::State, action: Action) -> Option<bool> {
        let game = self.graph.game();
        let Turn::Player(p) = game.turn(state) else {
            return Some(true);
        };
        let here = self.win_probability(state, p)?;
        let after = self.win_probability(&game.apply(state, action), p)?;
        Some(after >= here - 1e-12)
    }
    fn optimal_actions(&self, state: &G::State, legal: &[Action], out: &mut Vec<Action>) -> bool {
        out.clear();
        let best = self.best_moves(state);
        out.extend(legal.iter().copied().filter(|a| best.contains(a)));
        !out.is_empty()
    }
    fn report(&self) -> SolveReport {
        let game = self.graph.game();
        let n = game.num_players();
        let start = self.graph.start();
        let terminal_states = (0..self.graph.len() as StateId)
            .filter(|&id| self.graph.turn(id).is_terminal())
            .count();
        let probabilities: BTreeMap<String, f64> = (0..n)
            .map(|p| {
                (
                    game.player_name(p).to_string(),
                    self.values[p][start as usize],
                )
            })
            .collect();
        let mut extra = BTreeMap::new();
        extra.insert(
            "win_probability".to_string(),
            serde_json::json!(probabilities),
        );
        // The mover's best first moves, where a player (not nature) moves first.
        let first = self.graph.state(start);
        if self.graph.turn(start).player().is_some() {
            let best: Vec<String> = self
                .best_moves(first)
                .iter()
                .map(|&a| game.action_to_string(first, a))
                .collect();
            extra.insert("best_moves".to_string(), serde_json::json!(best));
        }
        SolveReport {
            game: game.name().to_string(),
            params: game.params(),
            players: (0..n).map(|p| game.player_name(p).to_string()).collect(),
            states: self.graph.len(),
            terminal_states,
            games: "not counted".to_string(),
            wins: BTreeMap::new(),
            draws: "0".to_string(),
            winner: None,
            plies: None,
            start: self
                .probabilities_in_words(self.graph.state(start))
                .unwrap_or_default(),
            winning_states: BTreeMap::new(),
            seconds: Some(self.seconds),
            extra,
        }
    }
}

/// Seat `p`'s paranoid win probability at `s` by the definition: plain recursion over the
/// rules, no graph, no memo (exponential: the independent check of [`ExpectSolution`] on tiny
/// games).
pub fn brute_force<G: Game>(game: &G, s: &G::State, p: Player) -> f64 {
    match game.turn(s) {
        Turn::Terminal => f64::from(u8::from(game.returns(s).winner() == Some(p))),
        Turn::Player(q) => {
            let mut legal = Vec::new();
            game.legal_actions(s, &mut legal);
            let values = legal
                .iter()
                .map(|&a| brute_force(game, &game.apply(s, a), p));
            if q == p {
                values.fold(f64::NEG_INFINITY, f64::max)
            } else {
                values.fold(f64::INFINITY, f64::min)
            }
        }
        Turn::Chance => {
            let mut outcomes = Vec::new();
            game.chance_outcomes(s, &mut outcomes);
            outcomes
                .iter()
                .map(|&(a, pr)| pr * brute_force(game, &game.apply(s, a), p))
                .sum()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{DiceRace, DiceRaceParams};

    fn race(players: usize, goal: u8) -> DiceRace {
        DiceRace::new(DiceRaceParams { players, goal }).unwrap()
    }

    #[test]
    fn agrees_with_plain_recursion_for_two_and_three_players() {
        for (players, goal) in [(2, 4), (2, 5), (3, 3), (3, 4)] {
            let game = race(players, goal);
            let sol = ExpectSolution::solve(&game, 1_000_000).unwrap();
            let start = game.initial_state();
            for p in 0..players {
                let want = brute_force(&game, &start, p);
                let got = sol.win_probability(&start, p).unwrap();
                assert!(
                    (want - got).abs() < 1e-12,
                    "{players} {goal} seat {p}: {want} {got}"
                );
            }
        }
    }

    /// With two players the two values are complementary everywhere (expectiminimax), and a
    /// best move keeps the mover's value.
    #[test]
    fn two_player_values_are_complementary() {
        let game = race(2, 6);
        let sol = ExpectSolution::solve(&game, 1_000_000).unwrap();
        for id in 0..sol.graph().len() as StateId {
            let s = sol.graph().state(id);
            let (a, b) = (
                sol.win_probability(s, 0).unwrap(),
                sol.win_probability(s, 1).unwrap(),
            );
            assert!((a + b - 1.0).abs() < 1e-12);
            if let Turn::Player(p) = game.turn(s) {
                let best = sol.best_moves(s);
                assert!(!best.is_empty());
                for m in best {
                    let after = game.apply(s, m);
                    let v = sol.win_probability(&after, p).unwrap();
                    assert!((v - sol.win_probability(s, p).unwrap()).abs() < 1e-12);
                }
            }
        }
        let start = sol.start_probabilities();
        assert!(start[0] > 0.5, "the first runner is ahead: {start:?}");
    }
}
