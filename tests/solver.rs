//! The solver against an independent brute-force minimax over the full game tree (no graph,
//! no memo, no shared ordering code), and against the published figures it can reproduce.

use std::collections::HashMap;

use solvedgym::core::game::{Game, Player, Turn};
use solvedgym::games::{Hexapawn, HexapawnParams, TicTacToe};
use solvedgym::truth::{Solution, Value};

/// What plain recursion over the game tree says about a state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Brute {
    winner: Option<Player>,
    plies: u32,
    games: u128,
    wins: [u128; 2],
}

fn brute<G: Game>(game: &G, state: &G::State, memo_check: &mut HashMap<G::State, Brute>) -> Brute {
    let result = match game.turn(state) {
        Turn::Terminal => {
            let r = game.returns(state);
            let winner = if r[0] > r[1] {
                Some(0)
            } else if r[1] > r[0] {
                Some(1)
            } else {
                None
            };
            let mut wins = [0; 2];
            if let Some(w) = winner {
                wins[w] = 1;
            }
            Brute {
                winner,
                plies: 0,
                games: 1,
                wins,
            }
        }
        Turn::Player(p) => {
            let mut legal = Vec::new();
            game.legal_actions(state, &mut legal);
            let children: Vec<Brute> = legal
                .iter()
                .map(|&a| brute(game, &game.apply(state, a), memo_check))
                .collect();
            let games = children.iter().map(|c| c.games).sum();
            let wins = [
                children.iter().map(|c| c.wins[0]).sum(),
                children.iter().map(|c| c.wins[1]).sum(),
            ];
            let quickest_win = children
                .iter()
                .filter(|c| c.winner == Some(p))
                .map(|c| c.plies)
                .min();
            let can_draw = children.iter().any(|c| c.winner.is_none());
            let (winner, plies) = if let Some(n) = quickest_win {
                (Some(p), n + 1)
            } else if can_draw {
                (None, 0)
            } else {
                let slowest = children.iter().map(|c| c.plies).max().unwrap();
                (Some(1 - p), slowest + 1)
            };
            Brute {
                winner,
                plies,
                games,
                wins,
            }
        }
        Turn::Chance => unreachable!("deterministic games only"),
    };
    memo_check.insert(state.clone(), result);
    result
}

fn agree<G: Game>(game: &G) -> usize {
    let solution = Solution::solve(game, 10_000_000).unwrap();
    let mut seen = HashMap::new();
    let root = brute(game, &game.initial_state(), &mut seen);
    assert_eq!(
        seen.len(),
        solution.graph().len(),
        "{}: reachable states",
        game.name()
    );
    for (state, b) in &seen {
        let id = solution
            .id(state)
            .expect("every brute-force state is in the solution");
        let v = solution.value_of(id);
        match (v, b.winner) {
            (Value::Draw, None) => {}
            (Value::Win { winner, plies }, Some(w)) => {
                assert_eq!((winner, plies), (w, b.plies), "{}", game.render(state))
            }
            _ => panic!(
                "{}: solver {v:?} vs brute force {b:?}\n{}",
                game.name(),
                game.render(state)
            ),
        }
        assert_eq!(solution.games_of(id).to_string(), b.games.to_string());
        for p in 0..2 {
            assert_eq!(solution.wins_of(id, p).to_string(), b.wins[p].to_string());
        }
    }
    let start = solution.graph().start();
    assert_eq!(solution.games_of(start).to_string(), root.games.to_string());
    seen.len()
}

#[test]
fn solver_matches_brute_force_on_tictactoe() {
    assert_eq!(agree(&TicTacToe), 5478);
}

#[test]
fn solver_matches_brute_force_on_hexapawn_boards() {
    for (rows, cols) in [(3, 3), (2, 2), (3, 2), (3, 4), (4, 3), (4, 4), (5, 3)] {
        agree(&Hexapawn::new(HexapawnParams { rows, cols }).unwrap());
    }
}

#[test]
fn published_tictactoe_figures() {
    let r = Solution::solve(&TicTacToe, 1 << 20).unwrap().report();
    assert_eq!(r.states, 5478);
    assert_eq!(r.games, "255168");
    assert_eq!(r.wins["x"], "131184");
    assert_eq!(r.wins["o"], "77904");
    assert_eq!(r.draws, "46080");
    assert_eq!(r.winner, None);
    assert_eq!(r.terminal_states, 958);
}

#[test]
fn hexapawn_is_a_win_for_black_the_second_player() {
    let game = Hexapawn::new(HexapawnParams::default()).unwrap();
    let s = Solution::solve(&game, 1 << 20).unwrap();
    let r = s.report();
    assert_eq!(r.winner.as_deref(), Some("black"));
    // Every one of White's three openings loses.
    let start = s.graph().start();
    assert!(s.move_values(start).all(|(_, v)| v.winner() == Some(1)));
}

#[test]
fn a_solver_refuses_games_it_cannot_solve() {
    // Three players: the error says so instead of guessing.
    #[derive(Clone)]
    struct Three;
    impl Game for Three {
        type State = u8;
        fn name(&self) -> &'static str {
            "three"
        }
        fn params(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn num_players(&self) -> usize {
            3
        }
        fn player_name(&self, p: Player) -> &'static str {
            ["a", "b", "c"][p]
        }
        fn num_distinct_actions(&self) -> usize {
            1
        }
        fn initial_state(&self) -> u8 {
            0
        }
        fn turn(&self, s: &u8) -> Turn {
            if *s >= 3 {
                Turn::Terminal
            } else {
                Turn::Player(*s as usize)
            }
        }
        fn legal_actions(&self, s: &u8, out: &mut Vec<u32>) {
            out.clear();
            if *s < 3 {
                out.push(0);
            }
        }
        fn apply(&self, s: &u8, _: u32) -> u8 {
            s + 1
        }
        fn returns(&self, _: &u8) -> solvedgym::core::game::Returns {
            solvedgym::core::game::Returns::zeros(3)
        }
        fn action_to_string(&self, _: &u8, _: u32) -> String {
            "go".into()
        }
        fn render(&self, s: &u8) -> String {
            s.to_string()
        }
        fn observation_len(&self) -> usize {
            0
        }
        fn observe(&self, _: &u8, _: Player, _: &mut [f32]) {}
    }
    let err = Solution::solve(&Three, 100).err().unwrap();
    assert!(err.to_string().contains("3 players"), "{err}");
}
