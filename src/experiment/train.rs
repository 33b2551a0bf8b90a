//! Training one game of a study ([`run_game`]): once its truth is found ([`with_truth`]), its
//! pending runs train in parallel, each stored the moment it ends, and then its outputs are
//! written ([`finish`](super::finish)). One run is one learner trained against its opponent
//! (or itself) and evaluated on the config's schedule ([`GameRuns::train_run`]).

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::config::{ExperimentConfig, Seat};
use super::evaluators::evaluator;
use super::finish::write_outputs;
use super::opponents::{OpponentSpec, copy_of};
use super::output::Curves;
use super::plan::{Condition, Plan, conditions, config_hash, run_id, runs};
use super::progress::Progress;
use super::store::{self, RunResult};
use super::summary::{RunSummary, THRESHOLDS};
use super::truth::{Truth, with_truth};
use crate::core::env::{AecEnv, Env};
use crate::core::game::{Game, GameResult, Player};
use crate::core::policy::{Policy, SharedPolicy};
use crate::core::random::{SgRng, derive_seed, rng};
use crate::eval::{Evaluator, FrozenPolicy, Metric, Role};
use crate::learn::saved::{Origin, save_agent};
use crate::learn::{EpisodeOutcome, Learner, play_self, play_vs_opponent};
use crate::truth::Solve;

/// One game of a study as its runs are trained and its outputs written: what every step reads.
pub(super) struct GameRuns<'a, G: Game> {
    pub(super) game: &'a G,
    pub(super) config: &'a ExperimentConfig,
    pub(super) plan: &'a Plan,
    pub(super) conditions: &'a [Condition<'a>],
    /// Every run of the game in its order: its condition and its seed.
    pub(super) runs: &'a [(usize, u64)],
    /// The resolved config, and its hash, as the outputs and the saved agents record them.
    pub(super) resolved: String,
    pub(super) config_hash: String,
    pub(super) progress: &'a Progress,
}

/// Runs the pending runs of one game of a study, storing each as it ends; with `finish`, reads
/// back the stored ones and writes the game's outputs into its folder (`curves.csv` too with
/// `csv`).
pub(super) fn run_game<G: Solve>(
    game: &G,
    config: &ExperimentConfig,
    plan: &Plan,
    finish: bool,
    csv: bool,
    progress: &Progress,
) -> Result<Option<RunSummary>> {
    let resolved = config.resolved_toml();
    let conditions = conditions(config);
    let runs = runs(config, conditions.len());
    let game_runs = GameRuns {
        game,
        config,
        plan,
        conditions: &conditions,
        runs: &runs,
        config_hash: config_hash(&resolved),
        resolved,
        progress,
    };
    with_truth(game, config, &conditions, progress, |truth, report| {
        let recorded = game_runs.recorded_metrics(truth)?;
        let plot_metrics = plot_metrics(game, config, &recorded)?;
        game_runs.note_plan();
        game_runs.train_pending(truth)?;
        if !finish {
            return Ok(None);
        }
        let summary = write_outputs(
            &game_runs,
            truth.graph,
            &recorded,
            &plot_metrics,
            report,
            csv,
        )?;
        Ok(Some(summary))
    })
}

/// The metrics `config` plots: `<metric>_as_*` stands for the metric at every seat (a study's
/// games name their seats apart). Refused where a run records no such metric (`recorded`:
/// what each condition records).
fn plot_metrics<G: Game>(
    game: &G,
    config: &ExperimentConfig,
    recorded: &[Vec<Metric>],
) -> Result<Vec<String>> {
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
    Ok(plot_metrics)
}

impl<G: Game> GameRuns<'_, G> {
    /// What each condition records, known before any training: the runner's own figures, the
    /// evaluator's metrics and the learner's statistics.
    fn recorded_metrics(&self, truth: &Truth<G>) -> Result<Vec<Vec<Metric>>> {
        (0..self.conditions.len())
            .map(|c| self.recorded_by(truth, c))
            .collect()
    }

    /// What the runs of condition `c` record (see [`GameRuns::recorded_metrics`]).
    fn recorded_by(&self, truth: &Truth<G>, c: usize) -> Result<Vec<Metric>> {
        let (game, cond) = (self.game, &self.conditions[c]);
        let learner = cond.learner.config.build(game, cond.learner.label.clone());
        let mut metrics = runner_metrics(truth, cond);
        metrics.extend_from_slice(
            evaluator(game, self.config, truth, c, cond, 0, learner.as_ref())?.metrics(),
        );
        // The learner's own figures, with a reference line where the enumerated game gives one
        // (the boxes a matchbox learner's seat needs).
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
    }

    /// Says above the bar what is about to happen: how many runs train, how many are read back.
    fn note_plan(&self) {
        let (config, progress) = (self.config, self.progress);
        match (self.plan.pending.len(), self.plan.stored_before) {
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
    }

    /// Trains the pending runs in parallel, each stored the moment it ends: an interruption
    /// loses only the runs under way.
    fn train_pending(&self, truth: &Truth<G>) -> Result<()> {
        if !self.plan.pending.is_empty() {
            self.plan.store.create()?;
        }
        self.plan
            .pending
            .par_iter()
            .try_for_each(|&run| self.train_and_store(truth, run))
    }

    /// Trains run `run`, saves its agent where the config keeps it, and stores the run.
    fn train_and_store(&self, truth: &Truth<G>, run: usize) -> Result<()> {
        let (c, seed) = self.runs[run];
        let (result, learner) = self.train_run(truth, c, seed)?;
        // Its agent is saved before the run is stored: a stored run that keeps its agent has it.
        let per = self.config.seeds().len();
        if self.config.save_agents().keeps(run % per) {
            self.save_run_agent(run, learner.as_ref())?;
        }
        drop(learner);
        let id = run_id(self.conditions, self.runs, run);
        self.plan.store.save(id, &result)?;
        self.progress.run_done();
        Ok(())
    }

    /// Saves the learner of run `run` into the store, beside the run. A table too large to
    /// write on this machine costs the run its agent, not its figures: a warning says what it
    /// needed.
    fn save_run_agent(&self, run: usize, learner: &dyn Learner<G>) -> Result<()> {
        let (c, seed) = self.runs[run];
        let cond = &self.conditions[c];
        let origin = Origin {
            run: self.config.name().to_string(),
            opponent: cond.opponent_name().to_string(),
            seed,
            episodes: self.config.episodes(),
            condition: c,
            config_hash: self.config_hash.clone(),
            config: self.resolved.clone(),
        };
        let path = store::agent_file(self.plan.store.dir(), run);
        let parent = path.parent().expect("inside the store");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
        let seats = cond.learner.seat.players(self.game.num_players());
        let saved = save_agent(
            &path,
            self.game,
            learner,
            &cond.learner.config,
            &cond.learner.label,
            &seats,
            Some(origin),
        );
        match saved {
            Err(e)
                if e.downcast_ref::<crate::io::memory::MemoryRefusal>()
                    .is_some() =>
            {
                self.progress.bar.suspend(|| {
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
        Ok(())
    }

    /// One run: the learner of condition `c` trained with seed `seed` against its opponent (or
    /// itself), evaluated every `eval_interval` episodes and at the end.
    fn train_run(
        &self,
        truth: &Truth<G>,
        c: usize,
        seed: u64,
    ) -> Result<(RunResult, Box<dyn Learner<G>>)> {
        let (game, config, cond) = (self.game, self.config, &self.conditions[c]);
        let mut learner = cond.learner.config.build(game, cond.learner.label.clone());
        let mut rng = rng(derive_seed(seed, 1));
        let env_seed = derive_seed(seed, 2);
        let evaluator = evaluator(game, config, truth, c, cond, seed, learner.as_ref())?;
        let mut record = Record::new(evaluator, cond, seed);
        // A frozen copy of the learner, shared by the environments and refreshed every so often.
        let copy = match (cond.opponent.and_then(OpponentSpec::frozen), truth.graph) {
            (Some((refresh, play)), Some(graph)) => {
                let policy = SharedPolicy::new(copy_of(graph, learner.as_ref(), play)?);
                Some((policy, refresh))
            }
            _ => None,
        };
        let shared = copy.as_ref().map(|(policy, _)| policy);
        let mut arena = Arena::new(game, truth, cond, shared, env_seed)?;

        // Games are summarised at each evaluation: the mean result and the losses since the
        // last one (with eval_interval = 1, every game on its own).
        record.push(0, "cumulative_losses", 0.0);
        record.evaluate(learner.as_ref(), shared, 0)?;
        let mut pending = 0;
        for episode in 1..=config.episodes() {
            arena.play(shared, learner.as_mut(), &mut rng, episode, &mut record);
            if episode % config.eval_interval() == 0 || episode == config.episodes() {
                record.games_since_evaluation(episode);
                record.evaluate(learner.as_ref(), shared, episode)?;
            }
            // Evaluated against the copy it trained against; the next episodes meet a new one.
            if let Some((policy, refresh)) = &copy
                && episode % refresh == 0
            {
                policy.write().refresh(game, learner.as_mut())?;
            }
            pending += 1;
            if pending == 64 || episode == config.episodes() {
                self.progress.advance(pending)?;
                pending = 0;
            }
        }
        Ok((record.finish(), learner))
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
fn runner_metrics<G: Game>(truth: &Truth<G>, cond: &Condition) -> Vec<Metric> {
    let never_loses = truth
        .exact
        .as_ref()
        .is_some_and(|t| t.value(first_seat(cond)) >= 0.0);
    let mut cumulative = Metric::of("cumulative_losses");
    if never_loses {
        cumulative = cumulative.reference_at(0.0);
    }
    vec![Metric::of("result"), Metric::of("losses"), cumulative]
}

/// Where a run's episodes are played.
enum Arena<'p, G: Game> {
    /// One environment per seat the learner takes (in turn, when seats alternate).
    Seats(Vec<Env<'p, G>>),
    /// Every seat at once, the learner's figures counted at `seat`.
    SelfPlay { env: Box<AecEnv<G>>, seat: Player },
}

impl<'p, G: Game> Arena<'p, G> {
    /// The environments of condition `cond`, seeded from `env_seed`: its opponent at every
    /// other seat (the frozen copy `copy` where it plays one), or self-play.
    fn new(
        game: &G,
        truth: &Truth<'p, G>,
        cond: &Condition,
        copy: Option<&SharedPolicy<FrozenPolicy<'p, G>>>,
        env_seed: u64,
    ) -> Result<Arena<'p, G>> {
        let seats = cond.learner.seat.players(game.num_players());
        let Some(o) = cond.opponent else {
            let env = Box::new(AecEnv::new(game.clone(), env_seed));
            return Ok(Arena::SelfPlay {
                env,
                seat: seats[0],
            });
        };
        let mut envs = Vec::with_capacity(seats.len());
        for (k, &seat) in seats.iter().enumerate() {
            let opponents = (0..game.num_players())
                .map(|p| match (p != seat, copy) {
                    (false, _) => Ok(None),
                    (true, Some(shared)) => {
                        Ok(Some(Box::new(shared.clone()) as Box<dyn Policy<G>>))
                    }
                    (true, None) => truth
                        .agents
                        .opponent(&o.policy, game, truth.oracle)
                        .map(Some),
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
        Ok(Arena::Seats(envs))
    }

    /// Plays episode `episode` (counted from 1; the seats take turns), against the frozen copy
    /// `copy` where there is one, and counts its game in `record`. (The outcome goes straight
    /// to the record: handed back in a pair with the seat, it was copied once more, 2.5% of
    /// the time of a Q-learning episode of tic-tac-toe.)
    fn play(
        &mut self,
        copy: Option<&SharedPolicy<FrozenPolicy<'_, G>>>,
        learner: &mut dyn Learner<G>,
        rng: &mut SgRng,
        episode: u64,
        record: &mut Record<'_, '_, G>,
    ) {
        match self {
            Arena::Seats(envs) => {
                let turn = ((episode - 1) % envs.len() as u64) as usize;
                let env = &mut envs[turn];
                let outcome = match copy {
                    Some(shared) => FrozenPolicy::play(shared, env, learner, rng),
                    None => play_vs_opponent(env, learner, rng),
                };
                record.game(&outcome, env.seat(), episode);
            }
            Arena::SelfPlay { env, seat } => {
                let outcome = play_self(env, learner, rng);
                record.game(&outcome, *seat, episode);
            }
        }
    }
}

/// What a run records as it trains: its curves, its losses, the first evaluations at which its
/// greedy policy reached the thresholds, and the games since the last evaluation.
struct Record<'e, 'c, G: Game> {
    evaluator: Box<dyn Evaluator<G> + 'e>,
    roles: Vec<Role>,
    label: &'c str,
    opponent: &'c str,
    seed: u64,
    result: RunResult,
    /// The metrics of the last evaluation.
    metrics: Vec<(String, f64)>,
    /// Since the last evaluation: the sum of the learner's rewards, the games, the losses.
    result_sum: f64,
    games_since: u64,
    losses_since: u64,
}

impl<'e, 'c, G: Game> Record<'e, 'c, G> {
    fn new(evaluator: Box<dyn Evaluator<G> + 'e>, cond: &'c Condition, seed: u64) -> Self {
        let roles = evaluator.metrics().iter().map(|m| m.role).collect();
        Record {
            evaluator,
            roles,
            label: cond.learner.label.as_str(),
            opponent: cond.opponent_name(),
            seed,
            result: RunResult {
                reached: [None; 2],
                curves: Curves::default(),
                losses: 0,
                last_loss: 0,
                perfect: false,
                final_metrics: Vec::new(),
            },
            metrics: Vec::new(),
            result_sum: 0.0,
            games_since: 0,
            losses_since: 0,
        }
    }

    /// One row of the run's curves.
    fn push(&mut self, episode: u64, metric: &str, value: f64) {
        let (label, opponent, seed) = (self.label, self.opponent, self.seed);
        self.result
            .curves
            .push(label, opponent, seed, episode, metric, value);
    }

    /// Counts the game of episode `episode`, played at `seat`.
    fn game(&mut self, outcome: &EpisodeOutcome, seat: Player, episode: u64) {
        let result = outcome
            .returns
            .map_or(GameResult::Draw, |r| r.result_for(seat));
        self.result_sum += outcome.reward;
        self.games_since += 1;
        if result == GameResult::Loss {
            self.result.losses += 1;
            self.result.last_loss = episode;
            self.losses_since += 1;
        }
    }

    /// Records the games since the last evaluation at episode `episode`: their mean result,
    /// their losses and the losses so far.
    fn games_since_evaluation(&mut self, episode: u64) {
        self.push(episode, "result", self.result_sum / self.games_since as f64);
        self.push(episode, "losses", self.losses_since as f64);
        self.push(episode, "cumulative_losses", self.result.losses as f64);
        (self.result_sum, self.games_since, self.losses_since) = (0.0, 0, 0);
    }

    /// Evaluates `learner` at episode `episode` (against the frozen copy `copy` it trained
    /// against, if any): the evaluator's metrics, then the learner's statistics, recorded and
    /// kept as the last evaluation's; the thresholds reached are noted.
    fn evaluate(
        &mut self,
        learner: &dyn Learner<G>,
        copy: Option<&SharedPolicy<FrozenPolicy<'_, G>>>,
        episode: u64,
    ) -> Result<()> {
        let current_copy = copy.map(|shared| shared.read());
        let values = self.evaluator.evaluate(learner, current_copy.as_deref())?;
        let mut metrics: Vec<(String, f64)> = self
            .evaluator
            .metrics()
            .iter()
            .zip(values)
            .map(|(m, v)| (m.name.clone(), v))
            .collect();
        metrics.extend(learner.statistics().into_iter().map(|(m, v)| (m.name, v)));
        for (m, v) in &metrics {
            self.push(episode, m, *v);
        }
        let rate = self
            .roles
            .iter()
            .zip(&metrics)
            .find(|(r, _)| **r == Role::Threshold)
            .map(|(_, (_, v))| *v);
        for (r, t) in self.result.reached.iter_mut().zip(THRESHOLDS) {
            if r.is_none() && rate.is_some_and(|v| v >= t - 1e-12) {
                *r = Some(episode);
            }
        }
        self.metrics = metrics;
        Ok(())
    }

    /// The finished run: whether its last evaluation found it perfect, and its final metrics.
    fn finish(self) -> RunResult {
        let perfect = self
            .roles
            .iter()
            .zip(&self.metrics)
            .any(|(r, (_, v))| *r == Role::Perfect && *v == 1.0);
        RunResult {
            perfect,
            final_metrics: self.metrics,
            ..self.result
        }
    }
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
