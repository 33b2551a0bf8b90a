//! Every mistake in a config names its file, line and key; the resolved config reads back.

use super::*;
use crate::experiment::opponents::{DEFAULT_REFRESH, FrozenPlay};
use crate::learn::monte_carlo::{McConfig, StepSize};

fn parse_str(text: &str) -> Result<ExperimentConfig, ConfigError> {
    parse(Path::new("test.toml"), text).map(|mut v| {
        assert_eq!(v.len(), 1, "one game");
        v.remove(0).0
    })
}

const GOOD: &str = r#"
name = "t"
episodes = 10
seeds = 3

[game]
name = "hexapawn"

[learner]
kind = "matchbox"
scheme = "her"
seat = "black"

[[opponents]]
policy = "random"
"#;

#[test]
fn a_good_config_resolves_its_defaults() {
    let c = parse_str(GOOD).unwrap();
    assert_eq!(c.seeds, [0, 1, 2]);
    assert_eq!(c.eval_interval.get(), 1);
    assert_eq!(c.learners[0].label, "her");
    assert_eq!(c.opponents[0].name, "random");
    // The resolved file parses back to the same config.
    let again = parse_str(&c.resolved_toml()).unwrap();
    assert_eq!(again, c);
}

#[test]
fn monte_carlo_takes_sample_averages_only_when_asked() {
    let step_size = |c: &ExperimentConfig| match &c.learners[2].config {
        LearnerConfig::MonteCarlo(mc) => mc.alpha,
        other => panic!("not Monte-Carlo: {other:?}"),
    };
    // Left out: the default constant step size.
    let c = parse_str(VALUE_LEARNERS).unwrap();
    assert_eq!(step_size(&c), McConfig::default().alpha);
    let averages = VALUE_LEARNERS.replace(
        "visits = \"every\"",
        "visits = \"every\"\nalpha = \"average\"",
    );
    let c = parse_str(&averages).unwrap();
    assert_eq!(step_size(&c), StepSize::Average);
    // The resolved config says so, and reads back the same.
    let resolved = c.resolved_toml();
    assert!(resolved.contains("alpha = \"average\""), "{resolved}");
    assert_eq!(parse_str(&resolved).unwrap(), c);
    let bad = averages.replace("\"average\"", "\"mean\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (16, Some("learners[2].alpha")),
        "{e}"
    );
    assert!(e.message.contains("\"average\""), "{e}");
    let bad = averages.replace("\"average\"", "1.5");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("learners[2].alpha"), "{e}");
}

#[test]
fn a_misspelt_key_names_the_key_and_its_line() {
    let bad = GOOD.replace("episodes = 10", "episdoes = 10");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    assert!(e.message.contains("episdoes"), "{e}");
    let bad = GOOD.replace("scheme = \"her\"", "schema = \"her\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (11, Some("learner.schema")),
        "{e}"
    );
    assert!(e.to_string().contains("test.toml:11:1"), "{e}");
}

#[test]
fn wrong_types_and_values_point_at_the_value() {
    let bad = GOOD.replace("episodes = 10", "episodes = \"ten\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let bad = GOOD.replace("scheme = \"her\"", "scheme = \"hers\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (11, Some("learner.scheme")),
        "{e}"
    );
    assert!(e.message.contains("menace"), "{e}");
    let bad = GOOD.replace("policy = \"random\"", "policy = \"fuzzy\"\np = 1.5");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (16, Some("opponents[0].p")),
        "{e}"
    );
    let bad = GOOD.replace("kind = \"matchbox\"", "kind = \"sarsa-lambda\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.column), (10, 8), "{e}");
}

#[test]
fn game_errors_point_into_the_game_table() {
    let bad = GOOD.replace("name = \"hexapawn\"", "name = \"hexapawn\"\nsize = 8");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (8, Some("game.size")), "{e}");
    let bad = GOOD.replace("name = \"hexapawn\"", "name = \"hexapawn\"\nrows = 1");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (8, Some("game.rows")), "{e}");
    let bad = GOOD.replace("name = \"hexapawn\"", "name = \"chess\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (7, Some("game.name")), "{e}");
    let bad = GOOD.replace("seat = \"black\"", "seat = \"red\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.line, 12, "{e}");
    assert!(e.message.contains("white, black"), "{e}");
}

#[test]
fn values_out_of_range_are_named() {
    let bad = GOOD.replace("seeds = 3", "seeds = -1");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (4, Some("seeds")), "{e}");
    assert!(e.message.contains("negative"), "{e}");
    let bad = GOOD.replace("seeds = 3", "seeds = 4000000000000000");
    let e = parse_str(&bad).unwrap_err();
    assert!(e.message.contains("at most"), "{e}");
    let bad = GOOD.replace("seeds = 3", "seeds = \"many\"");
    let e = parse_str(&bad).unwrap_err();
    assert!(e.message.contains("number of seeds"), "{e}");
    // A seed listed twice would be two identical runs counted as two.
    let bad = GOOD.replace("seeds = 3", "seeds = [1, 5, 1]");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (4, Some("seeds")), "{e}");
    assert!(e.message.contains("seed 1 is listed twice"), "{e}");
    assert!(parse_str(&GOOD.replace("seeds = 3", "seeds = [1, 5, 2]")).is_ok());
    let bad = GOOD.replace(
        "seat = \"black\"",
        "seat = \"black\"\nreinforce = \"sometimes\"",
    );
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (13, Some("learner.reinforce")),
        "{e}"
    );
    let bad = GOOD.replace("name = \"t\"", "name = \"..\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("name"), "{e}");
}

const VALUE_LEARNERS: &str = r#"name = "v"
episodes = 10
[game]
name = "tictactoe"
[[learners]]
kind = "q-learning"
algorithm = "sarsa"
double = true
[[learners]]
kind = "td"
lambda = 0.5
epsilon = { kind = "linear", start = 1.0, end = 0.1, episodes = 100 }
[[learners]]
kind = "monte-carlo"
visits = "every"
"#;

#[test]
fn value_learners_resolve_and_round_trip() {
    let c = parse_str(VALUE_LEARNERS).unwrap();
    // Self-play records results per seat: the default plots name them so.
    assert_eq!(c.plot_metrics[2], "return_vs_optimal_as_*");
    let labels: Vec<&str> = c.learners.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["Double SARSA", "TD(0.5)", "MC (every visit)"]);
    let again = parse_str(&c.resolved_toml()).unwrap();
    assert_eq!(again, c);
}

#[test]
fn value_learner_mistakes_name_the_key_and_line() {
    let bad = VALUE_LEARNERS.replace("lambda = 0.5", "lambda = 1.5");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (11, Some("learners[1].lambda")),
        "{e}"
    );
    let bad = VALUE_LEARNERS.replace("end = 0.1", "end = 1.1");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (12, Some("learners[1].epsilon")),
        "{e}"
    );
    let bad = VALUE_LEARNERS.replace("algorithm = \"sarsa\"", "algorithm = \"sarsa-max\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (7, Some("learners[0].algorithm")),
        "{e}"
    );
    let bad = VALUE_LEARNERS.replace("double = true", "dubble = true");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (8, Some("learners[0].dubble")),
        "{e}"
    );
    let bad = VALUE_LEARNERS.replace("visits = \"every\"", "visits = \"every\"\ngamma = 0");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("learners[2].gamma"), "{e}");
}

const FEATURE_LEARNERS: &str = r#"name = "f"
episodes = 10
[game]
name = "fox-hounds"
size = 6
[[learners]]
kind = "ntuple"
tuples = 8
length = 5
symmetry = false
[[learners]]
kind = "linear"
output = "linear"
[[learners]]
kind = "mlp"
hidden = [16, 8]
activation = "relu"
"#;

#[test]
fn feature_learners_resolve_and_their_mistakes_are_named() {
    let c = parse_str(FEATURE_LEARNERS).unwrap();
    let labels: Vec<&str> = c.learners.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        ["n-tuple 8x5 TD(0.5)", "linear TD(0.5)", "MLP 16-8 TD(0.5)"]
    );
    let again = parse_str(&c.resolved_toml()).unwrap();
    assert_eq!(again, c);
    let resolved = c.resolved_toml();
    for key in ["tuple_seed", "trace_cutoff", "init_seed", "activation"] {
        assert!(resolved.contains(key), "{key} in\n{resolved}");
    }
    // TD(λ), the default target, is left out of the resolved config (its hash as before the
    // key); Q-learning is written and labelled.
    assert!(!resolved.contains("target"), "{resolved}");
    let q = parse_str(&FEATURE_LEARNERS.replace("tuples = 8", "tuples = 8\ntarget = \"greedy\""))
        .unwrap();
    assert_eq!(q.learners[0].label, "n-tuple 8x5 Q(0.5)");
    assert!(q.resolved_toml().contains("target = \"greedy\""));
    assert_eq!(parse_str(&q.resolved_toml()).unwrap(), q);
    let e = parse_str(&FEATURE_LEARNERS.replace("tuples = 8", "tuples = 8\ntarget = \"max\""))
        .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("learners[0].target"), "{e}");
    assert!(e.message.contains("played"), "{e}");
    for (from, to, line, key, says) in [
        (
            "length = 5",
            "length = 9",
            9,
            "learners[0].length",
            "tuple length",
        ),
        (
            "tuples = 8",
            "tuples = 0",
            8,
            "learners[0].tuples",
            "number of tuples",
        ),
        (
            "tuples = 8",
            "tupels = 8",
            8,
            "learners[0].tupels",
            "unknown field",
        ),
        (
            "output = \"linear\"",
            "output = \"sigmoid\"",
            13,
            "learners[1].output",
            "unknown variant",
        ),
        (
            "hidden = [16, 8]",
            "hidden = [16, 8, 4]",
            16,
            "learners[2].hidden",
            "one or two",
        ),
        (
            "hidden = [16, 8]",
            "hidden = [0]",
            16,
            "learners[2].hidden",
            "one or two",
        ),
        (
            "activation = \"relu\"",
            "activation = \"relu\"\ntrace_cutoff = 1",
            18,
            "learners[2].trace_cutoff",
            "trace cutoff",
        ),
    ] {
        let bad = FEATURE_LEARNERS.replace(from, to);
        let e = parse_str(&bad).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (line, Some(key)), "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

#[test]
fn a_typo_inside_a_schedule_names_its_key_and_line() {
    let bad = VALUE_LEARNERS.replace("start = 1.0", "strat = 1.0");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (12, Some("learners[1].epsilon.strat")),
        "{e}"
    );
    assert!(e.message.contains("unknown field `strat`"), "{e}");
    let bad = VALUE_LEARNERS.replace("lambda = 0.5", "lambda = 0.5\nalpha = \"high\"");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (12, Some("learners[1].alpha")),
        "{e}"
    );
    assert!(e.message.contains("a number or a schedule table"), "{e}");
}

#[test]
fn alternating_seats_and_frozen_copies_resolve_and_their_mistakes_are_named() {
    let alternate = GOOD.replace("seat = \"black\"", "seat = \"alternate\"");
    let frozen = alternate.replace(
        "policy = \"random\"",
        "policy = \"frozen\"\nrefresh = 500\nplay = \"greedy\"",
    );
    let c = parse_str(&frozen).unwrap();
    assert_eq!(c.learners[0].seat, Seat::Alternate);
    assert_eq!(
        c.opponents[0].policy,
        OpponentPolicy::Frozen {
            refresh: NonZeroU64::new(500).unwrap(),
            play: FrozenPlay::Greedy
        }
    );
    assert_eq!(c.opponents[0].name, "frozen greedy every 500");
    assert_eq!(parse_str(&c.resolved_toml()).unwrap(), c);
    let c = parse_str(&alternate.replace("policy = \"random\"", "policy = \"frozen\"")).unwrap();
    assert_eq!(
        c.opponents[0].policy,
        OpponentPolicy::Frozen {
            refresh: DEFAULT_REFRESH,
            play: FrozenPlay::Behaviour
        }
    );

    // A frozen copy at a seat its learner never learns would stay a beginner.
    let e = parse_str(&frozen.replace("seat = \"alternate\"", "seat = \"black\"")).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (15, Some("opponents[0].policy")),
        "{e}"
    );
    assert!(e.message.contains("alternate"), "{e}");
    let e = parse_str(&frozen.replace("refresh = 500", "refresh = 0")).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (16, Some("opponents[0].refresh")),
        "{e}"
    );
    let e = parse_str(&frozen.replace("\"greedy\"", "\"greedily\"")).unwrap_err();
    assert_eq!(e.line, 17, "{e}");
    assert!(e.message.contains("behaviour"), "{e}");
    let e =
        parse_str(&alternate.replace("policy = \"random\"", "policy = \"random\"\nrefresh = 10"))
            .unwrap_err();
    assert_eq!(
        (e.key.as_deref(), e.message.contains("\"frozen\"")),
        (Some("opponents[0].refresh"), true),
        "{e}"
    );
    // Alternating seats need opponents; self-play takes none.
    let alone = alternate.replace("[[opponents]]\npolicy = \"random\"\n", "");
    let e = parse_str(&alone).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("learner.seat"), "{e}");
}

const STUDY: &str = r#"
name = "study"
episodes = 1000
eval_interval = 100
seeds = 2

[[games]]
name = "tictactoe"

[[games]]
name = "hexapawn"
label = "octapawn"
rows = 4
cols = 4
episodes = 5000

[[learners]]
kind = "q-learning"
"#;

#[test]
fn a_study_gives_one_experiment_per_game() {
    let runs = parse(Path::new("study.toml"), STUDY).unwrap();
    let names: Vec<&str> = runs.iter().map(|(c, _)| c.name.as_str()).collect();
    assert_eq!(names, ["study/tictactoe", "study/octapawn"]);
    assert_eq!(runs[0].0.episodes.get(), 1000);
    assert_eq!(
        (runs[1].0.episodes.get(), runs[1].0.eval_interval.get()),
        (5000, 100)
    );
    assert_eq!(
        runs[1].0.game_params.get("rows"),
        Some(&toml::Value::Integer(4))
    );
    assert_eq!(runs[1].1.name(), "hexapawn");
    // Each game's resolved config reruns that game alone, into the same folder.
    for (c, _) in &runs {
        assert_eq!(&parse_str(&c.resolved_toml()).unwrap(), c);
    }

    let both = STUDY.replace("seeds = 2\n", "seeds = 2\n[game]\nname = \"tictactoe\"\n");
    let e = parse(Path::new("s.toml"), &both).err().unwrap();
    assert_eq!(e.key.as_deref(), Some("games"), "{e}");
    let twice = STUDY.replace("label = \"octapawn\"", "label = \"tictactoe\"");
    let e = parse(Path::new("s.toml"), &twice).err().unwrap();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (12, Some("games[1].label")),
        "{e}"
    );
    let bad = STUDY.replace("rows = 4", "rows = 1");
    let e = parse(Path::new("s.toml"), &bad).err().unwrap();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (13, Some("games[1].rows")),
        "{e}"
    );
    let bad = STUDY.replace("episodes = 5000", "episodes = 0");
    let e = parse(Path::new("s.toml"), &bad).err().unwrap();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (15, Some("games[1].episodes")),
        "{e}"
    );
    let bad = STUDY.replace("label = \"octapawn\"", "label = \"octa/pawn\"");
    let e = parse(Path::new("s.toml"), &bad).err().unwrap();
    assert_eq!(e.key.as_deref(), Some("games[1].label"), "{e}");
}

#[test]
fn syntax_errors_have_positions() {
    let e = parse_str("name = \"t\"\nepisodes = = 3\n").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn missing_sections_are_named() {
    let e = parse_str("name = \"t\"\nepisodes = 3\n").unwrap_err();
    assert!(e.message.contains("game"), "{e}");
    let e = parse_str("name = \"t\"\nepisodes = 3\n[game]\nname = \"tictactoe\"\n").unwrap_err();
    assert!(e.message.contains("learner"), "{e}");
}

#[test]
fn an_ai_reference_is_checked_against_the_game_and_the_evaluator() {
    let hase = r#"
name = "t"
episodes = 10

[game]
name = "hase-und-igel"
players = 2

[learner]
kind = "monte-carlo"
seat = "red"

[[opponents]]
policy = "random"

[evaluation]
evaluator = "match"
ai = "depth=2,kc=1.5"
"#;
    let c = parse_str(hase).unwrap();
    assert_eq!(
        c.reference_ai().unwrap().spec(),
        "depth=2,mode=paranoid,order,prune,kc=1.5"
    );
    assert!(
        c.resolved_toml()
            .contains("ai = \"depth=2,mode=paranoid,order,prune,kc=1.5\"")
    );
    let e = parse_str(&hase.replace("kc=1.5", "kz=1.5")).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_deref()),
        (18, Some("evaluation.ai")),
        "{e}"
    );
    assert!(e.message.contains("kz"), "{e}");
    // MCTS is a reference too: its settings filled in, read back to the same, refused by key.
    let mcts = parse_str(&hase.replace("depth=2,kc=1.5", "mcts,sims=50")).unwrap();
    let spec = mcts.reference_ai().unwrap().spec();
    assert!(spec.starts_with("mcts,sims=50,c="), "{spec}");
    assert_eq!(
        parse_str(&mcts.resolved_toml()).unwrap().reference_ai(),
        mcts.reference_ai()
    );
    let e = parse_str(&hase.replace("depth=2,kc=1.5", "mcts,sims=0")).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("evaluation.ai"), "{e}");
    assert!(e.message.contains("sims"), "{e}");
    // Other players are read by the one player grammar and refused as references.
    let e = parse_str(&hase.replace("depth=2,kc=1.5", "optimal")).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("evaluation.ai"), "{e}");
    assert!(
        e.message.contains("an AI reference is search settings"),
        "{e}"
    );
    let exact = format!("{GOOD}\n[evaluation]\nai = \"depth=2\"\n");
    let e = parse_str(&exact).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("evaluation.ai"), "{e}");
    assert!(e.message.contains("match evaluator"), "{e}");
}

/// The resolved config of every game, with its default parameters, names every default: each
/// of the game's parameters (Hase und Igel's `deck`, `end` and `carrots`, Fox & Hounds'
/// `escape`), `[evaluation]`, the plots; it reads back to the same config and resolves to the
/// same text again.
#[test]
fn the_resolved_config_names_every_default_and_round_trips() {
    for info in crate::games::GAMES {
        let game = info.default_game();
        let exact = with_game!(&game, g => g
            .capabilities()
            .enumeration_refusal(crate::truth::DEFAULT_STATE_LIMIT)
            .is_none());
        let text = format!(
            "name = \"t\"\nepisodes = 4\n[game]\nname = \"{}\"\n[learner]\nkind = \"monte-carlo\"\n",
            info.name
        );
        let c = match parse_str(&text) {
            Ok(c) => c,
            // A game no learner here can train on (no exact solver for the match evaluator's
            // references, say) has nothing to resolve.
            Err(e) => {
                assert!(!exact, "{}: {e}", info.name);
                continue;
            }
        };
        let resolved = c.resolved_toml();
        let table: toml::Table = resolved.parse().unwrap();
        let game_table = table["game"].as_table().unwrap();
        // A parameter that is absent unless given (Hackenbush's `held_out`: no default, and the
        // game reports none) has no default to name.
        let defaults = info.defaults();
        let reported = with_game!(&game, g => g.params());
        for (key, _) in info
            .fields
            .iter()
            .filter(|(k, _)| defaults.contains_key(*k) || reported.get(*k).is_some())
        {
            assert!(
                game_table.contains_key(*key),
                "{}: {key} missing from\n{resolved}",
                info.name
            );
        }
        let evaluation = table["evaluation"].as_table().unwrap();
        let expected = if exact { "exact" } else { "match" };
        assert_eq!(
            evaluation["evaluator"].as_str(),
            Some(expected),
            "{resolved}"
        );
        for key in [
            "name",
            "description",
            "episodes",
            "eval_interval",
            "seeds",
            "base_seed",
        ] {
            assert!(table.contains_key(key), "{key} missing from\n{resolved}");
        }
        assert!(table["plots"].get("band").is_some(), "{resolved}");
        let again = parse_str(&resolved).unwrap();
        assert_eq!(again, c, "{}", info.name);
        assert_eq!(again.resolved_toml(), resolved, "{}", info.name);
    }
}

#[test]
fn hase_und_igel_fills_in_the_carrots_its_players_imply() {
    let text = "name = \"t\"\nepisodes = 4\n[game]\nname = \"hase-und-igel\"\nplayers = 5\n\
                [learner]\nkind = \"monte-carlo\"\n";
    let c = parse_str(text).unwrap();
    let table: toml::Table = c.resolved_toml().parse().unwrap();
    let game = table["game"].as_table().unwrap();
    assert_eq!(game["carrots"].as_integer(), Some(98));
    assert_eq!(game["deck"].as_str(), Some("2008"));
    assert_eq!(game["end"].as_str(), Some("first"));
}

#[test]
fn an_mcts_opponent_takes_its_settings_and_refuses_bad_ones_by_key_and_line() {
    let mcts = GOOD.replace(
        "policy = \"random\"",
        "policy = \"mcts\"\nsettings = \"sims=50,c=1.5\"",
    );
    let c = parse_str(&mcts).unwrap();
    assert_eq!(c.opponents[0].name, "mcts sims=50,c=1.5,rollouts=1");
    let resolved = c.resolved_toml();
    assert!(
        resolved.contains("policy = \"mcts\"\nsettings = \"sims=50,c=1.5,rollouts=1\""),
        "{resolved}"
    );
    assert_eq!(parse_str(&resolved).unwrap(), c);
    // No settings: the defaults.
    let plain = GOOD.replace("policy = \"random\"", "policy = \"mcts\"");
    assert_eq!(
        parse_str(&plain).unwrap().opponents[0].name,
        "mcts sims=1000,c=2,rollouts=1"
    );
    for (opponent, says) in [
        (
            "policy = \"mcts\"\nsettings = \"sims=lots\"",
            "opponents[0].settings",
        ),
        (
            "policy = \"mcts\"\nsettings = \"depth=2\"",
            "`depth=2`: not an MCTS setting",
        ),
        (
            "policy = \"random\"\nsettings = \"sims=2\"",
            "`settings` belongs to policy = \"search\", not \"random\"",
        ),
        (
            "policy = \"mcts\"\np = 0.5",
            "`p` belongs to policy = \"fuzzy\", not \"mcts\"",
        ),
    ] {
        let text = GOOD.replace("policy = \"random\"", opponent);
        let e = format!("{}", parse_str(&text).unwrap_err());
        assert!(e.contains(says), "{opponent}: {e}");
        // The line of the key at fault (the table's second line).
        assert!(e.starts_with("test.toml:16:"), "{opponent}: {e}");
    }
}

const HELD_OUT: &str = r#"
name = "h"
episodes = 10

[game]
name = "hackenbush"
random = 6
held_out = 2
edges = 5
family = "trees"
palette = "blue-red"
observation = "summary"

[evaluation]
held_out = { deal = "held-out" }

[learner]
kind = "linear"
"#;

/// `[evaluation] held_out` makes the held-out game from the training game's parameters, keeps
/// the keys as given in the resolved config (which reads back), and is absent from it otherwise.
#[test]
fn a_held_out_game_resolves_and_round_trips() {
    let c = parse_str(HELD_OUT).unwrap();
    let (keys, params) = c.held_out.as_ref().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(params["deal"].as_str(), Some("held-out"));
    assert_eq!(params["held_out"].as_integer(), Some(2));
    assert!(c.held_out_game().unwrap().is_ok());
    let resolved = c.resolved_toml();
    assert!(resolved.contains("[evaluation.held_out]"), "{resolved}");
    assert_eq!(parse_str(&resolved).unwrap(), c);
    let plain = parse_str(GOOD).unwrap();
    assert!(plain.held_out_game().is_none());
    assert!(!plain.resolved_toml().contains("held_out"));
}

/// A held-out game that cannot be made, is the training game, is not played and observed alike,
/// or is not measured exactly is refused, naming the key.
#[test]
fn held_out_mistakes_name_the_key() {
    for (from, to, key, says) in [
        (
            r#"held_out = { deal = "held-out" }"#,
            r#"held_out = { deal = "test" }"#,
            "evaluation.held_out.deal",
            "train (the first",
        ),
        (
            r#"held_out = { deal = "held-out" }"#,
            r#"held_out = { deal = "train" }"#,
            "evaluation.held_out",
            "the training game itself",
        ),
        (
            r#"held_out = { deal = "held-out" }"#,
            r#"held_out = { edges = 9 }"#,
            "evaluation.held_out",
            "played and observed alike",
        ),
        (
            r#"held_out = { deal = "held-out" }"#,
            r#"held_out = { colour = 1 }"#,
            "evaluation.held_out.colour",
            "unknown field",
        ),
        (
            r#"held_out = { deal = "held-out" }"#,
            r#"held_out = {}"#,
            "evaluation.held_out",
            "give the game parameters",
        ),
        (
            r#"held_out = { deal = "held-out" }"#,
            "evaluator = \"match\"\nheld_out = { deal = \"held-out\" }",
            "evaluation.held_out",
            "exact evaluator",
        ),
        (
            "held_out = 2\n",
            "held_out = 6\n",
            "game.held_out",
            "hold out 1 to 5",
        ),
    ] {
        let bad = HELD_OUT.replace(from, to);
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{to}: {e}");
        assert!(e.message.contains(says), "{to}: {e}");
    }
}

#[test]
fn exact_figures_beside_the_matches_resolve_and_their_mistakes_are_named() {
    let base = r#"
name = "t"
episodes = 10

[game]
name = "fox-hounds"
size = 4

[learner]
kind = "ntuple"
seat = "self-play"

[evaluation]
evaluator = "match"
all_positions = true
best_response = true
"#;
    let c = parse_str(base).unwrap();
    assert!(c.all_positions());
    assert_eq!(
        c.best_response(),
        Some(crate::eval::response::DEFAULT_RESPONSE_LIMIT)
    );
    // The resolved config names the limit, and reads back to the same.
    let resolved = c.resolved_toml();
    assert!(resolved.contains("best_response = 10000000"), "{resolved}");
    assert!(resolved.contains("all_positions = true"), "{resolved}");
    let again = parse_str(&resolved).unwrap();
    assert_eq!(again.resolved_toml(), resolved);
    let off = parse_str(
        &base
            .replace("best_response = true", "best_response = false")
            .replace("all_positions = true", "all_positions = false"),
    )
    .unwrap();
    assert_eq!((off.best_response(), off.all_positions()), (None, false));
    assert!(!off.resolved_toml().contains("best_response"));
    for (from, to, key, says) in [
        (
            "evaluator = \"match\"\n",
            "",
            "evaluation.best_response",
            "evaluator = \"match\"",
        ),
        (
            "evaluator = \"match\"\nall_positions = true\nbest_response = true\n",
            "all_positions = true\n",
            "evaluation.all_positions",
            "evaluator = \"match\"",
        ),
        (
            "best_response = true",
            "best_response = 0",
            "evaluation.best_response",
            "at least 1",
        ),
        (
            "best_response = true",
            "best_response = \"yes\"",
            "evaluation.best_response",
            "",
        ),
    ] {
        let bad = base.replace(from, to);
        let e = parse_str(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{to}: {e}");
        assert!(e.message.contains(says), "{to}: {e}");
    }
}
