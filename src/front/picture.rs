//! Pictures of positions, for a game chosen at run time: each game draws its own
//! ([`Game::picture`](crate::core::game::Game::picture), with the kit of [`crate::io::draw`]), so
//! a front can record videos of episodes (Gymnasium's `render_mode="rgb_array"`); the sizes are
//! fixed per game and its parameters and stay within [`MAX_SIDE`] pixels a side.

use super::{DynGame, DynState, FrontError};
use crate::core::game::Game;
pub use crate::io::draw::{MAX_SIDE, Picture};

impl DynGame {
    /// The position drawn as a picture (see [`Picture`]), as the game draws it; an error for a
    /// position of another game or a picture that cannot be drawn.
    pub fn picture(&self, state: &DynState) -> Result<Picture, FrontError> {
        with_game!(self.game(), g => g
            .picture(self.unwrap(g, state)?)
            .map_err(|e| FrontError::Refused(e.0)))
    }
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
