//! Tuning a game's evaluation by tournaments (`solvedgym tune FILE`): every point of a grid of
//! evaluation settings (Hase und Igel's weights `ks`, `kc`, `kp`, or any key its
//! `Game::with_evaluation` reads) plays a baseline head to head, and the best few play again.
//!
//! The procedure, in two stages so that the winner's curse does not inflate the result:
//!
//! - **Screen.** Each candidate (the search settings, then the baseline's settings, then the grid
//!   point's, later keys overriding earlier ones) plays the baseline in a [`tournament`] of
//!   `screen.deals` deals, seats rotated. Every candidate meets the same deals (seed stream 1 of
//!   the config's seed), so the comparison between candidates is paired. A grid point that
//!   equals the baseline is not played: it would only meet itself.
//! - **Final.** The `final.finalists` best of the screen by win rate play again on
//!   `final.deals` fresh deals (seed stream 2). The best finalist by its final win rate is the
//!   tuned set; it beats the baseline only if its 95% interval lies above chance (1/players).
//!
//! Tournaments run one after another, each on rayon's threads with figures summed in deal
//! order, so every output but the timings is the same on any number of threads.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::io::table::{Table, Text, Values};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize, Serializer};

use crate::ai::players::PlayerSpec;
use crate::ai::search::SearchOptions;
use crate::core::game::Game;
use crate::core::random::derive_seed;
use crate::experiment::config::ConfigError;
use crate::games::{AnyGame, GameSpecError};
use crate::io::files::{FolderLock, write_atomic};
use crate::io::source::Source;
use crate::tools::tournament::{self, EntrantRow};

/// The seed stream of the screen's deals and of the final's (fresh deals).
const SCREEN_STREAM: u64 = 1;
const FINAL_STREAM: u64 = 2;

// ----- the file format -----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "one")]
    seed: u64,
    search: SearchToml,
    screen: ScreenToml,
    #[serde(rename = "final")]
    final_: FinalToml,
    // Read on their own below: the game by its name, the grid key by key.
    #[serde(rename = "game")]
    _game: IgnoredAny,
    #[serde(rename = "grid")]
    _grid: IgnoredAny,
}

fn one() -> u64 {
    1
}

/// `[search]`: how every entrant searches, and the baseline's evaluation settings.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchToml {
    settings: String,
    #[serde(default)]
    baseline: String,
}

/// `[screen]`: deals per candidate against the baseline.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScreenToml {
    deals: NonZeroU64,
}

/// `[final]`: how many of the screen's best play again, on how many fresh deals.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FinalToml {
    finalists: NonZeroUsize,
    deals: NonZeroU64,
}

/// One value of a grid key: a number (written in its shortest form, `1` for 1.0) or text
/// (`eval = ["a.toml", "b.toml"]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GridValue {
    Number(f64),
    Text(String),
}

impl fmt::Display for GridValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridValue::Number(x) => write!(f, "{x}"),
            GridValue::Text(s) => f.write_str(s),
        }
    }
}

/// A grid point: a value for every grid key, in the keys' order.
pub type Point = Vec<(String, GridValue)>;

/// A checked tuning config. Only [`parse`] makes one.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub name: String,
    pub description: String,
    pub seed: u64,
    /// The game's name and parameters as the file gives them.
    pub game_name: String,
    pub game_params: toml::Table,
    /// `[search] settings`: how every entrant searches.
    pub settings: String,
    /// `[search] baseline`: the baseline's evaluation settings.
    pub baseline: String,
    /// The grid: keys in the file's order, each with its values.
    pub grid: Vec<(String, Vec<GridValue>)>,
    pub screen_deals: u64,
    pub finalists: usize,
    pub final_deals: u64,
    /// The file's text, written beside the results.
    pub text: String,
}

impl TuneConfig {
    /// The baseline entrant: the search settings, then the baseline's.
    pub fn baseline_options(&self) -> SearchOptions {
        SearchOptions::parse(&join(&self.settings, &self.baseline))
            .expect("checked when the config was read")
    }

    /// Every grid point, the first key varying slowest (as nested loops in the file's order).
    pub fn points(&self) -> Vec<Point> {
        expand(&self.grid)
    }

    /// A candidate's search: the baseline's, with the point's evaluation settings in place of
    /// the baseline's values of those keys (new keys appended).
    pub fn candidate(&self, point: &[(String, GridValue)]) -> SearchOptions {
        with_point(self.baseline_options(), point)
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.trim().is_empty(), b.trim().is_empty()) {
        (_, true) => a.to_string(),
        (true, false) => b.to_string(),
        _ => format!("{a},{b}"),
    }
}

fn with_point(mut options: SearchOptions, point: &[(String, GridValue)]) -> SearchOptions {
    for (key, value) in point {
        let value = value.to_string();
        match options.eval.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => options.eval.push((key.clone(), value)),
        }
    }
    options
}

/// Every combination of the grid's values, the first key varying slowest.
pub fn expand(grid: &[(String, Vec<GridValue>)]) -> Vec<Point> {
    let mut points: Vec<Point> = vec![Vec::new()];
    for (key, values) in grid {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((key.clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    points
}

/// Whether two searches are the same player: equal settings, evaluation settings compared as
/// a set and as numbers where both are numbers (`ks=1` is `ks=1.0`).
pub fn same_player(a: &SearchOptions, b: &SearchOptions) -> bool {
    let eval = |o: &SearchOptions| -> BTreeMap<String, String> {
        o.eval
            .iter()
            .map(|(k, v)| {
                let v = v
                    .parse::<f64>()
                    .map_or_else(|_| v.clone(), |x| x.to_string());
                (k.clone(), v)
            })
            .collect()
    };
    let bare = |o: &SearchOptions| {
        SearchOptions {
            eval: Vec::new(),
            ..o.clone()
        }
        .spec()
    };
    bare(a) == bare(b) && eval(a) == eval(b)
}

fn is_folder_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Reads and checks a tuning file's text; returns the config and its game. Every error names
/// the file, the line and the key.
pub fn parse(file: &Path, text: &str) -> Result<(TuneConfig, AnyGame), ConfigError> {
    let src = Source::parse(file, text)?;
    let top: File = src.read("")?.expect("the file is a table");
    if !is_folder_name(&top.name) {
        return Err(src.error(
            "name",
            "the name names the output folder: letters, digits, '-', '_' or '.'",
        ));
    }

    // [game]: a name and the game's own parameters.
    if src
        .get("game")
        .and_then(|v| v.get_ref().as_table())
        .is_none()
    {
        return Err(src.error("game", "expected a table: [game] with name = \"...\""));
    }
    let game_name: String = src.read("game.name")?.ok_or_else(|| {
        src.error(
            "game.name",
            "missing: which game (e.g. name = \"hase-und-igel\")",
        )
    })?;
    let mut game_params: toml::Table = src.read("game")?.unwrap_or_default();
    game_params.remove("name");
    let game = AnyGame::from_spec(&game_name, game_params.clone()).map_err(|e| match &e {
        GameSpecError::UnknownGame { .. } => src.error("game.name", e.to_string()),
        GameSpecError::BadParams { key: Some(k), .. } => {
            src.error(&format!("game.{k}"), e.to_string())
        }
        GameSpecError::BadParams { key: None, .. } => src.error("game", e.to_string()),
    })?;

    // [search]: both parse, and the game takes the baseline's evaluation settings.
    let settings = top.search.settings;
    let baseline = top.search.baseline;
    SearchOptions::parse(&settings).map_err(|e| src.error("search.settings", e))?;
    let baseline_options = SearchOptions::parse(&join(&settings, &baseline))
        .map_err(|e| src.error("search.baseline", e))?;
    with_game!(&game, g => baseline_options.evaluator(g).map(|_| ()))
        .map_err(|e| src.error("search.baseline", e))?;

    // [grid]: keys in the file's order (dotted keys such as carrots.surplus = [...] nest).
    if src
        .get("grid")
        .and_then(|v| v.get_ref().as_table())
        .is_none()
    {
        return Err(src.error(
            "grid",
            "expected a table: [grid] with evaluation keys and their values, e.g. ks = [0.5, 1.0, 1.5]",
        ));
    }
    let table: toml::Table = src.read("grid")?.unwrap_or_default();
    let mut flat = Vec::new();
    flatten("", &table, &mut flat);
    let at = |key: &str| {
        src.get(&format!("grid.{key}"))
            .map_or(usize::MAX, |v| v.span().start)
    };
    flat.sort_by_key(|(key, _)| at(key));
    if flat.is_empty() {
        return Err(src.error(
            "grid",
            "the grid is empty: give at least one evaluation key, e.g. ks = [0.5, 1.0, 1.5]",
        ));
    }
    let mut grid = Vec::with_capacity(flat.len());
    for (key, value) in flat {
        let path = format!("grid.{key}");
        let values = match value {
            toml::Value::Array(a) if !a.is_empty() => a,
            toml::Value::Array(_) => {
                return Err(src.error(&path, "no values: give at least one"));
            }
            _ => return Err(src.error(&path, "expected a list of values, e.g. [0.5, 1.0, 1.5]")),
        };
        let mut out = Vec::with_capacity(values.len());
        for (i, v) in values.into_iter().enumerate() {
            let at = format!("{path}[{i}]");
            let v = match v {
                toml::Value::Integer(n) => GridValue::Number(n as f64),
                toml::Value::Float(x) if x.is_finite() => GridValue::Number(x),
                toml::Value::String(s) => GridValue::Text(s),
                _ => return Err(src.error(&at, "a grid value is a finite number or a string")),
            };
            let setting = format!("{key}={v}");
            let is_eval =
                SearchOptions::parse(&setting).is_ok_and(|o| o.eval.iter().any(|(k, _)| *k == key));
            if !is_eval {
                return Err(src.error(
                    &path,
                    format!(
                        "`{setting}` is not an evaluation setting (search settings such as depth belong in [search] settings)"
                    ),
                ));
            }
            let refuses = |v: GridValue| {
                let options = with_point(baseline_options.clone(), &[(key.clone(), v)]);
                with_game!(&game, g => options.evaluator(g).map(|_| ())).err()
            };
            if let Some(why) = refuses(v.clone()) {
                // The key itself when the game refuses it with a plain number too.
                let whole = refuses(GridValue::Number(1.0)).is_some();
                return Err(src.error(if whole { &path } else { &at }, why));
            }
            if out.contains(&v) {
                return Err(src.error(&at, format!("`{v}` is listed twice")));
            }
            out.push(v);
        }
        grid.push((key, out));
    }

    let config = TuneConfig {
        name: top.name,
        description: top.description,
        seed: top.seed,
        game_name,
        game_params,
        settings,
        baseline,
        grid,
        screen_deals: top.screen.deals.get(),
        finalists: top.final_.finalists.get(),
        final_deals: top.final_.deals.get(),
        text: text.to_string(),
    };
    let playable = config
        .points()
        .iter()
        .filter(|p| !same_player(&config.candidate(p), &baseline_options))
        .count();
    if playable == 0 {
        return Err(src.error(
            "grid",
            "every grid point is the baseline: give values that differ from it",
        ));
    }
    if config.finalists > playable {
        return Err(src.error(
            "final.finalists",
            format!(
                "{} finalists of {playable} candidates (the grid's points other than the baseline)",
                config.finalists
            ),
        ));
    }
    Ok((config, game))
}

/// The grid's leaves as dotted keys: `carrots.surplus = [...]` is `[grid.carrots]`'s `surplus`.
fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
    for (k, v) in table {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(t) => flatten(&key, t, out),
            v => out.push((key, v.clone())),
        }
    }
}

// ----- the results -----

/// One candidate's figures against the baseline in one stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Its number: its place in the grid's order, from 1.
    pub candidate: usize,
    /// Its evaluation settings in full (the baseline's with the point's values).
    pub settings: String,
    /// The grid point.
    #[serde(serialize_with = "point_as_map")]
    pub point: Point,
    /// Games it played (one per seat held).
    pub games: u64,
    /// Its share of the games won (1/2 for a two-player draw), with its Wilson 95% interval over
    /// the games.
    pub win_rate: f64,
    pub win_rate_low: f64,
    pub win_rate_high: f64,
}

fn point_as_map<S: Serializer>(point: &[(String, GridValue)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(point.iter().map(|(k, v)| (k, v)))
}

/// A stage: its deals, their seed, and its rows best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stage {
    pub deals: u64,
    pub seed: u64,
    pub rows: Vec<Row>,
}

/// Wall-clock figures: the only ones that depend on the machine and the threads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timings {
    pub threads: usize,
    pub screen_seconds: f64,
    pub final_seconds: f64,
    pub total_seconds: f64,
}

/// What a tuning run found (`summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneReport {
    pub name: String,
    pub description: String,
    /// The config as read (`config.toml` beside it is the file itself).
    pub config: serde_json::Value,
    pub game: String,
    pub params: serde_json::Value,
    pub players: usize,
    /// The baseline entrant in full.
    pub baseline: String,
    /// Its evaluation settings.
    pub baseline_settings: String,
    /// The grid's keys, in order.
    pub keys: Vec<String>,
    /// Grid points, and the one equal to the baseline (not played), if any.
    pub grid_points: usize,
    pub baseline_point: Option<usize>,
    pub screen: Stage,
    #[serde(rename = "final")]
    pub final_: Stage,
    /// The win rate of a player as strong as the baseline: 1/players.
    pub chance: f64,
    /// The best finalist by its final win rate: the tuned set.
    pub best: Row,
    /// Whether its final interval lies above chance.
    pub significant: bool,
    /// The finding in words.
    pub verdict: String,
    pub timings: Timings,
}

fn row(
    candidate: usize,
    point: &[(String, GridValue)],
    options: &SearchOptions,
    r: &EntrantRow,
) -> Row {
    Row {
        candidate,
        settings: eval_settings(options),
        point: point.to_vec(),
        games: r.games,
        win_rate: r.win_rate,
        win_rate_low: r.win_rate_low,
        win_rate_high: r.win_rate_high,
    }
}

/// A search's evaluation settings as one string (`ks=1.5,kc=1,kp=0.5`).
pub fn eval_settings(options: &SearchOptions) -> String {
    options
        .eval
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Best first by win rate; ties keep the grid's order.
fn rank(rows: &mut [Row]) {
    rows.sort_by(|a, b| b.win_rate.total_cmp(&a.win_rate));
}

/// Runs the screen and the final of `config` on `game`, with a progress bar if `progress`.
pub fn run<G: Game>(game: &G, config: &TuneConfig, progress: bool) -> Result<TuneReport> {
    let started = Instant::now();
    let baseline = config.baseline_options();
    let points = config.points();
    let mut baseline_point = None;
    let mut candidates = Vec::new();
    for (i, point) in points.iter().enumerate() {
        let options = config.candidate(point);
        if same_player(&options, &baseline) {
            baseline_point = Some(i + 1);
        } else {
            candidates.push((i + 1, point.clone(), options));
        }
    }
    let players = game.num_players();
    let per_deal = tournament::games_per_deal(2, players) as u64;
    let total = (candidates.len() as u64 * config.screen_deals
        + config.finalists as u64 * config.final_deals)
        * per_deal;
    let bar = if progress {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:40.cyan/blue}] {human_pos}/{human_len} games ({eta} left)",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let threads = rayon::current_num_threads();

    let play = |options: &SearchOptions, deals: u64, seed: u64| -> Result<EntrantRow> {
        let entrants = [
            PlayerSpec::Search(options.clone()),
            PlayerSpec::Search(baseline.clone()),
        ];
        let report = tournament::run(game, &entrants, deals, seed, &|n| bar.inc(n))
            .with_context(|| format!("candidate {}", eval_settings(options)))?;
        Ok(report.rows[0].clone())
    };

    let screen_seed = derive_seed(config.seed, SCREEN_STREAM);
    let mut screen = Vec::with_capacity(candidates.len());
    for (n, (i, point, options)) in candidates.iter().enumerate() {
        bar.set_message(format!(
            "screen {}/{} on {threads} threads",
            n + 1,
            candidates.len()
        ));
        let r = play(options, config.screen_deals, screen_seed)?;
        screen.push(row(*i, point, options, &r));
    }
    rank(&mut screen);
    let screen_seconds = started.elapsed().as_secs_f64();

    let final_started = Instant::now();
    let final_seed = derive_seed(config.seed, FINAL_STREAM);
    let mut finals = Vec::with_capacity(config.finalists);
    for (n, s) in screen.iter().take(config.finalists).enumerate() {
        bar.set_message(format!(
            "final {}/{} on {threads} threads",
            n + 1,
            config.finalists
        ));
        let options = with_point(baseline.clone(), &s.point);
        let r = play(&options, config.final_deals, final_seed)?;
        finals.push(row(s.candidate, &s.point, &options, &r));
    }
    rank(&mut finals);
    bar.finish_and_clear();

    let chance = 1.0 / players as f64;
    let best = finals[0].clone();
    let above: Vec<&Row> = finals.iter().filter(|r| r.win_rate_low > chance).collect();
    let significant = best.win_rate_low > chance;
    let verdict = if significant {
        format!(
            "candidate {} ({}) beats the baseline: win rate {:.3} [{:.3}, {:.3}] over {} games, its 95% interval above {chance:.3}",
            best.candidate,
            best.settings,
            best.win_rate,
            best.win_rate_low,
            best.win_rate_high,
            best.games
        )
    } else if above.is_empty() {
        format!(
            "no candidate beats the baseline significantly: the best finalist, candidate {} ({}), wins {:.3} [{:.3}, {:.3}] over {} games, an interval that reaches {chance:.3}",
            best.candidate,
            best.settings,
            best.win_rate,
            best.win_rate_low,
            best.win_rate_high,
            best.games
        )
    } else {
        let names: Vec<String> = above.iter().map(|r| r.candidate.to_string()).collect();
        format!(
            "the best finalist by win rate, candidate {} ({}), is not significantly above {chance:.3}; candidate(s) {} are",
            best.candidate,
            best.settings,
            names.join(", ")
        )
    };

    let config_json = toml::from_str::<toml::Table>(&config.text)
        .ok()
        .and_then(|t| serde_json::to_value(t).ok())
        .unwrap_or(serde_json::Value::Null);
    Ok(TuneReport {
        name: config.name.clone(),
        description: config.description.clone(),
        config: config_json,
        game: game.name().to_string(),
        params: game.params(),
        players,
        baseline: baseline.spec(),
        baseline_settings: eval_settings(&baseline),
        keys: config.grid.iter().map(|(k, _)| k.clone()).collect(),
        grid_points: points.len(),
        baseline_point,
        screen: Stage {
            deals: config.screen_deals,
            seed: screen_seed,
            rows: screen,
        },
        final_: Stage {
            deals: config.final_deals,
            seed: final_seed,
            rows: finals,
        },
        chance,
        best,
        significant,
        verdict,
        timings: Timings {
            threads,
            screen_seconds,
            final_seconds: final_started.elapsed().as_secs_f64(),
            total_seconds: started.elapsed().as_secs_f64(),
        },
    })
}

// ----- output -----

/// A stage's rows as a table: rank, candidate, settings, one column per grid key (numbers
/// where every value is a number), games, win rate and its interval.
pub fn stage_table(keys: &[String], rows: &[Row]) -> Result<Table> {
    let n = rows.len();
    let text = |values: &mut dyn Iterator<Item = String>| {
        let mut t = Text::default();
        for v in values {
            t.push(Some(&v));
        }
        Values::Text(t)
    };
    let mut columns = vec![
        ("rank".to_string(), Values::U64((1..=n as u64).collect())),
        (
            "candidate".to_string(),
            Values::U64(rows.iter().map(|r| r.candidate as u64).collect()),
        ),
        (
            "settings".to_string(),
            text(&mut rows.iter().map(|r| r.settings.clone())),
        ),
    ];
    for (j, key) in keys.iter().enumerate() {
        let values: Vec<&GridValue> = rows.iter().map(|r| &r.point[j].1).collect();
        let numbers: Option<Vec<f64>> = values
            .iter()
            .map(|v| match v {
                GridValue::Number(x) => Some(*x),
                GridValue::Text(_) => None,
            })
            .collect();
        columns.push((
            key.clone(),
            match numbers {
                Some(x) => Values::F64(x),
                None => text(&mut values.iter().map(|v| v.to_string())),
            },
        ));
    }
    columns.push((
        "games".to_string(),
        Values::U64(rows.iter().map(|r| r.games).collect()),
    ));
    for (name, f) in [
        ("win_rate", (|r: &Row| r.win_rate) as fn(&Row) -> f64),
        ("win_rate_low", |r| r.win_rate_low),
        ("win_rate_high", |r| r.win_rate_high),
    ] {
        columns.push((name.to_string(), Values::F64(rows.iter().map(f).collect())));
    }
    Table::new(columns).context("building a tuning table")
}

fn write_csv(path: &Path, keys: &[String], rows: &[Row]) -> Result<()> {
    let csv = stage_table(keys, rows)?
        .to_csv()
        .with_context(|| format!("encoding {}", path.display()))?;
    write_atomic(path, &csv)
}

/// Writes `screen.csv`, `final.csv`, `summary.json`, `best.txt` (the tuned evaluation
/// settings, one line) and `config.toml` (the file as read) into `dir`.
pub fn write(dir: &Path, config: &TuneConfig, report: &TuneReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_csv(&dir.join("screen.csv"), &report.keys, &report.screen.rows)?;
    write_csv(&dir.join("final.csv"), &report.keys, &report.final_.rows)?;
    let mut json = serde_json::to_string_pretty(report)?;
    json.push('\n');
    write_atomic(&dir.join("summary.json"), json.as_bytes())?;
    write_atomic(
        &dir.join("best.txt"),
        format!("{}\n", report.best.settings).as_bytes(),
    )?;
    write_atomic(&dir.join("config.toml"), config.text.as_bytes())
}

/// Reads the config at `path`, runs it and writes the results into `out` (default
/// `notebooks-data/<name>/`). Returns the report and the folder.
pub fn run_file(path: &Path, out: Option<&Path>, progress: bool) -> Result<(TuneReport, PathBuf)> {
    let text = crate::io::files::read_text(path, crate::io::files::CONFIG_LIMIT)
        .with_context(|| format!("reading the tuning config {}", path.display()))?;
    let (config, game) = parse(path, &text)?;
    let dir = out.map_or_else(
        || Path::new("notebooks-data").join(&config.name),
        Path::to_path_buf,
    );
    // One writer per folder, claimed before the work rather than found out at the end.
    let _claim = FolderLock::acquire(&dir)?;
    let report = with_game!(&game, g => run(g, &config, progress))?;
    write(&dir, &config, &report)?;
    Ok((report, dir))
}

impl TuneReport {
    /// A stage's rows as a markdown table (the first `limit`).
    pub fn markdown(&self, rows: &[Row], limit: usize) -> String {
        let mut t = String::from("| candidate |");
        for k in &self.keys {
            let _ = write!(t, " {k} |");
        }
        t.push_str(" win rate vs baseline [95 % CI] | games |\n|---:|");
        for _ in &self.keys {
            t.push_str("---:|");
        }
        t.push_str("---|---:|\n");
        for r in rows.iter().take(limit) {
            let _ = write!(t, "| {} |", r.candidate);
            for (_, v) in &r.point {
                let _ = write!(t, " {v} |");
            }
            let _ = writeln!(
                t,
                " {:.3} [{:.3}, {:.3}] | {} |",
                r.win_rate, r.win_rate_low, r.win_rate_high, r.games
            );
        }
        t
    }
}

impl fmt::Display for TuneReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let candidates = self.screen.rows.len();
        writeln!(
            f,
            "{}: {} ({} players), {candidates} candidates against the baseline `{}`",
            self.name, self.game, self.players, self.baseline
        )?;
        if let Some(p) = self.baseline_point {
            writeln!(
                f,
                "(grid point {p} is the baseline itself and is not played)"
            )?;
        }
        writeln!(
            f,
            "\nScreen: {} deals per candidate, the same for all; the best {} of {candidates}:\n",
            self.screen.deals,
            candidates.min(5)
        )?;
        write!(f, "{}", self.markdown(&self.screen.rows, 5))?;
        writeln!(
            f,
            "\nFinal: the best {} again on {} fresh deals:\n",
            self.final_.rows.len(),
            self.final_.deals
        )?;
        write!(f, "{}", self.markdown(&self.final_.rows, usize::MAX))?;
        writeln!(f, "\n{}.", self.verdict)?;
        writeln!(f, "best: {}", self.best.settings)?;
        write!(
            f,
            "{:.0} s ({:.0} s screen, {:.0} s final) on {} threads",
            self.timings.total_seconds,
            self.timings.screen_seconds,
            self.timings.final_seconds,
            self.timings.threads
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"
name = "tiny"
seed = 3

[game]
name = "hase-und-igel"
players = 2

[search]
settings = "depth=1"
baseline = "ks=1,kc=1,kp=1"

[grid]
ks = [0.5, 1]
kc = [1, 2.5]
kp = [1, 2, 3]

[screen]
deals = 2

[final]
finalists = 1
deals = 2
"#;

    fn parse_text(text: &str) -> Result<TuneConfig, ConfigError> {
        parse(Path::new("tune.toml"), text).map(|(c, _)| c)
    }

    #[test]
    fn the_grid_expands_first_key_slowest() {
        let c = parse_text(TINY).unwrap();
        let points = c.points();
        assert_eq!(points.len(), 2 * 2 * 3);
        let show = |p: &Point| {
            p.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(show(&points[0]), "ks=0.5,kc=1,kp=1");
        assert_eq!(show(&points[1]), "ks=0.5,kc=1,kp=2");
        assert_eq!(show(&points[3]), "ks=0.5,kc=2.5,kp=1");
        assert_eq!(show(&points[6]), "ks=1,kc=1,kp=1");
        assert_eq!(show(&points[11]), "ks=1,kc=2.5,kp=3");
        // The point equal to the baseline is recognised, spelled differently or not.
        let base = c.baseline_options();
        assert!(same_player(&c.candidate(&points[6]), &base));
        assert!(!same_player(&c.candidate(&points[7]), &base));
        assert_eq!(
            eval_settings(&c.candidate(&points[3])),
            "ks=0.5,kc=2.5,kp=1"
        );
    }

    #[test]
    fn grid_keys_keep_the_files_order_and_dotted_keys_nest() {
        let text = TINY.replace(
            "kp = [1, 2, 3]",
            "kp = [1, 2, 3]\ncarrots.surplus = [0.5, 0.8]",
        );
        let c = parse_text(&text).unwrap();
        let keys: Vec<&str> = c.grid.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ks", "kc", "kp", "carrots.surplus"]);
        assert_eq!(c.points().len(), 24);
    }

    #[test]
    fn config_errors_name_the_key_and_line() {
        let cases = [
            (
                "deals = 2\n\n[final]",
                "deals = 0\n\n[final]",
                "screen.deals",
                19,
            ),
            ("kp = [1, 2, 3]", "kp = [1, 2, 3]\nkq = [1]", "grid.kq", 17),
            ("kp = [1, 2, 3]", "kp = [1, \"x\"]", "grid.kp[1]", 16),
            ("kp = [1, 2, 3]", "kp = []", "grid.kp", 16),
            (
                "kp = [1, 2, 3]",
                "kp = [1, 2, 3]\ndepth = [2]",
                "grid.depth",
                17,
            ),
            (
                "settings = \"depth=1\"",
                "settings = \"depth=zero\"",
                "search.settings",
                10,
            ),
            (
                "baseline = \"ks=1,kc=1,kp=1\"",
                "baseline = \"ks=one\"",
                "search.baseline",
                11,
            ),
            (
                "players = 2",
                "players = 2\nboard = \"nope\"",
                "game.board",
                8,
            ),
            ("finalists = 1", "finalists = 12", "final.finalists", 22),
            ("[screen]", "[screen]\nrounds = 3", "screen.rounds", 19),
            ("seed = 3", "seed = 3\ntypo = 1", "typo", 4),
            ("ks = [0.5, 1]", "ks = [0.5, 1, 0.5]", "grid.ks[2]", 14),
        ];
        for (from, to, key, line) in cases {
            let text = TINY.replace(from, to);
            assert_ne!(text, TINY, "{from}");
            let err = parse_text(&text).expect_err(key);
            assert_eq!(err.key.as_deref(), Some(key), "{err}");
            assert_eq!(err.line, line, "{err}");
        }
    }

    #[test]
    fn a_grid_of_only_the_baseline_is_refused() {
        let text = TINY
            .replace("ks = [0.5, 1]", "ks = [1.0]")
            .replace("kc = [1, 2.5]", "kc = [1]")
            .replace("kp = [1, 2, 3]", "kp = [1]");
        let err = parse_text(&text).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("grid"), "{err}");
    }
}
