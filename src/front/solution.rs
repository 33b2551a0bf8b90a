//! The exact truth of a [`DynGame`] for a front: every reachable position numbered, its value
//! and the moves that keep it, and the exact evaluation of a policy given as a table of action
//! probabilities over those positions — by the same dynamic programs as the Rust evaluator
//! ([`crate::eval`]).

use std::any::Any;

use serde::Serialize;

use super::{DynGame, DynPlayer, DynState, FrontError, Held};
use crate::core::game::{Action, Game, Player, Turn};
use crate::core::graph::StateGraph;
use crate::core::notation::position_text;
use crate::core::policy::{Policy, RandomPolicy};
use crate::eval::{
    ExpectedResult, GraphTruth, PolicyReport, Profile, ThrowMass, best_reply, evaluate_with_throws,
    results_against,
};
use crate::io::text::{abbreviated, short_number};
use crate::truth::{GraphOracle, OptimalPolicy, Value, enumerate};

/// Every reachable position of a game with its exact truth (enumerated: the game must be small
/// enough; the refusal gives the numbers).
pub struct DynSolution {
    game: DynGame,
    solved: Box<dyn Any + Send + Sync>,
}

struct Solved<G: Game> {
    oracle: Box<dyn GraphOracle<G>>,
    truth: GraphTruth,
    /// Perfect and random play tabulated at every seat, the first time an evaluation asks
    /// (they do not change from policy to policy: a learner evaluated at every checkpoint
    /// pays for them once).
    opponents: std::sync::OnceLock<[Profile; 2]>,
}

impl<G: Game> Solved<G> {
    /// [`Solved::opponents`], tabulated now if they were not.
    fn opponents(&self) -> Result<&[Profile; 2], FrontError> {
        if let Some(o) = self.opponents.get() {
            return Ok(o);
        }
        let graph = self.oracle.graph();
        let perfect = OptimalPolicy::new(self.oracle.as_oracle());
        let tabulated = [
            tabulate(graph, &|_| true, &perfect)?,
            tabulate(graph, &|_| true, &RandomPolicy)?,
        ];
        Ok(self.opponents.get_or_init(|| tabulated))
    }
}

/// A policy's exact evaluation ([`DynSolution::evaluate`]).
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    /// The seats it was evaluated at.
    pub seats: Vec<Player>,
    /// How its moves compare with perfect play (optimal-move rates, blunders) over the
    /// positions of all its seats: each seat's positions counted as that seat's report counts
    /// them (the positions it can face against any opponent, not against itself).
    pub moves: PolicyReport,
    /// The same per seat (in `seats`' order).
    pub moves_per_seat: Vec<PolicyReport>,
    /// Per seat (in `seats`' order): the probability mass it puts on throwing a win or a draw
    /// away, over the positions it can face and along play against perfect play.
    pub throws_per_seat: Vec<ThrowMass>,
    /// Per seat (in `seats`' order): its exact result when every other seat plays perfectly,
    /// plays the best response against it, or plays uniformly at random.
    pub against_perfect: Vec<ExpectedResult>,
    pub against_best_response: Vec<ExpectedResult>,
    pub against_random: Vec<ExpectedResult>,
    /// Per seat: its exact result against the opponent's policy given to
    /// [`DynSolution::evaluate_with`] at every other seat (absent where none was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_opponent: Option<Vec<ExpectedResult>>,
}

/// A policy given as a table: row `id` holds the numbers of the actions at position `id`.
#[derive(Clone, Copy, Debug)]
pub struct PolicyTable<'t> {
    /// `len()` rows of `num_distinct_actions` numbers, row-major.
    pub table: &'t [f64],
    pub illegal: Illegal,
    pub output: Output,
}

/// Who plays every other seat in [`DynSolution::best_response`].
#[derive(Clone, Copy, Debug)]
pub enum Opponent<'t> {
    /// The solver's perfect play: uniform over the moves that keep the best value.
    Perfect,
    /// Uniformly random moves.
    Random,
    Policy(PolicyTable<'t>),
}

/// The best reply to an opponent ([`DynSolution::best_response`]).
#[derive(Clone, Debug)]
pub struct BestResponse {
    pub seat: Player,
    /// Its exact result.
    pub result: ExpectedResult,
    /// The policy that achieves it: a table (positions x actions) with 1 at the move it plays
    /// at each of the seat's positions, 0 elsewhere.
    pub policy: Vec<f64>,
}

/// What the evaluator does with the mass a policy puts on illegal actions, in the words of the
/// environments' `illegal` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// Refuse a policy that puts mass on an illegal action, naming the first position.
    Raise,
    /// Mass on an illegal action ends the game as a loss for the mover, as an environment
    /// made with `illegal="lose"` plays it.
    Lose,
    /// Drop the mass on illegal actions and normalise the legal ones.
    Renormalize,
}

impl std::str::FromStr for Illegal {
    type Err = FrontError;
    fn from_str(s: &str) -> Result<Self, FrontError> {
        match s {
            "raise" => Ok(Illegal::Raise),
            "lose" => Ok(Illegal::Lose),
            "renormalize" | "renormalise" => Ok(Illegal::Renormalize),
            _ => Err(FrontError::Refused(format!(
                "illegal={}: \"raise\" (refuse mass on an illegal action), \"lose\" (it loses the game, as the environments' illegal=\"lose\" plays it) or \"renormalize\" (drop it)",
                abbreviated(s, 40)
            ))),
        }
    }
}

/// What a policy's numbers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Weights, finite and at least 0, normalised by the evaluator (probabilities, counts).
    Probabilities,
    /// Raw scores, made probabilities by a softmax over the row (over the legal actions where
    /// illegal mass is renormalised, over every action otherwise); -inf is a weight of 0.
    Logits,
}

impl std::str::FromStr for Output {
    type Err = FrontError;
    fn from_str(s: &str) -> Result<Self, FrontError> {
        match s {
            "probabilities" => Ok(Output::Probabilities),
            "logits" => Ok(Output::Logits),
            _ => Err(FrontError::Refused(format!(
                "output={}: \"probabilities\" (weights at least 0) or \"logits\" (raw scores, a softmax over the row)",
                abbreviated(s, 40)
            ))),
        }
    }
}

/// Checks one row of a policy's table (its position, working room for the entries read and
/// for the legal actions): the error it finds, if any.
type RowCheck<'a> = dyn Fn(u32, &mut Vec<usize>, &mut Vec<bool>) -> Option<FrontError> + Sync + 'a;

/// A policy read from a table: row `id` holds the probabilities of the `width` actions at
/// position `id` (only the legal ones are read; they are normalised).
struct TablePolicy<'t, G: Game> {
    graph: &'t StateGraph<G>,
    table: &'t [f64],
    width: usize,
    /// Normalised over every action of the row (the mass on illegal ones left unassigned: a
    /// resignation, which loses), not over the legal ones.
    over_all: bool,
}

impl<G: Game> Policy<G> for TablePolicy<'_, G> {
    fn name(&self) -> String {
        "table".to_string()
    }
    fn probabilities(
        &self,
        _: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        probs.clear();
        let id = self
            .graph
            .id(state)
            .expect("the profile asks about its graph's positions");
        let row = &self.table[id as usize * self.width..][..self.width];
        probs.extend(legal.iter().map(|&a| row[a as usize]));
        if self.over_all {
            // Scaled as `normalise` scales: by the row's largest weight, then its sum.
            let max = row.iter().copied().fold(0.0, f64::max);
            let sum: f64 = row.iter().map(|w| w / max).sum();
            probs.iter_mut().for_each(|w| *w = *w / max / sum);
        } else {
            normalise(probs);
        }
        true
    }
}

/// Weights (finite, at least 0, not all 0: [`DynSolution::evaluate`] checks them) made
/// probabilities without overflow or underflow: divided by the largest first, so that weights
/// scaled by any factor (1e308, 5e-324) give the same probabilities.
fn normalise(weights: &mut [f64]) {
    let max = weights.iter().copied().fold(0.0, f64::max);
    if max > 0.0 {
        weights.iter_mut().for_each(|w| *w /= max);
    }
    let sum: f64 = weights.iter().sum();
    weights.iter_mut().for_each(|w| *w /= sum);
}

impl DynSolution {
    fn solved<G: Game>(&self, _game: &G) -> &Solved<G> {
        self.solved
            .downcast_ref::<Solved<G>>()
            .expect("a solution holds its own game's truth")
    }

    pub fn game(&self) -> &DynGame {
        &self.game
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        with_game!(self.game.game(), g => self.solved(g).oracle.graph().len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check(&self, id: usize) -> Result<(), FrontError> {
        let n = self.len();
        if id >= n {
            return Err(FrontError::Refused(format!(
                "position {id}: the positions are numbered 0 to {}",
                n - 1
            )));
        }
        Ok(())
    }

    /// Position `id` (0 is the start).
    // `with_game!` expands per game, and some games' positions are `Copy`.
    #[allow(clippy::clone_on_copy)]
    pub fn state(&self, id: usize) -> Result<DynState, FrontError> {
        self.check(id)?;
        with_game!(self.game.game(), g => {
            let graph = self.solved(g).oracle.graph();
            Ok(self.game.wrap(graph.state(id as u32).clone()))
        })
    }

    /// The number of `state` (None: play from the start does not reach it).
    pub fn index(&self, state: &DynState) -> Result<Option<usize>, FrontError> {
        with_game!(self.game.game(), g => {
            let s = self.game.unwrap(g, state)?;
            Ok(self.solved(g).oracle.graph().id(s).map(|id| id as usize))
        })
    }

    /// Who acts at each position: a player's number, -1 for chance, -4 at the end.
    pub fn players(&self) -> Vec<i64> {
        with_game!(self.game.game(), g => {
            let graph = self.solved(g).oracle.graph();
            (0..graph.len() as u32)
                .map(|id| match graph.turn(id) {
                    Turn::Player(p) => p as i64,
                    Turn::Chance => super::CHANCE_PLAYER,
                    Turn::Terminal => super::TERMINAL_PLAYER,
                })
                .collect()
        })
    }

    /// Position `id`'s actions (legal moves, or chance outcomes) and whether each keeps the
    /// mover's value (all true at chance).
    pub fn moves(&self, id: usize) -> Result<Vec<(Action, bool)>, FrontError> {
        self.check(id)?;
        with_game!(self.game.game(), g => {
            let solved = self.solved(g);
            let graph = solved.oracle.graph();
            let range = graph.edge_range(id as u32);
            Ok(graph
                .actions(id as u32)
                .iter()
                .copied()
                .zip(solved.truth.keeps()[range].iter().copied())
                .collect())
        })
    }

    /// Position `id`'s value where the game has win/draw/loss values: the winner (None for a
    /// draw) and the plies to the end under perfect play. None where the truth is expected
    /// results (chance, more than two players): there `moves` tells the keeping moves.
    pub fn value(&self, id: usize) -> Result<Option<(Option<Player>, u32)>, FrontError> {
        self.check(id)?;
        with_game!(self.game.game(), g => {
            let solved = self.solved(g);
            if !solved.truth.has_values() {
                return Ok(None);
            }
            let state = solved.oracle.graph().state(id as u32);
            Ok(solved.oracle.value(state).map(|v| match v {
                Value::Win { winner, plies } => (Some(winner), plies),
                Value::Draw => (None, 0),
            }))
        })
    }

    /// Each seat's exact win probability at every position, row-major (positions x players),
    /// where the truth is expected results (chance, more than two players: against the
    /// others' coalition); `None` where it is win/draw/loss values ([`DynSolution::value`]).
    pub fn win_probabilities(&self) -> Option<Vec<f64>> {
        with_game!(self.game.game(), g => {
            let oracle = &self.solved(g).oracle;
            let (n, players) = (oracle.graph().len(), g.num_players());
            let mut out = Vec::with_capacity(n * players);
            for id in 0..n as u32 {
                for p in 0..players {
                    out.push(oracle.win_probability(id, p)?);
                }
            }
            Some(out)
        })
    }

    /// Hackenbush: every position's combinatorial-game value in CGSuite's notation (`None`
    /// before nature deals one of several positions); `None` for the other games.
    pub fn cgt_values(&self) -> Option<Vec<Option<String>>> {
        with_game!(self.game.game(), g => {
            let graph = self.solved(g).oracle.graph();
            g.combinatorial_values((0..graph.len() as u32).map(|id| graph.state(id)))
        })
    }

    /// Two positions x actions tables, row-major: the legal actions, and those that keep the
    /// mover's value.
    pub fn masks(&self) -> (Vec<bool>, Vec<bool>) {
        let width = self.game.num_distinct_actions();
        with_game!(self.game.game(), g => {
            let solved = self.solved(g);
            let graph = solved.oracle.graph();
            let (mut legal, mut keeps) = (vec![false; graph.len() * width], vec![false; graph.len() * width]);
            for id in 0..graph.len() as u32 {
                let row = id as usize * width;
                let range = graph.edge_range(id);
                for (&a, &k) in graph.actions(id).iter().zip(&solved.truth.keeps()[range]) {
                    legal[row + a as usize] = true;
                    keeps[row + a as usize] = k;
                }
            }
            (legal, keeps)
        })
    }

    /// The observation tensors of positions `ids` from `player`'s point of view, one after
    /// another (`ids.len()` x [`DynGame::observation_len`]).
    pub fn observations(&self, ids: &[usize], player: i64) -> Result<Vec<f32>, FrontError> {
        let p = self.game.seat(player)?;
        let n = self.len();
        if let Some(&id) = ids.iter().find(|&&id| id >= n) {
            self.check(id)?;
        }
        let width = self.game.observation_len();
        with_game!(self.game.game(), g => {
            let graph = self.solved(g).oracle.graph();
            let mut out = vec![0.0; ids.len() * width];
            for (k, &id) in ids.iter().enumerate() {
                g.observe(graph.state(id as u32), p, &mut out[k * width..][..width]);
            }
            Ok(out)
        })
    }

    /// The start's value in words ("black wins in 6 plies").
    pub fn describe_start(&self) -> String {
        with_game!(self.game.game(), g => self.solved(g).oracle.describe_start())
    }

    /// [`DynSolution::evaluate_with`] of weights whose mass on illegal actions is dropped and
    /// whose legal entries are normalised.
    pub fn evaluate(&self, table: &[f64], seats: &[Player]) -> Result<Evaluation, FrontError> {
        self.evaluate_with(
            PolicyTable {
                table,
                illegal: Illegal::Renormalize,
                output: Output::Probabilities,
            },
            seats,
            None,
        )
    }

    /// Checks `seats` (sorted, without repeats, each a seat of the game).
    fn seats(&self, seats: &[Player]) -> Result<Vec<Player>, FrontError> {
        let players = self.game.num_players();
        let mut seats = seats.to_vec();
        seats.sort_unstable();
        seats.dedup();
        if seats.is_empty() || seats.iter().any(|&p| p >= players) {
            return Err(FrontError::Refused(format!(
                "seats {seats:?}: the seats of {} are 0 to {}",
                self.game.name(),
                players - 1
            )));
        }
        Ok(seats)
    }

    /// The policy of `spec` tabulated at the positions of `at`'s seats, its entries checked
    /// (see [`DynSolution::evaluate_with`]).
    fn profile_of<G: Game>(
        &self,
        g: &G,
        graph: &StateGraph<G>,
        spec: PolicyTable,
        at: &(dyn Fn(Player) -> bool + Sync),
    ) -> Result<Profile, FrontError> {
        let bad = |why: String| FrontError::Refused(why);
        let PolicyTable {
            table,
            illegal,
            output,
        } = spec;
        let width = self.game.num_distinct_actions();
        if table.len() != self.len() * width {
            return Err(bad(format!(
                "the table has {} numbers; it needs one row per position and one column per action: {} x {} = {}",
                table.len(),
                self.len(),
                width,
                self.len() * width
            )));
        }
        let over_all = illegal != Illegal::Renormalize;
        // A position as a person reads it: its number, its notation (or its board) and an
        // action's notation.
        let position = |id: u32| {
            let state = graph.state(id);
            let text = position_text(g, state).unwrap_or_else(|| g.render(state));
            format!("position {id} ({})", abbreviated(text.trim(), 100))
        };
        let action = |id: u32, a: usize| {
            if graph.actions(id).contains(&(a as Action)) {
                format!(
                    "action {a} ({})",
                    g.action_to_string(graph.state(id), a as Action)
                )
            } else {
                format!("action {a} (illegal here)")
            }
        };
        let legal_list = |id: u32| {
            graph
                .actions(id)
                .iter()
                .map(|&a| format!("{a} ({})", g.action_to_string(graph.state(id), a)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The entries of a row that are read: its legal actions' where illegal mass is
        // dropped, every action's otherwise (into `out`, reused row after row).
        let read = |id: u32, out: &mut Vec<usize>| {
            out.clear();
            if over_all {
                out.extend(0..width);
            } else {
                out.extend(graph.actions(id).iter().map(|&a| a as usize));
            }
        };
        let is_seat_row = |id: u32| matches!(graph.turn(id), Turn::Player(p) if at(p));
        // Logits made weights: a softmax over the entries read.
        use rayon::prelude::*;
        // The rows read, checked on every core; the first failure in position order is the
        // error (the one a check row after row would find).
        let check = |row_error: &RowCheck| {
            let failed = (0..graph.len() as u32)
                .into_par_iter()
                .filter(|&id| is_seat_row(id))
                .map_init(
                    || (Vec::with_capacity(width), vec![false; width]),
                    |(entries, legal), id| row_error(id, entries, legal),
                )
                .find_first(Option::is_some);
            match failed.flatten() {
                Some(e) => Err(e),
                None => Ok(()),
            }
        };
        let softmaxed;
        let table: &[f64] = match output {
            Output::Probabilities => table,
            Output::Logits => {
                check(&|id, entries, _| {
                    let row = &table[id as usize * width..][..width];
                    read(id, entries);
                    let mut finite = false;
                    for &a in entries.iter() {
                        let x = row[a];
                        if x.is_nan() || x == f64::INFINITY {
                            return Some(bad(format!(
                                "{}: the logit of {} is {}; logits are finite numbers (or -inf for an action never played)",
                                position(id),
                                action(id, a),
                                short_number(x)
                            )));
                        }
                        finite |= x.is_finite();
                    }
                    (!finite).then(|| {
                        bad(format!(
                            "{}: every logit read is -inf (legal: {}); a policy gives some action a finite logit",
                            position(id),
                            legal_list(id)
                        ))
                    })
                })?;
                // The exponentials, on every core (checked above: no row fails).
                let mut t = vec![0.0; table.len()];
                t.par_chunks_mut(width)
                    .zip(table.par_chunks(width))
                    .enumerate()
                    .for_each_init(Vec::new, |entries, (id, (out, row))| {
                        let id = id as u32;
                        if !is_seat_row(id) {
                            return;
                        }
                        read(id, entries);
                        let max = entries
                            .iter()
                            .map(|&a| row[a])
                            .fold(f64::NEG_INFINITY, f64::max);
                        for &a in entries.iter() {
                            out[a] = (row[a] - max).exp();
                        }
                    });
                softmaxed = t;
                &softmaxed
            }
        };
        check(&|id, entries, legal| {
            let row = &table[id as usize * width..][..width];
            let mut any = false;
            read(id, entries);
            graph
                .actions(id)
                .iter()
                .for_each(|&a| legal[a as usize] = true);
            let mut failure = None;
            for &a in entries.iter() {
                let x = row[a];
                if !(x.is_finite() && x >= 0.0) {
                    let hint = if x < 0.0 && output == Output::Probabilities {
                        "; give output=\"logits\" for a network's raw scores"
                    } else {
                        ""
                    };
                    failure = Some(bad(format!(
                        "{}: the weight of {} is {}; a policy's weights are finite numbers, at least 0{hint}",
                        position(id),
                        action(id, a),
                        short_number(x)
                    )));
                    break;
                }
                let is_legal = legal[a];
                if illegal == Illegal::Raise && !is_legal && x > 0.0 {
                    failure = Some(bad(format!(
                        "{}: the policy puts weight {} on {} (legal: {}); give illegal=\"lose\" to score it as the environments' illegal=\"lose\" plays it, or illegal=\"renormalize\" to drop it",
                        position(id),
                        short_number(x),
                        action(id, a),
                        legal_list(id)
                    )));
                    break;
                }
                any |= x > 0.0 && (is_legal || illegal == Illegal::Lose);
            }
            graph
                .actions(id)
                .iter()
                .for_each(|&a| legal[a as usize] = false);
            failure.or_else(|| {
                (!any).then(|| {
                    bad(format!(
                        "{}: every legal action has weight 0 (legal: {}); a policy puts weight on at least one",
                        position(id),
                        legal_list(id)
                    ))
                })
            })
        })?;
        let policy = TablePolicy {
            graph,
            table,
            width,
            over_all,
        };
        tabulate(graph, at, &policy)
    }

    /// Evaluates exactly the policy whose action weights at position `id` are row `id` of
    /// `policy.table` (`len()` rows of `num_distinct_actions` numbers, row-major), played at
    /// `seats`, each seat alone against perfect, random and best-response play at the others
    /// (and against `opponent`'s policy, where one is given). `output` says what the numbers
    /// are (weights at least 0, or logits made probabilities by a softmax); `illegal` what mass
    /// on an illegal action does (refused, a loss for the mover, or dropped). Rows of positions
    /// where no seat of `seats` moves are not read (the opponent's: where it meets them). A
    /// read entry that is NaN, infinite or (for weights) negative, or a row with no mass, is an
    /// error naming the position.
    pub fn evaluate_with(
        &self,
        policy: PolicyTable,
        seats: &[Player],
        opponent: Option<PolicyTable>,
    ) -> Result<Evaluation, FrontError> {
        let bad = |why: String| FrontError::Refused(why);
        let seats = self.seats(seats)?;
        with_game!(self.game.game(), g => {
            let solved = self.solved(g);
            let graph = solved.oracle.graph();
            let own = self.profile_of(g, graph, policy, &|q| seats.contains(&q))?;
            // The given opponent only where some evaluated seat meets it.
            let opposes = |q: Player| seats.iter().any(|&s| s != q);
            let given = match opponent {
                Some(spec) => Some(self.profile_of(g, graph, spec, &opposes)?),
                None => None,
            };
            // Each seat's figures are its policy at that seat alone, the given opponent at
            // every other (never the policy against itself): each policy is tabulated once,
            // and each seat's profile mixed from them.
            let [perfect, random] = solved.opponents()?;
            let graph_error = |e: crate::core::graph::GraphError| bad(e.to_string());
            let mut evaluation = Evaluation {
                seats: seats.clone(),
                moves: PolicyReport::default(),
                moves_per_seat: Vec::new(),
                throws_per_seat: Vec::new(),
                against_perfect: Vec::new(),
                against_best_response: Vec::new(),
                against_random: Vec::new(),
                against_opponent: given.as_ref().map(|_| Vec::new()),
            };
            for &s in &seats {
                let (moves, throws) =
                    evaluate_with_throws(graph, &solved.truth, s, &own, perfect)
                        .map_err(graph_error)?;
                evaluation.moves_per_seat.push(moves);
                evaluation.throws_per_seat.push(throws);
                // Every result of the seat in one backward pass: against perfect play, a best
                // response, random play and the given opponent.
                let mut theirs = vec![Some(perfect), None, Some(random)];
                theirs.extend(given.as_ref().map(Some));
                let results = results_against(graph, s, &own, &theirs).map_err(graph_error)?;
                evaluation.against_perfect.push(results[0]);
                evaluation.against_best_response.push(results[1]);
                evaluation.against_random.push(results[2]);
                if let Some(out) = &mut evaluation.against_opponent {
                    out.push(results[3]);
                }
            }
            evaluation.moves = PolicyReport::over_seats(&evaluation.moves_per_seat);
            Ok(evaluation)
        })
    }

    /// The best any policy achieves at `seat` against `opponent` at every other seat: its exact
    /// result and the policy that achieves it ([`best_reply`]: at each of its positions the
    /// move of greatest expected return, ties to the greater win probability, then the smaller
    /// loss probability, then the first move).
    pub fn best_response(
        &self,
        opponent: Opponent,
        seat: Player,
    ) -> Result<BestResponse, FrontError> {
        let bad = |why: String| FrontError::Refused(why);
        let seat = self.seats(&[seat])?[0];
        let others = |q: Player| q != seat;
        with_game!(self.game.game(), g => {
            let solved = self.solved(g);
            let graph = solved.oracle.graph();
            let given;
            let profile = match opponent {
                Opponent::Perfect => &solved.opponents()?[0],
                Opponent::Random => &solved.opponents()?[1],
                Opponent::Policy(spec) => {
                    given = self.profile_of(g, graph, spec, &others)?;
                    &given
                }
            };
            let reply = best_reply(graph, seat, profile).map_err(|e| bad(e.to_string()))?;
            let width = self.game.num_distinct_actions();
            let mut policy = vec![0.0; self.len() * width];
            for (id, choice) in reply.choice.iter().enumerate() {
                if let Some(k) = choice {
                    let a = graph.actions(id as u32)[*k as usize];
                    policy[id * width + a as usize] = 1.0;
                }
            }
            Ok(BestResponse {
                seat,
                result: reply.result,
                policy,
            })
        })
    }
}

impl DynSolution {
    /// The probabilities `player` (a computer player of this game: a saved agent, random
    /// play...) gives each action at every position where a player moves, as a table
    /// (positions x actions; 0 at illegal actions and where nobody moves).
    pub fn player_table(&self, player: &DynPlayer) -> Result<Vec<f64>, FrontError> {
        let width = self.game.num_distinct_actions();
        with_game!(self.game.game(), g => {
            let held = player.player.downcast_ref::<Held<_>>();
            let Some(held) = held.filter(|_| player.game == self.game.id) else {
                return Err(FrontError::Refused(format!(
                    "{} plays another game than {} {}",
                    player.name,
                    self.game.name(),
                    self.game.params()
                )));
            };
            let optimal;
            let policy: &dyn Policy<_> = match held {
                Held::Policy(p) => p.as_ref(),
                Held::Optimal(oracle, fuzz) => {
                    optimal = oracle.strong_policy(*fuzz);
                    optimal.as_ref()
                }
            };
            let graph = self.solved(g).oracle.graph();
            let mut table = vec![0.0; graph.len() * width];
            let mut probs = Vec::new();
            for id in 0..graph.len() as u32 {
                if graph.turn(id).player().is_none() {
                    continue;
                }
                if !policy.probabilities(g, graph.state(id), graph.actions(id), &mut probs) {
                    return Err(FrontError::Refused(format!(
                        "{} gives no probabilities for its moves",
                        player.name
                    )));
                }
                let row = &mut table[id as usize * width..][..width];
                for (&a, &p) in graph.actions(id).iter().zip(&probs) {
                    row[a as usize] = p;
                }
            }
            Ok(table)
        })
    }
}

/// `policy` tabulated at the positions of the seats `at` accepts.
fn tabulate<G: Game>(
    graph: &StateGraph<G>,
    at: &dyn Fn(Player) -> bool,
    policy: &dyn Policy<G>,
) -> Result<Profile, FrontError> {
    let policies: Vec<Option<&dyn Policy<G>>> = (0..graph.game().num_players())
        .map(|q| at(q).then_some(policy))
        .collect();
    Profile::new_parallel(graph, &policies).map_err(|e| FrontError::Refused(e.to_string()))
}

impl DynGame {
    /// Every position play from the start reaches, with its exact truth (refused with the
    /// numbers where the game has more than `max_states` positions, or no exact truth).
    pub fn solve(&self, max_states: usize) -> Result<DynSolution, FrontError> {
        with_game!(&self.game, g => {
            if let Some(why) = g.capabilities().enumeration_refusal(max_states) {
                return Err(FrontError::Refused(why));
            }
            let oracle = enumerate(g, max_states).map_err(|e| FrontError::Refused(e.to_string()))?;
            let truth = GraphTruth::new(oracle.graph(), oracle.as_oracle())
                .map_err(|e| FrontError::Refused(e.to_string()))?;
            Ok(DynSolution {
                game: self.clone(),
                solved: Box::new(Solved {
                    oracle,
                    truth,
                    opponents: std::sync::OnceLock::new(),
                }),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evaluate_policy;
    use crate::truth::Solution;

    #[test]
    fn a_table_policy_is_evaluated_as_the_rust_evaluator_evaluates_it() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let sol = game.solve(1 << 20).unwrap();
        assert_eq!(sol.len(), 5478);
        assert_eq!(sol.describe_start(), "draw");
        let width = game.num_distinct_actions();
        // Uniform over the legal moves, as a table.
        let mut table = vec![0.0; sol.len() * width];
        for id in 0..sol.len() {
            for (a, _) in sol.moves(id).unwrap() {
                table[id * width + a as usize] = 1.0;
            }
        }
        let ours = sol.evaluate(&table, &[0]).unwrap();
        let rust = evaluate_policy(
            &Solution::solve(&crate::games::TicTacToe, 1 << 20).unwrap(),
            &[0],
            &RandomPolicy,
        )
        .unwrap();
        assert_eq!(ours.moves, rust);
        // Perfect play against perfect play draws; random play against random play is x's.
        let perfect = {
            let mut t = vec![0.0; sol.len() * width];
            for id in 0..sol.len() {
                for (a, keeps) in sol.moves(id).unwrap() {
                    t[id * width + a as usize] = if keeps { 1.0 } else { 0.0 };
                }
            }
            t
        };
        let best = sol.evaluate(&perfect, &[0, 1]).unwrap();
        assert_eq!(best.moves.optimal_rate_all, 1.0);
        assert_eq!(best.against_best_response[0].expected_return, 0.0);
        assert!(ours.against_random[0].win > 0.5);
        // A best response does at least as well against it as perfect play does, and random
        // play less well.
        let [worst, perfect_vs, random_vs] = [
            &ours.against_best_response[0],
            &ours.against_perfect[0],
            &ours.against_random[0],
        ]
        .map(|r| r.expected_return);
        assert!(
            worst <= perfect_vs + 1e-12 && perfect_vs < random_vs,
            "{worst} {perfect_vs} {random_vs}"
        );
        // Hostile tables and seats.
        let mut nan = table.clone();
        nan[4] = f64::NAN;
        assert!(sol.evaluate(&nan, &[0]).is_err());
        assert!(sol.evaluate(&table[1..], &[0]).is_err());
        assert!(sol.evaluate(&vec![0.0; table.len()], &[0]).is_err());
        assert!(sol.evaluate(&table, &[2]).is_err());
        // Weights are scale-free: 1e308 (whose sum overflows) and 5e-324 score as 1 does.
        for scale in [1e308, 5e-324, 2f64.powi(-1074)] {
            let scaled: Vec<f64> = table.iter().map(|w| w * scale).collect();
            assert_eq!(
                sol.evaluate(&scaled, &[0]).unwrap().moves,
                ours.moves,
                "{scale}"
            );
        }
        let e = sol.evaluate(&nan, &[0]).unwrap_err().to_string();
        assert!(
            e.contains("position 0 (.../.../...)")
                && e.contains("action 4 (b2)")
                && e.contains("NaN"),
            "{e}"
        );
        let mut huge = table.clone();
        huge[4] = f64::INFINITY;
        let e = sol.evaluate(&huge, &[0]).unwrap_err().to_string();
        assert!(e.contains("is inf"), "{e}");
        assert!(sol.evaluate(&table, &[]).is_err());
        assert!(sol.state(sol.len()).is_err());
        assert_eq!(sol.index(&sol.state(17).unwrap()).unwrap(), Some(17));
    }

    /// The default seats (all of them) give each seat's figures against the given opponent
    /// at the others, never the policy against itself: the joint call equals the per-seat
    /// calls, field by field (a uniform X once "won 58.5 %" against perfect play).
    #[test]
    fn every_seat_is_measured_alone_against_the_opponent() {
        let game = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        let sol = game.solve(1 << 20).unwrap();
        let width = game.num_distinct_actions();
        let table_of = |weight: &dyn Fn(bool) -> f64| {
            let mut t = vec![0.0; sol.len() * width];
            for id in 0..sol.len() {
                for (a, keeps) in sol.moves(id).unwrap() {
                    t[id * width + a as usize] = weight(keeps);
                }
            }
            t
        };
        let uniform = table_of(&|_| 1.0);
        let perfect = table_of(&|keeps| if keeps { 1.0 } else { 0.0 });
        for table in [&uniform, &perfect] {
            let joint = sol.evaluate(table, &[0, 1]).unwrap();
            for (k, seat) in [0, 1].into_iter().enumerate() {
                let alone = sol.evaluate(table, &[seat]).unwrap();
                assert_eq!(joint.against_perfect[k], alone.against_perfect[0]);
                assert_eq!(joint.against_random[k], alone.against_random[0]);
                assert_eq!(
                    joint.against_best_response[k],
                    alone.against_best_response[0]
                );
                assert_eq!(joint.moves_per_seat[k], alone.moves);
            }
            let m = &joint.moves;
            let per = &joint.moves_per_seat;
            assert_eq!(m.states_faced, per[0].states_faced + per[1].states_faced);
            assert_eq!(m.blunders, per[0].blunders + per[1].blunders);
        }
        // A drawn game is never won against perfect play, from either seat.
        let u = sol.evaluate(&uniform, &[0, 1]).unwrap();
        for r in &u.against_perfect {
            assert_eq!(r.win, 0.0, "{r:?}");
            assert!(r.expected_return < -0.5, "{r:?}");
        }
        // Perfect play never loses, and X wins most games against random play (96.8 %).
        let p = sol.evaluate(&perfect, &[0, 1]).unwrap();
        for r in p.against_perfect.iter().chain(&p.against_random) {
            assert_eq!(r.loss, 0.0, "{r:?}");
        }
        assert!(p.against_random[0].win > 0.95, "{:?}", p.against_random[0]);
        assert_eq!(p.moves.optimal_rate_faced, 1.0);
    }

    /// A table of random weights for every position of `sol` (some legal moves at 0, some
    /// mass on illegal ones), from `seed`.
    fn random_table(sol: &DynSolution, seed: u64) -> Vec<f64> {
        use rand::RngExt;
        let width = sol.game().num_distinct_actions();
        let mut rng = crate::core::random::rng(seed);
        let mut table = vec![0.0; sol.len() * width];
        for id in 0..sol.len() {
            let moves = sol.moves(id).unwrap();
            for a in 0..width {
                table[id * width + a] = if rng.random_bool(0.1) {
                    rng.random::<f64>()
                } else {
                    0.0
                };
            }
            for (k, (a, _)) in moves.iter().enumerate() {
                // At least the first legal move has weight.
                let w: f64 = rng.random();
                table[id * width + *a as usize] = if k == 0 || rng.random_bool(0.7) {
                    w + 1e-3
                } else {
                    0.0
                };
            }
        }
        table
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// The joint call (every seat) equals the per-seat calls, field by field, for any
        /// policy, with or without a given opponent and whatever illegal mass does: in a game
        /// of two players and in one of three with chance.
        #[test]
        fn the_joint_call_equals_the_per_seat_calls(seed in 0u64..1_000_000, lose: bool, three: bool) {
            let game = if three {
                DynGame::new("dice-race", toml::toml! { players = 3
                goal = 4 }).unwrap()
            } else {
                DynGame::new("tictactoe", toml::Table::new()).unwrap()
            };
            let sol = game.solve(1 << 20).unwrap();
            let (mine, theirs) = (random_table(&sol, seed), random_table(&sol, seed ^ 0x9e37));
            let illegal = if lose { Illegal::Lose } else { Illegal::Renormalize };
            let spec = |table| PolicyTable { table, illegal, output: Output::Probabilities };
            let seats: Vec<Player> = (0..game.num_players()).collect();
            let joint = sol.evaluate_with(spec(&mine), &seats, Some(spec(&theirs))).unwrap();
            for (k, &seat) in seats.iter().enumerate() {
                let alone = sol.evaluate_with(spec(&mine), &[seat], Some(spec(&theirs))).unwrap();
                proptest::prop_assert_eq!(joint.against_perfect[k], alone.against_perfect[0]);
                proptest::prop_assert_eq!(joint.against_random[k], alone.against_random[0]);
                proptest::prop_assert_eq!(joint.against_best_response[k], alone.against_best_response[0]);
                let (j, a) = (joint.against_opponent.as_ref().unwrap(), alone.against_opponent.as_ref().unwrap());
                proptest::prop_assert_eq!(j[k], a[0]);
                proptest::prop_assert_eq!(joint.moves_per_seat[k], alone.moves);
                // NaN (no such position) compares unequal: compare the bits.
                let bits = |t: &ThrowMass| serde_json::to_string(t).unwrap();
                proptest::prop_assert_eq!(bits(&joint.throws_per_seat[k]), bits(&alone.throws_per_seat[0]));
                // No policy does better against the opponent than the best response to it.
                let best = sol.best_response(Opponent::Policy(spec(&theirs)), seat).unwrap();
                proptest::prop_assert!(a[0].expected_return <= best.result.expected_return + 1e-12);
            }
        }
    }

    #[test]
    fn hackenbush_positions_have_values_and_other_games_none() {
        let game = DynGame::new("hackenbush", toml::toml! { position = "lrl(e;r)" }).unwrap();
        let sol = game.solve(1 << 20).unwrap();
        let values = sol.cgt_values().expect("Hackenbush has values");
        assert_eq!(values.len(), sol.len());
        // The position with no edge left is worth 0; every position has a value.
        assert!(values.iter().all(Option::is_some), "{values:?}");
        assert!(
            values.iter().any(|v| v.as_deref() == Some("0")),
            "{values:?}"
        );
        let tictactoe = DynGame::new("tictactoe", toml::Table::new()).unwrap();
        assert_eq!(tictactoe.solve(1 << 20).unwrap().cgt_values(), None);
    }

    #[test]
    fn games_too_big_or_without_truth_are_refused() {
        let big = DynGame::new("fox-hounds", toml::toml! { size = 12 }).unwrap();
        assert!(big.solve(1 << 20).is_err());
        let hase = DynGame::new("hase-und-igel", toml::Table::new()).unwrap();
        assert!(hase.solve(1 << 20).is_err());
    }
}
