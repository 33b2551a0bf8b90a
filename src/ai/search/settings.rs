//! The search's settings ([`SearchOptions`]): what they are, their defaults, and the
//! `key=value,...` text that `--ai`, tournaments and configs give them in, read and written.

use super::*;
use crate::ai::settings::settings;

/// How the tree is backed up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The searching seat against the coalition of the others.
    Paranoid,
    /// Every seat for itself, on score vectors.
    MaxN(Reduction),
}

/// How a seat reads a score vector in max-n search (the reference AI's two, and its proposed hybrid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Its own score.
    Own,
    /// Its score less the best rival's.
    Lead,
    /// Its own score, ties broken by the lead.
    Hybrid,
}

/// What chance nodes are worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanceRule {
    /// The expectation over the outcomes.
    Expectation,
    /// The worst outcome for the searching seat (the reference AI's pessimistic option); in paranoid
    /// search a node the coalition's side minimises, so alpha-beta prunes it.
    Worst,
    /// The mean over `k` outcomes drawn (by their probabilities, with replacement) from a
    /// generator seeded by the position and [`SearchOptions::seed`]: with k = 1 the tree does
    /// not branch on cards (as the reference AI's did not) yet every line is searched to full depth;
    /// deterministic for a seed.
    Sample(u32),
}

/// A search's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Plies to look ahead (player moves; chance nodes do not count).
    pub depth: u32,
    pub mode: Mode,
    /// Alpha-beta pruning (paranoid search only).
    pub alpha_beta: bool,
    /// Sort moves by the static score of the position they lead to, best first.
    pub order: bool,
    /// The reference AI's cutoff vector: at ply i (0 = the root's moves) keep only the best
    /// `cutoffs[i]` moves (0 = all; the last entry holds for deeper plies). Needs `order`.
    pub cutoffs: Vec<usize>,
    pub chance: ChanceRule,
    /// A transposition table (paranoid search): a position met again at the same depth is
    /// not searched again.
    pub table: bool,
    /// Stop below a move after which its mover has finished while others play on (the reference AI's
    /// rule; [`Game::has_finished`]).
    pub stop_finished: bool,
    /// Iterative deepening within a budget: depths 1, 2, ... up to `depth`, keeping the move of
    /// the deepest search that finished within this many positions generated (deterministic;
    /// the search notices at its next visit, so one expansion may pass it) ...
    pub max_nodes: Option<u64>,
    /// ... or milliseconds (depends on the machine).
    pub max_millis: Option<u64>,
    /// Settings for the game's evaluation (`key=value` the search does not read, e.g. Hase und
    /// Igel's `eval=FILE`, `kc=1.2`), handed to [`Game::with_evaluation`].
    pub eval: Vec<(String, String)>,
    /// A saved agent whose learned values replace the game's heuristic at the leaves
    /// (`eval=agent:PATH`; [`LearnedValue`]).
    pub agent: Option<std::path::PathBuf>,
    /// Seeds the card draws of `chance=sample` (the only randomness of a search).
    pub seed: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            depth: 4,
            mode: Mode::Paranoid,
            alpha_beta: true,
            order: true,
            cutoffs: Vec::new(),
            chance: ChanceRule::Expectation,
            table: true,
            stop_finished: true,
            max_nodes: None,
            max_millis: None,
            eval: Vec::new(),
            agent: None,
            seed: 0,
        }
    }
}

/// Every search setting and what it does: the one list that the parser's errors and every
/// command's help are written from ([`settings_help`]).
pub const SETTINGS: [(&str, &str); 11] = [
    ("depth=N", "plies to look ahead, 1 to 64 (default 4)"),
    (
        "order / no-order",
        "moves sorted by their static score, best first (default order)",
    ),
    ("prune / no-prune", "alpha-beta pruning (default prune)"),
    (
        "cutoffs=0-0-8-8-4",
        "keep the best k moves at each ply, 0 = all; the last holds deeper (implies order)",
    ),
    (
        "mode=paranoid | own | lead | hybrid",
        "paranoid (default): the others play against you; max-n: each for itself, read by its own \
         score, its lead over the best rival, or both",
    ),
    (
        "chance=expectation | worst | sample | sample:K",
        "chance nodes worth their expectation (default), their worst outcome, or the mean of K \
         outcomes drawn (1 by default)",
    ),
    (
        "table / no-table",
        "a transposition table, at most 14,680,064 positions (default table)",
    ),
    (
        "stop / play-on",
        "stop below a move after which its mover has finished (default stop)",
    ),
    (
        "nodes=N",
        "iterative deepening up to the depth, within N positions generated (deterministic); \
         without nodes= or ms=, a search that passes 5,000,000 positions is redone this way \
         with nodes=5000000",
    ),
    (
        "ms=N",
        "iterative deepening within N milliseconds (depends on the machine)",
    ),
    (
        "eval=agent:PATH",
        "a saved agent's learned values at the leaves in place of the game's heuristic (a value \
         learner's file: a run's agents/*.parquet)",
    ),
];

/// The settings in one line: `depth=N, order / no-order, ...`.
pub fn settings_list() -> String {
    SETTINGS.map(|(s, _)| s).join(", ")
}

/// The settings with what each does, one per line, for `--help`.
pub fn settings_help() -> String {
    let width = SETTINGS.iter().map(|(s, _)| s.len()).max().unwrap_or(0);
    SETTINGS
        .iter()
        .map(|(s, what)| format!("  {s:width$}  {what}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Keys the search reads itself: never passed on to the game's evaluation.
const EVAL_RESERVED: [&str; 15] = [
    "depth", "order", "no-order", "prune", "no-prune", "table", "no-table", "cutoffs", "mode",
    "chance", "nodes", "ms", "stop", "play-on", "seed",
];

impl SearchOptions {
    /// What these settings search with: `game` itself, or a copy whose heuristic reads the
    /// evaluation settings ([`Game::with_evaluation`]), and with `eval=agent:PATH` the saved
    /// agent whose values replace the heuristic; the error names a setting neither the search
    /// nor the game takes, or why the agent does not load. Call it once before play: it reads
    /// any evaluation file and the agent.
    pub fn evaluator<G: Game>(&self, game: &G) -> Result<Evaluator<G>, String> {
        let learned = match &self.agent {
            Some(path) => Some(learned_value(game, path)?),
            None => None,
        };
        if learned.is_none() && game.heuristic(&game.initial_state(), 0).is_none() {
            return Err(format!(
                "{} has no heuristic to search with (eval=agent:PATH searches on a saved agent's values)",
                game.name()
            ));
        }
        Ok(Evaluator {
            game: game.with_evaluation(&self.eval)?,
            learned,
        })
    }

    /// Whether the search evaluates with anything but the game's own heuristic.
    pub fn evaluates_apart(&self) -> bool {
        !self.eval.is_empty() || self.agent.is_some()
    }

    /// Options from the text a person writes: comma-separated `depth=N`, `order` / `no-order`,
    /// `prune` / `no-prune` (alpha-beta), `cutoffs=0-0-8-8-4`, `mode=paranoid|own|lead|hybrid`
    /// (the last three: max-n with that reduction), `chance=expectation|worst`. Unnamed
    /// settings keep their defaults (depth 4, paranoid, pruned, ordered, expectation).
    pub fn parse(spec: &str) -> Result<SearchOptions, String> {
        let mut o = SearchOptions::default();
        for s in settings(spec) {
            if let Some(agent) = s.agent() {
                o.agent = Some(agent?);
                continue;
            }
            match (s.key, s.value) {
                ("depth", _) => {
                    o.depth = s.number(1..=64, "depth is a number of plies from 1 to 64")?;
                }
                ("order", "") => o.order = true,
                ("no-order", "") => o.order = false,
                ("prune", "") => o.alpha_beta = true,
                ("no-prune", "") => o.alpha_beta = false,
                ("nodes", _) => {
                    o.max_nodes =
                        Some(s.number(1..=u64::MAX, "nodes is a budget of positions, at least 1")?);
                }
                ("ms", _) => {
                    o.max_millis = Some(s.number(
                        1..=u64::MAX,
                        "ms is a time budget in milliseconds, at least 1",
                    )?);
                }
                ("table", "") => o.table = true,
                ("no-table", "") => o.table = false,
                ("cutoffs", v) => {
                    o.cutoffs = v
                        .split('-')
                        .map(|k| k.parse::<usize>())
                        .collect::<Result<_, _>>()
                        .map_err(|_| {
                            s.error("cutoffs are counts joined by - (0 = all), e.g. 0-0-8-8-4")
                        })?;
                    o.order = true;
                }
                ("mode", "paranoid") => o.mode = Mode::Paranoid,
                ("mode", "own") => o.mode = Mode::MaxN(Reduction::Own),
                ("mode", "lead") => o.mode = Mode::MaxN(Reduction::Lead),
                ("mode", "hybrid") => o.mode = Mode::MaxN(Reduction::Hybrid),
                ("mode", _) => return Err(s.error("mode is paranoid, own, lead or hybrid")),
                ("chance", "expectation") => o.chance = ChanceRule::Expectation,
                ("chance", "worst") => o.chance = ChanceRule::Worst,
                ("chance", v) if v.starts_with("sample") => {
                    let k = match v.strip_prefix("sample").unwrap_or("") {
                        "" => Some(1),
                        n => n.strip_prefix(':').and_then(|n| n.parse().ok()),
                    };
                    o.chance = ChanceRule::Sample(k.filter(|k| (1..=64).contains(k)).ok_or_else(
                        || s.error("chance=sample or sample:K draws K cards (1 to 64) at a draw"),
                    )?);
                }
                ("chance", _) => {
                    return Err(s.error("chance is expectation, worst, sample or sample:K"));
                }
                ("seed", _) => o.seed = s.whole("seed is a whole number")?,
                (key, value) if !value.is_empty() && !EVAL_RESERVED.contains(&key) => {
                    o.eval.retain(|(k, _)| k != key);
                    o.eval.push((key.to_string(), value.to_string()));
                }
                ("stop", "") => o.stop_finished = true,
                ("play-on", "") => o.stop_finished = false,
                _ => {
                    return Err(s.error(&format!("the settings are {}", settings_list())));
                }
            }
        }
        Ok(o)
    }

    /// The options in the form [`SearchOptions::parse`] reads.
    pub fn spec(&self) -> String {
        let mut parts = vec![format!("depth={}", self.depth)];
        parts.push(match self.mode {
            Mode::Paranoid => "mode=paranoid".into(),
            Mode::MaxN(Reduction::Own) => "mode=own".into(),
            Mode::MaxN(Reduction::Lead) => "mode=lead".into(),
            Mode::MaxN(Reduction::Hybrid) => "mode=hybrid".into(),
        });
        parts.push(if self.order { "order" } else { "no-order" }.into());
        parts.push(if self.alpha_beta { "prune" } else { "no-prune" }.into());
        if !self.table {
            parts.push("no-table".into());
        }
        if !self.cutoffs.is_empty() {
            let c: Vec<String> = self.cutoffs.iter().map(usize::to_string).collect();
            parts.push(format!("cutoffs={}", c.join("-")));
        }
        match self.chance {
            ChanceRule::Expectation => {}
            ChanceRule::Worst => parts.push("chance=worst".into()),
            ChanceRule::Sample(1) => parts.push("chance=sample".into()),
            ChanceRule::Sample(k) => parts.push(format!("chance=sample:{k}")),
        }
        if !self.stop_finished {
            parts.push("play-on".into());
        }
        if self.seed != 0 {
            parts.push(format!("seed={}", self.seed));
        }
        if let Some(n) = self.max_nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(ms) = self.max_millis {
            parts.push(format!("ms={ms}"));
        }
        if let Some(path) = &self.agent {
            parts.push(format!("eval=agent:{}", path.display()));
        }
        for (k, v) in &self.eval {
            parts.push(format!("{k}={v}"));
        }
        parts.join(",")
    }
}
