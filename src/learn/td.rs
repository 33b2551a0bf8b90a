//! TD(0) and TD(λ) learning of afterstate values, the classic way to learn a board game.
//!
//! Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018): the tic-tac-toe
//! player of §1.5 (values of the positions after one's own move, greedy play with exploratory
//! moves, `V(S) ← V(S) + α [V(S') − V(S)]`); afterstates, §6.8; the box "Tabular TD(0) for
//! estimating v_π", §6.1; and TD(λ) with eligibility traces, the box "Semi-gradient TD(λ) for
//! estimating v̂ ≈ v_π" of §12.2 in its tabular case, with accumulating or replacing traces
//! (§12.2 and the replacing trace of §12.5's footnote / Singh & Sutton 1996).
//!
//! `V(x)` is the value of afterstate `x` (the position just after a move) to the player who
//! made the move. The learner plays ε-greedily on the values of the afterstates of its legal
//! moves; a move that ends the game has its exact value from the rules (the return), as in §1.5.
//! Each afterstate is moved toward the value of the learner's next chosen afterstate (negated
//! when that is the other seat's, in two-player self-play; see [`super::backup`]) or toward the
//! return at the end, γ per ply. Values are learned on-policy (exploratory moves included), so
//! ε should decay to 0 for optimal play.

use serde::{Deserialize, Serialize};

use super::backup::{
    Backup, Pending, discount, epsilon_greedy, epsilon_greedy_probabilities, max_of,
};
use super::saved::Snapshot;
use super::schedule::{Decay, Epsilon, Schedule, checked};
use super::table::Table;
use super::{Decision, Learner, Position};
use crate::core::game::{Action, Game, MAX_PLAYERS, Player, Returns};
use crate::core::policy::Policy;
use crate::core::random::SgRng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traces {
    /// `e(x) ← e(x) + 1` on a visit.
    Accumulating,
    /// `e(x) ← 1` on a visit.
    Replacing,
}

/// `kind = "td"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TdConfig {
    /// Trace decay λ (0: TD(0)).
    #[serde(deserialize_with = "checked::trace_decay")]
    pub lambda: f64,
    pub traces: Traces,
    /// Step size α by episode.
    #[serde(deserialize_with = "checked::step_size_schedule")]
    pub alpha: Schedule,
    /// Exploration rate ε by episode.
    #[serde(deserialize_with = "checked::probability_schedule")]
    pub epsilon: Schedule,
    /// Discount per ply.
    #[serde(deserialize_with = "checked::discount")]
    pub gamma: f64,
    /// The value of an afterstate never met.
    #[serde(deserialize_with = "checked::finite")]
    pub initial: f64,
}

impl Default for TdConfig {
    /// TD(0).
    fn default() -> Self {
        TdConfig::new(0.0)
    }
}

impl super::LearnerSpec for TdConfig {
    type Note = super::NoNote;
    const KIND: &'static str = "td";
    const KEYS: &'static str =
        "lambda = 0..1; traces = \"accumulating\" | \"replacing\" (afterstate values)";
    fn default_label(&self) -> String {
        format!("TD({})", self.lambda)
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(Td::new(game, label, self.clone()))
    }
}

impl TdConfig {
    /// TD(λ) with the defaults: accumulating traces, α = 0.5, ε from 1 halving every 100,000
    /// episodes, no discount, values start at 0.
    pub fn new(lambda: f64) -> Self {
        TdConfig {
            lambda,
            traces: Traces::Accumulating,
            alpha: Schedule::Constant(0.5),
            epsilon: Schedule::Decay(Decay::Exponential {
                start: 1.0,
                end: 0.0,
                half_life: 100_000.0,
            }),
            gamma: 1.0,
            initial: 0.0,
        }
    }
}

/// One backup chain's eligibility traces.
#[derive(Clone, Debug, Default)]
struct Chain {
    /// (value index, eligibility).
    traces: Vec<(u32, f64)>,
    /// The link factor of the chain's last backup (`±γ^k`): traces decay by `λ` times it.
    link: f64,
}

/// A TD(0) / TD(λ) afterstate-value learner.
pub struct Td<G: Game> {
    name: String,
    config: TdConfig,
    /// Afterstate values, one per afterstate ([`Table::of_state_values`]).
    table: Table<G>,
    /// The afterstates chosen and not yet backed up (indices of their values).
    pending: Pending<u32>,
    chains: [Chain; MAX_PLAYERS],
    two_player: bool,
    episode: u64,
    alpha: f64,
    epsilon: Epsilon,
    values: Vec<f64>,
    afters: Vec<G::State>,
    /// Whether each of `afters` ends the game.
    ends_game: Vec<bool>,
    ends: Vec<Backup<u32>>,
}

impl<G: Game> Td<G> {
    pub fn new(game: &G, name: impl Into<String>, config: TdConfig) -> Self {
        Td {
            name: name.into(),
            table: Table::of_state_values(game, config.initial),
            pending: Pending::new(game.num_players()),
            chains: Default::default(),
            two_player: game.num_players() == 2,
            episode: 0,
            alpha: config.alpha.at(0),
            epsilon: Epsilon::new(config.epsilon),
            values: Vec::new(),
            afters: Vec::new(),
            ends_game: Vec::new(),
            ends: Vec::new(),
            config,
        }
    }

    pub fn config(&self) -> &TdConfig {
        &self.config
    }

    /// A copy of what it has learned, never to be trained ([`Learner::frozen_copy`]).
    fn frozen(&self) -> Self {
        Td {
            name: self.name.clone(),
            config: self.config.clone(),
            table: self.table.frozen(),
            pending: self.pending.clone(),
            chains: Default::default(),
            two_player: self.two_player,
            episode: self.episode,
            alpha: self.alpha,
            epsilon: self.epsilon.clone(),
            values: Vec::new(),
            afters: Vec::new(),
            ends_game: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// The value of afterstate `after` to `mover`, who just moved: exact at the end of the
    /// game, learned otherwise.
    pub fn afterstate_value(&self, game: &G, after: &G::State, mover: Player) -> f64 {
        self.afterstate(game, after, mover).0
    }

    /// [`Td::afterstate_value`], and whether `after` ends the game.
    #[inline]
    fn afterstate(&self, game: &G, after: &G::State, mover: Player) -> (f64, bool) {
        if game.turn(after).is_terminal() {
            (game.returns(after)[mover], true)
        } else {
            (
                self.table.first_value(game, after, self.config.initial),
                false,
            )
        }
    }

    /// [`Td::move_values`] into `out`.
    fn move_values_into(
        &self,
        game: &G,
        state: &G::State,
        mover: Player,
        legal: &[Action],
        out: &mut Vec<f64>,
    ) {
        out.clear();
        out.extend(
            legal
                .iter()
                .map(|&a| self.afterstate_value(game, &game.apply(state, a), mover)),
        );
    }

    /// The values of the moves of `state` to `mover`, in `legal` order.
    fn move_values(&self, game: &G, state: &G::State, mover: Player, legal: &[Action]) -> Vec<f64> {
        legal
            .iter()
            .map(|&a| self.afterstate_value(game, &game.apply(state, a), mover))
            .collect()
    }

    fn chain_of(&self, seat: Player) -> usize {
        if self.two_player { 0 } else { seat }
    }

    /// Backs up afterstate value `index` by the error `delta`, with `link` relating it to the
    /// value it was backed up to (TD(λ): every traced afterstate of the chain moves too).
    fn backup(&mut self, chain: usize, index: u32, delta: f64, link: f64) {
        let (lambda, alpha) = (self.config.lambda, self.alpha);
        let values = self.table.values_mut();
        if lambda == 0.0 {
            values[index as usize] += alpha * delta;
            return;
        }
        let chain = &mut self.chains[chain];
        let decay = lambda * chain.link;
        for (_, e) in chain.traces.iter_mut() {
            *e *= decay;
        }
        match chain.traces.iter_mut().find(|(i, _)| *i == index) {
            Some((_, e)) => match self.config.traces {
                Traces::Accumulating => *e += 1.0,
                Traces::Replacing => *e = 1.0,
            },
            None => chain.traces.push((index, 1.0)),
        }
        for &(i, e) in &chain.traces {
            values[i as usize] += alpha * delta * e;
        }
        chain.link = link;
    }
}

impl<G: Game> Learner<G> for Td<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.pending.clear();
        for c in &mut self.chains {
            c.traces.clear();
            c.link = 0.0;
        }
    }

    fn act(&mut self, game: &G, d: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        // The value of each move's afterstate to the mover: exact if it ends the game. Which
        // ones end it is found first, then the lookups in a loop of their own, for speed: their
        // cache misses overlap.
        self.values.clear();
        self.ends_game.clear();
        game.apply_each(d.state, d.legal, &mut self.afters);
        self.ends_game.extend(
            self.afters
                .iter()
                .map(|after| game.turn(after).is_terminal()),
        );
        for (after, &terminal) in self.afters.iter().zip(&self.ends_game) {
            self.values.push(if terminal {
                game.returns(after)[d.seat]
            } else {
                self.table.first_value(game, after, self.config.initial)
            });
        }
        // Choose a move ε-greedily on those values.
        let choice = epsilon_greedy(&self.values, &self.epsilon, rng);
        let value = self.values[choice];
        // V(x) ← V(x) + α [±γ^k V(x') − V(x)] for the afterstate x chosen before, x' the one
        // chosen now (negated when it is the other seat's), with the traces of TD(λ).
        if let Some(b) = self.pending.take_previous(d.seat, d.ply) {
            let link = b.sign * discount(self.config.gamma, b.plies);
            let delta = link * value - self.table.values()[b.entry as usize];
            self.backup(self.chain_of(b.seat), b.entry, delta, link);
        }
        // Remember the afterstate chosen, unless the game ends there (its value is exact).
        if !self.ends_game[choice] {
            let after = &self.afters[choice];
            let index = self
                .table
                .value_index_or_insert(game, after, self.config.initial);
            self.pending.remember(d.seat, d.ply, index as u32);
        }
        Some(choice)
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, plies: u32) {
        // A reused buffer: `backup` needs `self` while the pending decisions are read.
        let mut ends = std::mem::take(&mut self.ends);
        ends.extend(self.pending.take_last(plies));
        for b in ends.drain(..) {
            // V(x) ← V(x) + α [γ^(k-1) G − V(x)]: the afterstate is `b.plies - 1` plies before
            // the last move's return G.
            let link = discount(self.config.gamma, b.plies.saturating_sub(1));
            let delta = link * returns[b.seat] - self.table.values()[b.entry as usize];
            self.backup(self.chain_of(b.seat), b.entry, delta, link);
        }
        self.ends = ends;
        self.episode += 1;
        self.alpha = self.config.alpha.at(self.episode);
        self.epsilon.next_episode();
    }

    fn policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, false)
    }

    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_> {
        super::epsilon_greedy::policy(self, true)
    }

    fn play_probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        probs: &mut Vec<f64>,
    ) -> bool {
        super::epsilon_greedy::play_probabilities(self, (game, state, legal), greedy, probs)
    }

    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        Some(Box::new(self.frozen()))
    }

    /// The afterstate values changed since the last refresh, ε, α and the episode.
    fn refresh_copy(&mut self, _game: &G, copy: &mut Box<dyn Learner<G>>) {
        let Some(to) = super::frozen::downcast::<G, Self>(copy) else {
            *copy = Box::new(self.frozen());
            return;
        };
        self.table.refresh_copy(&mut to.table, &mut []);
        to.episode = self.episode;
        to.alpha = self.alpha;
        to.epsilon.clone_from(&self.epsilon);
    }

    fn statistics(&self) -> Vec<(crate::learn::Metric, f64)> {
        super::value_learner_statistics(
            ("afterstates_visited", "Afterstates", self.table.rows()),
            self.epsilon.value(),
            Some(self.alpha),
        )
    }

    fn learns_values(&self) -> bool {
        true
    }

    fn value(&self, game: &G, state: &G::State) -> Option<f64> {
        let mover = game.turn(state).player()?;
        let mut legal = Vec::new();
        game.legal_actions(state, &mut legal);
        Some(max_of(&self.move_values(game, state, mover, &legal)))
    }

    fn discount(&self) -> f64 {
        self.config.gamma
    }

    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        // As `probabilities_at` and `value` compute them, from one set of move values.
        let mover = game.turn(state).player();
        match mover {
            Some(mover) if !legal.is_empty() => {
                let mut values = std::mem::take(&mut out.scratch);
                self.move_values_into(game, state, mover, legal, &mut values);
                epsilon_greedy_probabilities(&values, self.epsilon.value(), &mut out.behaviour);
                epsilon_greedy_probabilities(&values, 0.0, &mut out.greedy);
                out.value = out.want_value.then(|| max_of(&values));
                out.scratch = values;
            }
            _ => {
                out.behaviour.clear();
                out.greedy.clear();
                out.value = match mover {
                    Some(mover) if out.want_value => {
                        // No legal action here: `value` asks the game for them again.
                        let mut all = Vec::new();
                        game.legal_actions(state, &mut all);
                        Some(max_of(&self.move_values(game, state, mover, &all)))
                    }
                    _ => None,
                };
            }
        }
        true
    }
    /// `v`, the value of every afterstate met.
    fn snapshot(&self, game: &G) -> Option<Snapshot<G>> {
        let mut rows = Vec::new();
        let initial = self.config.initial;
        self.table
            .saved_rows(game, "v", self.table.values(), initial, false, &mut rows)
            .ok()
            .map(|()| Snapshot {
                episodes: self.episode,
                rows,
                arrays: Vec::new(),
            })
    }

    fn restore(&mut self, game: &G, snapshot: Snapshot<G>) -> Result<(), String> {
        self.table.forget_changes();
        self.table
            .restore_rows(game, snapshot.part("v"), self.config.initial, false)?;
        self.episode = snapshot.episodes;
        self.alpha = self.config.alpha.at(self.episode);
        self.epsilon.replay(self.episode);
        Ok(())
    }
}

impl<G: Game> super::epsilon_greedy::EpsilonGreedy<G> for Td<G> {
    fn label(&self) -> &str {
        &self.name
    }
    fn epsilon_now(&self) -> f64 {
        self.epsilon.value()
    }
    fn probabilities_at(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        epsilon: f64,
        probs: &mut Vec<f64>,
    ) {
        super::backup::afterstate_probabilities(game, state, legal, epsilon, probs, |mover| {
            self.move_values(game, state, mover, legal)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};
    use crate::learn::tests::{learns, train_self_play};

    impl<G: Game> crate::learn::tests::Inspect<G> for Td<G> {
        fn tables(&self) -> Vec<u64> {
            let mut out: Vec<u64> = self.table.values().iter().map(|x| x.to_bits()).collect();
            for chain in &self.chains {
                out.extend(
                    chain
                        .traces
                        .iter()
                        .flat_map(|&(i, e)| [i as u64, e.to_bits()]),
                );
                out.push(chain.link.to_bits());
            }
            out.extend([self.table.rows() as u64, self.episode, self.alpha.to_bits()]);
            out
        }
    }

    #[test]
    fn td0_and_td_lambda_learn_tictactoe_and_hexapawn_by_self_play() {
        let mut failures = Vec::new();
        for (lambda, traces) in [
            (0.0, Traces::Accumulating),
            (0.8, Traces::Accumulating),
            (0.8, Traces::Replacing),
        ] {
            let config = TdConfig {
                traces,
                ..TdConfig::new(lambda)
            };
            let what = format!("TD({lambda}) {traces:?}");
            let hexapawn = Hexapawn::new(HexapawnParams::default()).unwrap();
            let mut l = Td::new(&hexapawn, "td", config.clone());
            train_self_play(&hexapawn, &mut l, 500_000, 1);
            failures.extend(learns(&hexapawn, &l, &what).err());
            let mut l = Td::new(&TicTacToe, "td", config);
            train_self_play(&TicTacToe, &mut l, 500_000, 1);
            failures.extend(learns(&TicTacToe, &l, &what).err());
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn a_winning_move_is_known_from_the_rules_and_values_flow_back_with_sign_flips() {
        // X to move can win at once: the afterstate is terminal, worth +1 to X exactly.
        let game = TicTacToe;
        let config = TdConfig {
            alpha: Schedule::Constant(1.0),
            epsilon: Schedule::Constant(0.0),
            ..TdConfig::new(0.5)
        };
        let mut l = Td::new(&game, "td", config);
        let mut s = game.initial_state();
        for a in [0, 3, 1, 4] {
            s = game.apply(&s, a); // X: 0, 1; O: 3, 4; X to play 2 wins
        }
        assert_eq!(l.value(&game, &s), Some(1.0));
        // O's earlier afterstate (after O played 4) is backed up from X's winning move: -1.
        let mut r = crate::core::random::rng(0);
        let mut before = game.initial_state();
        for a in [0, 3, 1] {
            before = game.apply(&before, a);
        }
        let mut legal = Vec::new();
        game.legal_actions(&before, &mut legal);
        l.begin_episode();
        // Make O's greedy move 4 (the blunder) by valuing its afterstate highest.
        let blunder = game.apply(&before, 4);
        let item = l.table.value_index_or_insert(&game, &blunder, 0.0);
        l.table.values_mut()[item] = 0.9;
        let o = l.act(
            &game,
            &Decision {
                state: &before,
                seat: 1,
                legal: &legal,
                ply: 3,
            },
            &mut r,
        );
        assert_eq!(o.map(|k| legal[k]), Some(4));
        game.legal_actions(&s, &mut legal);
        let x = l.act(
            &game,
            &Decision {
                state: &s,
                seat: 0,
                legal: &legal,
                ply: 4,
            },
            &mut r,
        );
        assert_eq!(x.map(|k| legal[k]), Some(2));
        assert!((l.table.values()[item] + 1.0).abs() < 1e-12);
    }
}
