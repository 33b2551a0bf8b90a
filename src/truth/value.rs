//! The vocabulary of exact truth: what a position is worth under perfect play.

use crate::core::game::{Game, GameResult, Player};

/// The game-theoretic value of a state under perfect play: the winner reaches the end as fast
/// as it can, the loser as slowly as it can.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win { winner: Player, plies: u32 },
    Draw,
}

/// A value seen from one player's side, as the seeds write it ("win in 7").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { plies: u32 },
    Loss { plies: u32 },
    Draw,
}

impl Value {
    /// A sort key for `player`: larger is better (a faster win, a slower loss).
    pub fn key_for(self, player: Player) -> i64 {
        match self {
            Value::Win { winner, plies } if winner == player => (1 << 40) - plies as i64,
            Value::Win { plies, .. } => -(1 << 40) + plies as i64,
            Value::Draw => 0,
        }
    }
    pub fn result_for(self, player: Player) -> GameResult {
        match self {
            Value::Win { winner, .. } if winner == player => GameResult::Win,
            Value::Win { .. } => GameResult::Loss,
            Value::Draw => GameResult::Draw,
        }
    }
    pub fn outcome_for(self, player: Player) -> Outcome {
        match self {
            Value::Win { winner, plies } if winner == player => Outcome::Win { plies },
            Value::Win { plies, .. } => Outcome::Loss { plies },
            Value::Draw => Outcome::Draw,
        }
    }
    pub fn winner(self) -> Option<Player> {
        match self {
            Value::Win { winner, .. } => Some(winner),
            Value::Draw => None,
        }
    }
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win { plies, .. } => Some(plies),
            Value::Draw => None,
        }
    }
    /// The value seen one ply earlier (a parent reaching this state): one more ply to the end.
    pub fn one_ply_earlier(self) -> Value {
        match self {
            Value::Win { winner, plies } => Value::Win {
                winner,
                plies: plies + 1,
            },
            Value::Draw => Value::Draw,
        }
    }
    /// "black wins in 11 plies", "draw".
    pub fn describe<G: Game>(self, game: &G) -> String {
        match self {
            Value::Win { winner, plies } => format!(
                "{} in {plies} {}",
                game.player_wins(winner),
                if plies == 1 { "ply" } else { "plies" }
            ),
            Value::Draw => "draw".to_string(),
        }
    }
}
