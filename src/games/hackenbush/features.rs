//! Hackenbush's summary observation (`observation = "summary"`): what a position looks like
//! without its edge numbers, so that a value learned on one graph can answer on another.
//!
//! The default observation is one flag per edge id; edge 3 of one random graph has nothing to do
//! with edge 3 of the next, so a value over those flags cannot carry from board to board. The
//! summary counts standing edges by properties that do not depend on how the edges are numbered,
//! and reads colours from the observer's side: "mine" is the colour the observer alone may cut
//! (blue for Left, red for Right), "theirs" the other's, then green. A position seen by Right
//! is therefore the same numbers as its colour-swapped image seen by Left, and one set of weights
//! serves both seats (values are the mover's, as the learners keep them).
//!
//! The numbers, in order (`SUMMARY_LEN` of them), each a count of standing edges unless said:
//!
//! | entries | what |
//! |---|---|
//! | 0..24 | by colour class (mine, theirs, green) and height, 8 heights each: an edge's height is the fewer of its ends' distances from the ground in standing edges (0: it touches the ground; the last bucket holds 7 and above) |
//! | 24..27 | by class, edges on a *solid* run: some shortest path from the ground to the edge's lower end is all of the edge's colour (for a blue-red stalk, the integer part of its value) |
//! | 27..30 | by class, edges on a cycle (not bridges) |
//! | 30..33 | by class, edges whose cut drops nothing else |
//! | 33 | the parts that meet only at the ground |
//! | 34 | 1 if the observer is to move, else 0 |
//!
//! Shortest paths, bridges, parts and what a cut drops are properties of the graph, not of its
//! numbering: the summary of a graph and of the same graph with its edges renumbered
//! ([`Graph::reordered`]) are equal (tested).

use super::graph::{Colour, EdgeSet, Graph};
use crate::core::game::Player;

/// Heights counted apart; the last bucket holds this height minus one and above.
pub const HEIGHTS: usize = 8;

/// The three colour classes: mine, theirs, green.
const CLASSES: usize = 3;

/// The numbers the summary writes.
pub const SUMMARY_LEN: usize = CLASSES * HEIGHTS + 3 * CLASSES + 2;

/// Where the counts of solid runs, cycle edges and free cuts start, then the parts and the flag.
const SOLID: usize = CLASSES * HEIGHTS;
const CYCLE: usize = SOLID + CLASSES;
const FREE: usize = CYCLE + CLASSES;
const PARTS: usize = FREE + CLASSES;
const TO_MOVE: usize = PARTS + 1;

/// The colour class of `colour` as `player` sees it: 0 mine, 1 theirs, 2 green.
fn class(colour: Colour, player: Player) -> usize {
    match (colour, player) {
        (Colour::Green, _) => 2,
        (Colour::Blue, 0) | (Colour::Red, 1) => 0,
        _ => 1,
    }
}

/// Writes the summary of the standing edges `alive` of `graph` as `player` sees it, with
/// `to_move` to move, into `out` (`SUMMARY_LEN` numbers). Small vectors are made per call: the
/// graphs the summary is for (random positions of a few dozen edges) are small.
pub fn summary(graph: &Graph, alive: &EdgeSet, player: Player, to_move: Player, out: &mut [f32]) {
    out.fill(0.0);
    out[TO_MOVE] = if to_move == player { 1.0 } else { 0.0 };
    if alive.is_empty() {
        return;
    }
    let edges = graph.edges();
    let n = graph.vertex_count();
    // Distances from the ground over the standing edges (breadth first).
    let mut dist = vec![u32::MAX; n];
    dist[0] = 0;
    let mut queue = vec![0u32];
    let mut next = 0;
    while next < queue.len() {
        let u = queue[next];
        next += 1;
        for &(e, w) in graph.incident(u) {
            if alive.contains(e as usize) && dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[u as usize] + 1;
                queue.push(w);
            }
        }
    }
    // solid[v][c]: some shortest path from the ground to `v` is all of colour c (blue, red,
    // green), worked out layer by layer in the breadth-first order.
    let colour_index = |c: Colour| match c {
        Colour::Blue => 0,
        Colour::Red => 1,
        Colour::Green => 2,
    };
    let mut solid = vec![[false; 3]; n];
    solid[0] = [true; 3];
    for &v in &queue[1..] {
        for &(e, u) in graph.incident(v) {
            if alive.contains(e as usize) && dist[u as usize].saturating_add(1) == dist[v as usize]
            {
                let c = colour_index(edges[e as usize].colour);
                if solid[u as usize][c] {
                    solid[v as usize][c] = true;
                }
            }
        }
    }
    let bridges = graph.bridges(alive);
    let standing = alive.count();
    for e in alive.iter() {
        let edge = edges[e];
        let k = class(edge.colour, player);
        let (da, db) = (dist[edge.a as usize], dist[edge.b as usize]);
        let height = da.min(db) as usize;
        out[k * HEIGHTS + height.min(HEIGHTS - 1)] += 1.0;
        let c = colour_index(edge.colour);
        let lower_solid = [edge.a, edge.b]
            .iter()
            .any(|&v| dist[v as usize] as usize == height && solid[v as usize][c]);
        if lower_solid {
            out[SOLID + k] += 1.0;
        }
        if !bridges.contains(e) {
            out[CYCLE + k] += 1.0;
        }
        if graph.cut(alive, e).count() + 1 == standing {
            out[FREE + k] += 1.0;
        }
    }
    out[PARTS] = graph.components(alive).len() as f32;
}

/// Bounds of each number of the summary for boards of at most `edges` edges: counts from 0 to
/// `edges`, the flag 0 or 1.
pub fn summary_bounds(edges: usize, low: &mut [f32], high: &mut [f32]) {
    low.fill(0.0);
    high.fill(edges as f32);
    high[TO_MOVE] = 1.0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hackenbush::positions::{self, Family, Palette};

    fn of(g: &Graph, alive: &EdgeSet, player: Player, to_move: Player) -> Vec<f32> {
        let mut out = vec![f32::NAN; SUMMARY_LEN];
        summary(g, alive, player, to_move, &mut out);
        out
    }

    /// A blue-red stalk `lrl` from Left's side: one mine at height 0 and 2, one theirs at height
    /// 1; the bottom edge alone is solid; no cycle; only the top edge is a free cut.
    #[test]
    fn a_stalk_is_counted_by_height_and_class() {
        let g = Graph::parse("lrl").unwrap();
        let x = of(&g, &g.full(), 0, 0);
        assert_eq!(x[0], 1.0);
        assert_eq!(x[2], 1.0);
        assert_eq!(x[HEIGHTS + 1], 1.0);
        assert_eq!(x[..CLASSES * HEIGHTS].iter().sum::<f32>(), 3.0);
        assert_eq!(&x[SOLID..SOLID + 3], &[1.0, 0.0, 0.0]);
        assert_eq!(&x[CYCLE..CYCLE + 3], &[0.0, 0.0, 0.0]);
        assert_eq!(&x[FREE..FREE + 3], &[1.0, 0.0, 0.0]);
        assert_eq!(x[PARTS], 1.0);
        assert_eq!(x[TO_MOVE], 1.0);
        // Right sees the red edge as its own.
        let y = of(&g, &g.full(), 1, 0);
        assert_eq!(y[1], 1.0);
        assert_eq!(y[HEIGHTS], 1.0);
        assert_eq!(y[TO_MOVE], 0.0);
        // A triangle on the ground: every edge on a cycle, and no cut drops another edge.
        let t = Graph::parse(":Alrl:A").unwrap();
        let z = of(&t, &t.full(), 0, 0);
        assert_eq!(z[CYCLE] + z[CYCLE + 1], 3.0);
        assert_eq!(z[FREE] + z[FREE + 1], 3.0);
    }

    /// Renumbering a graph's edges changes no number of the summary, at the start and after
    /// cuts (edge `k` of the renumbered graph is edge `order[k]` of the first).
    #[test]
    fn the_summary_does_not_depend_on_edge_numbers() {
        let mut rng = crate::core::random::rng(11);
        for (i, family) in [Family::Stalks, Family::Trees, Family::Graphs]
            .into_iter()
            .cycle()
            .take(30)
            .enumerate()
        {
            let g = positions::random(family, Palette::All, 6 + i % 10, &mut rng);
            let m = g.edge_count();
            // A fixed scramble: reversed, then every other one first.
            let mut order: Vec<usize> = (0..m).rev().collect();
            order.sort_by_key(|&k| k % 2);
            let h = g.reordered(&order).unwrap();
            let (mut a, mut b) = (g.full(), h.full());
            for step in 0..m {
                for player in [0, 1] {
                    assert_eq!(
                        of(&g, &a, player, step % 2),
                        of(&h, &b, player, step % 2),
                        "{} reordered as {order:?}",
                        g.to_cgsuite()
                    );
                }
                let Some(k) = b.iter().nth(step % b.count().max(1)) else {
                    break;
                };
                b = h.cut(&b, k);
                a = g.cut(&a, order[k]);
            }
        }
    }

    /// A position seen by Right is its colour-swapped image seen by Left.
    #[test]
    fn right_sees_the_swapped_graph_as_left_does() {
        let mut rng = crate::core::random::rng(12);
        for _ in 0..20 {
            let g = positions::random(Family::Graphs, Palette::All, 12, &mut rng);
            let s = g.swap_colours();
            let mut alive = g.full();
            while let Some(e) = alive.first() {
                for to_move in [0, 1] {
                    assert_eq!(of(&g, &alive, 1, to_move), of(&s, &alive, 0, 1 - to_move));
                    assert_eq!(of(&g, &alive, 0, to_move), of(&s, &alive, 1, 1 - to_move));
                }
                alive = g.cut(&alive, e);
            }
        }
    }
}
