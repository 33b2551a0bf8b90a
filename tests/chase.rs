//! Fox & Hounds and Hasenspiel from the command line: the published figures of
//! reference programs (gilith/solve, mancap314/hasenspiel) come out of `solve` and `fuzz`, `play` survives a
//! person, and the environments pass the shared checker. (10x10 is in `solvedgym bench`.)

mod common;

use common::{solvedgym, solvedgym_json as json};

use solvedgym::core::check::{CheckOptions, check_game};
use solvedgym::games::{Chase, Escape, FoxHoundsParams, HasenspielParams};

#[test]
fn fox_and_hounds_figures_of_the_reference() {
    for (size, states, games, start, foxbox, max) in [
        ("2", 1, "1", "hounds win in 0 plies", "In 0", "Max (In 0) 0"),
        (
            "4",
            83,
            "178",
            "hounds win in 8 plies",
            "In 0",
            "Max (In 2) 4",
        ),
        (
            "6",
            8175,
            "982462133247",
            "fox wins in 21 plies",
            "Never",
            "Max Never 0",
        ),
        (
            "8",
            709_868,
            "360552037329667882019232833884",
            "hounds win in 44 plies",
            "In 0",
            "Max (In 6) 6",
        ),
    ] {
        let r = json(&["solve", "fox-hounds", "--size", size, "--json", "--quiet"]);
        assert_eq!(r["states"], states, "{size}");
        assert_eq!(r["games"], games, "{size}");
        assert_eq!(r["start"], start, "{size}");
        assert_eq!(r["start_foxbox"], foxbox, "{size}");
        assert_eq!(r["start_max_foxbox"], max, "{size}");
    }
    // The generic solver gives the same figures (and the older square rule the older count).
    let g = json(&["solve", "fox-hounds", "--size", "8", "--generic", "--json"]);
    assert_eq!(g["states"], 709_868);
    assert_eq!(g["games"], "360552037329667882019232833884");
    let sq = json(&[
        "solve",
        "fox-hounds",
        "--escape",
        "square",
        "--json",
        "--quiet",
    ]);
    assert_eq!(sq["states"], 701_218);
    assert_eq!(sq["start"], "hounds win in 44 plies");
    let none = json(&[
        "solve",
        "fox-hounds",
        "--size",
        "6",
        "--escape",
        "none",
        "--json",
    ]);
    assert_eq!(
        none["start"].as_str().unwrap().split(' ').next(),
        Some("fox")
    );
}

#[test]
fn hasenspiel_figures_of_the_reference() {
    let r = json(&["solve", "hasenspiel", "--json", "--quiet"]);
    assert_eq!(r["states"], 778_341);
    assert_eq!(r["start"], "black wins in 44 plies");
    assert_eq!(r["black_winning_states"], 58_924);
    // "about 2,479.39 x 10^27 possible games, 1.49 % of them won by Black; 7.57 % of states".
    let games: f64 = r["games"].as_str().unwrap().parse().unwrap();
    assert_eq!(format!("{:.2}", games / 1e27), "2479.39");
    let share = |k: &str| format!("{:.2}", 100.0 * r[k].as_f64().unwrap());
    assert_eq!(share("black_games_share"), "1.49");
    assert_eq!(share("black_winning_states_share"), "7.57");
    // The variants: other counts, the same winner.
    for escape in ["first-row", "none"] {
        let v = json(&[
            "solve",
            "hasenspiel",
            "--escape",
            escape,
            "--json",
            "--quiet",
        ]);
        assert_ne!(v["states"], 778_341, "{escape}");
        assert_eq!(v["winner"], "black", "{escape}");
    }
}

#[test]
fn fuzz_prints_the_reference_fairest_factors() {
    for (size, fairest) in [("4", 0.095558), ("6", 0.041771), ("8", 0.006935)] {
        let t = json(&["fuzz", "fox-hounds", "--size", size, "--json"]);
        let p = t["fairest"].as_f64().unwrap();
        assert_eq!(format!("{p:.6}"), format!("{fairest:.6}"), "{size}");
    }
    let bad = solvedgym(&["fuzz", "tictactoe"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("fox-hounds"));
    let bad = solvedgym(&["solve", "fox-hounds", "--size", "7"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("even"));
    let bad = solvedgym(&["solve", "hasenspiel", "--escape", "area"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("rear-pawn"));
}

#[test]
fn play_fox_and_hounds_in_the_terminal() {
    let stdout = common::with_input(
        &[
            "play",
            "fox-hounds",
            "--size",
            "4",
            "--as",
            "fox",
            "--fuzz",
            "0.1",
        ],
        b"?\nzz\n\xff\n99\nc4-b3\nquit\n",
    );
    assert!(stdout.contains("your move [c4-b3 c4-d3]"), "{stdout}");
    assert!(stdout.contains("solver: hounds win in 8 plies"), "{stdout}");
    assert!(stdout.contains("illegal action \"zz\""), "{stdout}");
    assert!(stdout.contains("hounds plays"), "{stdout}");
}

#[test]
fn chase_environments_pass_the_checker() {
    let options = CheckOptions::default();
    for size in [2, 4, 6, 8, 10, 12] {
        for escape in [Escape::Area, Escape::Square, Escape::None] {
            let g = Chase::fox_hounds(FoxHoundsParams { size, escape }).unwrap();
            check_game(&g, &options).unwrap_or_else(|e| panic!("{size} {escape:?}: {e}"));
        }
    }
    for escape in [Escape::RearPawn, Escape::FirstRow, Escape::None] {
        let g = Chase::hasenspiel(HasenspielParams { escape }).unwrap();
        check_game(&g, &options).unwrap();
    }
}
