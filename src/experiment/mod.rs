//! Experiments: a TOML config names a game, learners, opponents, episodes and seeds; the runner
//! finds the game's truth once (every position enumerated for the exact evaluator, or the
//! game's own solver where only opponents need perfect play), trains one learner per
//! (learner, opponent, seed) in parallel with rayon, evaluates it on a fixed schedule with the
//! evaluator the game's capabilities allow ([`crate::eval::Evaluator`]), and writes
//! `<out>/<name>/`: `curves.parquet` and `curves.csv` (long form, one row per measurement),
//! the resolved `config.toml`, `summary.json` and plots (PNG and SVG).
//!
//! Each job draws from its own generators seeded from its seed, and results are gathered in job
//! order, so the output is the same bytes whatever the number of threads. Each finished job is
//! stored as it ends ([`store`]), so an interrupted study resumes where it stopped, and a study
//! can be split into shares ([`shard`]) run apart and merged ([`merge`]), to the same bytes.

pub mod config;
pub mod figures;
mod gather;
pub mod opponents;
pub mod output;
pub mod shard;
pub mod store;
pub mod summary;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::core::env::{AecEnv, Env};
use crate::core::game::{Game, GameResult, Player};
use crate::core::graph::StateGraph;
use crate::core::policy::{Policy, RandomPolicy, SharedPolicy};
use crate::core::random::{derive_seed, rng};
use crate::core::tabulated::{TabulateError, Tabulated};
use crate::eval::exact::{ExactEvaluator, ExactTruth};
use crate::eval::matches::{MatchEvaluator, Reference};
use crate::eval::{Evaluator, Metric, Profile, Role};
use crate::io::files::{FNV_OFFSET, fnv1a, write_atomic};
use crate::io::plot::{Band, PlotSpec};
use crate::learn::{Learner, play_self, play_vs_opponent};
use crate::truth::OptimalPolicy;
use crate::truth::oracle::Oracle;
use crate::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions};
use config::{BandSpec, Evaluation, ExperimentConfig, LearnerEntry, Seat};
use figures::plot_metric;
use opponents::{OpponentSpec, copy_of};
use output::{Curves, write_curves};
use shard::{EvalCost, Shard};
use store::{Manifest, RunId, Store};
use summary::{ConditionSummary, RunSummary, Spread, THRESHOLDS};

/// How a study runs beyond its config: what it shows, what it keeps, which share it runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// One progress bar for the whole study on stderr, and what is being solved.
    pub progress: bool,
    /// Discard the runs stored in the output folders (of any config) and start over.
    pub fresh: bool,
    /// Run only this share of the runs and store them for [`merge`]; no outputs are written.
    pub shard: Option<Shard>,
    /// Play every game by its own rules rather than from its state graph ([`Tabulated`]),
    /// where the positions are enumerated anyway: the same bytes, slower.
    pub own_rules: bool,
}

/// What [`run_study`] did: every game's results, or the runs a shard stored.
#[derive(Debug)]
pub enum StudyOutcome {
    Finished(Vec<RunSummary>),
    Shard(ShardReport),
}

/// What a shard stored, per game.
#[derive(Clone, Debug, Serialize)]
pub struct ShardReport {
    pub shard: String,
    pub games: Vec<ShardGame>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ShardGame {
    pub name: String,
    /// Where its runs are stored.
    pub folder: PathBuf,
    /// The runs of the whole config, this shard's share of them, and how many of the share
    /// were stored before this invocation (a resumed shard).
    pub runs: usize,
    pub share: usize,
    pub stored_before: usize,
}

impl fmt::Display for ShardReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "shard {}:", self.shard)?;
        for g in &self.games {
            writeln!(
                f,
                "  {}: {} of its {} runs stored in {}{}",
                g.name,
                g.share,
                g.runs,
                g.folder.display(),
                if g.stored_before > 0 {
                    format!(" ({} were already)", g.stored_before)
                } else {
                    String::new()
                }
            )?;
        }
        write!(
            f,
            "  when every shard is done: solvedgym merge <each shard's --out> --out DIR"
        )
    }
}

/// Reads the config at `path`, runs it and writes the results under `out_root/<name>/`.
/// A study (`[[games]]`) runs each game in turn into `out_root/<name>/<label>/` and writes
/// the games' tables together into `out_root/<name>/summary.md`. Runs stored by an
/// interrupted run of the same config are read, not trained again.
pub fn run_file(path: &Path, out_root: &Path, progress: bool) -> Result<Vec<RunSummary>> {
    let options = RunOptions {
        progress,
        ..RunOptions::default()
    };
    match run_study(path, out_root, &options)? {
        StudyOutcome::Finished(summaries) => Ok(summaries),
        StudyOutcome::Shard(_) => unreachable!("no shard was asked for"),
    }
}

/// [`run_file`] with options: start afresh, or run one shard.
pub fn run_study(path: &Path, out_root: &Path, options: &RunOptions) -> Result<StudyOutcome> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the experiment config {}", path.display()))?;
    run_text(path, &text, out_root, options, false)
}

/// One (learner, opponent) pairing; it is trained once per seed.
struct Condition<'a> {
    learner: &'a LearnerEntry,
    /// `None`: self-play.
    opponent: Option<&'a OpponentSpec>,
}

impl Condition<'_> {
    fn opponent_name(&self) -> &str {
        self.opponent.map_or("self-play", |o| o.name.as_str())
    }
}

/// Every (learner, opponent) pairing of a config, learners first.
fn conditions(config: &ExperimentConfig) -> Vec<Condition<'_>> {
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
fn jobs(config: &ExperimentConfig, conditions: usize) -> Vec<(usize, u64)> {
    (0..conditions)
        .flat_map(|c| config.seeds().iter().map(move |&s| (c, s)))
        .collect()
}

fn run_id<'a>(conditions: &'a [Condition], jobs: &[(usize, u64)], run: usize) -> RunId<'a> {
    let (c, seed) = jobs[run];
    RunId {
        run,
        learner: &conditions[c].learner.label,
        opponent: conditions[c].opponent_name(),
        seed,
    }
}

/// A stable fingerprint of the resolved config.
fn config_hash(resolved: &str) -> String {
    format!("{:016x}", fnv1a(FNV_OFFSET, resolved.as_bytes()))
}

/// The name of a file's study: the folder its games' folders are in (a single game's own).
fn study_name(runs: &[(ExperimentConfig, crate::games::AnyGame)]) -> String {
    let first = runs[0].0.name();
    match runs.len() {
        1 => first.to_string(),
        _ => first.rsplit_once('/').map_or(first, |(s, _)| s).to_string(),
    }
}

/// One game of a study as it is about to run.
struct Plan {
    dir: PathBuf,
    store: Store,
    /// The runs this invocation answers for (all of them, or a shard's share) ...
    share: BTreeSet<usize>,
    /// ... and those of them not stored yet.
    pending: Vec<usize>,
    stored_before: usize,
    runs: usize,
}

/// The study-wide progress: one bar over the episodes still to train, with the runs done.
struct Progress {
    bar: ProgressBar,
    on: bool,
    done: AtomicUsize,
    all: usize,
}

impl Progress {
    fn new(on: bool, episodes: u64, done: usize, all: usize) -> Progress {
        let bar = if on && episodes > 0 {
            let bar = ProgressBar::new(episodes);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} {msg} [{bar:25.cyan/blue}] {human_pos}/{human_len} episodes, {rate} ({eta} left)",
                )
                .expect("valid template")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn fmt::Write| {
                        let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
                    },
                )
                .progress_chars("=> "),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        bar.set_prefix(format!("{done}/{all} runs"));
        Progress {
            bar,
            on,
            done: AtomicUsize::new(done),
            all,
        }
    }
    /// A line above the bar (stderr, also when it is not a terminal).
    fn note(&self, line: impl fmt::Display) {
        if self.on {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }
    fn run_done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_prefix(format!("{done}/{} runs", self.all));
    }
}

/// Runs the experiment file `path` (its text `text`). `complete`: every run must be stored
/// already (merge), none is trained.
fn run_text(
    path: &Path,
    text: &str,
    out_root: &Path,
    options: &RunOptions,
    complete: bool,
) -> Result<StudyOutcome> {
    let runs = config::parse(path, text)?;
    let study = study_name(&runs);

    // A shard's share: the costliest runs of the whole study spread first.
    let shard_of = match options.shard {
        Some(shard) if shard.count() > 1 => {
            let mut costs = Vec::new();
            for (config, game) in &runs {
                let eval = match config.evaluation() {
                    Evaluation::Match { games } => EvalCost::Match { games: games.get() },
                    Evaluation::Exact => EvalCost::Exact {
                        states: with_game!(game, g => count_states(g))?,
                    },
                };
                let cost = shard::run_cost(config.episodes(), config.eval_interval(), eval);
                let n = conditions(config).len() * config.seeds().len();
                costs.extend(std::iter::repeat_n(cost, n));
            }
            Some(shard::assign(&costs, shard.count()))
        }
        _ => None,
    };

    let mut plans = Vec::with_capacity(runs.len());
    let mut first_run = 0;
    for (index, (config, _)) in runs.iter().enumerate() {
        let dir = out_root.join(config.name());
        let n = conditions(config).len() * config.seeds().len();
        let mut manifest = Manifest::new(
            config.name(),
            &config_hash(&config.resolved_toml()),
            n,
            &study,
            index,
            path,
            text,
        );
        manifest.shard = options.shard.map(|s| s.to_string());
        let (store, stored) = Store::open(&dir, &manifest, options.fresh)?;
        let share: BTreeSet<usize> = (0..n)
            .filter(|r| match (&shard_of, options.shard) {
                (Some(of), Some(s)) => of[first_run + r] == s.index() - 1,
                _ => true,
            })
            .collect();
        first_run += n;
        let pending: Vec<usize> = share.difference(&stored).copied().collect();
        if complete && !pending.is_empty() {
            bail!(
                "{}: {} of its {n} runs are not stored",
                dir.display(),
                pending.len()
            );
        }
        plans.push(Plan {
            stored_before: share.len() - pending.len(),
            dir,
            store,
            share,
            pending,
            runs: n,
        });
    }

    let episodes: u64 = runs
        .iter()
        .zip(&plans)
        .map(|((c, _), p)| p.pending.len() as u64 * c.episodes())
        .sum();
    let progress = Progress::new(
        options.progress,
        episodes,
        plans.iter().map(|p| p.stored_before).sum(),
        plans.iter().map(|p| p.share.len()).sum(),
    );
    let mut summaries = Vec::with_capacity(runs.len());
    for ((config, game), plan) in runs.iter().zip(&plans) {
        if options.shard.is_some() && plan.pending.is_empty() {
            continue;
        }
        let summary =
            with_game!(game, g => run_game_tabulated(g, config, plan, options, &progress))?;
        summaries.extend(summary);
    }
    progress.bar.finish_and_clear();

    if let Some(shard) = options.shard {
        return Ok(StudyOutcome::Shard(ShardReport {
            shard: shard.to_string(),
            games: runs
                .iter()
                .zip(&plans)
                .map(|((config, _), p)| ShardGame {
                    name: config.name().to_string(),
                    folder: p.store.dir().to_path_buf(),
                    runs: p.runs,
                    share: p.share.len(),
                    stored_before: p.stored_before,
                })
                .collect(),
        }));
    }
    if summaries.len() > 1 {
        let mut table = format!("# {study}\n");
        for s in &summaries {
            // The game's label tells apart two boards of one game (hexapawn-3x3, hexapawn-4x4).
            let label = s.name.rsplit_once('/').map_or(s.name.as_str(), |(_, l)| l);
            let game = if label == s.game {
                String::new()
            } else {
                format!("{}, ", s.game)
            };
            table.push_str(&format!(
                "\n## {label} ({game}{})\n\n{}",
                s.heading(),
                s.table()
            ));
        }
        let file = out_root.join(&study).join("summary.md");
        write_atomic(&file, table.as_bytes())?;
        if let Some(last) = summaries.last_mut() {
            last.written.push(file);
        }
    }
    // Every output is written: the stored runs have served.
    for plan in plans {
        plan.store.remove()?;
    }
    Ok(StudyOutcome::Finished(summaries))
}

/// The positions the exact evaluator will read, for a run's cost: the game's bound where it
/// knows one, else counted.
fn count_states<G: Game>(game: &G) -> Result<u64> {
    if let Some(n) = game.capabilities().states_at_most {
        return Ok(n);
    }
    let graph = StateGraph::build(game, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("counting the positions of {} for --shard", game.name()))?;
    Ok(graph.len() as u64)
}

/// Gathers the runs stored by the shards of a study (each `dirs` entry the `--out` of a
/// `run --shard K/N`) and writes the study's outputs under `out_root`, the same bytes as one
/// uninterrupted run. Refuses shards of different configs, a run stored twice, and missing runs.
pub fn merge(dirs: &[PathBuf], out_root: &Path, progress: bool) -> Result<Vec<RunSummary>> {
    let found = gather::gather(dirs)?;
    let mut summaries = Vec::new();
    for study in found {
        study.copy_into(out_root)?;
        let options = RunOptions {
            progress,
            ..RunOptions::default()
        };
        match run_text(&study.source_path, &study.source, out_root, &options, true)? {
            StudyOutcome::Finished(s) => summaries.extend(s),
            StudyOutcome::Shard(_) => unreachable!("no shard was asked for"),
        }
    }
    Ok(summaries)
}

/// What a trained (or reloaded) learner left behind.
struct JobResult {
    /// The first evaluation at which the greedy policy kept the value in 95% / 99% of the
    /// positions of optimal play.
    reached: [Option<u64>; 2],
    curves: Curves,
    losses: u64,
    last_loss: u64,
    perfect: bool,
    final_metrics: Vec<(String, f64)>,
}

/// What a run knows of its game, found once: every position with its value (the exact
/// evaluator), or the game's own solver (perfect play for opponents), or nothing.
struct Truth<'s, G: Game> {
    exact: Option<ExactTruth<'s, G>>,
    oracle: Option<&'s dyn Oracle<G>>,
    /// The state graph frozen copies are tabulated over.
    graph: Option<&'s StateGraph<G>>,
    /// The fixed training opponent of each condition, tabulated for the exact evaluator.
    opponents: Vec<Option<Profile>>,
}

/// Whether the runs of `game` enumerate its positions: for the exact evaluator, or wherever the
/// game allows it (the match evaluator plays perfect play from them; frozen copies are
/// tabulated over them).
fn enumerates<G: Game>(game: &G, config: &ExperimentConfig) -> bool {
    config.evaluation() == Evaluation::Exact
        || game
            .capabilities()
            .enumeration_refusal(DEFAULT_STATE_LIMIT)
            .is_none()
}

/// [`run_game`], played from the state graph ([`Tabulated`]) where the positions are enumerated
/// anyway: the same runs and bytes, the rules looked up rather than computed at every move.
fn run_game_tabulated<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    plan: &Plan,
    options: &RunOptions,
    progress: &Progress,
) -> Result<Option<RunSummary>> {
    let finish = options.shard.is_none();
    if !options.own_rules && enumerates(game, config) {
        progress.note(format_args!("enumerating {} ...", game.name()));
        match Tabulated::new(game, DEFAULT_STATE_LIMIT) {
            Ok(tabulated) => return run_game(&tabulated, config, plan, finish, progress),
            Err(TabulateError::Graph(e)) => {
                return Err(crate::truth::SolveError::from(e))
                    .with_context(|| format!("solving {} for the evaluator", game.name()));
            }
            // A symmetry leads out of the graph: the game is played by its own rules.
            Err(_) => {}
        }
    }
    run_game(game, config, plan, finish, progress)
}

/// Runs the pending runs of one game of a study, storing each as it ends; with `finish`, reads
/// back the stored ones and writes the game's outputs into its folder.
fn run_game<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    plan: &Plan,
    finish: bool,
    progress: &Progress,
) -> Result<Option<RunSummary>> {
    let dir = &plan.dir;
    let resolved = config.resolved_toml();
    let config_hash = config_hash(&resolved);
    let conditions = conditions(config);
    let jobs = jobs(config, conditions.len());
    // The truth: every position where the game allows it (the exact evaluator reads them all;
    // the match evaluator plays perfect play from them; frozen copies are tabulated over them),
    // else the game's own solver where an opponent plays perfectly.
    let exact = config.evaluation() == Evaluation::Exact;
    let needs_oracle = conditions
        .iter()
        .any(|c| c.opponent.is_some_and(|o| o.policy.needs_oracle()));
    let solution = if enumerates(game, config) {
        progress.note(format_args!("solving {} ...", game.name()));
        let solution = crate::truth::enumerate(game, DEFAULT_STATE_LIMIT)
            .with_context(|| format!("solving {} for the evaluator", game.name()))?;
        progress.note(format_args!(
            "  {}: {} states, {} ({:.3} s)",
            game.name(),
            solution.graph().len(),
            solution.describe_start(),
            solution.seconds()
        ));
        Some(solution)
    } else {
        None
    };
    let own = if solution.is_none() && needs_oracle {
        progress.note(format_args!(
            "solving {} with its own solver for perfect play ...",
            game.name()
        ));
        let options = SolveOptions {
            counts: false,
            progress: progress.on,
            ..SolveOptions::default()
        };
        Some(progress.bar.suspend(|| game.solve(&options))?)
    } else {
        None
    };
    let oracle: Option<&dyn Oracle<G>> = match (&solution, &own) {
        (Some(s), _) => Some(s.as_oracle()),
        (None, Some(o)) => Some(o.as_ref()),
        (None, None) => None,
    };
    let exact_truth = match (&solution, exact) {
        (Some(s), true) => Some(ExactTruth::new(s.graph(), s.as_oracle())?),
        _ => None,
    };
    let opponents = conditions
        .iter()
        .map(|c| match (&exact_truth, c.opponent) {
            (Some(t), Some(o)) if o.frozen().is_none() => {
                Ok(Some(t.tabulate(o.policy.build(oracle).as_ref())?))
            }
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    let truth = Truth {
        exact: exact_truth,
        oracle,
        graph: solution.as_ref().map(|s| s.graph()),
        opponents,
    };
    let mut report = oracle.map(|o| o.report());
    if let Some(r) = &mut report {
        // The summary must be the same bytes on every run.
        r.seconds = None;
    }

    // What each condition records, known before any training: the runner's own figures, the
    // evaluator's metrics and the learner's statistics.
    let recorded: Vec<Vec<Metric>> = conditions
        .iter()
        .enumerate()
        .map(|(c, cond)| {
            let learner = cond.learner.config.build(game, cond.learner.label.clone());
            let mut metrics = runner_metrics(game, &truth, cond);
            metrics.extend_from_slice(
                evaluator(game, config, &truth, c, cond, 0, learner.as_ref()).metrics(),
            );
            metrics.extend(learner.statistics().into_iter().map(|(m, _)| m));
            metrics
        })
        .collect();
    // `<metric>_as_*` plots the metric for every seat (a study's games name their seats apart).
    let plot_metrics: Vec<String> = config
        .plot_metrics()
        .iter()
        .flat_map(|m| match m.strip_suffix("_as_*") {
            Some(base) => (0..game.num_players())
                .map(|p| format!("{base}_as_{}", game.player_name(p)))
                .collect(),
            None => vec![m.clone()],
        })
        .collect();
    let mut names: Vec<&str> = Vec::new();
    for m in recorded.iter().flatten() {
        if !names.contains(&m.name.as_str()) {
            names.push(&m.name);
        }
    }
    if let Some(missing) = plot_metrics.iter().find(|m| !names.contains(&m.as_str())) {
        anyhow::bail!(
            "`plots.metrics`: this experiment records no metric `{missing}`; it records: {}",
            names.join(", ")
        );
    }

    match (plan.pending.len(), plan.stored_before) {
        (0, stored) => progress.note(format_args!(
            "{}: its {stored} runs are stored; read back",
            config.name()
        )),
        (pending, stored) => progress.note(format_args!(
            "{}: {pending} runs x {} episodes on {} threads{}",
            config.name(),
            config.episodes(),
            rayon::current_num_threads(),
            match stored {
                0 => String::new(),
                n => format!(" ({n} stored before: read back)"),
            }
        )),
    }
    progress.bar.set_message(config.name().to_string());
    // Each run is stored the moment it ends: an interruption loses only the runs under way.
    if !plan.pending.is_empty() {
        plan.store.create()?;
    }
    let computed: Vec<(usize, JobResult)> = plan
        .pending
        .par_iter()
        .map(|&run| {
            let (c, seed) = jobs[run];
            let job = run_job(game, &truth, c, config, &conditions[c], seed, &progress.bar)?;
            plan.store.save(run_id(&conditions, &jobs, run), &job)?;
            progress.run_done();
            Ok((run, job))
        })
        .collect::<Result<_>>()?;
    if !finish {
        return Ok(None);
    }
    // Every run in order, those of earlier invocations read back.
    let mut computed = computed.into_iter().peekable();
    let mut results = Vec::with_capacity(jobs.len());
    for run in 0..jobs.len() {
        match computed.next_if(|(r, _)| *r == run) {
            Some((_, job)) => results.push(job),
            None => results.push(plan.store.load(run_id(&conditions, &jobs, run))?),
        }
    }

    let mut curves = Curves::new(config.name(), game.name(), &config_hash);
    for r in &results {
        curves.append(r.curves.clone());
    }
    let summary = summarise(
        game,
        truth.graph,
        config,
        &conditions,
        &recorded,
        &results,
        report,
        &config_hash,
    );

    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_curves(dir, &curves)?;
    write_atomic(&dir.join("config.toml"), resolved.as_bytes())?;
    write_atomic(
        &dir.join("summary.json"),
        format!("{}\n", serde_json::to_string_pretty(&summary)?).as_bytes(),
    )?;
    write_atomic(&dir.join("summary.md"), summary.table().as_bytes())?;
    let mut written = vec![
        dir.join("curves.parquet"),
        dir.join("curves.csv"),
        dir.join("config.toml"),
        dir.join("summary.json"),
        dir.join("summary.md"),
    ];
    for metric in &plot_metrics {
        let spec = plot_spec(config, &recorded, metric);
        written.extend(plot_metric(dir, &curves, &spec)?);
    }
    Ok(Some(RunSummary { written, ..summary }))
}
/// The seat a condition's losses and results are counted at: its one seat, or the first.
fn first_seat(cond: &Condition) -> Player {
    match &cond.learner.seat {
        Seat::Player(p, _) => *p,
        Seat::SelfPlay | Seat::Alternate => 0,
    }
}

/// The figures the runner records itself: the mean result and the losses since the last
/// evaluation, and the losses so far.
fn runner_metrics<G: Game>(game: &G, truth: &Truth<G>, cond: &Condition) -> Vec<Metric> {
    let never_loses = truth
        .exact
        .as_ref()
        .is_some_and(|t| t.value(first_seat(cond)) >= 0.0);
    let _ = game;
    let mut cumulative = Metric::new(
        "cumulative_losses",
        "Losses so far",
        "cumulative losses (games)",
    );
    if never_loses {
        cumulative = cumulative.reference(0.0, "perfect play never loses (solver)");
    }
    vec![
        Metric::new(
            "result",
            "Mean result of the games played",
            "mean return (+1 win, -1 loss)",
        ),
        Metric::new("losses", "Losses between two evaluations", "losses (games)"),
        cumulative,
    ]
}

/// The evaluator of condition `c` for the job seeded `seed` (the match evaluator's deals come
/// from it); `learner` tells whether the learner learns values.
fn evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    c: usize,
    cond: &Condition,
    seed: u64,
    learner: &dyn Learner<G>,
) -> Box<dyn Evaluator<G> + 't> {
    let seats = cond.learner.seat.players(game.num_players());
    let copy = cond.opponent.is_some_and(|o| o.frozen().is_some());
    match (config.evaluation(), &truth.exact) {
        (Evaluation::Exact, Some(exact)) => Box::new(ExactEvaluator::new(
            exact,
            seats,
            truth.opponents[c].as_ref(),
            copy,
            learner.learns_values(),
        )),
        (evaluation, _) => {
            let games = match evaluation {
                Evaluation::Match { games } => games.get(),
                Evaluation::Exact => config::DEFAULT_MATCH_GAMES.get(),
            };
            let mut references: Vec<Reference<'t, G>> =
                vec![("random".into(), Some(Box::new(RandomPolicy)))];
            if let Some(oracle) = truth.oracle {
                references.push(("optimal".into(), Some(Box::new(OptimalPolicy::new(oracle)))));
            }
            if let Some(options) = config.reference_ai() {
                let ai = crate::ai::search::SearchPolicy::new(options.clone());
                references.push(("ai".into(), Some(Box::new(ai))));
            }
            if let Some(o) = cond.opponent {
                let policy = (!copy).then(|| o.policy.build(truth.oracle));
                references.push(("opponent".into(), policy));
            }
            Box::new(MatchEvaluator::new(
                game,
                seats,
                references,
                games,
                derive_seed(seed, 3),
            ))
        }
    }
}

fn run_job<G: Game>(
    game: &G,
    truth: &Truth<G>,
    condition: usize,
    config: &ExperimentConfig,
    cond: &Condition,
    seed: u64,
    bar: &ProgressBar,
) -> Result<JobResult> {
    let mut learner = cond.learner.config.build(game, cond.learner.label.clone());
    let mut rng = rng(derive_seed(seed, 1));
    let env_seed = derive_seed(seed, 2);
    let seats = cond.learner.seat.players(game.num_players());
    let evaluator = evaluator(game, config, truth, condition, cond, seed, learner.as_ref());
    let roles: Vec<Role> = evaluator.metrics().iter().map(|m| m.role).collect();
    let mut job = JobResult {
        reached: [None; 2],
        curves: Curves::default(),
        losses: 0,
        last_loss: 0,
        perfect: false,
        final_metrics: Vec::new(),
    };
    let label = cond.learner.label.as_str();
    let opponent_name = cond.opponent_name();

    enum Arena<'p, G: Game> {
        /// One environment per seat the learner takes (in turn, when seats alternate).
        Seats(Vec<Env<'p, G>>),
        SelfPlay(Box<AecEnv<G>>),
    }
    // A frozen copy of the learner, shared by the environments and refreshed every so often.
    let copy = match (cond.opponent.and_then(OpponentSpec::frozen), truth.graph) {
        (Some((refresh, play)), Some(graph)) => {
            let policy = SharedPolicy::new(copy_of(graph, learner.as_ref(), play)?);
            Some((policy, refresh, play, graph))
        }
        _ => None,
    };
    let mut arena = match cond.opponent {
        Some(o) => {
            let mut envs = Vec::with_capacity(seats.len());
            for (k, &seat) in seats.iter().enumerate() {
                let opponents = (0..game.num_players())
                    .map(|p| {
                        (p != seat).then(|| match &copy {
                            Some((shared, ..)) => Box::new(shared.clone()) as Box<dyn Policy<G>>,
                            None => o.policy.build(truth.oracle),
                        })
                    })
                    .collect();
                let seed = if k == 0 {
                    env_seed
                } else {
                    derive_seed(env_seed, k as u64)
                };
                envs.push(
                    Env::with_opponents(game.clone(), seat, opponents, seed)
                        .context("building the environment")?,
                );
            }
            Arena::Seats(envs)
        }
        None => Arena::SelfPlay(Box::new(AecEnv::new(game.clone(), env_seed))),
    };

    // Every evaluation: the evaluator's metrics, then the learner's statistics.
    let evaluate = |learner: &dyn Learner<G>,
                    curves: &mut Curves,
                    episode: u64|
     -> Result<Vec<(String, f64)>> {
        let current_copy = copy.as_ref().map(|(shared, ..)| shared.read());
        let values = evaluator.evaluate(learner, current_copy.as_deref())?;
        let mut metrics: Vec<(String, f64)> = evaluator
            .metrics()
            .iter()
            .zip(values)
            .map(|(m, v)| (m.name.clone(), v))
            .collect();
        metrics.extend(learner.statistics().into_iter().map(|(m, v)| (m.name, v)));
        for (m, v) in &metrics {
            curves.push(label, opponent_name, seed, episode, m, *v);
        }
        Ok(metrics)
    };
    let note_thresholds = |reached: &mut [Option<u64>; 2], metrics: &[(String, f64)], episode| {
        let rate = roles
            .iter()
            .zip(metrics)
            .find(|(r, _)| **r == Role::Threshold)
            .map(|(_, (_, v))| *v);
        for (r, t) in reached.iter_mut().zip(THRESHOLDS) {
            if r.is_none() && rate.is_some_and(|v| v >= t - 1e-12) {
                *r = Some(episode);
            }
        }
    };

    // Games are summarised at each evaluation: the mean result and the losses since the last
    // one (with eval_interval = 1, every game on its own).
    job.curves
        .push(label, opponent_name, seed, 0, "cumulative_losses", 0.0);
    let mut metrics = evaluate(learner.as_ref(), &mut job.curves, 0)?;
    note_thresholds(&mut job.reached, &metrics, 0);
    let (mut result_sum, mut games_since, mut losses_since) = (0.0, 0u64, 0u64);
    let mut pending = 0;
    for episode in 1..=config.episodes() {
        let (outcome, seat) = match &mut arena {
            Arena::Seats(envs) => {
                let turn = ((episode - 1) % envs.len() as u64) as usize;
                let env = &mut envs[turn];
                (
                    play_vs_opponent(env, learner.as_mut(), &mut rng),
                    env.seat(),
                )
            }
            Arena::SelfPlay(env) => (play_self(env, learner.as_mut(), &mut rng), seats[0]),
        };
        let result = outcome
            .returns
            .map_or(GameResult::Draw, |r| r.result_for(seat));
        result_sum += outcome.reward;
        games_since += 1;
        if result == GameResult::Loss {
            job.losses += 1;
            job.last_loss = episode;
            losses_since += 1;
        }
        if episode % config.eval_interval() == 0 || episode == config.episodes() {
            let mut push = |metric: &str, value: f64| {
                job.curves
                    .push(label, opponent_name, seed, episode, metric, value)
            };
            push("result", result_sum / games_since as f64);
            push("losses", losses_since as f64);
            push("cumulative_losses", job.losses as f64);
            (result_sum, games_since, losses_since) = (0.0, 0, 0);
            metrics = evaluate(learner.as_ref(), &mut job.curves, episode)?;
            note_thresholds(&mut job.reached, &metrics, episode);
        }
        // Evaluated against the copy it trained against; the next episodes meet a new one.
        if let Some((shared, refresh, play, graph)) = &copy
            && episode % refresh == 0
        {
            shared.replace(copy_of(graph, learner.as_ref(), *play)?);
        }
        pending += 1;
        if pending == 64 || episode == config.episodes() {
            bar.inc(pending);
            pending = 0;
        }
    }
    job.perfect = roles
        .iter()
        .zip(&metrics)
        .any(|(r, (_, v))| *r == Role::Perfect && *v == 1.0);
    job.final_metrics = metrics;
    Ok(job)
}

/// Labels and the reference line of a plotted metric, from what its conditions say of it: the
/// reference is drawn where every condition recording the metric gives the same one.
fn plot_spec(config: &ExperimentConfig, recorded: &[Vec<Metric>], metric: &str) -> PlotSpec {
    let defs: Vec<&Metric> = recorded
        .iter()
        .flatten()
        .filter(|m| m.name == metric)
        .collect();
    let first = defs[0];
    let reference = first
        .reference
        .clone()
        .filter(|r| defs.iter().all(|m| m.reference.as_ref() == Some(r)));
    let seat_note = first.seat.map_or(String::new(), |_| {
        format!(" (as {})", metric.rsplit("_as_").next().unwrap_or(""))
    });
    PlotSpec {
        file_stem: metric.to_string(),
        title: format!("{}: {}{seat_note}", config.name(), first.title),
        metric: metric.to_string(),
        x_label: "games played".to_string(),
        y_label: first.unit.clone(),
        reference,
        y_range: first.range,
        band: match (config.band(), &first.interval) {
            (_, Some((low, high))) => Band::Interval {
                low: low.clone(),
                high: high.clone(),
            },
            (BandSpec::Bootstrap95, None) => Band::Bootstrap95,
            (BandSpec::MinMax, None) => Band::MinMax,
        },
    }
}

fn reached_spread(jobs: &[JobResult], k: usize) -> Option<Spread> {
    let v: Vec<f64> = jobs
        .iter()
        .filter_map(|j| j.reached[k].map(|e| e as f64))
        .collect();
    (!v.is_empty()).then(|| Spread::of(v))
}

#[allow(clippy::too_many_arguments)]
fn summarise<G: Game>(
    game: &G,
    graph: Option<&StateGraph<G>>,
    config: &ExperimentConfig,
    conditions: &[Condition],
    recorded: &[Vec<Metric>],
    results: &[JobResult],
    solution: Option<crate::truth::SolveReport>,
    config_hash: &str,
) -> RunSummary {
    let per = config.seeds().len();
    let share = |n: usize| n as f64 / per as f64;
    let mut out = Vec::new();
    for (c, cond) in conditions.iter().enumerate() {
        let jobs = &results[c * per..(c + 1) * per];
        let mut final_metrics = BTreeMap::new();
        for (i, (name, _)) in jobs[0].final_metrics.iter().enumerate() {
            final_metrics.insert(
                name.clone(),
                Spread::of(jobs.iter().map(|j| j.final_metrics[i].1)),
            );
        }
        let measures_perfect = recorded[c].iter().any(|m| m.role == Role::Perfect);
        out.push(ConditionSummary {
            learner: cond.learner.label.clone(),
            opponent: cond.opponent_name().to_string(),
            seat: cond.learner.seat.describe(),
            seeds: per,
            episodes: config.episodes(),
            losses: Spread::of(jobs.iter().map(|j| j.losses as f64)),
            last_loss_episode: Spread::of(jobs.iter().map(|j| j.last_loss as f64)),
            never_lost_share: share(jobs.iter().filter(|j| j.losses == 0).count()),
            perfect_share: measures_perfect
                .then(|| share(jobs.iter().filter(|j| j.perfect).count())),
            final_metrics,
            episodes_to_95: reached_spread(jobs, 0),
            reached_95_share: share(jobs.iter().filter(|j| j.reached[0].is_some()).count()),
            episodes_to_99: reached_spread(jobs, 1),
            reached_99_share: share(jobs.iter().filter(|j| j.reached[1].is_some()).count()),
            metrics: recorded[c].clone(),
            seat_names: (0..game.num_players())
                .map(|p| game.player_name(p).to_string())
                .collect(),
        });
    }
    let mut notes: BTreeMap<&'static str, Vec<_>> = BTreeMap::new();
    if let Some(graph) = graph {
        for l in config.learners() {
            let seat = match &l.seat {
                Seat::Player(p, name) => Some((*p, name.as_str())),
                _ => None,
            };
            if let Some((key, note)) = l.config.note(&l.label, seat, graph) {
                notes.entry(key).or_default().push(note);
            }
        }
    }
    let evaluation = match config.evaluation() {
        Evaluation::Exact => "exact evaluation".to_string(),
        Evaluation::Match { games } => {
            format!("evaluated by matches, {games} games per reference")
        }
    };
    RunSummary {
        name: config.name().to_string(),
        description: config.description().to_string(),
        config_hash: config_hash.to_string(),
        solution,
        notes,
        conditions: out,
        game: game.name().to_string(),
        evaluation,
        written: Vec::new(),
    }
}
