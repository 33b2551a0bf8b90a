//! Typed metrics: what a recorded number is. The evaluator that records a metric says what it
//! means (title, unit, range), where perfect play puts it (the oracle's reference line) and
//! which seat it measures; plots, thresholds, summaries and tables read this, never the name.

use crate::core::game::Player;

/// What the runner and the summaries do with a metric beyond plotting it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    #[default]
    Plain,
    /// The greedy policy's optimal-move rate along lines of optimal play: the study's
    /// "episodes to 95% / 99%" thresholds read it.
    Threshold,
    /// The greedy policy's optimal-move rate over every position.
    GreedyRateAll,
    /// The greedy policy's exact result against perfect play (one per seat held).
    GreedyResult,
    /// 1 when no opponent can do better against the learner than against perfect play.
    Perfect,
    /// A learner's statistic shown in the console table (its column title).
    Column(&'static str),
}

/// A recorded metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// Its name in the curve rows' `metric` column.
    pub name: String,
    /// What it measures, as a plot's title says it.
    pub title: String,
    /// Its unit, as the y axis says it.
    pub unit: String,
    /// The y range it cannot leave (rates and probabilities: 0 to 1).
    pub range: Option<(f64, f64)>,
    /// The y range its plot shows where the data is flat (returns: -1 to 1).
    pub bounds: Option<(f64, f64)>,
    /// Where its reference line comes from ([`METRICS`]); `reference` holds the figure.
    pub source: Source,
    /// Where perfect play puts it, with the legend of that line.
    pub reference: Option<(f64, String)>,
    /// The seat it measures, when the learner holds several.
    pub seat: Option<Player>,
    /// The metrics holding the lower and upper ends of its 95% confidence interval.
    pub interval: Option<(String, String)>,
    pub role: Role,
}

impl Metric {
    /// A metric with a title and a unit, nothing more.
    pub fn new(name: impl Into<String>, title: impl Into<String>, unit: impl Into<String>) -> Self {
        Metric {
            name: name.into(),
            title: title.into(),
            unit: unit.into(),
            range: None,
            bounds: None,
            source: Source::None,
            reference: None,
            seat: None,
            interval: None,
            role: Role::Plain,
        }
    }
    /// The metric `name` as its row of [`METRICS`] says it: title (the opponent in words),
    /// unit, range and the source of its reference line. A name not in the table is a bug.
    pub fn of(name: impl Into<String>) -> Self {
        let name = name.into();
        let Some((entry, reference)) = lookup(&name) else {
            panic!("metric {name:?} has no row in learn::metric::METRICS");
        };
        let mut title = match reference {
            Some(r) => entry.title.replace("<ref>", &against(r)),
            None => entry.title.to_string(),
        };
        for end in ["low", "high"] {
            if name.ends_with(&format!("_{end}")) && !entry.name.ends_with(end) {
                title = format!("{title}: {end} end of the 95% interval");
            }
        }
        let mut m = Metric::new(name, title, entry.unit);
        m.source = entry.reference;
        match entry.kind {
            Kind::Rate => m.range = Some((0.0, 1.02)),
            Kind::Return => m.bounds = Some((-1.0, 1.0)),
            Kind::Rank | Kind::Count => {}
        }
        m
    }
    /// The reference line at `value`, labelled as its [`Source`] says (none where the metric
    /// has no source, or the value is not finite).
    pub fn reference_at(mut self, value: f64) -> Self {
        if self.source != Source::None && value.is_finite() {
            let words = lookup(&self.name)
                .and_then(|(_, r)| r)
                .map(against)
                .unwrap_or_default();
            self.reference = Some((value, self.source.label(value, &words)));
        }
        self
    }
    pub fn reference(mut self, value: f64, label: impl Into<String>) -> Self {
        self.reference = Some((value, label.into()));
        self
    }
    pub fn seat(mut self, seat: Option<Player>) -> Self {
        self.seat = seat;
        self
    }
    /// The same metric with its reference line taken from `source`.
    pub fn source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }
    pub fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }
}

/// What kind of number a metric is, which fixes its y axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A rate or probability: the y axis is 0 to 1.
    Rate,
    /// A return (+1 win, -1 loss): fitted to the data, and -1 to 1 where the data is flat.
    Return,
    /// A rank from 1 (first) to the number of players.
    Rank,
    /// A count or any other figure: fitted to the data.
    Count,
}

/// Where a metric's dashed reference line comes from: what the exact solver says perfect play
/// scores on it. The evaluator that records the metric computes the figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// No reference line.
    None,
    /// Every move keeps the value: a rate of 1.
    AllOptimal,
    /// The game value at the seat: perfect play's return against perfect play.
    GameValue,
    /// What perfect play itself scores on this metric against the same opponent (the solver's
    /// optimal policy in the learner's seat, by the same dynamic program).
    PerfectPlay,
    /// The ceiling: what the best response to the same opponent scores (the policy of greatest
    /// expected return against it, by backward induction over the graph): the most a learner
    /// trained against that opponent can reach.
    BestResponse,
    /// The solver's values themselves: an error of 0.
    ExactValues,
    /// Perfect play never loses where the game value says so: 0 losses.
    NeverLoses,
    /// The matchboxes the seat needs: every position it can face, counted on the state graph.
    BoxesNeeded,
}

impl Source {
    /// The legend of the reference line at `value`; `against`: the opponent in words.
    pub fn label(self, value: f64, against: &str) -> String {
        let v = number(value);
        match self {
            Source::None => String::new(),
            Source::AllOptimal => "perfect play: every move keeps the value (solver)".to_string(),
            Source::GameValue => {
                format!("game value, perfect play against perfect play: {v} (solver)")
            }
            Source::PerfectPlay => format!("perfect play against {against}: {v} (solver)"),
            Source::BestResponse => {
                format!("ceiling, the best response to {against}: {v} (solver)")
            }
            Source::ExactValues => "the solver's values: error 0".to_string(),
            Source::NeverLoses => "perfect play never loses (solver)".to_string(),
            Source::BoxesNeeded => {
                format!("boxes the seat needs: {v} (every position it can face)")
            }
        }
    }
}

/// A figure as a legend says it: at most three decimals, no trailing zeros.
fn number(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// One row of [`METRICS`]: a metric's name (`<ref>` stands for the opponent it is measured
/// against), what its plot's title says, its y axis and where its reference line comes from.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: &'static str,
    /// The plot's title; `<ref>` becomes the opponent in words ([`against`]).
    pub title: &'static str,
    /// The y axis's label.
    pub unit: &'static str,
    pub kind: Kind,
    pub reference: Source,
}

const fn entry(
    name: &'static str,
    title: &'static str,
    unit: &'static str,
    kind: Kind,
    reference: Source,
) -> Entry {
    Entry {
        name,
        title,
        unit,
        kind,
        reference,
    }
}

const RATE_UNIT: &str = "probability of a value-keeping move";
const RETURN_UNIT: &str = "expected return (+1 win, -1 loss)";

/// Every metric a run records (docs/evaluation.md defines them), the one place their titles,
/// axes and reference lines are written. A name may end in `_as_<seat>` (one per seat held) and
/// a match figure in `_low` or `_high` (the ends of its interval): both are looked up by the
/// name before them.
pub const METRICS: &[Entry] = &[
    // The runner's own figures.
    entry(
        "result",
        "Mean result of the training games since the previous evaluation",
        "mean return (+1 win, -1 loss)",
        Kind::Return,
        Source::None,
    ),
    entry(
        "losses",
        "Training games lost since the previous evaluation",
        "losses (games)",
        Kind::Count,
        Source::None,
    ),
    entry(
        "cumulative_losses",
        "Training games lost so far",
        "cumulative losses (games)",
        Kind::Count,
        Source::NeverLoses,
    ),
    // The exact evaluator.
    entry(
        "optimal_rate_all",
        "Optimal-move rate of its play (exploration included) over every position",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "optimal_rate_faced",
        "Optimal-move rate of its play (exploration included) over the positions it can face",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "optimal_rate_optimal_play",
        "Optimal-move rate of its play (exploration included) along lines of perfect play",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "greedy_optimal_rate_all",
        "Optimal-move rate of the greedy policy over every position",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "greedy_optimal_rate_faced",
        "Optimal-move rate of the greedy policy over the positions it can face",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "greedy_optimal_rate_optimal_play",
        "Optimal-move rate of the greedy policy along lines of perfect play",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "blunders",
        "Blunders: won positions it may throw away",
        "positions",
        Kind::Count,
        Source::None,
    ),
    entry(
        "mistakes",
        "Mistakes: drawn positions it may lose",
        "positions",
        Kind::Count,
        Source::None,
    ),
    entry(
        "states_faced",
        "Positions it can face",
        "positions",
        Kind::Count,
        Source::None,
    ),
    entry(
        "return_vs_optimal",
        "Expected return of its play against perfect play",
        RETURN_UNIT,
        Kind::Return,
        Source::GameValue,
    ),
    entry(
        "return_vs_<ref>",
        "Expected return of its play against <ref>",
        RETURN_UNIT,
        Kind::Return,
        Source::PerfectPlay,
    ),
    entry(
        "win_prob_vs_<ref>",
        "Win probability of its play against <ref>",
        "probability of a win",
        Kind::Rate,
        Source::PerfectPlay,
    ),
    entry(
        "loss_prob_vs_<ref>",
        "Loss probability of its play against <ref>",
        "probability of a loss",
        Kind::Rate,
        Source::PerfectPlay,
    ),
    entry(
        "worst_case_return",
        "Expected return of its play against its strongest opponent (a best response)",
        RETURN_UNIT,
        Kind::Return,
        Source::GameValue,
    ),
    entry(
        "perfect",
        "Perfect: no opponent does better against it than against perfect play",
        "1 = perfect, 0 = not",
        Kind::Rate,
        Source::None,
    ),
    entry(
        "value_error",
        "Value error: mean absolute difference from the solver's values",
        "mean |learned value - true value|",
        Kind::Count,
        Source::ExactValues,
    ),
    entry(
        "value_error_discounted",
        "Value error: mean absolute difference from the solver's discounted values",
        "mean |learned value - discounted true value|",
        Kind::Count,
        Source::ExactValues,
    ),
    // Both evaluators: exact against perfect play, played matches against any reference.
    entry(
        "greedy_return_vs_optimal",
        "Return of the greedy policy against perfect play",
        RETURN_UNIT,
        Kind::Return,
        Source::GameValue,
    ),
    // The best-response evaluator (`[evaluation] best_response`).
    entry(
        "greedy_optimal_rate_decisive",
        "Optimal-move rate of the greedy policy over the positions it wins or draws",
        RATE_UNIT,
        Kind::Rate,
        Source::AllOptimal,
    ),
    entry(
        "greedy_exact_return_vs_optimal",
        "Exact return of the greedy policy against perfect play",
        RETURN_UNIT,
        Kind::Return,
        Source::GameValue,
    ),
    entry(
        "greedy_worst_case_return",
        "Exact return of the greedy policy against its strongest opponent (a best response)",
        RETURN_UNIT,
        Kind::Return,
        Source::GameValue,
    ),
    entry(
        "greedy_states_faced",
        "Positions the greedy policy can face",
        "positions",
        Kind::Count,
        Source::None,
    ),
    entry(
        "greedy_blunders",
        "Blunders of the greedy policy: won positions it may throw away",
        "positions",
        Kind::Count,
        Source::None,
    ),
    entry(
        "greedy_perfect",
        "Perfect: no opponent does better against the greedy policy than against perfect play",
        "1 = perfect, 0 = not",
        Kind::Rate,
        Source::None,
    ),
    // The match evaluator.
    entry(
        "greedy_return_vs_<ref>",
        "Mean return of the greedy policy against <ref>",
        "mean return (+1 win, -1 loss)",
        Kind::Return,
        Source::None,
    ),
    entry(
        "greedy_win_rate_vs_<ref>",
        "Win rate of the greedy policy against <ref>",
        "share of games won",
        Kind::Rate,
        Source::None,
    ),
    entry(
        "greedy_mean_rank_vs_<ref>",
        "Mean rank of the greedy policy against <ref>",
        "rank (1 = first)",
        Kind::Rank,
        Source::None,
    ),
    // The learners' own figures.
    entry(
        "boxes",
        "Matchboxes opened",
        "boxes",
        Kind::Count,
        Source::BoxesNeeded,
    ),
    entry(
        "empty_boxes",
        "Empty matchboxes (the machine resigns there)",
        "boxes",
        Kind::Count,
        Source::None,
    ),
    entry(
        "beads",
        "Beads in all boxes",
        "beads",
        Kind::Count,
        Source::None,
    ),
    entry(
        "states_visited",
        "States in its table",
        "states",
        Kind::Count,
        Source::None,
    ),
    entry(
        "afterstates_visited",
        "Afterstates in its table",
        "afterstates",
        Kind::Count,
        Source::None,
    ),
    entry(
        "weights",
        "Parameters of its value function",
        "weights",
        Kind::Count,
        Source::None,
    ),
    entry("epsilon", "Exploration rate", "ε", Kind::Rate, Source::None),
    entry("alpha", "Step size", "α", Kind::Count, Source::None),
];

/// The opponents a metric is measured against, in words: `optimal` is perfect play, `random`
/// random play, `opponent` the training opponent, `ai` the search AI; any other name is said as
/// "<name> play".
pub fn against(reference: &str) -> String {
    match reference {
        "optimal" => "perfect play".to_string(),
        "random" => "random play".to_string(),
        "opponent" => "its training opponent".to_string(),
        "ai" => "the search AI".to_string(),
        other => format!("{other} play"),
    }
}

/// A metric's row of [`METRICS`], and the reference it is measured against (`optimal`,
/// `random`, ...) where its row names one. A seat suffix `_as_<seat>` and an interval's end
/// `_low` / `_high` are looked through.
pub fn lookup(name: &str) -> Option<(&'static Entry, Option<&str>)> {
    let base = name.rsplit_once("_as_").map_or(name, |(b, _)| b);
    // An interval's end first: `greedy_win_rate_vs_random_low` is not a reference `random_low`.
    let inner = base
        .strip_suffix("_low")
        .or_else(|| base.strip_suffix("_high"));
    inner.and_then(row).or_else(|| row(base))
}

/// The row of a name without seat or interval suffix.
fn row(base: &str) -> Option<(&'static Entry, Option<&str>)> {
    if let Some(e) = METRICS.iter().find(|e| e.name == base) {
        return Some((e, None));
    }
    METRICS.iter().find_map(|e| {
        let prefix = e.name.strip_suffix("<ref>")?;
        let reference = base.strip_prefix(prefix)?;
        (!reference.is_empty()).then_some((e, Some(reference)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every metric name docs/evaluation.md defines (`<ref>` as `random`).
    fn documented() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/evaluation.md");
        let text = std::fs::read_to_string(path).unwrap();
        let start = text.find("## Every metric").expect("the metrics section");
        let end = text[start..].find("## Plots").expect("its end") + start;
        let mut names = Vec::new();
        for line in text[start..end].lines().filter(|l| l.starts_with("| `")) {
            let first = line.split('|').nth(1).unwrap();
            for name in first.split('`').skip(1).step_by(2) {
                if !name.starts_with('+') {
                    names.push(name.replace("<ref>", "random"));
                }
            }
        }
        names
    }

    #[test]
    fn every_documented_metric_has_a_row_and_every_row_is_documented() {
        let names = documented();
        assert!(names.len() > 30, "{names:?}");
        let mut used = Vec::new();
        for name in &names {
            let (entry, _) = lookup(name).unwrap_or_else(|| panic!("{name} has no row"));
            used.push(entry.name);
            let m = Metric::of(name.as_str());
            assert!(!m.title.is_empty() && !m.unit.is_empty(), "{name}");
            assert!(!m.title.contains("<ref>"), "{name}: {}", m.title);
        }
        for e in METRICS {
            assert!(used.contains(&e.name), "row {} is not in the docs", e.name);
        }
    }

    #[test]
    fn titles_say_what_and_against_whom() {
        let m = Metric::of("win_prob_vs_optimal_as_left");
        assert_eq!(m.title, "Win probability of its play against perfect play");
        assert_eq!(
            (m.range, m.source),
            (Some((0.0, 1.02)), Source::PerfectPlay)
        );
        let m = Metric::of("greedy_win_rate_vs_random_low");
        assert_eq!(
            m.title,
            "Win rate of the greedy policy against random play: low end of the 95% interval"
        );
        let m = Metric::of("greedy_return_vs_optimal_as_right").reference_at(-1.0);
        assert_eq!(m.bounds, Some((-1.0, 1.0)));
        assert_eq!(
            m.reference.unwrap().1,
            "game value, perfect play against perfect play: -1 (solver)"
        );
        let m = Metric::of("return_vs_random").reference_at(0.73333);
        assert_eq!(
            m.reference.unwrap().1,
            "perfect play against random play: 0.733 (solver)"
        );
        // A metric without a source draws no line.
        assert_eq!(Metric::of("beads").reference_at(3.0).reference, None);
        assert!(lookup("no_such_metric").is_none());
    }
}
