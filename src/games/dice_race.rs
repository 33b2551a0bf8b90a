//! Dice race: the toolkit's smallest game with chance and more than two players, the toy that
//! keeps the core honest about what Hase und Igel needs. Runners take turns; for each turn a die
//! is rolled (1, 2 or 3 with probabilities 1/2, 1/3, 1/6), then the runner either steps one
//! square (`step`) or dashes the rolled number of squares (`dash`). The first to reach the goal
//! wins (+1; the others share the loss, so returns sum to zero).
//!
//! Actions: 0 = step, 1 = dash; chance outcomes 1, 2, 3 are the die's faces.

use serde::{Deserialize, Serialize};

use crate::core::game::{
    Action, Capabilities, Game, MAX_PLAYERS, Player, Returns, Solver, Truth, Turn,
};
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::truth::{ExpectSolution, Oracle, Solution, Solve, SolveError, SolveOptions};

/// The die: faces and their probabilities.
const DIE: [(Action, f64); 3] = [(1, 0.5), (2, 1.0 / 3.0), (3, 1.0 / 6.0)];

const NAMES: [&str; MAX_PLAYERS] = ["red", "green", "blue", "yellow", "white", "black"];

game_params! {
    /// Dice race parameters.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct DiceRaceParams {
        /// runners, 2 to 6
        pub players: usize = 3,
        /// the square that wins, 1 to 50
        pub goal: u8 = 5,
    }
}

impl GameSpec for DiceRaceParams {
    const NAME: &'static str = "dice-race";
    const SUMMARY: &'static str =
        "a race with a die for 2-6 runners: the toy game with chance and more than two players";
    type Game = DiceRace;
    fn build(self) -> Result<DiceRace, InvalidParams> {
        DiceRace::new(self)
    }
}

/// The rules of a dice race.
#[derive(Clone, Copy, Debug)]
pub struct DiceRace {
    players: usize,
    goal: u8,
}

/// A position: every runner's square, whose turn it is, and the roll (0 while the die is still
/// to be rolled).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Race {
    pub pos: [u8; MAX_PLAYERS],
    pub to_move: u8,
    pub roll: u8,
}

impl DiceRace {
    pub fn new(params: DiceRaceParams) -> Result<Self, InvalidParams> {
        if !(2..=MAX_PLAYERS).contains(&params.players) {
            return Err(InvalidParams::new(
                "players",
                params.players,
                format!("a race has 2 to {MAX_PLAYERS} runners"),
            ));
        }
        if !(1..=50).contains(&params.goal) {
            return Err(InvalidParams::new(
                "goal",
                params.goal,
                "the goal is a square from 1 to 50",
            ));
        }
        Ok(DiceRace {
            players: params.players,
            goal: params.goal,
        })
    }

    fn positions<'s>(&self, s: &'s Race) -> &'s [u8] {
        &s.pos[..self.players]
    }
}

impl Default for DiceRace {
    fn default() -> Self {
        DiceRace::new(DiceRaceParams::default()).expect("the defaults make a race")
    }
}

impl Game for DiceRace {
    type State = Race;
    fn name(&self) -> &'static str {
        DiceRaceParams::NAME
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({ "players": self.players, "goal": self.goal })
    }
    fn num_players(&self) -> usize {
        self.players
    }
    fn player_name(&self, p: Player) -> &'static str {
        NAMES[p]
    }
    fn num_distinct_actions(&self) -> usize {
        4
    }
    fn initial_state(&self) -> Race {
        Race {
            pos: [0; MAX_PLAYERS],
            to_move: 0,
            roll: 0,
        }
    }
    fn turn(&self, s: &Race) -> Turn {
        if self.positions(s).iter().any(|&p| p >= self.goal) {
            Turn::Terminal
        } else if s.roll == 0 {
            Turn::Chance
        } else {
            Turn::Player(s.to_move as Player)
        }
    }
    fn legal_actions(&self, s: &Race, out: &mut Vec<Action>) {
        out.clear();
        if let Turn::Player(_) = self.turn(s) {
            out.extend([0, 1]);
        }
    }
    fn chance_outcomes(&self, s: &Race, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if self.turn(s) == Turn::Chance {
            out.extend(DIE);
        }
    }
    fn apply(&self, s: &Race, a: Action) -> Race {
        let mut next = s.clone();
        if s.roll == 0 {
            next.roll = a as u8;
        } else {
            next.pos[s.to_move as usize] += if a == 0 { 1 } else { s.roll };
            next.to_move = ((s.to_move as usize + 1) % self.players) as u8;
            next.roll = 0;
        }
        next
    }
    fn returns(&self, s: &Race) -> Returns {
        match self.positions(s).iter().position(|&p| p >= self.goal) {
            Some(w) => Returns::win(self.players, w),
            None => Returns::zeros(self.players),
        }
    }
    fn action_to_string(&self, s: &Race, a: Action) -> String {
        if s.roll == 0 {
            format!("roll {a}")
        } else if a == 0 {
            "step".into()
        } else {
            "dash".into()
        }
    }
    fn render(&self, s: &Race) -> String {
        let mut out = String::new();
        for p in 0..self.players {
            let square = s.pos[p] as usize;
            out.push_str(&format!(
                "{:<7}|{}R{}| {square}\n",
                self.player_name(p),
                ".".repeat(square.min(self.goal as usize)),
                ".".repeat((self.goal as usize).saturating_sub(square + 1)),
            ));
        }
        match self.turn(s) {
            Turn::Terminal => {}
            Turn::Chance => out.push_str(&format!(
                "{} to roll\n",
                self.player_name(s.to_move as Player)
            )),
            Turn::Player(p) => out.push_str(&format!(
                "{} to move, rolled {}\n",
                self.player_name(p),
                s.roll
            )),
        }
        out
    }
    fn observation_len(&self) -> usize {
        self.players + 2
    }
    /// Squares from `player`'s seat round the table (as fractions of the goal), whose turn it
    /// is (relative to `player`) and the roll.
    fn observe(&self, s: &Race, player: Player, out: &mut [f32]) {
        let n = self.players;
        for (i, o) in out[..n].iter_mut().enumerate() {
            *o = s.pos[(player + i) % n] as f32 / self.goal as f32;
        }
        out[n] = ((s.to_move as usize + n - player) % n) as f32;
        out[n + 1] = s.roll as f32;
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            players: self.players,
            chance: true,
            truth: Truth::ExpectedReturns,
            solver: Solver::Own {
                name: "expectiminimax (paranoid values for more than two runners)",
                flags: &["max-states"],
            },
            // Every runner on any square, any runner to move, the die rolled or not: 6 runners
            // to 50 give 2.2 x 10^11, refused before enumeration starts.
            states_estimate: Some(
                u64::from(self.goal as u32 + 1)
                    .saturating_pow(self.players as u32)
                    .saturating_mul(2 * self.players as u64),
            ),
            ..Capabilities::enumerable(self.players)
        }
    }
}

impl Solve for DiceRace {
    /// Each runner's exact win probability against all the others ([`ExpectSolution`]).
    fn solve(&self, options: &SolveOptions) -> Result<Box<dyn Oracle<Self>>, SolveError> {
        if options.generic {
            // The generic solver is for deterministic two-player games: it says why not.
            return Ok(Box::new(Solution::solve(self, options.max_states)?));
        }
        Ok(Box::new(ExpectSolution::solve_showing(
            self,
            options.max_states,
            options.progress,
        )?))
    }
}
