//! Fox & Hounds' and Hasenspiel's picture: the board, the runner and the pawns.

use super::{Chase, ChaseState, Kind};
use crate::core::game::Game;
use crate::core::picture::status;
use crate::io::draw::{
    DARK_SQUARE, DrawError, Grid, LIGHT_SQUARE, Picture, disc, file_letter, header, paint,
    player_colour,
};

/// The board's dark squares with the runner and the pawns (Hasenspiel's files mirrored, as
/// its notation reads them).
pub(super) fn picture(g: &Chase, s: &ChaseState) -> Result<Picture, DrawError> {
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
