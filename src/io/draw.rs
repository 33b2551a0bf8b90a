//! A drawing kit for pictures of positions: an RGB image drawn in memory (plotters' bitmap
//! backend over a buffer, with the bundled font of [`crate::io::plot`]) and the pieces a board
//! picture is made of — the header with its status line, discs, boards of squares, thick lines.
//! It knows no game: each game draws its own positions with it
//! ([`Game::picture`](crate::core::game::Game::picture)), and a front records videos of episodes
//! from them (Gymnasium's `render_mode="rgb_array"`).

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Why a picture was not drawn: too large, no font, or the drawing failed; the message says which.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DrawError(pub String);

/// Where a picture is drawn.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
/// What a drawing step gives: nothing, or plotters' error.
pub type Drawn = Result<(), Box<dyn Error>>;

/// The colours every picture shares.
pub const BACKGROUND: RGBColor = RGBColor(250, 249, 245);
pub const INK: RGBColor = RGBColor(30, 30, 30);
pub const FAINT_INK: RGBColor = RGBColor(110, 110, 110);
pub const LIGHT_SQUARE: RGBColor = RGBColor(240, 217, 181);
pub const DARK_SQUARE: RGBColor = RGBColor(181, 136, 99);
/// The header band with the status line.
pub const HEADER: u32 = 40;
pub const HEADER_PX: f64 = 18.0;

/// A picture of `width` x `height` drawn by `draw` on the background.
pub fn paint(
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area) -> Drawn,
) -> Result<Picture, DrawError> {
    if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
        return Err(DrawError(format!(
            "a picture of {width} x {height} pixels: at most {MAX_SIDE} a side"
        )));
    }
    ensure_font().map_err(|e| DrawError(format!("no picture: {e:#}")))?;
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    let drawn = {
        let area = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        area.fill(&BACKGROUND)
            .map_err(Box::<dyn Error>::from)
            .and_then(|()| draw(&area))
            .and_then(|()| area.present().map_err(Box::<dyn Error>::from))
    };
    drawn.map_err(|e| DrawError(format!("the picture could not be drawn: {e}")))?;
    Ok(Picture { width, height, rgb })
}

/// A player's colour, by the name the game gives it (the runners' and hares' colours, the
/// sides of the board games), else by seat.
pub fn player_colour(name: &str, seat: usize) -> RGBColor {
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
pub fn ink_on(fill: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = fill;
    if 299 * r as u32 + 587 * g as u32 + 114 * b as u32 > 140_000 {
        INK
    } else {
        RGBColor(250, 250, 250)
    }
}

/// `s` with its first letter in capitals.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A text style of `px` pixels in `colour`, anchored at `pos`.
pub fn text(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    font(px).color(&colour).pos(Pos::new(h, v))
}

/// `s` cut to about `width` pixels of text of `px` pixels.
pub fn fit(s: &str, width: u32, px: f64) -> String {
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
pub fn disc(area: &Area, (x, y): (i32, i32), r: i32, fill: RGBColor, label: &str) -> Drawn {
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
pub fn header(area: &Area, width: u32, status: &str, mover: Option<RGBColor>) -> Drawn {
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

/// A board of squares: where it stands, its squares' side and its labels.
pub struct Grid {
    pub rows: u32,
    pub cols: u32,
    /// A square's side, in pixels.
    pub cell: u32,
    pub left: i32,
    pub top: i32,
    pub label_px: f64,
}

impl Grid {
    /// The layout of a `rows` x `cols` board with squares of at most `largest` pixels, the
    /// board at most about 768 pixels a side.
    pub fn new(rows: u32, cols: u32, largest: u32) -> (Grid, u32, u32) {
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
    pub fn corner(&self, row: u32, col: u32) -> (i32, i32) {
        (
            self.left + (col * self.cell) as i32,
            self.top + (row * self.cell) as i32,
        )
    }

    pub fn centre(&self, row: u32, col: u32) -> (i32, i32) {
        let (x, y) = self.corner(row, col);
        let half = (self.cell / 2) as i32;
        (x + half, y + half)
    }

    /// The squares in their colours, a frame, and the files' and ranks' names.
    pub fn draw(
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

    pub fn piece_radius(&self) -> i32 {
        (self.cell as i32 * 36 / 100).max(3)
    }
}

/// A file's letter: a, b, c, …
pub fn file_letter(col: u32) -> String {
    char::from_u32('a' as u32 + col).map_or_else(|| col.to_string(), String::from)
}

/// The colour of a chessboard's square (dark where `row + col` is odd).
pub fn checkered(row: u32, col: u32) -> RGBColor {
    if (row + col) % 2 == 1 {
        DARK_SQUARE
    } else {
        LIGHT_SQUARE
    }
}

/// The points of a line from `a` to `b` bent sideways by `bend` pixels at its middle (a
/// parabola), or straight.
pub fn curve(a: (f64, f64), b: (f64, f64), bend: f64) -> Vec<(f64, f64)> {
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
pub fn thick_line(area: &Area, points: &[(f64, f64)], width: f64, colour: RGBColor) -> Drawn {
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

/// The widest and the tallest text a [`text_picture`] shows, in characters and lines.
const TEXT_COLUMNS: usize = 120;
const TEXT_LINES: usize = 80;
/// A text picture's character cell, in pixels, and its text's size.
const TEXT_CELL: (u32, u32) = (9, 18);
const TEXT_PX: f64 = 15.0;

/// A picture of text: the header with `status` (and the mover's colour), then `body` one
/// character a cell, so the columns of a text drawing stay in line although the font is not a
/// fixed-width one. Lines past 120 characters and past 80 lines are cut. The picture of a game
/// that draws no picture of its own.
pub fn text_picture(
    status: &str,
    mover: Option<RGBColor>,
    body: &str,
) -> Result<Picture, DrawError> {
    let lines: Vec<Vec<char>> = body
        .lines()
        .take(TEXT_LINES)
        .map(|l| l.chars().take(TEXT_COLUMNS).collect())
        .collect();
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let (cw, ch) = TEXT_CELL;
    let width = (2 * 12 + columns * cw).max(260);
    let height = HEADER + 8 + lines.len() as u32 * ch + 12;
    paint(width, height, |area| {
        header(area, width, status, mover)?;
        let style = text(TEXT_PX, INK, HPos::Center, VPos::Center);
        for (row, line) in lines.iter().enumerate() {
            let y = (HEADER + 8 + row as u32 * ch + ch / 2) as i32;
            for (col, c) in line.iter().enumerate() {
                if !c.is_whitespace() {
                    let x = (12 + col as u32 * cw + cw / 2) as i32;
                    area.draw_text(&c.to_string(), &style, (x, y))?;
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
    fn a_text_picture_draws_its_characters_in_columns() {
        let p = text_picture("X to move", Some(RGBColor(0, 114, 178)), "ab\n c").unwrap();
        assert_eq!((p.width, p.height), (260, HEADER + 8 + 2 * 18 + 12));
        let inked = |x0: u32, y0: u32| {
            (x0..x0 + TEXT_CELL.0)
                .flat_map(|x| (y0..y0 + TEXT_CELL.1).map(move |y| (x, y)))
                .any(|(x, y)| p.pixel(x, y) != Some([250, 249, 245]))
        };
        let top = HEADER + 8;
        // "a" and "b" in the first line's first two cells, "c" under "b", nothing under "a".
        assert!(inked(12, top) && inked(21, top) && inked(21, top + 18));
        assert!(!inked(12, top + 18));
        assert_eq!(p.pixel(p.width, 0), None);
    }

    #[test]
    fn too_large_a_picture_is_refused_with_its_size() {
        let e = paint(4096, 10, |_| Ok(())).unwrap_err();
        assert_eq!(e.0, "a picture of 4096 x 10 pixels: at most 2048 a side");
        let long = "x".repeat(500);
        let p = text_picture("", None, &long).unwrap();
        assert_eq!(p.width, 24 + 120 * 9, "cut at 120 characters");
    }
}
