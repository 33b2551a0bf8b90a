//! Hase und Igel against an independent, deliberately naive reference model.
//!
//! The model below is a second implementation of the rules written from the rules file
//! (`rules/hase-und-igel-and-hackenbush.md`, Part 1) and the decisions the game's module docs
//! and card docs record. It shares no rule code with the game: it reads only the public fields
//! of a [`HaseIgelState`] and the game's parameters, keeps the track as its own string, and works
//! everything out plainly (occupancy by scanning the hares, race positions by counting the
//! hares ahead, the hedgehog behind by walking back).
//!
//! Seeded random playouts over 2 to 6 hares, the 2008 and classic boards and short custom
//! tracks, the 2008, classic, empty and an all-cards deck, both end rules, low carrots and low
//! round caps compare at every visited state: whose turn it is, the set of legal move codes,
//! every successor (full equality of the `HaseIgelState`), the chance outcomes with their
//! probabilities and successors, the returns at terminals and `is_cut_off`. Counters check that
//! the interesting rules (the stuck rule, every card, salads, number-cell payouts, later
//! finishing places, the round cap) were really exercised. A second test pins the rules
//! file's hand-derived vectors (§1.6b) in the model and compares the game on those positions.
//!
//! Where neither the rules file nor the game's docs decide, the model follows the game and
//! says so at the spot (marked "Spec silent"): "fall back" never lands on a hedgehog or the
//! start; a shared win at the round cap averages the win returns of the tied hares. How a
//! finished state is written (only the hares and the round are kept) and that the choice phase
//! forgets `paid` are copied from the game too: they are encoding, not rules.

use std::collections::BTreeMap;

use rand::RngExt;
use solvedgym::core::game::{Game, Turn};
use solvedgym::games::hase_igel::cards::{CARDS, Card, Deck};
use solvedgym::games::hase_igel::{EAT, End, Hare, HaseIgelState, MAX_EXTRA, Phase, SKIP};
use solvedgym::games::{HaseUndIgel, HaseUndIgelParams};

/// Layout B (Ravensburger 2008), cells 1..63, as the rules file writes it (§1.3).
const LAYOUT_2008: &str = "HCH3CH124SI3CHI124I3CS2IHC432IH1CH23ICHC2SI34H21CIH324CISHC1CHC";
/// Layout A (the classic board photo), cells 1..63 (§1.3).
const LAYOUT_CLASSIC: &str = "HCH3CHSI42I3CHI124I3CS2IHC432IH1CH23ICHC2SI34H21CIH324CISHC2HSH";

// ---------------------------------------------------------------------------------------------
// The reference model.
// ---------------------------------------------------------------------------------------------

/// Who acts in the model's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Hare(usize),
    Chance,
    Over,
}

/// One setting of the rules, as the model sees it.
struct Model {
    n: usize,
    /// Cell kinds 0..=goal: `>` start, `#` goal, otherwise the letters of a cell string.
    cells: Vec<u8>,
    goal: u8,
    start_carrots: u32,
    start_salads: u8,
    /// (card index into CARDS, copies).
    deck: Vec<(usize, u32)>,
    end: End,
    max_rounds: u16,
}

/// A move with what the model thinks happened (for the coverage counters).
type Step = (i32, HaseIgelState, &'static str);

impl Model {
    fn new(p: &HaseUndIgelParams) -> Model {
        let track = match p.board.as_str() {
            "2008" => LAYOUT_2008,
            "classic" => LAYOUT_CLASSIC,
            other => other,
        };
        let mut cells = vec![b'>'];
        cells.extend(track.bytes());
        cells.push(b'#');
        let goal = (cells.len() - 1) as u8;
        let start_carrots = p.carrots.unwrap_or(if p.players >= 5 { 98 } else { 68 });
        let mut deck = Vec::new();
        for (i, &c) in CARDS.iter().enumerate() {
            let k = p.deck.count(c);
            if k > 0 {
                deck.push((i, u32::from(k)));
            }
        }
        Model {
            n: p.players,
            cells,
            goal,
            start_carrots,
            start_salads: p.salads,
            deck,
            end: p.end,
            max_rounds: p.max_rounds,
        }
    }

    fn kind(&self, i: u8) -> u8 {
        self.cells[i as usize]
    }

    fn initial(&self) -> HaseIgelState {
        let mut s = HaseIgelState::default();
        for h in s.hares.iter_mut().take(self.n) {
            *h = Hare {
                cell: 0,
                salads: self.start_salads,
                place: 0,
                flags: 0,
                carrots: self.start_carrots,
            };
        }
        s.round = 1;
        s.to_move = 0;
        s.phase = Phase::Move;
        s
    }

    fn who(&self, s: &HaseIgelState) -> Who {
        match s.phase {
            Phase::Over => Who::Over,
            Phase::Card => Who::Chance,
            Phase::Move | Phase::Choice => Who::Hare(s.to_move as usize),
        }
    }

    fn finished(&self, s: &HaseIgelState) -> u8 {
        (0..self.n).filter(|&q| s.hares[q].place > 0).count() as u8
    }

    fn racing_count(&self, s: &HaseIgelState) -> usize {
        (0..self.n).filter(|&q| s.hares[q].place == 0).count()
    }

    /// How many hares are ahead of hare `p`.
    fn ahead(&self, s: &HaseIgelState, p: usize) -> usize {
        let me = s.hares[p];
        let mut count = 0;
        for q in 0..self.n {
            if q == p {
                continue;
            }
            let other = s.hares[q];
            let is_ahead = if me.place > 0 {
                other.place > 0 && other.place < me.place
            } else {
                other.place > 0 || other.cell > me.cell
            };
            if is_ahead {
                count += 1;
            }
        }
        count
    }

    /// How many racing hares are behind racing hare `p`.
    fn behind(&self, s: &HaseIgelState, p: usize) -> usize {
        (0..self.n)
            .filter(|&q| q != p && s.hares[q].place == 0 && s.hares[q].cell < s.hares[p].cell)
            .count()
    }

    fn rank(&self, s: &HaseIgelState, p: usize) -> u32 {
        1 + self.ahead(s, p) as u32
    }

    /// Whether a hare other than `me` stands on track cell `t` (start and goal hold many).
    fn occupied(&self, s: &HaseIgelState, t: u8, me: usize) -> bool {
        if t == 0 || t == self.goal {
            return false;
        }
        (0..self.n).any(|q| q != me && s.hares[q].cell == t)
    }

    /// Whether a number cell `kind` pays a hare in race position `rank`.
    fn pays(kind: u8, rank: u32) -> bool {
        match kind {
            b'1' => rank == 1 || rank == 5 || rank == 6,
            b'2' => rank == 2,
            b'3' => rank == 3,
            b'4' => rank == 4,
            _ => false,
        }
    }

    /// The finish condition for hare `p` holding `carrots` once there.
    fn may_finish(&self, s: &HaseIgelState, p: usize, carrots: u32) -> bool {
        let place = u32::from(self.finished(s)) + 1;
        s.hares[p].salads == 0 && carrots <= 10 * place
    }

    /// The game over: whose turn it was, its extra moves and what it paid no longer matter.
    fn ended(mut t: HaseIgelState) -> HaseIgelState {
        t.phase = Phase::Over;
        t.to_move = 0;
        t.paid = 0;
        t.extra = 0;
        t
    }

    /// The end of the mover's turn: the game may end, else the next racing hare moves (a new
    /// round when the order wraps; the cap ends the game), paid on a number cell first.
    fn end_turn(&self, mut t: HaseIgelState, payouts: &mut [u64; 7]) -> HaseIgelState {
        // An ended game keeps the hares and the round only.
        let over = match self.end {
            End::First => self.finished(&t) > 0,
            End::Ranks => self.racing_count(&t) <= 1,
        };
        if over {
            return Self::ended(t);
        }
        t.phase = Phase::Move;
        t.paid = 0;
        t.extra = 0;
        let p = t.to_move as usize;
        let mut next = None;
        for q in p + 1..self.n {
            if t.hares[q].place == 0 {
                next = Some(q);
                break;
            }
        }
        let next = match next {
            Some(q) => q,
            None => {
                t.round += 1;
                (0..self.n)
                    .find(|&q| t.hares[q].place == 0)
                    .expect("racing")
            }
        };
        if t.round > self.max_rounds {
            return Self::ended(t);
        }
        t.to_move = next as u8;
        let r = self.rank(&t, next);
        if Self::pays(self.kind(t.hares[next].cell), r) {
            t.hares[next].carrots += 10 * r;
            payouts[r as usize] += 1;
        }
        t
    }

    /// The legal moves with their successors.
    fn moves(&self, s: &HaseIgelState, payouts: &mut [u64; 7]) -> Vec<Step> {
        let p = s.to_move as usize;
        let h = s.hares[p];
        let mut out: Vec<Step> = Vec::new();
        match s.phase {
            Phase::Choice => {
                let mut t = *s;
                t.hares[p].carrots += 10;
                out.push((1001, self.end_turn(t, payouts), "choice-take"));
                if h.carrots >= 10 {
                    let mut t = *s;
                    t.hares[p].carrots -= 10;
                    out.push((1002, self.end_turn(t, payouts), "choice-give"));
                }
                out.push((0, self.end_turn(*s, payouts), "choice-neither"));
                out.sort_by_key(|m| m.0);
                return out;
            }
            Phase::Move => {}
            _ => return out,
        }
        if h.flags & SKIP != 0 {
            let mut t = *s;
            t.hares[p].flags &= !SKIP;
            out.push((0, self.end_turn(t, payouts), "miss-turn"));
            return out;
        }
        if h.flags & EAT != 0 {
            let mut t = *s;
            let r = self.rank(s, p);
            t.hares[p].salads -= 1;
            t.hares[p].carrots += 10 * r;
            t.hares[p].flags &= !EAT;
            out.push((0, self.end_turn(t, payouts), "eat"));
            return out;
        }
        // Forward.
        for n in 1..=(self.goal - h.cell) {
            let target = h.cell + n;
            let cost = u32::from(n) * (u32::from(n) + 1) / 2;
            if cost > h.carrots {
                break;
            }
            let k = self.kind(target);
            if k == b'I' || self.occupied(s, target, p) {
                continue;
            }
            if k == b'S' && h.salads == 0 {
                continue;
            }
            if target == self.goal && !self.may_finish(s, p, h.carrots - cost) {
                continue;
            }
            let mut t = *s;
            t.hares[p].carrots -= cost;
            t.hares[p].cell = target;
            let code = i32::from(n);
            if target == self.goal {
                t.hares[p].place = self.finished(s) + 1;
                let label = if t.hares[p].place >= 2 {
                    "finish-later"
                } else {
                    "finish-first"
                };
                out.push((code, self.end_turn(t, payouts), label));
            } else if k == b'S' {
                t.hares[p].flags |= EAT;
                out.push((code, self.end_turn(t, payouts), "to-salad"));
            } else if k == b'H' && !self.deck.is_empty() {
                t.phase = Phase::Card;
                t.paid = cost as u16;
                out.push((code, t, "to-hare"));
            } else {
                out.push((code, self.end_turn(t, payouts), "forward"));
            }
        }
        // Back to the nearest hedgehog behind, if it is free.
        if h.cell > 0 {
            let mut i = h.cell - 1;
            let mut hedgehog = None;
            while i > 0 {
                if self.kind(i) == b'I' {
                    hedgehog = Some(i);
                    break;
                }
                i -= 1;
            }
            if let Some(i) = hedgehog
                && !self.occupied(s, i, p)
            {
                let m = h.cell - i;
                let mut t = *s;
                t.hares[p].cell = i;
                t.hares[p].carrots += 10 * u32::from(m);
                out.push((-i32::from(m), self.end_turn(t, payouts), "back"));
            }
        }
        // Stay on a carrot cell.
        if self.kind(h.cell) == b'C' {
            let mut t = *s;
            t.hares[p].carrots += 10;
            out.push((1001, self.end_turn(t, payouts), "take"));
            if h.carrots >= 10 {
                let mut t = *s;
                t.hares[p].carrots -= 10;
                out.push((1002, self.end_turn(t, payouts), "give"));
            }
        }
        // The stuck rule.
        if out.is_empty() {
            if h.cell == 0 {
                out.push((0, self.end_turn(*s, payouts), "stuck-at-start"));
            } else {
                let mut t = *s;
                t.hares[p].cell = 0;
                t.hares[p].carrots = self.start_carrots;
                out.push((-i32::from(h.cell), self.end_turn(t, payouts), "stuck"));
            }
        }
        out.sort_by_key(|m| m.0);
        out
    }

    /// A move again: one more move in this turn, unless the cap on extra moves is reached.
    fn again(&self, mut t: HaseIgelState, payouts: &mut [u64; 7]) -> HaseIgelState {
        if t.extra < MAX_EXTRA {
            t.extra += 1;
            t.paid = 0;
            t
        } else {
            self.end_turn(t, payouts)
        }
    }

    /// Moves hare `p` by a card to `to` (no card is drawn there).
    fn card_move(&self, t: &mut HaseIgelState, p: usize, to: u8) {
        t.hares[p].cell = to;
        if to == self.goal {
            t.hares[p].place = self.finished(t) + 1;
        } else if self.kind(to) == b'S' {
            t.hares[p].flags |= EAT;
        }
    }

    /// The card draws with their probabilities and successors.
    fn draws(
        &self,
        s: &HaseIgelState,
        payouts: &mut [u64; 7],
    ) -> Vec<(usize, f64, HaseIgelState, &'static str)> {
        let size: u32 = self.deck.iter().map(|d| d.1).sum();
        self.deck
            .iter()
            .map(|&(i, k)| {
                let (t, label) = self.card(s, CARDS[i], payouts);
                (i, f64::from(k) / f64::from(size), t, label)
            })
            .collect()
    }

    /// What a card does to the mover `s.to_move`.
    fn card(
        &self,
        s: &HaseIgelState,
        card: Card,
        payouts: &mut [u64; 7],
    ) -> (HaseIgelState, &'static str) {
        let p = s.to_move as usize;
        let paid = s.paid;
        let mut t = *s;
        t.phase = Phase::Move;
        let me = t.hares[p];
        let label = match card {
            Card::GiveBehind => {
                let behind: Vec<usize> = (0..self.n)
                    .filter(|&q| q != p && t.hares[q].place == 0 && t.hares[q].cell < me.cell)
                    .collect();
                let total = 10 * behind.len() as u32;
                if !behind.is_empty() && me.carrots >= total {
                    t.hares[p].carrots -= total;
                    for q in behind {
                        t.hares[q].carrots += 10;
                    }
                    "give-behind:gave"
                } else if behind.is_empty() {
                    "give-behind:nobody"
                } else {
                    "give-behind:cannot"
                }
            }
            Card::AheadOrBehind => {
                if self.behind(s, p) > self.ahead(s, p) {
                    t.hares[p].flags |= SKIP;
                    "ahead-or-behind:miss"
                } else {
                    return (self.again(t, payouts), "ahead-or-behind:again");
                }
            }
            Card::SixtyFive => {
                t.hares[p].carrots = 65;
                "sixty-five"
            }
            Card::SaladCarrots => {
                if me.salads > 0 {
                    t.hares[p].carrots += 10 * u32::from(me.salads);
                    "salad-carrots:paid"
                } else {
                    t.hares[p].flags |= SKIP;
                    "salad-carrots:miss"
                }
            }
            Card::Halve => {
                t.hares[p].carrots = me.carrots - me.carrots / 2;
                "halve"
            }
            Card::Refund => {
                t.hares[p].carrots += u32::from(paid);
                "refund"
            }
            Card::Show => "show",
            Card::Shuffle => {
                for q in 0..self.n {
                    if q != p && t.hares[q].place == 0 && t.hares[q].carrots >= 1 {
                        t.hares[q].carrots -= 1;
                        t.hares[p].carrots += 1;
                    }
                }
                "shuffle"
            }
            Card::EatSalad => {
                if me.salads > 0 {
                    t.hares[p].flags |= EAT;
                    "eat-salad:eat"
                } else {
                    t.hares[p].flags |= SKIP;
                    "eat-salad:miss"
                }
            }
            Card::MoveAgain => return (self.again(t, payouts), "move-again"),
            Card::TakeOrGive => {
                // The choice no longer needs what the move paid.
                t.phase = Phase::Choice;
                t.paid = 0;
                return (t, "take-or-give");
            }
            Card::MissTurn => {
                t.hares[p].flags |= SKIP;
                "miss-turn-card"
            }
            Card::HurryAhead => {
                // The nearest hare ahead: the racing hare on the lowest cell above me, else a
                // hare home.
                let nearest = (0..self.n)
                    .filter(|&q| q != p && t.hares[q].place == 0 && t.hares[q].cell > me.cell)
                    .map(|q| t.hares[q].cell)
                    .min()
                    .or(if self.finished(s) > 0 {
                        Some(self.goal)
                    } else {
                        None
                    });
                let mut moved = if nearest == Some(self.goal) {
                    "hurry-ahead:home-ahead"
                } else {
                    "hurry-ahead:none"
                };
                if let Some(base) = nearest {
                    for x in base + 1..=self.goal {
                        let k = self.kind(x);
                        if k == b'I' || self.occupied(&t, x, p) {
                            continue;
                        }
                        if k == b'S' && me.salads == 0 {
                            continue;
                        }
                        if x == self.goal && !self.may_finish(&t, p, me.carrots) {
                            continue;
                        }
                        self.card_move(&mut t, p, x);
                        moved = if x == self.goal {
                            "hurry-ahead:goal"
                        } else if k == b'S' {
                            "hurry-ahead:salad"
                        } else if x > base + 1 {
                            "hurry-ahead:skipped"
                        } else {
                            "hurry-ahead:moved"
                        };
                        break;
                    }
                }
                moved
            }
            Card::FallBack => {
                let nearest = (0..self.n)
                    .filter(|&q| q != p && t.hares[q].place == 0 && t.hares[q].cell < me.cell)
                    .map(|q| t.hares[q].cell)
                    .max();
                // Spec silent: "the next possible cell behind"; like the game, the model
                // takes neither a hedgehog nor the start as possible (no effect if nothing is).
                let mut moved = "fall-back:none";
                if let Some(base) = nearest {
                    let mut x = base;
                    while x > 1 {
                        x -= 1;
                        if self.kind(x) == b'I' || self.occupied(&t, x, p) {
                            continue;
                        }
                        if self.kind(x) == b'S' && me.salads == 0 {
                            continue;
                        }
                        self.card_move(&mut t, p, x);
                        moved = if self.kind(x) == b'S' {
                            "fall-back:salad"
                        } else if x + 1 < base {
                            "fall-back:skipped"
                        } else {
                            "fall-back:moved"
                        };
                        break;
                    }
                }
                moved
            }
            Card::NextCarrot => {
                let next = (me.cell + 1..self.goal).find(|&x| self.kind(x) == b'C');
                match next {
                    Some(x) if !self.occupied(&t, x, p) => {
                        self.card_move(&mut t, p, x);
                        "next-carrot:moved"
                    }
                    _ => "next-carrot:none",
                }
            }
            Card::PreviousCarrot => {
                let prev = (1..me.cell).rev().find(|&x| self.kind(x) == b'C');
                match prev {
                    Some(x) if !self.occupied(&t, x, p) => {
                        self.card_move(&mut t, p, x);
                        "previous-carrot:moved"
                    }
                    _ => "previous-carrot:none",
                }
            }
        };
        (self.end_turn(t, payouts), label)
    }

    fn cut_off(&self, s: &HaseIgelState) -> bool {
        s.phase == Phase::Over && s.round > self.max_rounds
    }

    /// The value of finishing place `place` (1-based) in ranks mode: +1 down to -1.
    fn place_value(&self, place: usize) -> f64 {
        1.0 - 2.0 * (place as f64 - 1.0) / (self.n as f64 - 1.0)
    }

    fn returns(&self, s: &HaseIgelState) -> Vec<f64> {
        let n = self.n;
        let mut r = vec![0.0; n];
        if !self.cut_off(s) {
            match self.end {
                End::First => {
                    for (q, v) in r.iter_mut().enumerate() {
                        *v = if s.hares[q].place == 1 {
                            1.0
                        } else {
                            -1.0 / (n as f64 - 1.0)
                        };
                    }
                }
                End::Ranks => {
                    for (q, v) in r.iter_mut().enumerate() {
                        let place = if s.hares[q].place > 0 {
                            usize::from(s.hares[q].place)
                        } else {
                            n
                        };
                        *v = self.place_value(place);
                    }
                }
            }
            return r;
        }
        // The round cap: home first (in order), then by cell, then by fewer carrots.
        let key = |q: usize| {
            let h = s.hares[q];
            if h.place > 0 {
                (0u8, h.place, 0u8, 0u32)
            } else {
                (1, 0, u8::MAX - h.cell, h.carrots)
            }
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&q| key(q));
        match self.end {
            End::First => {
                // Spec: "hares tied at the top share the win". Read as the game reads it: the
                // average of the win returns of the tied hares (so each loser still gets
                // -1/(n-1)); ranks mode averages tied places the same way.
                let top: Vec<usize> = order
                    .iter()
                    .copied()
                    .filter(|&q| key(q) == key(order[0]))
                    .collect();
                let k = top.len() as f64;
                let lose = -1.0 / (n as f64 - 1.0);
                for (q, v) in r.iter_mut().enumerate() {
                    *v = if top.contains(&q) {
                        (1.0 + (k - 1.0) * lose) / k
                    } else {
                        lose
                    };
                }
            }
            End::Ranks => {
                let mut i = 0;
                while i < n {
                    let mut j = i;
                    while j < n && key(order[j]) == key(order[i]) {
                        j += 1;
                    }
                    let avg =
                        (i + 1..=j).map(|pl| self.place_value(pl)).sum::<f64>() / (j - i) as f64;
                    for &q in &order[i..j] {
                        r[q] = avg;
                    }
                    i = j;
                }
            }
        }
        r
    }
}

// ---------------------------------------------------------------------------------------------
// The comparison.
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Tally {
    states: u64,
    successors: u64,
    /// Number-cell payouts by race position.
    payouts: [u64; 7],
    events: BTreeMap<&'static str, u64>,
    /// Disagreements by kind: how many, and the first few examples.
    diffs: BTreeMap<String, (u64, Vec<String>)>,
}

impl Tally {
    fn event(&mut self, e: &'static str) {
        *self.events.entry(e).or_default() += 1;
    }

    fn diff(&mut self, kind: String, example: String) {
        let e = self.diffs.entry(kind).or_default();
        e.0 += 1;
        if e.1.len() < 2 {
            e.1.push(example);
        }
    }
}

fn show(game: &HaseUndIgel, s: &HaseIgelState) -> String {
    let mut v = game.position_json(s);
    // Keep the reports short: the parameters that are defaults add nothing.
    if let Some(o) = v.as_object_mut() {
        o.remove("observation");
    }
    format!(
        "{v} [raw: round {} to_move {} phase {:?} paid {} extra {}]",
        s.round, s.to_move, s.phase, s.paid, s.extra
    )
}

/// Compares the game and the model at `s` and returns the game's successors to walk on (for
/// player states: code and state; for chance states: card index, probability and state).
fn compare(
    game: &HaseUndIgel,
    model: &Model,
    s: &HaseIgelState,
    tally: &mut Tally,
) -> Vec<(i32, f64, HaseIgelState)> {
    tally.states += 1;
    let n = model.n;
    let turn = game.turn(s);
    let who = model.who(s);
    let same_turn = matches!(
        (turn, who),
        (Turn::Player(a), Who::Hare(b)) if a == b
    ) || matches!(
        (turn, who),
        (Turn::Chance, Who::Chance) | (Turn::Terminal, Who::Over)
    );
    if !same_turn {
        tally.diff(
            "turn".into(),
            format!("{}: game {turn:?}, model {who:?}", show(game, s)),
        );
        return Vec::new();
    }
    if game.is_cut_off(s) != model.cut_off(s) {
        tally.diff(
            "is_cut_off".into(),
            format!(
                "{}: game {}, model {}",
                show(game, s),
                game.is_cut_off(s),
                model.cut_off(s)
            ),
        );
    }
    match who {
        Who::Over => {
            let got = game.returns(s);
            let want = model.returns(s);
            let close =
                got.len() == n && (0..n).all(|q| (got.as_slice()[q] - want[q]).abs() < 1e-9);
            if !close {
                tally.diff(
                    format!("returns ({:?}, cut off {})", model.end, model.cut_off(s)),
                    format!(
                        "{}: game {:?}, model {want:?}",
                        show(game, s),
                        got.as_slice()
                    ),
                );
            }
            if model.cut_off(s) {
                tally.event("end:round-cap");
                let best = want.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if want.iter().filter(|&&v| v == best).count() > 1 {
                    tally.event("end:round-cap-shared-top");
                }
                if model.end == End::Ranks && (0..n).any(|q| s.hares[q].place > 0) {
                    tally.event("end:round-cap-after-finishes");
                }
            } else if model.end == End::Ranks {
                tally.event("end:all-placed");
            } else {
                tally.event("end:first-home");
            }
            Vec::new()
        }
        Who::Chance => {
            let mut out = Vec::new();
            game.chance_outcomes(s, &mut out);
            let want = model.draws(s, &mut tally.payouts);
            let got: Vec<(usize, f64)> = out.iter().map(|&(a, p)| (a as usize, p)).collect();
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.0 == w.0 && (g.1 - w.1).abs() < 1e-12);
            if !same {
                let w: Vec<(usize, f64)> = want.iter().map(|w| (w.0, w.1)).collect();
                tally.diff(
                    "chance outcomes".into(),
                    format!("{}: game {got:?}, model {w:?}", show(game, s)),
                );
            }
            let mut walk = Vec::new();
            for &(card, p, ref t, label) in &want {
                let Some(&(a, _)) = got.iter().find(|g| g.0 == card) else {
                    continue;
                };
                let g = game.apply(s, a as u32);
                tally.successors += 1;
                tally.event(CARDS[card].key());
                tally.event(label);
                if g != *t {
                    tally.diff(
                        format!("card {} ({label})", CARDS[card].key()),
                        format!(
                            "{}\n      game  -> {}\n      model -> {}",
                            show(game, s),
                            show(game, &g),
                            show(game, t)
                        ),
                    );
                }
                walk.push((card as i32, p, g));
            }
            walk
        }
        Who::Hare(_) => {
            let mut acts = Vec::new();
            game.legal_actions(s, &mut acts);
            let mut got: Vec<i32> = acts.iter().map(|&a| game.code_of_action(a)).collect();
            got.sort_unstable();
            let want = model.moves(s, &mut tally.payouts);
            let want_codes: Vec<i32> = want.iter().map(|m| m.0).collect();
            if got != want_codes {
                tally.diff(
                    format!("legal codes (phase {:?})", s.phase),
                    format!("{}: game {got:?}, model {want_codes:?}", show(game, s)),
                );
            }
            let mut walk = Vec::new();
            for (code, t, label) in &want {
                if !got.contains(code) {
                    continue;
                }
                let a = game.action_of_code(*code).expect("a code of the game");
                let g = game.apply(s, a);
                tally.successors += 1;
                tally.event(label);
                if g != *t {
                    tally.diff(
                        format!("successor of a {label} move"),
                        format!(
                            "{} move {code}\n      game  -> {}\n      model -> {}",
                            show(game, s),
                            show(game, &g),
                            show(game, t)
                        ),
                    );
                }
                walk.push((*code, 1.0, g));
            }
            walk
        }
    }
}

/// One seeded playout, comparing at every state. Moves are drawn at random with a pull
/// towards finishing (so later places are reached); cards by their probabilities.
fn playout(game: &HaseUndIgel, model: &Model, seed: u64, tally: &mut Tally) {
    let mut r = solvedgym::rng(seed);
    let mut s = game.initial_state();
    if s != model.initial() {
        tally.diff(
            "initial state".into(),
            format!(
                "game {}, model {}",
                show(game, &s),
                show(game, &model.initial())
            ),
        );
    }
    for _ in 0..20_000 {
        let chance = game.turn(&s) == Turn::Chance;
        let walk = compare(game, model, &s, tally);
        if walk.is_empty() {
            return;
        }
        let pick = if chance {
            let mut x: f64 = r.random_range(0.0..1.0);
            let mut i = 0;
            while i + 1 < walk.len() && x >= walk[i].1 {
                x -= walk[i].1;
                i += 1;
            }
            i
        } else {
            let p = s.to_move as usize;
            let home = walk
                .iter()
                .position(|w| w.2.hares[p].place > 0 && s.hares[p].place == 0);
            match home {
                Some(i) if r.random_range(0..10) < 9 => i,
                _ => {
                    // Prefer short hops now and then, so hares creep forward on low carrots.
                    if r.random_range(0..3) == 0 {
                        walk.iter().position(|w| w.0 > 0 && w.0 < 1000).unwrap_or(0)
                    } else {
                        r.random_range(0..walk.len())
                    }
                }
            }
        };
        s = walk[pick].2;
    }
    panic!("a playout did not end within 20,000 steps (seed {seed})");
}

fn game_of(p: HaseUndIgelParams) -> (HaseUndIgel, Model) {
    let model = Model::new(&p);
    let game = HaseUndIgel::new(p).expect("valid parameters");
    (game, model)
}

fn all_cards_deck() -> Deck {
    let mut table = serde_json::Map::new();
    for c in CARDS {
        table.insert(c.key().to_string(), serde_json::json!(1));
    }
    serde_json::from_value(serde_json::Value::Object(table)).expect("a deck table")
}

/// The report of a comparison run; panics (after listing everything) on any disagreement.
fn finish(tally: &Tally) -> String {
    let mut report = format!(
        "{} states, {} successors compared, number-cell payouts by race position {:?}\n",
        tally.states,
        tally.successors,
        &tally.payouts[1..]
    );
    for (e, k) in &tally.events {
        report += &format!("  {e}: {k}\n");
    }
    for (kind, (k, examples)) in &tally.diffs {
        report += &format!("DISAGREEMENT {kind}: {k} times\n");
        for e in examples {
            report += &format!("    {e}\n");
        }
    }
    println!("{report}");
    assert!(tally.diffs.is_empty(), "{report}");
    report
}

#[test]
fn game_agrees_with_the_reference_model() {
    let mut tally = Tally::default();
    let decks = [
        Deck::edition_2008(),
        Deck::classic(),
        Deck::none(),
        all_cards_deck(),
    ];
    let mut seed = 0u64;
    // The full boards.
    for players in 2..=6 {
        for board in ["2008", "classic"] {
            for deck in decks {
                for end in [End::First, End::Ranks] {
                    for variant in 0..3u16 {
                        seed += 1;
                        let mut pick = solvedgym::rng(seed ^ 0x5eed);
                        let carrots = match variant {
                            0 => None,
                            1 => Some(pick.random_range(5..=20)),
                            _ => Some(pick.random_range(20..=120)),
                        };
                        let p = HaseUndIgelParams {
                            players,
                            board: board.to_string(),
                            carrots,
                            salads: pick.random_range(0..=3),
                            deck,
                            end,
                            max_rounds: pick.random_range(5..=60),
                        };
                        let (game, model) = game_of(p);
                        let track = if board == "2008" {
                            LAYOUT_2008
                        } else {
                            LAYOUT_CLASSIC
                        };
                        assert_eq!(game.board().text(), track, "board {board}");
                        for k in 0..30 {
                            playout(&game, &model, seed * 1000 + k, &mut tally);
                        }
                    }
                }
            }
        }
    }
    // Short custom tracks: finishing, the stuck rule and the round cap come often.
    let tracks = [
        "HCSIC2",
        "CHI3S1H2C4I",
        "HHHHCI",
        "1234HSIC",
        "ISHCIH",
        "CHSHIH1H2H",
        "SIHSHICS",
        "H",
        "I",
    ];
    for track in tracks {
        for players in 2..=6 {
            for deck in decks {
                for end in [End::First, End::Ranks] {
                    seed += 1;
                    let mut pick = solvedgym::rng(seed ^ 0xc0ffee);
                    let p = HaseUndIgelParams {
                        players,
                        board: track.to_string(),
                        carrots: Some(pick.random_range(0..=25)),
                        salads: pick.random_range(0..=2),
                        deck,
                        end,
                        max_rounds: pick.random_range(1..=25),
                    };
                    let (game, model) = game_of(p);
                    assert_eq!(game.board().text(), track);
                    for k in 0..60 {
                        playout(&game, &model, seed * 1000 + k, &mut tally);
                    }
                }
            }
        }
    }
    let report = finish(&tally);

    // Not vacuous: the rules that matter were exercised.
    assert!(tally.states > 1_000_000, "{report}");
    for rank in 1..=6 {
        assert!(tally.payouts[rank] > 20, "payouts at rank {rank}\n{report}");
    }
    for e in [
        "stuck",
        "stuck-at-start",
        "eat",
        "to-salad",
        "back",
        "take",
        "give",
        "forward",
        "finish-first",
        "finish-later",
        "miss-turn",
        "choice-take",
        "choice-give",
        "choice-neither",
        "end:round-cap",
        "end:round-cap-shared-top",
        "end:round-cap-after-finishes",
        "end:all-placed",
        "end:first-home",
        "give-behind:gave",
        "give-behind:nobody",
        "give-behind:cannot",
        "ahead-or-behind:miss",
        "ahead-or-behind:again",
        "salad-carrots:paid",
        "salad-carrots:miss",
        "eat-salad:eat",
        "eat-salad:miss",
        "hurry-ahead:moved",
        "hurry-ahead:skipped",
        "hurry-ahead:salad",
        "hurry-ahead:goal",
        "hurry-ahead:home-ahead",
        "hurry-ahead:none",
        "fall-back:moved",
        "fall-back:skipped",
        "fall-back:salad",
        "fall-back:none",
        "next-carrot:moved",
        "next-carrot:none",
        "previous-carrot:moved",
        "previous-carrot:none",
    ] {
        assert!(
            tally.events.get(e).copied().unwrap_or(0) > 10,
            "{e} too rare\n{report}"
        );
    }
    for c in CARDS {
        assert!(
            tally.events.get(c.key()).copied().unwrap_or(0) > 20,
            "card {} too rare\n{report}",
            c.key()
        );
    }
}

/// A position of `model`'s setting: hares as (cell, carrots, salads), hare 0 to move, round 1.
fn race(model: &Model, hares: &[(u8, u32, u8)]) -> HaseIgelState {
    let mut s = model.initial();
    assert_eq!(hares.len(), model.n);
    for (h, &(cell, carrots, salads)) in s.hares.iter_mut().zip(hares) {
        h.cell = cell;
        h.carrots = carrots;
        h.salads = salads;
    }
    s
}

fn codes(model: &Model, s: &HaseIgelState) -> Vec<i32> {
    model.moves(s, &mut [0; 7]).iter().map(|m| m.0).collect()
}

fn after(model: &Model, s: &HaseIgelState, code: i32) -> HaseIgelState {
    let moves = model.moves(s, &mut [0; 7]);
    match moves.iter().find(|m| m.0 == code) {
        Some(m) => m.1,
        None => panic!("{code} is not legal in {s:?}"),
    }
}

fn params(players: usize, board: &str, deck: Deck, end: End) -> HaseUndIgelParams {
    HaseUndIgelParams {
        players,
        board: board.to_string(),
        deck,
        end,
        ..HaseUndIgelParams::default()
    }
}

/// The rules file's hand-derived vectors (§1.2, §1.6b) hold in the model, and the game agrees
/// with the model on each of those positions (and on the extra-move cap).
#[test]
fn model_follows_the_rule_vectors() {
    let mut tally = Tally::default();
    let mut check = |game: &HaseUndIgel, model: &Model, s: &HaseIgelState| {
        compare(game, model, s, &mut tally);
    };

    // Opening, 3 hares on the 2008 board: cells 1..10 (11 is a hedgehog, 12 costs 78 > 68);
    // the salad at 10 costs 55 and leaves 13.
    let (game, model) = game_of(params(3, "2008", Deck::none(), End::First));
    let s = model.initial();
    assert_eq!(s.hares[0].carrots, 68);
    assert_eq!(codes(&model, &s), (1..=10).collect::<Vec<_>>());
    let t = after(&model, &s, 10);
    assert_eq!((t.hares[0].cell, t.hares[0].carrots), (10, 13));
    assert_eq!(t.hares[0].flags, EAT);
    check(&game, &model, &s);
    // 5 and 6 hares start with 98 carrots: 13 cells at most (91 <= 98 < 105).
    let (game6, model6) = game_of(params(6, "2008", Deck::none(), End::First));
    let s6 = model6.initial();
    assert_eq!(s6.hares[5].carrots, 98);
    assert_eq!(
        codes(&model6, &s6),
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]
    );
    check(&game6, &model6, &s6);

    // Back to the hedgehog: 14 -> 11 is +30, 12 -> 11 is +10; none from 1..11 on layout B; an
    // occupied hedgehog blocks (no skipping to an earlier one).
    let s = race(&model, &[(14, 0, 3), (40, 5, 3), (50, 5, 3)]);
    assert_eq!(codes(&model, &s), vec![-3]);
    let t = after(&model, &s, -3);
    assert_eq!((t.hares[0].cell, t.hares[0].carrots), (11, 30));
    check(&game, &model, &s);
    let s = race(&model, &[(12, 0, 3), (40, 5, 3), (50, 5, 3)]);
    assert_eq!(after(&model, &s, -1).hares[0].carrots, 10);
    check(&game, &model, &s);
    let s = race(&model, &[(11, 5, 3), (40, 5, 3), (50, 5, 3)]);
    assert!(codes(&model, &s).iter().all(|&c| c >= 0));
    check(&game, &model, &s);
    let s = race(&model, &[(18, 0, 3), (15, 5, 3), (50, 5, 3)]);
    // 15 is taken: no way back, no carrots, a number cell: the stuck rule (68 again).
    assert_eq!(codes(&model, &s), vec![-18]);
    let t = after(&model, &s, -18);
    assert_eq!(
        (t.hares[0].cell, t.hares[0].carrots, t.hares[0].salads),
        (0, 68, 3)
    );
    check(&game, &model, &s);
    let s6 = race(
        &model6,
        &[
            (18, 0, 3),
            (15, 5, 3),
            (50, 5, 3),
            (0, 1, 1),
            (0, 1, 1),
            (0, 1, 1),
        ],
    );
    assert_eq!(after(&model6, &s6, -18).hares[0].carrots, 98);
    check(&game6, &model6, &s6);
    // Layout A: from 9 or 10 back to hedgehog 8.
    let (game_a, model_a) = game_of(params(3, "classic", Deck::none(), End::First));
    for cell in [9u8, 10] {
        let s = race(&model_a, &[(cell, 0, 3), (40, 5, 3), (50, 5, 3)]);
        assert_eq!(codes(&model_a, &s), vec![-i32::from(cell - 8)]);
        check(&game_a, &model_a, &s);
    }

    // A salad eaten while 3rd pays 30.
    let mut s = race(&model, &[(10, 0, 2), (20, 5, 3), (40, 5, 3)]);
    s.hares[0].flags = EAT;
    assert_eq!(codes(&model, &s), vec![0]);
    let t = after(&model, &s, 0);
    assert_eq!(
        (t.hares[0].carrots, t.hares[0].salads, t.hares[0].flags),
        (30, 1, 0)
    );
    check(&game, &model, &s);

    // Number cells pay at the start of the hare's turn: "2" (cell 8) while 2nd +20, "3"
    // (cell 4) while 2nd nothing.
    let s = race(&model, &[(0, 50, 3), (8, 0, 3), (20, 5, 3)]);
    assert_eq!(after(&model, &s, 1).hares[1].carrots, 20);
    check(&game, &model, &s);
    let s = race(&model, &[(0, 50, 3), (4, 0, 3), (20, 5, 3)]);
    assert_eq!(after(&model, &s, 1).hares[1].carrots, 0);
    check(&game, &model, &s);
    // "1/5/6" (cell 7) while 5th +50, while 1st +10.
    let (game5, model5) = game_of(params(5, "2008", Deck::none(), End::First));
    let s = race(
        &model5,
        &[(30, 50, 3), (7, 0, 3), (20, 5, 3), (21, 5, 3), (23, 5, 3)],
    );
    let t = after(&model5, &s, 1);
    assert_eq!(t.hares[1].carrots, 50);
    check(&game5, &model5, &s);
    let s = race(
        &model5,
        &[(0, 50, 3), (7, 0, 3), (2, 5, 3), (3, 5, 3), (4, 5, 3)],
    );
    assert_eq!(after(&model5, &s, 1).hares[1].carrots, 10);
    check(&game5, &model5, &s);

    // Finishing: from 60 with no salad and 16 carrots, 4 cells (cost 10) leave 6: fine for the
    // first home. From 58 with 40 carrots, 6 cells (cost 21) leave 19: not as 1st, yes as 2nd.
    let s = race(&model, &[(60, 16, 0), (20, 5, 3), (40, 5, 3)]);
    assert!(codes(&model, &s).contains(&4));
    let t = after(&model, &s, 4);
    assert_eq!((t.hares[0].place, t.hares[0].carrots), (1, 6));
    assert_eq!(t.phase, Phase::Over);
    assert_eq!(model.returns(&t), vec![1.0, -0.5, -0.5]);
    check(&game, &model, &s);
    check(&game, &model, &t);
    let s = race(&model, &[(58, 40, 0), (20, 5, 3), (40, 5, 3)]);
    assert!(!codes(&model, &s).contains(&6));
    check(&game, &model, &s);
    let (game_r, model_r) = game_of(params(3, "2008", Deck::none(), End::Ranks));
    let mut s = race(&model_r, &[(58, 40, 0), (64, 5, 0), (40, 5, 3)]);
    s.hares[1].place = 1;
    assert!(codes(&model_r, &s).contains(&6));
    let t = after(&model_r, &s, 6);
    assert_eq!(t.hares[0].place, 2);
    assert_eq!(t.phase, Phase::Over);
    assert_eq!(model_r.returns(&t), vec![0.0, 1.0, -1.0]);
    check(&game_r, &model_r, &s);
    check(&game_r, &model_r, &t);
    // With a salad left the goal is closed.
    let s = race(&model, &[(60, 16, 1), (20, 5, 3), (40, 5, 3)]);
    assert!(!codes(&model, &s).contains(&4));
    check(&game, &model, &s);

    // The extra-move cap: at MAX_EXTRA extra moves "move again" ends the turn.
    let (game_c, model_c) = game_of(params(3, "2008", Deck::classic(), End::First));
    for extra in [MAX_EXTRA - 1, MAX_EXTRA] {
        let mut s = race(&model_c, &[(14, 20, 3), (20, 5, 3), (40, 5, 3)]);
        s.phase = Phase::Card;
        s.paid = 6;
        s.extra = extra;
        let draws = model_c.draws(&s, &mut [0; 7]);
        let again = draws
            .iter()
            .find(|d| CARDS[d.0] == Card::MoveAgain)
            .expect("classic deck");
        if extra < MAX_EXTRA {
            assert_eq!((again.2.to_move, again.2.extra), (0, MAX_EXTRA));
        } else {
            assert_eq!((again.2.to_move, again.2.extra), (1, 0));
        }
        check(&game_c, &model_c, &s);
    }

    // The round cap: the last hare's move in the last round ends the game; the hare furthest
    // on wins, equal cells go to fewer carrots, a full tie shares.
    let mut p = params(3, "2008", Deck::none(), End::First);
    p.max_rounds = 4;
    let (game_cap, model_cap) = game_of(p);
    let mut s = race(&model_cap, &[(20, 5, 3), (21, 5, 3), (5, 50, 3)]);
    s.round = 4;
    s.to_move = 2;
    let t = after(&model_cap, &s, 1);
    assert!(t.phase == Phase::Over && model_cap.cut_off(&t));
    assert_eq!(model_cap.returns(&t), vec![-0.5, 1.0, -0.5]);
    check(&game_cap, &model_cap, &s);
    check(&game_cap, &model_cap, &t);

    finish(&tally);
    assert!(tally.states >= 20);
}
