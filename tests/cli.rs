//! The command line as a user meets it: `solve`, `run`, `play`, and the errors they give.

use std::path::PathBuf;
mod common;

use std::process::Output;

use common::solvedgym;

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// `solvedgym run CONFIG --out OUT EXTRA...`, which must succeed.
fn run_ok(config: &str, out: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", config, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = solvedgym(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The named files of two folders hold the same bytes.
fn same_bytes(a: &std::path::Path, b: &std::path::Path, files: &[&str], why: &str) {
    for f in files {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} {why}"
        );
    }
}

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny.toml");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("solvedgym-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn solve_prints_the_published_figures_as_json() {
    let t = json(&solvedgym(&["solve", "tictactoe", "--json"]));
    assert_eq!(t["game"], "tictactoe");
    assert_eq!(t["states"], 5478);
    assert_eq!(t["games"], "255168");
    assert_eq!(t["winner"], serde_json::Value::Null);
    assert_eq!(t["wins"]["x"], "131184");
    for key in ["params", "terminal_states", "plies", "seconds"] {
        assert!(t.get(key).is_some(), "missing {key}");
    }
    let h = json(&solvedgym(&["solve", "hexapawn", "--json"]));
    assert_eq!(h["winner"], "black");
    assert_eq!(h["params"]["rows"], 3);
    let o = json(&solvedgym(&[
        "solve", "hexapawn", "--rows", "4", "--cols", "4", "--json",
    ]));
    assert_eq!(o["winner"], "white");
}

#[test]
fn bad_game_input_is_an_error_not_a_panic() {
    for args in [
        &["solve", "chess"][..],
        &["solve", "hexapawn", "--rows", "0"],
        &["solve", "hexapawn", "--param", "size=8"],
        &["solve", "hexapawn", "--rows", "9", "--cols", "9"],
    ] {
        let out = solvedgym(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_bad_flag_value_is_refused_in_one_line_before_any_work() {
    // Values checked while the command line is read: the refusal alone, exit code 1.
    for (args, message) in [
        (
            &["rate", "tictactoe", "--ai", "order", "--depths", "0-3"][..],
            "--depths 0-3: write A-B with 1 <= A <= B <= 64, e.g. 4-10",
        ),
        (
            &["rate", "tictactoe", "--ai", "order", "--plot", "x.gif"],
            "--plot x.gif: the file name ends in .svg or .png",
        ),
        (
            &[
                "tournament",
                "tictactoe",
                "--ai",
                "random",
                "--ai",
                "random",
                "--plot",
                "x.gif",
            ],
            "--plot: plotting x.gif: the file name ends in .svg or .png",
        ),
        (
            &["play", "tictactoe", "--fuzz", "2"],
            "--fuzz 2: a probability between 0 and 1",
        ),
        (
            &["stats", "tictactoe", "--games", "0"],
            "--games 0: play at least one game",
        ),
        (
            &["bench", "search", "--depths", "9-4"],
            "--depths 9-4: write A-B with 1 <= A <= B <= 64, e.g. 4-10",
        ),
    ] {
        let out = solvedgym(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("error: {message}\n"),
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A value that is not a number at all is a usage error, with the usage.
    let out = solvedgym(&["play", "tictactoe", "--fuzz", "abc"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: invalid value 'abc' for '--fuzz <FUZZ>'"),
        "{err}"
    );
}

#[test]
fn each_bench_mode_takes_its_own_flags() {
    for (args, unexpected) in [
        (&["bench", "values", "--max-size", "4"][..], "--max-size"),
        (&["bench", "hase", "--episodes", "3"], "--episodes"),
        (&["bench", "learn", "--depths", "1-2"], "--depths"),
        (&["bench", "--only", "sarsa"], "--only"),
        (&["bench", "--learn"], "--learn"),
    ] {
        let out = solvedgym(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("unexpected argument '{unexpected}'")),
            "{args:?}: {err}"
        );
    }
    // The learner is checked before any training.
    let out = solvedgym(&["bench", "learn", "--only", "bogus"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--only bogus: no such learner"), "{err}");
    let help = solvedgym(&["bench", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for mode in ["solvers", "learn", "hase", "search", "values"] {
        assert!(help.contains(&format!("\n  {mode} ")), "{mode}: {help}");
    }
}

#[test]
fn run_writes_curves_summary_and_plots() {
    let out_dir = temp_dir("run");
    let printed = String::from_utf8(run_ok(TINY, &out_dir, &["--quiet", "--csv"]).stdout).unwrap();
    // The console shows each condition's losses, then what its greedy policy reached.
    let block = |header: &str| {
        printed
            .lines()
            .skip_while(|l| !l.contains(header))
            .skip(1)
            .take_while(|l| !l.contains("greedy policy:") && !l.contains("wrote"))
            .count()
    };
    assert_eq!((block("losses/run"), block("95% at")), (4, 4), "{printed}");
    let dir = out_dir.join("tiny");
    for f in [
        "curves.parquet",
        "curves.csv",
        "config.toml",
        "summary.json",
        "cumulative_losses.png",
        "optimal_rate_faced.svg",
    ] {
        assert!(
            dir.join(f).metadata().map(|m| m.len() > 0).unwrap_or(false),
            "missing {f}"
        );
    }
    let csv = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    assert!(csv.starts_with("run,game,learner,opponent,seed,episode,metric,value,config_hash\n"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    // Two learners x two opponents.
    assert_eq!(summary["conditions"].as_array().unwrap().len(), 4);
    assert_eq!(summary["boxes_possible"][0]["gardner_convention"], 24);
    // The resolved config runs again to the same bytes.
    let again = temp_dir("again");
    run_ok(
        dir.join("config.toml").to_str().unwrap(),
        &again,
        &["--quiet"],
    );
    // Without --csv, no curves.csv: the Parquet file is the record.
    assert!(!again.join("tiny/curves.csv").exists());
    assert!(again.join("tiny/curves.parquet").exists());
    let files = [
        "curves.parquet",
        "summary.json",
        "config.toml",
        "summary.md",
    ];
    same_bytes(
        &dir,
        &again.join("tiny"),
        &files,
        "differs when the resolved config runs again",
    );
    let _ = std::fs::remove_dir_all(&out_dir);
    let _ = std::fs::remove_dir_all(&again);
}

/// The figures say what they measure and against whom, and draw the solver's line wherever it
/// has one, computed from the solution: 19 boxes for Black, and perfect play's result against
/// perfect and random play (Black wins Hexapawn: 1).
#[test]
fn plots_name_what_they_measure_and_draw_the_solvers_lines() {
    let out_dir = temp_dir("plots");
    let tiny = std::fs::read_to_string(TINY).unwrap();
    let config = out_dir.join("plots.toml");
    std::fs::write(
        &config,
        format!(
            "{tiny}\n[plots]\nmetrics = [\"boxes\", \"win_prob_vs_optimal\", \"return_vs_random\", \"greedy_return_vs_optimal\"]\n"
        ),
    )
    .unwrap();
    run_ok(config.to_str().unwrap(), &out_dir, &["--quiet"]);
    let svg =
        |name: &str| std::fs::read_to_string(out_dir.join(format!("tiny/{name}.svg"))).unwrap();
    for (figure, texts) in [
        (
            "boxes",
            [
                "Matchboxes opened",
                "boxes the seat needs: 19 (every position it can face)",
            ],
        ),
        (
            "win_prob_vs_optimal",
            [
                "Win probability of its play against perfect play",
                "perfect play against perfect play: 1 (solver)",
            ],
        ),
        (
            "return_vs_random",
            [
                "Expected return of its play against random play",
                "perfect play against random play: 1 (solver)",
            ],
        ),
        (
            "greedy_return_vs_optimal",
            [
                "Return of the greedy policy against perfect play",
                "game value, perfect play against perfect play: 1 (solver)",
            ],
        ),
    ] {
        let text = svg(figure);
        for t in texts {
            assert!(text.contains(t), "{figure}.svg lacks {t:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

const TINY_LEARNERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-learners.toml");

#[test]
fn value_learners_give_the_same_results_with_one_or_many_threads() {
    let one = temp_dir("learners1");
    let many = temp_dir("learners4");
    run_ok(TINY_LEARNERS, &one, &["--threads", "1", "--quiet", "--csv"]);
    run_ok(
        TINY_LEARNERS,
        &many,
        &["--threads", "4", "--quiet", "--csv"],
    );
    let files = [
        "curves.csv",
        "curves.parquet",
        "summary.json",
        "summary.md",
        "value_error.png",
    ];
    same_bytes(
        &one.join("tiny-learners"),
        &many.join("tiny-learners"),
        &files,
        "differs between 1 and 4 threads",
    );
    // Every learner of the config trained and was evaluated.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("tiny-learners/summary.json")).unwrap())
            .unwrap();
    let learners: Vec<&str> = summary["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["learner"].as_str().unwrap())
        .collect();
    for l in [
        "menace",
        "MC (every visit)",
        "TD(0.7)",
        "Double Expected SARSA",
    ] {
        assert!(learners.contains(&l), "{l} missing from {learners:?}");
    }
    let resolved = std::fs::read_to_string(one.join("tiny-learners/config.toml")).unwrap();
    assert!(
        resolved.contains("half_life") || resolved.contains("episodes = 2000"),
        "{resolved}"
    );
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&many);
}

const TINY_FEATURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-features.toml");

#[test]
fn feature_learners_run_through_the_runner_the_same_on_any_thread_count() {
    let one = temp_dir("features1");
    let many = temp_dir("features2");
    run_ok(TINY_FEATURES, &one, &["--threads", "1", "--quiet", "--csv"]);
    run_ok(
        TINY_FEATURES,
        &many,
        &["--threads", "2", "--quiet", "--csv"],
    );
    same_bytes(
        &one.join("tiny-features"),
        &many.join("tiny-features"),
        &["curves.csv", "summary.json"],
        "differs between 1 and 2 threads",
    );
    let csv = std::fs::read_to_string(one.join("tiny-features/curves.csv")).unwrap();
    for learner in ["n-tuple 6x3 TD(0.5)", "linear TD(0.8)", "MLP 8 TD(0.5)"] {
        let rates = curve(&csv, learner, "random o", "greedy_optimal_rate_faced");
        assert_eq!(rates.len(), 5, "{learner}: {rates:?}");
        let weights = curve(&csv, learner, "random o", "weights");
        assert!(
            weights.iter().all(|&(_, w)| w > 0.0),
            "{learner}: {weights:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&many);
}

const TINY_HELD_OUT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-held-out.toml");

/// A held-out game is evaluated beside the training game at every evaluation, the same on any
/// thread count; a table never meets a held-out position, so its figures there never move.
#[test]
fn held_out_positions_are_evaluated_beside_the_training_ones() {
    let one = temp_dir("heldout1");
    let many = temp_dir("heldout2");
    run_ok(TINY_HELD_OUT, &one, &["--threads", "1", "--quiet", "--csv"]);
    run_ok(
        TINY_HELD_OUT,
        &many,
        &["--threads", "2", "--quiet", "--csv"],
    );
    same_bytes(
        &one.join("tiny-held-out"),
        &many.join("tiny-held-out"),
        &["curves.csv", "summary.json"],
        "differs between 1 and 2 threads",
    );
    let dir = one.join("tiny-held-out");
    assert!(dir.join("greedy_optimal_rate_all_held_out.png").is_file());
    let csv = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    for learner in ["linear TD(0.5)", "TD(0)"] {
        for metric in [
            "greedy_optimal_rate_all",
            "greedy_optimal_rate_all_held_out",
        ] {
            let rates = curve(&csv, learner, "self-play", metric);
            assert_eq!(rates.len(), 4, "{learner} {metric}: {rates:?}");
            assert!(rates.iter().all(|&(_, r)| (0.0..=1.0).contains(&r)));
        }
    }
    // The table's held-out figures stay at their start; on the training boards it learns.
    let held = curve(
        &csv,
        "TD(0)",
        "self-play",
        "greedy_optimal_rate_all_held_out",
    );
    assert!(held.iter().all(|&(_, r)| r == held[0].1), "{held:?}");
    let trained = curve(&csv, "TD(0)", "self-play", "greedy_optimal_rate_all");
    assert!(trained.last().unwrap().1 > trained[0].1, "{trained:?}");
    // A saved agent evaluated again scores the held-out game as its run did at the end.
    let agent = dir.join("agents/linear-td-0-5--self-play--seed-0.parquet");
    let again = json(&solvedgym(&["evaluate", agent.to_str().unwrap(), "--json"]));
    let metric = "greedy_optimal_rate_all_held_out";
    let last = curve(&csv, "linear TD(0.5)", "self-play", metric);
    let value = again["metrics"]
        .as_array()
        .and_then(|m| m.iter().find(|pair| pair[0] == metric))
        .map(|pair| pair[1].as_f64().unwrap());
    assert_eq!(value, Some(last.last().unwrap().1), "{again}");
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&many);
}

const TINY_REGIMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-regimes.toml");

/// `metric` of (learner, opponent, seed 0) by episode, from curves.csv.
fn curve(csv: &str, learner: &str, opponent: &str, metric: &str) -> Vec<(u64, f64)> {
    csv.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (f[2] == learner && f[3] == opponent && f[4] == "0" && f[6] == metric)
                .then(|| (f[5].parse().unwrap(), f[7].parse().unwrap()))
        })
        .collect()
}

#[test]
fn alternating_seats_against_a_frozen_copy_train_both_seats_the_same_on_any_thread_count() {
    let one = temp_dir("regimes1");
    let many = temp_dir("regimes4");
    run_ok(TINY_REGIMES, &one, &["--threads", "1", "--quiet", "--csv"]);
    run_ok(TINY_REGIMES, &many, &["--threads", "4", "--quiet", "--csv"]);
    same_bytes(
        &one.join("tiny-regimes"),
        &many.join("tiny-regimes"),
        &["curves.csv", "summary.json", "return_vs_opponent_as_x.png"],
        "differs between 1 and 4 threads",
    );
    let csv = std::fs::read_to_string(one.join("tiny-regimes/curves.csv")).unwrap();
    // The learner holds both seats, so it is measured at both.
    for seat in ["x", "o"] {
        let c = curve(
            &csv,
            "Q",
            "copy",
            &format!("greedy_return_vs_optimal_as_{seat}"),
        );
        assert_eq!(c.len(), 7, "evaluated at 0, 500, ..., 3000 as {seat}");
    }
    // The first copy is the untrained learner, which plays uniformly at random: x's exact
    // return against it is random against random (0.5849 - 0.2881).
    let copy = curve(&csv, "Q", "copy", "return_vs_opponent_as_x");
    let random = curve(&csv, "Q", "random", "return_vs_opponent_as_x");
    assert!((copy[0].1 - 0.29683).abs() < 1e-4, "{copy:?}");
    // Refreshed every 500 games, the copy stops being a random player.
    let learned_copy: Vec<f64> = copy.iter().skip(2).map(|c| c.1).collect();
    let random_later: Vec<f64> = random.iter().skip(2).map(|c| c.1).collect();
    assert_ne!(learned_copy, random_later);
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&many);
}

const TINY_STUDY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-study.toml");

#[test]
fn a_study_runs_each_game_into_its_folder_and_tables_them_together() {
    let out = temp_dir("study");
    let summaries = json(&run_ok(TINY_STUDY, &out, &["--json", "--csv"]));
    let games: Vec<&str> = summaries
        .as_array()
        .expect("a study prints one summary per game")
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(games, ["tiny-study/tictactoe", "tiny-study/fox-hounds-4x4"]);
    let study = out.join("tiny-study");
    // `_as_*` plots a metric for each seat of each game.
    for f in [
        "tictactoe/curves.parquet",
        "tictactoe/greedy_return_vs_optimal_as_x.png",
        "tictactoe/greedy_return_vs_optimal_as_o.png",
        "fox-hounds-4x4/greedy_return_vs_optimal_as_fox.svg",
        "fox-hounds-4x4/greedy_return_vs_optimal_as_hounds.svg",
        "fox-hounds-4x4/greedy_optimal_rate_optimal_play.png",
    ] {
        assert!(study.join(f).is_file(), "{f} missing");
    }
    let table = std::fs::read_to_string(study.join("summary.md")).unwrap();
    assert!(
        table.contains("## tictactoe (5,478 states, draw)")
            && table.contains("## fox-hounds-4x4 (fox-hounds, 83 states, "),
        "{table}"
    );
    assert_eq!(table.matches("| TD(0) | self-play |").count(), 2, "{table}");
    // A game's resolved config reruns that game alone, into the same folder, to the same bytes.
    let again = temp_dir("study-again");
    let resolved = study.join("fox-hounds-4x4/config.toml");
    run_ok(resolved.to_str().unwrap(), &again, &["--quiet", "--csv"]);
    same_bytes(
        &study.join("fox-hounds-4x4"),
        &again.join("tiny-study/fox-hounds-4x4"),
        &["curves.csv", "summary.json"],
        "differs when the resolved config is run again",
    );
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn same_results_with_one_or_many_threads() {
    let one = temp_dir("threads1");
    let many = temp_dir("threads4");
    run_ok(TINY, &one, &["--threads", "1", "--quiet", "--csv"]);
    run_ok(TINY, &many, &["--threads", "4", "--quiet", "--csv"]);
    let files = [
        "curves.csv",
        "curves.parquet",
        "summary.json",
        "cumulative_losses.png",
    ];
    same_bytes(
        &one.join("tiny"),
        &many.join("tiny"),
        &files,
        "differs between 1 and 4 threads",
    );
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&many);
}

#[test]
fn a_config_typo_names_the_file_line_and_key() {
    let dir = temp_dir("typo");
    let path = dir.join("typo.toml");
    let text = std::fs::read_to_string(TINY)
        .unwrap()
        .replace("scheme = \"menace\"", "shceme = \"menace\"");
    std::fs::write(&path, text).unwrap();
    let out = solvedgym(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("typo.toml:18:1"), "{err}");
    assert!(err.contains("learners[1].shceme"), "{err}");
    let missing = solvedgym(&["run", "no/such/file.toml", "--quiet"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/file.toml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_survives_nonsense_and_shows_the_verdict() {
    let stdout = common::with_input(
        &["play", "tictactoe", "--as", "o"],
        b"zz9\n?\nmoves\n\xff\xfe\n0\nb2\n",
    );
    assert!(stdout.contains("illegal action \"zz9\""), "{stdout}");
    // A bare number names no move: not the action number behind a3.
    assert!(stdout.contains("illegal action \"0\""), "{stdout}");
    // The end of input is said, not silent.
    assert!(
        stdout.contains("end of input: the game is left unfinished"),
        "{stdout}"
    );
    assert!(stdout.contains("solver: draw"), "{stdout}");
    let bad = solvedgym(&["play", "hexapawn", "--as", "red"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("white, black"));
}

#[test]
fn an_unknown_plot_metric_is_refused_before_training_and_json_summaries_print() {
    let dir = temp_dir("metric");
    let path = dir.join("metric.toml");
    let text = std::fs::read_to_string(TINY).unwrap()
        + "\n[plots]\nmetrics = [\"optimal_rate_faced\", \"happiness\"]\n";
    std::fs::write(&path, &text).unwrap();
    let out = solvedgym(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("happiness") && err.contains("worst_case_return"),
        "{err}"
    );
    assert!(!dir.join("tiny").exists(), "nothing was written");

    let good = text.replace(", \"happiness\"", "");
    std::fs::write(&path, good).unwrap();
    let summary = json(&run_ok(path.to_str().unwrap(), &dir, &["--json"]));
    assert_eq!(summary["name"], "tiny");
    assert_eq!(summary["conditions"][0]["seeds"], 3);
    let _ = std::fs::remove_dir_all(&dir);
}

const TINY_MATCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-match.toml");

/// The match evaluator: a learner against random play, a few hundred seeded games per point;
/// the win rate and its interval land in the curves and in a plot with its band.
#[test]
fn the_match_evaluator_writes_win_rates_with_intervals() {
    let out_dir = temp_dir("match");
    run_ok(TINY_MATCH, &out_dir, &["--quiet", "--csv"]);
    let dir = out_dir.join("tiny-match");
    for f in [
        "curves.parquet",
        "greedy_win_rate_vs_random.png",
        "greedy_win_rate_vs_random.svg",
    ] {
        assert!(dir.join(f).exists(), "missing {f}");
    }
    let csv = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    let value = |seed: &str, episode: &str, metric: &str| -> f64 {
        csv.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|c| c[4] == seed && c[5] == episode && c[6] == metric)
            .unwrap_or_else(|| panic!("no {metric} at {episode}"))[7]
            .parse()
            .unwrap()
    };
    for episode in ["0", "2000", "4000"] {
        let m = "greedy_win_rate_vs_random";
        let (v, lo, hi) = (
            value("0", episode, m),
            value("0", episode, &format!("{m}_low")),
            value("0", episode, &format!("{m}_high")),
        );
        assert!(
            lo < v && v < hi && hi - lo < 0.2,
            "{episode}: {lo} {v} {hi}"
        );
    }
    // Q-learning against random play learns to win more often than it did untrained.
    let m = "greedy_win_rate_vs_random";
    assert!(value("0", "4000", m) > value("0", "0", m) + 0.1);
    // A game the exact evaluator cannot take is refused with the reason, at its key, before
    // any work: Hase und Igel on the full board.
    let bad = out_dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"b\"\nepisodes = 10\n[game]\nname = \"hase-und-igel\"\n[[learners]]\nkind = \"td\"\n[evaluation]\nevaluator = \"exact\"\n",
    )
    .unwrap();
    let out = solvedgym(&["run", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("evaluation.evaluator") && err.contains("by the game's estimate"),
        "{err}"
    );
}

/// The toy game registered through the same list as the real ones: listed, solved by its own
/// solver (each runner's exact win probability), refused by the generic one with the reason,
/// played by learners under the match evaluator (its exact truth beside it).
#[test]
fn the_dice_race_is_listed_solved_with_chance_and_learned_by_matches() {
    let games = String::from_utf8(solvedgym(&["games"]).stdout).unwrap();
    assert!(
        games.contains("dice-race") && games.contains("players = 3"),
        "{games}"
    );
    let out = solvedgym(&["solve", "dice-race", "--players", "4", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let p = &report["win_probability"];
    for runner in ["red", "green", "blue", "yellow"] {
        let v = p[runner].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{report}");
    }
    let out = solvedgym(&["solve", "dice-race", "--players", "4", "--generic"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("4 players"), "{err}");
    let dir = temp_dir("dice");
    let config = dir.join("dice.toml");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        &config,
        "name = \"dice\"\nepisodes = 600\nseeds = 2\n[game]\nname = \"dice-race\"\n[[learners]]\nkind = \"q-learning\"\n[evaluation]\nevaluator = \"match\"\ngames = 60\n",
    )
    .unwrap();
    let out = run_ok(config.to_str().unwrap(), &dir, &["--quiet", "--json"]);
    let summary = json(&out);
    let finals = &summary["conditions"][0]["final_metrics"];
    let rate = finals["greedy_win_rate_vs_random"]["mean"]
        .as_f64()
        .unwrap();
    assert!((0.0..=1.0).contains(&rate), "{summary}");
    // The exact truth (each runner's win probability) is enumerated beside the matches.
    assert!(
        summary["solution"]["win_probability"]["red"].is_f64(),
        "{summary}"
    );
}

/// The exact figures beside the matches (`all_positions`, `best_response`) on Fox & Hounds 6x6,
/// which the exact evaluator can also measure: the rate over every position the game's solver
/// lists is the exact evaluator's `greedy_optimal_rate_all` at every evaluation, and the best
/// response's figures are there for each seat.
#[test]
fn exact_figures_beside_the_matches_agree_with_the_exact_evaluator() {
    let dir = temp_dir("beside");
    let config = |evaluation: &str| {
        format!(
            r#"
name = "beside"
episodes = 300
eval_interval = 100

[game]
name = "fox-hounds"
size = 6

[learner]
kind = "ntuple"
label = "n-tuple"
seat = "self-play"
tuples = 8
length = 4

[evaluation]
{evaluation}

[plots]
metrics = ["greedy_optimal_rate_all"]
"#
        )
    };
    let mut rates = Vec::new();
    for (name, evaluation) in [
        ("exact", "evaluator = \"exact\""),
        (
            "match",
            "evaluator = \"match\"\ngames = 20\nall_positions = true\nbest_response = true",
        ),
    ] {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, config(evaluation)).unwrap();
        let out = dir.join(name);
        run_ok(file.to_str().unwrap(), &out, &["--quiet", "--csv"]);
        let csv = std::fs::read_to_string(out.join("beside/curves.csv")).unwrap();
        rates.push(curve(
            &csv,
            "n-tuple",
            "self-play",
            "greedy_optimal_rate_all",
        ));
        if name == "match" {
            for seat in ["fox", "hounds"] {
                let worst = curve(
                    &csv,
                    "n-tuple",
                    "self-play",
                    &format!("greedy_worst_case_return_as_{seat}"),
                );
                assert_eq!(worst.len(), 4, "{seat}: {worst:?}");
                assert!(worst.iter().all(|&(_, r)| (-1.0..=1.0).contains(&r)));
                let faced = curve(
                    &csv,
                    "n-tuple",
                    "self-play",
                    &format!("greedy_optimal_rate_faced_as_{seat}"),
                );
                assert!(faced.iter().all(|&(_, r)| (0.0..=1.0).contains(&r)));
            }
            // The fox wins 6x6 with perfect play, so the hounds lose against a best response
            // whatever they learn.
            let hounds = curve(
                &csv,
                "n-tuple",
                "self-play",
                "greedy_worst_case_return_as_hounds",
            );
            assert!(hounds.iter().all(|&(_, r)| r == -1.0), "{hounds:?}");
        }
    }
    assert_eq!(rates[0].len(), 4, "{rates:?}");
    for (exact, listed) in rates[0].iter().zip(&rates[1]) {
        assert_eq!(exact.0, listed.0);
        assert!((exact.1 - listed.1).abs() < 1e-12, "{rates:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `[evaluation] agent`: a saved agent every evaluation measures the learner against. Trained
/// against that same agent, the learner's exact results against it (`return_vs_agent`) are
/// its results against its training opponent at every evaluation; the match evaluator plays
/// it as the reference `agent`; an agent of another game is refused by key.
#[test]
fn a_saved_agent_is_an_evaluation_reference() {
    let dir = temp_dir("agentref");
    // An agent: White's matchboxes on Hexapawn.
    let first = dir.join("first.toml");
    std::fs::write(
        &first,
        "name = \"first\"\nepisodes = 20\nseeds = 1\n[game]\nname = \"hexapawn\"\n[learner]\nkind = \"matchbox\"\nseat = \"white\"\n[[opponents]]\npolicy = \"random\"\n",
    )
    .unwrap();
    run_ok(first.to_str().unwrap(), &dir, &["--quiet"]);
    let agents: Vec<_> = std::fs::read_dir(dir.join("first/agents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let agent = agents[0].display().to_string();
    let second = |evaluation: &str| {
        format!(
            "name = \"second\"\nepisodes = 30\neval_interval = 10\nseeds = 1\n[game]\nname = \"hexapawn\"\n[learner]\nkind = \"td\"\nlabel = \"td\"\nseat = \"black\"\n[[opponents]]\nname = \"saved\"\npolicy = \"agent\"\nagent = {agent:?}\n[evaluation]\n{evaluation}agent = {agent:?}\n"
        )
    };
    let file = dir.join("second.toml");
    std::fs::write(&file, second("")).unwrap();
    run_ok(file.to_str().unwrap(), &dir, &["--quiet", "--csv"]);
    let csv = std::fs::read_to_string(dir.join("second/curves.csv")).unwrap();
    for what in ["return", "win_prob", "loss_prob"] {
        let against_agent = curve(&csv, "td", "saved", &format!("{what}_vs_agent"));
        let against_opponent = curve(&csv, "td", "saved", &format!("{what}_vs_opponent"));
        assert_eq!(against_agent.len(), 4, "{what}: {against_agent:?}");
        assert_eq!(against_agent, against_opponent, "{what}");
    }
    // The match evaluator plays it.
    std::fs::write(&file, second("evaluator = \"match\"\ngames = 10\n")).unwrap();
    run_ok(
        file.to_str().unwrap(),
        &dir,
        &["--quiet", "--csv", "--fresh"],
    );
    let csv = std::fs::read_to_string(dir.join("second/curves.csv")).unwrap();
    let rates = curve(&csv, "td", "saved", "greedy_win_rate_vs_agent");
    assert_eq!(rates.len(), 4, "{rates:?}");
    // An agent of another game is refused by its key.
    let ttt = std::fs::read_to_string(&file)
        .unwrap()
        .replace("name = \"hexapawn\"", "name = \"tictactoe\"")
        .replace("seat = \"black\"", "seat = \"o\"")
        .replace(
            &format!("name = \"saved\"\npolicy = \"agent\"\nagent = {agent:?}\n"),
            "policy = \"random\"\n",
        );
    std::fs::write(&file, ttt).unwrap();
    let out = solvedgym(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("evaluation.agent"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// MCTS as the match evaluator's reference `ai` (`[evaluation] ai = "mcts,..."`): its games
/// are recorded at every evaluation, and the same on any thread count.
#[test]
fn mcts_is_a_match_evaluation_reference() {
    let dir = temp_dir("mctsref");
    let file = dir.join("mcts.toml");
    std::fs::write(
        &file,
        "name = \"mcts-ref\"\nepisodes = 200\neval_interval = 100\nseeds = 1\n[game]\nname = \"tictactoe\"\n[learner]\nkind = \"q-learning\"\nlabel = \"Q\"\nseat = \"x\"\n[[opponents]]\npolicy = \"random\"\n[evaluation]\nevaluator = \"match\"\ngames = 20\nai = \"mcts,sims=50,seed=3\"\n",
    )
    .unwrap();
    let (one, two) = (dir.join("one"), dir.join("two"));
    run_ok(
        file.to_str().unwrap(),
        &one,
        &["--quiet", "--csv", "--threads", "1"],
    );
    run_ok(
        file.to_str().unwrap(),
        &two,
        &["--quiet", "--csv", "--threads", "2"],
    );
    same_bytes(
        &one.join("mcts-ref"),
        &two.join("mcts-ref"),
        &["curves.csv"],
        "differs between 1 and 2 threads",
    );
    let csv = std::fs::read_to_string(one.join("mcts-ref/curves.csv")).unwrap();
    let rates = curve(&csv, "Q", "random", "greedy_win_rate_vs_ai");
    assert_eq!(rates.len(), 3, "{rates:?}");
    assert!(rates.iter().all(|&(_, r)| (0.0..=1.0).contains(&r)));
    let config = std::fs::read_to_string(one.join("mcts-ref/config.toml")).unwrap();
    assert!(config.contains("ai = \"mcts,sims=50,"), "{config}");
    let _ = std::fs::remove_dir_all(&dir);
}
