//! Matchbox learners: Gardner's HER (Hexapawn Educable Robot, 1962) and Michie's MENACE
//! (Matchbox Educable Noughts And Crosses Engine, 1963), two bead schemes of one mechanism.
//!
//! One box per position the learner faces (a position and its symmetric images share a box
//! when `symmetry` is on, and moves that a symmetry of the position maps onto each other share
//! a bead colour). The learner draws a bead at random: each move is played with probability
//! proportional to its beads. At the end of a game the beads of the moves it played change by
//! the reward for its result, in every box used (`EveryMove`, MENACE) or only in the box of its
//! last move (`LastMove`, HER). A box with no beads left makes the learner resign.
//!
//! - HER: one bead per move; after a loss the bead of the last move is confiscated; wins
//!   change nothing; an empty box resigns (and the previous move's bead goes).
//! - MENACE: 4/3/2/1 beads per move by the learner's move number 1/2/3/4; win +3, draw +1,
//!   loss -1 in every box used; a move never drops below one bead, so a box never empties.
//!
//! Boxes are opened on first visit; the move number at that visit sets their initial beads
//! (in tic-tac-toe and Hexapawn a position fixes it anyway).

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::saved::{SavedRow, Snapshot};
use super::table::RowIndex;
use super::{Decision, Learner, Position};
use crate::core::game::{Action, Game, GameResult, MAX_PLAYERS, Player, Returns, Turn};
use crate::core::graph::StateGraph;
use crate::core::policy::Policy;
use crate::core::random::SgRng;
use crate::learn::{Metric, Role};

/// Which played moves a game's result reinforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reinforce {
    /// Only the learner's last move (Gardner's HER).
    LastMove,
    /// Every move the learner played (Michie's MENACE).
    EveryMove,
}

/// The bead rules. [`MatchboxConfig::her`] and [`MatchboxConfig::menace`] are the two
/// historical schemes; every field can be changed on its own. In a config (`kind = "matchbox"`)
/// `scheme` picks the scheme (HER unless told) and any field given overrides it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "MatchboxToml")]
pub struct MatchboxConfig {
    /// Positions that are images of each other under the board's symmetries share a box.
    pub symmetry: bool,
    /// Beads per move in a new box, by the learner's move number in the game (1st, 2nd, ...);
    /// the last entry holds for later moves.
    pub initial_beads: Vec<u32>,
    /// Beads added to a played move after a win, a draw and a loss (negative: taken away).
    pub win_beads: i32,
    pub draw_beads: i32,
    pub loss_beads: i32,
    pub reinforce: Reinforce,
    /// A move never drops below this many beads (0 lets boxes empty, and the learner resign).
    pub min_beads: u32,
}

/// The two historical bead schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Scheme {
    Her,
    Menace,
}

/// A matchbox learner's table in a config: a scheme and overrides of its fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchboxToml {
    scheme: Option<Scheme>,
    symmetry: Option<bool>,
    #[serde(default, deserialize_with = "bead_counts")]
    initial_beads: Option<Vec<u32>>,
    win_beads: Option<i32>,
    draw_beads: Option<i32>,
    loss_beads: Option<i32>,
    reinforce: Option<Reinforce>,
    min_beads: Option<u32>,
}

fn bead_counts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<u32>>, D::Error> {
    let counts = Vec::<u32>::deserialize(d)?;
    if counts.is_empty() || counts.contains(&0) {
        return Err(serde::de::Error::custom(
            "give at least one count, each at least 1",
        ));
    }
    Ok(Some(counts))
}

impl From<MatchboxToml> for MatchboxConfig {
    fn from(t: MatchboxToml) -> Self {
        let base = match t.scheme {
            None | Some(Scheme::Her) => MatchboxConfig::her(),
            Some(Scheme::Menace) => MatchboxConfig::menace(),
        };
        MatchboxConfig {
            symmetry: t.symmetry.unwrap_or(base.symmetry),
            initial_beads: t.initial_beads.unwrap_or(base.initial_beads),
            win_beads: t.win_beads.unwrap_or(base.win_beads),
            draw_beads: t.draw_beads.unwrap_or(base.draw_beads),
            loss_beads: t.loss_beads.unwrap_or(base.loss_beads),
            reinforce: t.reinforce.unwrap_or(base.reinforce),
            min_beads: t.min_beads.unwrap_or(base.min_beads),
        }
    }
}

/// Matchboxes needed to cover every position a learner's seat can face: a matchbox learner's
/// note in a run's summary (`boxes_possible`).
#[derive(Clone, Debug, Serialize)]
pub struct BoxesPossible {
    pub learner: String,
    pub seat: String,
    /// Every position and its symmetric images share a box (what the learner does).
    pub with_symmetry: usize,
    pub with_symmetry_and_a_choice: usize,
    pub without_symmetry: usize,
    /// A hand-built machine in Gardner's manner (see `count_boxes_gardner`): 24 for Hexapawn.
    pub gardner_convention: usize,
}

impl std::fmt::Display for BoxesPossible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "boxes for {} at {}: {} with symmetry ({} with a choice of move), {} without, {} in Gardner's manner",
            self.learner,
            self.seat,
            crate::io::text::group(&self.with_symmetry.to_string()),
            crate::io::text::group(&self.with_symmetry_and_a_choice.to_string()),
            crate::io::text::group(&self.without_symmetry.to_string()),
            crate::io::text::group(&self.gardner_convention.to_string())
        )
    }
}

impl super::LearnerSpec for MatchboxConfig {
    const KIND: &'static str = "matchbox";
    type Note = BoxesPossible;
    const NOTE: &'static str = "boxes_possible";
    /// The boxes a learner at one seat needs (self-play and alternating seats: none listed).
    fn note<G: Game>(
        &self,
        label: &str,
        seat: Option<(Player, &str)>,
        graph: &StateGraph<G>,
    ) -> Option<BoxesPossible> {
        let (seat, name) = seat?;
        let with = count_boxes(graph, seat, true);
        Some(BoxesPossible {
            learner: label.to_string(),
            seat: name.to_string(),
            with_symmetry: with.boxes,
            with_symmetry_and_a_choice: with.with_choice,
            without_symmetry: count_boxes(graph, seat, false).boxes,
            gardner_convention: count_boxes_gardner(graph.game(), seat),
        })
    }
    /// The boxes line: every box the seat can need (symmetric images sharing one where the
    /// learner merges them), counted on the state graph.
    fn reference<G: Game>(
        &self,
        source: super::metric::Source,
        seat: Player,
        graph: &StateGraph<G>,
    ) -> Option<f64> {
        (source == super::metric::Source::BoxesNeeded)
            .then(|| count_boxes(graph, seat, self.symmetry).boxes as f64)
    }
    const KEYS: &'static str = "scheme = \"her\" (Gardner) | \"menace\" (Michie)";
    /// The scheme's name: "menace" where every move is reinforced, "her" otherwise.
    fn default_label(&self) -> String {
        match self.reinforce {
            Reinforce::EveryMove => "menace".into(),
            Reinforce::LastMove => "her".into(),
        }
    }
    fn build<G: Game>(&self, _: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(Matchbox::<G>::new(label, self.clone()))
    }
}

impl Default for MatchboxConfig {
    /// Gardner's HER.
    fn default() -> Self {
        MatchboxConfig::her()
    }
}

impl MatchboxConfig {
    /// Gardner's HER.
    pub fn her() -> Self {
        MatchboxConfig {
            symmetry: true,
            initial_beads: vec![1],
            win_beads: 0,
            draw_beads: 0,
            loss_beads: -1,
            reinforce: Reinforce::LastMove,
            min_beads: 0,
        }
    }
    /// Michie's MENACE.
    pub fn menace() -> Self {
        MatchboxConfig {
            symmetry: true,
            initial_beads: vec![4, 3, 2, 1],
            win_beads: 3,
            draw_beads: 1,
            loss_beads: -1,
            reinforce: Reinforce::EveryMove,
            min_beads: 1,
        }
    }
    fn beads_at_move(&self, move_number: usize) -> u32 {
        let i = move_number.min(self.initial_beads.len().saturating_sub(1));
        self.initial_beads.get(i).copied().unwrap_or(1)
    }
    fn reward(&self, result: GameResult) -> i32 {
        match result {
            GameResult::Win => self.win_beads,
            GameResult::Draw => self.draw_beads,
            GameResult::Loss => self.loss_beads,
        }
    }
}

/// One matchbox: a bead colour per distinct move (in the box's canonical frame) and its count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchBox {
    pub moves: Vec<Action>,
    pub beads: Vec<u32>,
}

impl MatchBox {
    /// All beads in the box (a u64: a box may hold up to `u32::MAX` beads per move).
    pub fn total(&self) -> u64 {
        self.beads.iter().map(|&n| n as u64).sum()
    }
}

struct Played {
    /// The bead's place in [`Boxes::beads`].
    bead: usize,
    seat: Player,
}

/// Every opened box, its moves and beads in two flat arrays (a box is a range of both, found
/// through a [`RowIndex`]): a decision finds its box with one lookup and reads its beads and
/// moves next to each other, not through a hash map entry and two allocations of its own.
#[derive(Clone)]
struct Boxes<G: Game> {
    /// Made at the first box opened (the learner is built without the game).
    index: Option<RowIndex<G>>,
    /// The boxes' positions and ranges, in the order they were opened.
    keys: Vec<G::State>,
    ranges: Vec<(u32, u32)>,
    moves: Vec<Action>,
    beads: Vec<u32>,
    /// The beads changed since a frozen copy was last brought up to date, once
    /// [`Boxes::refresh_copy`] has started the record (`None`: not recording; `Some(None)`:
    /// more than a whole copy costs).
    changed: Option<Option<Vec<u32>>>,
    /// The stamp of the last refresh: in the boxes, of the one their record started at; in a
    /// frozen copy, of the one that brought it up to date (0: none).
    stamp: u64,
}

impl<G: Game> Default for Boxes<G> {
    fn default() -> Self {
        Boxes {
            index: None,
            keys: Vec::new(),
            ranges: Vec::new(),
            moves: Vec::new(),
            beads: Vec::new(),
            changed: None,
            stamp: 0,
        }
    }
}

impl<G: Game> Boxes<G> {
    /// The range of `key`'s box, if it is open.
    #[inline]
    fn find(&self, game: &G, key: &G::State) -> Option<std::ops::Range<usize>> {
        self.index.as_ref()?.find(game, key)
    }

    /// The range of `key`'s box, opened with `open`'s moves and bead count if it was not.
    #[inline]
    fn find_or_open(
        &mut self,
        game: &G,
        key: &G::State,
        open: impl FnOnce(&G::State) -> (Vec<Action>, u32),
    ) -> std::ops::Range<usize> {
        let next = self.beads.len();
        let index = self.index.get_or_insert_with(|| RowIndex::new(game));
        // The length is known only once the box is opened: its moves are worked out then.
        if let Some(r) = index.find(game, key) {
            return r;
        }
        let (moves, beads) = open(key);
        let (range, _) = index.find_or_insert(game, key, next, moves.len());
        self.beads.resize(range.end, beads);
        self.moves.extend_from_slice(&moves);
        self.keys.push(key.clone());
        self.ranges.push((range.start as u32, range.len() as u32));
        range
    }

    /// Changes the bead at `bead` to `to`, noted for the frozen copy when recording.
    #[inline]
    fn set_bead(&mut self, bead: usize, to: u32) {
        self.beads[bead] = to;
        let limit = self.beads.len() / 4 + 1024;
        if let Some(record) = &mut self.changed {
            match record {
                Some(changed) if changed.len() < limit => changed.push(bead as u32),
                _ => *record = None,
            }
        }
    }

    /// A copy of the boxes as they are now (without any record of changes).
    fn frozen(&self) -> Self {
        Boxes {
            index: self.index.clone(),
            keys: self.keys.clone(),
            ranges: self.ranges.clone(),
            moves: self.moves.clone(),
            beads: self.beads.clone(),
            changed: None,
            stamp: 0,
        }
    }

    /// Brings `copy`, a [`Boxes::frozen`] copy of these boxes, up to date: the boxes opened
    /// since (they come last) and the beads changed, once the record runs (from the first call
    /// on; the first call, one after more changes than a whole copy costs, and one for another
    /// copy than the last call's copy it all).
    fn refresh_copy(&mut self, game: &G, copy: &mut Boxes<G>) {
        let stamp = super::table::refresh_stamp();
        let changed = match self.changed.take() {
            Some(Some(changed))
                if copy.keys.len() <= self.keys.len() && copy.stamp == self.stamp =>
            {
                changed
            }
            _ => {
                *copy = self.frozen();
                self.changed = Some(Some(Vec::new()));
                (self.stamp, copy.stamp) = (stamp, stamp);
                return;
            }
        };
        (self.stamp, copy.stamp) = (stamp, stamp);
        if copy.keys.len() < self.keys.len() {
            let index = copy.index.get_or_insert_with(|| RowIndex::new(game));
            for (key, &(start, len)) in self.keys.iter().zip(&self.ranges).skip(copy.keys.len()) {
                index.find_or_insert(game, key, start as usize, len as usize);
                copy.keys.push(key.clone());
                copy.ranges.push((start, len));
            }
            copy.moves
                .extend_from_slice(&self.moves[copy.moves.len()..]);
            copy.beads
                .extend_from_slice(&self.beads[copy.beads.len()..]);
        }
        let mut changed = changed;
        for bead in changed.drain(..) {
            copy.beads[bead as usize] = self.beads[bead as usize];
        }
        self.changed = Some(Some(changed));
    }
}

/// A matchbox learner (HER or MENACE, by its [`MatchboxConfig`]).
pub struct Matchbox<G: Game> {
    name: String,
    config: MatchboxConfig,
    /// The boxes, looked up at every decision and at every position of every evaluation.
    boxes: Boxes<G>,
    history: Vec<Played>,
    moves_made: [usize; MAX_PLAYERS],
}

impl<G: Game> Matchbox<G> {
    pub fn new(name: impl Into<String>, config: MatchboxConfig) -> Self {
        Matchbox {
            name: name.into(),
            config,
            boxes: Boxes::default(),
            history: Vec::new(),
            moves_made: [0; MAX_PLAYERS],
        }
    }

    pub fn config(&self) -> &MatchboxConfig {
        &self.config
    }

    /// A copy of its boxes, never to be trained ([`Learner::frozen_copy`]).
    fn frozen(&self) -> Self {
        Matchbox {
            name: self.name.clone(),
            config: self.config.clone(),
            boxes: self.boxes.frozen(),
            history: Vec::new(),
            moves_made: [0; MAX_PLAYERS],
        }
    }

    /// The box for `state`, if the learner has opened it, with the symmetry that maps `state`
    /// to the box's position.
    pub fn box_for(&self, game: &G, state: &G::State) -> Option<MatchBox> {
        let r = self.boxes.find(game, &self.key(game, state).0)?;
        Some(MatchBox {
            moves: self.boxes.moves[r.clone()].to_vec(),
            beads: self.boxes.beads[r].to_vec(),
        })
    }

    /// Every opened box by its (canonical) position, in the order they were opened.
    pub fn boxes(&self) -> impl Iterator<Item = (&G::State, MatchBox)> {
        self.boxes
            .keys
            .iter()
            .zip(&self.boxes.ranges)
            .map(|(k, r)| {
                let r = r.0 as usize..(r.0 + r.1) as usize;
                (
                    k,
                    MatchBox {
                        moves: self.boxes.moves[r.clone()].to_vec(),
                        beads: self.boxes.beads[r].to_vec(),
                    },
                )
            })
    }

    fn key(&self, game: &G, state: &G::State) -> (G::State, usize) {
        if self.config.symmetry {
            game.canonical(state)
        } else {
            (state.clone(), 0)
        }
    }

    /// The moves of the box for canonical position `key`, one per class of moves equivalent
    /// under the symmetries that fix the position.
    fn box_moves(&self, game: &G, key: &G::State) -> Vec<Action> {
        box_moves(&self.config, game, key)
    }

    /// Probability of each legal action of `state` under bead weights `weight(beads, max)`.
    fn distribution(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
        greedy: bool,
    ) {
        probs.clear();
        probs.resize(legal.len(), 0.0);
        let (key, sym) = self.key(game, state);
        let owned;
        let (moves, beads): (&[Action], Option<&[u32]>) = match self.boxes.find(game, &key) {
            Some(r) => (&self.boxes.moves[r.clone()], Some(&self.boxes.beads[r])),
            None if !self.config.symmetry || game.num_symmetries() == 1 => {
                // An unopened box without symmetries holds the same number of beads for every
                // legal move: uniform (as the general case below computes it, 1 / n each),
                // without building the box (most positions of a large game have none).
                if !legal.is_empty() {
                    probs.fill(1.0 / legal.len() as f64);
                }
                return;
            }
            None => {
                // An unopened box would hold the same number of beads for every move.
                owned = self.box_moves(game, &key);
                (&owned, None)
            }
        };
        let weight = |i: usize| -> f64 { beads.map_or(1.0, |b| b[i] as f64) };
        let max = (0..moves.len()).map(weight).fold(0.0, f64::max);
        // Each move's weight, computed twice (for the total, then for the share) rather than
        // kept in a vector: this runs at every position of every evaluation.
        let weight_of = |i: usize| match (greedy, weight(i)) {
            (true, w) if w == max && max > 0.0 => 1.0,
            (true, _) => 0.0,
            (false, w) => w,
        };
        let total: f64 = (0..moves.len()).map(weight_of).sum();
        if total == 0.0 {
            return; // an empty box: resign
        }
        let back = game.inverse_symmetry(sym);
        for (i, &m) in moves.iter().enumerate() {
            let a = game.transform_action(&key, m, back);
            let k = legal
                .binary_search(&a)
                .expect("box move maps to a legal action");
            probs[k] += weight_of(i) / total;
        }
    }
}

/// The moves of the box for canonical position `key` under `config`, one per class of moves
/// equivalent under the symmetries that fix the position.
fn box_moves<G: Game>(config: &MatchboxConfig, game: &G, key: &G::State) -> Vec<Action> {
    let mut legal = Vec::new();
    game.legal_actions(key, &mut legal);
    if !config.symmetry {
        return legal;
    }
    let stabiliser: Vec<usize> = (1..game.num_symmetries())
        .filter(|&k| game.transform_state(key, k) == *key)
        .collect();
    let mut moves: Vec<Action> = legal
        .iter()
        .map(|&a| {
            stabiliser
                .iter()
                .map(|&k| game.transform_action(key, a, k))
                .fold(a, Action::min)
        })
        .collect();
    moves.sort_unstable();
    moves.dedup();
    moves
}

impl<G: Game> Learner<G> for Matchbox<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn begin_episode(&mut self) {
        self.history.clear();
        self.moves_made = [0; MAX_PLAYERS];
    }

    fn act(&mut self, game: &G, decision: &Decision<G>, rng: &mut SgRng) -> Option<usize> {
        // Open the box of the position (its symmetric images share it) if it is new, draw a
        // bead at random, remember it for the end of the episode, play its move.
        let (state, seat, legal) = (decision.state, decision.seat, decision.legal);
        let (key, sym) = self.key(game, state);
        let move_number = self.moves_made[seat];
        self.moves_made[seat] += 1;
        let config = &self.config;
        let range = self.boxes.find_or_open(game, &key, |key| {
            let moves = box_moves(config, game, key);
            let beads = config.beads_at_move(move_number);
            (moves, beads)
        });
        let (moves, beads) = (
            &self.boxes.moves[range.clone()],
            &self.boxes.beads[range.clone()],
        );
        let total: u64 = beads.iter().map(|&n| n as u64).sum();
        if total == 0 {
            return None;
        }
        let mut r = rng.random_range(0..total);
        let slot = beads
            .iter()
            .position(|&n| {
                if r < n as u64 {
                    true
                } else {
                    r -= n as u64;
                    false
                }
            })
            .expect("r < total");
        let action = game.transform_action(&key, moves[slot], game.inverse_symmetry(sym));
        self.history.push(Played {
            bead: range.start + slot,
            seat,
        });
        let place = legal.iter().position(|&a| a == action);
        Some(place.expect("a box move maps to a legal action"))
    }

    fn end_episode(&mut self, _game: &G, returns: &Returns, _plies: u32) {
        let mut last_of_seat = [None; MAX_PLAYERS];
        for (i, played) in self.history.iter().enumerate() {
            last_of_seat[played.seat] = Some(i);
        }
        for (i, played) in self.history.iter().enumerate() {
            if self.config.reinforce == Reinforce::LastMove && last_of_seat[played.seat] != Some(i)
            {
                continue;
            }
            let delta = self.config.reward(returns.result_for(played.seat));
            let beads = self.boxes.beads[played.bead];
            // Saturate: a bead count neither wraps nor drops below the floor.
            let after = (beads as i64 + delta as i64)
                .clamp(self.config.min_beads as i64, u32::MAX as i64)
                as u32;
            self.boxes.set_bead(played.bead, after);
        }
        self.history.clear();
    }

    fn policy(&self) -> Box<dyn Policy<G> + '_> {
        Box::new(MatchboxPolicy {
            learner: self,
            greedy: false,
        })
    }

    fn greedy_policy(&self) -> Box<dyn Policy<G> + '_> {
        Box::new(MatchboxPolicy {
            learner: self,
            greedy: true,
        })
    }

    fn play_probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        greedy: bool,
        probs: &mut Vec<f64>,
    ) -> bool {
        self.distribution(game, state, legal, probs, greedy);
        true
    }

    fn frozen_copy(&self) -> Option<Box<dyn Learner<G>>> {
        Some(Box::new(self.frozen()))
    }

    /// The boxes opened and the beads changed since the last refresh.
    fn refresh_copy(&mut self, game: &G, copy: &mut Box<dyn Learner<G>>) {
        let Some(to) = super::frozen::downcast::<G, Self>(copy) else {
            *copy = Box::new(self.frozen());
            return;
        };
        self.boxes.refresh_copy(game, &mut to.boxes);
    }

    fn position(&self, game: &G, state: &G::State, legal: &[Action], out: &mut Position) -> bool {
        self.distribution(game, state, legal, &mut out.behaviour, false);
        self.distribution(game, state, legal, &mut out.greedy, true);
        out.value = None;
        true
    }

    fn statistics(&self) -> Vec<(Metric, f64)> {
        let totals = || {
            self.boxes.ranges.iter().map(|&(start, len)| {
                self.boxes.beads[start as usize..(start + len) as usize]
                    .iter()
                    .map(|&n| n as u64)
                    .sum::<u64>()
            })
        };
        let empty = totals().filter(|&t| t == 0).count();
        let beads: u64 = totals().sum();
        vec![
            (
                Metric::of("boxes").role(Role::Column("boxes used")),
                self.boxes.keys.len() as f64,
            ),
            (Metric::of("empty_boxes"), empty as f64),
            (Metric::of("beads"), beads as f64),
        ]
    }
    /// `beads`: every opened box, in the order opened, by its position (canonical under the
    /// symmetries when the config says so) and its moves.
    fn snapshot(&self, _game: &G) -> Option<Snapshot<G>> {
        let rows = self
            .boxes()
            .map(|(key, b)| SavedRow {
                part: "beads".to_string(),
                state: key.clone(),
                actions: b.moves,
                values: b.beads.into_iter().map(f64::from).collect(),
            })
            .collect();
        Some(Snapshot {
            episodes: 0,
            rows,
            arrays: Vec::new(),
        })
    }

    fn restore(&mut self, game: &G, snapshot: Snapshot<G>) -> Result<(), String> {
        for row in snapshot.part("beads") {
            let moves = box_moves(&self.config, game, &row.state);
            if moves != row.actions || row.values.len() != moves.len() {
                return Err(format!(
                    "a box with moves {:?}, where the rules and the config give {:?}",
                    row.actions, moves
                ));
            }
            if row
                .values
                .iter()
                .any(|&n| !(0.0..=u32::MAX as f64).contains(&n) || n.fract() != 0.0)
            {
                return Err("a box holds a bead count that is not a count".to_string());
            }
            let range = self
                .boxes
                .find_or_open(game, &row.state, |_| (moves.clone(), 0));
            for (b, &n) in self.boxes.beads[range].iter_mut().zip(&row.values) {
                *b = n as u32;
            }
        }
        // Written without the record: a frozen copy is next made whole.
        self.boxes.changed = None;
        Ok(())
    }
}

/// A matchbox learner's play: bead draws (behaviour) or the moves with the most beads (greedy).
struct MatchboxPolicy<'a, G: Game> {
    learner: &'a Matchbox<G>,
    greedy: bool,
}

impl<G: Game> Policy<G> for MatchboxPolicy<'_, G> {
    fn name(&self) -> String {
        if self.greedy {
            format!("{} (greedy)", self.learner.name)
        } else {
            self.learner.name.clone()
        }
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.learner
            .distribution(game, state, legal, probs, self.greedy);
        true
    }
}

/// How many boxes a matchbox learner at `seat` needs to cover every position it can face in
/// the game (`symmetry`: images share a box), and how many of those offer a real choice (two
/// or more distinct moves).
pub fn count_boxes<G: Game>(graph: &StateGraph<G>, seat: Player, symmetry: bool) -> BoxCount {
    let game = graph.game();
    let probe: Matchbox<G> = Matchbox::new(
        "probe",
        MatchboxConfig {
            symmetry,
            ..MatchboxConfig::her()
        },
    );
    let mut seen = std::collections::HashSet::new();
    let mut count = BoxCount::default();
    for (id, state) in graph.states().iter().enumerate() {
        if graph.turn(id as u32) != Turn::Player(seat) {
            continue;
        }
        let (key, _) = probe.key(game, state);
        if seen.insert(key.clone()) {
            count.boxes += 1;
            if probe.box_moves(game, &key).len() >= 2 {
                count.with_choice += 1;
            }
        }
    }
    count
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BoxCount {
    pub boxes: usize,
    pub with_choice: usize,
}

/// The boxes of a hand-built matchbox machine in Gardner's manner: the positions `seat` can
/// face when, at every position that a board symmetry maps onto itself, only one move of each
/// class of equivalent moves is followed (White opens with the left or centre pawn only; Black
/// answers a symmetric position with one of each mirror pair), but positions that are images of
/// each other reached along different lines keep boxes of their own. For Hexapawn this gives
/// Gardner's 24 (2 + 11 + 11 by Black's move), where merging every image needs only 19.
pub fn count_boxes_gardner<G: Game>(game: &G, seat: Player) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut boxes = std::collections::HashSet::new();
    let mut stack = vec![game.initial_state()];
    let mut legal = Vec::new();
    while let Some(state) = stack.pop() {
        if !seen.insert(state.clone()) {
            continue;
        }
        let Turn::Player(p) = game.turn(&state) else {
            continue;
        };
        if p == seat {
            boxes.insert(state.clone());
        }
        let stabiliser: Vec<usize> = (1..game.num_symmetries())
            .filter(|&k| game.transform_state(&state, k) == state)
            .collect();
        game.legal_actions(&state, &mut legal);
        for &a in &legal {
            // Follow a move only if no symmetry fixing the position maps it to a smaller one.
            if stabiliser
                .iter()
                .all(|&k| game.transform_action(&state, a, k) >= a)
            {
                stack.push(game.apply(&state, a));
            }
        }
    }
    boxes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::random::rng;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};

    impl<G: Game> crate::learn::tests::Inspect<G> for Matchbox<G> {
        fn tables(&self) -> Vec<u64> {
            let mut out: Vec<u64> = self.boxes.beads.iter().map(|&n| n as u64).collect();
            out.extend(self.boxes.moves.iter().map(|&m| m as u64));
            out.extend(
                self.boxes
                    .ranges
                    .iter()
                    .flat_map(|&(s, n)| [s as u64, n as u64]),
            );
            out.extend(self.moves_made.iter().map(|&n| n as u64));
            out
        }
    }

    fn at<'a, G: Game>(state: &'a G::State, legal: &'a [Action]) -> Decision<'a, G> {
        Decision {
            state,
            seat: 0,
            legal,
            ply: 0,
        }
    }

    /// The action `learner` plays at `state` (`None`: it resigns).
    fn play<G: Game>(
        learner: &mut Matchbox<G>,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        learner.act(game, &at(state, legal), rng).map(|k| legal[k])
    }

    #[test]
    fn symmetric_moves_share_a_bead_colour() {
        let game = Hexapawn::new(HexapawnParams::default()).unwrap();
        let mut her: Matchbox<Hexapawn> = Matchbox::new("her", MatchboxConfig::her());
        // The start is mirror-symmetric: a1-a2 and c1-c2 are one colour, b1-b2 another.
        let s = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s, &mut legal);
        play(&mut her, &game, &s, &legal, &mut rng(1)).unwrap();
        let b = her.box_for(&game, &s).unwrap();
        assert_eq!(b.moves.len(), 2);
        assert_eq!(b.beads, [1, 1]);
        let mut probs = Vec::new();
        her.policy().probabilities(&game, &s, &legal, &mut probs);
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(probs.iter().filter(|&&p| p > 0.0).count(), 2);
    }

    #[test]
    fn her_confiscates_only_the_last_bead_after_a_loss_and_resigns_when_empty() {
        let game = TicTacToe;
        let cfg = MatchboxConfig {
            symmetry: false,
            ..MatchboxConfig::her()
        };
        let mut her: Matchbox<TicTacToe> = Matchbox::new("her", cfg);
        let mut r = rng(3);
        her.begin_episode();
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        let a0 = play(&mut her, &game, &s0, &legal, &mut r).unwrap();
        let s1 = game.apply(&game.apply(&s0, a0), if a0 == 4 { 0 } else { 4 });
        game.legal_actions(&s1, &mut legal);
        let a1 = play(&mut her, &game, &s1, &legal, &mut r).unwrap();
        her.end_episode(&game, &Returns::win(2, 1), 0);
        let first = her.box_for(&game, &s0).unwrap();
        assert_eq!(first.total(), 9, "the first move's bead stays");
        let second = her.box_for(&game, &s1).unwrap();
        assert_eq!(second.total(), 6, "the last move's bead is confiscated");
        let i = second.moves.iter().position(|&m| m == a1).unwrap();
        assert_eq!(second.beads[i], 0);
        // A win changes nothing.
        her.begin_episode();
        game.legal_actions(&s0, &mut legal);
        play(&mut her, &game, &s0, &legal, &mut r).unwrap();
        her.end_episode(&game, &Returns::win(2, 0), 0);
        assert_eq!(her.box_for(&game, &s0).unwrap().total(), 9);
    }

    #[test]
    fn bead_counts_saturate_instead_of_wrapping() {
        let game = TicTacToe;
        let cfg = MatchboxConfig {
            win_beads: i32::MAX,
            ..MatchboxConfig::menace()
        };
        let mut m: Matchbox<TicTacToe> = Matchbox::new("m", cfg);
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        let mut r = rng(2);
        for _ in 0..6 {
            m.begin_episode();
            play(&mut m, &game, &s0, &legal, &mut r).unwrap();
            m.end_episode(&game, &Returns::win(2, 0), 0);
        }
        let b = m.box_for(&game, &s0).unwrap();
        assert!(b.beads.iter().all(|&n| n >= 4), "{b:?}");
        assert!(b.beads.contains(&u32::MAX), "{b:?}");
    }

    #[test]
    fn resigning_confiscates_the_previous_moves_bead() {
        // HER without symmetry as X: after it resigns from an empty box, the bead of the move
        // that led there goes.
        let game = TicTacToe;
        let cfg = MatchboxConfig {
            symmetry: false,
            ..MatchboxConfig::her()
        };
        let mut her: Matchbox<TicTacToe> = Matchbox::new("her", cfg);
        let mut r = rng(4);
        let mut legal = Vec::new();
        let s0 = game.initial_state();
        // Empty the box after one particular reply, by losing from it once per bead.
        game.legal_actions(&s0, &mut legal);
        let first = play(&mut her, &game, &s0, &legal, &mut r).unwrap();
        her.end_episode(&game, &Returns::zeros(2), 0);
        let s1 = game.apply(&game.apply(&s0, first), if first == 4 { 0 } else { 4 });
        game.legal_actions(&s1, &mut legal);
        for _ in 0..legal.len() {
            her.begin_episode();
            play(&mut her, &game, &s1, &legal, &mut r).unwrap();
            her.end_episode(&game, &Returns::win(2, 1), 0);
        }
        assert_eq!(her.box_for(&game, &s1).unwrap().total(), 0);
        // Now a game: the first move (drawn from the full first box), then the empty box.
        let before = her.box_for(&game, &s0).unwrap().total();
        her.begin_episode();
        game.legal_actions(&s0, &mut legal);
        let a = loop {
            let a = play(&mut her, &game, &s0, &legal, &mut r).unwrap();
            if a == first {
                break a;
            }
            her.begin_episode();
        };
        game.legal_actions(&s1, &mut legal);
        assert_eq!(
            play(&mut her, &game, &s1, &legal, &mut r),
            None,
            "empty box: resign"
        );
        her.end_episode(&game, &Returns::loss(2, 0), 0);
        let b = her.box_for(&game, &s0).unwrap();
        assert_eq!(b.total(), before - 1);
        assert_eq!(b.beads[b.moves.iter().position(|&m| m == a).unwrap()], 0);
    }

    #[test]
    fn empty_box_resigns() {
        let game = TicTacToe;
        let mut her: Matchbox<TicTacToe> = Matchbox::new("her", MatchboxConfig::her());
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        let mut r = rng(1);
        // Three distinct first moves up to symmetry (corner, edge, centre): lose each once.
        for _ in 0..3 {
            her.begin_episode();
            play(&mut her, &game, &s0, &legal, &mut r).unwrap();
            her.end_episode(&game, &Returns::win(2, 1), 0);
        }
        her.begin_episode();
        assert_eq!(play(&mut her, &game, &s0, &legal, &mut r), None);
        let mut probs = Vec::new();
        her.policy().probabilities(&game, &s0, &legal, &mut probs);
        assert!(probs.iter().all(|&p| p == 0.0));
    }

    #[test]
    fn menace_rewards_every_move_and_never_empties() {
        let game = TicTacToe;
        let mut menace: Matchbox<TicTacToe> = Matchbox::new("menace", MatchboxConfig::menace());
        let mut r = rng(9);
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        menace.begin_episode();
        let a = play(&mut menace, &game, &s0, &legal, &mut r).unwrap();
        let b0 = menace.box_for(&game, &s0).unwrap().clone();
        assert_eq!(
            b0.beads,
            [4, 4, 4],
            "corner, edge, centre: 4 beads each at move 1"
        );
        let s1 = game.apply(&game.apply(&s0, a), if a == 4 { 0 } else { 4 });
        game.legal_actions(&s1, &mut legal);
        play(&mut menace, &game, &s1, &legal, &mut r).unwrap();
        assert!(
            menace
                .box_for(&game, &s1)
                .unwrap()
                .beads
                .iter()
                .all(|&n| n == 3)
        );
        menace.end_episode(&game, &Returns::win(2, 0), 0);
        assert_eq!(menace.box_for(&game, &s0).unwrap().total(), 12 + 3);
        for _ in 0..10 {
            menace.begin_episode();
            game.legal_actions(&s0, &mut legal);
            play(&mut menace, &game, &s0, &legal, &mut r).unwrap();
            menace.end_episode(&game, &Returns::win(2, 1), 0);
        }
        assert!(
            menace
                .box_for(&game, &s0)
                .unwrap()
                .beads
                .iter()
                .all(|&n| n >= 1)
        );
    }

    #[test]
    fn gardners_24_boxes_come_out_of_his_convention() {
        let game = Hexapawn::new(HexapawnParams::default()).unwrap();
        let graph = StateGraph::build(&game, 1 << 20).unwrap();
        assert_eq!(count_boxes_gardner(&game, 1), 24);
        assert_eq!(count_boxes(&graph, 1, true).boxes, 19);
        assert_eq!(count_boxes(&graph, 1, false).boxes, 37);
    }

    #[test]
    fn box_counts_with_and_without_symmetry() {
        let game = TicTacToe;
        let graph = StateGraph::build(&game, 1 << 20).unwrap();
        // Positions with X (the first player) to move: 2,423 in all, 338 up to symmetry.
        let raw = count_boxes(&graph, 0, false);
        let sym = count_boxes(&graph, 0, true);
        assert_eq!(raw.boxes, 2423);
        assert_eq!(sym.boxes, 338);
    }
}
