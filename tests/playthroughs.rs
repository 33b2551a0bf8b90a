//! Golden playthroughs, as OpenSpiel keeps them: for every registered game (default parameters)
//! a seeded random game is written move by move ([`solvedgym::check::playthrough`]) and compared
//! with the stored file `tests/playthroughs/<game>.txt`. A changed rule, notation or rendering
//! shows as a difference. After a deliberate change, regenerate the files with
//! `SOLVEDGYM_BLESS=1 cargo test --release --test playthroughs` and review the diff.

use std::path::PathBuf;

use solvedgym::check::playthrough;
use solvedgym::games::GAMES;

const SEED: u64 = 2026;

#[test]
fn every_registered_game_plays_through_as_stored() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/playthroughs");
    let bless = std::env::var_os("SOLVEDGYM_BLESS").is_some();
    let mut failures = Vec::new();
    for info in GAMES {
        let game = info.default_game();
        let text = solvedgym::with_game!(&game, g => playthrough(g, SEED));
        // Two runs with one seed give one text.
        let again = solvedgym::with_game!(&game, g => playthrough(g, SEED));
        assert_eq!(text, again, "{}: not deterministic", info.name);
        let file = dir.join(format!("{}.txt", info.name));
        if bless {
            std::fs::write(&file, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(stored) if stored == text => {}
            Ok(stored) => {
                let line = stored
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map_or(stored.lines().count().min(text.lines().count()), |i| i);
                failures.push(format!(
                    "{}: differs from {} at line {}:\n  stored: {:?}\n  now:    {:?}",
                    info.name,
                    file.display(),
                    line + 1,
                    stored.lines().nth(line),
                    text.lines().nth(line)
                ));
            }
            Err(_) => failures.push(format!(
                "{}: no stored playthrough {}; run with SOLVEDGYM_BLESS=1 to write it",
                info.name,
                file.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
