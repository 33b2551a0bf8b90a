//! Tests of the graph and its notation; the bit set is tested in `edge_set.rs`.

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
