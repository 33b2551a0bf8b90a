//! The match evaluator, for games whose states cannot all be enumerated: the learner's greedy
//! policy plays seeded games against reference policies (random play, perfect play where an
//! oracle exists, the opponent it trains against) and the evaluator reports its win rate, mean
//! rank and mean return, each with a 95% confidence interval.
//!
//! Games come in deals: deal `d` is played once with the learner at each seat it holds (the
//! seats rotated), every game of the deal from the same seed (paired seats: the same dice and
//! cards for every seat, and the same deals at every evaluation of a run, so a learning curve
//! is not blurred by new luck at every point). A deal's figure is the mean over its games. A win
//! rate's interval is Wilson's over the games (never `[0, 0]` at no wins); the other figures'
//! is the normal one over deals, `mean ± 1.96·s/√n`, clipped to the figure's range.

use super::{EvalError, Evaluator, FrozenPolicy, Metric, stats};
use crate::core::game::{Action, Game, GameResult, Player, Returns, Turn};
use crate::core::policy::{Policy, sample};
use crate::core::random::{SgRng, derive_seed, rng};
use crate::learn::Learner;

/// Where a game is cut off when it has not ended (a game whose states repeat says its own cap).
const DEFAULT_MAX_PLIES: u32 = 10_000;

/// A reference policy by name; `None`: the frozen copy of the learner handed to each
/// evaluation.
pub type Reference<'p, G> = (String, Option<Box<dyn Policy<G> + 'p>>);

/// The match evaluator of one learner at its seats.
pub struct MatchEvaluator<'p, G: Game> {
    game: G,
    seats: Vec<Player>,
    /// (name, policy) of every reference; the training opponent is last, when it is a frozen
    /// copy of the learner `None`: that copy comes with each evaluation.
    references: Vec<Reference<'p, G>>,
    deals: u64,
    seed: u64,
    max_plies: u32,
    metrics: Vec<Metric>,
}

impl<'p, G: Game> MatchEvaluator<'p, G> {
    /// Evaluates at `seats` against `references` (a `None` policy: the frozen copy handed to
    /// each evaluation), `games` games per reference at least (whole deals), the deals drawn
    /// from `seed`.
    pub fn new(
        game: &G,
        seats: Vec<Player>,
        references: Vec<Reference<'p, G>>,
        games: u64,
        seed: u64,
    ) -> Self {
        let deals = games.div_ceil(seats.len() as u64).max(2);
        let players = game.num_players() as f64;
        let mut metrics = Vec::new();
        for (name, _) in &references {
            for kind in ["win_rate", "mean_rank", "return"] {
                let base = format!("greedy_{kind}_vs_{name}");
                let games = deals * seats.len() as u64;
                let of = |name: String| {
                    let mut m = Metric::of(name);
                    m.title = format!("{} ({games} games, 95% CI)", m.title);
                    if kind == "mean_rank" {
                        m.range = Some((1.0, players));
                    }
                    m
                };
                let mut main = Metric {
                    interval: Some((format!("{base}_low"), format!("{base}_high"))),
                    ..of(base.clone())
                };
                if kind == "return" && name == "optimal" {
                    main = main.role(super::Role::GreedyResult);
                }
                metrics.extend([main, of(format!("{base}_low")), of(format!("{base}_high"))]);
            }
        }
        MatchEvaluator {
            game: game.clone(),
            seats,
            references,
            deals,
            seed,
            max_plies: max_plies(game),
            metrics,
        }
    }

    /// One game: `policy` at `seat`, `other` everywhere else.
    fn play(
        &self,
        policy: &dyn Policy<G>,
        seat: Player,
        other: &dyn Policy<G>,
        rng: &mut SgRng,
    ) -> Returns {
        let game = &self.game;
        play_game(game, self.max_plies, rng, |p, state, legal, rng| {
            let mover = if p == seat { policy } else { other };
            mover.choose(game, state, legal, rng)
        })
        .returns
    }
}

/// Where `game` is cut off when it has not ended: its own cap, else [`DEFAULT_MAX_PLIES`].
pub(crate) fn max_plies<G: Game>(game: &G) -> u32 {
    game.capabilities().max_plies.unwrap_or(DEFAULT_MAX_PLIES)
}

/// How a seeded game ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Played {
    pub returns: Returns,
    /// Player moves made (chance draws not counted).
    pub moves: u64,
}

/// Plays one game from the start: nature draws from `rng`, and the player to move picks with
/// `choose(player, state, legal, rng)` (`None`: it resigns). After `max_plies` plies (moves
/// and draws) the game is cut off with the returns of the position reached (zeros where it
/// has none). The match evaluator and the tournament both play through here, so a seed gives
/// them the same cards.
pub(crate) fn play_game<G: Game>(
    game: &G,
    max_plies: u32,
    rng: &mut SgRng,
    mut choose: impl FnMut(Player, &G::State, &[Action], &mut SgRng) -> Option<Action>,
) -> Played {
    let mut state = game.initial_state();
    let (mut legal, mut outcomes) = (Vec::new(), Vec::new());
    let (mut actions, mut probs) = (Vec::new(), Vec::new());
    let mut moves = 0;
    for _ in 0..max_plies {
        let action = match game.turn(&state) {
            Turn::Terminal => break,
            Turn::Chance => {
                game.chance_outcomes(&state, &mut outcomes);
                actions.clear();
                probs.clear();
                actions.extend(outcomes.iter().map(|o| o.0));
                probs.extend(outcomes.iter().map(|o| o.1));
                sample(&actions, &probs, rng).expect("chance outcomes sum to one")
            }
            Turn::Player(p) => {
                game.legal_actions(&state, &mut legal);
                moves += 1;
                match choose(p, &state, &legal, rng) {
                    Some(a) => a,
                    None => {
                        return Played {
                            returns: game.resignation_returns(&state, p),
                            moves,
                        };
                    }
                }
            }
        };
        state = game.apply(&state, action);
    }
    // Over, or cut off: the game's own returns of the position (zero where it has none).
    Played {
        returns: game.returns(&state),
        moves,
    }
}

/// The rank of `seat` by returns: 1 + the players ahead + half the players level.
pub(crate) fn rank(returns: &Returns, seat: Player) -> f64 {
    let mine = returns[seat];
    let others = returns
        .as_slice()
        .iter()
        .enumerate()
        .filter(|&(q, _)| q != seat);
    1.0 + others
        .map(|(_, &v)| {
            if v > mine {
                1.0
            } else if v == mine {
                0.5
            } else {
                0.0
            }
        })
        .sum::<f64>()
}

/// Mean and the 95% normal interval over `samples`, clipped to `range` (for means such as
/// ranks and returns; a rate takes [`rate_interval`]).
pub(crate) fn interval(samples: &[f64], range: Option<(f64, f64)>) -> [f64; 3] {
    let n = samples.len() as f64;
    let mean = stats::mean(samples);
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let half = stats::Z95 * (var / n).sqrt();
    let (lo, hi) = range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let clip = |x: f64| x.clamp(lo, hi);
    [mean, clip(mean - half), clip(mean + half)]
}

/// A rate's mean over `samples` (each the rate within one deal) and its Wilson 95% interval
/// over the `games` they hold: never `[0, 0]` at no wins, as the normal interval is.
pub(crate) fn rate_interval(samples: &[f64], games: f64) -> [f64; 3] {
    let mean = stats::mean(samples);
    let (lo, hi) = stats::wilson(mean, games);
    [mean, lo, hi]
}

impl<G: Game> Evaluator<G> for MatchEvaluator<'_, G> {
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, EvalError> {
        let greedy = learner.greedy_policy();
        let players = self.game.num_players() as f64;
        let mut out = Vec::with_capacity(self.metrics.len());
        for (_, reference) in &self.references {
            let other: &dyn Policy<G> = match (reference, copy) {
                (Some(p), _) => p.as_ref(),
                (None, Some(c)) => c,
                (None, None) => unreachable!("a frozen-copy reference gets its copy"),
            };
            let (mut wins, mut ranks, mut returns) = (Vec::new(), Vec::new(), Vec::new());
            for deal in 0..self.deals {
                let deal_seed = derive_seed(self.seed, deal);
                let (mut w, mut k, mut r) = (0.0, 0.0, 0.0);
                for &seat in &self.seats {
                    let result = self.play(greedy.as_ref(), seat, other, &mut rng(deal_seed));
                    w += (result.result_for(seat) == GameResult::Win) as u8 as f64;
                    k += rank(&result, seat);
                    r += result[seat];
                }
                let n = self.seats.len() as f64;
                wins.push(w / n);
                ranks.push(k / n);
                returns.push(r / n);
            }
            let games = (self.deals as usize * self.seats.len()) as f64;
            out.extend(rate_interval(&wins, games));
            out.extend(interval(&ranks, Some((1.0, players))));
            out.extend(interval(&returns, None));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties_and_intervals_cover_the_mean() {
        let r = Returns::from_slice(&[1.0, -0.5, -0.5]);
        assert_eq!((rank(&r, 0), rank(&r, 1)), (1.0, 2.5));
        let [mean, lo, hi] = interval(&[0.0, 1.0, 1.0, 0.0], Some((0.0, 1.0)));
        assert_eq!(mean, 0.5);
        assert!(lo < 0.5 && hi > 0.5 && lo >= 0.0 && hi <= 1.0);
        let [m, lo, hi] = interval(&[1.0, 1.0], Some((0.0, 1.0)));
        assert_eq!((m, lo, hi), (1.0, 1.0, 1.0));
    }

    #[test]
    fn a_rate_at_no_wins_has_an_interval_of_some_width() {
        let [m, lo, hi] = rate_interval(&[0.0; 20], 40.0);
        assert_eq!((m, lo), (0.0, 0.0));
        assert!(hi > 0.08 && hi < 0.1, "{hi}");
        let [m, lo, hi] = rate_interval(&[1.0; 20], 40.0);
        assert_eq!((m, hi), (1.0, 1.0));
        assert!(lo > 0.9 && lo < 0.92, "{lo}");
    }
}
