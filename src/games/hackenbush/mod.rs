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
pub mod positions;
pub mod shortcuts;
pub mod values;

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
pub struct Cut {
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
    fn graph_of(&self, s: &Cut) -> &Graph {
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
    pub fn value_text(&self, values: &mut Vec<Option<Values>>, s: &Cut) -> Option<String> {
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
    pub fn read_cut(&self, text: &str) -> Result<Cut, String> {
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
                return Ok(Cut {
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
                        return Ok(Cut {
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
    pub fn write_cut(&self, s: &Cut) -> String {
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
    type State = Cut;

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
    fn initial_state(&self) -> Cut {
        if self.deals() {
            return Cut {
                alive: EdgeSet::empty(0),
                to_move: self.first as u8,
                board: DEAL,
            };
        }
        Cut {
            alive: self.graph.full(),
            to_move: self.first as u8,
            board: 0,
        }
    }
    fn chance_outcomes(&self, s: &Cut, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if s.board == DEAL {
            let p = 1.0 / self.dealt.len() as f64;
            out.extend(self.dealt.clone().map(|i| (i as Action, p)));
        }
    }
    fn turn(&self, s: &Cut) -> Turn {
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
    fn legal_actions(&self, s: &Cut, out: &mut Vec<Action>) {
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
    fn apply(&self, s: &Cut, a: Action) -> Cut {
        if s.board == DEAL {
            return Cut {
                alive: self.others[a as usize].full(),
                to_move: s.to_move,
                board: a as u8,
            };
        }
        Cut {
            board: s.board,
            alive: self.graph_of(s).cut(&s.alive, a as usize),
            to_move: 1 - s.to_move,
        }
    }
    fn returns(&self, s: &Cut) -> Returns {
        if s.board == DEAL {
            return Returns::zeros(2);
        }
        match self.turn(s) {
            // The player who cannot move loses.
            Turn::Terminal => Returns::loss(2, s.to_move as Player),
            _ => Returns::zeros(2),
        }
    }
    fn action_to_string(&self, s: &Cut, a: Action) -> String {
        if s.board == DEAL {
            return format!("position {a}");
        }
        let e = &self.graph_of(s).edges()[a as usize];
        format!("{}{a}", e.colour.letter())
    }
    fn render(&self, s: &Cut) -> String {
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
    fn read_position(&self, text: &str) -> Result<Cut, String> {
        self.read_cut(text)
    }
    /// The standing edges in CGSuite's notation and the mover; none before a deal.
    fn write_position(&self, s: &Cut) -> Option<serde_json::Value> {
        (s.board != DEAL).then(|| serde_json::Value::String(self.write_cut(s)))
    }
    /// The notation for people, then after ` @ ` what names the state exactly: the board (0
    /// unless the game deals), the standing edges as a hexadecimal number (bit `i`: edge `i`
    /// in the order of the game's graph string) and the mover: `lrl right @ 0:7:right`; `deal`
    /// before a deal. A graph string names its graph only up to mirror images, and a dealt
    /// graph may stand on two boards: the key tells them apart.
    fn write_state_key(&self, s: &Cut) -> Option<String> {
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
    fn read_state_key(&self, text: &str) -> Result<Cut, String> {
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
        Ok(Cut {
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
    fn observe(&self, s: &Cut, player: Player, out: &mut [f32]) {
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

/// The truth about a Hackenbush position: the enumerated solution where the position is small
/// enough (win or loss in plies: the exact evaluator, `play`), and the combinatorial values
/// always — beside the plies where a position or a move is described, and alone where the
/// position is too large to enumerate: then who wins follows from the value of the sum of the
/// parts, and a move keeps the value when its option is still a win for the mover.
pub struct ValueOracle {
    game: Hackenbush,
    solution: Option<crate::truth::Solution<Hackenbush>>,
    /// One value computer per position of the game, made when first asked.
    values: Mutex<Vec<Option<Values>>>,
    /// The last position asked about, with its answer (`play`'s `?` asks once per move).
    last: Mutex<Option<(Cut, MovesAt)>>,
}

/// A position's value in CGSuite's notation, whether the mover wins, and each cut: the value
/// it leads to, whether the mover still wins, whether it is one of the mover's best.
type MovesAt = (String, bool, Vec<(Action, String, bool, bool)>);

/// Whether `player` wins a position of value `g` with `to_move` to move.
fn wins(
    st: &mut crate::truth::cgt::Store,
    g: crate::truth::cgt::GameId,
    to_move: Player,
    player: Player,
) -> bool {
    let o = st.outcome(g);
    let left_wins = if to_move == LEFT {
        o.left_wins_moving_first()
    } else {
        o.left_wins_moving_second()
    };
    left_wins == (player == LEFT)
}

impl ValueOracle {
    /// The oracle of the values alone (no enumeration), for positions of any size.
    pub fn values_only(game: &Hackenbush) -> Self {
        ValueOracle {
            game: game.clone(),
            solution: None,
            values: Mutex::new(Vec::new()),
            last: Mutex::new(None),
        }
    }

    /// The value of `s` in CGSuite's notation, and for each of the mover's cuts: the value it
    /// leads to, whether the mover still wins, and whether it is one of the mover's best.
    fn values_at(&self, s: &Cut) -> MovesAt {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, answer)) = last.as_ref()
            && at == s
        {
            return answer.clone();
        }
        let answer = self.compute_values_at(s);
        *last = Some((s.clone(), answer.clone()));
        answer
    }

    fn compute_values_at(&self, s: &Cut) -> MovesAt {
        let mut all = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let board = s.board as usize;
        if all.len() <= board {
            all.resize_with(board + 1, || None);
        }
        let game = &self.game;
        let v = all[board].get_or_insert_with(|| game.values_on(game.others[board].clone()));
        let here = v.value(&s.alive);
        let p = s.to_move as Player;
        let mut legal = Vec::new();
        self.game.legal_actions(s, &mut legal);
        let opts: Vec<(Action, crate::truth::cgt::GameId)> = legal
            .iter()
            .map(|&a| (a, v.after(&s.alive, a as usize)))
            .collect();
        let st = &mut v.store;
        let text = st.show(here);
        let winning = wins(st, here, p, p);
        let mut out = Vec::new();
        for &(a, x) in &opts {
            let beaten = opts.iter().any(|&(_, y)| {
                if p == LEFT {
                    st.leq(x, y) && !st.leq(y, x)
                } else {
                    st.leq(y, x) && !st.leq(x, y)
                }
            });
            let still = wins(st, x, 1 - p, p);
            out.push((a, st.show(x), still, !beaten));
        }
        (text, winning, out)
    }

    fn winner_word(&self, s: &Cut, mover_wins: bool) -> String {
        let p = s.to_move as Player;
        let w = if mover_wins { p } else { 1 - p };
        self.game.player_wins(w)
    }
}

impl crate::truth::oracle::Oracle<Hackenbush> for ValueOracle {
    fn game(&self) -> &Hackenbush {
        &self.game
    }
    fn value(&self, state: &Cut) -> Option<crate::truth::Value> {
        self.solution.as_ref()?.value(state)
    }
    fn describe(&self, state: &Cut) -> Option<String> {
        if state.board == DEAL {
            return Some(format!("a deal of {} positions", self.game.dealt.len()));
        }
        let (value, winning, _) = self.values_at(state);
        Some(match &self.solution {
            Some(sol) => format!(
                "value {value}; {}",
                crate::truth::oracle::Oracle::describe(sol, state)?
            ),
            None => format!("value {value}; {}", self.winner_word(state, winning)),
        })
    }
    fn move_value(&self, state: &Cut, action: Action) -> Option<crate::truth::Value> {
        crate::truth::oracle::Oracle::move_value(self.solution.as_ref()?, state, action)
    }
    fn describe_move(&self, state: &Cut, action: Action) -> Option<String> {
        if state.board == DEAL {
            return None;
        }
        let (_, _, moves) = self.values_at(state);
        let (_, value, still, best) = moves.into_iter().find(|m| m.0 == action)?;
        let best = if best { " (best)" } else { "" };
        Some(match &self.solution {
            Some(sol) => format!(
                "value {value}{best}; {}",
                crate::truth::oracle::Oracle::describe_move(sol, state, action)?
            ),
            None => format!("value {value}{best}; {}", self.winner_word(state, still)),
        })
    }
    fn keeps_value(&self, state: &Cut, action: Action) -> Option<bool> {
        if let Some(sol) = &self.solution {
            return crate::truth::oracle::Oracle::keeps_value(sol, state, action);
        }
        if !matches!(self.game.turn(state), Turn::Player(_)) {
            return Some(true);
        }
        let (_, winning, moves) = self.values_at(state);
        let m = moves.into_iter().find(|m| m.0 == action)?;
        Some(m.2 == winning)
    }
    /// With the enumerated solution: optimal to the ply. From the values alone: the cuts that
    /// keep the mover's result, and of those the ones no other cut beats in value.
    fn optimal_actions(&self, state: &Cut, legal: &[Action], out: &mut Vec<Action>) -> bool {
        if let Some(sol) = &self.solution {
            return crate::truth::oracle::Oracle::optimal_actions(sol, state, legal, out);
        }
        out.clear();
        if !matches!(self.game.turn(state), Turn::Player(_)) {
            return false;
        }
        let (_, winning, moves) = self.values_at(state);
        let keeping: Vec<&(Action, String, bool, bool)> =
            moves.iter().filter(|m| m.2 == winning).collect();
        let best: Vec<Action> = keeping.iter().filter(|m| m.3).map(|m| m.0).collect();
        let chosen: Vec<Action> = if best.is_empty() {
            keeping.iter().map(|m| m.0).collect()
        } else {
            best
        };
        out.extend(legal.iter().copied().filter(|a| chosen.contains(a)));
        !out.is_empty()
    }
    fn report(&self) -> crate::truth::SolveReport {
        if let Some(sol) = &self.solution {
            return sol.report();
        }
        let init = self.game.initial_state();
        let starts: Vec<Cut> = if self.game.deals() {
            self.game
                .dealt
                .clone()
                .map(|i| self.game.apply(&init, i as Action))
                .collect()
        } else {
            vec![init]
        };
        let mut wins_left = 0usize;
        let mut first_value = String::new();
        let mut first_winning = false;
        for (i, s) in starts.iter().enumerate() {
            let (value, winning, _) = self.values_at(s);
            let w = if winning {
                self.game.first
            } else {
                1 - self.game.first
            };
            wins_left += usize::from(w == LEFT);
            if i == 0 {
                first_value = value;
                first_winning = winning;
            }
        }
        let (value, winning, start) = (first_value, first_winning, &starts[0]);
        let winner = self.winner_word(start, winning);
        let w = if winning {
            self.game.first
        } else {
            1 - self.game.first
        };
        let positions: usize = self
            .values
            .lock()
            .map(|all| all.iter().flatten().map(Values::positions).sum())
            .unwrap_or_default();
        let mut extra = std::collections::BTreeMap::new();
        extra.insert("value".to_string(), serde_json::json!(value));
        extra.insert("parts_valued".to_string(), serde_json::json!(positions));
        crate::truth::SolveReport {
            game: self.game.name().to_string(),
            params: self.game.params(),
            players: vec!["left".into(), "right".into()],
            // Not enumerated: the distinct parts valued are in `parts_valued`.
            states: 0,
            terminal_states: 0,
            games: "not counted (values, not enumeration)".into(),
            wins: Default::default(),
            draws: "0".into(),
            winner: (starts.len() == 1).then(|| self.game.player_name(w).to_string()),
            plies: None,
            start: if starts.len() == 1 {
                format!("value {value}: {winner}")
            } else {
                format!(
                    "a deal of {} positions: left wins {wins_left}, right wins {}",
                    starts.len(),
                    starts.len() - wins_left
                )
            },
            winning_states: Default::default(),
            seconds: None,
            extra,
        }
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
mod tests {
    use super::*;

    fn game(position: String) -> Result<Hackenbush, InvalidParams> {
        Hackenbush::new(HackenbushParams {
            position,
            ..HackenbushParams::default()
        })
    }

    /// A graph string is refused past [`MAX_EDGES`] before it is read, and without echoing it.
    #[test]
    fn positions_have_at_most_max_edges() {
        assert!(game("l".repeat(MAX_EDGES)).is_ok());
        let e = game("l".repeat(MAX_EDGES + 1)).unwrap_err().to_string();
        assert!(e.contains("at most 16384 edges"), "{e}");
        assert!(e.len() < 300, "{e}");
        let e = game("x".repeat(100_000)).unwrap_err().to_string();
        assert!(e.contains("100,000 characters") && e.len() < 400, "{e}");
    }

    /// A position's text reads back to it in its game (small positions: the game looks it up
    /// among what cuts leave), and in the game made from the text (any position): the text
    /// is then the game's own position, written back the same.
    #[test]
    fn positions_round_trip_as_graph_strings() {
        for text in [
            "lrl",
            "e(ee;e)",
            ":Alrl:A",
            "l:Al:A",
            "(l;l;r)",
            "stick-figure",
        ] {
            let g = game(text.into()).unwrap();
            let n = crate::core::notation::check_round_trips(&g, 30, 100, 3, false).unwrap();
            assert!(n > 30, "{text}: {n}");
        }
        let mut rng = crate::core::random::rng(5);
        let mut legal = Vec::new();
        for _ in 0..20 {
            let g = Hackenbush::on(positions::random(
                Family::Graphs,
                Palette::All,
                40,
                &mut rng,
            ));
            let mut s = g.initial_state();
            while g.turn(&s) != Turn::Terminal {
                let text = g.write_cut(&s);
                let params = cut_params(&text);
                let h = Hackenbush::new(HackenbushParams {
                    position: params["position"].as_str().unwrap().to_string(),
                    first: params["first"].as_str().unwrap().to_string(),
                    ..HackenbushParams::default()
                })
                .unwrap();
                let back = h.read_cut(&text).unwrap();
                assert_eq!(back.alive, h.graph().full(), "{text}");
                assert_eq!(h.write_cut(&back), text);
                assert_eq!(h.turn(&back), g.turn(&s), "{text}");
                g.legal_actions(&s, &mut legal);
                s = g.apply(&s, legal[legal.len() / 2]);
            }
        }
        let g = game("lrl".into()).unwrap();
        assert_eq!(g.write_cut(&g.initial_state()), "lrl left");
        let bare = Cut {
            alive: g.graph().no_edges(),
            to_move: 1,
            board: 0,
        };
        assert_eq!(g.write_cut(&bare), ". right");
        assert_eq!(g.read_cut(". right"), Ok(bare));
        assert_eq!(g.read_cut("l r l  RED").unwrap().to_move, 1);
        assert!(
            g.read_cut("lrq")
                .unwrap_err()
                .contains("CGSuite graph string")
        );
        let e = g.read_cut("rrr").unwrap_err();
        assert!(e.contains("not this game's position `lrl`"), "{e}");
    }

    /// A state key names its state exactly where the notation cannot: mirror-image cuts of one
    /// graph, and a graph standing on two dealt boards; hostile keys are refused with the reason.
    #[test]
    fn state_keys_name_states_exactly() {
        for family in ["stalks", "trees", "graphs"] {
            let deal = Hackenbush::new(HackenbushParams {
                random: 6,
                edges: 5,
                family: family.into(),
                ..HackenbushParams::default()
            })
            .unwrap();
            let n = crate::core::notation::check_round_trips(&deal, 40, 100, 9, false).unwrap();
            assert!(n > 100, "{family}: {n}");
        }
        // Mirror images: cutting either arm of a V leaves the same graph string.
        let g = game("(l;l)".into()).unwrap();
        let s = g.initial_state();
        let (a, b) = (g.apply(&s, 0), g.apply(&s, 1));
        assert_eq!(g.write_cut(&a), g.write_cut(&b));
        let (ka, kb) = (
            g.write_state_key(&a).unwrap(),
            g.write_state_key(&b).unwrap(),
        );
        assert_ne!(ka, kb);
        assert_eq!(g.read_state_key(&ka), Ok(a));
        assert_eq!(g.read_state_key(&kb), Ok(b));
        let g = game("lrl".into()).unwrap();
        assert_eq!(
            g.write_state_key(&g.initial_state()).unwrap(),
            "lrl left @ 0:7:left"
        );
        for (key, says) in [
            ("lrl left", "not a state key"),
            ("lrl left @ 1:7:left", "not one of the game's 1"),
            ("lrl left @ 0:7", "board:edges:mover"),
            ("lrl left @ 0:17:left", "in 1 hexadecimal digits, not 2"),
            ("lrl left @ 0:8:left", "has no edge 3"),
            ("lrl left @ 0:g:left", "not a hexadecimal digit"),
            ("lrl left @ 0:7:up", "the mover `up`"),
            ("lrl left @ 0:6:left", "would have fallen"),
            ("deal", "does not deal"),
        ] {
            let e = g.read_state_key(key).unwrap_err();
            assert!(e.contains(says), "{key}: {e}");
        }
    }

    /// A deal of 12 random 8-edge blue-red trees, with the keys of `extra` (TOML values) added.
    fn deal(extra: &[(&str, &str)]) -> Result<Hackenbush, InvalidParams> {
        let mut text = String::new();
        let base = [
            ("random", "12"),
            ("edges", "8"),
            ("family", "\"trees\""),
            ("palette", "\"blue-red\""),
        ];
        for (k, v) in base
            .iter()
            .filter(|(k, _)| !extra.iter().any(|(e, _)| e == k))
            .chain(extra)
        {
            text.push_str(&format!("{k} = {v}\n"));
        }
        Hackenbush::new(toml::from_str::<HackenbushParams>(&text).expect("the test's keys"))
    }

    /// The boards a game's start deals, by chance and by the state graph.
    fn boards_dealt(g: &Hackenbush) -> Vec<u8> {
        let mut out = Vec::new();
        g.chance_outcomes(&g.initial_state(), &mut out);
        let total: f64 = out.iter().map(|&(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        out.iter()
            .map(|&(a, _)| g.apply(&g.initial_state(), a).board)
            .collect()
    }

    /// With `held_out = M` nature deals only the first N − M boards; `deal = "held-out"` only
    /// the last M, under their own indices, so no state of one split is a state of the other;
    /// the boards themselves are the same as without a split.
    #[test]
    fn a_held_out_split_deals_disjoint_boards() {
        let all = deal(&[]).unwrap();
        let train = deal(&[("held_out", "4")]).unwrap();
        let held = deal(&[("held_out", "4"), ("deal", "\"held-out\"")]).unwrap();
        assert_eq!(boards_dealt(&all), (0..12).collect::<Vec<u8>>());
        assert_eq!(boards_dealt(&train), (0..8).collect::<Vec<u8>>());
        assert_eq!(boards_dealt(&held), (8..12).collect::<Vec<u8>>());
        assert_eq!(
            deal(&[("held_out", "4"), ("deal", "\"train\"")])
                .unwrap()
                .dealt(),
            0..8
        );
        for (a, b) in all.positions().iter().zip(held.positions()) {
            assert_eq!(a.to_cgsuite(), b.to_cgsuite());
        }
        // Every state reachable in either split stands on a board of that split only.
        for (g, boards) in [(&train, 0..8u8), (&held, 8..12u8)] {
            let graph = crate::core::graph::StateGraph::build(g, 1_000_000).unwrap();
            for id in 0..graph.len() {
                let s = graph.state(id as crate::core::graph::StateId);
                assert!(s.board == DEAL || boards.contains(&s.board), "{s:?}");
            }
        }
        // Training never deals a held-out board, whatever the seed of the environment.
        let mut env = crate::core::env::AecEnv::new(train.clone(), 3);
        for _ in 0..200 {
            env.reset(None);
            let s = env.state();
            assert!(s.board < 8, "{s:?}");
        }
        assert_eq!(train.params()["held_out"], 4);
        assert_eq!(held.params()["deal"], "held-out");
        assert!(all.params().get("held_out").is_none());
        // The state bound counts only the boards dealt.
        assert!(train.state_bound() < all.state_bound());
    }

    /// Hostile split and observation values are refused, naming the key and what it takes.
    #[test]
    fn hostile_splits_are_refused_by_key() {
        for (extra, key, says) in [
            (
                vec![("held_out", "12")],
                "held_out",
                "hold out 1 to 11 of the 12",
            ),
            (vec![("held_out", "40")], "held_out", "hold out 1 to 11"),
            (vec![("held_out", "0")], "held_out", "hold out 1 to 11"),
            (
                vec![("random", "1"), ("held_out", "1")],
                "held_out",
                "at least 2",
            ),
            (vec![("deal", "\"held-out\"")], "deal", "add held_out = M"),
            (
                vec![("held_out", "2"), ("deal", "\"test\"")],
                "deal",
                "train (the first",
            ),
            (
                vec![("observation", "\"pixels\"")],
                "observation",
                "edges (a flag per edge id) or summary",
            ),
        ] {
            let e = deal(&extra).unwrap_err();
            assert_eq!(e.key, key, "{extra:?}: {e}");
            assert!(e.to_string().contains(says), "{extra:?}: {e}");
        }
        let e = game_with_held_out().unwrap_err();
        assert_eq!(e.key, "held_out");
    }

    fn game_with_held_out() -> Result<Hackenbush, InvalidParams> {
        Hackenbush::new(HackenbushParams {
            held_out: Some(1),
            ..HackenbushParams::default()
        })
    }

    /// The summary observation passes the environment checker, has the same length on every
    /// board, stays within its bounds, and is the same for a board and its renumbered copy
    /// standing in a game; the edge flags are unchanged when it is not asked for.
    #[test]
    fn the_summary_observation_is_checked_and_bounded() {
        let g = deal(&[("observation", "\"summary\""), ("held_out", "3")]).unwrap();
        crate::core::check::check_game(&g, &crate::core::check::CheckOptions::default()).unwrap();
        assert_eq!(g.observation_len(), features::SUMMARY_LEN);
        let (mut low, mut high) = (
            vec![0.0; features::SUMMARY_LEN],
            vec![0.0; features::SUMMARY_LEN],
        );
        g.observation_bounds(&mut low, &mut high);
        let graph = crate::core::graph::StateGraph::build(&g, 1_000_000).unwrap();
        let mut x = vec![0.0; features::SUMMARY_LEN];
        for id in 0..graph.len() {
            let s = graph.state(id as crate::core::graph::StateId);
            for p in [LEFT, RIGHT] {
                g.observe(s, p, &mut x);
                assert!(
                    x.iter()
                        .zip(&low)
                        .zip(&high)
                        .all(|((v, l), h)| l <= v && v <= h),
                    "{s:?}: {x:?}"
                );
            }
        }
        let plain = deal(&[]).unwrap();
        assert_eq!(plain.observation_len(), plain.num_distinct_actions() + 1);
        // Edge order does not reach the summary: `(l;rl)` and `(rl;l)` are one graph.
        let a = Hackenbush::on(Graph::parse("(l;rl)").unwrap()).with_summary(true);
        let b = Hackenbush::on(Graph::parse("(rl;l)").unwrap()).with_summary(true);
        let (mut xa, mut xb) = (
            vec![0.0; features::SUMMARY_LEN],
            vec![0.0; features::SUMMARY_LEN],
        );
        a.observe(&a.initial_state(), LEFT, &mut xa);
        b.observe(&b.initial_state(), LEFT, &mut xb);
        assert_eq!(xa, xb);
        assert_eq!(a.params()["observation"], "summary");
    }

    /// `solve` says up front that a part is beyond the exact method, naming the position of a
    /// random set.
    #[test]
    fn solve_refuses_parts_beyond_the_exact_method() {
        let options = SolveOptions::default();
        let big = game(format!(":A{}:A", "lre".repeat(17))).unwrap();
        let e = big.solve_output(&options).err().unwrap().to_string();
        assert!(
            e.contains("has 51 edges") && e.contains("at most 32"),
            "{e}"
        );
        assert!(big.solve(&options).is_err());
        let random = Hackenbush::new(HackenbushParams {
            random: 2,
            edges: 40,
            ..HackenbushParams::default()
        })
        .unwrap();
        let e = random.solve_output(&options).err().unwrap().to_string();
        assert!(e.contains("random position 1 of 2"), "{e}");
        let small = game("lrlerrr".into()).unwrap();
        assert!(small.solve_output(&options).is_ok());
    }
}
