//! What every game's picture shares: the status line (who moves, or who won) in the game's own
//! words and its players' colours, and the picture of a game that draws none of its own — its
//! text drawing ([`Game::render`]) under the status line. The drawing kit is
//! [`crate::io::draw`]; each game's own picture is its [`Game::picture`].

use plotters::style::RGBColor;

use super::game::{Game, Player, Turn};
use crate::io::draw::{DrawError, Picture, capitalise, player_colour, text_picture};

/// The status line any game has — "X to move", "Chance acts", "White wins", "Draw", "Over" —
/// and the colour of the mover or the winner (none for chance, a draw, or several winners).
pub fn status<G: Game>(g: &G, s: &G::State) -> (String, Option<RGBColor>) {
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

/// The picture of a game that draws none: its text drawing under the status line.
pub fn text_drawing<G: Game>(g: &G, s: &G::State) -> Result<Picture, DrawError> {
    let (line, mover) = status(g, s);
    text_picture(&line, mover, &g.render(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{Action, Returns};

    /// Two players take one or two from a pile of five; who takes the last wins. It draws no
    /// picture of its own.
    #[derive(Clone)]
    struct Pile;

    impl Game for Pile {
        type State = (u8, u8);
        fn name(&self) -> &'static str {
            "pile"
        }
        fn params(&self) -> serde_json::Value {
            serde_json::json!({})
        }
        fn num_players(&self) -> usize {
            2
        }
        fn player_name(&self, p: Player) -> &'static str {
            ["first", "second"][p]
        }
        fn num_distinct_actions(&self) -> usize {
            2
        }
        fn initial_state(&self) -> (u8, u8) {
            (5, 0)
        }
        fn turn(&self, s: &(u8, u8)) -> Turn {
            if s.0 == 0 {
                Turn::Terminal
            } else {
                Turn::Player(s.1 as Player)
            }
        }
        fn legal_actions(&self, s: &(u8, u8), out: &mut Vec<Action>) {
            out.clear();
            out.extend((0..s.0.min(2) as Action).collect::<Vec<_>>());
        }
        fn apply(&self, s: &(u8, u8), a: Action) -> (u8, u8) {
            (s.0 - 1 - a as u8, 1 - s.1)
        }
        fn returns(&self, s: &(u8, u8)) -> Returns {
            if s.0 == 0 {
                Returns::win(2, 1 - s.1 as Player)
            } else {
                Returns::zeros(2)
            }
        }
        fn action_to_string(&self, _: &(u8, u8), a: Action) -> String {
            format!("take {}", a + 1)
        }
        fn render(&self, s: &(u8, u8)) -> String {
            format!("pile {}\n{}", s.0, "|".repeat(s.0 as usize))
        }
        fn observation_len(&self) -> usize {
            1
        }
        fn observe(&self, s: &(u8, u8), _: Player, out: &mut [f32]) {
            out[0] = f32::from(s.0);
        }
    }

    #[test]
    fn the_status_line_names_the_mover_and_the_winner() {
        let start = Pile.initial_state();
        assert_eq!(status(&Pile, &start).0, "First to move");
        let end = Pile.apply(&Pile.apply(&Pile.apply(&start, 1), 1), 0);
        assert_eq!(Pile.turn(&end), Turn::Terminal);
        assert_eq!(status(&Pile, &end).0, "First wins");
    }

    #[test]
    fn a_game_without_a_picture_of_its_own_shows_its_text_drawing() {
        let start = Pile.initial_state();
        let p = Pile.picture(&start).unwrap();
        assert_eq!(p, text_drawing(&Pile, &start).unwrap());
        let fewer = Pile.picture(&Pile.apply(&start, 1)).unwrap();
        assert_eq!((p.width, p.height), (fewer.width, fewer.height));
        assert_ne!(p.rgb, fewer.rgb, "the pile's strokes are drawn");
    }
}
