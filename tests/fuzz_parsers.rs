//! The parsers fed arbitrary and half-right text, as library calls (a short fuzzing run that
//! CI does every time; proptest shrinks a failure to its smallest input): Hase und Igel
//! positions, tracks and decks, the search AI's settings strings, every game's parameters
//! and experiment configs. Each must give a value or an error, never a panic. The Hackenbush
//! graph strings and CGT values are fuzzed in `tests/hostile_cgt.rs`.

use proptest::prelude::*;
use solvedgym::SearchOptions;
use solvedgym::core::game::Game;
use solvedgym::games::{GameInfo, HaseUndIgel, HaseUndIgelParams};
use std::path::Path;

/// A number of the kinds that break parsers: huge, negative, fractional, not a number.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => (0u64..4).prop_map(|n| n.to_string()),
        20 => (0u64..70).prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|x| format!("{x}")),
        1 => Just("1e308".to_string()),
        1 => Just("-0".to_string()),
        1 => Just("99999999999999999999999".to_string()),
        1 => Just("\"7\"".to_string()),
        1 => Just("true".to_string()),
        1 => Just("null".to_string()),
        1 => Just("[]".to_string()),
        1 => Just("{}".to_string()),
    ]
}

/// A field of `range` mostly, now and then a breaking [`number`].
fn field(range: std::ops::Range<u64>) -> impl Strategy<Value = String> {
    prop_oneof![
        30 => range.prop_map(|n| n.to_string()),
        1 => number(),
    ]
}

/// One hare of a position, its fields sometimes missing, misspelt or out of range.
fn hare() -> impl Strategy<Value = String> {
    (
        field(0..66),
        field(0..200),
        field(0..4),
        prop::sample::select(vec![
            "",
            "",
            "",
            "",
            "",
            "",
            ",\"eat\":true",
            ",\"skip\":true",
            ",\"place\":1",
            ",\"place\":9",
            ",\"carots\":1",
            ",\"eat\":1",
        ]),
    )
        .prop_map(|(cell, carrots, salads, extra)| {
            format!(r#"{{"cell":{cell},"carrots":{carrots},"salads":{salads}{extra}}}"#)
        })
}

/// A position's JSON: 0 to 7 hares and the turn's fields, some of them nonsense.
fn position() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            4 => prop::collection::vec(hare(), 3..=3),
            1 => prop::collection::vec(hare(), 0..8),
        ],
        prop::sample::select(vec![
            "",
            "",
            "",
            "",
            r#","to_move":1"#,
            r#","to_move":"green""#,
            r#","to_move":"purple""#,
            r#","to_move":99"#,
            r#","phase":"card","paid":10"#,
            r#","phase":"choice""#,
            r#","phase":"over""#,
            r#","phase":"nap""#,
            r#","round":0"#,
            r#","round":65535"#,
            r#","extra":200"#,
            r#","board":"HCSI""#,
            r#","players":2"#,
            r#","deck":"none""#,
        ]),
    )
        .prop_map(|(hares, turn)| format!(r#"{{"hares":[{}]{turn}}}"#, hares.join(",")))
}

/// A valid config, cut and spliced: a byte range removed and a fragment put in its place.
fn mangled(base: &'static str) -> impl Strategy<Value = String> {
    (
        0..base.len(),
        0usize..20,
        prop::sample::select(vec![
            "",
            "\"",
            "=",
            "[",
            "]]",
            "\n[[learners]]\n",
            "\nseeds = [1, 1]\n",
            "\nseeds = 0\n",
            "\nepisodes = -1\n",
            "\nepisodes = 1e9\n",
            "\nalpha = nan\n",
            "\nsize = 99\n",
            "\nrows = 99999999999999999999\n",
            "\npolicy = \"search:depth=64\"\n",
            "\nkind = \"nonsense\"\n",
            "é",
            "\u{0}",
        ]),
    )
        .prop_map(move |(at, cut, fragment)| {
            let mut start = at;
            while !base.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + cut).min(base.len());
            while !base.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}{fragment}{}", &base[..start], &base[end..])
        })
}

const CONFIGS: [&str; 4] = [
    include_str!("data/tiny.toml"),
    include_str!("../configs/menace-tictactoe.toml"),
    include_str!("../configs/hase-und-igel-small.toml"),
    include_str!("../configs/hackenbush-deal.toml"),
];

fn game() -> HaseUndIgel {
    HaseUndIgel::new(HaseUndIgelParams {
        players: 3,
        ..HaseUndIgelParams::default()
    })
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hase und Igel positions: read or refused; what is read writes back and reads the same.
    #[test]
    fn hase_und_igel_positions_never_panic(text in prop_oneof![
        position(),
        any::<String>(),
        "[{}\\[\\]\",:a-z0-9 ]{0,80}",
    ]) {
        let g = game();
        if let Ok(state) = g.read_position(&text) {
            let written = g.write_position(&state).unwrap().to_string();
            prop_assert_eq!(g.read_position(&written).unwrap(), state);
            // A position that reads is one the rules can go on from.
            let _ = g.turn(&state);
            let mut legal = Vec::new();
            g.legal_actions(&state, &mut legal);
        }
    }

    /// Tracks and decks as parameters: a game or an error naming the parameter.
    #[test]
    fn hase_und_igel_tracks_and_decks_never_panic(
        board in prop_oneof!["[HCSI1234hcsi x]{0,140}", any::<String>()],
        deck in prop_oneof![
            Just("2008".to_string()),
            "[a-z0-9]{0,10}",
            "\\{[a-z_ =,0-9\"-]{0,40}\\}",
            any::<String>(),
        ],
    ) {
        let mut table = toml::Table::new();
        table.insert("board".into(), toml::Value::String(board));
        table.insert("deck".into(), toml::Value::String(deck));
        table.insert("players".into(), toml::Value::Integer(2));
        let info = GameInfo::find("hase-und-igel").unwrap();
        if let Ok(g) = info.build(table) {
            let _ = g.name();
        }
    }

    /// The search AI's settings strings: options or an error that lists the settings.
    #[test]
    fn search_settings_never_panic(text in prop_oneof![
        prop::collection::vec(
            (
                prop::sample::select(vec![
                    "depth", "order", "no-order", "prune", "no-prune", "table", "no-table",
                    "cutoffs", "mode", "chance", "nodes", "ms", "stop", "play-on", "seed",
                    "carrots.hop", "bogus", "",
                ]),
                prop_oneof![
                    Just(String::new()),
                    number(),
                    "[a-z:0-9-]{0,12}",
                ],
            ),
            0..6,
        ).prop_map(|parts| parts
            .iter()
            .map(|(k, v)| if v.is_empty() { k.to_string() } else { format!("{k}={v}") })
            .collect::<Vec<_>>()
            .join(",")),
        any::<String>(),
    ]) {
        if let Ok(options) = SearchOptions::parse(&text) {
            // What is read writes back in a form that reads again.
            prop_assert!(SearchOptions::parse(&options.spec()).is_ok(), "{}", options.spec());
        }
    }

    /// Every game's parameters, each key given a value of the wrong kind or size.
    #[test]
    fn game_parameters_never_panic(
        game in prop::sample::select(solvedgym::games::GAMES.iter().map(|g| g.name).collect::<Vec<_>>()),
        key in 0usize..16,
        value in prop_oneof![
            any::<i64>().prop_map(toml::Value::Integer),
            (0i64..40).prop_map(toml::Value::Integer),
            any::<f64>().prop_map(toml::Value::Float),
            "[a-z0-9:(){};|. -]{0,20}".prop_map(toml::Value::String),
            any::<bool>().prop_map(toml::Value::Boolean),
        ],
    ) {
        let info = GameInfo::find(game).unwrap();
        let fields = info.fields;
        let mut table = toml::Table::new();
        let key = if fields.is_empty() {
            "nothing".to_string()
        } else {
            fields[key % fields.len()].0.to_string()
        };
        table.insert(key, value);
        if let Ok(g) = info.build(table) {
            let _ = g.name();
        }
    }

    /// Experiment configs, cut and spliced: the configs or an error naming file and line.
    #[test]
    fn configs_never_panic(
        text in prop_oneof![
            mangled(CONFIGS[0]),
            mangled(CONFIGS[1]),
            mangled(CONFIGS[2]),
            mangled(CONFIGS[3]),
            any::<String>(),
        ]
    ) {
        if let Err(e) = solvedgym::experiment::config::parse(Path::new("fuzz.toml"), &text) {
            let said = e.to_string();
            prop_assert!(said.contains("fuzz.toml"), "{}", said);
        }
    }
}
