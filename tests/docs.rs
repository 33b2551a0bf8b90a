//! Every command the documentation shows runs, every config it shows reads, and every example
//! of the binary's `--help` texts runs. The test reads README.md and every page under docs/; the
//! conventions are in docs/developers.md ("Commands in the docs"):
//!
//! - A fenced shell block (```` ```sh ````, also `bash`, `shell`, `console`): each command line in
//!   it runs against the built binary. A block whose info string carries `long`
//!   (```` ```sh long ````) is shown, not run: full studies, benchmarks, big solves, and commands
//!   that need what the repository does not have (Python, a cluster). A block whose info string
//!   carries `fails` runs, and each of its commands must exit with an error (not a signal, not
//!   the timeout): the docs show a refusal.
//! - In a block that runs, a line is a command; `\` at a line's end continues it, a line that
//!   starts with `#` is a comment (a trailing `# ...` is the shell's comment). `solvedgym ...`,
//!   `cargo run --release -- ...` and `./target/release/solvedgym ...` run the binary
//!   (`cargo test` builds it); `cargo test`, `cargo build`, `cargo fmt` and `cargo clippy` are
//!   skipped (the test runs under the first, after the second); anything else is an error:
//!   mark its block `long`.
//! - The examples of `solvedgym --help` and of every subcommand's `--help` (the lines after
//!   `Example:`/`Examples:` that start with `solvedgym `) run as such commands do, after the
//!   docs' commands. A benchmark (`solvedgym bench ...`) and an example whose comment starts with
//!   `long` are not run: their arguments are read (`--help` after them) and the configs they name
//!   must exist.
//! - A ```` ```toml ```` block is read as `solvedgym run` reads a config; a
//!   ```` ```toml fragment ```` block is completed into one first (see [`toml_failures`]).
//!
//! Each command runs through `sh -c` (so quoting is the shell's) in a scratch folder holding
//! copies of the repository's `configs/`, `experiments/`, `docs/`, `assets/` and `tests/data/`,
//! so nothing is ever written into the repository; `solvedgym` is first on the `PATH`, standard
//! input is empty (`play` ends at once), and a command gets [`TIMEOUT`] before it is killed. The
//! TOML blocks are read from that folder too, after the commands: a config may name what they
//! wrote (the main job's saved agents). The ```` ```python ```` blocks are
//! python/tests/test_docs_blocks.py's.

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

/// What is wrong with how a command ended, if anything. `fails`: it must end with an error.
/// `long`: what to mark so that it is not run.
fn verdict(outcome: Outcome, fails: bool, at: &str, long: &str, stderr: &Path) -> Option<String> {
    match outcome {
        Outcome::TimedOut => Some(format!(
            "took over {} s: shorten it or mark {long}",
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
        Outcome::Exited(code, _) => {
            Some(format!("exit {code:?}; stderr ends:\n{}", tail(stderr, 8)))
        }
    }
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
    let pages: Vec<(String, String)> = doc_files()
        .into_iter()
        .map(|file| {
            let name = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .display()
                .to_string();
            (
                name,
                std::fs::read_to_string(&file).expect("a readable page"),
            )
        })
        .collect();
    for (name, text) in &pages {
        for block in blocks(text).into_iter().filter(Block::is_shell) {
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
                let stderr = logs.join(format!("{tag}.err"));
                let mark = format!("the block (line {}) `long`", block.line);
                if let Some(p) = verdict(outcome, fails, &at, &mark, &stderr) {
                    failures.push(format!("{at}: {p}"));
                }
            }
        }
    }
    eprintln!(
        "{ran} commands run, {skipped} skipped, {long} long blocks not run, in {:.1?}",
        started.elapsed()
    );

    // The examples of the `--help` texts, in the same folder, after the docs' commands.
    let (mut examples_run, mut examples_read) = (0, 0);
    for (at, example) in every_help_example(&bin.join("solvedgym")) {
        let at = format!("{at}: `{example}`");
        let tag = format!("help-{:03}", examples_run + examples_read);
        let (command, comment) = split_comment(&example);
        let stderr = logs.join(format!("{tag}.err"));
        if let Some(why) = not_run(command, comment) {
            // Shown, not run: its arguments must still read, and the configs it names exist.
            examples_read += 1;
            for word in command.split_whitespace() {
                let word = word.trim_matches(|c| c == '"' || c == '\'');
                if word.ends_with(".toml") && !work.join(word).is_file() {
                    failures.push(format!("{at}: no such file: {word}"));
                }
            }
            let outcome = run(&format!("{command} --help"), &work, &bin, &logs, &tag);
            if let Some(p) = verdict(outcome, false, &format!("{at} (read, {why})"), "", &stderr) {
                failures.push(format!("{at}: its arguments do not read: {p}"));
            }
            continue;
        }
        examples_run += 1;
        let outcome = run(command, &work, &bin, &logs, &tag);
        let mark = "it `# long: ...` in its help text (src/cli/)";
        if let Some(p) = verdict(outcome, false, &at, mark, &stderr) {
            failures.push(format!("{at}: {p}"));
        }
    }
    eprintln!(
        "{examples_run} examples of the --help texts run, {examples_read} read only, in {:.1?}",
        started.elapsed()
    );

    // The ```toml blocks, read as `solvedgym run` reads a config, from the folder it runs in:
    // a config may name what the commands above made (the main job's saved agents). No other
    // test of this file depends on the working folder.
    let before = std::env::current_dir().expect("a working folder");
    std::env::set_current_dir(&work).expect("the scratch folder");
    let mut configs = 0;
    for (name, text) in &pages {
        let (checked, problems) = toml_failures(name, text);
        configs += checked;
        failures.extend(problems);
    }
    std::env::set_current_dir(before).expect("the working folder back");
    eprintln!("{configs} toml blocks read as configs");

    assert!(ran > 0, "no command found in the docs");
    assert!(examples_run > 0, "no example found in the --help texts");
    assert!(configs > 0, "no toml block found in the docs");
    assert!(
        failures.is_empty(),
        "commands, examples and configs in the docs that do not run or read as shown:\n\n{}",
        failures.join("\n\n")
    );
}

/// The `--help` texts of the binary, the top one and every subcommand's (and their
/// subcommands'), each example with the help text it is in (`solvedgym bench learn --help`);
/// an example shown in two texts is taken once.
fn every_help_example(bin: &Path) -> Vec<(String, String)> {
    fn walk(bin: &Path, path: &mut Vec<String>, out: &mut Vec<(String, String)>) {
        let output = Command::new(bin)
            .args(path.iter())
            .arg("--help")
            .output()
            .expect("the binary runs");
        let words = path.join(" ");
        let at = format!(
            "`solvedgym {words}{}--help`",
            if words.is_empty() { "" } else { " " }
        );
        assert!(output.status.success(), "{at} fails");
        let help = String::from_utf8(output.stdout).expect("a help text in UTF-8");
        for example in help_examples(&help) {
            if !out.iter().any(|(_, e)| *e == example) {
                out.push((at.clone(), example));
            }
        }
        for sub in subcommands(&help) {
            path.push(sub);
            walk(bin, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(bin, &mut Vec::new(), &mut out);
    out
}

/// The examples of a help text: after a line that starts `Example:` or `Examples:`, that line's
/// rest and each line after it, while they start with `solvedgym ` (indentation aside).
fn help_examples(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        let line = line.trim();
        if let Some(rest) = ["Examples:", "Example:"]
            .iter()
            .find_map(|h| line.strip_prefix(h))
        {
            inside = true;
            if rest.trim().starts_with("solvedgym ") {
                out.push(rest.trim().to_string());
            }
        } else if inside && line.starts_with("solvedgym ") {
            out.push(line.to_string());
        } else {
            inside = false;
        }
    }
    out
}

/// The subcommands a help text lists under `Commands:`, `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
        } else if inside && line.starts_with("  ") && !line.starts_with("   ") {
            let name = line.split_whitespace().next().expect("a command's name");
            if name != "help" {
                out.push(name.to_string());
            }
        } else if inside && !line.starts_with("   ") {
            inside = false;
        }
    }
    out
}

/// A command line and its trailing shell comment: from a `#` after a blank, outside quotes.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    let mut after_blank = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') if after_blank => {
                return (line[..i].trim_end(), Some(line[i + 1..].trim()));
            }
            _ => {}
        }
        after_blank = c.is_whitespace();
    }
    (line.trim_end(), None)
}

/// Why a help text's example is shown but not run (its arguments are only read), if it is not
/// run: a benchmark (`solvedgym bench ...`), or an example whose comment starts with `long`
/// (`# long: the study, 5 min`).
fn not_run(command: &str, comment: Option<&str>) -> Option<&'static str> {
    if command.split_whitespace().nth(1) == Some("bench") {
        return Some("a benchmark");
    }
    let first = comment.and_then(|c| {
        c.split(|ch: char| !ch.is_alphanumeric())
            .find(|w| !w.is_empty())
    });
    (first == Some("long")).then_some("marked long")
}

/// Top-level keys a ```` ```toml fragment ```` block is completed with where it lacks them.
const FRAGMENT_KEYS: &[(&str, &str)] = &[
    ("name", "name = \"docs-fragment\""),
    ("episodes", "episodes = 10"),
];

/// Reads a page's ```` ```toml ```` blocks as `solvedgym run` reads a config
/// (`solvedgym::experiment::config::parse`, every key and value checked); returns how many it
/// read and what was wrong with each that did not read, naming the page and line.
///
/// A block marked `fragment` is part of a config from its top level: it must be TOML, and it is
/// completed where it lacks them with `name`, `episodes`, a `[game]` (Hexapawn) and a
/// `[learner]` (Q-learning; at Black's seat where the fragment has `[[opponents]]`), then read
/// as a whole config. The block's lines keep their numbers on the page, so an error names them.
fn toml_failures(name: &str, text: &str) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for block in blocks(text) {
        if block.info.first().map(String::as_str) != Some("toml") {
            continue;
        }
        checked += 1;
        let fragment = block.has("fragment");
        let body: Vec<&str> = block.body.iter().map(|(_, l)| l.as_str()).collect();
        let body = body.join("\n");
        // A line for each up to the fence, so that the block's lines keep their numbers.
        let mut head = vec!["\n".to_string(); block.line];
        let mut tail = String::new();
        if fragment {
            let table: toml::Table = match toml::from_str(&(head.concat() + &body)) {
                Ok(table) => table,
                Err(e) => {
                    failures.push(format!(
                        "{name}:{}: a fragment that is not TOML: {e}",
                        block.line
                    ));
                    continue;
                }
            };
            let lacking: Vec<&str> = FRAGMENT_KEYS
                .iter()
                .filter(|(key, _)| !table.contains_key(*key))
                .map(|(_, line)| *line)
                .collect();
            // In the blank lines above the block (lines shift only where there are too few).
            for line in lacking {
                match head.iter().rposition(|l| l == "\n") {
                    Some(i) => head[i] = format!("{line}\n"),
                    None => head.insert(0, format!("{line}\n")),
                }
            }
            if !table.contains_key("game") && !table.contains_key("games") {
                tail.push_str("\n[game]\nname = \"hexapawn\"\n");
            }
            if !table.contains_key("learner") && !table.contains_key("learners") {
                tail.push_str("\n[learner]\nkind = \"q-learning\"\n");
                if table.contains_key("opponents") {
                    tail.push_str("seat = \"black\"\n");
                }
            }
        }
        let config = format!("{}{body}\n{tail}", head.concat());
        if let Err(e) = solvedgym::experiment::config::parse(Path::new(name), &config) {
            let what = if fragment { "fragment" } else { "config" };
            failures.push(format!(
                "{name}:{}: the toml block does not read as a {what}:\n{e}",
                block.line
            ));
        }
    }
    (checked, failures)
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

/// The repository's folders: a word of a page that starts with one of them names a file or a
/// folder of the repository (`src/learn/td.rs`, `configs/menace-tictactoe.toml`). A run's outputs
/// under `notebooks-data/` are named from the folder `solvedgym` runs in, so only
/// `notebooks-data/reference/` is the repository's.
const FOLDERS: &[&str] = &[
    "src/",
    "tests/",
    "python/",
    "experiments/",
    "configs/",
    "docs/",
    "notebooks/",
    "notebooks-data/reference/",
    "assets/",
    ".ci/",
];

/// The words of a text that name a path of the repository, with their line numbers: runs of
/// letters, digits and `_./-` that start with one of [`FOLDERS`], a trailing `.` dropped. A word
/// with a placeholder in it (`docs/<game>.md`, `tests/data/tiny*.toml`) names no one path and is
/// left out.
fn repository_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while !rest.is_empty() {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || "_./-".contains(c)))
                .unwrap_or(rest.len());
            let word = rest[..end].trim_end_matches('.');
            let next = rest[end..].chars().next();
            let placeholder = matches!(next, Some('<' | '*' | '{' | '…'));
            if !placeholder && FOLDERS.iter().any(|f| word.starts_with(f)) {
                out.push((i + 1, word.to_string()));
            }
            rest = &rest[end..];
            let skip = rest.chars().next().map_or(0, char::len_utf8);
            rest = &rest[skip..];
        }
    }
    out
}

#[test]
fn paths_the_docs_name_exist() {
    let root = root();
    let mut missing = Vec::new();
    let mut seen = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("a readable page");
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, path) in repository_paths(&text) {
            seen += 1;
            if !root.join(&path).exists() {
                missing.push(format!("{name}:{line}: {path}"));
            }
        }
    }
    assert!(seen > 0, "no path found in the docs");
    assert!(
        missing.is_empty(),
        "paths the docs name that the repository does not have:\n{}",
        missing.join("\n")
    );
}

#[test]
fn paths_are_read_as_documented() {
    let text = "See `src/learn/td.rs`, then configs/menace-tictactoe.toml.\n\
                `docs/<game>.md`, tests/data/tiny*.toml, notebooks-data/her-gardner/curves.parquet\n\
                (../notebooks-data/reference/x.png) and python/tests/test_run.py: done";
    assert_eq!(
        repository_paths(text),
        vec![
            (1, "src/learn/td.rs".to_string()),
            (1, "configs/menace-tictactoe.toml".to_string()),
            (3, "python/tests/test_run.py".to_string()),
        ]
    );
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

#[test]
fn a_bad_toml_block_is_caught() {
    let page = "# a page\n\
                ```toml\n\
                name = \"good\"\n\
                episodes = 10\n\
                [game]\n\
                name = \"tictactoe\"\n\
                [learner]\n\
                kind = \"td\"\n\
                ```\n\
                ```toml\n\
                name = \"typo\"\n\
                episodes = 10\n\
                [game]\n\
                name = \"hexapawn\"\n\
                [learner]\n\
                kind = \"matchbox\"\n\
                shceme = \"her\"\n\
                ```\n\
                ```toml fragment\n\
                [[learners]]\n\
                kind = \"td\"\n\
                lambda = 0.8\n\
                ```\n\
                ```toml fragment\n\
                epsilon = 0.1\n\
                epsilon = 0.2\n\
                ```\n\
                ```toml fragment\n\
                [[opponents]]\n\
                policy = \"fuzzy\"\n\
                p = 1.5\n\
                ```\n\
                ```toml fragment\n\
                [learner]\n\
                kind = \"td\"\n\
                ```\n\
                ```text\n\
                not = [a config\n\
                ```\n";
    let (checked, failures) = toml_failures("page.md", page);
    assert_eq!(checked, 6, "{failures:#?}");
    assert_eq!(failures.len(), 3, "{failures:#?}");
    // Each names the block's line on the page, and the reader's error its own line there.
    assert!(
        failures[0].starts_with("page.md:10: the toml block does not read as a config")
            && failures[0].contains("page.md:17:1: `learner.shceme`"),
        "{}",
        failures[0]
    );
    assert!(
        failures[1].starts_with("page.md:24: a fragment that is not TOML")
            && failures[1].contains("line 26"),
        "{}",
        failures[1]
    );
    assert!(
        failures[2].starts_with("page.md:28: the toml block does not read as a fragment")
            && failures[2].contains("page.md:31:"),
        "{}",
        failures[2]
    );
}

#[test]
fn help_examples_are_read_as_documented() {
    let help = "Run an experiment.\n\
                \n\
                Usage: solvedgym run [OPTIONS] <CONFIG>\n\
                \n\
                Examples:\n  \
                solvedgym run a.toml\n  \
                solvedgym run b.toml --out runs     # into runs/\n\
                The format: docs/experiments.md\n\
                \n\
                Examples: solvedgym bench learn --episodes 20\n          \
                solvedgym play x --ai \"depth=3,#1\"   # long: 5 min\n\
                Example: solvedgym value \"{0|1}\"\n\
                not solvedgym here\n\
                  solvedgym not an example\n";
    let examples = help_examples(help);
    assert_eq!(
        examples,
        vec![
            "solvedgym run a.toml",
            "solvedgym run b.toml --out runs     # into runs/",
            "solvedgym bench learn --episodes 20",
            "solvedgym play x --ai \"depth=3,#1\"   # long: 5 min",
            "solvedgym value \"{0|1}\"",
        ]
    );
    let split: Vec<(&str, Option<&str>)> = examples.iter().map(|e| split_comment(e)).collect();
    assert_eq!(
        split[1],
        ("solvedgym run b.toml --out runs", Some("into runs/"))
    );
    assert_eq!(
        split[3],
        ("solvedgym play x --ai \"depth=3,#1\"", Some("long: 5 min"))
    );
    assert_eq!(not_run(split[0].0, split[0].1), None);
    assert_eq!(not_run(split[1].0, split[1].1), None);
    assert_eq!(not_run(split[2].0, split[2].1), Some("a benchmark"));
    assert_eq!(not_run(split[3].0, split[3].1), Some("marked long"));
    assert_eq!(not_run("solvedgym run x.toml", Some("longest first")), None);
    let top = "Usage: solvedgym <COMMAND>\n\
               \n\
               Commands:\n  \
               games  List the games\n  \
               bench  Benchmark the solvers\n  \
               help   Print this message\n\
               \n\
               Options:\n  \
               -h, --help  Print help\n";
    assert_eq!(subcommands(top), vec!["games", "bench"]);
}
