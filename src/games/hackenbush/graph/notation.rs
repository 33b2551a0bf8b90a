//! CGSuite's graph-string notation for a [`Graph`]: the parser ([`Graph::parse`], `FromStr`) and
//! the writer ([`Graph::to_cgsuite`], `Display`, and the normal form a written string parses back
//! to).
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

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use super::{Colour, Edge, Graph, GraphParseError, NONE};

impl Graph {
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
