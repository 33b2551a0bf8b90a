//! Splitting a study across machines: `--shard K/N` runs a deterministic share of the runs
//! (learner × opponent × seed of every game), balanced by their expected cost rather than their
//! number, so that shards of a study with a small and a large game finish at about the same
//! time. Every shard computes the same assignment from the config alone.

use std::fmt;
use std::str::FromStr;

use anyhow::{Context, bail};
use thiserror::Error;

use super::config::{Evaluation, ExperimentConfig};
use super::plan::conditions;
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::games::AnyGame;
use crate::truth::DEFAULT_STATE_LIMIT;

/// Share `index` (1-based) of `count` shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("shard `{given}`: {why} (e.g. --shard 1/4 for the first of four shares)")]
pub struct ShardError {
    given: String,
    why: &'static str,
}

impl Shard {
    /// Shard `index` (1-based) of `count`; `None` unless 1 <= index <= count.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (1..=count)
            .contains(&index)
            .then_some(Shard { index, count })
    }
    /// 1-based.
    pub fn index(self) -> usize {
        self.index
    }
    pub fn count(self) -> usize {
        self.count
    }
}

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let err = |why| ShardError {
            given: s.to_string(),
            why,
        };
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| err("expected K/N, two whole numbers"))?;
        let whole = |text: &str, not_whole, too_large| {
            let text = text.trim();
            text.parse::<usize>().map_err(|_| {
                if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
                    err(too_large)
                } else {
                    err(not_whole)
                }
            })
        };
        let k = whole(k, "K is not a whole number", "K is too large to be a shard")?;
        let n = whole(
            n,
            "N is not a whole number",
            "N is too large to be a count of shards",
        )?;
        if n == 0 {
            return Err(err("N is at least 1"));
        }
        Shard::new(k, n).ok_or_else(|| err("K counts from 1 to N"))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Costs in whole units: training one episode costs about half as much as evaluating one
/// position exactly (in the `learners-compare` study a Hasenspiel run, 778,341 positions
/// evaluated 11 times, takes about 14 times as long as a tic-tac-toe run, 5,478 positions
/// evaluated 51 times, for the same million episodes). An estimate: it only balances shards.
const EPISODE: u128 = 1;
const EXACT_POSITION: u128 = 2;
/// A match evaluation plays its games against about three references, each game about an
/// episode.
pub const MATCH_REFERENCES: u64 = 3;

/// How one run is evaluated, for its cost.
#[derive(Clone, Copy, Debug)]
pub enum EvalCost {
    /// The exact evaluator over this many positions.
    Exact { states: u64 },
    /// The match evaluator, this many games per reference.
    Match { games: u64 },
}

/// The expected cost of one run: its episodes and its evaluations (every `interval` episodes,
/// before the first and after the last).
pub fn run_cost(episodes: u64, interval: u64, eval: EvalCost) -> u128 {
    let evaluations = u128::from(episodes.div_ceil(interval.max(1))) + 1;
    let per_evaluation = match eval {
        EvalCost::Exact { states } => EXACT_POSITION * u128::from(states),
        EvalCost::Match { games } => u128::from(MATCH_REFERENCES) * u128::from(games) * EPISODE,
    };
    EPISODE * u128::from(episodes) + evaluations * per_evaluation
}

/// The shard (0-based) of each run, given the runs' costs in study order: longest processing
/// time first (the costliest run to the least loaded shard; ties to the earlier run and the
/// lower shard), which keeps every shard within 4/3 of the best balance.
pub fn assign(costs: &[u128], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // Stable: equal costs keep study order.
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]));
    let mut load = vec![0u128; count];
    let mut shard_of = vec![0; costs.len()];
    for run in order {
        let (least, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(k, &l)| (l, k))
            .expect("at least one shard");
        shard_of[run] = least;
        load[least] += costs[run];
    }
    shard_of
}

/// The shard (0-based) of every run of the study `configs`, in study order, for `shard`: the
/// costliest runs of the whole study spread first ([`assign`]). `None` where there is one
/// shard; refused where there are more shards than runs.
pub(super) fn shard_of_runs(
    configs: &[(ExperimentConfig, AnyGame)],
    shard: Shard,
) -> anyhow::Result<Option<Vec<usize>>> {
    if shard.count() <= 1 {
        return Ok(None);
    }
    let total: usize = configs
        .iter()
        .map(|(config, _)| conditions(config).len() * config.seeds().len())
        .sum();
    if shard.count() > total {
        bail!(
            "--shard {shard}: the study has {total} runs, so {} shards would leave some \
             with nothing to do; split it into at most {total} shards",
            shard.count()
        );
    }
    let mut costs = Vec::with_capacity(total);
    for (config, game) in configs {
        let eval = match config.evaluation() {
            Evaluation::Match { games } => EvalCost::Match { games: games.get() },
            Evaluation::Exact => EvalCost::Exact {
                states: with_game!(game, g => count_states(g))?,
            },
        };
        let cost = run_cost(config.episodes(), config.eval_interval(), eval);
        let n = conditions(config).len() * config.seeds().len();
        costs.extend(std::iter::repeat_n(cost, n));
    }
    Ok(Some(assign(&costs, shard.count())))
}

/// The positions the exact evaluator will read, for a run's cost: the game's bound where it
/// knows one, else counted.
fn count_states<G: Game>(game: &G) -> anyhow::Result<u64> {
    if let Some(n) = game.capabilities().states_at_most {
        return Ok(n);
    }
    let graph = StateGraph::build(game, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("counting the positions of {} for --shard", game.name()))?;
    Ok(graph.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!(" 1 / 1 ".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/2", "3/2", "1/0", "x/2", "2", "1/2/3", ""] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains("--shard 1/4"), "{bad}: {e}");
        }
        let e = "18446744073709551616/1".parse::<Shard>().unwrap_err();
        assert!(e.to_string().contains("K is too large"), "{e}");
        let e = "1/99999999999999999999999".parse::<Shard>().unwrap_err();
        assert!(e.to_string().contains("N is too large"), "{e}");
    }

    #[test]
    fn balances_cost_not_count() {
        // One costly run and four cheap ones: the costly one gets a shard of its own.
        let costs = [10, 10, 40, 10, 10];
        assert_eq!(assign(&costs, 2), [1, 1, 0, 1, 1]);
        // Every run lands somewhere, deterministically.
        let costs: Vec<u128> = (0..50).map(|i| (i * 37 % 11) as u128 + 1).collect();
        let a = assign(&costs, 3);
        assert_eq!(a, assign(&costs, 3));
        let mut load = [0u128; 3];
        for (c, s) in costs.iter().zip(&a) {
            load[*s] += c;
        }
        let (max, min) = (load.iter().max().unwrap(), load.iter().min().unwrap());
        assert!(max - min <= 11, "{load:?}");
    }

    #[test]
    fn more_shards_than_runs_leaves_some_empty() {
        assert_eq!(assign(&[5, 5], 4), [0, 1]);
        assert!(assign(&[], 2).is_empty());
    }

    #[test]
    fn cost_counts_episodes_and_evaluations() {
        // 100 episodes, evaluated at 0, 50 and 100.
        assert_eq!(
            run_cost(100, 50, EvalCost::Exact { states: 10 }),
            100 + 3 * 20
        );
        // 100 episodes every 30: at 0, 30, 60, 90 and 100.
        assert_eq!(run_cost(100, 30, EvalCost::Match { games: 1 }), 100 + 5 * 3);
    }
}
