//! Pictures of positions: every registered game's position drawn as an RGB image in memory
//! (plotters' bitmap backend over a buffer, with the bundled font of [`crate::io::plot`]), so a
//! front can record videos of episodes (Gymnasium's `render_mode="rgb_array"`). Each game is
//! drawn from its own position type and its own words (player names, the status line); the
//! sizes are fixed per game and its parameters and stay within [`MAX_SIDE`] pixels a side.

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{DynGame, DynState, FrontError};
use crate::core::game::{Game, Player, Turn};
use crate::games::AnyGame;
use crate::games::chase::{Chase, ChaseState, Kind};
use crate::games::dice_race::{DiceRace, DiceRaceState as DiceState};
use crate::games::hackenbush::graph::{Colour, Graph};
use crate::games::hackenbush::{DEAL, Hackenbush, HackenbushState, LEFT};
use crate::games::hase_igel::board::Cell;
use crate::games::hase_igel::{EAT, HaseIgelState as HareState, HaseUndIgel, Phase, SKIP};
use crate::games::hexapawn::{Hexapawn, HexapawnState};
use crate::games::tictactoe::{TicTacToe, TicTacToeState};
use crate::io::plot::{ensure_font, font};

/// A position drawn: `width` x `height` pixels, row-major from the top left, three bytes (red,
/// green, blue) a pixel.
#[derive(Clone, PartialEq, Eq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Picture {{ {} x {} }}", self.width, self.height)
    }
}

impl Picture {
    /// The colour of the pixel at column `x`, row `y` (from the top left).
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = 3 * (y as usize * self.width as usize + x as usize);
        Some([self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]])
    }
}

/// The largest picture side, in pixels.
pub const MAX_SIDE: u32 = 2048;

impl DynGame {
    /// The position drawn as a picture (see [`Picture`]): a board with its pieces and the side
    /// to move for the grid games, the graph on its ground for Hackenbush, the track with the
    /// hares and their carrots and salads for Hase und Igel, the lanes of the dice race.
    pub fn picture(&self, state: &DynState) -> Result<Picture, FrontError> {
        match self.game() {
            AnyGame::Hexapawn(g) => hexapawn(g, self.unwrap(g, state)?),
            AnyGame::Chase(g) => chase(g, self.unwrap(g, state)?),
            AnyGame::TicTacToe(g) => tictactoe(g, self.unwrap(g, state)?),
            AnyGame::DiceRace(g) => dice_race(g, self.unwrap(g, state)?),
            AnyGame::Hackenbush(g) => hackenbush(g, self.unwrap(g, state)?),
            AnyGame::HaseUndIgel(g) => hase_igel(g, self.unwrap(g, state)?),
        }
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
type Drawn = Result<(), Box<dyn Error>>;

const BACKGROUND: RGBColor = RGBColor(250, 249, 245);
const INK: RGBColor = RGBColor(30, 30, 30);
const FAINT_INK: RGBColor = RGBColor(110, 110, 110);
const LIGHT_SQUARE: RGBColor = RGBColor(240, 217, 181);
const DARK_SQUARE: RGBColor = RGBColor(181, 136, 99);
/// The header band with the status line.
const HEADER: u32 = 40;
const HEADER_PX: f64 = 18.0;

/// A picture of `width` x `height` drawn by `draw` on the background.
fn paint(
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area) -> Drawn,
) -> Result<Picture, FrontError> {
    if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
        return Err(FrontError::Refused(format!(
            "a picture of {width} x {height} pixels: at most {MAX_SIDE} a side"
        )));
    }
    ensure_font().map_err(|e| FrontError::Refused(format!("no picture: {e:#}")))?;
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    let drawn = {
        let area = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        area.fill(&BACKGROUND)
            .map_err(Box::<dyn Error>::from)
            .and_then(|()| draw(&area))
            .and_then(|()| area.present().map_err(Box::<dyn Error>::from))
    };
    drawn.map_err(|e| FrontError::Refused(format!("the picture could not be drawn: {e}")))?;
    Ok(Picture { width, height, rgb })
}

/// A player's colour, by the name the game gives it (the runners' and hares' colours, the
/// sides of the board games), else by seat.
fn player_colour(name: &str, seat: Player) -> RGBColor {
    match name {
        "red" | "right" => RGBColor(213, 50, 40),
        "green" => RGBColor(40, 150, 60),
        "blue" | "left" => RGBColor(30, 90, 200),
        "yellow" => RGBColor(240, 195, 20),
        "white" => RGBColor(250, 250, 250),
        "black" => RGBColor(35, 35, 35),
        "fox" => RGBColor(220, 100, 20),
        "hounds" => RGBColor(70, 50, 40),
        "x" => RGBColor(0, 114, 178),
        "o" => RGBColor(213, 94, 0),
        _ => [RGBColor(0, 114, 178), RGBColor(213, 94, 0)][seat % 2],
    }
}

/// Ink that reads on `fill`.
fn ink_on(fill: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = fill;
    if 299 * r as u32 + 587 * g as u32 + 114 * b as u32 > 140_000 {
        INK
    } else {
        RGBColor(250, 250, 250)
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A text style of `px` pixels in `colour`, anchored at `pos`.
fn text(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    font(px).color(&colour).pos(Pos::new(h, v))
}

/// `s` cut to about `width` pixels of text of `px` pixels.
fn fit(s: &str, width: u32, px: f64) -> String {
    let room = (f64::from(width) / (0.6 * px)).max(1.0) as usize;
    if s.chars().count() <= room {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(room.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// A disc with an outline, of radius `r`, with a label in it.
fn disc(area: &Area, (x, y): (i32, i32), r: i32, fill: RGBColor, label: &str) -> Drawn {
    let r = r.max(1);
    area.draw(&Circle::new((x, y), r, fill.filled()))?;
    let edge = if fill == RGBColor(35, 35, 35) {
        RGBColor(160, 160, 160)
    } else {
        INK
    };
    area.draw(&Circle::new((x, y), r, edge.stroke_width(1)))?;
    if !label.is_empty() && r >= 5 {
        area.draw_text(
            label,
            &text(f64::from(r) * 1.2, ink_on(fill), HPos::Center, VPos::Center),
            (x, y),
        )?;
    }
    Ok(())
}

/// The header: a disc of the mover's colour (when someone moves) and the status line.
fn header(area: &Area, width: u32, status: &str, mover: Option<RGBColor>) -> Drawn {
    let mut x = 12;
    if let Some(c) = mover {
        disc(area, (x + 9, HEADER as i32 / 2), 9, c, "")?;
        x += 26;
    }
    let room = width.saturating_sub(x as u32 + 8);
    area.draw_text(
        &fit(status, room, HEADER_PX),
        &text(HEADER_PX, INK, HPos::Left, VPos::Center),
        (x, HEADER as i32 / 2),
    )?;
    Ok(())
}

/// The status line any game has: who moves, or who won.
fn status<G: Game>(g: &G, s: &G::State) -> (String, Option<RGBColor>) {
    match g.turn(s) {
        Turn::Player(p) => {
            let name = g.player_name(p);
            (
                format!("{} to move", capitalise(name)),
                Some(player_colour(name, p)),
            )
        }
        Turn::Chance => ("Chance acts".to_string(), None),
        Turn::Terminal => {
            let returns = g.returns(s);
            let r = returns.as_slice();
            let best = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let winners: Vec<Player> = (0..r.len()).filter(|&p| r[p] == best).collect();
            match winners.as_slice() {
                [w] => {
                    let name = g.player_name(*w);
                    let verb = if g.player_name_is_plural(*w) {
                        "win"
                    } else {
                        "wins"
                    };
                    (
                        format!("{} {verb}", capitalise(name)),
                        Some(player_colour(name, *w)),
                    )
                }
                _ if r.len() == winners.len() => ("Draw".to_string(), None),
                _ => ("Over".to_string(), None),
            }
        }
    }
}

/// A board of squares: where it stands, its squares' side and its labels.
struct Grid {
    rows: u32,
    cols: u32,
    cell: u32,
    left: i32,
    top: i32,
    label_px: f64,
}

impl Grid {
    /// The layout of a `rows` x `cols` board with squares of at most `largest` pixels, the
    /// board at most about 768 pixels a side.
    fn new(rows: u32, cols: u32, largest: u32) -> (Grid, u32, u32) {
        let cell = (768 / rows.max(cols).max(1)).clamp(10, largest);
        let label_px = (f64::from(cell) * 0.4).clamp(9.0, 15.0);
        let margin = 30;
        let width = (margin + cols * cell + 14).max(260);
        let height = HEADER + rows * cell + 26;
        let left = (margin + (width - margin - 14 - cols * cell) / 2) as i32;
        let grid = Grid {
            rows,
            cols,
            cell,
            left,
            top: HEADER as i32,
            label_px,
        };
        (grid, width, height)
    }

    /// The top left corner of the square in display row `row` (from the top) and column `col`.
    fn corner(&self, row: u32, col: u32) -> (i32, i32) {
        (
            self.left + (col * self.cell) as i32,
            self.top + (row * self.cell) as i32,
        )
    }

    fn centre(&self, row: u32, col: u32) -> (i32, i32) {
        let (x, y) = self.corner(row, col);
        let half = (self.cell / 2) as i32;
        (x + half, y + half)
    }

    /// The squares in their colours, a frame, and the files' and ranks' names.
    fn draw(
        &self,
        area: &Area,
        colour: impl Fn(u32, u32) -> RGBColor,
        file: impl Fn(u32) -> String,
        rank: impl Fn(u32) -> String,
    ) -> Drawn {
        let c = self.cell as i32;
        for row in 0..self.rows {
            for col in 0..self.cols {
                let (x, y) = self.corner(row, col);
                area.draw(&Rectangle::new(
                    [(x, y), (x + c, y + c)],
                    colour(row, col).filled(),
                ))?;
            }
            let (x, y) = self.centre(row, 0);
            area.draw_text(
                &rank(row),
                &text(self.label_px, FAINT_INK, HPos::Right, VPos::Center),
                (x - c / 2 - 5, y),
            )?;
        }
        let (x1, y1) = self.corner(self.rows, self.cols);
        area.draw(&Rectangle::new(
            [(self.left, self.top), (x1, y1)],
            INK.stroke_width(1),
        ))?;
        for col in 0..self.cols {
            let (x, _) = self.centre(0, col);
            area.draw_text(
                &file(col),
                &text(self.label_px, FAINT_INK, HPos::Center, VPos::Top),
                (x, y1 + 5),
            )?;
        }
        Ok(())
    }

    fn piece_radius(&self) -> i32 {
        (self.cell as i32 * 36 / 100).max(3)
    }
}

fn file_letter(col: u32) -> String {
    char::from_u32('a' as u32 + col).map_or_else(|| col.to_string(), String::from)
}

fn checkered(row: u32, col: u32) -> RGBColor {
    if (row + col) % 2 == 1 {
        DARK_SQUARE
    } else {
        LIGHT_SQUARE
    }
}

fn hexapawn(g: &Hexapawn, s: &HexapawnState) -> Result<Picture, FrontError> {
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

fn chase(g: &Chase, s: &ChaseState) -> Result<Picture, FrontError> {
    let geo = g.geometry();
    let b = geo.size as u32;
    let half = geo.half.max(1) as u32;
    let (grid, width, height) = Grid::new(b, b, 64);
    let (line, mover) = status(g, s);
    // The board's x of a display column (Hasenspiel's files are mirrored) and y of a row.
    let x_of = |col: u32| match g.kind() {
        Kind::FoxHounds => col,
        Kind::Hasenspiel => b - 1 - col,
    };
    let y_of = |row: u32| b - 1 - row;
    let dark = |row: u32, col: u32| (x_of(col) + y_of(row)) % 2 == 1;
    let (runner, pawns) = (
        player_colour(g.player_name(0), 0),
        player_colour(g.player_name(1), 1),
    );
    paint(width, height, |area| {
        header(area, width, &line, mover)?;
        grid.draw(
            area,
            |row, col| {
                if dark(row, col) {
                    DARK_SQUARE
                } else {
                    LIGHT_SQUARE
                }
            },
            file_letter,
            |row| (y_of(row) + 1).to_string(),
        )?;
        for row in 0..b {
            for col in 0..b {
                if !dark(row, col) {
                    continue;
                }
                let sq = y_of(row) * half + x_of(col) / 2;
                let colour = if sq == u32::from(s.runner) {
                    runner
                } else if sq < 128 && s.pawns >> sq & 1 != 0 {
                    pawns
                } else {
                    continue;
                };
                disc(area, grid.centre(row, col), grid.piece_radius(), colour, "")?;
            }
        }
        Ok(())
    })
}

fn tictactoe(g: &TicTacToe, s: &TicTacToeState) -> Result<Picture, FrontError> {
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

fn dice_race(g: &DiceRace, s: &DiceState) -> Result<Picture, FrontError> {
    let players = g.num_players();
    let goal = g.params()["goal"].as_u64().unwrap_or(1).clamp(1, 200) as u32;
    let squares = goal + 1;
    let cell = (880 / squares).clamp(12, 40);
    let names = 80;
    let width = (names + squares * cell + 16).max(320);
    let lane = cell + 6;
    let height = HEADER + players as u32 * lane + 28;
    let (line, mover) = match g.turn(s) {
        Turn::Chance => {
            let name = g.player_name(s.to_move as Player % players);
            (
                format!("{} to roll", capitalise(name)),
                Some(player_colour(name, s.to_move as Player)),
            )
        }
        Turn::Player(p) => {
            let name = g.player_name(p);
            (
                format!(
                    "{} rolled {}: step 1 or dash {}",
                    capitalise(name),
                    s.roll,
                    s.roll
                ),
                Some(player_colour(name, p)),
            )
        }
        Turn::Terminal => status(g, s),
    };
    paint(width, height, |area| {
        header(area, width, &line, mover)?;
        let c = cell as i32;
        let label_px = (f64::from(cell) * 0.4).clamp(9.0, 14.0);
        for p in 0..players {
            let top = (HEADER + p as u32 * lane) as i32 + 3;
            let name = g.player_name(p);
            let colour = player_colour(name, p);
            let at = u32::from(s.pos[p]);
            area.draw_text(
                &format!("{name} {at}"),
                &text(14.0, INK, HPos::Left, VPos::Center),
                (10, top + c / 2),
            )?;
            for k in 0..squares {
                let x = (names + k * cell) as i32;
                let fill = if k == goal {
                    RGBColor(250, 215, 90)
                } else if k == 0 {
                    RGBColor(215, 215, 215)
                } else {
                    RGBColor(255, 255, 255)
                };
                area.draw(&Rectangle::new([(x, top), (x + c, top + c)], fill.filled()))?;
                area.draw(&Rectangle::new(
                    [(x, top), (x + c, top + c)],
                    FAINT_INK.stroke_width(1),
                ))?;
            }
            let x = (names + at.min(goal) * cell) as i32 + c / 2;
            disc(area, (x, top + c / 2), c * 2 / 5, colour, "")?;
        }
        let bottom = (HEADER + players as u32 * lane) as i32 + 6;
        for k in (0..squares).filter(|k| k % 5 == 0 || *k == goal) {
            let x = (names + k * cell) as i32 + c / 2;
            area.draw_text(
                &k.to_string(),
                &text(label_px, FAINT_INK, HPos::Center, VPos::Top),
                (x, bottom),
            )?;
        }
        Ok(())
    })
}

const HACKENBUSH_SIZE: (u32, u32) = (800, 600);
/// The ground line's height from the picture's top.
const GROUND: i32 = 556;

fn edge_colour(c: Colour) -> RGBColor {
    match c {
        Colour::Blue => RGBColor(30, 90, 200),
        Colour::Red => RGBColor(213, 50, 40),
        Colour::Green => RGBColor(40, 150, 60),
    }
}

/// Where a Hackenbush graph's vertices stand: the ground's neighbours in the lowest row, each
/// vertex one row above its nearest way to the ground (breadth first), the vertices of a row
/// spread across it, ordered by the mean place of their neighbours in the row below.
/// Deterministic, and the same for every position of an episode (it is the whole graph's).
struct Layout {
    /// `(x, y)` of each vertex (the ground's own entry is unused).
    at: Vec<(f64, f64)>,
    /// A row's height and the closest two vertices of a row: the scale of the marks.
    unit: f64,
}

impl Layout {
    fn new(graph: &Graph) -> Layout {
        let (width, _) = HACKENBUSH_SIZE;
        let n = graph.vertex_count();
        let mut depth = vec![usize::MAX; n];
        let mut order = Vec::with_capacity(n);
        if n > 0 {
            depth[0] = 0;
            order.push(0u32);
        }
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            for &(_, w) in graph.incident(v) {
                if depth[w as usize] == usize::MAX {
                    depth[w as usize] = depth[v as usize] + 1;
                    order.push(w);
                }
            }
        }
        let rows = depth
            .iter()
            .filter(|&&d| d != usize::MAX)
            .max()
            .copied()
            .unwrap_or(0)
            .max(1);
        let top = f64::from(HEADER) + 16.0;
        let dy = ((f64::from(GROUND) - top) / rows as f64).min(90.0);
        let mut at = vec![(0.0, f64::from(GROUND)); n];
        let mut levels: Vec<Vec<u32>> = vec![Vec::new(); rows + 1];
        for &v in order.iter().skip(1) {
            levels[depth[v as usize]].push(v);
        }
        // Ground loops take places in the lowest row too, after its vertices.
        let ground_loops = graph.incident(0).iter().filter(|&&(_, w)| w == 0).count();
        let mut narrowest = f64::from(width);
        for (d, level) in levels.iter_mut().enumerate().skip(1) {
            if d > 1 {
                let mean_below = |v: u32| {
                    let xs: Vec<f64> = graph
                        .incident(v)
                        .iter()
                        .filter(|&&(_, w)| depth[w as usize] + 1 == d)
                        .map(|&(_, w)| at[w as usize].0)
                        .collect();
                    xs.iter().sum::<f64>() / xs.len().max(1) as f64
                };
                let mut keyed: Vec<(f64, u32)> =
                    level.iter().map(|&v| (mean_below(v), v)).collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                *level = keyed.into_iter().map(|(_, v)| v).collect();
            }
            let places = level.len() + if d == 1 { ground_loops } else { 0 };
            let spacing = (f64::from(width) - 40.0) / places.max(1) as f64;
            narrowest = narrowest.min(spacing);
            for (i, &v) in level.iter().enumerate() {
                at[v as usize] = (
                    20.0 + (i as f64 + 0.5) * spacing,
                    f64::from(GROUND) - d as f64 * dy,
                );
            }
        }
        Layout {
            at,
            unit: dy.min(narrowest),
        }
    }

    /// The x of the `k`-th ground loop.
    fn ground_loop_x(&self, graph: &Graph, k: usize) -> f64 {
        let (width, _) = HACKENBUSH_SIZE;
        let first_row = graph
            .incident(0)
            .iter()
            .filter(|&&(_, w)| w != 0)
            .map(|&(_, w)| w)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let loops = graph.incident(0).iter().filter(|&&(_, w)| w == 0).count();
        let spacing = (f64::from(width) - 40.0) / (first_row + loops).max(1) as f64;
        20.0 + ((first_row + k) as f64 + 0.5) * spacing
    }
}

fn hackenbush(g: &Hackenbush, s: &HackenbushState) -> Result<Picture, FrontError> {
    let (width, height) = HACKENBUSH_SIZE;
    if s.board == DEAL {
        // The positions nature deals (with some held out, only those of the game's split),
        // each under its own index.
        let deal: Vec<(
            usize,
            &std::sync::Arc<crate::games::hackenbush::graph::Graph>,
        )> = g.dealt().map(|i| (i, &g.positions()[i])).collect();
        return paint(width, height, |area| {
            header(
                area,
                width,
                &format!("Nature deals one of {} positions", deal.len()),
                None,
            )?;
            ground(area, width)?;
            let shown = 24;
            for (row, (i, graph)) in deal.iter().take(shown).enumerate() {
                let line = format!("position {i}: {}", graph.to_cgsuite());
                area.draw_text(
                    &fit(&line, width - 40, 14.0),
                    &text(14.0, INK, HPos::Left, VPos::Top),
                    (20, HEADER as i32 + 8 + 20 * row as i32),
                )?;
            }
            if deal.len() > shown {
                area.draw_text(
                    &format!("and {} more", deal.len() - shown),
                    &text(14.0, FAINT_INK, HPos::Left, VPos::Top),
                    (20, HEADER as i32 + 8 + 20 * shown as i32),
                )?;
            }
            Ok(())
        });
    }
    let Some(graph) = g.positions().get(s.board as usize) else {
        return Err(FrontError::Refused(format!(
            "position {} of a deal of {}",
            s.board,
            g.positions().len()
        )));
    };
    let layout = Layout::new(graph);
    let edges = graph.edges();
    let standing = s.alive.iter().filter(|&e| e < edges.len()).count();
    let (mover, verb) = (s.to_move as Player, g.turn(s));
    let side = |p: Player| {
        if p == LEFT {
            "Left (blue)"
        } else {
            "Right (red)"
        }
    };
    let line = match verb {
        Turn::Terminal => format!(
            "{} cannot move: {} wins; {standing} of {} edges standing",
            side(mover),
            side(1 - mover.min(1)).to_lowercase(),
            edges.len()
        ),
        _ => format!(
            "{} to move; {standing} of {} edges standing",
            side(mover),
            edges.len()
        ),
    };
    let mover_colour = (verb != Turn::Terminal).then(|| {
        if mover == LEFT {
            edge_colour(Colour::Blue)
        } else {
            edge_colour(Colour::Red)
        }
    });
    let thick = (layout.unit / 9.0).clamp(1.0, 6.0).round();
    let dot = (layout.unit / 10.0).clamp(1.0, 6.0) as i32;
    paint(width, height, |area| {
        header(area, width, &line, mover_colour)?;
        ground(area, width)?;
        // Parallel edges bend apart: the k-th of m between two ends bends by (k - (m-1)/2).
        let mut seen: std::collections::HashMap<(u32, u32), (usize, usize)> =
            std::collections::HashMap::new();
        let key = |a: u32, b: u32| (a.min(b), a.max(b));
        for e in s.alive.iter().filter(|&e| e < edges.len()) {
            seen.entry(key(edges[e].a, edges[e].b)).or_default().1 += 1;
        }
        let mut ground_loops = 0;
        let mut vertices = std::collections::BTreeSet::new();
        for e in s.alive.iter().filter(|&e| e < edges.len()) {
            let edge = edges[e];
            let colour = edge_colour(edge.colour);
            let style = colour.stroke_width(thick as u32);
            let (a, b) = (edge.a.min(edge.b), edge.a.max(edge.b));
            if a == b {
                // A loop: a circle standing on its vertex (on the ground for a ground loop).
                let (x, y) = if a == 0 {
                    ground_loops += 1;
                    (
                        layout.ground_loop_x(graph, ground_loops - 1),
                        f64::from(GROUND),
                    )
                } else {
                    layout.at[a as usize]
                };
                let k = seen.get(&(a, a)).map_or(0, |c| c.0);
                let r = (layout.unit * 0.3).max(3.0) * (1.0 + 0.35 * k as f64);
                seen.entry((a, a)).or_default().0 += 1;
                area.draw(&Circle::new((x as i32, (y - r) as i32), r as i32, style))?;
                vertices.insert(a);
                continue;
            }
            let to = layout.at[b as usize];
            // An edge to the ground stands on the ground under its other end.
            let from = if a == 0 {
                (to.0, f64::from(GROUND))
            } else {
                layout.at[a as usize]
            };
            let count = seen.entry((a, b)).or_default();
            let bend = (count.0 as f64 - (count.1 as f64 - 1.0) / 2.0) * layout.unit * 0.35;
            count.0 += 1;
            thick_line(area, &curve(from, to, bend), thick, colour)?;
            vertices.insert(a);
            vertices.insert(b);
        }
        for v in vertices.into_iter().filter(|&v| v != 0) {
            let (x, y) = layout.at[v as usize];
            area.draw(&Circle::new((x as i32, y as i32), dot, INK.filled()))?;
        }
        Ok(())
    })
}

/// The ground: a band under the ground line.
fn ground(area: &Area, width: u32) -> Drawn {
    area.draw(&Rectangle::new(
        [(0, GROUND), (width as i32, GROUND + 44)],
        RGBColor(205, 190, 160).filled(),
    ))?;
    area.draw(&PathElement::new(
        vec![(0, GROUND), (width as i32, GROUND)],
        RGBColor(110, 85, 50).stroke_width(3),
    ))?;
    Ok(())
}

/// The points of a line from `a` to `b` bent sideways by `bend` pixels at its middle (a
/// parabola), or straight.
fn curve(a: (f64, f64), b: (f64, f64), bend: f64) -> Vec<(f64, f64)> {
    if bend.abs() < 0.5 {
        return vec![a, b];
    }
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length = dx.hypot(dy).max(1e-9);
    let (nx, ny) = (-dy / length, dx / length);
    (0..=16)
        .map(|i| {
            let t = f64::from(i) / 16.0;
            let off = 4.0 * t * (1.0 - t) * bend;
            (a.0 + t * dx + off * nx, a.1 + t * dy + off * ny)
        })
        .collect()
}

/// A line through `points`, `width` pixels wide, drawn as filled quadrilaterals with round
/// joints: plotters' own wide lines come out thin at some slopes.
fn thick_line(area: &Area, points: &[(f64, f64)], width: f64, colour: RGBColor) -> Drawn {
    let pixel = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
    if width < 2.0 {
        let path = points.iter().map(|&p| pixel(p)).collect::<Vec<_>>();
        area.draw(&PathElement::new(path, colour.stroke_width(1)))?;
        return Ok(());
    }
    let half = width / 2.0;
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let length = dx.hypot(dy);
        if length < 1e-9 {
            continue;
        }
        let (nx, ny) = (-dy / length * half, dx / length * half);
        let corners = vec![
            pixel((a.0 + nx, a.1 + ny)),
            pixel((b.0 + nx, b.1 + ny)),
            pixel((b.0 - nx, b.1 - ny)),
            pixel((a.0 - nx, a.1 - ny)),
        ];
        area.draw(&Polygon::new(corners, colour.filled()))?;
    }
    for &p in points.iter().skip(1).take(points.len().saturating_sub(2)) {
        area.draw(&Circle::new(pixel(p), half.round() as i32, colour.filled()))?;
    }
    Ok(())
}

/// Hase und Igel's track is wrapped in rows of this many cells, as a snake.
const TRACK_ROW: u32 = 16;
const TRACK_CELL: u32 = 48;
const PANEL_LINE: u32 = 22;

fn cell_look(cell: Cell) -> (RGBColor, &'static str) {
    match cell {
        Cell::Start => (RGBColor(200, 200, 200), "start"),
        Cell::Goal => (RGBColor(250, 215, 90), "goal"),
        Cell::Hare => (RGBColor(235, 205, 230), "hare"),
        Cell::Carrot => (RGBColor(250, 170, 90), "carrot"),
        Cell::Hedgehog => (RGBColor(185, 160, 130), "igel"),
        Cell::Salad => (RGBColor(170, 220, 130), "salad"),
        Cell::Number(1) => (RGBColor(175, 205, 240), "1/5/6"),
        Cell::Number(2) => (RGBColor(175, 205, 240), "2"),
        Cell::Number(3) => (RGBColor(175, 205, 240), "3"),
        Cell::Number(_) => (RGBColor(175, 205, 240), "4"),
    }
}

fn hase_igel(g: &HaseUndIgel, s: &HareState) -> Result<Picture, FrontError> {
    let board = g.board();
    let goal = board.goal();
    let cells = u32::from(goal) + 1;
    let rows = cells.div_ceil(TRACK_ROW);
    let players = g.num_players().min(s.hares.len());
    let c = TRACK_CELL as i32;
    let width = TRACK_ROW * TRACK_CELL + 32;
    let track_height = rows * (TRACK_CELL + 8);
    let height = HEADER + track_height + 12 + players as u32 * PANEL_LINE + 8;
    // The status line is the game's own, the last line of its text drawing.
    let rendered = g.render(s);
    let line = rendered.lines().last().unwrap_or("").trim().to_string();
    let mover = (s.phase != Phase::Over).then(|| {
        let p = s.to_move as Player;
        player_colour(g.player_name(p % players.max(1)), p)
    });
    // Where cell `i` stands: rows left to right, then right to left.
    let corner = |i: u32| {
        let (row, k) = (i / TRACK_ROW, i % TRACK_ROW);
        let col = if row % 2 == 0 { k } else { TRACK_ROW - 1 - k };
        (
            16 + (col * TRACK_CELL) as i32,
            (HEADER + row * (TRACK_CELL + 8)) as i32,
        )
    };
    paint(width, height, |area| {
        header(area, width, &line, mover)?;
        for i in 0..cells {
            let (x, y) = corner(i);
            let (fill, label) = cell_look(board.cell(i as u8));
            area.draw(&Rectangle::new(
                [(x + 1, y), (x + c - 1, y + c)],
                fill.filled(),
            ))?;
            area.draw(&Rectangle::new(
                [(x + 1, y), (x + c - 1, y + c)],
                FAINT_INK.stroke_width(1),
            ))?;
            area.draw_text(
                &i.to_string(),
                &text(10.0, FAINT_INK, HPos::Left, VPos::Top),
                (x + 4, y + 3),
            )?;
            area.draw_text(
                label,
                &text(10.0, INK, HPos::Center, VPos::Bottom),
                (x + c / 2, y + c - 2),
            )?;
        }
        // Hares sharing a cell (the start, the goal) stand side by side.
        let mut on_cell = vec![0i32; cells as usize];
        for (p, hare) in s.hares[..players].iter().enumerate() {
            let i = u32::from(hare.cell).min(cells - 1);
            let k = on_cell[i as usize];
            on_cell[i as usize] += 1;
            let (x, y) = corner(i);
            let (dx, dy) = (k % 3, k / 3 % 2);
            let colour = player_colour(g.player_name(p), p);
            let r = 7;
            let centre = (x + 10 + dx * 14, y + 18 + dy * 12);
            disc(area, centre, r, colour, &p.to_string())?;
        }
        let top = (HEADER + track_height + 12) as i32;
        for (p, hare) in s.hares[..players].iter().enumerate() {
            let y = top + (p as u32 * PANEL_LINE) as i32 + PANEL_LINE as i32 / 2;
            let name = g.player_name(p);
            if mover.is_some() && s.to_move as usize == p {
                area.draw(&Polygon::new(
                    vec![(2, y - 6), (10, y), (2, y + 6)],
                    INK.filled(),
                ))?;
            }
            disc(area, (25, y), 9, player_colour(name, p), &p.to_string())?;
            let mut notes = Vec::new();
            if hare.place > 0 {
                notes.push(format!("home, place {}", hare.place));
            }
            if hare.flags & EAT != 0 {
                notes.push("eats a salad next turn".to_string());
            }
            if hare.flags & SKIP != 0 {
                notes.push("misses the next turn".to_string());
            }
            let words = format!(
                "{name}: cell {}, carrots {}, salads {}, rank {}{}",
                hare.cell,
                hare.carrots,
                hare.salads,
                g.rank(s, p),
                if notes.is_empty() {
                    String::new()
                } else {
                    format!("; {}", notes.join(", "))
                }
            );
            area.draw_text(
                &fit(&words, width - 48, 14.0),
                &text(14.0, INK, HPos::Left, VPos::Center),
                (40, y),
            )?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::{CHANCE_PLAYER, TERMINAL_PLAYER};
    use super::*;
    use rand::RngExt;

    fn game(name: &str, params: toml::Table) -> DynGame {
        DynGame::new(name, params).unwrap()
    }

    /// Every registered game with its defaults, and the variants that draw otherwise.
    fn games() -> Vec<DynGame> {
        let mut out: Vec<DynGame> = crate::games::GAMES
            .iter()
            .map(|info| game(info.name, toml::Table::new()))
            .collect();
        out.extend([
            game("hexapawn", toml::toml! { rows = 64 cols = 1 }),
            game("hexapawn", toml::toml! { rows = 2 cols = 26 }),
            game("fox-hounds", toml::toml! { size = 16 }),
            game("fox-hounds", toml::toml! { size = 2 }),
            game("dice-race", toml::toml! { players = 6 goal = 50 }),
            game("dice-race", toml::toml! { players = 2 goal = 1 }),
            game("hackenbush", toml::toml! { random = 3 edges = 40 }),
            game("hackenbush", toml::toml! { position = "fusion" }),
            game(
                "hackenbush",
                toml::toml! { random = 1 edges = 4096 family = "graphs" },
            ),
            game("hase-und-igel", toml::toml! { players = 6 }),
            game("hase-und-igel", toml::toml! { players = 2 board = "C" }),
        ]);
        out
    }

    /// A random playout's positions, seeded.
    fn playout(g: &DynGame, seed: u64, plies: usize) -> Vec<DynState> {
        let mut rng = crate::core::random::rng(seed);
        let mut s = g.initial_state();
        let mut seen = vec![s.clone()];
        for _ in 0..plies {
            let actions: Vec<i64> = match g.current_player(&s).unwrap() {
                TERMINAL_PLAYER => break,
                CHANCE_PLAYER => g
                    .chance_outcomes(&s)
                    .unwrap()
                    .iter()
                    .map(|&(a, _)| a as i64)
                    .collect(),
                _ => g
                    .legal_actions(&s)
                    .unwrap()
                    .iter()
                    .map(|&a| a as i64)
                    .collect(),
            };
            s = g
                .apply(&s, actions[rng.random_range(0..actions.len())])
                .unwrap();
            seen.push(s.clone());
        }
        seen
    }

    #[test]
    fn every_game_draws_its_start_within_the_bounds() {
        for g in games() {
            let p = g.picture(&g.initial_state()).unwrap();
            assert!(p.width >= 200 && p.height >= 100, "{g:?}: {p:?}");
            assert!(p.width <= MAX_SIDE && p.height <= MAX_SIDE, "{g:?}: {p:?}");
            assert_eq!(p.rgb.len(), 3 * p.width as usize * p.height as usize);
            let distinct: std::collections::HashSet<&[u8]> = p.rgb.chunks(3).collect();
            assert!(distinct.len() > 4, "{g:?}: a picture of something");
        }
    }

    #[test]
    fn the_sizes_are_the_stated_ones() {
        let size = |name: &str, params: toml::Table| {
            let g = game(name, params);
            let p = g.picture(&g.initial_state()).unwrap();
            (p.width, p.height)
        };
        assert_eq!(size("tictactoe", toml::Table::new()), (344, 366));
        assert_eq!(size("hexapawn", toml::Table::new()), (260, 258));
        assert_eq!(size("fox-hounds", toml::Table::new()), (556, 578));
        assert_eq!(size("hasenspiel", toml::Table::new()), (556, 578));
        assert_eq!(
            size("hexapawn", toml::toml! { rows = 64 cols = 1 }),
            (260, 834)
        );
        assert_eq!(size("hackenbush", toml::Table::new()), (800, 600));
        assert_eq!(size("dice-race", toml::Table::new()), (336, 206));
        assert_eq!(size("hase-und-igel", toml::Table::new()), (800, 406));
    }

    #[test]
    fn pictures_are_deterministic_and_differ_between_positions() {
        for g in games() {
            let states = playout(&g, 3, 6);
            let first = g.picture(&states[0]).unwrap();
            assert_eq!(first, g.picture(&states[0]).unwrap(), "{g:?}");
            let last = states.last().unwrap();
            if last != &states[0] {
                let other = g.picture(last).unwrap();
                assert_eq!((first.width, first.height), (other.width, other.height));
                assert_ne!(first.rgb, other.rgb, "{g:?}: {last:?}");
            }
        }
    }

    #[test]
    fn random_playouts_draw_every_position() {
        for g in games() {
            for seed in 0..3 {
                for s in playout(&g, seed, 300) {
                    let p = g.picture(&s).unwrap();
                    assert_eq!(p.rgb.len(), 3 * p.width as usize * p.height as usize);
                }
            }
        }
    }

    #[test]
    fn pieces_stand_where_the_position_says() {
        let g = game("tictactoe", toml::Table::new());
        let empty = g.picture(&g.initial_state()).unwrap();
        let centre = g.apply(&g.initial_state(), 4).unwrap();
        let played = g.picture(&centre).unwrap();
        let blank = [255, 255, 255];
        // The middle square's centre: X's cross goes through it.
        let (x, y) = (30 + 150 + 2, 40 + 150);
        assert_eq!(empty.pixel(x, y), Some(blank));
        assert_ne!(played.pixel(x, y), Some(blank));
        assert_eq!(played.pixel(played.width, 0), None);
    }

    #[test]
    fn a_position_of_another_game_is_an_error() {
        let g = game("tictactoe", toml::Table::new());
        let other = game("hexapawn", toml::Table::new());
        assert!(matches!(
            g.picture(&other.initial_state()),
            Err(FrontError::ForeignState { .. })
        ));
    }
}
