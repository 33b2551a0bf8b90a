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
    let top: File = src.read("")?.expect("the file is a table");
    if top
        .name
        .split('/')
        .any(|part| part.chars().count() > MAX_NAME)
    {
        return Err(src.error(
            "name",
            format!(
                "a run name of {} characters: it names a folder, so at most {MAX_NAME} between '/'s",
                top.name.chars().count()
            ),
        ));
    }
    if !top.name.split('/').all(is_folder_name) {
        return Err(src.error(
            "name",
            "the run name names a folder: use letters, digits, '-', '_' or '.', not starting with '.' (a '/' nests folders)",
        ));
    }
    let seeds = match top.seeds {
        None => vec![top.base_seed],
        Some(Seeds::Count(0)) => return Err(src.error("seeds", "at least one seed")),
        Some(Seeds::Count(n)) if n > MAX_SEEDS => {
            return Err(src.error("seeds", format!("{n} seeds: at most {MAX_SEEDS}")));
        }
        Some(Seeds::Count(n)) => {
            if top.base_seed.checked_add(n).is_none() {
                return Err(src.error("base_seed", "base_seed + seeds exceeds 2^64"));
            }
            (0..n).map(|i| top.base_seed + i).collect()
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
            list
        }
    };
    let save_agents = match top.save_agents {
        None => DEFAULT_SAVE_AGENTS,
        Some(SaveAgentsToml::All) => SaveAgents::All,
        Some(SaveAgentsToml::Seeds(n)) => SaveAgents::FirstSeeds(n),
    };
    let entries = game_entries(&src)?;

    let learner_paths = one_or_many(
        &src,
        "learner",
        "learners",
        "a [learner] table (or [[learners]])",
    )?;
    let mut learners = Vec::new();
    for path in &learner_paths {
        learners.push(learner(&src, path)?);
    }
    for ((label, ..), path) in learners.iter().zip(&learner_paths) {
        check_label(&src, &format!("{path}.label"), "learner's label", label)?;
    }
    let mut labels: Vec<&str> = learners.iter().map(|(l, ..)| l.as_str()).collect();
    labels.sort();
    if labels.windows(2).any(|w| w[0] == w[1]) {
        return Err(src.error(
            "learners",
            "two learners share a label: give each a distinct `label`",
        ));
    }

    let mut opponents: Vec<OpponentSpec> = Vec::new();
    for (i, raw) in top.opponents.into_iter().enumerate() {
        let path = format!("opponents[{i}]");
        let (name, policy) = raw.resolve(&src, &path)?;
        check_label(&src, &format!("{path}.name"), "opponent's name", &name)?;
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
    if top.evaluation.games.is_some() && top.evaluation.evaluator == Some(EvaluatorName::Exact) {
        return Err(src.error(
            "evaluation.games",
            "`games` belongs to evaluator = \"match\"",
        ));
    }

    let study = entries.len() > 1 || entries[0].label.is_some();
    let mut out = Vec::with_capacity(entries.len());
    for (g, entry) in entries.into_iter().enumerate() {
        let evaluation = evaluation_of(&src, &top.evaluation, &entry, &opponents)?;
        let reference_ai = match &top.evaluation.ai {
            None => None,
            Some(_) if evaluation == Evaluation::Exact => {
                return Err(src.error(
                    "evaluation.ai",
                    "an AI reference is played by the match evaluator; add evaluator = \"match\"",
                ));
            }
            Some(spec) if crate::ai::mcts::MctsOptions::is_mcts(spec) => {
                let options = crate::ai::mcts::MctsOptions::parse(spec)
                    .and_then(|o| with_game!(&entry.game, g => o.check(g).map(|_| o)))
                    .map_err(|e| src.error("evaluation.ai", e))?;
                Some(ReferenceAi::Mcts(options))
            }
            Some(spec) => {
                let options = crate::ai::search::SearchOptions::parse(spec)
                    .and_then(|o| with_game!(&entry.game, g => o.evaluator(g).map(|_| o)))
                    .map_err(|e| src.error("evaluation.ai", e))?;
                Some(ReferenceAi::Search(options))
            }
        };
        let held_out = match &top.evaluation.held_out {
            None => None,
            Some(keys) => Some(held_out_of(&src, keys, &entry, evaluation)?),
        };
        let best_response = match top.evaluation.best_response {
            None | Some(BestResponseToml::On(false)) => None,
            Some(_) if evaluation == Evaluation::Exact => {
                return Err(src.error(
                    "evaluation.best_response",
                    "the exact evaluator measures every position already (`worst_case_return`); best_response is for evaluator = \"match\"",
                ));
            }
            Some(BestResponseToml::On(true)) => Some(crate::eval::response::DEFAULT_RESPONSE_LIMIT),
            Some(BestResponseToml::Limit(0)) => {
                return Err(src.error(
                    "evaluation.best_response",
                    "give true, false or the most positions an evaluation may enumerate (at least 1)",
                ));
            }
            Some(BestResponseToml::Limit(n)) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        };
        let reference_agent = match &top.evaluation.agent {
            None => None,
            Some(file) => {
                let path = std::path::PathBuf::from(file);
                with_game!(&entry.game, g => {
                    crate::learn::saved::load_agent(g, &path).map(|_| ())
                })
                .map_err(|e| src.error("evaluation.agent", format!("{e:#}")))?;
                Some(path)
            }
        };
        let all_positions = top.evaluation.all_positions == Some(true);
        if all_positions && evaluation == Evaluation::Exact {
            return Err(src.error(
                "evaluation.all_positions",
                "the exact evaluator rates every position already (`greedy_optimal_rate_all`); all_positions is for evaluator = \"match\"",
            ));
        }
        // Learners at several seats record per-seat results (`_as_<player>`).
        let one_seat = learners.iter().all(|(_, seat, _)| {
            !matches!(
                seat.as_deref(),
                None | Some("self-play") | Some("alternate")
            )
        });
        let plot_metrics = top.plots.metrics.clone().unwrap_or_else(|| {
            let defaults = match evaluation {
                Evaluation::Exact if one_seat => DEFAULT_PLOTS,
                Evaluation::Exact => DEFAULT_PLOTS_SEATS,
                Evaluation::Match { .. } => DEFAULT_MATCH_PLOTS,
            };
            defaults.iter().map(|s| s.to_string()).collect()
        });
        let mut resolved = Vec::with_capacity(learners.len());
        for ((label, seat, config), path) in learners.iter().zip(&learner_paths) {
            let seat_path = format!("{path}.seat");
            let seat = resolve_seat(&src, &seat_path, seat.as_deref(), &entry.game, &opponents)?;
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
        let episodes = entry.episodes.unwrap_or(top.episodes);
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
        let eval_interval = entry
            .eval_interval
            .or(top.eval_interval)
            .unwrap_or_else(|| NonZeroU64::new(episodes.get() / 50).unwrap_or(NonZeroU64::MIN));
        // One game played at random, the first time a learner needs it.
        let mut sample = None;
        for (learner, path) in resolved.iter().zip(&learner_paths) {
            let move_cost = with_game!(&entry.game, g => learner.config.move_cost(g));
            if move_cost == 0 {
                continue;
            }
            let evaluations = u128::from(episodes.get().div_ceil(eval_interval.get())) + 1;
            let estimate = work::Estimate {
                sample: *sample
                    .get_or_insert_with(|| with_game!(&entry.game, g => work::sample(g))),
                move_cost,
                episodes: episodes.get(),
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
            learners: resolved,
            opponents: opponents.clone(),
            plot_metrics,
            band: top.plots.band,
            evaluation,
            reference_ai,
            held_out,
            reference_agent,
            best_response,
            all_positions,
            save_agents,
        };
        out.push((config, entry.game));
    }
    Ok(out)
}

/// The evaluator of a game's run: the config's choice, or the exact one where the game's
/// capabilities allow it; opponents that the game cannot supply are refused here, before work.
fn evaluation_of(
    src: &Source,
    given: &EvaluationToml,
    entry: &GameEntry,
    opponents: &[OpponentSpec],
) -> Result<Evaluation, ConfigError> {
    let caps = with_game!(&entry.game, g => g.capabilities());
    let refusal = caps.enumeration_refusal(crate::truth::DEFAULT_STATE_LIMIT);
    let evaluation = match (given.evaluator, &refusal) {
        (Some(EvaluatorName::Exact), Some(why)) => {
            return Err(src.error(
                "evaluation.evaluator",
                format!(
                    "{} cannot be evaluated exactly: {why}; use evaluator = \"match\"",
                    entry.game.name()
                ),
            ));
        }
        (None, None) if given.games.is_some() => {
            return Err(src.error(
                "evaluation.games",
                format!(
                    "`games` belongs to the match evaluator; {} is evaluated exactly unless evaluator = \"match\"",
                    entry.game.name()
                ),
            ));
        }
        (Some(EvaluatorName::Exact), None) | (None, None) => Evaluation::Exact,
        _ if given.games.is_some_and(|g| g.get() > MAX_MATCH_GAMES) => {
            let games = given.games.map_or(0, NonZeroU64::get);
            return Err(src.error(
                "evaluation.games",
                format!(
                    "games = {} is more than one evaluation plays (at most {}): each game's \
                     result is kept until the evaluation ends (24 bytes a game, {} in all) and a \
                     game takes about a microsecond; a few thousand games give a rate to ±2%",
                    crate::io::text::group(&games.to_string()),
                    crate::io::text::group(&MAX_MATCH_GAMES.to_string()),
                    crate::io::memory::human(games.saturating_mul(24)),
                ),
            ));
        }
        _ => Evaluation::Match {
            games: given.games.unwrap_or(DEFAULT_MATCH_GAMES),
        },
    };
    for (i, o) in opponents.iter().enumerate() {
        let heuristic = with_game!(&entry.game, g => g.heuristic(&g.initial_state(), 0).is_some());
        let why = if o.policy.needs_oracle() && caps.solver == crate::core::game::Solver::None {
            "has no exact solver, so no perfect play to train against"
        } else if o.policy.needs_heuristic() && !heuristic {
            "has no heuristic for a greedy or search player"
        } else if o.frozen().is_some() && refusal.is_some() {
            "cannot have every position enumerated, and a frozen copy is tabulated over them"
        } else {
            if let OpponentPolicy::Search(options) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => options.evaluator(g).map(|_| ()))
            {
                return Err(src.error(&format!("opponents[{i}].settings"), e));
            }
            if let OpponentPolicy::Mcts(options) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => options.check(g))
            {
                return Err(src.error(&format!("opponents[{i}].settings"), e));
            }
            if let OpponentPolicy::Agent(file) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => {
                    crate::learn::saved::load_agent(g, file).map(|_| ())
                })
            {
                return Err(src.error(&format!("opponents[{i}].agent"), format!("{e:#}")));
            }
            continue;
        };
        return Err(src.error(
            &format!("opponents[{i}].policy"),
            format!("{} {why}", entry.game.name()),
        ));
    }
    Ok(evaluation)
}

/// `[evaluation] held_out`: the keys as given and the held-out game's parameters, checked: the
/// game builds with them, differs from the training game, is evaluated exactly, and is observed
/// and acted in alike (a learner made for the one reads the other).
fn held_out_of(
    src: &Source,
    keys: &toml::Table,
    entry: &GameEntry,
    evaluation: Evaluation,
) -> Result<(toml::Table, toml::Table), ConfigError> {
    const KEY: &str = "evaluation.held_out";
    if evaluation != Evaluation::Exact {
        return Err(src.error(
            KEY,
            "a held-out game is measured by the exact evaluator (every position enumerated); remove evaluator = \"match\"",
        ));
    }
    if keys.is_empty() {
        return Err(src.error(
            KEY,
            "give the game parameters that make the held-out game, e.g. held_out = { deal = \"held-out\" }",
        ));
    }
    let mut params = entry.params.clone();
    params.extend(keys.clone());
    let error = |e: GameSpecError| match &e {
        GameSpecError::BadParams { key: Some(k), .. } => {
            src.error(&format!("{KEY}.{k}"), e.to_string())
        }
        _ => src.error(KEY, e.to_string()),
    };
    let game = AnyGame::from_spec(&entry.name, params.clone()).map_err(error)?;
    let params = game.resolved_params(&entry.name, params).map_err(error)?;
    if params == entry.params {
        return Err(src.error(
            KEY,
            "these parameters make the training game itself; change one (e.g. deal = \"held-out\")",
        ));
    }
    let shape = |g: &AnyGame| with_game!(g, g => (g.num_players(), g.num_distinct_actions(), g.observation_len()));
    let (trained, held) = (shape(&entry.game), shape(&game));
    if trained != held {
        return Err(src.error(
            KEY,
            format!(
                "the held-out game must be played and observed alike: it has {} players, {} actions and observations of {} numbers, the training game {}, {} and {}",
                held.0, held.1, held.2, trained.0, trained.1, trained.2
            ),
        ));
    }
    let caps = with_game!(&game, g => g.capabilities());
    if let Some(why) = caps.enumeration_refusal(crate::truth::DEFAULT_STATE_LIMIT) {
        return Err(src.error(
            KEY,
            format!("the held-out game cannot be evaluated exactly: {why}"),
        ));
    }
    Ok((keys.clone(), params))
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
