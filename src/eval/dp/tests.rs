use super::*;
use crate::core::game::Action;
use crate::core::policy::RandomPolicy;
use crate::games::TicTacToe;
use crate::learn::Learner;
use crate::truth::OptimalPolicy;

#[test]
fn optimal_policy_is_perfect_and_random_is_not() {
    let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let opt = OptimalPolicy::new(&sol);
    let r = evaluate_policy(&sol, &[0], &opt).unwrap();
    assert!((r.optimal_rate_all - 1.0).abs() < 1e-12);
    assert!((r.optimal_rate_faced - 1.0).abs() < 1e-12);
    assert_eq!(r.blunders + r.mistakes, 0);
    let rnd = evaluate_policy(&sol, &[0], &RandomPolicy).unwrap();
    assert!(rnd.optimal_rate_all < 1.0 && rnd.mistakes > 0);
    assert_eq!(
        rnd.states_faced, rnd.states_all,
        "random play faces every position"
    );
    // Optimal vs optimal draws; random x against optimal o never wins.
    let g = sol.graph();
    let both = expected_result(g, &[&opt, &opt], 0).unwrap();
    assert!((both.draw - 1.0).abs() < 1e-12);
    let vs = expected_result(g, &[&RandomPolicy, &opt], 0).unwrap();
    assert_eq!(vs.win, 0.0);
    assert!(vs.loss > 0.5);
    let wc = worst_case(g, 0, &opt, Objective::ExpectedReturn).unwrap();
    assert!(wc.expected_return.abs() < 1e-12);
    assert_eq!(minimax_return(g, 0).unwrap(), 0.0);
}

/// The profile tabulated on every core is the one tabulated position by position, to the
/// bit (Hexapawn 4x4: more positions than one block).
#[test]
fn a_profile_tabulated_in_parallel_is_the_same() {
    let game =
        crate::games::Hexapawn::new(crate::games::hexapawn::HexapawnParams { rows: 4, cols: 4 })
            .unwrap();
    let sol = Solution::solve(&game, 1 << 22).unwrap();
    let g = sol.graph();
    assert!(g.len() > 1 << 14, "{}", g.len());
    let opt = OptimalPolicy::new(&sol);
    for policies in [
        vec![Some(&opt as &dyn Policy<_>), None],
        vec![None, Some(&RandomPolicy as &dyn Policy<_>)],
    ] {
        let (a, b) = (
            Profile::new(g, &policies).unwrap(),
            Profile::new_parallel(g, &policies).unwrap(),
        );
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.edge), bits(&b.edge));
        assert_eq!(bits(&a.resign), bits(&b.resign));
        assert_eq!(a.known, b.known);
    }
}

/// The best response to random play in tic-tac-toe: X wins 0.9948 (worked out by hand
/// beforehand), never loses; O wins 0.9344 of its games. No policy does better: neither
/// perfect play nor random play.
#[test]
fn the_best_reply_to_random_play_is_the_ceiling() {
    let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let g = sol.graph();
    let random = Profile::new(g, &[Some(&RandomPolicy as &dyn Policy<_>); 2]).unwrap();
    let x = best_reply(g, 0, &random).unwrap();
    assert_eq!(format!("{:.4}", x.result.expected_return), "0.9948");
    assert_eq!(x.result.loss, 0.0);
    let o = best_reply(g, 1, &random).unwrap();
    assert_eq!(format!("{:.4}", o.result.win), "0.9344");
    let opt = OptimalPolicy::new(&sol);
    for (seat, reply) in [(0, &x), (1, &o)] {
        let mut seats: Vec<&dyn Policy<_>> = vec![&RandomPolicy, &RandomPolicy];
        for mine in [&opt as &dyn Policy<_>, &RandomPolicy] {
            seats[seat] = mine;
            let r = expected_result(g, &seats, seat).unwrap();
            assert!(r.expected_return <= reply.result.expected_return + 1e-12);
        }
        // It chooses a move at each of its positions, nowhere else.
        for id in 0..g.len() as StateId {
            let its = g.turn(id) == Turn::Player(seat);
            assert_eq!(reply.choice[id as usize].is_some(), its);
        }
    }
}

#[test]
fn a_frozen_policy_plays_what_it_copied_and_a_shared_one_can_be_replaced() {
    use crate::core::policy::SharedPolicy;
    let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let g = sol.graph();
    let opt = OptimalPolicy::new(&sol);
    let frozen = FrozenPolicy::new(g, &opt).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for id in 0..g.len() as StateId {
        if let Turn::Player(_) = g.turn(id) {
            opt.probabilities(&TicTacToe, g.state(id), g.actions(id), &mut a);
            frozen.probabilities(&TicTacToe, g.state(id), g.actions(id), &mut b);
            assert_eq!(a, b, "state {id}");
            // Asked in another order, it answers in that order.
            let reversed: Vec<Action> = g.actions(id).iter().rev().copied().collect();
            frozen.probabilities(&TicTacToe, g.state(id), &reversed, &mut b);
            a.reverse();
            assert_eq!(a, b, "state {id}, reversed");
        }
    }
    // Shared: every clone plays the replacement.
    let shared = SharedPolicy::new(frozen);
    let clone = shared.clone();
    let r = expected_result(g, &[&clone, &clone], 0).unwrap();
    assert!((r.draw - 1.0).abs() < 1e-12);
    shared.replace(FrozenPolicy::new(g, &RandomPolicy).unwrap());
    let r = expected_result(g, &[&clone, &clone], 0).unwrap();
    assert!((r.win - 0.5849).abs() < 1e-4, "{r:?}");
    assert!(clone.name().contains("random"), "{}", clone.name());
}

#[test]
fn random_vs_random_tictactoe_matches_the_known_probabilities() {
    // Checked against an independent walk over all 255,168 games with their probabilities.
    let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let r = expected_result(sol.graph(), &[&RandomPolicy, &RandomPolicy], 0).unwrap();
    fn walk(
        g: &TicTacToe,
        s: &crate::games::tictactoe::TicTacToeState,
        p: f64,
        acc: &mut [f64; 3],
    ) {
        match g.turn(s) {
            Turn::Terminal => match g.returns(s).winner() {
                Some(0) => acc[0] += p,
                Some(_) => acc[2] += p,
                None => acc[1] += p,
            },
            _ => {
                let mut legal = Vec::new();
                g.legal_actions(s, &mut legal);
                let q = p / legal.len() as f64;
                for a in legal {
                    walk(g, &g.apply(s, a), q, acc);
                }
            }
        }
    }
    let mut acc = [0.0; 3];
    walk(&TicTacToe, &TicTacToe.initial_state(), 1.0, &mut acc);
    assert!((r.win - acc[0]).abs() < 1e-12);
    assert!((r.draw - acc[1]).abs() < 1e-12);
    assert!((r.loss - acc[2]).abs() < 1e-12);
}

#[test]
fn one_backward_pass_for_all_lanes_gives_the_bits_of_one_pass_each() {
    use crate::learn::menace::{Matchbox, MatchboxConfig};
    use crate::learn::q_learning::{QConfig, QLearner};
    use crate::learn::tests::train_self_play;
    // A half-trained Q-learner on tic-tac-toe, and HER on Hexapawn, which resigns.
    fn check<G: Game>(sol: &Solution<G>, learner: &dyn Learner<G>) {
        let g = sol.graph();
        let everywhere = |p: &dyn Policy<G>| Profile::new(g, &[Some(p), Some(p)]).unwrap();
        let optimal = everywhere(&OptimalPolicy::new(sol));
        let random = everywhere(&RandomPolicy);
        let behaviour = everywhere(learner.policy().as_ref());
        let greedy = everywhere(learner.greedy_policy().as_ref());
        let bits =
            |r: &ExpectedResult| [r.win, r.draw, r.loss, r.expected_return].map(f64::to_bits);
        let mut scratch = Vec::new();
        for seat in 0..2 {
            let lanes = [
                Lane {
                    seat,
                    mine: &behaviour,
                    theirs: Some(&optimal),
                },
                Lane {
                    seat,
                    mine: &behaviour,
                    theirs: Some(&random),
                },
                Lane {
                    seat,
                    mine: &greedy,
                    theirs: Some(&optimal),
                },
                Lane {
                    seat,
                    mine: &behaviour,
                    theirs: None,
                },
            ];
            let got = backward_lanes(g, &lanes, &mut scratch).unwrap();
            for (lane, r) in lanes.iter().zip(&got).take(3) {
                let theirs = lane.theirs.unwrap();
                let mixed = Profile::mix(g, &[lane.mine, theirs], |p| usize::from(p != seat));
                let apart = expected_result_of(g, &mixed, seat).unwrap();
                assert_eq!(bits(r), bits(&apart), "seat {seat}");
            }
            let worst = worst_case_of(g, seat, &behaviour, Objective::ExpectedReturn).unwrap();
            assert_eq!(bits(&got[3]), bits(&worst), "seat {seat}");
        }
    }
    let sol = Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let mut q = QLearner::new(&TicTacToe, "q", QConfig::default());
    train_self_play(&TicTacToe, &mut q, 5_000, 1);
    check(&sol, &q);
    let hexapawn = crate::games::Hexapawn::new(crate::games::HexapawnParams::default()).unwrap();
    let sol = Solution::solve(&hexapawn, 1 << 20).unwrap();
    let mut her = Matchbox::new("her", MatchboxConfig::her());
    train_self_play(&hexapawn, &mut her, 200, 1);
    check(&sol, &her);
}
