//! The exact evaluator: every measurement by dynamic programming over the enumerated state
//! graph, against an oracle's truth tabulated over it ([`GraphTruth`]). Optimal-move rates of
//! the behaviour and the greedy policy, blunders, exact results against perfect play, random
//! play and the training opponent, the worst case (a best response), whether the play is
//! perfect, and a value learner's value error.

use std::sync::{Mutex, PoisonError};

use super::dp::{Lane, backward_lanes};
use super::{
    EvalError, Evaluator, ExpectedResult, FrozenPolicy, GraphTruth, Metric, Profile, Role,
    best_reply, evaluate_profiles, minimax_return,
};
use crate::core::game::{Game, GameResult, Player, Turn};
use crate::core::graph::{StateGraph, StateId};
use crate::core::policy::{Policy, RandomPolicy, resign_probability};
use crate::learn::metric::Source;
use crate::learn::{Learner, Position};
use crate::truth::OptimalPolicy;
use crate::truth::oracle::Oracle;

/// What every exact evaluation of a run compares against, computed once per run.
pub struct ExactTruth<'g, G: Game> {
    graph: &'g StateGraph<G>,
    truth: GraphTruth,
    /// The return perfect play guarantees each seat.
    values: Vec<f64>,
    optimal: Profile,
    random: Profile,
    /// Perfect play's results at each seat against perfect play and against random play: the
    /// reference lines of the results measured against them.
    perfect: Vec<[ExpectedResult; 2]>,
}

impl<'g, G: Game> ExactTruth<'g, G> {
    /// Tabulates `oracle` over `graph`, and perfect and random play at every seat.
    pub fn new(graph: &'g StateGraph<G>, oracle: &dyn Oracle<G>) -> Result<Self, EvalError> {
        let n = graph.game().num_players();
        let everywhere = |p: &dyn Policy<G>| Profile::new(graph, &vec![Some(p); n]);
        let mut truth = ExactTruth {
            graph,
            truth: GraphTruth::new(graph, oracle)?,
            values: (0..n)
                .map(|p| minimax_return(graph, p))
                .collect::<Result<_, _>>()?,
            optimal: everywhere(&OptimalPolicy::new(oracle))?,
            random: everywhere(&RandomPolicy)?,
            perfect: Vec::new(),
        };
        let (optimal, random) = (
            truth.perfect_against(&truth.optimal)?,
            truth.perfect_against(&truth.random)?,
        );
        truth.perfect = optimal
            .into_iter()
            .zip(random)
            .map(|(o, r)| [o, r])
            .collect();
        Ok(truth)
    }
    /// Perfect play's exact result at each seat against `theirs` at every other seat (one
    /// backward pass): where a learner's result against the same opponent is headed.
    pub fn perfect_against(&self, theirs: &Profile) -> Result<Vec<ExpectedResult>, EvalError> {
        let n = self.graph.game().num_players();
        let lanes: Vec<Lane> = (0..n)
            .map(|seat| Lane {
                seat,
                mine: &self.optimal,
                theirs: Some(theirs),
            })
            .collect();
        Ok(backward_lanes(self.graph, &lanes, &mut Vec::new())?)
    }
    /// The best any policy achieves at each seat against `theirs` at every other seat
    /// ([`best_reply`]): the ceiling of a learner trained against that opponent.
    pub fn best_against(&self, theirs: &Profile) -> Result<Vec<ExpectedResult>, EvalError> {
        let n = self.graph.game().num_players();
        (0..n)
            .map(|seat| Ok(best_reply(self.graph, seat, theirs)?.result))
            .collect()
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
    /// A saved agent it is measured against too (`[evaluation] agent`), tabulated.
    agent: Option<&'t Profile>,
    values: bool,
    metrics: Vec<Metric>,
    /// Working room of the backward passes, kept from evaluation to evaluation (hundreds of
    /// megabytes on the larger games: allocating it afresh costs page faults each time).
    scratch: Mutex<Vec<ExpectedResult>>,
}

impl<'t, 'g, G: Game> ExactEvaluator<'t, 'g, G> {
    /// The evaluator of a learner at `seats` that trains against `opponent` (tabulated, with
    /// the best response's results against it at each seat, the ceiling its reference lines
    /// show: [`ExactTruth::best_against`]), or a
    /// frozen copy of itself (`copy`), or itself; `values`: whether it learns values.
    pub fn new(
        truth: &'t ExactTruth<'g, G>,
        seats: Vec<Player>,
        opponent: Option<(&'t Profile, &'t [ExpectedResult])>,
        copy: bool,
        values: bool,
    ) -> Self {
        let game = truth.graph.game();
        // Every metric as the table says it (`Metric::of`), with the reference line its source
        // names, computed here from the solver.
        let first = seats.first().copied().unwrap_or(0);
        let reference = |m: Metric, seat: Player, perfect: Option<&ExpectedResult>| {
            let value = match m.source {
                Source::AllOptimal => Some(1.0),
                Source::GameValue => Some(truth.values[seat]),
                Source::ExactValues => Some(0.0),
                Source::PerfectPlay | Source::BestResponse => perfect.map(|r| {
                    if m.name.starts_with("win_prob") {
                        r.win
                    } else if m.name.starts_with("loss_prob") {
                        r.loss
                    } else {
                        r.expected_return
                    }
                }),
                Source::None | Source::NeverLoses | Source::BoxesNeeded => None,
            };
            match value {
                Some(v) => m.reference_at(v),
                None => m,
            }
        };
        let plain = |name: &str| reference(Metric::of(name), first, None);
        // Blunders, mistakes and value errors read win/draw/loss values, which a truth of
        // expected results (chance, more than two players) does not have.
        let wdl = truth.truth.has_values();
        let values = values && wdl;
        let mut metrics = vec![
            plain("optimal_rate_all"),
            plain("optimal_rate_faced"),
            plain("optimal_rate_optimal_play"),
        ];
        if wdl {
            metrics.push(plain("blunders"));
            metrics.push(plain("mistakes"));
        }
        metrics.extend([
            plain("states_faced"),
            plain("greedy_optimal_rate_all").role(Role::GreedyRateAll),
            plain("greedy_optimal_rate_faced"),
            plain("greedy_optimal_rate_optimal_play").role(Role::Threshold),
        ]);
        for &seat in &seats {
            let at = (seats.len() > 1).then_some(seat);
            let suffix = at.map_or(String::new(), |p| format!("_as_{}", game.player_name(p)));
            // The metrics against `name`: their reference lines from the table's sources
            // (`line` is perfect play's result against it), or from `source` where given.
            let mut against =
                |name: &str, line: Option<&ExpectedResult>, source: Option<Source>| {
                    for what in ["return", "win_prob", "loss_prob"] {
                        let m = Metric::of(format!("{what}_vs_{name}{suffix}"));
                        let m = match source {
                            Some(source) => m.source(source),
                            None => m,
                        };
                        metrics.push(reference(m, seat, line).seat(at));
                    }
                };
            against("optimal", Some(&truth.perfect[seat][0]), None);
            against("random", Some(&truth.perfect[seat][1]), None);
            if let Some((_, ceiling)) = opponent {
                // The training opponent's line is the ceiling: the best response to it.
                against("opponent", ceiling.get(seat), Some(Source::BestResponse));
            } else if copy {
                // A frozen copy of the learner changes as it learns: no fixed line.
                against("opponent", None, None);
            }
            let m = Metric::of(format!("greedy_return_vs_optimal{suffix}"));
            metrics.push(reference(m, seat, None).seat(at).role(Role::GreedyResult));
            let m = Metric::of(format!("worst_case_return{suffix}"));
            metrics.push(reference(m, seat, None).seat(at));
        }
        metrics.push(plain("perfect").role(Role::Perfect));
        if values {
            for name in ["value_error", "value_error_discounted"] {
                metrics.push(plain(name));
            }
        }
        let opponent = opponent.map(|(profile, _)| profile);
        ExactEvaluator {
            truth,
            seats,
            opponent,
            copy,
            agent: None,
            values,
            metrics,
            scratch: Mutex::new(Vec::new()),
        }
    }

    /// Measures the learner against `agent` too (a saved agent, tabulated, with perfect play's
    /// results against it at each seat): `return_vs_agent`, `win_prob_vs_agent` and
    /// `loss_prob_vs_agent` at each seat, after the results against the training opponent.
    pub fn with_agent(mut self, agent: Option<(&'t Profile, &'t [ExpectedResult])>) -> Self {
        let Some((profile, perfect)) = agent else {
            return self;
        };
        let game = self.truth.graph.game();
        let several = self.seats.len() > 1;
        for &seat in &self.seats.clone() {
            let at = several.then_some(seat);
            let suffix = at.map_or(String::new(), |p| format!("_as_{}", game.player_name(p)));
            // Before the seat's greedy result and worst case, where `evaluate` puts them.
            let end = self
                .metrics
                .iter()
                .position(|m| m.name == format!("greedy_return_vs_optimal{suffix}"))
                .expect("every seat has its greedy result");
            let rows: Vec<Metric> = ["return", "win_prob", "loss_prob"]
                .into_iter()
                .map(|what| {
                    let m = Metric::of(format!("{what}_vs_agent{suffix}")).seat(at);
                    let r = perfect[seat];
                    let line = match what {
                        "win_prob" => r.win,
                        "loss_prob" => r.loss,
                        _ => r.expected_return,
                    };
                    m.reference_at(line)
                })
                .collect();
            self.metrics.splice(end..end, rows);
        }
        self.agent = Some(profile);
        self
    }

    /// The learner's behaviour and greedy policies tabulated at its seats, and (when values
    /// are measured) the mean absolute error of its values over the positions where one of its
    /// seats is to move, against the truth mapped to +1 (win), 0 (draw), -1 (loss), and
    /// against the discounted truth `±γ^(n-1)` for a result `n` plies away (γ the learner's
    /// discount per ply; equal to the first when γ = 1).
    ///
    /// One pass over the graph asks the learner everything at once ([`Learner::position`]):
    /// the same figures as [`Profile::new`] of each policy and a pass of [`Learner::value`],
    /// with one look at its tables per position instead of three.
    #[inline(never)]
    fn tabulate(
        &self,
        learner: &dyn Learner<G>,
    ) -> Result<(Profile, Profile, (f64, f64)), EvalError> {
        let graph = self.truth.graph;
        let game = graph.game();
        let n = graph.len();
        let profile = || Profile {
            edge: Vec::with_capacity(graph.num_edges()),
            resign: vec![0.0; n],
            known: vec![false; n],
        };
        let (mut behaviour, mut greedy) = (profile(), profile());
        let (behaviour_policy, greedy_policy) = (learner.policy(), learner.greedy_policy());
        let mut at = Position {
            want_value: self.values,
            ..Position::default()
        };
        let gamma = learner.discount();
        let (mut plain, mut discounted, mut count) = (0.0, 0.0, 0usize);
        for id in 0..n as StateId {
            let i = id as usize;
            match graph.turn(id) {
                Turn::Player(p) if self.seats.contains(&p) => {
                    let (state, legal) = (graph.state(id), graph.actions(id));
                    at.value = None;
                    if !learner.position(game, state, legal, &mut at) {
                        for (policy, probs) in [
                            (&behaviour_policy, &mut at.behaviour),
                            (&greedy_policy, &mut at.greedy),
                        ] {
                            if !policy.probabilities(game, state, legal, probs) {
                                return Err(EvalError::NoDistribution {
                                    policy: policy.name(),
                                });
                            }
                        }
                        at.value = if self.values {
                            learner.value(game, state)
                        } else {
                            None
                        };
                    }
                    for (profile, probs) in
                        [(&mut behaviour, &at.behaviour), (&mut greedy, &at.greedy)]
                    {
                        debug_assert_eq!(probs.len(), legal.len(), "one probability per action");
                        profile.edge.extend_from_slice(probs);
                        profile.resign[i] = resign_probability(probs);
                        profile.known[i] = true;
                    }
                    if let (true, Some(estimate)) = (self.values, at.value) {
                        let value = self.truth.truth.value(id);
                        let sign = match value.result_for(p) {
                            GameResult::Win => 1.0,
                            GameResult::Draw => 0.0,
                            GameResult::Loss => -1.0,
                        };
                        let far = value.plies().map_or(0, |k| k.saturating_sub(1));
                        plain += (estimate - sign).abs();
                        discounted += (estimate - sign * gamma.powi(far as i32)).abs();
                        count += 1;
                    }
                }
                Turn::Player(_) => {
                    let k = graph.actions(id).len();
                    behaviour.edge.extend(std::iter::repeat_n(f64::NAN, k));
                    greedy.edge.extend(std::iter::repeat_n(f64::NAN, k));
                }
                Turn::Chance => {
                    for profile in [&mut behaviour, &mut greedy] {
                        profile.edge.extend_from_slice(graph.probabilities(id));
                        profile.known[i] = true;
                    }
                }
                Turn::Terminal => {
                    behaviour.known[i] = true;
                    greedy.known[i] = true;
                }
            }
        }
        let count = count.max(1) as f64;
        Ok((behaviour, greedy, (plain / count, discounted / count)))
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
        let (behaviour, greedy, errors) = self.tabulate(learner)?;
        let [b, g] = evaluate_profiles(graph, &t.truth, &self.seats, &[&behaviour, &greedy])[..]
        else {
            unreachable!("one report per profile")
        };
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
        let trained_against = match (self.opponent, copy.filter(|_| self.copy)) {
            (Some(opponent), _) => Some(opponent),
            (None, Some(copy)) => Some(copy.profile()?),
            (None, None) => None,
        };
        // Every exact result of every seat in one backward pass: per seat, the behaviour
        // against perfect play, random play and the training opponent, the greedy policy
        // against perfect play, and the behaviour's worst case (an adversary lane).
        let mut lanes = Vec::with_capacity(5 * self.seats.len());
        for &seat in &self.seats {
            for theirs in [
                Some(&t.optimal),
                Some(&t.random),
                trained_against,
                self.agent,
            ]
            .into_iter()
            .flatten()
            {
                lanes.push(Lane {
                    seat,
                    mine: &behaviour,
                    theirs: Some(theirs),
                });
            }
            lanes.push(Lane {
                seat,
                mine: &greedy,
                theirs: Some(&t.optimal),
            });
            lanes.push(Lane {
                seat,
                mine: &behaviour,
                theirs: None,
            });
        }
        let results = {
            let mut scratch = self.scratch.lock().unwrap_or_else(PoisonError::into_inner);
            backward_lanes(graph, &lanes, &mut scratch)?
        };
        let mut perfect = true;
        for (&seat, results) in self
            .seats
            .iter()
            .zip(results.chunks(lanes.len() / self.seats.len()))
        {
            let (against, rest) = results.split_at(results.len() - 2);
            for r in against {
                out.extend([r.expected_return, r.win, r.loss]);
            }
            out.push(rest[0].expected_return);
            let worst = rest[1].expected_return;
            out.push(worst);
            perfect &= worst >= t.values[seat] - 1e-9;
        }
        out.push(perfect as u8 as f64);
        if self.values {
            out.extend([errors.0, errors.1]);
        }
        debug_assert_eq!(out.len(), self.metrics.len(), "one value per metric");
        Ok(out)
    }
}
