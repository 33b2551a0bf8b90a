//! N-tuple networks (Lucas 2008; Szubert & Jaśkowski 2014): `v̂(x) = squash(Σ_s Σ_t w_t[the
//! contents of tuple t's cells in the s-th symmetric image of x])`, each tuple a few board cells
//! whose joint content indexes its own table of weights, the weights shared by the board's
//! symmetric images.
//!
//! The board is the game's ([`Game::board_cells`], read by [`Game::cell_values`] as the mover
//! sees the position); a game without one is read from its observation, each number a cell
//! holding 0 or 1 (above 0.5), on one row. Tuples are random walks of neighbouring cells (a
//! king's step) drawn with `tuple_seed`, as Szubert & Jaśkowski draw theirs. The symmetries are
//! the game's ([`Game::transform_state`]), as permutations of the cells found from positions of
//! seeded random play: a symmetry that no permutation of the cells explains is left out.
//!
//! Weights are `f32` (half the memory traffic of `f64` in the random lookups that dominate), all
//! 0 at the start; indices `u32`. Reading the afterstates of one decision, the learner starts
//! from the indices of the position before the move and changes only the tuples that hold a
//! changed cell (a table from each cell to its tuples and place value).

use serde::{Deserialize, Serialize};

use super::{Approximator, FeatureTd, Output, Target, TdSettings};
use crate::core::game::{Game, Player, Turn};
use crate::core::random::{SgRng, rng};
use crate::learn::schedule::{Schedule, checked};
use crate::learn::{Learner, LearnerSpec, NoNote};

/// `kind = "ntuple"` in a config; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NTupleConfig {
    /// Tuples in the network (1 to 256).
    #[serde(deserialize_with = "checked_tuples")]
    pub tuples: usize,
    /// Cells per tuple (1 to 8; fewer where the board has fewer cells, or where `values^length`
    /// would pass 2^24 weights per tuple).
    #[serde(deserialize_with = "checked_length")]
    pub length: usize,
    /// The seed of the random walks that draw the tuples.
    pub tuple_seed: u64,
    /// Share weights across the board's symmetric images.
    pub symmetry: bool,
    /// `tanh` or `linear`.
    pub output: Output,
    /// Trace decay λ (0: TD(0); 1: Monte-Carlo).
    #[serde(deserialize_with = "checked::trace_decay")]
    pub lambda: f64,
    /// Step size α of the value by episode (each of the m weights a position reads moves by
    /// α/m of the error).
    #[serde(deserialize_with = "checked::step_size_schedule")]
    pub alpha: Schedule,
    /// Exploration rate ε by episode.
    #[serde(deserialize_with = "checked::probability_schedule")]
    pub epsilon: Schedule,
    /// Discount per ply.
    #[serde(deserialize_with = "checked::discount")]
    pub gamma: f64,
    /// Traces smaller than this are dropped (0: keep all).
    #[serde(deserialize_with = "super::linear::checked_cutoff")]
    pub trace_cutoff: f64,
    /// What an afterstate's value moves toward: `played` (TD(λ)) or `greedy` (Q-learning,
    /// Watkins's Q(λ)).
    #[serde(skip_serializing_if = "Target::is_played")]
    pub target: Target,
}

impl Default for NTupleConfig {
    fn default() -> Self {
        NTupleConfig {
            tuples: 12,
            length: 4,
            tuple_seed: 0,
            symmetry: true,
            output: Output::Tanh,
            lambda: 0.5,
            alpha: Schedule::Constant(0.1),
            epsilon: Schedule::Constant(0.1),
            gamma: 1.0,
            trace_cutoff: 0.001,
            target: Target::Played,
        }
    }
}

fn count_in<'de, D: serde::Deserializer<'de>>(
    d: D,
    range: std::ops::RangeInclusive<usize>,
    what: &str,
) -> Result<usize, D::Error> {
    let v = u64::deserialize(d)?;
    if range.contains(&(v as usize)) {
        Ok(v as usize)
    } else {
        Err(serde::de::Error::custom(format!(
            "{v} is not {what} ({} to {})",
            range.start(),
            range.end()
        )))
    }
}

fn checked_tuples<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    count_in(d, 1..=256, "a number of tuples")
}

fn checked_length<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    count_in(d, 1..=8, "a tuple length")
}

impl NTupleConfig {
    pub fn settings(&self) -> TdSettings {
        TdSettings {
            lambda: self.lambda,
            alpha: self.alpha,
            epsilon: self.epsilon,
            gamma: self.gamma,
            trace_cutoff: self.trace_cutoff,
            target: self.target,
        }
    }
}

impl LearnerSpec for NTupleConfig {
    type Note = NoNote;
    const KIND: &'static str = "ntuple";
    const KEYS: &'static str = "tuples, length, tuple_seed, symmetry, output = \"tanh\" | \"linear\", lambda, alpha, epsilon, gamma, trace_cutoff, target = \"played\" | \"greedy\" (n-tuple network, TD(λ) or Q-learning on afterstates)";
    /// The cells read, then each tuple's cells in each symmetry.
    fn move_cost<G: Game>(&self, game: &G) -> u64 {
        let symmetries = if self.symmetry {
            game.num_symmetries()
        } else {
            1
        } as u64;
        let cells = game.board_cells().map_or(0, |c| c.squares.len() as u64);
        cells.saturating_add(
            (self.tuples as u64)
                .saturating_mul(self.length as u64)
                .saturating_mul(symmetries),
        )
    }
    fn default_label(&self) -> String {
        format!(
            "n-tuple {}x{} {}({})",
            self.tuples,
            self.length,
            self.target.method(),
            self.lambda
        )
    }
    fn build<G: Game>(&self, game: &G, label: String) -> Box<dyn Learner<G>> {
        Box::new(FeatureTd::new(
            game,
            label,
            self.settings(),
            NTuple::new(game, self),
        ))
    }
}

/// A cell reader: the game's board cells, or its observation read as cells of 0 and 1.
#[derive(Clone, Debug)]
struct Cells {
    count: usize,
    values: u8,
    from_board: bool,
    squares: Vec<(usize, usize)>,
}

impl Cells {
    fn of<G: Game>(game: &G) -> Self {
        match game.board_cells() {
            Some(b) => Cells {
                count: b.squares.len(),
                values: b.values.max(1),
                from_board: true,
                squares: b.squares,
            },
            None => {
                let n = game.observation_len();
                Cells {
                    count: n,
                    values: 2,
                    from_board: false,
                    squares: (0..n).map(|i| (0, i)).collect(),
                }
            }
        }
    }

    #[inline]
    fn read<G: Game>(
        &self,
        game: &G,
        state: &G::State,
        player: Player,
        out: &mut Vec<u8>,
        obs: &mut Vec<f32>,
    ) {
        out.resize(self.count, 0);
        if self.from_board {
            // Contents are below `values` (checked for every game by the environment checker).
            game.cell_values(state, player, out);
        } else {
            obs.resize(self.count, 0.0);
            game.observe(state, player, obs);
            for (v, &o) in out.iter_mut().zip(obs.iter()) {
                *v = (o > 0.5) as u8;
            }
        }
    }
}

/// The board's symmetries as permutations `σ` of the cells, `cells(T_s x)[c] = cells(x)[σ(c)]`,
/// found from positions of seeded random play (the identity first). A symmetry no permutation
/// explains is left out.
fn cell_symmetries<G: Game>(game: &G, cells: &Cells) -> Vec<Vec<u32>> {
    let n = cells.count;
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut out = vec![identity];
    if game.num_symmetries() <= 1 || n == 0 {
        return out;
    }
    let probes = probe_positions(game);
    let (mut a, mut b, mut obs) = (Vec::new(), Vec::new(), Vec::new());
    for sym in 1..game.num_symmetries() {
        // possible[c * n + d]: cell c of the image may be cell d of the position.
        let mut possible = vec![true; n * n];
        for x in &probes {
            let image = game.transform_state(x, sym);
            for p in 0..game.num_players() {
                cells.read(game, x, p, &mut a, &mut obs);
                cells.read(game, &image, p, &mut b, &mut obs);
                for c in 0..n {
                    for d in 0..n {
                        if b[c] != a[d] {
                            possible[c * n + d] = false;
                        }
                    }
                }
            }
        }
        // Cells with one candidate first; a cell that never changed takes the first one free.
        let mut sigma = vec![u32::MAX; n];
        let mut used = vec![false; n];
        let mut ok = true;
        for pass in 0..2 {
            for c in 0..n {
                if sigma[c] != u32::MAX {
                    continue;
                }
                let candidates: Vec<usize> = (0..n).filter(|&d| possible[c * n + d]).collect();
                if pass == 0 && candidates.len() != 1 {
                    continue;
                }
                match candidates.into_iter().find(|&d| !used[d]) {
                    Some(d) => {
                        sigma[c] = d as u32;
                        used[d] = true;
                    }
                    None => ok = false,
                }
            }
        }
        if ok {
            out.push(sigma);
        }
    }
    out
}

/// Positions of seeded random play from the start, up to 2,000.
fn probe_positions<G: Game>(game: &G) -> Vec<G::State> {
    use rand::RngExt;
    let mut r: SgRng = rng(0x5eed_ce11);
    let (mut out, mut legal, mut outcomes) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..100 {
        let mut s = game.initial_state();
        for _ in 0..400 {
            if out.len() >= 2_000 {
                return out;
            }
            out.push(s.clone());
            s = match game.turn(&s) {
                Turn::Terminal => break,
                Turn::Player(_) => {
                    game.legal_actions(&s, &mut legal);
                    if legal.is_empty() {
                        break;
                    }
                    game.apply(&s, legal[r.random_range(0..legal.len())])
                }
                Turn::Chance => {
                    game.chance_outcomes(&s, &mut outcomes);
                    if outcomes.is_empty() {
                        break;
                    }
                    game.apply(&s, outcomes[r.random_range(0..outcomes.len())].0)
                }
            };
        }
    }
    out
}

/// Random walks of `length` neighbouring cells (a king's step), drawn with `seed`.
fn random_walks(
    squares: &[(usize, usize)],
    tuples: usize,
    length: usize,
    seed: u64,
) -> Vec<Vec<u32>> {
    use rand::RngExt;
    let n = squares.len();
    let near = |a: usize, b: usize| {
        let ((r1, c1), (r2, c2)) = (squares[a], squares[b]);
        a != b && r1.abs_diff(r2) <= 1 && c1.abs_diff(c2) <= 1
    };
    let mut r: SgRng = rng(seed);
    let mut out = Vec::with_capacity(tuples);
    for _ in 0..tuples {
        let mut tuple = vec![r.random_range(0..n)];
        while tuple.len() < length {
            let last = tuple[tuple.len() - 1];
            let mut candidates: Vec<usize> = (0..n)
                .filter(|&d| near(last, d) && !tuple.contains(&d))
                .collect();
            if candidates.is_empty() {
                candidates = (0..n)
                    .filter(|&d| !tuple.contains(&d) && tuple.iter().any(|&t| near(t, d)))
                    .collect();
            }
            if candidates.is_empty() {
                candidates = (0..n).filter(|d| !tuple.contains(d)).collect();
            }
            tuple.push(candidates[r.random_range(0..candidates.len())]);
        }
        out.push(tuple.into_iter().map(|c| c as u32).collect());
    }
    out
}

/// An n-tuple network over a game's board cells.
#[derive(Clone, Debug)]
pub struct NTuple {
    cells: Cells,
    output: Output,
    /// The tuples' cells, as drawn.
    tuples: Vec<Vec<u32>>,
    /// Symmetries used (the identity included).
    symmetries: usize,
    /// Cells per tuple.
    length: usize,
    /// For each (symmetry, tuple) slot: the cells it reads, `length` each.
    slot_cells: Vec<u32>,
    /// For each slot: where its tuple's weights start.
    slot_offset: Vec<u32>,
    /// For each cell: its (slot, place value) pairs, from `cell_start[c]` to `cell_start[c + 1]`.
    cell_start: Vec<u32>,
    cell_slots: Vec<(u32, u32)>,
    weights: Vec<f32>,
}

/// A decision's base: the cells and indices of the position before the move.
#[derive(Clone, Debug, Default)]
pub struct NTupleBase {
    cells: Vec<u8>,
    indices: Vec<u32>,
    after: Vec<u8>,
    obs: Vec<f32>,
}

impl NTuple {
    pub fn new<G: Game>(game: &G, config: &NTupleConfig) -> Self {
        let cells = Cells::of(game);
        let values = cells.values as u64;
        let mut length = config.length.min(cells.count).max(1);
        while length > 1 && values.pow(length as u32) > 1 << 24 {
            length -= 1;
        }
        let tuples = if cells.count == 0 {
            Vec::new()
        } else {
            random_walks(&cells.squares, config.tuples, length, config.tuple_seed)
        };
        let syms = if config.symmetry {
            cell_symmetries(game, &cells)
        } else {
            vec![(0..cells.count as u32).collect()]
        };
        let per_tuple = values.pow(length as u32) as u32;
        let mut slot_cells = Vec::new();
        let mut slot_offset = Vec::new();
        let mut by_cell: Vec<Vec<(u32, u32)>> = vec![Vec::new(); cells.count];
        for sigma in &syms {
            for (t, tuple) in tuples.iter().enumerate() {
                let slot = slot_offset.len() as u32;
                slot_offset.push(t as u32 * per_tuple);
                let mut place = 1u32;
                for &c in tuple {
                    let cell = sigma[c as usize];
                    slot_cells.push(cell);
                    by_cell[cell as usize].push((slot, place));
                    place *= values as u32;
                }
            }
        }
        let mut cell_start = vec![0u32];
        let mut cell_slots = Vec::new();
        for list in by_cell {
            cell_slots.extend(list);
            cell_start.push(cell_slots.len() as u32);
        }
        NTuple {
            weights: vec![0.0; tuples.len() * per_tuple as usize],
            output: config.output,
            symmetries: syms.len(),
            length,
            tuples,
            cells,
            slot_cells,
            slot_offset,
            cell_start,
            cell_slots,
        }
    }

    /// The tuples' cells, as drawn.
    pub fn tuples(&self) -> &[Vec<u32>] {
        &self.tuples
    }

    /// The symmetries the weights are shared across (1: none).
    pub fn symmetries(&self) -> usize {
        self.symmetries
    }

    /// The indices of every slot's weight for the position whose cells are `cells`.
    #[inline]
    fn indices(&self, cells: &[u8], x: &mut Vec<u32>) {
        x.clear();
        let values = self.cells.values as u32;
        for (slot, &offset) in self.slot_offset.iter().enumerate() {
            let mut index = 0u32;
            let mut place = 1u32;
            for &c in &self.slot_cells[slot * self.length..(slot + 1) * self.length] {
                index += cells[c as usize] as u32 * place;
                place *= values;
            }
            x.push(offset + index);
        }
    }

    #[inline]
    fn sum(&self, x: &[u32]) -> f32 {
        x.iter().map(|&i| self.weights[i as usize]).sum()
    }
}

impl<G: Game> Approximator<G> for NTuple {
    type Input = Vec<u32>;
    type Base = NTupleBase;

    fn encode(&self, game: &G, state: &G::State, player: Player, x: &mut Vec<u32>) {
        let (mut cells, mut obs) = (Vec::new(), Vec::new());
        self.cells.read(game, state, player, &mut cells, &mut obs);
        self.indices(&cells, x);
    }

    fn prepare(&self, game: &G, state: &G::State, player: Player, base: &mut NTupleBase) {
        self.cells
            .read(game, state, player, &mut base.cells, &mut base.obs);
        let mut indices = std::mem::take(&mut base.indices);
        self.indices(&base.cells, &mut indices);
        base.indices = indices;
    }

    #[inline]
    fn encode_after(
        &self,
        game: &G,
        after: &G::State,
        player: Player,
        base: &mut NTupleBase,
        x: &mut Vec<u32>,
    ) {
        self.cells
            .read(game, after, player, &mut base.after, &mut base.obs);
        x.clear();
        x.extend_from_slice(&base.indices);
        for (c, (&new, &old)) in base.after.iter().zip(&base.cells).enumerate() {
            if new != old {
                let change = (new as u32).wrapping_sub(old as u32);
                let (from, to) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
                for &(slot, place) in &self.cell_slots[from..to] {
                    let i = &mut x[slot as usize];
                    *i = i.wrapping_add(change.wrapping_mul(place));
                }
            }
        }
    }

    #[inline]
    fn sum(&self, x: &Vec<u32>) -> f32 {
        NTuple::sum(self, x)
    }

    fn output(&self) -> Output {
        self.output
    }

    fn value_and_gradient(&self, x: &Vec<u32>, grad: &mut Vec<(u32, f32)>) -> f32 {
        let (v, d) = self.output.squash(self.sum(x));
        grad.clear();
        grad.extend(x.iter().map(|&i| (i, d)));
        v
    }

    fn params(&self) -> &[f32] {
        &self.weights
    }

    fn params_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }

    fn sparse_gradient(&self) -> bool {
        true
    }

    fn step_divisor(&self) -> f32 {
        self.slot_offset.len().max(1) as f32
    }
}
