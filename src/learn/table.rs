//! Value tables: one row of numbers per state (one per legal action for action values, one for
//! state or afterstate values), all in one flat `Vec<f64>`.
//!
//! Where a state's row lies ([`Layout`]): where a dense index of the game puts it, every row in
//! place from the start (by the action index for action values, by the state index for one
//! value per state); or appended the first time the state is met, found through the game's
//! dense [`Game::state_index`] when it has one of at most [`DENSE_LIMIT`] entries, through a
//! hash map otherwise. After warm-up, learning allocates nothing per step.

use std::collections::HashMap;

use super::saved::{SavedRow, check_legal};
use crate::core::game::Game;

/// Largest dense index a table maps directly (8 bytes per entry: 32 MiB).
pub const DENSE_LIMIT: usize = 1 << 22;

/// A map keyed by game states with rustc's fast hasher (states are not adversarial).
pub type StateMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

/// Where each state's row lies in a flat array of rows: found through the game's dense index
/// when it has one of at most [`DENSE_LIMIT`] entries, through a hash map otherwise. Shared by
/// the value [`Table`] and MENACE's matchboxes.
#[derive(Clone)]
pub enum RowIndex<G: Game> {
    /// Dense index -> the row's place, packed as (first value + 1) | length << 32 (0: no row
    /// yet): one load finds the row, where a separate lookup of its start would be a second
    /// cache miss, waiting on the first, on the larger games.
    Dense(Vec<u64>),
    /// The row's first value and its length.
    Hashed(StateMap<G::State, (u32, u32)>),
}

impl<G: Game> RowIndex<G> {
    pub fn new(game: &G) -> Self {
        match game.state_index_len() {
            Some(n) if n <= DENSE_LIMIT => RowIndex::Dense(vec![0; n]),
            _ => RowIndex::Hashed(StateMap::default()),
        }
    }

    /// The row of `state`, if it has one.
    #[inline]
    pub fn find(&self, game: &G, state: &G::State) -> Option<std::ops::Range<usize>> {
        let (start, len) = match self {
            RowIndex::Dense(v) => {
                let packed = v[game.state_index(state)];
                if packed == 0 {
                    return None;
                }
                ((packed as u32 - 1) as usize, (packed >> 32) as usize)
            }
            RowIndex::Hashed(m) => {
                let &(start, len) = m.get(state)?;
                (start as usize, len as usize)
            }
        };
        Some(start..start + len)
    }

    /// The row of `state`; if it has none, it gets `next..next + len` (the caller appends
    /// that row), and `true` says so.
    #[inline]
    pub fn find_or_insert(
        &mut self,
        game: &G,
        state: &G::State,
        next: usize,
        len: usize,
    ) -> (std::ops::Range<usize>, bool) {
        let (start, len, new) = match self {
            RowIndex::Dense(v) => {
                let slot = &mut v[game.state_index(state)];
                if *slot == 0 {
                    *slot = pack(next, len);
                    (next, len, true)
                } else {
                    ((*slot as u32 - 1) as usize, (*slot >> 32) as usize, false)
                }
            }
            RowIndex::Hashed(m) => {
                let mut new = false;
                let &mut (start, len) = m.entry(state.clone()).or_insert_with(|| {
                    new = true;
                    checked(next, len)
                });
                (start as usize, len as usize, new)
            }
        };
        (start..start + len, new)
    }
}

/// Largest dense index a table lays its rows out by (8 bytes per entry: 128 MiB).
pub const SLOTS_LIMIT: usize = 1 << 24;

/// Where a [`Table`]'s rows lie.
#[derive(Clone)]
enum Layout<G: Game> {
    /// Rows appended as states are met, found through a [`RowIndex`].
    Appended(RowIndex<G>),
    /// Every row in place from the start, where the game's dense action index puts it
    /// ([`Game::action_index`]): a row is found without a load. One flag per state index says
    /// whether the state was met (a byte: read and set with fewer instructions than a bit).
    ByActionIndex { met: Vec<bool> },
    /// One value per state, in place from the start at the game's dense state index
    /// ([`Game::state_index`]), with its flag of whether the state was met.
    ByStateIndex { met: Vec<bool> },
}

/// A state with a row, and the range of its values ([`Table::rows_in_order`]).
pub type StateRow<G> = (<G as Game>::State, std::ops::Range<usize>);

/// Rows of values keyed by state.
#[derive(Clone)]
pub struct Table<G: Game> {
    layout: Layout<G>,
    rows: usize,
    values: Vec<f64>,
    /// The rows handed out since a frozen copy was last brought up to date, once
    /// [`Table::refresh_copy`] has started the record (`None`: not recording).
    changes: Option<Changes<G>>,
    /// In a frozen copy: the refresh it was last brought up to date by ([`refresh_stamp`]; 0:
    /// none).
    stamp: u64,
}

/// A number no other refresh of any table has: a record of changes serves the one copy that
/// carries the stamp of its last refresh; another copy is copied whole.
pub(crate) fn refresh_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A row handed out for writing: the dense index of its state (where the layout has one) and
/// its values' place.
#[derive(Clone, Copy)]
struct Touched {
    slot: u32,
    start: u32,
    len: u32,
}

/// What a table handed out since its frozen copy was last brought up to date: every row a
/// learner may have written goes through [`Table::row_or_insert`] or
/// [`Table::value_index_or_insert`] first (learners write the rows they were handed, in the
/// same episode), so the rows handed out hold every change.
#[derive(Clone)]
struct Changes<G: Game> {
    /// The stamp of the refresh the record started at.
    stamp: u64,
    rows: Vec<Touched>,
    /// The states of rows appended under a hashed key.
    keys: Vec<G::State>,
    /// More rows than a whole copy costs: the next refresh copies everything.
    whole: bool,
}

impl<G: Game> Default for Changes<G> {
    fn default() -> Self {
        Changes {
            stamp: 0,
            rows: Vec::new(),
            keys: Vec::new(),
            whole: false,
        }
    }
}

impl<G: Game> Changes<G> {
    /// Notes the row `row` of the state of dense index `slot`, unless so many are noted that a
    /// whole copy (of `values` values) is cheaper.
    #[inline]
    fn note(&mut self, slot: usize, row: &std::ops::Range<usize>, values: usize) {
        if self.whole {
            return;
        }
        if self.rows.len() >= values / 4 + 1024 {
            *self = Changes {
                stamp: self.stamp,
                whole: true,
                ..Changes::default()
            };
            return;
        }
        self.rows.push(Touched {
            slot: slot as u32,
            start: row.start as u32,
            len: row.len() as u32,
        });
    }
}

/// Copies what `from` has past `to`'s end onto it (rows appended since), or cuts `to` back.
fn extend_tail<T: Copy>(from: &[T], to: &mut Vec<T>) {
    if to.len() > from.len() {
        to.truncate(from.len());
    }
    let start = to.len();
    to.extend_from_slice(&from[start..]);
}

impl<G: Game> Table<G> {
    /// An empty table of action values (a row per state, a value per legal action) that start
    /// at `initial`.
    pub fn new(game: &G, initial: f64) -> Self {
        match (game.action_index_len(), game.state_index_len()) {
            (Some(slots), Some(states)) if slots <= SLOTS_LIMIT && states <= SLOTS_LIMIT => Table {
                layout: Layout::ByActionIndex {
                    met: vec![false; states],
                },
                rows: 0,
                values: vec![initial; slots],
                changes: None,
                stamp: 0,
            },
            _ => Table {
                layout: Layout::Appended(RowIndex::new(game)),
                rows: 0,
                values: Vec::new(),
                changes: None,
                stamp: 0,
            },
        }
    }

    /// An empty table of one value per state (rows of length 1) that start at `initial`: by the
    /// state index when the game has one of at most [`DENSE_LIMIT`] entries, else as
    /// [`Table::new`] lays it out.
    pub fn of_state_values(game: &G, initial: f64) -> Self {
        match game.state_index_len() {
            Some(n) if n <= DENSE_LIMIT => Table {
                layout: Layout::ByStateIndex {
                    met: vec![false; n],
                },
                rows: 0,
                values: vec![initial; n],
                changes: None,
                stamp: 0,
            },
            _ => Table::new(game, initial),
        }
    }

    /// The row of `state`, if it has one: the range of its values.
    #[inline]
    pub fn row(&self, game: &G, state: &G::State) -> Option<std::ops::Range<usize>> {
        match &self.layout {
            Layout::Appended(keys) => keys.find(game, state),
            Layout::ByActionIndex { met } => {
                let i = game.state_index(state);
                met[i].then(|| game.action_index(state))
            }
            Layout::ByStateIndex { met } => {
                let i = game.state_index(state);
                met[i].then_some(i..i + 1)
            }
        }
    }

    /// The first value of `state`'s row, `initial` if it has none (the `initial` the table was
    /// made with: rows laid out in place hold it already, and are read without their flag).
    #[inline]
    pub fn first_value(&self, game: &G, state: &G::State, initial: f64) -> f64 {
        match &self.layout {
            Layout::ByStateIndex { .. } => self.values[game.state_index(state)],
            _ => self
                .row(game, state)
                .map_or(initial, |r| self.values[r.start]),
        }
    }

    /// The row of `state`, created with `len` values equal to `initial` if it has none (the
    /// `initial` the table was made with: rows laid out in place hold it already).
    #[inline]
    pub fn row_or_insert(
        &mut self,
        game: &G,
        state: &G::State,
        len: usize,
        initial: f64,
    ) -> std::ops::Range<usize> {
        let row = match &mut self.layout {
            Layout::Appended(keys) => {
                let next = self.values.len();
                let (row, new) = keys.find_or_insert(game, state, next, len);
                if new {
                    self.values.resize(next + len, initial);
                    self.rows += 1;
                }
                if let Some(changes) = &mut self.changes {
                    let slot = match keys {
                        RowIndex::Dense(_) => game.state_index(state),
                        RowIndex::Hashed(_) => {
                            if new && !changes.whole {
                                changes.keys.push(state.clone());
                            }
                            0
                        }
                    };
                    changes.note(slot, &row, self.values.len());
                }
                return row;
            }
            Layout::ByActionIndex { met } => {
                row_by_action_index(game, state, len, met, &mut self.rows)
            }
            Layout::ByStateIndex { .. } => return self.state_row_or_insert(game, state),
        };
        if let Some(changes) = &mut self.changes {
            changes.note(game.state_index(state), &row, self.values.len());
        }
        row
    }

    /// [`Table::row_or_insert`] in a table of one value per state. Out of line, for speed: its
    /// learners ask [`Table::value_index_or_insert`], and inlined in `row_or_insert` this kept
    /// Monte-Carlo's move from inlining the other layouts (measured).
    #[inline(never)]
    fn state_row_or_insert(&mut self, game: &G, state: &G::State) -> std::ops::Range<usize> {
        let Layout::ByStateIndex { met } = &mut self.layout else {
            unreachable!("a table of one value per state");
        };
        let i = flag_met(game, state, met, &mut self.rows);
        if let Some(changes) = &mut self.changes {
            changes.note(i, &(i..i + 1), self.values.len());
        }
        i..i + 1
    }

    /// The index of the one value of `state` in a table of one value per state
    /// ([`Table::of_state_values`]), its row created with `initial` if it has none.
    #[inline]
    pub fn value_index_or_insert(&mut self, game: &G, state: &G::State, initial: f64) -> usize {
        match &mut self.layout {
            Layout::ByStateIndex { met } => {
                let i = flag_met(game, state, met, &mut self.rows);
                if let Some(changes) = &mut self.changes {
                    changes.note(i, &(i..i + 1), self.values.len());
                }
                i
            }
            _ => self.row_or_insert(game, state, 1, initial).start,
        }
    }

    /// The table as its parts, if its rows are laid out by the action index and it keeps no
    /// record of the rows handed out (the parts hand rows out without noting them).
    #[inline]
    pub fn by_action_index(&mut self) -> Option<ActionIndexedRows<'_>> {
        if self.changes.is_some() {
            return None;
        }
        match &mut self.layout {
            Layout::ByActionIndex { met } => Some(ActionIndexedRows {
                met,
                values: &mut self.values,
                rows: &mut self.rows,
            }),
            _ => None,
        }
    }

    /// Every state with a row and the range of its values, in a fixed order (by the dense
    /// index, else by the states' order), for saving: `Err` names an index the game cannot
    /// turn back into a state.
    pub fn rows_in_order(&self, game: &G) -> Result<Vec<StateRow<G>>, String> {
        let from_index = |i: usize| {
            game.state_from_index(i).ok_or_else(|| {
                format!(
                    "{} cannot turn its state index {i} back into a position",
                    game.name()
                )
            })
        };
        let mut out = Vec::with_capacity(self.rows);
        match &self.layout {
            Layout::Appended(RowIndex::Dense(v)) => {
                for (i, &packed) in v.iter().enumerate() {
                    if packed != 0 {
                        let start = (packed as u32 - 1) as usize;
                        out.push((from_index(i)?, start..start + (packed >> 32) as usize));
                    }
                }
            }
            Layout::Appended(RowIndex::Hashed(m)) => {
                out.extend(
                    m.iter().map(|(s, &(start, len))| {
                        (s.clone(), start as usize..(start + len) as usize)
                    }),
                );
                out.sort_by(|a, b| a.0.cmp(&b.0));
            }
            Layout::ByActionIndex { met } => {
                for i in met.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i) {
                    let s = from_index(i)?;
                    let r = game.action_index(&s);
                    out.push((s, r));
                }
            }
            Layout::ByStateIndex { met } => {
                for i in met.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i) {
                    out.push((from_index(i)?, i..i + 1));
                }
            }
        }
        Ok(out)
    }

    /// The rows of `part` to save: each state with a row and its numbers in `values` (this
    /// table's values, or an array aligned with them; past its end, `fill`), with the legal
    /// actions of the state where `moves` (a row per legal action), else one value per state.
    pub fn saved_rows(
        &self,
        game: &G,
        part: &str,
        values: &[f64],
        fill: f64,
        moves: bool,
        out: &mut Vec<SavedRow<G>>,
    ) -> Result<(), String> {
        for (state, range) in self.rows_in_order(game)? {
            let mut actions = Vec::new();
            if moves {
                game.legal_actions(&state, &mut actions);
            }
            let values = range
                .map(|i| values.get(i).copied().unwrap_or(fill))
                .collect();
            out.push(SavedRow {
                part: part.to_string(),
                state,
                actions,
                values,
            });
        }
        Ok(())
    }

    /// Puts saved rows back (as [`Table::saved_rows`] gave them for this table's own values):
    /// each row created as learning would create it, then its values copied in. Rows of moves
    /// must list the legal actions of their state.
    pub fn restore_rows<'a>(
        &mut self,
        game: &G,
        rows: impl Iterator<Item = &'a SavedRow<G>>,
        initial: f64,
        moves: bool,
    ) -> Result<(), String>
    where
        G: 'a,
    {
        for row in rows {
            let range = if moves {
                check_legal(game, row)?;
                self.row_or_insert(game, &row.state, row.values.len(), initial)
            } else {
                if row.values.len() != 1 || !row.actions.is_empty() {
                    return Err("a row of one value per position holds more".to_string());
                }
                let i = self.value_index_or_insert(game, &row.state, initial);
                i..i + 1
            };
            self.values[range].copy_from_slice(&row.values);
        }
        Ok(())
    }

    /// Puts saved rows of an array aligned with this table's values back into `target`
    /// (resized to the table's length with `fill`): every row's state must have a row here.
    pub fn restore_aligned<'a>(
        &self,
        game: &G,
        rows: impl Iterator<Item = &'a SavedRow<G>>,
        target: &mut Vec<f64>,
        fill: f64,
    ) -> Result<(), String>
    where
        G: 'a,
    {
        target.resize(self.values.len(), fill);
        for row in rows {
            let range = self
                .row(game, &row.state)
                .filter(|r| r.len() == row.values.len())
                .ok_or_else(|| {
                    "a row of an aligned part for a position without a row of its own".to_string()
                })?;
            target[range].copy_from_slice(&row.values);
        }
        Ok(())
    }

    /// A copy of the table as it is now, for a frozen copy of its learner (without any record
    /// of changes).
    pub fn frozen(&self) -> Self {
        Table {
            layout: self.layout.clone(),
            rows: self.rows,
            values: self.values.clone(),
            changes: None,
            stamp: 0,
        }
    }

    /// Brings `copy`, a [`Table::frozen`] copy of this table, up to date, and with it each
    /// array of `aligned` (an array laid out beside this table's values, and its copy):
    /// afterwards they equal fresh copies. Once the table records the rows it hands out (from
    /// the first call on), only those rows are copied, at a cost of what changed rather than of
    /// the whole table; the first call, one after more rows than a whole copy costs, and one
    /// for another copy than the last call's (the record serves one copy) copy everything.
    pub fn refresh_copy(&mut self, copy: &mut Table<G>, aligned: &mut [(&[f64], &mut Vec<f64>)]) {
        let same_layout = matches!(
            (&self.layout, &copy.layout),
            (Layout::ByActionIndex { .. }, Layout::ByActionIndex { .. })
                | (Layout::ByStateIndex { .. }, Layout::ByStateIndex { .. })
                | (
                    Layout::Appended(RowIndex::Dense(_)),
                    Layout::Appended(RowIndex::Dense(_))
                )
                | (
                    Layout::Appended(RowIndex::Hashed(_)),
                    Layout::Appended(RowIndex::Hashed(_))
                )
        ) && copy.values.len() <= self.values.len();
        let stamp = refresh_stamp();
        let changes = match self.changes.take() {
            Some(changes) if !changes.whole && same_layout && changes.stamp == copy.stamp => {
                changes
            }
            _ => {
                *copy = self.frozen();
                for (from, to) in aligned.iter_mut() {
                    to.clear();
                    to.extend_from_slice(from);
                }
                copy.stamp = stamp;
                self.changes = Some(Changes {
                    stamp,
                    ..Changes::default()
                });
                return;
            }
        };
        let Changes {
            mut rows, mut keys, ..
        } = changes;
        copy.stamp = stamp;
        copy.rows = self.rows;
        // Rows appended since lie past the copy's end.
        extend_tail(&self.values, &mut copy.values);
        for (from, to) in aligned.iter_mut() {
            extend_tail(from, to);
        }
        // The rows' places: flags or indices (one match for all the rows).
        match (&self.layout, &mut copy.layout) {
            (Layout::ByActionIndex { .. }, Layout::ByActionIndex { met })
            | (Layout::ByStateIndex { .. }, Layout::ByStateIndex { met }) => {
                for t in &rows {
                    met[t.slot as usize] = true;
                }
            }
            (Layout::Appended(RowIndex::Dense(from)), Layout::Appended(RowIndex::Dense(to))) => {
                for t in &rows {
                    to[t.slot as usize] = from[t.slot as usize];
                }
            }
            _ => {}
        }
        // Their values.
        for t in rows.drain(..) {
            let start = t.start as usize;
            let range = start..start + t.len as usize;
            copy.values[range.clone()].copy_from_slice(&self.values[range.clone()]);
            for (from, to) in aligned.iter_mut() {
                let end = range.end.min(from.len());
                if range.start < end {
                    to[range.start..end].copy_from_slice(&from[range.start..end]);
                }
            }
        }
        if let (Layout::Appended(RowIndex::Hashed(from)), Layout::Appended(RowIndex::Hashed(to))) =
            (&self.layout, &mut copy.layout)
        {
            for key in keys.drain(..) {
                let place = from[&key];
                to.insert(key, place);
            }
        }
        // The record goes on, its buffers kept.
        self.changes = Some(Changes {
            stamp,
            rows,
            keys,
            whole: false,
        });
    }

    /// Stops the record of the rows handed out (after values were written another way, as a
    /// restore writes them): the next [`Table::refresh_copy`] copies everything.
    pub fn forget_changes(&mut self) {
        self.changes = None;
    }

    #[inline]
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    #[inline]
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }
    /// Number of states with a row.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of values in all rows (laid out in place: in every row, met or not).
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Rows of values keyed by state, as a move reads and writes them: a [`Table`], or one laid out
/// by the action index borrowed as its parts ([`Table::by_action_index`]), which a loop can
/// keep in registers.
pub trait StateRows<G: Game> {
    /// As [`Table::row_or_insert`].
    fn row_or_insert(
        &mut self,
        game: &G,
        state: &G::State,
        len: usize,
        initial: f64,
    ) -> std::ops::Range<usize>;
    fn values(&self) -> &[f64];
    fn values_mut(&mut self) -> &mut [f64];
}

impl<G: Game> StateRows<G> for Table<G> {
    #[inline(always)]
    fn row_or_insert(
        &mut self,
        game: &G,
        state: &G::State,
        len: usize,
        initial: f64,
    ) -> std::ops::Range<usize> {
        Table::row_or_insert(self, game, state, len, initial)
    }
    #[inline(always)]
    fn values(&self) -> &[f64] {
        Table::values(self)
    }
    #[inline(always)]
    fn values_mut(&mut self) -> &mut [f64] {
        Table::values_mut(self)
    }
}

/// A [`Table`] laid out by the action index, borrowed as its parts: the flags of the states
/// met, the values and the count of rows.
pub struct ActionIndexedRows<'a> {
    met: &'a mut [bool],
    values: &'a mut [f64],
    rows: &'a mut usize,
}

impl<G: Game> StateRows<G> for ActionIndexedRows<'_> {
    #[inline(always)]
    fn row_or_insert(
        &mut self,
        game: &G,
        state: &G::State,
        len: usize,
        _initial: f64,
    ) -> std::ops::Range<usize> {
        row_by_action_index(game, state, len, self.met, self.rows)
    }
    #[inline(always)]
    fn values(&self) -> &[f64] {
        self.values
    }
    #[inline(always)]
    fn values_mut(&mut self) -> &mut [f64] {
        self.values
    }
}

/// The row of `state` in a table laid out by the action index, its state flagged as met (and
/// counted in `rows` the first time).
#[inline(always)]
fn row_by_action_index<G: Game>(
    game: &G,
    state: &G::State,
    len: usize,
    met: &mut [bool],
    rows: &mut usize,
) -> std::ops::Range<usize> {
    let i = game.state_index(state);
    if !met[i] {
        met[i] = true;
        *rows += 1;
    }
    let row = game.action_index(state);
    debug_assert_eq!(row.len(), len, "a row per legal action");
    row
}

/// The state index of `state`, flagged as met (and counted in `rows` the first time).
#[inline(always)]
fn flag_met<G: Game>(game: &G, state: &G::State, met: &mut [bool], rows: &mut usize) -> usize {
    let i = game.state_index(state);
    if !met[i] {
        met[i] = true;
        *rows += 1;
    }
    i
}

/// A row's first value and length as stored, checked to fit.
fn checked(start: usize, len: usize) -> (u32, u32) {
    assert!(
        start + len < u32::MAX as usize,
        "a value table outgrew 2^32 entries"
    );
    (start as u32, len as u32)
}

/// A row's place as a dense entry stores it.
fn pack(start: usize, len: usize) -> u64 {
    let (start, len) = checked(start, len);
    (start as u64 + 1) | (len as u64) << 32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};

    fn exercise<G: Game>(game: &G) {
        let mut t = Table::new(game, 0.5);
        let s0 = game.initial_state();
        let mut legal = Vec::new();
        game.legal_actions(&s0, &mut legal);
        assert!(t.row(game, &s0).is_none());
        let r0 = t.row_or_insert(game, &s0, legal.len(), 0.5);
        assert_eq!(r0.len(), legal.len());
        assert!(t.values()[r0.clone()].iter().all(|&v| v == 0.5));
        t.values_mut()[r0.start] = 2.0;
        let s1 = game.apply(&s0, legal[0]);
        let r1 = t.row_or_insert(game, &s1, 3, 0.0);
        assert_eq!(r1.start, r0.end);
        assert_eq!(t.row_or_insert(game, &s0, legal.len(), 9.0), r0);
        assert_eq!(t.values()[r0.start], 2.0);
        assert_eq!(t.row(game, &s1), Some(r1));
        assert_eq!(t.rows(), 2);
    }

    #[test]
    fn rows_are_found_again_by_dense_index_and_by_hash() {
        exercise(&TicTacToe); // dense
        exercise(&Hexapawn::new(HexapawnParams { rows: 4, cols: 4 }).unwrap()); // hashed
    }

    #[test]
    fn one_value_per_state_is_kept_in_place_by_the_state_index() {
        let game = TicTacToe;
        let mut t = Table::of_state_values(&game, 0.25);
        let s0 = game.initial_state();
        let s1 = game.apply(&s0, 4);
        assert!(t.row(&game, &s1).is_none());
        assert_eq!(t.first_value(&game, &s1, 0.25), 0.25);
        let r = t.row_or_insert(&game, &s1, 1, 0.25);
        assert_eq!(r, game.state_index(&s1)..game.state_index(&s1) + 1);
        t.values_mut()[r.start] = -1.0;
        assert_eq!(t.row(&game, &s1), Some(r.clone()));
        assert_eq!(t.row_or_insert(&game, &s1, 1, 0.25), r);
        assert_eq!(t.value_index_or_insert(&game, &s1, 0.25), r.start);
        assert_eq!(t.first_value(&game, &s1, 0.25), -1.0);
        assert_eq!(t.rows(), 1);
        // A game without a dense state index: rows appended by hashed key.
        let big = Hexapawn::new(HexapawnParams { rows: 4, cols: 4 }).unwrap();
        let mut t = Table::of_state_values(&big, 0.5);
        let s = big.initial_state();
        assert_eq!(t.first_value(&big, &s, 0.5), 0.5);
        let r = t.row_or_insert(&big, &s, 1, 0.5);
        assert_eq!(t.value_index_or_insert(&big, &s, 0.5), r.start);
        t.values_mut()[r.start] = 2.0;
        assert_eq!(t.first_value(&big, &s, 0.5), 2.0);
        assert_eq!(t.rows(), 1);
    }
}
