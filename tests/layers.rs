//! The crate's layers, checked: every `crate::` path in the library's code (its test modules
//! aside) names a module of its own layer or of one below it, and the modules that share a layer
//! do not import each other. docs/layout.md draws the same layers; change both together.
//!
//! The check reads the source as text: it strips comments, string and character literals and
//! `#[cfg(test)]` items, then looks at every `crate::name` left.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The library's top-level modules by layer, lowest first. Modules in one entry share a layer
/// and stand side by side: none imports another.
const LAYERS: &[&[&str]] = &[
    &["io"],
    &["core"],
    &["truth"],
    &["games", "learn"],
    &["ai", "eval"],
    &["experiment"],
    &["tools", "front"],
];

/// Items of the crate root (lib.rs) that every layer may use: the game dispatch macro, which
/// `#[macro_export]` places there.
const ROOT_ITEMS: &[&str] = &["with_game"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The source of `text` with comments, string and character literals blanked (each replaced by
/// spaces, so lines keep their numbers).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |s: &[u8], out: &mut String| {
        for &c in s {
            out.push(if c == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&rest[..end], &mut out);
            i += end;
        } else if rest.starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(rest.len(), |e| e + 4);
            blank(&rest[..end], &mut out);
            i += end;
        } else if rest.starts_with(b"r#\"") || rest.starts_with(b"r\"") {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let open = 2 + hashes;
            let end = text[i + open..]
                .find(&close)
                .map_or(rest.len(), |e| open + e + close.len());
            blank(&rest[..end], &mut out);
            i += end;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&rest[..end], &mut out);
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{7f}') or a lifetime ('a): only the first ends
            // with a quote within a few bytes.
            let close = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|e| e + 3)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match close {
                Some(end) => {
                    blank(&rest[..end], &mut out);
                    i += end;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = text[i..].chars().next().expect("a character");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `code` without the items marked `#[cfg(test)]` (a `mod tests;` line, or a braced item).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        out.push('\n');
        let mut depth = 0i64;
        let mut opened = false;
        for item in lines.by_ref() {
            out.push('\n');
            depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
            opened |= item.contains('{');
            if (opened && depth <= 0) || (!opened && item.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::name` in `code`, with its line number.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    // `$crate::` is a macro's own crate: the same rule applies.
    paths_named(code, "crate::")
}

/// Every `PREFIX` + name in `code` (not preceded by a letter, digit or `_`), with its line.
fn paths_named(code: &str, prefix: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            let after = &rest[at + prefix.len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) && !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

/// The violations of the layer rule in the library's source, one line each.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        // The root (lib.rs: the curated front re-exports every layer) and the binary (main.rs
        // and cli/: the top, which may use everything) are not layers; test files are tests.
        let top = parts[0].trim_end_matches(".rs");
        if matches!(top, "lib" | "main" | "cli") || parts.last().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        let Some(own) = layer_of(top) else {
            bad.push(format!(
                "{}: `{top}` is in no layer of tests/layers.rs",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("a readable file");
        let code = without_tests(&code_only(&text));
        let mut seen = BTreeSet::new();
        for (line, name) in crate_paths(&code) {
            if ROOT_ITEMS.contains(&name.as_str()) || name == top {
                continue;
            }
            let what = match layer_of(&name) {
                None => format!("crate::{name} is in no layer"),
                Some(l) if l > own => format!("imports crate::{name}, a layer above `{top}`"),
                Some(l) if l == own => {
                    format!("imports crate::{name}, which stands beside `{top}` in its layer")
                }
                Some(_) => continue,
            };
            if seen.insert(what.clone()) {
                bad.push(format!("{}:{line}: {what}", rel.display()));
            }
        }
    }
    bad
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(
        bad.is_empty(),
        "imports that break the layers (see docs/layout.md):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_that_runs_up() {
    let dir = tempfile::tempdir().unwrap();
    let core = dir.path().join("core");
    std::fs::create_dir_all(&core).unwrap();
    std::fs::write(
        core.join("game.rs"),
        "//! uses crate::experiment in a comment only\n\
         use crate::core::graph::StateGraph;\n\
         fn f() -> &'static str { \"crate::tools\" }\n\
         fn g(c: char) -> bool { c == '{' }\n\
         #[cfg(test)]\nmod tests {\n    use crate::games::TicTacToe;\n}\n\
         fn h() { crate::truth::enumerate(); }\n",
    )
    .unwrap();
    std::fs::write(core.join("tests.rs"), "use crate::tools::bench;\n").unwrap();
    assert_eq!(
        violations(dir.path()),
        vec!["core/game.rs:9: imports crate::truth, a layer above `core`".to_string()]
    );
    let learn = dir.path().join("learn");
    std::fs::create_dir_all(&learn).unwrap();
    std::fs::write(learn.join("mod.rs"), "use crate::games::TicTacToe;\n").unwrap();
    assert_eq!(
        violations(dir.path())[1],
        "learn/mod.rs:1: imports crate::games, which stands beside `learn` in its layer"
    );
}

/// What the modules outside `games` may name of it: the registry, which knows every game by
/// name and hands out an [`AnyGame`] for `with_game!` to dispatch.
const REGISTRY: &[&str] = &[
    "AnyGame",
    "GAMES",
    "GameInfo",
    "GameSpec",
    "GameSpecError",
    "InvalidParams",
    "ParamsDoc",
    "spec",
];

/// Files outside `games` that may name a game's types, and why.
const NAMES_GAMES: &[(&str, &str)] = &[(
    "tools/bench.rs",
    "the benchmarks measure particular games and their solvers' internals by design",
)];

/// The games' own items that `code` names — `crate::games::ITEM` (also in a `use` group) other
/// than the registry's, or `AnyGame::Variant` — with their lines.
fn games_named(code: &str) -> Vec<(usize, String)> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let prefix = "crate::games::";
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        let items: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let mut items = Vec::new();
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group[..end].char_indices().chain([(end, ',')]) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(group[start..i].trim().to_string());
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            items
        } else {
            vec![rest.to_string()]
        };
        for item in items {
            let name: String = item
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !REGISTRY.contains(&name.as_str()) {
                found.push((line_of(at), name));
            }
        }
    }
    for (line, name) in paths_named(code, "AnyGame::") {
        if name.starts_with(char::is_uppercase) {
            found.push((line, format!("AnyGame::{name}")));
        }
    }
    found.sort();
    found
}

/// Adding a game stays in `src/games/`: no other module names a game's types (it reaches a game
/// through the registry and `with_game!`, and the [`Game`] trait), so nothing outside asks for
/// an arm per game. Test modules may name games.
#[test]
fn no_module_outside_the_games_names_a_game() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .display()
            .to_string();
        let top = rel.split('/').next().unwrap_or("").trim_end_matches(".rs");
        if matches!(top, "games" | "lib" | "main" | "cli")
            || rel.ends_with("tests.rs")
            || NAMES_GAMES.iter().any(|(f, _)| *f == rel)
        {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a readable file");
        for (line, name) in games_named(&without_tests(&code_only(&text))) {
            bad.push(format!("{rel}:{line}: {name}"));
        }
    }
    assert!(
        bad.is_empty(),
        "modules outside src/games name a game (reach it through the Game trait):\n{}",
        bad.join("\n")
    );
    let sample = "use crate::games::{AnyGame, GameInfo};\nuse crate::games::{\n    spec::GameSpec,\n    \
                  hexapawn::{Hexapawn, HexapawnState},\n};\n\
                  fn f(g: &AnyGame) { if let AnyGame::Chase(c) = g {} AnyGame::from_name(); }\n\
                  fn h() { crate::games::GAMES; crate::games::tictactoe::TicTacToe; }\n";
    assert_eq!(
        games_named(sample),
        vec![
            (2, "hexapawn".to_string()),
            (6, "AnyGame::Chase".to_string()),
            (7, "tictactoe".to_string()),
        ]
    );
}

/// The library's modules other than `front` that `code` names as `solvedgym::NAME`, with their
/// lines (comments and literals aside).
fn beside_front(code: &str) -> Vec<(usize, String)> {
    let mut found = paths_named(code, "solvedgym::");
    found.retain(|(_, name)| name != "front");
    found
}

/// The Python binding (`python/src`) reaches the library through `front` alone: what it needs
/// of another layer, `front` gives it.
#[test]
fn the_python_binding_imports_front_alone() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/src");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(files.len() > 1, "no Rust files under {}", dir.display());
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable file");
        for (line, name) in beside_front(&without_tests(&code_only(&text))) {
            bad.push(format!("{}:{line}: solvedgym::{name}", file.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "the binding imports the library beside `front` (give it through front/):\n{}",
        bad.join("\n")
    );
    let sample = "//! solvedgym::io in a comment\nuse solvedgym::front::DynGame;\n\
                  #[pyclass(module = \"solvedgym._solvedgym\")]\nstruct A;\n\
                  fn f() { solvedgym::io::text::plain_words(\"\"); }\n";
    assert_eq!(
        beside_front(&without_tests(&code_only(sample))),
        vec![(5, "io".to_string())]
    );
}

/// docs/layout.md names every file of `src/` (as `core/game.rs`), so the map cannot drift from
/// the house: a file added, moved or removed fails here until the page says so.
#[test]
fn the_layout_page_names_every_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/layout.md")).expect("docs/layout.md");
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut missing: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(&src)
                .expect("under src")
                .display()
                .to_string()
        })
        .filter(|rel| !page.contains(&format!("`{rel}`")))
        .collect();
    missing.sort();
    assert!(
        missing.is_empty(),
        "docs/layout.md does not name these files of src/: {missing:?}"
    );
}
