//! Learners and the loops that train them against the environments.
//!
//! A [`Learner`] picks moves at the seats it holds and learns from what happens; it never sees
//! the solution. [`play_vs_opponent`] trains it at one seat of an [`Env`] against a fixed
//! opponent policy; [`play_self`] lets it hold every seat of an [`AecEnv`].
//!
//! Each learner's file opens with its algorithm: [`Learner::act`] makes one decision as the
//! textbook box reads, [`Learner::end_episode`] backs up the last ones. What the learners share
//! lies beside them: [`backup`] (which earlier decision a new one backs up, ε-greedy choice),
//! [`epsilon_greedy`] (their policies, written once), [`table`] (values keyed by state),
//! [`schedule`] (ε and α by episode). A learner may add a fast path that gives the same bytes,
//! tested against `act` in `tests.rs`: `q_learning/fast.rs` plays a one-table self-play
//! episode in one piece.

pub mod backup;
pub mod epsilon_greedy;
pub mod frozen;
pub mod metric;
pub mod saved;
pub mod schedule;
pub mod table;

// The learners: each its own file, and a line in `learners!` below.
pub mod menace;
pub mod monte_carlo;
pub mod q_learning;
pub mod td;
// Value functions over features (n-tuple networks, linear, a perceptron): `features/`.
pub mod features;
pub use features::{linear, mlp, ntuple};

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core::env::{AecEnv, Env};
use crate::core::game::{Action, Game, Player, Returns, Turn};
use crate::core::policy::Policy;
use crate::core::random::SgRng;
pub use metric::{Metric, Role};

/// The statistics every value learner keeps: states (or afterstates) in its table, ε and α.
pub(crate) fn value_learner_statistics(
    table: (&'static str, &'static str, usize),
    epsilon: f64,
    alpha: Option<f64>,
) -> Vec<(Metric, f64)> {
    let (name, _, rows) = table;
    let mut out = vec![
        (Metric::of(name), rows as f64),
        (Metric::of("epsilon"), epsilon),
    ];
    if let Some(alpha) = alpha {
        out.push((Metric::of("alpha"), alpha));
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
    /// Where a reference line of one of its own statistics stands ([`metric::Source`]), for a
    /// learner at `seat` of the game whose every position `graph` holds (`None`: nowhere).
    fn reference<G: Game>(
        &self,
        source: metric::Source,
        seat: Player,
        graph: &crate::core::graph::StateGraph<G>,
    ) -> Option<f64> {
        let _ = (source, seat, graph);
        None
    }
    /// About how many multiply-adds it spends to value one legal move of `game` (the
    /// observation of the move's afterstate read through its weights), where that is more
    /// than a table lookup; 0 for the tabular kinds. The run's work estimate
    /// ([`crate::experiment`]) multiplies it by the moves a game offers.
    fn move_cost<G: Game>(&self, game: &G) -> u64 {
        let _ = game;
        0
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
            /// See [`LearnerSpec::move_cost`].
            pub fn move_cost<G: Game>(&self, game: &G) -> u64 {
                match self { $( LearnerConfig::$variant(c) => c.move_cost(game), )* }
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
            /// Where a reference line of its own statistics stands (see [`LearnerSpec::reference`]).
            pub fn reference<G: Game>(
                &self,
                source: metric::Source,
                seat: Player,
                graph: &crate::core::graph::StateGraph<G>,
            ) -> Option<f64> {
                match self { $( LearnerConfig::$variant(c) => c.reference(source, seat, graph), )* }
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
    ntuple: NTuple(NTupleConfig),
    linear: Linear(LinearConfig),
    mlp: Mlp(MlpConfig),
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

/// A learner: it picks moves at the seats it holds and learns from what happens.
///
/// **The definition.** [`Learner::act`] is one decision, written as the algorithm's textbook box
/// reads (choose, back up the decision it follows, remember it), and [`Learner::end_episode`]
/// backs up the last decisions with the returns; [`Learner::policy`],
/// [`Learner::greedy_policy`] and [`Learner::value`] read what it learned.
///
/// **The fast paths** answer as the definition does, faster, and must give the same bytes (the
/// same random draws in the same order, the same floating-point operations):
/// - [`Learner::play_self`], a whole self-play episode: by default `act` at every move
///   ([`play_self_by_moves`]); one-table Q-learning plays it in one piece
///   (`q_learning/fast.rs`);
/// - [`Learner::position`], the evaluator's questions at one position answered together.
///
/// The tests in `learn/tests.rs` hold them to the definition for every learner: self-play
/// through `play_self` and through `act` gives the same episodes, generator, tables,
/// statistics, policies and values (`self_play_gives_the_bytes_of_act_for_every_kind` and the
/// property test `fast_paths_give_the_bytes_of_act`), and `position` answers as the policies
/// and the value do.
pub trait Learner<G: Game>: std::any::Any + Send + Sync {
    /// A short description for tables and legends ("her", "menace").
    fn name(&self) -> String;
    /// Called before the first move of each episode.
    fn begin_episode(&mut self) {}
    /// The learner's decision at `decision`: the place of its move in `decision.legal`
    /// (counting from 0), or `None` to resign. It may learn now from what it sees about its
    /// earlier decisions (temporal-difference learners do) and remember this one.
    fn act(&mut self, game: &G, decision: &Decision<G>, rng: &mut SgRng) -> Option<usize>;
    /// Plays one episode in which the learner holds every seat ([`play_self`]): a fast path. By
    /// default move by move ([`play_self_by_moves`]); a learner may play the episode in one
    /// piece, its state for the episode kept in locals, as long as it learns and chooses
    /// exactly as `act` does.
    fn play_self(&mut self, env: &mut AecEnv<G>, rng: &mut SgRng) -> EpisodeOutcome {
        play_self_by_moves(env, self, rng)
    }
    /// Plays one episode against its frozen copy `copy` (made by [`Learner::frozen_copy`],
    /// played greedily if `greedy`) at the environment's other seats: the episode
    /// [`play_vs_opponent`] plays when the environment's opponents are that copy
    /// ([`frozen::FrozenCopy`]), the same draws and the same learning; a fast path. By default
    /// move by move ([`play_vs_copy_by_moves`]); a learner may play it in one piece, as
    /// [`Learner::play_self`] may.
    fn play_vs_copy(
        &mut self,
        env: &mut Env<'_, G>,
        copy: &dyn Learner<G>,
        greedy: bool,
        rng: &mut SgRng,
    ) -> EpisodeOutcome {
        play_vs_copy_by_moves(env, self, copy, greedy, rng)
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
    /// What the learner believes `state` is worth to `player` (`None`: it cannot say): a
    /// learned evaluation at the leaves of a search or MCTS (`eval=agent:PATH`). Exact at the
    /// end of the game; by default [`Learner::value`] of the player to move, negated for the
    /// other player of a two-player game (every two-player game here is zero-sum), and the
    /// expectation over a chance node's outcomes. A learner that reads a position from any
    /// seat (the feature learners) answers for every player.
    fn position_value(&self, game: &G, state: &G::State, player: Player) -> Option<f64> {
        match game.turn(state) {
            Turn::Terminal => Some(game.returns(state)[player]),
            Turn::Player(mover) => {
                let v = self.value(game, state)?;
                if mover == player {
                    Some(v)
                } else if game.num_players() == 2 {
                    Some(-v)
                } else {
                    None
                }
            }
            Turn::Chance => {
                let mut outcomes = Vec::new();
                game.chance_outcomes(state, &mut outcomes);
                outcomes.iter().try_fold(0.0, |sum, &(a, p)| {
                    Some(sum + p * self.position_value(game, &game.apply(state, a), player)?)
                })
            }
        }
    }
    /// The discount per ply its values use (1 = none).
    fn discount(&self) -> f64 {
        1.0
    }
    /// What the exact evaluator asks at every position of a seat it holds, answered together
    /// from one look at its tables: a fast path. The distributions of [`Learner::policy`] and
    /// [`Learner::greedy_policy`] over `legal` (the legal actions of `state`, ascending) and,
    /// if `value` is asked for, [`Learner::value`]; must give exactly what those give.
    /// `false`: not offered (the evaluator asks them apart).
    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        let _ = (game, state, legal, out);
        false
    }
    /// The probabilities [`Learner::policy`] (or, `greedy`, [`Learner::greedy_policy`]) gives
    /// over `legal` at `state`, asked without building the policy: a frozen copy
    /// ([`frozen::FrozenCopy`]) plays from it at every move. Must give exactly what the policy
    /// gives; by default it asks the policy.
    fn play_probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        probs: &mut Vec<f64>,
    ) -> bool {
        let policy = if greedy {
            self.greedy_policy()
        } else {
            self.policy()
        };
        policy.probabilities(game, state, legal, probs)
    }
    /// A move drawn from [`Learner::play_probabilities`] as [`crate::core::policy::sample`]
    /// draws it (the same bits), where the learner can draw it without writing the
    /// probabilities down (a frozen copy plays so); `None`: not offered.
    fn play_choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        rng: &mut SgRng,
    ) -> Option<Option<Action>> {
        let _ = (game, state, legal, greedy, rng);
        None
    }
    /// A copy of what it has learned now, as a learner of its own kind that is never trained:
    /// it plays, and answers the evaluator's questions about its play, as this learner does now
    /// (a frozen copy, [`frozen::FrozenCopy`]). It may leave out what play does not read (the
    /// decisions of an episode under way, Monte-Carlo's visit counts). `None`: this kind makes
    /// no copy of itself (its frozen copy is tabulated over the positions instead).
    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        None
    }
    /// Brings `copy`, made by [`Learner::frozen_copy`] of this learner, up to date: afterwards
    /// it answers as a fresh `frozen_copy` would. The tabular learners copy only the rows they
    /// changed since the last refresh (their tables keep a record of them from the first
    /// refresh on), so that a copy refreshed after every episode costs what the episode
    /// changed; the feature learners copy their weights whole. By default a fresh copy
    /// replaces it.
    fn refresh_copy(&mut self, game: &G, copy: &mut Box<dyn Learner<G>>) {
        let _ = game;
        if let Some(fresh) = self.frozen_copy() {
            *copy = fresh;
        }
    }
    /// What it has learned, to be saved ([`saved`]): its tables' rows keyed by position, its
    /// weight arrays and its episodes. `None`: this kind saves nothing.
    fn snapshot(&self, game: &G) -> Option<saved::Snapshot<G>> {
        let _ = game;
        None
    }
    /// Takes back what [`Learner::snapshot`] gave, into a fresh learner of the same config:
    /// afterwards it plays and answers the evaluator as the learner saved did. `Err` says why
    /// the snapshot does not fit (a position with other legal moves, a missing part).
    fn restore(&mut self, game: &G, snapshot: saved::Snapshot<G>) -> Result<(), String> {
        let _ = (game, snapshot);
        Err(format!("a {} learner cannot be restored", self.name()))
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
        let action = learner.act(env.game(), &decision, rng).map(|k| {
            *legal
                .get(k)
                .expect("the learner chose a place among the legal actions")
        });
        match action {
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

/// Plays one episode against a frozen copy of the learner ([`Learner::play_vs_copy`]), asking
/// the learner for each of its moves ([`Learner::act`]) and the copy for the others'
/// ([`frozen::choose`]), without going through the environment's opponents.
pub fn play_vs_copy_by_moves<G: Game, L: Learner<G> + ?Sized, C: Learner<G> + ?Sized>(
    env: &mut Env<'_, G>,
    learner: &mut L,
    copy: &C,
    greedy: bool,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    let seat = env.seat();
    env.play_episode(
        |game, state, legal, ply| {
            let decision = Decision {
                state,
                seat,
                legal,
                ply,
            };
            learner.act(game, &decision, rng)
        },
        |game, state, _, legal, rng| {
            frozen::choose(copy, greedy, game, state, legal, rng).map(|a| {
                crate::core::env::place_of(legal, a).expect("a frozen copy plays a legal action")
            })
        },
    );
    finish(
        env.game(),
        env.returns(),
        seat,
        learner,
        env.ply(),
        env.resigned(),
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
/// ([`Learner::act`]).
pub fn play_self_by_moves<G: Game, L: Learner<G> + ?Sized>(
    env: &mut AecEnv<G>,
    learner: &mut L,
    rng: &mut SgRng,
) -> EpisodeOutcome {
    learner.begin_episode();
    env.reset(None);
    env.play_out(|game, state, seat, legal, ply| {
        learner.act(
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
pub(crate) mod tests;
