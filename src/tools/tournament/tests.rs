use super::*;
use crate::games::{DiceRace, DiceRaceParams, HaseUndIgel, HaseUndIgelParams, TicTacToe};

fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f)
}

/// The report as JSON without the wall-clock figures.
fn timeless(r: &TournamentReport) -> String {
    let mut v = serde_json::to_value(r).unwrap();
    v["seconds"] = serde_json::Value::Null;
    for row in v["rows"].as_array_mut().unwrap() {
        row["ms_per_move"] = serde_json::Value::Null;
    }
    v.to_string()
}

fn entrants(specs: &[&str]) -> Vec<PlayerSpec> {
    specs
        .iter()
        .map(|s| PlayerSpec::parse(s).unwrap())
        .collect()
}

/// For every entrant, how often it sits at each seat over one deal.
fn seat_counts(entrants: usize, players: usize) -> Vec<Vec<usize>> {
    let mut counts = vec![vec![0; players]; entrants];
    for seating in schedule(entrants, players) {
        assert_eq!(seating.len(), players);
        for (seat, &e) in seating.iter().enumerate() {
            counts[e][seat] += 1;
        }
    }
    counts
}

#[test]
fn every_entrant_sits_in_every_seat_equally_often() {
    for players in 2..=6 {
        for entrants in 1..=players {
            let counts = seat_counts(entrants, players);
            assert_eq!(
                schedule(entrants, players).len(),
                games_per_deal(entrants, players)
            );
            for (e, seats) in counts.iter().enumerate() {
                assert!(
                    seats.iter().all(|&n| n == seats[0] && n > 0),
                    "{entrants} entrants, {players} seats: entrant {e} sits {seats:?}"
                );
            }
        }
    }
    // 2 entrants, 3 seats: [0, 1, 0] and its rotations; entrant 0 holds two seats a game.
    assert_eq!(
        schedule(2, 3),
        vec![vec![0, 1, 0], vec![1, 0, 0], vec![0, 0, 1]]
    );
}

#[test]
fn more_entrants_than_seats_play_every_ordered_choice() {
    let s = schedule(4, 2);
    assert_eq!(s.len(), 12);
    assert_eq!(s[..4], [vec![0, 1], vec![0, 2], vec![0, 3], vec![1, 0]]);
    let mut distinct = s.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 12);
    assert!(s.iter().all(|g| g[0] != g[1]));
    let s = schedule(5, 3);
    assert_eq!((s.len(), games_per_deal(5, 3)), (60, 60));
    for (e, seats) in seat_counts(5, 3).iter().enumerate() {
        assert_eq!(seats, &vec![12; 3], "entrant {e}");
    }
    assert_eq!(games_per_deal(6, 6), 6);
    assert_eq!(games_per_deal(7, 6), 5040);
}

#[test]
fn win_shares_sum_to_one_per_game() {
    let cases = [
        Returns::from_slice(&[1.0, -1.0]),
        Returns::from_slice(&[0.0, 0.0]),
        Returns::from_slice(&[1.0, 1.0, -2.0]),
        Returns::from_slice(&[0.5, -0.25, 0.5, -0.75]),
        Returns::win(6, 4),
    ];
    for r in cases {
        let sum: f64 = (0..r.len()).map(|p| win_share(&r, p)).sum();
        assert!((sum - 1.0).abs() < 1e-12, "{r:?}");
    }
    let r = Returns::from_slice(&[1.0, 1.0, -2.0]);
    assert_eq!((win_share(&r, 0), win_share(&r, 2)), (0.5, 0.0));

    // And over whole tournaments: each game gives out one win, so the win rates weighted
    // by the seats held sum to one per game.
    let game = DiceRace::new(DiceRaceParams {
        players: 3,
        goal: 6,
    })
    .unwrap();
    for specs in [
        &["random", "depth=2"][..],
        &["random", "depth=1", "depth=2", "depth=3"],
    ] {
        let r = run(&game, &entrants(specs), 30, 4, &|_| {}).unwrap();
        let won: f64 = r.rows.iter().map(|w| w.win_rate * w.games as f64).sum();
        assert!((won - r.games as f64).abs() < 1e-6, "{r}");
        let seats: u64 = r.rows.iter().map(|w| w.games).sum();
        assert_eq!(seats, r.games * 3);
    }
}

#[test]
fn same_seed_same_report_on_one_or_two_threads() {
    let game = HaseUndIgel::new(HaseUndIgelParams {
        players: 3,
        max_rounds: 30,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    let es = entrants(&["depth=1", "greedy", "random"]);
    let one = on_threads(1, || run(&game, &es, 6, 7, &|_| {}).unwrap());
    let two = on_threads(2, || run(&game, &es, 6, 7, &|_| {}).unwrap());
    assert_eq!(timeless(&one), timeless(&two));
    let again = on_threads(2, || run(&game, &es, 6, 7, &|_| {}).unwrap());
    assert_eq!(timeless(&one), timeless(&again));
    let other = on_threads(2, || run(&game, &es, 6, 8, &|_| {}).unwrap());
    assert_ne!(timeless(&one), timeless(&other));
    assert_eq!((one.games, one.games_per_deal), (18, 3));
    let search = &one.rows[0];
    assert!(search.nodes_per_move.unwrap() > 1.0 && search.ms_per_move.is_some());
    assert!(one.rows[1].nodes_per_move.is_none() && one.rows[2].ms_per_move.is_none());
    assert!(
        one.rows
            .iter()
            .all(|r| r.games == 18 && r.plies_per_game > 0.0)
    );
}

#[test]
fn progress_counts_every_game() {
    let count = std::sync::atomic::AtomicU64::new(0);
    let r = run(&TicTacToe, &entrants(&["random", "depth=2"]), 5, 1, &|n| {
        count.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(count.into_inner(), r.games);
    assert_eq!(r.games, 10);
}

/// Perfect play never loses tic-tac-toe, and beats random play most of the time.
#[test]
fn optimal_entrants_play_the_solution() {
    let solution = crate::truth::Solution::solve(&TicTacToe, 1 << 20).unwrap();
    let r = run_solved(
        &TicTacToe,
        &entrants(&["optimal", "random"]),
        40,
        3,
        Some(&solution),
        &|_| {},
    )
    .unwrap();
    let (optimal, random) = (&r.rows[0], &r.rows[1]);
    assert_eq!(optimal.entrant, "optimal");
    assert_eq!(optimal.nodes_per_move, None);
    assert!(optimal.win_rate > 0.7, "{}", optimal.win_rate);
    // A draw shares the win: random never wins outright.
    assert!(random.win_rate <= 0.3, "{}", random.win_rate);
    assert!((optimal.win_rate + random.win_rate - 1.0).abs() < 1e-9);
}

#[test]
fn entrants_parse_and_bad_line_ups_are_refused() {
    assert_eq!(PlayerSpec::parse(" random "), Ok(PlayerSpec::Random));
    assert_eq!(PlayerSpec::parse("greedy"), Ok(PlayerSpec::Greedy));
    let deep = PlayerSpec::parse("depth=8,cutoffs=0-0-8-8-4").unwrap();
    assert_eq!(
        deep.name(),
        "depth=8,mode=paranoid,order,prune,cutoffs=0-0-8-8-4"
    );
    assert!(PlayerSpec::parse("depth=0").unwrap_err().contains("depth"));
    assert_eq!(PlayerSpec::parse("optimal"), Ok(PlayerSpec::Optimal));
    let mcts = PlayerSpec::parse("mcts,sims=50").unwrap();
    assert_eq!(mcts.name(), "mcts,sims=50,c=2,rollouts=1");
    assert!(
        PlayerSpec::parse("mcts,depth=2")
            .unwrap_err()
            .starts_with("`depth=2`: not an MCTS setting")
    );
    // MCTS against random: it wins, and its simulations are counted per move.
    let report = run(
        &TicTacToe,
        &entrants(&["mcts,sims=200", "random"]),
        5,
        1,
        &|_| {},
    )
    .unwrap();
    let row = &report.rows[0];
    assert_eq!(row.entrant, "mcts,sims=200,c=2,rollouts=1");
    assert!(row.win_rate > 0.7, "{row:?}");
    assert!(row.nodes_per_move.unwrap() > 0.0 && row.nodes_per_move.unwrap() <= 200.0);
    assert!(
        PlayerSpec::parse("bogus")
            .unwrap_err()
            .contains("optimal, greedy, random")
    );
    assert!(PlayerSpec::parse("").is_err());
    let e = run(&TicTacToe, &entrants(&["optimal", "random"]), 1, 1, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("was not solved"), "{e}");

    let hui = HaseUndIgel::new(HaseUndIgelParams::default()).unwrap();
    let one = entrants(&["random"]);
    assert_eq!(
        run(&hui, &one, 1, 1, &|_| {}).unwrap_err(),
        TournamentError::TooFewEntrants(1)
    );
    let twice = entrants(&["depth=4", "depth=4,order,prune"]);
    assert!(matches!(
        check(&hui, &twice, 1),
        Err(TournamentError::Duplicate(_))
    ));
    assert_eq!(
        check(&hui, &entrants(&["random", "greedy"]), 0),
        Err(TournamentError::NoDeals)
    );
    let greedy = check(&TicTacToe, &entrants(&["random", "greedy"]), 1).unwrap_err();
    assert!(greedy.to_string().contains("no heuristic"), "{greedy}");
    assert!(blind_search(&TicTacToe, &entrants(&["random", "depth=9"])));
    assert!(!blind_search(&hui, &entrants(&["random", "depth=9"])));
    let crowd: Vec<PlayerSpec> = (1..=12)
        .map(|d| entrants(&[&format!("depth={d}")]).remove(0))
        .collect();
    let hui6 = HaseUndIgel::new(HaseUndIgelParams {
        players: 6,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    assert!(matches!(
        check(&hui6, &crowd, 1),
        Err(TournamentError::TooManyGames { games: 665_280, .. })
    ));
}

/// The head-to-head table recounted from the games played again one by one: for each
/// game, each pair of seats held by different entrants, compared by their returns.
#[test]
fn head_to_head_recounts_the_games() {
    let game = DiceRace::new(DiceRaceParams {
        players: 3,
        goal: 6,
    })
    .unwrap();
    for specs in [
        &["random", "depth=1"][..],
        &["random", "depth=1", "depth=2", "depth=3"],
    ] {
        let es = entrants(specs);
        let (deals, seed) = (6, 11);
        let r = run(&game, &es, deals, seed, &|_| {}).unwrap();
        let ready = prepare(&game, &es, None).unwrap();
        let n = es.len();
        let mut expected = vec![[0u64; 4]; n * n];
        for deal in 0..deals {
            for seating in schedule(n, 3) {
                let cap = max_plies(&game);
                let g = play_one(&game, &ready, &seating, cap, derive_seed(seed, deal));
                for a in 0..n {
                    for b in 0..n {
                        if a != b && seating.contains(&a) && seating.contains(&b) {
                            expected[a * n + b][0] += 1;
                        }
                    }
                }
                for (s, &a) in seating.iter().enumerate() {
                    for (t, &b) in seating.iter().enumerate() {
                        if a != b {
                            let (x, y) = (g.returns[s], g.returns[t]);
                            let k = if x > y {
                                1
                            } else if x < y {
                                3
                            } else {
                                2
                            };
                            expected[a * n + b][k] += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(r.head_to_head.len(), n * (n - 1));
        for h in &r.head_to_head {
            let a = r.entrants.iter().position(|e| *e == h.entrant).unwrap();
            let b = r.entrants.iter().position(|e| *e == h.opponent).unwrap();
            assert_eq!(
                [h.games, h.wins, h.draws, h.losses],
                expected[a * n + b],
                "{specs:?}: {h:?}"
            );
        }
    }
}

#[test]
fn full_depth_search_never_loses_tictactoe() {
    let es = entrants(&["depth=9", "random"]);
    let ready = prepare(&TicTacToe, &es, None).unwrap();
    for deal in 0..40 {
        for seating in schedule(2, 2) {
            let g = play_one(&TicTacToe, &ready, &seating, 100, derive_seed(3, deal));
            let search = seating.iter().position(|&e| e == 0).unwrap();
            assert!(
                g.returns[search] >= g.returns[1 - search],
                "deal {deal}, {seating:?}: {:?}",
                g.returns
            );
        }
    }
    let r = run(&TicTacToe, &es, 40, 3, &|_| {}).unwrap();
    let (search, random) = (&r.rows[0], &r.rows[1]);
    // A draw shares the win.
    assert!(search.win_rate >= 0.75 && search.mean_rank < 1.25, "{r}");
    assert!((search.win_rate + random.win_rate - 1.0).abs() < 1e-9);
}

/// A search entrant's evaluation settings reach its heuristic (and only its own); settings
/// the game does not take are refused before play, naming the entrant.
#[test]
fn each_search_entrant_evaluates_with_its_own_settings() {
    let game = HaseUndIgel::new(HaseUndIgelParams {
        players: 2,
        max_rounds: 30,
        ..HaseUndIgelParams::default()
    })
    .unwrap();
    let plain = run(&game, &entrants(&["depth=1", "random"]), 4, 2, &|_| {}).unwrap();
    let tuned = run(&game, &entrants(&["depth=1,kc=0", "random"]), 4, 2, &|_| {}).unwrap();
    assert_eq!(tuned.entrants[0], "depth=1,mode=paranoid,order,prune,kc=0");
    assert_ne!(timeless(&plain), timeless(&tuned));
    // Both at once: two entrants that differ only in their evaluation.
    let both = run(
        &game,
        &entrants(&["depth=1", "depth=1,kc=0"]),
        2,
        2,
        &|_| {},
    )
    .unwrap();
    assert_eq!(both.rows.len(), 2);
    for bad in [
        &["depth=1,bogus=1", "random"][..],
        &["depth=1,kc=x", "random"],
    ] {
        let e = run(&game, &entrants(bad), 1, 1, &|_| {}).unwrap_err();
        assert!(
            matches!(&e, TournamentError::Evaluation { entrant, .. } if entrant.contains(bad[0].split(',').nth(1).unwrap())),
            "{e}"
        );
    }
    let e = run(
        &TicTacToe,
        &entrants(&["depth=9,kc=1", "random"]),
        1,
        1,
        &|_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("kc=1"), "{e}");
}

#[test]
fn the_bar_chart_is_written() {
    let r = run(&TicTacToe, &entrants(&["depth=9", "random"]), 4, 3, &|_| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["t.svg", "sub/t.png"] {
        let path = dir.path().join(name);
        plot(&r, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 1000);
    }
    let svg = std::fs::read_to_string(dir.path().join("t.svg")).unwrap();
    assert!(
        svg.contains("chance: 1/2") && svg.contains("depth=9"),
        "{svg}"
    );
    // Each bar is named under it by its AI.
    for (i, row) in r.rows.iter().enumerate() {
        let label = format!("\n{} {}\n", i + 1, row.entrant);
        assert!(svg.contains(&label), "{label}: {svg}");
    }
    assert!(plot(&r, &dir.path().join("t.pdf")).is_err());
}
