//! The exact evaluator: every measurement by dynamic programming over the enumerated state
//! graph, against an oracle's truth tabulated over it ([`GraphTruth`]). Optimal-move rates of
//! the behaviour and the greedy policy, blunders, exact results against perfect play, random
//! play and the training opponent, the worst case (a best response), whether the play is
//! perfect, and a value learner's value error.

use super::{
    EvalError, Evaluator, FrozenPolicy, GraphTruth, Metric, Objective, Profile, Role,
    evaluate_profile, expected_result_of, minimax_return, worst_case_of,
};
use crate::game::{Game, GameResult, Player};
use crate::graph::{StateGraph, StateId};
use crate::learn::Learner;
use crate::oracle::Oracle;
use crate::policy::{OptimalPolicy, Policy, RandomPolicy};

/// What every exact evaluation of a run compares against, computed once per run.
pub struct ExactTruth<'g, G: Game> {
    graph: &'g StateGraph<G>,
    truth: GraphTruth,
    /// The return perfect play guarantees each seat.
    values: Vec<f64>,
    optimal: Profile,
    random: Profile,
}

impl<'g, G: Game> ExactTruth<'g, G> {
    /// Tabulates `oracle` over `graph`, and perfect and random play at every seat.
    pub fn new(graph: &'g StateGraph<G>, oracle: &dyn Oracle<G>) -> Result<Self, EvalError> {
        let n = graph.game().num_players();
        let everywhere = |p: &dyn Policy<G>| Profile::new(graph, &vec![Some(p); n]);
        Ok(ExactTruth {
            graph,
            truth: GraphTruth::new(graph, oracle)?,
            values: (0..n)
                .map(|p| minimax_return(graph, p))
                .collect::<Result<_, _>>()?,
            optimal: everywhere(&OptimalPolicy::new(oracle))?,
            random: everywhere(&RandomPolicy)?,
        })
    }
    pub fn graph(&self) -> &'g StateGraph<G> {
        self.graph
    }
    /// The return perfect play guarantees `seat` when everyone else plays against it.
    pub fn value(&self, seat: Player) -> f64 {
        self.values[seat]
    }
    /// `policy` tabulated at every seat.
    pub fn tabulate(&self, policy: &dyn Policy<G>) -> Result<Profile, EvalError> {
        let n = self.graph.game().num_players();
        Profile::new(self.graph, &vec![Some(policy); n])
    }
}

/// The exact evaluator of one learner at its seats.
pub struct ExactEvaluator<'t, 'g, G: Game> {
    truth: &'t ExactTruth<'g, G>,
    seats: Vec<Player>,
    /// The training opponent, tabulated once (`None`: self-play or a frozen copy).
    opponent: Option<&'t Profile>,
    /// Whether the learner trains against a frozen copy of itself.
    copy: bool,
    values: bool,
    metrics: Vec<Metric>,
}

impl<'t, 'g, G: Game> ExactEvaluator<'t, 'g, G> {
    /// The evaluator of a learner at `seats` that trains against `opponent` (tabulated), or a
    /// frozen copy of itself (`copy`), or itself; `values`: whether it learns values.
    pub fn new(
        truth: &'t ExactTruth<'g, G>,
        seats: Vec<Player>,
        opponent: Option<&'t Profile>,
        copy: bool,
        values: bool,
    ) -> Self {
        let game = truth.graph.game();
        let optimal_rate = |name: &str| {
            Metric::rate(
                name,
                "Optimal-move rate",
                "probability of a value-keeping move",
            )
            .reference(1.0, "optimal (solver)")
        };
        let positions = |name: &str, title: &str| Metric::new(name, title, "positions");
        // Blunders, mistakes and value errors read win/draw/loss values, which a truth of
        // expected results (chance, more than two players) does not have.
        let wdl = truth.truth.has_values();
        let values = values && wdl;
        let mut metrics = vec![
            optimal_rate("optimal_rate_all"),
            optimal_rate("optimal_rate_faced"),
            optimal_rate("optimal_rate_optimal_play"),
        ];
        if wdl {
            metrics.push(positions(
                "blunders",
                "Blunders: won positions it may throw away",
            ));
            metrics.push(positions(
                "mistakes",
                "Mistakes: drawn positions it may lose",
            ));
        }
        metrics.extend([
            positions("states_faced", "Positions it can face"),
            optimal_rate("greedy_optimal_rate_all").role(Role::GreedyRateAll),
            optimal_rate("greedy_optimal_rate_faced"),
            optimal_rate("greedy_optimal_rate_optimal_play").role(Role::Threshold),
        ]);
        const RETURN: &str = "expected return (+1 win, -1 loss)";
        for &seat in &seats {
            let at = (seats.len() > 1).then_some(seat);
            let suffix = at.map_or(String::new(), |p| format!("_as_{}", game.player_name(p)));
            let value = (truth.values[seat], "game value (solver)");
            let mut against = |name: &str| {
                let mut r = Metric::new(
                    format!("return_vs_{name}{suffix}"),
                    "Exact expected return",
                    RETURN,
                );
                if name == "optimal" {
                    r = Metric::new(r.name, "Exact expected return against perfect play", RETURN)
                        .reference(value.0, value.1);
                }
                metrics.push(r.seat(at));
                for what in ["win", "loss"] {
                    let name = format!("{what}_prob_vs_{name}{suffix}");
                    metrics.push(Metric::rate(name, "Exact probability", "probability").seat(at));
                }
            };
            against("optimal");
            against("random");
            if opponent.is_some() || copy {
                against("opponent");
            }
            metrics.push(
                Metric::new(
                    format!("greedy_return_vs_optimal{suffix}"),
                    "Exact return of the greedy policy against perfect play",
                    RETURN,
                )
                .reference(value.0, value.1)
                .seat(at)
                .role(Role::GreedyResult),
            );
            metrics.push(
                Metric::new(
                    format!("worst_case_return{suffix}"),
                    "Exact return against the strongest opponent (best response)",
                    RETURN,
                )
                .reference(value.0, value.1)
                .seat(at),
            );
        }
        metrics.push(
            Metric::new(
                "perfect",
                "Perfect play: no opponent does better against it than against perfect play",
                "1 = perfect",
            )
            .role(Role::Perfect),
        );
        if values {
            for name in ["value_error", "value_error_discounted"] {
                metrics.push(
                    Metric::new(
                        name,
                        "Value error (mean absolute, against the solver's values)",
                        "mean |learned value - true value|",
                    )
                    .reference(0.0, "exact values (solver)"),
                );
            }
        }
        ExactEvaluator {
            truth,
            seats,
            opponent,
            copy,
            values,
            metrics,
        }
    }

    /// Mean absolute error of a value learner's values over the positions where one of its
    /// seats is to move, against the truth mapped to +1 (win), 0 (draw), -1 (loss), and
    /// against the discounted truth `±γ^(n-1)` for a result `n` plies away (γ the learner's
    /// discount per ply; equal to the first when γ = 1).
    fn value_errors(&self, learner: &dyn Learner<G>) -> (f64, f64) {
        let graph = self.truth.graph;
        let game = graph.game();
        let gamma = learner.discount();
        let (mut plain, mut discounted, mut n) = (0.0, 0.0, 0usize);
        for id in 0..graph.len() as StateId {
            let Some(p) = graph.turn(id).player() else {
                continue;
            };
            if !self.seats.contains(&p) {
                continue;
            }
            let Some(estimate) = learner.value(game, graph.state(id)) else {
                continue;
            };
            let value = self.truth.truth.value(id);
            let sign = match value.result_for(p) {
                GameResult::Win => 1.0,
                GameResult::Draw => 0.0,
                GameResult::Loss => -1.0,
            };
            let far = value.plies().map_or(0, |k| k.saturating_sub(1));
            plain += (estimate - sign).abs();
            discounted += (estimate - sign * gamma.powi(far as i32)).abs();
            n += 1;
        }
        let n = n.max(1) as f64;
        (plain / n, discounted / n)
    }
}

impl<G: Game> Evaluator<G> for ExactEvaluator<'_, '_, G> {
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, EvalError> {
        let t = self.truth;
        let graph = t.graph;
        let n = graph.game().num_players();
        let at_seats = |p: &dyn Policy<G>| -> Result<Profile, EvalError> {
            let policies: Vec<Option<&dyn Policy<G>>> = (0..n)
                .map(|q| self.seats.contains(&q).then_some(p))
                .collect();
            Profile::new(graph, &policies)
        };
        let behaviour = at_seats(learner.policy().as_ref())?;
        let greedy = at_seats(learner.greedy_policy().as_ref())?;
        let b = evaluate_profile(graph, &t.truth, &self.seats, &behaviour);
        let g = evaluate_profile(graph, &t.truth, &self.seats, &greedy);
        let mut out = vec![
            b.optimal_rate_all,
            b.optimal_rate_faced,
            b.optimal_rate_optimal_play,
        ];
        if t.truth.has_values() {
            out.extend([b.blunders as f64, b.mistakes as f64]);
        }
        out.extend([
            b.states_faced as f64,
            g.optimal_rate_all,
            g.optimal_rate_faced,
            g.optimal_rate_optimal_play,
        ]);
        let trained_against = self
            .opponent
            .or(copy.filter(|_| self.copy).map(FrozenPolicy::profile));
        let mut perfect = true;
        for &seat in &self.seats {
            let mut against = |other: &Profile| -> Result<(), EvalError> {
                let paired = Profile::mix(graph, &[&behaviour, other], |p| usize::from(p != seat));
                let r = expected_result_of(graph, &paired, seat)?;
                out.extend([r.expected_return, r.win, r.loss]);
                Ok(())
            };
            against(&t.optimal)?;
            against(&t.random)?;
            if let Some(o) = trained_against {
                against(o)?;
            }
            let paired = Profile::mix(graph, &[&greedy, &t.optimal], |p| usize::from(p != seat));
            out.push(expected_result_of(graph, &paired, seat)?.expected_return);
            let worst = worst_case_of(graph, seat, &behaviour, Objective::ExpectedReturn)?;
            out.push(worst.expected_return);
            perfect &= worst.expected_return >= t.values[seat] - 1e-9;
        }
        out.push(perfect as u8 as f64);
        if self.values {
            let (plain, discounted) = self.value_errors(learner);
            out.extend([plain, discounted]);
        }
        debug_assert_eq!(out.len(), self.metrics.len(), "one value per metric");
        Ok(out)
    }
}
