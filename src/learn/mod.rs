//! Learners and the loops that train them against the environments.
//!
//! A [`Learner`] picks moves at the seats it holds and learns from what happens; it never sees
//! the solution. [`play_vs_opponent`] trains it at one seat of an [`Env`] against a fixed
//! opponent policy; [`play_self`] lets it hold every seat of an [`AecEnv`].

pub mod backup;
pub mod metric;
pub mod schedule;
pub mod table;

// The learners: each its own file, and a line in `learners!` below.
pub mod menace;
pub mod monte_carlo;
pub mod q_learning;
pub mod td;

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core::env::{AecEnv, Env};
use crate::core::game::{Action, Game, Player, Returns};
use crate::core::policy::Policy;
use crate::core::random::SgRng;
pub use metric::{Metric, Role};

/// The statistics every value learner keeps: states (or afterstates) in its table, ε and α.
pub(crate) fn value_learner_statistics(
    table: (&'static str, &'static str, usize),
    epsilon: f64,
    alpha: Option<f64>,
) -> Vec<(Metric, f64)> {
    let (name, what, rows) = table;
    let mut out = vec![
        (
            Metric::new(name, format!("{what} visited"), what.to_lowercase()),
            rows as f64,
        ),
        (Metric::new("epsilon", "Exploration rate", "ε"), epsilon),
    ];
    if let Some(alpha) = alpha {
        out.push((Metric::new("alpha", "Step size", "α"), alpha));
    }
    out
}

/// A learner kind as a config names it: its config type (every key with a default, unknown
/// keys refused, values checked where they are read) is the key of the registry.
pub trait LearnerSpec:
    Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + Send + Sync
{
    /// `kind = "..."` in a config.
    const KIND: &'static str;
    /// Its own keys, one line for `run --help`.
    const KEYS: &'static str;
    /// Figures this kind adds to a run's summary, listed under the key [`LearnerSpec::NOTE`]
    /// ([`NoNote`] for none).
    type Note: Serialize + std::fmt::Display + Clone + Debug + Send + Sync;
    const NOTE: &'static str = "";
    /// The note for a learner labelled `label` at `seat` (a single seat: the player and its
    /// name) of the game whose every position `graph` holds.
    fn note<G: Game>(
        &self,
        label: &str,
        seat: Option<(Player, &str)>,
        graph: &crate::core::graph::StateGraph<G>,
    ) -> Option<Self::Note> {
        let _ = (label, seat, graph);
        None
    }
    /// The label of a learner whose config gives none.
    fn default_label(&self) -> String;
    /// A fresh learner for `game`.
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>>;
}

/// The registry of learners: one line per learner, `module: Variant(its config type)`.
macro_rules! learners {
    ($( $module:ident: $variant:ident($config:ident), )*) => {
        /// The summary note of any registered kind (serialized as the note itself).
        #[derive(Clone, Debug, Serialize)]
        #[serde(untagged)]
        pub enum LearnerNote {
            $( $variant(<$module::$config as LearnerSpec>::Note), )*
        }

        impl std::fmt::Display for LearnerNote {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self { $( LearnerNote::$variant(n) => std::fmt::Display::fmt(n, f), )* }
            }
        }

        /// A learner's config, of any registered kind.
        #[derive(Clone, Debug, PartialEq)]
        pub enum LearnerConfig {
            $( $variant($module::$config), )*
        }

        impl LearnerConfig {
            /// The kinds a config may name, in registry order.
            pub const KINDS: &[&str] = &[$( <$module::$config as LearnerSpec>::KIND ),*];

            /// Reads the config of `kind` (`None`: no learner has that kind).
            pub fn deserialize<'de, D: serde::Deserializer<'de>>(
                kind: &str,
                d: D,
            ) -> Option<Result<Self, D::Error>> {
                $( if kind == <$module::$config as LearnerSpec>::KIND {
                    return Some(
                        <$module::$config as serde::Deserialize>::deserialize(d)
                            .map(LearnerConfig::$variant),
                    );
                } )*
                None
            }
            /// The kind's name.
            pub fn kind(&self) -> &'static str {
                match self { $( LearnerConfig::$variant(c) => learner_kind(c), )* }
            }
            pub fn default_label(&self) -> String {
                match self { $( LearnerConfig::$variant(c) => c.default_label(), )* }
            }
            /// A fresh learner for `game`.
            pub fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
                match self { $( LearnerConfig::$variant(c) => c.build(game, label), )* }
            }
            /// Its kind's summary note and the key it is listed under (see [`LearnerSpec::note`]).
            pub fn note<G: Game>(
                &self,
                label: &str,
                seat: Option<(Player, &str)>,
                graph: &crate::core::graph::StateGraph<G>,
            ) -> Option<(&'static str, LearnerNote)> {
                match self { $( LearnerConfig::$variant(c) => c
                    .note(label, seat, graph)
                    .map(|n| (<$module::$config as LearnerSpec>::NOTE, LearnerNote::$variant(n))), )* }
            }
            /// Every key of the config with its value (for the resolved config file).
            pub fn to_table(&self) -> toml::Table {
                let value = match self {
                    $( LearnerConfig::$variant(c) => toml::Value::try_from(c), )*
                };
                match value {
                    Ok(toml::Value::Table(t)) => t,
                    _ => toml::Table::new(),
                }
            }
            /// Each kind with its own keys, for `run --help`.
            pub fn help() -> String {
                let mut out = String::new();
                $( out.push_str(&format!(
                    "  {:<13} {}\n",
                    <$module::$config as LearnerSpec>::KIND,
                    <$module::$config as LearnerSpec>::KEYS
                )); )*
                out
            }
        }
    };
}

/// The note of a learner kind that adds none to a summary.
#[derive(Clone, Copy, Debug, Serialize)]
pub enum NoNote {}

impl std::fmt::Display for NoNote {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {}
    }
}

fn learner_kind<S: LearnerSpec>(_: &S) -> &'static str {
    S::KIND
}

learners! {
    menace: Matchbox(MatchboxConfig),
    monte_carlo: MonteCarlo(McConfig),
    td: Td(TdConfig),
    q_learning: QLearning(QConfig),
}

/// A decision the learner is asked to make.
pub struct Decision<'a, G: Game> {
    pub state: &'a G::State,
    /// The seat to move (the learner holds it).
    pub seat: Player,
    /// The legal actions, ascending.
    pub legal: &'a [Action],
    /// Plies played before this one in the episode.
    pub ply: u32,
}

pub trait Learner<G: Game>: Send {
    /// A short description for tables and legends ("her", "menace").
    fn name(&self) -> String;
    /// Called before the first move of each episode.
    fn begin_episode(&mut self) {}
    /// The learner's move (`None` = resign). It may learn from what it sees now about its
    /// earlier choices (temporal-difference learners do) and remember the choice.
    fn act(&mut self, game: &G, decision: &Decision<G>, rng: &mut SgRng) -> Option<Action>;
    /// [`Learner::act`], the move given as its place in `decision.legal` (counting from 0): what
    /// the episode loops play, so the environment need not look the action up. A learner that
    /// chooses by place answers here and lets `act` name the action; by default the place of
    /// `act`'s action (`decision.legal.len()`, no place, if it is not legal: the environment
    /// refuses it).
    fn act_at(&mut self, game: &G, decision: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        let action = self.act(game, decision, rng)?;
        Some(
            decision
                .legal
                .iter()
                .position(|&a| a == action)
                .unwrap_or(decision.legal.len()),
        )
    }
    /// Plays one episode in which the learner holds every seat ([`play_self`]). By default move
    /// by move ([`play_self_by_moves`]); a learner may play the episode in one piece, its state
    /// for the episode kept in locals, as long as it learns and chooses exactly as move by move.
    fn play_self(&mut self, env: &mut AecEnv<G>, rng: &mut SgRng) -> EpisodeOutcome {
        play_self_by_moves(env, self, rng)
    }
    /// Called once the episode is over, with every seat's return and the episode's length in
    /// plies.
    fn end_episode(&mut self, game: &G, returns: &Returns, plies: u32);
    /// How the learner plays now (its behaviour policy, without learning), for the evaluator.
    fn policy(&self) -> Box<dyn Policy<G> + '_>;
    /// Its greedy policy: the best action by what it has learned, ties shared equally.
    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_>;
    /// Figures about the learner's memory, recorded with the learning curves (e.g. boxes used),
    /// each with what it is. A fresh learner names the same metrics as a trained one.
    fn statistics(&self) -> Vec<(Metric, f64)> {
        Vec::new()
    }
    /// Whether it learns values ([`Learner::value`] answers).
    fn learns_values(&self) -> bool {
        false
    }
    /// What the learner believes `state` is worth to the player to move (`None`: it learns no
    /// values). The evaluator compares this with the solution.
    fn value(&self, game: &G, state: &G::State) -> Option<f64> {
        let _ = (game, state);
        None
    }
    /// The discount per ply its values use (1 = none).
    fn discount(&self) -> f64 {
        1.0
    }
    /// What the exact evaluator asks at every position of a seat it holds, answered together
    /// from one look at its tables: the distributions of [`Learner::policy`] and
    /// [`Learner::greedy_policy`] over `legal` (the legal actions of `state`, ascending) and,
    /// if `value` is asked for, [`Learner::value`]. Must give exactly what those give.
    /// `false`: not offered (the evaluator asks them apart).
    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        let _ = (game, state, legal, out);
        false
    }
}

/// A learner's answers at one position ([`Learner::position`]).
#[derive(Clone, Debug, Default)]
pub struct Position {
    /// The behaviour policy's probabilities, one per legal action.
    pub behaviour: Vec<f64>,
    /// The greedy policy's probabilities.
    pub greedy: Vec<f64>,
    /// Whether the evaluator wants the value.
    pub want_value: bool,
    /// [`Learner::value`], when wanted.
    pub value: Option<f64>,
    /// Room for the learner's own use (reused from position to position).
    pub scratch: Vec<f64>,
}

impl Position {
    /// Fills the answer of an action-value learner from the row of its Q-values (`None`: the
    /// state was never seen, every value `initial`): ε-greedy and greedy over the row, and
    /// its best value where wanted.
    pub fn from_q_row(&mut self, q: Option<&[f64]>, n: usize, epsilon: f64, initial: f64) {
        backup::row_probabilities(q, n, epsilon, &mut self.behaviour);
        backup::row_probabilities(q, n, 0.0, &mut self.greedy);
        self.value = self.want_value.then(|| q.map_or(initial, backup::max_of));
    }
}

/// What happened in one training episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpisodeOutcome {
    /// The learner's return (at its seat; at seat 0 in self-play).
    pub reward: f64,
    pub returns: Option<Returns>,
    pub plies: u32,
    pub resigned: Option<Player>,
}

/// Plays one episode of `env` (the learner at `env.seat()`) and lets the learner learn from it.
pub fn play_vs_opponent<G: Game, L: Learner<G> + ?Sized>(
    env: &mut Env<'_, G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    let seat = env.seat();
    let mut legal = Vec::new();
    while !env.is_done() {
        legal.clear();
        legal.extend_from_slice(env.legal_actions());
        let decision = Decision {
            state: env.state(),
            seat,
            legal: &legal,
            ply: env.info().ply,
        };
        let choice = learner.act(env.game(), &decision, rng);
        match choice {
            Some(a) => env.step(a).expect("the learner chose an illegal action"),
            None => env.resign().expect("the episode is running"),
        };
    }
    let info = env.info();
    finish(
        env.game(),
        env.returns(),
        seat,
        learner,
        info.ply,
        info.resigned,
    )
}

/// Plays one episode in which the learner holds every seat ([`Learner::play_self`]).
#[inline]
pub fn play_self<G: Game, L: Learner<G> + ?Sized>(
    env: &mut AecEnv<G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.play_self(env, rng)
}

/// Plays one episode in which the learner holds every seat, asking it for each move
/// ([`Learner::act_at`]).
pub fn play_self_by_moves<G: Game, L: Learner<G> + ?Sized>(
    env: &mut AecEnv<G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    env.play_out(|game, state, seat, legal, ply| {
        learner.act_at(
            game,
            &Decision {
                state,
                seat,
                legal,
                ply,
            },
            rng,
        )
    })
    .expect("the learner chose an illegal action");
    finish(
        env.game(),
        env.returns(),
        0,
        learner,
        env.ply(),
        env.resigned(),
    )
}

#[inline]
pub(crate) fn finish<G: Game, L: Learner<G> + ?Sized>(
    game: &G,
    returns: Option<Returns>,
    seat: Player,
    learner: &mut L,
    plies: u32,
    resigned: Option<Player>,
) -> EpisodeOutcome {
    // A truncated episode has no returns: it ends as a draw for learning purposes.
    let r = returns.unwrap_or_else(|| Returns::zeros(game.num_players()));
    learner.end_episode(game, &r, plies);
    EpisodeOutcome {
        reward: r[seat],
        returns,
        plies,
        resigned,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::eval::{evaluate_policy, expected_result, minimax_return};
    use crate::truth::OptimalPolicy;
    use crate::truth::Solution;

    /// Trains `learner` by self-play for `episodes` episodes.
    pub fn train_self_play<G: Game, L: Learner<G>>(
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
    pub fn learns<G: Game, L: Learner<G>>(game: &G, learner: &L, what: &str) -> Result<(), String> {
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

    /// `act_at` names the place of the action `act` chooses, drawing the same numbers, for every
    /// kind of learner (natively or by the default), and a learner that plays a self-play
    /// episode in one piece (`Learner::play_self`: Q-learning with one table) plays it as move
    /// by move: self-play through `act` and `step`, and through `play_self`, give the same
    /// episodes, the same tables and the same generator state.
    #[test]
    fn act_at_and_act_choose_alike_for_every_learner() {
        // Tables laid out in place (a tabulated game) and rows appended by hashed key (Hexapawn
        // 4x4 by its rules).
        let ttt =
            crate::core::tabulated::Tabulated::new(&crate::games::TicTacToe, 1 << 20).unwrap();
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
        ];
        for (kind, keys) in kinds {
            let table: toml::Table = keys.parse().unwrap();
            let config = LearnerConfig::deserialize(kind, toml::Value::Table(table))
                .unwrap()
                .unwrap();
            act_at_and_act_alike(&ttt, &config, 300, &format!("tic-tac-toe {kind} {keys}"));
            act_at_and_act_alike(&hexapawn, &config, 100, &format!("hexapawn {kind} {keys}"));
        }
    }

    /// [`act_at_and_act_choose_alike_for_every_learner`] on one game: `episodes` episodes both
    /// ways, then both learners' policies and values at every position (those the episodes met
    /// if the game does not number its positions).
    fn act_at_and_act_alike<G: Game>(game: &G, config: &LearnerConfig, episodes: usize, what: &str)
    where
        G::State: std::fmt::Debug,
    {
        let mut by_action = config.build(game, what.to_string());
        let mut by_place = config.build(game, what.to_string());
        let (mut env_a, mut env_p) = (AecEnv::new(game.clone(), 1), AecEnv::new(game.clone(), 1));
        let (mut rng_a, mut rng_p) = (crate::core::random::rng(2), crate::core::random::rng(2));
        let mut met = Vec::new();
        for _ in 0..episodes {
            by_action.begin_episode();
            env_a.reset(None);
            while let Some(seat) = env_a.agent_selection() {
                met.push(env_a.state().clone());
                let decision = Decision {
                    state: env_a.state(),
                    seat,
                    legal: env_a.legal_actions(),
                    ply: env_a.ply(),
                };
                match by_action.act(env_a.game(), &decision, &mut rng_a) {
                    Some(a) => env_a.step(a).unwrap(),
                    None => env_a.resign().unwrap(),
                }
            }
            let a = finish(
                env_a.game(),
                env_a.returns(),
                0,
                by_action.as_mut(),
                env_a.ply(),
                env_a.resigned(),
            );
            let p = play_self(&mut env_p, by_place.as_mut(), &mut rng_p);
            assert_eq!(a, p, "{what}");
        }
        assert_eq!(rng_a, rng_p, "{what}");
        assert_eq!(by_action.statistics(), by_place.statistics(), "{what}");
        // Every position when the game numbers them, else those the episodes met.
        if let Some(n) = game.state_index_len() {
            met = (0..n).filter_map(|i| game.state_from_index(i)).collect();
        }
        let mut legal = Vec::new();
        for s in &met {
            let (mut pa, mut pp) = (Vec::new(), Vec::new());
            game.legal_actions(s, &mut legal);
            if legal.is_empty() {
                continue;
            }
            by_action.policy().probabilities(game, s, &legal, &mut pa);
            by_place.policy().probabilities(game, s, &legal, &mut pp);
            assert_eq!(pa, pp, "{what}: position {s:?}");
            assert_eq!(by_action.value(game, s), by_place.value(game, s), "{what}");
        }
    }
}
