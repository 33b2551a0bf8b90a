//! Hackenbush positions as coloured multigraphs on a ground vertex.
//!
//! # The position
//!
//! A [`Graph`] is a multigraph whose vertex 0 is the ground (every ground point of a drawing is
//! this one vertex). Each edge is blue (only Left may cut it), red (only Right) or green (either
//! player). Loops (an edge from a vertex to itself) and several edges between the same two
//! vertices are allowed. Every edge is connected to the ground: [`Graph::from_edges`] and
//! [`Graph::parse`] refuse anything else. A move cuts one edge of the mover's colour, and every
//! edge no longer connected to the ground disappears with it ([`Graph::cut`]). A position during
//! play is an [`EdgeSet`] of the edges still alive, over the fixed starting graph.
//!
//! # The files
//!
//! This file holds the [`Graph`] and its algorithms: cutting (one edge, or every edge at once),
//! the flood from the ground, the parts that meet only at the ground, bridges, trees and stalks.
//! `edge_set.rs` holds the [`EdgeSet`], and `notation.rs` reads and writes CGSuite's graph
//! strings ([`Graph::parse`], [`Graph::to_cgsuite`]; the grammar and the writer's normal form
//! are documented there).

mod edge_set;
mod notation;
#[cfg(test)]
mod tests;

use std::fmt;

pub use edge_set::{EdgeSet, EdgeSetIter};

use edge_set::INLINE_BITS;

/// An edge's colour: who may cut it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Colour {
    /// Left's edge, written `l`.
    Blue,
    /// Right's edge, written `r`.
    Red,
    /// Either player's edge, written `e`.
    Green,
}

impl Colour {
    /// All three colours.
    pub const ALL: [Colour; 3] = [Colour::Blue, Colour::Red, Colour::Green];

    /// The letter of the notation: `l`, `r` or `e`.
    pub fn letter(self) -> char {
        match self {
            Colour::Blue => 'l',
            Colour::Red => 'r',
            Colour::Green => 'e',
        }
    }

    /// The colour a letter of the notation stands for.
    pub fn from_letter(c: char) -> Option<Colour> {
        match c {
            'l' => Some(Colour::Blue),
            'r' => Some(Colour::Red),
            'e' => Some(Colour::Green),
            _ => None,
        }
    }

    /// Blue and red exchanged (green stays): the colour in the negative of a position.
    pub fn swapped(self) -> Colour {
        match self {
            Colour::Blue => Colour::Red,
            Colour::Red => Colour::Blue,
            Colour::Green => Colour::Green,
        }
    }

    /// Whether Left (`left == true`) or Right may cut an edge of this colour.
    pub fn cuttable_by(self, left: bool) -> bool {
        match self {
            Colour::Blue => left,
            Colour::Red => !left,
            Colour::Green => true,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::Blue => "blue",
            Colour::Red => "red",
            Colour::Green => "green",
        })
    }
}

/// One edge: its two end vertices (`a == b` for a loop) and its colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Edge {
    pub a: u32,
    pub b: u32,
    pub colour: Colour,
}

impl Edge {
    pub fn new(a: u32, b: u32, colour: Colour) -> Edge {
        Edge { a, b, colour }
    }

    pub fn is_loop(&self) -> bool {
        self.a == self.b
    }

    /// The end that is not `v` (`v` itself for a loop at `v`).
    pub fn other(&self, v: u32) -> u32 {
        if self.a == v { self.b } else { self.a }
    }
}

/// Why a graph string does not parse ([`Graph::parse`], in `notation.rs`): the character
/// position (from 0) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphParseError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for GraphParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.position + 1, self.message)
    }
}

impl std::error::Error for GraphParseError {}

/// A Hackenbush position: coloured edges on vertices `0..vertex_count()`, vertex 0 the ground,
/// every edge connected to the ground. Edge ids are indices into [`Graph::edges`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Graph {
    vertices: u32,
    edges: Vec<Edge>,
    /// `adj[adj_start[v]..adj_start[v + 1]]`: (edge id, other end) for each edge at `v`, in id
    /// order; a loop appears once.
    adj_start: Vec<u32>,
    adj: Vec<(u32, u32)>,
}

/// No edge / no position.
const NONE: u32 = u32::MAX;

impl Graph {
    /// The empty position: the ground alone.
    pub fn empty() -> Graph {
        Graph::build(1, Vec::new())
    }

    /// Builds the adjacency; the caller guarantees the endpoints are in range.
    fn build(vertices: u32, edges: Vec<Edge>) -> Graph {
        let n = vertices as usize;
        let mut deg = vec![0u32; n + 1];
        for e in &edges {
            deg[e.a as usize] += 1;
            if e.b != e.a {
                deg[e.b as usize] += 1;
            }
        }
        let mut adj_start = vec![0u32; n + 1];
        for v in 0..n {
            adj_start[v + 1] = adj_start[v] + deg[v];
        }
        let mut fill = adj_start.clone();
        let mut adj = vec![(0u32, 0u32); adj_start[n] as usize];
        for (i, e) in edges.iter().enumerate() {
            adj[fill[e.a as usize] as usize] = (i as u32, e.b);
            fill[e.a as usize] += 1;
            if e.b != e.a {
                adj[fill[e.b as usize] as usize] = (i as u32, e.a);
                fill[e.b as usize] += 1;
            }
        }
        Graph {
            vertices,
            edges,
            adj_start,
            adj,
        }
    }

    /// A graph from its edges, ids in the given order. Every vertex in `1..vertices` must be
    /// connected to the ground (vertex 0), so every edge is too.
    pub fn from_edges(vertices: u32, edges: Vec<Edge>) -> Result<Graph, String> {
        if vertices == 0 {
            return Err("a Hackenbush graph needs at least the ground vertex".into());
        }
        if edges.len() >= NONE as usize {
            return Err("too many edges".into());
        }
        for (i, e) in edges.iter().enumerate() {
            if e.a >= vertices || e.b >= vertices {
                return Err(format!(
                    "edge {i} ({}-{}) has an end outside the vertices 0..{vertices}",
                    e.a, e.b
                ));
            }
        }
        let g = Graph::build(vertices, edges);
        let (_, reached) = g.flood(&g.full(), usize::MAX);
        if reached.len() != vertices as usize {
            let mut seen = vec![false; vertices as usize];
            for &v in &reached {
                seen[v as usize] = true;
            }
            let v = seen.iter().position(|&s| !s).unwrap_or(0);
            return Err(format!("vertex {v} is not connected to the ground"));
        }
        Ok(g)
    }

    /// The edges; an edge's id is its index.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    pub fn edge(&self, id: usize) -> Edge {
        self.edges[id]
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    pub fn vertex_count(&self) -> usize {
        self.vertices as usize
    }

    /// The edges at `v` as (edge id, other end), in id order; a loop appears once.
    pub fn incident(&self, v: u32) -> &[(u32, u32)] {
        let v = v as usize;
        &self.adj[self.adj_start[v] as usize..self.adj_start[v + 1] as usize]
    }

    /// All edges alive: the starting position.
    pub fn full(&self) -> EdgeSet {
        EdgeSet::full(self.edges.len())
    }

    /// No edges alive.
    pub fn no_edges(&self) -> EdgeSet {
        EdgeSet::empty(self.edges.len())
    }

    /// How many alive edges have the colour.
    pub fn count_colour(&self, alive: &EdgeSet, colour: Colour) -> usize {
        alive
            .iter()
            .filter(|&i| self.edges.get(i).is_some_and(|e| e.colour == colour))
            .count()
    }

    /// Whether every alive edge has the colour (true when none is alive).
    pub fn all_colour(&self, alive: &EdgeSet, colour: Colour) -> bool {
        alive
            .iter()
            .all(|i| self.edges.get(i).is_some_and(|e| e.colour == colour))
    }

    /// Search from the ground over the alive edges except `skip`: the alive edges reached and
    /// the vertices reached (ground first).
    fn flood(&self, alive: &EdgeSet, skip: usize) -> (EdgeSet, Vec<u32>) {
        let mut out = EdgeSet::empty(self.edges.len());
        let mut visited = vec![0u64; self.vertices.div_ceil(64) as usize];
        let mut order = vec![0u32];
        visited[0] = 1;
        let mut next = 0;
        while next < order.len() {
            let u = order[next];
            next += 1;
            for &(e, w) in self.incident(u) {
                let e = e as usize;
                if e == skip || !alive.contains(e) {
                    continue;
                }
                out.insert(e);
                let w = w as usize;
                if visited[w / 64] >> (w % 64) & 1 == 0 {
                    visited[w / 64] |= 1 << (w % 64);
                    order.push(w as u32);
                }
            }
        }
        (out, order)
    }

    /// Every cut of a position at once: for each standing edge (in id order) the position after
    /// cutting it, appended to `out`. One depth-first search finds the bridges (Tarjan): cutting
    /// an edge that lies on a cycle removes only that edge; cutting a bridge also drops
    /// everything beyond it. `None` when the graph is too large for the bit-set path (then
    /// call [`Graph::cut`] per edge).
    pub fn cuts(&self, alive: &EdgeSet, out: &mut Vec<(usize, EdgeSet)>) -> Option<()> {
        let n = self.vertices as usize;
        if n > 128 || self.edges.len() > INLINE_BITS {
            return None;
        }
        let a = alive.small_bits()?;
        // tin 0: not visited. Entries on the stack: (vertex, edge from the parent, next index).
        let mut tin = [0u16; 128];
        let mut low = [0u16; 128];
        let mut acc = [0u128; 128];
        let mut bridge_beyond: u128 = 0;
        let mut beyond = [0u128; 128];
        let mut stack: Vec<(u32, u32, u32)> = Vec::with_capacity(32);
        let mut timer = 1u16;
        tin[0] = 1;
        low[0] = 1;
        stack.push((0, u32::MAX, self.adj_start[0]));
        while let Some(&mut (v, pe, ref mut i)) = stack.last_mut() {
            let vu = v as usize;
            if *i < self.adj_start[vu + 1] {
                let (e, w) = self.adj[*i as usize];
                *i += 1;
                if a >> e & 1 == 0 {
                    continue;
                }
                acc[vu] |= 1u128 << e;
                if e == pe || w == v {
                    continue;
                }
                let wu = w as usize;
                if tin[wu] == 0 {
                    timer += 1;
                    tin[wu] = timer;
                    low[wu] = timer;
                    stack.push((w, e, self.adj_start[wu]));
                } else {
                    low[vu] = low[vu].min(tin[wu]);
                }
            } else {
                stack.pop();
                if let Some(&(p, _, _)) = stack.last() {
                    let pu = p as usize;
                    low[pu] = low[pu].min(low[vu]);
                    acc[pu] |= acc[vu];
                    if low[vu] > tin[pu] {
                        // `pe` is a bridge: cutting it drops everything at or beyond v.
                        bridge_beyond |= 1u128 << pe;
                        beyond[pe as usize] = acc[vu];
                    }
                }
            }
        }
        let mut left = a;
        while left != 0 {
            let e = left.trailing_zeros() as usize;
            left &= left - 1;
            let after = if bridge_beyond >> e & 1 == 1 {
                a & !beyond[e]
            } else {
                a & !(1u128 << e)
            };
            out.push((e, EdgeSet::from_small_bits(after)));
        }
        Some(())
    }

    /// [`Graph::cut`] on up to 128 edges and vertices: sets of vertices and edges as bits.
    fn flood_small(&self, alive: u128, skip: usize) -> u128 {
        let alive = if skip < 128 {
            alive & !(1u128 << skip)
        } else {
            alive
        };
        let mut seen: u128 = 0;
        self.reach_small(alive, 0, &mut seen)
    }

    /// The alive edges reachable from `start` without entering the vertices of `seen` (which
    /// gains every vertex reached), on up to 128 edges and vertices.
    fn reach_small(&self, alive: u128, start: usize, seen: &mut u128) -> u128 {
        *seen |= 1u128 << start;
        let mut frontier: u128 = 1u128 << start;
        let mut out: u128 = 0;
        while frontier != 0 {
            let u = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let (lo, hi) = (self.adj_start[u] as usize, self.adj_start[u + 1] as usize);
            for &(e, w) in &self.adj[lo..hi] {
                if alive >> e & 1 == 0 {
                    continue;
                }
                out |= 1u128 << e;
                if *seen >> w & 1 == 0 {
                    *seen |= 1u128 << w;
                    frontier |= 1u128 << w;
                }
            }
        }
        out
    }

    /// The core of [`Graph::cut`], with caller-provided scratch (`visited` zeroed, both sized for
    /// the vertices).
    fn flood_into(
        &self,
        alive: &EdgeSet,
        skip: usize,
        visited: &mut [u64],
        stack: &mut [u32],
    ) -> EdgeSet {
        let mut out = EdgeSet::empty(self.edges.len());
        visited[0] |= 1;
        stack[0] = 0;
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let u = stack[top] as usize;
            let (lo, hi) = (self.adj_start[u] as usize, self.adj_start[u + 1] as usize);
            for &(e, w) in &self.adj[lo..hi] {
                let e = e as usize;
                if e == skip || !alive.contains(e) {
                    continue;
                }
                out.insert(e);
                let w = w as usize;
                if visited[w / 64] >> (w % 64) & 1 == 0 {
                    visited[w / 64] |= 1 << (w % 64);
                    stack[top] = w as u32;
                    top += 1;
                }
            }
        }
        out
    }

    /// The position after cutting `edge` from `alive`: the alive edges still connected to the
    /// ground without it. (Cutting an edge that is not alive just drops the disconnected rest.)
    pub fn cut(&self, alive: &EdgeSet, edge: usize) -> EdgeSet {
        let n = self.vertices as usize;
        if n <= 128
            && self.edges.len() <= INLINE_BITS
            && let Some(bits) = alive.small_bits()
        {
            return EdgeSet::from_small_bits(self.flood_small(bits, edge));
        }
        if n <= 128 {
            let mut visited = [0u64; 2];
            let mut stack = [0u32; 128];
            self.flood_into(alive, edge, &mut visited, &mut stack)
        } else {
            let mut visited = vec![0u64; n.div_ceil(64)];
            let mut stack = vec![0u32; n];
            self.flood_into(alive, edge, &mut visited, &mut stack)
        }
    }

    /// The alive edges connected to the ground.
    pub fn reachable(&self, alive: &EdgeSet) -> EdgeSet {
        self.cut(alive, usize::MAX)
    }

    /// The alive edges split into the parts that meet only at the ground: the connected
    /// components of the graph with the ground vertex taken out, each with its edges to the
    /// ground; a loop at the ground is a part of its own. Parts are ordered by their smallest
    /// edge id. The game is the sum of its parts.
    pub fn components(&self, alive: &EdgeSet) -> Vec<EdgeSet> {
        let n = self.vertices as usize;
        if n <= 128
            && self.edges.len() <= INLINE_BITS
            && let Some(bits) = alive.small_bits()
        {
            return self.components_small(bits);
        }
        if n <= 128 {
            let mut seen = [0u64; 2];
            let mut stack = [0u32; 128];
            self.components_into(alive, &mut seen, &mut stack)
        } else {
            let mut seen = vec![0u64; n.div_ceil(64)];
            let mut stack = vec![0u32; n];
            self.components_into(alive, &mut seen, &mut stack)
        }
    }

    /// [`Graph::components`] on up to 128 edges and vertices, with bits for sets: each part
    /// is what a flood from one of its vertices reaches without passing the ground.
    fn components_small(&self, alive: u128) -> Vec<EdgeSet> {
        let mut parts = Vec::new();
        let mut left = alive;
        let mut seen: u128 = 1;
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            left &= left - 1;
            let e = &self.edges[i];
            if e.a == 0 && e.b == 0 {
                parts.push(EdgeSet::from_small_bits(1u128 << i));
                continue;
            }
            let start = if e.a != 0 { e.a } else { e.b } as usize;
            if seen >> start & 1 == 1 {
                continue;
            }
            let part = self.reach_small(alive, start, &mut seen);
            left &= !part;
            parts.push(EdgeSet::from_small_bits(part));
        }
        parts
    }

    /// The core of [`Graph::components`], with caller-provided scratch (`seen` zeroed, both
    /// sized for the vertices; each vertex is pushed at most once).
    fn components_into(
        &self,
        alive: &EdgeSet,
        seen: &mut [u64],
        stack: &mut [u32],
    ) -> Vec<EdgeSet> {
        let mut parts = Vec::new();
        let is_seen = |seen: &[u64], v: usize| seen[v / 64] >> (v % 64) & 1 == 1;
        for i in alive.iter() {
            let Some(e) = self.edges.get(i) else { break };
            if e.a == 0 && e.b == 0 {
                parts.push(EdgeSet::from_ids(self.edges.len(), [i]));
                continue;
            }
            let start = if e.a != 0 { e.a } else { e.b } as usize;
            if is_seen(seen, start) {
                continue;
            }
            let mut part = EdgeSet::empty(self.edges.len());
            seen[start / 64] |= 1 << (start % 64);
            stack[0] = start as u32;
            let mut top = 1;
            while top > 0 {
                top -= 1;
                let u = stack[top];
                for &(f, w) in self.incident(u) {
                    if !alive.contains(f as usize) {
                        continue;
                    }
                    part.insert(f as usize);
                    let w = w as usize;
                    if w != 0 && !is_seen(seen, w) {
                        seen[w / 64] |= 1 << (w % 64);
                        stack[top] = w as u32;
                        top += 1;
                    }
                }
            }
            parts.push(part);
        }
        parts
    }

    /// The alive edges connected to the ground as a graph of their own, edges in the same
    /// relative order, vertices renumbered keeping their relative order (the ground stays 0).
    pub fn sub(&self, alive: &EdgeSet) -> Graph {
        let (kept, mut reached) = self.flood(alive, usize::MAX);
        reached.sort_unstable();
        let mut map = vec![NONE; self.vertices as usize];
        for (new, &old) in reached.iter().enumerate() {
            map[old as usize] = new as u32;
        }
        let edges = kept
            .iter()
            .map(|i| {
                let e = self.edges[i];
                Edge::new(map[e.a as usize], map[e.b as usize], e.colour)
            })
            .collect();
        Graph::build(reached.len() as u32, edges)
    }

    /// Blue and red exchanged: the negative of the position.
    pub fn swap_colours(&self) -> Graph {
        let mut g = self.clone();
        for e in &mut g.edges {
            e.colour = e.colour.swapped();
        }
        g
    }

    /// The disjoint sum: `other` stood on the same ground next to `self` (its edges after
    /// `self`'s, its vertices after `self`'s).
    pub fn sum(&self, other: &Graph) -> Graph {
        let shift = self.vertices - 1;
        let map = |v: u32| if v == 0 { 0 } else { v + shift };
        let mut edges = self.edges.clone();
        edges.extend(
            other
                .edges
                .iter()
                .map(|e| Edge::new(map(e.a), map(e.b), e.colour)),
        );
        Graph::build(self.vertices + other.vertices - 1, edges)
    }

    /// The alive edges connected to the ground as a rooted tree, if they form one (no cycle, no
    /// loop): for each non-ground vertex reached, in breadth-first order from the ground,
    /// `(vertex, parent, edge to the parent)`. `None` if there is a cycle.
    pub fn rooted_tree(&self, alive: &EdgeSet) -> Option<Vec<(u32, u32, usize)>> {
        let mut parent_edge = vec![NONE; self.vertices as usize];
        let mut visited = vec![false; self.vertices as usize];
        visited[0] = true;
        let mut out: Vec<(u32, u32, usize)> = Vec::new();
        let mut next = 0;
        let mut current = 0u32;
        loop {
            for &(e, w) in self.incident(current) {
                if !alive.contains(e as usize) || e == parent_edge[current as usize] {
                    continue;
                }
                if visited[w as usize] {
                    // A loop, a second edge to a vertex, or a cycle.
                    return None;
                }
                visited[w as usize] = true;
                parent_edge[w as usize] = e;
                out.push((w, current, e as usize));
            }
            if next == out.len() {
                break;
            }
            current = out[next].0;
            next += 1;
        }
        Some(out)
    }

    /// Whether the alive edges connected to the ground form a forest standing on the ground
    /// (no cycles, no loops; the ground counts as one vertex).
    pub fn is_tree(&self, alive: &EdgeSet) -> bool {
        self.rooted_tree(alive).is_some()
    }

    /// The alive edges connected to the ground as stalks, if they are: each stalk's colours from
    /// the ground up, stalks in order of their bottom edge's id.
    pub fn stalks(&self, alive: &EdgeSet) -> Option<Vec<Vec<Colour>>> {
        let tree = self.rooted_tree(alive)?;
        let mut child = vec![NONE; self.vertices as usize];
        let mut bottoms = Vec::new();
        for &(v, p, e) in &tree {
            if p == 0 {
                bottoms.push((e, v));
            } else if child[p as usize] != NONE {
                return None;
            } else {
                child[p as usize] = v;
            }
        }
        let mut parent_edge = vec![0usize; self.vertices as usize];
        for &(v, _, e) in &tree {
            parent_edge[v as usize] = e;
        }
        bottoms.sort_unstable();
        Some(
            bottoms
                .into_iter()
                .map(|(e, v)| {
                    let mut colours = vec![self.edges[e].colour];
                    let mut v = v;
                    while child[v as usize] != NONE {
                        v = child[v as usize];
                        colours.push(self.edges[parent_edge[v as usize]].colour);
                    }
                    colours
                })
                .collect(),
        )
    }

    /// Whether the alive edges connected to the ground are a single stalk (or nothing).
    pub fn is_stalk(&self, alive: &EdgeSet) -> bool {
        self.stalks(alive).is_some_and(|s| s.len() <= 1)
    }

    /// The bridges among the alive edges connected to the ground: the edges whose cut
    /// disconnects something. A loop or an edge with a parallel twin is never one. Iterative
    /// Tarjan, so deep graphs do not overflow the stack.
    pub fn bridges(&self, alive: &EdgeSet) -> EdgeSet {
        let mut out = EdgeSet::empty(self.edges.len());
        self.tarjan(
            alive,
            |_, _, _| {},
            |_, _, e, bridge| {
                if bridge {
                    out.insert(e);
                }
            },
        );
        out
    }

    /// Depth-first search from the ground over the alive edges, with low-links. Calls
    /// `back(u, w, e)` for each non-tree edge `e` once, from its later-discovered end `u`
    /// (loops included), and `done(child, parent, e, is_bridge)` when the tree edge `e` finishes.
    pub(crate) fn tarjan(
        &self,
        alive: &EdgeSet,
        mut back: impl FnMut(u32, u32, usize),
        mut done: impl FnMut(u32, u32, usize, bool),
    ) {
        let n = self.vertices as usize;
        let mut disc = vec![NONE; n];
        let mut low = vec![0u32; n];
        // (vertex, edge to its parent, adjacency cursor)
        let mut stack: Vec<(u32, u32, u32)> = vec![(0, NONE, self.adj_start[0])];
        disc[0] = 0;
        let mut time = 0u32;
        while let Some(top) = stack.last_mut() {
            let u = top.0 as usize;
            if top.2 < self.adj_start[u + 1] {
                let (e, w) = self.adj[top.2 as usize];
                top.2 += 1;
                if e == top.1 || !alive.contains(e as usize) {
                    continue;
                }
                let wi = w as usize;
                if disc[wi] == NONE {
                    time += 1;
                    disc[wi] = time;
                    low[wi] = time;
                    stack.push((w, e, self.adj_start[wi]));
                } else {
                    if disc[wi] <= disc[u] {
                        back(u as u32, w, e as usize);
                    }
                    low[u] = low[u].min(disc[wi]);
                }
            } else {
                let (child, edge, _) = *top;
                stack.pop();
                if let Some(parent) = stack.last() {
                    let p = parent.0 as usize;
                    low[p] = low[p].min(low[child as usize]);
                    done(
                        child,
                        parent.0,
                        edge as usize,
                        low[child as usize] > disc[p],
                    );
                }
            }
        }
    }

    /// Whether `other` is this graph up to renumbering the vertices (the ground staying 0):
    /// same number of vertices, and edge `i` has the same colour and corresponding ends in
    /// both, for every `i`. Edge orientation does not matter.
    pub fn equivalent(&self, other: &Graph) -> bool {
        if self.vertices != other.vertices || self.edges.len() != other.edges.len() {
            return false;
        }
        for (e, f) in self.edges.iter().zip(&other.edges) {
            if e.colour != f.colour || e.is_loop() != f.is_loop() {
                return false;
            }
        }
        let n = self.vertices as usize;
        let mut map = vec![NONE; n];
        let mut inverse = vec![NONE; n];
        map[0] = 0;
        inverse[0] = 0;
        let mut stack = vec![0u32];
        while let Some(u) = stack.pop() {
            let mu = map[u as usize];
            for &(i, w) in self.incident(u) {
                let f = other.edges[i as usize];
                let mw = if f.a == mu {
                    f.b
                } else if f.b == mu {
                    f.a
                } else {
                    return false;
                };
                if map[w as usize] == NONE {
                    if inverse[mw as usize] != NONE {
                        return false;
                    }
                    map[w as usize] = mw;
                    inverse[mw as usize] = w;
                    stack.push(w);
                } else if map[w as usize] != mw {
                    return false;
                }
            }
        }
        map.iter().all(|&m| m != NONE)
    }

    /// The graph with its edges in the given order: new edge `k` is old edge `order[k]`.
    /// `order` must be a permutation of the edge ids.
    pub fn reordered(&self, order: &[usize]) -> Result<Graph, String> {
        let mut seen = vec![false; self.edges.len()];
        if order.len() != self.edges.len() {
            return Err("the order must list every edge once".into());
        }
        for &i in order {
            if i >= seen.len() || seen[i] {
                return Err("the order must list every edge once".into());
            }
            seen[i] = true;
        }
        Ok(Graph::build(
            self.vertices,
            order.iter().map(|&i| self.edges[i]).collect(),
        ))
    }
}

impl fmt::Debug for Graph {
    /// `Graph { vertices: 3, edges: [0-1 l, 1-2 r], cgsuite: "lr" }`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Graph {{ vertices: {}, edges: [", self.vertices)?;
        for (i, e) in self.edges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}-{} {}", e.a, e.b, e.colour.letter())?;
        }
        write!(f, "], cgsuite: {:?} }}", self.to_cgsuite())
    }
}
