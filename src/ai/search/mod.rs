//! Heuristic game-tree search for any [`Game`], in the shape of the Hase und Igel reference AI
//! (the article "AI in the game Hase und Igel: minimax for three"):
//! a depth-limited tree whose leaves carry one score per player, reduced for the player
//! choosing, with alpha-beta pruning, moves sorted by their static score, and a cutoff vector
//! that keeps only the best k moves at deeper levels. It never names a game: a game supplies
//! [`Game::heuristic`]; terminal positions are scored exactly by their returns.
//!
//! - **Paranoid** search: the searching seat maximises its own score and every other seat
//!   minimises it (a coalition); alpha-beta prunes it without changing the root value.
//! - **Max-n** search: every seat maximises its own entry of the score vector, reduced by the
//!   reference AI's rules ([`Reduction`]): its own score, its lead over the best rival, or the hybrid
//!   (own score, ties broken by the lead).
//! - **Chance** nodes take the expectation over the outcomes, or (the reference AI's pessimistic
//!   option) the worst outcome for the searching seat.
//!
//! At full depth on a game without chance, paranoid search is minimax: it plays tic-tac-toe and
//! Hexapawn perfectly (tested against the exact solutions).

use crate::core::game::{Action, Game, MAX_PLAYERS, Player, Turn};
use crate::core::policy::Policy;
use crate::core::random::SgRng;
use crate::learn::saved::{Agent, load_agent};

mod settings;
pub use settings::*;

/// Terminal returns outweigh any heuristic score.
pub const TERMINAL_WEIGHT: f64 = 1e6;

/// The transposition table holds positions with at least this many plies left: one ply above
/// the leaves a position recurs too rarely to pay for storing it (measured on the three-hare
/// benchmark: docs/performance.md).
const TABLE_MIN_DEPTH: u32 = 2;

/// The transposition table's most entries: the load limit of 2^24 buckets (1 to 2 GB with
/// Hase und Igel's entries), far above what the benchmarks' searches store, and a bound on
/// any depth (a depth-64 search grew its table to 9.4 GB and aborted). A fixed count, not a
/// share of the machine's memory, so that a search plays the same moves on every machine.
const TABLE_MAX_ENTRIES: usize = 7 << 21;

/// A search given neither `nodes=` nor `ms=` that generates more positions than this is
/// redone by iterative deepening within this many (a depth-64 search would otherwise run for
/// ages). Far above the published searches (a depth-8 search with cut-offs: 79,000 a move;
/// tic-tac-toe to the end: 550,000), so their moves are unchanged; fixed, so a search plays
/// the same moves on every machine.
pub const UNBUDGETED_NODES: u64 = 5_000_000;

/// A learned evaluation in place of the game's heuristic: what a position is worth to a player
/// (by a saved agent: `eval=agent:PATH`). Its values stand where the heuristic's would, so the
/// returns of a finished game ([`TERMINAL_WEIGHT`] each) still outweigh them.
pub trait LearnedValue<G: Game>: Send + Sync {
    fn value(&self, game: &G, state: &G::State, player: Player) -> f64;
}

/// A saved agent evaluates by what its learner believes a position is worth
/// ([`crate::learn::Learner::position_value`]; 0 where it cannot say).
impl<G: Game> LearnedValue<G> for Agent<G> {
    fn value(&self, game: &G, state: &G::State, player: Player) -> f64 {
        self.learner
            .position_value(game, state, player)
            .unwrap_or(0.0)
    }
}

/// The saved agent at `path` as a learned evaluation for `game`: refused, with the reason, when
/// it does not load into the game or learns no values (a matchbox).
pub fn learned_value<G: Game>(
    game: &G,
    path: &std::path::Path,
) -> Result<std::sync::Arc<dyn LearnedValue<G>>, String> {
    let at = format!("eval=agent:{}", path.display());
    let agent = load_agent(game, path).map_err(|e| format!("{at}: {e:#}"))?;
    if !agent.learner.learns_values() {
        return Err(format!(
            "{at}: the agent ({}, kind {}) learns no values to evaluate with; save a value learner's \
             (td, q-learning, monte-carlo, linear, mlp, ntuple)",
            agent.header.label, agent.header.kind
        ));
    }
    Ok(std::sync::Arc::new(agent))
}

/// What a search evaluates with ([`SearchOptions::evaluator`]): the game, its heuristic
/// changed by the evaluation settings, and a learned evaluation in its place where one is given.
#[derive(Clone)]
pub struct Evaluator<G: Game> {
    pub game: G,
    pub learned: Option<std::sync::Arc<dyn LearnedValue<G>>>,
}

impl<G: Game> Evaluator<G> {
    /// A searcher with these evaluations.
    pub fn search(&self, options: SearchOptions) -> Search<'_, G> {
        let mut search = Search::new(&self.game, options);
        search.learned = self.learned.as_deref();
        search
    }
}

/// What a search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The chosen move (`None` where the root has none).
    pub action: Option<Action>,
    /// The root's score for the searching seat (paranoid), or the chosen child's score vector
    /// read by the searching seat (max-n).
    pub value: f64,
    /// Positions the search generated (every move and card outcome it looked at, each evaluated
    /// or searched; the root counts one): the reference AI's measure of a tree's size.
    pub nodes: u64,
}

type Scores = [f64; MAX_PLAYERS];

/// What a table entry knows of a position's value: exactly, or a bound from a cut.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    Exact,
    /// The value is at least this (a cut at a maximising node).
    Lower,
    /// The value is at most this.
    Upper,
}

/// A searcher over one game.
pub struct Search<'g, G: Game> {
    game: &'g G,
    /// Learned values in place of the game's heuristic ([`Evaluator::search`]).
    learned: Option<&'g dyn LearnedValue<G>>,
    options: SearchOptions,
    nodes: std::cell::Cell<u64>,
    /// Positions visited since the last look at the clock.
    visits: u64,
    /// (position, depth left, ply) -> value and what it is; cleared for every root.
    table: rustc_hash::FxHashMap<(G::State, u32, u32), (f64, Bound)>,
    /// When a budgeted search must stop, and whether it has.
    deadline: Option<std::time::Instant>,
    node_limit: u64,
    aborted: bool,
    /// The moves of a position one ply above the leaves (reused: no allocation there).
    leaf_moves: Vec<Action>,
}

impl<'g, G: Game> Search<'g, G> {
    pub fn new(game: &'g G, options: SearchOptions) -> Self {
        Search {
            game,
            learned: None,
            options,
            nodes: std::cell::Cell::new(0),
            visits: 0,
            table: rustc_hash::FxHashMap::default(),
            deadline: None,
            node_limit: u64::MAX,
            aborted: false,
            leaf_moves: Vec::new(),
        }
    }

    /// `p`'s heuristic score of `state`: the learned value where the search has one, else the
    /// game's heuristic.
    #[inline]
    fn heuristic(&self, state: &G::State, p: Player) -> f64 {
        match self.learned {
            Some(learned) => learned.value(self.game, state, p),
            None => self.game.heuristic(state, p).unwrap_or(0.0),
        }
    }

    /// Every seat's static score: exact returns at an end, else the heuristic.
    fn scores(&self, state: &G::State) -> Scores {
        let n = self.game.num_players();
        let mut s = [0.0; MAX_PLAYERS];
        if self.game.turn(state).is_terminal() {
            let r = self.game.returns(state);
            for (p, v) in s.iter_mut().enumerate().take(n) {
                *v = TERMINAL_WEIGHT * r[p];
            }
        } else {
            for (p, v) in s.iter_mut().enumerate().take(n) {
                *v = self.heuristic(state, p);
            }
        }
        s
    }

    /// How seat `p` reads a score vector.
    fn read(&self, s: &Scores, p: Player) -> f64 {
        match self.options.mode {
            Mode::Paranoid | Mode::MaxN(Reduction::Own | Reduction::Hybrid) => s[p],
            Mode::MaxN(Reduction::Lead) => s[p] - self.best_rival(s, p),
        }
    }

    fn best_rival(&self, s: &Scores, p: Player) -> f64 {
        (0..self.game.num_players())
            .filter(|&q| q != p)
            .map(|q| s[q])
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The moves of `state` to search at ply `ply`, best first by `mover`'s static reading
    /// when ordering, cut to the cutoff vector's count.
    fn moves(&mut self, state: &G::State, mover: Player, ply: usize) -> Vec<(Action, G::State)> {
        let mut legal = Vec::new();
        self.game.legal_actions(state, &mut legal);
        self.generated(legal.len());
        let mut children: Vec<(Action, G::State)> = legal
            .iter()
            .map(|&a| (a, self.game.apply(state, a)))
            .collect();
        if self.options.order {
            let mut keyed: Vec<(f64, usize)> = children
                .iter()
                .enumerate()
                .map(|(i, (_, c))| (self.read(&self.static_scores(c), mover), i))
                .collect();
            // Stable: equal scores keep the game's move order.
            keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut sorted: Vec<(Action, G::State)> =
                keyed.iter().map(|&(_, i)| children[i].clone()).collect();
            let keep = match self.options.cutoffs.as_slice() {
                [] => 0,
                c => c[ply.min(c.len() - 1)],
            };
            if keep > 0 {
                sorted.truncate(keep);
            }
            children = sorted;
        }
        children
    }

    /// Static scores of a child for ordering: at a chance node, the expectation over it.
    fn static_scores(&self, state: &G::State) -> Scores {
        if self.game.turn(state) != Turn::Chance {
            return self.scores(state);
        }
        let mut s = [0.0; MAX_PLAYERS];
        for (pr, child) in self.outcomes(state) {
            let c = self.scores(&child);
            for (x, y) in s.iter_mut().zip(c) {
                *x += pr * y;
            }
        }
        s
    }

    /// The outcomes of a chance node as (probability, position), outcomes that lead to the same
    /// position merged (their probabilities added: an exact saving), counted as generated.
    fn outcomes(&self, state: &G::State) -> Vec<(f64, G::State)> {
        let mut drawn = Vec::new();
        self.game.chance_outcomes(state, &mut drawn);
        let mut out: Vec<(f64, G::State)> = Vec::with_capacity(drawn.len());
        for (a, pr) in drawn {
            let child = self.game.apply(state, a);
            match out.iter_mut().find(|(_, c)| *c == child) {
                Some(same) => same.0 += pr,
                None => out.push((pr, child)),
            }
        }
        self.generated(out.len());
        out
    }

    /// The outcomes `chance=sample:k` searches at `state`: k draws by probability from a
    /// generator seeded by the position and the options' seed (the same every time).
    fn sampled(&self, state: &G::State) -> Vec<G::State> {
        use std::hash::{Hash, Hasher};
        let ChanceRule::Sample(k) = self.options.chance else {
            unreachable!("only chance=sample samples")
        };
        let mut hasher = rustc_hash::FxHasher::default();
        state.hash(&mut hasher);
        let mut rng = crate::core::random::rng(crate::core::random::derive_seed(
            self.options.seed,
            hasher.finish(),
        ));
        let mut outcomes = Vec::new();
        self.game.chance_outcomes(state, &mut outcomes);
        let drawn: Vec<G::State> = (0..k)
            .map(|_| {
                let a = crate::core::policy::draw_outcome(&outcomes, &mut rng);
                self.game.apply(state, a)
            })
            .collect();
        self.generated(drawn.len());
        drawn
    }

    /// Counts `k` positions generated.
    fn generated(&self, k: usize) {
        self.nodes.set(self.nodes.get() + k as u64);
    }

    /// Notes a visit; true when the budget is spent (the search then unwinds).
    fn spent(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        self.visits += 1;
        if self.nodes.get() > self.node_limit {
            self.aborted = true;
        } else if let Some(deadline) = self.deadline
            && self.visits.is_multiple_of(1024)
            && std::time::Instant::now() >= deadline
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Searches `state` for its mover: to the options' depth, or with a budget by iterative
    /// deepening (the deepest search that finished decides; if none did, the best move by the
    /// static score).
    pub fn best_move(&mut self, state: &G::State) -> SearchResult {
        self.table.clear();
        self.aborted = false;
        let mut budget = self.options.max_nodes;
        if budget.is_none() && self.options.max_millis.is_none() {
            self.nodes.set(1);
            self.node_limit = UNBUDGETED_NODES;
            self.deadline = None;
            let found = self.search_root(state, self.options.depth);
            if !self.aborted {
                return found;
            }
            // Too deep to finish: the deepest search that fits the same number of positions.
            self.table.clear();
            self.aborted = false;
            budget = Some(UNBUDGETED_NODES);
        }
        self.node_limit = budget.unwrap_or(u64::MAX);
        self.deadline = self
            .options
            .max_millis
            .map(|ms| std::time::Instant::now() + std::time::Duration::from_millis(ms));
        self.nodes.set(1);
        let mut done = None;
        for depth in 1..=self.options.depth.max(1) {
            let found = self.search_root(state, depth);
            if self.aborted {
                break;
            }
            done = Some(found);
        }
        let nodes = self.nodes.get();
        match done {
            Some(found) => SearchResult { nodes, ..found },
            None => {
                let fallback = match self.game.turn(state) {
                    Turn::Player(me) => self.moves(state, me, 0).first().map(|m| m.0),
                    _ => None,
                };
                SearchResult {
                    action: fallback,
                    value: f64::NAN,
                    nodes,
                }
            }
        }
    }

    /// One search of `state` to `depth` player plies.
    fn search_root(&mut self, state: &G::State, depth: u32) -> SearchResult {
        let counted = self.nodes.get();
        let Turn::Player(me) = self.game.turn(state) else {
            return SearchResult {
                action: None,
                value: self.read(&self.scores(state), 0),
                nodes: 0,
            };
        };
        let depth = depth.max(1) - 1;
        let (mut best, mut best_value, mut best_tie) = (None, f64::NEG_INFINITY, f64::NEG_INFINITY);
        let mut alpha = f64::NEG_INFINITY;
        let children: Vec<(Action, G::State, f64)> = match self.options.mode {
            Mode::Paranoid => self.ranked_children(state, me, Some(me), true, 0, depth == 0),
            Mode::MaxN(_) => self
                .moves(state, me, 0)
                .into_iter()
                .map(|(a, c)| (a, c, f64::NAN))
                .collect(),
        };
        for (a, child, static_value) in children {
            let (value, tie) = match self.options.mode {
                Mode::Paranoid => {
                    let window = if self.options.alpha_beta {
                        (alpha, f64::INFINITY)
                    } else {
                        (f64::NEG_INFINITY, f64::INFINITY)
                    };
                    let v = self.child_value(&child, me, Some(me), depth, 1, static_value, window);
                    (v.unwrap_or(0.0), 0.0)
                }
                Mode::MaxN(r) => {
                    let s = if self.stopped(&child, Some(me)) {
                        self.spent();
                        self.static_scores(&child)
                    } else {
                        self.max_n(&child, me, depth, 1)
                    };
                    let tie = if r == Reduction::Hybrid {
                        s[me] - self.best_rival(&s, me)
                    } else {
                        0.0
                    };
                    (self.read(&s, me), tie)
                }
            };
            if best.is_none() || value > best_value || (value == best_value && tie > best_tie) {
                (best, best_value, best_tie) = (Some(a), value, tie);
                alpha = alpha.max(value);
            }
        }
        SearchResult {
            action: best,
            value: best_value,
            nodes: self.nodes.get() - counted + 1,
        }
    }

    /// `me`'s static value of `state` in paranoid search: exact at an end, else the heuristic;
    /// a chance node by the chance rule over its outcomes' static values (the expectation, or
    /// the worst for `me`).
    fn static_value(&self, state: &G::State, me: Player) -> f64 {
        match self.game.turn(state) {
            Turn::Terminal => TERMINAL_WEIGHT * self.game.returns(state)[me],
            Turn::Player(_) => self.heuristic(state, me),
            Turn::Chance => {
                let outcomes = self.outcomes(state);
                let values = outcomes
                    .iter()
                    .map(|(pr, c)| (*pr, self.static_value(c, me)));
                match self.options.chance {
                    ChanceRule::Worst => values.map(|(_, v)| v).fold(f64::INFINITY, f64::min),
                    ChanceRule::Expectation | ChanceRule::Sample(_) => {
                        values.map(|(pr, v)| pr * v).sum()
                    }
                }
            }
        }
    }

    /// The children of `state` in paranoid search with `me`'s static value of each (NaN where
    /// it is not needed): a mover's moves (`mover` = Some), cut to the cutoff vector at `ply`,
    /// or a chance node's outcomes. Ordered best first for the side choosing (`maximise`: `me`;
    /// else the coalition or the worst card, lowest first); equal values keep the game's order.
    fn ranked_children(
        &mut self,
        state: &G::State,
        me: Player,
        mover: Option<Player>,
        maximise: bool,
        ply: usize,
        leaves: bool,
    ) -> Vec<(Action, G::State, f64)> {
        let mut children: Vec<(Action, G::State, f64)> = match mover {
            Some(_) => {
                let mut legal = Vec::new();
                self.game.legal_actions(state, &mut legal);
                self.generated(legal.len());
                legal
                    .iter()
                    .map(|&a| (a, self.game.apply(state, a), f64::NAN))
                    .collect()
            }
            None => self
                .outcomes(state)
                .into_iter()
                .map(|(_, c)| (0, c, f64::NAN))
                .collect(),
        };
        if self.options.order || leaves {
            for (_, child, value) in &mut children {
                *value = self.static_value(child, me);
            }
        }
        if self.options.order {
            let sign = if maximise { -1.0 } else { 1.0 };
            // Stable: equal values keep the game's order.
            children.sort_by(|a, b| (sign * a.2).total_cmp(&(sign * b.2)));
            if mover.is_some() {
                let keep = match self.options.cutoffs.as_slice() {
                    [] => 0,
                    c => c[ply.min(c.len() - 1)],
                };
                if keep > 0 {
                    children.truncate(keep);
                }
            }
        }
        children
    }

    /// Paranoid value of `state` for seat `me`, `depth` player plies left, within (alpha, beta).
    fn paranoid(
        &mut self,
        state: &G::State,
        me: Player,
        depth: u32,
        ply: usize,
        (alpha, beta): (f64, f64),
    ) -> f64 {
        if self.spent() {
            return 0.0;
        }
        let turn = self.game.turn(state);
        if turn == Turn::Terminal || depth == 0 {
            return self.static_value(state, me);
        }
        // The ply matters where the cutoff vector does; otherwise one entry serves all.
        let key_ply = if self.options.cutoffs.is_empty() {
            0
        } else {
            ply as u32
        };
        let tabled = self.options.table && depth >= TABLE_MIN_DEPTH;
        if tabled && let Some(&(v, bound)) = self.table.get(&(state.clone(), depth, key_ply)) {
            match bound {
                Bound::Exact => return v,
                Bound::Lower if v >= beta => return v,
                Bound::Upper if v <= alpha => return v,
                _ => {}
            }
        }
        let full = (f64::NEG_INFINITY, f64::INFINITY);
        let value = match turn {
            Turn::Chance if self.options.chance == ChanceRule::Expectation => {
                let mut sum = 0.0;
                for (pr, child) in self.outcomes(state) {
                    sum += pr * self.paranoid(&child, me, depth, ply, full);
                }
                sum
            }
            Turn::Chance if matches!(self.options.chance, ChanceRule::Sample(_)) => {
                let drawn = self.sampled(state);
                let k = drawn.len() as f64;
                let mut sum = 0.0;
                for child in drawn {
                    sum += self.paranoid(&child, me, depth, ply, full) / k;
                }
                sum
            }
            // The worst card: a node the coalition's side of the tree minimises.
            Turn::Chance => self.extremum(state, me, None, false, depth, ply, (alpha, beta)),
            Turn::Player(p) => {
                self.extremum(state, me, Some(p), p == me, depth, ply, (alpha, beta))
            }
            Turn::Terminal => unreachable!("scored above"),
        };
        if tabled && !self.aborted {
            let bound = if value <= alpha {
                Bound::Upper
            } else if value >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            // A full table keeps what it holds: memory stays bounded on any depth.
            if self.table.len() < TABLE_MAX_ENTRIES {
                self.table
                    .insert((state.clone(), depth, key_ply), (value, bound));
            }
        }
        value
    }

    /// The best child of a maximising (`me` to move) or minimising node (a rival, or the worst
    /// card) with alpha-beta. Children that are leaves (no depth left, or the mover has just
    /// finished while the others play on) take their static value from the ordering pass; each
    /// still counts as a position visited.
    #[allow(clippy::too_many_arguments)]
    fn extremum(
        &mut self,
        state: &G::State,
        me: Player,
        mover: Option<Player>,
        maximise: bool,
        depth: u32,
        ply: usize,
        (mut alpha, mut beta): (f64, f64),
    ) -> f64 {
        let (child_depth, child_ply) = match mover {
            Some(_) => (depth - 1, ply + 1),
            None => (depth, ply),
        };
        if mover.is_some() && child_depth == 0 {
            return self.leaf_extremum(state, me, maximise, (alpha, beta));
        }
        let children = self.ranked_children(state, me, mover, maximise, ply, child_depth == 0);
        let mut best = if maximise {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for (_, child, value) in children {
            let Some(v) = self.child_value(
                &child,
                me,
                mover,
                child_depth,
                child_ply,
                value,
                (alpha, beta),
            ) else {
                return 0.0;
            };
            if maximise {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if self.options.alpha_beta && beta <= alpha {
                break;
            }
        }
        best
    }

    /// The best static value of a mover's children, one ply above the leaves: the same value
    /// as ordering them and keeping the cutoff vector's best (the best is kept), found without
    /// sorting, each child made and valued only until one passes the bound (a cut).
    fn leaf_extremum(
        &mut self,
        state: &G::State,
        me: Player,
        maximise: bool,
        (alpha, beta): (f64, f64),
    ) -> f64 {
        let mut legal = std::mem::take(&mut self.leaf_moves);
        self.game.legal_actions(state, &mut legal);
        let mut best = if maximise {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for &a in &legal {
            self.generated(1);
            if self.spent() {
                best = 0.0;
                break;
            }
            let v = self.static_value(&self.game.apply(state, a), me);
            let cut = if maximise {
                best = best.max(v);
                v >= beta
            } else {
                best = best.min(v);
                v <= alpha
            };
            if cut && self.options.alpha_beta {
                break;
            }
        }
        self.leaf_moves = legal;
        best
    }

    /// A child's paranoid value: searched, or its static value (`value`, from the ordering pass
    /// where there was one) when it is a leaf — no depth left, or its mover has just finished
    /// while others play on. `None` when the budget ran out.
    #[allow(clippy::too_many_arguments)]
    fn child_value(
        &mut self,
        child: &G::State,
        me: Player,
        mover: Option<Player>,
        depth: u32,
        ply: usize,
        value: f64,
        window: (f64, f64),
    ) -> Option<f64> {
        if depth > 0 && !self.stopped(child, mover) {
            let v = self.paranoid(child, me, depth, ply, window);
            return (!self.aborted).then_some(v);
        }
        if self.spent() {
            return None;
        }
        Some(if value.is_nan() {
            self.static_value(child, me)
        } else {
            value
        })
    }

    /// Whether the search stops below `child` because its mover has finished while the game
    /// goes on (the reference AI's rule, [`SearchOptions::stop_finished`]).
    fn stopped(&self, child: &G::State, mover: Option<Player>) -> bool {
        self.options.stop_finished
            && mover.is_some_and(|p| self.game.has_finished(child, p))
            && !self.game.turn(child).is_terminal()
    }

    /// Max-n score vector of `state`: each mover takes the child best by its own reading.
    fn max_n(&mut self, state: &G::State, me: Player, depth: u32, ply: usize) -> Scores {
        if self.spent() {
            return [0.0; MAX_PLAYERS];
        }
        match self.game.turn(state) {
            Turn::Terminal => self.scores(state),
            _ if depth == 0 => self.static_scores(state),
            Turn::Chance if matches!(self.options.chance, ChanceRule::Sample(_)) => {
                let drawn = self.sampled(state);
                let k = drawn.len() as f64;
                let mut s = [0.0; MAX_PLAYERS];
                for child in drawn {
                    let c = self.max_n(&child, me, depth, ply);
                    for (x, y) in s.iter_mut().zip(c) {
                        *x += y / k;
                    }
                }
                s
            }
            Turn::Chance => {
                let mut children = Vec::new();
                for (pr, c) in self.outcomes(state) {
                    children.push((pr, self.max_n(&c, me, depth, ply)));
                }
                match self.options.chance {
                    ChanceRule::Expectation | ChanceRule::Sample(_) => {
                        let mut s = [0.0; MAX_PLAYERS];
                        for (pr, c) in &children {
                            for (x, y) in s.iter_mut().zip(c) {
                                *x += pr * y;
                            }
                        }
                        s
                    }
                    ChanceRule::Worst => children
                        .into_iter()
                        .map(|(_, c)| c)
                        .min_by(|a, b| self.read(a, me).total_cmp(&self.read(b, me)))
                        .unwrap_or([0.0; MAX_PLAYERS]),
                }
            }
            Turn::Player(p) => {
                let children = self.moves(state, p, ply);
                let mut best: Option<(f64, f64, Scores)> = None;
                for (_, child) in children {
                    let s = if self.stopped(&child, Some(p)) {
                        if self.spent() {
                            return [0.0; MAX_PLAYERS];
                        }
                        self.static_scores(&child)
                    } else {
                        self.max_n(&child, me, depth - 1, ply + 1)
                    };
                    let key = (self.read(&s, p), s[p] - self.best_rival(&s, p));
                    let better = match best {
                        None => true,
                        Some((v, t, _)) => {
                            key.0 > v
                                || (key.0 == v
                                    && self.options.mode == Mode::MaxN(Reduction::Hybrid)
                                    && key.1 > t)
                        }
                    };
                    if better {
                        best = Some((key.0, key.1, s));
                    }
                }
                best.map_or([0.0; MAX_PLAYERS], |b| b.2)
            }
        }
    }
}

/// A player that searches: the game's heuristic at the leaves, the options' depth and rules.
#[derive(Debug, Default)]
pub struct SearchPolicy {
    pub options: SearchOptions,
    /// What it evaluates with (the options' evaluation settings, a saved agent), made at the
    /// first move (an [`Evaluator<G>`]; one policy serves one game type).
    evaluator: std::sync::OnceLock<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

impl Clone for SearchPolicy {
    /// The same settings, sharing the evaluation made so far.
    fn clone(&self) -> Self {
        let copy = SearchPolicy::new(self.options.clone());
        if let Some(evaluator) = self.evaluator.get() {
            let _ = copy.evaluator.set(evaluator.clone());
        }
        copy
    }
}

impl SearchPolicy {
    /// A search player; check the options against the game first
    /// ([`SearchOptions::evaluator`]), as every command does.
    pub fn new(options: SearchOptions) -> Self {
        SearchPolicy {
            options,
            evaluator: std::sync::OnceLock::new(),
        }
    }

    /// A search player for `game`, its evaluation (settings, a saved agent) made now: the error
    /// says what the game refuses. Play in parallel with a player made so: one made by
    /// [`SearchPolicy::new`] reads its evaluation at its first move, and a saved agent's file is
    /// read with polars' threads, whose wait may take up other work of the same pool.
    pub fn for_game<G: Game>(options: SearchOptions, game: &G) -> Result<Self, String> {
        let policy = SearchPolicy::new(options);
        if policy.options.evaluates_apart() {
            let evaluator = policy.options.evaluator(game)?;
            let _ = policy.evaluator.set(std::sync::Arc::new(evaluator));
        }
        Ok(policy)
    }

    /// The searched move (the first legal one where the search has none).
    fn pick<G: Game>(&self, game: &G, state: &G::State, legal: &[Action]) -> Option<Action> {
        let found = if !self.options.evaluates_apart() {
            Search::new(game, self.options.clone()).best_move(state)
        } else {
            let evaluator = self.evaluator.get_or_init(|| {
                std::sync::Arc::new(
                    self.options
                        .evaluator(game)
                        .expect("search settings are checked before play"),
                )
            });
            let evaluator = evaluator
                .downcast_ref::<Evaluator<G>>()
                .expect("a search player plays one game");
            evaluator.search(self.options.clone()).best_move(state)
        };
        found.action.or_else(|| legal.first().copied())
    }
}

impl<G: Game> Policy<G> for SearchPolicy {
    fn name(&self) -> String {
        format!("search({})", self.options.spec())
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        _: &mut SgRng,
    ) -> Option<Action> {
        self.pick(game, state, legal)
    }
    /// Deterministic: all the probability on the move the search picks (so the exact
    /// evaluator can tabulate it).
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        crate::core::policy::point_mass(legal, self.pick(game, state, legal), probs);
        true
    }
}

#[cfg(test)]
mod tests;
