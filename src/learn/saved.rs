//! Saved agents: what a learner learned, written to a Parquet file any notebook reads, and read
//! back into a learner that plays and answers the evaluator exactly as the one saved (the same
//! policy bytes, the same exact evaluation).
//!
//! **The format** (version [`VERSION`]; docs/agents.md shows it with examples). One long table,
//! one row per learned number:
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `part` | string | which of the learner's tables: `q`, `q2` (Double Q's second), `counts` (Monte-Carlo's visits), `v` (afterstate values), `beads` (matchboxes), or a weight array's name |
//! | `position` | string, null for weight arrays | the position's key ([`Game::write_state_key`]): its notation (what `solvedgym moves` writes and `--state` reads), and in Hackenbush the exact edges after it |
//! | `action` | u32, null for one value per position | the move's action id (a row lists the legal moves ascending; a matchbox its box's moves), or a weight's index in its array |
//! | `move` | string, null where `action` is | the move in the game's notation |
//! | `value` | f64 | the number |
//!
//! and, in the file's key-value metadata under [`METADATA_KEY`], the [`AgentHeader`] as JSON:
//! the format and its version, the learner's kind, label and every config key, the game and
//! its parameters, the seats it trained at, its episodes, and where it was trained (the run,
//! opponent, seed, the resolved config and its hash). Positions are keyed by their notation,
//! exact where the notation is not (Hackenbush), not by an index of this build, so a file outlives the program that wrote it; a file is
//! refused, with both games named, when loaded against another game or other parameters.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail, ensure};
use serde::{Deserialize, Serialize};

use super::{Learner, LearnerConfig};
use crate::core::game::{Action, Game, Player};
use crate::core::notation::position_text;
use crate::core::policy::Policy;
use crate::core::random::SgRng;
use crate::io::table::{Table, Text, Values};

/// What the file's metadata calls the format.
pub const FORMAT: &str = "solvedgym-agent";
/// The format's version: a file of another is refused, not misread.
pub const VERSION: u32 = 1;
/// The key of the header in the Parquet file's key-value metadata.
pub const METADATA_KEY: &str = "solvedgym.agent";

/// What a learner has learned, as [`Learner::snapshot`] gives it and [`Learner::restore`] takes
/// it back: rows of numbers keyed by position, arrays of weights, and its episodes (from which
/// its schedules are worked out again).
#[derive(Clone, Debug)]
pub struct Snapshot<G: Game> {
    pub episodes: u64,
    pub rows: Vec<SavedRow<G>>,
    pub arrays: Vec<(String, Vec<f64>)>,
}

impl<G: Game> Default for Snapshot<G> {
    fn default() -> Self {
        Snapshot {
            episodes: 0,
            rows: Vec::new(),
            arrays: Vec::new(),
        }
    }
}

/// One row of a learner's table: its part (`q`, `v`, `beads`, ...), the position, the moves
/// the values belong to (empty: one value for the position) and the values.
#[derive(Clone, Debug)]
pub struct SavedRow<G: Game> {
    pub part: String,
    pub state: G::State,
    pub actions: Vec<Action>,
    pub values: Vec<f64>,
}

impl<G: Game> Snapshot<G> {
    /// The rows of `part`, in the order saved.
    pub fn part<'a>(&'a self, part: &'a str) -> impl Iterator<Item = &'a SavedRow<G>> + 'a {
        self.rows.iter().filter(move |r| r.part == part)
    }
}

/// Checks that a saved row of action values lists exactly the legal actions of its position
/// (the rules of this build), so the values land on the moves they were learned for.
pub fn check_legal<G: Game>(game: &G, row: &SavedRow<G>) -> Result<(), String> {
    let mut legal = Vec::new();
    game.legal_actions(&row.state, &mut legal);
    if legal != row.actions || row.values.len() != legal.len() {
        return Err(format!(
            "position {}: the file has {} values for moves {:?}, the rules give the moves {:?}",
            position_text(game, &row.state).unwrap_or_default(),
            row.values.len(),
            row.actions,
            legal
        ));
    }
    Ok(())
}

/// Where an agent was trained: a run of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// The run's name (`name`, or `study/label`).
    pub run: String,
    pub opponent: String,
    pub seed: u64,
    /// The episodes it trained.
    pub episodes: u64,
    /// The condition's place among the run's learner × opponent pairs.
    pub condition: usize,
    pub config_hash: String,
    /// The resolved config (every default filled in): the run can be made again from it.
    pub config: String,
}

/// What an agent file says about itself (its Parquet metadata under [`METADATA_KEY`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentHeader {
    pub format: String,
    pub version: u32,
    /// The learner's kind (`kind = "..."` of a config) and label.
    pub kind: String,
    pub label: String,
    /// Every key of the learner's config, as TOML (whose numbers read back to the bit).
    pub learner: String,
    pub game: String,
    pub game_params: serde_json::Value,
    /// The players it trained as (every player in self-play).
    pub seats: Vec<String>,
    pub episodes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// The program that wrote it: version and commit.
    pub solvedgym: String,
    pub commit: String,
}

/// A saved agent, loaded: its header, its learner's config and the learner, restored.
pub struct Agent<G: Game> {
    pub header: AgentHeader,
    pub config: LearnerConfig,
    pub learner: Box<dyn Learner<G>>,
}

/// Writes what `learner` (built from `config`, labelled `label`, trained at `seats` of `game`)
/// has learned to `path` as a saved agent (atomically). `false`: its kind saves nothing, and
/// nothing was written.
pub fn save_agent<G: Game>(
    path: &Path,
    game: &G,
    learner: &dyn Learner<G>,
    config: &LearnerConfig,
    label: &str,
    seats: &[Player],
    origin: Option<Origin>,
) -> Result<bool> {
    let Some(snapshot) = learner.snapshot(game) else {
        return Ok(false);
    };
    let header = AgentHeader {
        format: FORMAT.to_string(),
        version: VERSION,
        kind: config.kind().to_string(),
        label: label.to_string(),
        learner: toml::to_string(&config.to_table())?,
        game: game.name().to_string(),
        game_params: game.params(),
        seats: seats
            .iter()
            .map(|&p| game.player_name(p).to_string())
            .collect(),
        episodes: snapshot.episodes,
        origin,
        solvedgym: crate::io::version::VERSION.to_string(),
        commit: crate::io::version::COMMIT.unwrap_or("unknown").to_string(),
    };
    let table = table(game, &snapshot)?;
    let metadata = vec![(METADATA_KEY.to_string(), serde_json::to_string(&header)?)];
    crate::io::parquet::write_table(path, &table, &metadata)
        .with_context(|| format!("saving the agent {}", path.display()))?;
    Ok(true)
}

/// The long table of a snapshot.
fn table<G: Game>(game: &G, snapshot: &Snapshot<G>) -> Result<Table> {
    // Rows in one order whatever the learner's table layout (the game played from its graph
    // or by its rules gives the same file): by part, as the snapshot first names them, then by
    // the position's key.
    let mut parts: Vec<&str> = Vec::new();
    let mut order = Vec::with_capacity(snapshot.rows.len());
    for (i, row) in snapshot.rows.iter().enumerate() {
        let text = game.write_state_key(&row.state).ok_or_else(|| {
            anyhow!(
                "{} has no notation for a position the learner holds",
                game.name()
            )
        })?;
        let rank = match parts.iter().position(|p| *p == row.part) {
            Some(r) => r,
            None => {
                parts.push(&row.part);
                parts.len() - 1
            }
        };
        order.push((rank, text, i));
    }
    order.sort_unstable();
    // The columns built coded (a position's key held once, its rows pointing at it): a table of
    // millions of positions takes its file's worth of memory a few times over, not ten. Checked
    // before it is built.
    let rows: usize = snapshot
        .rows
        .iter()
        .map(|r| r.actions.len().max(1))
        .sum::<usize>()
        + snapshot.arrays.iter().map(|(_, v)| v.len()).sum::<usize>();
    let key_bytes: usize = order
        .iter()
        .map(|(_, text, i)| text.len() * snapshot.rows[*i].actions.len().max(1))
        .sum();
    crate::io::memory::check(
        || format!("writing the agent's table ({rows} rows)"),
        2 * (key_bytes + rows * 64) as u64,
    )?;
    let (mut part, mut position, mut mv) = (Text::default(), Text::default(), Text::default());
    let mut action: Vec<Option<u32>> = Vec::with_capacity(rows);
    let mut value: Vec<f64> = Vec::with_capacity(rows);
    for (_, text, i) in &order {
        let row = &snapshot.rows[*i];
        if row.actions.is_empty() {
            ensure!(row.values.len() == 1, "a row without moves holds one value");
            part.push(Some(&row.part));
            position.push(Some(text));
            action.push(None);
            mv.push(None);
            value.push(row.values[0]);
            continue;
        }
        ensure!(
            row.actions.len() == row.values.len(),
            "a row holds a value per move"
        );
        for (&a, &v) in row.actions.iter().zip(&row.values) {
            part.push(Some(&row.part));
            position.push(Some(text));
            action.push(Some(a));
            mv.push(Some(&game.action_to_string(&row.state, a)));
            value.push(v);
        }
    }
    drop(order);
    for (name, values) in &snapshot.arrays {
        for (i, &v) in values.iter().enumerate() {
            part.push(Some(name));
            position.push(None);
            action.push(Some(
                u32::try_from(i).context("an array of over 2^32 weights")?,
            ));
            mv.push(None);
            value.push(v);
        }
    }
    Table::new(vec![
        ("part".into(), Values::Text(part)),
        ("position".into(), Values::Text(position)),
        ("action".into(), Values::U32(action)),
        ("move".into(), Values::Text(mv)),
        ("value".into(), Values::F64(value)),
    ])
    .context("building the agent's table")
}

/// The header of the agent file at `path`, checked to be an agent of a version this build
/// reads (the rows are not read).
pub fn read_header(path: &Path) -> Result<AgentHeader> {
    let metadata = crate::io::parquet::read_metadata(path)?;
    let text = metadata
        .iter()
        .find(|(k, _)| k == METADATA_KEY)
        .map(|(_, v)| v)
        .ok_or_else(|| {
            anyhow!(
                "{}: a Parquet file, but not a saved agent (no `{METADATA_KEY}` in its metadata)",
                path.display()
            )
        })?;
    let header: AgentHeader = serde_json::from_str(text).map_err(|e| {
        anyhow!(
            "{}: the agent's header does not read: {}",
            path.display(),
            crate::io::text::plain_words(&e.to_string())
        )
    })?;
    ensure!(
        header.format == FORMAT,
        "{}: format `{}`, not `{FORMAT}`",
        path.display(),
        header.format
    );
    ensure!(
        header.version == VERSION,
        "{}: a saved agent of format version {}; this solvedgym reads version {VERSION}",
        path.display(),
        header.version
    );
    Ok(header)
}

/// Loads the agent at `path` for `game`: its learner built from the saved config and given
/// back what it learned. Refused, naming both, when the file was saved from another game or
/// other parameters.
pub fn load_agent<G: Game>(game: &G, path: &Path) -> Result<Agent<G>> {
    #[cfg(test)]
    reads::count(path);
    let header = read_header(path)?;
    if header.game != game.name() || header.game_params != game.params() {
        bail!(
            "{}: an agent of {} {}, not of {} {}; give the game and parameters it was trained on",
            path.display(),
            header.game,
            header.game_params,
            game.name(),
            game.params()
        );
    }
    let keys: toml::Table = toml::from_str(&header.learner)
        .with_context(|| format!("{}: the learner's config does not read", path.display()))?;
    let config = match LearnerConfig::deserialize(&header.kind, toml::Value::Table(keys)) {
        None => bail!(
            "{}: a learner of kind `{}`, which this solvedgym does not have (it has: {})",
            path.display(),
            header.kind,
            LearnerConfig::KINDS.join(", ")
        ),
        Some(c) => {
            c.with_context(|| format!("{}: the learner's config does not read", path.display()))?
        }
    };
    check_seats(game, &header).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let snapshot = read_snapshot(game, path, header.episodes)?;
    let known = saved_parts(&config);
    for part in snapshot
        .rows
        .iter()
        .map(|r| r.part.as_str())
        .chain(snapshot.arrays.iter().map(|(name, _)| name.as_str()))
    {
        ensure!(
            known.contains(&part),
            "{}: rows of part `{part}`, which a {} learner does not have (its parts: {}); the \
             file was not written by this learner",
            path.display(),
            header.kind,
            known.join(", ")
        );
    }
    let mut learner = config.build(game, header.label.clone());
    learner
        .restore(game, snapshot)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Agent {
        header,
        config,
        learner,
    })
}

/// The parts (`part` column) an agent of `config`'s kind saves: any other is refused, so that
/// rows of a table the learner does not have are never silently dropped.
pub fn saved_parts(config: &LearnerConfig) -> &'static [&'static str] {
    match config {
        LearnerConfig::Matchbox(_) => &["beads"],
        LearnerConfig::MonteCarlo(_) => &["q", "counts"],
        LearnerConfig::Td(_) => &["v"],
        LearnerConfig::QLearning(c) if c.double => &["q", "q2"],
        LearnerConfig::QLearning(_) => &["q"],
        LearnerConfig::NTuple(_) | LearnerConfig::Linear(_) | LearnerConfig::Mlp(_) => &["weights"],
    }
}

/// Checks the seats a header names: at least one, each a player of `game`, none twice.
pub fn check_seats<G: Game>(game: &G, header: &AgentHeader) -> Result<Vec<Player>, String> {
    let names: Vec<&str> = (0..game.num_players())
        .map(|p| game.player_name(p as Player))
        .collect();
    if header.seats.is_empty() {
        return Err("the agent's header names no seat it trained at".to_string());
    }
    let mut seats = Vec::with_capacity(header.seats.len());
    for seat in &header.seats {
        let Some(p) = names.iter().position(|n| n == seat) else {
            return Err(format!(
                "the agent's header names the seat `{}`, which {} does not have (its seats: {})",
                crate::io::text::abbreviated(seat, 100),
                game.name(),
                names.join(", ")
            ));
        };
        if seats.contains(&(p as Player)) {
            return Err(format!("the agent's header names the seat `{seat}` twice"));
        }
        seats.push(p as Player);
    }
    Ok(seats)
}

/// The rows of the agent file at `path`, positions read by `game`'s state keys.
fn read_snapshot<G: Game>(game: &G, path: &Path, episodes: u64) -> Result<Snapshot<G>> {
    let table = crate::io::parquet::read_table(path)?;
    let column = |name: &str| {
        table
            .column(name)
            .with_context(|| format!("{}: no column `{name}`", path.display()))
    };
    let bad = |what: &str, values: &Values| {
        anyhow!(
            "{}: column `{what}` has the wrong type ({})",
            path.display(),
            values.type_name()
        )
    };
    let part = match column("part")? {
        Values::Text(t) => t,
        other => return Err(bad("part", other)),
    };
    let position = match column("position")? {
        Values::Text(t) => t,
        other => return Err(bad("position", other)),
    };
    let action = match column("action")? {
        Values::U32(a) => a,
        other => return Err(bad("action", other)),
    };
    let value = match column("value")? {
        Values::F64(v) => v,
        other => return Err(bad("value", other)),
    };
    let mut snapshot = Snapshot {
        episodes,
        ..Snapshot::default()
    };
    let mut last: Option<(String, String)> = None;
    for (i, (((p, pos), a), v)) in part
        .iter()
        .zip(position.iter())
        .zip(action.iter().copied())
        .zip(value.iter().map(|&v| Some(v)))
        .enumerate()
    {
        let row = i + 1;
        let (Some(p), Some(v)) = (p, v) else {
            bail!("{}: row {row} has no part or no value", path.display());
        };
        if !v.is_finite() {
            bail!(
                "{}: row {row} (part `{p}`{}) holds the value {v}, which is no number a policy \
                 can be read from (did its training diverge?)",
                path.display(),
                pos.map(|pos| format!(", position `{}`", crate::io::text::abbreviated(pos, 100)))
                    .unwrap_or_default()
            );
        }
        match pos {
            None => {
                let a = a.ok_or_else(|| {
                    anyhow!("{}: row {row}: a weight without its index", path.display())
                })? as usize;
                match snapshot.arrays.last_mut() {
                    Some((name, values)) if name == p => {
                        ensure!(
                            a == values.len(),
                            "{}: row {row}: weight {a} of `{p}` out of order",
                            path.display()
                        );
                        values.push(v);
                    }
                    _ => {
                        ensure!(
                            a == 0,
                            "{}: row {row}: `{p}` starts at weight {a}",
                            path.display()
                        );
                        snapshot.arrays.push((p.to_string(), vec![v]));
                    }
                }
                last = None;
            }
            Some(pos) => {
                let same = last
                    .as_ref()
                    .is_some_and(|(lp, lpos)| lp == p && lpos == pos)
                    && a.is_some();
                if !same {
                    let state = game.read_state_key(pos).map_err(|e| {
                        anyhow!("{}: row {row}: position `{pos}`: {e}", path.display())
                    })?;
                    snapshot.rows.push(SavedRow {
                        part: p.to_string(),
                        state,
                        actions: Vec::new(),
                        values: Vec::new(),
                    });
                    last = Some((p.to_string(), pos.to_string()));
                }
                let r = snapshot.rows.last_mut().expect("pushed above");
                if let Some(a) = a {
                    r.actions.push(a);
                } else {
                    last = None;
                }
                r.values.push(v);
            }
        }
    }
    Ok(snapshot)
}

impl<G: Game> Agent<G> {
    /// The agent's name in tables and legends: `agent(label)`.
    pub fn name(&self) -> String {
        format!("agent({})", self.header.label)
    }
}

/// A saved agent plays its greedy policy (the best move by what it learned, ties shared
/// equally).
impl<G: Game> Policy<G> for Agent<G> {
    fn name(&self) -> String {
        Agent::name(self)
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.learner
            .greedy_policy()
            .probabilities(game, state, legal, probs)
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        self.learner.greedy_policy().choose(game, state, legal, rng)
    }
}

/// How many times each agent file was loaded, for the tests that check that a file is read
/// once where it is meant to be.
#[cfg(test)]
pub(crate) mod reads {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    static READS: Mutex<BTreeMap<PathBuf, usize>> = Mutex::new(BTreeMap::new());

    pub(super) fn count(path: &Path) {
        *READS.lock().unwrap().entry(path.to_path_buf()).or_default() += 1;
    }

    /// The loads of the agent at `path` so far (the path as given to the loader).
    pub(crate) fn of(path: &Path) -> usize {
        READS.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}
