//! A game played from its state graph (`Tabulated`) is the same game: at every reachable
//! position every question the rules answer gets the same answer, it passes the environment
//! checker, and an experiment writes the same bytes played either way.

mod common;

use std::sync::Arc;

use solvedgym::core::check::{CheckOptions, check_game};
use solvedgym::core::game::Game;
use solvedgym::core::graph::{StateGraph, StateId};
use solvedgym::core::tabulated::Tabulated;
use solvedgym::games::AnyGame;

/// The game `name` with parameters written as TOML.
fn game(name: &str, params: &str) -> AnyGame {
    AnyGame::from_spec(name, params.parse().unwrap()).unwrap()
}

/// Small variants of every game that enumeration solves: symmetries (tic-tac-toe, Hexapawn),
/// resignation-free chases, chance and three players (the dice race), combinatorial values
/// (Hackenbush), and chance with heuristics and cut-off rounds (Hase und Igel).
fn games() -> Vec<AnyGame> {
    vec![
        game("tictactoe", ""),
        game("hexapawn", "rows = 3\ncols = 3"),
        game("hexapawn", "rows = 3\ncols = 4"),
        game("fox-hounds", "size = 4"),
        game("dice-race", ""),
        game("hackenbush", "position = \"lrl\""),
        game(
            "hase-und-igel",
            "players = 2\nboard = \"HCS\"\ncarrots = 6\nsalads = 1\nmax_rounds = 3",
        ),
        game(
            "hase-und-igel",
            "players = 3\nboard = \"HC\"\ncarrots = 4\nsalads = 0\nmax_rounds = 2",
        ),
    ]
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Every answer of `t` at every position equals the game's own, position by position.
fn same_answers<G: Game>(game: &G) {
    let graph = Arc::new(StateGraph::build(game, 1 << 22).unwrap());
    let t = Tabulated::from_graph(graph.clone()).unwrap();
    let name = game.name();
    assert_eq!(t.len(), graph.len());
    assert_eq!(t.name(), name);
    assert_eq!(t.params(), game.params());
    assert_eq!(t.num_players(), game.num_players());
    assert_eq!(t.num_distinct_actions(), game.num_distinct_actions());
    assert_eq!(t.capabilities(), game.capabilities());
    assert_eq!(t.num_symmetries(), game.num_symmetries());
    assert_eq!(t.initial_state().id(), 0);
    for p in 0..game.num_players() {
        assert_eq!(t.player_name(p), game.player_name(p));
        assert_eq!(t.player_name_is_plural(p), game.player_name_is_plural(p));
    }
    let id_of = |s: &G::State| graph.id(s).expect("reachable");
    let (mut legal, mut tlegal) = (Vec::new(), Vec::new());
    let (mut outcomes, mut toutcomes) = (Vec::new(), Vec::new());
    let (mut obs, mut tobs) = (
        vec![0.0; game.observation_len()],
        vec![0.0; t.observation_len()],
    );
    let mut slots = vec![false; t.action_index_len().unwrap()];
    for id in 0..graph.len() as StateId {
        let (s, n) = (graph.state(id), t.state_from_index(id as usize).unwrap());
        let at = format!("{name}, position {id}:\n{}", game.render(s));
        assert_eq!(n.id(), id);
        assert_eq!(t.state_index(&n), id as usize);
        assert_eq!(t.turn(&n), game.turn(s), "{at}");
        assert_eq!(t.render(&n), game.render(s), "{at}");
        assert_eq!(
            bits(t.returns(&n).as_slice()),
            bits(game.returns(s).as_slice()),
            "{at}"
        );
        assert_eq!(t.is_cut_off(&n), game.is_cut_off(s), "{at}");
        assert_eq!(t.write_position(&n), game.write_position(s), "{at}");
        game.legal_actions(s, &mut legal);
        t.legal_actions(&n, &mut tlegal);
        assert_eq!(tlegal, legal, "{at}");
        assert_eq!(t.legal_actions_in_place(&n), Some(&legal[..]), "{at}");
        assert_eq!(t.turn_and_legal_actions(&n, &mut tlegal), game.turn(s));
        assert_eq!(tlegal, legal, "{at}");
        game.chance_outcomes(s, &mut outcomes);
        t.chance_outcomes(&n, &mut toutcomes);
        assert_eq!(toutcomes.len(), outcomes.len(), "{at}");
        for (&(a, p), &(ta, tp)) in outcomes.iter().zip(&toutcomes) {
            assert_eq!((ta, tp.to_bits()), (a, p.to_bits()), "{at}");
        }
        // Every move (a legal action or a chance outcome) has its own slot of the action
        // index, in order.
        let row = t.action_index(&n);
        assert_eq!(row.len(), legal.len() + outcomes.len(), "{at}");
        for k in row {
            assert!(!slots[k], "{at}: slot {k} taken twice");
            slots[k] = true;
        }
        let moves: Vec<_> = legal
            .iter()
            .chain(outcomes.iter().map(|(a, _)| a))
            .collect();
        for &a in moves {
            assert_eq!(t.apply(&n, a).id(), id_of(&game.apply(s, a)), "{at}: {a}");
            assert_eq!(t.action_to_string(&n, a), game.action_to_string(s, a));
            assert_eq!(t.describe_action(&n, a), game.describe_action(s, a));
            assert_eq!(t.move_event(&n, a), game.move_event(s, a));
        }
        assert!(t.try_apply(&n, game.num_distinct_actions() as u32).is_err());
        for p in 0..game.num_players() {
            assert_eq!(
                t.heuristic(&n, p).map(f64::to_bits),
                game.heuristic(s, p).map(f64::to_bits),
                "{at}"
            );
            assert_eq!(t.has_finished(&n, p), game.has_finished(s, p), "{at}");
            game.observe(s, p, &mut obs);
            t.observe(&n, p, &mut tobs);
            assert_eq!(tobs, obs, "{at}");
        }
        let (c, sym) = game.canonical(s);
        let (tc, tsym) = t.canonical(&n);
        assert_eq!((tc.id(), tsym), (id_of(&c), sym), "{at}");
        for sym in 0..game.num_symmetries() {
            let image = game.transform_state(s, sym);
            assert_eq!(t.transform_state(&n, sym).id(), id_of(&image), "{at}");
            assert_eq!(t.inverse_symmetry(sym), game.inverse_symmetry(sym));
            for &a in &legal {
                assert_eq!(
                    t.transform_action(&n, a, sym),
                    game.transform_action(s, a, sym),
                    "{at}"
                );
            }
        }
    }
    assert!(
        slots.iter().all(|&s| s),
        "{name}: the action index has unused slots"
    );
}

#[test]
fn a_tabulated_game_answers_as_the_game_itself_at_every_position() {
    for g in games() {
        solvedgym::with_game!(&g, g => same_answers(g));
    }
}

#[test]
fn a_tabulated_game_passes_the_environment_checker() {
    let opts = CheckOptions::default();
    for g in games() {
        solvedgym::with_game!(&g, g => {
            let t = Tabulated::new(g, 1 << 22).unwrap();
            check_game(&t, &opts).unwrap_or_else(|e| panic!("{}: {e}", g.name()))
        });
    }
}

#[test]
fn positions_beyond_the_limit_are_an_error() {
    let g = game("hexapawn", "rows = 4\ncols = 4");
    solvedgym::with_game!(&g, g => {
        // Refused up front by the game's estimate (4,534,506 > 1,000 x 100).
        let err = Tabulated::new(g, 100).unwrap_err().to_string();
        assert!(err.contains("more than 1,000 times the 100"), "{err}");
        // Tried, and stopped by the limit itself.
        let err = Tabulated::new(g, 5_000).unwrap_err().to_string();
        assert!(err.contains("more than 5000"), "{err}");
    });
}

/// `solvedgym run CONFIG --out OUT EXTRA...`; it must succeed.
fn run(config: &str, out: &std::path::Path, extra: &[&str]) {
    let mut args = vec!["run", config, "--out", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    let output = common::solvedgym(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir`, relative to it, with its bytes.
fn files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn experiments_write_the_same_bytes_played_from_the_graph_or_by_the_rules() {
    // Every learner kind by self-play and against opponents on several games (a study), and
    // HER with its symmetries and resignations.
    // A game with chance and a cut-off round (Hase und Igel) against a random and a greedy hare.
    let root =
        std::env::temp_dir().join(format!("solvedgym-test-{}-tabulated", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let chance = root.join("tiny-hase.toml");
    std::fs::write(&chance, TINY_HASE).unwrap();
    let data = format!("{}/tests/data", env!("CARGO_MANIFEST_DIR"));
    let configs = [
        "tiny-study.toml",
        "tiny-learners.toml",
        "tiny-regimes.toml",
        "tiny.toml",
    ]
    .map(|c| format!("{data}/{c}"));
    for config in configs.iter().chain([&chance.display().to_string()]) {
        let (graph, rules) = (root.join("graph"), root.join("rules"));
        let _ = std::fs::remove_dir_all(&graph);
        let _ = std::fs::remove_dir_all(&rules);
        run(config, &graph, &[]);
        run(config, &rules, &["--own-rules"]);
        let (a, b) = (files(&graph), files(&rules));
        assert!(!a.is_empty());
        assert_eq!(
            a.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            b.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "{config}"
        );
        for ((path, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{config}: {} differs", path.display());
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

const TINY_HASE: &str = r#"
name = "tiny-hase"
episodes = 600
eval_interval = 200
seeds = 2

[game]
name = "hase-und-igel"
players = 2
board = "HCSI"
carrots = 8
salads = 1
max_rounds = 3

[[learners]]
kind = "q-learning"
label = "Q"
seat = "red"

[[learners]]
kind = "td"
label = "TD"
seat = "red"

[[opponents]]
policy = "random"

[[opponents]]
policy = "greedy"
"#;
