//! Hostile files: links planted in an output folder, pipes and folders where a file is read,
//! saved agents whose numbers are not numbers or whose header lies, and a changed config run
//! into the folder of another. Each must be refused with the path (or the row) named, and
//! nothing outside the output folder may change.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::hostile::{Expect, case, folder, run_all};
use polars::prelude::{Column, DataFrame};

const CONFIG: &str = r#"name = "files"
episodes = 30
eval_interval = 10
seeds = 2

[game]
name = "tictactoe"

[[learners]]
kind = "q-learning"
label = "Q"
seat = "x"

[[opponents]]
policy = "random"
"#;

fn solvedgym(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_solvedgym"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder outside the output folder with one file in it, which no run may touch.
fn victim(dir: &Path) -> PathBuf {
    let victim = dir.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("precious.txt"), "keep me").unwrap();
    victim
}

fn untouched(victim: &Path) {
    assert_eq!(
        std::fs::read_to_string(victim.join("precious.txt")).unwrap(),
        "keep me",
        "a file outside the output folder was changed"
    );
    assert_eq!(std::fs::read_dir(victim).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn links_inside_an_output_folder_are_never_followed() {
    use std::os::unix::fs::symlink;
    let dir = folder("links", &[("ok.toml", CONFIG)]);
    let victim = victim(&dir);
    // Each place a run writes or deletes, replaced by a link to the victim.
    for (n, place) in ["runs", ".solvedgym.lock", "agents", "runs/agents", ""]
        .into_iter()
        .enumerate()
    {
        let out = format!("out{n}");
        let run_dir = dir.join(&out).join("files");
        let link = if place.is_empty() {
            std::fs::create_dir_all(dir.join(&out)).unwrap();
            run_dir.clone()
        } else {
            let link = run_dir.join(place);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            link
        };
        let target = if place == ".solvedgym.lock" {
            victim.join("precious.txt")
        } else {
            victim.clone()
        };
        symlink(&target, &link).unwrap();
        let (code, _, err) = solvedgym(&dir, &["run", "ok.toml", "--out", &out, "--quiet"]);
        assert_eq!(code, Some(1), "{place}: {err}");
        assert!(
            err.contains("is a symbolic link")
                && err.contains(link.strip_prefix(&dir).unwrap().to_str().unwrap()),
            "{place}: {err}"
        );
        untouched(&victim);
        // With --fresh, too: the cleanup never reaches through the link.
        let (code, _, err) = solvedgym(
            &dir,
            &["run", "ok.toml", "--out", &out, "--quiet", "--fresh"],
        );
        assert_eq!(code, Some(1), "{place} --fresh: {err}");
        untouched(&victim);
    }
}

#[test]
fn a_changed_config_run_into_the_same_folder_is_refused_or_replaced_whole() {
    let changed = CONFIG.replace("episodes = 30", "episodes = 40");
    let dir = folder(
        "changed",
        &[("ok.toml", CONFIG), ("changed.toml", &changed)],
    );
    let (code, _, err) = solvedgym(&dir, &["run", "ok.toml", "--out", "out", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let run = dir.join("out/files");
    let before = std::fs::read(run.join("summary.json")).unwrap();
    let (code, _, err) = solvedgym(&dir, &["run", "changed.toml", "--out", "out", "--quiet"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("holds the outputs of another config") && err.contains("--fresh"),
        "{err}"
    );
    assert_eq!(std::fs::read(run.join("summary.json")).unwrap(), before);
    // A stray file of the user's beside the outputs stays; the old outputs go.
    std::fs::write(run.join("notes.txt"), "mine").unwrap();
    let (code, _, err) = solvedgym(
        &dir,
        &["run", "changed.toml", "--out", "out", "--quiet", "--fresh"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("--fresh:") && err.contains("removed"), "{err}");
    assert_eq!(
        std::fs::read_to_string(run.join("notes.txt")).unwrap(),
        "mine"
    );
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(config.contains("episodes = 40"), "{config}");
    // The same config again is a resume, not a replacement.
    let (code, _, err) = solvedgym(&dir, &["run", "changed.toml", "--out", "out", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("--fresh:"), "{err}");
}

/// The agents a run of `CONFIG` saved, run in `dir`.
fn agents(dir: &Path) -> Vec<PathBuf> {
    let (code, _, err) = solvedgym(dir, &["run", "ok.toml", "--out", "out", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("out/files/agents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

/// `from` written to `to` with its values and header changed.
fn tampered(
    from: &Path,
    to: &Path,
    values: impl Fn(usize, f64) -> f64,
    part: Option<&str>,
    header: impl Fn(&mut serde_json::Value),
) {
    let mut df = solvedgym::io::parquet::read_frame(from).unwrap();
    let mut metadata = solvedgym::io::parquet::read_metadata(from).unwrap();
    let value: Vec<f64> = df
        .column("value")
        .unwrap()
        .f64()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, v)| values(i, v.unwrap()))
        .collect();
    let n = value.len();
    df.with_column(Column::new("value".into(), value)).unwrap();
    if let Some(part) = part {
        df.with_column(Column::new("part".into(), vec![part; n]))
            .unwrap();
    }
    for (key, text) in &mut metadata {
        if key == "solvedgym.agent" {
            let mut json: serde_json::Value = serde_json::from_str(text).unwrap();
            header(&mut json);
            *text = json.to_string();
        }
    }
    let mut df: DataFrame = df;
    solvedgym::io::parquet::write_frame(to, &mut df, &metadata).unwrap();
}

#[test]
fn agents_with_numbers_that_are_not_numbers_or_a_lying_header_are_refused() {
    let dir = folder("agents", &[("ok.toml", CONFIG)]);
    let agent = agents(&dir)[0].clone();
    let keep = |_: usize, v: f64| v;
    let same = |_: &mut serde_json::Value| {};
    let mut cases = Vec::new();
    let mut add = |name: &str, expect: &'static str| {
        let path = dir.join(name);
        for args in [
            vec!["evaluate", name],
            vec![
                "tournament",
                "tictactoe",
                "--ai",
                "random",
                "--ai",
                &format!("agent={name}"),
                "--games",
                "10",
            ],
            vec![
                "play",
                "tictactoe",
                "--ai",
                &format!("agent={name}"),
                "--as",
                "o",
            ],
        ] {
            let args: Vec<&str> = args.iter().map(|s| &**s).collect();
            cases.push(case(&args, Expect::Refused(expect)));
        }
        assert!(path.is_file());
    };
    for (name, bad) in [
        ("nan.parquet", f64::NAN),
        ("inf.parquet", f64::INFINITY),
        ("minus-inf.parquet", f64::NEG_INFINITY),
    ] {
        tampered(&agent, &dir.join(name), |_, _| bad, None, same);
        add(name, "which is no number a policy can be read from");
    }
    tampered(
        &agent,
        &dir.join("one-nan.parquet"),
        |i, v| if i == 3 { f64::NAN } else { v },
        None,
        same,
    );
    add("one-nan.parquet", "row 4");
    tampered(&agent, &dir.join("part.parquet"), keep, Some("qq"), same);
    add("part.parquet", "rows of part `qq`");
    tampered(&agent, &dir.join("purple.parquet"), keep, None, |h| {
        h["seats"] = serde_json::json!(["purple"]);
    });
    add("purple.parquet", "the seat `purple`");
    tampered(&agent, &dir.join("none.parquet"), keep, None, |h| {
        h["seats"] = serde_json::json!([]);
    });
    add("none.parquet", "names no seat");
    tampered(&agent, &dir.join("twice.parquet"), keep, None, |h| {
        h["seats"] = serde_json::json!(["x", "x"]);
    });
    add("twice.parquet", "twice");
    // A seat the game has, but not the one its run trained: only its run's evaluation knows.
    tampered(&agent, &dir.join("o.parquet"), keep, None, |h| {
        h["seats"] = serde_json::json!(["o"]);
    });
    cases.push(case(
        &["evaluate", "o.parquet"],
        Expect::Refused("its run's config trained the learner at x"),
    ));
    // An agent that says it trained 10^18 episodes: its schedules are worked out at once.
    tampered(&agent, &dir.join("long.parquet"), keep, None, |h| {
        h["episodes"] = serde_json::json!(1_000_000_000_000_000_000u64);
    });
    cases.push(case(
        &[
            "tournament",
            "tictactoe",
            "--ai",
            "random",
            "--ai",
            "agent=long.parquet",
            "--games",
            "10",
        ],
        Expect::Answer("agent"),
    ));
    // The untouched agent still loads and scores.
    let name = agent.file_name().unwrap().to_str().unwrap().to_string();
    std::fs::copy(&agent, dir.join("good.parquet")).unwrap();
    cases.push(case(&["evaluate", "good.parquet"], Expect::Answer("")));
    drop(name);
    run_all(cases, &dir);
}

#[cfg(unix)]
#[test]
fn pipes_and_folders_where_a_file_is_read_are_refused_not_waited_on() {
    let agent_config = format!(
        "{CONFIG}\n[[opponents]]\nname = \"piped\"\npolicy = \"agent\"\nagent = \"pipe\"\n"
    );
    let dir = folder("pipes", &[("agent.toml", &agent_config)]);
    let made = Command::new("mkfifo")
        .arg(dir.join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::create_dir_all(dir.join("a-folder")).unwrap();
    let mut cases = Vec::new();
    for path in ["pipe", "a-folder", "/dev/zero"] {
        let what = if path == "a-folder" {
            "is not a regular file (a folder)"
        } else {
            "is not a regular file (a pipe"
        };
        let agent = format!("agent={path}");
        cases.push(case(&["evaluate", path], Expect::Refused(what)));
        cases.push(case(&["run", path, "--out", "out"], Expect::Refused(what)));
        cases.push(case(
            &["play", "tictactoe", "--ai", &agent, "--as", "o"],
            Expect::Refused(what),
        ));
        cases.push(case(
            &["tournament", "tictactoe", "--ai", "random", "--ai", &agent],
            Expect::Refused(what),
        ));
    }
    cases.push(case(
        &["run", "agent.toml", "--out", "out"],
        Expect::Refused("is not a regular file (a pipe"),
    ));
    run_all(cases, &dir);
}
