//! The chase games' fast exact solver: retrograde analysis by pawn-progress layers.
//!
//! Pawns only advance, so the progress `P = sum of the pawns' rows` never decreases: a runner
//! move keeps it, a pawn move adds one. Positions fall into layers `F_P` (runner to move) and
//! `H_P` (pawns to move), with edges `F_P -> H_P -> F_{P+1}`. The solver
//!
//! 1. numbers the pawn sets layer by layer (a table from the sets' colex rank), so a position
//!    is the dense index `D = set_index * squares + runner`, and each layer is one contiguous
//!    range of `D`;
//! 2. sweeps forward layer by layer, marking reachable positions in one bit per `D` (rayon
//!    threads set bits atomically); terminal positions are marked, never expanded;
//! 3. gives every reachable position a compact id (its rank among the set bits, read off a
//!    popcount directory), so per-position tables hold only reachable positions;
//! 4. sweeps backward layer by layer, in parallel within a layer, computing each position's
//!    value (winner and plies, the winner hurrying, the loser holding out) from its children,
//!    the exact number of games and of runner wins (kept only for the two layers in flight),
//!    and on request the FoxBox and maximum-FoxBox values of gilith/solve's strategy.
//!
//! Memory ([`Footprint`], checked against the budget before it is allocated): 12 bytes per
//! pawn set for the index, one bit per dense index and side with a directory a quarter its size,
//! 2 bytes per reachable position for values (5 with FoxBox tables), and one buffer per side as
//! long as its widest layer, 2 bytes a cell (66 with 256-bit game counts). The generic solver
//! ([`crate::truth`]) gives the same values on every position; tests compare the two.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

mod count;
mod index;

use self::count::Count;
use self::index::{Bits, CHUNK_BITS, PawnSets, chunks, for_ones, for_ones_with, split_lengths};
use super::{Chase, ChaseState, Kind, NONE, PAWNS, RUNNER};
use crate::core::game::{Game, Player};
use crate::truth::{GameCount, SolveReport, Value};

/// A FoxBox value: how fast the hounds can force a position that they win and that is a
/// FoxBox (`In(k)` plies), or `Never`. Ordered `In(0) < In(1) < … < Never`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Event {
    In(u8),
    Never,
}

impl Event {
    fn from_code(c: u8) -> Event {
        if c == u8::MAX {
            Event::Never
        } else {
            Event::In(c)
        }
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::In(k) => write!(f, "In {k}"),
            Event::Never => write!(f, "Never"),
        }
    }
}

/// `maxFoxBox`: the largest FoxBox value the fox can force along the play, reached after
/// `plies` plies (the fox maximises, the hounds minimise; a larger value is better, then fewer
/// plies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaxFoxBox {
    pub value: Event,
    pub plies: u8,
}

impl MaxFoxBox {
    fn from_code(c: u16) -> MaxFoxBox {
        MaxFoxBox {
            value: Event::from_code((c >> 8) as u8),
            plies: 255 - (c & 0xff) as u8,
        }
    }
    /// An order key: larger is better for the fox.
    pub fn key(self) -> u16 {
        let v = match self.value {
            Event::In(k) => k,
            Event::Never => u8::MAX,
        };
        (v as u16) << 8 | (255 - self.plies) as u16
    }
}

impl std::fmt::Display for MaxFoxBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.value {
            Event::In(k) => write!(f, "Max (In {k}) {}", self.plies),
            Event::Never => write!(f, "Max Never {}", self.plies),
        }
    }
}

/// What to compute besides values.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastOptions {
    /// FoxBox and maximum-FoxBox tables.
    pub foxbox: bool,
    /// Exact game counts (disable to save memory on huge boards).
    pub no_counts: bool,
    /// Keep per-position values for later lookups (disable on huge boards: only the start's
    /// value and the counts are reported).
    pub no_tables: bool,
}

/// Progress of a long solve: (phase, layers done, layers in all).
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Game counts of one position, kept while its layer is in flight.
#[derive(Clone, Copy, Default)]
struct Counts<C> {
    games: C,
    runner_wins: C,
}

/// The exact solution of a chase game by pawn-progress layers.
pub struct FastSolution {
    chase: Chase,
    sets: PawnSets,
    /// Reachable positions, by side to move.
    reach: [Bits; 2],
    /// Value codes by compact id (bit 15: the pawns win; low bits: plies), if kept.
    values: [Vec<u16>; 2],
    foxbox: [Vec<u8>; 2],
    max_foxbox: [Vec<u16>; 2],
    start_value: Value,
    start_foxbox: Option<(Event, MaxFoxBox)>,
    terminal: u64,
    winning: [u64; 2],
    games: Option<(GameCount, GameCount)>,
    seconds: f64,
    /// The memory the solve was estimated to need at its peak, and checked against.
    footprint: Footprint,
}

#[inline]
fn encode(winner: Player, plies: u32) -> u16 {
    ((winner as u16) << 15) | plies as u16
}

#[inline]
fn decode(code: u16) -> Value {
    Value::Win {
        winner: (code >> 15) as Player,
        plies: (code & 0x7fff) as u32,
    }
}

/// The mover's preference for a child's value code: larger is better.
#[inline]
fn preference(code: u16, mover: u8) -> u32 {
    let plies = (code & 0x7fff) as u32;
    if (code >> 15) as u8 == mover {
        (1 << 20) - plies
    } else {
        plies
    }
}

/// Everything the backward sweep computes for one position.
#[derive(Clone, Copy, Default)]
struct Cell<C> {
    value: u16,
    foxbox: u8,
    max_foxbox: u16,
    counts: Counts<C>,
    terminal: bool,
}

/// The memory of a solve at its peak (the backward sweep), in bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Footprint {
    /// Allocated before the reachable positions are known: the index of positions, the
    /// reachability bitsets and their directories, and the runtime's own ([`runtime_bytes`]).
    fixed: u64,
    /// Per-position tables (values, FoxBox) kept for lookups.
    tables: u64,
    /// The cells of the layers in flight.
    in_flight: u64,
    /// The lists of work units of one layer.
    work: u64,
}

impl Footprint {
    fn peak(&self) -> u64 {
        self.fixed
            .saturating_add(self.tables)
            .saturating_add(self.in_flight)
            .saturating_add(self.work)
    }
}

/// Bytes per work unit of a layer in its lists: its range, its length, its slices of the
/// layer's cells and its result.
const WORK_BYTES_PER_CHUNK: u64 = 16 + 8 + 4 * 16 + 32;

/// What running takes beyond the solver's own buffers: 16 MiB, and for each thread of the pool
/// its allocator's arena (glibc reserves 64 MiB of address space for one, which `ulimit -v`
/// counts) and its stack.
fn runtime_bytes() -> u64 {
    (16 << 20) + rayon::current_num_threads() as u64 * (66 << 20)
}

/// The cells of one layer and side in flight, by compact id less the layer's first; a struct
/// of arrays, so that what is not computed takes no room: 2 bytes a position without counts
/// and FoxBox values.
struct LayerCells<C> {
    value: Vec<u16>,
    /// Empty unless FoxBox values are computed.
    foxbox: Vec<u8>,
    max_foxbox: Vec<u16>,
    /// Takes no room when counts are off (`C = ()`).
    counts: Vec<Counts<C>>,
}

/// A work unit's part of a [`LayerCells`].
struct CellsPiece<'a, C> {
    value: &'a mut [u16],
    foxbox: &'a mut [u8],
    max_foxbox: &'a mut [u16],
    counts: &'a mut [Counts<C>],
}

impl<C: Count> LayerCells<C> {
    fn bytes_per_cell(foxbox: bool) -> u64 {
        2 + if foxbox { 3 } else { 0 } + std::mem::size_of::<Counts<C>>() as u64
    }

    /// Room for `len` cells, allocated once at its full length.
    fn new(len: usize, foxbox: bool) -> LayerCells<C> {
        let fb = if foxbox { len } else { 0 };
        LayerCells {
            value: vec![0; len],
            foxbox: vec![0; fb],
            max_foxbox: vec![0; fb],
            counts: vec![Counts::default(); len],
        }
    }

    #[inline]
    fn get(&self, i: usize) -> Cell<C> {
        Cell {
            value: self.value[i],
            foxbox: self.foxbox.get(i).copied().unwrap_or(0),
            max_foxbox: self.max_foxbox.get(i).copied().unwrap_or(0),
            counts: self.counts[i],
            terminal: false,
        }
    }

    /// The first `len` cells cut into consecutive pieces of the given lengths.
    fn pieces(&mut self, len: usize, lengths: &[usize]) -> Vec<CellsPiece<'_, C>> {
        let fb = if self.foxbox.is_empty() { 0 } else { len };
        let none = vec![0; lengths.len()];
        let fb_lengths = if fb == 0 { &none[..] } else { lengths };
        split_lengths(&mut self.value[..len], lengths)
            .into_iter()
            .zip(split_lengths(&mut self.foxbox[..fb], fb_lengths))
            .zip(split_lengths(&mut self.max_foxbox[..fb], fb_lengths))
            .zip(split_lengths(&mut self.counts[..len], lengths))
            .map(|(((value, foxbox), max_foxbox), counts)| CellsPiece {
                value,
                foxbox,
                max_foxbox,
                counts,
            })
            .collect()
    }
}

impl<C: Count> CellsPiece<'_, C> {
    #[inline]
    fn set(&mut self, i: usize, cell: &Cell<C>) {
        self.value[i] = cell.value;
        if !self.foxbox.is_empty() {
            self.foxbox[i] = cell.foxbox;
            self.max_foxbox[i] = cell.max_foxbox;
        }
        self.counts[i] = cell.counts;
    }
}

impl FastSolution {
    /// Solves `chase` (any board the dense index fits: up to 2^63 entries).
    pub fn solve(
        chase: &Chase,
        options: FastOptions,
        progress: Option<Progress>,
    ) -> Result<FastSolution, crate::truth::SolveError> {
        // Run on a pool thread: small layers then stay on it instead of being handed over.
        rayon::scope(|_| {
            if options.no_counts {
                Self::solve_on_pool::<()>(chase, options, progress)
            } else if chase.geometry().size <= 8 {
                Self::solve_narrow_first::<u128>(chase, options, progress)
            } else {
                Self::solve_on_pool::<GameCount>(chase, options, progress)
            }
        })
    }

    /// Solves with narrow counters `N` (less memory traffic); a board whose counts overflow
    /// them is solved again with wide ones.
    fn solve_narrow_first<N: Count>(
        chase: &Chase,
        options: FastOptions,
        progress: Option<Progress>,
    ) -> Result<FastSolution, crate::truth::SolveError> {
        Self::solve_on_pool::<N>(chase, options, progress).or_else(|e| match e {
            crate::truth::SolveError::CountOverflow => {
                Self::solve_on_pool::<GameCount>(chase, options, progress)
            }
            e => Err(e),
        })
    }

    fn solve_on_pool<C: Count>(
        chase: &Chase,
        options: FastOptions,
        progress: Option<Progress>,
    ) -> Result<FastSolution, crate::truth::SolveError> {
        let started = Instant::now();
        let geo = chase.geometry();
        let s = geo.squares as u64;
        let budget = crate::io::memory::Budget::now();
        // What is allocated whatever the board's reachable positions turn out to be, before
        // it is: the index of positions, the two reachability bitsets and their directories.
        let total = super::binomial(s, geo.pawn_count as u64);
        let fixed = total.and_then(|t| {
            let words = t.checked_mul(s)?.div_ceil(64);
            let bitsets = words
                .checked_mul(8)?
                .checked_add(Bits::directory_bytes(words))?
                .checked_mul(2)?;
            t.checked_mul(PawnSets::BYTES_PER_SET)?
                .checked_add(bitsets)?
                .checked_add(runtime_bytes())
        });
        budget.check(
            || {
                format!(
                    "{}'s index of positions and reachability bitsets",
                    board_name(chase)
                )
            },
            fixed.unwrap_or(u64::MAX),
        )?;
        let fixed = fixed.unwrap_or(u64::MAX);
        if total.is_none_or(|t| t > u64::from(u32::MAX)) {
            return Err(crate::truth::SolveError::Unsolvable {
                game: chase.name(),
                why: format!(
                    "{} has {} sets of pawns, more than the 2^32 the layered solver numbers",
                    board_name(chase),
                    total.map_or("over 2^64".to_string(), |t| crate::io::text::group(
                        &t.to_string()
                    )),
                ),
            });
        }
        let sets = PawnSets::new(chase);
        let layers = sets.layers();
        let n = sets.len() as u64 * s;
        let words = n.div_ceil(64) as usize;
        let atomic =
            |len: usize| -> Vec<AtomicU64> { (0..len).map(|_| AtomicU64::new(0)).collect() };
        let marks = [atomic(words), atomic(words)];
        let layer_range = |p: usize| (sets.offsets[p] as u64 * s)..(sets.offsets[p + 1] as u64 * s);
        let start = chase.initial_state();
        let start_d = sets.index(start.pawns) as u64 * s + start.runner as u64;
        marks[0][(start_d >> 6) as usize].fetch_or(1 << (start_d & 63), Ordering::Relaxed);

        // Forward: F_P -> H_P, then H_P -> F_{P+1}. The layer read is complete before it is
        // read (rayon joins between steps); writes go to the other side's bitset.
        for p in 0..layers {
            if let Some(report) = progress {
                report("enumerating", p, layers);
            }
            for side in [RUNNER as u8, PAWNS as u8] {
                let from = &marks[side as usize];
                let to = &marks[1 - side as usize];
                chunks(layer_range(p))
                    .into_par_iter()
                    .with_min_len(4)
                    .for_each(|range| {
                        let mut expander = Expander::new(chase, &sets);
                        for_ones_with(
                            |w| from[w].load(Ordering::Relaxed),
                            range,
                            |d| {
                                let Ok(children) = expander.expand(d, side) else {
                                    return;
                                };
                                for &c in children {
                                    // Most children have several parents: a plain load
                                    // skips the locked write when the bit is already set.
                                    let word = &to[(c >> 6) as usize];
                                    let bit = 1 << (c & 63);
                                    if word.load(Ordering::Relaxed) & bit == 0 {
                                        word.fetch_or(bit, Ordering::Relaxed);
                                    }
                                }
                            },
                        );
                    });
            }
        }
        let reach = marks.map(Bits::from_atomic);

        // Backward, layer by layer from the top. Its tables, the cells of the layers in flight
        // and the lists of work units are added to what is allocated already, and the whole
        // peak is checked against the budget of the start before any of it is allocated.
        let keep = !options.no_tables;
        let side_cells = |side: usize, p: usize| {
            let r = layer_range(p);
            (reach[side].rank(r.end) - reach[side].rank(r.start)) as usize
        };
        let widest =
            [RUNNER, PAWNS].map(|side| (0..layers).map(|p| side_cells(side, p)).max().unwrap_or(0));
        let plan = Footprint {
            fixed,
            tables: if keep {
                (reach[0].ones() + reach[1].ones()) * (2 + if options.foxbox { 3 } else { 0 })
            } else {
                0
            },
            in_flight: (widest[RUNNER] + widest[PAWNS]) as u64
                * LayerCells::<C>::bytes_per_cell(options.foxbox),
            work: (0..layers)
                .map(|p| layer_range(p).end - layer_range(p).start)
                .max()
                .unwrap_or(0)
                .div_ceil(CHUNK_BITS)
                * WORK_BYTES_PER_CHUNK,
        };
        let hint = match (keep, options.no_counts) {
            (true, _) => "--no-tables (and --no-counts) solve with less",
            (false, false) => "--no-counts solves with less",
            (false, true) => "",
        };
        budget
            .check(
                || {
                    format!(
                        "solving {} ({} reachable positions: its index and bitsets {}, tables \
                         {}, layers in flight {})",
                        board_name(chase),
                        crate::io::text::group(&(reach[0].ones() + reach[1].ones()).to_string()),
                        crate::io::memory::human(plan.fixed),
                        crate::io::memory::human(plan.tables),
                        crate::io::memory::human(plan.in_flight + plan.work),
                    )
                },
                plan.peak(),
            )
            .map_err(|e| e.with_hint(hint))?;
        let table_len = |side: usize| if keep { reach[side].ones() as usize } else { 0 };
        let mut values = [vec![0u16; table_len(0)], vec![0u16; table_len(1)]];
        let fb_len = |side: usize| if options.foxbox { table_len(side) } else { 0 };
        let mut foxbox = [vec![0u8; fb_len(0)], vec![0u8; fb_len(1)]];
        let mut max_foxbox = [vec![0u16; fb_len(0)], vec![0u16; fb_len(1)]];
        // The cells of the layers in flight, one buffer a side, each as long as its side's
        // widest layer (no growth, no copies): H_P is computed from F_{P+1} into the buffer
        // that held H_{P+1}, then F_P from H_P into the one that held F_{P+1}.
        let mut cells_of = [
            LayerCells::<C>::new(widest[RUNNER], options.foxbox),
            LayerCells::<C>::new(widest[PAWNS], options.foxbox),
        ];
        let mut runner_base = 0u64;
        let mut terminal = 0u64;
        let mut winning = [0u64; 2];
        let mut overflow = false;
        let mut start_cell = Cell::<C>::default();
        for p in (0..layers).rev() {
            if let Some(report) = progress {
                report("solving", layers - 1 - p, layers);
            }
            let range = layer_range(p);
            for side in [PAWNS as u8, RUNNER as u8] {
                let bits = &reach[side as usize];
                let base = bits.rank(range.start);
                let len = (bits.rank(range.end) - base) as usize;
                let pieces = chunks(range.clone());
                let lengths: Vec<usize> = pieces
                    .iter()
                    .map(|r| (bits.rank(r.end) - bits.rank(r.start)) as usize)
                    .collect();
                let [runner_cells, pawn_cells] = &mut cells_of;
                let (cells, child_cells, child_bits, child_base) = if side == PAWNS as u8 {
                    (pawn_cells, &*runner_cells, &reach[RUNNER], runner_base)
                } else {
                    (
                        runner_cells,
                        &*pawn_cells,
                        &reach[PAWNS],
                        reach[PAWNS].rank(range.start),
                    )
                };
                let results: Vec<(bool, u64, [u64; 2])> = pieces
                    .into_par_iter()
                    .zip(cells.pieces(len, &lengths))
                    .with_min_len(4)
                    .map(|(piece, mut out)| {
                        let mut i = 0;
                        let mut overflow = false;
                        let mut term = 0;
                        let mut wins = [0u64; 2];
                        let mut expander = Expander::new(chase, &sets);
                        for_ones(&bits.words, piece, |d| {
                            let cell = solve_one(
                                chase,
                                &mut expander,
                                d,
                                side,
                                options,
                                child_bits,
                                child_cells,
                                child_base,
                                &mut overflow,
                            );
                            term += cell.terminal as u64;
                            wins[(cell.value >> 15) as usize] += 1;
                            out.set(i, &cell);
                            i += 1;
                        });
                        (overflow, term, wins)
                    })
                    .collect();
                for (o, t, w) in results {
                    overflow |= o;
                    terminal += t;
                    winning[0] += w[0];
                    winning[1] += w[1];
                }
                if keep {
                    let b = base as usize;
                    let side = side as usize;
                    values[side][b..b + len].copy_from_slice(&cells.value[..len]);
                    if options.foxbox {
                        foxbox[side][b..b + len].copy_from_slice(&cells.foxbox[..len]);
                        max_foxbox[side][b..b + len].copy_from_slice(&cells.max_foxbox[..len]);
                    }
                }
                if side == RUNNER as u8 {
                    if p == 0 {
                        let id = reach[RUNNER].rank(start_d) - base;
                        start_cell = cells.get(id as usize);
                    }
                    runner_base = base;
                }
            }
        }
        if overflow {
            return Err(crate::truth::SolveError::CountOverflow);
        }
        let games = start_cell
            .counts
            .games
            .wide()
            .zip(start_cell.counts.runner_wins.wide());
        Ok(FastSolution {
            chase: chase.clone(),
            sets,
            reach,
            values,
            foxbox,
            max_foxbox,
            start_value: decode(start_cell.value),
            start_foxbox: options.foxbox.then(|| {
                (
                    Event::from_code(start_cell.foxbox),
                    MaxFoxBox::from_code(start_cell.max_foxbox),
                )
            }),
            terminal,
            winning,
            games,
            seconds: started.elapsed().as_secs_f64(),
            footprint: plan,
        })
    }

    pub fn game(&self) -> &Chase {
        &self.chase
    }
    /// Reachable positions (terminal ones included).
    pub fn states(&self) -> u64 {
        self.reach[0].ones() + self.reach[1].ones()
    }
    pub fn terminal_states(&self) -> u64 {
        self.terminal
    }
    pub fn seconds(&self) -> f64 {
        self.seconds
    }
    /// The bytes the solve was estimated to take at its peak (the backward sweep), beyond what
    /// the process held before: an upper bound, checked against the memory budget before it
    /// was allocated.
    pub fn memory_estimate(&self) -> u64 {
        self.footprint.peak()
    }
    pub fn start_value(&self) -> Value {
        self.start_value
    }
    /// The start's FoxBox and maximum-FoxBox values (when computed).
    pub fn start_foxbox(&self) -> Option<(Event, MaxFoxBox)> {
        self.start_foxbox
    }
    /// Games from the start and how many the runner wins (when counted).
    pub fn games(&self) -> Option<(GameCount, GameCount)> {
        self.games
    }

    fn id(&self, s: &ChaseState) -> Option<(usize, usize)> {
        let d = self.sets.index(s.pawns) as u64 * self.sets.squares as u64 + s.runner as u64;
        let side = s.to_move as usize;
        self.reach[side].id(d).map(|i| (side, i as usize))
    }
    /// Dense indices per part of [`FastSolution::for_each_state`].
    const PART: u64 = 1 << 22;

    /// In how many parts [`FastSolution::for_each_state`] lists the reachable positions: each
    /// side to move's dense index cut into runs of 4,194,304.
    pub fn state_parts(&self) -> usize {
        2 * (self.reach[0].words.len() as u64 * 64).div_ceil(Self::PART) as usize
    }

    /// Calls `f` with every reachable position of part `part`, in the order of the dense index.
    pub fn for_each_state(&self, part: usize, f: &mut dyn FnMut(&ChaseState)) {
        let side = part % 2;
        let words = &self.reach[side].words;
        let start = (part / 2) as u64 * Self::PART;
        let end = (start + Self::PART).min(words.len() as u64 * 64);
        let squares = self.sets.squares as u64;
        for_ones(words, start..end, |d| {
            f(&ChaseState {
                pawns: self.sets.set((d / squares) as usize),
                runner: (d % squares) as u8,
                to_move: side as u8,
            })
        });
    }
    /// Whether `s` is reachable from the start.
    pub fn is_reachable(&self, s: &ChaseState) -> bool {
        self.id(s).is_some()
    }
    /// The value of a reachable position (`None` if unreachable or tables were not kept).
    pub fn value(&self, s: &ChaseState) -> Option<Value> {
        let (side, i) = self.id(s)?;
        self.values[side].get(i).map(|&c| decode(c))
    }
    /// FoxBox value of a reachable position (when computed).
    pub fn foxbox(&self, s: &ChaseState) -> Option<Event> {
        let (side, i) = self.id(s)?;
        self.foxbox[side].get(i).map(|&c| Event::from_code(c))
    }
    /// Maximum-FoxBox value of a reachable position (when computed).
    pub fn max_foxbox(&self, s: &ChaseState) -> Option<MaxFoxBox> {
        let (side, i) = self.id(s)?;
        self.max_foxbox[side]
            .get(i)
            .map(|&c| MaxFoxBox::from_code(c))
    }

    /// The figures `solvedgym solve` prints, with the same keys as the generic solver's report
    /// and the game-specific ones in `extra`.
    pub fn report(&self) -> SolveReport {
        let g = &self.chase;
        let names = [g.player_name(0).to_string(), g.player_name(1).to_string()];
        let mut wins = std::collections::BTreeMap::new();
        let (games, draws) = match self.games {
            Some((games, runner)) => {
                wins.insert(names[0].clone(), runner.to_string());
                wins.insert(names[1].clone(), (games - runner).to_string());
                (games.to_string(), "0".to_string())
            }
            None => ("not counted".to_string(), "0".to_string()),
        };
        let mut extra = std::collections::BTreeMap::new();
        extra.insert("solver".to_string(), serde_json::json!("layered"));
        if let Some((fb, max)) = self.start_foxbox {
            extra.insert(
                "start_foxbox".to_string(),
                serde_json::json!(fb.to_string()),
            );
            extra.insert(
                "start_max_foxbox".to_string(),
                serde_json::json!(max.to_string()),
            );
        }
        let states = self.states();
        extra.insert(
            format!("{}_winning_states", names[1]),
            serde_json::json!(self.winning[1]),
        );
        if let Some((games, runner)) = self.games {
            let share = ratio(games - runner, games);
            extra.insert(
                format!("{}_games_share", names[1]),
                serde_json::json!(share),
            );
        }
        extra.insert(
            format!("{}_winning_states_share", names[1]),
            serde_json::json!(self.winning[1] as f64 / states as f64),
        );
        SolveReport {
            game: g.name().to_string(),
            params: g.params(),
            players: names.to_vec(),
            states: states as usize,
            terminal_states: self.terminal as usize,
            games,
            wins,
            draws,
            winner: self.start_value.winner().map(|w| names[w].clone()),
            plies: self.start_value.plies(),
            start: self.start_value.describe(g),
            winning_states: [
                (names[0].clone(), self.winning[0] as usize),
                (names[1].clone(), self.winning[1] as usize),
            ]
            .into_iter()
            .collect(),
            seconds: Some(self.seconds),
            extra,
        }
    }
}

/// a / b as a float, exact enough for a share.
fn ratio(a: GameCount, b: GameCount) -> f64 {
    let shift = b.bit_len().saturating_sub(60);
    let (a, b) = (a >> shift, b >> shift);
    u64::try_from(a).unwrap_or(u64::MAX) as f64 / u64::try_from(b).unwrap_or(u64::MAX).max(1) as f64
}

/// Expands positions by dense index. The pawn moves and the pawns' reach depend only on the
/// pawn set, so they are computed once per set and reused for every runner square of it (the
/// sweeps visit a set's positions one after another).
struct Expander<'a> {
    chase: &'a Chase,
    sets: &'a PawnSets,
    squares: u64,
    /// The set whose moves are cached (`usize::MAX`: none yet).
    cached: usize,
    set: u128,
    reach: u128,
    /// Pawn moves of the cached set: (target square, dense index of the child with the runner
    /// on square 0).
    pawn_moves: [(u8, u64); 32],
    pawn_len: usize,
    out: [u64; 32],
}

impl<'a> Expander<'a> {
    fn new(chase: &'a Chase, sets: &'a PawnSets) -> Expander<'a> {
        Expander {
            chase,
            sets,
            squares: sets.squares as u64,
            cached: usize::MAX,
            set: 0,
            reach: 0,
            pawn_moves: [(0, 0); 32],
            pawn_len: 0,
            out: [0; 32],
        }
    }

    #[inline]
    fn load(&mut self, si: usize) {
        if si == self.cached {
            return;
        }
        let geo = self.chase.geometry();
        let set = self.sets.set(si);
        self.cached = si;
        self.set = set;
        self.reach = geo.reach(set);
        self.pawn_len = 0;
        let mut p = set;
        while p != 0 {
            let from = p.trailing_zeros() as usize;
            p &= p - 1;
            for &t in &geo.pawn_to[from] {
                if t != NONE && set >> t & 1 == 0 {
                    let child = set ^ (1u128 << from) ^ (1u128 << t);
                    self.pawn_moves[self.pawn_len] =
                        (t, self.sets.index(child) as u64 * self.squares);
                    self.pawn_len += 1;
                }
            }
        }
    }

    /// The pawn set and runner square of position `d`.
    #[inline]
    fn position(&mut self, d: u64) -> (u128, u8) {
        self.load((d / self.squares) as usize);
        (self.set, (d % self.squares) as u8)
    }

    /// The children of position `d` with `side` to move (in no particular order), or the
    /// winner if the position is over (the rules file's terminal test, as
    /// [`Chase::winner_of`]).
    #[inline]
    fn expand(&mut self, d: u64, side: u8) -> Result<&[u64], Player> {
        let (set, runner) = self.position(d);
        let mut n = 0;
        if side == RUNNER as u8 {
            let base = d - runner as u64;
            for &t in &self.chase.geometry().runner_to[runner as usize] {
                if t != NONE && set >> t & 1 == 0 {
                    self.out[n] = base + t as u64;
                    n += 1;
                }
            }
        } else {
            for &(t, base) in &self.pawn_moves[..self.pawn_len] {
                if t != runner {
                    self.out[n] = base + runner as u64;
                    n += 1;
                }
            }
        }
        if n == 0 {
            Err(1 - side as Player)
        } else if self.chase.escaped_with(runner, set, side, self.reach) {
            Err(RUNNER)
        } else {
            Ok(&self.out[..n])
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn solve_one<C: Count>(
    chase: &Chase,
    expander: &mut Expander,
    d: u64,
    side: u8,
    options: FastOptions,
    child_bits: &Bits,
    child_cells: &LayerCells<C>,
    child_base: u64,
    overflow: &mut bool,
) -> Cell<C> {
    let (set, runner) = expander.position(d);
    let foxbox_now = |value: u16| -> bool {
        options.foxbox && (value >> 15) as usize == PAWNS && chase.is_fox_box(runner, set)
    };
    let children = match expander.expand(d, side) {
        Ok(children) => children,
        Err(w) => {
            let value = encode(w, 0);
            let fb = if foxbox_now(value) { 0 } else { u8::MAX };
            return Cell {
                value,
                foxbox: fb,
                max_foxbox: (fb as u16) << 8 | 255,
                counts: Counts {
                    games: C::ONE,
                    runner_wins: if w == RUNNER { C::ONE } else { C::default() },
                },
                terminal: true,
            };
        }
    };
    let mut best = 0u16;
    let mut best_pref = 0u32;
    let mut counts = Counts::<C>::default();
    let mut fb_best: Option<u8> = None;
    let mut max_best: Option<u16> = None;
    for &c in children {
        let id = child_bits
            .id(c)
            .expect("children of reachable positions are reachable");
        let cell = child_cells.get((id - child_base) as usize);
        let pref = preference(cell.value, side);
        if pref > best_pref {
            best_pref = pref;
            best = cell.value;
        }
        {
            match counts.games.checked_add(cell.counts.games) {
                Some(g) => counts.games = g,
                None => *overflow = true,
            }
            counts.runner_wins = counts.runner_wins.wrapping_add(cell.counts.runner_wins);
        }
        if options.foxbox {
            // Hounds minimise the FoxBox distance, the fox maximises it (Never is largest);
            // the fox maximises maxFoxBox, the hounds minimise it.
            fb_best = Some(match fb_best {
                None => cell.foxbox,
                Some(b) if side == PAWNS as u8 => b.min(cell.foxbox),
                Some(b) => b.max(cell.foxbox),
            });
            let later = cell.max_foxbox - 1;
            max_best = Some(match max_best {
                None => later,
                Some(b) if side == RUNNER as u8 => b.max(later),
                Some(b) => b.min(later),
            });
        }
    }
    let value = best + 1;
    let mut cell = Cell {
        value,
        counts,
        ..Cell::default()
    };
    if options.foxbox {
        let fb = if foxbox_now(value) {
            0
        } else {
            match fb_best.expect("a move") {
                u8::MAX => u8::MAX,
                k => k + 1,
            }
        };
        cell.foxbox = fb;
        let now = (fb as u16) << 8 | 255;
        cell.max_foxbox = now.max(max_best.expect("a move"));
    }
    cell
}

impl Chase {
    /// Whether FoxBox tables and the FoxBox AI apply (Fox & Hounds).
    pub fn has_foxbox(&self) -> bool {
        self.kind() == Kind::FoxHounds
    }
}

/// The board as people name it: "Fox & Hounds 14x14", "Hasenspiel".
fn board_name(chase: &Chase) -> String {
    match chase.kind() {
        super::Kind::FoxHounds => format!("Fox & Hounds {0}x{0}", chase.size()),
        super::Kind::Hasenspiel => "Hasenspiel".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::index::next_combination;
    use super::*;
    use crate::games::chase::{Escape, FoxHoundsParams, HasenspielParams};
    use crate::truth::Solution;

    fn agree(chase: &Chase) {
        let fast = FastSolution::solve(
            chase,
            FastOptions {
                foxbox: true,
                ..FastOptions::default()
            },
            None,
        )
        .unwrap();
        let generic = Solution::solve(chase, 10_000_000).unwrap();
        let (a, b) = (fast.report(), generic.report());
        assert_eq!(a.states, b.states);
        assert_eq!(a.terminal_states, b.terminal_states);
        assert_eq!(a.games, b.games);
        assert_eq!(a.wins, b.wins);
        assert_eq!(a.start, b.start);
        assert_eq!(a.winning_states, b.winning_states);
        for s in generic.graph().states() {
            assert_eq!(fast.value(s), generic.value(s), "{}", chase.render(s));
        }
    }

    #[test]
    fn layered_and_generic_solvers_agree() {
        for size in [2, 4, 6] {
            for escape in [Escape::Area, Escape::Square, Escape::None] {
                agree(&Chase::fox_hounds(FoxHoundsParams { size, escape }).unwrap());
            }
        }
        for escape in [Escape::RearPawn, Escape::FirstRow, Escape::None] {
            agree(&Chase::hasenspiel(HasenspielParams { escape }).unwrap());
        }
    }

    impl Count for u16 {
        const ONE: u16 = 1;
        fn checked_add(self, other: u16) -> Option<u16> {
            u16::checked_add(self, other)
        }
        fn wrapping_add(self, other: u16) -> u16 {
            u16::wrapping_add(self, other)
        }
        fn wide(self) -> Option<GameCount> {
            Some(GameCount::from(self))
        }
    }

    #[test]
    fn narrow_counters_fall_back_to_wide_ones_on_overflow() {
        let chase = Chase::fox_hounds(FoxHoundsParams {
            size: 6,
            escape: Escape::Area,
        })
        .unwrap();
        let options = FastOptions::default();
        assert!(matches!(
            FastSolution::solve_on_pool::<u16>(&chase, options, None),
            Err(crate::truth::SolveError::CountOverflow)
        ));
        let narrow_first = FastSolution::solve_narrow_first::<u16>(&chase, options, None).unwrap();
        let (games, _) = narrow_first.games().unwrap();
        assert_eq!(games.to_string(), "982462133247");
        // Without counts the values are the same and no count is reported.
        let uncounted = FastSolution::solve(
            &chase,
            FastOptions {
                no_counts: true,
                ..options
            },
            None,
        )
        .unwrap();
        assert!(uncounted.games().is_none());
        assert_eq!(uncounted.start_value(), narrow_first.start_value());
        assert_eq!(uncounted.states(), narrow_first.states());
    }

    #[test]
    fn next_combination_walks_colex_order() {
        let mut x = 0b111u128;
        let mut seen = vec![x];
        for _ in 0..9 {
            x = next_combination(x);
            seen.push(x);
        }
        assert_eq!(seen.len(), 10);
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
        assert!(seen.iter().all(|s| s.count_ones() == 3 && *s < 32));
    }
}
