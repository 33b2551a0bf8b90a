//! One-ply greedy play on a game's heuristic.

use crate::ai::search::TERMINAL_WEIGHT;
use crate::core::game::{Action, Game, Player, Turn};
use crate::core::policy::Policy;

// Terminal returns outweigh any heuristic score: the search's weight, so the greedy player and a
// depth-1 search value ends alike.

/// One-ply greedy play on a game's [`Game::heuristic`]: every legal move is scored by the
/// heuristic of the state it leads to, from the mover's seat (the expectation over chance
/// outcomes where a draw follows, the returns at an end, scaled above any heuristic); the best
/// moves share the probability. A game without a heuristic falls back to uniform play.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyPolicy;

impl GreedyPolicy {
    fn after_value<G: Game>(game: &G, state: &G::State, p: Player) -> f64 {
        match game.turn(state) {
            Turn::Terminal => TERMINAL_WEIGHT * game.returns(state)[p],
            Turn::Chance => {
                let mut outcomes = Vec::new();
                game.chance_outcomes(state, &mut outcomes);
                outcomes
                    .iter()
                    .map(|&(a, pr)| {
                        let next = game.apply(state, a);
                        pr * match game.turn(&next) {
                            Turn::Terminal => TERMINAL_WEIGHT * game.returns(&next)[p],
                            _ => game.heuristic(&next, p).unwrap_or(0.0),
                        }
                    })
                    .sum()
            }
            Turn::Player(_) => game.heuristic(state, p).unwrap_or(0.0),
        }
    }
}

impl<G: Game> Policy<G> for GreedyPolicy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        probs.clear();
        let Turn::Player(p) = game.turn(state) else {
            probs.resize(legal.len(), 1.0 / legal.len() as f64);
            return true;
        };
        let values: Vec<f64> = legal
            .iter()
            .map(|&a| Self::after_value(game, &game.apply(state, a), p))
            .collect();
        let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties = values.iter().filter(|&&v| v >= best - 1e-9).count() as f64;
        probs.extend(
            values
                .iter()
                .map(|&v| if v >= best - 1e-9 { 1.0 / ties } else { 0.0 }),
        );
        true
    }
}
