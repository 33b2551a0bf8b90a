//! Hostile input: every surface a user can type into, fed what no one should type. Each case
//! must end with a clear error (exit code 1, or 2 for clap's usage errors) or a correct answer,
//! within a time bound and under a memory limit (`ulimit -v`, so an attempted huge allocation
//! fails the test rather than the machine); never a panic (101), an abort (134) or a signal.

mod common;

use common::hostile::{Expect, case, check, folder, run_all};
use std::process::Command;

const CONFIG: &str = r#"name = "hostile"
episodes = 20
eval_interval = 10
seeds = 2

[game]
name = "tictactoe"

[[learners]]
kind = "q-learning"
"#;

#[test]
fn silent_wrong_results_are_refused() {
    let dir = folder(
        "silent",
        &[
            ("twice.toml", &CONFIG.replace("seeds = 2", "seeds = [1, 1]")),
            ("ok.toml", CONFIG),
        ],
    );
    let cases = vec![
        // A parameter given two ways: which one wins would be a guess.
        case(
            &["solve", "hexapawn", "--rows", "4", "--param", "rows=3"],
            Expect::Refused("rows is given twice"),
        ),
        case(
            &[
                "solve", "hexapawn", "--param", "rows=3", "--param", "rows=4",
            ],
            Expect::Refused("rows is given twice"),
        ),
        case(
            &[
                "solve",
                "hase-und-igel",
                "--max-rounds",
                "4",
                "--param",
                "max-rounds=5",
            ],
            Expect::Refused("max_rounds is given twice"),
        ),
        case(
            &["solve", "hexapawn", "--rows", "3", "--param", "cols=3"],
            Expect::Answer("black wins in 6 plies"),
        ),
        // A seed listed twice.
        case(
            &["run", "twice.toml", "--out", "out"],
            Expect::Refused("seed 1 is listed twice"),
        ),
    ];
    run_all(cases, &dir);
}

#[test]
fn shard_counts_beyond_the_runs_are_refused_before_any_work() {
    let dir = folder("shards", &[("ok.toml", CONFIG)]);
    let mut cases = Vec::new();
    for count in ["3", "10000000000", "18446744073709551615"] {
        let shard = format!("1/{count}");
        cases.push(case(
            &["run", "ok.toml", "--out", "out", "--shard", &shard],
            Expect::Refused("the study has 2 runs"),
        ));
    }
    for (shard, why) in [
        ("18446744073709551616/1", "K is too large"),
        ("1/18446744073709551616", "N is too large"),
        ("0/2", "K counts from 1 to N"),
        ("-1/2", "K is not a whole number"),
        ("1/-2", "N is not a whole number"),
        ("1/0", "N is at least 1"),
        ("1", "expected K/N"),
        ("", "expected K/N"),
    ] {
        let flag = format!("--shard={shard}");
        cases.push(case(
            &["run", "ok.toml", "--out", "out", &flag],
            Expect::Refused(why),
        ));
    }
    cases.push(case(
        &[
            "run", "ok.toml", "--out", "out2", "--shard", "2/2", "--quiet",
        ],
        Expect::Answer(""),
    ));
    run_all(cases, &dir);
}

#[test]
fn a_second_writer_of_one_folder_is_refused() {
    let dir = folder("writers", &[("ok.toml", CONFIG)]);
    // The first writer: this test itself, holding the claim a run takes on `out/hostile`.
    let folder = dir.join("out").join("hostile");
    let claim = solvedgym::io::files::FolderLock::acquire(&folder).unwrap();
    let mine = format!("process {}", std::process::id());
    for extra in [&[][..], &["--fresh"], &["--shard", "1/2"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_solvedgym"))
            .args(["run", "ok.toml", "--out", "out", "--quiet"])
            .args(extra)
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(
            err.contains("being written by another solvedgym") && err.contains(&mine),
            "{extra:?}: {err}"
        );
        assert!(
            !folder.join("runs").exists(),
            "{extra:?}: the refused run wrote"
        );
    }
    // Once let go, the same command runs.
    drop(claim);
    let ok = case(
        &["run", "ok.toml", "--out", "out", "--quiet"],
        Expect::Answer(""),
    );
    assert_eq!(check(&ok, &dir), None);
    assert!(folder.join("curves.parquet").is_file());
}

#[test]
fn work_too_big_for_the_machine_is_refused_with_the_numbers_before_it_allocates() {
    let dir = folder("memory", &[]);
    let mut cases = vec![
        case(
            &["solve", "fox-hounds", "--size", "14"],
            Expect::Refused("Fox & Hounds 14x14's index of positions needs about 629.5 GB"),
        ),
        case(
            &["solve", "fox-hounds", "--size", "16"],
            Expect::Refused("needs about 75.8 TB"),
        ),
        case(
            &[
                "solve",
                "fox-hounds",
                "--size",
                "16",
                "--no-tables",
                "--no-counts",
            ],
            Expect::Refused("needs about 75.8 TB"),
        ),
        case(
            &["fuzz", "fox-hounds", "--size", "14"],
            Expect::Refused("needs about"),
        ),
        case(
            &["solve", "fox-hounds", "--size", "12", "--max-memory", "2G"],
            Expect::Refused("the limit set by --max-memory is 2.0 GB"),
        ),
        case(
            &[
                "solve",
                "fox-hounds",
                "--size",
                "10",
                "--max-memory",
                "300M",
            ],
            Expect::Refused("--no-tables (and --no-counts) solve with less"),
        ),
        case(
            &[
                "solve",
                "hexapawn",
                "--rows",
                "8",
                "--cols",
                "8",
                "--max-memory",
                "1G",
            ],
            Expect::Refused("enumerating hexapawn (past"),
        ),
        case(
            &[
                "solve",
                "dice-race",
                "--players",
                "6",
                "--goal",
                "50",
                "--max-memory",
                "1G",
            ],
            Expect::Refused("needs about"),
        ),
        case(
            &[
                "solve",
                "fox-hounds",
                "--size",
                "8",
                "--max-memory",
                "1G",
                "--json",
            ],
            Expect::Answer("\"states\": 709868"),
        ),
    ];
    // Playing a game too big to solve: the computer says why and plays without the truth.
    cases.push(case(
        &["play", "fox-hounds", "--size", "16"],
        Expect::Answer(""),
    ));
    for bad in ["abc", "0", "-1G", "12Q", "1e3", "", "99999999999T"] {
        let flag = format!("--max-memory={bad}");
        cases.push(case(
            &["solve", "tictactoe", &flag],
            Expect::Refused("a size such as 12G"),
        ));
    }
    run_all(cases, &dir);
}

#[test]
fn hangs_and_unbounded_counts_are_refused() {
    let dir = folder("bounds", &[]);
    let cases = vec![
        case(
            &["stats", "tictactoe", "--games", "1000000000000"],
            Expect::Refused("at most 1,000,000,000 games"),
        ),
        case(
            &[
                "stats",
                "tictactoe",
                "--threads",
                "100000",
                "--games",
                "100",
            ],
            Expect::Refused("--threads 100000: this machine has"),
        ),
        case(
            &["stats", "tictactoe", "--threads", "0", "--games", "100"],
            Expect::Refused("--threads 0"),
        ),
        case(
            &["stats", "tictactoe", "--threads", "1", "--games", "100"],
            Expect::Answer("games"),
        ),
        case(
            &[
                "tournament",
                "tictactoe",
                "--ai",
                "depth=3,chance=leaf",
                "--ai",
                "random",
            ],
            Expect::Refused("chance is expectation, worst, sample or sample:K"),
        ),
        case(
            &[
                "tournament",
                "tictactoe",
                "--ai",
                "depth=3,bogus",
                "--ai",
                "random",
            ],
            Expect::Refused("the settings are depth=N, order / no-order, prune / no-prune"),
        ),
        case(
            &["play", "tictactoe", "--ai", "depth=0"],
            Expect::Refused("depth is a number of plies from 1 to 64"),
        ),
        case(
            &["bench", "solvers", "--max-size", "17"],
            Expect::Refused("4..=12"),
        ),
        case(
            &["bench", "solvers", "--max-size", "2"],
            Expect::Refused("4..=12"),
        ),
    ];
    run_all(cases, &dir);
}

#[test]
fn unclear_errors_say_what_is_wrong() {
    let dir = folder("unclear", &[("ok.toml", CONFIG), ("a-file", "x")]);
    let huge = "9".repeat(100_000);
    let cases = vec![
        case(
            &["solve", "hexapawn", "--rows", "99999999999999999999999"],
            Expect::Refused("--rows 99999999999999999999999: too large a number"),
        ),
        case(
            &["solve", "hexapawn", "--rows", &huge],
            Expect::Refused("(100,000 characters): too large a number"),
        ),
        case(
            &["solve", "fox-hounds", "--size=-99999999999999999999"],
            Expect::Refused("too large a number"),
        ),
        case(
            &["solve", "fox-hounds", "--escape", "nowhere"],
            Expect::Refused("no escape rule is called `nowhere`"),
        ),
        case(
            &["solve", "fox-hounds", "--escape", "rear-pawn"],
            Expect::Refused("Fox & Hounds escapes are area, square or none"),
        ),
        case(
            &["run", "ok.toml", "--out", "a-file"],
            Expect::Refused("a-file is a file (give --out a folder)"),
        ),
        case(
            &["run", "ok.toml", "--out", "a-file/below"],
            Expect::Refused("a-file is a file (give --out a folder)"),
        ),
        case(
            &["moves", "hase-und-igel", "--state", "[]"],
            Expect::Refused("--state"),
        ),
        case(
            &["moves", "hase-und-igel", "--state", &"x".repeat(100_000)],
            Expect::Refused("(100,000 characters)"),
        ),
    ];
    let mut cases = cases;
    for hares in [0, 1, 7, 100] {
        let state = format!(
            r#"{{"hares": [{}]}}"#,
            vec![r#"{"cell": 1, "carrots": 40, "salads": 3}"#; hares].join(", ")
        );
        let state: &'static str = Box::leak(state.into_boxed_str());
        cases.push(case(
            &["moves", "hase-und-igel", "--state", state],
            Expect::Refused("a position holds 2 to 6 hares, one per player"),
        ));
    }
    run_all(cases, &dir);
}

/// Positions in each game's notation (`--state` of `moves`, `play`, `solve`): a bad one is
/// refused saying what and where, `start` and no state are the start, and `optimal` plays in
/// tournaments where the game can be solved.
#[test]
fn position_notations_refuse_bad_text_and_name_the_fault() {
    let dir = folder("notation", &[("board", "xo./.x./...\n")]);
    let huge_board = format!("{} w", "b".repeat(100_000));
    let tall = format!("{}b w", "w/".repeat(99));
    let long_graph = "l".repeat(20_000);
    let cases = vec![
        case(&["moves", "tictactoe"], Expect::Answer("x to act: 9 moves")),
        case(
            &["moves", "tictactoe", "--state", "start"],
            Expect::Answer("position: .../.../..."),
        ),
        case(
            &["moves", "tictactoe", "--state", "START"],
            Expect::Answer("x to act: 9 moves"),
        ),
        case(
            &["moves", "tictactoe", "--state", "board"],
            Expect::Answer("o to act: 6 moves"),
        ),
        case(
            &["moves", "tictactoe", "--state", "\"x../.../...\""],
            Expect::Answer("o to act: 8 moves"),
        ),
        case(
            &["moves", "tictactoe", "--state", "xx./.../..."],
            Expect::Refused("2 x and 0 o"),
        ),
        case(
            &["moves", "tictactoe", "--state", "x../..."],
            Expect::Refused("the board has 2 rows of 3 squares"),
        ),
        case(
            &["moves", "tictactoe", "--state", "x?./.../..."],
            Expect::Refused("`?` at b3"),
        ),
        case(
            &["moves", "tictactoe", "--state", ""],
            Expect::Refused("--state: an empty position"),
        ),
        case(
            &["moves", "hexapawn", "--state", "bbb/.../www"],
            Expect::Refused("no side to move"),
        ),
        case(
            &["moves", "hexapawn", "--state", &huge_board],
            Expect::Refused("100,002 characters; a board string has at most 1024"),
        ),
        case(
            &["moves", "hexapawn", "--state", &tall],
            Expect::Refused("Hexapawn needs 2 to 64 rows"),
        ),
        case(
            &[
                "moves",
                "hexapawn",
                "--cols",
                "3",
                "--state",
                "bbbb/..../wwww w",
            ],
            Expect::Refused("--cols 3: the position says cols = 4"),
        ),
        case(
            &["moves", "hexapawn", "--state", "bbbb/..../wwww w"],
            Expect::Answer("white to act: 4 moves"),
        ),
        case(
            &["moves", "hexapawn", "--state", "bbb/..b/www w"],
            Expect::Refused("4 black pawns on 3 files"),
        ),
        case(
            &["moves", "fox-hounds", "--state", "..f./..../..../.hh. fox"],
            Expect::Refused("a light square"),
        ),
        case(
            &["moves", "fox-hounds", "--state", "..f./..../..../.h.. fox"],
            Expect::Refused("1 h (hounds) on the board: the game has 2"),
        ),
        case(
            &["moves", "fox-hounds", "--state", "..f./..../..../.h.h fox"],
            Expect::Answer("fox to act: 2 moves"),
        ),
        case(
            &["moves", "hasenspiel", "--state", "..f./..../..../.h.h fox"],
            Expect::Refused("Hasenspiel is 8x8"),
        ),
        case(
            &["moves", "dice-race", "--state", "0,0,0,0,0,0,0 red"],
            Expect::Refused("a race has 2 to 6 runners"),
        ),
        case(
            &["moves", "dice-race", "--state", "0,0,9 red"],
            Expect::Refused("9 is past 7"),
        ),
        case(
            &["moves", "dice-race", "--state", "2,1,3 red 3"],
            Expect::Answer("red to act: 2 moves"),
        ),
        case(
            &["moves", "hackenbush", "--state", "lrq left"],
            Expect::Refused("lrq"),
        ),
        case(
            &["moves", "hackenbush", "--state", &long_graph],
            Expect::Refused("a position has at most 16384 edges"),
        ),
        case(
            &[
                "moves",
                "hackenbush",
                "--position",
                "rrr",
                "--state",
                "lrl right",
            ],
            Expect::Refused("--position rrr: the position says position = \"lrl\""),
        ),
        case(
            &["moves", "hackenbush", "--state", "lrl right"],
            Expect::Answer("right to act: 1 move"),
        ),
        case(
            &["solve", "tictactoe", "--state", "xx./o../o.."],
            Expect::Answer("x wins"),
        ),
        case(
            &["solve", "tictactoe", "--state", "xxo/.o./x.."],
            Expect::Answer("tictactoe at xxo/.o./x.."),
        ),
        case(
            &["play", "tictactoe", "--state", "oo./x../..."],
            Expect::Refused("x has as many marks as o or one more"),
        ),
        case(
            &[
                "tournament",
                "hexapawn",
                "--ai",
                "optimal",
                "--ai",
                "random",
                "--games",
                "3",
            ],
            Expect::Answer("optimal"),
        ),
        case(
            &[
                "tournament",
                "hase-und-igel",
                "--ai",
                "optimal",
                "--ai",
                "random",
                "--games",
                "1",
            ],
            Expect::Refused("--ai optimal: hase-und-igel"),
        ),
    ];
    run_all(cases, &dir);
}

#[test]
fn an_error_is_told_once() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_solvedgym"))
        .args(["rate", "fox-hounds", "--size", "12", "--ai", "depth=2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.matches("22,498,402,752 reachable positions").count(),
        1,
        "{err}"
    );
}
