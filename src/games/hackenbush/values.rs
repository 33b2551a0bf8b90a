//! The value of a Hackenbush position: its canonical form as a short game.
//!
//! The general method is the definition: the value of a position is { the values after Left's
//! cuts | the values after Right's cuts }, in canonical form. Two things make it fast:
//! a position splits into its parts that meet only at the ground, and the value of a sum is
//! the sum of the values, so each part is evaluated on its own; and every part is evaluated
//! once (memoised on its edge set). With `shortcuts`, a part the theory solves outright is
//! not searched at all: a blue-red stalk by its sign expansion, a blue-red tree by Berlekamp's
//! rule, a green graph by the colon and fusion principles.

use std::sync::Arc;
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::graph::{Colour, EdgeSet, Graph};
use super::shortcuts;
use crate::truth::cgt::{GameId, Store};

/// How values are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Recursion over the options only (the definition), with parts and memo.
    General,
    /// The theory's shortcuts where a part is a blue-red stalk or tree or a green graph; the
    /// definition for the rest.
    Shortcuts,
}

/// Computes values of the positions of one graph, sharing a [`Store`] and the memo.
pub struct Values {
    graph: Arc<Graph>,
    pub store: Store,
    /// Values of parts (meeting the ground in one part).
    memo: FxHashMap<EdgeSet, GameId>,
    /// Values of whole positions, so a position reached again is not split again.
    whole: FxHashMap<EdgeSet, GameId>,
    method: Method,
    /// Childish Hackenbush: only cuts after which no other edge falls.
    childish: bool,
}

impl Values {
    pub fn new(graph: Arc<Graph>, method: Method) -> Self {
        Values {
            graph,
            store: Store::new(),
            memo: FxHashMap::with_capacity_and_hasher(1024, Default::default()),
            whole: FxHashMap::with_capacity_and_hasher(1024, Default::default()),
            method,
            childish: false,
        }
    }

    /// The same under the childish rule (CGSuite's Childish Hackenbush: a blue or red edge may
    /// be cut only if no other edge falls). The theory's shortcuts are for the ordinary game, so only the
    /// definition is used.
    pub fn childish(mut self) -> Self {
        self.childish = true;
        self.method = Method::General;
        self
    }

    /// Whether cutting `edge` of `alive` (giving `next`) is allowed: under the childish rule
    /// a blue or red edge only when nothing else falls (green edges are free, as in CGSuite).
    fn allowed(&self, alive: &EdgeSet, edge: usize, next: &EdgeSet) -> bool {
        !self.childish
            || self.graph.edges()[edge].colour == Colour::Green
            || next.count() + 1 == alive.count()
    }

    /// The graph whose positions these are.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Distinct parts evaluated so far.
    pub fn positions(&self) -> usize {
        self.memo.len()
    }

    /// The value of the position made of the `alive` edges.
    pub fn value(&mut self, alive: &EdgeSet) -> GameId {
        if let Some(&v) = self.whole.get(alive).or_else(|| self.memo.get(alive)) {
            return v;
        }
        let parts = self.graph.components(alive);
        if let [one] = parts.as_slice() {
            return self.part(one);
        }
        let mut acc = self.store.zero();
        for part in parts {
            let v = self.part(&part);
            acc = self.store.add(acc, v);
        }
        self.whole.insert(alive.clone(), acc);
        acc
    }

    /// The value of a position that meets the ground in one part.
    fn part(&mut self, part: &EdgeSet) -> GameId {
        if let Some(&v) = self.memo.get(part) {
            return v;
        }
        let v = match self.shortcut(part) {
            Some(v) => v,
            None => {
                let mut left = Vec::new();
                let mut right = Vec::new();
                let mut cuts = Vec::new();
                if self.graph.cuts(part, &mut cuts).is_none() {
                    cuts = part.iter().map(|e| (e, self.graph.cut(part, e))).collect();
                }
                for (e, next) in cuts {
                    if !self.allowed(part, e, &next) {
                        continue;
                    }
                    let colour = self.graph.edges()[e].colour;
                    let v = self.value(&next);
                    if colour != Colour::Red {
                        left.push(v);
                    }
                    if colour != Colour::Blue {
                        right.push(v);
                    }
                }
                self.store.game(&left, &right)
            }
        };
        self.memo.insert(part.clone(), v);
        v
    }

    fn shortcut(&mut self, part: &EdgeSet) -> Option<GameId> {
        if self.method != Method::Shortcuts {
            return None;
        }
        // The shortcuts take parts of one kind: blue-red, or green.
        let edges = self.graph.edges();
        let mut green = false;
        let mut blue_red = false;
        for e in part.iter() {
            match edges[e].colour {
                Colour::Green => green = true,
                _ => blue_red = true,
            }
            if green && blue_red {
                return None;
            }
        }
        if green {
            return shortcuts::green_graph(&self.graph, part).map(|n| self.store.nimber(n));
        }
        if let Some(stalks) = self.graph.stalks(part)
            && let [stalk] = stalks.as_slice()
            && let Some(x) = shortcuts::blue_red_stalk(stalk)
        {
            return Some(self.store.number(&x));
        }
        if let Some(x) = shortcuts::blue_red_tree(&self.graph, part) {
            return Some(self.store.number(&x));
        }
        None
    }

    /// The value after cutting `edge` from the position `alive`.
    pub fn after(&mut self, alive: &EdgeSet, edge: usize) -> GameId {
        let next = self.graph.cut(alive, edge);
        self.value(&next)
    }
}

/// A position's value with what a person asks of it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Evaluation {
    pub game: &'static str,
    /// The position in CGSuite's graph notation.
    pub position: String,
    pub edges: usize,
    /// The value in CGSuite's notation.
    pub value: String,
    /// "L", "R", "N" or "P".
    pub outcome: &'static str,
    pub winner_if_left_starts: &'static str,
    pub winner_if_right_starts: &'static str,
    /// Distinct parts of positions evaluated.
    pub positions: usize,
    pub seconds: f64,
    /// Every move: the edge, who may cut it, the value it leads to, and whether it is one of
    /// that player's best.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<MoveValue>,
}

/// One cut and where it leads.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MoveValue {
    pub edge: usize,
    /// "blue", "red" or "green".
    pub colour: &'static str,
    /// The value after the cut.
    pub value: String,
    /// Best for Left (blue and green edges).
    pub best_for_left: bool,
    /// Best for Right (red and green edges).
    pub best_for_right: bool,
}

/// Evaluates the whole position of `graph`, with every move when `moves` is set.
pub fn evaluate(graph: &Arc<Graph>, method: Method, moves: bool, childish: bool) -> Evaluation {
    let start = Instant::now();
    let mut values = Values::new(graph.clone(), method);
    if childish {
        values = values.childish();
    }
    let all = graph.full();
    let g = values.value(&all);
    let mut listed = Vec::new();
    if moves {
        let allowed: Vec<usize> = all
            .iter()
            .filter(|&e| values.allowed(&all, e, &graph.cut(&all, e)))
            .collect();
        let opts: Vec<(usize, Colour, GameId)> = allowed
            .into_iter()
            .map(|e| (e, graph.edges()[e].colour, values.after(&all, e)))
            .collect();
        let st = &mut values.store;
        let best = |st: &mut Store, left: bool| -> Vec<GameId> {
            // A best option is one no other option of the player beats.
            let mine: Vec<GameId> = opts
                .iter()
                .filter(|(_, c, _)| {
                    if left {
                        *c != Colour::Red
                    } else {
                        *c != Colour::Blue
                    }
                })
                .map(|o| o.2)
                .collect();
            mine.iter()
                .copied()
                .filter(|&a| {
                    !mine.iter().any(|&b| {
                        if left {
                            st.leq(a, b) && !st.leq(b, a)
                        } else {
                            st.leq(b, a) && !st.leq(a, b)
                        }
                    })
                })
                .collect()
        };
        let bl = best(st, true);
        let br = best(st, false);
        for (e, c, v) in opts {
            listed.push(MoveValue {
                edge: e,
                colour: colour_name(c),
                value: st.show(v),
                best_for_left: c != Colour::Red && bl.contains(&v),
                best_for_right: c != Colour::Blue && br.contains(&v),
            });
        }
    }
    let outcome = values.store.outcome(g);
    let winner = |left_wins: bool| if left_wins { "Left" } else { "Right" };
    Evaluation {
        game: "hackenbush",
        position: graph.to_cgsuite(),
        edges: graph.edge_count(),
        value: values.store.show(g),
        outcome: outcome.letter(),
        winner_if_left_starts: winner(outcome.left_wins_moving_first()),
        winner_if_right_starts: winner(outcome.left_wins_moving_second()),
        positions: values.positions(),
        seconds: start.elapsed().as_secs_f64(),
        moves: listed,
    }
}

/// "blue", "red" or "green".
pub fn colour_name(c: Colour) -> &'static str {
    match c {
        Colour::Blue => "blue",
        Colour::Red => "red",
        Colour::Green => "green",
    }
}
