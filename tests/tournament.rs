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
