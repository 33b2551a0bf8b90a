//! Experiments: a TOML config names a game, learners, opponents, episodes and seeds; the runner
//! solves the game once, trains one learner per (learner, opponent, seed) in parallel with
//! rayon, evaluates it against the solution on a fixed schedule, and writes
//! `<out>/<name>/`: `curves.parquet` and `curves.csv` (long form, one row per measurement),
//! the resolved `config.toml`, `summary.json` and plots (PNG and SVG).
//!
//! Each job draws from its own generators seeded from its seed, and results are gathered in job
//! order, so the output is the same bytes whatever the number of threads.

pub mod config;
pub mod opponents;
pub mod output;
pub mod plot;
mod source;

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::env::{AecEnv, Env};
use crate::eval::{
    FrozenPolicy, Objective, Profile, evaluate_profile, expected_result_of, minimax_return,
    worst_case_of,
};
use crate::game::{Game, GameResult, Player};
use crate::learn::LearnerConfig;
use crate::learn::menace::{count_boxes, count_boxes_gardner};
use crate::learn::{Learner, play_self, play_vs_opponent};
use crate::policy::{OptimalPolicy, Policy, RandomPolicy, SharedPolicy};
use crate::solve::{DEFAULT_STATE_LIMIT, Solution, SolveReport};
use crate::{derive_seed, rng};
use config::{BandSpec, ExperimentConfig, LearnerEntry, Seat};
use opponents::{OpponentSpec, copy_of};
use output::{Curves, write_atomic, write_curves};
use plot::{Band, PlotSpec, plot_metric};

/// Reads the config at `path`, runs it and writes the results under `out_root/<name>/`.
/// A study (`[[games]]`) runs each game in turn into `out_root/<name>/<label>/` and writes
/// the games' tables together into `out_root/<name>/summary.md`.
pub fn run_file(path: &Path, out_root: &Path, progress: bool) -> Result<Vec<RunSummary>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the experiment config {}", path.display()))?;
    let runs = config::parse(path, &text)?;
    let mut summaries = Vec::with_capacity(runs.len());
    for (config, game) in &runs {
        let dir = out_root.join(config.name());
        summaries.push(with_game!(game, g => run(g, config, &dir, progress))?);
    }
    if summaries.len() > 1 {
        let study = summaries[0]
            .name
            .rsplit_once('/')
            .map_or(summaries[0].name.as_str(), |(study, _)| study);
        let mut table = format!("# {study}\n");
        for s in &summaries {
            // The game's label tells apart two boards of one game (hexapawn-3x3, hexapawn-4x4).
            let label = s.name.rsplit_once('/').map_or(s.name.as_str(), |(_, l)| l);
            let game = if label == s.solution.game {
                String::new()
            } else {
                format!("{}, ", s.solution.game)
            };
            table.push_str(&format!(
                "\n## {label} ({game}{} states, {})\n\n{}",
                s.solution.states,
                s.solution.start,
                s.table()
            ));
        }
        let file = out_root.join(study).join("summary.md");
        write_atomic(&file, table.as_bytes())?;
        if let Some(last) = summaries.last_mut() {
            last.written.push(file);
        }
    }
    Ok(summaries)
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

/// What one trained learner left behind.
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

/// Runs an experiment on `game` and writes its results into `dir`.
pub fn run<G: Game>(
    game: &G,
    config: &ExperimentConfig,
    dir: &Path,
    progress: bool,
) -> Result<RunSummary> {
    let resolved = config.resolved_toml();
    let config_hash = format!("{:016x}", fnv1a(resolved.as_bytes()));
    if progress {
        eprintln!("solving {} ...", game.name());
    }
    let solution = Solution::solve(game, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("solving {} for the evaluator", game.name()))?;
    let mut report = solution.report();
    if progress {
        eprintln!(
            "  {}: {} states, {} ({:.3} s)",
            game.name(),
            report.states,
            report.start,
            solution.seconds()
        );
    }
    // The summary must be the same bytes on every run.
    report.seconds = None;

    let conditions: Vec<Condition> = config
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
        .collect();
    let jobs: Vec<(usize, u64)> = (0..conditions.len())
        .flat_map(|c| config.seeds().iter().map(move |&s| (c, s)))
        .collect();

    // The return each seat is guaranteed with perfect play: the bar for "perfect".
    let values: Vec<f64> = (0..game.num_players())
        .map(|p| minimax_return(solution.graph(), p))
        .collect::<Result<_, _>>()?;
    // Opponents' play never changes: tabulate it once, for every evaluation to reuse.
    let graph = solution.graph();
    let everywhere = |p: &dyn Policy<G>| Profile::new(graph, &vec![Some(p); game.num_players()]);
    let optimal = OptimalPolicy::new(&solution);
    let baselines = Baselines {
        values,
        optimal: everywhere(&optimal),
        random: everywhere(&RandomPolicy),
        opponents: conditions
            .iter()
            .map(|c| {
                c.opponent.filter(|o| o.frozen().is_none()).map(|o| {
                    everywhere(
                        o.policy
                            .build(Some(&solution as &dyn crate::oracle::Oracle<G>))
                            .as_ref(),
                    )
                })
            })
            .collect(),
    };
    // Refuse plots of metrics that will not be recorded before any training starts: a fresh
    // learner's evaluation names every metric.
    let mut recorded: Vec<String> = ["result", "losses", "cumulative_losses"]
        .map(String::from)
        .to_vec();
    for (c, cond) in conditions.iter().enumerate() {
        let learner = cond.learner.config.build(game, cond.learner.label.clone());
        let seats = cond.learner.seat.players(game.num_players());
        let first_copy = cond
            .opponent
            .and_then(OpponentSpec::frozen)
            .map(|(_, play)| copy_of(graph, learner.as_ref(), play));
        let names = evaluation(
            game,
            &solution,
            &baselines,
            baselines.opponents[c]
                .as_ref()
                .or(first_copy.as_ref().map(FrozenPolicy::profile)),
            learner.as_ref(),
            &seats,
        )?;
        for (name, _) in names {
            if !recorded.contains(&name) {
                recorded.push(name);
            }
        }
    }
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
    if let Some(missing) = plot_metrics.iter().find(|m| !recorded.contains(m)) {
        anyhow::bail!(
            "`plots.metrics`: this experiment records no metric `{missing}`; it records: {}",
            recorded.join(", ")
        );
    }

    let total = jobs.len() as u64 * config.episodes();
    let bar = if progress {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:40.cyan/blue}] {human_pos}/{human_len} episodes ({eta} left)",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_message(format!(
            "{} runs x {} episodes on {} threads",
            jobs.len(),
            config.episodes(),
            rayon::current_num_threads()
        ));
        bar
    } else {
        ProgressBar::hidden()
    };

    let results: Vec<JobResult> = jobs
        .par_iter()
        .map(|&(c, seed)| {
            run_job(
                game,
                &solution,
                &baselines,
                c,
                config,
                &conditions[c],
                seed,
                &bar,
            )
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();

    let mut curves = Curves::new(config.name(), game.name(), &config_hash);
    for r in &results {
        curves.append(r.curves.clone());
    }
    let summary = summarise(
        game,
        &solution,
        config,
        &conditions,
        &results,
        report,
        &config_hash,
    )?;

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
        let spec = plot_spec(game, &solution, config, metric)?;
        written.extend(plot_metric(dir, &curves, &spec)?);
    }
    Ok(RunSummary { written, ..summary })
}

/// What every evaluation compares against, computed once per run.
struct Baselines {
    /// The return perfect play guarantees each seat.
    values: Vec<f64>,
    optimal: Profile,
    random: Profile,
    /// The training opponent of each condition (none in self-play, none for a frozen copy,
    /// which changes during training).
    opponents: Vec<Option<Profile>>,
}

#[allow(clippy::too_many_arguments)]
fn run_job<G: Game>(
    game: &G,
    solution: &Solution<G>,
    baselines: &Baselines,
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
    let graph = solution.graph();
    // A frozen copy of the learner, shared by the environments and refreshed every so often.
    let copy = cond
        .opponent
        .and_then(OpponentSpec::frozen)
        .map(|(refresh, play)| {
            let policy = SharedPolicy::new(copy_of(graph, learner.as_ref(), play));
            (policy, refresh, play)
        });
    let mut arena = match cond.opponent {
        Some(o) => {
            let mut envs = Vec::with_capacity(seats.len());
            for (k, &seat) in seats.iter().enumerate() {
                let opponents = (0..game.num_players())
                    .map(|p| {
                        (p != seat).then(|| match &copy {
                            Some((shared, ..)) => Box::new(shared.clone()) as Box<dyn Policy<G>>,
                            None => o
                                .policy
                                .build(Some(solution as &dyn crate::oracle::Oracle<G>)),
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

    let evaluate = |learner: &dyn Learner<G>,
                    curves: &mut Curves,
                    episode: u64|
     -> Result<Vec<(String, f64)>> {
        let current_copy = copy.as_ref().map(|(shared, ..)| shared.read());
        let metrics = evaluation(
            game,
            solution,
            baselines,
            baselines.opponents[condition]
                .as_ref()
                .or(current_copy.as_deref().map(FrozenPolicy::profile)),
            learner,
            &seats,
        )?;
        for (m, v) in &metrics {
            curves.push(label, opponent_name, seed, episode, m, *v);
        }
        Ok(metrics)
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
        if let Some((shared, refresh, play)) = &copy
            && episode % refresh == 0
        {
            shared.replace(copy_of(graph, learner.as_ref(), *play));
        }
        pending += 1;
        if pending == 64 || episode == config.episodes() {
            bar.inc(pending);
            pending = 0;
        }
    }
    job.perfect = metrics.iter().any(|(m, v)| m == "perfect" && *v == 1.0);
    job.final_metrics = metrics;
    Ok(job)
}

/// The optimal-move-rate thresholds of the summary table.
pub const THRESHOLDS: [f64; 2] = [0.95, 0.99];

fn note_thresholds(reached: &mut [Option<u64>; 2], metrics: &[(String, f64)], episode: u64) {
    let rate = metrics
        .iter()
        .find(|(m, _)| m == "greedy_optimal_rate_optimal_play")
        .map(|(_, v)| *v);
    for (r, t) in reached.iter_mut().zip(THRESHOLDS) {
        if r.is_none() && rate.is_some_and(|v| v >= t - 1e-12) {
            *r = Some(episode);
        }
    }
}

/// Every measurement of a learner against the solution, as (metric, value) pairs.
fn evaluation<G: Game>(
    game: &G,
    solution: &Solution<G>,
    baselines: &Baselines,
    trained_against: Option<&Profile>,
    learner: &dyn Learner<G>,
    seats: &[Player],
) -> Result<Vec<(String, f64)>> {
    let graph = solution.graph();
    let at_seats = |p: &'_ dyn Policy<G>| -> Profile {
        let policies: Vec<Option<&dyn Policy<G>>> = (0..game.num_players())
            .map(|q| seats.contains(&q).then_some(p))
            .collect();
        Profile::new(graph, &policies)
    };
    let policy = learner.policy();
    let behaviour = at_seats(policy.as_ref());
    let greedy = at_seats(learner.greedy_policy().as_ref());
    let mut out: Vec<(String, f64)> = Vec::new();
    let b = evaluate_profile(solution, seats, &behaviour);
    out.push(("optimal_rate_all".into(), b.optimal_rate_all));
    out.push(("optimal_rate_faced".into(), b.optimal_rate_faced));
    out.push((
        "optimal_rate_optimal_play".into(),
        b.optimal_rate_optimal_play,
    ));
    out.push(("blunders".into(), b.blunders as f64));
    out.push(("mistakes".into(), b.mistakes as f64));
    out.push(("states_faced".into(), b.states_faced as f64));
    let g = evaluate_profile(solution, seats, &greedy);
    out.push(("greedy_optimal_rate_all".into(), g.optimal_rate_all));
    out.push(("greedy_optimal_rate_faced".into(), g.optimal_rate_faced));
    out.push((
        "greedy_optimal_rate_optimal_play".into(),
        g.optimal_rate_optimal_play,
    ));

    let mut perfect = true;
    for &seat in seats {
        let suffix = if seats.len() > 1 {
            format!("_as_{}", game.player_name(seat))
        } else {
            String::new()
        };
        let mut against = |name: &str, other: &Profile| -> Result<()> {
            let paired = Profile::mix(graph, &[&behaviour, other], |p| usize::from(p != seat));
            let r = expected_result_of(graph, &paired, seat)?;
            out.push((format!("return_vs_{name}{suffix}"), r.expected_return));
            out.push((format!("win_prob_vs_{name}{suffix}"), r.win));
            out.push((format!("loss_prob_vs_{name}{suffix}"), r.loss));
            Ok(())
        };
        against("optimal", &baselines.optimal)?;
        against("random", &baselines.random)?;
        if let Some(o) = trained_against {
            against("opponent", o)?;
        }
        let paired = Profile::mix(graph, &[&greedy, &baselines.optimal], |p| {
            usize::from(p != seat)
        });
        let r = expected_result_of(graph, &paired, seat)?;
        out.push((
            format!("greedy_return_vs_optimal{suffix}"),
            r.expected_return,
        ));
        let worst = worst_case_of(graph, seat, &behaviour, Objective::ExpectedReturn)?;
        out.push((format!("worst_case_return{suffix}"), worst.expected_return));
        perfect &= worst.expected_return >= baselines.values[seat] - 1e-9;
    }
    out.push(("perfect".into(), perfect as u8 as f64));
    if let Some((plain, discounted)) = value_errors(game, solution, learner, seats) {
        out.push(("value_error".into(), plain));
        out.push(("value_error_discounted".into(), discounted));
    }
    for (name, v) in learner.statistics() {
        out.push((name.to_string(), v));
    }
    Ok(out)
}

/// Mean absolute error of a value learner's values over the positions where one of its
/// `seats` is to move, against the solution's values mapped to +1 (win), 0 (draw), -1 (loss),
/// and against the discounted truth `±γ^(n-1)` for a result `n` plies away (γ the learner's
/// discount per ply; equal to the first when γ = 1). `None` for learners without values.
fn value_errors<G: Game>(
    game: &G,
    solution: &Solution<G>,
    learner: &dyn Learner<G>,
    seats: &[Player],
) -> Option<(f64, f64)> {
    let graph = solution.graph();
    let gamma = learner.discount();
    let (mut plain, mut discounted, mut n) = (0.0, 0.0, 0usize);
    for id in 0..graph.len() as crate::graph::StateId {
        let Some(p) = graph.turn(id).player() else {
            continue;
        };
        if !seats.contains(&p) {
            continue;
        }
        let estimate = learner.value(game, graph.state(id))?;
        let value = solution.value_of(id);
        let sign = match value.result_for(p) {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.0,
            GameResult::Loss => -1.0,
        };
        let far = value.plies().map_or(0, |k| k.saturating_sub(1));
        plain += (estimate - sign).abs();
        discounted += (estimate - sign * gamma.powi(far as i32)).abs();
        n += 1;
    }
    (n > 0).then(|| (plain / n as f64, discounted / n as f64))
}

/// Labels and the ground-truth line of a plotted metric.
fn plot_spec<G: Game>(
    game: &G,
    solution: &Solution<G>,
    config: &ExperimentConfig,
    metric: &str,
) -> Result<PlotSpec> {
    let graph = solution.graph();
    // A metric measured for one seat in self-play ends in "_as_<player>".
    let (base, seat_of_metric) = match metric.rsplit_once("_as_") {
        Some((base, name)) => match game.player_by_name(name) {
            Some(p) => (base, Some(p)),
            None => (metric, None),
        },
        None => (metric, None),
    };
    // The return perfect play guarantees the learner's seat (when all learners agree on it).
    let seats: Vec<Player> = match seat_of_metric {
        Some(p) => vec![p],
        None => config
            .learners()
            .iter()
            .map(|l| match &l.seat {
                Seat::Player(p, _) => *p,
                Seat::SelfPlay | Seat::Alternate => 0,
            })
            .collect(),
    };
    let values: Vec<f64> = seats
        .iter()
        .map(|&p| minimax_return(graph, p))
        .collect::<Result<_, _>>()?;
    let value = values.windows(2).all(|w| w[0] == w[1]).then(|| values[0]);
    let game_value = || value.map(|v| (v, "game value (solver)".to_string()));
    let (title, y_label, reference) = match base {
        "cumulative_losses" => (
            "Losses so far",
            "cumulative losses (games)",
            value
                .filter(|&v| v >= 0.0)
                .map(|_| (0.0, "perfect play never loses (solver)".to_string())),
        ),
        m if m.contains("optimal_rate") => (
            "Optimal-move rate",
            "probability of a value-keeping move",
            Some((1.0, "optimal (solver)".to_string())),
        ),
        "return_vs_optimal" => (
            "Exact expected return against perfect play",
            "expected return (+1 win, -1 loss)",
            game_value(),
        ),
        "worst_case_return" => (
            "Exact return against the strongest opponent (best response)",
            "expected return (+1 win, -1 loss)",
            game_value(),
        ),
        m if m.starts_with("return_vs_") => (
            "Exact expected return",
            "expected return (+1 win, -1 loss)",
            None,
        ),
        m if m.contains("prob") => ("Exact probability", "probability", None),
        "boxes" => ("Matchboxes opened", "boxes", None),
        m if m.starts_with("value_error") => (
            "Value error (mean absolute, against the solver's values)",
            "mean |learned value - true value|",
            Some((0.0, "exact values (solver)".to_string())),
        ),
        _ => ("", metric, None),
    };
    let seat_note =
        seat_of_metric.map_or(String::new(), |p| format!(" (as {})", game.player_name(p)));
    Ok(PlotSpec {
        file_stem: metric.to_string(),
        title: format!(
            "{}: {}{seat_note}",
            config.name(),
            if title.is_empty() { metric } else { title }
        ),
        metric: metric.to_string(),
        x_label: "games played".to_string(),
        y_label: y_label.to_string(),
        reference,
        y_range: (base.contains("rate") || base.contains("prob")).then_some((0.0, 1.02)),
        band: match config.band() {
            BandSpec::Bootstrap95 => Band::Bootstrap95,
            BandSpec::MinMax => Band::MinMax,
        },
    })
}

/// Mean, minimum and maximum over seeds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    fn of(values: impl IntoIterator<Item = f64>) -> Spread {
        let v: Vec<f64> = values.into_iter().collect();
        let n = v.len().max(1) as f64;
        Spread {
            mean: v.iter().sum::<f64>() / n,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Per (learner, opponent): what the machines did over their episodes.
#[derive(Clone, Debug, Serialize)]
pub struct ConditionSummary {
    pub learner: String,
    pub opponent: String,
    pub seat: String,
    pub seeds: usize,
    pub episodes: u64,
    /// Games lost per machine.
    pub losses: Spread,
    /// The game after which the machine never lost again (0: it never lost).
    pub last_loss_episode: Spread,
    /// Share of machines that never lost a game.
    pub never_lost_share: f64,
    /// Share of machines whose final play is perfect: no opponent can do better against it
    /// than against perfect play (exact worst case equals the game value).
    pub perfect_share: f64,
    /// Every evaluation metric at the last episode.
    pub final_metrics: std::collections::BTreeMap<String, Spread>,
    /// Episodes until the greedy policy keeps the value in 95% / 99% of the positions of
    /// optimal play (over the seeds that got there), and the share of seeds that did.
    pub episodes_to_95: Option<Spread>,
    pub reached_95_share: f64,
    pub episodes_to_99: Option<Spread>,
    pub reached_99_share: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub name: String,
    pub description: String,
    pub config_hash: String,
    pub solution: SolveReport,
    /// Matchboxes needed to cover every position a learner's seat can face.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boxes_possible: Vec<BoxesPossible>,
    pub conditions: Vec<ConditionSummary>,
    #[serde(skip)]
    pub written: Vec<PathBuf>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoxesPossible {
    pub learner: String,
    pub seat: String,
    /// Every position and its symmetric images share a box (what the learner does).
    pub with_symmetry: usize,
    pub with_symmetry_and_a_choice: usize,
    pub without_symmetry: usize,
    /// A hand-built machine in Gardner's manner (see `count_boxes_gardner`): 24 for Hexapawn.
    pub gardner_convention: usize,
}

fn reached_spread(jobs: &[JobResult], k: usize) -> Option<Spread> {
    let v: Vec<f64> = jobs
        .iter()
        .filter_map(|j| j.reached[k].map(|e| e as f64))
        .collect();
    (!v.is_empty()).then(|| Spread::of(v))
}

fn summarise<G: Game>(
    game: &G,
    solution: &Solution<G>,
    config: &ExperimentConfig,
    conditions: &[Condition],
    results: &[JobResult],
    report: SolveReport,
    config_hash: &str,
) -> Result<RunSummary> {
    let per = config.seeds().len();
    let mut out = Vec::new();
    for (c, cond) in conditions.iter().enumerate() {
        let jobs = &results[c * per..(c + 1) * per];
        let mut final_metrics = std::collections::BTreeMap::new();
        for (i, (name, _)) in jobs[0].final_metrics.iter().enumerate() {
            final_metrics.insert(
                name.clone(),
                Spread::of(jobs.iter().map(|j| j.final_metrics[i].1)),
            );
        }
        out.push(ConditionSummary {
            learner: cond.learner.label.clone(),
            opponent: cond.opponent_name().to_string(),
            seat: cond.learner.seat.describe(),
            seeds: per,
            episodes: config.episodes(),
            losses: Spread::of(jobs.iter().map(|j| j.losses as f64)),
            last_loss_episode: Spread::of(jobs.iter().map(|j| j.last_loss as f64)),
            never_lost_share: jobs.iter().filter(|j| j.losses == 0).count() as f64 / per as f64,
            perfect_share: jobs.iter().filter(|j| j.perfect).count() as f64 / per as f64,
            final_metrics,
            episodes_to_95: reached_spread(jobs, 0),
            reached_95_share: jobs.iter().filter(|j| j.reached[0].is_some()).count() as f64
                / per as f64,
            episodes_to_99: reached_spread(jobs, 1),
            reached_99_share: jobs.iter().filter(|j| j.reached[1].is_some()).count() as f64
                / per as f64,
        });
    }
    let mut boxes_possible = Vec::new();
    for l in config.learners() {
        if let (LearnerConfig::Matchbox(_), Seat::Player(seat, name)) = (&l.config, &l.seat) {
            let seat = *seat;
            let with = count_boxes(solution.graph(), seat, true);
            let without = count_boxes(solution.graph(), seat, false);
            boxes_possible.push(BoxesPossible {
                learner: l.label.clone(),
                seat: name.clone(),
                with_symmetry: with.boxes,
                with_symmetry_and_a_choice: with.with_choice,
                without_symmetry: without.boxes,
                gardner_convention: count_boxes_gardner(game, seat),
            });
        }
    }
    Ok(RunSummary {
        name: config.name().to_string(),
        description: config.description().to_string(),
        config_hash: config_hash.to_string(),
        solution: report,
        boxes_possible,
        conditions: out,
        written: Vec::new(),
    })
}

impl ConditionSummary {
    /// What its greedy policy reached: the episodes it needed to keep the value in 95% / 99%
    /// of the positions of optimal play (mean over the seeds that got there, and their share;
    /// `None`: no seed did), its final rates along optimal play and over all positions, and its
    /// exact final result against perfect play from each seat it held.
    fn learned(&self) -> Learned {
        let rate = |m: &str| self.final_metrics.get(m).map(|s| s.mean);
        let mut results: Vec<String> = self
            .final_metrics
            .iter()
            .filter_map(|(k, v)| {
                let seat = k.strip_prefix("greedy_return_vs_optimal")?;
                Some(match seat.strip_prefix("_as_") {
                    Some(seat) => format!("{:+.3} as {seat}", v.mean),
                    None => format!("{:+.3}", v.mean),
                })
            })
            .collect();
        results.sort();
        Learned {
            reached: [
                self.episodes_to_95.map(|s| (s.mean, self.reached_95_share)),
                self.episodes_to_99.map(|s| (s.mean, self.reached_99_share)),
            ],
            rate_optimal_play: rate("greedy_optimal_rate_optimal_play"),
            rate_all: rate("greedy_optimal_rate_all"),
            results: results.join(", "),
        }
    }
}

struct Learned {
    /// (mean episodes, share of seeds) for 95% and 99%.
    reached: [Option<(f64, f64)>; 2],
    rate_optimal_play: Option<f64>,
    rate_all: Option<f64>,
    results: String,
}

impl Learned {
    /// A row's cells: episodes to 95% and 99%, the two final rates, the results. `compact`
    /// for the terminal ("440000 (50%)", "98.3%"), else for summary.md ("440000 (50% of
    /// seeds)", "0.9832").
    fn cells(self, compact: bool) -> [String; 5] {
        let to = |r: Option<(f64, f64)>| match r {
            None => "never".to_string(),
            Some((mean, share)) if compact && share >= 1.0 => format!("{mean:.0}"),
            Some((mean, share)) if compact => format!("{mean:.0} ({:.0}%)", 100.0 * share),
            Some((mean, share)) => format!("{mean:.0} ({:.0}% of seeds)", 100.0 * share),
        };
        let rate = |r: Option<f64>| match r {
            None => "-".to_string(),
            Some(v) if compact => format!("{:.1}%", 100.0 * v),
            Some(v) => format!("{v:.4}"),
        };
        [
            to(self.reached[0]),
            to(self.reached[1]),
            rate(self.rate_optimal_play),
            rate(self.rate_all),
            self.results,
        ]
    }
}

impl RunSummary {
    /// The study table in Markdown: per learner and opponent, what its greedy policy reached
    /// (see [`ConditionSummary::learned`]).
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| learner | opponent | episodes to 95% | episodes to 99% | final rate, optimal play | final rate, all positions | final result vs perfect play |\n|---|---|---|---|---|---|---|\n",
        );
        for c in &self.conditions {
            let cells = c.learned().cells(false);
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                c.learner,
                c.opponent,
                cells.join(" | ")
            ));
        }
        out
    }
}

impl fmt::Display for RunSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} ({} states, {})",
            self.name, self.solution.game, self.solution.states, self.solution.start
        )?;
        for b in &self.boxes_possible {
            writeln!(
                f,
                "  boxes for {} at {}: {} with symmetry ({} with a choice of move), {} without, {} in Gardner's manner",
                b.learner,
                b.seat,
                b.with_symmetry,
                b.with_symmetry_and_a_choice,
                b.without_symmetry,
                b.gardner_convention
            )?;
        }
        let lw = self
            .conditions
            .iter()
            .map(|c| c.learner.chars().count())
            .fold(12, usize::max);
        let ow = self
            .conditions
            .iter()
            .map(|c| c.opponent.chars().count())
            .fold(16, usize::max);
        writeln!(
            f,
            "  {:<lw$} {:<ow$} {:>6} {:>12} {:>14} {:>10} {:>10} {:>11}",
            "learner",
            "opponent",
            "seeds",
            "losses/run",
            "last loss at",
            "never lost",
            "perfect",
            "boxes used"
        )?;
        for c in &self.conditions {
            let boxes = c
                .final_metrics
                .get("boxes")
                .map_or("-".to_string(), |s| format!("{:.1}", s.mean));
            writeln!(
                f,
                "  {:<lw$} {:<ow$} {:>6} {:>12.2} {:>14.2} {:>9.1}% {:>9.1}% {:>11}",
                c.learner,
                c.opponent,
                c.seeds,
                c.losses.mean,
                c.last_loss_episode.mean,
                100.0 * c.never_lost_share,
                100.0 * c.perfect_share,
                boxes
            )?;
        }
        writeln!(
            f,
            "  greedy policy: games until it keeps the value in 95% / 99% of the positions of optimal play,\n  its final optimal-move rates and its exact result against perfect play"
        )?;
        writeln!(
            f,
            "  {:<lw$} {:<ow$} {:>12} {:>12} {:>14} {:>14}  result",
            "learner", "opponent", "95% at", "99% at", "optimal play", "all positions"
        )?;
        for c in &self.conditions {
            let [to_95, to_99, rate_optimal_play, rate_all, results] = c.learned().cells(true);
            writeln!(
                f,
                "  {:<lw$} {:<ow$} {to_95:>12} {to_99:>12} {rate_optimal_play:>14} {rate_all:>14}  {results}",
                c.learner, c.opponent,
            )?;
        }
        if let Some(dir) = self.written.first().and_then(|p| p.parent()) {
            let names: Vec<String> = self
                .written
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            write!(f, "  wrote {}/: {}", dir.display(), names.join(", "))?;
        }
        Ok(())
    }
}

/// FNV-1a, 64 bits: a stable fingerprint of the resolved config.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
