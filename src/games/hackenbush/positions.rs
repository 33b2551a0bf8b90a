//! Named Hackenbush positions and a seeded random generator.
//!
//! The named positions follow the figures of Chen, "Hackenbush Game Theory". The paper's
//! images are not available, so each is rebuilt from what its text says; the descriptions say
//! what the paper shows with each, and which ones are reconstructions. Every position is stored
//! as a CGSuite string in the writer's normal form, so its edge ids are the order of the edge
//! letters in that string and `named(n).to_cgsuite()` gives the string back.
//!
//! [`random`] draws stalks, trees or general graphs with a given number of edges and palette,
//! deterministically from the generator's state, and returns them in normal form as well.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, RngExt};

use super::graph::{Colour, Edge, Graph};

/// The named positions: (name, CGSuite string, description).
const POSITIONS: &[(&str, &str, &str)] = &[
    (
        "fig3a",
        "(l;l;l;r;r)",
        "Figure 3a: Left has three blue edges and Right two red ones, each standing alone on the \
         ground. Every move removes one edge of the mover's own, so Left can always make one \
         more move than Right: the value is 1 and Left wins whoever starts.",
    ),
    (
        "fig3b",
        "(l;l;l;r;r;r)",
        "Figure 3b: three blue and three red single edges. Both sides have the same number of \
         moves, so whoever moves first runs out first: the value is 0, a win for the second \
         player.",
    ),
    (
        "fig3c",
        "(lll;rr)",
        "Figure 3c: a blue stalk of three edges beside a red stalk of two. Cutting a blue edge \
         leaves 0 - 2, 1 - 2 or 2 - 2, cutting a red one leaves 3 - 1 or 3 - 0, so the position \
         is {-2, -1, 0 | 2, 3} = 1: one spare move for Left.",
    ),
    (
        "stick-figure",
        ":Al(r:A;l:B(r;r;l:B))",
        "Figure 1's stick figure (colours chosen to fit the text): a blue left leg and a red \
         right leg from the ground to the hip, a blue body up to the neck, two red arms and a \
         blue loop for the head at the neck. As the paper says, if Left opens by cutting the \
         left leg, Right answers by cutting the other leg and the whole figure falls, so Left \
         loses; opening with the head or the body wins for Left. The value is 1/2 (Left wins \
         whoever starts).",
    ),
    (
        "fig4",
        ":A(l(r:A;l:B(r;r;l:B));r(l:A;r:C(l;l;r:C)))",
        "Figure 4: the stick figure beside its mirror image with blue and red exchanged. A \
         position plus its negative is worth 0: the second player wins by copying each move in \
         the other figure (the Tweedledum-Tweedledee strategy).",
    ),
    (
        "fig5a",
        "lr",
        "Figure 5a: a blue edge with a red edge on top. Left's cut leaves nothing (0), Right's \
         leaves one blue edge (1), so the value is {0 | 1} = 1/2: half a move for Left.",
    ),
    (
        "fig5b",
        "(lr;r)",
        "Figure 5b: the half-move stalk beside a single red edge: 1/2 - 1 = -1/2, so Right wins \
         whoever starts.",
    ),
    (
        "fig5c",
        "(lr;lr;r)",
        "Figure 5c: two half-move stalks beside a red edge. Whoever starts loses, so the value \
         is 0: this is how the paper shows that 1/2 + 1/2 = 1.",
    ),
    (
        "fig6a",
        "lrr",
        "Figure 6a: a blue edge under two red ones: {0 | 1/2} = 1/4.",
    ),
    (
        "fig6b",
        "lrrr",
        "Figure 6b: a blue edge under three red ones: {0 | 1/4} = 1/8; each further red edge \
         halves the value.",
    ),
    (
        "fig6-sum",
        "(lrr;lrrr)",
        "Figure 6's sum: the stalks worth 1/4 and 1/8 side by side, worth 1/4 + 1/8 = 3/8.",
    ),
    (
        "fig7a",
        "e",
        "Figure 7a: a single green edge, which either player may cut: {0 | 0} = *1 (star), a \
         win for whoever moves first.",
    ),
    (
        "fig7b",
        "(e;e)",
        "Figure 7b: two single green edges: *1 + *1 = 0, a win for the second player (like two \
         equal Nim heaps).",
    ),
    (
        "green-tree",
        "e(e(e(e;e);eee);ee)",
        "Figures 10 and 12 (reconstructed; the paper's tree is not available): a green tree \
         solved by the colon principle, working down from the top. The two twigs at the top \
         vertex are *1 + *1 = 0, so the edge under them is *1; with the stalk of three beside \
         it that vertex is *1 + *3 = *2 and the edge under it *3; with the stalk of two beside \
         it the next vertex is *3 + *2 = *1, and the trunk makes the whole tree *2.",
    ),
    (
        "fusion",
        ":A(e:Be(e:Cee:B;e(e:C;e));eee:A)",
        "Figure 14 (reconstructed): the fusion principle on a green graph with cycles. A house \
         on a pole (a square of four edges, a triangular roof of two more over its top side, and \
         a one-edge antenna on the roof's peak) beside a triangle touching the ground at one \
         corner. Fusing each cycle's vertices turns its edges into loops worth *1 each: the \
         house's six edges become six loops (0), which with the antenna (*1) makes the house *1 \
         and the pole under it *2; the triangle's three edges become three loops at the ground, \
         *1. The whole graph is *2 + *1 = *3.",
    ),
];

/// The names [`named`] knows.
pub const NAMED: &[&str] = &[
    "fig3a",
    "fig3b",
    "fig3c",
    "stick-figure",
    "fig4",
    "fig5a",
    "fig5b",
    "fig5c",
    "fig6a",
    "fig6b",
    "fig6-sum",
    "fig7a",
    "fig7b",
    "green-tree",
    "fusion",
];

/// A named position: its description and graph.
pub fn named(name: &str) -> Option<(&'static str, Graph)> {
    let &(_, text, description) = POSITIONS.iter().find(|p| p.0 == name)?;
    Graph::parse(text).ok().map(|g| (description, g))
}

/// The CGSuite string of a named position.
pub fn named_string(name: &str) -> Option<&'static str> {
    POSITIONS.iter().find(|p| p.0 == name).map(|p| p.1)
}

/// The shape of a random position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// One to three stalks standing on the ground.
    Stalks,
    /// A random tree: each edge hangs a new vertex from a uniformly chosen earlier vertex (the
    /// ground included).
    Trees,
    /// A random tree plus about a quarter of the edges between uniformly chosen existing
    /// vertices, closing cycles (occasionally a loop or a second edge between two vertices).
    Graphs,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Stalks, Family::Trees, Family::Graphs];
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::Stalks => "stalks",
            Family::Trees => "trees",
            Family::Graphs => "graphs",
        })
    }
}

impl FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Family, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "stalks" | "stalk" => Ok(Family::Stalks),
            "trees" | "tree" => Ok(Family::Trees),
            "graphs" | "graph" => Ok(Family::Graphs),
            _ => Err(format!(
                "unknown family `{s}`: expected stalks, trees or graphs"
            )),
        }
    }
}

/// The colours of a random position's edges, drawn uniformly from the palette.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Palette {
    /// Blue and red: every position is a number.
    BlueRed,
    /// Green only: every position is a nimber.
    Green,
    /// Blue, red and green.
    All,
}

impl Palette {
    pub const ALL: [Palette; 3] = [Palette::BlueRed, Palette::Green, Palette::All];

    /// The colours drawn from.
    pub fn colours(self) -> &'static [Colour] {
        match self {
            Palette::BlueRed => &[Colour::Blue, Colour::Red],
            Palette::Green => &[Colour::Green],
            Palette::All => &[Colour::Blue, Colour::Red, Colour::Green],
        }
    }
}

impl fmt::Display for Palette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Palette::BlueRed => "blue-red",
            Palette::Green => "green",
            Palette::All => "all",
        })
    }
}

impl FromStr for Palette {
    type Err = String;
    fn from_str(s: &str) -> Result<Palette, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "blue-red" | "bluered" | "red-blue" => Ok(Palette::BlueRed),
            "green" => Ok(Palette::Green),
            "all" | "blue-red-green" => Ok(Palette::All),
            _ => Err(format!(
                "unknown palette `{s}`: expected blue-red, green or all"
            )),
        }
    }
}

/// A random position of the family with exactly `edges` edges, all connected to the ground,
/// colours uniform over the palette; the same generator state gives the same position. It is
/// returned in the writer's normal form ([`Graph::normal_form`]): its edge ids are the order of
/// the letters of its CGSuite string.
pub fn random<R: Rng + ?Sized>(
    family: Family,
    palette: Palette,
    edges: usize,
    rng: &mut R,
) -> Graph {
    let colours = palette.colours();
    let mut list: Vec<Edge> = Vec::with_capacity(edges);
    let mut vertices = 1u32;
    let colour = |rng: &mut R| colours[rng.random_range(0..colours.len())];
    match family {
        Family::Stalks if edges > 0 => {
            let stalks = rng.random_range(1..=edges.min(3));
            let mut cuts: Vec<usize> = Vec::with_capacity(stalks + 1);
            while cuts.len() + 1 < stalks {
                let c = rng.random_range(1..edges);
                if !cuts.contains(&c) {
                    cuts.push(c);
                }
            }
            cuts.sort_unstable();
            cuts.insert(0, 0);
            cuts.push(edges);
            for w in cuts.windows(2) {
                let mut below = 0;
                for _ in w[0]..w[1] {
                    list.push(Edge::new(below, vertices, colour(rng)));
                    below = vertices;
                    vertices += 1;
                }
            }
        }
        Family::Stalks => {}
        Family::Trees | Family::Graphs => {
            let extra = if family == Family::Graphs {
                edges / 4
            } else {
                0
            };
            for _ in 0..edges - extra {
                let parent = rng.random_range(0..vertices);
                list.push(Edge::new(parent, vertices, colour(rng)));
                vertices += 1;
            }
            for _ in 0..extra {
                let a = rng.random_range(0..vertices);
                let b = rng.random_range(0..vertices);
                list.push(Edge::new(a, b, colour(rng)));
            }
        }
    }
    // Connected by construction.
    Graph::from_edges(vertices, list)
        .map(|g| g.normal_form())
        .unwrap_or_else(|_| Graph::empty())
}

#[cfg(test)]
mod tests {
    use super::super::shortcuts::{self, brute};
    use super::*;
    use crate::truth::cgt::Dyadic;
    use rand::SeedableRng;
    use rustc_hash::FxHashMap;

    type TestRng = rand::rngs::Xoshiro256PlusPlus;

    fn d(s: &str) -> Dyadic {
        s.parse().unwrap()
    }

    #[test]
    fn names_and_strings_agree() {
        assert_eq!(NAMED.len(), POSITIONS.len());
        for (name, (n, text, description)) in NAMED.iter().zip(POSITIONS) {
            assert_eq!(name, n);
            let (desc, g) = named(name).unwrap();
            assert_eq!(desc, *description);
            // Stored in normal form: writing gives the string back.
            assert_eq!(g.to_cgsuite(), *text, "{name}");
            assert_eq!(named_string(name), Some(*text));
        }
        assert!(named("nope").is_none());
    }

    #[test]
    fn blue_red_values() {
        let numbers = [
            ("fig3a", "1"),
            ("fig3b", "0"),
            ("fig3c", "1"),
            ("fig5a", "1/2"),
            ("fig5b", "-1/2"),
            ("fig5c", "0"),
            ("fig6a", "1/4"),
            ("fig6b", "1/8"),
            ("fig6-sum", "3/8"),
        ];
        for (name, v) in numbers {
            let (_, g) = named(name).unwrap();
            assert_eq!(
                shortcuts::blue_red_tree(&g, &g.full()),
                Some(d(v)),
                "{name}"
            );
            assert!(brute::equals(&g, &d(v)), "{name}");
        }
        // fig3c's options: Left's leave -2, -1, 0; Right's leave 2, 3.
        let (_, g) = named("fig3c").unwrap();
        let all = g.full();
        let mut left: Vec<Dyadic> = Vec::new();
        let mut right: Vec<Dyadic> = Vec::new();
        for e in all.iter() {
            let v = shortcuts::blue_red_tree(&g, &g.cut(&all, e)).unwrap();
            match g.edge(e).colour {
                Colour::Blue => left.push(v),
                _ => right.push(v),
            }
        }
        left.sort();
        right.sort();
        assert_eq!(left, [d("-2"), d("-1"), d("0")]);
        assert_eq!(right, [d("2"), d("3")]);
    }

    #[test]
    fn stick_figure() {
        let (_, g) = named("stick-figure").unwrap();
        // Edges: 0 left leg (blue), 1 right leg (red), 2 body (blue), 3 and 4 arms (red), 5 head
        // (a blue loop at the neck).
        let colours: String = g.edges().iter().map(|e| e.colour.letter()).collect();
        assert_eq!(colours, "lrlrrl");
        assert!(g.edges()[5].is_loop());
        let all = g.full();
        // Left cutting the left leg loses: Right cuts the other leg and everything falls.
        let after = g.cut(&all, 0);
        // (Cutting an arm wins for Right too; the leg ends the game at once.)
        assert_eq!(brute::winning_moves(&g, &after, false), [1, 3, 4]);
        assert!(g.cut(&after, 1).is_empty());
        // Cutting the head or the body wins for Left, and nothing else does.
        assert_eq!(brute::winning_moves(&g, &all, true), [2, 5]);
        // Right moving first loses too: the value is positive, 1/2.
        assert!(brute::winning_moves(&g, &all, false).is_empty());
        assert_eq!(brute::outcome(&g), (true, false));
        assert_eq!(brute::blue_red_value(&g, 3, 4), Some(d("1/2")));
        // Its twin in fig4 cancels it.
        let (_, twin) = named("fig4").unwrap();
        assert_eq!(brute::outcome(&twin), (false, false));
        assert!(twin.equivalent(&g.sum(&g.swap_colours()).normal_form()));
    }

    #[test]
    fn green_values() {
        for (name, v) in [("fig7a", 1), ("fig7b", 0), ("green-tree", 2), ("fusion", 3)] {
            let (_, g) = named(name).unwrap();
            let all = g.full();
            let mut memo = FxHashMap::default();
            assert_eq!(brute::grundy(&g, &all, &mut memo), v, "{name}");
            assert_eq!(shortcuts::green_graph(&g, &all), Some(v), "{name}");
        }
        let (_, tree) = named("green-tree").unwrap();
        assert_eq!(shortcuts::green_tree(&tree, &tree.full()), Some(2));
        // At least three levels of branching.
        let branching = tree
            .rooted_tree(&tree.full())
            .unwrap()
            .iter()
            .fold(vec![0; tree.vertex_count()], |mut kids, &(_, p, _)| {
                kids[p as usize] += 1;
                kids
            })
            .iter()
            .filter(|&&k| k >= 2)
            .count();
        assert!(branching >= 3);
        let (_, fusion) = named("fusion").unwrap();
        assert!(!fusion.is_tree(&fusion.full()));
        assert_eq!(shortcuts::green_tree(&fusion, &fusion.full()), None);
    }

    #[test]
    fn random_positions() {
        for family in Family::ALL {
            for palette in Palette::ALL {
                for edges in [0usize, 1, 2, 3, 5, 12, 40, 200] {
                    let mut rng = TestRng::seed_from_u64(edges as u64 * 31 + 7);
                    let g = random(family, palette, edges, &mut rng);
                    let mut again = TestRng::seed_from_u64(edges as u64 * 31 + 7);
                    assert_eq!(g, random(family, palette, edges, &mut again));
                    assert_eq!(g.edge_count(), edges);
                    assert!(Graph::from_edges(g.vertex_count() as u32, g.edges().to_vec()).is_ok());
                    assert!(
                        g.edges()
                            .iter()
                            .all(|e| palette.colours().contains(&e.colour))
                    );
                    assert_eq!(Graph::parse(&g.to_cgsuite()).unwrap(), g);
                    let all = g.full();
                    match family {
                        Family::Stalks => {
                            let stalks = g.stalks(&all).unwrap();
                            assert!(stalks.len() <= 3 && (edges == 0 || !stalks.is_empty()));
                        }
                        Family::Trees => assert!(g.is_tree(&all)),
                        Family::Graphs => {
                            if edges >= 12 {
                                assert!(!g.is_tree(&all), "{family} {palette} {edges}");
                            }
                        }
                    }
                }
            }
        }
        // Different draws differ.
        let mut rng = TestRng::seed_from_u64(1);
        let a = random(Family::Graphs, Palette::All, 30, &mut rng);
        let b = random(Family::Graphs, Palette::All, 30, &mut rng);
        assert_ne!(a, b);
    }

    #[test]
    fn random_graphs_have_loops_and_parallels_sometimes() {
        let mut rng = TestRng::seed_from_u64(5);
        let (mut loops, mut parallels) = (0, 0);
        for _ in 0..200 {
            let g = random(Family::Graphs, Palette::Green, 8, &mut rng);
            loops += g.edges().iter().filter(|e| e.is_loop()).count();
            let mut pairs: Vec<(u32, u32)> = g
                .edges()
                .iter()
                .map(|e| (e.a.min(e.b), e.a.max(e.b)))
                .collect();
            pairs.sort_unstable();
            parallels += pairs.windows(2).filter(|w| w[0] == w[1]).count();
        }
        assert!(loops > 0 && parallels > 0);
    }

    #[test]
    fn random_positions_agree_with_brute_force() {
        let mut rng = TestRng::seed_from_u64(11);
        for _ in 0..40 {
            let g = random(Family::Graphs, Palette::Green, 10, &mut rng);
            let mut memo = FxHashMap::default();
            assert_eq!(
                shortcuts::green_graph(&g, &g.full()),
                Some(brute::grundy(&g, &g.full(), &mut memo))
            );
            let t = random(Family::Trees, Palette::BlueRed, 7, &mut rng);
            let v = shortcuts::blue_red_tree(&t, &t.full()).unwrap();
            assert!(brute::equals(&t, &v), "{t} = {v}");
        }
    }

    #[test]
    fn parsing_families_and_palettes() {
        for f in Family::ALL {
            assert_eq!(f.to_string().parse::<Family>(), Ok(f));
        }
        for p in Palette::ALL {
            assert_eq!(p.to_string().parse::<Palette>(), Ok(p));
        }
        assert!("forest".parse::<Family>().is_err());
        assert!("purple".parse::<Palette>().is_err());
        assert_eq!("Blue-Red".parse::<Palette>(), Ok(Palette::BlueRed));
    }
}
