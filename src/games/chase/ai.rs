//! The seeds' AIs for the chase games, built on the exact solution, and the fuzz-factor table.
//!
//! Fox & Hounds (seed `003`, gilith/solve's web strategy): of the legal moves keep S, the
//! children with the best result for the mover (a win if one exists); then if those children
//! are fox wins keep the slowest fox win, otherwise keep the children with the best
//! maximum-FoxBox value (larger event, then fewer plies). With fuzz factor p each legal move
//! gets weight `p + (1 − p)·[move ∈ S]`, normalised.
//!
//! Hasenspiel (seed `000`): the winner takes the fastest win, the loser the longest defence
//! (the solver's optimal play); the same fuzz weighting applies.
//!
//! The fuzz table: the side that loses the start plays optimally (maximising its probability of
//! winning, by dynamic programming over the state graph) against the fuzzed AI; and from the
//! "opposite position" (the first position in breadth-first order whose winner differs from the
//! start's) the other side does the same. The fairest p makes the first probability exactly
//! 1/2, found by bisection of [0, 1] to a width below 1e-5; the table lists 0, 1 and every
//! probe, as the seed's does.

use serde::Serialize;

use super::fast::{FastSolution, MaxFoxBox};
use super::{Chase, ChaseState, RUNNER};
use crate::game::{Action, Game, Player, Turn};
use crate::graph::StateId;
use crate::policy::Policy;
use crate::solve::{Solution, Value};

/// Marks the moves in S among children described by (value, maximum FoxBox).
pub fn seed_choice(children: &[(Value, Option<MaxFoxBox>)], mover: Player, out: &mut Vec<bool>) {
    out.clear();
    let wins = children.iter().any(|(v, _)| v.winner() == Some(mover));
    out.extend(
        children
            .iter()
            .map(|(v, _)| !wins || v.winner() == Some(mover)),
    );
    let kept = || children.iter().zip(out.iter()).filter(|(_, k)| **k);
    let runner_wins = kept().all(|((v, _), _)| v.winner() == Some(RUNNER));
    if runner_wins {
        let slowest = kept().filter_map(|((v, _), _)| v.plies()).max();
        for (k, (v, _)) in out.iter_mut().zip(children) {
            *k &= v.plies() == slowest;
        }
    } else if children.iter().all(|(_, m)| m.is_some()) {
        let best = kept().filter_map(|((_, m), _)| m.map(MaxFoxBox::key)).max();
        for (k, (_, m)) in out.iter_mut().zip(children) {
            *k &= m.map(MaxFoxBox::key) == best;
        }
    } else {
        // No FoxBox tables (Hasenspiel): fastest win, longest defence.
        let best = kept()
            .map(|((v, _), _)| v.key_for(mover))
            .max()
            .expect("a move");
        for (k, (v, _)) in out.iter_mut().zip(children) {
            *k &= v.key_for(mover) == best;
        }
    }
}

/// The seed's AI with fuzz factor p, reading values from a layered solution.
pub struct SeedAi<'a> {
    pub solution: &'a FastSolution,
    pub fuzz: f64,
}

impl SeedAi<'_> {
    /// Which legal moves are in S at `state`.
    pub fn choice(&self, game: &Chase, state: &ChaseState, legal: &[Action], out: &mut Vec<bool>) {
        let children: Vec<_> = legal
            .iter()
            .map(|&a| {
                let c = game.apply(state, a);
                (
                    self.solution
                        .value(&c)
                        .expect("children of reachable positions are solved"),
                    self.solution.max_foxbox(&c),
                )
            })
            .collect();
        let mover = state.to_move as Player;
        seed_choice(&children, mover, out);
    }
}

impl Policy<Chase> for SeedAi<'_> {
    fn name(&self) -> String {
        format!("seed-ai(fuzz={})", self.fuzz)
    }
    fn probabilities(
        &self,
        game: &Chase,
        state: &ChaseState,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) {
        let mut keep = Vec::new();
        self.choice(game, state, legal, &mut keep);
        weights(&keep, self.fuzz, probs);
    }
}

/// `p + (1 − p)·[kept]`, normalised.
fn weights(keep: &[bool], p: f64, out: &mut Vec<f64>) {
    out.clear();
    out.extend(keep.iter().map(|&k| p + (1.0 - p) * k as u8 as f64));
    let total: f64 = out.iter().sum();
    for w in out.iter_mut() {
        *w /= total;
    }
}

/// One row of the fuzz table.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FuzzRow {
    pub fuzz: f64,
    /// The start's losing side wins from the start (optimal against the fuzzed AI).
    pub from_start: f64,
    /// The opposite position's losing side wins from there.
    pub from_opposite: f64,
}

/// The seed's fuzz table for one board.
#[derive(Clone, Debug, Serialize)]
pub struct FuzzTable {
    pub game: String,
    pub params: serde_json::Value,
    /// The side that loses the start (it plays optimally in the first column).
    pub start_loser: String,
    pub start: String,
    /// The opposite position as a board, and its value.
    pub opposite: String,
    pub opposite_value: String,
    pub opposite_loser: String,
    /// The two columns' titles ("fox wins from start", "hounds win from opposite").
    #[serde(skip)]
    pub column_titles: [String; 2],
    pub rows: Vec<FuzzRow>,
    /// The p at which the start's loser wins exactly 1/2 (bisection to 1e-5).
    pub fairest: f64,
}

impl std::fmt::Display for FuzzTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} {}", self.game, self.params)?;
        writeln!(f, "start: {}", self.start)?;
        writeln!(
            f,
            "opposite position: {}\n{}",
            self.opposite_value, self.opposite
        )?;
        writeln!(f, "fairest fuzz factor: {:.6}", self.fairest)?;
        let [a, b] = &self.column_titles;
        writeln!(f, "{:>10} | {a} | {b}", "fuzz")?;
        for r in &self.rows {
            writeln!(
                f,
                "{:>10.6} | {:>w1$.3} | {:>w2$.3}",
                r.fuzz,
                r.from_start,
                r.from_opposite,
                w1 = a.len(),
                w2 = b.len()
            )?;
        }
        Ok(())
    }
}

/// The S marks of every edge of the generic graph, and the fuzz dynamic programs over it.
pub struct FuzzModel<'a> {
    generic: &'a Solution<Chase>,
    /// Aligned with the graph's edges.
    keep: Vec<bool>,
}

impl<'a> FuzzModel<'a> {
    pub fn new(generic: &'a Solution<Chase>, fast: &FastSolution) -> FuzzModel<'a> {
        let graph = generic.graph();
        let ai = SeedAi {
            solution: fast,
            fuzz: 0.0,
        };
        let mut keep = Vec::with_capacity(graph.num_edges());
        let mut marks = Vec::new();
        for id in 0..graph.len() as StateId {
            if let Turn::Player(_) = graph.turn(id) {
                ai.choice(graph.game(), graph.state(id), graph.actions(id), &mut marks);
                keep.extend_from_slice(&marks);
            }
        }
        FuzzModel { generic, keep }
    }

    /// Probability that `me` wins from every state, playing to maximise it, against the AI
    /// with fuzz `p` at the other seat.
    pub fn win_probabilities(&self, me: Player, p: f64) -> Vec<f64> {
        let graph = self.generic.graph();
        let mut prob = vec![0.0; graph.len()];
        for &id in graph.post_order().expect("acyclic") {
            let i = id as usize;
            prob[i] = match graph.turn(id) {
                Turn::Terminal => (self.generic.value_of(id).winner() == Some(me)) as u8 as f64,
                Turn::Player(q) if q == me => graph
                    .children(id)
                    .iter()
                    .map(|&c| prob[c as usize])
                    .fold(0.0, f64::max),
                Turn::Player(_) => {
                    let range = graph.edge_range(id);
                    let (mut num, mut den) = (0.0, 0.0);
                    for (k, &c) in self.keep[range].iter().zip(graph.children(id)) {
                        let w = p + (1.0 - p) * *k as u8 as f64;
                        num += w * prob[c as usize];
                        den += w;
                    }
                    num / den
                }
                Turn::Chance => unreachable!("deterministic"),
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

    /// The seed's table and the fairest p.
    pub fn table(&self) -> FuzzTable {
        let graph = self.generic.graph();
        let game = graph.game();
        let start_value = self.generic.value_of(graph.start());
        let winner = start_value.winner().expect("no draws in chase games");
        let loser = 1 - winner;
        let opposite = self.opposite().expect("a position the other side wins");
        let from_start = |p: f64| self.win_probabilities(loser, p)[graph.start() as usize];
        let from_opposite = |p: f64| self.win_probabilities(winner, p)[opposite as usize];
        let row = |p: f64| FuzzRow {
            fuzz: p,
            from_start: from_start(p),
            from_opposite: from_opposite(p),
        };
        let mut rows = vec![row(0.0), row(1.0)];
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut fairest = 0.5;
        while hi - lo >= 1e-5 {
            let mid = (lo + hi) / 2.0;
            let r = row(mid);
            fairest = mid;
            if r.from_start < 0.5 {
                lo = mid;
            } else {
                hi = mid;
            }
            rows.push(r);
        }
        rows.sort_by(|a, b| a.fuzz.total_cmp(&b.fuzz));
        let opp_state = graph.state(opposite);
        FuzzTable {
            game: game.name().to_string(),
            params: game.params(),
            start_loser: game.player_name(loser).to_string(),
            start: start_value.describe(game),
            opposite: game.render(opp_state),
            opposite_value: self.generic.value_of(opposite).describe(game),
            opposite_loser: game.player_name(winner).to_string(),
            column_titles: [
                format!("{} from start", game.player_wins(loser)),
                format!("{} from opposite", game.player_wins(winner)),
            ],
            rows,
            fairest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chase::fast::FastOptions;
    use crate::games::chase::{Escape, FoxHoundsParams};

    fn table(size: usize) -> FuzzTable {
        let chase = Chase::fox_hounds(FoxHoundsParams {
            size,
            escape: Escape::Area,
        })
        .unwrap();
        let fast = FastSolution::solve(
            &chase,
            FastOptions {
                foxbox: true,
                ..FastOptions::default()
            },
            None,
        )
        .unwrap();
        let generic = Solution::solve(&chase, 10_000_000).unwrap();
        FuzzModel::new(&generic, &fast).table()
    }

    fn row(t: &FuzzTable, p: f64) -> FuzzRow {
        *t.rows
            .iter()
            .find(|r| (r.fuzz - p).abs() < 5e-7)
            .unwrap_or_else(|| panic!("no row {p} in {t}"))
    }

    #[test]
    fn four_by_four_table_of_the_reference() {
        let t = table(4);
        assert_eq!(format!("{:.6}", t.fairest), "0.095558");
        assert_eq!(t.opposite_value, "fox wins in 3 plies");
        for (p, a, b) in [
            (0.0, 0.0, 0.0),
            (0.0625, 0.374, 0.163),
            (0.25, 0.797, 0.467),
            (0.5, 0.933, 0.667),
            (1.0, 0.986, 0.833),
        ] {
            let r = row(&t, p);
            assert_eq!(
                format!("{:.3} {:.3}", r.from_start, r.from_opposite),
                format!("{a:.3} {b:.3}"),
                "p = {p}"
            );
        }
    }

    /// The rules file publishes 6x6's fairest p. (gilith/solve's 6x6 document predates the
    /// FoxBox rule of the rules file — its start shows "Max Never 10", an older FoxBox — so only
    /// its first column, where the fuzzed AI plays the winning fox, can be compared.)
    #[test]
    fn six_by_six_fairest_fuzz_factor() {
        let t = table(6);
        assert_eq!(format!("{:.6}", t.fairest), "0.041771");
        assert_eq!(t.opposite_value, "hounds win in 17 plies");
        for (p, a) in [(0.03125, 0.409), (0.125, 0.847), (0.5, 0.995)] {
            assert_eq!(
                format!("{:.3}", row(&t, p).from_start),
                format!("{a:.3}"),
                "p = {p}"
            );
        }
    }

    /// Seed 003's table (8x8), every row, and its opposite position.
    #[test]
    fn eight_by_eight_table_of_the_seed() {
        let t = table(8);
        assert_eq!(format!("{:.6}", t.fairest), "0.006935");
        assert_eq!(t.opposite_value, "fox wins in 29 plies");
        assert!(t.opposite.contains(" 7 | * F * *|") && t.opposite.contains(" 1 | H H * H|"));
        let seed = [
            (0.000000, 0.000, 0.000),
            (0.003906, 0.326, 0.150),
            (0.005859, 0.444, 0.215),
            (0.006836, 0.495, 0.245),
            (0.006897, 0.498, 0.247),
            (0.006927, 0.499, 0.248),
            (0.006935, 0.500, 0.248),
            (0.006943, 0.500, 0.249),
            (0.006958, 0.501, 0.249),
            (0.007080, 0.507, 0.253),
            (0.007324, 0.518, 0.260),
            (0.007812, 0.541, 0.275),
            (0.015625, 0.780, 0.466),
            (0.031250, 0.943, 0.696),
            (0.062500, 0.995, 0.890),
            (0.125000, 1.000, 0.979),
            (0.250000, 1.000, 0.997),
            (0.500000, 1.000, 0.998),
            (1.000000, 1.000, 0.999),
        ];
        assert_eq!(t.rows.len(), seed.len());
        for (r, (p, a, b)) in t.rows.iter().zip(seed) {
            assert_eq!(
                format!("{:.6} {:.3} {:.3}", r.fuzz, r.from_start, r.from_opposite),
                format!("{p:.6} {a:.3} {b:.3}")
            );
        }
    }
}
