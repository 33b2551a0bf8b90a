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
use crate::core::picture::status;
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::io::draw::{
    DrawError, FAINT_INK, HEADER, INK, Picture, capitalise, disc, header, paint, player_colour,
    text,
};
use crate::truth::{ExpectSolution, Oracle, Solution, Solve, SolveError, SolveOptions};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        race_params(text)
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
pub struct DiceRaceState {
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

    fn positions<'s>(&self, s: &'s DiceRaceState) -> &'s [u8] {
        &s.pos[..self.players]
    }
}

/// The most characters a race string may have (six runners take under 40).
const MAX_RACE_TEXT: usize = 200;

impl DiceRace {
    /// A position as a race string: every runner's square in seat order, separated by commas,
    /// then a space and the runner to act (a colour, red green blue yellow white black, or a
    /// seat number from 0), then, once the die is rolled, the roll: `2,0,4 green` (green to
    /// roll), `2,0,4 green 3` (green rolled 3, to step or dash). The runners are the game's
    /// `players` (`moves`, `play` and `solve` take them from the string). A square lies from 0
    /// to the goal + 2 (a dash of 3 from the square before it); at most one runner has reached
    /// the goal, and then the race is over and no roll is written.
    pub fn read_race(&self, text: &str) -> Result<DiceRaceState, String> {
        let n = text.chars().count();
        if n > MAX_RACE_TEXT {
            return Err(format!(
                "{} characters; a race string has at most {MAX_RACE_TEXT}",
                crate::io::text::group(&n.to_string())
            ));
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        let shape = "a race string is the squares, the runner to act and the roll once rolled, \
                     e.g. `2,0,4 green 3`";
        if words.len() < 2 || words.len() > 3 {
            return Err(format!("{} word(s): {shape}", words.len()));
        }
        let squares: Vec<&str> = words[0].split(',').collect();
        if squares.len() != self.players {
            return Err(format!(
                "{} squares, but the race has {} runners (--players {})",
                squares.len(),
                self.players,
                self.players
            ));
        }
        let top = self.goal as u32 + 2;
        let mut pos = [0u8; MAX_PLAYERS];
        for (i, sq) in squares.iter().enumerate() {
            let v: u32 = sq.trim().parse().map_err(|_| {
                format!(
                    "square {} (of {}): `{}` is not a square (a number from 0 to {top})",
                    i + 1,
                    self.player_name(i),
                    crate::io::text::abbreviated(sq, 20)
                )
            })?;
            if v > top {
                return Err(format!(
                    "square {} (of {}): {v} is past {top}, the farthest a dash reaches with the \
                     goal at {} (--goal)",
                    i + 1,
                    self.player_name(i),
                    self.goal
                ));
            }
            pos[i] = v as u8;
        }
        let who = words[1];
        let to_move = match who.parse::<usize>() {
            Ok(seat) if seat < self.players => seat,
            _ => (0..self.players)
                .find(|&p| self.player_name(p).eq_ignore_ascii_case(who))
                .ok_or_else(|| {
                    format!(
                        "`{}` is not a runner: {} (or seats 0 to {})",
                        crate::io::text::abbreviated(who, 20),
                        (0..self.players)
                            .map(|p| self.player_name(p))
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.players - 1
                    )
                })?,
        };
        let home = pos[..self.players]
            .iter()
            .filter(|&&p| p >= self.goal)
            .count();
        if home > 1 {
            return Err(format!(
                "{home} runners at the goal ({}): the race ends when the first arrives",
                self.goal
            ));
        }
        let roll = match words.get(2) {
            None => 0,
            Some(_) if home > 0 => {
                return Err("a runner has reached the goal: the race is over, no roll".into());
            }
            Some(r) => match r.parse::<u8>() {
                Ok(r @ 1..=3) => r,
                _ => {
                    return Err(format!(
                        "the roll `{}` is not a face of the die (1, 2 or 3)",
                        crate::io::text::abbreviated(r, 20)
                    ));
                }
            },
        };
        Ok(DiceRaceState {
            pos,
            to_move: to_move as u8,
            roll,
        })
    }

    /// The race string [`DiceRace::read_race`] reads.
    pub fn write_race(&self, s: &DiceRaceState) -> String {
        let squares: Vec<String> = self.positions(s).iter().map(u8::to_string).collect();
        let mut out = format!(
            "{} {}",
            squares.join(","),
            self.player_name(s.to_move as Player)
        );
        if s.roll != 0 {
            out.push_str(&format!(" {}", s.roll));
        }
        out
    }
}

/// The runners a race string implies (`moves`, `play` and `solve` take them from `--state`).
pub fn race_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    if let Some(first) = text.split_whitespace().next()
        && text.len() <= MAX_RACE_TEXT
    {
        m.insert("players".into(), first.split(',').count().into());
    }
    m
}

impl Default for DiceRace {
    fn default() -> Self {
        DiceRace::new(DiceRaceParams::default()).expect("the defaults make a race")
    }
}

impl Game for DiceRace {
    type State = DiceRaceState;
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
    fn initial_state(&self) -> DiceRaceState {
        DiceRaceState {
            pos: [0; MAX_PLAYERS],
            to_move: 0,
            roll: 0,
        }
    }
    fn turn(&self, s: &DiceRaceState) -> Turn {
        if self.positions(s).iter().any(|&p| p >= self.goal) {
            Turn::Terminal
        } else if s.roll == 0 {
            Turn::Chance
        } else {
            Turn::Player(s.to_move as Player)
        }
    }
    fn legal_actions(&self, s: &DiceRaceState, out: &mut Vec<Action>) {
        out.clear();
        if let Turn::Player(_) = self.turn(s) {
            out.extend([0, 1]);
        }
    }
    fn chance_outcomes(&self, s: &DiceRaceState, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if self.turn(s) == Turn::Chance {
            out.extend(DIE);
        }
    }
    fn apply(&self, s: &DiceRaceState, a: Action) -> DiceRaceState {
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
    fn returns(&self, s: &DiceRaceState) -> Returns {
        match self.positions(s).iter().position(|&p| p >= self.goal) {
            Some(w) => Returns::win(self.players, w),
            None => Returns::zeros(self.players),
        }
    }
    fn action_to_string(&self, s: &DiceRaceState, a: Action) -> String {
        if s.roll == 0 {
            format!("roll {a}")
        } else if a == 0 {
            "step".into()
        } else {
            "dash".into()
        }
    }
    fn picture(&self, s: &DiceRaceState) -> Result<Picture, DrawError> {
        picture(self, s)
    }
    fn render(&self, s: &DiceRaceState) -> String {
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
    /// The race string (see [`DiceRace::read_race`]): `2,0,4 green 3`.
    fn read_position(&self, text: &str) -> Result<DiceRaceState, String> {
        self.read_race(text)
    }
    fn write_position(&self, s: &DiceRaceState) -> Option<serde_json::Value> {
        Some(serde_json::Value::String(self.write_race(s)))
    }
    fn observation_len(&self) -> usize {
        self.players + 2
    }
    /// Squares from `player`'s seat round the table (as fractions of the goal), whose turn it
    /// is (relative to `player`) and the roll.
    fn observe(&self, s: &DiceRaceState, player: Player, out: &mut [f32]) {
        let n = self.players;
        for (i, o) in out[..n].iter_mut().enumerate() {
            *o = s.pos[(player + i) % n] as f32 / self.goal as f32;
        }
        out[n] = ((s.to_move as usize + n - player) % n) as f32;
        out[n + 1] = s.roll as f32;
    }
    fn observation_bounds(&self, low: &mut [f32], high: &mut [f32]) {
        let n = self.players;
        low.fill(0.0);
        // A dash may pass the goal: at most the largest roll (3) from the square before it.
        high[..n].fill((self.goal as f32 + 2.0) / self.goal as f32);
        high[n] = (n - 1) as f32;
        high[n + 1] = 3.0;
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

/// The runners' lanes, each with its square and the goal; the status line says the roll.
fn picture(g: &DiceRace, s: &DiceRaceState) -> Result<Picture, DrawError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn race_strings_round_trip_and_bad_ones_are_refused() {
        for (players, goal) in [(2, 1), (3, 5), (6, 12)] {
            let g = DiceRace::new(DiceRaceParams { players, goal }).unwrap();
            let n = crate::core::notation::check_round_trips(&g, 200, 500, 7, true).unwrap();
            assert!(n > 200, "{n}");
        }
        let g = DiceRace::default();
        assert_eq!(g.write_race(&g.initial_state()), "0,0,0 red");
        let s = g.read_race(" 2,0,4  Green 3 ").unwrap();
        assert_eq!(
            (s.pos[..3].to_vec(), s.to_move, s.roll),
            (vec![2, 0, 4], 1, 3)
        );
        assert_eq!(g.read_race("2,0,4 1 3"), Ok(s));
        for (bad, says) in [
            ("", "0 word(s)"),
            (
                "0,0 red",
                "2 squares, but the race has 3 runners (--players 3)",
            ),
            ("0,x,0 red", "square 2 (of green): `x`"),
            ("0,0,8 red", "8 is past 7"),
            ("0,0,0 pink", "`pink` is not a runner: red, green, blue"),
            ("0,0,0 red 4", "the roll `4`"),
            ("5,6,0 red", "2 runners at the goal"),
            ("5,0,0 green 2", "the race is over"),
            ("0,0,0 red 1 2", "4 word(s)"),
        ] {
            let e = g.read_race(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert!(
            g.read_race(&"1,".repeat(1000))
                .unwrap_err()
                .contains("2,000 characters")
        );
        assert_eq!(race_params("1,2,3,4 red")["players"], 4);
    }
}
