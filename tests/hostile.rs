//! Hostile input: every surface a user can type into, fed what no one should type. Each case
//! must end with a clear error (exit code 1, or 2 for clap's usage errors) or a correct answer,
//! within a time bound and under a memory limit (`ulimit -v`, so an attempted huge allocation
//! fails the test rather than the machine); never a panic (101), an abort (134) or a signal.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The address space a case may use: enough for every legitimate small job, far below what
/// the inputs below would take unchecked.
const MEMORY_LIMIT_KB: u64 = 4 * 1024 * 1024;
/// The time a case may take: generous for 2 shared cores, far below a hang.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// What a case must give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Exit code 1 or 2, and stderr holds this text.
    Refused(&'static str),
    /// Exit code 0, and stdout holds this text.
    Answer(&'static str),
}

struct Case {
    args: Vec<String>,
    stdin: Option<String>,
    expect: Expect,
}

fn case(args: &[&str], expect: Expect) -> Case {
    Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
        expect,
    }
}

/// A folder of its own for a test, with the given files in it.
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("solvedgym-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// Runs one case under the limits; returns what went wrong, if anything.
fn check(case: &Case, workdir: &Path) -> Option<String> {
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_solvedgym"))
        .args(&case.args)
        .current_dir(workdir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    if let Some(text) = &case.stdin {
        let _ = stdin.write_all(text.as_bytes());
    }
    drop(stdin);
    // Read the pipes on their own threads, so a chatty child cannot block on a full pipe.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Some(format!("no answer in {} s", TIME_LIMIT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
    let short = |s: &str| s.chars().take(600).collect::<String>();
    let code = status.code();
    if stderr.contains("panicked") || stderr.contains("memory allocation of") {
        return Some(format!("exit {code:?}, crashed: {}", short(&stderr)));
    }
    match case.expect {
        Expect::Refused(text) => {
            if !matches!(code, Some(1 | 2)) {
                return Some(format!(
                    "exit {code:?}, expected a refusal; stderr: {}; stdout: {}",
                    short(&stderr),
                    short(&stdout)
                ));
            }
            if !stderr.contains(text) {
                return Some(format!(
                    "refused, but stderr lacks {text:?}: {}",
                    short(&stderr)
                ));
            }
        }
        Expect::Answer(text) => {
            if code != Some(0) {
                return Some(format!(
                    "exit {code:?}, expected an answer: {}",
                    short(&stderr)
                ));
            }
            if !stdout.contains(text) {
                return Some(format!(
                    "answered, but stdout lacks {text:?}: {}",
                    short(&stdout)
                ));
            }
        }
    }
    None
}

/// Runs the cases two at a time (the machines have 2 cores) and fails with every miss.
fn run_all(cases: Vec<Case>, workdir: &Path) {
    let total = cases.len();
    let queue = Mutex::new(cases.into_iter().enumerate());
    let misses = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let Some((i, case)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    if let Some(miss) = check(&case, workdir) {
                        misses
                            .lock()
                            .unwrap()
                            .push(format!("case {i}: solvedgym {:?}\n    {miss}", case.args));
                    }
                }
            });
        }
    });
    let misses = misses.into_inner().unwrap();
    assert!(
        misses.is_empty(),
        "{} of {total} hostile inputs misbehaved:\n{}",
        misses.len(),
        misses.join("\n")
    );
}

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
