//! The reachable state graph of a game: every state reachable from the start (terminal states
//! included, never expanded), numbered in breadth-first order, with its outgoing edges in the
//! order of the game's legal actions (or chance outcomes) stored as flat arrays (CSR).
//!
//! The solver and the evaluator's dynamic programs run over this graph in post-order
//! (children before parents), which exists when the graph is acyclic; a cycle is reported as an
//! error naming a state on it.

use rustc_hash::FxHashMap;

use thiserror::Error;

use crate::core::game::{Action, Game, Turn};

/// Index of a state in a [`StateGraph`].
pub type StateId = u32;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum GraphError {
    #[error("the state graph has a cycle through this position:\n{state}")]
    Cycle { state: String },
    #[error("more than {limit} reachable states; raise the limit or use a game-specific solver")]
    TooManyStates { limit: usize },
    #[error(transparent)]
    Memory(#[from] crate::io::memory::MemoryRefusal),
    /// The game's bound or estimate of its states is far beyond the limit: refused up front.
    #[error("{game} cannot be enumerated: {why}")]
    TooLarge { game: String, why: String },
}

/// The reachable states of a game and the moves between them.
pub struct StateGraph<G: Game> {
    game: G,
    states: Vec<G::State>,
    /// Fx-hashed: the states are small keys the solver looks up once per edge.
    index: FxHashMap<G::State, StateId>,
    turns: Vec<Turn>,
    edge_start: Vec<u32>,
    edge_action: Vec<Action>,
    edge_child: Vec<StateId>,
    /// Probability of each edge: the chance probability at chance states, 1 elsewhere.
    edge_prob: Vec<f64>,
    post_order: Result<Vec<StateId>, GraphError>,
}

impl<G: Game> StateGraph<G> {
    /// Enumerates every state reachable from the start (at most `limit` states).
    pub fn build(game: &G, limit: usize) -> Result<Self, GraphError> {
        Self::build_showing(game, limit, false)
    }

    /// [`StateGraph::build`], counting the states found on the terminal when `progress`
    /// ("enumerating hase-und-igel: 1,234,567 states 12s").
    pub fn build_showing(game: &G, limit: usize, progress: bool) -> Result<Self, GraphError> {
        if let Some(why) = game.capabilities().size_refusal(limit) {
            return Err(GraphError::TooLarge {
                game: game.name().to_string(),
                why,
            });
        }
        Self::build_with(game, limit, progress, |_, _, _| {})
    }

    /// The states reachable from the start when some players' moves are restricted: at every
    /// state where a player is to move, `restrict(state, player, actions)` may drop actions
    /// from the legal ones (keeping their order); the graph holds only the edges kept. The
    /// positions a fixed policy can face, with every move of the other seats, are such a graph
    /// (the best-response evaluation reads them: a few thousand positions of a game of
    /// millions). The game's size bound is not asked (it bounds the whole graph); the limit and
    /// the memory budget are.
    pub fn build_restricted(
        game: &G,
        limit: usize,
        restrict: impl FnMut(&G::State, crate::core::game::Player, &mut Vec<Action>),
    ) -> Result<Self, GraphError> {
        Self::build_with(game, limit, false, restrict)
    }

    fn build_with(
        game: &G,
        limit: usize,
        progress: bool,
        mut restrict: impl FnMut(&G::State, crate::core::game::Player, &mut Vec<Action>),
    ) -> Result<Self, GraphError> {
        let counter = crate::io::progress::CountProgress::new(
            progress,
            &format!("enumerating {}", game.name()),
        );
        let start = game.initial_state();
        let mut states = vec![start.clone()];
        let mut index = FxHashMap::default();
        index.insert(start.clone(), 0);
        let mut turns = Vec::new();
        let mut edge_start = vec![0u32];
        let (mut edge_action, mut edge_child, mut edge_prob) = (Vec::new(), Vec::new(), Vec::new());
        let mut actions = Vec::new();
        let mut outcomes = Vec::new();
        let mut id = 0;
        let budget = crate::io::memory::Budget::now();
        while id < states.len() {
            // Before a table doubles, the memory it will take: checked, not found out by an
            // abort (the state limit alone lets a graph grow to several GB).
            if states.len() + actions.len() >= states.capacity()
                || index.len() + actions.len() >= index.capacity()
                || edge_child.len() + actions.len() >= edge_child.capacity()
            {
                let state = std::mem::size_of::<G::State>();
                let held = states.capacity() * state
                    + index.capacity() * (state + std::mem::size_of::<StateId>() + 1)
                    + turns.capacity() * std::mem::size_of::<Turn>()
                    + edge_start.capacity() * 4
                    + edge_child.capacity()
                        * (std::mem::size_of::<Action>() + std::mem::size_of::<StateId>() + 8);
                budget.check(
                    || {
                        format!(
                            "enumerating {} (past {} states)",
                            game.name(),
                            crate::io::text::group(&states.len().to_string())
                        )
                    },
                    2 * held as u64,
                )?;
            }
            if id % (1 << 16) == 0 {
                counter.report(states.len(), "states");
            }
            let state = states[id].clone();
            let turn = game.turn(&state);
            turns.push(turn);
            outcomes.clear();
            match turn {
                Turn::Player(p) => {
                    game.legal_actions(&state, &mut actions);
                    restrict(&state, p, &mut actions);
                    outcomes.extend(actions.iter().map(|&a| (a, 1.0)));
                }
                Turn::Chance => game.chance_outcomes(&state, &mut outcomes),
                Turn::Terminal => {}
            }
            for &(action, prob) in &outcomes {
                let child = game.apply(&state, action);
                let next = states.len();
                let child_id = *index.entry(child).or_insert_with_key(|c| {
                    states.push(c.clone());
                    next as StateId
                });
                if states.len() > limit {
                    return Err(GraphError::TooManyStates { limit });
                }
                edge_action.push(action);
                edge_child.push(child_id);
                edge_prob.push(prob);
            }
            let end = u32::try_from(edge_child.len()).map_err(|_| GraphError::TooManyStates {
                limit: states.len(),
            })?;
            edge_start.push(end);
            id += 1;
        }
        let mut graph = StateGraph {
            game: game.clone(),
            states,
            index,
            turns,
            edge_start,
            edge_action,
            edge_child,
            edge_prob,
            post_order: Ok(Vec::new()),
        };
        graph.post_order = graph.compute_post_order();
        Ok(graph)
    }

    /// Depth-first post-order from the start; a child still on the stack closes a cycle.
    fn compute_post_order(&self) -> Result<Vec<StateId>, GraphError> {
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let n = self.states.len();
        let mut mark = vec![NEW; n];
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<(StateId, u32)> = vec![(0, self.edge_start[0])];
        mark[0] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (v, pos) = *top;
            if pos < self.edge_start[v as usize + 1] {
                top.1 += 1;
                let c = self.edge_child[pos as usize];
                match mark[c as usize] {
                    NEW => {
                        mark[c as usize] = OPEN;
                        stack.push((c, self.edge_start[c as usize]));
                    }
                    OPEN => {
                        return Err(GraphError::Cycle {
                            state: self.game.render(&self.states[c as usize]),
                        });
                    }
                    _ => {}
                }
            } else {
                mark[v as usize] = DONE;
                order.push(v);
                stack.pop();
            }
        }
        Ok(order)
    }

    pub fn game(&self) -> &G {
        &self.game
    }
    /// Number of reachable states (terminal states included).
    pub fn len(&self) -> usize {
        self.states.len()
    }
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
    /// The start is always state 0.
    pub fn start(&self) -> StateId {
        0
    }
    pub fn state(&self, id: StateId) -> &G::State {
        &self.states[id as usize]
    }
    pub fn states(&self) -> &[G::State] {
        &self.states
    }
    /// In how many parts [`StateGraph::for_each_state`] lists the states (65,536 a part).
    pub fn state_parts(&self) -> usize {
        self.states.len().div_ceil(1 << 16)
    }
    /// Calls `f` with every state of part `part`, in the order of their ids.
    pub fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&G::State)) {
        self.states
            .iter()
            .skip(part << 16)
            .take(1 << 16)
            .for_each(f);
    }
    pub fn id(&self, state: &G::State) -> Option<StateId> {
        self.index.get(state).copied()
    }
    pub fn turn(&self, id: StateId) -> Turn {
        self.turns[id as usize]
    }
    /// Positions of `id`'s edges in arrays aligned with the graph's edges.
    pub fn edge_range(&self, id: StateId) -> std::ops::Range<usize> {
        self.edge_start[id as usize] as usize..self.edge_start[id as usize + 1] as usize
    }
    /// The children of `id` in the order of the game's legal actions (or chance outcomes).
    pub fn children(&self, id: StateId) -> &[StateId] {
        &self.edge_child[self.edge_range(id)]
    }
    /// The actions leading to [`StateGraph::children`], in the same order.
    pub fn actions(&self, id: StateId) -> &[Action] {
        &self.edge_action[self.edge_range(id)]
    }
    /// Edge probabilities (chance probabilities at chance states, 1 at player states).
    pub fn probabilities(&self, id: StateId) -> &[f64] {
        &self.edge_prob[self.edge_range(id)]
    }
    pub fn num_edges(&self) -> usize {
        self.edge_child.len()
    }
    /// Every state after all of its children, if the graph is acyclic.
    pub fn post_order(&self) -> Result<&[StateId], GraphError> {
        self.post_order.as_deref().map_err(Clone::clone)
    }
    pub fn is_acyclic(&self) -> bool {
        self.post_order.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};

    #[test]
    fn tictactoe_graph_has_5478_states_in_post_order() {
        let g = StateGraph::build(&TicTacToe, 1 << 20).unwrap();
        assert_eq!(g.len(), 5478);
        let order = g.post_order().unwrap();
        assert_eq!(order.len(), g.len());
        let mut seen = vec![false; g.len()];
        for &v in order {
            assert!(g.children(v).iter().all(|&c| seen[c as usize]));
            seen[v as usize] = true;
        }
        assert_eq!(*order.last().unwrap(), g.start());
    }

    #[test]
    fn edges_follow_legal_action_order() {
        let game = Hexapawn::new(HexapawnParams::default()).unwrap();
        let g = StateGraph::build(&game, 1 << 20).unwrap();
        let mut legal = Vec::new();
        for id in 0..g.len() as StateId {
            game.legal_actions(g.state(id), &mut legal);
            assert_eq!(g.actions(id), legal.as_slice());
            for (&a, &c) in g.actions(id).iter().zip(g.children(id)) {
                assert_eq!(g.state(c), &game.apply(g.state(id), a));
            }
        }
    }

    /// Two players pass a token around a ring of three squares forever.
    #[derive(Clone)]
    struct Ring;
    impl Game for Ring {
        type State = u8;
        fn name(&self) -> &'static str {
            "ring"
        }
        fn params(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn num_players(&self) -> usize {
            2
        }
        fn player_name(&self, p: crate::core::game::Player) -> &'static str {
            ["a", "b"][p]
        }
        fn num_distinct_actions(&self) -> usize {
            1
        }
        fn initial_state(&self) -> u8 {
            0
        }
        fn turn(&self, s: &u8) -> Turn {
            Turn::Player(*s as usize % 2)
        }
        fn legal_actions(&self, _: &u8, out: &mut Vec<Action>) {
            out.clear();
            out.push(0);
        }
        fn apply(&self, s: &u8, _: Action) -> u8 {
            (s + 1) % 3
        }
        fn returns(&self, _: &u8) -> crate::core::game::Returns {
            crate::core::game::Returns::zeros(2)
        }
        fn action_to_string(&self, _: &u8, _: Action) -> String {
            "pass".into()
        }
        fn render(&self, s: &u8) -> String {
            format!("token on square {s}")
        }
        fn observation_len(&self) -> usize {
            1
        }
        fn observe(&self, s: &u8, _: crate::core::game::Player, out: &mut [f32]) {
            out[0] = *s as f32;
        }
    }

    #[test]
    fn a_cycle_is_reported_with_a_position_on_it() {
        let g = StateGraph::build(&Ring, 100).unwrap();
        assert_eq!(g.len(), 3);
        assert!(!g.is_acyclic());
        let err = g.post_order().unwrap_err();
        assert!(err.to_string().contains("token on square 0"), "{err}");
        let solve = crate::truth::Solution::solve(&Ring, 100).err().unwrap();
        assert!(solve.to_string().contains("cycle"), "{solve}");
    }

    #[test]
    fn limit_is_an_error_not_a_crash() {
        let err = StateGraph::build(&TicTacToe, 100).err().unwrap();
        assert_eq!(err, GraphError::TooManyStates { limit: 100 });
    }
}
