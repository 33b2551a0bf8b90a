//! What a run reports: per (learner, opponent) what the machines did and what their greedy
//! policy reached, as `summary.json`, `summary.md` and the console tables. The columns come from
//! the metrics' roles ([`Role`]), never from their names.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::config::{Evaluation, ExperimentConfig, Seat};
use super::plan::Condition;
use super::store::Outcome;
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::eval::{Metric, Role, stats};
use crate::io::text::group;
use crate::learn::LearnerNote;
use crate::learn::metric::Source;
use crate::truth::SolveReport;

/// The optimal-move-rate thresholds of the summary table.
pub const THRESHOLDS: [f64; 2] = [0.95, 0.99];

/// Mean, minimum and maximum over seeds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The mean is summed stably and kept within [min, max] ([`stats::mean`]): 200 equal
    /// values have that value as their mean, to the bit.
    pub(super) fn of(values: impl IntoIterator<Item = f64>) -> Spread {
        let v: Vec<f64> = values.into_iter().collect();
        Spread {
            mean: if v.is_empty() { 0.0 } else { stats::mean(&v) },
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
    /// Games lost per machine while it trained (by the policy it trained with, exploring).
    /// Absent in self-play: the learner plays every side and loses every game a side loses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub losses: Option<Spread>,
    /// The game after which the machine never lost again (0: it never lost); absent in
    /// self-play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_loss_episode: Option<Spread>,
    /// Share of machines that never lost a game; absent in self-play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub never_lost_share: Option<f64>,
    /// Share of machines whose final play is perfect: no opponent can do better against it
    /// than against perfect play (exact worst case equals the game value). Which policy:
    /// [`ConditionSummary::perfect_policy`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perfect_share: Option<f64>,
    /// The policy `perfect_share` measures: `behaviour` (as it plays in training, exploring
    /// included: the exact evaluator) or `greedy` (its best moves: the response evaluator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perfect_policy: Option<&'static str>,
    /// Every evaluation metric at the last episode.
    pub final_metrics: BTreeMap<String, Spread>,
    /// The ceiling of the results against the training opponent, by metric
    /// (`return_vs_opponent`, ...): what the best response to that opponent scores, the most a
    /// learner trained against it can reach (the exact evaluator against a fixed opponent).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub ceiling: BTreeMap<String, f64>,
    /// Episodes until the greedy policy keeps the value in 95% / 99% of the positions of
    /// optimal play (over the seeds that got there), and the share of seeds that did.
    pub episodes_to_95: Option<Spread>,
    pub reached_95_share: f64,
    pub episodes_to_99: Option<Spread>,
    pub reached_99_share: f64,
    /// The metrics it recorded, for the tables.
    #[serde(skip)]
    pub(super) metrics: Vec<Metric>,
    #[serde(skip)]
    pub(super) seat_names: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub name: String,
    pub description: String,
    pub config_hash: String,
    /// What made the outputs: the crate's version and the git commit it was built from
    /// (`null` where it was not built from a checkout).
    pub version: &'static str,
    pub commit: Option<&'static str>,
    /// The game's name and its parameters, every default filled in.
    pub game: String,
    pub params: serde_json::Value,
    /// The exact solution's figures (where the run has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<SolveReport>,
    /// What learner kinds add (a matchbox learner's `boxes_possible`), by key.
    #[serde(flatten)]
    pub notes: BTreeMap<&'static str, Vec<LearnerNote>>,
    pub conditions: Vec<ConditionSummary>,
    /// How the run was evaluated, for the tables' heading.
    #[serde(skip)]
    pub evaluation: String,
    #[serde(skip)]
    pub written: Vec<PathBuf>,
}

impl ConditionSummary {
    fn with_role(&self, role: Role) -> impl Iterator<Item = &Metric> {
        self.metrics.iter().filter(move |m| m.role == role)
    }
    fn mean_of(&self, role: Role) -> Option<f64> {
        let m = self.with_role(role).next()?;
        self.final_metrics.get(&m.name).map(|s| s.mean)
    }
    /// The console column of a learner's own statistic (title and mean), if it has one.
    fn column(&self) -> Option<(&'static str, Option<f64>)> {
        self.metrics.iter().find_map(|m| match m.role {
            Role::Column(title) => Some((title, self.final_metrics.get(&m.name).map(|s| s.mean))),
            _ => None,
        })
    }

    /// What its greedy policy reached: the episodes it needed to keep the value in 95% / 99%
    /// of the positions of optimal play (mean over the seeds that got there, and their share),
    /// its final rates along optimal play and over all positions, and its final result against
    /// perfect play from each seat it held.
    fn learned(&self) -> Learned {
        // In the order of the seats (the first player first), the same in every row.
        let mut results: Vec<(Option<usize>, String)> = self
            .with_role(Role::GreedyResult)
            .filter_map(|m| {
                let v = self.final_metrics.get(&m.name)?.mean;
                Some(match m.seat {
                    Some(p) => (Some(p), format!("{v:+.3} as {}", self.seat_names[p])),
                    None => (None, format!("{v:+.3}")),
                })
            })
            .collect();
        results.sort();
        let results: Vec<String> = results.into_iter().map(|(_, r)| r).collect();
        let threshold = self.with_role(Role::Threshold).next().is_some();
        let reached =
            |spread: Option<Spread>, share: f64| threshold.then(|| spread.map(|s| (s.mean, share)));
        Learned {
            reached: [
                reached(self.episodes_to_95, self.reached_95_share),
                reached(self.episodes_to_99, self.reached_99_share),
            ],
            rate_optimal_play: self.mean_of(Role::Threshold),
            rate_all: self.mean_of(Role::GreedyRateAll),
            results: if results.is_empty() {
                "-".to_string()
            } else {
                results.join(", ")
            },
        }
    }
}

impl ConditionSummary {
    /// The training table's cells: losses per run, last loss, never lost ("-" in self-play,
    /// where they mean nothing) and the perfect share ("-" where it is not measured).
    fn training_cells(&self) -> [String; 4] {
        let dash = || "-".to_string();
        [
            self.losses.map_or_else(dash, |s| format!("{:.2}", s.mean)),
            self.last_loss_episode
                .map_or_else(dash, |s| format!("{:.2}", s.mean)),
            self.never_lost_share
                .map_or_else(dash, |s| format!("{:.1}%", 100.0 * s)),
            self.perfect_share
                .map_or_else(dash, |s| format!("{:.1}%", 100.0 * s)),
        ]
    }
}

impl RunSummary {
    /// What the training table's columns measure, where a row would otherwise mislead: a
    /// self-play row (no loss columns) or a perfect share of the greedy policy (the response
    /// evaluator's). `None` for the plain case (a learner at its seats, perfect as it plays,
    /// the columns HER's figures are quoted in).
    fn training_legend(&self) -> Option<String> {
        let selfplay = self.conditions.iter().any(|c| c.losses.is_none());
        let greedy = self
            .conditions
            .iter()
            .any(|c| c.perfect_policy == Some("greedy"));
        let behaviour = self
            .conditions
            .iter()
            .any(|c| c.perfect_policy == Some("behaviour"));
        if !selfplay && !greedy {
            return None;
        }
        let mut parts = Vec::new();
        if selfplay {
            parts.push(
                "self-play rows have no losses (the learner holds every seat, so it loses every \
                 game a side loses)"
                    .to_string(),
            );
        }
        parts.push(
            "losses count the games as it played them in training, exploration included".into(),
        );
        match (behaviour, greedy) {
            (true, true) => parts.push(
                "perfect measures the policy as it plays in training (exact evaluator) or its \
                 greedy policy (response evaluator), as summary.json's perfect_policy says"
                    .into(),
            ),
            (true, false) => parts.push(
                "perfect: the policy as it plays in training has an exact worst case equal to \
                 the game's value"
                    .into(),
            ),
            (false, true) => parts.push(
                "perfect: its greedy policy's exact worst case equals the game's value".into(),
            ),
            (false, false) => {}
        }
        Some(format!("training table: {}", parts.join("; ")))
    }
}

impl ConditionSummary {
    /// Match runs: the greedy policy's final win rate with its 95 % interval and its mean rank
    /// against each reference ("vs random 45.0% [38.2, 51.9], rank 1.55"), means over seeds.
    fn match_results(&self) -> Vec<String> {
        let m = &self.final_metrics;
        m.keys()
            .filter_map(|name| {
                let reference = name.strip_prefix("greedy_win_rate_vs_")?;
                if reference.ends_with("_low") || reference.ends_with("_high") {
                    return None;
                }
                let at = |k: String| m.get(&k).map(|s| s.mean);
                let (win, lo, hi) = (
                    at(name.clone())?,
                    at(format!("{name}_low"))?,
                    at(format!("{name}_high"))?,
                );
                let rank = at(format!("greedy_mean_rank_vs_{reference}"))
                    .map_or(String::new(), |r| format!(", rank {r:.2}"));
                Some(format!(
                    "vs {reference} {:.1}% [{:.1}, {:.1}]{rank}",
                    100.0 * win,
                    100.0 * lo,
                    100.0 * hi
                ))
            })
            .collect()
    }
}

struct Learned {
    /// (mean episodes, share of seeds) for 95% and 99% (`Some(None)`: never; `None`: the run
    /// does not measure it).
    reached: [Option<Option<(f64, f64)>>; 2],
    rate_optimal_play: Option<f64>,
    rate_all: Option<f64>,
    results: String,
}

impl Learned {
    /// A row's cells: episodes to 95% and 99%, the two final rates, the results. `compact`
    /// for the terminal ("440000 (50%)", "98.3%"), else for summary.md ("440000 (50% of
    /// seeds)", "0.9832").
    fn cells(self, compact: bool) -> [String; 5] {
        let to = |r: Option<Option<(f64, f64)>>| match r {
            None => "-".to_string(),
            Some(None) => "never".to_string(),
            Some(Some((mean, share))) if compact && share >= 1.0 => group(&format!("{mean:.0}")),
            Some(Some((mean, share))) if compact => {
                format!("{} ({:.0}%)", group(&format!("{mean:.0}")), 100.0 * share)
            }
            Some(Some((mean, share))) => {
                format!(
                    "{} ({:.0}% of seeds)",
                    group(&format!("{mean:.0}")),
                    100.0 * share
                )
            }
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
    /// "(135 states, black wins in 6 plies)", or how the run was evaluated.
    pub fn heading(&self) -> String {
        match &self.solution {
            Some(s) => format!("{} states, {}", group(&s.states.to_string()), s.start),
            None => self.evaluation.clone(),
        }
    }

    /// The study table in Markdown: per learner and opponent, what its greedy policy reached.
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

impl RunSummary {
    /// The game with its parameters: "hexapawn (cols=3, rows=3)".
    pub fn game_with_params(&self) -> String {
        let params: Vec<String> = match &self.params {
            serde_json::Value::Object(m) => m
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => format!("{k}={s}"),
                    v => format!("{k}={v}"),
                })
                .collect(),
            _ => Vec::new(),
        };
        match params.is_empty() {
            true => self.game.clone(),
            false => format!("{} ({})", self.game, params.join(", ")),
        }
    }

    /// `summary.md`: a heading, the game and its value (or how the run was evaluated), the
    /// learners' notes, and the tables the console prints, in Markdown.
    pub fn markdown(&self) -> String {
        let mut out = format!("# {}\n\n", self.name);
        if !self.description.is_empty() {
            out.push_str(&format!("{}\n\n", self.description));
        }
        out.push_str(&format!(
            "Game: {}: {}.\n\n",
            self.game_with_params(),
            self.heading()
        ));
        for note in self.notes.values().flatten() {
            out.push_str(&format!("- {note}\n"));
        }
        if !self.notes.is_empty() {
            out.push('\n');
        }
        let column = self
            .conditions
            .iter()
            .find_map(|c| c.column())
            .map(|(t, _)| t);
        out.push_str("## Training\n\n| learner | opponent | seeds | losses per run | last loss at | never lost | perfect |");
        out.push_str(&column.map_or(String::new(), |t| format!(" {t} |")));
        out.push_str("\n|---|---|---|---|---|---|---|");
        out.push_str(if column.is_some() { "---|\n" } else { "\n" });
        for c in &self.conditions {
            let [losses, last, never, perfect] = c.training_cells();
            out.push_str(&format!(
                "| {} | {} | {} | {losses} | {last} | {never} | {perfect} |",
                c.learner,
                c.opponent,
                group(&c.seeds.to_string()),
            ));
            if column.is_some() {
                let value = c
                    .column()
                    .and_then(|(_, v)| v)
                    .map_or("-".to_string(), |v| format!("{v:.1}"));
                out.push_str(&format!(" {value} |"));
            }
            out.push('\n');
        }
        if let Some(legend) = self.training_legend() {
            out.push_str(&format!("\n{legend}\n"));
        }
        let exact = self
            .conditions
            .iter()
            .any(|c| c.with_role(Role::Threshold).next().is_some());
        out.push_str("\n## The greedy policy\n\n");
        if exact {
            out.push_str(&self.table());
        } else {
            out.push_str("At the last evaluation: win rate [95% interval] and mean rank against each reference (means over seeds).\n\n| learner | opponent | results |\n|---|---|---|\n");
            for c in &self.conditions {
                out.push_str(&format!(
                    "| {} | {} | {} |\n",
                    c.learner,
                    c.opponent,
                    c.match_results().join("; ")
                ));
            }
        }
        if self.conditions.iter().any(|c| !c.ceiling.is_empty()) {
            out.push_str("\n## Against the training opponent: the ceiling\n\nThe result at the last evaluation (mean over seeds) beside the ceiling: what the best response to the opponent scores, the most a learner trained against it can reach (solver).\n\n| learner | opponent | metric | last | ceiling |\n|---|---|---|---|---|\n");
            for c in &self.conditions {
                for (name, ceiling) in &c.ceiling {
                    let last = c
                        .final_metrics
                        .get(name)
                        .map_or("-".to_string(), |s| format!("{:.4}", s.mean));
                    out.push_str(&format!(
                        "| {} | {} | {name} | {last} | {ceiling:.4} |\n",
                        c.learner, c.opponent
                    ));
                }
            }
        }
        out
    }
}

impl fmt::Display for RunSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} ({})", self.name, self.game, self.heading())?;
        for note in self.notes.values().flatten() {
            writeln!(f, "  {note}")?;
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
        self.write_training(f, lw, ow)?;
        let exact = self
            .conditions
            .iter()
            .any(|c| c.with_role(Role::Threshold).next().is_some());
        if exact {
            self.write_learned(f, lw, ow)?;
        } else {
            self.write_matches(f, lw, ow)?;
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

impl RunSummary {
    /// The console's table of training: each condition's losses, and the learner's own
    /// statistic where it has one (`lw`, `ow`: the widths of the learner and opponent columns).
    fn write_training(&self, f: &mut fmt::Formatter<'_>, lw: usize, ow: usize) -> fmt::Result {
        let column = self
            .conditions
            .iter()
            .find_map(|c| c.column())
            .map(|(t, _)| t);
        write!(
            f,
            "  {:<lw$} {:<ow$} {:>6} {:>12} {:>14} {:>10} {:>10}",
            "learner", "opponent", "seeds", "losses/run", "last loss at", "never lost", "perfect",
        )?;
        match column {
            Some(title) => writeln!(f, " {title:>11}")?,
            None => writeln!(f)?,
        }
        for c in &self.conditions {
            let [losses, last, never, perfect] = c.training_cells();
            write!(
                f,
                "  {:<lw$} {:<ow$} {:>6} {losses:>12} {last:>14} {never:>10} {perfect:>10}",
                c.learner,
                c.opponent,
                group(&c.seeds.to_string()),
            )?;
            if column.is_some() {
                let value = c
                    .column()
                    .and_then(|(_, v)| v)
                    .map_or("-".to_string(), |v| format!("{v:.1}"));
                write!(f, " {value:>11}")?;
            }
            writeln!(f)?;
        }
        if let Some(legend) = self.training_legend() {
            writeln!(f, "  {legend}")?;
        }
        Ok(())
    }

    /// The console's table of what the greedy policy learned, measured exactly.
    fn write_learned(&self, f: &mut fmt::Formatter<'_>, lw: usize, ow: usize) -> fmt::Result {
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
        Ok(())
    }

    /// The console's lines of match runs: the greedy policy's final win rate and mean rank
    /// against each reference, with the 95 % interval over the evaluation games (means over
    /// seeds).
    fn write_matches(&self, f: &mut fmt::Formatter<'_>, lw: usize, ow: usize) -> fmt::Result {
        writeln!(
            f,
            "  greedy policy at the last evaluation: win rate [95% interval] and mean rank against each reference"
        )?;
        for c in &self.conditions {
            let parts = c.match_results();
            writeln!(
                f,
                "  {:<lw$} {:<ow$} {}",
                c.learner,
                c.opponent,
                parts.join("; ")
            )?;
        }
        Ok(())
    }
}

fn reached_spread(runs: &[Outcome], k: usize) -> Option<Spread> {
    let v: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.reached[k].map(|e| e as f64))
        .collect();
    (!v.is_empty()).then(|| Spread::of(v))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn summarise<G: Game>(
    game: &G,
    graph: Option<&StateGraph<G>>,
    config: &ExperimentConfig,
    conditions: &[Condition],
    recorded: &[Vec<Metric>],
    final_names: &[Vec<String>],
    results: &[Outcome],
    solution: Option<crate::truth::SolveReport>,
    config_hash: &str,
) -> RunSummary {
    let per = config.seeds().len();
    let share = |n: usize| n as f64 / per as f64;
    let mut out = Vec::new();
    for (c, cond) in conditions.iter().enumerate() {
        let runs = &results[c * per..(c + 1) * per];
        let mut final_metrics = BTreeMap::new();
        for (i, name) in final_names[c].iter().enumerate() {
            final_metrics.insert(
                name.clone(),
                Spread::of(runs.iter().map(|r| r.final_values[i])),
            );
        }
        let perfect = recorded[c].iter().find(|m| m.role == Role::Perfect);
        let perfect_policy = perfect.map(|m| {
            if m.name.starts_with("greedy_") {
                "greedy"
            } else {
                "behaviour"
            }
        });
        // In self-play the learner holds every seat: a game one side loses, it loses too.
        let counts_losses = !matches!(cond.learner.seat, Seat::SelfPlay);
        out.push(ConditionSummary {
            learner: cond.learner.label.clone(),
            opponent: cond.opponent_name().to_string(),
            seat: cond.learner.seat.describe(),
            seeds: per,
            episodes: config.episodes(),
            losses: counts_losses.then(|| Spread::of(runs.iter().map(|r| r.losses as f64))),
            last_loss_episode: counts_losses
                .then(|| Spread::of(runs.iter().map(|r| r.last_loss as f64))),
            never_lost_share: counts_losses
                .then(|| share(runs.iter().filter(|r| r.losses == 0).count())),
            perfect_share: perfect.map(|_| share(runs.iter().filter(|r| r.perfect).count())),
            perfect_policy,
            final_metrics,
            ceiling: recorded[c]
                .iter()
                .filter(|m| m.source == Source::BestResponse)
                .filter_map(|m| Some((m.name.clone(), m.reference.as_ref()?.0)))
                .collect(),
            episodes_to_95: reached_spread(runs, 0),
            reached_95_share: share(runs.iter().filter(|r| r.reached[0].is_some()).count()),
            episodes_to_99: reached_spread(runs, 1),
            reached_99_share: share(runs.iter().filter(|r| r.reached[1].is_some()).count()),
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
        version: crate::io::version::VERSION,
        commit: crate::io::version::COMMIT,
        game: game.name().to_string(),
        params: game.params(),
        solution,
        notes,
        conditions: out,
        evaluation,
        written: Vec::new(),
    }
}
