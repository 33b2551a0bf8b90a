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
use crate::io::progress::CountProgress;
use crate::truth::cgt::{GameId, Limits, Store, TooBig, within_limits};

/// The most edges a part the theory's shortcuts do not value (mixed colours, or blue and red
/// with cycles; under the childish rule, any part) may have for `solve`: such a part is valued
/// by the definition, whose work grows exponentially with its edges (the 30-edge "moderately
/// hard bed" takes 12 s and 1 GB). Larger ones are refused up front.
pub const MAX_GENERAL_EDGES: usize = 32;

/// The most distinct parts `solve` values for one position before it gives up (the moderately
/// hard bed needs 2.4 million).
pub const MAX_PARTS: usize = 6_000_000;

/// The store's limits for `solve`: work in proportion to [`MAX_PARTS`], a million characters
/// of printed value, nimbers up to *4096 (a green part of n edges can be worth *n).
pub const LIMITS: Limits = Limits {
    work: 200_000_000,
    printed: 1_000_000,
    nimber: 4096,
};

/// Whether a part (the alive edges of `graph` meeting the ground in one part) needs the
/// definition: it is not all green, not a blue-red tree, and not all one colour.
fn needs_definition(graph: &Graph, part: &EdgeSet, childish: bool) -> bool {
    if childish {
        return true;
    }
    let edges = graph.edges();
    let (mut blue, mut red, mut green) = (false, false, false);
    for e in part.iter() {
        match edges[e].colour {
            Colour::Blue => blue = true,
            Colour::Red => red = true,
            Colour::Green => green = true,
        }
    }
    let colours = usize::from(blue) + usize::from(red) + usize::from(green);
    if colours <= 1 {
        return false;
    }
    green || !graph.is_tree(part)
}

/// Why the exact method cannot value `graph` in reasonable time, if it cannot: a part that
/// needs the definition (see [`MAX_GENERAL_EDGES`]) with more edges than that.
pub fn beyond_exact_method(graph: &Graph, childish: bool) -> Option<String> {
    let parts = graph.components(&graph.full());
    let count = parts.len();
    for (k, part) in parts.iter().enumerate() {
        let n = part.count();
        if n > MAX_GENERAL_EDGES && needs_definition(graph, part, childish) {
            let what = if childish {
                "under the childish rule".to_string()
            } else {
                "with mixed colours or blue-red cycles".to_string()
            };
            return Some(format!(
                "part {} of {count} (the edges meeting the ground together) has {n} edges {what}: \
                 such a part is valued by the definition, whose work grows exponentially with \
                 its edges, and the exact method takes at most {MAX_GENERAL_EDGES} of them",
                k + 1
            ));
        }
    }
    None
}

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
    /// Gives up past this many parts (see [`Values::within`]).
    max_parts: usize,
    progress: Option<CountProgress>,
}

impl Values {
    pub fn new(graph: Arc<Graph>, method: Method) -> Self {
        // Room in the memo of comparisons: a graph of a dozen edges or more with a few cycles
        // makes tens of thousands (16 edges, 3 to 5 cycles: 10,000 to 110,000), growing the
        // memo from the store's default two to four times; a tree or a small graph makes few,
        // and a large room would cost it the pages.
        let edges = graph.edge_count();
        let cycles = (edges + 1).saturating_sub(graph.vertex_count());
        let comparisons = if edges >= 12 && cycles >= 2 {
            1 << 15
        } else {
            8192
        };
        Values {
            graph,
            store: Store::with_room(comparisons),
            memo: FxHashMap::with_capacity_and_hasher(1024, Default::default()),
            whole: FxHashMap::with_capacity_and_hasher(1024, Default::default()),
            method,
            childish: false,
            max_parts: usize::MAX,
            progress: None,
        }
    }

    /// The same within `solve`'s bounds: at most `max_parts` distinct parts, the store within
    /// `limits`, and a counter of the parts on the terminal when `progress`. Past a bound the
    /// computation gives up, which only a call inside [`within_limits`] survives.
    pub fn within(mut self, max_parts: usize, limits: Limits, progress: bool) -> Self {
        self.max_parts = max_parts;
        // The same store, not a second one: its maps are made with room to spare.
        self.store.set_limits(limits);
        self.progress = progress.then(|| CountProgress::new(true, "valuing"));
        self
    }

    /// Every 4,096 parts: the counter, and the bound on parts.
    #[cold]
    fn checkpoint(&mut self) {
        let parts = self.memo.len();
        if let Some(p) = &self.progress {
            p.report(parts, "distinct parts");
        }
        if parts > self.max_parts {
            let limit = self.max_parts;
            crate::truth::cgt::store::give_up(format!(
                "the position is too big for the exact method: it needs more than {limit} \
                 distinct parts (the limit is {limit})"
            ));
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
        if self.memo.len() & 0xFFF == 0 {
            self.checkpoint();
        }
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
        // A part of one colour beyond the definition's reach (parts below it are valued as
        // they always were): the player of that colour cuts an edge whose loss drops nothing
        // else (a leaf of a spanning tree, or an edge on a cycle) each turn, the other has no
        // move, so it is worth ±(its edges).
        let n = part.count();
        if n > MAX_GENERAL_EDGES {
            let first = part.iter().next().map(|e| edges[e].colour);
            if part.iter().all(|e| Some(edges[e].colour) == first) {
                let n = n as i64;
                let x = if first == Some(Colour::Red) { -n } else { n };
                return Some(self.store.integer(x));
            }
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
    let values = Values::new(graph.clone(), method);
    evaluate_with(graph, values, moves, childish, false)
}

/// [`evaluate`] within `solve`'s bounds: refused up front when a part is beyond the exact
/// method ([`beyond_exact_method`]), given up past [`MAX_PARTS`] parts or the store's
/// [`LIMITS`]; with a counter on the terminal when `progress`. With `leave`, the store and the
/// memo are not freed but left to the end of the process, which must be near (see
/// [`crate::truth::SolveOptions::process_ends`]): freeing them piece by piece costs a
/// one-shot `solve` a few percent of its time.
pub fn evaluate_within(
    graph: &Arc<Graph>,
    moves: bool,
    childish: bool,
    progress: bool,
    leave: bool,
) -> Result<Evaluation, TooBig> {
    if let Some(why) = beyond_exact_method(graph, childish) {
        return Err(TooBig(why));
    }
    within_limits(|| {
        let values =
            Values::new(graph.clone(), Method::Shortcuts).within(MAX_PARTS, LIMITS, progress);
        evaluate_with(graph, values, moves, childish, leave)
    })
}

fn evaluate_with(
    graph: &Arc<Graph>,
    mut values: Values,
    moves: bool,
    childish: bool,
    leave: bool,
) -> Evaluation {
    let start = Instant::now();
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
    values.progress = None;
    let outcome = values.store.outcome(g);
    let winner = |left_wins: bool| if left_wins { "Left" } else { "Right" };
    let evaluation = Evaluation {
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
    };
    if leave {
        std::mem::forget(values);
    }
    evaluation
}

/// "blue", "red" or "green".
pub fn colour_name(c: Colour) -> &'static str {
    match c {
        Colour::Blue => "blue",
        Colour::Red => "red",
        Colour::Green => "green",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(s: &str) -> Arc<Graph> {
        Arc::new(Graph::parse(s).unwrap())
    }

    /// Parts the definition must value are refused up front past [`MAX_GENERAL_EDGES`]; the
    /// kinds the theory values are not, at any size.
    #[test]
    fn parts_beyond_the_definition_are_refused_up_front() {
        let stalk = |n: usize| "lre".repeat(n / 3) + &"lre"[..n % 3];
        assert_eq!(
            beyond_exact_method(&graph(&stalk(MAX_GENERAL_EDGES)), false),
            None
        );
        let why = beyond_exact_method(&graph(&stalk(MAX_GENERAL_EDGES + 1)), false).unwrap();
        assert!(
            why.contains("has 33 edges") && why.contains("at most 32"),
            "{why}"
        );
        // Blue-red cycles need the definition; blue-red trees, green graphs and single
        // colours do not.
        let blue_red_cycle = format!(":A{}:A", "lr".repeat(20));
        assert!(beyond_exact_method(&graph(&blue_red_cycle), false).is_some());
        for fine in [
            "lr".repeat(500),
            format!("l({})", "rl;".repeat(200)),
            format!(":A{}:A", "e".repeat(500)),
            format!(":A{}:A", "l".repeat(500)),
            format!("({})", "lre;".repeat(30)),
        ] {
            assert_eq!(beyond_exact_method(&graph(&fine), false), None, "{fine}");
        }
        // The childish rule values every part by the definition.
        let why = beyond_exact_method(&graph(&"l".repeat(40)), true).unwrap();
        assert!(why.contains("childish"), "{why}");
        let e = evaluate_within(&graph(&stalk(60)), false, false, false, false).unwrap_err();
        assert!(e.0.contains("has 60 edges"), "{e}");
    }

    /// A part of one colour beyond the definition's reach is worth ±(its edges), as the
    /// definition says where it can be asked.
    #[test]
    fn single_colour_parts_count_their_edges() {
        for (n, letter, sign) in [(MAX_GENERAL_EDGES + 2, "l", 1), (40, "r", -1)] {
            let g = graph(&format!(":A{}:A", letter.repeat(n)));
            assert_eq!(g.edge_count(), n);
            let want = sign * n as i64;
            for method in [Method::General, Method::Shortcuts] {
                let mut v = Values::new(g.clone(), method);
                let x = v.value(&g.full());
                assert_eq!(v.store.as_number(x).and_then(|d| d.to_i64()), Some(want));
            }
        }
    }

    /// Past [`Values::within`]'s bound on parts, the computation gives up with the numbers.
    #[test]
    fn the_bound_on_parts() {
        let g = graph(":Ae:Br:Cll:C(e;l(e;l);e:Dr(l:B;lere:D);e:A)");
        let e = within_limits(|| {
            let mut v = Values::new(g.clone(), Method::Shortcuts).within(100, LIMITS, false);
            v.value(&g.full())
        })
        .unwrap_err();
        assert!(e.0.contains("more than 100 distinct parts"), "{e}");
        let ok = evaluate_within(&g, true, false, false, false).unwrap();
        assert_eq!(ok.value, evaluate(&g, Method::Shortcuts, true, false).value);
    }
}
