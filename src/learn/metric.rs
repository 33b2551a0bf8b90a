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
            reference: None,
            seat: None,
            interval: None,
            role: Role::Plain,
        }
    }
    /// A rate or probability: the y axis is fixed to 0..1.
    pub fn rate(
        name: impl Into<String>,
        title: impl Into<String>,
        unit: impl Into<String>,
    ) -> Self {
        Metric {
            range: Some((0.0, 1.02)),
            ..Metric::new(name, title, unit)
        }
    }
    pub fn reference(mut self, value: f64, label: impl Into<String>) -> Self {
        self.reference = Some((value, label.into()));
        self
    }
    pub fn seat(mut self, seat: Option<Player>) -> Self {
        self.seat = seat;
        self
    }
    pub fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }
}
