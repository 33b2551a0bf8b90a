//! Hackenbush (Blue-Red-Green, "Hotchpotch"): positions are graphs standing on the ground.
//!
//! Left cuts blue edges, Right cuts red ones, either player cuts green ones; every edge no
//! longer connected to the ground falls; whoever cannot cut loses (normal play). Any graph
//! with a ground: stalks, trees, cycles, loops, multi-edges. The game of Chen, "Hackenbush Game
//! Theory", and of Berlekamp, Conway and Guy, *Winning Ways*, ch. 2 and 7.
//!
//! - Positions are CGSuite graph strings ([`graph`]: `lrl`, `e(ee;e)`, `:Alrl:A`) or the
//!   paper's named positions ([`positions::NAMED`]: `stick-figure`, `fig5c`, `green-tree`…),
//!   or seeded random ones ([`positions::random`]).
//! - Players: Left (blue, player 0) and Right (red, player 1); who moves first is the `first`
//!   parameter.
//! - Actions: the edge ids of the position's string, in the order the edges are written;
//!   an action prints as the edge's colour letter and id (`l0`, `e3`, `r5`).
//! - The truth is a combinatorial-game value ([`values`], [`crate::truth::cgt`]); `solve` prints it,
//!   the winner for each first mover and every move's value. The enumerated solution still
//!   serves small positions (the exact evaluator, `play`).

pub mod features;
pub mod graph;
mod oracle;
mod picture;
pub mod positions;
pub mod shortcuts;
pub mod values;

pub use oracle::ValueOracle;

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use self::graph::{Colour, EdgeSet, Graph};
use self::positions::{Family, Palette};
use self::values::{Method, Values};
use crate::core::game::{Action, Capabilities, Game, Player, Returns, Solver, Truth, Turn};
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::truth::{Solve, SolveError, SolveOptions, SolveOutput};

game_params! {
    /// Hackenbush parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct HackenbushParams {
        /// the position: a CGSuite graph string (l blue, r red, e green; `lrl`, `e(ee;e)`, `:Alrl:A`; up to 16,384 edges, and `solve` values a part with mixed colours or blue-red cycles of up to 32 edges) or a named one (stick-figure, fig3a..fig7b, green-tree, fusion)
        pub position: String = "stick-figure".to_string(),
        /// who moves first: left (blue) or right (red)
        pub first: String = "left".to_string(),
        /// this many seeded random positions (up to 254) instead of `position`: from 2 on, each game starts with nature dealing one of them (learners train on the deal; `solve` lists each)
        pub random: u32 = 0,
        /// the seed of the random positions
        pub seed: u64 = 1,
        /// edges of each random position (1 to 4096)
        pub edges: u32 = 16,
        /// random positions' shape: stalks, trees or graphs (with cycles)
        pub family: String = "graphs".to_string(),
        /// random positions' colours: blue-red, green or all
        pub palette: String = "all".to_string(),
        /// Childish Hackenbush (CGSuite's variant): a blue or red edge may be cut only if no other edge falls
        pub childish: bool = false,
        /// hold out the last this many of the `random` positions (none by default): nature deals only the others, or with deal = "held-out" only these, so a learner can be measured on positions it never trained on
        pub held_out: Option<u32> = None,
        /// with held_out: which positions nature deals, train (the first random − held_out; the default) or held-out (the last held_out)
        pub deal: Option<String> = None,
        /// what `observe` writes: edges (a flag per edge id; the default) or summary (counts of standing edges by colour, seen from the observer's side, and by height, cycles and free cuts: the same numbers for any numbering of the edges, so a value can carry from one graph to another)
        pub observation: Option<String> = None,
    }
}

impl GameSpec for HackenbushParams {
    const NAME: &'static str = "hackenbush";
    const ALIASES: &'static [&'static str] = &["hotchpotch"];
    const SUMMARY: &'static str = "Blue-Red-Green Hackenbush on any graph: exact combinatorial-game values (Chen; Winning Ways)";
    type Game = Hackenbush;
    fn build(self) -> Result<Hackenbush, InvalidParams> {
        Hackenbush::new(self)
    }
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        cut_params(text)
    }
}

/// The rules of one Hackenbush position (and, for data sets, the random positions beside it).
#[derive(Clone, Debug)]
pub struct Hackenbush {
    graph: Arc<Graph>,
    first: Player,
    params: HackenbushParams,
    /// The random positions when `random > 0` (the game is played on the first).
    others: Arc<Vec<Arc<Graph>>>,
    /// The boards nature deals (all of `others` unless some are held out).
    dealt: std::ops::Range<usize>,
    /// `observation = "summary"`: [`features::summary`] rather than a flag per edge.
    summary: bool,
}

/// A position: the edges still standing, who is to move, and which of the game's positions
/// it is ([`DEAL`] before the deal of a data set).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HackenbushState {
    pub alive: EdgeSet,
    pub to_move: u8,
    pub board: u8,
}

/// The board index of the state before nature deals one of several positions.
pub const DEAL: u8 = u8::MAX;

/// At most this many random positions make one game (a deal).
pub const MAX_DEAL: u32 = 254;

/// `play` and `solve` enumerate a position (to know the plies to the end) when it has at most
/// this many positions by [`Hackenbush::state_bound`]; larger ones are answered by their values.
pub const PLIES_UP_TO: u64 = 250_000;

/// `solve` lists every move's value for positions of at most this many edges.
pub const MOVES_UP_TO: usize = 256;

/// The most edges a position given as a graph string may have: a position's parts each hold
/// a set of all its edges and scratch space for all its vertices, so a position of many parts
/// costs time and memory in the square of its edges (16,384 edges on the ground take about a
/// second).
pub const MAX_EDGES: usize = 16_384;

/// Left (blue) is player 0, Right (red) player 1.
pub const LEFT: Player = 0;
pub const RIGHT: Player = 1;

impl Hackenbush {
    pub fn new(params: HackenbushParams) -> Result<Self, InvalidParams> {
        let first = match params.first.to_ascii_lowercase().as_str() {
            "left" | "blue" | "l" => LEFT,
            "right" | "red" | "r" => RIGHT,
            other => {
                return Err(InvalidParams::new(
                    "first",
                    other,
                    "left (blue) or right (red)",
                ));
            }
        };
        let defaults = HackenbushParams::default();
        if params.random > 0 && params.position != defaults.position {
            return Err(InvalidParams::new(
                "position",
                &params.position,
                "give a position or random positions (random = N), not both",
            ));
        }
        if params.random == 0 {
            for (key, given, default) in [
                ("family", params.family.clone(), defaults.family.clone()),
                ("palette", params.palette.clone(), defaults.palette.clone()),
                (
                    "edges",
                    params.edges.to_string(),
                    defaults.edges.to_string(),
                ),
            ] {
                if given != default {
                    return Err(InvalidParams::new(
                        key,
                        given,
                        "applies to random positions only: add random = N",
                    ));
                }
            }
        }
        let graphs: Vec<Arc<Graph>> = if params.random > 0 {
            let family: Family = params
                .family
                .parse()
                .map_err(|e: String| InvalidParams::new("family", &params.family, e))?;
            let palette: Palette = params
                .palette
                .parse()
                .map_err(|e: String| InvalidParams::new("palette", &params.palette, e))?;
            if params.random > MAX_DEAL {
                return Err(InvalidParams::new(
                    "random",
                    params.random,
                    format!("at most {MAX_DEAL} random positions (a game deals one of them)"),
                ));
            }
            if !(1..=4096).contains(&params.edges) {
                return Err(InvalidParams::new(
                    "edges",
                    params.edges,
                    "a random position has 1 to 4096 edges",
                ));
            }
            let mut rng = crate::core::random::rng(params.seed);
            (0..params.random)
                .map(|_| {
                    Arc::new(positions::random(
                        family,
                        palette,
                        params.edges as usize,
                        &mut rng,
                    ))
                })
                .collect()
        } else {
            vec![Arc::new(Self::position(&params.position)?)]
        };
        let dealt = Self::split(&params)?;
        let summary = match params.observation.as_deref() {
            None | Some("edges") => false,
            Some("summary") => true,
            Some(other) => {
                return Err(InvalidParams::new(
                    "observation",
                    other,
                    "edges (a flag per edge id) or summary (counts that do not depend on the edge numbers)",
                ));
            }
        };
        Ok(Hackenbush {
            graph: graphs[0].clone(),
            first,
            params,
            others: Arc::new(graphs),
            dealt,
            summary,
        })
    }

    /// The boards nature deals: all `random` of them, or with `held_out = M` the first
    /// `random − M` (`deal = "train"`) or the last M (`deal = "held-out"`). Both splits keep
    /// every board's index, so a state of a held-out board is never a state of a training one.
    fn split(params: &HackenbushParams) -> Result<std::ops::Range<usize>, InvalidParams> {
        let n = params.random.max(1) as usize;
        let Some(m) = params.held_out else {
            if let Some(deal) = &params.deal {
                return Err(InvalidParams::new(
                    "deal",
                    deal,
                    "chooses between the training and the held-out positions: add held_out = M",
                ));
            }
            return Ok(0..n);
        };
        if params.random < 2 {
            return Err(InvalidParams::new(
                "held_out",
                m,
                "holds out some of the random positions: add random = N (at least 2, more than held_out)",
            ));
        }
        if m == 0 || m >= params.random {
            return Err(InvalidParams::new(
                "held_out",
                m,
                format!(
                    "hold out 1 to {} of the {} random positions (random − 1: at least one is left to train on)",
                    params.random - 1,
                    params.random
                ),
            ));
        }
        let train = n - m as usize;
        match params.deal.as_deref() {
            None | Some("train") => Ok(0..train),
            Some("held-out") => Ok(train..n),
            Some(other) => Err(InvalidParams::new(
                "deal",
                other,
                "train (the first random − held_out positions) or held-out (the last held_out)",
            )),
        }
    }

    /// A named position or a graph string.
    fn position(text: &str) -> Result<Graph, InvalidParams> {
        if let Some((_, g)) = positions::named(text) {
            return Ok(g);
        }
        // Edge letters bound the edges from above; refuse before building the graph.
        let letters = text
            .chars()
            .filter(|c| matches!(c, 'l' | 'r' | 'e'))
            .count();
        if letters > MAX_EDGES {
            return Err(InvalidParams::new(
                "position",
                crate::io::text::abbreviated(text, 60),
                format!(
                    "it has {letters} edge letters (l, r, e); a position has at most {MAX_EDGES} \
                     edges"
                ),
            ));
        }
        Graph::parse(text).map_err(|e| {
            InvalidParams::new(
                "position",
                crate::io::text::abbreviated(text, 60),
                format!(
                    "{e} (a CGSuite graph string such as `lrl` or `e(ee;e)`, or one of: {})",
                    positions::NAMED.join(", ")
                ),
            )
        })
    }

    /// The game on a given graph, Left moving first.
    pub fn on(graph: Graph) -> Self {
        let graph = Arc::new(graph);
        Hackenbush {
            params: HackenbushParams {
                position: graph.to_cgsuite(),
                ..HackenbushParams::default()
            },
            graph: graph.clone(),
            first: LEFT,
            others: Arc::new(vec![graph]),
            dealt: 0..1,
            summary: false,
        }
    }

    /// The same game observed by [`features::summary`] (`observation = "summary"`) or by a flag
    /// per edge.
    pub fn with_summary(mut self, summary: bool) -> Self {
        self.summary = summary;
        self.params.observation = summary.then(|| "summary".to_string());
        self
    }

    /// The boards nature deals (every board unless some are held out: [`HackenbushParams::held_out`]).
    pub fn dealt(&self) -> std::ops::Range<usize> {
        self.dealt.clone()
    }

    /// The same position with `first` to move first.
    pub fn with_first(mut self, first: Player) -> Self {
        self.first = first;
        self.params.first = if first == LEFT { "left" } else { "right" }.to_string();
        self
    }

    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// Whether the game starts with nature dealing one of several positions (`random` ≥ 2).
    pub fn deals(&self) -> bool {
        self.others.len() > 1
    }

    /// The graph a (dealt) state stands on.
    fn graph_of(&self, s: &HackenbushState) -> &Graph {
        &self.others[s.board as usize]
    }

    /// Whether this is Childish Hackenbush (cutting a blue or red edge may not make other edges
    /// fall; green edges are free).
    pub fn childish(&self) -> bool {
        self.params.childish
    }

    /// The same position under the childish rule (or not).
    pub fn with_childish(mut self, childish: bool) -> Self {
        self.params.childish = childish;
        self
    }

    /// A fresh value computer for this game's (first) graph and rules.
    pub fn values(&self) -> Values {
        self.values_on(self.graph.clone())
    }

    /// The value of position `s` in CGSuite's notation ("^*", "{1|-1/2}"), worked out by
    /// `values` (one computer per board, made here when first needed: keep it for the next
    /// positions); `None` before nature deals.
    pub fn value_text(
        &self,
        values: &mut Vec<Option<Values>>,
        s: &HackenbushState,
    ) -> Option<String> {
        if s.board == DEAL {
            return None;
        }
        let board = s.board as usize;
        if values.len() <= board {
            values.resize_with(board + 1, || None);
        }
        let v = values[board].get_or_insert_with(|| self.values_on(self.others[board].clone()));
        let id = v.value(&s.alive);
        Some(v.store.show(id))
    }

    fn values_on(&self, graph: Arc<Graph>) -> Values {
        let v = Values::new(graph, Method::Shortcuts);
        if self.childish() { v.childish() } else { v }
    }

    /// Every position of a data set (one unless `random > 0`).
    pub fn positions(&self) -> &[Arc<Graph>] {
        &self.others
    }

    /// An upper bound on the reachable positions (both movers): parts multiply; a tree part
    /// has exactly as many standing sets as rooted subtrees (counted bottom-up), a part with
    /// cycles at most 2^edges.
    pub fn state_bound(&self) -> u64 {
        let dealt: u128 = self.others[self.dealt.clone()]
            .iter()
            .map(|g| Self::bound_of(g) as u128)
            .fold(0u128, |a, b| a.saturating_add(b));
        let deal = u128::from(self.deals());
        dealt.saturating_add(deal).min(u64::MAX as u128) as u64
    }

    fn bound_of(g: &Graph) -> u64 {
        let mut total: u128 = 2;
        for part in g.components(&g.full()) {
            let count: u128 = match g.rooted_tree(&part) {
                Some(order) => {
                    let mut f = vec![1u128; g.vertex_count()];
                    for &(v, parent, _) in order.iter().rev() {
                        let below = f[v as usize].saturating_add(1);
                        f[parent as usize] = f[parent as usize].saturating_mul(below);
                    }
                    f[0]
                }
                None => 1u128.checked_shl(part.count() as u32).unwrap_or(u128::MAX),
            };
            total = total.saturating_mul(count);
        }
        total.min(u64::MAX as u128) as u64
    }

    /// Refuses a game with a position the exact method cannot value in reasonable time
    /// ([`values::beyond_exact_method`]).
    fn within_exact_method(&self) -> Result<(), SolveError> {
        for (i, g) in self.others.iter().enumerate() {
            if let Some(why) = values::beyond_exact_method(g, self.childish()) {
                return Err(self.unsolvable(i, why));
            }
        }
        Ok(())
    }

    /// The error for position `i` of the game.
    fn unsolvable(&self, i: usize, why: String) -> SolveError {
        let why = if self.deals() || self.params.random > 0 {
            format!("random position {} of {}: {why}", i + 1, self.others.len())
        } else {
            why
        };
        SolveError::Unsolvable {
            game: HackenbushParams::NAME,
            why,
        }
    }

    fn may_cut(player: Player, colour: Colour) -> bool {
        match colour {
            Colour::Green => true,
            Colour::Blue => player == LEFT,
            Colour::Red => player == RIGHT,
        }
    }
}

/// A position's text cut into the graph and the mover: the last word is the mover when it is
/// `left`, `right`, `blue` or `red` (none of which a graph string can end in).
fn split_mover(text: &str) -> (&str, Option<Player>) {
    let trimmed = text.trim_end();
    if let Some((graph, word)) = trimmed.rsplit_once(char::is_whitespace) {
        match word.to_ascii_lowercase().as_str() {
            "left" | "blue" => return (graph, Some(LEFT)),
            "right" | "red" => return (graph, Some(RIGHT)),
            _ => {}
        }
    }
    (trimmed, None)
}

/// The parameters a position's text implies (`moves`, `play` and `solve` take them from
/// `--state`): the graph as `position`, the mover as `first` where it is written.
pub fn cut_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
    let (graph, mover) = split_mover(text);
    let mut m = serde_json::Map::new();
    m.insert("position".into(), graph.trim().into());
    if let Some(p) = mover {
        m.insert(
            "first".into(),
            if p == LEFT { "left" } else { "right" }.into(),
        );
    }
    m
}

/// A position is looked for among the positions the game reaches by cuts while it has at most
/// this many ([`Hackenbush::state_bound`]).
const READ_SEARCH_UP_TO: u64 = 100_000;

impl Hackenbush {
    /// The standing edges of `alive` on board `board` in CGSuite's notation (`.`: none).
    fn standing_text(&self, board: usize, alive: &EdgeSet) -> String {
        if alive.count() == 0 {
            return ".".to_string();
        }
        self.others[board].sub(alive).to_cgsuite()
    }

    /// A position as text: the standing edges as a CGSuite graph string (in the writer's
    /// normal form; `.` when none stands), a space, and who is to move (`left` or `right`;
    /// `blue` and `red` are read too): `lrl right`. Without a mover the game's `first` moves.
    /// The game's own position and what cuts leave of it are read (looked for among the
    /// positions cuts reach while they are few); `moves`, `play` and `solve` take any graph,
    /// making it the game's position.
    pub fn read_cut(&self, text: &str) -> Result<HackenbushState, String> {
        let (graph_text, mover) = split_mover(text);
        let to_move = mover.unwrap_or(self.first) as u8;
        let graph = Self::position(graph_text.trim()).map_err(|e| e.reason)?;
        let want = if graph.edge_count() == 0 {
            ".".to_string()
        } else {
            graph.to_cgsuite()
        };
        let boards: Vec<usize> = (0..self.others.len()).collect();
        for &b in &boards {
            let full = self.others[b].full();
            if self.others[b].edge_count() == graph.edge_count()
                && self.standing_text(b, &full) == want
            {
                return Ok(HackenbushState {
                    alive: full,
                    to_move,
                    board: b as u8,
                });
            }
        }
        if self.state_bound() <= READ_SEARCH_UP_TO {
            for &b in &boards {
                let g = &self.others[b];
                let mut seen = std::collections::HashSet::new();
                let mut queue = vec![g.full()];
                seen.insert(g.full());
                while let Some(alive) = queue.pop() {
                    if alive.count() == graph.edge_count() && self.standing_text(b, &alive) == want
                    {
                        return Ok(HackenbushState {
                            alive,
                            to_move,
                            board: b as u8,
                        });
                    }
                    if alive.count() <= graph.edge_count() {
                        continue;
                    }
                    for e in alive.iter() {
                        let next = g.cut(&alive, e);
                        if seen.insert(next.clone()) {
                            queue.push(next);
                        }
                    }
                }
            }
        }
        Err(format!(
            "`{}` is not this game's position `{}` nor what cuts leave of it (give the graph as \
             --state alone, or as --position)",
            crate::io::text::abbreviated(&want, 40),
            crate::io::text::abbreviated(&self.graph.to_cgsuite(), 40)
        ))
    }

    /// The text [`Hackenbush::read_cut`] reads.
    pub fn write_cut(&self, s: &HackenbushState) -> String {
        format!(
            "{} {}",
            self.standing_text(s.board as usize, &s.alive),
            self.player_name(s.to_move as Player)
        )
    }
}

impl Default for Hackenbush {
    fn default() -> Self {
        Hackenbush::new(HackenbushParams::default()).expect("the defaults make a position")
    }
}

impl Game for Hackenbush {
    type State = HackenbushState;

    fn name(&self) -> &'static str {
        HackenbushParams::NAME
    }
    fn params(&self) -> serde_json::Value {
        let mut p = serde_json::json!({
            "position": self.graph.to_cgsuite(),
            "first": if self.first == LEFT { "left" } else { "right" },
        });
        if self.childish() {
            p["childish"] = serde_json::json!(true);
        }
        if self.deals() {
            let r = &self.params;
            p["random"] = serde_json::json!(r.random);
            p["seed"] = serde_json::json!(r.seed);
            p["edges"] = serde_json::json!(r.edges);
            p["family"] = serde_json::json!(r.family);
            p["palette"] = serde_json::json!(r.palette);
            if let Some(m) = r.held_out {
                p["held_out"] = serde_json::json!(m);
                p["deal"] = serde_json::json!(r.deal.as_deref().unwrap_or("train"));
            }
        }
        if self.summary {
            p["observation"] = serde_json::json!("summary");
        }
        p
    }
    fn num_players(&self) -> usize {
        2
    }
    fn player_name(&self, p: Player) -> &'static str {
        if p == LEFT { "left" } else { "right" }
    }
    fn num_distinct_actions(&self) -> usize {
        let edges = self
            .others
            .iter()
            .map(|g| g.edge_count())
            .max()
            .unwrap_or(0);
        if self.deals() {
            edges.max(self.others.len())
        } else {
            edges
        }
    }
    fn initial_state(&self) -> HackenbushState {
        if self.deals() {
            return HackenbushState {
                alive: EdgeSet::empty(0),
                to_move: self.first as u8,
                board: DEAL,
            };
        }
        HackenbushState {
            alive: self.graph.full(),
            to_move: self.first as u8,
            board: 0,
        }
    }
    fn chance_outcomes(&self, s: &HackenbushState, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if s.board == DEAL {
            let p = 1.0 / self.dealt.len() as f64;
            out.extend(self.dealt.clone().map(|i| (i as Action, p)));
        }
    }
    fn turn(&self, s: &HackenbushState) -> Turn {
        if s.board == DEAL {
            return Turn::Chance;
        }
        let graph = self.graph_of(s);
        let p = s.to_move as Player;
        let edges = graph.edges();
        let childish = self.childish();
        let standing = s.alive.count();
        if s.alive.iter().any(|e| {
            Self::may_cut(p, edges[e].colour)
                && (!childish
                    || edges[e].colour == Colour::Green
                    || graph.cut(&s.alive, e).count() + 1 == standing)
        }) {
            Turn::Player(p)
        } else {
            Turn::Terminal
        }
    }
    fn legal_actions(&self, s: &HackenbushState, out: &mut Vec<Action>) {
        out.clear();
        if s.board == DEAL {
            return;
        }
        let graph = self.graph_of(s);
        let p = s.to_move as Player;
        let edges = graph.edges();
        let childish = self.childish();
        let standing = s.alive.count();
        out.extend(
            s.alive
                .iter()
                .filter(|&e| Self::may_cut(p, edges[e].colour))
                .filter(|&e| {
                    !childish
                        || edges[e].colour == Colour::Green
                        || graph.cut(&s.alive, e).count() + 1 == standing
                })
                .map(|e| e as Action),
        );
    }
    fn apply(&self, s: &HackenbushState, a: Action) -> HackenbushState {
        if s.board == DEAL {
            return HackenbushState {
                alive: self.others[a as usize].full(),
                to_move: s.to_move,
                board: a as u8,
            };
        }
        HackenbushState {
            board: s.board,
            alive: self.graph_of(s).cut(&s.alive, a as usize),
            to_move: 1 - s.to_move,
        }
    }
    fn returns(&self, s: &HackenbushState) -> Returns {
        if s.board == DEAL {
            return Returns::zeros(2);
        }
        match self.turn(s) {
            // The player who cannot move loses.
            Turn::Terminal => Returns::loss(2, s.to_move as Player),
            _ => Returns::zeros(2),
        }
    }
    fn action_to_string(&self, s: &HackenbushState, a: Action) -> String {
        if s.board == DEAL {
            return format!("position {a}");
        }
        let e = &self.graph_of(s).edges()[a as usize];
        format!("{}{a}", e.colour.letter())
    }
    fn combinatorial_values<'a>(
        &self,
        states: impl Iterator<Item = &'a HackenbushState>,
    ) -> Option<Vec<Option<String>>> {
        let mut values = Vec::new();
        Some(states.map(|s| self.value_text(&mut values, s)).collect())
    }
    fn picture(
        &self,
        s: &HackenbushState,
    ) -> Result<crate::io::draw::Picture, crate::io::draw::DrawError> {
        picture::picture(self, s)
    }
    fn render(&self, s: &HackenbushState) -> String {
        if s.board == DEAL {
            let mut out = format!("a deal of {} positions:\n", self.dealt.len());
            for i in self.dealt.clone() {
                let g = &self.others[i];
                out.push_str(&format!("  position {i}: {}\n", g.to_cgsuite()));
            }
            return out + "nature deals one";
        }
        let graph = self.graph_of(s);
        let standing = graph.sub(&s.alive);
        let mut out = format!(
            "position {} ({} of {} edges standing)\n",
            if standing.edge_count() == 0 {
                "(empty)".to_string()
            } else {
                standing.to_cgsuite()
            },
            s.alive.count(),
            graph.edge_count()
        );
        for e in s.alive.iter() {
            let edge = &graph.edges()[e];
            let end = |v: u32| {
                if v == 0 {
                    "ground".to_string()
                } else {
                    format!("v{v}")
                }
            };
            out.push_str(&format!(
                "  {}{e}: {} edge {} - {}\n",
                edge.colour.letter(),
                edge.colour,
                end(edge.a),
                end(edge.b)
            ));
        }
        out.push_str(&format!(
            "{} to move",
            if s.to_move as Player == LEFT {
                "left (blue)"
            } else {
                "right (red)"
            }
        ));
        out
    }
    /// The graph string and the mover (see [`Hackenbush::read_cut`]): `lrl right`.
    fn read_position(&self, text: &str) -> Result<HackenbushState, String> {
        self.read_cut(text)
    }
    /// The standing edges in CGSuite's notation and the mover; none before a deal.
    fn write_position(&self, s: &HackenbushState) -> Option<serde_json::Value> {
        (s.board != DEAL).then(|| serde_json::Value::String(self.write_cut(s)))
    }
    /// The notation for people, then after ` @ ` what names the state exactly: the board (0
    /// unless the game deals), the standing edges as a hexadecimal number (bit `i`: edge `i`
    /// in the order of the game's graph string) and the mover: `lrl right @ 0:7:right`; `deal`
    /// before a deal. A graph string names its graph only up to mirror images, and a dealt
    /// graph may stand on two boards: the key tells them apart.
    fn write_state_key(&self, s: &HackenbushState) -> Option<String> {
        if s.board == DEAL {
            return Some("deal".to_string());
        }
        let n = self.graph_of(s).edge_count();
        let mut nibbles = vec![0u8; n.div_ceil(4).max(1)];
        for e in s.alive.iter() {
            nibbles[e / 4] |= 1 << (e % 4);
        }
        let hex: String = nibbles
            .iter()
            .rev()
            .map(|&d| char::from_digit(u32::from(d), 16).expect("a nibble"))
            .collect();
        let mover = self.player_name(s.to_move as Player);
        Some(format!("{} @ {}:{hex}:{mover}", self.write_cut(s), s.board))
    }
    fn read_state_key(&self, text: &str) -> Result<HackenbushState, String> {
        let text = text.trim();
        if text == "deal" {
            return if self.deals() {
                Ok(self.initial_state())
            } else {
                Err("`deal`: this game does not deal (random < 2)".to_string())
            };
        }
        let Some((_, key)) = text.rsplit_once(" @ ") else {
            return Err(format!(
                "`{text}` is not a state key: the notation, ` @ `, then board:edges:mover (`lrl right @ 0:7:right`)"
            ));
        };
        let parts: Vec<&str> = key.trim().split(':').collect();
        let [board, hex, mover] = parts[..] else {
            return Err(format!("`{key}`: a state key ends in board:edges:mover"));
        };
        let board: usize = board
            .parse()
            .ok()
            .filter(|&b| b < self.others.len())
            .ok_or_else(|| {
                format!(
                    "`{key}`: board `{board}` is not one of the game's {} (0 to {})",
                    self.others.len(),
                    self.others.len() - 1
                )
            })?;
        let to_move = match mover.to_ascii_lowercase().as_str() {
            "left" | "blue" => LEFT,
            "right" | "red" => RIGHT,
            other => return Err(format!("`{key}`: the mover `{other}` is left or right")),
        };
        let graph = &self.others[board];
        let n = graph.edge_count();
        if hex.len() != n.div_ceil(4).max(1) {
            return Err(format!(
                "`{key}`: board {board} has {n} edges, written in {} hexadecimal digits, not {}",
                n.div_ceil(4).max(1),
                hex.len()
            ));
        }
        let mut alive = graph.no_edges();
        for (i, c) in hex.chars().rev().enumerate() {
            let d = c
                .to_digit(16)
                .ok_or_else(|| format!("`{key}`: `{c}` is not a hexadecimal digit"))?;
            for bit in 0..4 {
                if d & (1 << bit) != 0 {
                    let e = 4 * i + bit;
                    if e >= n {
                        return Err(format!("`{key}`: board {board} has no edge {e}"));
                    }
                    alive.insert(e);
                }
            }
        }
        if graph.reachable(&alive) != alive {
            return Err(format!(
                "`{key}`: edges stand that no longer touch the ground (they would have fallen)"
            ));
        }
        Ok(HackenbushState {
            alive,
            to_move: to_move as u8,
            board: board as u8,
        })
    }
    /// A flag per edge id and the mover's flag, or with `observation = "summary"` the
    /// [`features::summary`] of the standing edges.
    fn observation_len(&self) -> usize {
        if self.summary {
            return features::SUMMARY_LEN;
        }
        self.num_distinct_actions() + 1
    }
    fn observation_bounds(&self, low: &mut [f32], high: &mut [f32]) {
        if self.summary {
            let edges = self.others.iter().map(|g| g.edge_count()).max();
            features::summary_bounds(edges.unwrap_or(0), low, high);
        } else {
            low.fill(0.0);
            high.fill(1.0);
        }
    }
    fn observe(&self, s: &HackenbushState, player: Player, out: &mut [f32]) {
        if self.summary {
            // Before the deal nothing stands (the first board serves as any graph would).
            let graph: &Graph = match s.board {
                DEAL => &self.graph,
                _ => self.graph_of(s),
            };
            features::summary(graph, &s.alive, player, s.to_move as Player, out);
            return;
        }
        out.fill(0.0);
        for e in s.alive.iter() {
            out[e] = 1.0;
        }
        let n = self.num_distinct_actions();
        out[n] = if s.to_move as Player == player {
            1.0
        } else {
            0.0
        };
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            chance: self.deals(),
            deal: self.deals(),
            truth: Truth::CombinatorialValue,
            solver: Solver::Own {
                name: "combinatorial values (parts, memo, the theory's shortcuts)",
                flags: &[],
            },
            states_at_most: Some(self.state_bound()),
            ..Capabilities::enumerable(2)
        }
    }
}

impl Solve for Hackenbush {
    fn solve(
        &self,
        options: &SolveOptions,
    ) -> Result<Box<dyn crate::truth::oracle::Oracle<Self>>, SolveError> {
        // Enumerate where the positions are few (then the plies are known too: a quarter of a
        // million positions take a few seconds); otherwise the values alone answer.
        let limit = if options.generic {
            options.max_states as u64
        } else {
            (options.max_states as u64).min(PLIES_UP_TO)
        };
        if !options.generic {
            self.within_exact_method()?;
        }
        let solution = if options.generic || self.state_bound() <= limit {
            Some(crate::truth::Solution::solve(self, options.max_states)?)
        } else {
            None
        };
        Ok(Box::new(ValueOracle {
            game: self.clone(),
            values: Mutex::new(Vec::new()),
            last: Mutex::new(None),
            solution,
        }))
    }
    fn solve_output(&self, options: &SolveOptions) -> Result<SolveOutput, SolveError> {
        if options.generic {
            return Ok(SolveOutput::Report(Box::new(self.solve(options)?.report())));
        }
        // Say up front if any position is beyond the exact method, before valuing the others.
        self.within_exact_method()?;
        let mut entries = Vec::with_capacity(self.others.len());
        for (i, g) in self.others.iter().enumerate() {
            // Every move's value for one position of a size a person reads.
            let moves = self.params.random == 0 && g.edge_count() <= MOVES_UP_TO;
            // The last position's working memory is left to the exit when the process ends.
            let leave = options.process_ends && i + 1 == self.others.len();
            let e = values::evaluate_within(g, moves, self.childish(), options.progress, leave)
                .map_err(|e| self.unsolvable(i, e.0))?;
            let text = describe(&e);
            let json = serde_json::to_value(&e).expect("an evaluation is JSON");
            entries.push((text, json));
        }
        Ok(SolveOutput::Entries(entries))
    }
}

/// A value for people: the value, who wins for each first mover, every move.
pub fn describe(e: &values::Evaluation) -> String {
    let mut s = format!(
        "hackenbush {} ({} edge{})\nvalue {}  (outcome {}: {})\nleft starts: {} wins; right starts: {} wins\n",
        e.position,
        e.edges,
        if e.edges == 1 { "" } else { "s" },
        e.value,
        e.outcome,
        match e.outcome {
            "L" => "Left wins whoever starts",
            "R" => "Right wins whoever starts",
            "N" => "the player to move wins",
            _ => "the second player wins",
        },
        e.winner_if_left_starts,
        e.winner_if_right_starts,
    );
    if !e.moves.is_empty() {
        s.push_str("moves (* best):\n");
        for m in &e.moves {
            let mark = |b: bool| if b { "*" } else { " " };
            let who = match m.colour {
                "blue" => format!("left {}", mark(m.best_for_left)),
                "red" => format!("right {}", mark(m.best_for_right)),
                _ => format!(
                    "left {} right {}",
                    mark(m.best_for_left),
                    mark(m.best_for_right)
                ),
            };
            s.push_str(&format!(
                "  {}{:<4} {:<18} -> {}\n",
                &m.colour[..1].replace('b', "l").replace('g', "e"),
                m.edge,
                who,
                m.value
            ));
        }
    }
    s.push_str(&format!(
        "{} distinct parts evaluated in {:.3} s",
        e.positions, e.seconds
    ));
    s
}

#[cfg(test)]
mod tests;
