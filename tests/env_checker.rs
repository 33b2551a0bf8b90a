//! Every game passes the shared environment checker, and so does a tiny test-only game with a
//! chance event and three players, which proves the `Game` trait, both environment views and
//! the evaluator's dynamic programming carry what Hase und Igel will need.

use solvedgym::check::{CheckOptions, check_game};
use solvedgym::env::{AecEnv, Env};
use solvedgym::eval::expected_result;
use solvedgym::game::{Action, Game, Player, Returns, Turn};
use solvedgym::games::{Hexapawn, HexapawnParams, TicTacToe};
use solvedgym::graph::StateGraph;
use solvedgym::policy::{Policy, RandomPolicy};

/// Dice race: three runners take turns; a die is rolled (1, 2 or 3 with probabilities 1/2, 1/3,
/// 1/6), then the runner either steps one square or dashes the rolled number. First to square 5
/// wins.
#[derive(Clone)]
struct DiceRace;

const GOAL: u8 = 5;
const DIE: [(Action, f64); 3] = [(1, 0.5), (2, 1.0 / 3.0), (3, 1.0 / 6.0)];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Race {
    pos: [u8; 3],
    to_move: u8,
    /// 0 while the die is still to be rolled.
    roll: u8,
}

impl Game for DiceRace {
    type State = Race;
    fn name(&self) -> &'static str {
        "dice-race"
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({ "goal": GOAL })
    }
    fn num_players(&self) -> usize {
        3
    }
    fn player_name(&self, p: Player) -> &'static str {
        ["red", "green", "blue"][p]
    }
    fn num_distinct_actions(&self) -> usize {
        4
    }
    fn initial_state(&self) -> Race {
        Race {
            pos: [0; 3],
            to_move: 0,
            roll: 0,
        }
    }
    fn turn(&self, s: &Race) -> Turn {
        if s.pos.iter().any(|&p| p >= GOAL) {
            Turn::Terminal
        } else if s.roll == 0 {
            Turn::Chance
        } else {
            Turn::Player(s.to_move as Player)
        }
    }
    fn legal_actions(&self, s: &Race, out: &mut Vec<Action>) {
        out.clear();
        if let Turn::Player(_) = self.turn(s) {
            out.extend([0, 1]);
        }
    }
    fn chance_outcomes(&self, s: &Race, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if self.turn(s) == Turn::Chance {
            out.extend(DIE);
        }
    }
    fn apply(&self, s: &Race, a: Action) -> Race {
        let mut next = s.clone();
        if s.roll == 0 {
            next.roll = a as u8;
        } else {
            next.pos[s.to_move as usize] += if a == 0 { 1 } else { s.roll };
            next.to_move = (s.to_move + 1) % 3;
            next.roll = 0;
        }
        next
    }
    fn returns(&self, s: &Race) -> Returns {
        match s.pos.iter().position(|&p| p >= GOAL) {
            Some(w) => Returns::win(3, w),
            None => Returns::zeros(3),
        }
    }
    fn action_to_string(&self, s: &Race, a: Action) -> String {
        if s.roll == 0 {
            format!("roll {a}")
        } else if a == 0 {
            "step".into()
        } else {
            "dash".into()
        }
    }
    fn render(&self, s: &Race) -> String {
        format!(
            "red {} green {} blue {} | {} to move, roll {}\n",
            s.pos[0],
            s.pos[1],
            s.pos[2],
            self.player_name(s.to_move as usize),
            s.roll
        )
    }
    fn observation_len(&self) -> usize {
        5
    }
    fn observe(&self, s: &Race, player: Player, out: &mut [f32]) {
        for (i, o) in out[..3].iter_mut().enumerate() {
            *o = s.pos[(player + i) % 3] as f32 / GOAL as f32;
        }
        out[3] = s.to_move as f32;
        out[4] = s.roll as f32;
    }
}

#[test]
fn shipped_games_pass_the_checker() {
    let opts = CheckOptions::default();
    check_game(&TicTacToe, &opts).unwrap();
    for (rows, cols) in [(3, 3), (4, 4), (2, 5), (6, 3), (8, 8)] {
        let g = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        check_game(&g, &opts).unwrap();
    }
}

#[test]
fn a_chance_game_with_three_players_passes_the_checker() {
    let report = check_game(&DiceRace, &CheckOptions::default()).unwrap();
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
    let mut env = Env::with_opponents(DiceRace, 1, opponents, 11).unwrap();
    let wrong: Vec<Option<Box<dyn Policy<DiceRace>>>> =
        vec![None, None, Some(Box::new(RandomPolicy))];
    assert!(Env::with_opponents(DiceRace, 1, wrong, 11).is_err());
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

    let mut aec = AecEnv::new(DiceRace, 3);
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
    let graph = StateGraph::build(&DiceRace, 1 << 20).unwrap();
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
    let mut env = AecEnv::new(DiceRace, 42);
    let mut rng = solvedgym::rng(43);
    for _ in 0..episodes {
        env.reset(None);
        while env.agent_selection().is_some() {
            let legal = env.legal_actions().to_vec();
            let a = RandomPolicy
                .choose(&DiceRace, env.state(), &legal, &mut rng)
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
