//! The FoxBox AI of the chase games, built on the layered solution, which is also the chase
//! games' oracle.
//!
//! Fox & Hounds (gilith/solve's web strategy, Joe Leslie Hurd's "Fox and Hounds" pages): of the
//! legal moves keep S, the
//! children with the best result for the mover (a win if one exists); then if those children
//! are fox wins keep the slowest fox win, otherwise keep the children with the best
//! maximum-FoxBox value (larger event, then fewer plies). With fuzz factor p each legal move
//! gets weight `p + (1 − p)·[move ∈ S]`, normalised.
//!
//! Hasenspiel (mancap314/hasenspiel): the winner takes the fastest win, the loser the longest
//! defence (the solver's optimal play); the same fuzz weighting applies.
//!
//! The fuzz table built on this AI is [`crate::tools::fuzz`].

use super::fast::{FastSolution, MaxFoxBox};
use super::{Chase, ChaseState, RUNNER};
use crate::core::game::{Action, Game, Player};
use crate::core::policy::Policy;
use crate::truth::oracle::Oracle;
use crate::truth::{SolveReport, Value};

/// Marks the moves in S among children described by (value, maximum FoxBox).
pub fn foxbox_choice(children: &[(Value, Option<MaxFoxBox>)], mover: Player, out: &mut Vec<bool>) {
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

/// The FoxBox AI with fuzz factor p, reading values from a layered solution.
pub struct FoxBoxAi<'a> {
    pub solution: &'a FastSolution,
    pub fuzz: f64,
}

impl Policy<Chase> for FoxBoxAi<'_> {
    fn name(&self) -> String {
        format!("foxbox-ai(fuzz={})", self.fuzz)
    }
    /// At a position the solution does not know, every move counts as in S.
    fn probabilities(
        &self,
        _: &Chase,
        state: &ChaseState,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        let mut keep = Vec::new();
        if !self.solution.strong_choice(state, legal, &mut keep) {
            keep.iter_mut().for_each(|k| *k = true);
        }
        weights(&keep, self.fuzz, probs);
        true
    }
}

/// The layered solution is the chase games' oracle; its strongest player is the FoxBox AI.
impl Oracle<Chase> for FastSolution {
    fn game(&self) -> &Chase {
        FastSolution::game(self)
    }
    fn value(&self, state: &ChaseState) -> Option<Value> {
        FastSolution::value(self, state)
    }
    /// The moves in S at `state`.
    fn strong_choice(&self, state: &ChaseState, legal: &[Action], out: &mut Vec<bool>) -> bool {
        out.clear();
        let mut children = Vec::with_capacity(legal.len());
        for &a in legal {
            let c = FastSolution::game(self).apply(state, a);
            let Some(value) = FastSolution::value(self, &c) else {
                out.resize(legal.len(), false);
                return false;
            };
            children.push((value, self.max_foxbox(&c)));
        }
        foxbox_choice(&children, state.to_move as Player, out);
        true
    }
    fn strong_policy(&self, fuzz: f64) -> Box<dyn Policy<Chase> + '_> {
        Box::new(FoxBoxAi {
            solution: self,
            fuzz,
        })
    }
    fn report(&self) -> SolveReport {
        FastSolution::report(self)
    }
    fn state_parts(&self) -> usize {
        FastSolution::state_parts(self)
    }
    fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&ChaseState)) {
        FastSolution::for_each_state(self, part, f)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chase::fast::FastOptions;
    use crate::games::chase::{Escape, FoxHoundsParams};
    use crate::tools::fuzz::{FuzzModel, FuzzRow, FuzzTable};
    use crate::truth::Solution;

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
        FuzzModel::new(&generic, &fast).unwrap().table().unwrap()
    }

    #[test]
    fn two_by_two_has_no_opposite_position_and_no_fairest_fuzz() {
        let t = table(2);
        assert_eq!((t.opposite.as_deref(), t.fairest), (None, None));
        assert_eq!(t.rows.len(), 2);
        assert!(
            t.rows
                .iter()
                .all(|r| r.from_start == 0.0 && r.from_opposite.is_none())
        );
        assert!(t.to_string().contains("fairest fuzz factor: none"));
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
        assert_eq!(format!("{:.6}", t.fairest.unwrap()), "0.095558");
        assert_eq!(t.opposite_value.as_deref(), Some("fox wins in 3 plies"));
        for (p, a, b) in [
            (0.0, 0.0, 0.0),
            (0.0625, 0.374, 0.163),
            (0.25, 0.797, 0.467),
            (0.5, 0.933, 0.667),
            (1.0, 0.986, 0.833),
        ] {
            let r = row(&t, p);
            assert_eq!(
                format!("{:.3} {:.3}", r.from_start, r.from_opposite.unwrap()),
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
        assert_eq!(format!("{:.6}", t.fairest.unwrap()), "0.041771");
        assert_eq!(t.opposite_value.as_deref(), Some("hounds win in 17 plies"));
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
        assert_eq!(format!("{:.6}", t.fairest.unwrap()), "0.006935");
        assert_eq!(t.opposite_value.as_deref(), Some("fox wins in 29 plies"));
        let opposite = t.opposite.as_deref().unwrap();
        assert!(opposite.contains(" 7 | * F * *|") && opposite.contains(" 1 | H H * H|"));
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
                format!(
                    "{:.6} {:.3} {:.3}",
                    r.fuzz,
                    r.from_start,
                    r.from_opposite.unwrap()
                ),
                format!("{p:.6} {a:.3} {b:.3}")
            );
        }
    }
}
