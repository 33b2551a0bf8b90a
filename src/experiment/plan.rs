//! What a study will run, from its config alone: the (learner, opponent) conditions, the runs
//! (condition × seed) in their fixed order and their ids, the config's fingerprint, the study's
//! name, and the [`Plan`] of one game (its store, and the runs this invocation answers for).
//! `merge` checks stored shards against the same plan, so both read it from here.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::config::{ExperimentConfig, LearnerEntry};
use super::opponents::OpponentSpec;
use super::store::{RunId, Store};
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::io::hash::{FNV_OFFSET, fnv1a};
use crate::truth::DEFAULT_STATE_LIMIT;

/// One (learner, opponent) pairing; it is trained once per seed.
pub(super) struct Condition<'a> {
    pub(super) learner: &'a LearnerEntry,
    /// `None`: self-play.
    pub(super) opponent: Option<&'a OpponentSpec>,
}

impl Condition<'_> {
    pub(super) fn opponent_name(&self) -> &str {
        self.opponent.map_or("self-play", |o| o.name.as_str())
    }
}

/// Every (learner, opponent) pairing of a config, learners first.
pub(super) fn conditions(config: &ExperimentConfig) -> Vec<Condition<'_>> {
    config
        .learners()
        .iter()
        .flat_map(|learner| {
            let opponents: Vec<Option<&OpponentSpec>> = if config.opponents().is_empty() {
                vec![None]
            } else {
                config.opponents().iter().map(Some).collect()
            };
            opponents
                .into_iter()
                .map(move |opponent| Condition { learner, opponent })
        })
        .collect()
}

/// The runs of a config in their order (condition, then seed); a run's place is its number.
pub(super) fn runs(config: &ExperimentConfig, conditions: usize) -> Vec<(usize, u64)> {
    (0..conditions)
        .flat_map(|c| config.seeds().iter().map(move |&s| (c, s)))
        .collect()
}

/// Who run `run` is (`runs`: every run in order, as [`runs`] lists them).
pub(super) fn run_id<'a>(
    conditions: &'a [Condition],
    runs: &[(usize, u64)],
    run: usize,
) -> RunId<'a> {
    let (c, seed) = runs[run];
    RunId {
        run,
        learner: &conditions[c].learner.label,
        opponent: conditions[c].opponent_name(),
        seed,
    }
}

/// A stable fingerprint of the resolved config.
pub(super) fn config_hash(resolved: &str) -> String {
    format!("{:016x}", fnv1a(FNV_OFFSET, resolved.as_bytes()))
}

/// The name of a file's study: the folder its games' folders are in (a single game's own).
pub(super) fn study_name(configs: &[(ExperimentConfig, crate::games::AnyGame)]) -> String {
    let first = configs[0].0.name();
    match configs.len() {
        1 => first.to_string(),
        _ => first.rsplit_once('/').map_or(first, |(s, _)| s).to_string(),
    }
}

/// One game of a study as it is about to run.
pub(super) struct Plan {
    pub(super) dir: PathBuf,
    pub(super) store: Store,
    /// The runs this invocation answers for (all of them, or a shard's share) ...
    pub(super) share: BTreeSet<usize>,
    /// ... and those of them not stored yet.
    pub(super) pending: Vec<usize>,
    pub(super) stored_before: usize,
    pub(super) runs: usize,
}

/// The positions the exact evaluator will read, for a run's cost: the game's bound where it
/// knows one, else counted.
pub(super) fn count_states<G: Game>(game: &G) -> Result<u64> {
    if let Some(n) = game.capabilities().states_at_most {
        return Ok(n);
    }
    let graph = StateGraph::build(game, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("counting the positions of {} for --shard", game.name()))?;
    Ok(graph.len() as u64)
}
