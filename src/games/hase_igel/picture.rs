//! Hase und Igel's picture: the track, the hares on it and each hare's carrots and salads.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::board::Cell;
use super::{HaseIgelState, HaseUndIgel, Phase, notes};
use crate::core::game::{Game, Player};
use crate::io::draw::{
    DrawError, FAINT_INK, HEADER, INK, Picture, disc, fit, header, paint, player_colour, text,
};

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

/// The track wound in rows with the hares on it, and a line for each hare: where it stands,
/// its carrots and salads, its rank.
pub(super) fn picture(g: &HaseUndIgel, s: &HaseIgelState) -> Result<Picture, DrawError> {
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
            let notes = notes(hare);
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
