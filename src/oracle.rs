//! Sources of truth. An [`Oracle`] says what perfect play gives a state: its value (who wins, in
//! how many plies), whether a move keeps it, which moves are optimal, and the strongest player
//! it supports. The enumerated [`Solution`](crate::solve::Solution) and a game's own solver (the
//! chase games' layered one) implement it; the optimal policy, `play`'s `?`, the exact evaluator
//! and the experiment runner depend on this trait only.

use crate::game::{Action, Game, Turn};
use crate::policy::{FuzzyPolicy, OptimalPolicy, Policy};
use crate::solve::{SolveReport, Value};

/// What a source of truth knows about the states of a game.
pub trait Oracle<G: Game>: Send + Sync {
    fn game(&self) -> &G;

    /// The value of `state` under perfect play (`None`: the oracle does not know the state, e.g.
    /// one that cannot be reached from the start).
    fn value(&self, state: &G::State) -> Option<Value>;

    /// The value in words ("black wins in 6 plies").
    fn describe(&self, state: &G::State) -> Option<String> {
        self.value(state).map(|v| v.describe(self.game()))
    }

    /// The value the mover gets by playing `action` at `state`, seen from `state` (one ply
    /// added).
    fn move_value(&self, state: &G::State, action: Action) -> Option<Value> {
        self.value(&self.game().apply(state, action))
            .map(Value::one_ply_earlier)
    }

    /// The value of playing `action` at `state`, in words.
    fn describe_move(&self, state: &G::State, action: Action) -> Option<String> {
        self.move_value(state, action)
            .map(|v| v.describe(self.game()))
    }

    /// Whether `action` keeps the mover's best result at `state` (win, draw or loss; the
    /// distance ignored).
    fn keeps_value(&self, state: &G::State, action: Action) -> Option<bool> {
        let Turn::Player(p) = self.game().turn(state) else {
            return Some(true);
        };
        let best = self.value(state)?.result_for(p);
        Some(self.move_value(state, action)?.result_for(p) == best)
    }

    /// Fills `out` with the actions of `legal` that are optimal to the ply (the fastest win,
    /// the longest defence), ties kept, in the order of `legal`. `false` (and `out` empty) where
    /// the oracle does not know the state or a move's result.
    fn optimal_actions(&self, state: &G::State, legal: &[Action], out: &mut Vec<Action>) -> bool {
        out.clear();
        let Turn::Player(p) = self.game().turn(state) else {
            return false;
        };
        let mut best = i64::MIN;
        for &a in legal {
            let Some(v) = self.move_value(state, a) else {
                out.clear();
                return false;
            };
            let key = v.key_for(p);
            if key > best {
                best = key;
                out.clear();
            }
            if key == best {
                out.push(a);
            }
        }
        !out.is_empty()
    }

    /// Marks the moves of `legal` the oracle's strongest player chooses among (its set S; by
    /// default the moves optimal to the ply). `false` where the state is unknown.
    fn strong_choice(&self, state: &G::State, legal: &[Action], out: &mut Vec<bool>) -> bool {
        let mut best = Vec::new();
        let known = self.optimal_actions(state, legal, &mut best);
        out.clear();
        out.extend(legal.iter().map(|a| best.contains(a)));
        known
    }

    /// The strongest player this truth supports, playing a uniformly random move with
    /// probability `fuzz` (by default perfect play with random ties: [`OptimalPolicy`]).
    fn strong_policy(&self, fuzz: f64) -> Box<dyn Policy<G> + '_> {
        Box::new(FuzzyPolicy {
            base: OptimalPolicy::new(self),
            p: fuzz,
        })
    }

    /// The figures `solvedgym solve` prints.
    fn report(&self) -> SolveReport;
}
