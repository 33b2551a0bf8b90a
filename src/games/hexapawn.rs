//! Hexapawn (Martin Gardner, 1962) on a board of any size up to 64 squares; 3x3 is Gardner's
//! game, 4x4 is "octapawn".
//!
//! Rules (Martin Gardner, "Mathematical Games", Scientific American, March 1962): White's pawns start on the
//! first rank, Black's on the last; White moves first. A pawn moves one square straight forward
//! onto an empty square, or one square diagonally forward onto an enemy pawn, capturing it. No
//! double step, no en passant, no promotion. The mover wins by reaching the far rank or by
//! capturing every enemy pawn; a player with no legal move on its turn loses. There are no draws.
//!
//! Squares are numbered `row * cols + col`, row 0 being White's home rank ("rank 1") and col 0
//! file "a". Action `3 * square + kind` moves the pawn on `square`; kind 0 captures towards the
//! lower file, 1 steps straight ahead, 2 captures towards the higher file. Legal actions are
//! listed in ascending order: by square, then kind.

use serde::{Deserialize, Serialize};

use crate::core::game::{Action, BoardCells, Capabilities, Game, Player, Returns, Turn};
use crate::core::picture::status;
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::io::draw::{
    DrawError, Grid, Picture, checkered, disc, file_letter, header, paint, player_colour,
};
use crate::truth::Solve;

pub const WHITE: Player = 0;
pub const BLACK: Player = 1;

/// Dense indices are offered while 2 * 3^(squares) stays below this many entries.
const MAX_DENSE_INDEX: usize = 1 << 22;

game_params! {
    /// Board size of a Hexapawn game.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct HexapawnParams {
        /// board rows, 2 to 64; rows x cols at most 64
        pub rows: usize = 3,
        /// board columns, 1 to 26
        pub cols: usize = 3,
    }
}

impl GameSpec for HexapawnParams {
    const NAME: &'static str = "hexapawn";
    const SUMMARY: &'static str = "Gardner's Hexapawn; 4x4 is octapawn";
    type Game = Hexapawn;
    fn build(self) -> Result<Hexapawn, InvalidParams> {
        Hexapawn::new(self)
    }
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        board_params(text)
    }
}

game_params! {
    /// Octapawn: Hexapawn on 4x4 unless told otherwise.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct OctapawnParams {
        /// board rows
        pub rows: usize = 4,
        /// board columns
        pub cols: usize = 4,
    }
}

impl GameSpec for OctapawnParams {
    const NAME: &'static str = "octapawn";
    const SUMMARY: &'static str =
        "Hexapawn on 4x4 (another name for hexapawn with rows = cols = 4)";
    type Game = Hexapawn;
    fn build(self) -> Result<Hexapawn, InvalidParams> {
        Hexapawn::new(HexapawnParams {
            rows: self.rows,
            cols: self.cols,
        })
    }
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        board_params(text)
    }
}

/// A Hexapawn position: the two sides' pawns as bitboards and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HexapawnState {
    pub white: u64,
    pub black: u64,
    /// 0 = White to move, 1 = Black to move.
    pub to_move: u8,
}

#[derive(Clone, Debug)]
pub struct Hexapawn {
    rows: usize,
    cols: usize,
    first_row: u64,
    last_row: u64,
    dense: bool,
    /// `targets[player][sq][kind]`: the bit of [`Hexapawn::target`], 0 off the board.
    targets: std::sync::Arc<[Vec<[u64; 3]>; 2]>,
}

impl Hexapawn {
    /// The square `bit`'s letter: `w`, `b` or `.`.
    fn mark(s: &HexapawnState, bit: u64) -> char {
        if s.white & bit != 0 {
            'w'
        } else if s.black & bit != 0 {
            'b'
        } else {
            '.'
        }
    }

    /// A game on `rows` x `cols` squares (2 <= rows, 1 <= cols, at most 64 squares, at most 26
    /// files so squares have names).
    pub fn new(params: HexapawnParams) -> Result<Self, InvalidParams> {
        let HexapawnParams { rows, cols } = params;
        if !(2..=64).contains(&rows) {
            return Err(InvalidParams::new(
                "rows",
                rows,
                "Hexapawn needs 2 to 64 rows",
            ));
        }
        if !(1..=26).contains(&cols) {
            return Err(InvalidParams::new(
                "cols",
                cols,
                "Hexapawn needs 1 to 26 columns",
            ));
        }
        if rows * cols > 64 {
            return Err(InvalidParams::new(
                "rows",
                rows,
                format!(
                    "{rows} x {cols} = {} squares; at most 64 are supported",
                    rows * cols
                ),
            ));
        }
        let squares = rows * cols;
        let first_row = (1u64 << cols) - 1;
        let last_row = first_row << ((rows - 1) * cols);
        let dense = 3usize
            .checked_pow(squares as u32)
            .is_some_and(|n| n.saturating_mul(2) <= MAX_DENSE_INDEX);
        let mut game = Hexapawn {
            rows,
            cols,
            first_row,
            last_row,
            dense,
            targets: std::sync::Arc::new([Vec::new(), Vec::new()]),
        };
        let table = |player: Player| -> Vec<[u64; 3]> {
            (0..squares)
                .map(|sq| [0, 1, 2].map(|kind| game.target(player, sq, kind).map_or(0, |t| 1 << t)))
                .collect()
        };
        game.targets = std::sync::Arc::new([table(WHITE), table(BLACK)]);
        Ok(game)
    }

    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }

    fn square_name(&self, sq: usize) -> String {
        let (r, c) = (sq / self.cols, sq % self.cols);
        format!("{}{}", (b'a' + c as u8) as char, r + 1)
    }

    /// The target square of `kind` from `sq` for `player`, if it is on the board.
    fn target(&self, player: Player, sq: usize, kind: u32) -> Option<usize> {
        let (r, c) = (sq / self.cols, sq % self.cols);
        let r2 = if player == WHITE {
            if r + 1 >= self.rows {
                return None;
            }
            r + 1
        } else {
            r.checked_sub(1)?
        };
        let c2 = match kind {
            0 => c.checked_sub(1)?,
            1 => c,
            _ => {
                if c + 1 >= self.cols {
                    return None;
                }
                c + 1
            }
        };
        Some(r2 * self.cols + c2)
    }

    fn is_legal_move(&self, s: &HexapawnState, sq: usize, kind: u32) -> bool {
        let player = s.to_move as Player;
        let (own, enemy) = if player == WHITE {
            (s.white, s.black)
        } else {
            (s.black, s.white)
        };
        if own & (1 << sq) == 0 {
            return false;
        }
        let t = self.targets[player][sq][kind as usize];
        if kind == 1 {
            t != 0 && (own | enemy) & t == 0
        } else {
            enemy & t != 0
        }
    }

    fn has_move(&self, s: &HexapawnState) -> bool {
        let own = if s.to_move as Player == WHITE {
            s.white
        } else {
            s.black
        };
        bits(own).any(|sq| (0..3).any(|kind| self.is_legal_move(s, sq, kind)))
    }

    /// The winner of a finished game, `None` while play goes on.
    pub fn winner(&self, s: &HexapawnState) -> Option<Player> {
        self.decided(s)
            .or_else(|| (!self.has_move(s)).then(|| 1 - s.to_move as Player))
    }

    /// The winner by the last move: a pawn on the far rank, or no enemy pawn left.
    fn decided(&self, s: &HexapawnState) -> Option<Player> {
        if s.white & self.last_row != 0 || s.black == 0 {
            Some(WHITE)
        } else if s.black & self.first_row != 0 || s.white == 0 {
            Some(BLACK)
        } else {
            None
        }
    }

    fn mirror_square(&self, sq: usize) -> usize {
        let (r, c) = (sq / self.cols, sq % self.cols);
        r * self.cols + (self.cols - 1 - c)
    }

    fn mirror_bits(&self, b: u64) -> u64 {
        bits(b).fold(0, |acc, sq| acc | 1 << self.mirror_square(sq))
    }
}

impl Hexapawn {
    /// A position as a board string: the rows from the top (Black's home rank first)
    /// separated by `/`, `w` (a white pawn), `b` (a black pawn) or `.` per square, then a
    /// space and the side to move (`w`/`white` or `b`/`black`): the start of Gardner's game is
    /// `bbb/.../www w`. The board's rows and columns are the game's (`moves`, `play` and `solve`
    /// take them from the string). A position play cannot reach is refused: more pawns of a
    /// side than files, both sides' winning conditions at once, or a finished game whose
    /// winner is to move.
    pub fn read_board(&self, text: &str) -> Result<HexapawnState, String> {
        use crate::core::notation::{BoardText, bad_square};
        let b = BoardText::read(text)?;
        b.expect_size(
            self.rows,
            self.cols,
            &format!(
                "the game is {} rows of {} (--rows {} --cols {})",
                self.rows, self.cols, self.rows, self.cols
            ),
        )?;
        let (mut white, mut black) = (0u64, 0u64);
        for (i, row) in b.rows.iter().enumerate() {
            let r = self.rows - 1 - i;
            for (c, &ch) in row.iter().enumerate() {
                let bit = 1u64 << (r * self.cols + c);
                match ch {
                    'w' | 'W' => white |= bit,
                    'b' | 'B' => black |= bit,
                    '.' | '-' => {}
                    _ => {
                        return Err(bad_square(
                            self.rows,
                            i,
                            c,
                            ch,
                            "a square is w (white pawn), b (black pawn) or . (empty)",
                        ));
                    }
                }
            }
        }
        let to_move = b.mover(&[&["w", "white"], &["b", "black"]], None)?;
        for (name, pawns) in [("white", white), ("black", black)] {
            if pawns.count_ones() as usize > self.cols {
                return Err(format!(
                    "{} {name} pawns on {} files: a side starts with one pawn per file",
                    pawns.count_ones(),
                    self.cols
                ));
            }
        }
        let s = HexapawnState {
            white,
            black,
            to_move: to_move as u8,
        };
        let white_won = white & self.last_row != 0 || black == 0;
        let black_won = black & self.first_row != 0 || white == 0;
        if white_won && black_won {
            return Err(
                "both sides have won (a pawn on the far rank or no enemy pawn left): the game \
                 ends at the first"
                    .into(),
            );
        }
        if let Some(w) = self.decided(&s)
            && w == to_move
        {
            return Err(format!(
                "{0} has won already, so {0} moved last: {1} is to move",
                self.player_name(w),
                self.player_name(1 - w)
            ));
        }
        Ok(s)
    }

    /// The board string [`Hexapawn::read_board`] reads.
    pub fn write_board(&self, s: &HexapawnState) -> String {
        let mut out = String::new();
        for r in (0..self.rows).rev() {
            for c in 0..self.cols {
                let bit = 1u64 << (r * self.cols + c);
                out.push(Self::mark(s, bit));
            }
            out.push(if r > 0 { '/' } else { ' ' });
        }
        out.push(if s.to_move as Player == WHITE {
            'w'
        } else {
            'b'
        });
        out
    }
}

/// The rows and columns a Hexapawn board string implies (`moves`, `play` and `solve` take
/// them from `--state`): nothing where the text is not a board.
pub fn board_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    if let Some(b) = crate::core::notation::BoardText::read_if(text, "wWbB") {
        m.insert("rows".into(), b.rows.len().into());
        m.insert("cols".into(), b.rows[0].len().into());
    }
    m
}

/// The set squares of a bitboard, ascending.
fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let sq = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(sq)
        }
    })
}

impl Game for Hexapawn {
    type State = HexapawnState;

    fn name(&self) -> &'static str {
        HexapawnParams::NAME
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({ "rows": self.rows, "cols": self.cols })
    }
    fn num_players(&self) -> usize {
        2
    }
    fn player_name(&self, player: Player) -> &'static str {
        ["white", "black"][player]
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            states_estimate: Some(self.states_estimate()),
            ..Capabilities::enumerable(2)
        }
    }
    fn num_distinct_actions(&self) -> usize {
        3 * self.rows * self.cols
    }
    fn initial_state(&self) -> HexapawnState {
        HexapawnState {
            white: self.first_row,
            black: self.last_row,
            to_move: WHITE as u8,
        }
    }
    fn turn(&self, s: &HexapawnState) -> Turn {
        match self.winner(s) {
            Some(_) => Turn::Terminal,
            None => Turn::Player(s.to_move as Player),
        }
    }
    fn turn_and_legal_actions(&self, s: &HexapawnState, out: &mut Vec<Action>) -> Turn {
        // The legal actions as `legal_actions` makes them; none left ends the game.
        self.legal_actions(s, out);
        if out.is_empty() {
            Turn::Terminal
        } else {
            Turn::Player(s.to_move as Player)
        }
    }
    fn legal_actions(&self, s: &HexapawnState, out: &mut Vec<Action>) {
        out.clear();
        // Generating no move means the side to move has none: the game is over anyway.
        if self.decided(s).is_some() {
            return;
        }
        let own = if s.to_move as Player == WHITE {
            s.white
        } else {
            s.black
        };
        for sq in bits(own) {
            for kind in 0..3 {
                if self.is_legal_move(s, sq, kind) {
                    out.push(3 * sq as Action + kind);
                }
            }
        }
    }
    fn apply(&self, s: &HexapawnState, action: Action) -> HexapawnState {
        let (sq, kind) = ((action / 3) as usize, action % 3);
        debug_assert!(self.is_legal_move(s, sq, kind), "illegal move {action}");
        let player = s.to_move as Player;
        let to = self
            .target(player, sq, kind)
            .expect("apply: move leaves the board");
        let (from_bit, to_bit) = (1u64 << sq, 1u64 << to);
        let mut next = *s;
        if player == WHITE {
            next.white = (s.white & !from_bit) | to_bit;
            next.black = s.black & !to_bit;
        } else {
            next.black = (s.black & !from_bit) | to_bit;
            next.white = s.white & !to_bit;
        }
        next.to_move = 1 - s.to_move;
        next
    }
    fn returns(&self, s: &HexapawnState) -> Returns {
        match self.winner(s) {
            Some(w) => Returns::win(2, w),
            None => Returns::zeros(2),
        }
    }
    fn action_to_string(&self, s: &HexapawnState, action: Action) -> String {
        let (sq, kind) = ((action / 3) as usize, action % 3);
        match self.target(s.to_move as Player, sq, kind) {
            Some(to) => format!(
                "{}{}{}",
                self.square_name(sq),
                if kind == 1 { '-' } else { 'x' },
                self.square_name(to)
            ),
            None => format!("#{action}"),
        }
    }
    fn picture(&self, s: &HexapawnState) -> Result<Picture, DrawError> {
        picture(self, s)
    }
    fn render(&self, s: &HexapawnState) -> String {
        let mut out = String::new();
        for r in (0..self.rows).rev() {
            out.push_str(&format!("{:>2} ", r + 1));
            for c in 0..self.cols {
                let bit = 1u64 << (r * self.cols + c);
                out.push(' ');
                out.push(Self::mark(s, bit));
            }
            out.push('\n');
        }
        out.push_str("   ");
        for c in 0..self.cols {
            out.push(' ');
            out.push((b'a' + c as u8) as char);
        }
        out.push('\n');
        match self.winner(s) {
            Some(w) => out.push_str(&format!("{} wins\n", self.player_name(w))),
            None => out.push_str(&format!(
                "{} to move\n",
                self.player_name(s.to_move as Player)
            )),
        }
        out
    }
    /// The board string (see [`Hexapawn::read_board`]): `bbb/.../www w`.
    fn read_position(&self, text: &str) -> Result<HexapawnState, String> {
        self.read_board(text)
    }
    fn write_position(&self, s: &HexapawnState) -> Option<serde_json::Value> {
        Some(serde_json::Value::String(self.write_board(s)))
    }
    fn observation_len(&self) -> usize {
        2 * self.rows * self.cols + 1
    }
    fn observe(&self, s: &HexapawnState, _player: Player, out: &mut [f32]) {
        let n = self.rows * self.cols;
        for sq in 0..n {
            out[sq] = ((s.white >> sq) & 1) as f32;
            out[n + sq] = ((s.black >> sq) & 1) as f32;
        }
        out[2 * n] = if s.to_move as Player == WHITE {
            1.0
        } else {
            0.0
        };
    }
    /// Every square; 0 empty, 1 the observer's pawn, 2 the opponent's, the board turned for
    /// Black so that the observer's pawns always move up (cell 0 is the observer's left corner
    /// of its home rank). The side to move is not a cell: of an afterstate it is the observer's
    /// opponent.
    fn board_cells(&self) -> Option<BoardCells> {
        let mut cells = BoardCells::grid(self.rows, self.cols, 3);
        // Cell `sq` is square `sq` (row 0 the home rank, at the bottom).
        for (sq, square) in cells.squares.iter_mut().enumerate() {
            *square = (self.rows - 1 - sq / self.cols, sq % self.cols);
        }
        Some(cells)
    }
    fn cell_values(&self, s: &HexapawnState, player: Player, out: &mut [u8]) {
        let n = self.rows * self.cols;
        let (own, other) = if player == WHITE {
            (s.white, s.black)
        } else {
            (s.black, s.white)
        };
        for (cell, v) in out[..n].iter_mut().enumerate() {
            let sq = if player == WHITE { cell } else { n - 1 - cell };
            *v = ((own >> sq) & 1) as u8 | (((other >> sq) & 1) as u8) << 1;
        }
    }
    fn num_symmetries(&self) -> usize {
        2
    }
    fn transform_state(&self, s: &HexapawnState, sym: usize) -> HexapawnState {
        if sym == 0 {
            return *s;
        }
        HexapawnState {
            white: self.mirror_bits(s.white),
            black: self.mirror_bits(s.black),
            to_move: s.to_move,
        }
    }
    fn transform_action(&self, _s: &HexapawnState, action: Action, sym: usize) -> Action {
        if sym == 0 {
            return action;
        }
        let (sq, kind) = ((action / 3) as usize, action % 3);
        3 * self.mirror_square(sq) as Action + (2 - kind)
    }
    fn state_index_len(&self) -> Option<usize> {
        self.dense
            .then(|| 2 * 3usize.pow((self.rows * self.cols) as u32))
    }
    fn state_index(&self, s: &HexapawnState) -> usize {
        let mut index = 0;
        for sq in (0..self.rows * self.cols).rev() {
            let digit = ((s.white >> sq) & 1) + 2 * ((s.black >> sq) & 1);
            index = 3 * index + digit as usize;
        }
        2 * index + s.to_move as usize
    }
    fn state_from_index(&self, index: usize) -> Option<HexapawnState> {
        if !self.dense || index >= self.state_index_len()? {
            return None;
        }
        let to_move = (index % 2) as u8;
        let mut rest = index / 2;
        let (mut white, mut black) = (0u64, 0u64);
        for sq in 0..self.rows * self.cols {
            match rest % 3 {
                1 => white |= 1 << sq,
                2 => black |= 1 << sq,
                _ => {}
            }
            rest /= 3;
        }
        Some(HexapawnState {
            white,
            black,
            to_move,
        })
    }
}

/// Solved by the generic retrograde analysis.
impl Hexapawn {
    /// The positions with at most `cols` pawns of each colour on the board's cells, either
    /// side to move: a bound on the reachable ones (5x5: 3.2 x 10^9 for 3,210,411 reached), so
    /// that a board far too large (8x8: 1.8 x 10^19) is refused before enumeration starts.
    pub fn states_estimate(&self) -> u64 {
        let n = self.rows * self.cols;
        let choose = |n: usize, k: usize| -> f64 {
            (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
        };
        let mut total = 0.0;
        for white in 0..=self.cols.min(n) {
            for black in 0..=self.cols.min(n - white) {
                total += choose(n, white) * choose(n - white, black);
            }
        }
        // `as` saturates: a board past 2^64 positions estimates u64::MAX.
        (2.0 * total) as u64
    }
}

impl Solve for Hexapawn {}

/// The board with its pawns, White's home rank at the bottom.
fn picture(g: &Hexapawn, s: &HexapawnState) -> Result<Picture, DrawError> {
    let (rows, cols) = (g.rows() as u32, g.cols() as u32);
    let (grid, width, height) = Grid::new(rows, cols, 64);
    let (line, mover) = status(g, s);
    // Display row 0 is the top rank (Black's home row); rank 1 is White's.
    let square = |row: u32, col: u32| (rows - 1 - row) * cols + col;
    paint(width, height, |area| {
        header(area, width, &line, mover)?;
        grid.draw(
            area,
            |row, col| checkered(rows - 1 - row, col + 1),
            file_letter,
            |row| (rows - row).to_string(),
        )?;
        for row in 0..rows {
            for col in 0..cols {
                let bit = 1u64 << square(row, col);
                let side = if s.white & bit != 0 {
                    0
                } else if s.black & bit != 0 {
                    1
                } else {
                    continue;
                };
                let colour = player_colour(g.player_name(side), side);
                disc(area, grid.centre(row, col), grid.piece_radius(), colour, "")?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Hexapawn {
        Hexapawn::new(HexapawnParams::default()).unwrap()
    }

    fn play(g: &Hexapawn, moves: &[&str]) -> HexapawnState {
        let mut s = g.initial_state();
        for m in moves {
            let a = g.parse_action(&s, m).unwrap_or_else(|e| panic!("{e}"));
            s = g.apply(&s, a);
        }
        s
    }

    #[test]
    fn the_estimate_bounds_the_reachable_states_and_refuses_big_boards_up_front() {
        for (rows, cols) in [(3, 3), (3, 4), (4, 4), (4, 3), (2, 5)] {
            let g = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
            let reached = crate::core::graph::StateGraph::build(&g, 1_000_000)
                .unwrap()
                .len() as u64;
            assert!(g.states_estimate() >= reached, "{rows}x{cols}");
        }
        let g = Hexapawn::new(HexapawnParams { rows: 8, cols: 8 }).unwrap();
        assert!(matches!(
            crate::core::graph::StateGraph::build(&g, 50_000_000),
            Err(crate::core::graph::GraphError::TooLarge { .. })
        ));
        // 5x5 (3,210,411 states) is still tried.
        let g = Hexapawn::new(HexapawnParams { rows: 5, cols: 5 }).unwrap();
        assert!(g.capabilities().size_refusal(50_000_000).is_none());
    }

    #[test]
    fn opening_moves_are_three_straight_steps() {
        let g = game();
        let s = g.initial_state();
        let mut legal = Vec::new();
        g.legal_actions(&s, &mut legal);
        let names: Vec<_> = legal.iter().map(|&a| g.action_to_string(&s, a)).collect();
        assert_eq!(names, ["a1-a2", "b1-b2", "c1-c2"]);
        assert_eq!(g.turn(&s), Turn::Player(WHITE));
    }

    #[test]
    fn captures_are_diagonal_and_straight_moves_need_an_empty_square() {
        let g = game();
        let s = play(&g, &["b1-b2"]);
        let mut legal = Vec::new();
        g.legal_actions(&s, &mut legal);
        let names: Vec<_> = legal.iter().map(|&a| g.action_to_string(&s, a)).collect();
        // b3 is blocked by the white pawn on b2; a3 and c3 may step or capture.
        assert_eq!(names, ["a3-a2", "a3xb2", "c3xb2", "c3-c2"]);
        let after = play(&g, &["b1-b2", "a3xb2"]);
        assert_eq!(after.white.count_ones(), 2);
        assert_eq!(after.black.count_ones(), 3);
    }

    #[test]
    fn reaching_the_far_rank_wins() {
        let g = game();
        // White a1 and b2, Black a3 and c3, White to move: b2-b3 reaches the far rank.
        let before = HexapawnState {
            white: 1 | 1 << 4,
            black: 1 << 6 | 1 << 8,
            to_move: WHITE as u8,
        };
        assert_eq!(g.winner(&before), None);
        let s = g.apply(&before, g.parse_action(&before, "b2-b3").unwrap());
        assert_eq!(g.winner(&s), Some(WHITE));
        assert_eq!(g.turn(&s), Turn::Terminal);
        assert_eq!(g.returns(&s).as_slice(), [1.0, -1.0]);
    }

    #[test]
    fn no_legal_move_loses() {
        let g = game();
        // White a1 blocked by Black a2, nothing to capture on b2: White to move has no move.
        let s = HexapawnState {
            white: 1,
            black: 1 << 3 | 1 << 8,
            to_move: WHITE as u8,
        };
        assert_eq!(g.winner(&s), Some(BLACK));
    }

    #[test]
    fn capturing_every_enemy_pawn_wins() {
        let g = game();
        let s = HexapawnState {
            white: 1 << 4,
            black: 0,
            to_move: BLACK as u8,
        };
        assert_eq!(g.winner(&s), Some(WHITE));
    }

    #[test]
    fn illegal_input_lists_legal_moves() {
        let g = game();
        let s = g.initial_state();
        let err = g.parse_action(&s, "a1-a3").unwrap_err();
        assert!(err.to_string().contains("a1-a2, b1-b2, c1-c2"), "{err}");
        assert!(g.try_apply(&s, 5).is_err());
    }

    #[test]
    fn mirror_maps_moves_to_mirrored_moves() {
        let g = game();
        let s = play(&g, &["a1-a2"]);
        let m = g.transform_state(&s, 1);
        assert_eq!(m, play(&g, &["c1-c2"]));
        let mut legal = Vec::new();
        g.legal_actions(&s, &mut legal);
        for &a in &legal {
            let ma = g.transform_action(&s, a, 1);
            assert_eq!(g.apply(&m, ma), g.transform_state(&g.apply(&s, a), 1));
        }
    }

    #[test]
    fn rejects_impossible_boards() {
        assert!(Hexapawn::new(HexapawnParams { rows: 1, cols: 3 }).is_err());
        assert!(Hexapawn::new(HexapawnParams { rows: 9, cols: 8 }).is_err());
        assert!(Hexapawn::new(HexapawnParams { rows: 8, cols: 8 }).is_ok());
    }

    /// Every reachable position's board string reads back to it, on boards of several
    /// sizes; bad strings say why.
    #[test]
    fn board_strings_round_trip_and_bad_ones_are_refused() {
        for (rows, cols) in [(3, 3), (4, 4), (2, 5), (5, 2), (3, 1)] {
            let g = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
            let graph = crate::core::graph::StateGraph::build(&g, 1_000_000).unwrap();
            for s in graph.states() {
                let text = g.write_board(s);
                assert_eq!(g.read_board(&text).as_ref(), Ok(s), "{text}");
                assert_eq!(board_params(&text)["rows"], rows);
            }
        }
        let g = game();
        assert_eq!(g.write_board(&g.initial_state()), "bbb/.../www w");
        assert_eq!(g.read_board("BBB/.../WWW White"), Ok(g.initial_state()));
        for (bad, says) in [
            ("bbb/.../www", "no side to move"),
            ("bbb/.../www x", "`x` is not a side to move"),
            (
                "bbbb/..../wwww w",
                "the game is 3 rows of 3 (--rows 3 --cols 3)",
            ),
            ("bbb/.k./www w", "`k` at b2"),
            ("bbb/..b/www w", "4 black pawns on 3 files"),
            ("b.w/.../b.w w", "both sides have won"),
            ("..w/.b./... w", "white has won already"),
            ("bbb/.../www w extra", "`extra` after the side to move"),
        ] {
            let e = g.read_board(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn dense_index_round_trips() {
        let g = game();
        let s = play(&g, &["b1-b2", "a3xb2"]);
        let i = g.state_index(&s);
        assert!(i < g.state_index_len().unwrap());
        assert_eq!(g.state_from_index(i), Some(s));
        let big = Hexapawn::new(HexapawnParams { rows: 4, cols: 4 }).unwrap();
        assert_eq!(big.state_index_len(), None);
    }
}
