//! The best-response evaluator: a learner's greedy policy measured exactly against its
//! strongest opponent, where the whole game is too large to enumerate.
//!
//! A fixed policy at one seat meets only the positions its own moves lead to, whatever the
//! other seats play: on Fox & Hounds 10x10 (69,575,678 positions) the hounds' greedy policy
//! faces a few hundred thousand. [`best_response`] enumerates exactly those (the state graph
//! restricted to the policy's moves of positive probability, every move of the other seats and
//! every chance outcome) and computes on them, by the same dynamic programs as the exact
//! evaluator:
//!
//! - the policy's exact result against a best response (every other seat minimising its
//!   expected return; chance at its probabilities): `greedy_worst_case_return`; it equals the
//!   game value exactly when no opponent does better against the policy than against perfect
//!   play (`greedy_perfect`);
//! - where the game has an oracle (its own solver's tables), the policy's optimal-move rate and
//!   blunders over these positions: every position it can face, so the same figures as the
//!   exact evaluator's `greedy_optimal_rate_faced`, found without enumerating the rest.
//!
//! Work grows with the positions the policy faces: a policy that shares its ties among many
//! moves (a table on positions it never saw) faces nearly every position. Past `limit`
//! positions the figures of that seat are recorded as NaN (not measured), and the run goes on.

use super::dp::{
    EvalError, ExpectedResult, GraphTruth, Objective, PolicyReport, Profile, evaluate_profile,
    worst_case_of,
};
use super::{Evaluator, FrozenPolicy, Metric, Role};
use crate::core::game::{Game, GameResult, Player, Turn};
use crate::core::graph::{GraphError, StateGraph, StateId};
use crate::core::policy::{Policy, resign_probability};
use crate::learn::Learner;
use crate::truth::oracle::Oracle;

/// The positions one evaluation may enumerate per seat when the config does not say.
pub const DEFAULT_RESPONSE_LIMIT: usize = 10_000_000;

/// A policy's exact play against its strongest opponent (see the module).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response {
    /// Its result when every other seat plays to minimise its expected return.
    pub worst: ExpectedResult,
    /// The positions it can face (its seat to move).
    pub states: usize,
    /// Its moves measured against the oracle over those positions (`None`: no oracle).
    pub report: Option<PolicyReport>,
}

/// `policy` at `seat` against a best response (see the module); `None` when it faces more
/// than `limit` positions. An oracle that does not know a position it faces is an error.
pub fn best_response<G: Game>(
    game: &G,
    seat: Player,
    policy: &dyn Policy<G>,
    oracle: Option<&dyn Oracle<G>>,
    limit: usize,
) -> Result<Option<Response>, EvalError> {
    // The policy's distribution at each of its positions, in the order the graph numbers them
    // (the build visits states in id order): the kept moves' probabilities and the rest, its
    // chance of resigning.
    let (mut probs, mut kept, mut resigns) = (Vec::new(), Vec::new(), Vec::new());
    let mut refused = None;
    let built = StateGraph::build_restricted(game, limit, |state, mover, actions| {
        if mover != seat {
            return;
        }
        if !policy.probabilities(game, state, actions, &mut probs) {
            refused.get_or_insert_with(|| policy.name());
            probs.clear();
            probs.resize(actions.len(), 1.0 / actions.len() as f64);
        }
        let mut i = 0;
        actions.retain(|_| {
            i += 1;
            probs[i - 1] > 0.0
        });
        kept.extend(probs.iter().copied().filter(|&p| p > 0.0));
        resigns.push(resign_probability(&probs));
    });
    if let Some(policy) = refused {
        return Err(EvalError::NoDistribution { policy });
    }
    let graph = match built {
        Ok(graph) => graph,
        Err(GraphError::TooManyStates { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let n = graph.len();
    let mut profile = Profile {
        edge: Vec::with_capacity(graph.num_edges()),
        resign: vec![0.0; n],
        known: vec![false; n],
    };
    let (mut edge, mut mine, mut states) = (0, 0, 0);
    for id in 0..n as StateId {
        let i = id as usize;
        let k = graph.children(id).len();
        match graph.turn(id) {
            Turn::Player(p) if p == seat => {
                profile.edge.extend_from_slice(&kept[edge..edge + k]);
                profile.resign[i] = resigns[mine];
                profile.known[i] = true;
                (edge, mine, states) = (edge + k, mine + 1, states + 1);
            }
            Turn::Player(_) => profile.edge.extend(std::iter::repeat_n(f64::NAN, k)),
            Turn::Chance => {
                profile.edge.extend_from_slice(graph.probabilities(id));
                profile.known[i] = true;
            }
            Turn::Terminal => profile.known[i] = true,
        }
    }
    let worst = worst_case_of(&graph, seat, &profile, Objective::ExpectedReturn)?;
    let report = match oracle {
        Some(oracle) => {
            let truth = GraphTruth::new(&graph, oracle)?;
            Some(evaluate_profile(&graph, &truth, &[seat], &profile))
        }
        None => None,
    };
    Ok(Some(Response {
        worst,
        states,
        report,
    }))
}

/// `policy` at `seat` against a best response, by a depth-first search of the positions it can
/// face: the same figure as [`worst_case_of`] on the restricted graph, found without building
/// it, and (where `oracle` has win/draw/loss values, so a sure loss is the least a seat can get)
/// with cutoffs: an opponent that has a move winning for sure against the policy need not try
/// its others, and the oracle's best moves for it are tried first. A policy that loses to a
/// best response is found out after a few positions, where the whole set of positions it can
/// face may run to millions. Returns the result and the positions searched; `None` past
/// `limit` positions. A position met again on the line being searched is a cycle (an error).
pub fn worst_case_search<G: Game>(
    game: &G,
    seat: Player,
    policy: &dyn Policy<G>,
    oracle: Option<&dyn Oracle<G>>,
    limit: usize,
) -> Result<Option<(ExpectedResult, usize)>, EvalError> {
    search(game, seat, policy, None, oracle, limit)
}

/// `policy` at `seat` against `others` at every other seat, by the same search with no
/// adversary: the exact result distribution (as [`crate::eval::expected_result`] finds it over
/// a whole graph), over only the positions the two policies reach. Against the solver's
/// optimal policy, the exact result against perfect play on a game too large for a graph.
pub fn result_search<G: Game>(
    game: &G,
    seat: Player,
    policy: &dyn Policy<G>,
    others: &dyn Policy<G>,
    limit: usize,
) -> Result<Option<(ExpectedResult, usize)>, EvalError> {
    search(game, seat, policy, Some(others), None, limit)
}

/// [`worst_case_search`] (`others` none: an adversary) and [`result_search`].
fn search<G: Game>(
    game: &G,
    seat: Player,
    policy: &dyn Policy<G>,
    others: Option<&dyn Policy<G>>,
    oracle: Option<&dyn Oracle<G>>,
    limit: usize,
) -> Result<Option<(ExpectedResult, usize)>, EvalError> {
    use rustc_hash::{FxHashMap, FxHashSet};
    let cut = oracle.is_some_and(|o| o.value(&game.initial_state()).is_some());
    struct Frame<S> {
        state: S,
        /// The children with their probabilities (1 at the opponents' positions).
        kids: Vec<(S, f64)>,
        next: usize,
        /// An opponent's position: the least result so far.
        adversary: bool,
        best: Option<ExpectedResult>,
        acc: ExpectedResult,
        /// The policy's chance of resigning here, and what a resignation gives `seat`.
        resign: Option<(f64, ExpectedResult)>,
        done: bool,
    }
    let (mut actions, mut probs, mut outcomes) = (Vec::new(), Vec::new(), Vec::new());
    let mut open = |state: G::State| -> Result<Frame<G::State>, EvalError> {
        let mut frame = Frame {
            kids: Vec::new(),
            next: 0,
            adversary: false,
            best: None,
            acc: ExpectedResult::default(),
            resign: None,
            done: false,
            state,
        };
        let fixed = |p: Player| if p == seat { Some(policy) } else { others };
        match game.turn(&frame.state) {
            Turn::Player(p) if let Some(mover) = fixed(p) => {
                game.legal_actions(&frame.state, &mut actions);
                if !mover.probabilities(game, &frame.state, &actions, &mut probs) {
                    return Err(EvalError::NoDistribution {
                        policy: mover.name(),
                    });
                }
                for (&a, &q) in actions.iter().zip(&probs) {
                    if q > 0.0 {
                        frame.kids.push((game.apply(&frame.state, a), q));
                    }
                }
                let r = resign_probability(&probs);
                if r > 0.0 {
                    let ret = game.resignation_returns(&frame.state, p);
                    frame.resign = Some((r, ExpectedResult::of(ret.result_for(seat), ret[seat])));
                }
            }
            Turn::Player(p) => {
                frame.adversary = true;
                game.legal_actions(&frame.state, &mut actions);
                frame
                    .kids
                    .extend(actions.iter().map(|&a| (game.apply(&frame.state, a), 1.0)));
                if let Some(oracle) = oracle.filter(|_| cut) {
                    // Its best moves first (a stable sort: the game's order among equals).
                    frame.kids.sort_by_cached_key(|(c, _)| {
                        std::cmp::Reverse(oracle.value(c).map_or(i64::MIN, |v| v.key_for(p)))
                    });
                }
            }
            Turn::Chance => {
                game.chance_outcomes(&frame.state, &mut outcomes);
                frame.kids.extend(
                    outcomes
                        .iter()
                        .map(|&(a, q)| (game.apply(&frame.state, a), q)),
                );
            }
            Turn::Terminal => unreachable!("terminal positions are valued where they are met"),
        }
        Ok(frame)
    };
    let terminal = |state: &G::State| {
        let r = game.returns(state);
        ExpectedResult::of(r.result_for(seat), r[seat])
    };
    let start = game.initial_state();
    if game.turn(&start) == Turn::Terminal {
        return Ok(Some((terminal(&start), 1)));
    }
    let mut memo: FxHashMap<G::State, ExpectedResult> = FxHashMap::default();
    let mut on_line: FxHashSet<G::State> = FxHashSet::default();
    on_line.insert(start.clone());
    let mut stack = vec![open(start)?];
    loop {
        let top = stack
            .last_mut()
            .expect("the start is on the stack until it is valued");
        if top.done || top.next == top.kids.len() {
            let value = if top.adversary {
                top.best.expect("a player's position has moves")
            } else {
                let mut v = top.acc;
                if let Some((r, ret)) = top.resign {
                    v.add_scaled(&ret, r);
                }
                v
            };
            let frame = stack.pop().expect("the top");
            on_line.remove(&frame.state);
            memo.insert(frame.state, value);
            if memo.len() > limit {
                return Ok(None);
            }
            // Before the table doubles, the memory it will take (a limit from a config can be
            // larger than the machine): refused with the numbers, not found out by an abort.
            if memo.len() == memo.capacity() {
                let entry = std::mem::size_of::<(G::State, ExpectedResult)>() + 1;
                crate::io::memory::check(
                    || {
                        format!(
                            "searching the positions a policy of {} faces (past {} positions)",
                            game.name(),
                            memo.len()
                        )
                    },
                    (3 * memo.capacity().max(1) * entry) as u64,
                )
                .map_err(|e| EvalError::Graph(GraphError::Memory(e)))?;
            }
            let Some(parent) = stack.last_mut() else {
                return Ok(Some((value, memo.len())));
            };
            let p = parent.kids[parent.next - 1].1;
            take(parent, value, p, cut);
            continue;
        }
        let (child, p) = top.kids[top.next].clone();
        top.next += 1;
        let known = match memo.get(&child) {
            Some(v) => Some(*v),
            None if game.turn(&child) == Turn::Terminal => Some(terminal(&child)),
            None => None,
        };
        match known {
            Some(v) => take(top, v, p, cut),
            None => {
                if !on_line.insert(child.clone()) {
                    return Err(EvalError::Graph(GraphError::Cycle {
                        state: game.render(&child),
                    }));
                }
                let frame = open(child)?;
                stack.push(frame);
            }
        }
    }

    /// A child's value taken into its parent.
    fn take<S>(frame: &mut Frame<S>, v: ExpectedResult, p: f64, cut: bool) {
        if frame.adversary {
            if frame
                .best
                .is_none_or(|b| v.expected_return < b.expected_return)
            {
                frame.best = Some(v);
            }
            // A sure loss is the least the seat can get: no other move does better for them.
            frame.done |= cut && v.loss == 1.0;
        } else if p > 0.0 {
            frame.acc.add_scaled(&v, p);
        }
    }
}

/// A policy's value-keeping moves over the positions of one seat an oracle lists: each a sum of
/// the probability of a value-keeping move and the number of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Listed {
    /// Over every position of the seat.
    pub all: (f64, usize),
    /// Over the positions the seat wins or draws with perfect play (win/draw/loss truth): where
    /// a move can throw something away. In a lost position every move keeps the value, so on a
    /// game whose positions are mostly lost for the mover (95.85 % of Fox & Hounds 10x10's are
    /// the fox's wins) `all` hides what a policy knows; this is where it shows.
    pub decisive: (f64, usize),
}

impl Listed {
    fn add(&mut self, other: &Listed) {
        self.all.0 += other.all.0;
        self.all.1 += other.all.1;
        self.decisive.0 += other.decisive.0;
        self.decisive.1 += other.decisive.1;
    }
    /// The mean of `all` and of `decisive` (NaN over no positions).
    pub fn rates(&self) -> (f64, f64) {
        let mean = |(s, n): (f64, usize)| if n == 0 { f64::NAN } else { s / n as f64 };
        (mean(self.all), mean(self.decisive))
    }
}

/// The optimal-move rate of `policy` over every position of each of `seats` that `oracle`
/// lists ([`Oracle::for_each_state`]: a game's own solver lists every reachable position
/// without a state graph), per seat ([`Listed`]): over all of them, the same figure as the exact
/// evaluator's `optimal_rate_all`, and over the ones won or drawn. `None` where the oracle
/// cannot list its positions. The parts are walked in parallel and added in order (the same
/// bits at any thread count).
pub fn optimal_rate_listed<G: Game>(
    seats: &[Player],
    policy: &dyn Policy<G>,
    oracle: &dyn Oracle<G>,
) -> Result<Option<Vec<Listed>>, EvalError> {
    use rayon::prelude::*;
    let game = oracle.game();
    let parts = oracle.state_parts();
    if parts == 0 {
        return Ok(None);
    }
    let per_part: Vec<Result<Vec<Listed>, EvalError>> = (0..parts)
        .into_par_iter()
        .map(|part| {
            let mut sums = vec![Listed::default(); seats.len()];
            let (mut legal, mut probs) = (Vec::new(), Vec::new());
            let mut failure = None;
            oracle.for_each_state(part, &mut |state| {
                let Turn::Player(p) = game.turn(state) else {
                    return;
                };
                let Some(k) = seats.iter().position(|&s| s == p) else {
                    return;
                };
                if failure.is_some() {
                    return;
                }
                game.legal_actions(state, &mut legal);
                if !policy.probabilities(game, state, &legal, &mut probs) {
                    failure = Some(EvalError::NoDistribution {
                        policy: policy.name(),
                    });
                    return;
                }
                // The position's result once; each move's compared with it.
                let here = oracle.value(state).map(|v| v.result_for(p));
                let mut keep = 0.0;
                for (&a, &q) in legal.iter().zip(&probs) {
                    if q > 0.0 {
                        let keeps = match here {
                            Some(best) => {
                                oracle.move_value(state, a).map(|v| v.result_for(p) == best)
                            }
                            None => oracle.keeps_value(state, a),
                        };
                        match keeps {
                            Some(true) => keep += q,
                            Some(false) => {}
                            None => {
                                failure = Some(EvalError::Unknown {
                                    state: game.render(state),
                                });
                                return;
                            }
                        }
                    }
                }
                sums[k].all.0 += keep;
                sums[k].all.1 += 1;
                if here.is_some_and(|r| r != GameResult::Loss) {
                    sums[k].decisive.0 += keep;
                    sums[k].decisive.1 += 1;
                }
            });
            match failure {
                Some(e) => Err(e),
                None => Ok(sums),
            }
        })
        .collect();
    let mut total = vec![Listed::default(); seats.len()];
    for part in per_part {
        for (t, listed) in total.iter_mut().zip(part?) {
            t.add(&listed);
        }
    }
    Ok(Some(total))
}

/// The evaluator of a learner's greedy policy on a game too large to enumerate, recorded beside
/// the match evaluator's figures: against a best response over the positions it can face
/// (`[evaluation] best_response`), and over every position the game's own solver lists
/// (`[evaluation] all_positions`).
pub struct ResponseEvaluator<'o, G: Game> {
    game: G,
    seats: Vec<Player>,
    oracle: Option<&'o dyn Oracle<G>>,
    /// Whether the oracle has win/draw/loss values (blunders read them).
    values: bool,
    /// The game value at each seat, where the oracle knows the start.
    value: Vec<Option<f64>>,
    /// The best response's position limit, if it is measured.
    limit: Option<usize>,
    /// Whether the rate over every position is measured.
    all: bool,
    metrics: Vec<Metric>,
}

impl<'o, G: Game> ResponseEvaluator<'o, G> {
    /// The evaluator at `seats`: the best response within `limit` positions per seat (if
    /// given), the rate over every position (if `all`: the oracle must list its positions).
    pub fn new(
        game: &G,
        seats: Vec<Player>,
        oracle: Option<&'o dyn Oracle<G>>,
        limit: Option<usize>,
        all: bool,
    ) -> Result<Self, String> {
        if all && oracle.is_none_or(|o| o.state_parts() == 0) {
            return Err(format!(
                "all_positions needs a solver of {} that lists every position it knows (an enumerated game's, or Fox & Hounds' and Hasenspiel's own)",
                game.name()
            ));
        }
        let start = game.initial_state();
        let known = oracle.and_then(|o| o.value(&start));
        let values = known.is_some();
        let value: Vec<Option<f64>> = (0..game.num_players())
            .map(|p| {
                known.map(|v| match v.result_for(p) {
                    GameResult::Win => 1.0,
                    GameResult::Draw => 0.0,
                    GameResult::Loss => -1.0,
                })
            })
            .collect();
        let several = seats.len() > 1;
        let suffix = |p: Player| match several {
            true => format!("_as_{}", game.player_name(p)),
            false => String::new(),
        };
        let mut metrics = Vec::new();
        if all {
            for (name, wanted) in [
                ("greedy_optimal_rate_all", true),
                ("greedy_optimal_rate_decisive", values),
            ] {
                if !wanted {
                    continue;
                }
                let m = Metric::of(name).reference_at(1.0);
                metrics.push(match name {
                    "greedy_optimal_rate_all" => m.role(Role::GreedyRateAll),
                    _ => m,
                });
                if several {
                    for &seat in &seats {
                        let m = Metric::of(format!("{name}{}", suffix(seat)));
                        metrics.push(m.reference_at(1.0).seat(Some(seat)));
                    }
                }
            }
        }
        if limit.is_some() {
            for &seat in &seats {
                let at = several.then_some(seat);
                let m = Metric::of(format!("greedy_worst_case_return{}", suffix(seat))).seat(at);
                metrics.push(match value[seat] {
                    Some(v) => m.reference_at(v),
                    None => m,
                });
                metrics.push(Metric::of(format!("greedy_states_faced{}", suffix(seat))).seat(at));
                if oracle.is_some() {
                    let m = Metric::of(format!("greedy_exact_return_vs_optimal{}", suffix(seat)));
                    metrics.push(match value[seat] {
                        Some(v) => m.reference_at(v).seat(at),
                        None => m.seat(at),
                    });
                    let m = Metric::of(format!("greedy_optimal_rate_faced{}", suffix(seat)));
                    metrics.push(m.reference_at(1.0).seat(at));
                    if values {
                        let m = Metric::of(format!("greedy_blunders{}", suffix(seat)));
                        metrics.push(m.seat(at));
                    }
                }
            }
            if values {
                metrics.push(Metric::of("greedy_perfect").role(Role::Perfect));
            }
        }
        Ok(ResponseEvaluator {
            game: game.clone(),
            seats,
            oracle,
            values,
            value,
            limit,
            all,
            metrics,
        })
    }
}

impl<G: Game> Evaluator<G> for ResponseEvaluator<'_, G> {
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        _copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, EvalError> {
        let policy = learner.greedy_policy();
        let policy = policy.as_ref();
        let mut out = Vec::with_capacity(self.metrics.len());
        if let (true, Some(oracle)) = (self.all, self.oracle) {
            let listed = optimal_rate_listed(&self.seats, policy, oracle)?
                .expect("the oracle lists its positions (checked when made)");
            let mut every = Listed::default();
            for l in &listed {
                every.add(l);
            }
            let several = self.seats.len() > 1;
            for (k, values) in [(0, true), (1, self.values)] {
                if !values {
                    continue;
                }
                let pick = |l: &Listed| if k == 0 { l.rates().0 } else { l.rates().1 };
                out.push(pick(&every));
                if several {
                    out.extend(listed.iter().map(pick));
                }
            }
        }
        if let Some(limit) = self.limit {
            let mut perfect = true;
            for &seat in &self.seats {
                // The result against a best response by the search with cutoffs (a few
                // positions where the policy loses), the figures over every position it faces
                // from the restricted graph.
                let searched = worst_case_search(&self.game, seat, policy, self.oracle, limit)?;
                let worst = searched.map_or(f64::NAN, |(r, _)| r.expected_return);
                let response = best_response(&self.game, seat, policy, self.oracle, limit)?;
                out.push(worst);
                out.push(response.map_or(f64::NAN, |r| r.states as f64));
                if let Some(oracle) = self.oracle {
                    let optimal = crate::truth::OptimalPolicy::new(oracle);
                    let played = result_search(&self.game, seat, policy, &optimal, limit)?;
                    out.push(played.map_or(f64::NAN, |(r, _)| r.expected_return));
                    let report = response.and_then(|r| r.report);
                    out.push(report.map_or(f64::NAN, |r| r.optimal_rate_faced));
                    if self.values {
                        out.push(report.map_or(f64::NAN, |r| r.blunders as f64));
                    }
                }
                // Not measured is not perfect.
                perfect &= self.value[seat].is_some_and(|v| worst >= v - 1e-9);
            }
            if self.values {
                out.push(perfect as u8 as f64);
            }
        }
        debug_assert_eq!(out.len(), self.metrics.len(), "one value per metric");
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::policy::RandomPolicy;
    use crate::eval::{GraphTruth, evaluate_profile, worst_case};
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    use crate::truth::{OptimalPolicy, Solution};

    /// Perfect play where the board's hash is even, random play elsewhere.
    struct Patchy<'a, G: Game>(&'a dyn Policy<G>);
    impl<G: Game> Policy<G> for Patchy<'_, G> {
        fn name(&self) -> String {
            "patchy".into()
        }
        fn probabilities(
            &self,
            game: &G,
            state: &G::State,
            legal: &[crate::core::game::Action],
            probs: &mut Vec<f64>,
        ) -> bool {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            state.hash(&mut h);
            if h.finish().is_multiple_of(2) {
                self.0.probabilities(game, state, legal, probs)
            } else {
                RandomPolicy.probabilities(game, state, legal, probs)
            }
        }
    }

    /// On games small enough to enumerate, the restricted graph gives the exact evaluator's
    /// figures: the worst case of the policy and its optimal-move rate over the positions it
    /// faces, bit for bit, for perfect play, random play (it faces everything) and a policy
    /// that plays perfectly at some positions only.
    #[test]
    fn the_restricted_graph_agrees_with_the_whole_one() {
        fn check<G: Game>(game: &G) {
            let solution = Solution::solve(game, 1 << 22).unwrap();
            let graph = solution.graph();
            let truth = GraphTruth::new(graph, &solution).unwrap();
            let optimal = OptimalPolicy::new(&solution);
            let patchy = Patchy(&optimal);
            let policies: [&dyn Policy<G>; 3] = [&optimal, &RandomPolicy, &patchy];
            for policy in policies {
                for seat in 0..game.num_players() {
                    let r = best_response(game, seat, policy, Some(&solution), 1 << 22)
                        .unwrap()
                        .expect("within the limit");
                    let whole = worst_case(graph, seat, policy, Objective::ExpectedReturn).unwrap();
                    assert_eq!(r.worst, whole, "{} at {seat}", policy.name());
                    let mut policies: Vec<Option<&dyn Policy<G>>> = vec![None; 2];
                    policies[seat] = Some(policy);
                    let profile = Profile::new(graph, &policies).unwrap();
                    let report = evaluate_profile(graph, &truth, &[seat], &profile);
                    let restricted = r.report.unwrap();
                    assert_eq!(restricted.states_all, report.states_faced);
                    assert_eq!(r.states, report.states_faced);
                    assert!(
                        (restricted.optimal_rate_all - report.optimal_rate_faced).abs() < 1e-12,
                        "{} at {seat}: {} against {}",
                        policy.name(),
                        restricted.optimal_rate_all,
                        report.optimal_rate_faced
                    );
                    assert_eq!(restricted.blunders, report.blunders);
                }
            }
            // Perfect play faces fewer positions than the whole game, and no opponent beats it.
            let r = best_response(game, 0, &optimal, Some(&solution), 1 << 22)
                .unwrap()
                .unwrap();
            assert!(
                r.states < graph.len() / 2,
                "{} of {}",
                r.states,
                graph.len()
            );
            assert_eq!(r.report.unwrap().optimal_rate_faced, 1.0);
        }
        check(&TicTacToe);
        check(&Hexapawn::new(HexapawnParams::default()).unwrap());
    }

    #[test]
    fn past_the_limit_nothing_is_measured() {
        let r = best_response(&TicTacToe, 0, &RandomPolicy, None, 100).unwrap();
        assert_eq!(r, None);
        let r = worst_case_search(&TicTacToe, 0, &RandomPolicy, None, 100).unwrap();
        assert_eq!(r, None);
    }

    /// The search with cutoffs finds the best response's exact figure: on tic-tac-toe and
    /// Hexapawn, for perfect, random and "perfect only where the hash is even" play at each
    /// seat, with and without the oracle (cutoffs and move order) — and the cutoffs spare
    /// positions.
    #[test]
    fn the_search_with_cutoffs_finds_the_worst_case() {
        fn check<G: Game>(game: &G) {
            let solution = Solution::solve(game, 1 << 22).unwrap();
            let graph = solution.graph();
            let optimal = OptimalPolicy::new(&solution);
            let patchy = Patchy(&optimal);
            let policies: [&dyn Policy<G>; 3] = [&optimal, &RandomPolicy, &patchy];
            let mut fewer = false;
            for policy in policies {
                for seat in 0..game.num_players() {
                    let whole = worst_case(graph, seat, policy, Objective::ExpectedReturn).unwrap();
                    let (plain, all) = worst_case_search(game, seat, policy, None, 1 << 22)
                        .unwrap()
                        .unwrap();
                    assert_eq!(plain, whole, "{} at {seat}", policy.name());
                    let (cut, searched) =
                        worst_case_search(game, seat, policy, Some(&solution), 1 << 22)
                            .unwrap()
                            .unwrap();
                    assert!(
                        (cut.expected_return - whole.expected_return).abs() < 1e-12,
                        "{} at {seat}: {} against {}",
                        policy.name(),
                        cut.expected_return,
                        whole.expected_return
                    );
                    fewer |= searched < all;
                    // Against perfect play: the whole graph's expected result, exactly.
                    let mut at: Vec<&dyn Policy<G>> = vec![&optimal; 2];
                    at[seat] = policy;
                    let whole = crate::eval::expected_result(graph, &at, seat).unwrap();
                    let (played, _) = result_search(game, seat, policy, &optimal, 1 << 22)
                        .unwrap()
                        .unwrap();
                    assert!(
                        (played.expected_return - whole.expected_return).abs() < 1e-12
                            && (played.win - whole.win).abs() < 1e-12,
                        "{} at {seat}: {played:?} against {whole:?}",
                        policy.name()
                    );
                }
            }
            assert!(fewer, "the cutoffs spare positions somewhere");
        }
        check(&TicTacToe);
        check(&Hexapawn::new(HexapawnParams::default()).unwrap());
    }

    /// Fox & Hounds' own solver lists exactly the positions of the state graph, and the rate
    /// over them is the exact evaluator's `optimal_rate_all`, for each seat.
    #[test]
    fn the_rate_over_listed_positions_is_the_exact_evaluators() {
        use crate::games::{Chase, Escape, FoxHoundsParams};
        use crate::truth::{Solve, SolveOptions};
        let game = Chase::fox_hounds(FoxHoundsParams {
            size: 6,
            escape: Escape::Area,
        })
        .unwrap();
        let own = game.solve(&SolveOptions::default()).unwrap();
        assert!(own.state_parts() > 0);
        let solution = Solution::solve(&game, 1 << 22).unwrap();
        let graph = solution.graph();
        let mut listed = Vec::new();
        for part in 0..own.state_parts() {
            own.for_each_state(part, &mut |s| listed.push(*s));
        }
        let mut all = graph.states().to_vec();
        listed.sort();
        all.sort();
        assert_eq!(listed, all);
        let optimal = OptimalPolicy::new(&solution);
        let patchy = Patchy(&optimal);
        let truth = GraphTruth::new(graph, &solution).unwrap();
        for seat in 0..2 {
            let policies: [&dyn Policy<Chase>; 2] = [&RandomPolicy, &patchy];
            for policy in policies {
                let mut at: Vec<Option<&dyn Policy<Chase>>> = vec![None; 2];
                at[seat] = Some(policy);
                let profile = Profile::new(graph, &at).unwrap();
                let report = evaluate_profile(graph, &truth, &[seat], &profile);
                let listed = optimal_rate_listed(&[seat], policy, own.as_ref())
                    .unwrap()
                    .unwrap();
                assert_eq!(listed[0].all.1, report.states_all);
                let rate = listed[0].rates().0;
                // The decisive positions: the won and drawn ones of the seat, by the graph.
                let decisive: Vec<StateId> = (0..graph.len() as StateId)
                    .filter(|&id| {
                        graph.turn(id) == Turn::Player(seat)
                            && truth.value(id).result_for(seat) != GameResult::Loss
                    })
                    .collect();
                assert_eq!(listed[0].decisive.1, decisive.len());
                let mut keep = 0.0;
                for &id in &decisive {
                    let keeps = &truth.keeps()[graph.edge_range(id)];
                    keep += profile
                        .probs(graph, id)
                        .iter()
                        .zip(keeps)
                        .filter(|(_, k)| **k)
                        .map(|(p, _)| p)
                        .sum::<f64>();
                }
                let want = keep / decisive.len() as f64;
                assert!((listed[0].rates().1 - want).abs() < 1e-12, "{want}");
                assert!(listed[0].rates().1 < rate, "lost positions keep every move");
                assert!(
                    (rate - report.optimal_rate_all).abs() < 1e-12,
                    "{} at {seat}: {rate} against {}",
                    policy.name(),
                    report.optimal_rate_all
                );
            }
        }
    }

    /// Without an oracle that lists its positions `all_positions` is refused with the reason,
    /// before any work.
    #[test]
    fn all_positions_needs_a_listing_solver() {
        let err = ResponseEvaluator::<TicTacToe>::new(&TicTacToe, vec![0], None, None, true)
            .err()
            .unwrap();
        assert!(err.contains("lists every position"), "{err}");
        let solution = Solution::solve(&TicTacToe, 1 << 20).unwrap();
        assert!(ResponseEvaluator::new(&TicTacToe, vec![0], Some(&solution), None, true).is_ok());
    }
}
