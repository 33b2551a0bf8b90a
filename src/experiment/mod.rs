//! Experiments: a TOML config names a game, learners, opponents, episodes and seeds; the runner
//! finds the game's truth once (every position enumerated for the exact evaluator, or the
//! game's own solver where only opponents need perfect play), trains one learner per
//! (learner, opponent, seed) in parallel with rayon, evaluates it on a fixed schedule with the
//! evaluator the game's capabilities allow ([`crate::eval::Evaluator`]), and writes
//! `<out>/<name>/`: `curves.parquet` (long form, one row per measurement; and on request
//! `curves.csv`, the same table),
//! the resolved `config.toml`, `summary.json` and plots (PNG and SVG).
//!
//! Each run draws from its own generators seeded from its seed, and results are gathered in run
//! order, so the output is the same bytes whatever the number of threads. Each finished run is
//! stored as it ends ([`store`]), so an interrupted study resumes where it stopped, and a study
//! can be split into shares ([`shard`]) run apart and merged ([`merge`]), to the same bytes.
//!
//! This file runs a study: each game is planned (`plan.rs`: its conditions, runs and share),
//! its truth found (`truth.rs`, with the saved agents it plays read once: `agents.rs`), its
//! runs trained in parallel (`train.rs`, evaluated by `evaluators.rs`, counted by
//! `progress.rs`) and its outputs written (`finish.rs`), then the study's summary is written;
//! `merge` first gathers the runs the shards stored (`gather.rs`).

mod agents;
pub mod config;
mod evaluators;
pub mod figures;
mod finish;
mod gather;
pub mod opponents;
pub mod output;
mod plan;
mod progress;
pub mod shard;
pub mod store;
pub mod summary;
mod train;
mod truth;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail, ensure};
use serde::Serialize;

use crate::core::tabulated::{TabulateError, Tabulated};
use crate::games::AnyGame;
use crate::io::files::{FolderLock, write_atomic};
use crate::truth::{DEFAULT_STATE_LIMIT, Solve};
use config::ExperimentConfig;
use plan::{Plan, conditions, config_hash, study_name};
use progress::Progress;
use shard::Shard;
use summary::RunSummary;
use train::run_game;
use truth::enumerates;

/// How a study runs beyond its config: what it shows, what it keeps, which share it runs.
#[derive(Clone, Debug, Default)]
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
    /// Write `curves.csv` beside `curves.parquet` (the same long-form table).
    pub csv: bool,
    /// Told of the training's progress besides (or instead of) the bar: for a program that
    /// draws its own (the Python package, in Jupyter), and may stop the study.
    pub observer: Option<Observer>,
}

/// Told `(episodes done, episodes to train)` as a study trains, at most every
/// [`Observer::INTERVAL`] and once at the end. It returns `false` to stop the study: the
/// runs under way end at their next report with an error, and those stored before are kept,
/// so the study resumes as after Ctrl-C (the Python package stops on a `KeyboardInterrupt`).
#[derive(Clone)]
pub struct Observer(pub Arc<dyn Fn(u64, u64) -> bool + Send + Sync>);

impl Observer {
    /// The shortest time between two reports.
    pub const INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
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
    let text = crate::io::files::read_text(path, crate::io::files::CONFIG_LIMIT)
        .with_context(|| format!("reading the experiment config {}", path.display()))?;
    run_text(path, &text, out_root, options, false)
}

/// [`run_study`] of a config given as text (made by a program rather than read from a file);
/// `path` is what its errors and the stored runs name as its file.
pub fn run_study_text(
    path: &Path,
    text: &str,
    out_root: &Path,
    options: &RunOptions,
) -> Result<StudyOutcome> {
    run_text(path, text, out_root, options, false)
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
    let configs = config::parse(path, text)?;
    let study = study_name(&configs);
    let shard_of = match options.shard {
        Some(shard) => shard::shard_of_runs(&configs, shard)?,
        None => None,
    };
    // One writer per output folder; merge (`complete`) holds the claim already.
    let _claim = match complete {
        false => Some(FolderLock::acquire(&out_root.join(&study))?),
        true => None,
    };
    let plans = plan::plans(
        &configs,
        path,
        text,
        out_root,
        options,
        shard_of.as_deref(),
        complete,
    )?;
    let progress = study_progress(&configs, &plans, options);
    let mut summaries = Vec::with_capacity(configs.len());
    for ((config, game), plan) in configs.iter().zip(&plans) {
        if options.shard.is_some() && plan.pending.is_empty() {
            continue;
        }
        let summary =
            with_game!(game, g => run_game_tabulated(g, config, plan, options, &progress))?;
        summaries.extend(summary);
    }
    progress.finish();

    if let Some(shard) = options.shard {
        return Ok(StudyOutcome::Shard(shard_report(shard, &configs, &plans)));
    }
    if summaries.len() > 1 {
        let file = write_study_table(&study, out_root, &summaries)?;
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

/// The study's progress: its pending runs' episodes to train, its runs stored before and
/// those it answers for.
fn study_progress(
    configs: &[(ExperimentConfig, AnyGame)],
    plans: &[Plan],
    options: &RunOptions,
) -> Progress {
    let episodes: u64 = configs
        .iter()
        .zip(plans)
        .map(|((c, _), p)| p.pending.len() as u64 * c.episodes())
        .sum();
    Progress::new(
        options.progress,
        episodes,
        plans.iter().map(|p| p.stored_before).sum(),
        plans.iter().map(|p| p.share.len()).sum(),
        options.observer.clone(),
    )
}

/// What shard `shard` stored of each game of the study.
fn shard_report(
    shard: Shard,
    configs: &[(ExperimentConfig, AnyGame)],
    plans: &[Plan],
) -> ShardReport {
    ShardReport {
        shard: shard.to_string(),
        games: configs
            .iter()
            .zip(plans)
            .map(|((config, _), p)| ShardGame {
                name: config.name().to_string(),
                folder: p.store.dir().to_path_buf(),
                runs: p.runs,
                share: p.share.len(),
                stored_before: p.stored_before,
            })
            .collect(),
    }
}

/// Writes the tables of a study's games together into `<out_root>/<study>/summary.md`;
/// returns the file.
fn write_study_table(study: &str, out_root: &Path, summaries: &[RunSummary]) -> Result<PathBuf> {
    let mut table = format!("# {study}\n");
    for s in summaries {
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
    let file = out_root.join(study).join("summary.md");
    write_atomic(&file, table.as_bytes())?;
    Ok(file)
}

/// The files a finished run leaves in its folder (beside the plots, `<metric>.png`/`.svg`, and
/// `agents/*.parquet`).
const OUTPUT_FILES: [&str; 5] = [
    "curves.parquet",
    "curves.csv",
    "config.toml",
    "summary.json",
    "summary.md",
];

/// A run folder that holds the finished outputs of another config is refused, so that a
/// changed config never silently overwrites them (nor leaves the old run's agents beside the
/// new ones); with `fresh` they are removed, and a note names what went. Only the files a run
/// writes are touched, never through a link.
fn replace_outputs(dir: &Path, config_hash: &str, fresh: bool) -> Result<()> {
    let old = match std::fs::read_to_string(dir.join("config.toml")) {
        Ok(text) => plan::config_hash(&text),
        Err(_) => return Ok(()),
    };
    if old == config_hash {
        return Ok(());
    }
    if !fresh {
        bail!(
            "{} holds the outputs of another config (hash {old}; this config's hash is \
             {config_hash}): rerun with --fresh to replace them, or give another --out",
            dir.display()
        );
    }
    let mut removed = Vec::new();
    let mut remove = |path: PathBuf| -> Result<()> {
        crate::io::files::refuse_link(&path, false)?;
        std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        removed.push(path);
        Ok(())
    };
    let entries = |folder: &Path| -> Result<Vec<PathBuf>> {
        let mut paths = Vec::new();
        match std::fs::read_dir(folder) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("reading {}", folder.display())),
            Ok(list) => {
                for entry in list {
                    let entry = entry.with_context(|| format!("reading {}", folder.display()))?;
                    if entry.file_type().is_ok_and(|t| t.is_file()) {
                        paths.push(entry.path());
                    }
                }
            }
        }
        paths.sort();
        Ok(paths)
    };
    for path in entries(dir)? {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.as_deref().unwrap_or_default();
        if OUTPUT_FILES.contains(&name) || name.ends_with(".png") || name.ends_with(".svg") {
            remove(path)?;
        }
    }
    let agents = dir.join(finish::AGENTS_FOLDER);
    crate::io::files::refuse_link(&agents, true)?;
    for path in entries(&agents)? {
        if path.extension().is_some_and(|e| e == "parquet") {
            remove(path)?;
        }
    }
    let _ = std::fs::remove_dir(&agents);
    if !removed.is_empty() {
        let agents = removed.iter().filter(|p| p.starts_with(&agents)).count();
        eprintln!(
            "--fresh: {} held the outputs of another config (hash {old}): removed {} of its \
             output files and {agents} agent files",
            dir.display(),
            removed.len() - agents,
        );
    }
    Ok(())
}

/// Gathers the runs stored by the shards of a study (each `dirs` entry the `--out` of a
/// `run --shard K/N`) and writes the study's outputs under `out_root`, the same bytes as one
/// uninterrupted run. Refuses shards of different configs, a run stored twice, and missing runs.
/// `options`: its progress and whether it writes `curves.csv` (its shard and freshness are
/// ignored).
pub fn merge(dirs: &[PathBuf], out_root: &Path, options: &RunOptions) -> Result<Vec<RunSummary>> {
    let found = gather::gather(dirs)?;
    let mut summaries = Vec::new();
    for study in found {
        let _claim = FolderLock::acquire(&out_root.join(study.name()))?;
        study.copy_into(out_root)?;
        let options = RunOptions {
            progress: options.progress,
            csv: options.csv,
            ..RunOptions::default()
        };
        match run_text(&study.source_path, &study.source, out_root, &options, true)? {
            StudyOutcome::Finished(s) => summaries.extend(s),
            StudyOutcome::Shard(_) => unreachable!("no shard was asked for"),
        }
    }
    Ok(summaries)
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
    // A held-out game's positions are its own: the learner meets both by the rules.
    let held_out = config.held_out_game().is_some();
    if !options.own_rules && !held_out && enumerates(game, config) {
        progress.note(format_args!("enumerating {} ...", game.name()));
        match Tabulated::new(game, DEFAULT_STATE_LIMIT) {
            Ok(tabulated) => {
                return run_game(&tabulated, config, plan, finish, options.csv, progress);
            }
            Err(TabulateError::Graph(e)) => {
                return Err(crate::truth::SolveError::from(e))
                    .with_context(|| format!("solving {} for the evaluator", game.name()));
            }
            // A symmetry leads out of the graph: the game is played by its own rules.
            Err(_) => {}
        }
    }
    run_game(game, config, plan, finish, options.csv, progress)
}

/// A saved agent evaluated again ([`evaluate_agent`]).
#[derive(Clone, Debug, Serialize)]
pub struct AgentEvaluation {
    pub agent: crate::learn::saved::AgentHeader,
    /// Every metric the run's evaluator records at its end, then the learner's statistics, by
    /// name (the names of `curves.parquet`).
    pub metrics: Vec<(String, f64)>,
}

/// Evaluates the saved agent at `path` again, without training: its run's config (kept in the
/// agent) is read, the game solved, and the learner evaluated exactly as the run evaluated it
/// at its end, so every figure equals the run's last row of `curves.parquet` for that learner,
/// opponent and seed (a frozen-copy opponent is played by a copy of the agent itself).
pub fn evaluate_agent(path: &Path, progress: bool) -> Result<AgentEvaluation> {
    let header = crate::learn::saved::read_header(path)?;
    let origin = header.origin.clone().with_context(|| {
        format!(
            "{}: the agent was not saved by a run, so it names no evaluation to make again",
            path.display()
        )
    })?;
    let source = PathBuf::from(format!("{} (its run's config)", path.display()));
    let runs = config::parse(&source, &origin.config)?;
    let (config, game) = runs
        .into_iter()
        .find(|(c, _)| config_hash(&c.resolved_toml()) == origin.config_hash)
        .with_context(|| {
            format!(
                "{}: its run's config no longer gives the hash {} it was saved with (another \
                 solvedgym's defaults?)",
                path.display(),
                origin.config_hash
            )
        })?;
    let progress = Progress::new(progress, 0, 0, 0, None);
    let metrics = with_game!(&game, g => evaluate_agent_on(g, &config, &origin, &header.seats, path, &progress))?;
    Ok(AgentEvaluation {
        agent: header,
        metrics,
    })
}

/// Checks that an agent's header names the seats its run's learner took (the header read and
/// checked by the loader first): an agent evaluated at seats it never trained at would be
/// scored for another player's moves.
fn same_seats<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    origin: &crate::learn::saved::Origin,
    seats: &[String],
    path: &Path,
) -> Result<()> {
    if let Some(cond) = conditions(config).get(origin.condition) {
        let trained: Vec<&str> = cond
            .learner
            .seat
            .players(game.num_players())
            .iter()
            .map(|&p| game.player_name(p))
            .collect();
        ensure!(
            seats.iter().map(String::as_str).eq(trained.iter().copied()),
            "{}: the agent's header names the seats {}, but its run's config trained the \
             learner at {}; the header was changed, or belongs to another agent",
            path.display(),
            seats.join(", "),
            trained.join(", ")
        );
    }
    Ok(())
}

/// [`evaluate_agent`] on one game type: played from its state graph where its runs are.
fn evaluate_agent_on<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    origin: &crate::learn::saved::Origin,
    seats: &[String],
    path: &Path,
    progress: &Progress,
) -> Result<Vec<(String, f64)>> {
    if enumerates(game, config)
        && config.held_out_game().is_none()
        && let Ok(tabulated) = Tabulated::new(game, DEFAULT_STATE_LIMIT)
    {
        let agent = crate::learn::saved::load_agent(&tabulated, path)?;
        same_seats(game, config, origin, seats, path)?;
        return train::evaluate_again(
            &tabulated,
            config,
            origin.condition,
            origin.seed,
            agent.learner.as_ref(),
            progress,
        );
    }
    let agent = crate::learn::saved::load_agent(game, path)?;
    same_seats(game, config, origin, seats, path)?;
    train::evaluate_again(
        game,
        config,
        origin.condition,
        origin.seed,
        agent.learner.as_ref(),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const TINY: &str = include_str!("../../tests/data/tiny.toml");

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn an_observer_sees_every_episode_and_changes_no_byte() {
        let root = tempfile::tempdir().unwrap();
        let path = Path::new("tiny.toml");
        let plain = RunOptions {
            csv: true,
            ..RunOptions::default()
        };
        run_study_text(path, TINY, &root.path().join("plain"), &plain).unwrap();
        let told = Arc::new(Mutex::new(Vec::new()));
        let watched = RunOptions {
            observer: Some(Observer(Arc::new({
                let told = told.clone();
                move |done, total| {
                    told.lock().unwrap().push((done, total));
                    true
                }
            }))),
            ..plain.clone()
        };
        run_study_text(path, TINY, &root.path().join("watched"), &watched).unwrap();
        let told = told.lock().unwrap();
        // 2 learners x 2 opponents x 3 seeds x 12 episodes, told at least at the end.
        assert_eq!(told.last(), Some(&(144, 144)));
        assert!(told.windows(2).all(|w| w[0].0 <= w[1].0));
        let (a, b) = (
            files(&root.path().join("plain/tiny")),
            files(&root.path().join("watched/tiny")),
        );
        assert!(a.len() >= 5 && a.iter().any(|(n, _)| n == "curves.csv"));
        assert!(a == b, "an observer changed the outputs");
    }

    /// By default the first seed of each learner × opponent keeps its agent; with
    /// `save_agents = "all"` every run does, and each agent evaluated again gives its run's
    /// last figures to the bit.
    #[test]
    fn a_saved_agent_evaluated_again_gives_its_runs_last_figures() {
        let root = tempfile::tempdir().unwrap();
        let options = RunOptions {
            csv: true,
            ..RunOptions::default()
        };
        let names = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir.join("agents"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        run_study_text(
            Path::new("tiny.toml"),
            TINY,
            &root.path().join("one"),
            &options,
        )
        .unwrap();
        let first = names(&root.path().join("one/tiny"));
        assert_eq!(first.len(), 4, "{first:?}");
        assert!(
            first.iter().all(|n| n.ends_with("--seed-0.parquet")),
            "{first:?}"
        );
        let none = TINY.replace("seeds = 3", "seeds = 3\nsave_agents = 0");
        assert_ne!(none, TINY);
        run_study_text(
            Path::new("tiny.toml"),
            &none,
            &root.path().join("none"),
            &options,
        )
        .unwrap();
        assert!(!root.path().join("none/tiny/agents").exists());
        let all = TINY.replace("seeds = 3", "seeds = 3\nsave_agents = \"all\"");
        run_study_text(Path::new("tiny.toml"), &all, root.path(), &options).unwrap();
        let dir = root.path().join("tiny");
        let csv = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
        let rows: Vec<Vec<&str>> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .collect();
        let mut agents: Vec<PathBuf> = std::fs::read_dir(dir.join("agents"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        agents.sort();
        // 2 learners x 2 opponents x 3 seeds.
        assert_eq!(agents.len(), 12);
        assert!(
            agents[0].ends_with("agents/her--fuzzy--seed-0.parquet"),
            "{agents:?}"
        );
        assert!(!dir.join("runs").exists());
        for path in &agents {
            let again = evaluate_agent(path, false).unwrap();
            let origin = again.agent.origin.as_ref().unwrap();
            assert_eq!(origin.episodes, 12);
            let seed = origin.seed.to_string();
            let last: Vec<(&str, f64)> = rows
                .iter()
                .filter(|r| {
                    r[2] == again.agent.label
                        && r[3] == origin.opponent
                        && r[4] == seed
                        && r[5] == "12"
                })
                .map(|r| (r[6], r[7].parse::<f64>().unwrap()))
                .collect();
            assert!(again.metrics.len() >= 5, "{:?}", again.metrics);
            for (name, value) in &again.metrics {
                let (_, recorded) = last
                    .iter()
                    .find(|(m, _)| m == name)
                    .unwrap_or_else(|| panic!("{}: no {name} in the curves", path.display()));
                assert_eq!(
                    recorded.to_bits(),
                    value.to_bits(),
                    "{}: {name}",
                    path.display()
                );
            }
        }
    }

    /// A saved agent is a training opponent (`policy = "agent"`); a missing or foreign file is
    /// refused with the key and its line.
    #[test]
    fn a_saved_agent_is_a_training_opponent() {
        let root = tempfile::tempdir().unwrap();
        run_study_text(
            Path::new("tiny.toml"),
            TINY,
            root.path(),
            &RunOptions::default(),
        )
        .unwrap();
        let agent = root.path().join("tiny/agents/her--optimal--seed-0.parquet");
        let config = |file: &str, game: &str| {
            format!(
                "name = \"vs-agent\"\nepisodes = 20\neval_interval = 10\nseeds = 2\n\
                 [game]\nname = \"{game}\"\n[learner]\nkind = \"q-learning\"\nseat = \"white\"\n\
                 [[opponents]]\nname = \"her\"\npolicy = \"agent\"\nagent = \"{file}\"\n"
            )
        };
        let text = config(&agent.display().to_string(), "hexapawn");
        let done = run_study_text(
            Path::new("vs.toml"),
            &text,
            root.path(),
            &RunOptions::default(),
        )
        .unwrap();
        assert!(matches!(done, StudyOutcome::Finished(_)));
        let resolved = std::fs::read_to_string(root.path().join("vs-agent/config.toml")).unwrap();
        assert!(resolved.contains("policy = \"agent\""), "{resolved}");
        let refused = |text: &str| {
            format!(
                "{:#}",
                run_study_text(
                    Path::new("vs.toml"),
                    text,
                    root.path(),
                    &RunOptions::default()
                )
                .unwrap_err()
            )
        };
        let missing = refused(&config("no/such.parquet", "hexapawn"));
        assert!(
            missing.contains("opponents[0].agent") && missing.contains("no/such.parquet"),
            "{missing}"
        );
        let other =
            refused(&config(&agent.display().to_string(), "tictactoe").replace("white", "x"));
        assert!(other.contains("an agent of hexapawn"), "{other}");
        let no_file = refused(&text.replace(&format!("agent = \"{}\"\n", agent.display()), ""));
        assert!(
            no_file.contains("opponents[0].agent") && no_file.contains("missing"),
            "{no_file}"
        );
    }

    /// A saved agent the runs play is read from its file once for the game's runs, however
    /// many learners, seeds, seats and evaluations play it: as the opponent of every run, and
    /// as the reference agent of every evaluation, exact or by matches.
    #[test]
    fn an_agent_file_is_read_once_for_all_the_runs_of_a_game() {
        let root = tempfile::tempdir().unwrap();
        run_study_text(
            Path::new("tiny.toml"),
            TINY,
            root.path(),
            &RunOptions::default(),
        )
        .unwrap();
        let agent = root.path().join("tiny/agents/her--optimal--seed-0.parquet");
        let reads = || crate::learn::saved::reads::of(&agent);
        for evaluator in ["exact", "match"] {
            let text = format!(
                "name = \"vs-agent-{evaluator}\"\nepisodes = 20\neval_interval = 5\nseeds = 3\n\
                 [game]\nname = \"hexapawn\"\n\
                 [[learners]]\nkind = \"q-learning\"\nseat = \"white\"\n\
                 [[learners]]\nkind = \"td\"\nseat = \"white\"\n\
                 [[opponents]]\nname = \"her\"\npolicy = \"agent\"\nagent = \"{file}\"\n\
                 [evaluation]\nevaluator = \"{evaluator}\"\nagent = \"{file}\"\n",
                file = agent.display()
            );
            let before = reads();
            config::parse(Path::new("vs.toml"), &text).unwrap();
            // The config's check loads each file it names (here twice: as the opponent's and
            // as the reference), to refuse a bad one with its key and line.
            let checked = reads() - before;
            assert!(
                checked >= 1,
                "{evaluator}: the check read it {checked} times"
            );
            run_study_text(
                Path::new("vs.toml"),
                &text,
                root.path(),
                &RunOptions::default(),
            )
            .unwrap();
            let summary = root
                .path()
                .join(format!("vs-agent-{evaluator}/summary.json"));
            assert!(summary.is_file(), "{evaluator}: the study finished");
            assert_eq!(
                reads() - before - checked,
                checked + 1,
                "{evaluator}: 2 learners x 3 seeds against the agent, yet the runs read its \
                 file once (beside the config's check)"
            );
        }
    }

    #[test]
    fn an_observer_stops_a_study_that_then_resumes() {
        let root = tempfile::tempdir().unwrap();
        let path = Path::new("tiny.toml");
        let stop = RunOptions {
            observer: Some(Observer(Arc::new(|_, _| false))),
            ..RunOptions::default()
        };
        let e = run_study_text(path, TINY, root.path(), &stop).unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
        assert!(!root.path().join("tiny/summary.json").exists());
        let finished = run_study_text(path, TINY, root.path(), &RunOptions::default()).unwrap();
        assert!(matches!(finished, StudyOutcome::Finished(s) if s.len() == 1));
        assert!(root.path().join("tiny/summary.json").is_file());
    }
}
