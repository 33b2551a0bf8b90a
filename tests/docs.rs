//! Every command the documentation shows runs. The test reads README.md and every page under
//! docs/, takes each fenced shell block (```` ```sh ````, also `bash`, `shell`, `console`) and
//! runs each command line in it against the built binary; the conventions are in
//! docs/developers.md ("Commands in the docs"):
//!
//! - A block whose info string carries `long` (```` ```sh long ````) is shown, not run: full
//!   studies, benchmarks, big solves, and commands that need what the repository does not have
//!   (Python, a cluster).
//! - A block whose info string carries `fails` runs, and each of its commands must exit with an
//!   error (not a signal, not the timeout): the docs show a refusal.
//! - In a block that runs, a line is a command; `\` at a line's end continues it, a line that
//!   starts with `#` is a comment (a trailing `# ...` is the shell's comment). `solvedgym ...`,
//!   `cargo run --release -- ...` and `./target/release/solvedgym ...` run the binary
//!   (`cargo test` builds it); `cargo test`, `cargo build`, `cargo fmt` and `cargo clippy` are
//!   skipped (the test runs under the first, after the second); anything else is an error:
//!   mark its block `long`.
//!
//! Each command runs through `sh -c` (so quoting is the shell's) in a scratch folder holding
//! copies of the repository's `configs/`, `experiments/`, `docs/`, `assets/` and `tests/data/`,
//! so nothing is ever written into the repository; `solvedgym` is first on the `PATH`, standard
//! input is empty (`play` ends at once), and a command gets [`TIMEOUT`] before it is killed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest one command may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The README's hard limit: it is the front page, the guide is in docs/.
const README_MAX_LINES: usize = 250;

/// Info-string languages read as shell.
const SHELL: &[&str] = &["sh", "bash", "shell", "console", "zsh"];

/// Folders of the repository a documented command may read, copied into the scratch folder.
const COPIED: &[&str] = &["configs", "experiments", "docs", "assets", "tests/data"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, sorted.
fn doc_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    let mut docs = Vec::new();
    walk(&root().join("docs"), &mut docs);
    docs.sort();
    files.extend(docs);
    files
}

/// A fenced code block: the line of its opening fence, its info string split in words, and its
/// lines with their numbers.
#[derive(Debug)]
struct Block {
    line: usize,
    info: Vec<String>,
    body: Vec<(usize, String)>,
}

impl Block {
    fn is_shell(&self) -> bool {
        self.info
            .first()
            .is_some_and(|lang| SHELL.contains(&lang.as_str()))
    }
    fn has(&self, marker: &str) -> bool {
        self.info.iter().skip(1).any(|w| w == marker)
    }
}

/// The fenced blocks of a Markdown text (backtick fences of three or more, closed by a fence at
/// least as long; an unclosed block runs to the end).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match &mut open {
            None if ticks >= 3 && line.len() - trimmed.len() <= 3 => {
                let info = trimmed[ticks..]
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                open = Some((
                    ticks,
                    Block {
                        line: n,
                        info,
                        body: Vec::new(),
                    },
                ));
            }
            None => {}
            Some((fence, _)) if ticks >= *fence && trimmed[ticks..].trim().is_empty() => {
                out.push(open.take().expect("open").1);
            }
            Some((_, block)) => block.body.push((n, line.to_string())),
        }
    }
    out.extend(open.map(|(_, b)| b));
    out
}

/// The commands of a block's lines: continuation lines joined, blank lines and comment lines
/// left out. Each comes with the number of its first line.
fn commands(body: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in body {
        let (start, mut text) = match pending.take() {
            Some((start, mut text)) => {
                text.push(' ');
                text.push_str(line.trim());
                (start, text)
            }
            None => {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                (*n, t.to_string())
            }
        };
        if text.ends_with('\\') {
            text.pop();
            pending = Some((start, text.trim_end().to_string()));
        } else {
            out.push((start, text));
        }
    }
    out.extend(pending);
    out
}

/// What the test does with a command line.
#[derive(Debug, PartialEq)]
enum Action {
    /// Run this shell line (the binary as `solvedgym`).
    Run(String),
    /// Leave it out, for this reason.
    Skip(&'static str),
    /// Not a command the test can run: an error unless its block is marked `long`.
    Foreign,
}

/// How a command line is treated (see the module's comment).
fn classify(command: &str) -> Action {
    let binaries = [
        "cargo run --release --",
        "./target/release/solvedgym",
        "target/release/solvedgym",
        "solvedgym",
    ];
    for prefix in binaries {
        if let Some(rest) = command.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with(' '))
        {
            return Action::Run(format!("solvedgym{rest}"));
        }
    }
    let skipped = [
        ("cargo test", "the test itself runs under `cargo test`"),
        ("tests/run", "it runs `cargo test`, this test among them"),
        ("cargo build", "`cargo test` has built the binary"),
        ("cargo fmt", "formatting is CI's, not the docs'"),
        ("cargo clippy", "lints are CI's, not the docs'"),
    ];
    for (prefix, why) in skipped {
        if command == prefix || command.starts_with(&format!("{prefix} ")) {
            return Action::Skip(why);
        }
    }
    Action::Foreign
}

/// How a command ended.
enum Outcome {
    Exited(Option<i32>, Duration),
    TimedOut,
}

/// Runs `line` through `sh -c` in `dir`, with `bin` first on the PATH, output to files in
/// `logs` (named by `tag`); kills its process group after [`TIMEOUT`].
fn run(line: &str, dir: &Path, bin: &Path, logs: &Path, tag: &str) -> Outcome {
    use std::os::unix::process::CommandExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let stdout = std::fs::File::create(logs.join(format!("{tag}.out"))).expect("a log file");
    let stderr = std::fs::File::create(logs.join(format!("{tag}.err"))).expect("a log file");
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("a PATH"))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .expect("sh starts");
    loop {
        if let Some(status) = child.try_wait().expect("waiting") {
            return Outcome::Exited(status.code(), started.elapsed());
        }
        if started.elapsed() > TIMEOUT {
            // The whole group: sh and what it started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            return Outcome::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a scratch folder");
    for entry in std::fs::read_dir(from).expect("a readable folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

/// The last lines of a log file, for a failure message.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[test]
fn every_command_in_the_docs_runs() {
    let root = root();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let work = scratch.path().join("work");
    let logs = scratch.path().join("logs");
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&logs).expect("a log folder");
    std::fs::create_dir_all(&bin).expect("a bin folder");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_solvedgym"), bin.join("solvedgym"))
        .expect("a link to the binary");
    for dir in COPIED {
        copy_dir(&root.join(dir), &work.join(dir));
    }

    let started = Instant::now();
    let (mut ran, mut long, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in doc_files() {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).expect("a readable page");
        for block in blocks(&text).into_iter().filter(Block::is_shell) {
            if block.has("long") {
                long += 1;
                continue;
            }
            let fails = block.has("fails");
            for (line, command) in commands(&block.body) {
                let at = format!("{name}:{line}: `{command}`");
                let shell = match classify(&command) {
                    Action::Run(shell) => shell,
                    Action::Skip(_) => {
                        skipped += 1;
                        continue;
                    }
                    Action::Foreign => {
                        failures.push(format!(
                            "{at}: not a solvedgym command; mark the block (line {}) `long`",
                            block.line
                        ));
                        continue;
                    }
                };
                ran += 1;
                let tag = format!("{ran:03}");
                let outcome = run(&shell, &work, &bin, &logs, &tag);
                let problem = match outcome {
                    Outcome::TimedOut => Some(format!(
                        "took over {} s: shorten it or mark the block `long`",
                        TIMEOUT.as_secs()
                    )),
                    Outcome::Exited(Some(0), took) if fails => Some(format!(
                        "succeeded in {took:.1?}, but its block is marked `fails`"
                    )),
                    Outcome::Exited(Some(0), took) => {
                        eprintln!("ok {took:>10.2?}  {at}");
                        None
                    }
                    Outcome::Exited(Some(_), took) if fails => {
                        eprintln!("ok {took:>10.2?}  {at} (fails, as documented)");
                        None
                    }
                    Outcome::Exited(code, _) => Some(format!(
                        "exit {code:?}; stderr ends:\n{}",
                        tail(&logs.join(format!("{tag}.err")), 8)
                    )),
                };
                if let Some(p) = problem {
                    failures.push(format!("{at}: {p}"));
                }
            }
        }
    }
    eprintln!(
        "{ran} commands run, {skipped} skipped, {long} long blocks not run, in {:.1?}",
        started.elapsed()
    );
    assert!(ran > 0, "no command found in the docs");
    assert!(
        failures.is_empty(),
        "commands in the docs that do not run as shown:\n\n{}",
        failures.join("\n\n")
    );
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the inline links and images of a text (outside code blocks and code spans).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans hold text such as `[x](y)` that is no link.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(k, _)| k % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn links_between_pages_resolve() {
    let root = root();
    let mut broken = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("a readable page");
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, target) in links(&text) {
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().expect("a folder").join(path)
            };
            if !resolved.exists() {
                broken.push(format!("{name}:{line}: {target}: no such file"));
                continue;
            }
            if let Some(fragment) = fragment
                && resolved.extension().is_some_and(|e| e == "md")
            {
                let page = std::fs::read_to_string(&resolved).expect("a readable page");
                if !anchors(&page).iter().any(|a| a == fragment) {
                    broken.push(format!("{name}:{line}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_stays_a_front_page() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, at most {README_MAX_LINES}: move the detail to a page under docs/"
    );
}

#[test]
fn a_command_that_fails_is_seen_failing() {
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&bin).expect("a bin folder");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_solvedgym"), bin.join("solvedgym"))
        .expect("a link to the binary");
    let exit = |line: &str, tag: &str| match run(line, scratch.path(), &bin, scratch.path(), tag) {
        Outcome::Exited(code, _) => code,
        Outcome::TimedOut => panic!("`{line}` timed out"),
    };
    assert_eq!(exit("solvedgym solve tictactoe", "a"), Some(0));
    assert_ne!(exit("solvedgym solve chess", "b"), Some(0));
    assert!(tail(&scratch.path().join("b.err"), 3).contains("unknown game"));
}

#[test]
fn blocks_and_commands_are_read_as_documented() {
    let page = "text\n\
                ```sh\n\
                # a comment\n\
                solvedgym solve hexapawn   # trailing comment\n\
                \n\
                cargo run --release -- rate tictactoe \\\n\
                  --ai depth=2\n\
                cargo test --release\n\
                pip install pycgt\n\
                ```\n\
                ```sh long\n\
                solvedgym bench learn\n\
                ```\n\
                ````text\n\
                ```sh\n\
                ````\n\
                ```toml\n\
                name = \"x\"\n\
                ```\n\
                ```sh fails\n\
                ./target/release/solvedgym solve hase-und-igel\n\
                ```\n";
    let found = blocks(page);
    let shell: Vec<&Block> = found.iter().filter(|b| b.is_shell()).collect();
    assert_eq!(shell.len(), 3, "{found:?}");
    assert!(shell[1].has("long") && shell[2].has("fails") && !shell[0].has("long"));
    assert_eq!(shell[0].line, 2);
    let lines = commands(&shell[0].body);
    assert_eq!(
        lines,
        vec![
            (
                4,
                "solvedgym solve hexapawn   # trailing comment".to_string()
            ),
            (
                6,
                "cargo run --release -- rate tictactoe --ai depth=2".to_string()
            ),
            (8, "cargo test --release".to_string()),
            (9, "pip install pycgt".to_string()),
        ]
    );
    let actions: Vec<Action> = lines.iter().map(|(_, c)| classify(c)).collect();
    assert_eq!(
        actions[1],
        Action::Run("solvedgym rate tictactoe --ai depth=2".into())
    );
    assert!(matches!(actions[2], Action::Skip(_)));
    assert_eq!(actions[3], Action::Foreign);
    assert_eq!(
        classify("./target/release/solvedgym solve hase-und-igel"),
        Action::Run("solvedgym solve hase-und-igel".into())
    );
    assert_eq!(classify("solvedgymx"), Action::Foreign);
    assert_eq!(classify("cargo run -- solve hexapawn"), Action::Foreign);
    assert_eq!(anchor("Two commands"), "two-commands");
    assert_eq!(
        anchor(" Hase und Igel: a race for 2–6 hares"),
        "hase-und-igel-a-race-for-26-hares"
    );
}
