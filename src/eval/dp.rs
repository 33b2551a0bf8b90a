//! The dynamic programs of the exact evaluator: a policy measured against an oracle's truth over
//! the enumerated state graph, computed (never sampled).
//! [`ExactEvaluator`](super::exact::ExactEvaluator) turns them into a run's metrics;
//! `solvedgym rate` and the tests call them directly.
//!
//! - Optimal-move rate: the probability that the policy plays a move keeping the best result
//!   the position allows (win, draw, loss), averaged over three sets of positions of its seat:
//!   every reachable one, the ones it can face (it plays its own moves, the other seats play
//!   anything), and the ones on lines of optimal play (both sides play such moves); and along
//!   play, each position weighted by the probability that games between given policies reach
//!   it ([`optimal_rate_along_play`]).
//! - Blunders: positions it can face that it wins with perfect play and where it may play a
//!   move (or resign) that throws the win away; mistakes: drawn positions it may lose.
//! - Expected result against given opponents: win/draw/loss probabilities and expected return by
//!   dynamic programming over the state graph, chance events at their probabilities.
//! - Worst case: the same against opponents that play to hurt it most (a best response).

use thiserror::Error;

use crate::core::game::{Game, GameResult, Player, Turn};
use crate::core::graph::{GraphError, StateGraph, StateId};
use crate::core::policy::Policy;
use crate::truth::oracle::Oracle;
use crate::truth::{Solution, Value};

pub use super::frozen::{FrozenPolicy, Profile};

/// Why an evaluation could not be made.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EvalError {
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error(
        "the exact evaluator reads every policy's full distribution; `{policy}` only chooses moves (use the match evaluator)"
    )]
    NoDistribution { policy: String },
    #[error("the oracle does not know this position of the state graph:\n{state}")]
    Unknown { state: String },
}

/// An oracle's verdicts tabulated over a state graph: the value of every state and, for every
/// edge, whether the move keeps its mover's result (chance edges keep it). Where the truth is
/// an expected result (chance, more than two players) there are no win/draw/loss values: the
/// edges that keep the mover's best expected result come from the oracle, and `has_values` is
/// false.
pub struct GraphTruth {
    values: Vec<Value>,
    keeps: Vec<bool>,
    has_values: bool,
    /// The states on lines of optimal play by every seat (reachable along value-keeping
    /// edges), found once: every evaluation reads them.
    optimal_play: Vec<bool>,
}

impl GraphTruth {
    /// Asks `oracle` about every state of `graph` (once; the evaluations read the tables).
    pub fn new<G: Game>(graph: &StateGraph<G>, oracle: &dyn Oracle<G>) -> Result<Self, EvalError> {
        let unknown = |id: StateId| EvalError::Unknown {
            state: graph.game().render(graph.state(id)),
        };
        let has_values = (0..graph.len() as StateId)
            .any(|id| graph.turn(id).player().is_some() && oracle.value(graph.state(id)).is_some());
        if !has_values {
            let mut keeps = Vec::with_capacity(graph.num_edges());
            for id in 0..graph.len() as StateId {
                let state = graph.state(id);
                match graph.turn(id) {
                    Turn::Player(_) => {
                        for &a in graph.actions(id) {
                            keeps.push(oracle.keeps_value(state, a).ok_or_else(|| unknown(id))?);
                        }
                    }
                    _ => keeps.extend(graph.children(id).iter().map(|_| true)),
                }
            }
            let optimal_play = reachable(graph, |id, i| keeps[graph.edge_range(id).start + i]);
            return Ok(GraphTruth {
                values: vec![Value::Draw; graph.len()],
                keeps,
                has_values,
                optimal_play,
            });
        }
        // Every position's value; a deal (chance at the start) has none and keeps a placeholder
        // no metric reads (they look at players' positions).
        let values = (0..graph.len() as StateId)
            .map(|id| {
                let s = graph.state(id);
                match (oracle.value(s), graph.turn(id)) {
                    (Some(v), _) => Ok(v),
                    (None, Turn::Chance) => Ok(Value::Draw),
                    (None, _) => Err(unknown(id)),
                }
            })
            .collect::<Result<Vec<Value>, _>>()?;
        let mut keeps = Vec::with_capacity(graph.num_edges());
        for id in 0..graph.len() as StateId {
            let children = graph.children(id).iter();
            match graph.turn(id) {
                Turn::Player(p) => {
                    let best = values[id as usize].result_for(p);
                    keeps.extend(children.map(|&c| values[c as usize].result_for(p) == best));
                }
                _ => keeps.extend(children.map(|_| true)),
            }
        }
        let optimal_play = reachable(graph, |id, i| keeps[graph.edge_range(id).start + i]);
        Ok(GraphTruth {
            values,
            keeps,
            has_values,
            optimal_play,
        })
    }
    /// The value of state `id` (a placeholder where `has_values` is false).
    pub fn value(&self, id: StateId) -> Value {
        self.values[id as usize]
    }
    /// Aligned with the graph's edges.
    pub fn keeps(&self) -> &[bool] {
        &self.keeps
    }
    /// Whether the truth has win/draw/loss values (blunders, mistakes and value errors read
    /// them).
    pub fn has_values(&self) -> bool {
        self.has_values
    }
}

/// How a policy's moves compare with perfect play.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PolicyReport {
    /// Mean probability of a value-keeping move over every reachable position of its seats.
    pub optimal_rate_all: f64,
    pub states_all: usize,
    /// The same over the positions it can face against any opponent.
    pub optimal_rate_faced: f64,
    pub states_faced: usize,
    /// The same over the positions on lines of optimal play by every seat.
    pub optimal_rate_optimal_play: f64,
    pub states_optimal_play: usize,
    /// Faced positions won with perfect play where it may throw the win away.
    pub blunders: usize,
    /// Faced drawn positions where it may lose.
    pub mistakes: usize,
}

impl PolicyReport {
    /// One report over the positions of several seats, from each seat's own report (their
    /// positions are apart: a position has one mover): counts add up, each rate is the mean
    /// over every seat's positions it was taken over.
    pub fn over_seats(reports: &[PolicyReport]) -> PolicyReport {
        let mean = |rate: fn(&PolicyReport) -> (f64, usize)| -> (f64, usize) {
            let (mut sum, mut count) = (0.0, 0);
            for r in reports {
                let (rate, n) = rate(r);
                if n > 0 {
                    sum += rate * n as f64;
                    count += n;
                }
            }
            (
                if count == 0 {
                    f64::NAN
                } else {
                    sum / count as f64
                },
                count,
            )
        };
        let (optimal_rate_all, states_all) = mean(|r| (r.optimal_rate_all, r.states_all));
        let (optimal_rate_faced, states_faced) = mean(|r| (r.optimal_rate_faced, r.states_faced));
        let (optimal_rate_optimal_play, states_optimal_play) =
            mean(|r| (r.optimal_rate_optimal_play, r.states_optimal_play));
        PolicyReport {
            optimal_rate_all,
            states_all,
            optimal_rate_faced,
            states_faced,
            optimal_rate_optimal_play,
            states_optimal_play,
            blunders: reports.iter().map(|r| r.blunders).sum(),
            mistakes: reports.iter().map(|r| r.mistakes).sum(),
        }
    }
}

/// Measures `policy`, played at `seats`, against the enumerated `solution`.
pub fn evaluate_policy<G: Game>(
    solution: &Solution<G>,
    seats: &[Player],
    policy: &dyn Policy<G>,
) -> Result<PolicyReport, EvalError> {
    let graph = solution.graph();
    let policies: Vec<Option<&dyn Policy<G>>> = (0..graph.game().num_players())
        .map(|p| seats.contains(&p).then_some(policy))
        .collect();
    let truth = GraphTruth::new(graph, solution)?;
    Ok(evaluate_profile(
        graph,
        &truth,
        seats,
        &Profile::new(graph, &policies)?,
    ))
}

/// [`evaluate_policy`] for a policy already tabulated in `profile` (at least at `seats`),
/// against `truth` tabulated over `graph`.
pub fn evaluate_profile<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seats: &[Player],
    profile: &Profile,
) -> PolicyReport {
    evaluate_profiles(graph, truth, seats, &[profile])[0]
}

/// [`evaluate_profile`] of each of `profiles`, in one pass over the graph for all of them (the
/// same figures, bit for bit).
pub fn evaluate_profiles<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seats: &[Player],
    profiles: &[&Profile],
) -> Vec<PolicyReport> {
    reports_and_faced(graph, truth, seats, profiles).0
}

/// [`evaluate_profile`] of `mine` at `seat`, and its [`ThrowMass`] along play in which `theirs`
/// plays every other seat: the positions it can face found once for both, and no mixed
/// profile copied.
pub fn evaluate_with_throws<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seat: Player,
    mine: &Profile,
    theirs: &Profile,
) -> Result<(PolicyReport, ThrowMass), GraphError> {
    let (mut reports, mut faced) = reports_and_faced(graph, truth, &[seat], &[mine]);
    let throws = throws_over(graph, truth, seat, [mine, theirs], &faced.remove(0))?;
    Ok((reports.remove(0), throws))
}

/// `seat`'s exact result playing `mine` against each of `theirs` at every other seat (`None`:
/// a best response, every other seat minimising its expected return), in one backward pass
/// for all of them: the bits of [`expected_result_of`] (and [`worst_case_of`] with
/// [`Objective::ExpectedReturn`]) on the mixed profiles.
pub fn results_against<G: Game>(
    graph: &StateGraph<G>,
    seat: Player,
    mine: &Profile,
    theirs: &[Option<&Profile>],
) -> Result<Vec<ExpectedResult>, GraphError> {
    let lanes: Vec<Lane> = theirs
        .iter()
        .map(|&theirs| Lane { seat, mine, theirs })
        .collect();
    backward_lanes(graph, &lanes, &mut Vec::new())
}

/// [`evaluate_profiles`], with the positions each profile can face.
fn reports_and_faced<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seats: &[Player],
    profiles: &[&Profile],
) -> (Vec<PolicyReport>, Vec<Vec<bool>>) {
    let n = graph.len();
    let keep_edge = truth.keeps();

    // Probability of a value-keeping move, and of a move that worsens a win or a draw.
    let mut rates = vec![vec![f64::NAN; n]; profiles.len()];
    let mut throws = vec![vec![false; n]; profiles.len()];
    for id in 0..n as StateId {
        let Turn::Player(p) = graph.turn(id) else {
            continue;
        };
        if !seats.contains(&p) {
            continue;
        }
        let keeps = &keep_edge[graph.edge_range(id)];
        let result = truth.value(id).result_for(p);
        for (k, profile) in profiles.iter().enumerate() {
            let probs = profile.probs(graph, id);
            let resign = profile.resign[id as usize];
            rates[k][id as usize] = keep_probability(graph, truth, profile, id, p);
            let worsening: f64 = probs
                .iter()
                .zip(keeps)
                .filter(|(_, k)| !**k)
                .map(|(p, _)| p)
                .sum();
            throws[k][id as usize] =
                result != GameResult::Loss && (worsening > 0.0 || resign > 0.0);
        }
    }

    let faced = faced_by(graph, seats, profiles);
    let optimal_play = &truth.optimal_play;
    let mut reports = Vec::with_capacity(profiles.len());
    for ((rate, throws), faced) in rates.iter().zip(&throws).zip(&faced) {
        let mean = |mask: &dyn Fn(usize) -> bool| -> (f64, usize) {
            let (mut sum, mut count) = (0.0, 0);
            for (i, &r) in rate.iter().enumerate() {
                if !r.is_nan() && mask(i) {
                    sum += r;
                    count += 1;
                }
            }
            (
                if count == 0 {
                    f64::NAN
                } else {
                    sum / count as f64
                },
                count,
            )
        };
        let (optimal_rate_all, states_all) = mean(&|_| true);
        let (optimal_rate_faced, states_faced) = mean(&|i| faced[i]);
        let (optimal_rate_optimal_play, states_optimal_play) = mean(&|i| optimal_play[i]);
        let mut blunders = 0;
        let mut mistakes = 0;
        for i in 0..n {
            if faced[i]
                && throws[i]
                && let Turn::Player(p) = graph.turn(i as StateId)
            {
                match truth.value(i as StateId).result_for(p) {
                    GameResult::Win => blunders += 1,
                    GameResult::Draw => mistakes += 1,
                    GameResult::Loss => {}
                }
            }
        }
        reports.push(PolicyReport {
            optimal_rate_all,
            states_all,
            optimal_rate_faced,
            states_faced,
            optimal_rate_optimal_play,
            states_optimal_play,
            blunders,
            mistakes,
        });
    }
    (reports, faced)
}

/// The states each of `profiles`, played at `seats`, can face against any opponent: reached
/// by its own moves of positive probability and every move of the other seats (and of seats
/// it has no policy for), as [`reachable`] finds them one profile at a time.
fn faced_by<G: Game>(
    graph: &StateGraph<G>,
    seats: &[Player],
    profiles: &[&Profile],
) -> Vec<Vec<bool>> {
    let Ok(order) = graph.post_order() else {
        return profiles
            .iter()
            .map(|profile| {
                reachable(graph, |id, i| {
                    !profile.known[id as usize]
                        || !matches!(graph.turn(id), Turn::Player(p) if seats.contains(&p))
                        || profile.probs(graph, id)[i] > 0.0
                })
            })
            .collect();
    };
    let mut seen = vec![vec![false; graph.len()]; profiles.len()];
    for s in &mut seen {
        s[graph.start() as usize] = true;
    }
    // Parents first, as `reachable` goes.
    for &id in order.iter().rev() {
        let i = id as usize;
        if !seen.iter().any(|s| s[i]) {
            continue;
        }
        let mine = matches!(graph.turn(id), Turn::Player(p) if seats.contains(&p));
        let children = graph.children(id);
        for (s, profile) in seen.iter_mut().zip(profiles) {
            if !s[i] {
                continue;
            }
            if mine && profile.known[i] {
                for (&c, &p) in children.iter().zip(profile.probs(graph, id)) {
                    if p > 0.0 {
                        s[c as usize] = true;
                    }
                }
            } else {
                for &c in children {
                    s[c as usize] = true;
                }
            }
        }
    }
    seen
}

/// The probability that the mover `p` of state `id` plays a value-keeping move under
/// `profile` (resigning keeps the value only where the position is lost).
fn keep_probability<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    profile: &Profile,
    id: StateId,
    p: Player,
) -> f64 {
    let keeps = &truth.keeps()[graph.edge_range(id)];
    let mut r: f64 = profile
        .probs(graph, id)
        .iter()
        .zip(keeps)
        .filter(|(_, k)| **k)
        .map(|(p, _)| p)
        .sum();
    if truth.value(id).result_for(p) == GameResult::Loss {
        r += profile.resign[id as usize];
    }
    r
}

/// The optimal-move rate of `seat` along play: games start at the start and every seat plays
/// its policy in `profile` (chance at its probabilities); each position of `seat` counts with
/// the probability that a game reaches it. That is the expected number of `seat`'s
/// value-keeping moves (a move's probability of keeping the value, as in
/// [`evaluate_profile`]) over the expected number of its decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct AlongPlay {
    pub optimal_rate: f64,
    /// Expected decisions of the seat per game.
    pub decisions: f64,
}

/// [`AlongPlay`] of `seat` when every seat plays its policy in `profile`.
pub fn optimal_rate_along_play<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seat: Player,
    profile: &Profile,
) -> Result<AlongPlay, GraphError> {
    let mut reach = vec![0.0; graph.len()];
    reach[graph.start() as usize] = 1.0;
    let (mut decisions, mut keeping) = (0.0, 0.0);
    // Parents before children: the reverse of the post-order.
    for &id in graph.post_order()?.iter().rev() {
        let r = reach[id as usize];
        if r == 0.0 || graph.turn(id).is_terminal() {
            continue;
        }
        if graph.turn(id) == Turn::Player(seat) {
            decisions += r;
            keeping += r * keep_probability(graph, truth, profile, id, seat);
        }
        for (&c, &p) in graph.children(id).iter().zip(profile.probs(graph, id)) {
            if p > 0.0 {
                reach[c as usize] += r * p;
            }
        }
    }
    Ok(AlongPlay {
        optimal_rate: if decisions > 0.0 {
            keeping / decisions
        } else {
            f64::NAN
        },
        decisions,
    })
}

/// How much probability a policy puts on throwing a result away, where counting the positions
/// at which it *may* (a [`PolicyReport`]'s `blunders` and `mistakes`: every such position, for
/// a softmax policy) says little: at a position won for its mover, the mass on moves (and
/// resignation) that do not keep the win, its *blunder mass*; at a drawn one, the mass on moves
/// that lose, its *mistake mass*. (Where the truth is expected results, not win/draw/loss,
/// every position counts as drawn and the mistake mass is the mass off the best moves.)
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ThrowMass {
    /// The mean blunder mass over the won positions it can face (against any opponent), and
    /// how many those are.
    pub blunder_mass_faced: f64,
    pub won_faced: usize,
    /// The mean mistake mass over the drawn positions it can face, and how many.
    pub mistake_mass_faced: f64,
    pub drawn_faced: usize,
    /// Along play against the profile's other seats (perfect play): the mean blunder and
    /// mistake mass over its decisions at won and drawn positions, each position weighted by
    /// the probability that a game reaches it (NaN where no game reaches one).
    pub blunder_mass_along_play: f64,
    pub mistake_mass_along_play: f64,
    /// The expected number of blunders and of mistakes in one game along that play.
    pub blunders_per_game: f64,
    pub mistakes_per_game: f64,
}

/// [`ThrowMass`] of `seat` playing `profile` there, along play in which every seat plays its
/// policy in `profile`.
pub fn throw_mass<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seat: Player,
    profile: &Profile,
) -> Result<ThrowMass, GraphError> {
    let faced = faced_by(graph, &[seat], &[profile]).remove(0);
    throws_over(graph, truth, seat, [profile, profile], &faced)
}

/// [`throw_mass`] given the positions `faced` that `mine` at `seat` can face, along play in
/// which `theirs` plays every other seat (`[mine, theirs]`).
fn throws_over<G: Game>(
    graph: &StateGraph<G>,
    truth: &GraphTruth,
    seat: Player,
    [profile, theirs]: [&Profile; 2],
    faced: &[bool],
) -> Result<ThrowMass, GraphError> {
    let ratio = |sum: f64, n: f64| if n > 0.0 { sum / n } else { f64::NAN };
    // Per result (win, draw): mass summed and positions counted over the faced positions,
    // and reach-weighted along play.
    let (mut faced_mass, mut faced_count) = ([0.0; 2], [0usize; 2]);
    let (mut play_mass, mut play_reach) = ([0.0; 2], [0.0; 2]);
    let mut reach = vec![0.0; graph.len()];
    reach[graph.start() as usize] = 1.0;
    for &id in graph.post_order()?.iter().rev() {
        let i = id as usize;
        if graph.turn(id) == Turn::Player(seat) {
            let k = match truth.value(id).result_for(seat) {
                GameResult::Win => Some(0),
                GameResult::Draw => Some(1),
                GameResult::Loss => None,
            };
            if let Some(k) = k {
                // The mass off the value-keeping moves, summed (exactly 0 where none is
                // there), and resigning.
                let keeps = &truth.keeps()[graph.edge_range(id)];
                let off: f64 = profile
                    .probs(graph, id)
                    .iter()
                    .zip(keeps)
                    .filter(|(_, k)| !**k)
                    .map(|(p, _)| p)
                    .sum();
                let mass = off + profile.resign[i];
                if faced[i] {
                    faced_mass[k] += mass;
                    faced_count[k] += 1;
                }
                play_mass[k] += reach[i] * mass;
                play_reach[k] += reach[i];
            }
        }
        let r = reach[i];
        if r == 0.0 || graph.turn(id).is_terminal() {
            continue;
        }
        let by = match graph.turn(id) {
            Turn::Player(p) if p != seat => theirs,
            _ => profile,
        };
        for (&c, &p) in graph.children(id).iter().zip(by.probs(graph, id)) {
            if p > 0.0 {
                reach[c as usize] += r * p;
            }
        }
    }
    Ok(ThrowMass {
        blunder_mass_faced: ratio(faced_mass[0], faced_count[0] as f64),
        won_faced: faced_count[0],
        mistake_mass_faced: ratio(faced_mass[1], faced_count[1] as f64),
        drawn_faced: faced_count[1],
        blunder_mass_along_play: ratio(play_mass[0], play_reach[0]),
        mistake_mass_along_play: ratio(play_mass[1], play_reach[1]),
        blunders_per_game: play_mass[0],
        mistakes_per_game: play_mass[1],
    })
}

/// The best `seat` can do against the other seats' policies in `profile` (chance at its
/// probabilities): its result and, at each of its positions, the move it plays.
#[derive(Clone, Debug, PartialEq)]
pub struct BestReply {
    pub result: ExpectedResult,
    /// Per state: the index (among the state's moves) of the move `seat` plays there, `None`
    /// at the other seats' states, chance and the end.
    pub choice: Vec<Option<u32>>,
}

/// [`BestReply`] of `seat` against `profile` (read at every other seat): at each of its
/// positions the move of greatest expected return, ties broken by the greater win probability,
/// then the smaller loss probability, then the first move. No policy does better: the backward
/// induction of a one-player decision problem.
pub fn best_reply<G: Game>(
    graph: &StateGraph<G>,
    seat: Player,
    profile: &Profile,
) -> Result<BestReply, GraphError> {
    let game = graph.game();
    let mut values = vec![ExpectedResult::default(); graph.len()];
    let mut choice = vec![None; graph.len()];
    let better = |a: &ExpectedResult, b: &ExpectedResult| {
        a.expected_return
            .total_cmp(&b.expected_return)
            .then(a.win.total_cmp(&b.win))
            .then(b.loss.total_cmp(&a.loss))
            == std::cmp::Ordering::Greater
    };
    for &id in graph.post_order()? {
        let i = id as usize;
        let state = graph.state(id);
        values[i] = match graph.turn(id) {
            Turn::Terminal => {
                let r = game.returns(state);
                ExpectedResult::of(r.result_for(seat), r[seat])
            }
            Turn::Player(p) if p == seat => {
                let children = graph.children(id);
                let mut best = 0;
                for (k, &c) in children.iter().enumerate().skip(1) {
                    if better(&values[c as usize], &values[children[best] as usize]) {
                        best = k;
                    }
                }
                choice[i] = Some(best as u32);
                values[children[best] as usize]
            }
            turn => {
                assert!(profile.known[i], "every other seat has a policy");
                expectation(graph, profile, &values, id, turn, seat)
            }
        };
    }
    Ok(BestReply {
        result: values[graph.start() as usize],
        choice,
    })
}

/// States reachable from the start along edges `(state, edge index)` that `follow` accepts.
///
/// On an acyclic graph, one pass over the states parents first (the post-order reversed): a
/// state's edges are followed once it is known to be reached. The states come in an order
/// fixed in advance, so the processor works on several at once (their graph entries are cache
/// misses on the larger games), where a depth-first search waits for each state's children
/// before it can look at the next.
fn reachable<G: Game>(
    graph: &StateGraph<G>,
    mut follow: impl FnMut(StateId, usize) -> bool,
) -> Vec<bool> {
    let mut seen = vec![false; graph.len()];
    seen[graph.start() as usize] = true;
    if let Ok(order) = graph.post_order() {
        for &id in order.iter().rev() {
            if seen[id as usize] {
                for (i, &c) in graph.children(id).iter().enumerate() {
                    if !seen[c as usize] && follow(id, i) {
                        seen[c as usize] = true;
                    }
                }
            }
        }
        return seen;
    }
    let mut stack = vec![graph.start()];
    while let Some(id) = stack.pop() {
        for (i, &c) in graph.children(id).iter().enumerate() {
            if !seen[c as usize] && follow(id, i) {
                seen[c as usize] = true;
                stack.push(c);
            }
        }
    }
    seen
}

/// The exact distribution of one seat's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ExpectedResult {
    pub win: f64,
    pub draw: f64,
    pub loss: f64,
    pub expected_return: f64,
}

impl ExpectedResult {
    pub(crate) fn of(result: GameResult, ret: f64) -> Self {
        let mut r = ExpectedResult {
            expected_return: ret,
            ..Default::default()
        };
        match result {
            GameResult::Win => r.win = 1.0,
            GameResult::Draw => r.draw = 1.0,
            GameResult::Loss => r.loss = 1.0,
        }
        r
    }
    pub(crate) fn add_scaled(&mut self, other: &Self, w: f64) {
        self.win += w * other.win;
        self.draw += w * other.draw;
        self.loss += w * other.loss;
        self.expected_return += w * other.expected_return;
    }
}

/// `seat`'s exact result distribution from the start when seat `p` plays `policies[p]`.
pub fn expected_result<G: Game>(
    graph: &StateGraph<G>,
    policies: &[&dyn Policy<G>],
    seat: Player,
) -> Result<ExpectedResult, EvalError> {
    let opt: Vec<Option<&dyn Policy<G>>> = policies.iter().map(|&p| Some(p)).collect();
    Ok(expected_result_of(
        graph,
        &Profile::new(graph, &opt)?,
        seat,
    )?)
}

/// [`expected_result`] for policies already tabulated in `profile` (every seat).
pub fn expected_result_of<G: Game>(
    graph: &StateGraph<G>,
    profile: &Profile,
    seat: Player,
) -> Result<ExpectedResult, GraphError> {
    let values = backward(graph, profile, seat, None)?;
    Ok(values[graph.start() as usize])
}

/// What an adversary minimises in [`worst_case`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    ExpectedReturn,
    WinProbability,
}

/// `seat`'s result when it plays `policy` and every other seat plays to minimise `objective`
/// (a best response; chance events at their probabilities).
pub fn worst_case<G: Game>(
    graph: &StateGraph<G>,
    seat: Player,
    policy: &dyn Policy<G>,
    objective: Objective,
) -> Result<ExpectedResult, EvalError> {
    let policies: Vec<Option<&dyn Policy<G>>> = (0..graph.game().num_players())
        .map(|p| (p == seat).then_some(policy))
        .collect();
    Ok(worst_case_of(
        graph,
        seat,
        &Profile::new(graph, &policies)?,
        objective,
    )?)
}

/// [`worst_case`] for a policy already tabulated in `profile` at `seat`; the profile's other
/// seats are ignored (they play the best response).
pub fn worst_case_of<G: Game>(
    graph: &StateGraph<G>,
    seat: Player,
    profile: &Profile,
    objective: Objective,
) -> Result<ExpectedResult, GraphError> {
    let values = backward(graph, profile, seat, Some((seat, objective)))?;
    Ok(values[graph.start() as usize])
}

/// The return `seat` is guaranteed with perfect play when everyone else plays against it.
pub fn minimax_return<G: Game>(graph: &StateGraph<G>, seat: Player) -> Result<f64, GraphError> {
    let game = graph.game();
    let mut value = vec![0.0; graph.len()];
    for &id in graph.post_order()? {
        let children = graph.children(id).iter().map(|&c| value[c as usize]);
        value[id as usize] = match graph.turn(id) {
            Turn::Terminal => game.returns(graph.state(id))[seat],
            Turn::Player(p) if p == seat => children.fold(f64::NEG_INFINITY, f64::max),
            Turn::Player(_) => children.fold(f64::INFINITY, f64::min),
            Turn::Chance => graph
                .probabilities(id)
                .iter()
                .zip(children)
                .map(|(p, v)| p * v)
                .sum(),
        };
    }
    Ok(value[graph.start() as usize])
}

/// Who plays in one lane of [`backward_lanes`], and whose result it measures: `mine` at
/// `seat`'s states and chance, and at the other seats' states `theirs`, or (`None`) an
/// adversary minimising `seat`'s expected return.
pub(crate) struct Lane<'p> {
    pub seat: Player,
    pub mine: &'p Profile,
    pub theirs: Option<&'p Profile>,
}

/// Each lane's seat's result distribution from the start, by one backward pass over the graph
/// for all of them: lane by lane the same arithmetic as [`expected_result_of`] on
/// `Profile::mix(graph, &[mine, theirs], ..)` and, for an adversary lane, as [`worst_case_of`]
/// of `mine` with [`Objective::ExpectedReturn`], so the same bits. One pass instead of one per
/// lane (and per seat): a state's results for all lanes sit side by side, the graph and the
/// terminal returns are read once, and no mixed profile is copied.
///
/// `values` is working room, reused from call to call (its contents do not matter): every
/// state is written, children before parents, before it is read.
#[inline(never)]
pub(crate) fn backward_lanes<G: Game>(
    graph: &StateGraph<G>,
    lanes: &[Lane],
    values: &mut Vec<ExpectedResult>,
) -> Result<Vec<ExpectedResult>, GraphError> {
    let game = graph.game();
    let width = lanes.len();
    values.resize(graph.len() * width, ExpectedResult::default());
    for &id in graph.post_order()? {
        let i = id as usize;
        let turn = graph.turn(id);
        if turn.is_terminal() {
            let r = game.returns(graph.state(id));
            for (l, lane) in lanes.iter().enumerate() {
                values[i * width + l] = ExpectedResult::of(r.result_for(lane.seat), r[lane.seat]);
            }
            continue;
        }
        let children = graph.children(id);
        for (l, lane) in lanes.iter().enumerate() {
            // The profile `Profile::mix` would take this state from (the adversary's states
            // are nobody's).
            let profile = match turn {
                Turn::Player(p) if p != lane.seat => lane.theirs,
                _ => Some(lane.mine),
            };
            values[i * width + l] = match profile {
                Some(profile) if profile.known[i] => {
                    let mut v = ExpectedResult::default();
                    for (&c, &p) in children.iter().zip(profile.probs(graph, id)) {
                        if p > 0.0 {
                            v.add_scaled(&values[c as usize * width + l], p);
                        }
                    }
                    if let (Turn::Player(mover), r) = (turn, profile.resign[i])
                        && r > 0.0
                    {
                        let ret = game.resignation_returns(graph.state(id), mover);
                        v.add_scaled(
                            &ExpectedResult::of(ret.result_for(lane.seat), ret[lane.seat]),
                            r,
                        );
                    }
                    v
                }
                _ => {
                    assert!(
                        lane.theirs.is_none(),
                        "every seat has a policy or an adversary"
                    );
                    // The first child of least expected return, as `min_by` picks it.
                    let mut best = values[children[0] as usize * width + l];
                    for &c in &children[1..] {
                        let v = values[c as usize * width + l];
                        if v.expected_return.total_cmp(&best.expected_return)
                            == std::cmp::Ordering::Less
                        {
                            best = v;
                        }
                    }
                    best
                }
            };
        }
    }
    let start = graph.start() as usize * width;
    Ok(values[start..start + width].to_vec())
}

/// `seat`'s result distribution at state `id` (a chance state, or a player's whose moves
/// `profile` gives) from its children's `values`: their mean under the profile's
/// probabilities, and the mover's resignation where it resigns.
#[inline]
fn expectation<G: Game>(
    graph: &StateGraph<G>,
    profile: &Profile,
    values: &[ExpectedResult],
    id: StateId,
    turn: Turn,
    seat: Player,
) -> ExpectedResult {
    let mut v = ExpectedResult::default();
    for (&c, &p) in graph.children(id).iter().zip(profile.probs(graph, id)) {
        if p > 0.0 {
            v.add_scaled(&values[c as usize], p);
        }
    }
    if let (Turn::Player(mover), r) = (turn, profile.resign[id as usize])
        && r > 0.0
    {
        let ret = graph.game().resignation_returns(graph.state(id), mover);
        v.add_scaled(&ExpectedResult::of(ret.result_for(seat), ret[seat]), r);
    }
    v
}

/// Result distributions of every state, children before parents. With an adversary
/// `(seat, objective)`, every other seat minimises the objective; otherwise every seat plays
/// its profile.
fn backward<G: Game>(
    graph: &StateGraph<G>,
    profile: &Profile,
    seat: Player,
    adversary: Option<(Player, Objective)>,
) -> Result<Vec<ExpectedResult>, GraphError> {
    let game = graph.game();
    let mut values = vec![ExpectedResult::default(); graph.len()];
    for &id in graph.post_order()? {
        let i = id as usize;
        let state = graph.state(id);
        values[i] = match graph.turn(id) {
            Turn::Terminal => {
                let r = game.returns(state);
                ExpectedResult::of(r.result_for(seat), r[seat])
            }
            turn if profile.known[i]
                && !matches!((turn, adversary), (Turn::Player(p), Some((s, _))) if p != s) =>
            {
                expectation(graph, profile, &values, id, turn, seat)
            }
            _ => {
                let (_, objective) = adversary.expect("every seat has a policy or an adversary");
                let key = |v: &ExpectedResult| match objective {
                    Objective::ExpectedReturn => v.expected_return,
                    Objective::WinProbability => v.win,
                };
                graph
                    .children(id)
                    .iter()
                    .map(|&c| values[c as usize])
                    .min_by(|a, b| key(a).total_cmp(&key(b)))
                    .expect("a player state has moves")
            }
        };
    }
    Ok(values)
}

#[cfg(test)]
mod tests;
