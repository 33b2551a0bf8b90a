//! What `solvedgym solve` reports of a solved game.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::io::text::group;

/// The summary of a solved game, as printed by `solvedgym solve --json`. Counts of games are
/// decimal strings because they do not fit in a JSON number.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    pub game: String,
    pub params: serde_json::Value,
    /// The players in turn order (the first moves first).
    pub players: Vec<String>,
    /// Reachable positions, the start and terminal positions included.
    pub states: usize,
    pub terminal_states: usize,
    /// Complete games (distinct move sequences from the start to an end).
    pub games: String,
    /// Of those, the games each player wins.
    pub wins: BTreeMap<String, String>,
    pub draws: String,
    /// Who wins the start under perfect play (`null` for a draw).
    pub winner: Option<String>,
    /// Plies to the end under perfect play when there is a winner.
    pub plies: Option<u32>,
    /// The start's value in words.
    pub start: String,
    /// Reachable states each player wins under perfect play.
    pub winning_states: BTreeMap<String, usize>,
    /// Wall-clock time of the solve (left out where output must be reproducible).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Game-specific figures (FoxBox values, shares), flattened into the JSON object.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl std::fmt::Display for SolveReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params = match &self.params {
            serde_json::Value::Object(m) if !m.is_empty() => format!(
                " ({})",
                m.iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => String::new(),
        };
        writeln!(f, "{}{}", self.game, params)?;
        // Label and text in two columns; the counts of games right-aligned under each other.
        let mut lines: Vec<(String, String)> = vec![("start:".into(), self.start.clone())];
        // A solver that does not enumerate (values, probabilities) reports no states.
        if self.states > 0 {
            lines.push((
                "states:".into(),
                format!(
                    "{} reachable ({} terminal)",
                    group(&self.states.to_string()),
                    group(&self.terminal_states.to_string())
                ),
            ));
        }
        lines.push(("possible games:".into(), group(&self.games)));
        // Solvers of games with chance count no wins (their truth is probabilities).
        if !self.wins.is_empty() {
            let mut counts: Vec<(String, String)> = self
                .players
                .iter()
                .filter_map(|p| Some((format!("  won by {p}"), group(self.wins.get(p)?))))
                .collect();
            counts.push(("  drawn".into(), group(&self.draws)));
            let width = counts.iter().map(|(_, n)| n.len()).max().unwrap_or(0);
            lines.extend(counts.into_iter().map(|(l, n)| (l, format!("{n:>width$}"))));
        }
        for player in &self.players {
            let Some(n) = self.winning_states.get(player) else {
                continue;
            };
            lines.push((
                format!("states {player} wins:"),
                format!(
                    "{} ({:.2} %)",
                    group(&n.to_string()),
                    100.0 * *n as f64 / self.states as f64
                ),
            ));
        }
        for (key, value) in &self.extra {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) if key.ends_with("_mb") => {
                    format!("{:.1} MiB", n.as_f64().unwrap_or(0.0))
                }
                serde_json::Value::Number(n) if n.is_f64() => {
                    format!("{:.4} %", 100.0 * n.as_f64().unwrap_or(0.0))
                }
                serde_json::Value::Object(m) => {
                    // Per-player figures in seat order, others as they come.
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort_by_key(|k| self.players.iter().position(|p| p == *k));
                    keys.iter()
                        .map(|k| {
                            let v = &m[k.as_str()];
                            match v.as_f64() {
                                Some(x) if v.is_f64() => format!("{k} {x:.4}"),
                                _ => format!("{k} {v}"),
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                }
                serde_json::Value::Array(items) if items.is_empty() => "none".to_string(),
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(", "),
                v => group(&v.to_string()),
            };
            let name = key.strip_suffix("_mb").unwrap_or(key).replace('_', " ");
            lines.push((format!("{name}:"), text));
        }
        let width = lines
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (label, text) in lines {
            writeln!(f, "  {label:<width$} {text}")?;
        }
        match self.seconds {
            Some(s) => write!(f, "  solved in {s:.3} s"),
            None => Ok(()),
        }
    }
}

/// What `solvedgym solve` prints: the exact solver's report, or (for a game whose truth is
/// not a table of states, such as Hackenbush's values) one entry per position, each a text for
/// people and an object for JSON (one line each with `--json`).
#[derive(Clone, Debug)]
pub enum SolveOutput {
    Report(Box<SolveReport>),
    Entries(Vec<(String, serde_json::Value)>),
}
