//! What is exact about Gardner's HER: once it has converged against a White that gives every
//! move a positive probability (no White can beat it any more), every bead left in a box it can
//! still reach is a winning move, and every box whose moves all lose is empty or out of reach.
//! Checked against the solver. "Empty" alone does not follow from the rule: a losing box keeps
//! its beads when the bead leading into it is confiscated first (after White won at once), and
//! such machines exist (pinned below). Also: the exact dynamic-programming result of a learned
//! policy against sampling.

use solvedgym::core::env::{AecEnv, Env};
use solvedgym::core::game::{Game, Turn};
use solvedgym::core::policy::{Policy, RandomPolicy};
use solvedgym::eval::{Objective, expected_result, worst_case};
use solvedgym::games::hexapawn::BLACK;
use solvedgym::games::{Hexapawn, HexapawnParams};
use solvedgym::learn::menace::{Matchbox, MatchboxConfig};
use solvedgym::learn::{Learner, play_vs_opponent};
use solvedgym::rng;
use solvedgym::truth::Solution;

fn hexapawn() -> Hexapawn {
    Hexapawn::new(HexapawnParams::default()).unwrap()
}

/// Trains HER against random White until no White can beat it; returns the games it took.
fn train_until_converged(
    her: &mut Matchbox<Hexapawn>,
    solution: &Solution<Hexapawn>,
    seed: u64,
) -> u64 {
    let game = hexapawn();
    let mut env = Env::new(game, BLACK, Box::new(RandomPolicy), seed).unwrap();
    let mut r = rng(seed + 1000);
    for games in 1..=20_000 {
        play_vs_opponent(&mut env, her, &mut r);
        let worst = worst_case(
            solution.graph(),
            BLACK,
            her.policy().as_ref(),
            Objective::WinProbability,
        )
        .unwrap();
        if worst.win == 1.0 {
            return games;
        }
    }
    panic!("HER (seed {seed}) did not converge in 20,000 games");
}

#[test]
fn converged_her_keeps_only_winning_beads() {
    let game = hexapawn();
    let solution = Solution::solve(&game, 1 << 20).unwrap();
    let graph = solution.graph();
    let mut lost_boxes_left_with_beads = 0;
    for symmetry in [true, false] {
        for seed in 0..20 {
            let mut her = Matchbox::new(
                "her",
                MatchboxConfig {
                    symmetry,
                    ..MatchboxConfig::her()
                },
            );
            train_until_converged(&mut her, &solution, seed);

            // The positions HER can still reach: its own moves with beads left, any White move.
            let policy = her.policy();
            let mut reach = vec![false; graph.len()];
            reach[0] = true;
            let mut probs = Vec::new();
            for id in 0..graph.len() as u32 {
                // Breadth-first numbering: parents come before their children.
                if !reach[id as usize] {
                    continue;
                }
                let children = graph.children(id);
                match graph.turn(id) {
                    Turn::Player(p) if p == BLACK => {
                        policy.probabilities(&game, graph.state(id), graph.actions(id), &mut probs);
                        assert!(
                            probs.iter().sum::<f64>() > 0.0,
                            "a reachable box is empty (HER would resign)"
                        );
                        for ((_, value), (&child, &p)) in
                            solution.move_values(id).zip(children.iter().zip(&probs))
                        {
                            if p > 0.0 {
                                assert_eq!(
                                    value.winner(),
                                    Some(BLACK),
                                    "a bead left for a losing move\n{}",
                                    game.render(graph.state(id))
                                );
                                reach[child as usize] = true;
                            }
                        }
                    }
                    Turn::Player(_) => children.iter().for_each(|&c| reach[c as usize] = true),
                    _ => {}
                }
            }

            // Every box HER opened whose every move loses is empty or out of reach.
            for (position, b) in her.boxes() {
                let id = solution
                    .id(position)
                    .expect("a box is a reachable position");
                let every_move_loses = solution
                    .move_values(id)
                    .all(|(_, v)| v.winner() != Some(BLACK));
                if every_move_loses && b.total() > 0 {
                    assert!(
                        !reach[id as usize],
                        "seed {seed}: a reachable lost box holds beads\n{}",
                        game.render(position)
                    );
                    lost_boxes_left_with_beads += 1;
                }
            }
        }
    }
    // The stronger reading ("every losing box is empty") is false for some machines.
    assert!(lost_boxes_left_with_beads > 0);
}

#[test]
fn exact_result_of_a_learned_policy_matches_sampling() {
    let game = hexapawn();
    let solution = Solution::solve(&game, 1 << 20).unwrap();
    let mut her = Matchbox::new("her", MatchboxConfig::her());
    let mut env = Env::new(game.clone(), BLACK, Box::new(RandomPolicy), 5).unwrap();
    let mut r = rng(6);
    for _ in 0..8 {
        play_vs_opponent(&mut env, &mut her, &mut r);
    }
    let her_policy = her.policy();
    let policies: Vec<&dyn Policy<Hexapawn>> = vec![&RandomPolicy, her_policy.as_ref()];
    let exact = expected_result(solution.graph(), &policies, BLACK).unwrap();
    assert!(exact.win > 0.0 && exact.win < 1.0, "{exact:?}");

    // Sample the same frozen policies (HER resigns from an empty box).
    let episodes = 100_000;
    let mut wins = 0;
    let mut aec = AecEnv::new(game.clone(), 7);
    for _ in 0..episodes {
        aec.reset(None);
        while let Some(p) = aec.agent_selection() {
            let legal = aec.legal_actions().to_vec();
            match policies[p].choose(&game, aec.state(), &legal, &mut r) {
                Some(a) => aec.step(a).unwrap(),
                None => aec.resign().unwrap(),
            }
        }
        if aec.rewards()[BLACK] > 0.0 {
            wins += 1;
        }
    }
    let sampled = wins as f64 / episodes as f64;
    let tolerance = 5.0 * (exact.win * (1.0 - exact.win) / episodes as f64).sqrt();
    assert!(
        (sampled - exact.win).abs() < tolerance,
        "exact {} vs sampled {sampled}",
        exact.win
    );
}
