//! The chase games: one runner against k pawns on the dark squares of an even board.
//! Fox & Hounds (gilith/solve) and Hasenspiel (mancap314/hasenspiel) are the same pieces,
//! moves and first mover; they differ in the start squares' presentation and the terminal test,
//! which is a parameter ([`Escape`]). The rules are the reference programs': Joe Leslie-Hurd's
//! Haskell package `solve` (github.com/gilith/solve, `src/Solve/FoxHounds.hs`) and Manuel Capel's
//! C program (github.com/mancap314/hasenspiel, `hasen.c`).
//!
//! Geometry (Fox & Hounds coordinates, used inside for both games): squares `(x, y)` with
//! `0 <= x, y < B` and `x + y` odd; `y = 0` is the pawns' home row. The runner (fox, rabbit)
//! steps to any empty diagonal neighbour; a pawn (hound) steps diagonally forward (`y + 1`)
//! onto an empty square; the runner moves first. Hasenspiel is the 8x8 game seen in a mirror
//! (its file = 7 − x), so the start position is the same.
//!
//! Squares are numbered row-major, `y * B/2 + x / 2`; bitboards are `u128` (boards up to 16x16).
//!
//! Actions: the runner's moves are 0..4 by direction in the reference's order
//! (x−1,y−1), (x+1,y−1), (x−1,y+1), (x+1,y+1); a pawn's move is
//! `4 + 2 * (x * B/2 + y / 2) + d` (d = 0 towards x−1, 1 towards x+1), so legal pawn moves come
//! by hound in (x, y) order, left before right — the reference's move order.

pub mod ai;
pub mod fast;
mod picture;

use serde::{Deserialize, Serialize};

use crate::core::game::{Action, BoardCells, Capabilities, Game, Player, Returns, Solver, Turn};
use crate::games::spec::GameSpec;
use crate::games::spec::InvalidParams;
use crate::io::progress::PhaseProgress;
use crate::truth::oracle::Oracle;
use crate::truth::{Solution, Solve, SolveError, SolveOptions};
use fast::{FastOptions, FastSolution};

/// The runner (fox, white rabbit): moves first.
pub const RUNNER: Player = 0;
/// The pawns (hounds, black).
pub const PAWNS: Player = 1;

/// Largest board side (128 dark squares fit a `u128`).
pub const MAX_SIZE: usize = 16;

/// Dense indices are offered while they stay below this many entries.
const MAX_DENSE_INDEX: u64 = 1 << 26;

/// When the runner has won before being blocked or running the pawns out of moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum Escape {
    /// Fox & Hounds (reference rule): the fox's square and one of its neighbours are out of
    /// every hound's forward cone — in every position, whoever is to move.
    Area,
    /// Fox & Hounds (the package's older rule): the fox's square alone is out of reach.
    Square,
    /// Hasenspiel (reference rule): after White's move, White's square number is below the
    /// smallest black square number + 4.
    RearPawn,
    /// Hasenspiel (the blog's wording): after White's move, White stands on the first row.
    FirstRow,
    /// No shortcut: the game ends only when the side to move cannot move.
    None,
}

/// Read by name; an unknown one is named without listing every game's rules (each game's
/// parameter help lists its own).
impl TryFrom<String> for Escape {
    type Error = String;
    fn try_from(name: String) -> Result<Escape, String> {
        [
            Escape::Area,
            Escape::Square,
            Escape::RearPawn,
            Escape::FirstRow,
            Escape::None,
        ]
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| format!("no escape rule is called `{name}`"))
    }
}

impl Escape {
    pub fn name(self) -> &'static str {
        match self {
            Escape::Area => "area",
            Escape::Square => "square",
            Escape::RearPawn => "rear-pawn",
            Escape::FirstRow => "first-row",
            Escape::None => "none",
        }
    }
}

/// Which of the two games: names, presentation and the escape rules that make sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    FoxHounds,
    Hasenspiel,
}

game_params! {
    /// Fox & Hounds parameters.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct FoxHoundsParams {
        /// board side B, even, 2 to 16; B/2 hounds
        pub size: usize = 8,
        /// area | square | none
        pub escape: Escape = Escape::Area,
    }
}

impl GameSpec for FoxHoundsParams {
    const NAME: &'static str = "fox-hounds";
    const ALIASES: &'static [&'static str] = &["fox-and-hounds", "fox-hound"];
    const SUMMARY: &'static str =
        "Fox & Hounds: a fox against B/2 hounds on the dark squares (gilith/solve rules)";
    type Game = Chase;
    fn build(self) -> Result<Chase, InvalidParams> {
        Chase::fox_hounds(self)
    }
    fn position_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
        board_params(text)
    }
}

game_params! {
    /// Hasenspiel parameters (the board is 8x8).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct HasenspielParams {
        /// rear-pawn | first-row | none
        pub escape: Escape = Escape::RearPawn,
    }
}

impl GameSpec for HasenspielParams {
    const NAME: &'static str = "hasenspiel";
    const SUMMARY: &'static str =
        "the rabbit game: White's rabbit against four black pawns on 8x8 (mancap314 rules)";
    type Game = Chase;
    fn build(self) -> Result<Chase, InvalidParams> {
        Chase::hasenspiel(self)
    }
    fn position_params(_text: &str) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
}

/// A position: the runner's square, the pawns' squares and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChaseState {
    pub pawns: u128,
    pub runner: u8,
    /// 0 = the runner to move, 1 = the pawns.
    pub to_move: u8,
}

const NONE: u8 = u8::MAX;

/// The rules of one chase game (cheap to clone: tables are shared).
#[derive(Clone, Debug)]
pub struct Chase {
    kind: Kind,
    escape: Escape,
    geo: std::sync::Arc<Geometry>,
    /// Hasenspiel's square numbers (4·row + col, files mirrored), by square.
    numbers: std::sync::Arc<[u8]>,
    dense: bool,
}

/// Precomputed board tables.
#[derive(Debug)]
pub struct Geometry {
    pub size: usize,
    pub half: usize,
    pub squares: usize,
    pub pawn_count: usize,
    /// Runner neighbours by direction (`NONE` off the board).
    pub runner_to: Vec<[u8; 4]>,
    /// Pawn steps: towards x−1, towards x+1 (`NONE` off the board).
    pub pawn_to: Vec<[u8; 2]>,
    /// The squares of `pawn_to`, as a set.
    pub pawn_steps: Vec<u128>,
    /// Every on-board diagonal neighbour.
    pub neighbours: Vec<u128>,
    /// Forward cone of a pawn on each square, the square included.
    pub cone: Vec<u128>,
    /// Order key of a square for pawn actions: x * B/2 + y / 2.
    pub col_key: Vec<u8>,
    /// The square with each order key.
    pub by_col_key: Vec<u8>,
    pub start_runner: u8,
    pub start_pawns: u128,
    /// Squares of row 0.
    pub first_row: u128,
}

impl Geometry {
    pub fn new(size: usize) -> Geometry {
        let half = size / 2;
        let squares = size * half;
        let sq = |x: i64, y: i64| -> u8 {
            if x < 0 || y < 0 || x >= size as i64 || y >= size as i64 {
                NONE
            } else {
                (y as usize * half + x as usize / 2) as u8
            }
        };
        let mut runner_to = Vec::with_capacity(squares);
        let mut pawn_to = Vec::with_capacity(squares);
        let mut neighbours = Vec::with_capacity(squares);
        let mut col_key = Vec::with_capacity(squares);
        let mut by_col_key = vec![0u8; squares];
        for s in 0..squares {
            let (x, y) = xy(size, s);
            let (x, y) = (x as i64, y as i64);
            let r = [
                sq(x - 1, y - 1),
                sq(x + 1, y - 1),
                sq(x - 1, y + 1),
                sq(x + 1, y + 1),
            ];
            runner_to.push(r);
            pawn_to.push([r[2], r[3]]);
            neighbours.push(
                r.iter()
                    .filter(|&&t| t != NONE)
                    .fold(0u128, |m, &t| m | 1 << t),
            );
            let key = x as usize * half + y as usize / 2;
            col_key.push(key as u8);
            by_col_key[key] = s as u8;
        }
        let pawn_steps = pawn_to
            .iter()
            .map(|to| {
                to.iter()
                    .filter(|&&t| t != NONE)
                    .fold(0u128, |m, &t| m | 1 << t)
            })
            .collect();
        let mut cone = vec![0u128; squares];
        for s in (0..squares).rev() {
            // Rows above are done first: the cone is the square plus its steps' cones.
            let mut c = 1u128 << s;
            for &t in &pawn_to[s] {
                if t != NONE {
                    c |= cone[t as usize];
                }
            }
            cone[s] = c;
        }
        let start_runner = sq(2 * (half as i64 / 2), size as i64 - 1);
        let start_pawns = (0..half).fold(0u128, |m, i| m | 1 << sq(2 * i as i64 + 1, 0));
        Geometry {
            size,
            half,
            squares,
            pawn_count: half,
            runner_to,
            pawn_to,
            pawn_steps,
            neighbours,
            cone,
            col_key,
            by_col_key,
            start_runner,
            start_pawns,
            first_row: (1u128 << half) - 1,
        }
    }

    /// Squares some pawn can still reach (occupancy ignored), their own included.
    #[inline]
    pub fn reach(&self, pawns: u128) -> u128 {
        let mut r = 0;
        let mut p = pawns;
        while p != 0 {
            let s = p.trailing_zeros() as usize;
            r |= self.cone[s];
            p &= p - 1;
        }
        r
    }

    /// The runner's moves (bit per direction).
    #[inline]
    pub fn runner_moves(&self, runner: u8, pawns: u128) -> u8 {
        let to = &self.runner_to[runner as usize];
        let mut m = 0;
        for (d, &t) in to.iter().enumerate() {
            if t != NONE && pawns >> t & 1 == 0 {
                m |= 1 << d;
            }
        }
        m
    }

    /// Whether the runner can move (as `runner_moves(..) != 0`, one set operation).
    #[inline]
    pub fn runner_can_move(&self, runner: u8, pawns: u128) -> bool {
        self.neighbours[runner as usize] & !pawns != 0
    }

    /// Whether some pawn can move.
    #[inline]
    pub fn pawns_can_move(&self, runner: u8, pawns: u128) -> bool {
        let free = !(pawns | 1u128 << runner);
        let mut p = pawns;
        while p != 0 {
            if self.pawn_steps[p.trailing_zeros() as usize] & free != 0 {
                return true;
            }
            p &= p - 1;
        }
        false
    }
}

/// `(x, y)` of square `s` on a board of side `size`.
pub fn xy(size: usize, s: usize) -> (usize, usize) {
    let half = size / 2;
    let y = s / half;
    let x = 2 * (s % half) + (1 - y % 2);
    (x, y)
}

impl Chase {
    /// Fox & Hounds on a `size` x `size` board.
    pub fn fox_hounds(p: FoxHoundsParams) -> Result<Chase, InvalidParams> {
        if p.size < 2 || p.size > MAX_SIZE || !p.size.is_multiple_of(2) {
            return Err(InvalidParams::new(
                "size",
                p.size,
                format!("the board side must be even, from 2 to {MAX_SIZE}"),
            ));
        }
        if !matches!(p.escape, Escape::Area | Escape::Square | Escape::None) {
            return Err(InvalidParams::new(
                "escape",
                p.escape.name(),
                "Fox & Hounds escapes are area, square or none",
            ));
        }
        Ok(Chase::new(Kind::FoxHounds, p.size, p.escape))
    }

    /// Hasenspiel (8x8).
    pub fn hasenspiel(p: HasenspielParams) -> Result<Chase, InvalidParams> {
        if !matches!(p.escape, Escape::RearPawn | Escape::FirstRow | Escape::None) {
            return Err(InvalidParams::new(
                "escape",
                p.escape.name(),
                "Hasenspiel escapes are rear-pawn, first-row or none",
            ));
        }
        Ok(Chase::new(Kind::Hasenspiel, 8, p.escape))
    }

    fn new(kind: Kind, size: usize, escape: Escape) -> Chase {
        let geo = Geometry::new(size);
        let dense = dense_len(&geo).is_some_and(|n| n <= MAX_DENSE_INDEX);
        let numbers = (0..geo.squares)
            .map(|s| {
                let (x, y) = xy(size, s);
                (y * geo.half + (size - 1 - x) / 2) as u8
            })
            .collect();
        Chase {
            kind,
            escape,
            geo: std::sync::Arc::new(geo),
            numbers,
            dense,
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }
    pub fn escape(&self) -> Escape {
        self.escape
    }
    pub fn size(&self) -> usize {
        self.geo.size
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// Whether the runner has escaped in the position (the game's escape rule; `to_move` is
    /// the side to move).
    #[inline]
    pub fn escaped(&self, runner: u8, pawns: u128, to_move: u8) -> bool {
        // Only the area and square rules look at the pawns' reach.
        let reach = match self.escape {
            Escape::Area | Escape::Square => self.geo.reach(pawns),
            _ => 0,
        };
        self.escaped_with(runner, pawns, to_move, reach)
    }

    /// [`Chase::escaped`] given the pawns' reach (`Geometry::reach(pawns)`), for callers that
    /// test many runner squares against one pawn set.
    #[inline]
    pub(crate) fn escaped_with(&self, runner: u8, pawns: u128, to_move: u8, reach: u128) -> bool {
        match self.escape {
            Escape::Area => {
                reach >> runner & 1 == 0 && self.geo.neighbours[runner as usize] & !reach != 0
            }
            Escape::Square => reach >> runner & 1 == 0,
            Escape::RearPawn => {
                to_move == PAWNS as u8 && {
                    let mut min = usize::MAX;
                    let mut p = pawns;
                    while p != 0 {
                        min = min.min(self.numbers[p.trailing_zeros() as usize] as usize);
                        p &= p - 1;
                    }
                    (self.numbers[runner as usize] as usize) < min.saturating_add(4)
                }
            }
            Escape::FirstRow => to_move == PAWNS as u8 && self.geo.first_row >> runner & 1 != 0,
            Escape::None => false,
        }
    }

    /// The winner of the position, if it is over (the terminal test of the rules file).
    #[inline]
    pub fn winner_of(&self, runner: u8, pawns: u128, to_move: u8) -> Option<Player> {
        let can_move = if to_move == RUNNER as u8 {
            self.geo.runner_can_move(runner, pawns)
        } else {
            self.geo.pawns_can_move(runner, pawns)
        };
        if !can_move {
            Some(1 - to_move as Player)
        } else if self.escaped(runner, pawns, to_move) {
            Some(RUNNER)
        } else {
            None
        }
    }

    pub fn winner(&self, s: &ChaseState) -> Option<Player> {
        self.winner_of(s.runner, s.pawns, s.to_move)
    }

    /// Hasenspiel's square number 4·row + col (files mirrored).
    pub fn hasen_number(&self, s: usize) -> usize {
        self.numbers[s] as usize
    }

    /// The square's name in the game's own coordinates ("e8").
    pub fn square_name(&self, s: usize) -> String {
        let (x, y) = xy(self.geo.size, s);
        let file = match self.kind {
            Kind::FoxHounds => x,
            Kind::Hasenspiel => self.geo.size - 1 - x,
        };
        format!("{}{}", (b'a' + file as u8) as char, y + 1)
    }

    /// The FoxBox test: the runner's flood-fill region (steps through squares without pawns,
    /// its own square included) is a single square or lies inside the pawns' reach.
    pub fn is_fox_box(&self, runner: u8, pawns: u128) -> bool {
        let region = self.runner_region(runner, pawns);
        region.count_ones() == 1 || region & !self.geo.reach(pawns) == 0
    }

    /// Squares the runner can reach by repeated steps through squares without pawns.
    pub fn runner_region(&self, runner: u8, pawns: u128) -> u128 {
        let mut region = 1u128 << runner;
        let mut frontier = region;
        while frontier != 0 {
            let s = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let new = self.geo.neighbours[s] & !pawns & !region;
            region |= new;
            frontier |= new;
        }
        region
    }

    /// The legal actions of a position that is not over, ascending.
    #[inline]
    fn moves_of_live(&self, s: &ChaseState, out: &mut Vec<Action>) {
        if s.to_move == RUNNER as u8 {
            let m = self.geo.runner_moves(s.runner, s.pawns);
            out.extend((0..4).filter(|d| m >> d & 1 != 0));
        } else {
            let occupied = s.pawns | 1u128 << s.runner;
            // Each pawn move's number less 4 (2·key + d), in the pawns' square order.
            let each = |f: &mut dyn FnMut(usize)| {
                let mut p = s.pawns;
                while p != 0 {
                    let from = p.trailing_zeros() as usize;
                    p &= p - 1;
                    for (d, &t) in self.geo.pawn_to[from].iter().enumerate() {
                        if t != NONE && occupied >> t & 1 == 0 {
                            f(2 * self.geo.col_key[from] as usize + d);
                        }
                    }
                }
            };
            if 2 * self.geo.squares <= 128 {
                // The moves as bits: they come out in ascending order.
                let mut moves = 0u128;
                each(&mut |m| moves |= 1u128 << m);
                while moves != 0 {
                    out.push(4 + moves.trailing_zeros() as Action);
                    moves &= moves - 1;
                }
            } else {
                each(&mut |m| out.push(4 + m as Action));
                out.sort_unstable();
            }
        }
    }

    fn decode(&self, s: &ChaseState, action: Action) -> Option<(u8, u8)> {
        if s.to_move == RUNNER as u8 {
            let t = *self.geo.runner_to[s.runner as usize].get(action as usize)?;
            (t != NONE && s.pawns >> t & 1 == 0).then_some((s.runner, t))
        } else {
            let a = action.checked_sub(4)? as usize;
            let from = *self.geo.by_col_key.get(a / 2)?;
            if s.pawns >> from & 1 == 0 {
                return None;
            }
            let t = self.geo.pawn_to[from as usize][a % 2];
            let occupied = s.pawns | 1u128 << s.runner;
            (t != NONE && occupied >> t & 1 == 0).then_some((from, t))
        }
    }
}

/// Entries of the dense index: 2 sides x C(squares, pawns) pawn sets x squares.
fn dense_len(geo: &Geometry) -> Option<u64> {
    binomial(geo.squares as u64, geo.pawn_count as u64)?
        .checked_mul(geo.squares as u64)?
        .checked_mul(2)
}

/// C(n, k), `None` on overflow.
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u64::MAX as u128 {
            return None;
        }
    }
    Some(r as u64)
}

/// Largest `k` of [`BINOMIALS`]: more pawns than this never fit a dense index of a board of
/// at most 128 squares.
const BINOMIAL_K: usize = 16;

/// `BINOMIALS[k][n]` = C(n, k) for n < 128 (saturating), built by Pascal's rule at compile time:
/// the dense index ranks a pawn set on every table lookup of the learners and the evaluator,
/// where [`binomial`]'s 128-bit divisions were the largest single cost.
static BINOMIALS: [[u64; 128]; BINOMIAL_K + 1] = {
    let mut t = [[0u64; 128]; BINOMIAL_K + 1];
    let mut n = 0;
    while n < 128 {
        t[0][n] = 1;
        let mut k = 1;
        while k <= BINOMIAL_K {
            if n > 0 {
                t[k][n] = t[k - 1][n - 1].saturating_add(t[k][n - 1]);
            }
            k += 1;
        }
        n += 1;
    }
    t
};

/// Colex rank of a k-subset of squares: sum of C(s_i, i + 1) over its squares in ascending order.
#[inline]
fn colex_rank(mut set: u128) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let s = set.trailing_zeros() as u64;
        rank += match BINOMIALS.get(i) {
            Some(row) => row[s as usize],
            None => binomial(s, i as u64).expect("small"),
        };
        i += 1;
        set &= set - 1;
    }
    rank
}

fn colex_unrank(mut rank: u64, k: u64, squares: u64) -> u128 {
    let mut set = 0u128;
    let mut top = squares;
    for i in (1..=k).rev() {
        // The largest s with C(s, i) <= rank.
        let mut s = top;
        while s > 0 && binomial(s - 1, i).expect("small") > rank {
            s -= 1;
        }
        let s = s.saturating_sub(1);
        rank -= binomial(s, i).expect("small");
        set |= 1 << s;
        top = s;
    }
    set
}

impl Game for Chase {
    type State = ChaseState;

    fn name(&self) -> &'static str {
        match self.kind {
            Kind::FoxHounds => FoxHoundsParams::NAME,
            Kind::Hasenspiel => HasenspielParams::NAME,
        }
    }
    fn params(&self) -> serde_json::Value {
        match self.kind {
            Kind::FoxHounds => {
                serde_json::json!({ "size": self.geo.size, "escape": self.escape.name() })
            }
            Kind::Hasenspiel => serde_json::json!({ "escape": self.escape.name() }),
        }
    }
    fn num_players(&self) -> usize {
        2
    }
    fn player_name(&self, player: Player) -> &'static str {
        match self.kind {
            Kind::FoxHounds => ["fox", "hounds"][player],
            Kind::Hasenspiel => ["white", "black"][player],
        }
    }
    fn player_name_is_plural(&self, player: Player) -> bool {
        self.kind == Kind::FoxHounds && player == 1
    }
    fn num_distinct_actions(&self) -> usize {
        4 + 2 * self.geo.squares
    }
    fn initial_state(&self) -> ChaseState {
        ChaseState {
            pawns: self.geo.start_pawns,
            runner: self.geo.start_runner,
            to_move: RUNNER as u8,
        }
    }
    fn turn(&self, s: &ChaseState) -> Turn {
        match self.winner(s) {
            Some(_) => Turn::Terminal,
            None => Turn::Player(s.to_move as Player),
        }
    }
    fn legal_actions(&self, s: &ChaseState, out: &mut Vec<Action>) {
        out.clear();
        if self.winner(s).is_none() {
            self.moves_of_live(s, out);
        }
    }
    fn turn_and_legal_actions(&self, s: &ChaseState, out: &mut Vec<Action>) -> Turn {
        out.clear();
        if self.winner(s).is_some() {
            return Turn::Terminal;
        }
        self.moves_of_live(s, out);
        Turn::Player(s.to_move as Player)
    }
    fn apply(&self, s: &ChaseState, action: Action) -> ChaseState {
        let (from, to) = self
            .decode(s, action)
            .unwrap_or_else(|| panic!("apply: illegal move {action} in\n{}", self.render(s)));
        let mut next = *s;
        if s.to_move == RUNNER as u8 {
            next.runner = to;
        } else {
            next.pawns = (s.pawns & !(1u128 << from)) | 1u128 << to;
        }
        next.to_move = 1 - s.to_move;
        next
    }
    fn returns(&self, s: &ChaseState) -> Returns {
        match self.winner(s) {
            Some(w) => Returns::win(2, w),
            None => Returns::zeros(2),
        }
    }
    fn action_to_string(&self, s: &ChaseState, action: Action) -> String {
        match self.decode(s, action) {
            Some((from, to)) => format!(
                "{}-{}",
                self.square_name(from as usize),
                self.square_name(to as usize)
            ),
            None => format!("#{action}"),
        }
    }
    fn picture(
        &self,
        s: &ChaseState,
    ) -> Result<crate::io::draw::Picture, crate::io::draw::DrawError> {
        picture::picture(self, s)
    }
    fn render(&self, s: &ChaseState) -> String {
        let b = self.geo.size;
        let (runner, pawn) = match self.kind {
            Kind::FoxHounds => ('F', 'H'),
            Kind::Hasenspiel => ('W', 'B'),
        };
        let mut out = String::new();
        match self.winner(s) {
            Some(w) => out.push_str(&format!("{} won\n", capitalise(self.player_name(w)))),
            None => out.push_str(&format!(
                "{} to move\n",
                capitalise(self.player_name(s.to_move as Player))
            )),
        }
        let frame = format!("   +{}+\n", "-".repeat(b));
        out.push_str(&frame);
        for y in (0..b).rev() {
            out.push_str(&format!("{:>2} |", y + 1));
            for col in 0..b {
                let x = match self.kind {
                    Kind::FoxHounds => col,
                    Kind::Hasenspiel => b - 1 - col,
                };
                out.push(if (x + y) % 2 == 0 {
                    ' '
                } else {
                    let sq = y * self.geo.half + x / 2;
                    if sq == s.runner as usize {
                        runner
                    } else if s.pawns >> sq & 1 != 0 {
                        pawn
                    } else {
                        '*'
                    }
                });
            }
            out.push_str("|\n");
        }
        out.push_str(&frame);
        out.push_str("    ");
        out.extend((0..b).map(|c| (b'a' + c as u8) as char));
        out.push('\n');
        out
    }
    /// The board string (see [`Chase::read_board`]).
    fn read_position(&self, text: &str) -> Result<ChaseState, String> {
        self.read_board(text)
    }
    fn write_position(&self, s: &ChaseState) -> Option<serde_json::Value> {
        Some(serde_json::Value::String(self.write_board(s)))
    }
    fn observation_len(&self) -> usize {
        2 * self.geo.squares + 1
    }
    fn observe(&self, s: &ChaseState, _player: Player, out: &mut [f32]) {
        let n = self.geo.squares;
        for (sq, v) in out[..n].iter_mut().enumerate() {
            *v = (sq == s.runner as usize) as u8 as f32;
        }
        for sq in 0..n {
            out[n + sq] = (s.pawns >> sq & 1) as f32;
        }
        out[2 * n] = (s.to_move == RUNNER as u8) as u8 as f32;
    }
    /// The dark squares, in the order of `observe`; a cell holds 0 (empty), the runner or a
    /// pawn, numbered by who looks: 1 the runner and 2 a pawn as the runner sees them, 3 and 4
    /// as the pawns see them (the pieces differ, so the observer's side is part of the content).
    fn board_cells(&self) -> Option<BoardCells> {
        let size = self.geo.size;
        Some(BoardCells {
            rows: size,
            cols: size,
            squares: (0..self.geo.squares)
                .map(|s| {
                    let (x, y) = xy(size, s);
                    (y, x)
                })
                .collect(),
            values: 5,
        })
    }
    fn cell_values(&self, s: &ChaseState, player: Player, out: &mut [u8]) {
        let n = self.geo.squares;
        let side = if player == RUNNER { 0 } else { 2 };
        let out = &mut out[..n];
        out.fill(0);
        let mut pawns = s.pawns;
        while pawns != 0 {
            out[pawns.trailing_zeros() as usize] = 2 + side;
            pawns &= pawns - 1;
        }
        out[s.runner as usize] = 1 + side;
    }
    fn state_index_len(&self) -> Option<usize> {
        self.dense
            .then(|| dense_len(&self.geo).expect("dense") as usize)
    }
    fn state_index(&self, s: &ChaseState) -> usize {
        let rank = colex_rank(s.pawns) as usize;
        (rank * self.geo.squares + s.runner as usize) * 2 + s.to_move as usize
    }
    fn state_from_index(&self, index: usize) -> Option<ChaseState> {
        if index >= self.state_index_len()? {
            return None;
        }
        let to_move = (index % 2) as u8;
        let runner = (index / 2 % self.geo.squares) as u8;
        let rank = (index / 2 / self.geo.squares) as u64;
        let pawns = colex_unrank(rank, self.geo.pawn_count as u64, self.geo.squares as u64);
        (pawns >> runner & 1 == 0).then_some(ChaseState {
            pawns,
            runner,
            to_move,
        })
    }

    /// Enumeration solves small boards; the layered solver ([`fast`]) any board.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            solver: Solver::Own {
                name: "layered",
                flags: &["no-counts", "no-tables"],
            },
            states_at_most: dense_len(&self.geo),
            ..Capabilities::enumerable(2)
        }
    }
}

impl Solve for Chase {
    /// The layered solver (with FoxBox tables in Fox & Hounds when tables are kept), or the
    /// generic one when asked for.
    fn solve(&self, options: &SolveOptions) -> Result<Box<dyn Oracle<Chase>>, SolveError> {
        if options.generic {
            return Ok(Box::new(Solution::solve(self, options.max_states)?));
        }
        let fast = FastOptions {
            foxbox: self.has_foxbox() && options.tables,
            no_counts: !options.counts,
            no_tables: !options.tables,
        };
        let progress = PhaseProgress::new(options.progress);
        let report = |phase: &str, done: usize, all: usize| progress.report(phase, done, all);
        Ok(Box::new(FastSolution::solve(self, fast, Some(&report))?))
    }
}

impl Chase {
    /// The runner's and the pawns' letters on the board (`F`/`H`, `W`/`B`).
    fn letters(&self) -> (char, char) {
        match self.kind {
            Kind::FoxHounds => ('f', 'h'),
            Kind::Hasenspiel => ('w', 'b'),
        }
    }

    /// The square of column `col` (from the left as [`Game::render`] draws it) and rank `y`.
    fn square_at(&self, col: usize, y: usize) -> Option<usize> {
        let b = self.geo.size;
        let x = match self.kind {
            Kind::FoxHounds => col,
            Kind::Hasenspiel => b - 1 - col,
        };
        ((x + y) % 2 == 1).then(|| y * self.geo.half + x / 2)
    }

    /// A position as a board string: the rows from the top (the runner's home row first) as
    /// [`Game::render`] draws them, separated by `/`, one character per square: the runner
    /// (`f` the fox, `w` White's rabbit), a pawn (`h` a hound, `b` a black pawn) or `.` (empty;
    /// the light squares, where no piece stands, are `.` too), then a space and the side to
    /// move (`fox`/`f` or `hounds`/`h`; `white`/`w` or `black`/`b`). Fox & Hounds' start on
    /// 4x4 is `..f./..../..../h.h. fox`; the board's side is the game's `size`. The runner
    /// stands once, the pawns are B/2, all on dark squares; a finished game's winner may not
    /// be to move unless the rules say so.
    pub fn read_board(&self, text: &str) -> Result<ChaseState, String> {
        use crate::core::notation::{BoardText, bad_square};
        let b = BoardText::read(text)?;
        let size = self.geo.size;
        let what = match self.kind {
            Kind::FoxHounds => format!("the game is {size}x{size} (--size {size})"),
            Kind::Hasenspiel => "Hasenspiel is 8x8".to_string(),
        };
        b.expect_size(size, size, &what)?;
        let (runner_ch, pawn_ch) = self.letters();
        let takes = format!(
            "a square is {runner_ch} ({}), {pawn_ch} ({}) or . (empty)",
            self.player_name(RUNNER),
            self.player_name(PAWNS)
        );
        let mut runner = None;
        let mut pawns = 0u128;
        for (i, row) in b.rows.iter().enumerate() {
            let y = size - 1 - i;
            for (col, &ch) in row.iter().enumerate() {
                let lower = ch.to_ascii_lowercase();
                if lower == '.' || lower == '-' || lower == '*' {
                    continue;
                }
                if lower != runner_ch && lower != pawn_ch {
                    return Err(bad_square(size, i, col, ch, &takes));
                }
                let Some(sq) = self.square_at(col, y) else {
                    return Err(bad_square(
                        size,
                        i,
                        col,
                        ch,
                        "a light square: the pieces stand on the dark squares",
                    ));
                };
                if lower == pawn_ch {
                    pawns |= 1u128 << sq;
                } else if runner.replace(sq).is_some() {
                    return Err(format!(
                        "two {}: one runner stands on the board",
                        self.player_name(RUNNER)
                    ));
                }
            }
        }
        let Some(runner) = runner else {
            return Err(format!(
                "no {runner_ch} ({}) on the board",
                self.player_name(RUNNER)
            ));
        };
        if pawns.count_ones() as usize != self.geo.pawn_count {
            return Err(format!(
                "{} {pawn_ch} ({}) on the board: the game has {}",
                pawns.count_ones(),
                self.player_name(PAWNS),
                self.geo.pawn_count
            ));
        }
        let names: [&[&str]; 2] = match self.kind {
            Kind::FoxHounds => [&["fox", "f"], &["hounds", "hound", "h"]],
            Kind::Hasenspiel => [&["white", "w"], &["black", "b"]],
        };
        let to_move = b.mover(&names, None)?;
        Ok(ChaseState {
            pawns,
            runner: runner as u8,
            to_move: to_move as u8,
        })
    }

    /// The board string [`Chase::read_board`] reads.
    pub fn write_board(&self, s: &ChaseState) -> String {
        let size = self.geo.size;
        let (runner_ch, pawn_ch) = self.letters();
        let mut out = String::new();
        for y in (0..size).rev() {
            for col in 0..size {
                out.push(match self.square_at(col, y) {
                    Some(sq) if sq == s.runner as usize => runner_ch,
                    Some(sq) if s.pawns >> sq & 1 != 0 => pawn_ch,
                    _ => '.',
                });
            }
            out.push(if y > 0 { '/' } else { ' ' });
        }
        out.push_str(self.player_name(s.to_move as Player));
        out
    }
}

/// The board side a Fox & Hounds board string implies (`moves`, `play` and `solve` take it
/// from `--state`): nothing where the text is not a board.
pub fn board_params(text: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    if let Some(b) = crate::core::notation::BoardText::read_if(text, "fFhH*") {
        m.insert("size".into(), b.rows.len().into());
    }
    m
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
