//! Tic-tac-toe, the cross-check game: small enough that every published figure about it
//! (5,478 reachable positions, 255,168 possible games, a draw) can be recomputed in milliseconds.
//!
//! X (player 0) moves first. Cells are numbered `3 * row + col` with row 0 at the top; a cell
//! is written as file + rank like a chess square, "a1" bottom left, "c3" top right. Action `i`
//! marks cell `i`; legal actions are the empty cells in ascending order. The eight symmetries
//! of the square act on the board.

use serde::{Deserialize, Serialize};

use crate::core::game::{Action, BoardCells, Game, Player, Returns, Turn};
use crate::core::picture::status;
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::io::draw::{DrawError, Grid, INK, Picture, file_letter, header, paint, player_colour};
use crate::truth::Solve;
use plotters::prelude::*;

pub const X: Player = 0;
pub const O: Player = 1;

const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];
const FULL: u16 = 0b111_111_111;

/// `HAS_LINE[m]`: the cells of `m` hold a complete line. Built at compile time: the win test
/// runs several times per move in training (environment, afterstates), a lookup beats a loop.
const HAS_LINE: [bool; 512] = {
    let mut table = [false; 512];
    let mut marks = 0;
    while marks < 512 {
        let mut i = 0;
        while i < LINES.len() {
            if LINES[i] & !(marks as u16) == 0 {
                table[marks] = true;
            }
            i += 1;
        }
        marks += 1;
    }
    table
};

/// `MARKS[m]`: the number of cells of `m`, plus [`HAS_LINE_BIT`] if they hold a complete line.
/// One load per side answers both questions a move asks (whose turn, is it over): the build
/// targets x86-64 without `popcnt`, where `count_ones` is a dozen instructions.
const MARKS: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut marks = 0;
    while marks < 512 {
        table[marks] =
            (marks as u16).count_ones() as u8 | if HAS_LINE[marks] { HAS_LINE_BIT } else { 0 };
        marks += 1;
    }
    table
};
const HAS_LINE_BIT: u8 = 0x10;

/// `EMPTY_CELLS[m]`: the cells of `m` in ascending order (the first `m.count_ones()` entries).
const EMPTY_CELLS: [[u8; 9]; 512] = {
    let mut table = [[0u8; 9]; 512];
    let mut marks = 0;
    while marks < 512 {
        let (mut cell, mut k) = (0, 0);
        while cell < 9 {
            if marks & (1 << cell) != 0 {
                table[marks][k] = cell as u8;
                k += 1;
            }
            cell += 1;
        }
        marks += 1;
    }
    table
};

/// `BASE3[m]`: the sum of `3^cell` over the cells of `m`, so that a position's dense index
/// (cell `c` the base-3 digit 0 empty, 1 X, 2 O) is `BASE3[x] + 2 * BASE3[o]`.
const BASE3: [u16; 512] = {
    let mut table = [0u16; 512];
    let mut marks = 0;
    while marks < 512 {
        let (mut cell, mut power, mut sum) = (0, 1u16, 0u16);
        while cell < 9 {
            if marks & (1 << cell) != 0 {
                sum += power;
            }
            power *= 3;
            cell += 1;
        }
        table[marks] = sum;
        marks += 1;
    }
    table
};

/// Image of each cell under each of the 8 symmetries: identity, rotations by 90/180/270
/// degrees, then reflections in the vertical axis, horizontal axis, main and anti diagonal.
const SYMMETRY: [[u8; 9]; 8] = {
    let mut table = [[0u8; 9]; 8];
    let mut cell = 0;
    while cell < 9 {
        let (r, c) = (cell / 3, cell % 3);
        let images = [
            (r, c),
            (c, 2 - r),
            (2 - r, 2 - c),
            (2 - c, r),
            (r, 2 - c),
            (2 - r, c),
            (c, r),
            (2 - c, 2 - r),
        ];
        let mut k = 0;
        while k < 8 {
            table[k][cell] = (images[k].0 * 3 + images[k].1) as u8;
            k += 1;
        }
        cell += 1;
    }
    table
};
/// The rotation by 90 degrees is undone by the one by 270; every other symmetry is its own inverse.
const INVERSE: [usize; 8] = [0, 3, 2, 1, 4, 5, 6, 7];

game_params! {
    /// Tic-tac-toe has no parameters; the struct exists so configs can say
    /// `[game] name = "tictactoe"`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TicTacToeParams {}
}

impl GameSpec for TicTacToeParams {
    const NAME: &'static str = "tictactoe";
    const SUMMARY: &'static str = "tic-tac-toe, the cross-check";
    type Game = TicTacToe;
    fn build(self) -> Result<TicTacToe, InvalidParams> {
        TicTacToe::new(self)
    }
    fn position_params(_text: &str) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
}

/// A position: the cells holding X and O (bit `i` = cell `i`). The side to move follows from
/// the counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TicTacToeState {
    pub x: u16,
    pub o: u16,
}

impl TicTacToeState {
    #[inline]
    pub fn to_move(&self) -> Player {
        let (x, o) = (
            MARKS[(self.x & FULL) as usize],
            MARKS[(self.o & FULL) as usize],
        );
        if (x ^ o) & !HAS_LINE_BIT == 0 { X } else { O }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TicTacToe;

impl TicTacToe {
    /// The square `bit`'s letter: `x`, `o` or `.`.
    fn mark(s: &TicTacToeState, bit: u16) -> char {
        if s.x & bit != 0 {
            'x'
        } else if s.o & bit != 0 {
            'o'
        } else {
            '.'
        }
    }

    pub fn new(_params: TicTacToeParams) -> Result<Self, InvalidParams> {
        Ok(TicTacToe)
    }

    pub fn winner(&self, s: &TicTacToeState) -> Option<Player> {
        let has_line = |marks: u16| HAS_LINE[(marks & FULL) as usize];
        if has_line(s.x) {
            Some(X)
        } else if has_line(s.o) {
            Some(O)
        } else {
            None
        }
    }

    fn is_over(&self, s: &TicTacToeState) -> bool {
        (s.x | s.o) == FULL || self.winner(s).is_some()
    }

    fn map_bits(b: u16, sym: usize) -> u16 {
        let mut out = 0;
        for (cell, &image) in SYMMETRY[sym].iter().enumerate() {
            if b & (1 << cell) != 0 {
                out |= 1 << image;
            }
        }
        out
    }
}

impl TicTacToe {
    /// A position as a board string: the rows from the top (rank 3 first) separated by `/`,
    /// `x`, `o` or `.` (empty) per cell: `x.o/.x./..o`. The side to move follows from the
    /// counts (x moves first), so none is written; one may be (`x` or `o`) and must agree. A
    /// position play cannot reach is refused: more o than x, x more than one ahead, both with
    /// a line, or a line whose player did not move last.
    pub fn read_board(&self, text: &str) -> Result<TicTacToeState, String> {
        use crate::core::notation::{BoardText, bad_square};
        let b = BoardText::read(text)?;
        b.expect_size(3, 3, "tic-tac-toe is 3 rows of 3 (`x.o/.x./..o`)")?;
        let mut s = TicTacToeState::default();
        for (r, row) in b.rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let bit = 1 << (3 * r + c);
                match ch.to_ascii_lowercase() {
                    'x' => s.x |= bit,
                    'o' => s.o |= bit,
                    '.' | '-' => {}
                    _ => return Err(bad_square(3, r, c, ch, "a cell is x, o or . (empty)")),
                }
            }
        }
        let (xs, os) = (s.x.count_ones(), s.o.count_ones());
        if xs < os || xs > os + 1 {
            return Err(format!(
                "{xs} x and {os} o: x moves first, so x has as many marks as o or one more"
            ));
        }
        match (self.winner(&s), HAS_LINE[s.o as usize]) {
            (Some(X), true) => return Err("both x and o have a line".into()),
            (Some(X), false) if xs == os => {
                return Err("x has a line, but o moved last (as many o as x)".into());
            }
            (Some(O), _) if xs > os => {
                return Err("o has a line, but x moved last (one x more than o)".into());
            }
            _ => {}
        }
        let to_move = s.to_move();
        if let Some(word) = &b.mover {
            let said = b.mover(&[&["x"], &["o"]], None)?;
            if said != to_move && !self.is_over(&s) {
                return Err(format!(
                    "`{word}` to move, but the counts say {} ({xs} x, {os} o)",
                    self.player_name(to_move)
                ));
            }
        }
        Ok(s)
    }

    /// The board string [`TicTacToe::read_board`] reads.
    pub fn write_board(&self, s: &TicTacToeState) -> String {
        let mut out = String::with_capacity(11);
        for r in 0..3 {
            if r > 0 {
                out.push('/');
            }
            for c in 0..3 {
                let bit = 1 << (3 * r + c);
                out.push(Self::mark(s, bit));
            }
        }
        out
    }
}

fn cell_name(cell: usize) -> String {
    let (r, c) = (cell / 3, cell % 3);
    format!("{}{}", (b'a' + c as u8) as char, 3 - r)
}

impl Game for TicTacToe {
    type State = TicTacToeState;

    fn name(&self) -> &'static str {
        TicTacToeParams::NAME
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn num_players(&self) -> usize {
        2
    }
    fn player_name(&self, player: Player) -> &'static str {
        ["x", "o"][player]
    }
    fn num_distinct_actions(&self) -> usize {
        9
    }
    fn initial_state(&self) -> TicTacToeState {
        TicTacToeState::default()
    }
    fn turn(&self, s: &TicTacToeState) -> Turn {
        if self.is_over(s) {
            Turn::Terminal
        } else {
            Turn::Player(s.to_move())
        }
    }
    /// One look at the position: both sides' counts and lines from [`MARKS`], the empty cells
    /// from [`EMPTY_CELLS`] (the same answers as `legal_actions` and `turn`).
    #[inline]
    fn turn_and_legal_actions(&self, s: &TicTacToeState, out: &mut Vec<Action>) -> Turn {
        out.clear();
        let (x, o) = (MARKS[(s.x & FULL) as usize], MARKS[(s.o & FULL) as usize]);
        let empty = !(s.x | s.o) & FULL;
        if empty == 0 || (x | o) & HAS_LINE_BIT != 0 {
            return Turn::Terminal;
        }
        // All nine entries copied, then cut to the empty cells: a copy of fixed length (no loop
        // leaving at a place that changes with every move).
        out.extend(EMPTY_CELLS[empty as usize].iter().map(|&c| c as Action));
        out.truncate((MARKS[empty as usize] & !HAS_LINE_BIT) as usize);
        Turn::Player(if (x ^ o) & !HAS_LINE_BIT == 0 { X } else { O })
    }
    fn legal_actions(&self, s: &TicTacToeState, out: &mut Vec<Action>) {
        out.clear();
        if self.is_over(s) {
            return;
        }
        let mut empty = !(s.x | s.o) & FULL;
        while empty != 0 {
            out.push(empty.trailing_zeros() as Action);
            empty &= empty - 1;
        }
    }
    fn apply(&self, s: &TicTacToeState, action: Action) -> TicTacToeState {
        debug_assert!(action < 9 && (s.x | s.o) & (1 << action) == 0);
        // Built as one 32-bit word: a 16-bit store into one field followed by the 32-bit load
        // of the whole position (the next `turn`) would stall store-to-load forwarding.
        let shift = if s.to_move() == X { 0 } else { 16 };
        let packed = (s.x as u32 | (s.o as u32) << 16) | (1u32 << action) << shift;
        TicTacToeState {
            x: packed as u16,
            o: (packed >> 16) as u16,
        }
    }
    fn returns(&self, s: &TicTacToeState) -> Returns {
        match self.winner(s) {
            Some(w) => Returns::win(2, w),
            None => Returns::zeros(2),
        }
    }
    fn action_to_string(&self, _s: &TicTacToeState, action: Action) -> String {
        cell_name(action as usize)
    }
    fn picture(&self, s: &TicTacToeState) -> Result<Picture, DrawError> {
        picture(self, s)
    }
    fn render(&self, s: &TicTacToeState) -> String {
        let mut out = String::new();
        for r in 0..3 {
            out.push_str(&format!("{}  ", 3 - r));
            for c in 0..3 {
                let bit = 1 << (3 * r + c);
                out.push(Self::mark(s, bit));
                if c < 2 {
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        out.push_str("   a b c\n");
        match (self.winner(s), self.is_over(s)) {
            (Some(w), _) => out.push_str(&format!("{} wins\n", self.player_name(w))),
            (None, true) => out.push_str("draw\n"),
            (None, false) => out.push_str(&format!("{} to move\n", self.player_name(s.to_move()))),
        }
        out
    }
    /// The board string (see [`TicTacToe::read_board`]): `x.o/.x./..o`.
    fn read_position(&self, text: &str) -> Result<TicTacToeState, String> {
        self.read_board(text)
    }
    fn write_position(&self, s: &TicTacToeState) -> Option<serde_json::Value> {
        Some(serde_json::Value::String(self.write_board(s)))
    }
    fn observation_len(&self) -> usize {
        27
    }
    /// Three planes of 9 cells: the observer's marks, the opponent's, the empty cells.
    fn observe(&self, s: &TicTacToeState, player: Player, out: &mut [f32]) {
        let (own, other) = if player == X { (s.x, s.o) } else { (s.o, s.x) };
        let empty = !(own | other);
        // Three cells at a time from a table of their eight patterns: the vector environment
        // writes an observation per environment and step, and a cell at a time took a tenth of
        // its instructions.
        const THREE: [[f32; 3]; 8] = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 1.0],
            [0.0, 1.0, 1.0],
            [1.0, 1.0, 1.0],
        ];
        let out: &mut [f32; 27] = (&mut out[..27]).try_into().expect("27 numbers");
        for (plane, bits) in [own, other, empty].into_iter().enumerate() {
            for row in 0..3 {
                let at = 9 * plane + 3 * row;
                out[at..at + 3].copy_from_slice(&THREE[usize::from((bits >> (3 * row)) & 7)]);
            }
        }
    }
    /// The nine squares, row by row from the top; 0 empty, 1 the observer's mark, 2 the
    /// opponent's (the planes of `observe`).
    fn board_cells(&self) -> Option<BoardCells> {
        Some(BoardCells::grid(3, 3, 3))
    }
    fn cell_values(&self, s: &TicTacToeState, player: Player, out: &mut [u8]) {
        let (own, other) = if player == X { (s.x, s.o) } else { (s.o, s.x) };
        for (cell, v) in out[..9].iter_mut().enumerate() {
            *v = ((own >> cell) & 1) as u8 | (((other >> cell) & 1) as u8) << 1;
        }
    }
    fn num_symmetries(&self) -> usize {
        8
    }
    fn transform_state(&self, s: &TicTacToeState, sym: usize) -> TicTacToeState {
        TicTacToeState {
            x: Self::map_bits(s.x, sym),
            o: Self::map_bits(s.o, sym),
        }
    }
    fn transform_action(&self, _s: &TicTacToeState, action: Action, sym: usize) -> Action {
        SYMMETRY[sym][action as usize] as Action
    }
    fn inverse_symmetry(&self, sym: usize) -> usize {
        INVERSE[sym]
    }
    fn state_index_len(&self) -> Option<usize> {
        Some(19_683)
    }
    fn state_index(&self, s: &TicTacToeState) -> usize {
        BASE3[(s.x & FULL) as usize] as usize + 2 * BASE3[(s.o & FULL) as usize] as usize
    }
    fn state_from_index(&self, index: usize) -> Option<TicTacToeState> {
        if index >= 19_683 {
            return None;
        }
        let (mut rest, mut s) = (index, TicTacToeState::default());
        for cell in 0..9 {
            match rest % 3 {
                1 => s.x |= 1 << cell,
                2 => s.o |= 1 << cell,
                _ => {}
            }
            rest /= 3;
        }
        Some(s)
    }
}

/// Solved by the generic retrograde analysis.
impl Solve for TicTacToe {}

/// The grid with its crosses and noughts.
fn picture(g: &TicTacToe, s: &TicTacToeState) -> Result<Picture, DrawError> {
    let (grid, width, height) = Grid::new(3, 3, 100);
    let (line, mover) = status(g, s);
    let (x_colour, o_colour) = (
        player_colour(g.player_name(0), 0),
        player_colour(g.player_name(1), 1),
    );
    paint(width, height, |area| {
        header(area, width, &line, mover)?;
        grid.draw(
            area,
            |_, _| RGBColor(255, 255, 255),
            file_letter,
            |row| (3 - row).to_string(),
        )?;
        let c = grid.cell as i32;
        for k in 1..3 {
            let (x, y) = grid.corner(k, k);
            let (x0, y0) = grid.corner(0, 0);
            let (x1, y1) = grid.corner(3, 3);
            area.draw(&PathElement::new(
                vec![(x, y0), (x, y1)],
                INK.stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(x0, y), (x1, y)],
                INK.stroke_width(2),
            ))?;
        }
        let r = c * 3 / 10;
        for row in 0..3 {
            for col in 0..3 {
                let bit = 1u16 << (3 * row + col);
                let (x, y) = grid.centre(row, col);
                if s.x & bit != 0 {
                    let style = x_colour.stroke_width(7);
                    area.draw(&PathElement::new(
                        vec![(x - r, y - r), (x + r, y + r)],
                        style,
                    ))?;
                    area.draw(&PathElement::new(
                        vec![(x - r, y + r), (x + r, y - r)],
                        style,
                    ))?;
                } else if s.o & bit != 0 {
                    area.draw(&Circle::new((x, y), r, o_colour.stroke_width(7)))?;
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_in_a_row_wins_and_full_board_draws() {
        let g = TicTacToe;
        let mut s = g.initial_state();
        for cell in ["a3", "a2", "b3", "b2", "c3"] {
            let a = g.parse_action(&s, cell).unwrap();
            s = g.apply(&s, a);
        }
        assert_eq!(g.winner(&s), Some(X));
        assert_eq!(g.turn(&s), Turn::Terminal);
        let draw = TicTacToeState {
            x: 0b011_100_101,
            o: 0b100_011_010,
        };
        assert_eq!(g.turn(&draw), Turn::Terminal);
        assert_eq!(g.returns(&draw).as_slice(), [0.0, 0.0]);
    }

    #[test]
    fn the_line_table_marks_exactly_the_masks_holding_a_line() {
        for marks in 0..512u16 {
            // Counted independently of the table's own test: three marks on one of the lines.
            let by_lines = LINES.iter().any(|&line| (line & marks).count_ones() == 3);
            assert_eq!(HAS_LINE[marks as usize], by_lines, "{marks:09b}");
        }
    }

    #[test]
    fn symmetries_are_a_group_acting_on_moves() {
        let g = TicTacToe;
        let s = TicTacToeState { x: 0b1, o: 0b10 };
        for sym in 0..8 {
            let t = g.transform_state(&s, sym);
            assert_eq!(g.transform_state(&t, g.inverse_symmetry(sym)), s);
            let mut legal = Vec::new();
            g.legal_actions(&s, &mut legal);
            for &a in &legal {
                let ta = g.transform_action(&s, a, sym);
                assert_eq!(g.apply(&t, ta), g.transform_state(&g.apply(&s, a), sym));
            }
        }
    }

    /// Every reachable position's board string reads back to it; bad strings say why.
    #[test]
    fn board_strings_round_trip_and_bad_ones_are_refused() {
        let g = TicTacToe;
        let graph = crate::core::graph::StateGraph::build(&g, 10_000).unwrap();
        for s in graph.states() {
            let text = g.write_board(s);
            assert_eq!(g.read_board(&text).as_ref(), Ok(s), "{text}");
        }
        assert_eq!(g.read_board(".../.../..."), Ok(g.initial_state()));
        assert_eq!(
            g.write_board(&g.read_board("X../.O./... x").unwrap()),
            "x../.o./..."
        );
        for (bad, says) in [
            ("x../.../..", "row 3 (from the top) has 2"),
            ("x../.../.../...", "4 rows of 3"),
            ("xq./.../...", "`q` at b3"),
            ("o../.../...", "1 o"),
            ("xx./.../...", "2 x and 0 o"),
            ("xxx/oo./o..", "o moved last"),
            ("ooo/xx./x.x", "x moved last"),
            ("x../.../... x", "`x` to move, but the counts say o"),
            ("x../.../... z", "`z` is not a side to move"),
        ] {
            let e = g.read_board(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    /// The table-driven observation against its definition, cell by cell, on every board.
    #[test]
    fn the_observation_is_its_three_planes_on_every_board() {
        let g = TicTacToe;
        let mut out = [0.0f32; 27];
        for x in 0u16..512 {
            for o in (0u16..512).filter(|o| o & x == 0) {
                let s = TicTacToeState { x, o };
                for player in [X, O] {
                    g.observe(&s, player, &mut out);
                    let (own, other) = if player == X { (x, o) } else { (o, x) };
                    for cell in 0..9 {
                        let has = |bits: u16| if bits >> cell & 1 == 1 { 1.0 } else { 0.0 };
                        assert_eq!(out[cell], has(own), "{s:?} {cell}");
                        assert_eq!(out[9 + cell], has(other), "{s:?} {cell}");
                        assert_eq!(out[18 + cell], has(!(own | other)), "{s:?} {cell}");
                    }
                }
            }
        }
    }

    #[test]
    fn dense_index_round_trips() {
        let g = TicTacToe;
        let s = TicTacToeState {
            x: 0b100_000_001,
            o: 0b000_010_000,
        };
        assert_eq!(g.state_from_index(g.state_index(&s)), Some(s));
        // Every index decodes to a position that encodes back to it.
        for index in 0..g.state_index_len().unwrap() {
            let s = g.state_from_index(index).unwrap();
            assert_eq!(g.state_index(&s), index, "{s:?}");
        }
        assert_eq!(g.state_from_index(19_683), None);
    }
}
