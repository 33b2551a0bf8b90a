//! Experiment configs: TOML files read into typed, checked specs. Every error names the file,
//! the line and column, and the key, and shows the offending line; nothing in a config can make
//! the program panic.
//!
//! The file is parsed once into a tree that remembers where every key and value stands. The top
//! level, the plots and the opponents are plain serde structs; a learner is read by its `kind`
//! from its own table, and a game by its `name` (each registered type refuses unknown keys and
//! checks its values as it reads them). `serde_path_to_error` names the key of an error and toml
//! gives its position; the checks that span sections (seats, labels, frozen copies) point at
//! their key in the same tree.

use std::fmt;
use std::num::NonZeroU64;
use std::path::Path;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};
use toml::de::DeValue;

pub use crate::io::source::ConfigError;
use crate::io::source::Source;

use super::opponents::{OpponentPolicy, OpponentSpec, OpponentToml};

use crate::core::game::{Game, Player};
use crate::games::{AnyGame, GameSpecError};
use crate::learn::LearnerConfig;

mod evaluation;
mod format;
pub use format::*;

/// How curves are drawn: the shaded band around the mean over seeds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandSpec {
    /// 95% bootstrap confidence interval of the mean.
    #[default]
    Bootstrap95,
    /// Smallest to largest value over seeds.
    MinMax,
}

/// Where the learner sits: one seat (a player) against the opponents, every seat at once
/// (self-play), or the seats in turn against the opponents (episode `k` at seat `k mod n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// The player, and its name as the config gives it.
    Player(Player, String),
    SelfPlay,
    Alternate,
}

impl Seat {
    /// How a config names it.
    pub fn describe(&self) -> String {
        match self {
            Seat::Player(_, name) => name.clone(),
            Seat::SelfPlay => "self-play".into(),
            Seat::Alternate => "alternate".into(),
        }
    }
    /// The seats a learner holds: one, or all of them (at once in self-play, in turn when seats
    /// alternate).
    pub fn players(&self, num_players: usize) -> Vec<Player> {
        match self {
            Seat::Player(p, _) => vec![*p],
            Seat::SelfPlay | Seat::Alternate => (0..num_players).collect(),
        }
    }
}

/// A learner of an experiment: its label, its seat and its kind's config.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnerEntry {
    pub label: String,
    pub seat: Seat,
    pub config: LearnerConfig,
}

/// A checked experiment on one game: every count is at least one, every seat a player of the
/// game, every name unique. Only [`parse`] makes one.
#[derive(Clone, Debug, PartialEq)]
pub struct ExperimentConfig {
    name: String,
    description: String,
    episodes: NonZeroU64,
    eval_interval: NonZeroU64,
    seeds: Vec<u64>,
    game_name: String,
    game_params: toml::Table,
    learners: Vec<LearnerEntry>,
    opponents: Vec<OpponentSpec>,
    plot_metrics: Vec<String>,
    band: BandSpec,
    evaluation: Evaluation,
    /// The search AI the match evaluator plays as a reference (`[evaluation] ai`).
    reference_ai: Option<ReferenceAi>,
    /// `[evaluation] held_out`: the keys as given, and the held-out game's parameters (the
    /// game's with them changed, every default filled in).
    held_out: Option<(toml::Table, toml::Table)>,
    /// `[evaluation] agent`: a saved agent every evaluation measures the learner against.
    reference_agent: Option<std::path::PathBuf>,
    /// `[evaluation] best_response`: the most positions the best-response evaluator may
    /// enumerate per seat, if it runs.
    best_response: Option<usize>,
    /// `[evaluation] all_positions`.
    all_positions: bool,
    /// `save_agents`.
    save_agents: SaveAgents,
}

/// The AI the match evaluator plays as reference "ai" (`[evaluation] ai`): the search AI, or
/// MCTS (`"mcts,sims=500"`).
#[derive(Clone, Debug, PartialEq)]
pub enum ReferenceAi {
    Search(crate::ai::search::SearchOptions),
    Mcts(crate::ai::mcts::MctsOptions),
}

impl ReferenceAi {
    /// Its settings as `--ai` writes them (every default filled in), read back to the same.
    pub fn spec(&self) -> String {
        match self {
            ReferenceAi::Search(o) => o.spec(),
            ReferenceAi::Mcts(o) => format!("mcts,{}", o.spec()),
        }
    }
}

/// The suffix of every metric measured on the held-out game (`[evaluation] held_out`).
pub const HELD_OUT_SUFFIX: &str = "_held_out";

impl ExperimentConfig {
    /// The held-out game (`[evaluation] held_out`), if the config names one: the training game
    /// with some of its parameters changed, where every exact evaluation also scores the learner.
    pub fn held_out_game(&self) -> Option<Result<AnyGame, GameSpecError>> {
        let (_, params) = self.held_out.as_ref()?;
        Some(AnyGame::from_spec(&self.game_name, params.clone()))
    }
    /// The evaluator the run uses (chosen from the game's capabilities unless the config says).
    pub fn evaluation(&self) -> Evaluation {
        self.evaluation
    }
    /// The search AI the match evaluator plays as a reference ("ai"), if the config names one.
    pub fn reference_ai(&self) -> Option<&ReferenceAi> {
        self.reference_ai.as_ref()
    }
    /// The saved agent every evaluation measures the learner against (reference "agent"), if
    /// the config names one (`[evaluation] agent`).
    pub fn reference_agent(&self) -> Option<&std::path::Path> {
        self.reference_agent.as_deref()
    }
    /// The most positions the best-response evaluator enumerates per seat, if the config asks
    /// for it (`[evaluation] best_response`).
    pub fn best_response(&self) -> Option<usize> {
        self.best_response
    }
    /// Whether the greedy policy is rated over every position the game's own solver lists
    /// (`[evaluation] all_positions`).
    pub fn all_positions(&self) -> bool {
        self.all_positions
    }
    /// The run's name, which names its folder (`study/label` for a game of a study).
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn description(&self) -> &str {
        &self.description
    }
    pub fn episodes(&self) -> u64 {
        self.episodes.get()
    }
    /// Evaluate every this many episodes (the final episode is always evaluated).
    pub fn eval_interval(&self) -> u64 {
        self.eval_interval.get()
    }
    /// At least one.
    pub fn seeds(&self) -> &[u64] {
        &self.seeds
    }
    /// Which runs keep their learner as an agent file.
    pub fn save_agents(&self) -> SaveAgents {
        self.save_agents
    }
    pub fn game_params(&self) -> &toml::Table {
        &self.game_params
    }
    /// At least one, labels unique.
    pub fn learners(&self) -> &[LearnerEntry] {
        &self.learners
    }
    /// Empty: self-play.
    pub fn opponents(&self) -> &[OpponentSpec] {
        &self.opponents
    }
    pub fn plot_metrics(&self) -> &[String] {
        &self.plot_metrics
    }
    pub fn band(&self) -> BandSpec {
        self.band
    }
}

/// The metrics plotted when a config does not say, with the exact evaluator and the match one.
pub const DEFAULT_PLOTS: &[&str] = &[
    "cumulative_losses",
    "optimal_rate_faced",
    "return_vs_optimal",
];
pub const DEFAULT_MATCH_PLOTS: &[&str] = &["cumulative_losses", "greedy_win_rate_vs_random"];
/// The exact evaluator's defaults where a learner holds several seats.
pub const DEFAULT_PLOTS_SEATS: &[&str] = &[
    "cumulative_losses",
    "optimal_rate_faced",
    "return_vs_optimal_as_*",
];

/// Reads and checks an experiment file's text; returns each config and its game.
///
/// A study (`[[games]]`) gives one config per game, named `<name>/<label>`; a plain
/// experiment (`[game]`) gives one.
pub fn parse(file: &Path, text: &str) -> Result<Vec<(ExperimentConfig, AnyGame)>, ConfigError> {
    let src = Source::parse(file, text)?;
    let mut top: File = src.read("")?.expect("the file is a table");
    check_run_name(&src, &top.name)?;
    let seeds = seeds_of(&src, &top)?;
    let save_agents = match top.save_agents {
        None => DEFAULT_SAVE_AGENTS,
        Some(SaveAgentsToml::All) => SaveAgents::All,
        Some(SaveAgentsToml::Seeds(n)) => SaveAgents::FirstSeeds(n),
    };
    let entries = game_entries(&src)?;
    let (learners, learner_paths) = learners_of(&src)?;
    let opponents = opponents_of(&src, std::mem::take(&mut top.opponents))?;
    if top.evaluation.games.is_some() && top.evaluation.evaluator == Some(EvaluatorName::Exact) {
        return Err(src.error(
            "evaluation.games",
            "`games` belongs to evaluator = \"match\"",
        ));
    }
    let shared = Shared {
        study: entries.len() > 1 || entries[0].label.is_some(),
        top,
        seeds,
        save_agents,
        learners,
        learner_paths,
        opponents,
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(g, entry)| shared.game_config(&src, g, entry))
        .collect()
}

/// The run name names a folder (a '/' nests them): each part at most [`MAX_NAME`] characters
/// of letters, digits, '-', '_' or '.', not starting with '.'.
fn check_run_name(src: &Source, name: &str) -> Result<(), ConfigError> {
    if name.split('/').any(|part| part.chars().count() > MAX_NAME) {
        return Err(src.error(
            "name",
            format!(
                "a run name of {} characters: it names a folder, so at most {MAX_NAME} between '/'s",
                name.chars().count()
            ),
        ));
    }
    if !name.split('/').all(is_folder_name) {
        return Err(src.error(
            "name",
            "the run name names a folder: use letters, digits, '-', '_' or '.', not starting with '.' (a '/' nests folders)",
        ));
    }
    Ok(())
}

/// The seeds of every run: `seeds` of them from `base_seed` on, or the list given (each once),
/// or `base_seed` alone; 1 to [`MAX_SEEDS`].
fn seeds_of(src: &Source, top: &File) -> Result<Vec<u64>, ConfigError> {
    Ok(match &top.seeds {
        None => vec![top.base_seed],
        Some(Seeds::Count(0)) => return Err(src.error("seeds", "at least one seed")),
        Some(Seeds::Count(n)) if *n > MAX_SEEDS => {
            return Err(src.error("seeds", format!("{n} seeds: at most {MAX_SEEDS}")));
        }
        Some(Seeds::Count(n)) => {
            if top.base_seed.checked_add(*n).is_none() {
                return Err(src.error("base_seed", "base_seed + seeds exceeds 2^64"));
            }
            (0..*n).map(|i| top.base_seed + i).collect()
        }
        Some(Seeds::List(list)) if list.is_empty() || list.len() as u64 > MAX_SEEDS => {
            return Err(src.error("seeds", format!("give 1 to {MAX_SEEDS} seeds")));
        }
        Some(Seeds::List(list)) => {
            let mut seen = std::collections::HashSet::with_capacity(list.len());
            if let Some(twice) = list.iter().find(|&&seed| !seen.insert(seed)) {
                return Err(src.error(
                    "seeds",
                    format!("seed {twice} is listed twice: each seed is one run, give each once"),
                ));
            }
            list.clone()
        }
    })
}

/// A learner as its table gives it: its label, its seat as written, its kind's config.
type LearnerTable = (String, Option<String>, LearnerConfig);

/// The learners (`[learner]` or each `[[learners]]`), labels checked and distinct, with the
/// path of each table.
fn learners_of(src: &Source) -> Result<(Vec<LearnerTable>, Vec<String>), ConfigError> {
    let paths = one_or_many(
        src,
        "learner",
        "learners",
        "a [learner] table (or [[learners]])",
    )?;
    let mut learners = Vec::new();
    for path in &paths {
        learners.push(learner(src, path)?);
    }
    for ((label, ..), path) in learners.iter().zip(&paths) {
        check_label(src, &format!("{path}.label"), "learner's label", label)?;
    }
    let mut labels: Vec<&str> = learners.iter().map(|(l, ..)| l.as_str()).collect();
    labels.sort();
    if labels.windows(2).any(|w| w[0] == w[1]) {
        return Err(src.error(
            "learners",
            "two learners share a label: give each a distinct `label`",
        ));
    }
    Ok((learners, paths))
}

/// The `[[opponents]]` tables resolved, names checked and distinct.
fn opponents_of(src: &Source, tables: Vec<OpponentToml>) -> Result<Vec<OpponentSpec>, ConfigError> {
    let mut opponents: Vec<OpponentSpec> = Vec::new();
    for (i, raw) in tables.into_iter().enumerate() {
        let path = format!("opponents[{i}]");
        let (name, policy) = raw.resolve(src, &path)?;
        check_label(src, &format!("{path}.name"), "opponent's name", &name)?;
        if opponents.iter().any(|o| o.name == name) {
            return Err(src.error(
                &path,
                format!("two opponents are called `{name}`: give each a distinct `name`"),
            ));
        }
        opponents.push(OpponentSpec { name, policy });
    }
    if src.get("opponents").is_some() && opponents.is_empty() {
        return Err(src.error(
            "opponents",
            "expected [[opponents]] tables (leave the key out for self-play)",
        ));
    }
    Ok(opponents)
}

/// What every game of an experiment file shares, read and checked once.
struct Shared {
    /// The top level (its opponents taken out: `opponents`).
    top: File,
    seeds: Vec<u64>,
    save_agents: SaveAgents,
    learners: Vec<LearnerTable>,
    learner_paths: Vec<String>,
    opponents: Vec<OpponentSpec>,
    /// Whether the file is a study (`[[games]]`, or a labelled game): each game's run is named
    /// `<name>/<label>`.
    study: bool,
}

impl Shared {
    /// The config of game `g` of the file (`entry`), checked.
    fn game_config(
        &self,
        src: &Source,
        g: usize,
        entry: GameEntry,
    ) -> Result<(ExperimentConfig, AnyGame), ConfigError> {
        let top = &self.top;
        let checked = evaluation::checked(src, &top.evaluation, &entry, &self.opponents)?;
        let evaluation = checked.evaluation;
        let plot_metrics = self.plot_metrics(evaluation);
        let learners = self.resolve_learners(src, &entry.game)?;
        let episodes = self.episodes(src, &entry, g)?;
        let eval_interval = entry
            .eval_interval
            .or(top.eval_interval)
            .unwrap_or_else(|| NonZeroU64::new(episodes.get() / 50).unwrap_or(NonZeroU64::MIN));
        let paths = &self.learner_paths;
        let (n, interval) = (episodes.get(), eval_interval.get());
        check_work(src, &learners, paths, &entry.game, n, interval, evaluation)?;
        let name = match &entry.label {
            Some(label) if self.study => format!("{}/{label}", top.name),
            _ => top.name.clone(),
        };
        let config = ExperimentConfig {
            name,
            description: top.description.clone(),
            episodes,
            eval_interval,
            seeds: self.seeds.clone(),
            game_name: entry.name,
            game_params: entry.params,
            learners,
            opponents: self.opponents.clone(),
            plot_metrics,
            band: top.plots.band,
            evaluation,
            reference_ai: checked.reference_ai,
            held_out: checked.held_out,
            reference_agent: checked.reference_agent,
            best_response: checked.best_response,
            all_positions: checked.all_positions,
            save_agents: self.save_agents,
        };
        Ok((config, entry.game))
    }

    /// The metrics plotted: the config's, or the defaults of its evaluator (learners at several
    /// seats record per-seat results, `_as_<player>`).
    fn plot_metrics(&self, evaluation: Evaluation) -> Vec<String> {
        let one_seat = self.learners.iter().all(|(_, seat, _)| {
            !matches!(
                seat.as_deref(),
                None | Some("self-play") | Some("alternate")
            )
        });
        self.top.plots.metrics.clone().unwrap_or_else(|| {
            let defaults = match evaluation {
                Evaluation::Exact if one_seat => DEFAULT_PLOTS,
                Evaluation::Exact => DEFAULT_PLOTS_SEATS,
                Evaluation::Match { .. } => DEFAULT_MATCH_PLOTS,
            };
            defaults.iter().map(|s| s.to_string()).collect()
        })
    }

    /// The learners with their seats in `game`, checked against the opponents: a frozen copy
    /// needs its learner at alternating seats.
    fn resolve_learners(
        &self,
        src: &Source,
        game: &AnyGame,
    ) -> Result<Vec<LearnerEntry>, ConfigError> {
        let opponents = &self.opponents;
        let mut resolved = Vec::with_capacity(self.learners.len());
        for ((label, seat, config), path) in self.learners.iter().zip(&self.learner_paths) {
            let seat_path = format!("{path}.seat");
            let seat = resolve_seat(src, &seat_path, seat.as_deref(), game, opponents)?;
            if seat != Seat::Alternate
                && let Some(i) = opponents
                    .iter()
                    .position(|o| matches!(o.policy, OpponentPolicy::Frozen { .. }))
            {
                return Err(src.error(
                    &format!("opponents[{i}].policy"),
                    format!(
                        "a frozen copy plays the seats its learner does not; learner `{label}` must learn them too: give it seat = \"alternate\""
                    ),
                ));
            }
            resolved.push(LearnerEntry {
                label: label.clone(),
                seat,
                config: config.clone(),
            });
        }
        Ok(resolved)
    }

    /// The episodes of game `g` (`entry`): its own, or the file's; at most [`MAX_EPISODES`].
    fn episodes(
        &self,
        src: &Source,
        entry: &GameEntry,
        g: usize,
    ) -> Result<NonZeroU64, ConfigError> {
        let episodes = entry.episodes.unwrap_or(self.top.episodes);
        if episodes.get() > MAX_EPISODES {
            let at = if entry.episodes.is_some() {
                format!("games[{g}].episodes")
            } else {
                "episodes".to_string()
            };
            return Err(src.error(
                &at,
                format!(
                    "{} episodes: at most {} a run (at a million episodes a second, the fastest \
                     learners' pace, 10^12 take twelve days); split longer training into runs \
                     that resume from saved agents",
                    crate::io::text::group(&episodes.to_string()),
                    crate::io::text::group(&MAX_EPISODES.to_string())
                ),
            ));
        }
        Ok(episodes)
    }
}

/// Refuses a learner whose runs on `game` (of `episodes`, evaluated every `eval_interval` by
/// `evaluation`) would cost more work than a run may ([`work::Estimate`]), measured on one game
/// played at random, the first time a learner needs it (`paths`: each learner's table).
fn check_work(
    src: &Source,
    learners: &[LearnerEntry],
    paths: &[String],
    game: &AnyGame,
    episodes: u64,
    eval_interval: u64,
    evaluation: Evaluation,
) -> Result<(), ConfigError> {
    let mut sample = None;
    for (learner, path) in learners.iter().zip(paths) {
        let move_cost = with_game!(game, g => learner.config.move_cost(g));
        if move_cost == 0 {
            continue;
        }
        let evaluations = u128::from(episodes.div_ceil(eval_interval)) + 1;
        let estimate = work::Estimate {
            sample: *sample.get_or_insert_with(|| with_game!(game, g => work::sample(g))),
            move_cost,
            episodes,
            evaluation_games: match evaluation {
                Evaluation::Exact => 0,
                Evaluation::Match { games } => {
                    evaluations
                        * u128::from(games.get())
                        * u128::from(super::shard::MATCH_REFERENCES)
                }
            },
        };
        if let Some(why) = estimate.refusal(&learner.label) {
            return Err(src.error(path, why));
        }
    }
    Ok(())
}

/// The paths of `[one]` or of each `[[many]]` table (`what`: how to write them).
fn one_or_many(
    src: &Source,
    one: &str,
    many: &str,
    what: &str,
) -> Result<Vec<String>, ConfigError> {
    let paths: Vec<String> = match (src.get(one).is_some(), src.get(many)) {
        (true, Some(_)) => {
            return Err(src.error(many, format!("give either [{one}] or [[{many}]], not both")));
        }
        (true, None) => vec![one.to_string()],
        (false, Some(v)) => {
            let n = v.get_ref().as_array().map_or(0, |a| a.iter().count());
            (0..n).map(|i| format!("{many}[{i}]")).collect()
        }
        (false, None) => return Err(src.error(one, format!("missing: {what}"))),
    };
    if paths.is_empty() {
        return Err(src.error(many, format!("expected {what}")));
    }
    Ok(paths)
}

/// The most characters of a name that becomes part of a file or folder name (a run's name, a
/// learner's label, an opponent's name): file systems take 255 bytes a name.
const MAX_NAME: usize = 100;

/// A label or name that tables and file names show: not empty, not blank, at most
/// [`MAX_NAME`] characters.
fn check_label(src: &Source, path: &str, what: &str, text: &str) -> Result<(), ConfigError> {
    if text.trim().is_empty() {
        return Err(src.error(path, format!("the {what} is empty: give it a few letters")));
    }
    let n = text.chars().count();
    if n > MAX_NAME {
        return Err(src.error(
            path,
            format!(
                "a {what} of {n} characters: it names files and columns, so at most {MAX_NAME}"
            ),
        ));
    }
    Ok(())
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
    episodes: Option<NonZeroU64>,
    eval_interval: Option<NonZeroU64>,
}

/// `[game]` (one experiment) or `[[games]]` (a study: the same learners on several games, each
/// run on its own into `<name>/<label>/`), each with a name and the game's own parameters.
fn game_entries(src: &Source) -> Result<Vec<GameEntry>, ConfigError> {
    let paths = one_or_many(
        src,
        "game",
        "games",
        "a [game] table with name = \"...\" (or [[games]] for a study)",
    )?;
    let mut entries: Vec<GameEntry> = Vec::new();
    for path in paths {
        let at = |key: &str| format!("{path}.{key}");
        if src
            .get(&path)
            .and_then(|v| v.get_ref().as_table())
            .is_none()
        {
            return Err(src.error(&path, "expected a table: [game] with name = \"...\""));
        }
        let name: String = src.read(&at("name"))?.ok_or_else(|| {
            src.error(
                &at("name"),
                "missing: which game (e.g. name = \"hexapawn\")",
            )
        })?;
        let mut params: toml::Table = src.read(&path)?.unwrap_or_default();
        params.remove("name");
        // A study entry's own keys, beside the game's parameters.
        let (mut label, mut episodes, mut eval_interval) = (None, None, None);
        if path.starts_with("games") {
            let l: String = src.read(&at("label"))?.unwrap_or_else(|| name.clone());
            if !is_folder_name(&l) {
                return Err(src.error(
                    &at("label"),
                    "the label names the game's folder: a string of letters, digits, '-', '_' or '.'",
                ));
            }
            if let Some(other) = entries.iter().find(|e| e.label.as_deref() == Some(&l)) {
                return Err(src.error(
                    &at("label"),
                    format!(
                        "two games are labelled `{l}` ({} twice?): give each a distinct `label`",
                        other.name
                    ),
                ));
            }
            label = Some(l);
            episodes = src.read(&at("episodes"))?;
            eval_interval = src.read(&at("eval_interval"))?;
            for key in ["label", "episodes", "eval_interval"] {
                params.remove(key);
            }
        }
        let error = |e: GameSpecError| match &e {
            GameSpecError::UnknownGame { .. } => src.error(&at("name"), e.to_string()),
            GameSpecError::BadParams { key: Some(k), .. } => src.error(&at(k), e.to_string()),
            GameSpecError::BadParams { key: None, .. } => src.error(&path, e.to_string()),
        };
        let game = AnyGame::from_spec(&name, params.clone()).map_err(error)?;
        // Every default filled in, so the resolved config names them all.
        let params = game.resolved_params(&name, params).map_err(error)?;
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

/// A learner table: its label and seat as given, and its kind's config.
fn learner(
    src: &Source,
    path: &str,
) -> Result<(String, Option<String>, LearnerConfig), ConfigError> {
    let kinds = LearnerConfig::KINDS.join(", ");
    let kind_path = format!("{path}.kind");
    let kind: String = src.read(&kind_path)?.ok_or_else(|| {
        src.error(
            &kind_path,
            format!("missing: which learner (kind = one of {kinds})"),
        )
    })?;
    let label: Option<String> = src.read(&format!("{path}.label"))?;
    let seat: Option<String> = src.read(&format!("{path}.seat"))?;
    // The kind's own keys: the table without the keys every learner has.
    let mut table = src.get(path).expect("the learner has a kind").clone();
    if let DeValue::Table(t) = table.get_mut() {
        *t = std::mem::take(t)
            .into_iter()
            .filter(|(k, _)| !["kind", "label", "seat"].contains(&k.get_ref().as_ref()))
            .collect();
    }
    if !LearnerConfig::KINDS.contains(&kind.as_str()) {
        return Err(src.error(
            &kind_path,
            format!(
                "unknown learner `{}`{}; the learners are: {kinds}",
                crate::io::text::abbreviated(&kind, 100),
                crate::io::text::did_you_mean(&kind, LearnerConfig::KINDS.iter().copied())
            ),
        ));
    }
    let config = src.read_value(path, table, |de| {
        LearnerConfig::deserialize(&kind, de).expect("a registered kind")
    })?;
    let label = label.unwrap_or_else(|| config.default_label());
    Ok((label, seat, config))
}

/// The seat a learner takes in `game`, checked against the opponents.
fn resolve_seat(
    src: &Source,
    path: &str,
    seat: Option<&str>,
    game: &AnyGame,
    opponents: &[OpponentSpec],
) -> Result<Seat, ConfigError> {
    let seat = match seat {
        None | Some("self-play") => Seat::SelfPlay,
        Some("alternate") => Seat::Alternate,
        Some(name) => {
            let players: Vec<&str> =
                with_game!(game, g => (0..g.num_players()).map(|p| g.player_name(p)).collect());
            let Some(p) = players.iter().position(|p| p.eq_ignore_ascii_case(name)) else {
                return Err(src.error(
                    path,
                    format!(
                        "{} has no player `{}`{}; the players are: {}",
                        game.name(),
                        crate::io::text::abbreviated(name, 100),
                        crate::io::text::did_you_mean(
                            name,
                            players.iter().copied().chain(["self-play", "alternate"])
                        ),
                        players.join(", ")
                    ),
                ));
            };
            Seat::Player(p, name.to_string())
        }
    };
    match (&seat, opponents.is_empty()) {
        (Seat::SelfPlay, false) => Err(src.error(
            path,
            "seat = \"self-play\" takes no [[opponents]]: remove them, name a seat or use seat = \"alternate\"",
        )),
        (Seat::Player(..) | Seat::Alternate, true) => Err(src.error(
            path,
            "a learner at one seat (or alternating seats) needs [[opponents]] for the other seats (or seat = \"self-play\")",
        )),
        _ => Ok(seat),
    }
}

/// The resolved config as a file: every default filled in, keys sorted (TOML tables).
#[derive(Serialize)]
struct Resolved<'a> {
    name: &'a str,
    description: &'a str,
    episodes: u64,
    eval_interval: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    base_seed: Option<u64>,
    seeds: toml::Value,
    /// Left out at its default, so that configs written before it keep their hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    save_agents: Option<SaveAgentsToml>,
    game: toml::Table,
    learners: Vec<toml::Table>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    opponents: Vec<OpponentToml>,
    plots: ResolvedPlots<'a>,
    evaluation: EvaluationToml,
}

#[derive(Serialize)]
struct ResolvedPlots<'a> {
    metrics: &'a [String],
    band: BandSpec,
}

impl ExperimentConfig {
    /// `[evaluation] agent` as the resolved config writes it.
    fn agent_spec(&self) -> Option<String> {
        self.reference_agent
            .as_ref()
            .map(|p| p.display().to_string())
    }
    /// The config with every default filled in, as TOML (written beside the results; it runs
    /// again to the same bytes).
    pub fn resolved_toml(&self) -> String {
        let contiguous = self.seeds.windows(2).all(|w| w[1] == w[0] + 1);
        let (base_seed, seeds) = if contiguous {
            (
                Some(self.seeds[0]),
                toml::Value::from(self.seeds.len() as i64),
            )
        } else {
            let list = self.seeds.iter().map(|&s| toml::Value::from(s as i64));
            (None, toml::Value::Array(list.collect()))
        };
        let mut game = self.game_params.clone();
        game.insert("name".into(), self.game_name.clone().into());
        let learners = self
            .learners
            .iter()
            .map(|l| {
                let mut t = l.config.to_table();
                t.insert("kind".into(), l.config.kind().into());
                t.insert("label".into(), l.label.clone().into());
                t.insert("seat".into(), l.seat.describe().into());
                t
            })
            .collect();
        let opponents = self.opponents.iter().map(OpponentSpec::resolved).collect();
        let resolved = Resolved {
            name: &self.name,
            description: &self.description,
            episodes: self.episodes.get(),
            eval_interval: self.eval_interval.get(),
            base_seed,
            seeds,
            save_agents: match self.save_agents {
                s if s == DEFAULT_SAVE_AGENTS => None,
                SaveAgents::All => Some(SaveAgentsToml::All),
                SaveAgents::FirstSeeds(n) => Some(SaveAgentsToml::Seeds(n)),
            },
            game,
            learners,
            opponents,
            plots: ResolvedPlots {
                metrics: &self.plot_metrics,
                band: self.band,
            },
            evaluation: match self.evaluation {
                Evaluation::Exact => EvaluationToml {
                    evaluator: Some(EvaluatorName::Exact),
                    games: None,
                    ai: None,
                    agent: self.agent_spec(),
                    held_out: self.held_out.as_ref().map(|(keys, _)| keys.clone()),
                    best_response: None,
                    all_positions: None,
                },
                Evaluation::Match { games } => EvaluationToml {
                    evaluator: Some(EvaluatorName::Match),
                    games: Some(games),
                    ai: self.reference_ai.as_ref().map(|o| o.spec()),
                    agent: self.agent_spec(),
                    held_out: None,
                    best_response: self
                        .best_response
                        .map(|n| BestResponseToml::Limit(n as u64)),
                    all_positions: self.all_positions.then_some(true),
                },
            },
        };
        // Through a table, whose keys are sorted.
        let table = toml::Value::try_from(&resolved).expect("plain values");
        toml::to_string(&table).expect("a table of plain values serializes")
    }
}

#[cfg(test)]
mod tests;
pub mod work;
