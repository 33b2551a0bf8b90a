//! Board strings: the position notation of the grid games (tic-tac-toe, Hexapawn, the chase
//! games), read with errors that say what is wrong and where.
//!
//! A board string is the rows from the top of the board as a person sees it (the highest rank
//! first, as FEN writes a chess board) separated by `/`, one character per square, then
//! optionally whitespace and the side to move: `bbb/.w./w.w b`. Each game says which characters
//! it takes and what a side to move is called; this module only cuts the text up.

/// The most characters a board string may have (the largest board, 16x16 Fox & Hounds, takes
/// under 300): longer text is refused before it is read, and without echoing it.
pub const MAX_BOARD_TEXT: usize = 1024;

/// A board string cut into its rows and the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardText {
    /// The rows, top first, each its squares from the left.
    pub rows: Vec<Vec<char>>,
    /// The side to move as written (`None`: not given).
    pub mover: Option<String>,
}

impl BoardText {
    /// Cuts `text` up: rows separated by `/`, all of one length, then optionally the side to
    /// move. The error names the row (from the top) or the word at fault.
    pub fn read(text: &str) -> Result<BoardText, String> {
        let n = text.chars().count();
        if n > MAX_BOARD_TEXT {
            return Err(format!(
                "{} characters; a board string has at most {MAX_BOARD_TEXT}",
                crate::io::text::group(&n.to_string())
            ));
        }
        let mut words = text.split_whitespace();
        let Some(board) = words.next() else {
            return Err(
                "an empty position: write the rows from the top, separated by `/`, \
                        or `start`"
                    .to_string(),
            );
        };
        let mover = words.next().map(str::to_string);
        if let Some(extra) = words.next() {
            return Err(format!(
                "`{}` after the side to move: a board string is the rows, then the side to move",
                crate::io::text::abbreviated(extra, 20)
            ));
        }
        let rows: Vec<Vec<char>> = board.split('/').map(|r| r.chars().collect()).collect();
        let width = rows[0].len();
        for (i, row) in rows.iter().enumerate() {
            if row.is_empty() {
                return Err(format!("row {} (from the top) is empty", i + 1));
            }
            if row.len() != width {
                return Err(format!(
                    "row {} (from the top) has {} squares, row 1 has {width}: every row has as \
                     many",
                    i + 1,
                    row.len()
                ));
            }
        }
        Ok(BoardText { rows, mover })
    }

    /// Checks the board's size: `rows` rows of `cols` squares, naming the game's parameters
    /// (`what`, e.g. "the game is 3x3 (--rows 3 --cols 3)") when it differs.
    /// The board of `text` when its first word uses only `letters` (and `.`, `-`, `/`):
    /// `None` for text that is not a board of this game (a JSON state, a word).
    pub fn read_if(text: &str, letters: &str) -> Option<BoardText> {
        let board = text.split_whitespace().next().unwrap_or_default();
        if !board
            .chars()
            .all(|c| letters.contains(c) || ".-/".contains(c))
        {
            return None;
        }
        BoardText::read(text).ok()
    }

    pub fn expect_size(&self, rows: usize, cols: usize, what: &str) -> Result<(), String> {
        let (r, c) = (self.rows.len(), self.rows[0].len());
        if (r, c) != (rows, cols) {
            return Err(format!(
                "the board has {r} row{} of {c} square{}, but {what}",
                if r == 1 { "" } else { "s" },
                if c == 1 { "" } else { "s" },
            ));
        }
        Ok(())
    }

    /// The side to move: the seat of the name written (matched case-insensitively against
    /// `names`, each seat's accepted words), `default` where none is written.
    pub fn mover(&self, names: &[&[&str]], default: Option<usize>) -> Result<usize, String> {
        let all = || {
            names
                .iter()
                .map(|n| n.join(" or "))
                .collect::<Vec<_>>()
                .join("; ")
        };
        match &self.mover {
            None => default.ok_or_else(|| {
                format!(
                    "no side to move: end the board with a space and the side to move ({})",
                    all()
                )
            }),
            Some(word) => names
                .iter()
                .position(|n| n.iter().any(|m| m.eq_ignore_ascii_case(word)))
                .ok_or_else(|| {
                    format!(
                        "`{}` is not a side to move: {}",
                        crate::io::text::abbreviated(word, 20),
                        all()
                    )
                }),
        }
    }
}

/// The square at `row` (from the top, 0-based) and `col` (from the left) named as a person
/// reads it: the file letter and the rank counted from the bottom of a board of `rows` rows.
pub fn square_name(rows: usize, row: usize, col: usize) -> String {
    let file = u8::try_from(col)
        .ok()
        .filter(|&c| c < 26)
        .map_or('?', |c| (b'a' + c) as char);
    format!("{file}{}", rows - row)
}

/// The error for a character a game does not take at a square.
pub fn bad_square(rows: usize, row: usize, col: usize, c: char, takes: &str) -> String {
    format!(
        "`{}` at {} (row {} from the top, square {}): {takes}",
        c.escape_default(),
        square_name(rows, row, col),
        row + 1,
        col + 1
    )
}

/// The position's notation as text: a board string or graph string as it stands, a JSON
/// position (Hase und Igel's) as compact JSON; `None` where the game has none.
pub fn position_text<G: crate::core::game::Game>(game: &G, state: &G::State) -> Option<String> {
    match game.write_position(state)? {
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// Plays `games` seeded random games of `game` from its start, through chance events, and
/// checks at every position that its state key ([`Game::write_state_key`](
/// crate::core::game::Game::write_state_key)) reads back to it exactly, and that its notation ([`Game::write_position`](
/// crate::core::game::Game::write_position)) reads back to it ([`Game::read_position`](
/// crate::core::game::Game::read_position)); at most `max_plies` moves a game. Where
/// `exact` is false a position need only come back as one written the same (Hackenbush: a
/// graph string names its graph up to symmetry, so of two mirror-image cuts either is read).
/// Returns the positions checked, or the first that does not come back, with its text.
pub fn check_round_trips<G: crate::core::game::Game>(
    game: &G,
    games: u64,
    max_plies: usize,
    seed: u64,
    exact: bool,
) -> Result<u64, String> {
    use crate::core::game::Turn;
    use crate::core::policy::{Policy, RandomPolicy, draw_outcome};
    let mut rng = crate::core::random::rng(seed);
    let (mut legal, mut outcomes) = (Vec::new(), Vec::new());
    let mut checked = 0;
    for _ in 0..games {
        let mut s = game.initial_state();
        for _ in 0..max_plies {
            let key = game
                .write_state_key(&s)
                .ok_or_else(|| format!("{} writes no state key for {s:?}", game.name()))?;
            match game.read_state_key(&key) {
                Ok(back) if back == s => {}
                Ok(back) => return Err(format!("key `{key}` reads back as {back:?}, not {s:?}")),
                Err(e) => return Err(format!("key `{key}` (written for {s:?}) is refused: {e}")),
            }
            match position_text(game, &s) {
                Some(text) => check_notation(game, &s, &text, exact)?,
                // Before nature deals (Hackenbush's data sets) there is no position to write.
                None if game.turn(&s) == Turn::Chance => {}
                None => return Err(format!("{} writes no notation for {s:?}", game.name())),
            }
            checked += 1;
            let a = match game.turn(&s) {
                Turn::Terminal => break,
                Turn::Chance => {
                    game.chance_outcomes(&s, &mut outcomes);
                    draw_outcome(&outcomes, &mut rng)
                }
                Turn::Player(_) => {
                    game.legal_actions(&s, &mut legal);
                    RandomPolicy
                        .choose(game, &s, &legal, &mut rng)
                        .expect("random play always moves")
                }
            };
            s = game.apply(&s, a);
        }
    }
    Ok(checked)
}

/// That `text`, written for `s`, reads back to it (or, where not `exact`, to a position
/// written the same with the same turn).
fn check_notation<G: crate::core::game::Game>(
    game: &G,
    s: &G::State,
    text: &str,
    exact: bool,
) -> Result<(), String> {
    match game.read_position(text) {
        Ok(back) if back == *s => {}
        Ok(back)
            if !exact
                && position_text(game, &back).as_deref() == Some(text)
                && game.turn(&back) == game.turn(s) => {}
        Ok(back) => return Err(format!("`{text}` reads back as {back:?}, not {s:?}")),
        Err(e) => return Err(format!("`{text}` (written for {s:?}) is refused: {e}")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_in_a_game_s_letters_is_read_as_its_board() {
        assert_eq!(
            BoardText::read_if("bbb/.../www w", "wWbB")
                .unwrap()
                .rows
                .len(),
            3
        );
        assert!(BoardText::read_if("x../.../... x", "wWbB").is_none());
        assert!(BoardText::read_if(r#"{"hares":[]}"#, "wWbB").is_none());
        assert!(BoardText::read_if("..f./..../..../.h.h fox", "fFhH*").is_some());
    }

    #[test]
    fn rows_and_the_side_to_move_are_cut_up() {
        let b = BoardText::read(" bbb/.../www  b ").unwrap();
        assert_eq!(b.rows.len(), 3);
        assert_eq!(b.rows[2], vec!['w', 'w', 'w']);
        assert_eq!(b.mover.as_deref(), Some("b"));
        assert_eq!(b.mover(&[&["w", "white"], &["b", "black"]], None), Ok(1));
        let none = BoardText::read("x../.../...").unwrap();
        assert_eq!(none.mover, None);
        assert!(
            none.mover(&[&["x"], &["o"]], None)
                .unwrap_err()
                .contains("x; o")
        );
    }

    #[test]
    fn bad_text_is_refused_with_where() {
        let e = BoardText::read("bbb/../www").unwrap_err();
        assert!(e.contains("row 2") && e.contains("2 squares"), "{e}");
        assert!(BoardText::read("bbb//www").unwrap_err().contains("row 2"));
        assert!(BoardText::read("  ").unwrap_err().contains("empty"));
        assert!(BoardText::read("a b c").unwrap_err().contains("`c`"));
        let e = BoardText::read(&"x".repeat(100_000)).unwrap_err();
        assert!(e.contains("100,000 characters") && e.len() < 100, "{e}");
        let b = BoardText::read("ab/cd").unwrap();
        assert!(
            b.expect_size(3, 3, "the game is 3x3")
                .unwrap_err()
                .contains("2 rows of 2")
        );
        assert_eq!(
            bad_square(3, 0, 1, 'q', "x, o or ."),
            "`q` at b3 (row 1 from the top, square 2): x, o or ."
        );
    }
}
