//! What a study will run, from its config alone: the (learner, opponent) conditions, the runs
//! (condition × seed) in their fixed order and their ids, the config's fingerprint, the study's
//! name, and the [`Plan`] of each game (its store, and the runs this invocation answers for).
//! `merge` checks stored shards against the same plan, so both read it from here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::RunOptions;
use super::config::{ExperimentConfig, LearnerEntry};
use super::opponents::OpponentSpec;
use super::store::{Manifest, RunId, Store};
use crate::games::AnyGame;
use crate::io::hash::{FNV_OFFSET, fnv1a};

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
pub(super) fn study_name(configs: &[(ExperimentConfig, AnyGame)]) -> String {
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

/// The plan of every game of a study (`configs`, read from the experiment file `path`, whose
/// text is `text`), in order: each game's folder under `out_root` and its store opened
/// (refused where it holds another config's runs or outputs, discarded with `options.fresh`),
/// and the runs this invocation answers for, all of them or the share of `options.shard`
/// (`shard_of`: the shard of every run of the study). `complete` (merge): every run must be
/// stored already.
pub(super) fn plans(
    configs: &[(ExperimentConfig, AnyGame)],
    path: &Path,
    text: &str,
    out_root: &Path,
    options: &RunOptions,
    shard_of: Option<&[usize]>,
    complete: bool,
) -> Result<Vec<Plan>> {
    let study = study_name(configs);
    let mut plans = Vec::with_capacity(configs.len());
    let mut first_run = 0;
    for (index, (config, _)) in configs.iter().enumerate() {
        let runs = conditions(config).len() * config.seeds().len();
        let mut manifest = Manifest::new(
            config.name(),
            &config_hash(&config.resolved_toml()),
            runs,
            &study,
            index,
            path,
            text,
        );
        manifest.shard = options.shard.map(|s| s.to_string());
        // The shard of each of this game's runs.
        let shard_of = shard_of.map(|of| &of[first_run..first_run + runs]);
        let dir = out_root.join(config.name());
        plans.push(Plan::open(dir, &manifest, options, shard_of, complete)?);
        first_run += runs;
    }
    Ok(plans)
}

impl Plan {
    /// The plan of the game whose folder is `dir` and whose store `manifest` describes
    /// (`shard_of`: the shard of each of its runs; see [`plans`]).
    fn open(
        dir: PathBuf,
        manifest: &Manifest,
        options: &RunOptions,
        shard_of: Option<&[usize]>,
        complete: bool,
    ) -> Result<Plan> {
        let (store, stored) = Store::open(&dir, manifest, options.fresh)?;
        if options.shard.is_none() {
            super::replace_outputs(&dir, &manifest.config_hash, options.fresh)?;
        }
        let runs = manifest.runs;
        let share: BTreeSet<usize> = (0..runs)
            .filter(|&r| match (shard_of, options.shard) {
                (Some(of), Some(s)) => of[r] == s.index() - 1,
                _ => true,
            })
            .collect();
        let pending: Vec<usize> = share.difference(&stored).copied().collect();
        if complete && !pending.is_empty() {
            bail!(
                "{}: {} of its {runs} runs are not stored",
                dir.display(),
                pending.len()
            );
        }
        Ok(Plan {
            stored_before: share.len() - pending.len(),
            dir,
            store,
            share,
            pending,
            runs,
        })
    }
}
