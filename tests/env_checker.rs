//! Every registered game passes the shared environment checker, among them the dice race, a
//! toy game with a chance event and three players, which proves the `Game` trait, both
//! environment views and the evaluator's dynamic programming carry what Hase und Igel will need.

use solvedgym::core::check::{CheckOptions, check_game};
use solvedgym::core::env::{AecEnv, Env};
use solvedgym::core::game::Turn;
use solvedgym::core::graph::StateGraph;
use solvedgym::core::policy::{Policy, RandomPolicy};
use solvedgym::eval::expected_result;
use solvedgym::games::{DiceRace, GAMES, Hexapawn, HexapawnParams};

#[test]
fn every_registered_game_passes_the_checker() {
    let opts = CheckOptions::default();
    for info in GAMES {
        let game = info.default_game();
        solvedgym::with_game!(&game, g => check_game(g, &opts))
            .unwrap_or_else(|e| panic!("{}: {e}", info.name));
    }
}

#[test]
fn hexapawn_boards_pass_the_checker() {
    let opts = CheckOptions::default();
    for (rows, cols) in [(3, 3), (4, 4), (2, 5), (6, 3), (8, 8)] {
        let g = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        check_game(&g, &opts).unwrap();
    }
}

#[test]
fn a_chance_game_with_three_players_passes_the_checker() {
    let report = check_game(&DiceRace::default(), &CheckOptions::default()).unwrap();
    assert!(report.chance_states > 0);
    assert_eq!(report.episodes, 200);
}

#[test]
fn both_environment_views_carry_chance_and_three_seats() {
    let opponents: Vec<Option<Box<dyn Policy<DiceRace>>>> = vec![
        Some(Box::new(RandomPolicy)),
        None,
        Some(Box::new(RandomPolicy)),
    ];
    let mut env = Env::with_opponents(DiceRace::default(), 1, opponents, 11).unwrap();
    let wrong: Vec<Option<Box<dyn Policy<DiceRace>>>> =
        vec![None, None, Some(Box::new(RandomPolicy))];
    assert!(Env::with_opponents(DiceRace::default(), 1, wrong, 11).is_err());
    let (state, info) = env.reset(Some(11));
    assert_eq!(info.turn, Turn::Player(1));
    assert!(
        state.roll > 0,
        "the die is rolled before the learner chooses"
    );
    while !env.is_done() {
        env.step(1).unwrap();
    }
    let r = env.returns().unwrap();
    assert!((r.as_slice().iter().sum::<f64>()).abs() < 1e-12);

    let mut aec = AecEnv::new(DiceRace::default(), 3);
    let mut seen = [false; 3];
    while let Some(agent) = aec.agent_selection() {
        seen[agent] = true;
        aec.step(0).unwrap();
    }
    assert!(seen.iter().all(|&s| s));
    assert_eq!(aec.rewards().iter().filter(|&&r| r == 1.0).count(), 1);
}

#[test]
fn exact_dynamic_programming_agrees_with_sampling() {
    let graph = StateGraph::build(&DiceRace::default(), 1 << 20).unwrap();
    assert!(graph.is_acyclic());
    let policies: Vec<&dyn Policy<DiceRace>> = vec![&RandomPolicy, &RandomPolicy, &RandomPolicy];
    let exact: Vec<f64> = (0..3)
        .map(|seat| expected_result(&graph, &policies, seat).unwrap().win)
        .collect();
    assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{exact:?}");
    // Moving first is an advantage.
    assert!(exact[0] > exact[2]);

    let episodes = 200_000;
    let mut wins = [0u32; 3];
    let mut env = AecEnv::new(DiceRace::default(), 42);
    let mut rng = solvedgym::rng(43);
    for _ in 0..episodes {
        env.reset(None);
        while env.agent_selection().is_some() {
            let legal = env.legal_actions().to_vec();
            let a = RandomPolicy
                .choose(&DiceRace::default(), env.state(), &legal, &mut rng)
                .unwrap();
            env.step(a).unwrap();
        }
        let w = env.returns().unwrap().winner().unwrap();
        wins[w] += 1;
    }
    for seat in 0..3 {
        let p = exact[seat];
        let sampled = wins[seat] as f64 / episodes as f64;
        // Five standard errors.
        let tolerance = 5.0 * (p * (1.0 - p) / episodes as f64).sqrt();
        assert!(
            (sampled - p).abs() < tolerance,
            "seat {seat}: exact {p}, sampled {sampled}"
        );
    }
}
