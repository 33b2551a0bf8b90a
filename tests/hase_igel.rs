//! Hase und Igel as a user meets it: the environment checker for 2, 3 and 6 hares and short
//! custom tracks; the exact solver against an independent brute-force expectimax on tiny
//! tracks; `solve`, `moves`, `stats` and `play` with their JSON keys; and the small-variant
//! config learning under the exact evaluator.

mod common;

use common::{solvedgym, solvedgym_json as json};
use solvedgym::core::check::{CheckOptions, check_game};
use solvedgym::core::game::{Game, Turn};
use solvedgym::games::hase_igel::End;
use solvedgym::games::hase_igel::cards::Deck;
use solvedgym::games::{HaseUndIgel, HaseUndIgelParams};
use solvedgym::truth::expect::{ExpectSolution, brute_force};

fn hui(params: HaseUndIgelParams) -> HaseUndIgel {
    HaseUndIgel::new(params).unwrap()
}

#[test]
fn the_checker_passes_for_two_three_and_six_hares_and_custom_tracks() {
    let opts = CheckOptions::default();
    for players in [2, 3, 6] {
        for (board, deck, end) in [
            ("2008", Deck::edition_2008(), End::First),
            ("classic", Deck::classic(), End::Ranks),
        ] {
            let g = hui(HaseUndIgelParams {
                players,
                board: board.into(),
                deck,
                end,
                ..Default::default()
            });
            let report = check_game(&g, &opts).unwrap_or_else(|e| panic!("{players} {board}: {e}"));
            assert!(report.chance_states > 0);
        }
    }
    for (board, carrots, players) in [("HCSIC2", 12, 2), ("CHI3S1H2C4I", 20, 3), ("H", 3, 4)] {
        let g = hui(HaseUndIgelParams {
            players,
            board: board.into(),
            carrots: Some(carrots),
            salads: 1,
            max_rounds: 12,
            ..Default::default()
        });
        check_game(&g, &opts).unwrap_or_else(|e| panic!("{board}: {e}"));
    }
}

#[test]
fn the_exact_solver_agrees_with_brute_force_on_tiny_tracks() {
    let cases = [
        ("HCS", 2, 6, 1, 3, Deck::edition_2008()),
        ("HCSI2", 2, 8, 1, 3, Deck::edition_2008()),
        ("CHI1", 2, 6, 0, 3, Deck::classic()),
        ("HC", 3, 4, 0, 2, Deck::edition_2008()),
        ("H2C", 3, 5, 1, 2, Deck::classic()),
    ];
    for (board, players, carrots, salads, rounds, deck) in cases {
        let g = hui(HaseUndIgelParams {
            players,
            board: board.into(),
            carrots: Some(carrots),
            salads,
            max_rounds: rounds,
            deck,
            ..Default::default()
        });
        let solution = ExpectSolution::solve(&g, 1 << 22).unwrap();
        assert!(solution.graph().len() > 50, "{board}: too small to test");
        let start = g.initial_state();
        for p in 0..players {
            let want = brute_force(&g, &start, p);
            let got = solution.win_probability(&start, p).unwrap();
            assert!(
                (want - got).abs() < 1e-9,
                "{board} seat {p}: brute force {want}, solver {got}"
            );
        }
        // And at positions deeper in: every state of the first few hundred.
        for id in (0..solution.graph().len() as u32).step_by(37).take(40) {
            let s = solution.graph().state(id);
            let want = brute_force(&g, s, 0);
            let got = solution.win_probability(s, 0).unwrap();
            assert!((want - got).abs() < 1e-9, "{board} state {id}");
        }
    }
}

#[test]
fn solve_prints_the_small_variants_truth_and_refuses_the_full_board() {
    let r = json(&[
        "solve",
        "hase-und-igel",
        "--board",
        "HCSIC2C3I1HC",
        "--carrots",
        "20",
        "--salads",
        "1",
        "--players",
        "2",
        "--max-rounds",
        "4",
        "--json",
    ]);
    for key in [
        "states",
        "terminal_states",
        "win_probability",
        "best_moves",
        "seconds",
    ] {
        assert!(r.get(key).is_some(), "no {key}: {r}");
    }
    let red = r["win_probability"]["red"].as_f64().unwrap();
    let green = r["win_probability"]["green"].as_f64().unwrap();
    assert!((red + green - 1.0).abs() < 1e-9 && red > 0.5, "{r}");
    assert_eq!(r["best_moves"], serde_json::json!(["3"]));
    let out = solvedgym(&["solve", "hase-und-igel"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && err.contains("by the game's estimate")
            && err.contains("small variant"),
        "{err}"
    );
}

#[test]
fn moves_lists_the_seed_codes_with_positions_and_card_probabilities() {
    let position =
        r#"{"hares":[{"cell":12,"carrots":40,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#;
    let m = json(&[
        "moves",
        "hase-und-igel",
        "--players",
        "2",
        "--state",
        position,
        "--json",
    ]);
    assert_eq!(m["to_move"], "red");
    let codes: Vec<&str> = m["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["-1", "1", "2", "4", "5", "6", "8"]);
    let onto_hare = &m["moves"][2];
    let cards = onto_hare["outcomes"].as_array().unwrap();
    assert_eq!(cards.len(), 8);
    let total: f64 = cards
        .iter()
        .map(|c| c["probability"].as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-12);
    // A position `moves` writes is read back as it is, parameters and all.
    let next = serde_json::to_string(&cards[4]["position"]).unwrap();
    let again = json(&["moves", "hase-und-igel", "--state", &next, "--json"]);
    assert_eq!(again["to_move"], "green");
    // Mistakes name what is wrong.
    let out = solvedgym(&["moves", "hase-und-igel", "--players", "3", "--state", &next]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--players 3: the position says players = 2"),
        "{err}"
    );
}

#[test]
fn stats_reports_length_branching_truncation_wins_cards_and_the_stuck_rule() {
    let s = json(&[
        "stats",
        "hase-und-igel",
        "--players",
        "2",
        "--games",
        "300",
        "--policy",
        "greedy",
        "--json",
    ]);
    for key in [
        "mean_plies",
        "mean_rounds",
        "mean_legal_moves",
        "truncated",
        "win_share",
        "chance_outcomes",
        "move_events",
    ] {
        assert!(s.get(key).is_some(), "no {key}: {s}");
    }
    let plies = s["mean_plies"].as_f64().unwrap();
    assert!((25.0..60.0).contains(&plies), "{s}");
    assert!(s["chance_outcomes"]["halve"].as_u64().unwrap() > 0, "{s}");
}

#[test]
fn a_person_plays_three_hares_against_the_greedy_player() {
    use solvedgym::ai::GreedyPolicy;
    let g = hui(HaseUndIgelParams::default());
    let mut out = Vec::new();
    // Always the first legal move ("moves" shows them), whatever it is: type codes until the end.
    let typed = "?\n11\n".to_string() + &"-1\n1\n2\n1001\n0\n-2\n3\n".repeat(200);
    solvedgym::tools::play::play(
        &g,
        g.initial_state(),
        0,
        &GreedyPolicy,
        None,
        3,
        &mut typed.as_bytes(),
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("no exact solution to ask"), "{text}");
    assert!(text.contains("illegal action \"11\""), "{text}");
    assert!(
        text.contains("green plays") && text.contains("blue plays"),
        "{text}"
    );
    assert!(text.contains("chance: "), "cards are drawn: {text}");
    // `--as` takes a seat number.
    let out = solvedgym(&["play", "hase-und-igel", "--players", "3", "--as", "7"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("or seats 0 to 2"), "{err}");
}

#[test]
fn the_small_variant_learns_under_the_exact_evaluator() {
    let dir = std::env::temp_dir().join(format!("solvedgym-hui-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/configs/hase-und-igel-small.toml"
    );
    let text = std::fs::read_to_string(config)
        .unwrap()
        .replace("episodes = 300000", "episodes = 3000")
        .replace("eval_interval = 15000", "eval_interval = 1500")
        .replace("seeds = 5", "seeds = 2");
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("small.toml");
    std::fs::write(&small, text).unwrap();
    let summary = json(&[
        "run",
        small.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
        "--json",
    ]);
    assert_eq!(summary["conditions"].as_array().unwrap().len(), 4);
    let finals = &summary["conditions"][0]["final_metrics"];
    for m in [
        "greedy_optimal_rate_optimal_play",
        "win_prob_vs_optimal",
        "return_vs_opponent",
    ] {
        let v = finals[m]["mean"].as_f64().unwrap();
        assert!(v.is_finite(), "{m}: {summary}");
    }
    assert!(
        finals.get("blunders").is_none(),
        "no win/draw/loss values to count blunders on"
    );
    let run = dir.join("hase-und-igel-small");
    assert!(
        !run.join("curves.csv").exists(),
        "curves.csv only with --csv"
    );
    for f in [
        "curves.parquet",
        "win_prob_vs_optimal.png",
        "greedy_optimal_rate_optimal_play.svg",
    ] {
        assert!(run.join(f).exists(), "missing {f}");
    }
}

#[test]
fn environments_report_the_cards_drawn_and_the_round_cap_as_truncation() {
    use solvedgym::core::env::{AecEnv, Env};
    use solvedgym::core::policy::{Policy, RandomPolicy};
    let g = hui(HaseUndIgelParams {
        players: 3,
        max_rounds: 6,
        ..Default::default()
    });
    let opponents: Vec<Option<Box<dyn Policy<HaseUndIgel>>>> = vec![
        Some(Box::new(RandomPolicy)),
        None,
        Some(Box::new(RandomPolicy)),
    ];
    let mut env = Env::with_opponents(g.clone(), 1, opponents, 7).unwrap();
    let mut cards = 0;
    let mut cut = 0;
    let mut rng = solvedgym::rng(8);
    for episode in 0..30 {
        env.reset(Some(episode));
        while !env.is_done() {
            let legal = env.legal_actions().to_vec();
            let a = RandomPolicy
                .choose(&g, env.state(), &legal, &mut rng)
                .unwrap();
            let before = *env.state();
            let step = env.step(a).unwrap();
            if let Some(&(seat, card)) = step.info.drawn.first() {
                // The first card after our move onto a hare cell is ours.
                if g.turn(&g.apply(&before, a)) == Turn::Chance {
                    assert_eq!(seat, 1);
                }
                assert!((card as usize) < solvedgym::games::hase_igel::cards::CARDS.len());
                cards += step.info.drawn.len();
            }
            if step.truncated {
                // The round cap: not terminated, and the rules' returns are paid.
                assert!(!step.terminated);
                assert!(g.is_cut_off(env.state()));
                assert_eq!(step.reward, env.returns().unwrap()[1]);
                cut += 1;
            }
        }
    }
    assert!(cards > 20 && cut > 0, "cards {cards}, cut off {cut}");
    // The turn-based view reports the same.
    let mut aec = AecEnv::new(g, 3);
    while let Some(agent) = aec.agent_selection() {
        let a = aec.legal_actions()[0];
        aec.step(a).unwrap();
        let _ = agent;
    }
    let (_, _, terminated, truncated, _) = aec.last(0);
    assert!(terminated != truncated);
}

#[test]
fn a_search_opponent_trains_a_learner_and_its_settings_are_checked() {
    let dir = std::env::temp_dir().join(format!("solvedgym-hui-search-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let game = "[game]\nname = \"hase-und-igel\"\nplayers = 2\nboard = \"HCSIC2C3I1HC\"\ncarrots = 20\nsalads = 1\nmax_rounds = 4\n";
    let config = dir.join("search.toml");
    std::fs::write(
        &config,
        format!("name = \"s\"\nepisodes = 400\neval_interval = 200\nseeds = 1\n{game}[[learners]]\nkind = \"td\"\nseat = \"red\"\n[[opponents]]\npolicy = \"search\"\nsettings = \"depth=2,mode=hybrid\"\n"),
    )
    .unwrap();
    let summary = json(&[
        "run",
        config.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
        "--json",
    ]);
    assert_eq!(
        summary["conditions"][0]["opponent"],
        "search depth=2,mode=hybrid,order,prune"
    );
    let resolved = std::fs::read_to_string(dir.join("s/config.toml")).unwrap();
    assert!(
        resolved.contains("settings = \"depth=2,mode=hybrid,order,prune\""),
        "{resolved}"
    );
    // Bad settings, and settings on another policy, name their key.
    for (opponent, says) in [
        (
            "policy = \"search\"\nsettings = \"depth=deep\"",
            "opponents[0].settings",
        ),
        (
            "policy = \"random\"\nsettings = \"depth=2\"",
            "`settings` belongs to policy = \"search\"",
        ),
    ] {
        std::fs::write(
            &config,
            format!("name = \"s\"\nepisodes = 10\n{game}[[learners]]\nkind = \"td\"\nseat = \"red\"\n[[opponents]]\n{opponent}\n"),
        )
        .unwrap();
        let out = solvedgym(&[
            "run",
            config.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{err}");
    }
}
