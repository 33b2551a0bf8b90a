//! `solvedgym moves`: the legal moves of a position written in a game's notation, each with
//! what it means and the position it leads to; a move that ends in a chance event lists the
//! outcomes (Hase und Igel's hare cards) with their probabilities and positions.

use std::fmt::Write as _;

use serde::Serialize;

use crate::core::game::{Action, Game, Turn};

/// One chance outcome after a move.
#[derive(Serialize)]
pub struct Outcome {
    /// The outcome in the game's notation (a card's name).
    pub outcome: String,
    pub description: String,
    pub probability: f64,
    pub position: serde_json::Value,
}

/// One legal move.
#[derive(Serialize)]
pub struct Move {
    /// The move in the game's notation (the reference AI's codes in Hase und Igel).
    #[serde(rename = "move")]
    pub notation: String,
    /// The environment's action number.
    pub action: Action,
    pub description: String,
    /// The position after the move (before any chance event).
    pub position: serde_json::Value,
    /// What nature may do next, when it moves after this move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<Outcome>,
}

/// The moves of a position.
#[derive(Serialize)]
pub struct Moves {
    /// Who acts: a player's name, "chance", or "nobody" at the end.
    pub to_move: String,
    pub moves: Vec<Move>,
    /// The returns, where the position is an end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returns: Option<Vec<f64>>,
    #[serde(skip)]
    text: String,
}

impl std::fmt::Display for Moves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

fn outcomes_of<G: Game>(game: &G, state: &G::State) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    game.chance_outcomes(state, &mut outcomes);
    outcomes
        .iter()
        .map(|&(a, p)| {
            let next = game.apply(state, a);
            Outcome {
                outcome: game.action_to_string(state, a),
                description: game.describe_action(state, a),
                probability: p,
                position: game.write_position(&next).unwrap_or_default(),
            }
        })
        .collect()
}

/// The legal moves at `state` (or the chance outcomes, where nature moves).
pub fn moves<G: Game>(game: &G, state: &G::State) -> Moves {
    let mut text = game.render(state);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    // A position's notation is shown where it is short (a board string, not Hase und Igel's
    // JSON, which --json gives).
    let short = |s: &G::State| {
        crate::core::notation::position_text(game, s).filter(|t| !t.starts_with('{'))
    };
    if let Some(t) = short(state) {
        let _ = writeln!(text, "position: {t}");
    }
    let (to_move, moves) = match game.turn(state) {
        Turn::Terminal => ("nobody".to_string(), Vec::new()),
        Turn::Chance => {
            let list = outcomes_of(game, state)
                .into_iter()
                .map(|o| Move {
                    notation: o.outcome,
                    action: 0,
                    description: format!("{} (probability {:.4})", o.description, o.probability),
                    position: o.position,
                    outcomes: Vec::new(),
                })
                .collect();
            ("chance".to_string(), list)
        }
        Turn::Player(p) => {
            let mut legal = Vec::new();
            game.legal_actions(state, &mut legal);
            let list = legal
                .iter()
                .map(|&a| {
                    let next = game.apply(state, a);
                    let outcomes = if game.turn(&next) == Turn::Chance {
                        outcomes_of(game, &next)
                    } else {
                        Vec::new()
                    };
                    Move {
                        notation: game.action_to_string(state, a),
                        action: a,
                        description: game.describe_action(state, a),
                        position: game.write_position(&next).unwrap_or_default(),
                        outcomes,
                    }
                })
                .collect();
            (game.player_name(p).to_string(), list)
        }
    };
    let returns = game
        .turn(state)
        .is_terminal()
        .then(|| game.returns(state).as_slice().to_vec());
    match &returns {
        Some(r) => {
            let _ = writeln!(text, "the game is over: returns {r:?}");
        }
        None => {
            let n = moves.len();
            let _ = writeln!(
                text,
                "{to_move} to act: {n} {}",
                if n == 1 { "move" } else { "moves" }
            );
        }
    }
    for m in &moves {
        // The words where they say more than the move's name; the position it leads to where
        // its notation is short.
        let mut line = format!("  {:>5}", m.notation);
        if m.description != m.notation {
            let _ = write!(line, "  {}", m.description);
        }
        if let Some(p) = m.position.as_str().filter(|p| !p.starts_with('{')) {
            let _ = write!(line, "  -> {p}");
        }
        let _ = writeln!(text, "{line}");
        for o in &m.outcomes {
            let _ = writeln!(
                text,
                "           {:.4}  {}: {}",
                o.probability, o.outcome, o.description
            );
        }
    }
    Moves {
        to_move,
        moves,
        returns,
        text,
    }
}
