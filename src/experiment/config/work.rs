//! The arithmetic a run of a feature learner costs, estimated before any work: a learner that
//! values moves through weights (linear, n-tuple, MLP) reads every legal move's afterstate
//! through them at each of its decisions, so a run costs about
//! `(episodes + evaluation games) × moves offered in a game × multiply-adds per move`.
//! The moves a game offers are counted along one game played at random from the start (seed 0,
//! so the estimate is the same every time). A run estimated above [`MAX_RUN_WORK`] is refused
//! with its figures and what to shrink; the tabular learners cost a table lookup a move and are
//! bounded by their episodes alone.

use rand::RngExt;

use crate::core::game::{Action, Game, Turn};
use crate::io::text::group;

/// The most multiply-adds one run may cost: about three hours of one core. Measured: a
/// 512-edge Hackenbush run of an MLP of 256 units (20 episodes, 30 evaluation games, estimated
/// 3.6e11) took 134 s of CPU, 2.7e9 estimated multiply-adds a second (the learner values the
/// moves of its own seat only, and its updates cost about a forward pass).
pub const MAX_RUN_WORK: u128 = 30_000_000_000_000;

/// Estimated multiply-adds one core does in a second, for the hours a refusal names.
const PER_SECOND: f64 = 2.5e9;

/// The most plies the sample game is followed (a game that lasts longer is counted to here).
const SAMPLE_PLIES: u64 = 1_000_000;

/// What one game played at random from the start offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Its decisions (plies of players, not of chance).
    pub plies: u64,
    /// The legal moves summed over its decisions.
    pub moves: u64,
}

/// One game of `game` played uniformly at random from its start (seed 0).
pub fn sample<G: Game>(game: &G) -> Sample {
    let mut rng = crate::core::random::rng(0);
    let mut state = game.initial_state();
    let (mut legal, mut chance): (Vec<Action>, Vec<(Action, f64)>) = (Vec::new(), Vec::new());
    let mut out = Sample { plies: 0, moves: 0 };
    while out.plies < SAMPLE_PLIES && !game.is_cut_off(&state) {
        let action = match game.turn(&state) {
            Turn::Terminal => break,
            Turn::Chance => {
                game.chance_outcomes(&state, &mut chance);
                let mut u = rng.random::<f64>();
                let mut pick = chance.last().map(|&(a, _)| a);
                for &(a, p) in &chance {
                    if u < p {
                        pick = Some(a);
                        break;
                    }
                    u -= p;
                }
                pick
            }
            Turn::Player(_) => {
                game.legal_actions(&state, &mut legal);
                out.plies += 1;
                out.moves += legal.len() as u64;
                (!legal.is_empty()).then(|| legal[rng.random_range(0..legal.len())])
            }
        };
        let Some(action) = action else { break };
        state = game.apply(&state, action);
    }
    out
}

/// One run's estimate: the games it plays and what a game costs.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub sample: Sample,
    /// Multiply-adds per move valued.
    pub move_cost: u64,
    /// Training episodes.
    pub episodes: u64,
    /// Games the match evaluator plays over the run (0 for the exact evaluator).
    pub evaluation_games: u128,
}

impl Estimate {
    /// Multiply-adds in all.
    pub fn work(&self) -> u128 {
        let per_game = u128::from(self.sample.moves) * u128::from(self.move_cost);
        per_game * (u128::from(self.episodes) + self.evaluation_games)
    }

    /// The refusal of a run estimated above [`MAX_RUN_WORK`], naming its figures and what to
    /// shrink; `None` for a run within it.
    pub fn refusal(&self, learner: &str) -> Option<String> {
        let work = self.work();
        if work <= MAX_RUN_WORK {
            return None;
        }
        let hours = work as f64 / PER_SECOND / 3600.0;
        Some(format!(
            "learner `{learner}` would take about {} multiply-adds a run (about {} hours on one \
             core), more than the {} a run may take: a game played at random lasts {} plies \
             and offers {} moves in all, each valued through {} multiply-adds, over {} training \
             episodes and {} evaluation games; give a smaller position, fewer episodes or \
             evaluation games (a larger eval_interval), or smaller hidden layers",
            rounded(work as f64),
            group(&format!("{hours:.0}")),
            rounded(MAX_RUN_WORK as f64),
            group(&self.sample.plies.to_string()),
            group(&self.sample.moves.to_string()),
            group(&self.move_cost.to_string()),
            group(&self.episodes.to_string()),
            group(&self.evaluation_games.to_string()),
        ))
    }
}

/// `4.5e15`: a large count to two figures.
fn rounded(x: f64) -> String {
    format!("{x:.1e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;

    #[test]
    fn a_random_game_of_tic_tac_toe_offers_its_moves() {
        let s = sample(&TicTacToe);
        assert!((5..=9).contains(&s.plies), "{s:?}");
        // 9 + 8 + ... down to the last decision.
        let expected: u64 = (0..s.plies).map(|k| 9 - k).sum();
        assert_eq!(s.moves, expected);
        assert_eq!(sample(&TicTacToe), s, "seed 0: the same every time");
    }

    #[test]
    fn the_bound_refuses_with_figures() {
        let small = Estimate {
            sample: Sample {
                plies: 9,
                moves: 45,
            },
            move_cost: 1000,
            episodes: 1000,
            evaluation_games: 600,
        };
        assert_eq!(small.work(), 45 * 1000 * 1600);
        assert!(small.refusal("mlp").is_none());
        let big = Estimate {
            move_cost: 10_000_000,
            episodes: 100_000_000,
            ..small
        };
        let why = big.refusal("mlp").expect("refused");
        assert!(
            why.contains("learner `mlp`") && why.contains("100,000,000 training"),
            "{why}"
        );
    }
}
