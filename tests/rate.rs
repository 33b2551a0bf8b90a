//! `solvedgym rate` as a user meets it: search settings rated against the exact solution of a
//! tiny Hase und Igel variant (3,056 positions), in JSON, as a table and as the depth figure;
//! the mistakes a user can make are refused with the reason.

mod common;

use common::{solvedgym, solvedgym_json as json};

/// Two hares on the small config's track with 10 carrots and three rounds.
const TINY: &[&str] = &[
    "rate",
    "hase-und-igel",
    "--board",
    "HCSIC2C3I1HC",
    "--carrots",
    "10",
    "--salads",
    "1",
    "--players",
    "2",
    "--max-rounds",
    "3",
];

fn args(extra: &[&'static str]) -> Vec<&'static str> {
    TINY.iter().chain(extra).copied().collect()
}

#[test]
fn json_rows_rate_each_setting_at_each_depth_within_the_optimum() {
    let v = json(&args(&[
        "--ai", "order", "--ai", "no-order", "--depths", "1-2", "--json",
    ]));
    assert_eq!(v["game"], "hase-und-igel");
    assert_eq!(v["params"]["max_rounds"], 3);
    let rows = v["rows"].as_array().unwrap();
    let seen: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| (r["family"].as_str().unwrap(), r["depth"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [("order", 1), ("order", 2), ("no-order", 1), ("no-order", 2)]
    );
    let unit = |x: &serde_json::Value| {
        let x = x.as_f64().unwrap();
        assert!((0.0..=1.0 + 1e-12).contains(&x), "{x}");
        x
    };
    for r in rows {
        assert_eq!(r["states"], 3056, "{r}");
        assert!(r["decisions"].as_u64().unwrap() > 0);
        assert!(r["nodes_per_decision"].as_f64().unwrap() >= 1.0, "{r}");
        assert!(r["settings"].as_str().unwrap().contains("depth="));
        unit(&r["optimal_rate_all"]);
        unit(&r["optimal_rate_along_play"]);
        let win = unit(&r["win_prob_vs_optimal"]);
        let optimum = unit(&r["optimum_win_prob"]);
        assert!(win <= optimum + 1e-9, "{r}");
        assert!(
            r["return_vs_optimal"].as_f64().unwrap()
                <= r["optimum_return"].as_f64().unwrap() + 1e-9
        );
        let seats = r["seats"].as_array().unwrap();
        assert_eq!(seats.len(), 2);
        assert_eq!(seats[0]["player"], "red");
        for s in seats {
            let win = unit(&s["win_prob_vs_optimal"]);
            assert!(win <= unit(&s["optimum_win_prob"]) + 1e-9, "{s}");
            unit(&s["optimal_rate_all"]);
            unit(&s["optimal_rate_along_play"]);
            assert!(s["positions"].as_u64().unwrap() > 0);
            assert!(s["decisions_per_game"].as_f64().unwrap() >= 1.0);
        }
        // Red moves first and wins with probability 11/15 under perfect play.
        let red = seats[0]["optimum_win_prob"].as_f64().unwrap();
        assert!((red - 11.0 / 15.0).abs() < 1e-9, "{red}");
        assert!(
            (optimum - 0.5).abs() < 1e-9,
            "two seats, no draws: {optimum}"
        );
    }
}

#[test]
fn the_table_and_the_depth_figure() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("figures").join("rate.svg");
    let svg_arg: &'static str = Box::leak(svg.to_str().unwrap().to_string().into_boxed_str());
    let out = solvedgym(&args(&[
        "--ai",
        "order,cutoffs=0-0-8-8-4",
        "--ai",
        "order",
        "--depths",
        "1-2",
        "--plot",
        svg_arg,
        "--quiet",
    ]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3,056 positions"), "{text}");
    for heading in ["opt. rate", "along play", "win vs opt", "nodes/decision"] {
        assert!(text.contains(heading), "{heading}: {text}");
    }
    assert!(text.contains("order,cutoffs=0-0-8-8-4"), "{text}");
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(figure.starts_with("<svg"), "{}", &figure[..80]);
    for words in [
        "Optimal-move rate along play",
        "Win probability against perfect play",
        "optimum",
        "search depth",
    ] {
        assert!(figure.contains(words), "{words}");
    }
}

#[test]
fn mistakes_are_refused_with_the_reason() {
    let refused = |extra: &[&'static str], needle: &str| {
        let out = solvedgym(&args(extra));
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{needle}: {err}");
    };
    refused(&["--ai", "depth=3", "--depths", "1-2"], "without depth=");
    refused(&["--ai", "depth=2,sideways"], "--ai depth=2,sideways");
    refused(&["--ai", "order", "--depths", "3-1"], "--depths 3-1");
    refused(&["--ai", "order", "--plot", "rate.txt"], ".svg or .png");
    // Players other than the search are sent to the commands that measure them.
    refused(&["--ai", "agent=a.parquet"], "solvedgym evaluate a.parquet");
    refused(&["--ai", "mcts,sims=10"], "solvedgym bench mcts");
    // The full board is far too large to solve.
    let out = solvedgym(&["rate", "hase-und-igel", "--ai", "depth=1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("solved exactly"), "{err}");
}
