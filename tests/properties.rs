//! Property tests: invariants that must hold for every board size, every line of play and every
//! sequence of results, checked on random cases.

use proptest::prelude::*;

use solvedgym::core::game::{Game, GameResult, Returns, Turn};
use solvedgym::core::policy::{Policy, RandomPolicy};
use solvedgym::eval::{evaluate_policy, expected_result, minimax_return};
use solvedgym::games::{Hexapawn, HexapawnParams, TicTacToe};
use solvedgym::learn::menace::{Matchbox, MatchboxConfig};
use solvedgym::learn::{Decision, Learner};
use solvedgym::truth::OptimalPolicy;
use solvedgym::truth::{Solution, Value};

/// Plays `choices` (each picks a legal move by index modulo the number of moves) from the start
/// and returns every state visited.
fn line<G: Game>(game: &G, choices: &[usize]) -> Vec<G::State> {
    let mut s = game.initial_state();
    let mut states = vec![s.clone()];
    let mut legal = Vec::new();
    for &c in choices {
        if game.turn(&s) == Turn::Terminal {
            break;
        }
        game.legal_actions(&s, &mut legal);
        s = game.apply(&s, legal[c % legal.len()]);
        states.push(s.clone());
    }
    states
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn hexapawn_encodings_round_trip_and_symmetry_commutes(
        rows in 2usize..=6, cols in 1usize..=6, choices in prop::collection::vec(0usize..8, 0..40)
    ) {
        let game = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        let mut pawns = u32::MAX;
        for s in line(&game, &choices) {
            let count = s.white.count_ones() + s.black.count_ones();
            prop_assert!(count <= pawns, "pawns never appear");
            pawns = count;
            if let Some(len) = game.state_index_len() {
                let i = game.state_index(&s);
                prop_assert!(i < len);
                prop_assert_eq!(game.state_from_index(i), Some(s));
            }
            let m = game.transform_state(&s, 1);
            prop_assert_eq!(game.transform_state(&m, 1), s);
            prop_assert_eq!(game.turn(&m).is_terminal(), game.turn(&s).is_terminal());
            let mut legal = Vec::new();
            game.legal_actions(&s, &mut legal);
            prop_assert!(legal.windows(2).all(|w| w[0] < w[1]));
            for &a in &legal {
                let ma = game.transform_action(&s, a, 1);
                prop_assert_eq!(game.try_apply(&m, ma), Ok(game.transform_state(&game.apply(&s, a), 1)));
            }
        }
    }

    #[test]
    fn tictactoe_symmetries_form_a_group(choices in prop::collection::vec(0usize..9, 0..9), a in 0usize..8, b in 0usize..8) {
        let game = TicTacToe;
        // A position with eight distinct images tells the symmetries apart.
        let probe = line(&game, &[6, 7]).pop().unwrap();
        let images: std::collections::HashSet<_> = (0..8).map(|k| game.transform_state(&probe, k)).collect();
        prop_assert_eq!(images.len(), 8);
        let composed = game.transform_state(&game.transform_state(&probe, b), a);
        let c = (0..8).find(|&c| game.transform_state(&probe, c) == composed);
        prop_assert!(c.is_some(), "closed under composition");
        for s in line(&game, &choices) {
            let c = c.unwrap();
            prop_assert_eq!(game.transform_state(&game.transform_state(&s, b), a), game.transform_state(&s, c));
            prop_assert_eq!(game.canonical(&s).0, game.canonical(&game.transform_state(&s, a)).0);
        }
    }

    #[test]
    fn results_of_zero_sum_returns_mirror_each_other(winner in 0usize..2) {
        let r = Returns::win(2, winner);
        prop_assert_eq!(r.result_for(winner), GameResult::Win);
        prop_assert_eq!(r.result_for(1 - winner), GameResult::Loss);
        prop_assert_eq!(Returns::zeros(2).result_for(0), GameResult::Draw);
    }

    #[test]
    fn matchbox_beads_stay_within_their_bounds(
        menace in any::<bool>(), results in prop::collection::vec(0usize..3, 1..60), seed in any::<u64>()
    ) {
        let game = TicTacToe;
        let cfg = if menace { MatchboxConfig::menace() } else { MatchboxConfig::her() };
        let min = cfg.min_beads;
        let mut learner: Matchbox<TicTacToe> = Matchbox::new("m", cfg);
        let mut rng = solvedgym::rng(seed);
        let mut legal = Vec::new();
        for &r in &results {
            learner.begin_episode();
            let mut s = game.initial_state();
            while let Turn::Player(p) = game.turn(&s) {
                game.legal_actions(&s, &mut legal);
                let a = if p == 0 {
                    match learner.act(&game, &Decision { state: &s, seat: 0, legal: &legal, ply: 0 }, &mut rng) { Some(k) => legal[k], None => break }
                } else {
                    legal[0]
                };
                s = game.apply(&s, a);
            }
            let returns = match r { 0 => Returns::win(2, 0), 1 => Returns::zeros(2), _ => Returns::win(2, 1) };
            learner.end_episode(&game, &returns, 0);
            for (_, b) in learner.boxes() {
                prop_assert!(b.beads.iter().all(|&n| n >= min));
                if !menace {
                    prop_assert!(b.beads.iter().all(|&n| n <= 1), "HER never adds beads");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn solutions_are_consistent_and_perfect_play_earns_the_game_value(rows in 2usize..=4, cols in 1usize..=4) {
        let game = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        let sol = Solution::solve(&game, 1 << 22).unwrap();
        let graph = sol.graph();
        for id in 0..graph.len() as u32 {
            let games = sol.games_of(id);
            prop_assert!(sol.wins_of(id, 0) + sol.wins_of(id, 1) == games, "no draws in Hexapawn");
            if let Turn::Player(p) = graph.turn(id) {
                // Bellman: the value is the best child one ply later, from the mover's side.
                let best = sol.move_values(id).map(|(_, v)| v).max_by_key(|v| v.key_for(p)).unwrap();
                prop_assert_eq!(best, sol.value_of(id));
                let decided = matches!(sol.value_of(id), Value::Win { .. });
                prop_assert!(decided, "Hexapawn has no draws");
            }
        }
        let optimal = OptimalPolicy::new(&sol);
        for seat in 0..2 {
            let value = minimax_return(graph, seat).unwrap();
            let mut policies: Vec<&dyn Policy<Hexapawn>> = vec![&RandomPolicy, &RandomPolicy];
            policies[seat] = &optimal;
            let r = expected_result(graph, &policies, seat).unwrap();
            prop_assert!(r.expected_return >= value - 1e-12, "perfect play never earns less than the game value");
            prop_assert!((r.win + r.draw + r.loss - 1.0).abs() < 1e-9);
            let report = evaluate_policy(&sol, &[seat], &optimal).unwrap();
            prop_assert!((report.optimal_rate_all - 1.0).abs() < 1e-12 || report.states_all == 0);
            prop_assert_eq!(report.blunders, 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every registered game's position notation reads back to the position, at every position
    /// of random games on random boards (and in its default setting): what `moves` writes,
    /// `moves`, `play` and `solve` read.
    #[test]
    fn every_position_notation_round_trips(
        rows in 2usize..=8, cols in 1usize..=8, size in 1usize..=8, players in 2usize..=6,
        goal in 1u8..=20, seed in 0u64..1_000_000,
    ) {
        use solvedgym::core::notation::check_round_trips;
        use solvedgym::games::{GAMES, AnyGame};
        let mut games: Vec<AnyGame> = GAMES.iter().map(|info| info.default_game()).collect();
        let table = |pairs: &[(&str, toml::Value)]| {
            pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<toml::Table>()
        };
        if rows * cols <= 64 {
            games.push(AnyGame::from_spec("hexapawn", table(&[
                ("rows", (rows as i64).into()), ("cols", (cols as i64).into()),
            ])).unwrap());
        }
        games.push(AnyGame::from_spec("fox-hounds", table(&[("size", (2 * size as i64).into())])).unwrap());
        games.push(AnyGame::from_spec("dice-race", table(&[
            ("players", (players as i64).into()), ("goal", i64::from(goal).into()),
        ])).unwrap());
        for game in &games {
            let checked = solvedgym::with_game!(game, g => check_round_trips(g, 2, 300, seed, game.name() != "hackenbush"));
            prop_assert!(checked.is_ok(), "{}: {}", game.name(), checked.unwrap_err());
        }
    }
}
