//! `solvedgym tournament` as a user meets it: a full-depth search against random tic-tac-toe,
//! a shallow search against random Hase und Igel hares with the JSON keys, the table, the
//! plot, and the errors for line-ups that cannot be played.

mod common;

use common::{solvedgym, solvedgym_json as json};

fn row<'a>(report: &'a serde_json::Value, entrant: &str) -> &'a serde_json::Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["entrant"] == entrant)
        .unwrap_or_else(|| panic!("no row {entrant}: {report}"))
}

#[test]
fn full_depth_search_wins_tictactoe_against_random_play() {
    let r = json(&[
        "tournament",
        "tictactoe",
        "--ai",
        "depth=9",
        "--ai",
        "random",
        "--games",
        "100",
        "--json",
    ]);
    assert_eq!(
        [&r["deals"], &r["games_per_deal"], &r["games"]],
        [100, 2, 200]
    );
    let search = row(&r, "depth=9,mode=paranoid,order,prune");
    let random = row(&r, "random");
    // Draws share the win, so random play's share is half the draws it holds; it never wins.
    let (s, x) = (
        search["win_rate"].as_f64().unwrap(),
        random["win_rate"].as_f64().unwrap(),
    );
    assert!(s >= 0.9, "{r}");
    assert!((s + x - 1.0).abs() < 1e-9, "{r}");
    assert!(search["mean_rank"].as_f64().unwrap() < 1.1, "{r}");
    assert!(search["nodes_per_move"].as_f64().unwrap() > 1.0);
    assert!(random["nodes_per_move"].is_null() && random["ms_per_move"].is_null());
}

#[test]
fn a_shallow_search_beats_random_hares_and_the_json_has_every_key() {
    let args = [
        "tournament",
        "hase-und-igel",
        "--players",
        "2",
        "--ai",
        "depth=2",
        "--ai",
        "random",
        "--games",
        "20",
        "--seed",
        "3",
        "--json",
    ];
    let r = json(&args);
    for key in [
        "game",
        "params",
        "players",
        "deals",
        "games_per_deal",
        "games",
        "seed",
        "entrants",
        "rows",
        "seconds",
    ] {
        assert!(r.get(key).is_some(), "no {key}: {r}");
    }
    assert_eq!(r["game"], "hase-und-igel");
    assert_eq!(r["params"]["players"], 2);
    assert_eq!([&r["players"], &r["seed"], &r["games"]], [2, 3, 40]);
    assert_eq!(
        r["entrants"],
        serde_json::json!(["depth=2,mode=paranoid,order,prune", "random"])
    );
    let search = row(&r, "depth=2,mode=paranoid,order,prune");
    for key in [
        "games",
        "win_rate",
        "win_rate_low",
        "win_rate_high",
        "mean_rank",
        "mean_rank_low",
        "mean_rank_high",
        "plies_per_game",
        "nodes_per_move",
        "ms_per_move",
    ] {
        assert!(search.get(key).is_some(), "no {key}: {search}");
    }
    assert_eq!(search["games"], 40);
    let win = search["win_rate"].as_f64().unwrap();
    let (lo, hi) = (
        search["win_rate_low"].as_f64().unwrap(),
        search["win_rate_high"].as_f64().unwrap(),
    );
    assert!(win > 0.5 && lo <= win && win <= hi && hi <= 1.0, "{r}");
    assert!(search["plies_per_game"].as_f64().unwrap() > 10.0);

    // The same seed gives the same figures (the wall-clock ones aside).
    let again = json(&args);
    let timeless = |mut v: serde_json::Value| {
        v["seconds"] = serde_json::Value::Null;
        for row in v["rows"].as_array_mut().unwrap() {
            row["ms_per_move"] = serde_json::Value::Null;
        }
        v
    };
    assert_eq!(timeless(r), timeless(again));
}

#[test]
fn the_table_names_the_entrants_and_the_plot_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("plots/tournament.svg");
    let out = solvedgym(&[
        "tournament",
        "hase-und-igel",
        "--players",
        "3",
        "--ai",
        "depth=1",
        "--ai",
        "greedy",
        "--ai",
        "random",
        "--games",
        "4",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "4 deals x 3 games = 12 games",
        "win rate [95% CI]",
        "depth=1,mode=paranoid,order,prune",
        "greedy",
        "random",
        "equal play wins 1/3",
    ] {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("<svg") && svg.contains("chance: 1/3"), "{svg}");
}

#[test]
fn line_ups_that_cannot_play_are_refused_with_the_reason() {
    let cases: [(&[&str], &str); 5] = [
        (&["--ai", "random"], "at least 2 entrants"),
        (&["--ai", "random", "--ai", "greedy"], "no heuristic"),
        (&["--ai", "depth=3", "--ai", "depth=3,prune"], "named twice"),
        (&["--ai", "random", "--ai", "depth=x"], "--ai depth=x"),
        (
            &["--ai", "random", "--ai", "depth=2", "--games", "0"],
            "at least one deal",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["tournament", "tictactoe"];
        all.extend_from_slice(args);
        let out = solvedgym(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let out = solvedgym(&[
        "tournament",
        "tictactoe",
        "--ai",
        "depth=9",
        "--ai",
        "random",
        "--plot",
        "x.pdf",
        "--games",
        "1",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
}

#[test]
fn the_help_explains_deals_seats_and_intervals() {
    let out = solvedgym(&["tournament", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "A deal is one seed",
        "rotation",
        "1.96",
        "Examples:",
        "depend on the machine",
    ] {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
}

/// The head-to-head entry of `entrant` against `opponent`.
fn h2h<'a>(report: &'a serde_json::Value, entrant: &str, opponent: &str) -> &'a serde_json::Value {
    report["head_to_head"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["entrant"] == entrant && h["opponent"] == opponent)
        .unwrap_or_else(|| panic!("no {entrant} against {opponent}: {report}"))
}

fn counts(h: &serde_json::Value) -> [u64; 4] {
    ["games", "wins", "draws", "losses"].map(|k| h[k].as_u64().unwrap())
}

/// Known results: tic-tac-toe is a draw, so two perfect players draw every game they meet in,
/// and neither loses to random play; with three entrants for two seats each pair meets in the
/// two orders of every deal.
#[test]
fn head_to_head_counts_the_results_known_in_advance() {
    let deals = 10u64;
    let r = json(&[
        "tournament",
        "tictactoe",
        "--ai",
        "optimal",
        "--ai",
        "depth=9",
        "--ai",
        "random",
        "--games",
        &deals.to_string(),
        "--json",
        "--quiet",
    ]);
    let search = "depth=9,mode=paranoid,order,prune";
    let names = ["optimal", search, "random"];
    assert_eq!(r["head_to_head"].as_array().unwrap().len(), 6, "{r}");
    // Every ordered pair, in the entrants' order.
    let order: Vec<(String, String)> = r["head_to_head"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["entrant"].to_string(), h["opponent"].to_string()))
        .collect();
    let mut expected = Vec::new();
    for a in names {
        for b in names.iter().filter(|&&b| b != a) {
            expected.push((format!("\"{a}\""), format!("\"{b}\"")));
        }
    }
    assert_eq!(order, expected);
    for a in names {
        for b in names.iter().filter(|&&b| b != a) {
            let [games, wins, draws, losses] = counts(h2h(&r, a, b));
            assert_eq!(games, 2 * deals, "{a} against {b}");
            assert_eq!(wins + draws + losses, games, "{a} against {b}");
            // The same meetings seen from the other side.
            let [g, w, d, l] = counts(h2h(&r, b, a));
            assert_eq!([g, w, d, l], [games, losses, draws, wins], "{a}, {b}");
        }
    }
    assert_eq!(counts(h2h(&r, "optimal", search)), [20, 0, 20, 0]);
    assert_eq!(h2h(&r, "optimal", search)["score"], 0.5);
    for perfect in ["optimal", search] {
        let [_, wins, draws, losses] = counts(h2h(&r, perfect, "random"));
        assert_eq!(losses, 0, "{perfect}: {r}");
        let score = h2h(&r, perfect, "random")["score"].as_f64().unwrap();
        assert!((score - (wins as f64 + draws as f64 / 2.0) / 20.0).abs() < 1e-12);
    }
    // With one seat each, an entrant's win rate is its score over all its opponents.
    for a in names {
        let (mut points, mut met) = (0.0, 0);
        for b in names.iter().filter(|&&b| b != a) {
            let [games, wins, draws, _] = counts(h2h(&r, a, b));
            points += wins as f64 + draws as f64 / 2.0;
            met += games;
        }
        let rate = row(&r, a)["win_rate"].as_f64().unwrap();
        assert!((rate - points / met as f64).abs() < 1e-9, "{a}: {r}");
    }

    // The table shows the same cells, from the row entrant's view.
    let out = solvedgym(&[
        "tournament",
        "tictactoe",
        "--ai",
        "optimal",
        "--ai",
        "depth=9",
        "--ai",
        "random",
        "--games",
        &deals.to_string(),
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("head to head"))
        .collect();
    assert!(table.len() >= 5, "{text}");
    assert!(
        table[1].contains("vs 1") && table[1].contains("vs 3"),
        "{text}"
    );
    let [_, w, d, l] = counts(h2h(&r, "random", "optimal"));
    let cell = format!("{w}-{d}-{l} of 20");
    assert!(
        table[4].starts_with("3 random") && table[4].contains(&cell),
        "{text}"
    );
    assert!(table[2].starts_with("1 optimal") && table[2].contains("0-20-0 of 20 (0.500)"));
}

/// Two entrants for three seats: each game seats one of them twice, so a game holds two
/// meetings of the pair, counted the same from both sides.
#[test]
fn head_to_head_counts_every_pair_of_seats_when_an_entrant_holds_two() {
    let r = json(&[
        "tournament",
        "dice-race",
        "--players",
        "3",
        "--goal",
        "4",
        "--ai",
        "depth=2",
        "--ai",
        "random",
        "--games",
        "5",
        "--json",
        "--quiet",
    ]);
    let search = r["entrants"][0].as_str().unwrap().to_string();
    let [games, w, d, l] = counts(h2h(&r, &search, "random"));
    assert_eq!(games, 15, "{r}");
    assert_eq!(w + d + l, 2 * games, "{r}");
    assert_eq!(counts(h2h(&r, "random", &search)), [games, l, d, w]);
}
