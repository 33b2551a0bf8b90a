//! Tests of the learners together: each learns the small games, and its fast paths give the
//! bytes of its definition ([`Learner`]).

use proptest::prelude::*;

use super::*;
use crate::core::random::SgRng;
use crate::eval::{evaluate_policy, expected_result, minimax_return};
use crate::learn::schedule::{Decay, Schedule};
use crate::truth::OptimalPolicy;
use crate::truth::Solution;

/// Trains `learner` by self-play for `episodes` episodes.
pub fn train_self_play<G: Game, L: Learner<G> + ?Sized>(
    game: &G,
    learner: &mut L,
    episodes: u64,
    seed: u64,
) {
    let mut env = AecEnv::new(game.clone(), crate::core::random::derive_seed(seed, 2));
    let mut rng = crate::core::random::rng(seed);
    for _ in 0..episodes {
        play_self(&mut env, learner, &mut rng);
    }
}

/// Whether the learner's greedy play achieves the game value against optimal play from
/// either seat and keeps the value in at least 99% of the positions of optimal play.
pub fn learns<G: Game, L: Learner<G> + ?Sized>(
    game: &G,
    learner: &L,
    what: &str,
) -> Result<(), String> {
    let solution = Solution::solve(game, 10_000_000).unwrap();
    let graph = solution.graph();
    let greedy = learner.greedy_policy();
    let optimal = OptimalPolicy::new(&solution);
    for seat in 0..2 {
        let policies: Vec<&dyn Policy<G>> = (0..2)
            .map(|p| {
                if p == seat {
                    greedy.as_ref() as &dyn Policy<G>
                } else {
                    &optimal
                }
            })
            .collect();
        let r = expected_result(graph, &policies, seat).unwrap();
        let value = minimax_return(graph, seat).unwrap();
        if r.expected_return < value - 1e-9 {
            return Err(format!(
                "{what} on {}: {} as {} against optimal play, the game value is {value}",
                game.name(),
                r.expected_return,
                game.player_name(seat)
            ));
        }
    }
    let report = evaluate_policy(&solution, &[0, 1], greedy.as_ref()).unwrap();
    if report.optimal_rate_optimal_play < 0.99 {
        return Err(format!(
            "{what} on {}: optimal-move rate along optimal play {}",
            game.name(),
            report.optimal_rate_optimal_play
        ));
    }
    Ok(())
}

/// Every learner kind after some training, on a game with symmetries (tic-tac-toe) and
/// one where HER resigns (Hexapawn).
fn trained<G: Game>(game: &G) -> Vec<Box<dyn Learner<G>>> {
    use crate::learn::menace::{Matchbox, MatchboxConfig};
    use crate::learn::monte_carlo::{McConfig, MonteCarlo};
    use crate::learn::q_learning::{Algorithm, QConfig, QLearner};
    use crate::learn::td::{Td, TdConfig};
    let double = QConfig {
        double: true,
        ..QConfig::new(Algorithm::Sarsa)
    };
    let mut learners: Vec<Box<dyn Learner<G>>> = vec![
        Box::new(QLearner::new(game, "q", QConfig::default())),
        Box::new(QLearner::new(game, "double sarsa", double)),
        Box::new(MonteCarlo::new(game, "mc", McConfig::default())),
        Box::new(Td::new(game, "td", TdConfig::new(0.8))),
        Box::new(Matchbox::<G>::new("menace", MatchboxConfig::menace())),
        Box::new(Matchbox::<G>::new("her", MatchboxConfig::her())),
    ];
    for learner in &mut learners {
        let mut env = AecEnv::new(game.clone(), 5);
        let mut rng = crate::core::random::rng(6);
        for _ in 0..3_000 {
            play_self(&mut env, learner.as_mut(), &mut rng);
        }
    }
    learners
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn answers_as_apart<G: Game>(game: &G) {
    let graph = crate::core::graph::StateGraph::build(game, 1 << 20).unwrap();
    let (mut b, mut g) = (Vec::new(), Vec::new());
    let mut at = Position {
        want_value: true,
        ..Position::default()
    };
    for learner in trained(game) {
        let (behaviour, greedy) = (learner.policy(), learner.greedy_policy());
        for id in 0..graph.len() as crate::core::graph::StateId {
            if graph.turn(id).player().is_none() {
                continue;
            }
            let (state, legal) = (graph.state(id), graph.actions(id));
            assert!(learner.position(game, state, legal, &mut at));
            behaviour.probabilities(game, state, legal, &mut b);
            greedy.probabilities(game, state, legal, &mut g);
            let what = format!("{} at state {id}", learner.name());
            assert_eq!(bits(&at.behaviour), bits(&b), "{what}");
            assert_eq!(bits(&at.greedy), bits(&g), "{what}");
            let value = learner.value(game, state);
            assert_eq!(
                at.value.map(f64::to_bits),
                value.map(f64::to_bits),
                "{what}"
            );
        }
    }
}

#[test]
fn a_position_is_answered_bit_for_bit_as_the_policies_and_value_answer_it() {
    answers_as_apart(&crate::games::TicTacToe);
    answers_as_apart(
        &crate::games::Hexapawn::new(crate::games::HexapawnParams::default()).unwrap(),
    );
}

/// Every number a learner keeps, as bits: what the fast paths must leave exactly as `act` does.
pub trait Inspect<G: Game>: Learner<G> {
    fn tables(&self) -> Vec<u64>;
}

/// A learner of `config` for `game`, its tables open to inspection.
fn inspectable<G: Game>(game: &G, config: &LearnerConfig) -> Box<dyn Inspect<G>> {
    use crate::learn::features::FeatureTd;
    use crate::learn::linear::Linear;
    use crate::learn::menace::Matchbox;
    use crate::learn::mlp::Mlp;
    use crate::learn::monte_carlo::MonteCarlo;
    use crate::learn::ntuple::NTuple;
    use crate::learn::q_learning::QLearner;
    use crate::learn::td::Td;
    let name = config.default_label();
    match config {
        LearnerConfig::Matchbox(c) => Box::new(Matchbox::<G>::new(name, c.clone())),
        LearnerConfig::MonteCarlo(c) => Box::new(MonteCarlo::new(game, name, c.clone())),
        LearnerConfig::Td(c) => Box::new(Td::new(game, name, c.clone())),
        LearnerConfig::QLearning(c) => Box::new(QLearner::new(game, name, c.clone())),
        LearnerConfig::NTuple(c) => Box::new(FeatureTd::new(
            game,
            name,
            c.settings(),
            NTuple::new(game, c),
        )),
        LearnerConfig::Linear(c) => Box::new(FeatureTd::new(
            game,
            name,
            c.settings(),
            Linear::new(game.observation_len(), c.output),
        )),
        LearnerConfig::Mlp(c) => Box::new(FeatureTd::new(
            game,
            name,
            c.settings(),
            Mlp::new(game.observation_len(), c),
        )),
    }
}

/// One self-play episode by the definition: the learner's `act` at every move, each move
/// played by its action through [`AecEnv::step`]. The states it decides at go into `met`.
fn episode_by_act<G: Game, L: Learner<G> + ?Sized>(
    env: &mut AecEnv<G>,
    learner: &mut L,
    rng: &mut SgRng,
    met: &mut std::collections::BTreeSet<G::State>,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    while let Some(seat) = env.agent_selection() {
        met.insert(env.state().clone());
        let decision = Decision {
            state: env.state(),
            seat,
            legal: env.legal_actions(),
            ply: env.ply(),
        };
        let action = learner
            .act(env.game(), &decision, rng)
            .map(|k| decision.legal[k]);
        match action {
            Some(a) => env.step(a).unwrap(),
            None => env.resign().unwrap(),
        }
    }
    finish(
        env.game(),
        env.returns(),
        0,
        learner,
        env.ply(),
        env.resigned(),
    )
}

/// Trains `by_act` by [`episode_by_act`] and `fast` by [`play_self`] for `episodes` episodes on
/// copies of one environment and generator (seeded by `seed`): after every episode the two
/// outcomes, generators and environments agree; at the end the learners' `tables`, their
/// statistics, and at every position (those the episodes met if the game does not number its
/// positions) their behaviour and greedy policies, values and `position` answers, bit for bit.
fn assert_same_bytes<G: Game, L: Learner<G> + ?Sized>(
    game: &G,
    by_act: &mut L,
    fast: &mut L,
    tables: impl Fn(&L) -> Vec<u64>,
    episodes: usize,
    seed: u64,
    what: &str,
) {
    let env_seed = crate::core::random::derive_seed(seed, 1);
    let (mut env_a, mut env_f) = (
        AecEnv::new(game.clone(), env_seed),
        AecEnv::new(game.clone(), env_seed),
    );
    let (mut rng_a, mut rng_f) = (
        crate::core::random::rng(seed),
        crate::core::random::rng(seed),
    );
    let mut met = std::collections::BTreeSet::new();
    for episode in 0..episodes {
        let a = episode_by_act(&mut env_a, by_act, &mut rng_a, &mut met);
        let f = play_self(&mut env_f, fast, &mut rng_f);
        assert_eq!(a, f, "{what}: episode {episode}");
        assert_eq!(rng_a, rng_f, "{what}: episode {episode}");
        assert_eq!(env_a.state(), env_f.state(), "{what}: episode {episode}");
        assert_eq!(env_a.ply(), env_f.ply(), "{what}: episode {episode}");
    }
    assert_eq!(tables(by_act), tables(fast), "{what}");
    let statistics = |l: &L| -> Vec<(String, u64)> {
        l.statistics()
            .iter()
            .map(|(m, v)| (format!("{m:?}"), v.to_bits()))
            .collect()
    };
    assert_eq!(statistics(by_act), statistics(fast), "{what}");
    // Every position when the game numbers them, else those the episodes met.
    let positions: Vec<G::State> = match game.state_index_len() {
        Some(n) => (0..n).filter_map(|i| game.state_from_index(i)).collect(),
        None => met.into_iter().collect(),
    };
    let (mut legal, mut pa, mut pf) = (Vec::new(), Vec::new(), Vec::new());
    let (mut at_a, mut at_f) = (Position::default(), Position::default());
    at_a.want_value = true;
    at_f.want_value = true;
    for s in &positions {
        game.legal_actions(s, &mut legal);
        if legal.is_empty() {
            continue;
        }
        let here = || format!("{what}: position {s:?}");
        by_act.policy().probabilities(game, s, &legal, &mut pa);
        fast.policy().probabilities(game, s, &legal, &mut pf);
        assert_eq!(bits(&pa), bits(&pf), "{}", here());
        by_act
            .greedy_policy()
            .probabilities(game, s, &legal, &mut pa);
        fast.greedy_policy().probabilities(game, s, &legal, &mut pf);
        assert_eq!(bits(&pa), bits(&pf), "{}", here());
        assert_eq!(
            by_act.value(game, s).map(f64::to_bits),
            fast.value(game, s).map(f64::to_bits),
            "{}",
            here()
        );
        assert_eq!(
            by_act.position(game, s, &legal, &mut at_a),
            fast.position(game, s, &legal, &mut at_f),
            "{}",
            here()
        );
        assert_eq!(bits(&at_a.behaviour), bits(&at_f.behaviour), "{}", here());
        assert_eq!(bits(&at_a.greedy), bits(&at_f.greedy), "{}", here());
        assert_eq!(
            at_a.value.map(f64::to_bits),
            at_f.value.map(f64::to_bits),
            "{}",
            here()
        );
    }
}

/// Self-play through `play_self` (Q-learning with one table: its fast path) and through `act`
/// gives the same episodes, the same tables, policies and values and the same generator state,
/// for every kind of learner as a config builds it: on tables laid out by the action index (a
/// tabulated game) and rows appended by hashed key (Hexapawn 4x4 by its rules).
#[test]
fn self_play_gives_the_bytes_of_act_for_every_kind() {
    let ttt = crate::core::tabulated::Tabulated::new(&crate::games::TicTacToe, 1 << 20).unwrap();
    let hexapawn =
        crate::games::Hexapawn::new(crate::games::HexapawnParams { rows: 4, cols: 4 }).unwrap();
    let kinds = [
        ("q-learning", ""),
        ("q-learning", "algorithm = \"sarsa\""),
        (
            "q-learning",
            "algorithm = \"expected-sarsa\"\ninitial = 0.25",
        ),
        ("q-learning", "gamma = 0.9\nepsilon = 0.3"),
        ("q-learning", "initial = -0.0"),
        ("q-learning", "algorithm = \"sarsa\"\ndouble = true"),
        ("monte-carlo", ""),
        ("td", "lambda = 0.8"),
        ("matchbox", "scheme = \"menace\""),
        ("ntuple", "lambda = 0.8"),
        ("linear", ""),
        ("mlp", "hidden = [8, 4]"),
    ];
    for (kind, keys) in kinds {
        let table: toml::Table = keys.parse().unwrap();
        let config = LearnerConfig::deserialize(kind, toml::Value::Table(table))
            .unwrap()
            .unwrap();
        let what = format!("tic-tac-toe {kind} {keys}");
        let (mut a, mut f) = (
            config.build(&ttt, what.clone()),
            config.build(&ttt, what.clone()),
        );
        assert_same_bytes(
            &ttt,
            a.as_mut(),
            f.as_mut(),
            |_| Vec::new(),
            3_000,
            2,
            &what,
        );
        let what = format!("hexapawn {kind} {keys}");
        let (mut a, mut f) = (
            config.build(&hexapawn, what.clone()),
            config.build(&hexapawn, what.clone()),
        );
        assert_same_bytes(
            &hexapawn,
            a.as_mut(),
            f.as_mut(),
            |_| Vec::new(),
            1_000,
            2,
            &what,
        );
    }
}

/// A schedule of exploration rates (`probability`) or of step sizes: constant, linear, and
/// exponential decays, some fast enough to reach [`crate::learn::schedule::FLOOR`] within a
/// test's episodes.
fn schedule(probability: bool) -> impl Strategy<Value = Schedule> {
    let low = if probability { 0.0 } else { 0.01 };
    prop_oneof![
        prop::sample::select(vec![low, 0.1, 0.5, 1.0]).prop_map(Schedule::Constant),
        (1u64..200).prop_map(move |episodes| Schedule::Decay(Decay::Linear {
            start: 1.0,
            end: low,
            episodes,
        })),
        (0.5f64..300.0, prop::sample::select(vec![low, 0.05])).prop_map(|(half_life, end)| {
            Schedule::Decay(Decay::Exponential {
                start: 1.0,
                end,
                half_life,
            })
        }),
    ]
}

/// Any learner's config, with the settings its fast paths treat apart: every algorithm, one
/// table or two, γ below 1, initial values of either sign and -0.0, ε and α schedules.
fn learner_config() -> impl Strategy<Value = LearnerConfig> {
    use crate::learn::menace::MatchboxConfig;
    use crate::learn::monte_carlo::{McConfig, StepSize, Visits};
    use crate::learn::q_learning::{Algorithm, QConfig};
    use crate::learn::td::{TdConfig, Traces};
    let gamma = || prop::sample::select(vec![1.0, 0.9, 0.5]);
    let initial = || prop::sample::select(vec![0.0, -0.0, 0.25, -0.5, 1.0]);
    let q = (
        prop::sample::select(vec![
            Algorithm::QLearning,
            Algorithm::Sarsa,
            Algorithm::ExpectedSarsa,
        ]),
        any::<bool>(),
        schedule(false),
        schedule(true),
        gamma(),
        initial(),
    )
        .prop_map(|(algorithm, double, alpha, epsilon, gamma, initial)| {
            LearnerConfig::QLearning(QConfig {
                algorithm,
                double,
                alpha,
                epsilon,
                gamma,
                initial,
            })
        });
    let mc = (
        any::<bool>(),
        prop_oneof![
            Just(StepSize::Average),
            schedule(false).prop_map(StepSize::Schedule)
        ],
        schedule(true),
        gamma(),
        initial(),
    )
        .prop_map(|(first, alpha, epsilon, gamma, initial)| {
            LearnerConfig::MonteCarlo(McConfig {
                visits: if first { Visits::First } else { Visits::Every },
                alpha,
                epsilon,
                gamma,
                initial,
            })
        });
    let td = (
        prop::sample::select(vec![0.0, 0.5, 0.8, 1.0]),
        any::<bool>(),
        schedule(false),
        schedule(true),
        gamma(),
        initial(),
    )
        .prop_map(|(lambda, accumulating, alpha, epsilon, gamma, initial)| {
            LearnerConfig::Td(TdConfig {
                lambda,
                traces: if accumulating {
                    Traces::Accumulating
                } else {
                    Traces::Replacing
                },
                alpha,
                epsilon,
                gamma,
                initial,
            })
        });
    let matchbox = (any::<bool>(), any::<bool>()).prop_map(|(menace, symmetry)| {
        let scheme = if menace {
            MatchboxConfig::menace()
        } else {
            MatchboxConfig::her()
        };
        LearnerConfig::Matchbox(MatchboxConfig { symmetry, ..scheme })
    });
    // Q-learning, with the one fast episode, drawn most often.
    prop_oneof![3 => q, 1 => mc, 1 => td, 1 => matchbox]
}

/// [`assert_same_bytes`] on learners of `config` with their `tables`.
fn same_bytes<G: Game>(game: &G, config: &LearnerConfig, episodes: usize, seed: u64) {
    let what = format!("{} {config:?}", game.name());
    let (mut a, mut f) = (inspectable(game, config), inspectable(game, config));
    assert_same_bytes(
        game,
        a.as_mut(),
        f.as_mut(),
        |l| l.tables(),
        episodes,
        seed,
        &what,
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Every learner's fast paths against its `act`, on every way a table is laid out and a
    /// game keeps its legal actions, with chance and with three players: tic-tac-toe from its
    /// state graph (rows by the action index) and by its rules (rows by a dense state index),
    /// Hexapawn 3x3 (dense) and 4x4 (hashed) by their rules, Dice Race by its rules for two
    /// players and from its state graph for three.
    #[test]
    fn fast_paths_give_the_bytes_of_act(
        game in 0usize..6,
        config in learner_config(),
        episodes in 1usize..400,
        seed in any::<u64>(),
    ) {
        use crate::core::tabulated::Tabulated;
        use crate::games::{DiceRace, DiceRaceParams, Hexapawn, HexapawnParams, TicTacToe};
        let hexapawn = |rows, cols| Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        let race = |players, goal| DiceRace::new(DiceRaceParams { players, goal }).unwrap();
        match game {
            0 => same_bytes(&Tabulated::new(&TicTacToe, 1 << 20).unwrap(), &config, episodes, seed),
            1 => same_bytes(&TicTacToe, &config, episodes, seed),
            2 => same_bytes(&hexapawn(3, 3), &config, episodes, seed),
            3 => same_bytes(&hexapawn(4, 4), &config, episodes, seed),
            4 => same_bytes(&race(2, 8), &config, episodes, seed),
            _ => same_bytes(&Tabulated::new(&race(3, 5), 1 << 20).unwrap(), &config, episodes, seed),
        }
    }
}

/// A learner of `config` trained on tic-tac-toe by `episodes` self-play games (seeded by
/// `seed`) and saved as `<kind>.parquet` under `dir`: an agent for the tests of its users.
pub fn saved_tictactoe_agent(
    dir: &std::path::Path,
    config: &LearnerConfig,
    episodes: u64,
    seed: u64,
) -> std::path::PathBuf {
    let game = crate::games::TicTacToe;
    let mut learner = config.build(&game, "saved".into());
    train_self_play(&game, learner.as_mut(), episodes, seed);
    let path = dir.join(format!("{}.parquet", config.kind()));
    saved::save_agent(
        &path,
        &game,
        learner.as_ref(),
        config,
        "saved",
        &[0, 1],
        None,
    )
    .unwrap();
    path
}

/// Trains a learner of `config` on `game`, saves it, loads it back into `game`, and checks
/// that the loaded learner answers every position of the game bit for bit as the one saved
/// (behaviour and greedy policies, value) and reports the same statistics.
fn saved_plays_as_trained<G: Game>(game: &G, config: &LearnerConfig, episodes: usize, seed: u64) {
    let what = format!("{} {config:?}", game.name());
    let mut learner = config.build(game, "saved".to_string());
    let mut env = AecEnv::new(game.clone(), seed);
    let mut rng = crate::core::random::rng(seed ^ 1);
    for _ in 0..episodes {
        play_self(&mut env, learner.as_mut(), &mut rng);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.parquet");
    saved::save_agent(&path, game, learner.as_ref(), config, "saved", &[0], None).unwrap();
    let agent = saved::load_agent(game, &path).unwrap();
    assert_eq!(&agent.config, config, "{what}");
    let loaded = agent.learner;
    let stats = |l: &dyn Learner<G>| {
        l.statistics()
            .into_iter()
            .map(|(m, v)| (m.name, v.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(stats(learner.as_ref()), stats(loaded.as_ref()), "{what}");
    let graph = crate::core::graph::StateGraph::build(game, 1 << 20).unwrap();
    let mut probs = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for id in 0..graph.len() as crate::core::graph::StateId {
        if graph.turn(id).player().is_none() {
            continue;
        }
        let (state, legal) = (graph.state(id), graph.actions(id));
        let [b0, b1, g0, g1] = &mut probs;
        learner.policy().probabilities(game, state, legal, b0);
        loaded.policy().probabilities(game, state, legal, b1);
        learner
            .greedy_policy()
            .probabilities(game, state, legal, g0);
        loaded.greedy_policy().probabilities(game, state, legal, g1);
        assert_eq!(bits(b0), bits(b1), "{what}: behaviour at state {id}");
        assert_eq!(bits(g0), bits(g1), "{what}: greedy at state {id}");
        assert_eq!(
            learner.value(game, state).map(f64::to_bits),
            loaded.value(game, state).map(f64::to_bits),
            "{what}: value at state {id}"
        );
    }
    // What it saves again is what it was loaded from (the same rows, the same numbers).
    let again = dir.path().join("again.parquet");
    saved::save_agent(&again, game, loaded.as_ref(), config, "saved", &[0], None).unwrap();
    let frame = |p: &std::path::Path| crate::io::parquet::read_frame(p).unwrap();
    assert!(frame(&path).equals_missing(&frame(&again)), "{what}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Save → load gives the same policy bytes, for every learner kind and setting, on every
    /// table layout: tic-tac-toe from its state graph and by its rules, Hexapawn 4x4 (hashed
    /// rows), the three-player dice race from its state graph, and a Hackenbush deal (whose
    /// notation may name two states: agents key them exactly) by its rules and from its graph.
    #[test]
    fn a_saved_agent_plays_as_the_learner_saved(
        game in 0usize..6,
        config in learner_config(),
        episodes in 1usize..300,
        seed in any::<u64>(),
    ) {
        use crate::core::tabulated::Tabulated;
        use crate::games::{DiceRace, DiceRaceParams, Hexapawn, HexapawnParams, TicTacToe};
        use crate::games::{Hackenbush, HackenbushParams};
        let race = DiceRace::new(DiceRaceParams { players: 3, goal: 5 }).unwrap();
        let deal = Hackenbush::new(HackenbushParams {
            random: 6, edges: 6, seed: 3, family: "graphs".into(), palette: "all".into(),
            ..HackenbushParams::default()
        }).unwrap();
        match game {
            4 => saved_plays_as_trained(&deal, &config, episodes, seed),
            5 => saved_plays_as_trained(&Tabulated::new(&deal, 1 << 20).unwrap(), &config, episodes, seed),
            0 => saved_plays_as_trained(&Tabulated::new(&TicTacToe, 1 << 20).unwrap(), &config, episodes, seed),
            1 => saved_plays_as_trained(&TicTacToe, &config, episodes, seed),
            2 => saved_plays_as_trained(&Hexapawn::new(HexapawnParams { rows: 4, cols: 4 }).unwrap(), &config, episodes, seed),
            _ => saved_plays_as_trained(&Tabulated::new(&race, 1 << 20).unwrap(), &config, episodes, seed),
        }
    }
}

/// An agent trained on a game played from its state graph loads into the game played by its
/// rules (positions are saved in the game's notation) and is evaluated exactly the same.
#[test]
fn an_agent_trained_from_the_graph_loads_into_the_game_by_its_rules() {
    use crate::core::tabulated::Tabulated;
    use crate::games::TicTacToe;
    use crate::learn::q_learning::QConfig;
    let tabulated = Tabulated::new(&TicTacToe, 1 << 20).unwrap();
    let config = LearnerConfig::QLearning(QConfig::default());
    let mut learner = config.build(&tabulated, "q".to_string());
    let mut env = AecEnv::new(tabulated.clone(), 3);
    let mut rng = crate::core::random::rng(4);
    for _ in 0..20_000 {
        play_self(&mut env, learner.as_mut(), &mut rng);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.parquet");
    saved::save_agent(
        &path,
        &tabulated,
        learner.as_ref(),
        &config,
        "q",
        &[0, 1],
        None,
    )
    .unwrap();
    let agent = saved::load_agent(&TicTacToe, &path).unwrap();
    let report = |r: crate::eval::PolicyReport| format!("{r:?}");
    let trained = evaluate_policy(
        &Solution::solve(&tabulated, 1 << 20).unwrap(),
        &[0, 1],
        learner.greedy_policy().as_ref(),
    )
    .unwrap();
    let loaded = evaluate_policy(
        &Solution::solve(&TicTacToe, 1 << 20).unwrap(),
        &[0, 1],
        &agent,
    )
    .unwrap();
    assert_eq!(report(trained), report(loaded));
    // Against another game, or other parameters, it is refused with both named.
    let hexapawn = crate::games::Hexapawn::new(crate::games::HexapawnParams::default()).unwrap();
    let e = format!("{:#}", saved::load_agent(&hexapawn, &path).err().unwrap());
    assert!(
        e.contains("an agent of tictactoe") && e.contains("not of hexapawn"),
        "{e}"
    );
    // A file that is not an agent is named as such.
    let curves = dir.path().join("other.parquet");
    let mut df = polars::prelude::DataFrame::new(
        1,
        vec![polars::prelude::Column::new("x".into(), &[1.0f64])],
    )
    .unwrap();
    crate::io::parquet::write_frame(&curves, &mut df, &[]).unwrap();
    let e = format!(
        "{:#}",
        saved::load_agent(&TicTacToe, &curves).err().unwrap()
    );
    assert!(e.contains("not a saved agent"), "{e}");
}

/// Save → load gives the same policy bytes for the learners over features (their weights saved
/// to the bit, their features rebuilt from the config's seeds).
#[test]
fn a_saved_feature_learner_plays_as_the_learner_saved() {
    use crate::core::tabulated::Tabulated;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    let hexapawn = Hexapawn::new(HexapawnParams::default()).unwrap();
    let tabulated = Tabulated::new(&TicTacToe, 1 << 20).unwrap();
    for config in [
        LearnerConfig::NTuple(Default::default()),
        LearnerConfig::Linear(Default::default()),
        LearnerConfig::Mlp(Default::default()),
    ] {
        saved_plays_as_trained(&hexapawn, &config, 300, 5);
        saved_plays_as_trained(&tabulated, &config, 300, 6);
    }
}

/// What a learner believes a position is worth to each player (the search's learned leaves): a
/// table answers from the mover's value, negated for the other of two players, exactly at the
/// end and as the expectation over a chance node; a feature learner reads it from each seat.
#[test]
fn position_values_answer_for_every_player() {
    use crate::core::game::Turn;
    use crate::core::graph::StateGraph;
    use crate::games::{DiceRace, DiceRaceParams, TicTacToe};
    let td = LearnerConfig::Td(Default::default());
    let mut learner = td.build(&TicTacToe, "td".into());
    train_self_play(&TicTacToe, learner.as_mut(), 500, 4);
    let graph = StateGraph::build(&TicTacToe, 1 << 20).unwrap();
    for id in 0..graph.len() as crate::core::graph::StateId {
        let s = graph.state(id);
        match graph.turn(id) {
            Turn::Player(m) => {
                let v = learner.value(&TicTacToe, s).unwrap();
                assert_eq!(learner.position_value(&TicTacToe, s, m), Some(v));
                assert_eq!(learner.position_value(&TicTacToe, s, 1 - m), Some(-v));
            }
            Turn::Terminal => {
                let r = TicTacToe.returns(s);
                assert_eq!(learner.position_value(&TicTacToe, s, 0), Some(r[0]));
            }
            Turn::Chance => unreachable!(),
        }
    }
    // A chance node by the expectation over its outcomes (a two-player dice race).
    let race = DiceRace::new(DiceRaceParams {
        players: 2,
        goal: 6,
    })
    .unwrap();
    let mut learner = td.build(&race, "td".into());
    train_self_play(&race, learner.as_mut(), 300, 5);
    let graph = StateGraph::build(&race, 1 << 20).unwrap();
    let mut chance = 0;
    for id in 0..graph.len() as crate::core::graph::StateId {
        if graph.turn(id) != Turn::Chance {
            continue;
        }
        let s = graph.state(id);
        let mut outcomes = Vec::new();
        race.chance_outcomes(s, &mut outcomes);
        for p in 0..2 {
            let by_hand: f64 = outcomes
                .iter()
                .map(|&(a, pr)| pr * learner.position_value(&race, &race.apply(s, a), p).unwrap())
                .sum();
            assert_eq!(learner.position_value(&race, s, p), Some(by_hand));
        }
        chance += 1;
    }
    assert!(chance > 0);
    // Three players: a table answers for the mover only.
    let race = DiceRace::new(DiceRaceParams {
        players: 3,
        goal: 4,
    })
    .unwrap();
    let learner = td.build(&race, "td".into());
    let (mut s, mut outcomes) = (race.initial_state(), Vec::new());
    while race.turn(&s) == Turn::Chance {
        race.chance_outcomes(&s, &mut outcomes);
        s = race.apply(&s, outcomes[0].0);
    }
    let mover = race.turn(&s).player().unwrap();
    assert!(learner.position_value(&race, &s, mover).is_some());
    assert_eq!(learner.position_value(&race, &s, (mover + 1) % 3), None);
    let start = s;
    // The feature learners answer for every seat.
    let mlp = LearnerConfig::Mlp(Default::default()).build(&race, "mlp".into());
    for p in 0..3 {
        assert!(mlp.position_value(&race, &start, p).is_some());
    }
}

/// A snapshot as comparable bits: its episodes, each row's part, position, moves and values,
/// and its arrays.
type SnapshotBits = (
    u64,
    Vec<(String, String, Vec<Action>, Vec<u64>)>,
    Vec<Vec<u64>>,
);

fn snapshot_bits<G: Game>(game: &G, learner: &dyn Learner<G>) -> Option<SnapshotBits> {
    let s = learner.snapshot(game)?;
    Some((
        s.episodes,
        s.rows
            .iter()
            .map(|r| {
                let state = format!("{:?}", r.state);
                (r.part.clone(), state, r.actions.clone(), bits(&r.values))
            })
            .collect(),
        s.arrays.iter().map(|(_, a)| bits(a)).collect(),
    ))
}

/// Whether `a` and `b` play alike at every position of `graph` (behaviour and greedy, asked
/// through [`Learner::play_probabilities`] and their policies), value them alike and report the
/// same statistics, bit for bit.
fn assert_same_play<G: Game>(
    game: &G,
    graph: &crate::core::graph::StateGraph<G>,
    a: &dyn Learner<G>,
    b: &dyn Learner<G>,
    what: &str,
) {
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    for id in 0..graph.len() as crate::core::graph::StateId {
        if graph.turn(id).player().is_none() {
            continue;
        }
        let (state, legal) = (graph.state(id), graph.actions(id));
        for greedy in [false, true] {
            assert!(a.play_probabilities(game, state, legal, greedy, &mut pa));
            assert!(b.play_probabilities(game, state, legal, greedy, &mut pb));
            assert_eq!(bits(&pa), bits(&pb), "{what}: state {id}, greedy {greedy}");
            let policy = if greedy {
                b.greedy_policy()
            } else {
                b.policy()
            };
            assert!(policy.probabilities(game, state, legal, &mut pa));
            assert_eq!(bits(&pa), bits(&pb), "{what}: state {id}, greedy {greedy}");
        }
        assert_eq!(
            a.value(game, state).map(f64::to_bits),
            b.value(game, state).map(f64::to_bits),
            "{what}: value at state {id}"
        );
    }
    let stats = |l: &dyn Learner<G>| -> Vec<(String, u64)> {
        l.statistics()
            .into_iter()
            .map(|(m, v)| (m.name, v.to_bits()))
            .collect()
    };
    assert_eq!(stats(a), stats(b), "{what}: statistics");
}

/// A learner of `config` trained in `rounds` rounds of a few episodes each (self-play, or one
/// seat against random play), its frozen copy refreshed after each round ([`Learner::refresh_copy`]):
/// now and then, and at the end, the refreshed copy must hold what a fresh copy holds
/// (the same snapshot), play as it and as the learner, and the exact evaluator's profile of it
/// must be the learner's policy tabulated.
fn refreshed_copy_is_fresh<G: Game>(game: &G, config: &LearnerConfig, rounds: usize, seed: u64) {
    use crate::core::env::Env;
    use crate::core::policy::RandomPolicy;
    use crate::eval::FrozenPolicy;
    use rand::RngExt;
    let what = format!("{} {config:?} seed {seed}", game.name());
    let graph = crate::core::graph::StateGraph::build(game, 1 << 20).unwrap();
    let mut learner = config.build(game, "learner".into());
    let mut copy = learner.frozen_copy().expect("every kind copies itself");
    let mut frozen =
        FrozenPolicy::of_learner(&graph, learner.as_ref(), seed.is_multiple_of(2)).unwrap();
    let mut rng = crate::core::random::rng(seed);
    let mut aec = AecEnv::new(game.clone(), seed);
    let players = game.num_players();
    let mut envs: Vec<Env<G>> = (0..players)
        .map(|seat| {
            let opponents = (0..players)
                .map(|p| (p != seat).then(|| Box::new(RandomPolicy) as Box<dyn Policy<G>>))
                .collect();
            Env::with_opponents(game.clone(), seat, opponents, seed).unwrap()
        })
        .collect();
    for round in 0..rounds {
        for _ in 0..rng.random_range(0..4) {
            if rng.random_bool(0.3) {
                play_self(&mut aec, learner.as_mut(), &mut rng);
            } else {
                let seat = rng.random_range(0..players);
                play_vs_opponent(&mut envs[seat], learner.as_mut(), &mut rng);
            }
        }
        learner.refresh_copy(game, &mut copy);
        frozen.refresh(game, learner.as_mut()).unwrap();
        if round % 7 == 3 || round + 1 == rounds {
            let what = format!("{what}, round {round}");
            let fresh = learner.frozen_copy().unwrap();
            assert_eq!(
                snapshot_bits(game, copy.as_ref()),
                snapshot_bits(game, fresh.as_ref()),
                "{what}: snapshot"
            );
            assert_same_play(game, &graph, copy.as_ref(), fresh.as_ref(), &what);
            assert_same_play(game, &graph, copy.as_ref(), learner.as_ref(), &what);
            let greedy = seed.is_multiple_of(2);
            let policy = if greedy {
                learner.greedy_policy()
            } else {
                learner.policy()
            };
            let tabulated = FrozenPolicy::new(&graph, policy.as_ref()).unwrap();
            let (a, b) = (frozen.profile().unwrap(), tabulated.profile().unwrap());
            for id in 0..graph.len() as crate::core::graph::StateId {
                assert_eq!(
                    bits(a.probs(&graph, id)),
                    bits(b.probs(&graph, id)),
                    "{what}: profile at state {id}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// A frozen copy refreshed with what changed equals a fresh copy, for every tabular kind
    /// and setting and on every way a table is laid out (as `fast_paths_give_the_bytes_of_act`
    /// lays them out).
    #[test]
    fn a_refreshed_copy_is_a_fresh_copy(
        game in 0usize..6,
        config in learner_config(),
        rounds in 1usize..40,
        seed in any::<u64>(),
    ) {
        use crate::core::tabulated::Tabulated;
        use crate::games::{DiceRace, DiceRaceParams, Hexapawn, HexapawnParams, TicTacToe};
        let hexapawn = |rows, cols| Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        let race = |players, goal| DiceRace::new(DiceRaceParams { players, goal }).unwrap();
        match game {
            0 => refreshed_copy_is_fresh(&Tabulated::new(&TicTacToe, 1 << 20).unwrap(), &config, rounds, seed),
            1 => refreshed_copy_is_fresh(&TicTacToe, &config, rounds, seed),
            2 => refreshed_copy_is_fresh(&hexapawn(3, 3), &config, rounds, seed),
            3 => refreshed_copy_is_fresh(&hexapawn(4, 4), &config, rounds, seed),
            4 => refreshed_copy_is_fresh(&race(2, 8), &config, rounds, seed),
            _ => refreshed_copy_is_fresh(&Tabulated::new(&race(3, 5), 1 << 20).unwrap(), &config, rounds, seed),
        }
    }
}

#[test]
fn a_refreshed_copy_of_a_feature_learner_is_a_fresh_copy() {
    let configs = [
        ("ntuple", "tuples = 6\nlength = 3"),
        ("linear", "lambda = 0.8"),
        ("mlp", "hidden = [8]"),
    ];
    for (seed, (kind, keys)) in configs.into_iter().enumerate() {
        let keys: toml::Table = keys.parse().unwrap();
        let config = LearnerConfig::deserialize(kind, toml::Value::Table(keys))
            .unwrap()
            .unwrap();
        refreshed_copy_is_fresh(&crate::games::TicTacToe, &config, 12, seed as u64);
    }
}

/// Many refreshes after single episodes, then a long stretch without one (more changes than a
/// whole copy costs), then single episodes again: the copy follows every time.
#[test]
fn a_copy_refreshed_after_every_episode_and_after_many_follows_its_learner() {
    use crate::learn::q_learning::QConfig;
    let game = crate::games::TicTacToe;
    let graph = crate::core::graph::StateGraph::build(&game, 1 << 20).unwrap();
    let mut learner = LearnerConfig::QLearning(QConfig::default()).build(&game, "q".into());
    let mut copy = learner.frozen_copy().unwrap();
    let mut env = AecEnv::new(game.clone(), 3);
    let mut rng = crate::core::random::rng(4);
    for stretch in [1, 1, 1, 5_000, 1, 1] {
        for _ in 0..stretch {
            play_self(&mut env, learner.as_mut(), &mut rng);
        }
        learner.refresh_copy(&game, &mut copy);
    }
    let fresh = learner.frozen_copy().unwrap();
    assert_eq!(
        snapshot_bits(&game, copy.as_ref()),
        snapshot_bits(&game, fresh.as_ref())
    );
    assert_same_play(&game, &graph, copy.as_ref(), learner.as_ref(), "q");
}

/// Trains `a` against its frozen copy through the environment's opponents
/// ([`play_vs_opponent`], the copy shared by one environment per seat as runs built it) and
/// `f` as runs train it now ([`FrozenPolicy::play`]: through [`Learner::play_vs_copy`]), seats
/// in turn, each copy refreshed every `refresh` episodes: after every episode the outcomes,
/// generators and environments agree, and at the end the tables, bit for bit.
fn vs_copy_same_bytes<G: Game>(
    game: &G,
    config: &LearnerConfig,
    episodes: usize,
    refresh: usize,
    greedy: bool,
    seed: u64,
) {
    use crate::core::env::Env;
    use crate::core::policy::SharedPolicy;
    use crate::eval::FrozenPolicy;
    let what = format!(
        "{} {config:?} refresh {refresh} greedy {greedy}",
        game.name()
    );
    let graph = crate::core::graph::StateGraph::build(game, 1 << 20).unwrap();
    let (mut a, mut f) = (inspectable(game, config), inspectable(game, config));
    let players = game.num_players();
    let copy_of = |l: &dyn Learner<G>| {
        SharedPolicy::new(FrozenPolicy::of_learner(&graph, l, greedy).unwrap())
    };
    // Every tabular kind copies itself: its copy plays through `play_vs_copy`.
    assert!(f.frozen_copy().is_some(), "{what}");
    let (copy_a, copy_f) = (copy_of(a.as_ref()), copy_of(f.as_ref()));
    fn envs<'g, G: Game>(
        game: &G,
        copy: &SharedPolicy<FrozenPolicy<'g, G>>,
        seed: u64,
    ) -> Vec<Env<'g, G>> {
        let players = game.num_players();
        (0..players)
            .map(|seat| {
                let opponents = (0..players)
                    .map(|p| (p != seat).then(|| Box::new(copy.clone()) as Box<dyn Policy<G> + 'g>))
                    .collect();
                let env_seed = crate::core::random::derive_seed(seed, seat as u64);
                Env::with_opponents(game.clone(), seat, opponents, env_seed).unwrap()
            })
            .collect()
    }
    let (mut envs_a, mut envs_f) = (envs(game, &copy_a, seed), envs(game, &copy_f, seed));
    let (mut rng_a, mut rng_f) = (
        crate::core::random::rng(seed),
        crate::core::random::rng(seed),
    );
    for episode in 0..episodes {
        let turn = episode % players;
        let outcome_a = play_vs_opponent(&mut envs_a[turn], a.as_mut(), &mut rng_a);
        let outcome_f = FrozenPolicy::play(&copy_f, &mut envs_f[turn], f.as_mut(), &mut rng_f);
        let here = format!("{what}: episode {episode}");
        assert_eq!(outcome_a, outcome_f, "{here}");
        assert_eq!(rng_a, rng_f, "{here}");
        assert_eq!(envs_a[turn].state(), envs_f[turn].state(), "{here}");
        assert_eq!(envs_a[turn].info(), envs_f[turn].info(), "{here}");
        if (episode + 1) % refresh == 0 {
            copy_a.write().refresh(game, a.as_mut()).unwrap();
            copy_f.write().refresh(game, f.as_mut()).unwrap();
        }
    }
    assert_eq!(a.tables(), f.tables(), "{what}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Play against a frozen copy through `play_vs_copy` (Q-learning with one table: its fast
    /// path; every other kind move by move) gives the bytes of play through the environment's
    /// opponents, for every tabular kind and setting, on every way a table is laid out, with
    /// chance and with three players.
    #[test]
    fn play_vs_copy_gives_the_bytes_of_play_vs_opponent(
        game in 0usize..6,
        config in learner_config(),
        episodes in 1usize..300,
        refresh in 1usize..6,
        greedy in any::<bool>(),
        seed in any::<u64>(),
    ) {
        use crate::core::tabulated::Tabulated;
        use crate::games::{DiceRace, DiceRaceParams, Hexapawn, HexapawnParams, TicTacToe};
        let hexapawn = |rows, cols| Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
        let race = |players, goal| DiceRace::new(DiceRaceParams { players, goal }).unwrap();
        let args = (episodes, refresh, greedy, seed);
        match game {
            0 => vs_copy_same_bytes(&Tabulated::new(&TicTacToe, 1 << 20).unwrap(), &config, args.0, args.1, args.2, args.3),
            1 => vs_copy_same_bytes(&TicTacToe, &config, args.0, args.1, args.2, args.3),
            2 => vs_copy_same_bytes(&hexapawn(3, 3), &config, args.0, args.1, args.2, args.3),
            3 => vs_copy_same_bytes(&hexapawn(4, 4), &config, args.0, args.1, args.2, args.3),
            4 => vs_copy_same_bytes(&race(2, 8), &config, args.0, args.1, args.2, args.3),
            _ => vs_copy_same_bytes(&Tabulated::new(&race(3, 5), 1 << 20).unwrap(), &config, args.0, args.1, args.2, args.3),
        }
    }
}
