//! The fuzz-factor table (gilith/solve's Fox & Hounds pages, for any two-player game with an
//! oracle): how often the side that loses the start wins against the oracle's strongest player
//! when that player adds fuzz p.
//!
//! The fuzzed player gives each legal move the weight `p + (1 − p)·[move ∈ S]`, normalised, where
//! S is the set its oracle marks ([`Oracle::strong_choice`]: the FoxBox rule in Fox & Hounds,
//! the moves optimal to the ply elsewhere). The side that loses the start plays to maximise its
//! probability of winning, computed exactly by dynamic programming over the state graph; from
//! the "opposite position" (the first position in breadth-first order whose winner differs from
//! the start's) the other side does the same. The fairest p makes the first probability exactly
//! 1/2, found by bisection of [0, 1] to a width below 1e-5; the table lists 0, 1 and every probe,
//! as the reference's does.

use serde::Serialize;
use thiserror::Error;

use crate::core::game::{Game, Player, Turn};
use crate::core::graph::StateId;
use crate::truth::oracle::Oracle;
use crate::truth::{Solution, Solve};

#[derive(Debug, Error, PartialEq)]
pub enum FuzzError {
    #[error(
        "the fuzz table (gilith/solve's, for fox-hounds) needs a side that loses the start; {game}'s start is a draw"
    )]
    Draw { game: &'static str },
    #[error("the fuzz table is defined for two-player games; {game} has {players}")]
    NotTwoPlayer { game: &'static str, players: usize },
    #[error("the oracle does not know the moves of this position:\n{state}")]
    Unknown { state: String },
}

/// One row of the fuzz table.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FuzzRow {
    pub fuzz: f64,
    /// The start's losing side wins from the start (optimal against the fuzzed AI).
    pub from_start: f64,
    /// The opposite position's losing side wins from there (`None`: every position is won by
    /// the start's winner, as on the 2x2 Fox & Hounds board).
    pub from_opposite: Option<f64>,
}

/// The fuzz table for one game.
#[derive(Clone, Debug, Serialize)]
pub struct FuzzTable {
    pub game: String,
    pub params: serde_json::Value,
    /// The side that loses the start (it plays optimally in the first column).
    pub start_loser: String,
    pub start: String,
    /// The opposite position as a board, and its value (`None` where there is none).
    pub opposite: Option<String>,
    pub opposite_value: Option<String>,
    pub opposite_loser: Option<String>,
    /// The two columns' titles ("fox wins from start", "hounds win from opposite").
    #[serde(skip)]
    pub column_titles: [String; 2],
    pub rows: Vec<FuzzRow>,
    /// The p at which the start's loser wins exactly 1/2 (bisection to 1e-5); `None` where it
    /// wins less than half even against random play (p = 1).
    pub fairest: Option<f64>,
}

impl std::fmt::Display for FuzzTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} {}", self.game, self.params)?;
        writeln!(f, "start: {}", self.start)?;
        match (&self.opposite_value, &self.opposite) {
            (Some(value), Some(board)) => writeln!(f, "opposite position: {value}\n{board}")?,
            _ => writeln!(
                f,
                "opposite position: none (the start's winner wins every position)"
            )?,
        }
        match self.fairest {
            Some(p) => writeln!(f, "fairest fuzz factor: {p:.6}")?,
            None => writeln!(
                f,
                "fairest fuzz factor: none (the start's loser wins less than half even against random play)"
            )?,
        }
        let [a, b] = &self.column_titles;
        writeln!(f, "{:>10} | {a} | {b}", "fuzz")?;
        for r in &self.rows {
            let opposite = r
                .from_opposite
                .map_or("-".to_string(), |x| format!("{x:.3}"));
            writeln!(
                f,
                "{:>10.6} | {:>w1$.3} | {:>w2$}",
                r.fuzz,
                r.from_start,
                opposite,
                w1 = a.len(),
                w2 = b.len()
            )?;
        }
        Ok(())
    }
}

/// The S marks of every edge of the enumerated graph, and the fuzz dynamic programs over it.
pub struct FuzzModel<'a, G: Game> {
    generic: &'a Solution<G>,
    /// Aligned with the graph's edges (true at chance edges, which are never weighted).
    keep: Vec<bool>,
}

impl<'a, G: Game> FuzzModel<'a, G> {
    /// Marks S at every position of `generic`'s graph, as `oracle`'s strongest player sees it.
    pub fn new(generic: &'a Solution<G>, oracle: &dyn Oracle<G>) -> Result<Self, FuzzError> {
        let graph = generic.graph();
        let game = graph.game();
        if game.num_players() != 2 {
            return Err(FuzzError::NotTwoPlayer {
                game: game.name(),
                players: game.num_players(),
            });
        }
        let mut keep = Vec::with_capacity(graph.num_edges());
        let mut marks = Vec::new();
        for id in 0..graph.len() as StateId {
            if let Turn::Player(_) = graph.turn(id) {
                if !oracle.strong_choice(graph.state(id), graph.actions(id), &mut marks) {
                    return Err(FuzzError::Unknown {
                        state: game.render(graph.state(id)),
                    });
                }
                keep.extend_from_slice(&marks);
            } else {
                keep.extend(std::iter::repeat_n(true, graph.children(id).len()));
            }
        }
        Ok(FuzzModel { generic, keep })
    }

    /// Probability that `me` wins from every state, playing to maximise it, against the AI
    /// with fuzz `p` at the other seat (chance events at their probabilities).
    pub fn win_probabilities(&self, me: Player, p: f64) -> Vec<f64> {
        let graph = self.generic.graph();
        let mut prob = vec![0.0; graph.len()];
        for &id in graph.post_order().expect("a solution's graph is acyclic") {
            let i = id as usize;
            let children = graph.children(id);
            prob[i] = match graph.turn(id) {
                Turn::Terminal => (self.generic.value_of(id).winner() == Some(me)) as u8 as f64,
                Turn::Player(q) if q == me => children
                    .iter()
                    .map(|&c| prob[c as usize])
                    .fold(0.0, f64::max),
                Turn::Player(_) => {
                    let range = graph.edge_range(id);
                    let (mut num, mut den) = (0.0, 0.0);
                    for (k, &c) in self.keep[range].iter().zip(children) {
                        let w = p + (1.0 - p) * *k as u8 as f64;
                        num += w * prob[c as usize];
                        den += w;
                    }
                    num / den
                }
                Turn::Chance => graph
                    .probabilities(id)
                    .iter()
                    .zip(children)
                    .map(|(q, &c)| q * prob[c as usize])
                    .sum(),
            };
        }
        prob
    }

    /// The first state in breadth-first order whose winner differs from the start's.
    pub fn opposite(&self) -> Option<StateId> {
        let start = self.generic.value_of(self.generic.graph().start()).winner();
        (0..self.generic.graph().len() as StateId)
            .find(|&id| self.generic.value_of(id).winner() != start)
    }

    /// The table and the fairest p.
    pub fn table(&self) -> Result<FuzzTable, FuzzError> {
        let graph = self.generic.graph();
        let game = graph.game();
        let start_value = self.generic.value_of(graph.start());
        let winner = start_value
            .winner()
            .ok_or(FuzzError::Draw { game: game.name() })?;
        let loser = 1 - winner;
        let opposite = self.opposite();
        let row = |p: f64| FuzzRow {
            fuzz: p,
            from_start: self.win_probabilities(loser, p)[graph.start() as usize],
            from_opposite: opposite.map(|o| self.win_probabilities(winner, p)[o as usize]),
        };
        let mut rows = vec![row(0.0), row(1.0)];
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut fairest = (rows[1].from_start >= 0.5).then_some(0.5);
        while fairest.is_some() && hi - lo >= 1e-5 {
            let mid = (lo + hi) / 2.0;
            let r = row(mid);
            fairest = Some(mid);
            if r.from_start < 0.5 {
                lo = mid;
            } else {
                hi = mid;
            }
            rows.push(r);
        }
        rows.sort_by(|a, b| a.fuzz.total_cmp(&b.fuzz));
        Ok(FuzzTable {
            game: game.name().to_string(),
            params: game.params(),
            start_loser: game.player_name(loser).to_string(),
            start: start_value.describe(game),
            opposite: opposite.map(|o| game.render(graph.state(o))),
            opposite_value: opposite.map(|o| self.generic.value_of(o).describe(game)),
            opposite_loser: opposite.map(|_| game.player_name(winner).to_string()),
            column_titles: [
                format!("{} from start", game.player_wins(loser)),
                format!("{} from opposite", game.player_wins(winner)),
            ],
            rows,
            fairest,
        })
    }
}

/// The fuzz table of `game`: over its enumerated state graph, against the strongest player of
/// its own solver (of the enumerated solution where it has none).
pub fn fuzz_table<G: Solve>(game: &G, progress: bool) -> anyhow::Result<FuzzTable> {
    use anyhow::Context;
    let own = match game.capabilities().solver {
        crate::core::game::Solver::Own { .. } => Some(game.solve(&crate::truth::SolveOptions {
            progress,
            ..Default::default()
        })?),
        _ => None,
    };
    let generic = Solution::solve(game, crate::truth::DEFAULT_STATE_LIMIT)
        .context("the fuzz table needs every position of the game enumerated")?;
    let oracle: &dyn Oracle<G> = match &own {
        Some(own) => own.as_ref(),
        None => &generic,
    };
    Ok(FuzzModel::new(&generic, oracle)?.table()?)
}
