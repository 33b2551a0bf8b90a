//! Hase und Igel's turn, as the module above states the rules: the legal moves, a move's
//! words, the cards, the end of a turn, a hare home and the game's end.

use super::board::{Cell, cost};
use super::cards::{CARDS, Card};
use super::{EAT, End, GIVE_10, Hare, HaseIgelState, HaseUndIgel, Phase, SKIP, TAKE_10};
use crate::core::game::{Action, Player};

impl HaseUndIgel {
    /// The legal moves at a `Move` or `Choice` phase, as the reference AI's codes, in ascending order.
    pub(super) fn legal_codes(&self, s: &HaseIgelState, mut push: impl FnMut(i32)) {
        let p = s.to_move as usize;
        let h = &s.hares[p];
        match s.phase {
            Phase::Choice => {
                push(0);
                push(TAKE_10);
                if h.carrots >= 10 {
                    push(GIVE_10);
                }
                return;
            }
            Phase::Move => {}
            _ => return,
        }
        if h.flags & (EAT | SKIP) != 0 {
            push(0);
            return;
        }
        let occupied = self.occupied(s);
        let mut any = false;
        let hedgehog = self.board.hedgehog_behind(h.cell);
        if h.cell > 0 && hedgehog > 0 && occupied >> hedgehog & 1 == 0 {
            push(-i32::from(h.cell - hedgehog));
            any = true;
        }
        // Forward: the cells in reach that are free, not hedgehogs, and salad cells only with a
        // salad, walked as a mask; the goal by its own condition.
        let carrots = h.carrots;
        let mut longest = u32::from(self.goal - h.cell);
        while longest > 0 && cost(longest) > carrots {
            longest -= 1;
        }
        let last = h.cell + longest as u8;
        let mut closed = occupied | self.board.hedgehog_mask();
        if h.salads == 0 {
            closed |= self.board.salad_mask();
        }
        let window = if last <= h.cell {
            0
        } else {
            let upto = last.min(self.goal - 1);
            // Cells h.cell+1 ..= upto.
            (u128::MAX >> (127 - upto)) & !(u128::MAX >> (127 - h.cell))
        };
        let mut open = window & !closed;
        while open != 0 {
            let t = open.trailing_zeros() as u8;
            open &= open - 1;
            push(i32::from(t - h.cell));
            any = true;
        }
        if last == self.goal && h.salads == 0 {
            let left = carrots - cost(longest);
            if left <= 10 * (u32::from(self.finished(s)) + 1) {
                push(i32::from(self.goal - h.cell));
                any = true;
            }
        }
        if self.board.cell(h.cell) == Cell::Carrot {
            push(TAKE_10);
            if h.carrots >= 10 {
                push(GIVE_10);
            }
            any = true;
        }
        if !any {
            // The stuck rule: back to the start (or, on the start, stay).
            push(-i32::from(h.cell));
        }
    }

    /// The move's meaning in words, for `moves` and `play`.
    pub fn describe_move(&self, s: &HaseIgelState, action: Action) -> String {
        if s.phase == Phase::Card {
            let card = CARDS[action as usize];
            return format!("hare card \"{}\"", card.text());
        }
        let p = s.to_move as usize;
        let h = &s.hares[p];
        let code = self.code_of_action(action);
        match code {
            TAKE_10 if s.phase == Phase::Choice => "take 10 carrots (the card)".into(),
            GIVE_10 if s.phase == Phase::Choice => "give 10 carrots (the card)".into(),
            0 if s.phase == Phase::Choice => "neither take nor give (the card)".into(),
            TAKE_10 => "stay on the carrot cell and take 10 carrots".into(),
            GIVE_10 => "stay on the carrot cell and give 10 carrots".into(),
            0 if h.flags & EAT != 0 => format!(
                "eat a salad: +{} carrots (rank {})",
                10 * u32::from(self.rank(s, p)),
                self.rank(s, p)
            ),
            0 if h.flags & SKIP != 0 => "miss the turn".into(),
            0 => "stay: no move from the start".into(),
            n if n > 0 => {
                let t = h.cell + n as u8;
                format!(
                    "forward {n} to cell {t} ({}), pay {}",
                    self.board.cell(t).name(),
                    cost(n as u32)
                )
            }
            m if i32::from(h.cell) + m == 0 => format!(
                "stuck: back to the start with {} carrots (stuck rule)",
                self.carrots
            ),
            m => format!(
                "back {} to the hedgehog on cell {}, take {} carrots",
                -m,
                i32::from(h.cell) + m,
                -10 * m
            ),
        }
    }

    /// The hare `p` reaches the goal.
    pub(super) fn finish(&self, s: &mut HaseIgelState, p: Player) {
        s.hares[p].place = self.finished(s) + 1;
        s.hares[p].flags = 0;
        let over = match self.end {
            End::First => true,
            End::Ranks => self.finished(s) + 1 >= self.players,
        };
        if over {
            self.game_over(s);
        }
    }

    /// The end: what no longer matters is cleared, so that equal ends are one state.
    pub(super) fn game_over(&self, s: &mut HaseIgelState) {
        s.phase = Phase::Over;
        s.to_move = 0;
        s.paid = 0;
        s.extra = 0;
    }

    /// Ends the mover's turn: the next hare still racing moves (a new round after the last
    /// seat); it is paid for its number cell; the round cap may end the game.
    pub(super) fn end_turn(&self, s: &mut HaseIgelState) {
        if s.phase == Phase::Over {
            return;
        }
        s.extra = 0;
        s.paid = 0;
        let n = self.players;
        let mut q = s.to_move;
        loop {
            q += 1;
            if q == n {
                q = 0;
                s.round += 1;
            }
            if s.hares[q as usize].place == 0 {
                break;
            }
        }
        if s.round > self.max_rounds {
            s.round = self.max_rounds + 1;
            self.game_over(s);
            return;
        }
        s.to_move = q;
        s.phase = Phase::Move;
        if let Cell::Number(_) = self.board.cell(s.hares[q as usize].cell) {
            let rank = self.rank(s, q as usize);
            let h = &mut s.hares[q as usize];
            if self.board.cell(h.cell).pays(rank) {
                h.carrots = h.carrots.saturating_add(10 * u32::from(rank));
            }
        }
    }

    /// A card's free move of hare `p` to cell `t`.
    pub(super) fn card_move(&self, s: &mut HaseIgelState, p: Player, t: u8) {
        s.hares[p].cell = t;
        if t == self.goal {
            self.finish(s, p);
        } else if self.board.is_salad(t) {
            s.hares[p].flags |= EAT;
        }
    }

    /// Applies `card` drawn by the mover; returns whether the mover moves again.
    pub(super) fn apply_card(&self, s: &mut HaseIgelState, card: Card) -> bool {
        let p = s.to_move as usize;
        let n = self.players as usize;
        let me = s.hares[p];
        let racing = |q: &Hare| q.place == 0;
        match card {
            Card::GiveBehind => {
                let behind = |q: usize, h: &Hare| q != p && racing(h) && h.cell < me.cell;
                let hares = &mut s.hares[..n];
                let need = 10
                    * hares
                        .iter()
                        .enumerate()
                        .filter(|(q, h)| behind(*q, h))
                        .count() as u32;
                if me.carrots >= need {
                    for (q, h) in hares.iter_mut().enumerate() {
                        if behind(q, h) {
                            h.carrots = h.carrots.saturating_add(10);
                        }
                    }
                    s.hares[p].carrots -= need;
                }
            }
            Card::AheadOrBehind => {
                let (ahead, behind) = self.ahead_behind(s, p);
                if behind > ahead {
                    s.hares[p].flags |= SKIP;
                } else {
                    return true;
                }
            }
            Card::SixtyFive => s.hares[p].carrots = 65,
            Card::SaladCarrots => {
                if me.salads > 0 {
                    s.hares[p].carrots = me.carrots.saturating_add(10 * u32::from(me.salads));
                } else {
                    s.hares[p].flags |= SKIP;
                }
            }
            Card::Halve => s.hares[p].carrots = me.carrots - me.carrots / 2,
            Card::Refund => s.hares[p].carrots = me.carrots.saturating_add(u32::from(s.paid)),
            Card::Show => {}
            Card::Shuffle => {
                for q in 0..n {
                    if q != p && racing(&s.hares[q]) && s.hares[q].carrots > 0 {
                        s.hares[q].carrots -= 1;
                        s.hares[p].carrots = s.hares[p].carrots.saturating_add(1);
                    }
                }
            }
            Card::EatSalad => {
                s.hares[p].flags |= if me.salads > 0 { EAT } else { SKIP };
            }
            Card::MoveAgain => return true,
            Card::HurryAhead => {
                let next_ahead = self
                    .hares(s)
                    .iter()
                    .filter(|q| racing(q) && q.cell > me.cell)
                    .map(|q| q.cell)
                    .min();
                if let Some(a) = next_ahead {
                    let occupied = self.occupied(s);
                    let finished = self.finished(s);
                    let carrots = me.carrots;
                    if let Some(t) = (a + 1..=self.goal)
                        .find(|&t| self.may_enter(occupied, t, me.salads, carrots, finished))
                    {
                        self.card_move(s, p, t);
                    }
                }
            }
            Card::TakeOrGive => {
                s.phase = Phase::Choice;
                s.paid = 0;
            }
            Card::FallBack => {
                let next_behind = self
                    .hares(s)
                    .iter()
                    .filter(|q| racing(q) && q.cell < me.cell)
                    .map(|q| q.cell)
                    .max();
                if let Some(b) = next_behind {
                    let occupied = self.occupied(s);
                    if let Some(t) = (1..b)
                        .rev()
                        .find(|&t| self.may_enter(occupied, t, me.salads, 0, 0))
                    {
                        self.card_move(s, p, t);
                    }
                }
            }
            Card::NextCarrot | Card::PreviousCarrot => {
                let t = if card == Card::NextCarrot {
                    self.board.carrot_ahead(me.cell)
                } else {
                    self.board.carrot_behind(me.cell)
                };
                if t > 0 && self.occupied(s) >> t & 1 == 0 {
                    self.card_move(s, p, t);
                }
            }
            Card::MissTurn => s.hares[p].flags |= SKIP,
        }
        false
    }

    /// The order hares rank in at the end: finished ones by place, then by cell, then by fewer
    /// carrots (a smaller key is better).
    pub(super) fn standing(&self, h: &Hare) -> (u8, u8, u8, u32) {
        if h.place > 0 {
            (0, h.place, 0, 0)
        } else {
            (1, 0, u8::MAX - h.cell, h.carrots)
        }
    }
}
