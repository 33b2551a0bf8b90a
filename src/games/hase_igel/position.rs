//! A position a person can write, in the spirit of the reference AI's `Disposition`: per hare its cell,
//! carrots and salads and the flags the rules need, the hare to move and the round. JSON:
//!
//! ```json
//! { "to_move": 0, "round": 12,
//!   "hares": [ { "cell": 45, "carrots": 26, "salads": 2 },
//!              { "cell": 29, "carrots": 19, "salads": 0, "skip": true } ] }
//! ```
//!
//! Per hare: `cell` (0 start .. goal), `carrots`, `salads` (both required); optional `eat`
//! (it eats a salad on its next turn: it has just arrived on a salad cell), `skip` (it misses
//! its next turn: a card), `place` (its finishing place, for hares on the goal; required
//! there). Optional for the position: `to_move` (seat number or colour; default 0), `round`
//! (default 1), `phase` (`move`, the default; `card`: the mover has just landed on a hare
//! cell and draws, `paid` the carrots the move cost; `choice`: it drew "take or give 10";
//! `over`), `extra` (extra moves taken this turn). Carrots are those the mover has when it
//! chooses: a number cell's payout at the start of its turn is already in them.
//!
//! The game's parameters may stand beside these keys (`board`, `players`, `carrots`, `salads`,
//! `deck`, `end`, `max_rounds`); the written form has them all, so a position file is
//! complete on its own. [`super::HaseUndIgel::position_json`] writes this form.

use serde::{Deserialize, Serialize};

use super::{EAT, Hare, HaseIgelState, HaseUndIgel, NAMES, Phase, SKIP};
use crate::core::game::MAX_PLAYERS;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HareJson {
    cell: u8,
    carrots: u32,
    salads: u8,
    #[serde(default, skip_serializing_if = "is_false")]
    eat: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    skip: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    place: u8,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &u8) -> bool {
    *n == 0
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Seat {
    Number(usize),
    Name(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionJson {
    hares: Vec<HareJson>,
    #[serde(default)]
    to_move: Option<Seat>,
    #[serde(default)]
    round: Option<u16>,
    #[serde(default)]
    phase: Option<String>,
    #[serde(default)]
    paid: u16,
    #[serde(default)]
    extra: u8,
    // The game's parameters, read by the command that builds the game.
    #[serde(default, rename = "board")]
    _board: Option<serde_json::Value>,
    #[serde(default, rename = "players")]
    _players: Option<serde_json::Value>,
    #[serde(default, rename = "carrots")]
    _carrots: Option<serde_json::Value>,
    #[serde(default, rename = "salads")]
    _salads: Option<serde_json::Value>,
    #[serde(default, rename = "deck")]
    _deck: Option<serde_json::Value>,
    #[serde(default, rename = "end")]
    _end: Option<serde_json::Value>,
    #[serde(default, rename = "max_rounds")]
    _max_rounds: Option<serde_json::Value>,
}

impl HaseUndIgel {
    /// Reads a position (JSON, as in the module docs) and checks it against this game's rules.
    pub fn parse_position(&self, text: &str) -> Result<HaseIgelState, String> {
        let json: PositionJson = serde_json::from_str(text).map_err(|e| {
            if e.to_string().contains("expected struct PositionJson") {
                format!(
                    "{e}: a position is a JSON object such as {{\"hares\": [{{\"cell\": 0, \
                     \"carrots\": 68, \"salads\": 3}}, ...]}}"
                )
                .replace("struct PositionJson", "an object")
            } else {
                crate::io::text::plain_words(&e.to_string())
            }
        })?;
        let n = self.players as usize;
        if json.hares.len() != n {
            let given = json.hares.len();
            return Err(if (2..=6).contains(&given) {
                format!(
                    "the position has {given} hares and the game {n} players (set players = {given})"
                )
            } else {
                format!(
                    "the position has {given} hares and the game {n} players; a position holds \
                     2 to 6 hares, one per player"
                )
            });
        }
        let goal = self.goal;
        let mut s = HaseIgelState {
            round: json.round.unwrap_or(1),
            paid: json.paid,
            extra: json.extra,
            ..HaseIgelState::default()
        };
        let mut places = Vec::new();
        for (p, h) in json.hares.iter().enumerate() {
            let who = NAMES[p];
            if h.cell > goal {
                return Err(format!(
                    "{who}: cell {} is past the goal (cell {goal})",
                    h.cell
                ));
            }
            if h.carrots > super::MAX_CARROTS {
                return Err(format!(
                    "{who} holds {} carrots: a position holds at most 1,000,000,000 per hare",
                    crate::io::text::group(&h.carrots.to_string())
                ));
            }
            if h.cell == goal && h.place == 0 {
                return Err(format!(
                    "{who} is on the goal: give its finishing place (\"place\": 1 for the first home)"
                ));
            }
            if h.cell != goal && h.place != 0 {
                return Err(format!(
                    "{who} has a finishing place but stands on cell {}, not the goal ({goal})",
                    h.cell
                ));
            }
            if h.cell > 0 && h.cell < goal {
                if let Some(q) = json.hares[..p].iter().position(|o| o.cell == h.cell) {
                    return Err(format!(
                        "{who} and {} both stand on cell {}: a track cell holds one hare",
                        NAMES[q], h.cell
                    ));
                }
                if self.board.is_hedgehog(h.cell) && h.eat {
                    return Err(format!("{who}: a hare on a hedgehog has no salad to eat"));
                }
            }
            if h.eat && h.salads == 0 {
                return Err(format!("{who}: eat is set but it has no salad"));
            }
            let eats_here = self.board.is_salad(h.cell)
                || (self.board.cell(h.cell) == super::Cell::Hare
                    && self.deck.count(super::Card::EatSalad) > 0);
            if h.eat && !eats_here {
                return Err(format!(
                    "{who}: eat is set on cell {} ({}): a hare eats on a salad cell (or on a hare cell after the classic deck's eat-salad card)",
                    h.cell,
                    self.board.cell(h.cell).name()
                ));
            }
            if h.salads > self.salads {
                return Err(format!(
                    "{who} holds {} salads; the game starts with {} (set salads = {})",
                    h.salads, self.salads, h.salads
                ));
            }
            if h.eat && h.skip {
                return Err(format!("{who}: eat and skip cannot both be set"));
            }
            if h.place > 0 {
                places.push(h.place);
            }
            s.hares[p] = Hare {
                cell: h.cell,
                carrots: h.carrots,
                salads: h.salads,
                place: h.place,
                flags: if h.eat { EAT } else { 0 } | if h.skip { SKIP } else { 0 },
            };
        }
        places.sort_unstable();
        if places.iter().enumerate().any(|(i, &p)| p as usize != i + 1) {
            return Err(format!(
                "finishing places {places:?}: the hares home have places 1, 2, ... in order"
            ));
        }
        let to_move = match json.to_move {
            None => 0,
            Some(Seat::Number(i)) if i < n => i,
            Some(Seat::Number(i)) => {
                return Err(format!("to_move = {i}: the seats are 0 to {}", n - 1));
            }
            Some(Seat::Name(name)) => NAMES[..n]
                .iter()
                .position(|c| c.eq_ignore_ascii_case(&name))
                .ok_or_else(|| {
                    format!(
                        "to_move = {name}: the hares are {} (or seats 0 to {})",
                        NAMES[..n].join(", "),
                        n - 1
                    )
                })?,
        };
        s.to_move = to_move as u8;
        s.phase = match json.phase.as_deref().unwrap_or("move") {
            "move" => Phase::Move,
            "card" => Phase::Card,
            "choice" => Phase::Choice,
            "over" => Phase::Over,
            other => {
                return Err(format!(
                    "phase = {other}: one of move, card (a hare card is drawn), choice (take or give 10), over"
                ));
            }
        };
        if s.phase == Phase::Card && self.deck.is_empty() {
            return Err("phase = card, but the game has no hare cards".into());
        }
        if s.phase == Phase::Card && self.board.cell(s.hares[to_move].cell) != super::Cell::Hare {
            return Err(format!(
                "phase = card: {} stands on cell {}, not a hare cell",
                NAMES[to_move], s.hares[to_move].cell
            ));
        }
        if s.phase != Phase::Card && s.paid != 0 {
            return Err("paid is only for phase = card".into());
        }
        if s.phase == Phase::Card
            && !(1..=u32::from(goal)).any(|n| super::cost(n) == u32::from(s.paid))
        {
            return Err(format!(
                "paid = {}: a forward move costs 1, 3, 6, 10, ... (n(n+1)/2 carrots for n cells)",
                s.paid
            ));
        }
        if s.phase == Phase::Choice && self.deck.count(super::Card::TakeOrGive) == 0 {
            return Err("phase = choice follows the classic deck's take-or-give card, which this deck does not have".into());
        }
        if s.phase != Phase::Over && s.hares[to_move].place != 0 {
            return Err(format!("{} is home and has no more turns", NAMES[to_move]));
        }
        let over = match self.end {
            super::End::First => !places.is_empty(),
            super::End::Ranks => places.len() + 1 >= n,
        };
        if over && s.phase != Phase::Over {
            return Err(format!(
                "{} home: the game is over (phase = over)",
                match places.len() {
                    1 => "a hare is".to_string(),
                    k => format!("{k} hares are"),
                }
            ));
        }
        if s.phase == Phase::Over && !over && s.round <= self.max_rounds {
            return Err(format!(
                "phase = over, but no hare has finished as end = {} asks and the round ({}) is within the cap ({})",
                serde_json::to_value(self.end)
                    .unwrap_or_default()
                    .as_str()
                    .unwrap_or("first"),
                s.round,
                self.max_rounds
            ));
        }
        if s.round == 0 || s.round > self.max_rounds + u16::from(s.phase == Phase::Over) {
            return Err(format!(
                "round = {}: rounds run from 1 to the cap, {}",
                s.round, self.max_rounds
            ));
        }
        if s.extra > super::MAX_EXTRA {
            return Err(format!("extra = {}: at most {}", s.extra, super::MAX_EXTRA));
        }
        debug_assert!(n <= MAX_PLAYERS);
        Ok(s)
    }

    /// The position as JSON, with the game's parameters: what [`HaseUndIgel::parse_position`]
    /// reads back.
    pub fn position_json(&self, s: &HaseIgelState) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.params).unwrap_or_default();
        let hares: Vec<HareJson> = self
            .hares(s)
            .iter()
            .map(|h| HareJson {
                cell: h.cell,
                carrots: h.carrots,
                salads: h.salads,
                eat: h.flags & EAT != 0,
                skip: h.flags & SKIP != 0,
                place: h.place,
            })
            .collect();
        let phase = match s.phase {
            Phase::Move => "move",
            Phase::Card => "card",
            Phase::Choice => "choice",
            Phase::Over => "over",
        };
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("players".into(), self.players.into());
            m.insert("carrots".into(), self.carrots.into());
            m.insert("to_move".into(), s.to_move.into());
            m.insert("round".into(), s.round.into());
            m.insert("phase".into(), phase.into());
            if s.paid > 0 {
                m.insert("paid".into(), s.paid.into());
            }
            if s.extra > 0 {
                m.insert("extra".into(), s.extra.into());
            }
            m.insert(
                "hares".into(),
                serde_json::to_value(hares).unwrap_or_default(),
            );
        }
        v
    }
}
