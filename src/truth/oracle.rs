//! Sources of truth. An [`Oracle`] says what perfect play gives a state: its value (who wins, in
//! how many plies), whether a move keeps it, which moves are optimal, and the strongest player
//! it supports. The enumerated [`Solution`](crate::truth::Solution) and a game's own solver (the
//! chase games' layered one) implement it; the optimal policy, `play`'s `?`, the exact evaluator
//! and the experiment runner depend on this trait only.

use std::cell::RefCell;

use rand::RngExt;

use crate::core::game::{Action, Game, Player, Turn};
use crate::core::policy::{FuzzyPolicy, Policy};
use crate::core::random::SgRng;
use crate::truth::report::SolveReport;
use crate::truth::value::Value;

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

    /// In how many parts [`Oracle::for_each_state`] lists every position the oracle knows
    /// (every reachable one); 0 where it cannot list them. An evaluator walks the parts in
    /// parallel: a game's own solver lists tens of millions of positions it never built a
    /// graph of.
    fn state_parts(&self) -> usize {
        0
    }

    /// Calls `f` with every position of part `part` (`0..state_parts()`), each position in
    /// exactly one part, in the same order on every call.
    fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&G::State)) {
        let _ = (part, f);
    }
}

/// A truth that enumerated every reachable state: the exact evaluator tabulates it over its
/// graph. The win/draw/loss [`Solution`](crate::truth::Solution) and the win probabilities of
/// games with chance ([`ExpectSolution`](crate::truth::expect::ExpectSolution)) are both.
pub trait GraphOracle<G: Game>: Oracle<G> {
    fn graph(&self) -> &crate::core::graph::StateGraph<G>;
    /// Wall-clock seconds the solve took.
    fn seconds(&self) -> f64;
    /// The same truth as a plain oracle.
    fn as_oracle(&self) -> &dyn Oracle<G>;
    /// The start's value in words.
    fn describe_start(&self) -> String {
        let graph = self.graph();
        self.describe(graph.state(graph.start()))
            .unwrap_or_default()
    }
    /// Whether [`Oracle::value`] answers (win/draw/loss in plies): where it does not, the truth is
    /// which moves keep the mover's best expected result ([`Oracle::keeps_value`]).
    fn has_values(&self) -> bool {
        true
    }
    /// Seat `p`'s exact win probability at position `id` where the truth is expected results
    /// (chance, more than two players: the paranoid value against the others' coalition);
    /// `None` where the truth is win/draw/loss values.
    fn win_probability(&self, id: crate::core::graph::StateId, p: Player) -> Option<f64> {
        let _ = (id, p);
        None
    }
}

/// Perfect play from an oracle: the fastest win, the longest defence when lost, ties broken
/// uniformly at random. At a state the oracle does not know it resigns (`choose` gives `None`,
/// the distribution is all resignation).
pub struct OptimalPolicy<'a, O: ?Sized> {
    oracle: &'a O,
}

impl<'a, O: ?Sized> OptimalPolicy<'a, O> {
    pub fn new(oracle: &'a O) -> Self {
        OptimalPolicy { oracle }
    }
}

thread_local! {
    /// The optimal actions of the state at hand: `choose` runs in opponents' hot loops.
    static OPTIMAL: RefCell<Vec<Action>> = const { RefCell::new(Vec::new()) };
}

impl<G: Game, O: Oracle<G> + ?Sized> Policy<G> for OptimalPolicy<'_, O> {
    fn name(&self) -> String {
        "optimal".into()
    }
    fn probabilities(
        &self,
        _: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        probs.clear();
        OPTIMAL.with_borrow_mut(|best| {
            if self.oracle.optimal_actions(state, legal, best) {
                let share = 1.0 / best.len() as f64;
                probs.extend(
                    legal
                        .iter()
                        .map(|a| if best.contains(a) { share } else { 0.0 }),
                );
            } else {
                probs.resize(legal.len(), 0.0);
            }
        });
        true
    }
    /// Samples among the best moves without allocating.
    fn choose(&self, _: &G, state: &G::State, legal: &[Action], rng: &mut SgRng) -> Option<Action> {
        OPTIMAL.with_borrow_mut(|best| {
            if self.oracle.optimal_actions(state, legal, best) {
                Some(best[rng.random_range(0..best.len())])
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::graph::StateId;
    use crate::core::policy::resign_probability;
    use crate::core::random::rng;
    use crate::eval::GraphTruth;
    use crate::games::chase::fast::{FastOptions, FastSolution};
    use crate::games::{Chase, Escape, FoxHoundsParams, TicTacToe};
    use crate::truth::Solution;

    /// An oracle that answers only `value`: every other answer comes from the trait's defaults.
    struct ValuesOnly<'a, G: Game>(&'a Solution<G>);

    impl<G: Game> Oracle<G> for ValuesOnly<'_, G> {
        fn game(&self) -> &G {
            self.0.game()
        }
        fn value(&self, state: &G::State) -> Option<Value> {
            self.0.value(state)
        }
        fn report(&self) -> SolveReport {
            self.0.report()
        }
    }

    /// The defaults (moves applied, children looked up) and the enumerated solution's own
    /// answers (read off its graph) agree at every position, and so do the tabulated truth's
    /// value-keeping edges and `keeps_value`.
    fn defaults_agree_with<G: Game>(solution: &Solution<G>, other: &dyn Oracle<G>) {
        let graph = solution.graph();
        let truth = GraphTruth::new(graph, other).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for id in 0..graph.len() as StateId {
            let state = graph.state(id);
            let legal = graph.actions(id);
            assert_eq!(
                solution.optimal_actions(state, legal, &mut a),
                other.optimal_actions(state, legal, &mut b)
            );
            assert_eq!(a, b, "{}", graph.game().render(state));
            let keeps = &truth.keeps()[graph.edge_range(id)];
            for (k, &action) in legal.iter().enumerate() {
                assert_eq!(
                    solution.move_value(state, action),
                    other.move_value(state, action)
                );
                assert_eq!(other.keeps_value(state, action), Some(keeps[k]));
            }
        }
    }

    #[test]
    fn default_answers_agree_with_the_enumerated_solution() {
        let ttt = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        defaults_agree_with(&ttt, &ValuesOnly(&ttt));
    }

    #[test]
    fn the_layered_solution_answers_as_the_enumerated_one() {
        for size in [4, 6] {
            let chase = Chase::fox_hounds(FoxHoundsParams {
                size,
                escape: Escape::Area,
            })
            .unwrap();
            let generic = Solution::solve(&chase, 1 << 22).unwrap();
            let options = FastOptions {
                foxbox: true,
                ..FastOptions::default()
            };
            let fast = FastSolution::solve(&chase, options, None).unwrap();
            defaults_agree_with(&generic, &fast);
        }
    }

    #[test]
    fn optimal_play_resigns_where_its_oracle_knows_nothing() {
        use crate::games::tictactoe::TicTacToeState;
        let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let pol = OptimalPolicy::new(&sol);
        // Two o's and no x: a board no game reaches, with o to move.
        let s = TicTacToeState { x: 0, o: 0b11 };
        assert!(sol.id(&s).is_none());
        let mut legal = Vec::new();
        TicTacToe.legal_actions(&s, &mut legal);
        let mut probs = Vec::new();
        assert!(pol.probabilities(&TicTacToe, &s, &legal, &mut probs));
        assert_eq!(resign_probability(&probs), 1.0);
        assert_eq!(pol.choose(&TicTacToe, &s, &legal, &mut rng(1)), None);
    }

    #[test]
    fn optimal_tictactoe_first_move_keeps_the_draw() {
        let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        let pol = OptimalPolicy::new(&sol);
        let s = TicTacToe.initial_state();
        let mut legal = Vec::new();
        TicTacToe.legal_actions(&s, &mut legal);
        let mut probs = Vec::new();
        pol.probabilities(&TicTacToe, &s, &legal, &mut probs);
        // Every first move draws with perfect play, and all reach the end in 9 plies.
        assert!(
            probs.iter().all(|&p| (p - 1.0 / 9.0).abs() < 1e-12),
            "{probs:?}"
        );
    }
}
