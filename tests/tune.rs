//! `solvedgym tune` as a user meets it: a tiny Hase und Igel tuning run writes its tables, its
//! summary and the best settings, the same on one thread as on two; a config error names the
//! file, the line and the key.

mod common;

use std::fs;
use std::path::Path;

use common::{solvedgym, solvedgym_json as json};

const TINY: &str = r#"
name = "tiny-tuning"
description = "two weights of ks against the baseline, two hares, depth 1"
seed = 7

[game]
name = "hase-und-igel"
players = 2

[search]
settings = "depth=1"
baseline = "ks=1,kc=1,kp=1"

[grid]
ks = [0.5, 2.0]
kc = [1.0]
kp = [1.0]

[screen]
deals = 5

[final]
finalists = 1
deals = 10
"#;

fn run(dir: &Path, threads: &str) -> serde_json::Value {
    let config = dir.join("tiny.toml");
    fs::write(&config, TINY).unwrap();
    let out = dir.join(format!("out-{threads}"));
    json(&[
        "tune",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        threads,
        "--json",
    ])
}

#[test]
fn a_tiny_tuning_run_writes_its_files_and_names_the_best_setting() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), "1");
    let out = dir.path().join("out-1");

    let best = r["best"]["settings"].as_str().unwrap();
    assert!(
        ["ks=0.5,kc=1,kp=1", "ks=2,kc=1,kp=1"].contains(&best),
        "{r}"
    );
    assert_eq!(
        fs::read_to_string(out.join("best.txt")).unwrap().trim(),
        best
    );
    assert_eq!(r["keys"], serde_json::json!(["ks", "kc", "kp"]));
    assert_eq!(r["grid_points"], 2);
    assert_eq!(r["screen"]["rows"].as_array().unwrap().len(), 2);
    assert_eq!(r["screen"]["rows"][0]["games"], 10);
    assert_eq!(r["final"]["rows"].as_array().unwrap().len(), 1);
    assert_eq!(r["final"]["rows"][0]["games"], 20);
    assert_eq!(r["final"]["rows"][0]["settings"], best);
    assert_ne!(r["screen"]["seed"], r["final"]["seed"]);
    assert!(
        r["significant"].is_boolean() && r["verdict"].is_string(),
        "{r}"
    );
    assert_eq!(r["config"]["screen"]["deals"], 5);

    let screen = fs::read_to_string(out.join("screen.csv")).unwrap();
    let lines: Vec<&str> = screen.lines().collect();
    assert_eq!(
        lines[0],
        "rank,candidate,settings,ks,kc,kp,games,win_rate,win_rate_low,win_rate_high"
    );
    assert_eq!(lines.len(), 3, "{screen}");
    let final_csv = fs::read_to_string(out.join("final.csv")).unwrap();
    assert_eq!(final_csv.lines().count(), 2, "{final_csv}");
    assert_eq!(fs::read_to_string(out.join("config.toml")).unwrap(), TINY);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["best"], r["best"]);

    // Two threads: the same results to the byte, timings apart.
    let r2 = run(dir.path(), "2");
    let out2 = dir.path().join("out-2");
    for file in ["screen.csv", "final.csv", "best.txt"] {
        assert_eq!(
            fs::read(out.join(file)).unwrap(),
            fs::read(out2.join(file)).unwrap(),
            "{file}"
        );
    }
    let strip = |mut v: serde_json::Value| {
        v["timings"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(r), strip(r2));
}

#[test]
fn the_tables_are_printed_in_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    fs::write(&config, TINY).unwrap();
    let out = solvedgym(&[
        "tune",
        config.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("| candidate | ks | kc | kp | win rate vs baseline [95 % CI] | games |"),
        "{text}"
    );
    assert!(text.contains("best: ks="), "{text}");
}

#[test]
fn a_config_error_names_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    fs::write(&config, TINY.replace("kp = [1.0]", "kp = [1.0]\nkx = [2]")).unwrap();
    let out = solvedgym(&["tune", config.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:18:"), "{err}");
    assert!(err.contains("`grid.kx`"), "{err}");
}
