//! A game's outputs, written once all its runs are stored: every run read back in order and
//! streamed to the curve files, the saved agents moved into `agents/`, the resolved config,
//! the summary (`summary.json`, `summary.md`) and the plots.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::figures::{plot_metric, plot_spec};
use super::output::{Curves, CurvesWriter};
use super::plan::{Condition, run_id};
use super::store::{self, Outcome, run_file};
use super::summary::{RunSummary, summarise};
use super::train::GameRuns;
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::eval::Metric;
use crate::io::files::write_atomic;
use crate::io::version::{COMMIT, VERSION};
use crate::truth::SolveReport;

/// Writes the outputs of `runs` into its folder from its stored runs (`graph`: the game's
/// state graph, where it is enumerated; `recorded`: what each condition records;
/// `plot_metrics`: the metrics plotted; `report`: the solver's; `csv`: `curves.csv` too) and
/// returns its summary with the files written.
pub(super) fn write_outputs<G: Game>(
    runs: &GameRuns<G>,
    graph: Option<&StateGraph<G>>,
    recorded: &[Vec<Metric>],
    plot_metrics: &[String],
    report: Option<SolveReport>,
    csv: bool,
) -> Result<RunSummary> {
    let (game, config, dir) = (runs.game, runs.config, &runs.plan.dir);
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut plotted = Curves::new(config.name(), game.name(), &runs.config_hash);
    let mut writer = CurvesWriter::create(dir, &plotted, &metadata(runs), csv)?;
    let (final_names, outcomes) = read_back(runs, &mut writer, &mut plotted, plot_metrics)?;
    let mut written = writer.finish()?;
    written.extend(place_agents(
        dir,
        runs.plan.store.dir(),
        runs.conditions,
        runs.runs,
    )?);
    let summary = summarise(
        game,
        graph,
        config,
        runs.conditions,
        recorded,
        &final_names,
        &outcomes,
        report,
        &runs.config_hash,
    );
    written.extend(write_summary(dir, &runs.resolved, &summary)?);
    let keys: Vec<(String, String)> = runs
        .conditions
        .iter()
        .map(|c| (c.learner.label.clone(), c.opponent_name().to_string()))
        .collect();
    for metric in plot_metrics {
        let spec = plot_spec(config, recorded, &keys, metric);
        written.extend(plot_metric(dir, &plotted, &spec)?);
    }
    Ok(RunSummary { written, ..summary })
}

/// What the Parquet file says about itself: what made it, and from which config.
fn metadata<G: Game>(runs: &GameRuns<G>) -> Vec<(String, String)> {
    [
        ("solvedgym.run", runs.config.name().to_string()),
        ("solvedgym.game", runs.game.name().to_string()),
        ("solvedgym.game_params", runs.game.params().to_string()),
        ("solvedgym.config_hash", runs.config_hash.clone()),
        ("solvedgym.version", VERSION.to_string()),
        ("solvedgym.commit", COMMIT.unwrap_or("unknown").to_string()),
        ("solvedgym.config", runs.resolved.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Every run in order, read back from the store and streamed to `writer`, the plotted metrics'
/// rows kept in `plotted`: what stays in memory is each run's outcome and those rows, so a
/// study of a million seeds does not hold its whole table. Returns the names of each
/// condition's final metrics and every run's outcome; refused where a run records other final
/// metrics than the first run of its condition.
fn read_back<G: Game>(
    runs: &GameRuns<G>,
    writer: &mut CurvesWriter,
    plotted: &mut Curves,
    plot_metrics: &[String],
) -> Result<(Vec<Vec<String>>, Vec<Outcome>)> {
    let per = runs.config.seeds().len();
    let mut final_names: Vec<Vec<String>> = Vec::with_capacity(runs.conditions.len());
    let mut outcomes = Vec::with_capacity(runs.runs.len());
    for run in 0..runs.runs.len() {
        let id = run_id(runs.conditions, runs.runs, run);
        let result = runs.plan.store.load(id)?;
        writer.append(&result.curves)?;
        plotted.append_where(&result.curves, |m| plot_metrics.iter().any(|p| p == m));
        let (outcome, names) = result.into_outcome();
        if run % per == 0 {
            final_names.push(names);
        } else if final_names.last() != Some(&names) {
            anyhow::bail!(
                "{}: run {id} records other final metrics than the first run of its condition; \
                 delete the file to run it again",
                run_file(runs.plan.store.dir(), run).display()
            );
        }
        outcomes.push(outcome);
    }
    Ok((final_names, outcomes))
}

/// Writes the resolved config and the summary (`summary.json`, `summary.md`) into `dir`;
/// returns their files.
fn write_summary(dir: &Path, resolved: &str, summary: &RunSummary) -> Result<[PathBuf; 3]> {
    write_atomic(&dir.join("config.toml"), resolved.as_bytes())?;
    write_atomic(
        &dir.join("summary.json"),
        format!("{}\n", serde_json::to_string_pretty(summary)?).as_bytes(),
    )?;
    write_atomic(&dir.join("summary.md"), summary.markdown().as_bytes())?;
    Ok([
        dir.join("config.toml"),
        dir.join("summary.json"),
        dir.join("summary.md"),
    ])
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
