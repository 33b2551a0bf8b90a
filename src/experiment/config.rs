//! Experiment configs: TOML files read into typed, validated specs. Every error names the file,
//! the line and column, and the key, and shows the offending line; nothing in a config can make
//! the program panic.
//!
//! The file is parsed once into a tree that remembers where every key and value stands; each
//! section is deserialized from its subtree (so serde's own errors keep their positions) and
//! checked for meaning (a player name that does not exist, a probability above one) with the
//! position looked up in the same tree.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::game::Game;
use crate::games::{AnyGame, GameSpecError};
use crate::learn::menace::{MatchboxConfig, Reinforce};
use crate::learn::monte_carlo::{McConfig, StepSize, Visits};
use crate::learn::q_learning::{Algorithm, QConfig};
use crate::learn::schedule::Schedule;
use crate::learn::td::{TdConfig, Traces};

/// A config that cannot be run, with where the problem is.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The key at fault, dotted ("learner.seat"), when there is one.
    pub key: Option<String>,
    pub message: String,
    source_line: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file.display(), self.line, self.column)?;
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        writeln!(f, "{}", self.message)?;
        let gutter = self.line.to_string().len();
        writeln!(f, "{:gutter$} |", "")?;
        writeln!(f, "{} | {}", self.line, self.source_line)?;
        write!(
            f,
            "{:gutter$} | {:>col$}",
            "",
            "^",
            col = self.column.max(1)
        )
    }
}

impl std::error::Error for ConfigError {}

/// The source text of a config and where its keys stand.
pub struct Source<'a> {
    file: &'a Path,
    text: &'a str,
    root: Spanned<DeTable<'a>>,
}

/// One step of a path to a key: a table key or an array index.
#[derive(Clone, Copy, Debug)]
pub enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

impl<'a> Source<'a> {
    pub fn parse(file: &'a Path, text: &'a str) -> Result<Self, ConfigError> {
        let root = DeTable::parse(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            error_at(file, text, span, None, e.message().to_string())
        })?;
        Ok(Source { file, text, root })
    }

    /// An error at `span` (or at the start of the file).
    pub fn error(
        &self,
        span: Option<Range<usize>>,
        key: Option<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        error_at(
            self.file,
            self.text,
            span.unwrap_or(0..0),
            key,
            message.into(),
        )
    }

    /// An error about the key at `path` (pointing at the value, or at the enclosing table when
    /// the key is missing).
    pub fn error_at_key(&self, path: &[Step], message: impl Into<String>) -> ConfigError {
        let mut span = None;
        for k in (0..=path.len()).rev() {
            if let Some(s) = self.span_of(&path[..k]) {
                span = Some(s);
                break;
            }
        }
        self.error(span, Some(dotted(path)), message)
    }

    /// The span of the value at `path` (the whole file for the empty path).
    pub fn span_of(&self, path: &[Step]) -> Option<Range<usize>> {
        if path.is_empty() {
            Some(self.root.span())
        } else {
            self.value(path).map(|v| v.span())
        }
    }

    /// The table at `path` (the top level for the empty path).
    fn table_at(&self, path: &[Step]) -> Option<&DeTable<'a>> {
        if path.is_empty() {
            return Some(self.root.get_ref());
        }
        match self.value(path)?.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        }
    }

    fn value(&self, path: &[Step]) -> Option<&Spanned<DeValue<'a>>> {
        let mut value: Option<&Spanned<DeValue<'a>>> = None;
        for step in path {
            value = Some(match (step, value.map(|v| v.get_ref())) {
                (Step::Key(k), None) => self.root.get_ref().get(*k)?,
                (Step::Key(k), Some(DeValue::Table(t))) => t.get(*k)?,
                (Step::Index(n), Some(DeValue::Array(a))) => a.get(*n)?,
                _ => return None,
            });
        }
        value
    }

    /// Deserializes the whole file as `T`.
    pub fn root<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let de = toml::de::Deserializer::from(self.root.clone());
        T::deserialize(de).map_err(|e| self.serde_error(e, &[]))
    }

    /// Deserializes the value at `path` as `T` (`None` if the key is absent).
    pub fn section<T: DeserializeOwned>(&self, path: &[Step]) -> Result<Option<T>, ConfigError> {
        let Some(value) = self.value(path) else {
            return Ok(None);
        };
        let de = ValueDeserializer::from(value.clone());
        T::deserialize(de)
            .map(Some)
            .map_err(|e| self.serde_error(e, path))
    }

    /// Number of entries of the array at `path` (0 if absent or not an array).
    pub fn array_len(&self, path: &[Step]) -> usize {
        match self.value(path).map(|v| v.get_ref()) {
            Some(DeValue::Array(a)) => a.iter().count(),
            _ => 0,
        }
    }

    /// Whether the value at `path` is a table (as opposed to an array of tables).
    pub fn is_table(&self, path: &[Step]) -> bool {
        matches!(
            self.value(path).map(|v| v.get_ref()),
            Some(DeValue::Table(_))
        )
    }

    fn serde_error(&self, e: toml::de::Error, path: &[Step]) -> ConfigError {
        let message = e.message().trim().to_string();
        let mut key = (!path.is_empty()).then(|| dotted(path));
        let mut span = e.span().or_else(|| self.span_of(path));
        // Name the key whose value the error points into.
        if let Some(s) = &span
            && let Some(k) = self.key_containing(path, s)
        {
            let mut p = path.to_vec();
            p.push(Step::Key(k));
            key = Some(dotted(&p));
        }
        // serde names an unknown field but points at its table: point at the key itself.
        if let Some(field) = message
            .strip_prefix("unknown field `")
            .and_then(|m| m.split('`').next())
        {
            let mut p = path.to_vec();
            p.push(Step::Key(field));
            if let Some(s) = self.key_span(&p) {
                span = Some(s);
            }
            key = Some(dotted(&p));
        }
        self.error(span, key, message)
    }

    /// The key of the table at `path` whose value contains `span`.
    fn key_containing(&self, path: &[Step], span: &Range<usize>) -> Option<&str> {
        self.table_at(path)?
            .iter()
            .find(|(_, v)| {
                let vs = v.span();
                vs.start <= span.start && span.end <= vs.end
            })
            .map(|(k, _)| k.get_ref().as_ref())
    }

    /// The span of the key (not the value) at the end of `path`.
    fn key_span(&self, path: &[Step]) -> Option<Range<usize>> {
        let (last, parent) = path.split_last()?;
        let Step::Key(k) = last else { return None };
        self.table_at(parent)?
            .keys()
            .find(|key| key.get_ref() == k)
            .map(|key| key.span())
    }
}

fn dotted(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn error_at(
    file: &Path,
    text: &str,
    span: Range<usize>,
    key: Option<String>,
    message: String,
) -> ConfigError {
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..start].matches('\n').count() + 1;
    let column = text[line_start..start].chars().count() + 1;
    let source_line = text[line_start..].lines().next().unwrap_or("").to_string();
    ConfigError {
        file: file.to_path_buf(),
        line,
        column,
        key,
        message,
        source_line,
    }
}

// ----- the file format -----

/// The top level of an experiment file. Sections are read on their own (see [`parse`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopLevel {
    name: String,
    #[serde(default)]
    description: String,
    episodes: u64,
    #[serde(default)]
    eval_interval: Option<u64>,
    #[serde(default)]
    seeds: Option<Seeds>,
    #[serde(default)]
    base_seed: u64,
    #[serde(default)]
    #[allow(dead_code)]
    game: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    games: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    learner: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    learners: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    opponents: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    plots: Option<IgnoredAny>,
}

/// `seeds = 20` (seeds base_seed..base_seed+20) or `seeds = [3, 7, 11]`.
enum Seeds {
    Count(u64),
    List(Vec<u64>),
}

/// More seeds than this is a typo, not an experiment.
const MAX_SEEDS: u64 = 1_000_000;

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Seeds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of seeds (e.g. 20) or a list of seeds (e.g. [3, 7, 11])")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Seeds, E> {
                u64::try_from(v).map(Seeds::Count).map_err(|_| {
                    E::custom(format!("{v} seeds: the number of seeds cannot be negative"))
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Seeds, E> {
                Ok(Seeds::Count(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Seeds, A::Error> {
                let mut list = Vec::new();
                while let Some(s) = seq.next_element::<u64>()? {
                    list.push(s);
                }
                Ok(Seeds::List(list))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatchbox {
    #[allow(dead_code)]
    kind: String,
    label: Option<String>,
    seat: Option<String>,
    scheme: Option<String>,
    symmetry: Option<bool>,
    initial_beads: Option<Vec<u32>>,
    win_beads: Option<i32>,
    draw_beads: Option<i32>,
    loss_beads: Option<i32>,
    reinforce: Option<Reinforce>,
    min_beads: Option<u32>,
}

/// `kind = "monte-carlo"`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMonteCarlo {
    #[allow(dead_code)]
    kind: String,
    label: Option<String>,
    seat: Option<String>,
    visits: Option<Visits>,
    alpha: Option<StepSize>,
    epsilon: Option<Schedule>,
    gamma: Option<f64>,
    initial: Option<f64>,
}

/// `kind = "td"`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTd {
    #[allow(dead_code)]
    kind: String,
    label: Option<String>,
    seat: Option<String>,
    lambda: Option<f64>,
    traces: Option<Traces>,
    alpha: Option<Schedule>,
    epsilon: Option<Schedule>,
    gamma: Option<f64>,
    initial: Option<f64>,
}

/// `kind = "q-learning"`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQ {
    #[allow(dead_code)]
    kind: String,
    label: Option<String>,
    seat: Option<String>,
    algorithm: Option<Algorithm>,
    double: Option<bool>,
    alpha: Option<Schedule>,
    epsilon: Option<Schedule>,
    gamma: Option<f64>,
    initial: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOpponent {
    name: Option<String>,
    policy: String,
    p: Option<f64>,
    base: Option<String>,
    refresh: Option<u64>,
    play: Option<FrozenPlay>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPlots {
    metrics: Option<Vec<String>>,
    band: Option<String>,
}

/// The learner kinds a config may name.
pub const LEARNER_KINDS: &[&str] = &["matchbox", "monte-carlo", "td", "q-learning"];

/// Where the learner sits: one seat (a player name) against the opponents, every seat at once
/// (self-play), or the seats in turn against the opponents (episode `k` at seat `k mod n`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum SeatSpec {
    Player(String),
    SelfPlay,
    Alternate,
}

impl SeatSpec {
    /// How a config names it.
    pub fn describe(&self) -> String {
        match self {
            SeatSpec::Player(p) => p.clone(),
            SeatSpec::SelfPlay => "self-play".into(),
            SeatSpec::Alternate => "alternate".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum LearnerKind {
    Matchbox(MatchboxConfig),
    MonteCarlo(McConfig),
    Td(TdConfig),
    QLearning(QConfig),
}

impl LearnerKind {
    /// The `kind` a config names it by.
    pub fn kind(&self) -> &'static str {
        match self {
            LearnerKind::Matchbox(_) => "matchbox",
            LearnerKind::MonteCarlo(_) => "monte-carlo",
            LearnerKind::Td(_) => "td",
            LearnerKind::QLearning(_) => "q-learning",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LearnerSpec {
    pub label: String,
    pub seat: SeatSpec,
    pub kind: LearnerKind,
}

/// A training opponent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum OpponentPolicy {
    Random,
    Optimal,
    Fuzzy {
        p: f64,
        base: Box<OpponentPolicy>,
    },
    /// A copy of the learner itself, frozen, replaced by a fresh copy every `refresh` episodes.
    Frozen {
        refresh: u64,
        play: FrozenPlay,
    },
}

/// Which of the learner's policies its frozen copy plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrozenPlay {
    /// How the learner played when copied, exploration included.
    Behaviour,
    /// Its greedy policy when copied.
    Greedy,
}

impl FrozenPlay {
    pub fn describe(self) -> &'static str {
        match self {
            FrozenPlay::Behaviour => "behaviour",
            FrozenPlay::Greedy => "greedy",
        }
    }
}

/// Episodes between two copies of a frozen opponent when the config does not say.
pub const DEFAULT_REFRESH: u64 = 10_000;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpponentSpec {
    pub name: String,
    pub policy: OpponentPolicy,
}

/// How curves are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BandSpec {
    Bootstrap95,
    MinMax,
}

/// A validated experiment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExperimentConfig {
    pub name: String,
    pub description: String,
    pub episodes: u64,
    /// Evaluate every this many episodes (the final episode is always evaluated).
    pub eval_interval: u64,
    pub seeds: Vec<u64>,
    pub game_name: String,
    pub game_params: toml::Table,
    pub learners: Vec<LearnerSpec>,
    /// Empty: self-play.
    pub opponents: Vec<OpponentSpec>,
    pub plot_metrics: Vec<String>,
    pub band: BandSpec,
}

/// The metrics plotted when a config does not say.
pub const DEFAULT_PLOTS: &[&str] = &[
    "cumulative_losses",
    "optimal_rate_faced",
    "return_vs_optimal",
];

/// Reads and validates an experiment file's text; returns each config and its game.
///
/// A study (`[[games]]`) gives one config per game, named `<name>/<label>`; a plain
/// experiment (`[game]`) gives one.
pub fn parse(file: &Path, text: &str) -> Result<Vec<(ExperimentConfig, AnyGame)>, ConfigError> {
    let src = Source::parse(file, text)?;
    let top: TopLevel = src.root()?;
    if !top.name.split('/').all(is_folder_name) {
        return Err(src.error_at_key(
            &[Step::Key("name")],
            "the run name names a folder: use letters, digits, '-', '_' or '.', not starting with '.' (a '/' nests folders)",
        ));
    }
    if top.episodes == 0 {
        return Err(src.error_at_key(&[Step::Key("episodes")], "must be at least 1"));
    }
    if top.eval_interval == Some(0) {
        return Err(src.error_at_key(&[Step::Key("eval_interval")], "must be at least 1"));
    }
    let seeds = match top.seeds {
        None => vec![top.base_seed],
        Some(Seeds::Count(0)) => {
            return Err(src.error_at_key(&[Step::Key("seeds")], "at least one seed"));
        }
        Some(Seeds::Count(n)) if n > MAX_SEEDS => {
            return Err(src.error_at_key(
                &[Step::Key("seeds")],
                format!("{n} seeds: at most {MAX_SEEDS}"),
            ));
        }
        Some(Seeds::Count(n)) => {
            if top.base_seed.checked_add(n).is_none() {
                return Err(
                    src.error_at_key(&[Step::Key("base_seed")], "base_seed + seeds exceeds 2^64")
                );
            }
            (0..n).map(|i| top.base_seed + i).collect()
        }
        Some(Seeds::List(list)) => {
            if list.is_empty() || list.len() as u64 > MAX_SEEDS {
                return Err(src.error_at_key(
                    &[Step::Key("seeds")],
                    format!("give 1 to {MAX_SEEDS} seeds"),
                ));
            }
            list
        }
    };

    let entries = game_entries(&src)?;

    // [learner] or [[learners]].
    let mut learner_paths: Vec<Vec<Step>> = Vec::new();
    match (
        src.value(&[Step::Key("learner")]).is_some(),
        src.value(&[Step::Key("learners")]).is_some(),
    ) {
        (true, true) => {
            return Err(src.error_at_key(
                &[Step::Key("learners")],
                "give either [learner] or [[learners]], not both",
            ));
        }
        (true, false) => learner_paths.push(vec![Step::Key("learner")]),
        (false, true) => {
            for i in 0..src.array_len(&[Step::Key("learners")]) {
                learner_paths.push(vec![Step::Key("learners"), Step::Index(i)]);
            }
        }
        (false, false) => {
            return Err(src.error(
                None,
                Some("learner".into()),
                "missing: a [learner] table (or [[learners]])",
            ));
        }
    }
    if learner_paths.is_empty() {
        return Err(src.error_at_key(&[Step::Key("learners")], "at least one learner"));
    }
    let mut learners = Vec::new();
    for path in &learner_paths {
        learners.push(learner(&src, path)?);
    }
    let mut labels: Vec<&str> = learners.iter().map(|l| l.label.as_str()).collect();
    labels.sort();
    if labels.windows(2).any(|w| w[0] == w[1]) {
        return Err(src.error_at_key(
            &[Step::Key("learners")],
            "two learners share a label: give each a distinct `label`",
        ));
    }

    // [[opponents]]
    let mut opponents = Vec::new();
    for i in 0..src.array_len(&[Step::Key("opponents")]) {
        let path = [Step::Key("opponents"), Step::Index(i)];
        let raw: RawOpponent = src.section(&path)?.expect("indexed entry exists");
        let policy = opponent_policy(&src, &path, &raw)?;
        let name = raw.name.unwrap_or_else(|| describe_policy(&policy));
        if opponents.iter().any(|o: &OpponentSpec| o.name == name) {
            return Err(src.error_at_key(
                &path,
                format!("two opponents are called `{name}`: give each a distinct `name`"),
            ));
        }
        opponents.push(OpponentSpec { name, policy });
    }
    if src.value(&[Step::Key("opponents")]).is_some() && opponents.is_empty() {
        return Err(src.error_at_key(
            &[Step::Key("opponents")],
            "expected [[opponents]] tables (leave the key out for self-play)",
        ));
    }
    let plots: RawPlots = src.section(&[Step::Key("plots")])?.unwrap_or_default();
    let band = match plots.band.as_deref() {
        None | Some("bootstrap95") => BandSpec::Bootstrap95,
        Some("min-max") => BandSpec::MinMax,
        Some(other) => {
            return Err(src.error_at_key(
                &[Step::Key("plots"), Step::Key("band")],
                format!("unknown band `{other}`; use \"bootstrap95\" (95% bootstrap CI of the mean) or \"min-max\""),
            ));
        }
    };
    let plot_metrics = plots
        .metrics
        .unwrap_or_else(|| DEFAULT_PLOTS.iter().map(|s| s.to_string()).collect());

    let study = entries.len() > 1 || entries[0].label.is_some();
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let game = &entry.game;
        for (l, path) in learners.iter().zip(&learner_paths) {
            let mut seat_path = path.clone();
            seat_path.push(Step::Key("seat"));
            match (&l.seat, opponents.is_empty()) {
                (SeatSpec::SelfPlay, false) => {
                    return Err(src.error_at_key(
                        &seat_path,
                        "seat = \"self-play\" takes no [[opponents]]: remove them, name a seat or use seat = \"alternate\"",
                    ));
                }
                (SeatSpec::Player(_) | SeatSpec::Alternate, true) => {
                    return Err(src.error_at_key(&seat_path, "a learner at one seat (or alternating seats) needs [[opponents]] for the other seats (or seat = \"self-play\")"));
                }
                (SeatSpec::Player(name), false) => {
                    let players: Vec<&str> = with_game!(&game, g => (0..g.num_players()).map(|p| g.player_name(p)).collect());
                    if !players.iter().any(|p| p.eq_ignore_ascii_case(name)) {
                        return Err(src.error_at_key(
                            &seat_path,
                            format!(
                                "{} has no player `{name}`; the players are: {}",
                                game.name(),
                                players.join(", ")
                            ),
                        ));
                    }
                }
                _ => {}
            }
            if l.seat != SeatSpec::Alternate {
                let frozen = (0..opponents.len())
                    .find(|&i| matches!(opponents[i].policy, OpponentPolicy::Frozen { .. }));
                if let Some(i) = frozen {
                    return Err(src.error_at_key(
                        &[Step::Key("opponents"), Step::Index(i), Step::Key("policy")],
                        format!(
                            "a frozen copy plays the seats its learner does not; learner `{}` must learn them too: give it seat = \"alternate\"",
                            l.label
                        ),
                    ));
                }
            }
        }
        let episodes = entry.episodes.unwrap_or(top.episodes);
        let eval_interval = entry
            .eval_interval
            .or(top.eval_interval)
            .unwrap_or_else(|| (episodes / 50).max(1));
        let name = match &entry.label {
            Some(label) if study => format!("{}/{label}", top.name),
            _ => top.name.clone(),
        };
        let config = ExperimentConfig {
            name,
            description: top.description.clone(),
            episodes,
            eval_interval,
            seeds: seeds.clone(),
            game_name: entry.name,
            game_params: entry.params,
            learners: learners.clone(),
            opponents: opponents.clone(),
            plot_metrics: plot_metrics.clone(),
            band,
        };
        out.push((config, entry.game));
    }
    Ok(out)
}

/// A folder name: letters, digits, '-', '_' or '.', not starting with '.'.
fn is_folder_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// One game of an experiment: `[game]`, or one entry of a study's `[[games]]`.
struct GameEntry {
    name: String,
    params: toml::Table,
    game: AnyGame,
    /// Study entries only: the game's folder under the study, and its own run length.
    label: Option<String>,
    episodes: Option<u64>,
    eval_interval: Option<u64>,
}

/// `[game]` (one experiment) or `[[games]]` (a study: the same learners on several games, each
/// run on its own into `<name>/<label>/`), each with a name and the game's own parameters.
fn game_entries(src: &Source) -> Result<Vec<GameEntry>, ConfigError> {
    let one = src.value(&[Step::Key("game")]).is_some();
    let many = src.value(&[Step::Key("games")]).is_some();
    let paths: Vec<Vec<Step>> = match (one, many) {
        (true, true) => {
            return Err(src.error_at_key(
                &[Step::Key("games")],
                "give either [game] or [[games]], not both",
            ));
        }
        (true, false) => vec![vec![Step::Key("game")]],
        (false, true) => (0..src.array_len(&[Step::Key("games")]))
            .map(|i| vec![Step::Key("games"), Step::Index(i)])
            .collect(),
        (false, false) => {
            return Err(src.error_at_key(
                &[Step::Key("game")],
                "missing: a [game] table with name = \"...\" (or [[games]] for a study)",
            ));
        }
    };
    if paths.is_empty() {
        return Err(src.error_at_key(
            &[Step::Key("games")],
            "expected [[games]] tables, each with name = \"...\"",
        ));
    }
    let mut entries: Vec<GameEntry> = Vec::new();
    for path in paths {
        fn child<'k>(path: &[Step<'k>], key: &'k str) -> Vec<Step<'k>> {
            [path, &[Step::Key(key)]].concat()
        }
        let at = |key: &'static str| child(&path, key);
        if !src.is_table(&path) {
            return Err(src.error_at_key(&path, "expected a table: [game] with name = \"...\""));
        }
        let mut params: toml::Table = src.section(&path)?.unwrap_or_default();
        let name = match params.remove("name") {
            Some(toml::Value::String(s)) => s,
            Some(_) => return Err(src.error_at_key(&at("name"), "expected a string")),
            None => {
                return Err(src.error_at_key(
                    &at("name"),
                    "missing: which game (e.g. name = \"hexapawn\")",
                ));
            }
        };
        // A study entry's own keys, beside the game's parameters.
        let (mut label, mut episodes, mut eval_interval) = (None, None, None);
        if matches!(path[0], Step::Key("games")) {
            label = Some(match params.remove("label") {
                None => name.clone(),
                Some(toml::Value::String(l)) if is_folder_name(&l) => l,
                Some(_) => {
                    return Err(src.error_at_key(
                        &at("label"),
                        "the label names the game's folder: a string of letters, digits, '-', '_' or '.'",
                    ));
                }
            });
            for (key, slot) in [
                ("episodes", &mut episodes),
                ("eval_interval", &mut eval_interval),
            ] {
                match params.remove(key) {
                    None => {}
                    Some(toml::Value::Integer(n)) if n >= 1 => *slot = Some(n as u64),
                    Some(_) => {
                        return Err(
                            src.error_at_key(&at(key), "must be a whole number, at least 1")
                        );
                    }
                }
            }
            if let Some(other) = entries.iter().find(|e| e.label == label) {
                return Err(src.error_at_key(
                    &at("label"),
                    format!(
                        "two games are labelled `{}` ({} twice?): give each a distinct `label`",
                        other.label.as_deref().unwrap_or_default(),
                        other.name
                    ),
                ));
            }
        }
        let game = AnyGame::from_spec(&name, params.clone()).map_err(|e| match &e {
            GameSpecError::UnknownGame { .. } => src.error_at_key(&at("name"), e.to_string()),
            GameSpecError::BadParams { key: Some(k), .. } => {
                src.error_at_key(&child(&path, k), e.to_string())
            }
            GameSpecError::BadParams { key: None, .. } => src.error_at_key(&path, e.to_string()),
        })?;
        entries.push(GameEntry {
            name,
            params,
            game,
            label,
            episodes,
            eval_interval,
        });
    }
    Ok(entries)
}

fn learner(src: &Source, path: &[Step]) -> Result<LearnerSpec, ConfigError> {
    let kind_path = [path, &[Step::Key("kind")]].concat();
    let kind = match src.value(&kind_path).map(|v| v.get_ref()) {
        Some(DeValue::String(s)) => s.to_string(),
        Some(_) => return Err(src.error_at_key(&kind_path, "expected a string")),
        None => {
            return Err(src.error_at_key(
                &kind_path,
                format!(
                    "missing: which learner (kind = one of {})",
                    LEARNER_KINDS.join(", ")
                ),
            ));
        }
    };
    match kind.as_str() {
        "matchbox" => {
            let raw: RawMatchbox = src.section(path)?.expect("learner table exists");
            let scheme = raw.scheme.as_deref().unwrap_or("her");
            let mut cfg = match scheme {
                "her" => MatchboxConfig::her(),
                "menace" => MatchboxConfig::menace(),
                other => {
                    return Err(src.error_at_key(
                        &[path, &[Step::Key("scheme")]].concat(),
                        format!(
                            "unknown scheme `{other}`; use \"her\" (Gardner) or \"menace\" (Michie)"
                        ),
                    ));
                }
            };
            if let Some(v) = raw.symmetry {
                cfg.symmetry = v;
            }
            if let Some(v) = raw.initial_beads {
                if v.is_empty() || v.contains(&0) {
                    return Err(src.error_at_key(
                        &[path, &[Step::Key("initial_beads")]].concat(),
                        "give at least one count, each at least 1",
                    ));
                }
                cfg.initial_beads = v;
            }
            if let Some(v) = raw.win_beads {
                cfg.win_beads = v;
            }
            if let Some(v) = raw.draw_beads {
                cfg.draw_beads = v;
            }
            if let Some(v) = raw.loss_beads {
                cfg.loss_beads = v;
            }
            if let Some(v) = raw.reinforce {
                cfg.reinforce = v;
            }
            if let Some(v) = raw.min_beads {
                cfg.min_beads = v;
            }
            let seat = seat_of(raw.seat);
            let label = raw.label.unwrap_or_else(|| scheme.to_string());
            Ok(LearnerSpec {
                label,
                seat,
                kind: LearnerKind::Matchbox(cfg),
            })
        }
        "monte-carlo" => {
            let raw: RawMonteCarlo = src.section(path)?.expect("learner table exists");
            let mut cfg = McConfig::default();
            let at = |key: &'static str| [path, &[Step::Key(key)]].concat();
            if let Some(v) = raw.visits {
                cfg.visits = v;
            }
            if let Some(a) = raw.alpha {
                if let StepSize::Schedule(schedule) = &a {
                    check_schedule(src, &at("alpha"), schedule, STEP_SIZE)?;
                }
                cfg.alpha = a;
            }
            common(
                src,
                path,
                raw.epsilon,
                raw.gamma,
                raw.initial,
                &mut cfg.epsilon,
                &mut cfg.gamma,
                &mut cfg.initial,
            )?;
            let label = raw.label.unwrap_or_else(|| match cfg.visits {
                Visits::First => "MC".into(),
                Visits::Every => "MC (every visit)".into(),
            });
            Ok(LearnerSpec {
                label,
                seat: seat_of(raw.seat),
                kind: LearnerKind::MonteCarlo(cfg),
            })
        }
        "td" => {
            let raw: RawTd = src.section(path)?.expect("learner table exists");
            let at = |key: &'static str| [path, &[Step::Key(key)]].concat();
            let lambda = raw.lambda.unwrap_or(0.0);
            if !(0.0..=1.0).contains(&lambda) {
                return Err(src.error_at_key(
                    &at("lambda"),
                    format!("{lambda} is not a trace decay (0 to 1)"),
                ));
            }
            let mut cfg = TdConfig::new(lambda);
            if let Some(t) = raw.traces {
                cfg.traces = t;
            }
            if let Some(a) = raw.alpha {
                check_schedule(src, &at("alpha"), &a, STEP_SIZE)?;
                cfg.alpha = a;
            }
            common(
                src,
                path,
                raw.epsilon,
                raw.gamma,
                raw.initial,
                &mut cfg.epsilon,
                &mut cfg.gamma,
                &mut cfg.initial,
            )?;
            let label = raw.label.unwrap_or_else(|| format!("TD({lambda})"));
            Ok(LearnerSpec {
                label,
                seat: seat_of(raw.seat),
                kind: LearnerKind::Td(cfg),
            })
        }
        "q-learning" => {
            let raw: RawQ = src.section(path)?.expect("learner table exists");
            let at = |key: &'static str| [path, &[Step::Key(key)]].concat();
            let mut cfg = QConfig::new(raw.algorithm.unwrap_or(Algorithm::QLearning));
            if let Some(d) = raw.double {
                cfg.double = d;
            }
            if let Some(a) = raw.alpha {
                check_schedule(src, &at("alpha"), &a, STEP_SIZE)?;
                cfg.alpha = a;
            }
            common(
                src,
                path,
                raw.epsilon,
                raw.gamma,
                raw.initial,
                &mut cfg.epsilon,
                &mut cfg.gamma,
                &mut cfg.initial,
            )?;
            let label = raw.label.unwrap_or_else(|| {
                let name = cfg.algorithm.label();
                if cfg.double {
                    format!("Double {name}")
                } else {
                    name.to_string()
                }
            });
            Ok(LearnerSpec {
                label,
                seat: seat_of(raw.seat),
                kind: LearnerKind::QLearning(cfg),
            })
        }
        other => Err(src.error_at_key(
            &kind_path,
            format!(
                "unknown learner `{other}`; the learners are: {}",
                LEARNER_KINDS.join(", ")
            ),
        )),
    }
}

/// Step sizes: above 0, at most 1.
const STEP_SIZE: std::ops::RangeInclusive<f64> = f64::MIN_POSITIVE..=1.0;

fn check_schedule(
    src: &Source,
    path: &[Step],
    schedule: &Schedule,
    range: std::ops::RangeInclusive<f64>,
) -> Result<(), ConfigError> {
    schedule.check(range).map_err(|m| src.error_at_key(path, m))
}

fn seat_of(seat: Option<String>) -> SeatSpec {
    match seat.as_deref() {
        None | Some("self-play") => SeatSpec::SelfPlay,
        Some("alternate") => SeatSpec::Alternate,
        Some(name) => SeatSpec::Player(name.to_string()),
    }
}

/// The keys every value learner has: exploration, discount, initial value.
#[allow(clippy::too_many_arguments)]
fn common(
    src: &Source,
    path: &[Step],
    epsilon: Option<Schedule>,
    gamma: Option<f64>,
    initial: Option<f64>,
    epsilon_out: &mut Schedule,
    gamma_out: &mut f64,
    initial_out: &mut f64,
) -> Result<(), ConfigError> {
    let at = |key: &'static str| [path, &[Step::Key(key)]].concat();
    if let Some(e) = epsilon {
        check_schedule(src, &at("epsilon"), &e, 0.0..=1.0)?;
        *epsilon_out = e;
    }
    if let Some(g) = gamma {
        if !(g > 0.0 && g <= 1.0) {
            return Err(src.error_at_key(
                &at("gamma"),
                format!("{g} is not a discount (above 0, at most 1)"),
            ));
        }
        *gamma_out = g;
    }
    if let Some(v) = initial {
        if !v.is_finite() {
            return Err(src.error_at_key(&at("initial"), "must be a finite number"));
        }
        *initial_out = v;
    }
    Ok(())
}

fn opponent_policy(
    src: &Source,
    path: &[Step],
    raw: &RawOpponent,
) -> Result<OpponentPolicy, ConfigError> {
    let at = |key: &'static str| [path, &[Step::Key(key)]].concat();
    let policy = raw.policy.as_str();
    // Each key belongs to one policy.
    let owners: [(&'static str, bool, &str); 4] = [
        ("p", raw.p.is_some(), "fuzzy"),
        ("base", raw.base.is_some(), "fuzzy"),
        ("refresh", raw.refresh.is_some(), "frozen"),
        ("play", raw.play.is_some(), "frozen"),
    ];
    for (key, given, owner) in owners {
        if given && policy != owner {
            return Err(src.error_at_key(
                &at(key),
                format!("`{key}` belongs to policy = \"{owner}\", not \"{policy}\""),
            ));
        }
    }
    match policy {
        "random" => Ok(OpponentPolicy::Random),
        "optimal" => Ok(OpponentPolicy::Optimal),
        "fuzzy" => {
            let p = raw.p.ok_or_else(|| {
                src.error_at_key(&at("p"), "missing: the probability of a random move")
            })?;
            if !(0.0..=1.0).contains(&p) {
                return Err(
                    src.error_at_key(&at("p"), format!("{p} is not a probability (0 to 1)"))
                );
            }
            let base = match raw.base.as_deref().unwrap_or("optimal") {
                "optimal" => OpponentPolicy::Optimal,
                "random" => OpponentPolicy::Random,
                other => {
                    return Err(src.error_at_key(
                        &at("base"),
                        format!("unknown base `{other}`; use \"optimal\" or \"random\""),
                    ));
                }
            };
            Ok(OpponentPolicy::Fuzzy {
                p,
                base: Box::new(base),
            })
        }
        "frozen" => {
            let refresh = raw.refresh.unwrap_or(DEFAULT_REFRESH);
            if refresh == 0 {
                return Err(src.error_at_key(
                    &at("refresh"),
                    "must be at least 1 (episodes between two copies of the learner)",
                ));
            }
            Ok(OpponentPolicy::Frozen {
                refresh,
                play: raw.play.unwrap_or(FrozenPlay::Behaviour),
            })
        }
        other => Err(src.error_at_key(
            &at("policy"),
            format!(
                "unknown policy `{other}`; use \"random\", \"optimal\", \"fuzzy\" (with p) or \"frozen\" (a copy of the learner, with refresh)"
            ),
        )),
    }
}

fn describe_policy(p: &OpponentPolicy) -> String {
    match p {
        OpponentPolicy::Random => "random".into(),
        OpponentPolicy::Optimal => "optimal".into(),
        OpponentPolicy::Fuzzy { p, base } => format!("fuzzy {p} {}", describe_policy(base)),
        OpponentPolicy::Frozen { refresh, play } => match play {
            FrozenPlay::Behaviour => format!("frozen every {refresh}"),
            FrozenPlay::Greedy => format!("frozen greedy every {refresh}"),
        },
    }
}

impl ExperimentConfig {
    /// The config with every default filled in, as TOML (written beside the results).
    pub fn resolved_toml(&self) -> String {
        use toml::Value;
        let mut root = toml::Table::new();
        root.insert("name".into(), self.name.clone().into());
        root.insert("description".into(), self.description.clone().into());
        root.insert("episodes".into(), Value::Integer(self.episodes as i64));
        root.insert(
            "eval_interval".into(),
            Value::Integer(self.eval_interval as i64),
        );
        let contiguous = self.seeds.windows(2).all(|w| w[1] == w[0] + 1);
        if contiguous {
            root.insert("seeds".into(), Value::Integer(self.seeds.len() as i64));
            root.insert("base_seed".into(), Value::Integer(self.seeds[0] as i64));
        } else {
            root.insert(
                "seeds".into(),
                Value::Array(
                    self.seeds
                        .iter()
                        .map(|&s| Value::Integer(s as i64))
                        .collect(),
                ),
            );
        }
        let mut game = toml::Table::new();
        game.insert("name".into(), self.game_name.clone().into());
        game.extend(self.game_params.clone());
        root.insert("game".into(), Value::Table(game));
        let learners = self
            .learners
            .iter()
            .map(|l| {
                let mut t = toml::Table::new();
                t.insert("kind".into(), l.kind.kind().into());
                t.insert("label".into(), l.label.clone().into());
                let c = match &l.kind {
                    LearnerKind::Matchbox(cfg) => Value::try_from(cfg),
                    LearnerKind::MonteCarlo(cfg) => Value::try_from(cfg),
                    LearnerKind::Td(cfg) => Value::try_from(cfg),
                    LearnerKind::QLearning(cfg) => Value::try_from(cfg),
                };
                if let Ok(Value::Table(c)) = c {
                    t.extend(c);
                }
                t.insert("seat".into(), l.seat.describe().into());
                Value::Table(t)
            })
            .collect();
        root.insert("learners".into(), Value::Array(learners));
        if !self.opponents.is_empty() {
            let opponents = self
                .opponents
                .iter()
                .map(|o| {
                    let mut t = toml::Table::new();
                    t.insert("name".into(), o.name.clone().into());
                    match &o.policy {
                        OpponentPolicy::Random => {
                            t.insert("policy".into(), "random".into());
                        }
                        OpponentPolicy::Optimal => {
                            t.insert("policy".into(), "optimal".into());
                        }
                        OpponentPolicy::Fuzzy { p, base } => {
                            t.insert("policy".into(), "fuzzy".into());
                            t.insert("p".into(), Value::Float(*p));
                            t.insert("base".into(), describe_policy(base).into());
                        }
                        OpponentPolicy::Frozen { refresh, play } => {
                            t.insert("policy".into(), "frozen".into());
                            t.insert("refresh".into(), Value::Integer(*refresh as i64));
                            t.insert("play".into(), play.describe().into());
                        }
                    }
                    Value::Table(t)
                })
                .collect();
            root.insert("opponents".into(), Value::Array(opponents));
        }
        let mut plots = toml::Table::new();
        plots.insert(
            "metrics".into(),
            Value::Array(self.plot_metrics.iter().map(|m| m.clone().into()).collect()),
        );
        plots.insert(
            "band".into(),
            match self.band {
                BandSpec::Bootstrap95 => "bootstrap95",
                BandSpec::MinMax => "min-max",
            }
            .into(),
        );
        root.insert("plots".into(), Value::Table(plots));
        toml::to_string(&root).expect("a table of plain values serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<ExperimentConfig, ConfigError> {
        parse(Path::new("test.toml"), text).map(|mut v| {
            assert_eq!(v.len(), 1, "one game");
            v.remove(0).0
        })
    }

    const GOOD: &str = r#"
name = "t"
episodes = 10
seeds = 3

[game]
name = "hexapawn"

[learner]
kind = "matchbox"
scheme = "her"
seat = "black"

[[opponents]]
policy = "random"
"#;

    #[test]
    fn a_good_config_resolves_its_defaults() {
        let c = parse_str(GOOD).unwrap();
        assert_eq!(c.seeds, [0, 1, 2]);
        assert_eq!(c.eval_interval, 1);
        assert_eq!(c.learners[0].label, "her");
        assert_eq!(c.opponents[0].name, "random");
        // The resolved file parses back to the same config.
        let again = parse_str(&c.resolved_toml()).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn monte_carlo_takes_sample_averages_only_when_asked() {
        let step_size = |c: &ExperimentConfig| match &c.learners[2].kind {
            LearnerKind::MonteCarlo(mc) => mc.alpha,
            other => panic!("not Monte-Carlo: {other:?}"),
        };
        // Left out: the default constant step size.
        let c = parse_str(VALUE_LEARNERS).unwrap();
        assert_eq!(step_size(&c), McConfig::default().alpha);
        let averages = VALUE_LEARNERS.replace(
            "visits = \"every\"",
            "visits = \"every\"\nalpha = \"average\"",
        );
        let c = parse_str(&averages).unwrap();
        assert_eq!(step_size(&c), StepSize::Average);
        // The resolved config says so, and reads back the same.
        let resolved = c.resolved_toml();
        assert!(resolved.contains("alpha = \"average\""), "{resolved}");
        assert_eq!(parse_str(&resolved).unwrap(), c);
        let bad = averages.replace("\"average\"", "\"mean\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (16, Some("learners[2].alpha")),
            "{e}"
        );
        assert!(e.message.contains("\"average\""), "{e}");
        let bad = averages.replace("\"average\"", "1.5");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("learners[2].alpha"), "{e}");
    }

    #[test]
    fn a_misspelt_key_names_the_key_and_its_line() {
        let bad = GOOD.replace("episodes = 10", "episdoes = 10");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("episdoes"), "{e}");
        let bad = GOOD.replace("scheme = \"her\"", "schema = \"her\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (11, Some("learner.schema")),
            "{e}"
        );
        assert!(e.to_string().contains("test.toml:11:1"), "{e}");
    }

    #[test]
    fn wrong_types_and_values_point_at_the_value() {
        let bad = GOOD.replace("episodes = 10", "episodes = \"ten\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let bad = GOOD.replace("scheme = \"her\"", "scheme = \"hers\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (11, Some("learner.scheme")),
            "{e}"
        );
        assert!(e.message.contains("menace"), "{e}");
        let bad = GOOD.replace("policy = \"random\"", "policy = \"fuzzy\"\np = 1.5");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (16, Some("opponents[0].p")),
            "{e}"
        );
        let bad = GOOD.replace("kind = \"matchbox\"", "kind = \"sarsa-lambda\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.column), (10, 8), "{e}");
    }

    #[test]
    fn game_errors_point_into_the_game_table() {
        let bad = GOOD.replace("name = \"hexapawn\"", "name = \"hexapawn\"\nsize = 8");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (8, Some("game.size")), "{e}");
        let bad = GOOD.replace("name = \"hexapawn\"", "name = \"hexapawn\"\nrows = 1");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (8, Some("game.rows")), "{e}");
        let bad = GOOD.replace("name = \"hexapawn\"", "name = \"chess\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (7, Some("game.name")), "{e}");
        let bad = GOOD.replace("seat = \"black\"", "seat = \"red\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.line, 12, "{e}");
        assert!(e.message.contains("white, black"), "{e}");
    }

    #[test]
    fn values_out_of_range_are_named() {
        let bad = GOOD.replace("seeds = 3", "seeds = -1");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (4, Some("seeds")), "{e}");
        assert!(e.message.contains("negative"), "{e}");
        let bad = GOOD.replace("seeds = 3", "seeds = 4000000000000000");
        let e = parse_str(&bad).unwrap_err();
        assert!(e.message.contains("at most"), "{e}");
        let bad = GOOD.replace("seeds = 3", "seeds = \"many\"");
        let e = parse_str(&bad).unwrap_err();
        assert!(e.message.contains("number of seeds"), "{e}");
        let bad = GOOD.replace(
            "seat = \"black\"",
            "seat = \"black\"\nreinforce = \"sometimes\"",
        );
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (13, Some("learner.reinforce")),
            "{e}"
        );
        let bad = GOOD.replace("name = \"t\"", "name = \"..\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("name"), "{e}");
    }

    const VALUE_LEARNERS: &str = r#"name = "v"
episodes = 10
[game]
name = "tictactoe"
[[learners]]
kind = "q-learning"
algorithm = "sarsa"
double = true
[[learners]]
kind = "td"
lambda = 0.5
epsilon = { kind = "linear", start = 1.0, end = 0.1, episodes = 100 }
[[learners]]
kind = "monte-carlo"
visits = "every"
"#;

    #[test]
    fn value_learners_resolve_and_round_trip() {
        let c = parse_str(VALUE_LEARNERS).unwrap();
        let labels: Vec<&str> = c.learners.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["Double SARSA", "TD(0.5)", "MC (every visit)"]);
        let again = parse_str(&c.resolved_toml()).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn value_learner_mistakes_name_the_key_and_line() {
        let bad = VALUE_LEARNERS.replace("lambda = 0.5", "lambda = 1.5");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (11, Some("learners[1].lambda")),
            "{e}"
        );
        let bad = VALUE_LEARNERS.replace("end = 0.1", "end = 1.1");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (12, Some("learners[1].epsilon")),
            "{e}"
        );
        let bad = VALUE_LEARNERS.replace("algorithm = \"sarsa\"", "algorithm = \"sarsa-max\"");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (7, Some("learners[0].algorithm")),
            "{e}"
        );
        let bad = VALUE_LEARNERS.replace("double = true", "dubble = true");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (8, Some("learners[0].dubble")),
            "{e}"
        );
        let bad = VALUE_LEARNERS.replace("visits = \"every\"", "visits = \"every\"\ngamma = 0");
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("learners[2].gamma"), "{e}");
    }

    #[test]
    fn alternating_seats_and_frozen_copies_resolve_and_their_mistakes_are_named() {
        let alternate = GOOD.replace("seat = \"black\"", "seat = \"alternate\"");
        let frozen = alternate.replace(
            "policy = \"random\"",
            "policy = \"frozen\"\nrefresh = 500\nplay = \"greedy\"",
        );
        let c = parse_str(&frozen).unwrap();
        assert_eq!(c.learners[0].seat, SeatSpec::Alternate);
        assert_eq!(
            c.opponents[0].policy,
            OpponentPolicy::Frozen {
                refresh: 500,
                play: FrozenPlay::Greedy
            }
        );
        assert_eq!(c.opponents[0].name, "frozen greedy every 500");
        assert_eq!(parse_str(&c.resolved_toml()).unwrap(), c);
        let c =
            parse_str(&alternate.replace("policy = \"random\"", "policy = \"frozen\"")).unwrap();
        assert_eq!(
            c.opponents[0].policy,
            OpponentPolicy::Frozen {
                refresh: DEFAULT_REFRESH,
                play: FrozenPlay::Behaviour
            }
        );

        // A frozen copy at a seat its learner never learns would stay a beginner.
        let e = parse_str(&frozen.replace("seat = \"alternate\"", "seat = \"black\"")).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (15, Some("opponents[0].policy")),
            "{e}"
        );
        assert!(e.message.contains("alternate"), "{e}");
        let e = parse_str(&frozen.replace("refresh = 500", "refresh = 0")).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (16, Some("opponents[0].refresh")),
            "{e}"
        );
        let e = parse_str(&frozen.replace("\"greedy\"", "\"greedily\"")).unwrap_err();
        assert_eq!(e.line, 17, "{e}");
        assert!(e.message.contains("behaviour"), "{e}");
        let e = parse_str(
            &alternate.replace("policy = \"random\"", "policy = \"random\"\nrefresh = 10"),
        )
        .unwrap_err();
        assert_eq!(
            (e.key.as_deref(), e.message.contains("\"frozen\"")),
            (Some("opponents[0].refresh"), true),
            "{e}"
        );
        // Alternating seats need opponents; self-play takes none.
        let alone = alternate.replace("[[opponents]]\npolicy = \"random\"\n", "");
        let e = parse_str(&alone).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("learner.seat"), "{e}");
    }

    const STUDY: &str = r#"
name = "study"
episodes = 1000
eval_interval = 100
seeds = 2

[[games]]
name = "tictactoe"

[[games]]
name = "hexapawn"
label = "octapawn"
rows = 4
cols = 4
episodes = 5000

[[learners]]
kind = "q-learning"
"#;

    #[test]
    fn a_study_gives_one_experiment_per_game() {
        let runs = parse(Path::new("study.toml"), STUDY).unwrap();
        let names: Vec<&str> = runs.iter().map(|(c, _)| c.name.as_str()).collect();
        assert_eq!(names, ["study/tictactoe", "study/octapawn"]);
        assert_eq!(runs[0].0.episodes, 1000);
        assert_eq!((runs[1].0.episodes, runs[1].0.eval_interval), (5000, 100));
        assert_eq!(
            runs[1].0.game_params.get("rows"),
            Some(&toml::Value::Integer(4))
        );
        assert_eq!(runs[1].1.name(), "hexapawn");
        // Each game's resolved config reruns that game alone, into the same folder.
        for (c, _) in &runs {
            assert_eq!(&parse_str(&c.resolved_toml()).unwrap(), c);
        }

        let both = STUDY.replace("seeds = 2\n", "seeds = 2\n[game]\nname = \"tictactoe\"\n");
        let e = parse(Path::new("s.toml"), &both).err().unwrap();
        assert_eq!(e.key.as_deref(), Some("games"), "{e}");
        let twice = STUDY.replace("label = \"octapawn\"", "label = \"tictactoe\"");
        let e = parse(Path::new("s.toml"), &twice).err().unwrap();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (12, Some("games[1].label")),
            "{e}"
        );
        let bad = STUDY.replace("rows = 4", "rows = 1");
        let e = parse(Path::new("s.toml"), &bad).err().unwrap();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (13, Some("games[1].rows")),
            "{e}"
        );
        let bad = STUDY.replace("episodes = 5000", "episodes = 0");
        let e = parse(Path::new("s.toml"), &bad).err().unwrap();
        assert_eq!(
            (e.line, e.key.as_deref()),
            (15, Some("games[1].episodes")),
            "{e}"
        );
        let bad = STUDY.replace("label = \"octapawn\"", "label = \"octa/pawn\"");
        let e = parse(Path::new("s.toml"), &bad).err().unwrap();
        assert_eq!(e.key.as_deref(), Some("games[1].label"), "{e}");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = parse_str("name = \"t\"\nepisodes = = 3\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn missing_sections_are_named() {
        let e = parse_str("name = \"t\"\nepisodes = 3\n").unwrap_err();
        assert!(e.message.contains("game"), "{e}");
        let e =
            parse_str("name = \"t\"\nepisodes = 3\n[game]\nname = \"tictactoe\"\n").unwrap_err();
        assert!(e.message.contains("learner"), "{e}");
    }
}
