use super::*;

fn game(position: String) -> Result<Hackenbush, InvalidParams> {
    Hackenbush::new(HackenbushParams {
        position,
        ..HackenbushParams::default()
    })
}

/// A graph string is refused past [`MAX_EDGES`] before it is read, and without echoing it.
#[test]
fn positions_have_at_most_max_edges() {
    assert!(game("l".repeat(MAX_EDGES)).is_ok());
    let e = game("l".repeat(MAX_EDGES + 1)).unwrap_err().to_string();
    assert!(e.contains("at most 16384 edges"), "{e}");
    assert!(e.len() < 300, "{e}");
    let e = game("x".repeat(100_000)).unwrap_err().to_string();
    assert!(e.contains("100,000 characters") && e.len() < 400, "{e}");
}

/// A position's text reads back to it in its game (small positions: the game looks it up
/// among what cuts leave), and in the game made from the text (any position): the text
/// is then the game's own position, written back the same.
#[test]
fn positions_round_trip_as_graph_strings() {
    for text in [
        "lrl",
        "e(ee;e)",
        ":Alrl:A",
        "l:Al:A",
        "(l;l;r)",
        "stick-figure",
    ] {
        let g = game(text.into()).unwrap();
        let n = crate::core::notation::check_round_trips(&g, 30, 100, 3, false).unwrap();
        assert!(n > 30, "{text}: {n}");
    }
    let mut rng = crate::core::random::rng(5);
    let mut legal = Vec::new();
    for _ in 0..20 {
        let g = Hackenbush::on(positions::random(
            Family::Graphs,
            Palette::All,
            40,
            &mut rng,
        ));
        let mut s = g.initial_state();
        while g.turn(&s) != Turn::Terminal {
            let text = g.write_cut(&s);
            let params = cut_params(&text);
            let h = Hackenbush::new(HackenbushParams {
                position: params["position"].as_str().unwrap().to_string(),
                first: params["first"].as_str().unwrap().to_string(),
                ..HackenbushParams::default()
            })
            .unwrap();
            let back = h.read_cut(&text).unwrap();
            assert_eq!(back.alive, h.graph().full(), "{text}");
            assert_eq!(h.write_cut(&back), text);
            assert_eq!(h.turn(&back), g.turn(&s), "{text}");
            g.legal_actions(&s, &mut legal);
            s = g.apply(&s, legal[legal.len() / 2]);
        }
    }
    let g = game("lrl".into()).unwrap();
    assert_eq!(g.write_cut(&g.initial_state()), "lrl left");
    let bare = HackenbushState {
        alive: g.graph().no_edges(),
        to_move: 1,
        board: 0,
    };
    assert_eq!(g.write_cut(&bare), ". right");
    assert_eq!(g.read_cut(". right"), Ok(bare));
    assert_eq!(g.read_cut("l r l  RED").unwrap().to_move, 1);
    assert!(
        g.read_cut("lrq")
            .unwrap_err()
            .contains("CGSuite graph string")
    );
    let e = g.read_cut("rrr").unwrap_err();
    assert!(e.contains("not this game's position `lrl`"), "{e}");
}

/// A state key names its state exactly where the notation cannot: mirror-image cuts of one
/// graph, and a graph standing on two dealt boards; hostile keys are refused with the reason.
#[test]
fn state_keys_name_states_exactly() {
    for family in ["stalks", "trees", "graphs"] {
        let deal = Hackenbush::new(HackenbushParams {
            random: 6,
            edges: 5,
            family: family.into(),
            ..HackenbushParams::default()
        })
        .unwrap();
        let n = crate::core::notation::check_round_trips(&deal, 40, 100, 9, false).unwrap();
        assert!(n > 100, "{family}: {n}");
    }
    // Mirror images: cutting either arm of a V leaves the same graph string.
    let g = game("(l;l)".into()).unwrap();
    let s = g.initial_state();
    let (a, b) = (g.apply(&s, 0), g.apply(&s, 1));
    assert_eq!(g.write_cut(&a), g.write_cut(&b));
    let (ka, kb) = (
        g.write_state_key(&a).unwrap(),
        g.write_state_key(&b).unwrap(),
    );
    assert_ne!(ka, kb);
    assert_eq!(g.read_state_key(&ka), Ok(a));
    assert_eq!(g.read_state_key(&kb), Ok(b));
    let g = game("lrl".into()).unwrap();
    assert_eq!(
        g.write_state_key(&g.initial_state()).unwrap(),
        "lrl left @ 0:7:left"
    );
    for (key, says) in [
        ("lrl left", "not a state key"),
        ("lrl left @ 1:7:left", "not one of the game's 1"),
        ("lrl left @ 0:7", "board:edges:mover"),
        ("lrl left @ 0:17:left", "in 1 hexadecimal digits, not 2"),
        ("lrl left @ 0:8:left", "has no edge 3"),
        ("lrl left @ 0:g:left", "not a hexadecimal digit"),
        ("lrl left @ 0:7:up", "the mover `up`"),
        ("lrl left @ 0:6:left", "would have fallen"),
        ("deal", "does not deal"),
    ] {
        let e = g.read_state_key(key).unwrap_err();
        assert!(e.contains(says), "{key}: {e}");
    }
}

/// A deal of 12 random 8-edge blue-red trees, with the keys of `extra` (TOML values) added.
fn deal(extra: &[(&str, &str)]) -> Result<Hackenbush, InvalidParams> {
    let mut text = String::new();
    let base = [
        ("random", "12"),
        ("edges", "8"),
        ("family", "\"trees\""),
        ("palette", "\"blue-red\""),
    ];
    for (k, v) in base
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(e, _)| e == k))
        .chain(extra)
    {
        text.push_str(&format!("{k} = {v}\n"));
    }
    Hackenbush::new(toml::from_str::<HackenbushParams>(&text).expect("the test's keys"))
}

/// The boards a game's start deals, by chance and by the state graph.
fn boards_dealt(g: &Hackenbush) -> Vec<u8> {
    let mut out = Vec::new();
    g.chance_outcomes(&g.initial_state(), &mut out);
    let total: f64 = out.iter().map(|&(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-12);
    out.iter()
        .map(|&(a, _)| g.apply(&g.initial_state(), a).board)
        .collect()
}

/// With `held_out = M` nature deals only the first N − M boards; `deal = "held-out"` only
/// the last M, under their own indices, so no state of one split is a state of the other;
/// the boards themselves are the same as without a split.
#[test]
fn a_held_out_split_deals_disjoint_boards() {
    let all = deal(&[]).unwrap();
    let train = deal(&[("held_out", "4")]).unwrap();
    let held = deal(&[("held_out", "4"), ("deal", "\"held-out\"")]).unwrap();
    assert_eq!(boards_dealt(&all), (0..12).collect::<Vec<u8>>());
    assert_eq!(boards_dealt(&train), (0..8).collect::<Vec<u8>>());
    assert_eq!(boards_dealt(&held), (8..12).collect::<Vec<u8>>());
    assert_eq!(
        deal(&[("held_out", "4"), ("deal", "\"train\"")])
            .unwrap()
            .dealt(),
        0..8
    );
    for (a, b) in all.positions().iter().zip(held.positions()) {
        assert_eq!(a.to_cgsuite(), b.to_cgsuite());
    }
    // Every state reachable in either split stands on a board of that split only.
    for (g, boards) in [(&train, 0..8u8), (&held, 8..12u8)] {
        let graph = crate::core::graph::StateGraph::build(g, 1_000_000).unwrap();
        for id in 0..graph.len() {
            let s = graph.state(id as crate::core::graph::StateId);
            assert!(s.board == DEAL || boards.contains(&s.board), "{s:?}");
        }
    }
    // Training never deals a held-out board, whatever the seed of the environment.
    let mut env = crate::core::env::AecEnv::new(train.clone(), 3);
    for _ in 0..200 {
        env.reset(None);
        let s = env.state();
        assert!(s.board < 8, "{s:?}");
    }
    assert_eq!(train.params()["held_out"], 4);
    assert_eq!(held.params()["deal"], "held-out");
    assert!(all.params().get("held_out").is_none());
    // The state bound counts only the boards dealt.
    assert!(train.state_bound() < all.state_bound());
}

/// Hostile split and observation values are refused, naming the key and what it takes.
#[test]
fn hostile_splits_are_refused_by_key() {
    for (extra, key, says) in [
        (
            vec![("held_out", "12")],
            "held_out",
            "hold out 1 to 11 of the 12",
        ),
        (vec![("held_out", "40")], "held_out", "hold out 1 to 11"),
        (vec![("held_out", "0")], "held_out", "hold out 1 to 11"),
        (
            vec![("random", "1"), ("held_out", "1")],
            "held_out",
            "at least 2",
        ),
        (vec![("deal", "\"held-out\"")], "deal", "add held_out = M"),
        (
            vec![("held_out", "2"), ("deal", "\"test\"")],
            "deal",
            "train (the first",
        ),
        (
            vec![("observation", "\"pixels\"")],
            "observation",
            "edges (a flag per edge id) or summary",
        ),
    ] {
        let e = deal(&extra).unwrap_err();
        assert_eq!(e.key, key, "{extra:?}: {e}");
        assert!(e.to_string().contains(says), "{extra:?}: {e}");
    }
    let e = game_with_held_out().unwrap_err();
    assert_eq!(e.key, "held_out");
}

fn game_with_held_out() -> Result<Hackenbush, InvalidParams> {
    Hackenbush::new(HackenbushParams {
        held_out: Some(1),
        ..HackenbushParams::default()
    })
}

/// The summary observation passes the environment checker, has the same length on every
/// board, stays within its bounds, and is the same for a board and its renumbered copy
/// standing in a game; the edge flags are unchanged when it is not asked for.
#[test]
fn the_summary_observation_is_checked_and_bounded() {
    let g = deal(&[("observation", "\"summary\""), ("held_out", "3")]).unwrap();
    crate::core::check::check_game(&g, &crate::core::check::CheckOptions::default()).unwrap();
    assert_eq!(g.observation_len(), features::SUMMARY_LEN);
    let (mut low, mut high) = (
        vec![0.0; features::SUMMARY_LEN],
        vec![0.0; features::SUMMARY_LEN],
    );
    g.observation_bounds(&mut low, &mut high);
    let graph = crate::core::graph::StateGraph::build(&g, 1_000_000).unwrap();
    let mut x = vec![0.0; features::SUMMARY_LEN];
    for id in 0..graph.len() {
        let s = graph.state(id as crate::core::graph::StateId);
        for p in [LEFT, RIGHT] {
            g.observe(s, p, &mut x);
            assert!(
                x.iter()
                    .zip(&low)
                    .zip(&high)
                    .all(|((v, l), h)| l <= v && v <= h),
                "{s:?}: {x:?}"
            );
        }
    }
    let plain = deal(&[]).unwrap();
    assert_eq!(plain.observation_len(), plain.num_distinct_actions() + 1);
    // Edge order does not reach the summary: `(l;rl)` and `(rl;l)` are one graph.
    let a = Hackenbush::on(Graph::parse("(l;rl)").unwrap()).with_summary(true);
    let b = Hackenbush::on(Graph::parse("(rl;l)").unwrap()).with_summary(true);
    let (mut xa, mut xb) = (
        vec![0.0; features::SUMMARY_LEN],
        vec![0.0; features::SUMMARY_LEN],
    );
    a.observe(&a.initial_state(), LEFT, &mut xa);
    b.observe(&b.initial_state(), LEFT, &mut xb);
    assert_eq!(xa, xb);
    assert_eq!(a.params()["observation"], "summary");
}

/// `solve` says up front that a part is beyond the exact method, naming the position of a
/// random set.
#[test]
fn solve_refuses_parts_beyond_the_exact_method() {
    let options = SolveOptions::default();
    let big = game(format!(":A{}:A", "lre".repeat(17))).unwrap();
    let e = big.solve_output(&options).err().unwrap().to_string();
    assert!(
        e.contains("has 51 edges") && e.contains("at most 32"),
        "{e}"
    );
    assert!(big.solve(&options).is_err());
    let random = Hackenbush::new(HackenbushParams {
        random: 2,
        edges: 40,
        ..HackenbushParams::default()
    })
    .unwrap();
    let e = random.solve_output(&options).err().unwrap().to_string();
    assert!(e.contains("random position 1 of 2"), "{e}");
    let small = game("lrlerrr".into()).unwrap();
    assert!(small.solve_output(&options).is_ok());
}
