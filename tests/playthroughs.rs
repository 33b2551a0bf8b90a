//! Golden playthroughs, as OpenSpiel keeps them: for every registered game (default parameters,
//! and the further settings of `MORE`)
//! a seeded random game is written move by move ([`solvedgym::core::check::playthrough`]) and compared
//! with the stored file `tests/playthroughs/<game>.txt`. A changed rule, notation or rendering
//! shows as a difference. After a deliberate change, regenerate the files with
//! `SOLVEDGYM_BLESS=1 cargo test --release --test playthroughs` and review the diff.

use std::path::PathBuf;

use solvedgym::core::check::playthrough;
use solvedgym::games::{AnyGame, GAMES};

const SEED: u64 = 2026;

/// Further settings with playthroughs of their own: (file name, game, parameters as TOML).
const MORE: &[(&str, &str, &str)] = &[
    ("hase-und-igel-2-players", "hase-und-igel", "players = 2"),
    (
        "hase-und-igel-6-players",
        "hase-und-igel",
        "players = 6\nmax_rounds = 20",
    ),
    (
        "hase-und-igel-classic-ranks",
        "hase-und-igel",
        "players = 4\nboard = 'classic'\ndeck = 'classic'\nend = 'ranks'\nmax_rounds = 25",
    ),
];

#[test]
fn every_registered_game_plays_through_as_stored() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/playthroughs");
    let bless = std::env::var_os("SOLVEDGYM_BLESS").is_some();
    let mut failures = Vec::new();
    let defaults = GAMES
        .iter()
        .map(|info| (info.name.to_string(), info.default_game()));
    let more = MORE.iter().map(|(file, name, params)| {
        let table: toml::Table = params.parse().unwrap();
        (file.to_string(), AnyGame::from_spec(name, table).unwrap())
    });
    for (name, game) in defaults.chain(more) {
        let text = solvedgym::with_game!(&game, g => playthrough(g, SEED));
        // Two runs with one seed give one text.
        let again = solvedgym::with_game!(&game, g => playthrough(g, SEED));
        assert_eq!(text, again, "{name}: not deterministic");
        let file = dir.join(format!("{name}.txt"));
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
                    name,
                    file.display(),
                    line + 1,
                    stored.lines().nth(line),
                    text.lines().nth(line)
                ));
            }
            Err(_) => failures.push(format!(
                "{}: no stored playthrough {}; run with SOLVEDGYM_BLESS=1 to write it",
                name,
                file.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
