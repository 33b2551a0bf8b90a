//! Hostile configs, generated: every key a study config takes, given values of every wrong
//! kind (negative, fractional, huge, not a number, text, a list, a table, a megabyte of text).
//! Each must be refused naming the key and its line, in a reader's words (no Rust type names,
//! no input echoed whole), or run to its end where the value is one the key takes.

mod common;

use common::hostile::{Case, Expect, case, folder, run_all};

const BASE: &str = r#"name = "matrix"
episodes = 20
eval_interval = 10
seeds = 1

[game]
name = "tictactoe"

[[learners]]
kind = "q-learning"
seat = "x"

[[opponents]]
policy = "random"
"#;

/// The values of every wrong kind tried at each key.
fn wrong_values() -> Vec<String> {
    let mut values: Vec<String> = [
        "-1",
        "1.5",
        "-0.5",
        "0",
        "1e308",
        "-1e308",
        "nan",
        "inf",
        "-inf",
        "18446744073709551616",
        "9223372036854775807",
        "\"ten\"",
        "\"\"",
        "true",
        "[]",
        "[1, 2]",
        "{}",
        "{ x = 1 }",
        "1979-05-27",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    values.push(format!("\"{}\"", "x".repeat(1_000_000)));
    values.push(format!("[{}]", "[".repeat(500) + &"]".repeat(500)));
    values
}

/// Where a key goes: at the top, or in a table (`[game]`, `[[learners]]`, ...).
struct Key {
    table: &'static str,
    key: &'static str,
    /// The error names it so (`learners[0].alpha`).
    path: &'static str,
    /// Values among [`wrong_values`] this key takes (the run then ends cleanly).
    takes: &'static [&'static str],
}

const KEYS: &[Key] = &[
    Key {
        table: "",
        key: "episodes",
        path: "episodes",
        takes: &[],
    },
    Key {
        table: "",
        key: "eval_interval",
        path: "eval_interval",
        takes: &["9223372036854775807"],
    },
    Key {
        table: "",
        key: "seeds",
        path: "seeds",
        takes: &["[1, 2]"],
    },
    Key {
        table: "",
        key: "save_agents",
        path: "save_agents",
        takes: &["0", "9223372036854775807"],
    },
    Key {
        table: "",
        key: "description",
        path: "description",
        takes: &["\"ten\"", "\"\""],
    },
    Key {
        table: "",
        key: "name",
        path: "name",
        takes: &["\"ten\""],
    },
    Key {
        table: "",
        key: "alpah",
        path: "alpah",
        takes: &[],
    },
    Key {
        table: "game",
        key: "name",
        path: "game.name",
        takes: &[],
    },
    Key {
        table: "game",
        key: "sizee",
        path: "game.sizee",
        takes: &[],
    },
    Key {
        table: "learners",
        key: "alpha",
        path: "learners[0].alpha",
        takes: &[],
    },
    Key {
        table: "learners",
        key: "gamma",
        path: "learners[0].gamma",
        takes: &[],
    },
    Key {
        table: "learners",
        key: "epsilon",
        path: "learners[0].epsilon",
        takes: &["0"],
    },
    Key {
        table: "learners",
        key: "initial",
        path: "learners[0].initial",
        takes: &["-1", "1.5", "-0.5", "0"],
    },
    Key {
        table: "learners",
        key: "double",
        path: "learners[0].double",
        takes: &["true"],
    },
    Key {
        table: "learners",
        key: "label",
        path: "learners[0].label",
        takes: &["\"ten\""],
    },
    Key {
        table: "learners",
        key: "seat",
        path: "learners[0].seat",
        takes: &[],
    },
    Key {
        table: "learners",
        key: "kind",
        path: "learners[0].kind",
        takes: &[],
    },
    Key {
        table: "learners",
        key: "alhpa",
        path: "learners[0].alhpa",
        takes: &[],
    },
    Key {
        table: "opponents",
        key: "policy",
        path: "opponents[0].policy",
        takes: &[],
    },
    Key {
        table: "opponents",
        key: "name",
        path: "opponents[0].name",
        takes: &["\"ten\""],
    },
    Key {
        table: "evaluation",
        key: "evaluator",
        path: "evaluation.evaluator",
        takes: &[],
    },
    Key {
        table: "evaluation",
        key: "games",
        path: "evaluation.games",
        takes: &[],
    },
    Key {
        table: "plots",
        key: "band",
        path: "plots.band",
        takes: &[],
    },
    Key {
        table: "plots",
        key: "metrics",
        path: "plots.metrics",
        takes: &["[]"],
    },
];

/// `BASE` with `key = value` set (replacing the key where `BASE` has it).
fn config(key: &Key, value: &str) -> String {
    let line = format!("{} = {value}", key.key);
    let mut lines: Vec<String> = Vec::new();
    let mut table = "";
    let mut placed = false;
    for l in BASE.lines() {
        if let Some(t) = l.strip_prefix("[[").and_then(|t| t.strip_suffix("]]")) {
            if !placed && table == key.table {
                lines.push(line.clone());
                placed = true;
            }
            table = match t {
                "learners" => "learners",
                "opponents" => "opponents",
                _ => "?",
            };
        } else if let Some(t) = l.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            if !placed && table == key.table {
                lines.push(line.clone());
                placed = true;
            }
            table = if t == "game" { "game" } else { "?" };
        }
        if table == key.table && l.starts_with(&format!("{} =", key.key)) {
            if !placed {
                lines.push(line.clone());
                placed = true;
            }
            continue;
        }
        lines.push(l.to_string());
    }
    if !placed && table == key.table {
        lines.push(line.clone());
        placed = true;
    }
    if !placed {
        lines.push(format!("[{}]", key.table));
        lines.push(line);
    }
    lines.join("\n") + "\n"
}

#[test]
fn every_key_refuses_every_wrong_kind_of_value_by_name_and_line() {
    let mut files = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    for (k, key) in KEYS.iter().enumerate() {
        for (v, value) in wrong_values().iter().enumerate() {
            let file = format!("k{k}-v{v}.toml");
            files.push((file.clone(), config(key, value)));
            let text = value.starts_with('"') && value.len() > 1000;
            let expect =
                if key.takes.contains(&value.as_str()) || (text && key.key == "description") {
                    Expect::Answer("")
                } else if value.starts_with("[[") {
                    // Refused by the TOML reader, which bounds nesting, before any key is known.
                    Expect::Refused("max recursion depth")
                } else {
                    Expect::Refused(key.path)
                };
            let out = format!("out-{k}-{v}");
            cases.push(case(&["run", &file, "--out", &out, "--quiet"], expect));
        }
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    let dir = folder("matrix", &refs);
    run_all(cases, &dir);
}

#[test]
fn a_misspelt_name_gets_a_suggestion() {
    let dir = folder(
        "did-you-mean",
        &[
            ("key.toml", &BASE.replace("eval_interval", "eval_intreval")),
            (
                "kind.toml",
                &BASE.replace("\"q-learning\"", "\"q-learnin\""),
            ),
            (
                "game.toml",
                &BASE.replace("\"tictactoe\"", "\"tictactoes\""),
            ),
            ("policy.toml", &BASE.replace("\"random\"", "\"randon\"")),
            (
                "learner-key.toml",
                &BASE.replace("seat = \"x\"", "seat = \"x\"\nalpah = 0.5"),
            ),
        ],
    );
    let cases = vec![
        case(
            &["run", "key.toml", "--out", "o"],
            Expect::Refused("did you mean `eval_interval`?"),
        ),
        case(
            &["run", "kind.toml", "--out", "o"],
            Expect::Refused("did you mean `q-learning`?"),
        ),
        case(
            &["run", "game.toml", "--out", "o"],
            Expect::Refused("did you mean `tictactoe`?"),
        ),
        case(
            &["run", "policy.toml", "--out", "o"],
            Expect::Refused("did you mean `random`?"),
        ),
        case(
            &["run", "learner-key.toml", "--out", "o"],
            Expect::Refused("did you mean `alpha`?"),
        ),
        case(
            &["solve", "hexapwan"],
            Expect::Refused("did you mean `hexapawn`?"),
        ),
    ];
    run_all(cases, &dir);
}
