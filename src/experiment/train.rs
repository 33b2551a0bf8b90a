//! Training one game of a study: its truth found once (every position for the exact evaluator,
//! or the game's own solver for perfect play), its pending runs trained in parallel, each stored
//! the moment it ends ([`run_game`]); one run is one learner trained against its opponent (or
//! itself) and evaluated on the config's schedule ([`train_run`]). The study-wide progress bar
//! ([`Progress`]) lives here, as training is what it counts.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::Observer;
use super::config::{self, Evaluation, ExperimentConfig, Seat};
use super::figures::{plot_metric, plot_spec};
use super::opponents::{OpponentSpec, copy_of};
use super::output::{Curves, CurvesWriter};
use super::plan::{Condition, Plan, conditions, config_hash, run_id, runs};
use super::store::{self, RunResult, run_file};
use super::summary::{RunSummary, THRESHOLDS, summarise};
use crate::core::env::{AecEnv, Env};
use crate::core::game::{Game, GameResult, Player};
use crate::core::graph::StateGraph;
use crate::core::policy::{Policy, RandomPolicy, SharedPolicy};
use crate::core::random::{derive_seed, rng};
use crate::eval::exact::{ExactEvaluator, ExactTruth};
use crate::eval::matches::{MatchEvaluator, Reference};
use crate::eval::response::ResponseEvaluator;
use crate::eval::{Evaluator, ExpectedResult, FrozenPolicy, Metric, Profile, Role};
use crate::io::files::write_atomic;
use crate::io::version::{COMMIT, VERSION};
use crate::learn::saved::{Origin, save_agent};
use crate::learn::{Learner, play_self, play_vs_opponent};
use crate::truth::OptimalPolicy;
use crate::truth::oracle::Oracle;
use crate::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions};

/// The study-wide progress: one bar over the episodes still to train, with the runs done, and
/// the observer a program may watch it with.
pub(super) struct Progress {
    pub(super) bar: ProgressBar,
    on: bool,
    done: AtomicUsize,
    all: usize,
    watch: Option<Watch>,
}

/// An [`Observer`] and what it has been told.
struct Watch {
    observer: Observer,
    episodes: u64,
    trained: AtomicU64,
    start: Instant,
    /// Milliseconds from `start` before which it is not told again.
    next_ms: AtomicU64,
    stopped: AtomicBool,
}

impl Progress {
    pub(super) fn new(
        on: bool,
        episodes: u64,
        done: usize,
        all: usize,
        observer: Option<Observer>,
    ) -> Progress {
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
            watch: observer.map(|observer| Watch {
                observer,
                episodes,
                trained: AtomicU64::new(0),
                start: Instant::now(),
                next_ms: AtomicU64::new(0),
                stopped: AtomicBool::new(false),
            }),
        }
    }
    /// `episodes` more are trained; an error where the observer stopped the study.
    fn advance(&self, episodes: u64) -> Result<()> {
        self.bar.inc(episodes);
        let Some(w) = &self.watch else {
            return Ok(());
        };
        let trained = w.trained.fetch_add(episodes, Ordering::Relaxed) + episodes;
        let now = w.start.elapsed().as_millis() as u64;
        let next = w.next_ms.load(Ordering::Relaxed);
        // One thread of those that find the interval over tells the observer.
        if now >= next
            && w.next_ms
                .compare_exchange(
                    next,
                    now + Observer::INTERVAL.as_millis() as u64,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
            && !(w.observer.0)(trained.min(w.episodes), w.episodes)
        {
            w.stopped.store(true, Ordering::Relaxed);
        }
        if w.stopped.load(Ordering::Relaxed) {
            anyhow::bail!("stopped: the runs stored so far are kept, run again to resume");
        }
        Ok(())
    }
    /// Training is over: the bar is cleared, the observer told the last figures.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
        if let Some(w) = &self.watch {
            (w.observer.0)(
                w.trained.load(Ordering::Relaxed).min(w.episodes),
                w.episodes,
            );
        }
    }
    /// A line above the bar (stderr, also when it is not a terminal).
    pub(super) fn note(&self, line: impl fmt::Display) {
        if self.on {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }
    fn run_done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_prefix(format!("{done}/{} runs", self.all));
    }
}

/// What a run knows of its game, found once: every position with its value (the exact
/// evaluator), or the game's own solver (perfect play for opponents), or nothing.
struct Truth<'s, G: Game> {
    exact: Option<ExactTruth<'s, G>>,
    oracle: Option<&'s dyn Oracle<G>>,
    /// The state graph frozen copies are tabulated over.
    graph: Option<&'s StateGraph<G>>,
    /// The held-out game's truth (`[evaluation] held_out`): every evaluation also scores the
    /// learner's play there.
    held_out: Option<ExactTruth<'s, G>>,
    /// The fixed training opponent of each condition, tabulated for the exact evaluator, with
    /// the best response's result against it at each seat (the ceiling: the reference lines
    /// of the results against it).
    opponents: Vec<Option<(Profile, Vec<ExpectedResult>)>>,
    /// The saved agent of `[evaluation] agent`, tabulated for the exact evaluator, with perfect
    /// play's result against it at each seat.
    agent: Option<(Profile, Vec<ExpectedResult>)>,
}

/// Whether the runs of `game` enumerate its positions: for the exact evaluator, or wherever the
/// game allows it (the match evaluator plays perfect play from them; frozen copies are
/// tabulated over them).
pub(super) fn enumerates<G: Game>(game: &G, config: &ExperimentConfig) -> bool {
    config.evaluation() == Evaluation::Exact
        || game
            .capabilities()
            .enumeration_refusal(DEFAULT_STATE_LIMIT)
            .is_none()
}

/// Runs the pending runs of one game of a study, storing each as it ends; with `finish`, reads
/// back the stored ones and writes the game's outputs into its folder.
pub(super) fn run_game<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    plan: &Plan,
    finish: bool,
    csv: bool,
    progress: &Progress,
) -> Result<Option<RunSummary>> {
    let dir = &plan.dir;
    let resolved = config.resolved_toml();
    let config_hash = config_hash(&resolved);
    let conditions = conditions(config);
    let runs = runs(config, conditions.len());
    with_truth(game, config, &conditions, progress, |truth, report| {
        // What each condition records, known before any training: the runner's own figures, the
        // evaluator's metrics and the learner's statistics.
        let recorded: Vec<Vec<Metric>> = conditions
            .iter()
            .enumerate()
            .map(|(c, cond)| {
                let learner = cond.learner.config.build(game, cond.learner.label.clone());
                let mut metrics = runner_metrics(game, truth, cond);
                metrics.extend_from_slice(
                    evaluator(game, config, truth, c, cond, 0, learner.as_ref())?.metrics(),
                );
                // The learner's own figures, with a reference line where the enumerated game
                // gives one (the boxes a matchbox learner's seat needs).
                let seat = match &cond.learner.seat {
                    Seat::Player(p, _) => Some(*p),
                    Seat::SelfPlay | Seat::Alternate => None,
                };
                metrics.extend(learner.statistics().into_iter().map(|(m, _)| {
                    let line = seat
                        .zip(truth.graph)
                        .and_then(|(p, g)| cond.learner.config.reference(m.source, p, g));
                    match line {
                        Some(v) => m.reference_at(v),
                        None => m,
                    }
                }));
                Ok(metrics)
            })
            .collect::<Result<_>>()?;
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
                "{}: {} runs x {} episodes on {} threads{}",
                config.name(),
                crate::io::text::group(&pending.to_string()),
                crate::io::text::group(&config.episodes().to_string()),
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
        plan.pending.par_iter().try_for_each(|&run| {
            let (c, seed) = runs[run];
            let cond = &conditions[c];
            let (result, learner) = train_run(game, truth, c, config, cond, seed, progress)?;
            // Its agent is saved before the run is stored: a stored run that keeps its agent
            // has it.
            let per = config.seeds().len();
            if config.save_agents().keeps(run % per) {
                let origin = Origin {
                    run: config.name().to_string(),
                    opponent: cond.opponent_name().to_string(),
                    seed,
                    episodes: config.episodes(),
                    condition: c,
                    config_hash: config_hash.clone(),
                    config: resolved.clone(),
                };
                let path = store::agent_file(plan.store.dir(), run);
                let parent = path.parent().expect("inside the store");
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
                let seats = cond.learner.seat.players(game.num_players());
                let saved = save_agent(
                    &path,
                    game,
                    learner.as_ref(),
                    &cond.learner.config,
                    &cond.learner.label,
                    &seats,
                    Some(origin),
                );
                // A table too large to write on this machine costs its agent, not its run: the
                // figures are kept, and the refusal says what it needed.
                match saved {
                    Err(e)
                        if e.downcast_ref::<crate::io::memory::MemoryRefusal>()
                            .is_some() =>
                    {
                        progress.bar.suspend(|| {
                            eprintln!(
                                "warning: {} (seed {seed}): its agent is not saved: {e:#}",
                                cond.learner.label
                            )
                        });
                    }
                    other => {
                        other?;
                    }
                }
            }
            drop(learner);
            plan.store.save(run_id(&conditions, &runs, run), &result)?;
            progress.run_done();
            anyhow::Ok(())
        })?;
        if !finish {
            return Ok(None);
        }

        // Every run in order, read back from the store and streamed to the curve files: what stays
        // in memory is each run's outcome and the plotted metrics' rows, so a study of a million
        // seeds does not hold its whole table.
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        // What the Parquet file says about itself: what made it, and from which config.
        let metadata: Vec<(String, String)> = [
            ("solvedgym.run", config.name().to_string()),
            ("solvedgym.game", game.name().to_string()),
            ("solvedgym.game_params", game.params().to_string()),
            ("solvedgym.config_hash", config_hash.clone()),
            ("solvedgym.version", VERSION.to_string()),
            ("solvedgym.commit", COMMIT.unwrap_or("unknown").to_string()),
            ("solvedgym.config", resolved.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut plotted = Curves::new(config.name(), game.name(), &config_hash);
        let mut writer = CurvesWriter::create(dir, &plotted, &metadata, csv)?;
        let per = config.seeds().len();
        let mut final_names: Vec<Vec<String>> = Vec::with_capacity(conditions.len());
        let mut outcomes = Vec::with_capacity(runs.len());
        for run in 0..runs.len() {
            let id = run_id(&conditions, &runs, run);
            let result = plan.store.load(id)?;
            writer.append(&result.curves)?;
            plotted.append_where(&result.curves, |m| plot_metrics.iter().any(|p| p == m));
            let (outcome, names) = result.into_outcome();
            if run % per == 0 {
                final_names.push(names);
            } else if final_names.last() != Some(&names) {
                anyhow::bail!(
                    "{}: run {id} records other final metrics than the first run of its condition; \
                 delete the file to run it again",
                    run_file(plan.store.dir(), run).display()
                );
            }
            outcomes.push(outcome);
        }
        let mut written = writer.finish()?;
        written.extend(place_agents(dir, plan.store.dir(), &conditions, &runs)?);
        let summary = summarise(
            game,
            truth.graph,
            config,
            &conditions,
            &recorded,
            &final_names,
            &outcomes,
            report,
            &config_hash,
        );

        write_atomic(&dir.join("config.toml"), resolved.as_bytes())?;
        write_atomic(
            &dir.join("summary.json"),
            format!("{}\n", serde_json::to_string_pretty(&summary)?).as_bytes(),
        )?;
        write_atomic(&dir.join("summary.md"), summary.markdown().as_bytes())?;
        written.extend([
            dir.join("config.toml"),
            dir.join("summary.json"),
            dir.join("summary.md"),
        ]);
        let keys: Vec<(String, String)> = conditions
            .iter()
            .map(|c| (c.learner.label.clone(), c.opponent_name().to_string()))
            .collect();
        for metric in &plot_metrics {
            let spec = plot_spec(config, &recorded, &keys, metric);
            written.extend(plot_metric(dir, &plotted, &spec)?);
        }
        Ok(Some(RunSummary { written, ..summary }))
    })
}

/// The evaluation a run of `config` makes of its learner at the end, made again of `learner`
/// (the saved agent of condition `condition`, trained with seed `seed`): every metric the
/// evaluator records, then the learner's statistics, by name. A frozen-copy opponent is
/// played by a copy of `learner` itself (the run's last copy is not saved).
pub(super) fn evaluate_again<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    condition: usize,
    seed: u64,
    learner: &dyn Learner<G>,
    progress: &Progress,
) -> Result<Vec<(String, f64)>> {
    let conditions = conditions(config);
    let cond = conditions.get(condition).with_context(|| {
        format!(
            "the agent names condition {condition}; the config has {}",
            conditions.len()
        )
    })?;
    with_truth(game, config, &conditions, progress, |truth, _| {
        let evaluator = evaluator(game, config, truth, condition, cond, seed, learner)?;
        let copy = match (cond.opponent.and_then(OpponentSpec::frozen), truth.graph) {
            (Some((_, play)), Some(graph)) => Some(copy_of(graph, learner, play)?),
            _ => None,
        };
        let values = evaluator.evaluate(learner, copy.as_ref())?;
        let mut metrics: Vec<(String, f64)> = evaluator
            .metrics()
            .iter()
            .zip(values)
            .map(|(m, v)| (m.name.clone(), v))
            .collect();
        metrics.extend(learner.statistics().into_iter().map(|(m, v)| (m.name, v)));
        Ok(metrics)
    })
}

/// Finds the truth a run of `config` on `game` needs, once ([`Truth`]), and hands it to `f`
/// with the oracle's report (its timing left out: the summary must be the same bytes on every
/// run).
fn with_truth<G: Solve, R>(
    game: &G,
    config: &ExperimentConfig,
    conditions: &[Condition],
    progress: &Progress,
    f: impl FnOnce(&Truth<G>, Option<crate::truth::SolveReport>) -> Result<R>,
) -> Result<R> {
    // The truth: every position where the game allows it (the exact evaluator reads them all;
    // the match evaluator plays perfect play from them; frozen copies are tabulated over them),
    // else the game's own solver where an opponent plays perfectly.
    let exact = config.evaluation() == Evaluation::Exact;
    let needs_oracle = conditions
        .iter()
        .any(|c| c.opponent.is_some_and(|o| o.policy.needs_oracle()))
        || config.best_response().is_some()
        || config.all_positions();
    let solution = if enumerates(game, config) {
        progress.note(format_args!("solving {} ...", game.name()));
        let solution = crate::truth::enumerate(game, DEFAULT_STATE_LIMIT)
            .with_context(|| format!("solving {} for the evaluator", game.name()))?;
        progress.note(format_args!(
            "  {}: {} states, {} ({:.3} s)",
            game.name(),
            crate::io::text::group(&solution.graph().len().to_string()),
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
    let held_game = held_out_game(game, config)?;
    let held_solution = match &held_game {
        Some(held) => {
            progress.note(format_args!("solving the held-out {} ...", held.name()));
            let solution = crate::truth::enumerate(held, DEFAULT_STATE_LIMIT)
                .with_context(|| format!("solving the held-out {}", held.name()))?;
            progress.note(format_args!(
                "  held out: {} states, {}",
                crate::io::text::group(&solution.graph().len().to_string()),
                solution.describe_start(),
            ));
            Some(solution)
        }
        None => None,
    };
    let held_out = match &held_solution {
        Some(s) => Some(ExactTruth::new(s.graph(), s.as_oracle())?),
        None => None,
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
                let profile = t.tabulate(o.policy.build(game, oracle)?.as_ref())?;
                // The reference lines of the results against it: the ceiling.
                let ceiling = t.best_against(&profile)?;
                Ok(Some((profile, ceiling)))
            }
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    // The saved agent every evaluation plays (`[evaluation] agent`), tabulated once for the
    // exact evaluator with perfect play's results against it.
    let agent = match (&exact_truth, config.reference_agent()) {
        (Some(t), Some(file)) => {
            let policy = crate::learn::saved::load_agent(game, file)?;
            let profile = t.tabulate(&policy)?;
            let perfect = t.perfect_against(&profile)?;
            Some((profile, perfect))
        }
        _ => None,
    };
    let truth = Truth {
        exact: exact_truth,
        oracle,
        graph: solution.as_ref().map(|s| s.graph()),
        opponents,
        agent,
        held_out,
    };
    let mut report = oracle.map(|o| o.report());
    if let Some(r) = &mut report {
        // The summary must be the same bytes on every run.
        r.seconds = None;
    }
    f(&truth, report)
}

/// The held-out game of `config` (`[evaluation] held_out`) as the type of `game`: a game of the
/// registry, played by its own rules (runs with a held-out game are not played from a table,
/// whose positions are one game's numbers).
fn held_out_game<G: Game>(game: &G, config: &ExperimentConfig) -> Result<Option<G>> {
    let Some(held) = config.held_out_game() else {
        return Ok(None);
    };
    let held = held.context("`evaluation.held_out`: building the held-out game")?;
    let typed = with_game!(&held, g => (g as &dyn std::any::Any).downcast_ref::<G>().cloned());
    typed.map(Some).with_context(|| {
        format!(
            "the held-out {} is played by its own rules, not from a table",
            game.name()
        )
    })
}

/// Evaluators recorded side by side: each one's metrics in turn. A part of another game (the
/// held-out one) is not handed the frozen copy of the training opponent.
struct Beside<'t, G: Game> {
    parts: Vec<(Box<dyn Evaluator<G> + 't>, bool)>,
    metrics: Vec<Metric>,
}

impl<'t, G: Game> Beside<'t, G> {
    /// `parts`, each with whether it reads the frozen copy (its game is the training game).
    fn new(parts: Vec<(Box<dyn Evaluator<G> + 't>, bool)>) -> Self {
        let metrics = parts
            .iter()
            .flat_map(|(p, _)| p.metrics().to_vec())
            .collect();
        Beside { parts, metrics }
    }

    /// `trained` and, beside it, every metric of `held_out` measured on the held-out game: its
    /// name with [`config::HELD_OUT_SUFFIX`], its title saying so, and no role (the thresholds,
    /// the summary's columns and perfect play read the training game's figures).
    fn held_out(trained: Box<dyn Evaluator<G> + 't>, held_out: Box<dyn Evaluator<G> + 't>) -> Self {
        let first = trained.metrics().len();
        let mut beside = Beside::new(vec![(trained, true), (held_out, false)]);
        for m in &mut beside.metrics[first..] {
            m.name.push_str(config::HELD_OUT_SUFFIX);
            m.title.push_str(" (held-out positions)");
            if let Some((low, high)) = &mut m.interval {
                low.push_str(config::HELD_OUT_SUFFIX);
                high.push_str(config::HELD_OUT_SUFFIX);
            }
            m.role = Role::Plain;
        }
        beside
    }
}

impl<G: Game> Evaluator<G> for Beside<'_, G> {
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }
    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, crate::eval::EvalError> {
        let mut values = Vec::with_capacity(self.metrics.len());
        for (part, reads_copy) in &self.parts {
            values.extend(part.evaluate(learner, copy.filter(|_| *reads_copy))?);
        }
        Ok(values)
    }
}

/// The folder of a finished run's saved agents.
pub const AGENTS_FOLDER: &str = "agents";

/// Moves each run's saved agent from the store to `<dir>/agents/`, named by its learner,
/// opponent and seed (`her--random--seed-3.parquet`); returns the folder where any agent is
/// placed. A run stored before agents were saved has none.
fn place_agents(
    dir: &Path,
    store_dir: &Path,
    conditions: &[Condition],
    runs: &[(usize, u64)],
) -> Result<Vec<PathBuf>> {
    let out = dir.join(AGENTS_FOLDER);
    let mut placed = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (run, &(c, seed)) in runs.iter().enumerate() {
        let from = store::agent_file(store_dir, run);
        let cond = &conditions[c];
        let mut name = format!(
            "{}--{}--seed-{seed}",
            slug(&cond.learner.label),
            slug(cond.opponent_name())
        );
        if !names.insert(name.clone()) {
            name = format!("{name}--{c}");
            names.insert(name.clone());
        }
        let to = out.join(format!("{name}.parquet"));
        if from.is_file() {
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            std::fs::rename(&from, &to)
                .with_context(|| format!("moving {} to {}", from.display(), to.display()))?;
        }
        if to.is_file() && placed.is_empty() {
            placed.push(out.clone());
        }
    }
    Ok(placed)
}

/// A label as part of a file name: letters and digits kept (lower case), runs of anything
/// else one `-`.
fn slug(label: &str) -> String {
    let mut out = String::new();
    for ch in label.chars() {
        if ch.is_alphanumeric() {
            out.extend(ch.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() {
        "agent".to_string()
    } else {
        out.to_string()
    }
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
    let mut cumulative = Metric::of("cumulative_losses");
    if never_loses {
        cumulative = cumulative.reference_at(0.0);
    }
    vec![Metric::of("result"), Metric::of("losses"), cumulative]
}

/// The evaluator of condition `c` for the run seeded `seed` (the match evaluator's deals come
/// from it); `learner` tells whether the learner learns values.
fn evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    c: usize,
    cond: &Condition,
    seed: u64,
    learner: &dyn Learner<G>,
) -> Result<Box<dyn Evaluator<G> + 't>> {
    let seats = cond.learner.seat.players(game.num_players());
    let trained = trained_evaluator(game, config, truth, c, cond, seed, learner)?;
    Ok(match &truth.held_out {
        // The learner's play on positions it never trained on: no training opponent there.
        Some(held) => Box::new(Beside::held_out(
            trained,
            Box::new(ExactEvaluator::new(
                held,
                seats,
                None,
                false,
                learner.learns_values(),
            )),
        )),
        None => trained,
    })
}

/// The evaluator of condition `c` on the training game (see [`evaluator`]).
fn trained_evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    c: usize,
    cond: &Condition,
    seed: u64,
    learner: &dyn Learner<G>,
) -> Result<Box<dyn Evaluator<G> + 't>> {
    let seats = cond.learner.seat.players(game.num_players());
    let copy = cond.opponent.is_some_and(|o| o.frozen().is_some());
    Ok(match (config.evaluation(), &truth.exact) {
        (Evaluation::Exact, Some(exact)) => Box::new(
            ExactEvaluator::new(
                exact,
                seats,
                truth.opponents[c].as_ref().map(|(p, r)| (p, r.as_slice())),
                copy,
                learner.learns_values(),
            )
            .with_agent(truth.agent.as_ref().map(|(p, r)| (p, r.as_slice()))),
        ),
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
            if let Some(file) = config.reference_agent() {
                let agent = crate::learn::saved::load_agent(game, file)?;
                references.push(("agent".into(), Some(Box::new(agent))));
            }
            if let Some(ai) = config.reference_ai() {
                let policy: Box<dyn crate::core::policy::Policy<G>> = match ai {
                    config::ReferenceAi::Search(o) => Box::new(
                        crate::ai::search::SearchPolicy::for_game(o.clone(), game)
                            .map_err(|e| anyhow::anyhow!("[evaluation] ai: {e}"))?,
                    ),
                    config::ReferenceAi::Mcts(o) => Box::new(
                        crate::ai::mcts::MctsPolicy::for_game(o.clone(), game)
                            .map_err(|e| anyhow::anyhow!("[evaluation] ai: {e}"))?,
                    ),
                };
                references.push(("ai".into(), Some(policy)));
            }
            if let Some(o) = cond.opponent {
                let policy = match copy {
                    true => None,
                    false => Some(o.policy.build(game, truth.oracle)?),
                };
                references.push(("opponent".into(), policy));
            }
            let matches: Box<dyn Evaluator<G> + 't> = Box::new(MatchEvaluator::new(
                game,
                seats.clone(),
                references,
                games,
                derive_seed(seed, 3),
            ));
            let (limit, all) = (config.best_response(), config.all_positions());
            if limit.is_none() && !all {
                matches
            } else {
                let response = ResponseEvaluator::new(game, seats, truth.oracle, limit, all)
                    .map_err(|e| anyhow::anyhow!("[evaluation]: {e}"))?;
                Box::new(Beside::new(vec![
                    (matches, true),
                    (Box::new(response), true),
                ]))
            }
        }
    })
}

/// One run: the learner of condition `condition` trained with seed `seed` against its opponent
/// (or itself), evaluated every `eval_interval` episodes and at the end.
fn train_run<G: Game>(
    game: &G,
    truth: &Truth<G>,
    condition: usize,
    config: &ExperimentConfig,
    cond: &Condition,
    seed: u64,
    progress: &Progress,
) -> Result<(RunResult, Box<dyn Learner<G>>)> {
    let mut learner = cond.learner.config.build(game, cond.learner.label.clone());
    let mut rng = rng(derive_seed(seed, 1));
    let env_seed = derive_seed(seed, 2);
    let seats = cond.learner.seat.players(game.num_players());
    let evaluator = evaluator(game, config, truth, condition, cond, seed, learner.as_ref())?;
    let roles: Vec<Role> = evaluator.metrics().iter().map(|m| m.role).collect();
    let mut run = RunResult {
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
            Some((policy, refresh))
        }
        _ => None,
    };
    let mut arena = match cond.opponent {
        Some(o) => {
            let mut envs = Vec::with_capacity(seats.len());
            for (k, &seat) in seats.iter().enumerate() {
                let opponents = (0..game.num_players())
                    .map(|p| match (p != seat, &copy) {
                        (false, _) => Ok(None),
                        (true, Some((shared, ..))) => {
                            Ok(Some(Box::new(shared.clone()) as Box<dyn Policy<G>>))
                        }
                        (true, None) => o.policy.build(game, truth.oracle).map(Some),
                    })
                    .collect::<Result<_>>()?;
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
    run.curves
        .push(label, opponent_name, seed, 0, "cumulative_losses", 0.0);
    let mut metrics = evaluate(learner.as_ref(), &mut run.curves, 0)?;
    note_thresholds(&mut run.reached, &metrics, 0);
    let (mut result_sum, mut games_since, mut losses_since) = (0.0, 0u64, 0u64);
    let mut pending = 0;
    for episode in 1..=config.episodes() {
        let (outcome, seat) = match &mut arena {
            Arena::Seats(envs) => {
                let turn = ((episode - 1) % envs.len() as u64) as usize;
                let env = &mut envs[turn];
                let outcome = match &copy {
                    Some((shared, _)) => {
                        FrozenPolicy::play(shared, env, learner.as_mut(), &mut rng)
                    }
                    None => play_vs_opponent(env, learner.as_mut(), &mut rng),
                };
                (outcome, env.seat())
            }
            Arena::SelfPlay(env) => (play_self(env, learner.as_mut(), &mut rng), seats[0]),
        };
        let result = outcome
            .returns
            .map_or(GameResult::Draw, |r| r.result_for(seat));
        result_sum += outcome.reward;
        games_since += 1;
        if result == GameResult::Loss {
            run.losses += 1;
            run.last_loss = episode;
            losses_since += 1;
        }
        if episode % config.eval_interval() == 0 || episode == config.episodes() {
            let mut push = |metric: &str, value: f64| {
                run.curves
                    .push(label, opponent_name, seed, episode, metric, value)
            };
            push("result", result_sum / games_since as f64);
            push("losses", losses_since as f64);
            push("cumulative_losses", run.losses as f64);
            (result_sum, games_since, losses_since) = (0.0, 0, 0);
            metrics = evaluate(learner.as_ref(), &mut run.curves, episode)?;
            note_thresholds(&mut run.reached, &metrics, episode);
        }
        // Evaluated against the copy it trained against; the next episodes meet a new one.
        if let Some((shared, refresh)) = &copy
            && episode % refresh == 0
        {
            shared.write().refresh(game, learner.as_mut())?;
        }
        pending += 1;
        if pending == 64 || episode == config.episodes() {
            progress.advance(pending)?;
            pending = 0;
        }
    }
    run.perfect = roles
        .iter()
        .zip(&metrics)
        .any(|(r, (_, v))| *r == Role::Perfect && *v == 1.0);
    run.final_metrics = metrics;
    Ok((run, learner))
}
