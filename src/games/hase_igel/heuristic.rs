//! A static evaluation in the seed's shape, E = S + C + P per hare (salads, carrots, progress),
//! untuned: the greedy one-ply player uses it, and the search AI of the next issue tunes it.
//! A hare's score for a seat is its E less the best rival's (the seed's "lead" reduction).

use super::board::cost;
use super::{EAT, Hare, HaseUndIgel, Race};
use crate::game::Player;

impl HaseUndIgel {
    /// One hare's E: progress 3 per cell (the seed's P = 3i); carrots worth less the more it
    /// has in the first half, and past it the carrots it needs to finish, with a penalty for a
    /// surplus it must shed; each salad held costs, more when no salad cell is left for it;
    /// a salad due this turn counts as eaten.
    fn hare_value(&self, s: &Race, p: Player, h: &Hare) -> f64 {
        let goal = f64::from(self.goal);
        if h.place > 0 {
            return 4.0 * goal + 100.0 - 20.0 * f64::from(h.place);
        }
        let rank = f64::from(self.rank(s, p));
        let (mut carrots, mut salads) = (f64::from(h.carrots), f64::from(h.salads));
        if h.flags & EAT != 0 {
            carrots += 10.0 * rank;
            salads -= 1.0;
        }
        let cell = f64::from(h.cell);
        let progress = 3.0 * cell;
        let left = goal - cell;
        let carrot_score = if cell < goal / 2.0 {
            6.0 * carrots.sqrt()
        } else {
            // Carrots to cover the rest in hops of about five cells, and to arrive with at
            // most 10 × place.
            let hops = (left / 5.0).ceil().max(1.0);
            let need = hops * f64::from(cost((left / hops).ceil() as u32));
            let limit = 10.0 * (f64::from(self.finished(s)) + 1.0);
            if carrots < need {
                6.0 * carrots.sqrt() - 0.3 * (need - carrots)
            } else {
                6.0 * need.sqrt() - 0.5 * (carrots - need - limit).max(0.0)
            }
        };
        let salad_cells = f64::from(self.board.salads_ahead(h.cell));
        let salad_score = -12.0 * salads - 40.0 * (salads - salad_cells).max(0.0);
        progress + carrot_score + salad_score
    }

    /// Seat `p`'s lead: its E less the best rival's.
    pub fn lead(&self, s: &Race, p: Player) -> f64 {
        let n = self.players as usize;
        let mine = self.hare_value(s, p, &s.hares[p]);
        let best_rival = (0..n)
            .filter(|&q| q != p)
            .map(|q| self.hare_value(s, q, &s.hares[q]))
            .fold(f64::NEG_INFINITY, f64::max);
        mine - best_rival
    }
}
