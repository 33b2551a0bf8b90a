//! A game played from its state graph: [`Tabulated`] numbers every reachable position of a game
//! (its [`StateGraph`] id) and answers the rules' questions by looking them up.
//!
//! Learners, environments and the exact evaluator ask the rules the same questions millions of
//! times (whose turn, which moves, where a move leads, the dense index of a position): for a game
//! whose every position is enumerated anyway, the answers are computed once, in
//! [`Tabulated::new`], and read from flat arrays afterwards. A position is its id, so the dense
//! index is the id itself and a learner's table row is one load away.
//!
//! It is the same game to everything that plays it: the same legal actions in the same order,
//! the same chance probabilities, returns, truncations, symmetries (a canonical position is the
//! inner game's canonical one) and the same words for positions and moves (asked of the inner
//! game). Every random choice therefore draws the same numbers, and an experiment gives the
//! same bytes played either way (`tests/solver.rs` and the experiment tests check it).

use std::sync::Arc;

use crate::core::game::{
    Action, BoardCells, Capabilities, Game, MAX_PLAYERS, Player, Returns, Turn,
};
use crate::core::graph::{GraphError, StateGraph, StateId};

/// `Turn` in a byte: a player's number, or one of these.
const CHANCE: u8 = u8::MAX - 1;
const TERMINAL: u8 = u8::MAX;

/// A position of a [`Tabulated`] game: its id in the state graph, with what the rules say of it
/// carried along (whose turn, where its moves are listed, its returns), so that the position a
/// move leads to is known whole from the move's entry: asking whose turn it is there reads no
/// memory. Compared, ordered and hashed by its id alone (the rest follows from it).
#[derive(Clone, Copy, Debug)]
pub struct Node {
    id: StateId,
    /// Its first edge.
    start: u32,
    /// Its returns, as an index into [`Tables::returns`].
    returns: u32,
    /// Its number of edges (legal actions or chance outcomes).
    len: u16,
    turn: u8,
    /// 1 if the position ends the game by a cap ([`Game::is_cut_off`]), else 0: a byte, not a
    /// `bool`, so that unpacking a position from its four words is a plain copy.
    cut_off: u8,
}

impl Node {
    /// Its id in the state graph of the game it tabulates.
    pub fn id(self) -> StateId {
        self.id
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Node {}
impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Node {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}
impl std::hash::Hash for Node {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}

/// The inner game's answers that depend on more than the graph (words, observations,
/// heuristics, symmetries), asked through the position's inner state.
trait Inner: Send + Sync {
    fn name(&self) -> &'static str;
    fn params(&self) -> serde_json::Value;
    fn player_name(&self, player: Player) -> &'static str;
    fn player_name_is_plural(&self, player: Player) -> bool;
    fn action_to_string(&self, id: StateId, action: Action) -> String;
    fn render(&self, id: StateId) -> String;
    fn observation_len(&self) -> usize;
    fn observe(&self, id: StateId, player: Player, out: &mut [f32]);
    fn board_cells(&self) -> Option<BoardCells>;
    fn cell_values(&self, id: StateId, player: Player, out: &mut [u8]);
    fn num_symmetries(&self) -> usize;
    fn transform_state(&self, id: StateId, sym: usize) -> StateId;
    fn transform_action(&self, id: StateId, action: Action, sym: usize) -> Action;
    fn inverse_symmetry(&self, sym: usize) -> usize;
    fn read_position(&self, text: &str) -> Result<StateId, String>;
    fn write_position(&self, id: StateId) -> Option<serde_json::Value>;
    fn read_state_key(&self, text: &str) -> Result<StateId, String>;
    fn write_state_key(&self, id: StateId) -> Option<String>;
    fn describe_action(&self, id: StateId, action: Action) -> String;
    fn move_event(&self, id: StateId, action: Action) -> Option<&'static str>;
    fn with_evaluation(&self, settings: &[(String, String)]) -> Result<Arc<dyn Inner>, String>;
    fn has_finished(&self, id: StateId, player: Player) -> bool;
    fn heuristic(&self, id: StateId, player: Player) -> Option<f64>;
    fn resignation_returns(&self, id: StateId, loser: Player) -> Returns;
    fn capabilities(&self) -> Capabilities;
}

/// The inner game with its graph (which maps ids to its positions and back).
struct Source<G: Game> {
    game: G,
    graph: Arc<StateGraph<G>>,
}

impl<G: Game> Source<G> {
    fn state(&self, id: StateId) -> &G::State {
        self.graph.state(id)
    }
    fn id(&self, state: &G::State) -> StateId {
        self.graph
            .id(state)
            .expect("a tabulated game's symmetries keep its positions reachable")
    }
}

impl<G: Game> Inner for Source<G> {
    fn name(&self) -> &'static str {
        self.game.name()
    }
    fn params(&self) -> serde_json::Value {
        self.game.params()
    }
    fn player_name(&self, player: Player) -> &'static str {
        self.game.player_name(player)
    }
    fn player_name_is_plural(&self, player: Player) -> bool {
        self.game.player_name_is_plural(player)
    }
    fn action_to_string(&self, id: StateId, action: Action) -> String {
        self.game.action_to_string(self.state(id), action)
    }
    fn render(&self, id: StateId) -> String {
        self.game.render(self.state(id))
    }
    fn observation_len(&self) -> usize {
        self.game.observation_len()
    }
    fn observe(&self, id: StateId, player: Player, out: &mut [f32]) {
        self.game.observe(self.state(id), player, out)
    }
    fn board_cells(&self) -> Option<BoardCells> {
        self.game.board_cells()
    }
    fn cell_values(&self, id: StateId, player: Player, out: &mut [u8]) {
        self.game.cell_values(self.state(id), player, out)
    }
    fn num_symmetries(&self) -> usize {
        self.game.num_symmetries()
    }
    fn transform_state(&self, id: StateId, sym: usize) -> StateId {
        self.id(&self.game.transform_state(self.state(id), sym))
    }
    fn transform_action(&self, id: StateId, action: Action, sym: usize) -> Action {
        self.game.transform_action(self.state(id), action, sym)
    }
    fn inverse_symmetry(&self, sym: usize) -> usize {
        self.game.inverse_symmetry(sym)
    }
    fn read_position(&self, text: &str) -> Result<StateId, String> {
        let state = self.game.read_position(text)?;
        self.graph
            .id(&state)
            .ok_or_else(|| "the position cannot be reached from the start".to_string())
    }
    fn write_position(&self, id: StateId) -> Option<serde_json::Value> {
        self.game.write_position(self.state(id))
    }
    fn read_state_key(&self, text: &str) -> Result<StateId, String> {
        let state = self.game.read_state_key(text)?;
        self.graph
            .id(&state)
            .ok_or_else(|| "the position cannot be reached from the start".to_string())
    }
    fn write_state_key(&self, id: StateId) -> Option<String> {
        self.game.write_state_key(self.state(id))
    }
    fn describe_action(&self, id: StateId, action: Action) -> String {
        self.game.describe_action(self.state(id), action)
    }
    fn move_event(&self, id: StateId, action: Action) -> Option<&'static str> {
        self.game.move_event(self.state(id), action)
    }
    fn with_evaluation(&self, settings: &[(String, String)]) -> Result<Arc<dyn Inner>, String> {
        Ok(Arc::new(Source {
            game: self.game.with_evaluation(settings)?,
            graph: self.graph.clone(),
        }))
    }
    fn has_finished(&self, id: StateId, player: Player) -> bool {
        self.game.has_finished(self.state(id), player)
    }
    fn heuristic(&self, id: StateId, player: Player) -> Option<f64> {
        self.game.heuristic(self.state(id), player)
    }
    fn resignation_returns(&self, id: StateId, loser: Player) -> Returns {
        self.game.resignation_returns(self.state(id), loser)
    }
    fn capabilities(&self) -> Capabilities {
        self.game.capabilities()
    }
}

/// The rules as arrays over the graph's ids.
struct Tables {
    nodes: Vec<Node>,
    /// Each position's edges in one block of [`WORDS_PER_EDGE`] words an edge, at
    /// `WORDS_PER_EDGE * start`: first its actions (or chance outcomes) as the game lists them,
    /// then the positions they lead to, [`CHILD_WORDS`] words each. A move's entry and the
    /// position it leads to share cache lines: a learner looking at every move of a position
    /// reads one block.
    edges: Vec<u32>,
    /// Number of edges.
    num_edges: usize,
    /// Each edge's probability (1 at a player's move), by edge.
    probs: Vec<f64>,
    /// The distinct returns of the positions.
    returns: Vec<Returns>,
    /// Each position's canonical position and the symmetry onto it (empty without symmetries).
    canonical: Vec<(StateId, u8)>,
    players: usize,
    distinct_actions: usize,
}

/// A game whose every reachable position is numbered, its rules answered from tables (see the
/// module's documentation). Cheap to clone.
#[derive(Clone)]
pub struct Tabulated {
    tables: Arc<Tables>,
    inner: Arc<dyn Inner>,
}

impl std::fmt::Debug for Tabulated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tabulated({}, {} positions)",
            self.inner.name(),
            self.tables.nodes.len()
        )
    }
}

/// Why a game cannot be tabulated.
#[derive(Debug, thiserror::Error)]
pub enum TabulateError {
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error("a symmetry maps a reachable position of {0} onto one that is not reachable")]
    Symmetry(&'static str),
    #[error("a position of {0} has more than 65,535 moves")]
    Moves(&'static str),
}

impl Tabulated {
    /// Enumerates `game` (at most `limit` positions) and tabulates it.
    pub fn new<G: Game>(game: &G, limit: usize) -> Result<Self, TabulateError> {
        Self::from_graph(Arc::new(StateGraph::build(game, limit)?))
    }

    /// Tabulates the game whose every reachable position `graph` holds. Refused where a
    /// symmetry of the game leads out of the graph (the canonical position of a reachable one
    /// would have no id).
    pub fn from_graph<G: Game>(graph: Arc<StateGraph<G>>) -> Result<Self, TabulateError> {
        let game = graph.game().clone();
        let name = game.name();
        let n = graph.len();
        let mut nodes = Vec::with_capacity(n);
        let mut returns: Vec<Returns> = Vec::new();
        let mut known: rustc_hash::FxHashMap<[u64; MAX_PLAYERS], u32> = Default::default();
        for id in 0..n as StateId {
            let state = graph.state(id);
            let turn = graph.turn(id);
            let r = game.returns(state);
            // Told apart by their bits (players beyond the game's stay 0).
            let mut key = [0u64; MAX_PLAYERS];
            for (k, v) in key.iter_mut().zip(r.as_slice()) {
                *k = v.to_bits();
            }
            let index = *known.entry(key).or_insert_with(|| {
                returns.push(r);
                returns.len() as u32 - 1
            });
            let edges = graph.edge_range(id);
            nodes.push(Node {
                id,
                start: edges.start as u32,
                returns: index,
                len: u16::try_from(edges.len()).map_err(|_| TabulateError::Moves(name))?,
                turn: match turn {
                    Turn::Player(p) => p as u8,
                    Turn::Chance => CHANCE,
                    Turn::Terminal => TERMINAL,
                },
                cut_off: u8::from(turn.is_terminal() && game.is_cut_off(state)),
            });
        }
        let m = graph.num_edges();
        let (mut edges, mut probs) = (
            Vec::with_capacity(WORDS_PER_EDGE * m),
            Vec::with_capacity(m),
        );
        for id in 0..n as StateId {
            edges.extend_from_slice(graph.actions(id));
            for &c in graph.children(id) {
                edges.extend_from_slice(&pack(nodes[c as usize]));
            }
            probs.extend_from_slice(graph.probabilities(id));
        }
        let canonical = if game.num_symmetries() > 1 {
            let mut canonical = Vec::with_capacity(n);
            for id in 0..n as StateId {
                let state = graph.state(id);
                for sym in 1..game.num_symmetries() {
                    if graph.id(&game.transform_state(state, sym)).is_none() {
                        return Err(TabulateError::Symmetry(name));
                    }
                }
                let (image, sym) = game.canonical(state);
                let c = graph.id(&image).ok_or(TabulateError::Symmetry(name))?;
                canonical.push((c, sym as u8));
            }
            canonical
        } else {
            Vec::new()
        };
        let tables = Tables {
            nodes,
            edges,
            num_edges: m,
            probs,
            returns,
            canonical,
            players: game.num_players(),
            distinct_actions: game.num_distinct_actions(),
        };
        Ok(Tabulated {
            tables: Arc::new(tables),
            inner: Arc::new(Source { game, graph }),
        })
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.tables.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.nodes.is_empty()
    }

    /// The position with id `id`.
    #[inline]
    fn node(&self, id: StateId) -> Node {
        self.tables.nodes[id as usize]
    }

    /// The edge numbers of `s`'s moves.
    #[inline]
    fn edges(s: &Node) -> std::ops::Range<usize> {
        s.start as usize..s.start as usize + s.len as usize
    }

    /// The actions of `s`, in order.
    #[inline]
    fn actions(&self, s: &Node) -> &[Action] {
        let at = WORDS_PER_EDGE * s.start as usize;
        &self.tables.edges[at..at + s.len as usize]
    }

    /// The position that `s`'s `k`-th move leads to.
    #[inline]
    fn child(&self, s: &Node, k: usize) -> Node {
        let at = WORDS_PER_EDGE * s.start as usize + s.len as usize + CHILD_WORDS * k;
        let w = &self.tables.edges[at..at + CHILD_WORDS];
        unpack([w[0], w[1], w[2], w[3]])
    }
}

/// Words of a position in [`Tables::edges`].
const CHILD_WORDS: usize = 4;
/// Words an edge takes in [`Tables::edges`]: its action and the position it leads to.
const WORDS_PER_EDGE: usize = 1 + CHILD_WORDS;

fn pack(n: Node) -> [u32; CHILD_WORDS] {
    [
        n.id,
        n.start,
        n.returns,
        n.len as u32 | (n.turn as u32) << 16 | (n.cut_off as u32) << 24,
    ]
}

#[inline]
fn unpack(w: [u32; CHILD_WORDS]) -> Node {
    Node {
        id: w[0],
        start: w[1],
        returns: w[2],
        len: w[3] as u16,
        turn: (w[3] >> 16) as u8,
        cut_off: (w[3] >> 24) as u8,
    }
}

impl Game for Tabulated {
    type State = Node;

    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn params(&self) -> serde_json::Value {
        self.inner.params()
    }
    fn num_players(&self) -> usize {
        self.tables.players
    }
    fn player_name(&self, player: Player) -> &'static str {
        self.inner.player_name(player)
    }
    fn player_name_is_plural(&self, player: Player) -> bool {
        self.inner.player_name_is_plural(player)
    }
    fn num_distinct_actions(&self) -> usize {
        self.tables.distinct_actions
    }
    fn initial_state(&self) -> Node {
        self.node(0)
    }
    #[inline]
    fn turn(&self, s: &Node) -> Turn {
        match s.turn {
            TERMINAL => Turn::Terminal,
            CHANCE => Turn::Chance,
            p => Turn::Player(p as Player),
        }
    }
    #[inline]
    fn legal_actions(&self, s: &Node, out: &mut Vec<Action>) {
        out.clear();
        if s.turn < CHANCE {
            out.extend_from_slice(self.actions(s));
        }
    }
    #[inline]
    fn keeps_legal_actions(&self) -> bool {
        true
    }
    #[inline]
    fn legal_actions_in_place(&self, s: &Node) -> Option<&[Action]> {
        Some(if s.turn < CHANCE {
            self.actions(s)
        } else {
            &[]
        })
    }
    #[inline]
    fn turn_and_legal_actions(&self, s: &Node, out: &mut Vec<Action>) -> Turn {
        self.legal_actions(s, out);
        self.turn(s)
    }
    fn chance_outcomes(&self, s: &Node, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if s.turn == CHANCE {
            out.extend(
                self.actions(s)
                    .iter()
                    .copied()
                    .zip(self.tables.probs[Self::edges(s)].iter().copied()),
            );
        }
    }
    #[inline]
    fn apply(&self, s: &Node, action: Action) -> Node {
        let k = self
            .actions(s)
            .iter()
            .position(|&a| a == action)
            .unwrap_or_else(|| panic!("apply: illegal move {action} in\n{}", self.render(s)));
        self.child(s, k)
    }
    #[inline]
    fn apply_legal(&self, s: &Node, index: usize, action: Action) -> Node {
        debug_assert_eq!(self.actions(s)[index], action, "the index-th legal action");
        self.child(s, index)
    }
    #[inline]
    fn apply_each(&self, s: &Node, actions: &[Action], out: &mut Vec<Node>) {
        out.clear();
        // The very slice `legal_actions_in_place` handed out (as environments pass it on):
        // every move of the position, in order.
        if std::ptr::eq(actions, self.actions(s)) {
            out.extend((0..actions.len()).map(|k| self.child(s, k)));
        } else {
            out.extend(actions.iter().map(|&a| self.apply(s, a)));
        }
    }
    #[inline]
    fn returns(&self, s: &Node) -> Returns {
        self.tables.returns[s.returns as usize]
    }
    fn action_to_string(&self, s: &Node, action: Action) -> String {
        self.inner.action_to_string(s.id, action)
    }
    fn render(&self, s: &Node) -> String {
        self.inner.render(s.id)
    }
    fn observation_len(&self) -> usize {
        self.inner.observation_len()
    }
    fn observe(&self, s: &Node, player: Player, out: &mut [f32]) {
        self.inner.observe(s.id, player, out)
    }
    fn board_cells(&self) -> Option<BoardCells> {
        self.inner.board_cells()
    }
    fn cell_values(&self, s: &Node, player: Player, out: &mut [u8]) {
        self.inner.cell_values(s.id, player, out)
    }
    fn num_symmetries(&self) -> usize {
        self.inner.num_symmetries()
    }
    fn transform_state(&self, s: &Node, sym: usize) -> Node {
        if sym == 0 {
            *s
        } else {
            self.node(self.inner.transform_state(s.id, sym))
        }
    }
    fn transform_action(&self, s: &Node, action: Action, sym: usize) -> Action {
        if sym == 0 {
            action
        } else {
            self.inner.transform_action(s.id, action, sym)
        }
    }
    fn inverse_symmetry(&self, sym: usize) -> usize {
        self.inner.inverse_symmetry(sym)
    }
    #[inline]
    fn state_index_len(&self) -> Option<usize> {
        Some(self.tables.nodes.len())
    }
    #[inline]
    fn state_index(&self, s: &Node) -> usize {
        s.id as usize
    }
    fn state_from_index(&self, index: usize) -> Option<Node> {
        self.tables.nodes.get(index).copied()
    }
    #[inline]
    fn action_index_len(&self) -> Option<usize> {
        Some(self.tables.num_edges)
    }
    #[inline]
    fn action_index(&self, s: &Node) -> std::ops::Range<usize> {
        Self::edges(s)
    }
    #[inline]
    fn is_cut_off(&self, s: &Node) -> bool {
        s.cut_off != 0
    }
    fn read_position(&self, text: &str) -> Result<Node, String> {
        self.inner.read_position(text).map(|id| self.node(id))
    }
    fn write_position(&self, s: &Node) -> Option<serde_json::Value> {
        self.inner.write_position(s.id)
    }
    fn read_state_key(&self, text: &str) -> Result<Node, String> {
        self.inner.read_state_key(text).map(|id| self.node(id))
    }
    fn write_state_key(&self, s: &Node) -> Option<String> {
        self.inner.write_state_key(s.id)
    }
    fn describe_action(&self, s: &Node, action: Action) -> String {
        self.inner.describe_action(s.id, action)
    }
    fn move_event(&self, s: &Node, action: Action) -> Option<&'static str> {
        self.inner.move_event(s.id, action)
    }
    fn with_evaluation(&self, settings: &[(String, String)]) -> Result<Self, String> {
        Ok(Tabulated {
            tables: self.tables.clone(),
            inner: self.inner.with_evaluation(settings)?,
        })
    }
    fn has_finished(&self, s: &Node, player: Player) -> bool {
        self.inner.has_finished(s.id, player)
    }
    fn heuristic(&self, s: &Node, player: Player) -> Option<f64> {
        self.inner.heuristic(s.id, player)
    }
    fn resignation_returns(&self, s: &Node, loser: Player) -> Returns {
        self.inner.resignation_returns(s.id, loser)
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    /// The inner game's canonical position (its smallest image), not the smallest id.
    #[inline]
    fn canonical(&self, s: &Node) -> (Node, usize) {
        match self.tables.canonical.get(s.id as usize) {
            Some(&(c, sym)) => (self.node(c), sym as usize),
            None => (*s, 0),
        }
    }
}
