//! Long studies: a run killed part-way resumes to the same bytes as an uninterrupted one, a
//! changed config is refused (or started afresh), and shards merge to the same bytes as one
//! machine; merging refuses different configs, duplicates and missing runs.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::solvedgym;

const STUDY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/resume-study.toml");
const TINY_STUDY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-study.toml");

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn err(out: Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn run(config: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", config, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    solvedgym(&args)
}

fn spawn_run(config: &str, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_solvedgym"))
        .args(["run", config, "--out", out.to_str().unwrap()])
        .args(["--quiet", "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Every file below `dir`, by its path relative to `dir`, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The two folders hold the same files with the same bytes.
fn assert_same_tree(a: &Path, b: &Path) {
    let (ta, tb) = (tree(a), tree(b));
    let names = |t: &BTreeMap<PathBuf, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&ta),
        names(&tb),
        "{} and {}",
        a.display(),
        b.display()
    );
    for (name, bytes) in &ta {
        assert!(bytes == &tb[name], "{} differs", name.display());
    }
    assert!(ta.keys().any(|n| n.ends_with("curves.parquet")));
}

/// Runs stored so far in the study's folders (while the study writes them).
fn stored(out: &Path) -> usize {
    ["tictactoe", "hexapawn-3x3"]
        .iter()
        .filter_map(|game| std::fs::read_dir(out.join("resume-study").join(game).join("runs")).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("run-") && name.ends_with(".json")
        })
        .count()
}

/// Waits until at least `at_least` runs are stored, then stops `child` with `signal` (a real
/// signal: SIGKILL through `Child::kill`, SIGTERM through kill(1)).
fn stop_after(mut child: Child, out: &Path, at_least: usize, signal: &str) {
    let start = Instant::now();
    while stored(out) < at_least {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "the run ended ({status}) before {at_least} runs were stored: make \
                 tests/data/resume-study.toml longer"
            );
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no runs stored");
        std::thread::sleep(Duration::from_millis(5));
    }
    match signal {
        "KILL" => child.kill().unwrap(),
        _ => {
            let status = Command::new("kill")
                .args([&format!("-{signal}"), &child.id().to_string()])
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert!(
        status.signal().is_some(),
        "{status}: not stopped by a signal"
    );
}

#[test]
fn a_killed_study_resumes_to_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (whole, broken) = (tmp.path().join("whole"), tmp.path().join("broken"));
    ok(run(STUDY, &whole, &["--quiet"]));
    assert!(
        !whole.join("resume-study/tictactoe/runs").exists(),
        "a finished run leaves no stored runs"
    );

    // Killed (SIGKILL) after two runs of the first game's eight, then resumed and stopped again
    // (SIGTERM) two runs later.
    stop_after(spawn_run(STUDY, &broken), &broken, 2, "KILL");
    let first = stored(&broken);
    assert!((2..8).contains(&first), "{first} runs stored");
    assert!(!broken.join("resume-study/tictactoe/curves.csv").exists());
    stop_after(spawn_run(STUDY, &broken), &broken, first + 2, "TERM");
    let second = stored(&broken);
    assert!((first + 2..16).contains(&second), "{second} runs stored");

    ok(run(STUDY, &broken, &["--quiet"]));
    assert_same_tree(&whole, &broken);
}

#[test]
fn a_changed_config_is_refused_or_started_afresh() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // A shard leaves stored runs behind, as an interruption would.
    ok(run(TINY_STUDY, &out, &["--quiet", "--shard", "1/2"]));
    let changed = tmp.path().join("changed.toml");
    let text = std::fs::read_to_string(TINY_STUDY).unwrap();
    std::fs::write(&changed, text.replace("seeds = 2", "seeds = 3")).unwrap();
    let changed = changed.to_str().unwrap();

    let e = err(run(changed, &out, &["--quiet"]));
    let folder = out.join("tiny-study").join("tictactoe");
    assert!(e.contains(&folder.display().to_string()), "{e}");
    assert!(e.contains("another config (hash ") && e.contains("this config's hash is "));
    assert!(e.contains("--fresh"), "{e}");

    ok(run(changed, &out, &["--quiet", "--fresh"]));
    let clean = tmp.path().join("clean");
    ok(run(changed, &clean, &["--quiet"]));
    assert_same_tree(&clean, &out);
}

#[test]
fn shards_merge_to_the_bytes_of_one_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str| tmp.path().join(name);
    ok(run(TINY_STUDY, &p("one"), &["--quiet"]));
    let shard = |k: &str, dir: &str| {
        let out = ok(run(TINY_STUDY, &p(dir), &["--json", "--shard", k]));
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["share"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    let (a, b) = (shard("1/2", "s1"), shard("2/2", "s2"));
    // Each game has 4 runs; together the shards hold each once, and both have work.
    assert_eq!(
        a.iter().zip(&b).map(|(x, y)| x + y).collect::<Vec<_>>(),
        [4, 4]
    );
    assert!(a.iter().sum::<u64>() > 0 && b.iter().sum::<u64>() > 0);

    let merge = |dirs: &[&str], out: &str| {
        let mut args = vec!["merge".to_string()];
        args.extend(dirs.iter().map(|d| p(d).display().to_string()));
        args.extend([
            "--out".into(),
            p(out).display().to_string(),
            "--quiet".into(),
        ]);
        solvedgym(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    ok(merge(&["s1", "s2"], "merged"));
    assert_same_tree(&p("one"), &p("merged"));
    // The shards' folders are left as they were: merging again gives the same.
    ok(merge(&["s2", "s1"], "again"));
    assert_same_tree(&p("one"), &p("again"));
    // With --csv the merge writes curves.csv as one machine's --csv run does, byte for byte.
    ok(run(TINY_STUDY, &p("one-csv"), &["--quiet", "--csv"]));
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(["s1", "s2"].iter().map(|d| p(d).display().to_string()));
    args.extend(["--out".into(), p("merged-csv").display().to_string()]);
    args.extend(["--quiet".into(), "--csv".into()]);
    ok(solvedgym(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert_same_tree(&p("one-csv"), &p("merged-csv"));
    let csv = p("merged-csv")
        .join("tiny-study")
        .join("tictactoe")
        .join("curves.csv");
    let text = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{}: {e}", csv.display()));
    assert!(text.lines().count() > 1, "{text}");
    assert!(
        !p("merged")
            .join("tiny-study")
            .join("tictactoe")
            .join("curves.csv")
            .exists()
    );

    let e = err(merge(&["s1"], "bad"));
    assert!(
        e.contains("missing") && e.contains("not given: shard 2/2"),
        "{e}"
    );
    let e = err(merge(&["s1", "s1"], "bad"));
    assert!(e.contains("given twice"), "{e}");
    let copy = p("s1-copy");
    std::fs::create_dir_all(&copy).unwrap();
    assert!(
        Command::new("cp")
            .args(["-r", &p("s1").join("tiny-study").display().to_string()])
            .arg(&copy)
            .status()
            .unwrap()
            .success()
    );
    let e = err(merge(&["s1", "s2", "s1-copy"], "bad"));
    assert!(e.contains("stored twice"), "{e}");

    // A shard of a changed config.
    let changed = p("changed.toml");
    let text = std::fs::read_to_string(TINY_STUDY).unwrap();
    std::fs::write(&changed, text.replace("episodes = 2000", "episodes = 1800")).unwrap();
    ok(run(
        changed.to_str().unwrap(),
        &p("s2-changed"),
        &["--quiet", "--shard", "2/2"],
    ));
    let e = err(merge(&["s1", "s2-changed"], "bad"));
    assert!(
        e.contains("shards of different configs") && e.contains("config hash"),
        "{e}"
    );
    let e = err(merge(&["nowhere"], "bad"));
    assert!(e.contains("no such folder"), "{e}");

    // A damaged run is named where it lies, in its shard (not in merge's copy of it); deleting
    // it and resuming that shard mends the merge.
    let runs = p("s1").join("tiny-study").join("tictactoe").join("runs");
    let damaged = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.file_name().unwrap().to_string_lossy().starts_with("run-"))
        .expect("shard 1/2 stores a run");
    std::fs::write(&damaged, "{ not a run").unwrap();
    let e = err(merge(&["s1", "s2"], "bad-run"));
    assert!(
        e.contains(&damaged.display().to_string()) && e.contains("resume that shard"),
        "{e}"
    );
    std::fs::remove_file(&damaged).unwrap();
    ok(run(TINY_STUDY, &p("s1"), &["--quiet", "--shard", "1/2"]));
    ok(merge(&["s1", "s2"], "mended"));
    assert_same_tree(&p("one"), &p("mended"));

    // A shard's store without its manifest is named, not counted as missing runs.
    std::fs::remove_file(runs.join("manifest.json")).unwrap();
    let e = err(merge(&["s1", "s2"], "bad-manifest"));
    assert!(
        e.contains(&runs.display().to_string()) && e.contains("no manifest.json"),
        "{e}"
    );
}

#[test]
fn quiet_and_json_runs_print_nothing_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--quiet", "--json"] {
        let out = ok(run(TINY_STUDY, &tmp.path().join(flag), &[flag]));
        assert!(
            out.stderr.is_empty(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if flag == "--json" {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v.as_array().unwrap().len(), 2);
        }
    }
}
