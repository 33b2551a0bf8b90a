//! The search against exact truth and against itself: at full depth it plays tic-tac-toe and
//! Hexapawn perfectly (every move it picks keeps the solver's value, at every position);
//! alpha-beta, with or without move ordering, returns plain minimax's value and move; pruning
//! never changes the root value of paranoid search on random Hase und Igel positions
//! (proptest).

use proptest::prelude::*;

use super::*;
use crate::core::graph::StateId;
use crate::games::{HaseUndIgel, HaseUndIgelParams, Hexapawn, HexapawnParams, TicTacToe};
use crate::truth::Solution;
use crate::truth::oracle::Oracle;

fn plays_perfectly<G: Game>(game: &G, mode: Mode, depth: u32) {
    let solution = Solution::solve(game, 1 << 20).unwrap();
    let graph = solution.graph();
    let options = SearchOptions {
        depth,
        mode,
        ..SearchOptions::default()
    };
    let mut search = Search::new(game, options);
    for id in 0..graph.len() as StateId {
        let state = graph.state(id);
        if graph.turn(id).player().is_none() {
            continue;
        }
        let found = search.best_move(state);
        let a = found.action.expect("a move");
        assert_eq!(
            solution.keeps_value(state, a),
            Some(true),
            "{:?} picks {} at\n{}",
            mode,
            game.action_to_string(state, a),
            game.render(state)
        );
    }
}

#[test]
fn full_depth_search_plays_tictactoe_and_hexapawn_perfectly() {
    for mode in [Mode::Paranoid, Mode::MaxN(Reduction::Own)] {
        plays_perfectly(&TicTacToe, mode, 9);
        let hexapawn = Hexapawn::new(HexapawnParams { rows: 3, cols: 3 }).unwrap();
        plays_perfectly(&hexapawn, mode, 12);
    }
}

/// Searches `state` with the given pruning and ordering.
fn root<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    alpha_beta: bool,
    order: bool,
) -> SearchResult {
    root_with(
        game,
        state,
        depth,
        alpha_beta,
        order,
        ChanceRule::Expectation,
    )
}

/// Searches `state` with the given pruning, ordering and chance rule (the table with pruning).
fn root_with<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    alpha_beta: bool,
    order: bool,
    chance: ChanceRule,
) -> SearchResult {
    let options = SearchOptions {
        depth,
        alpha_beta,
        order,
        chance,
        table: alpha_beta,
        ..SearchOptions::default()
    };
    Search::new(game, options).best_move(state)
}

#[test]
fn alpha_beta_returns_minimax_value_and_move_with_fewer_nodes() {
    let game = TicTacToe;
    let solution = Solution::solve(&game, 1 << 20).unwrap();
    let graph = solution.graph();
    let (mut plain_nodes, mut pruned_nodes) = (0, 0);
    for id in (0..graph.len() as StateId).step_by(7) {
        let state = graph.state(id);
        if graph.turn(id).player().is_none() {
            continue;
        }
        let plain = root(&game, state, 9, false, false);
        let pruned = root(&game, state, 9, true, false);
        assert_eq!((plain.action, plain.value), (pruned.action, pruned.value));
        let ordered = root(&game, state, 9, true, true);
        assert_eq!(plain.value, ordered.value);
        plain_nodes += plain.nodes;
        pruned_nodes += pruned.nodes;
    }
    assert!(
        pruned_nodes * 3 < plain_nodes,
        "{pruned_nodes} vs {plain_nodes}"
    );
}

/// A Hase und Igel position after `plies` seeded random plies.
fn hui_position(
    players: usize,
    plies: usize,
    seed: u64,
) -> (HaseUndIgel, crate::games::hase_igel::HaseIgelState) {
    use rand::RngExt;
    let game = HaseUndIgel::new(HaseUndIgelParams {
        players,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    let mut rng = crate::core::random::rng(seed);
    let mut s = game.initial_state();
    let (mut legal, mut outcomes) = (Vec::new(), Vec::new());
    for _ in 0..plies {
        match game.turn(&s) {
            Turn::Terminal => break,
            Turn::Chance => {
                game.chance_outcomes(&s, &mut outcomes);
                s = game.apply(&s, outcomes[rng.random_range(0..outcomes.len())].0);
            }
            Turn::Player(_) => {
                game.legal_actions(&s, &mut legal);
                s = game.apply(&s, legal[rng.random_range(0..legal.len())]);
            }
        }
    }
    while game.turn(&s) == Turn::Chance {
        game.chance_outcomes(&s, &mut outcomes);
        s = game.apply(&s, outcomes[0].0);
    }
    (game, s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Pruning, ordering and the table never change the root value of paranoid search, under
    /// every chance rule (the worst card is pruned like a rival's move).
    #[test]
    fn pruning_keeps_the_paranoid_root_value(
        players in 2usize..=4,
        plies in 0usize..60,
        seed in 0u64..1000,
        rule in 0usize..3,
    ) {
        let chance = [ChanceRule::Expectation, ChanceRule::Worst, ChanceRule::Sample(2)][rule];
        let (game, state) = hui_position(players, plies, seed);
        prop_assume!(game.turn(&state).player().is_some());
        let plain = root_with(&game, &state, 3, false, false, chance);
        let pruned = root_with(&game, &state, 3, true, false, chance);
        let ordered = root_with(&game, &state, 3, true, true, chance);
        prop_assert!((plain.value - pruned.value).abs() < 1e-6, "{} {}", plain.value, pruned.value);
        prop_assert!((plain.value - ordered.value).abs() < 1e-6);
        prop_assert_eq!(plain.action, pruned.action);
        prop_assert!(pruned.nodes <= plain.nodes);
    }
}

/// Paranoid value of `state` for `me` by the definition, written apart from the search: every
/// child made and valued, no pruning, no table; at a mover's node the children sorted by their
/// static value (best first for the mover, stable) and cut to `cutoffs[ply]`; chance nodes by
/// `chance` (expectation or the worst card); the stop rule as the search has it.
fn reference_value(
    game: &HaseUndIgel,
    state: &crate::games::hase_igel::HaseIgelState,
    me: Player,
    depth: u32,
    ply: usize,
    cutoffs: &[usize],
    chance: ChanceRule,
) -> f64 {
    let static_value = |s: &crate::games::hase_igel::HaseIgelState| {
        reference_value(game, s, me, 0, ply, cutoffs, chance)
    };
    let over_cards = |values: Vec<(f64, f64)>| match chance {
        ChanceRule::Worst => values.iter().map(|v| v.1).fold(f64::INFINITY, f64::min),
        _ => values.iter().map(|(pr, v)| pr * v).sum(),
    };
    match game.turn(state) {
        Turn::Terminal => TERMINAL_WEIGHT * game.returns(state)[me],
        Turn::Chance => {
            let mut outcomes = Vec::new();
            game.chance_outcomes(state, &mut outcomes);
            over_cards(
                outcomes
                    .iter()
                    .map(|&(a, pr)| {
                        let child = game.apply(state, a);
                        (
                            pr,
                            reference_value(game, &child, me, depth, ply, cutoffs, chance),
                        )
                    })
                    .collect(),
            )
        }
        Turn::Player(_) if depth == 0 => game.heuristic(state, me).unwrap(),
        Turn::Player(p) => {
            let mut legal = Vec::new();
            game.legal_actions(state, &mut legal);
            let mut children: Vec<(f64, crate::games::hase_igel::HaseIgelState)> = legal
                .iter()
                .map(|&a| {
                    let c = game.apply(state, a);
                    (static_value(&c), c)
                })
                .collect();
            let sign = if p == me { -1.0 } else { 1.0 };
            children.sort_by(|a, b| (sign * a.0).total_cmp(&(sign * b.0)));
            let keep = cutoffs.get(ply).or(cutoffs.last()).copied().unwrap_or(0);
            if keep > 0 {
                children.truncate(keep);
            }
            let values = children.iter().map(|(v, c)| {
                let finished = game.has_finished(c, p) && !game.turn(c).is_terminal();
                if finished {
                    *v
                } else {
                    reference_value(game, c, me, depth - 1, ply + 1, cutoffs, chance)
                }
            });
            if p == me {
                values.fold(f64::NEG_INFINITY, f64::max)
            } else {
                values.fold(f64::INFINITY, f64::min)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// With the cutoff vector, the search (pruned, ordered, with its table and its shortcut one
    /// ply above the leaves) returns the value the definition gives.
    #[test]
    fn the_cutoff_vector_keeps_the_definition_s_value(
        players in 2usize..=3,
        plies in 0usize..60,
        seed in 0u64..1000,
        worst in any::<bool>(),
    ) {
        let chance = if worst { ChanceRule::Worst } else { ChanceRule::Expectation };
        let (game, state) = hui_position(players, plies, seed);
        let Some(me) = game.turn(&state).player() else {
            return Err(TestCaseError::reject("no mover"));
        };
        let cutoffs = vec![0, 3, 2];
        let options = SearchOptions {
            depth: 3,
            cutoffs: cutoffs.clone(),
            chance,
            ..SearchOptions::default()
        };
        let found = Search::new(&game, options).best_move(&state);
        let expected = reference_value(&game, &state, me, 3, 0, &cutoffs, chance);
        prop_assert!((found.value - expected).abs() < 1e-6, "{} {}", found.value, expected);
    }
}

#[test]
fn the_seed_s_options_run_on_hase_und_igel() {
    let (game, state) = hui_position(3, 12, 7);
    for mode in [
        Mode::Paranoid,
        Mode::MaxN(Reduction::Own),
        Mode::MaxN(Reduction::Lead),
        Mode::MaxN(Reduction::Hybrid),
    ] {
        for chance in [ChanceRule::Expectation, ChanceRule::Worst] {
            let options = SearchOptions {
                depth: 4,
                mode,
                chance,
                cutoffs: vec![0, 0, 8, 8, 4],
                ..SearchOptions::default()
            };
            let found = Search::new(&game, options).best_move(&state);
            let mut legal = Vec::new();
            game.legal_actions(&state, &mut legal);
            assert!(
                legal.contains(&found.action.unwrap()),
                "{mode:?} {chance:?}"
            );
            assert!(found.nodes > 0);
        }
    }
    // The cutoff vector searches fewer positions.
    let full = root(&game, &state, 4, true, true);
    let cut = Search::new(
        &game,
        SearchOptions {
            depth: 4,
            cutoffs: vec![0, 2],
            ..SearchOptions::default()
        },
    )
    .best_move(&state);
    assert!(cut.nodes < full.nodes, "{} vs {}", cut.nodes, full.nodes);
    // As a player: a legal move every time.
    let policy = SearchPolicy::new(SearchOptions {
        depth: 2,
        ..SearchOptions::default()
    });
    let mut legal = Vec::new();
    game.legal_actions(&state, &mut legal);
    let a = policy
        .choose(&game, &state, &legal, &mut crate::core::random::rng(1))
        .unwrap();
    assert!(legal.contains(&a));
}

#[test]
fn options_read_and_write_the_seed_s_settings() {
    let o = SearchOptions::parse("depth=8, order, cutoffs=0-0-8-8-4, mode=hybrid, chance=worst")
        .unwrap();
    assert_eq!(o.depth, 8);
    assert_eq!(o.cutoffs, [0, 0, 8, 8, 4]);
    assert_eq!(o.mode, Mode::MaxN(Reduction::Hybrid));
    assert_eq!(o.chance, ChanceRule::Worst);
    assert_eq!(SearchOptions::parse(&o.spec()).unwrap(), o);
    assert_eq!(SearchOptions::parse("").unwrap(), SearchOptions::default());
    for (bad, says) in [
        ("depth=0", "depth is a number"),
        ("cutoffs=8-x", "cutoffs are counts"),
        ("mode=minimax", "mode is paranoid"),
        ("deep", "the settings are"),
    ] {
        let err = SearchOptions::parse(bad).unwrap_err();
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn budgets_deepen_iteratively_and_a_node_budget_is_deterministic() {
    let (game, state) = hui_position(3, 20, 11);
    let mut legal = Vec::new();
    game.legal_actions(&state, &mut legal);
    let budget = |spec: &str| {
        let options = SearchOptions::parse(spec).unwrap();
        Search::new(&game, options).best_move(&state)
    };
    // Enough for every depth: the same move and value as the plain search to that depth.
    let plain = budget("depth=3");
    let roomy = budget("depth=3,nodes=100000000");
    assert_eq!((plain.action, plain.value), (roomy.action, roomy.value));
    assert!(
        roomy.nodes > plain.nodes,
        "the shallower searches count too"
    );
    // A tight budget stops early, the same way every time, with a legal move.
    let tight = budget("depth=8,nodes=2000");
    assert_eq!(tight, budget("depth=8,nodes=2000"));
    assert!(legal.contains(&tight.action.unwrap()));
    // Positions are counted as a node's moves are generated, so the budget may be passed by
    // one expansion (its moves and the cards below them) before the search notices.
    assert!(tight.nodes <= 2000 + 200, "{}", tight.nodes);
    let none = budget("depth=8,nodes=1");
    assert!(legal.contains(&none.action.unwrap()));
    // A time budget returns within reason.
    let t = std::time::Instant::now();
    let timed = budget("depth=30,ms=50");
    assert!(legal.contains(&timed.action.unwrap()));
    assert!(t.elapsed().as_millis() < 2000);
    assert_eq!(
        SearchOptions::parse("nodes=5,ms=7").unwrap().spec(),
        "depth=4,mode=paranoid,order,prune,nodes=5,ms=7"
    );
}

/// The reference AI's test: the AI plays 8 moves for each of two hares (16 moves, cards drawn from a
/// seed) once with alpha-beta off and once on; the two move sequences must be the same. Then,
/// from every position of that game, ordering must give the same root value.
#[test]
fn alpha_beta_plays_the_same_sixteen_moves_as_minimax() {
    let game = HaseUndIgel::new(HaseUndIgelParams {
        players: 2,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    let play = |alpha_beta: bool| {
        let mut rng = crate::core::random::rng(16);
        let mut state = game.initial_state();
        let (mut moves, mut positions, mut outcomes) = (Vec::new(), Vec::new(), Vec::new());
        while moves.len() < 16 {
            match game.turn(&state) {
                Turn::Terminal => break,
                Turn::Chance => {
                    game.chance_outcomes(&state, &mut outcomes);
                    let card = crate::core::policy::draw_outcome(&outcomes, &mut rng);
                    state = game.apply(&state, card);
                }
                Turn::Player(_) => {
                    let found = root(&game, &state, 4, alpha_beta, false);
                    positions.push(state);
                    moves.push(found.action.unwrap());
                    state = game.apply(&state, found.action.unwrap());
                }
            }
        }
        (moves, positions)
    };
    let (minimax, positions) = play(false);
    let (pruned, _) = play(true);
    assert_eq!(minimax.len(), 16);
    assert_eq!(minimax, pruned);
    for state in &positions {
        let plain = root(&game, state, 4, true, false);
        let ordered = root(&game, state, 4, true, true);
        assert!((plain.value - ordered.value).abs() < 1e-6);
    }
}

/// The reference AI's rule: below a move after which its mover has finished (others play on for
/// places), the search stops; with `play-on` it searches on, and both pick legal moves.
#[test]
fn the_search_stops_below_a_finished_mover() {
    // Three hares racing for places on a short track; play until a hare has finished.
    let game = HaseUndIgel::new(HaseUndIgelParams {
        players: 3,
        board: "HCSIC2C3I1HC".into(),
        carrots: Some(30),
        salads: 0,
        end: crate::games::hase_igel::End::Ranks,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    let mut rng = crate::core::random::rng(3);
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    let mut outcomes = Vec::new();
    let mut checked = 0;
    for _ in 0..200 {
        match game.turn(&state) {
            Turn::Terminal => break,
            Turn::Chance => {
                game.chance_outcomes(&state, &mut outcomes);
                state = game.apply(
                    &state,
                    crate::core::policy::draw_outcome(&outcomes, &mut rng),
                );
            }
            Turn::Player(_) => {
                game.legal_actions(&state, &mut legal);
                let stop =
                    Search::new(&game, SearchOptions::parse("depth=5").unwrap()).best_move(&state);
                let on = Search::new(&game, SearchOptions::parse("depth=5,play-on").unwrap())
                    .best_move(&state);
                assert!(legal.contains(&stop.action.unwrap()));
                assert!(legal.contains(&on.action.unwrap()));
                assert!(stop.nodes <= on.nodes);
                if stop.nodes < on.nodes {
                    checked += 1;
                }
                state = game.apply(&state, stop.action.unwrap());
            }
        }
    }
    assert!(checked > 0, "no position had a finishing move in reach");
}

/// The settings table the help and the errors are written from lists exactly what the parser
/// takes: every spelling in it parses, and a setting the parser refuses is met with the table.
#[test]
fn the_settings_table_is_what_the_parser_takes() {
    let mut spellings = 0;
    for (setting, _) in SETTINGS {
        let (key, values) = match setting.split_once('=') {
            Some((key, values)) => (Some(key), values),
            None => (None, setting),
        };
        for value in values.split(['|', '/']).map(str::trim) {
            let concrete = value.replace('N', "3").replace('K', "2");
            let written = match key {
                Some(key) => format!("{key}={concrete}"),
                None => concrete,
            };
            assert!(
                SearchOptions::parse(&written).is_ok(),
                "{setting}: {written} is refused"
            );
            spellings += 1;
        }
    }
    assert_eq!(spellings, 21);
    for bad in ["chance=leaf", "bogus", "mode=greedy", "depth=65"] {
        let e = SearchOptions::parse(bad).unwrap_err();
        assert!(!e.is_empty(), "{bad}");
    }
    let e = SearchOptions::parse("bogus").unwrap_err();
    assert!(e.contains(&settings_list()), "{e}");
}

#[test]
fn a_search_too_deep_to_finish_plays_within_the_unbudgeted_cap() {
    // depth=64 with no budget once ran for ages: now it stops at UNBUDGETED_NODES and plays the
    // deepest search that fits, the same move as with that budget given.
    let (game, state) = hui_position(2, 12, 7);
    let deep = SearchOptions {
        depth: 64,
        ..SearchOptions::default()
    };
    let found = Search::new(&game, deep.clone()).best_move(&state);
    let mut legal = Vec::new();
    game.legal_actions(&state, &mut legal);
    assert!(legal.contains(&found.action.unwrap()));
    assert!(found.nodes <= UNBUDGETED_NODES + 1_000, "{}", found.nodes);
    let budgeted = SearchOptions {
        max_nodes: Some(UNBUDGETED_NODES),
        ..deep
    };
    assert_eq!(
        Search::new(&game, budgeted).best_move(&state).action,
        found.action
    );
    // A search that finishes below the cap is the plain search, move and count.
    let shallow = SearchOptions::default();
    assert!(Search::new(&game, shallow).best_move(&state).nodes < UNBUDGETED_NODES);
}

/// A learner of `config` trained on tic-tac-toe and saved under `dir`.
fn saved_agent(dir: &std::path::Path, config: &crate::learn::LearnerConfig) -> std::path::PathBuf {
    crate::learn::tests::saved_tictactoe_agent(dir, config, 2000, 3)
}

/// `eval=agent:PATH` puts a saved value learner's values at the leaves. At depth 1 the search
/// picks, at every tic-tac-toe position, a move the agent's own greedy policy picks: both rank
/// a move by the learned value of the position it leads to, read by the mover (a finished game
/// by its return). An agent that learns no values, of another game, or no file, is refused.
#[test]
fn a_saved_agent_evaluates_the_leaves() {
    use crate::learn::LearnerConfig;
    let dir = tempfile::tempdir().unwrap();
    let game = TicTacToe;
    for config in [
        LearnerConfig::Mlp(Default::default()),
        LearnerConfig::Linear(Default::default()),
    ] {
        let path = saved_agent(dir.path(), &config);
        let spec = format!("depth=1,eval=agent:{}", path.display());
        let options = SearchOptions::parse(&spec).unwrap();
        assert_eq!(options.agent.as_deref(), Some(path.as_path()));
        assert_eq!(SearchOptions::parse(&options.spec()).unwrap(), options);
        let evaluator = options.evaluator(&game).unwrap();
        let agent = crate::learn::saved::load_agent(&game, &path).unwrap();
        let greedy = agent.learner.greedy_policy();
        let policy = SearchPolicy::new(options.clone());
        let graph = crate::core::graph::StateGraph::build(&game, 1 << 20).unwrap();
        let (mut probs, mut r) = (Vec::new(), crate::core::random::rng(0));
        let mut checked = 0;
        for id in 0..graph.len() as StateId {
            if graph.turn(id).player().is_none() {
                continue;
            }
            let (state, legal) = (graph.state(id), graph.actions(id));
            let a = evaluator
                .search(options.clone())
                .best_move(state)
                .action
                .unwrap();
            assert_eq!(policy.choose(&game, state, legal, &mut r), Some(a));
            greedy.probabilities(&game, state, legal, &mut probs);
            let k = legal.iter().position(|&b| b == a).unwrap();
            assert!(
                probs[k] > 0.0,
                "{config:?}: {} at\n{}",
                game.action_to_string(state, a),
                game.render(state)
            );
            checked += 1;
        }
        assert_eq!(checked, 4520);
    }
    // Refusals, each with its reason.
    let menace = saved_agent(dir.path(), &LearnerConfig::Matchbox(Default::default()));
    let hexapawn = Hexapawn::new(HexapawnParams::default()).unwrap();
    let mlp = dir.path().join("mlp.parquet");
    for (game_is_ttt, spec, says) in [
        (
            true,
            format!("eval=agent:{}", menace.display()),
            "learns no values".to_string(),
        ),
        (
            false,
            format!("eval=agent:{}", mlp.display()),
            "not of hexapawn".to_string(),
        ),
        (
            true,
            "eval=agent:/nowhere/agent.parquet".to_string(),
            "/nowhere/agent.parquet".to_string(),
        ),
    ] {
        let options = SearchOptions::parse(&spec).unwrap();
        let e = if game_is_ttt {
            options.evaluator(&game).err().unwrap()
        } else {
            options.evaluator(&hexapawn).err().unwrap()
        };
        assert!(
            e.contains(&says) && e.contains("eval=agent:"),
            "{spec}: {e}"
        );
    }
    let e = SearchOptions::parse("depth=2,eval=agent:").unwrap_err();
    assert!(e.contains("names a saved agent's file"), "{e}");
}
