//! Hackenbush positions as coloured multigraphs on a ground vertex, and CGSuite's graph-string
//! notation for them.
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
//! # The notation (CGSuite's graph strings)
//!
//! * `l`, `r`, `e`: a blue, red, green edge from the current vertex to a new vertex, which
//!   becomes the current vertex. A plain string is a stalk from the ground up: `lrr`.
//! * `x(a;b;c)`: after `x`, the branches `a`, `b`, `c` all start from the vertex `x` reached. A
//!   string that begins with `(` branches from the ground: `(l;l;r)` is three edges on the
//!   ground. Nothing may follow a `)` except `;`, another `)` or the end (CGSuite's grammar).
//!   Empty branches are allowed and mean nothing.
//! * `:A` (one letter or digit) or `:{Name}` names the vertex just reached: the ground when it
//!   begins the string, otherwise the vertex the preceding edge letter leads to. A name already
//!   in use makes that edge end at the named vertex instead of at a new one. So `:Alrl:A` is a
//!   triangle standing on the ground, `l:Al:A` a blue edge with a blue loop on top, and `:Arl:A`
//!   a red and a blue edge side by side on the ground. Names are case-sensitive.
//! * `.` marks a vertex and changes nothing (CGSuite allows it): `.:Ae:A` is `:Ae:A`, and `.`
//!   alone is the empty position (so is the empty string). It may begin the string or follow an
//!   edge letter, before that vertex's name.
//! * Whitespace is ignored (inside `{...}` only at the ends of the name).
//!
//! Anything else is an error naming the character position (counted in characters from 0):
//! CGSuite's unlabelled edge `-`, uppercase letters outside a name, a name that neither begins
//! the string nor follows an edge letter, unbalanced parentheses, text after a `)`. Every string
//! the grammar accepts is connected (each edge starts at a vertex already reached from the
//! ground), so a disconnected graph cannot be written.
//!
//! **Numbering.** Edge ids are the order in which the edge letters appear in the string; the
//! ground is vertex 0 and the other vertices are numbered in order of first appearance. Each
//! [`Edge`] runs from `a`, the vertex its letter starts from, to `b`, the vertex it reaches.
//!
//! # Writing ([`Graph::to_cgsuite`])
//!
//! The writer keeps the edge order whenever the notation can: it reads the edges in id order
//! and writes each one from the deepest vertex of the current path (the ground, then the
//! vertices the string has just climbed through) that the edge touches, starting a branch there
//! if needed; its other end is a new vertex or a named one. Choosing the deepest such vertex
//! keeps every option open, so this succeeds whenever any string lists the edges in id order.
//! It cannot always: after `(l;l)` the top of the first edge is out of reach, so a third edge
//! standing on it can never come third. For such graphs the writer lists the edges in
//! depth-first order from the ground instead (at each vertex, its lowest-numbered unwritten edge
//! first). [`Graph::writer_order`] tells which order the string uses, and
//! [`Graph::normal_form`] is the graph exactly as the string parses back: edges in that order,
//! vertices numbered by first appearance, each edge oriented as written. Hence, for every graph
//! `g`, `Graph::parse(&g.to_cgsuite()) == Ok(g.normal_form())`, `g.normal_form()` is
//! [`equivalent`](Graph::equivalent) to `g` (same edges, ids and colours, vertices renumbered)
//! whenever the id order could be kept, and writing is a fixed point:
//! `g.normal_form().to_cgsuite() == g.to_cgsuite()`. Vertex names are `A`, `B`, ... `Z`, then
//! `{AA}`, `{AB}`, ..., given in order of first appearance to exactly the vertices the string
//! reaches more than once (the ground included); a branch group is written only where a vertex
//! has two or more edges leaving it in the layout. A string the writer produced parses and
//! writes back byte for byte; other strings come back in this form (`:{waist}` becomes `:A`,
//! `l(l)` becomes `ll`, and so on).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

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

/// A set of edge ids: the edges still alive in a position. A bitset of any size; sets of up to
/// 128 edges live inline without allocating. Equality, hashing and order depend only on the
/// members, not on the capacity the set was made with.
#[derive(Clone)]
pub struct EdgeSet {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Small([u64; 2]),
    Large(Vec<u64>),
}

const INLINE_BITS: usize = 128;

impl EdgeSet {
    /// The empty set, with room for ids below `capacity` (it grows if needed).
    pub fn empty(capacity: usize) -> EdgeSet {
        let repr = if capacity <= INLINE_BITS {
            Repr::Small([0; 2])
        } else {
            Repr::Large(vec![0; capacity.div_ceil(64)])
        };
        EdgeSet { repr }
    }

    /// The set as 128 bits, when it is held inline.
    #[inline]
    fn small_bits(&self) -> Option<u128> {
        match &self.repr {
            Repr::Small(w) => Some(w[0] as u128 | (w[1] as u128) << 64),
            Repr::Large(_) => None,
        }
    }

    /// The set of the ids whose bits are set.
    #[inline]
    fn from_small_bits(bits: u128) -> EdgeSet {
        EdgeSet {
            repr: Repr::Small([bits as u64, (bits >> 64) as u64]),
        }
    }

    /// The ids `0..n`.
    pub fn full(n: usize) -> EdgeSet {
        let mut s = EdgeSet::empty(n);
        let words = s.words_mut();
        for (i, w) in words.iter_mut().enumerate() {
            let lo = i * 64;
            if lo + 64 <= n {
                *w = u64::MAX;
            } else if lo < n {
                *w = (1u64 << (n - lo)) - 1;
            }
        }
        s
    }

    /// The set of the given ids.
    pub fn from_ids(capacity: usize, ids: impl IntoIterator<Item = usize>) -> EdgeSet {
        let mut s = EdgeSet::empty(capacity);
        for i in ids {
            s.insert(i);
        }
        s
    }

    fn words(&self) -> &[u64] {
        match &self.repr {
            Repr::Small(w) => w,
            Repr::Large(v) => v,
        }
    }

    fn words_mut(&mut self) -> &mut [u64] {
        match &mut self.repr {
            Repr::Small(w) => w,
            Repr::Large(v) => v,
        }
    }

    /// The words without trailing zero words: what equality, hashing and order look at.
    fn trimmed(&self) -> &[u64] {
        let w = self.words();
        let mut n = w.len();
        while n > 0 && w[n - 1] == 0 {
            n -= 1;
        }
        &w[..n]
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        let w = self.words();
        i / 64 < w.len() && (w[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Adds `i`; whether it was new.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        if let Repr::Small(w) = &mut self.repr
            && i < INLINE_BITS
        {
            let bit = 1u64 << (i % 64);
            let new = w[i / 64] & bit == 0;
            w[i / 64] |= bit;
            return new;
        }
        if i / 64 >= self.words().len() {
            let mut v = self.words().to_vec();
            v.resize(i / 64 + 1, 0);
            self.repr = Repr::Large(v);
        }
        let w = &mut self.words_mut()[i / 64];
        let bit = 1u64 << (i % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Removes `i`; whether it was there.
    #[inline]
    pub fn remove(&mut self, i: usize) -> bool {
        if !self.contains(i) {
            return false;
        }
        self.words_mut()[i / 64] &= !(1u64 << (i % 64));
        true
    }

    pub fn count(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words().iter().all(|&w| w == 0)
    }

    /// The smallest member.
    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The members in increasing order.
    pub fn iter(&self) -> EdgeSetIter<'_> {
        let words = self.words();
        EdgeSetIter {
            words,
            index: 0,
            current: words.first().copied().unwrap_or(0),
        }
    }

    /// Whether every member of `self` is in `other`.
    pub fn is_subset(&self, other: &EdgeSet) -> bool {
        let o = other.words();
        self.words()
            .iter()
            .enumerate()
            .all(|(i, &w)| w & !o.get(i).copied().unwrap_or(0) == 0)
    }

    /// The members of both.
    pub fn intersection(&self, other: &EdgeSet) -> EdgeSet {
        let mut out = self.clone();
        let o = other.words();
        for (i, w) in out.words_mut().iter_mut().enumerate() {
            *w &= o.get(i).copied().unwrap_or(0);
        }
        out
    }

    /// The members of either.
    pub fn union(&self, other: &EdgeSet) -> EdgeSet {
        let (mut out, small) = if self.words().len() >= other.words().len() {
            (self.clone(), other)
        } else {
            (other.clone(), self)
        };
        for (w, s) in out.words_mut().iter_mut().zip(small.words()) {
            *w |= s;
        }
        out
    }
}

/// The members of an [`EdgeSet`], increasing.
pub struct EdgeSetIter<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl Iterator for EdgeSetIter<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            self.current = *self.words.get(self.index)?;
        }
    }
}

impl PartialEq for EdgeSet {
    fn eq(&self, other: &EdgeSet) -> bool {
        self.trimmed() == other.trimmed()
    }
}

impl Eq for EdgeSet {}

impl Hash for EdgeSet {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.trimmed().hash(state);
    }
}

impl Ord for EdgeSet {
    /// Some total order consistent with equality (lexicographic on the 64-bit words).
    fn cmp(&self, other: &EdgeSet) -> Ordering {
        self.trimmed().cmp(other.trimmed())
    }
}

impl PartialOrd for EdgeSet {
    fn partial_cmp(&self, other: &EdgeSet) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for EdgeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Why a graph string does not parse: the character position (from 0) and what is wrong.
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

    // ---- The notation ----

    /// Parses CGSuite's graph notation (see the module docs).
    pub fn parse(s: &str) -> Result<Graph, GraphParseError> {
        Parser::default().run(s)
    }

    /// The graph in CGSuite's notation, in the writer's normal form (see the module docs):
    /// `Graph::parse(&g.to_cgsuite())` is `g.normal_form()`.
    pub fn to_cgsuite(&self) -> String {
        self.plan().write(self)
    }

    /// The order in which [`Graph::to_cgsuite`] writes the edges: the ids in order when the
    /// notation can keep it, else a depth-first order from the ground.
    pub fn writer_order(&self) -> Vec<usize> {
        self.plan().order
    }

    /// Whether the notation can list the edges in id order (then `normal_form` is
    /// `equivalent` to `self`).
    pub fn writable_in_order(&self) -> bool {
        let identity: Vec<usize> = (0..self.edges.len()).collect();
        self.plan_order(identity).is_some()
    }

    /// The graph as its CGSuite string parses back: edges in [`Graph::writer_order`], vertices
    /// numbered in order of first appearance in the string, edges oriented as written.
    pub fn normal_form(&self) -> Graph {
        let plan = self.plan();
        let mut number = vec![NONE; self.vertices as usize];
        let mut next = 0u32;
        for &v in &plan.node_vertex {
            if number[v as usize] == NONE {
                number[v as usize] = next;
                next += 1;
            }
        }
        let edges = plan
            .order
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let from = plan.node_vertex[plan.parent[k] as usize];
                let to = plan.node_vertex[k + 1];
                Edge::new(
                    number[from as usize],
                    number[to as usize],
                    self.edges[i].colour,
                )
            })
            .collect();
        Graph::build(next.max(1), edges)
    }

    fn plan(&self) -> Plan {
        let identity: Vec<usize> = (0..self.edges.len()).collect();
        if let Some(plan) = self.plan_order(identity) {
            return plan;
        }
        let order = self.dfs_order();
        match self.plan_order(order) {
            Some(plan) => plan,
            // Unreachable: a depth-first order is always writable. Fall back to something
            // harmless rather than panic.
            None => Plan {
                order: Vec::new(),
                parent: Vec::new(),
                node_vertex: vec![0],
            },
        }
    }

    /// Every edge in depth-first order from the ground, each vertex's lowest-id unwritten edge
    /// first.
    fn dfs_order(&self) -> Vec<usize> {
        let mut emitted = vec![false; self.edges.len()];
        let mut visited = vec![false; self.vertices as usize];
        let mut order = Vec::with_capacity(self.edges.len());
        visited[0] = true;
        let mut stack: Vec<(u32, u32)> = vec![(0, self.adj_start[0])];
        while let Some(top) = stack.last_mut() {
            let v = top.0 as usize;
            if top.1 < self.adj_start[v + 1] {
                let (e, w) = self.adj[top.1 as usize];
                top.1 += 1;
                if emitted[e as usize] {
                    continue;
                }
                emitted[e as usize] = true;
                order.push(e as usize);
                if !visited[w as usize] {
                    visited[w as usize] = true;
                    stack.push((w, self.adj_start[w as usize]));
                }
            } else {
                stack.pop();
            }
        }
        order
    }

    /// Writes the edges in `order` greedily, each from the deepest vertex of the current path
    /// it touches; `None` if some edge touches none.
    fn plan_order(&self, order: Vec<usize>) -> Option<Plan> {
        let n = self.vertices as usize;
        // The path: node indices; node 0 is the ground.
        let mut path: Vec<u32> = vec![0];
        // For the vertex at each path position, its previous position on the path.
        let mut prev_pos: Vec<u32> = vec![NONE];
        // The deepest path position of each vertex.
        let mut last_pos = vec![NONE; n];
        last_pos[0] = 0;
        let mut node_vertex = Vec::with_capacity(order.len() + 1);
        node_vertex.push(0u32);
        let mut parent = Vec::with_capacity(order.len());
        for (k, &i) in order.iter().enumerate() {
            let e = self.edges[i];
            let (pa, pb) = (last_pos[e.a as usize], last_pos[e.b as usize]);
            let (pos, to) = match (pa, pb) {
                (NONE, NONE) => return None,
                (NONE, _) => (pb, e.a),
                (_, NONE) => (pa, e.b),
                _ if pa >= pb => (pa, e.b),
                _ => (pb, e.a),
            };
            let pos = pos as usize;
            while path.len() > pos + 1 {
                let p = path.len() - 1;
                let v = node_vertex[path[p] as usize];
                last_pos[v as usize] = prev_pos[p];
                path.pop();
                prev_pos.pop();
            }
            parent.push(path[pos]);
            node_vertex.push(to);
            prev_pos.push(last_pos[to as usize]);
            last_pos[to as usize] = path.len() as u32;
            path.push(k as u32 + 1);
        }
        Some(Plan {
            order,
            parent,
            node_vertex,
        })
    }
}

/// How the writer lays the edges out: edge `order[k]` is written from node `parent[k]` to node
/// `k + 1`; node 0 is the ground; `node_vertex[node]` is the graph vertex a node stands for.
/// Nodes are numbered in the order the string reaches them.
struct Plan {
    order: Vec<usize>,
    parent: Vec<u32>,
    node_vertex: Vec<u32>,
}

impl Plan {
    fn write(&self, g: &Graph) -> String {
        if self.order.is_empty() {
            return ".".to_string();
        }
        let nodes = self.node_vertex.len();
        // Children of each node, in order.
        let mut start = vec![0u32; nodes + 1];
        for &p in &self.parent {
            start[p as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut children = vec![0u32; self.parent.len()];
        for (k, &p) in self.parent.iter().enumerate() {
            children[fill[p as usize] as usize] = k as u32 + 1;
            fill[p as usize] += 1;
        }
        let kids =
            |node: u32| &children[start[node as usize] as usize..start[node as usize + 1] as usize];
        // Vertices reached by more than one node need a name.
        let mut uses = vec![0u32; g.vertices as usize];
        for &v in &self.node_vertex {
            uses[v as usize] += 1;
        }
        let mut name_of = vec![NONE; g.vertices as usize];
        let mut names = 0u32;
        let mut out = String::new();
        let mut name = |v: u32, out: &mut String| {
            if uses[v as usize] < 2 {
                return;
            }
            if name_of[v as usize] == NONE {
                name_of[v as usize] = names;
                names += 1;
            }
            out.push(':');
            push_name(out, name_of[v as usize]);
        };
        name(0, &mut out);
        // (node, next child index, written as a branch group)
        let root_grouped = kids(0).len() >= 2;
        if root_grouped {
            out.push('(');
        }
        let mut stack: Vec<(u32, usize, bool)> = vec![(0, 0, root_grouped)];
        while let Some(top) = stack.last_mut() {
            let (node, next, grouped) = *top;
            let ks = kids(node);
            if next < ks.len() {
                top.1 += 1;
                if grouped && next > 0 {
                    out.push(';');
                }
                let child = ks[next];
                let edge = g.edges[self.order[child as usize - 1]];
                out.push(edge.colour.letter());
                name(self.node_vertex[child as usize], &mut out);
                let child_grouped = kids(child).len() >= 2;
                if child_grouped {
                    out.push('(');
                }
                stack.push((child, 0, child_grouped));
            } else {
                if grouped {
                    out.push(')');
                }
                stack.pop();
            }
        }
        out
    }
}

/// Vertex name number `i`: `A`..`Z`, then `{AA}`, `{AB}`, ...
fn push_name(out: &mut String, i: u32) {
    if i < 26 {
        out.push((b'A' + i as u8) as char);
        return;
    }
    // Bijective base 26 for i - 26 + 27 (two letters and up).
    let mut n = i as u64 + 1;
    let mut letters = Vec::new();
    while n > 0 {
        n -= 1;
        letters.push((b'A' + (n % 26) as u8) as char);
        n /= 26;
    }
    out.push('{');
    out.extend(letters.iter().rev());
    out.push('}');
}

/// A vertex slot still open: at the start of the string (the ground) or just after an edge
/// letter (its far end, not yet created because a name may redirect it).
struct Pending {
    from: Option<(u32, Colour)>,
    dotted: bool,
}

struct Parser {
    vertices: u32,
    edges: Vec<Edge>,
    names: HashMap<String, u32>,
    current: u32,
    pending: Option<Pending>,
    /// Open branch groups: the vertex they branch from and the position of their `(`.
    groups: Vec<(u32, usize)>,
    /// Just after a `)`: only `;`, `)` or the end may follow.
    closed: bool,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser {
            vertices: 1,
            edges: Vec::new(),
            names: HashMap::new(),
            current: 0,
            pending: Some(Pending {
                from: None,
                dotted: false,
            }),
            groups: Vec::new(),
            closed: false,
        }
    }
}

impl Parser {
    /// Closes the open vertex slot: an edge letter without a name leads to a new vertex.
    fn finish(&mut self) {
        if let Some(Pending {
            from: Some((from, colour)),
            ..
        }) = self.pending.take()
        {
            let to = self.vertices;
            self.vertices += 1;
            self.edges.push(Edge::new(from, to, colour));
            self.current = to;
        }
    }

    fn run(mut self, s: &str) -> Result<Graph, GraphParseError> {
        let chars: Vec<char> = s.chars().collect();
        let err = |position: usize, message: &str| GraphParseError {
            position,
            message: message.to_string(),
        };
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match c {
                c if c.is_whitespace() => {}
                'l' | 'r' | 'e' => {
                    self.finish();
                    if self.closed {
                        return Err(err(i, "after ')' only ';', ')' or the end may follow"));
                    }
                    let colour = Colour::from_letter(c).unwrap_or(Colour::Green);
                    self.pending = Some(Pending {
                        from: Some((self.current, colour)),
                        dotted: false,
                    });
                }
                '.' => match &mut self.pending {
                    Some(p) if !p.dotted => p.dotted = true,
                    _ => {
                        return Err(err(
                            i,
                            "'.' (a vertex) may only begin the string or follow an edge letter",
                        ));
                    }
                },
                ':' => {
                    let start = i;
                    i += 1;
                    while i < chars.len() && chars[i].is_whitespace() {
                        i += 1;
                    }
                    let name: String = match chars.get(i) {
                        None => {
                            return Err(err(start, "':' must be followed by a vertex name"));
                        }
                        Some('{') => {
                            let Some(len) = chars[i + 1..].iter().position(|&c| c == '}') else {
                                return Err(err(i, "unclosed '{' in a vertex name"));
                            };
                            let name: String = chars[i + 1..i + 1 + len].iter().collect();
                            let name = name.trim().to_string();
                            if name.is_empty() {
                                return Err(err(i, "empty vertex name"));
                            }
                            i += len + 1;
                            name
                        }
                        Some(&c) if c.is_ascii_alphanumeric() => c.to_string(),
                        Some(&c) => {
                            return Err(err(
                                i,
                                &format!(
                                    "'{c}' is not a vertex name: use one letter or digit, or {{Name}}"
                                ),
                            ));
                        }
                    };
                    let Some(pending) = self.pending.take() else {
                        return Err(err(
                            start,
                            "a vertex name may only begin the string or follow an edge letter \
                             (and a vertex takes one name)",
                        ));
                    };
                    match pending.from {
                        None => {
                            self.names.insert(name, 0);
                            self.current = 0;
                        }
                        Some((from, colour)) => {
                            let to = match self.names.get(&name) {
                                Some(&v) => v,
                                None => {
                                    let v = self.vertices;
                                    self.vertices += 1;
                                    self.names.insert(name, v);
                                    v
                                }
                            };
                            self.edges.push(Edge::new(from, to, colour));
                            self.current = to;
                        }
                    }
                }
                '(' => {
                    self.finish();
                    if self.closed {
                        return Err(err(i, "after ')' only ';', ')' or the end may follow"));
                    }
                    self.groups.push((self.current, i));
                }
                ';' => {
                    self.finish();
                    let Some(&(fork, _)) = self.groups.last() else {
                        return Err(err(
                            i,
                            "';' outside parentheses (branches are written x(a;b))",
                        ));
                    };
                    self.current = fork;
                    self.closed = false;
                }
                ')' => {
                    self.finish();
                    if self.groups.pop().is_none() {
                        return Err(err(i, "unmatched ')'"));
                    }
                    self.closed = true;
                }
                '-' => {
                    return Err(err(
                        i,
                        "'-' (an unlabelled edge) is not a Hackenbush edge: use l (blue), r (red) \
                         or e (green)",
                    ));
                }
                c if c.is_uppercase() => {
                    return Err(err(
                        i,
                        &format!(
                            "unexpected '{c}': edges are the lowercase letters l, r, e, and a \
                             vertex name goes after ':'"
                        ),
                    ));
                }
                c => {
                    return Err(err(
                        i,
                        &format!("unexpected '{c}': expected l, r, e, '(', ';', ')', ':' or '.'"),
                    ));
                }
            }
            i += 1;
        }
        self.finish();
        if let Some(&(_, pos)) = self.groups.last() {
            return Err(err(pos, "unclosed '('"));
        }
        Ok(Graph::build(self.vertices, self.edges))
    }
}

impl FromStr for Graph {
    type Err = GraphParseError;
    fn from_str(s: &str) -> Result<Graph, GraphParseError> {
        Graph::parse(s)
    }
}

impl fmt::Display for Graph {
    /// The CGSuite string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_cgsuite())
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn g(s: &str) -> Graph {
        Graph::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    const EXAMPLES: &[&str] = &[
        "lrlrrllr",
        "l(l;rl)",
        "lr(l;r)",
        "(l;l;r)",
        ":Alll:A",
        ":Alrl:A",
        ":Arl:A",
        "l:Al:A",
        "e(ee(e;e);e(eee;ee);e(ee;e))",
        "e(ee:{waist};ee:{waist}e(ee;e(e:{head};e:{head}e)))",
        ":Ae:A",
        ":Aeeee:A",
        "ee:Aeeee:A",
        "e:A(e;e:A)",
        "(e:B;e:Bllllllrrr:B)",
        "r(l:T;r(l:T;r(l:T;r(l:T;rl:T))))",
        "(lr:A(rr:B;rr:D;rr:F);lr:B(r(r:D;r:E));lr:C(rr:F;rr:G);lr:D;lr:E(r(r:F;r:G));lr:F;lr:G)",
    ];

    /// The examples already in the writer's normal form.
    const NORMAL: &[&str] = &[
        "lrlrrllr",
        "l(l;rl)",
        "lr(l;r)",
        "(l;l;r)",
        ":Alll:A",
        ":Alrl:A",
        ":Arl:A",
        "l:Al:A",
        "e(ee(e;e);e(eee;ee);e(ee;e))",
        ":Ae:A",
        ":Aeeee:A",
        "ee:Aeeee:A",
        "e:A(e;e:A)",
    ];

    fn edges(g: &Graph) -> Vec<(u32, u32, char)> {
        g.edges()
            .iter()
            .map(|e| (e.a, e.b, e.colour.letter()))
            .collect()
    }

    #[test]
    fn parses_the_examples() {
        for s in EXAMPLES {
            let x = g(s);
            assert!(
                Graph::from_edges(x.vertices, x.edges.clone()).is_ok(),
                "{s}"
            );
            let mut letters = 0;
            let mut in_name = false;
            for c in s.chars() {
                match c {
                    '{' => in_name = true,
                    '}' => in_name = false,
                    'l' | 'r' | 'e' if !in_name => letters += 1,
                    _ => {}
                }
            }
            assert_eq!(x.edge_count(), letters, "{s}");
        }
        assert_eq!(
            edges(&g("lr(l;r)")),
            [(0, 1, 'l'), (1, 2, 'r'), (2, 3, 'l'), (2, 4, 'r')]
        );
        assert_eq!(
            edges(&g("(l;l;r)")),
            [(0, 1, 'l'), (0, 2, 'l'), (0, 3, 'r')]
        );
        assert_eq!(
            edges(&g(":Alrl:A")),
            [(0, 1, 'l'), (1, 2, 'r'), (2, 0, 'l')]
        );
        assert_eq!(edges(&g("l:Al:A")), [(0, 1, 'l'), (1, 1, 'l')]);
        assert_eq!(edges(&g(":Arl:A")), [(0, 1, 'r'), (1, 0, 'l')]);
        assert_eq!(edges(&g(":Ae:A")), [(0, 0, 'e')]);
        assert_eq!(
            edges(&g("e:A(e;e:A)")),
            [(0, 1, 'e'), (1, 2, 'e'), (1, 1, 'e')]
        );
        assert_eq!(
            edges(&g("(e:B;e:Bllllllrrr:B)"))[..3],
            [(0, 1, 'e'), (0, 1, 'e'), (1, 2, 'l')]
        );
        assert_eq!(
            g("(e:B;e:Bllllllrrr:B)").edges()[10],
            Edge::new(9, 1, Colour::Red)
        );
        let girl = g("e(ee:{waist};ee:{waist}e(ee;e(e:{head};e:{head}e)))");
        assert_eq!(girl.edge_count(), 12);
        assert_eq!(girl.vertex_count(), 11);
        assert_eq!(girl.edges()[4], Edge::new(4, 3, Colour::Green));
        assert_eq!(girl.edges()[10], Edge::new(8, 9, Colour::Green));
        // Whitespace and dots.
        assert_eq!(g(" l r ( l ; r ) "), g("lr(l;r)"));
        assert_eq!(g(".:A e . :A"), g(":Ae:A"));
        assert_eq!(g("l.r."), g("lr"));
        assert_eq!(g(""), Graph::empty());
        assert_eq!(g("."), Graph::empty());
        assert_eq!(g("l(l)"), g("ll"));
        assert_eq!(g("l(;l;)"), g("ll"));
    }

    #[test]
    fn errors_name_the_position() {
        let bad = [
            ("l-r", 1),
            ("lR", 1),
            ("L", 0),
            ("l(r", 1),
            ("l)r", 1),
            ("(l;r)l", 5),
            ("(l;r)(l)", 5),
            ("l;r", 1),
            ("l:", 1),
            ("l:{x", 2),
            ("l:{ }", 2),
            ("l:A:B", 3),
            ("(:Al)", 1),
            ("l..", 2),
            ("l?", 1),
            ("l: -", 3),
        ];
        for (s, pos) in bad {
            let e = Graph::parse(s).expect_err(s);
            assert_eq!(e.position, pos, "{s}: {e}");
            assert!(!e.message.is_empty());
            // The message counts characters from 1, as `solvedgym value` does.
            assert!(e.to_string().contains(&format!("character {}", pos + 1)));
        }
    }

    #[test]
    fn normal_form_examples_round_trip_byte_exactly() {
        for s in NORMAL {
            let x = g(s);
            assert!(x.writable_in_order(), "{s}");
            assert_eq!(x.to_cgsuite(), *s);
            assert_eq!(x.normal_form(), x);
        }
        assert_eq!(Graph::empty().to_cgsuite(), ".");
    }

    #[test]
    fn other_examples_are_rewritten_equivalently() {
        for s in EXAMPLES {
            let x = g(s);
            let w = x.to_cgsuite();
            let y = g(&w);
            assert!(x.writable_in_order(), "{s}");
            assert!(y.equivalent(&x), "{s} -> {w}");
            assert_eq!(y.to_cgsuite(), w);
        }
        assert_eq!(
            g("e(ee:{waist};ee:{waist}e(ee;e(e:{head};e:{head}e)))").to_cgsuite(),
            "e(ee:A;ee:Ae(ee;e:Be(e:B;e)))"
        );
        assert_eq!(
            g("(e:B;e:Bllllllrrr:B)").to_cgsuite(),
            ":Ae:B(e:A;llllllrrr:B)"
        );
        assert_eq!(
            g("r(l:T;r(l:T;r(l:T;r(l:T;rl:T))))").to_cgsuite(),
            "r(l:A;r(l:A;r(l:A;r(l:A;rl:A))))"
        );
    }

    #[test]
    fn order_that_cannot_be_kept() {
        // The third edge stands on the first edge's top, out of reach after the second.
        let x = Graph::from_edges(
            4,
            vec![
                Edge::new(0, 1, Colour::Blue),
                Edge::new(0, 2, Colour::Red),
                Edge::new(1, 3, Colour::Green),
            ],
        )
        .unwrap();
        assert!(!x.writable_in_order());
        assert_eq!(x.writer_order(), [0, 2, 1]);
        assert_eq!(x.to_cgsuite(), "(le;r)");
        let y = g(&x.to_cgsuite());
        assert_eq!(y, x.normal_form());
        assert!(y.equivalent(&x.reordered(&[0, 2, 1]).unwrap()));
        assert_eq!(y.to_cgsuite(), x.to_cgsuite());
    }

    #[test]
    fn many_names() {
        // 30 loops at 30 vertices of a stalk: names run past Z.
        let mut s = String::new();
        for _ in 0..30 {
            s.push('e');
        }
        let mut edges: Vec<Edge> = (0..30)
            .map(|i| Edge::new(i, i + 1, Colour::Green))
            .collect();
        for i in (1..=30).rev() {
            edges.push(Edge::new(i, 0, Colour::Red));
        }
        let x = Graph::from_edges(31, edges).unwrap();
        let w = x.to_cgsuite();
        assert!(w.contains("{AB}"), "{w}");
        let y = g(&w);
        assert_eq!(y, x.normal_form());
        assert_eq!(y.to_cgsuite(), w);
    }

    #[test]
    fn from_edges_checks_connection() {
        assert!(Graph::from_edges(0, vec![]).is_err());
        assert!(Graph::from_edges(1, vec![]).is_ok());
        assert!(Graph::from_edges(2, vec![]).is_err());
        assert!(Graph::from_edges(2, vec![Edge::new(0, 2, Colour::Blue)]).is_err());
        let e = Graph::from_edges(
            3,
            vec![Edge::new(0, 1, Colour::Blue), Edge::new(2, 2, Colour::Red)],
        )
        .unwrap_err();
        assert!(e.contains("vertex 2"), "{e}");
        assert!(Graph::from_edges(2, vec![Edge::new(1, 0, Colour::Blue)]).is_ok());
    }

    #[test]
    fn cutting() {
        let x = g("lr(l;r)");
        let all = x.full();
        assert_eq!(x.cut(&all, 1), EdgeSet::from_ids(4, [0]));
        assert_eq!(x.cut(&all, 0), x.no_edges());
        assert_eq!(x.cut(&all, 3), EdgeSet::from_ids(4, [0, 1, 2]));
        // A cycle survives one cut.
        let t = g(":Alll:A");
        assert_eq!(t.cut(&t.full(), 1), EdgeSet::from_ids(3, [0, 2]));
        let after = t.cut(&t.full(), 1);
        assert_eq!(t.cut(&after, 0), EdgeSet::from_ids(3, [2]));
        // A loop at the top falls with the edge under it.
        let lp = g("l:Al:A");
        assert_eq!(lp.cut(&lp.full(), 0), lp.no_edges());
        assert_eq!(lp.cut(&lp.full(), 1), EdgeSet::from_ids(2, [0]));
        // Parallel edges.
        let par = g(":Arl:A");
        assert_eq!(par.cut(&par.full(), 0), EdgeSet::from_ids(2, [1]));
    }

    #[test]
    fn cut_on_big_graphs() {
        // 300 edges: the heap path of both the set and the scratch.
        let s: String = "l".repeat(300);
        let x = g(&s);
        let after = x.cut(&x.full(), 150);
        assert_eq!(after.count(), 150);
        assert!(after.contains(149) && !after.contains(150));
        assert_eq!(x.stalks(&after).unwrap()[0].len(), 150);
    }

    #[test]
    fn components_meet_only_at_the_ground() {
        let x = g(":A(l;e:A;r(l;r);e:Bl:B)");
        let parts = x.components(&x.full());
        let ids: Vec<Vec<usize>> = parts.iter().map(|p| p.iter().collect()).collect();
        assert_eq!(ids, vec![vec![0], vec![1], vec![2, 3, 4], vec![5, 6]]);
        // Ground-to-ground edges through other vertices stay together.
        let y = g(":A(lr:A;e)");
        let ids: Vec<Vec<usize>> = y
            .components(&y.full())
            .iter()
            .map(|p| p.iter().collect())
            .collect();
        assert_eq!(ids, vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn sub_and_sum_and_swap() {
        let x = g("lr(l;r)");
        let s = x.sub(&EdgeSet::from_ids(4, [0, 1, 3]));
        assert_eq!(s, g("lrr"));
        // Dropping the edge under something drops what stood on it.
        assert_eq!(x.sub(&EdgeSet::from_ids(4, [1, 2])), Graph::empty());
        assert_eq!(x.swap_colours(), g("rl(r;l)"));
        let sum = g("lr").sum(&g(":Ae:A"));
        assert_eq!(sum.to_cgsuite(), ":A(lr;e:A)");
        assert_eq!(Graph::empty().sum(&x), x);
        assert_eq!(x.sum(&Graph::empty()), x);
    }

    #[test]
    fn shapes() {
        assert!(g("lrl").is_stalk(&g("lrl").full()));
        assert!(!g("(l;r)").is_stalk(&g("(l;r)").full()));
        assert_eq!(
            g("(lr;e;rrl)").stalks(&g("(lr;e;rrl)").full()).unwrap(),
            vec![
                vec![Colour::Blue, Colour::Red],
                vec![Colour::Green],
                vec![Colour::Red, Colour::Red, Colour::Blue]
            ]
        );
        assert!(g("l(l;r)").stalks(&g("l(l;r)").full()).is_none());
        assert!(g("l(l;r)").is_tree(&g("l(l;r)").full()));
        for s in [":Ae:A", ":Arl:A", "l:Al:A", ":Alll:A"] {
            assert!(!g(s).is_tree(&g(s).full()), "{s}");
        }
        // After a cut the rest of a cycle is a tree.
        let t = g(":Alll:A");
        assert!(t.is_tree(&t.cut(&t.full(), 1)));
    }

    #[test]
    fn bridges_ignore_loops_and_parallels() {
        let x = g(":Ae(e:A;ee(e;e:B;e:B))");
        // edges: 0 ground-1, 1 1-ground, 2 1-2, 3 2-3, 4 3-4, 5 3-5, 6 3-5
        let b: Vec<usize> = x.bridges(&x.full()).iter().collect();
        assert_eq!(b, vec![2, 3, 4]);
        let lp = g("e:Ae:A");
        assert_eq!(lp.bridges(&lp.full()).iter().collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn edge_sets() {
        let mut s = EdgeSet::empty(10);
        assert!(s.is_empty());
        assert!(s.insert(3));
        assert!(!s.insert(3));
        assert!(s.insert(200));
        assert!(s.contains(200) && s.contains(3) && !s.contains(4));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 200]);
        assert_eq!(s.count(), 2);
        assert!(s.remove(200));
        // Equal to a small set with the same members despite the wider storage.
        let t = EdgeSet::from_ids(10, [3]);
        assert_eq!(s, t);
        let hash = |x: &EdgeSet| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&s), hash(&t));
        assert_eq!(s.cmp(&t), Ordering::Equal);
        assert_eq!(EdgeSet::full(130).count(), 130);
        assert_eq!(EdgeSet::full(128).count(), 128);
        assert_eq!(EdgeSet::full(64).iter().last(), Some(63));
        let a = EdgeSet::from_ids(300, [1, 299]);
        let b = EdgeSet::from_ids(5, [1, 2]);
        assert_eq!(a.union(&b).iter().collect::<Vec<_>>(), vec![1, 2, 299]);
        assert_eq!(a.intersection(&b).iter().collect::<Vec<_>>(), vec![1]);
        assert!(EdgeSet::from_ids(5, [1]).is_subset(&a));
        assert!(!b.is_subset(&a));
        assert_eq!(format!("{:?}", b), "{1, 2}");
    }

    /// A random connected graph, edges in random order and orientation: vertex `v > 0` hangs
    /// from an earlier vertex, then extra edges (loops and parallels included), shuffled.
    fn arb_graph(max_edges: usize) -> impl Strategy<Value = Graph> {
        (1usize..=max_edges, any::<u64>()).prop_map(|(n, seed)| {
            let mut state = seed | 1;
            let mut next = move |m: usize| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % m as u64) as usize
            };
            let tree = 1 + next(n);
            let mut edges = Vec::new();
            for v in 1..=tree {
                edges.push((next(v) as u32, v as u32));
            }
            let vertices = tree as u32 + 1;
            while edges.len() < n {
                edges.push((next(tree + 1) as u32, next(tree + 1) as u32));
            }
            for i in (1..edges.len()).rev() {
                edges.swap(i, next(i + 1));
            }
            let edges = edges
                .into_iter()
                .map(|(a, b)| {
                    let colour = Colour::ALL[next(3)];
                    if next(2) == 0 {
                        Edge::new(a, b, colour)
                    } else {
                        Edge::new(b, a, colour)
                    }
                })
                .collect();
            Graph::from_edges(vertices, edges).unwrap()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 500,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn writing_round_trips(x in arb_graph(40)) {
            let w = x.to_cgsuite();
            let y = Graph::parse(&w).unwrap();
            prop_assert_eq!(&y, &x.normal_form());
            let order = x.writer_order();
            prop_assert!(y.equivalent(&x.reordered(&order).unwrap()), "{} {:?}", w, x);
            if x.writable_in_order() {
                prop_assert_eq!(order, (0..x.edge_count()).collect::<Vec<_>>());
                prop_assert!(y.equivalent(&x));
            }
            prop_assert!(y.writable_in_order());
            prop_assert_eq!(y.to_cgsuite(), w.clone());
            prop_assert_eq!(y.normal_form(), y.clone());
            // Written in the parser's numbering, the graph is its own normal form.
            let reparsed = Graph::parse(&y.to_cgsuite()).unwrap();
            prop_assert_eq!(reparsed, y);
        }

        #[test]
        fn parsing_never_panics(s in "[lre();:.{}AB x-]{0,30}") {
            match Graph::parse(&s) {
                Ok(x) => {
                    // A parsed graph's edge order is always writable.
                    prop_assert!(x.writable_in_order(), "{}", s);
                    prop_assert!(x.normal_form().equivalent(&x));
                    prop_assert_eq!(Graph::parse(&x.to_cgsuite()).unwrap(), x.normal_form());
                }
                Err(e) => prop_assert!(e.position <= s.chars().count(), "{}: {}", s, e),
            }
        }

        #[test]
        fn cut_matches_a_slow_search(x in arb_graph(30), which in any::<usize>()) {
            let mut alive = x.full();
            let mut k = which;
            while !alive.is_empty() {
                let ids: Vec<usize> = alive.iter().collect();
                let e = ids[k % ids.len()];
                k = k / 3 + 7;
                let next = x.cut(&alive, e);
                // Slow: keep the alive edges (minus e) with an end reachable from the ground.
                let mut reach = vec![false; x.vertex_count()];
                reach[0] = true;
                let mut changed = true;
                while changed {
                    changed = false;
                    for i in alive.iter().filter(|&i| i != e) {
                        let f = x.edges()[i];
                        if reach[f.a as usize] != reach[f.b as usize] {
                            reach[f.a as usize] = true;
                            reach[f.b as usize] = true;
                            changed = true;
                        }
                    }
                }
                let slow = EdgeSet::from_ids(
                    x.edge_count(),
                    alive.iter().filter(|&i| i != e && reach[x.edges()[i].a as usize]),
                );
                prop_assert_eq!(&next, &slow);
                // The parts partition the position.
                let parts = x.components(&next);
                let total: usize = parts.iter().map(|p| p.count()).sum();
                prop_assert_eq!(total, next.count());
                let mut union = x.no_edges();
                for p in &parts {
                    union = union.union(p);
                }
                prop_assert_eq!(&union, &next);
                // Sub keeps the structure.
                let s = x.sub(&next);
                prop_assert_eq!(s.edge_count(), next.count());
                alive = next;
            }
        }

        #[test]
        fn bridges_match_the_definition(x in arb_graph(25)) {
            let all = x.full();
            let b = x.bridges(&all);
            for i in 0..x.edge_count() {
                // A bridge is an edge whose cut leaves some vertex unreachable.
                let mut touched = vec![false; x.vertex_count()];
                touched[0] = true;
                for j in x.cut(&all, i).iter() {
                    touched[x.edges()[j].a as usize] = true;
                    touched[x.edges()[j].b as usize] = true;
                }
                prop_assert_eq!(b.contains(i), touched.contains(&false), "edge {} of {:?}", i, x);
            }
        }
    }
}
