//! The track: start (cell 0), the cells of a cell string, the goal (the last cell). Cells are
//! written as the rules file writes them: `H` hare, `C` carrot, `I` hedgehog (Igel), `S` salad,
//! `1` the "1/5/6" number cell, `2`, `3`, `4` number cells.

use std::fmt;

/// The Ravensburger 2008 board (layout B), cells 1..63.
pub const LAYOUT_2008: &str = "HCH3CH124SI3CHI124I3CS2IHC432IH1CH23ICHC2SI34H21CIH324CISHC1CHC";
/// The classic board of the board photo (layout A), cells 1..63.
pub const LAYOUT_CLASSIC: &str = "HCH3CHSI42I3CHI124I3CS2IHC432IH1CH23ICHC2SI34H21CIH324CISHC2HSH";

/// The longest track: cells and the goal fit a 128-bit occupancy mask.
pub const MAX_TRACK: usize = 125;

/// What a cell is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Start,
    Hare,
    Carrot,
    Hedgehog,
    Salad,
    /// A number cell: 1 stands for "1/5/6", 2, 3 and 4 for themselves.
    Number(u8),
    Goal,
}

impl Cell {
    /// The letter in a cell string (`>` and `#` draw the start and the goal, which a cell
    /// string leaves out).
    pub fn letter(self) -> char {
        match self {
            Cell::Start => '>',
            Cell::Hare => 'H',
            Cell::Carrot => 'C',
            Cell::Hedgehog => 'I',
            Cell::Salad => 'S',
            Cell::Number(k) => (b'0' + k) as char,
            Cell::Goal => '#',
        }
    }

    /// The cell's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Cell::Start => "start",
            Cell::Hare => "hare",
            Cell::Carrot => "carrot",
            Cell::Hedgehog => "hedgehog",
            Cell::Salad => "salad",
            Cell::Number(1) => "number 1/5/6",
            Cell::Number(2) => "number 2",
            Cell::Number(3) => "number 3",
            Cell::Number(_) => "number 4",
            Cell::Goal => "goal",
        }
    }

    /// Whether a hare in race position `rank` is paid on this number cell.
    pub fn pays(self, rank: u8) -> bool {
        match self {
            Cell::Number(1) => matches!(rank, 1 | 5 | 6),
            Cell::Number(k) => k == rank,
            _ => false,
        }
    }
}

/// A track with its precomputed neighbours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Cells 0 (start) ..= goal.
    cells: Vec<Cell>,
    /// The track as given (cells 1..goal-1).
    text: String,
    /// For each cell, the nearest hedgehog strictly behind it (0: none).
    hedgehog_behind: Vec<u8>,
    /// For each cell, the nearest carrot cell strictly ahead (0: none) and strictly behind (0: none).
    carrot_ahead: Vec<u8>,
    carrot_behind: Vec<u8>,
    /// Bit i set where cell i is a hedgehog.
    hedgehogs: u128,
    /// Bit i set where cell i is a salad cell.
    salads: u128,
}

/// A cell string that is not a track.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the track is empty: give at least one cell")]
    Empty,
    #[error("{len} cells: a track has at most {MAX_TRACK}")]
    TooLong { len: usize },
    #[error(
        "cell {cell} is `{found}`: cells are H (hare), C (carrot), I (hedgehog), S (salad), 1 (1/5/6), 2, 3, 4 (number cells); start and goal are implied"
    )]
    Letter { cell: usize, found: char },
}

impl Board {
    /// The board named `2008` (layout B) or `classic` (layout A), or a cell string.
    pub fn parse(text: &str) -> Result<Board, BoardError> {
        let cells = match text.trim().to_ascii_lowercase().as_str() {
            "2008" | "b" | "layout-b" => LAYOUT_2008,
            "classic" | "a" | "layout-a" => LAYOUT_CLASSIC,
            _ => text.trim(),
        };
        Board::from_cells(cells)
    }

    fn from_cells(text: &str) -> Result<Board, BoardError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            return Err(BoardError::Empty);
        }
        if chars.len() > MAX_TRACK {
            return Err(BoardError::TooLong { len: chars.len() });
        }
        let mut cells = vec![Cell::Start];
        for (i, &c) in chars.iter().enumerate() {
            cells.push(match c.to_ascii_uppercase() {
                'H' => Cell::Hare,
                'C' => Cell::Carrot,
                'I' => Cell::Hedgehog,
                'S' => Cell::Salad,
                '1'..='4' => Cell::Number(c as u8 - b'0'),
                found => return Err(BoardError::Letter { cell: i + 1, found }),
            });
        }
        cells.push(Cell::Goal);
        let n = cells.len();
        let (mut hedgehog_behind, mut carrot_behind) = (vec![0u8; n], vec![0u8; n]);
        let (mut last_hedgehog, mut last_carrot) = (0u8, 0u8);
        for i in 0..n {
            hedgehog_behind[i] = last_hedgehog;
            carrot_behind[i] = last_carrot;
            match cells[i] {
                Cell::Hedgehog => last_hedgehog = i as u8,
                Cell::Carrot => last_carrot = i as u8,
                _ => {}
            }
        }
        let mut carrot_ahead = vec![0u8; n];
        let mut next = 0u8;
        for i in (0..n).rev() {
            carrot_ahead[i] = next;
            if cells[i] == Cell::Carrot {
                next = i as u8;
            }
        }
        let mask = |kind: Cell| {
            cells
                .iter()
                .enumerate()
                .filter(|(_, c)| **c == kind)
                .fold(0u128, |m, (i, _)| m | 1 << i)
        };
        Ok(Board {
            hedgehogs: mask(Cell::Hedgehog),
            salads: mask(Cell::Salad),
            text: chars.iter().map(|c| c.to_ascii_uppercase()).collect(),
            cells,
            hedgehog_behind,
            carrot_ahead,
            carrot_behind,
        })
    }

    /// The goal's index (the track's length plus one).
    pub fn goal(&self) -> u8 {
        (self.cells.len() - 1) as u8
    }

    pub fn cell(&self, i: u8) -> Cell {
        self.cells[i as usize]
    }

    /// The track's cells 1..goal-1 as a cell string.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The nearest hedgehog strictly behind `i` (0: none).
    pub fn hedgehog_behind(&self, i: u8) -> u8 {
        self.hedgehog_behind[i as usize]
    }

    pub fn carrot_ahead(&self, i: u8) -> u8 {
        self.carrot_ahead[i as usize]
    }

    pub fn carrot_behind(&self, i: u8) -> u8 {
        self.carrot_behind[i as usize]
    }

    pub fn is_hedgehog(&self, i: u8) -> bool {
        self.hedgehogs >> i & 1 == 1
    }

    pub fn is_salad(&self, i: u8) -> bool {
        self.salads >> i & 1 == 1
    }

    /// Bit i set where cell i is a hedgehog.
    pub fn hedgehog_mask(&self) -> u128 {
        self.hedgehogs
    }

    /// Bit i set where cell i is a salad cell.
    pub fn salad_mask(&self) -> u128 {
        self.salads
    }

    /// Salad cells strictly ahead of `i`.
    pub fn salads_ahead(&self, i: u8) -> u32 {
        (self.salads >> i >> 1).count_ones()
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a forward move of `n` cells costs: n(n+1)/2 carrots.
pub const fn cost(n: u32) -> u32 {
    n * (n + 1) / 2
}

/// The longest forward move `carrots` pay for: the largest n with n(n+1)/2 <= carrots.
pub fn reach(carrots: u32) -> u32 {
    // The reference AI's closed form, in integers.
    (((8 * u64::from(carrots) + 1).isqrt() - 1) / 2) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_layouts_have_the_published_cell_counts() {
        let count = |b: &Board, c: Cell| (0..=b.goal()).filter(|&i| b.cell(i) == c).count();
        let b = Board::parse("2008").unwrap();
        assert_eq!(b.goal(), 64);
        let want = [
            (Cell::Carrot, 13),
            (Cell::Hare, 12),
            (Cell::Hedgehog, 9),
            (Cell::Number(2), 8),
            (Cell::Number(3), 7),
            (Cell::Number(4), 5),
            (Cell::Number(1), 5),
            (Cell::Salad, 4),
        ];
        for (c, n) in want {
            assert_eq!(count(&b, c), n, "{c:?}");
        }
        let hedgehogs: Vec<u8> = (0..64).filter(|&i| b.is_hedgehog(i)).collect();
        assert_eq!(hedgehogs, [11, 15, 19, 24, 30, 37, 43, 50, 56]);
        let salads: Vec<u8> = (0..64).filter(|&i| b.is_salad(i)).collect();
        assert_eq!(salads, [10, 22, 42, 57]);
        // The tiles R08 prints with their board index.
        assert_eq!(b.cell(9), Cell::Number(4));
        assert_eq!(b.cell(13), Cell::Carrot);
        assert_eq!(b.cell(14), Cell::Hare);
        assert_eq!(b.cell(16), Cell::Number(1));
        assert_eq!(b.cell(63), Cell::Carrot);

        let a = Board::parse("classic").unwrap();
        let want = [
            (Cell::Hare, 13),
            (Cell::Carrot, 11),
            (Cell::Hedgehog, 10),
            (Cell::Number(2), 9),
            (Cell::Number(3), 7),
            (Cell::Number(4), 5),
            (Cell::Number(1), 3),
            (Cell::Salad, 5),
        ];
        for (c, n) in want {
            assert_eq!(count(&a, c), n, "{c:?}");
        }
        assert_eq!(a.hedgehog_behind(9), 8);
    }

    #[test]
    fn costs_and_reach() {
        let costs: Vec<u32> = (1..=10).map(cost).collect();
        assert_eq!(costs, [1, 3, 6, 10, 15, 21, 28, 36, 45, 55]);
        assert_eq!((cost(23), cost(44), cost(64)), (276, 990, 2080));
        assert_eq!((reach(68), reach(98), reach(10), reach(0)), (11, 13, 4, 0));
        for c in 0..5000 {
            let n = reach(c);
            assert!(cost(n) <= c && cost(n + 1) > c, "{c}");
        }
    }

    #[test]
    fn neighbours_and_errors() {
        let b = Board::parse("2008").unwrap();
        assert_eq!(b.hedgehog_behind(14), 11);
        assert_eq!(b.hedgehog_behind(11), 0);
        assert_eq!(b.hedgehog_behind(15), 11);
        assert_eq!(b.carrot_ahead(0), 2);
        assert_eq!(b.carrot_behind(5), 2);
        assert_eq!(b.salads_ahead(0), 4);
        assert_eq!(b.salads_ahead(57), 0);
        assert_eq!(Board::parse("").unwrap_err(), BoardError::Empty);
        assert_eq!(
            Board::parse("HCX").unwrap_err(),
            BoardError::Letter {
                cell: 3,
                found: 'X'
            }
        );
        assert!(Board::parse(&"C".repeat(126)).is_err());
        assert_eq!(Board::parse("hc1").unwrap().text(), "HC1");
    }
}
