//! Exact values of special Hackenbush positions by the classical theorems, without searching
//! the game tree. Each function returns `None` when its theorem does not apply.
//!
//! * **Blue-red stalks** ([`blue_red_stalk`]): Berlekamp's sign-expansion rule (Berlekamp,
//!   Conway & Guy, *Winning Ways*, ch. 2). Reading from the ground up, the first run of `k`
//!   edges of the bottom colour is worth `±k`; after the first change of colour the `j`-th edge
//!   is worth `±1/2^j` (blue `+`, red `−`). So `lrlrrllr` is
//!   `1 − 1/2 + 1/4 − 1/8 − 1/16 + 1/32 + 1/64 − 1/128 = 77/128`.
//! * **Blue-red trees** ([`blue_red_tree`]; *Winning Ways* ch. 2): the branches at a vertex add
//!   up; an edge under a part worth `x` turns it into `(x + n) / 2^(n−1)` for a blue edge, `n`
//!   the least positive integer with `x + n > 1`, and into `−(blue edge over −x)` for a red
//!   one. On a stalk this agrees with the sign-expansion rule.
//! * **Green trees** ([`green_tree`]): the colon principle (*Winning Ways* ch. 7; Ferguson,
//!   *Game Theory*, Part I §6): a vertex is worth the nim-sum (XOR) of its branches, and an edge
//!   under a part worth `*v` is worth `*(v + 1)`. A green stalk of `n` edges is `*n`.
//! * **Green graphs** ([`green_graph`]): the fusion principle (same sources): the vertices of a
//!   cycle may be fused into one without changing the value, its edges becoming loops, and a
//!   loop is worth `*1` (a stalk of one edge). Fusing every 2-edge-connected component (the
//!   parts left when the bridges are removed) leaves a tree of bridges with loops hanging at its
//!   vertices, solved by the colon principle.
//!
//! Numbers are exact [`Dyadic`]s of any size (a stalk of `n` edges needs `n − 1` binary
//! places); nimbers are `u64`s (a green position of `n` edges is at most `*n`).

use super::graph::{Colour, EdgeSet, Graph};
use crate::truth::cgt::Dyadic;

use num_bigint::BigInt;

/// The value of a blue-red stalk, colours listed from the ground up (`None` if one is green).
/// The empty stalk is 0.
pub fn blue_red_stalk(colours: &[Colour]) -> Option<Dyadic> {
    let sign = |c: Colour| -> Option<i64> {
        match c {
            Colour::Blue => Some(1),
            Colour::Red => Some(-1),
            Colour::Green => None,
        }
    };
    let Some(&bottom) = colours.first() else {
        return Some(Dyadic::zero());
    };
    let s0 = sign(bottom)?;
    let run = colours.iter().take_while(|&&c| c == bottom).count();
    let rest = &colours[run..];
    // value = s0 * run + sum_j s_j / 2^j  =  (s0 * run * 2^m + sum_j s_j * 2^(m - j)) / 2^m
    let m = rest.len();
    let mut num = BigInt::from(s0 * run as i64) << m;
    for (j, &c) in rest.iter().enumerate() {
        let s = sign(c)?;
        num += BigInt::from(s) << (m - j - 1);
    }
    Some(Dyadic::from_big(num, m as u32))
}

/// The value under a blue edge of a part worth `x`: `(x + n) / 2^(n−1)`, `n` the least positive
/// integer with `x + n > 1`.
pub fn blue_edge_over(x: &Dyadic) -> Option<Dyadic> {
    let one = Dyadic::int(1);
    // n = max(1, floor(1 - x) + 1)
    let n = ((&one - x).floor().to_i64()? + 1).max(1);
    let y = x + &Dyadic::int(n);
    let shift = u32::try_from(n - 1).ok()?;
    Some(Dyadic::from_big(
        y.numerator(),
        y.exponent().checked_add(shift)?,
    ))
}

/// The value under a red edge of a part worth `x`: `−(blue edge over −x)`.
pub fn red_edge_over(x: &Dyadic) -> Option<Dyadic> {
    blue_edge_over(&-x).map(|v| -v)
}

/// The value of a blue-red forest (the alive edges connected to the ground, which must have no
/// green edge and no cycle or loop), by the tree rule of the module docs.
pub fn blue_red_tree(g: &Graph, alive: &EdgeSet) -> Option<Dyadic> {
    let tree = g.rooted_tree(alive)?;
    if tree
        .iter()
        .any(|&(_, _, e)| g.edge(e).colour == Colour::Green)
    {
        return None;
    }
    let mut value = vec![Dyadic::zero(); g.vertex_count()];
    for &(v, parent, e) in tree.iter().rev() {
        let x = std::mem::replace(&mut value[v as usize], Dyadic::zero());
        let under = match g.edge(e).colour {
            Colour::Blue => blue_edge_over(&x)?,
            _ => red_edge_over(&x)?,
        };
        value[parent as usize] = &value[parent as usize] + &under;
    }
    Some(value.swap_remove(0))
}

/// The nimber of a green forest (the alive edges connected to the ground, all green, no cycle
/// or loop) by the colon principle.
pub fn green_tree(g: &Graph, alive: &EdgeSet) -> Option<u64> {
    let tree = g.rooted_tree(alive)?;
    if tree
        .iter()
        .any(|&(_, _, e)| g.edge(e).colour != Colour::Green)
    {
        return None;
    }
    let mut value = vec![0u64; g.vertex_count()];
    for &(v, parent, _) in tree.iter().rev() {
        value[parent as usize] ^= value[v as usize] + 1;
    }
    Some(value[0])
}

/// The nimber of any all-green position (the alive edges connected to the ground; cycles,
/// loops and parallel edges allowed) by the fusion principle. Linear time: one depth-first
/// search finds the bridges and adds up the fused tree on the way back.
pub fn green_graph(g: &Graph, alive: &EdgeSet) -> Option<u64> {
    let reach = g.reachable(alive);
    if !g.all_colour(&reach, Colour::Green) {
        return None;
    }
    // acc[v]: the nim-sum of what hangs in v's part of the depth-first tree: loops (non-bridge
    // edges, *1 each) and whole bridged subtrees (*(value + 1)). A 2-edge-connected component
    // is a connected piece of the depth-first tree, so merging children into parents collects
    // each component's total at its top vertex.
    let mut acc = vec![0u64; g.vertex_count()];
    let mut back = Vec::new();
    let mut done = Vec::new();
    g.tarjan(
        &reach,
        |u, _, _| back.push(u),
        |child, parent, _, bridge| done.push((child, parent, bridge)),
    );
    for u in back {
        acc[u as usize] ^= 1;
    }
    for (child, parent, bridge) in done {
        let c = acc[child as usize];
        acc[parent as usize] ^= if bridge { c + 1 } else { c ^ 1 };
    }
    Some(acc[0])
}

/// The value of a whole blue-red stalk position given as a graph (the sum of its stalks), or
/// `None` if it is not blue-red stalks.
pub fn blue_red_stalks(g: &Graph, alive: &EdgeSet) -> Option<Dyadic> {
    let stalks = g.stalks(alive)?;
    let mut total = Dyadic::zero();
    for s in stalks {
        total = &total + &blue_red_stalk(&s)?;
    }
    Some(total)
}

/// The blue-red stalk worth `x` with the fewest edges, from the ground up (the sign expansion
/// of `x`; Winning Ways ch. 2).
pub fn stalk_for(x: &Dyadic) -> Vec<Colour> {
    if x.signum() < 0 {
        return stalk_for(&-x).into_iter().map(Colour::swapped).collect();
    }
    let whole = x.floor();
    let mut out = Vec::new();
    let count = whole.to_i64().unwrap_or(0).max(0) as usize;
    if x.is_integer() {
        out.resize(count, Colour::Blue);
        return out;
    }
    // floor + 1 blue edges overshoot; then halve the step towards x.
    out.resize(count + 1, Colour::Blue);
    let mut value = &whole + &Dyadic::int(1);
    let mut step = Dyadic::int(1).half();
    while &value != x {
        if &value > x {
            out.push(Colour::Red);
            value = &value - &step;
        } else {
            out.push(Colour::Blue);
            value = &value + &step;
        }
        step = step.half();
    }
    out
}

/// Test-only exhaustive evaluators: the game tree searched directly, memoised on positions.
#[cfg(test)]
pub(crate) mod brute {
    use super::*;
    use rustc_hash::FxHashMap;

    /// The Grundy value of an impartial (all-green) position: the mex of its options'.
    pub fn grundy(g: &Graph, alive: &EdgeSet, memo: &mut FxHashMap<EdgeSet, u64>) -> u64 {
        if let Some(&v) = memo.get(alive) {
            return v;
        }
        let mut seen = Vec::new();
        for e in alive.iter() {
            seen.push(grundy(g, &g.cut(alive, e), memo));
        }
        seen.sort_unstable();
        let mut mex = 0;
        for v in seen {
            if v == mex {
                mex += 1;
            } else if v > mex {
                break;
            }
        }
        memo.insert(alive.clone(), mex);
        mex
    }

    /// Whether the player to move (Left if `left`) wins.
    pub fn wins(
        g: &Graph,
        alive: &EdgeSet,
        left: bool,
        memo: &mut FxHashMap<(EdgeSet, bool), bool>,
    ) -> bool {
        if let Some(&w) = memo.get(&(alive.clone(), left)) {
            return w;
        }
        let w = !winning_moves_inner(g, alive, left, memo, true).is_empty();
        memo.insert((alive.clone(), left), w);
        w
    }

    fn winning_moves_inner(
        g: &Graph,
        alive: &EdgeSet,
        left: bool,
        memo: &mut FxHashMap<(EdgeSet, bool), bool>,
        first_only: bool,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        for e in alive.iter() {
            if !g.edge(e).colour.cuttable_by(left) {
                continue;
            }
            if !wins(g, &g.cut(alive, e), !left, memo) {
                out.push(e);
                if first_only {
                    break;
                }
            }
        }
        out
    }

    /// The edges whose cut wins for the player to move.
    pub fn winning_moves(g: &Graph, alive: &EdgeSet, left: bool) -> Vec<usize> {
        let mut memo = FxHashMap::default();
        winning_moves_inner(g, alive, left, &mut memo, false)
    }

    /// (Left moving first wins, Right moving first wins).
    pub fn outcome(g: &Graph) -> (bool, bool) {
        let mut memo = FxHashMap::default();
        let all = g.full();
        (
            wins(g, &all, true, &mut memo),
            wins(g, &all, false, &mut memo),
        )
    }

    /// Whether the position equals the number `x`: `g − x` is a second-player win.
    pub fn equals(g: &Graph, x: &Dyadic) -> bool {
        let stalk: String = stalk_for(&-x).iter().map(|c| c.letter()).collect();
        let minus_x = Graph::parse(&stalk).unwrap_or_else(|_| Graph::empty());
        outcome(&g.sum(&minus_x)) == (false, false)
    }

    /// The value of a blue-red position (always a number) found by search among the numbers
    /// with denominator up to 2^`places` and size up to `bound`.
    pub fn blue_red_value(g: &Graph, bound: i64, places: u32) -> Option<Dyadic> {
        let scale = 1i64 << places;
        (-bound * scale..=bound * scale)
            .map(|m| Dyadic::new(m, places))
            .find(|x| equals(g, x))
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::Edge;
    use super::brute;
    use super::*;
    use proptest::prelude::*;
    use rustc_hash::FxHashMap;

    fn g(s: &str) -> Graph {
        Graph::parse(s).unwrap()
    }

    fn d(s: &str) -> Dyadic {
        s.parse().unwrap()
    }

    fn colours(s: &str) -> Vec<Colour> {
        s.chars().filter_map(Colour::from_letter).collect()
    }

    #[test]
    fn stalk_vectors() {
        let cases = [
            ("", "0"),
            ("l", "1"),
            ("r", "-1"),
            ("lr", "1/2"),
            ("rl", "-1/2"),
            ("lrr", "1/4"),
            ("llr", "3/2"),
            ("lrl", "3/4"),
            ("lll", "3"),
            ("lllrr", "9/4"),
            ("rrl", "-3/2"),
            ("rlr", "-3/4"),
            ("lrll", "7/8"),
            ("lrrr", "1/8"),
            ("lrlrr", "9/16"),
            ("lrlrrllr", "77/128"),
        ];
        for (s, v) in cases {
            assert_eq!(blue_red_stalk(&colours(s)), Some(d(v)), "{s}");
            let x = g(s);
            assert_eq!(blue_red_tree(&x, &x.full()), Some(d(v)), "{s}");
            assert_eq!(blue_red_stalks(&x, &x.full()), Some(d(v)), "{s}");
            assert_eq!(stalk_for(&d(v)), colours(s), "{v}");
        }
        assert_eq!(blue_red_stalk(&colours("le")), None);
        assert_eq!(blue_red_stalk(&colours("el")), None);
    }

    #[test]
    fn long_stalks_are_exact() {
        // l then 199 r: 1 - (1/2 + ... + 1/2^199) = 1/2^199.
        let mut s = vec![Colour::Blue];
        s.extend(std::iter::repeat_n(Colour::Red, 199));
        let v = blue_red_stalk(&s).unwrap();
        assert_eq!(v, Dyadic::new(1, 199));
        assert_eq!(stalk_for(&v), s);
        let x = g(&s.iter().map(|c| c.letter()).collect::<String>());
        assert_eq!(blue_red_tree(&x, &x.full()), Some(v));
        // Alternating: every sign expansion digit matters.
        let alt: Vec<Colour> = (0..200)
            .map(|i| {
                if i % 2 == 0 {
                    Colour::Blue
                } else {
                    Colour::Red
                }
            })
            .collect();
        let v = blue_red_stalk(&alt).unwrap();
        assert_eq!(v.exponent(), 199);
        assert_eq!(stalk_for(&v), alt);
    }

    #[test]
    fn tree_vectors() {
        let cases = [
            ("l(l;rl)", "3/2"),
            ("l(r;r)", "1/4"),
            ("r(l;l)", "-1/4"),
            ("lr(l;r)", "1/2"),
            ("(l;r)", "0"),
            ("(l;l;r)", "1"),
            ("(lr;r)", "-1/2"),
            ("(lr;rl)", "0"),
        ];
        for (s, v) in cases {
            let x = g(s);
            assert_eq!(blue_red_tree(&x, &x.full()), Some(d(v)), "{s}");
            assert!(brute::equals(&x, &d(v)), "{s}");
        }
        for s in [":Alrl:A", "l:Al:A", ":Arl:A", "le", "(l;e)"] {
            let x = g(s);
            assert_eq!(blue_red_tree(&x, &x.full()), None, "{s}");
        }
        // A forest after a cut of a cycle: two blue edges on the ground.
        let t = g(":Alrl:A");
        assert_eq!(blue_red_tree(&t, &t.cut(&t.full(), 1)), Some(d("2")));
    }

    #[test]
    fn green_vectors() {
        let trees = [
            ("e", 1),
            ("eee", 3),
            ("(e;e)", 0),
            ("(ee;eee)", 1),
            ("(e;ee;eee)", 0),
            ("(e;eee)", 2),
            ("e(e;e)", 1),
            ("e(e;e;e)", 2),
            ("ee(e;e)", 2),
            ("e(ee;e)", 4),
            ("ee(e;e;e)", 3),
            ("e(ee;eee)", 2),
            ("eee(e;ee)", 6),
            ("e(ee(e;e);e(eee;ee);e(ee;e))", 5),
        ];
        for (s, v) in trees {
            let x = g(s);
            assert_eq!(green_tree(&x, &x.full()), Some(v), "{s}");
            assert_eq!(green_graph(&x, &x.full()), Some(v), "{s}");
            let mut memo = FxHashMap::default();
            assert_eq!(brute::grundy(&x, &x.full(), &mut memo), v, "{s}");
        }
        let graphs = [
            (":Ae:A", 1),
            (":Aee:A", 0),
            (":Aeee:A", 1),
            (":Aeeee:A", 0),
            (":Aeeeee:A", 1),
            ("ee:Aeeee:A", 2),
            ("ee:Aeee:A", 3),
            ("ee:Aee:A", 2),
            ("e:A(e;e:A)", 1),
            ("e(ee:{waist};ee:{waist}e(ee;e(e:{head};e:{head}e)))", 2),
        ];
        for (s, v) in graphs {
            let x = g(s);
            assert_eq!(green_graph(&x, &x.full()), Some(v), "{s}");
            assert_eq!(green_tree(&x, &x.full()), None, "{s}");
            let mut memo = FxHashMap::default();
            assert_eq!(brute::grundy(&x, &x.full(), &mut memo), v, "{s}");
        }
        assert_eq!(green_graph(&g("el"), &g("el").full()), None);
        assert_eq!(green_tree(&g("(e;r)"), &g("(e;r)").full()), None);
        assert_eq!(
            green_graph(&Graph::empty(), &Graph::empty().full()),
            Some(0)
        );
    }

    #[test]
    fn big_green_graph() {
        // 10,000 edges: a long path (deep search) plus random chords, loops and parallels.
        let n = 10_000u32;
        let path = 7_000u32;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |m: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as u32
        };
        let mut edges: Vec<Edge> = (0..path)
            .map(|i| Edge::new(i, i + 1, Colour::Green))
            .collect();
        while edges.len() < n as usize {
            let a = next(path + 1);
            let b = if next(4) == 0 { a } else { next(path + 1) };
            edges.push(Edge::new(a, b, Colour::Green));
        }
        let x = Graph::from_edges(path + 1, edges).unwrap();
        let start = std::time::Instant::now();
        let v = green_graph(&x, &x.full()).unwrap();
        let elapsed = start.elapsed();
        println!("10,000-edge green graph: *{v} in {elapsed:?}");
        // A stalk of 10,000 green edges is *10000.
        let stalk = g(&"e".repeat(10_000));
        assert_eq!(green_graph(&stalk, &stalk.full()), Some(10_000));
        assert_eq!(green_tree(&stalk, &stalk.full()), Some(10_000));
        // A cycle of 10,001 edges through the ground: one component, odd: *1.
        let cycle = g(&format!(":A{}:A", "e".repeat(10_001)));
        assert_eq!(green_graph(&cycle, &cycle.full()), Some(1));
    }

    /// A random connected graph of the given colours: a random tree plus extra edges.
    fn arb_graph(
        max_edges: usize,
        palette: &'static [Colour],
        cycles: bool,
    ) -> impl Strategy<Value = Graph> {
        (1usize..=max_edges, any::<u64>()).prop_map(move |(n, seed)| {
            let mut state = seed | 1;
            let mut next = move |m: usize| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % m as u64) as usize
            };
            let tree = if cycles { 1 + next(n) } else { n };
            let mut edges = Vec::new();
            for v in 1..=tree {
                edges.push((next(v) as u32, v as u32));
            }
            while edges.len() < n {
                edges.push((next(tree + 1) as u32, next(tree + 1) as u32));
            }
            let edges = edges
                .into_iter()
                .map(|(a, b)| Edge::new(a, b, palette[next(palette.len())]))
                .collect();
            Graph::from_edges(tree as u32 + 1, edges).unwrap()
        })
    }

    const GREEN: &[Colour] = &[Colour::Green];
    const BLUE_RED: &[Colour] = &[Colour::Blue, Colour::Red];

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn green_graphs_match_brute_force(x in arb_graph(12, GREEN, true)) {
            let mut memo = FxHashMap::default();
            let all = x.full();
            prop_assert_eq!(green_graph(&x, &all), Some(brute::grundy(&x, &all, &mut memo)), "{}", x);
            // And every position met on the way.
            for (pos, v) in memo.iter().take(50) {
                prop_assert_eq!(green_graph(&x, pos), Some(*v));
            }
        }

        #[test]
        fn green_trees_match_brute_force(x in arb_graph(12, GREEN, false)) {
            let mut memo = FxHashMap::default();
            let all = x.full();
            let v = brute::grundy(&x, &all, &mut memo);
            prop_assert_eq!(green_tree(&x, &all), Some(v), "{}", x);
            prop_assert_eq!(green_graph(&x, &all), Some(v));
        }

        #[test]
        fn blue_red_trees_match_brute_force(x in arb_graph(8, BLUE_RED, false)) {
            let all = x.full();
            let v = blue_red_tree(&x, &all).unwrap();
            // The sign decides who wins ...
            let (left_first, right_first) = brute::outcome(&x);
            match v.signum() {
                1 => prop_assert_eq!((left_first, right_first), (true, false), "{} = {}", x, v),
                -1 => prop_assert_eq!((left_first, right_first), (false, true), "{} = {}", x, v),
                _ => prop_assert_eq!((left_first, right_first), (false, false), "{} = {}", x, v),
            }
            // ... and the position minus its value is a second-player win: they are equal.
            prop_assert!(brute::equals(&x, &v), "{} = {}", x, v);
        }

        #[test]
        fn tree_rule_agrees_with_stalk_rule(s in proptest::collection::vec(0usize..2, 0..60)) {
            let colours: Vec<Colour> = s.iter().map(|&i| BLUE_RED[i]).collect();
            let text: String = colours.iter().map(|c| c.letter()).collect();
            let x = Graph::parse(&text).unwrap();
            let v = blue_red_stalk(&colours).unwrap();
            prop_assert_eq!(blue_red_tree(&x, &x.full()), Some(v.clone()));
            prop_assert_eq!(stalk_for(&v).len() <= colours.len(), true);
            prop_assert_eq!(blue_red_stalk(&stalk_for(&v)), Some(v));
        }

        #[test]
        fn small_stalks_match_brute_force(s in proptest::collection::vec(0usize..2, 0..9)) {
            let text: String = s.iter().map(|&i| BLUE_RED[i].letter()).collect();
            let x = Graph::parse(&text).unwrap();
            let colours: Vec<Colour> = s.iter().map(|&i| BLUE_RED[i]).collect();
            let v = blue_red_stalk(&colours).unwrap();
            prop_assert!(brute::equals(&x, &v), "{} = {}", text, v);
        }
    }
}
