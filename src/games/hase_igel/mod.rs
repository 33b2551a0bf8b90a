//! Hase und Igel (Hare & Tortoise; David Parlett, Ravensburger): a race for 2 to 6 hares with
//! carrots as fuel, salads to shed, hedgehogs to fall back to and hare cards as chance. The
//! rules are the Ravensburger 2008 rule book's (R08) as `rules/hase-und-igel-and-hackenbush.md`
//! Part 1 states them, one hare per player (the reference AI's game), with these decisions where the
//! book is silent or ambiguous:
//!
//! - **Board**: the 2008 board (layout B) by default, the classic board (layout A), or any
//!   track as a cell string ([`board`]); start and goal are implied, the goal is a cell for
//!   distance. Starting carrots: 68, or 98 with 5 or 6 players; 3 salads; both parameters.
//! - **Race position** (rank): 1 + the hares ahead. Finished hares are ahead of every hare
//!   still racing, in finishing order; a hare on a higher cell is ahead. Hares together on the
//!   start share a rank (nobody is ahead of another there).
//! - **Moves** in the reference AI's codes: `N` forward N cells (pay N(N+1)/2), `-M` back M cells to
//!   the nearest hedgehog behind (free; +10 carrots per cell), `0` a forced stay (eat the salad,
//!   a missed turn), `1001` / `1002` stay on a carrot cell and take / give 10 carrots (giving
//!   needs 10). No voluntary pass anywhere else (§1.7.3).
//! - **Number cells** pay 10 × rank at the start of every turn the hare begins there when its
//!   rank matches (1/5/6, 2, 3, 4); a state shows the carrots after that payout.
//! - **Salad cells**: entered only with a salad; the next turn is the forced stay `0` (one salad
//!   eaten, +10 × rank); then the hare must move on (there is no stay on a salad cell).
//! - **Goal**: only with no salad and at most 10 × (finishing place) carrots after paying.
//! - **Stuck rule**: a hare with no legal move at all (whatever its carrots: the book names the
//!   carrotless case, we take every case where nothing is legal) goes back to the start with the
//!   starting carrots and keeps its salads; the move is written `-M` (M = its cell). A hare
//!   that cannot move from the start stays (`0`).
//! - **Hare cards** ([`cards`]): drawn on landing on a hare cell by a forward move, as
//!   independent draws (count / deck size), so the state stays Markov. A card that moves a hare
//!   never draws another card. "Give every hare behind you 10" gives to all or, if the carrots
//!   do not reach, to none; receivers always accept. "Lose half" loses the half rounded down.
//!   "Shuffle" collects one carrot from every other hare still racing that has one. "Move again"
//!   is at most [`MAX_EXTRA`] extra moves in one turn (a cap that keeps the state graph finite;
//!   reaching it has probability below 10^-13 with the 2008 deck). The classic deck's card moves
//!   ("move up", "fall back") go to the first cell a forward move could enter (free, not a
//!   hedgehog, a salad cell only with a salad, the goal only under the finish condition);
//!   "fall back" never goes to the start: with no such cell behind, it has no effect.
//! - **End**: by default the first hare home wins (+1, the others share -1, returns sum to
//!   zero); `end = "ranks"` plays on for places until one hare is left (returns by place, from +1
//!   down to -1). States repeat, so a round cap (`max_rounds`) ends the game: hares then rank by
//!   progress (finished first, then by cell), then by fewer carrots; k hares tied at the top
//!   share the win, (n-k)/(k(n-1)) each, while every other hare gets -1/(n-1) (ties in ranks mode
//!   share their places' returns). Environments report the cap as truncation
//!   ([`Game::is_cut_off`]). An ended game keeps the hares and the round only (whose turn it was
//!   is cleared), so that equal ends are one state.
//! - Carrots are counted up to 65,535 (a hare cannot come near that within the round cap).

pub mod board;
pub mod cards;
pub mod heuristic;
mod picture;
pub mod position;
mod rules;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::board::{Board, Cell, cost};
use self::cards::{CARDS, Card, Deck};
use crate::core::game::{
    Action, Capabilities, Game, IllegalAction, MAX_PLAYERS, Player, Returns, Solver, Truth, Turn,
};
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::truth::{Solve, SolveError, SolveOptions};

/// At most this many extra moves ("move again") in one turn.
pub const MAX_EXTRA: u8 = 16;

/// The most carrots a hare may hold at the start or in a position given as input (the
/// `carrots` parameter, a position's JSON). Play can add to it, but never to the counter's end:
/// a turn gains at most 1,260 (falling back 126 cells) + 60 (a number cell) + 17 x (200 from
/// "salads into carrots" with 20 salads + 10 + 5) < 5,000 carrots (a refund only returns what
/// the move paid), so 10,000 rounds of 6 hares add under 3 x 10^8, and 10^9 + 3 x 10^8 fits a
/// `u32` (4,294,967,295) with room to spare: no count ever saturates.
pub const MAX_CARROTS: u32 = 1_000_000_000;

/// The reference AI's codes for staying on a carrot cell.
pub const TAKE_10: i32 = 1001;
pub const GIVE_10: i32 = 1002;

const NAMES: [&str; MAX_PLAYERS] = ["red", "green", "blue", "yellow", "white", "black"];

/// When the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// The first hare home wins.
    #[default]
    First,
    /// Play on for places until one hare is left.
    Ranks,
}

game_params! {
    /// Hase und Igel parameters.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct HaseUndIgelParams {
        /// hares, 2 to 6
        pub players: usize = 3,
        /// the track: 2008 (Ravensburger 2008, layout B), classic (layout A), or cells as a string (H hare, C carrot, I hedgehog, S salad, 1 for 1/5/6, 2, 3, 4; start and goal implied)
        pub board: String = "2008".to_string(),
        /// starting carrots (default: 68, or 98 with 5 or 6 players)
        pub carrots: Option<u32> = None,
        /// starting salads
        pub salads: u8 = 3,
        /// hare cards: 2008 (15 cards), classic (12), none, or a table of card counts
        pub deck: Deck = Deck::edition_2008(),
        /// first (the first hare home wins) or ranks (play on for places)
        pub end: End = End::First,
        /// the round cap: at the cap hares rank by progress, then by fewer carrots
        pub max_rounds: u16 = 100,
    }
}

impl GameSpec for HaseUndIgelParams {
    const NAME: &'static str = "hase-und-igel";
    const ALIASES: &'static [&'static str] = &["hare-and-tortoise", "hase-igel"];
    const SUMMARY: &'static str = "Hase und Igel (Hare & Tortoise) for 2-6 hares with hare cards as chance: the 2008 board, the classic one or any track";
    type Game = HaseUndIgel;
    fn build(self) -> Result<HaseUndIgel, InvalidParams> {
        HaseUndIgel::new(self)
    }
}

/// The committed evaluation, parsed once.
fn default_evaluation() -> Arc<heuristic::Evaluation> {
    static DEFAULT: std::sync::OnceLock<Arc<heuristic::Evaluation>> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(|| Arc::new(heuristic::Evaluation::default()))
        .clone()
}

/// The rules of one Hase und Igel setting (players, track, deck, end, cap).
#[derive(Clone, Debug)]
pub struct HaseUndIgel {
    players: u8,
    board: Arc<Board>,
    goal: u8,
    carrots: u32,
    salads: u8,
    deck: Deck,
    /// The deck's draws as chance outcomes (card number, probability); empty without cards.
    draws: Arc<[(Action, f64)]>,
    end: End,
    max_rounds: u16,
    params: HaseUndIgelParams,
    /// The heuristic's coefficients and curves (the committed config unless a search player
    /// asked for others).
    evaluation: Arc<heuristic::Evaluation>,
    /// Its curves tabled for this board.
    tables: Arc<heuristic::Tables>,
}

/// One hare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hare {
    /// 0 start, 1..goal-1 the track, goal.
    pub cell: u8,
    pub salads: u8,
    /// Finishing place (1 = first home), 0 while racing.
    pub place: u8,
    /// [`EAT`] and [`SKIP`].
    pub flags: u8,
    /// At most [`MAX_CARROTS`] in a position given as input; play adds to it (see there).
    pub carrots: u32,
}

/// The hare eats a salad on its next turn (it arrived on a salad cell, or a card said so).
pub const EAT: u8 = 1;
/// The hare misses its next turn (a card said so).
pub const SKIP: u8 = 2;

/// What the text drawing and the picture say of a hare beside its cell, carrots and salads:
/// home and its place, a salad to eat, a turn to miss.
fn notes(h: &Hare) -> Vec<String> {
    let mut notes = Vec::new();
    if h.place > 0 {
        notes.push(format!("home, place {}", h.place));
    }
    if h.flags & EAT != 0 {
        notes.push("eats a salad next turn".to_string());
    }
    if h.flags & SKIP != 0 {
        notes.push("misses the next turn".to_string());
    }
    notes
}

/// Where a turn stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// The hare `to_move` chooses a move.
    #[default]
    Move,
    /// It landed on a hare cell: a card is drawn (chance).
    Card,
    /// It drew "take or give 10" and chooses (`1001`, `1002` or `0`).
    Choice,
    /// The game is over.
    Over,
}

/// A position: the hares, the round, who is to move and where the turn stands. Small and
/// `Copy`: a move allocates nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HaseIgelState {
    pub hares: [Hare; MAX_PLAYERS],
    /// 1 in the first round; `max_rounds + 1` once the cap has ended the game.
    pub round: u16,
    /// While a card is to be drawn: the carrots the move onto the hare cell cost.
    pub paid: u16,
    pub to_move: u8,
    pub phase: Phase,
    /// Extra moves ("move again") taken in this turn.
    pub extra: u8,
}

impl HaseUndIgel {
    pub fn new(params: HaseUndIgelParams) -> Result<Self, InvalidParams> {
        if !(2..=MAX_PLAYERS).contains(&params.players) {
            return Err(InvalidParams::new(
                "players",
                params.players,
                format!("Hase und Igel has 2 to {MAX_PLAYERS} hares"),
            ));
        }
        let board = Board::parse(&params.board)
            .map_err(|e| InvalidParams::new("board", &params.board, e.to_string()))?;
        if params.max_rounds == 0 || params.max_rounds > 10_000 {
            return Err(InvalidParams::new(
                "max_rounds",
                params.max_rounds,
                "the round cap is 1 to 10,000 rounds",
            ));
        }
        if params.salads > 20 {
            return Err(InvalidParams::new(
                "salads",
                params.salads,
                "at most 20 salads",
            ));
        }
        if params.deck.size() > 0 && (0..=board.goal()).all(|i| board.cell(i) != Cell::Hare) {
            // Fine: the deck is never drawn. Nothing to refuse.
        }
        let carrots = params
            .carrots
            .unwrap_or(if params.players >= 5 { 98 } else { 68 });
        if carrots > MAX_CARROTS {
            return Err(InvalidParams::new(
                "carrots",
                carrots,
                "a hare starts with at most 1,000,000,000 carrots",
            ));
        }
        let evaluation = default_evaluation();
        Ok(HaseUndIgel {
            players: params.players as u8,
            goal: board.goal(),
            tables: Arc::new(heuristic::Tables::new(&evaluation, board.goal())),
            board: Arc::new(board),
            carrots,
            salads: params.salads,
            deck: params.deck,
            draws: params
                .deck
                .draws()
                .map(|(c, p)| (c.index() as Action, p))
                .collect(),
            end: params.end,
            max_rounds: params.max_rounds,
            params,
            evaluation,
        })
    }

    /// The heuristic's coefficients and curves.
    pub fn evaluation(&self) -> &heuristic::Evaluation {
        &self.evaluation
    }

    /// The same rules, valued by another evaluation.
    pub fn with_evaluation_of(&self, evaluation: heuristic::Evaluation) -> HaseUndIgel {
        HaseUndIgel {
            tables: Arc::new(heuristic::Tables::new(&evaluation, self.goal)),
            evaluation: Arc::new(evaluation),
            ..self.clone()
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn deck(&self) -> &Deck {
        &self.deck
    }
    pub fn end(&self) -> End {
        self.end
    }
    pub fn max_rounds(&self) -> u16 {
        self.max_rounds
    }
    pub fn starting_carrots(&self) -> u32 {
        self.carrots
    }
    pub fn starting_salads(&self) -> u8 {
        self.salads
    }
    pub fn parameters(&self) -> &HaseUndIgelParams {
        &self.params
    }

    // ----- the reference AI's move codes and action numbers -----

    /// The action number of a reference AI's code: codes -goal..=goal in numeric order, then 1001, 1002.
    pub fn action_of_code(&self, code: i32) -> Option<Action> {
        let g = i32::from(self.goal);
        match code {
            TAKE_10 => Some(2 * g as Action + 1),
            GIVE_10 => Some(2 * g as Action + 2),
            c if (-g..=g).contains(&c) => Some((c + g) as Action),
            _ => None,
        }
    }

    /// The reference AI's code of a player's action number.
    pub fn code_of_action(&self, action: Action) -> i32 {
        let g = i32::from(self.goal);
        match action as i32 - g {
            d if d == g + 1 => TAKE_10,
            d if d == g + 2 => GIVE_10,
            d => d,
        }
    }

    // ----- facts about a position -----

    fn hares<'s>(&self, s: &'s HaseIgelState) -> &'s [Hare] {
        &s.hares[..self.players as usize]
    }

    /// Hares home.
    pub fn finished(&self, s: &HaseIgelState) -> u8 {
        self.hares(s).iter().filter(|h| h.place > 0).count() as u8
    }

    /// Whether hare `q` is ahead of hare `p`.
    fn ahead(q: &Hare, p: &Hare) -> bool {
        match (q.place, p.place) {
            (0, 0) => q.cell > p.cell,
            (0, _) => false,
            (_, 0) => true,
            (a, b) => a < b,
        }
    }

    /// Race position of hare `p`: 1 + the hares ahead of it.
    pub fn rank(&self, s: &HaseIgelState, p: Player) -> u8 {
        let me = &s.hares[p];
        1 + self.hares(s).iter().filter(|q| Self::ahead(q, me)).count() as u8
    }

    /// Hares ahead of and behind hare `p`.
    fn ahead_behind(&self, s: &HaseIgelState, p: Player) -> (u32, u32) {
        let me = &s.hares[p];
        let hares = self.hares(s);
        let ahead = hares.iter().filter(|q| Self::ahead(q, me)).count() as u32;
        let behind = hares.iter().filter(|q| Self::ahead(me, q)).count() as u32;
        (ahead, behind)
    }

    /// Track cells 1..goal-1 with a hare on them.
    fn occupied(&self, s: &HaseIgelState) -> u128 {
        self.hares(s)
            .iter()
            .filter(|h| h.cell > 0 && h.cell < self.goal)
            .fold(0, |m, h| m | 1u128 << h.cell)
    }

    /// Whether a hare with `salads` salads and `carrots` carrots after the move may enter cell
    /// `t` (forward moves and card moves alike).
    fn may_enter(&self, occupied: u128, t: u8, salads: u8, carrots: u32, finished: u8) -> bool {
        if t == self.goal {
            salads == 0 && carrots <= 10 * (u32::from(finished) + 1)
        } else {
            t > 0
                && occupied >> t & 1 == 0
                && !self.board.is_hedgehog(t)
                && (salads > 0 || !self.board.is_salad(t))
        }
    }

    /// Whether the round cap ended the game.
    pub fn capped(&self, s: &HaseIgelState) -> bool {
        s.phase == Phase::Over && s.round > self.max_rounds
    }
}

impl Game for HaseUndIgel {
    type State = HaseIgelState;

    fn name(&self) -> &'static str {
        HaseUndIgelParams::NAME
    }
    fn params(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.params).unwrap_or_default();
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("carrots".into(), self.carrots.into());
        }
        v
    }
    fn num_players(&self) -> usize {
        self.players as usize
    }
    fn player_name(&self, p: Player) -> &'static str {
        NAMES[p]
    }
    fn num_distinct_actions(&self) -> usize {
        2 * self.goal as usize + 3
    }
    fn initial_state(&self) -> HaseIgelState {
        let mut s = HaseIgelState {
            round: 1,
            ..HaseIgelState::default()
        };
        for h in &mut s.hares[..self.players as usize] {
            h.carrots = self.carrots;
            h.salads = self.salads;
        }
        s
    }
    fn turn(&self, s: &HaseIgelState) -> Turn {
        match s.phase {
            Phase::Move | Phase::Choice => Turn::Player(s.to_move as Player),
            Phase::Card => Turn::Chance,
            Phase::Over => Turn::Terminal,
        }
    }
    fn legal_actions(&self, s: &HaseIgelState, out: &mut Vec<Action>) {
        out.clear();
        let g = i32::from(self.goal);
        self.legal_codes(s, |code| {
            out.push(match code {
                TAKE_10 => 2 * g as Action + 1,
                GIVE_10 => 2 * g as Action + 2,
                c => (c + g) as Action,
            })
        });
    }
    fn chance_outcomes(&self, s: &HaseIgelState, out: &mut Vec<(Action, f64)>) {
        out.clear();
        if s.phase == Phase::Card {
            out.extend_from_slice(&self.draws);
        }
    }
    fn apply(&self, s: &HaseIgelState, action: Action) -> HaseIgelState {
        let mut s = *s;
        let p = s.to_move as usize;
        match s.phase {
            Phase::Card => {
                let again = self.apply_card(&mut s, CARDS[action as usize]);
                if s.phase == Phase::Card {
                    s.phase = Phase::Move;
                    if again && s.extra < MAX_EXTRA {
                        s.extra += 1;
                        s.paid = 0;
                    } else {
                        self.end_turn(&mut s);
                    }
                }
                return s;
            }
            Phase::Choice => {
                let h = &mut s.hares[p];
                match self.code_of_action(action) {
                    TAKE_10 => h.carrots = h.carrots.saturating_add(10),
                    GIVE_10 => h.carrots -= 10,
                    _ => {}
                }
                s.phase = Phase::Move;
                self.end_turn(&mut s);
                return s;
            }
            Phase::Over => return s,
            Phase::Move => {}
        }
        let rank = if s.hares[p].flags & EAT != 0 {
            self.rank(&s, p)
        } else {
            0
        };
        let h = &mut s.hares[p];
        match self.code_of_action(action) {
            TAKE_10 => h.carrots = h.carrots.saturating_add(10),
            GIVE_10 => h.carrots -= 10,
            0 => {
                if h.flags & EAT != 0 {
                    h.salads -= 1;
                    h.carrots = h.carrots.saturating_add(10 * u32::from(rank));
                }
                h.flags = 0;
            }
            n if n > 0 => {
                let paid = cost(n as u32) as u16;
                h.carrots -= u32::from(paid);
                h.cell += n as u8;
                let t = h.cell;
                if t == self.goal {
                    self.finish(&mut s, p);
                } else if self.board.is_salad(t) {
                    h.flags |= EAT;
                } else if self.board.cell(t) == Cell::Hare && !self.draws.is_empty() {
                    s.phase = Phase::Card;
                    s.paid = paid;
                    return s;
                }
            }
            m => {
                let back = (-m) as u8;
                if back == h.cell {
                    // The stuck rule.
                    h.cell = 0;
                    h.carrots = self.carrots;
                    h.flags = 0;
                } else {
                    h.cell -= back;
                    h.carrots = h.carrots.saturating_add(10 * u32::from(back));
                }
            }
        }
        self.end_turn(&mut s);
        s
    }
    fn returns(&self, s: &HaseIgelState) -> Returns {
        let n = self.players as usize;
        if s.phase != Phase::Over {
            return Returns::zeros(n);
        }
        let mut keys = [(0, 0, 0, 0); MAX_PLAYERS];
        for (k, h) in keys.iter_mut().zip(self.hares(s)) {
            *k = self.standing(h);
        }
        let keys = &keys[..n];
        let mut r = Returns::zeros(n);
        let lose = -1.0 / (n as f64 - 1.0);
        for p in 0..n {
            let better = keys.iter().filter(|&&k| k < keys[p]).count();
            let tied = keys.iter().filter(|&&k| k == keys[p]).count();
            let v = match self.end {
                End::First if better == 0 => (n - tied) as f64 / (tied as f64 * (n as f64 - 1.0)),
                End::First => lose,
                // Places better+1 ..= better+tied share their returns (n+1-2r)/(n-1).
                End::Ranks => {
                    let mean_place = better as f64 + (tied as f64 + 1.0) / 2.0;
                    (n as f64 + 1.0 - 2.0 * mean_place) / (n as f64 - 1.0)
                }
            };
            r.set(p, v);
        }
        r
    }
    fn is_cut_off(&self, s: &HaseIgelState) -> bool {
        self.capped(s)
    }
    fn read_position(&self, text: &str) -> Result<HaseIgelState, String> {
        self.parse_position(text)
    }
    fn write_position(&self, s: &HaseIgelState) -> Option<serde_json::Value> {
        Some(self.position_json(s))
    }
    fn describe_action(&self, s: &HaseIgelState, a: Action) -> String {
        self.describe_move(s, a)
    }
    fn move_event(&self, s: &HaseIgelState, a: Action) -> Option<&'static str> {
        let h = &s.hares[s.to_move as usize];
        let stuck =
            s.phase == Phase::Move && h.cell > 0 && self.code_of_action(a) == -i32::from(h.cell);
        stuck.then_some("stuck rule")
    }
    fn heuristic(&self, s: &HaseIgelState, p: Player) -> Option<f64> {
        Some(self.lead(s, p))
    }
    fn with_evaluation(&self, settings: &[(String, String)]) -> Result<Self, String> {
        Ok(self.with_evaluation_of(self.evaluation.with_settings(settings)?))
    }
    fn has_finished(&self, s: &HaseIgelState, p: Player) -> bool {
        s.hares.get(p).is_some_and(|h| h.place > 0)
    }
    fn action_to_string(&self, s: &HaseIgelState, a: Action) -> String {
        if s.phase == Phase::Card {
            return CARDS
                .get(a as usize)
                .map_or_else(|| a.to_string(), |c| c.key().to_string());
        }
        self.code_of_action(a).to_string()
    }
    /// The reference AI's codes (`3`, `+3`, `-4`, `0`, `1001`, `1002`), the words `take`, `give` and
    /// `stay`, or a card's name at a draw; never a bare action number.
    fn parse_action(&self, s: &HaseIgelState, text: &str) -> Result<Action, IllegalAction> {
        let t = text.trim().to_ascii_lowercase();
        let mut legal = Vec::new();
        if s.phase == Phase::Card {
            let mut outcomes = Vec::new();
            self.chance_outcomes(s, &mut outcomes);
            legal.extend(outcomes.iter().map(|o| o.0));
        } else {
            self.legal_actions(s, &mut legal);
        }
        let found = legal
            .iter()
            .copied()
            .find(|&a| self.action_to_string(s, a) == t)
            .or_else(|| {
                let code = match t.as_str() {
                    "take" => TAKE_10,
                    "give" => GIVE_10,
                    "stay" => 0,
                    other => other.strip_prefix('+').unwrap_or(other).parse().ok()?,
                };
                self.action_of_code(code).filter(|a| legal.contains(a))
            });
        found.ok_or_else(|| self.illegal(s, text.trim().to_string()))
    }
    fn picture(
        &self,
        s: &HaseIgelState,
    ) -> Result<crate::io::draw::Picture, crate::io::draw::DrawError> {
        picture::picture(self, s)
    }
    fn render(&self, s: &HaseIgelState) -> String {
        let g = self.goal as usize;
        let mut out = String::new();
        let mut ruler = String::from("       ");
        for i in 0..=g {
            ruler.push(if i % 10 == 0 {
                char::from(b'0' + (i / 10 % 10) as u8)
            } else {
                ' '
            });
        }
        let track: String = (0..=self.goal)
            .map(|i| self.board.cell(i).letter())
            .collect();
        let mut marks = vec![' '; g + 1];
        for (p, h) in self.hares(s).iter().enumerate() {
            let m = &mut marks[h.cell as usize];
            *m = match *m {
                ' ' => NAMES[p].chars().next().unwrap_or('?'),
                c if c.is_ascii_digit() => (c as u8 + 1) as char,
                _ => '2',
            };
        }
        let _ = writeln!(out, "{}", ruler.trim_end());
        let _ = writeln!(out, "track  {track}");
        let _ = writeln!(
            out,
            "hares  {}",
            marks.iter().collect::<String>().trim_end()
        );
        for (p, h) in self.hares(s).iter().enumerate() {
            let notes = notes(h);
            let marker = if s.phase != Phase::Over && s.to_move as usize == p {
                '*'
            } else {
                ' '
            };
            let _ = writeln!(
                out,
                "{marker}{:<7}cell {:>2} {:<15} carrots {:>3}  salads {}  rank {}{}",
                NAMES[p],
                h.cell,
                format!("({})", self.board.cell(h.cell).name()),
                h.carrots,
                h.salads,
                self.rank(s, p),
                if notes.is_empty() {
                    String::new()
                } else {
                    format!("  {}", notes.join(", "))
                }
            );
        }
        let who = NAMES[s.to_move as usize];
        let _ = match s.phase {
            Phase::Move if s.extra > 0 => writeln!(
                out,
                "round {} of {}: {who} moves again",
                s.round, self.max_rounds
            ),
            Phase::Move => writeln!(
                out,
                "round {} of {}: {who} to move",
                s.round, self.max_rounds
            ),
            Phase::Card => writeln!(
                out,
                "round {} of {}: {who} draws a hare card (paid {})",
                s.round, self.max_rounds, s.paid
            ),
            Phase::Choice => writeln!(
                out,
                "round {} of {}: {who} takes or gives 10 carrots",
                s.round, self.max_rounds
            ),
            Phase::Over if self.capped(s) => {
                writeln!(
                    out,
                    "over: the round cap of {} was reached",
                    self.max_rounds
                )
            }
            Phase::Over => writeln!(out, "over"),
        };
        out
    }
    fn observation_len(&self) -> usize {
        6 * self.players as usize + 5
    }
    /// Per hare from `player`'s seat round the table: cell / goal, carrots / 100, salads,
    /// place, the eat and skip flags; then the phase (move, card, choice), round / cap and the
    /// extra moves taken.
    fn observe(&self, s: &HaseIgelState, player: Player, out: &mut [f32]) {
        let n = self.players as usize;
        for i in 0..n {
            let h = &s.hares[(player + i) % n];
            let o = &mut out[6 * i..6 * i + 6];
            o[0] = f32::from(h.cell) / f32::from(self.goal);
            o[1] = h.carrots as f32 / 100.0;
            o[2] = f32::from(h.salads);
            o[3] = f32::from(h.place);
            o[4] = f32::from(h.flags & EAT);
            o[5] = f32::from((h.flags & SKIP) >> 1);
        }
        let o = &mut out[6 * n..];
        o[0] = f32::from(u8::from(s.phase == Phase::Move));
        o[1] = f32::from(u8::from(s.phase == Phase::Card));
        o[2] = f32::from(u8::from(s.phase == Phase::Choice));
        o[3] = f32::from(s.round) / f32::from(self.max_rounds);
        o[4] = f32::from(s.extra);
    }
    /// Cells and rounds are fractions of the goal and of the cap (a round past it at the
    /// cap's end), places at most the number of hares; carrots (in hundreds) have no bound in
    /// the rules (carrot fields pay again).
    fn observation_bounds(&self, low: &mut [f32], high: &mut [f32]) {
        let n = self.players as usize;
        low.fill(0.0);
        high.fill(1.0);
        for i in 0..n {
            high[6 * i + 1] = f32::INFINITY;
            high[6 * i + 2] = f32::from(self.salads);
            high[6 * i + 3] = f32::from(self.players);
        }
        // The round is `max_rounds + 1` once the cap has ended the game.
        high[6 * n + 3] = (f32::from(self.max_rounds) + 1.0) / f32::from(self.max_rounds);
        high[6 * n + 4] = f32::from(MAX_EXTRA);
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            players: self.players as usize,
            chance: !self.deck.is_empty(),
            deal: false,
            zero_sum: true,
            truth: Truth::ExpectedReturns,
            solver: Solver::Own {
                name: "expectiminimax over the reachable states (paranoid values for more than two hares)",
                flags: &["max-states"],
            },
            // The round is part of the state: the game ends by itself within `ply_bound`.
            max_plies: None,
            states_at_most: None,
            states_estimate: Some(self.states_estimate()),
        }
    }
}

impl Solve for HaseUndIgel {
    /// Each hare's exact win probability over the reachable states of a small variant
    /// ([`crate::truth::expect::ExpectSolution`]); the state limit refuses what does not fit.
    fn solve(
        &self,
        options: &SolveOptions,
    ) -> Result<Box<dyn crate::truth::oracle::Oracle<Self>>, SolveError> {
        if options.generic {
            return Ok(Box::new(crate::truth::Solution::solve(
                self,
                options.max_states,
            )?));
        }
        if let Some(why) = self.capabilities().enumeration_refusal(options.max_states) {
            return Err(SolveError::Unsolvable {
                game: "hase-und-igel",
                why: format!(
                    "{why}; small variants fit: a short track, few carrots and salads, few rounds (--board HCSIC2C3I1HC --carrots 20 --salads 1 --players 2 --max-rounds 4 has 216,806 positions)"
                ),
            });
        }
        Ok(Box::new(
            crate::truth::expect::ExpectSolution::solve_showing(
                self,
                options.max_states,
                options.progress,
            )?,
        ))
    }
}

impl HaseUndIgel {
    /// A rough size of the reachable state graph (not a bound): per hare its cells, the
    /// carrots it may hold (the start's and ten per cell of the track) and its salads, for every
    /// hare, every round and every seat to move.
    pub fn states_estimate(&self) -> u64 {
        let per_hare = u128::from(self.goal + 1)
            * (u128::from(self.carrots) + 10 * u128::from(self.goal))
            * (u128::from(self.salads) + 1);
        let mut all = u128::from(self.max_rounds) * u128::from(self.players);
        for _ in 0..self.players {
            all = all.saturating_mul(per_hare);
        }
        u64::try_from(all).unwrap_or(u64::MAX)
    }

    /// An upper bound on the plies of one game: every round each hare moves, draws a card and
    /// takes extra moves at most [`MAX_EXTRA`] times.
    pub fn ply_bound(&self) -> u32 {
        u32::from(self.max_rounds) * u32::from(self.players) * (2 * (u32::from(MAX_EXTRA) + 1) + 1)
    }
}
