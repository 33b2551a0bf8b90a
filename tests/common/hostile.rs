//! The hostile-input harness: run the binary on an input under a memory limit and a time
//! bound, and check it answers or refuses cleanly (see `tests/hostile.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The address space a case may use: enough for every legitimate small job, far below what
/// the inputs below would take unchecked.
pub const MEMORY_LIMIT_KB: u64 = 4 * 1024 * 1024;
/// The time a case may take: generous for 2 shared cores, far below a hang.
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// What a case must give.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// Exit code 1 or 2, and stderr holds this text.
    Refused(&'static str),
    /// Exit code 0, and stdout holds this text.
    Answer(&'static str),
}

pub struct Case {
    pub args: Vec<String>,
    pub stdin: Option<String>,
    pub expect: Expect,
}

pub fn case(args: &[&str], expect: Expect) -> Case {
    Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
        expect,
    }
}

/// A folder of its own for a test, with the given files in it.
pub fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("solvedgym-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// Runs one case under the limits; returns what went wrong, if anything.
pub fn check(case: &Case, workdir: &Path) -> Option<String> {
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
    if let Some(word) = rust_words(&stderr) {
        return Some(format!("stderr speaks Rust ({word:?}): {}", short(&stderr)));
    }
    if stderr.len() > 4000 {
        return Some(format!(
            "stderr of {} bytes (an input echoed whole?): {}",
            stderr.len(),
            short(&stderr)
        ));
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

/// The first word of Rust's own vocabulary in `text` (a type name where a reader needs words),
/// if any.
pub fn rust_words(text: &str) -> Option<&'static str> {
    const WORDS: [&str; 12] = [
        "usize",
        "u64",
        "u32",
        "u16",
        "i64",
        "i32",
        "f64",
        "f32",
        "untagged enum",
        "expected struct",
        "Toml",
        "NonZero",
    ];
    WORDS.into_iter().find(|w| {
        text.match_indices(w).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            let alone = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
            (alone(before) || *w == "Toml") && (alone(after) || *w == "NonZero")
        })
    })
}

/// Runs the cases two at a time (the machines have 2 cores) and fails with every miss.
pub fn run_all(cases: Vec<Case>, workdir: &Path) {
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
    eprintln!("{total} hostile inputs, {} misbehaved", misses.len());
    assert!(
        misses.is_empty(),
        "{} of {total} hostile inputs misbehaved:\n{}",
        misses.len(),
        misses.join("\n")
    );
}
