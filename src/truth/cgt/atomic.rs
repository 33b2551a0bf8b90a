//! Atomic weights of all-small games: how many ups a game is worth (Winning Ways ch. 8; Siegel,
//! *Combinatorial Game Theory*, II.7, the constructive atomic weight theorem as restated by
//! Larsson and Nowakowski, arXiv:2007.03949, Thm 10).
//!
//! With A = {aw(G^L) − 2 | aw(G^R) + 2} built from the options' weights: if A is not an
//! integer, aw(G) = A. If it is, compare G with a far star ⋆N (N beyond every nimber in G):
//! G confused with or equal to ⋆N gives 0; G > ⋆N gives the largest integer n that is less
//! than or confused with every A^R; G < ⋆N the least integer n greater than or confused with
//! every A^L (A's options as built, not its canonical form's).

use rustc_hash::{FxHashMap, FxHashSet};

use super::Dyadic;
use super::store::{Comparison, GameId, Store};

impl Store {
    /// Whether every position of `g` has a Left move exactly when it has a Right move.
    pub fn is_all_small(&mut self, g: GameId) -> bool {
        let mut seen = FxHashSet::default();
        self.all_small(g, &mut seen)
    }

    fn all_small(&mut self, g: GameId, seen: &mut FxHashSet<GameId>) -> bool {
        if !seen.insert(g) {
            return true;
        }
        if self.as_number(g).is_some() {
            return g == self.zero();
        }
        let l = self.left(g).to_vec();
        let r = self.right(g).to_vec();
        if l.is_empty() != r.is_empty() {
            return false;
        }
        l.into_iter().chain(r).all(|o| self.all_small(o, seen))
    }

    /// The atomic weight of an all-small game (`None` for a game that is not all-small).
    pub fn atomic_weight(&mut self, g: GameId) -> Option<GameId> {
        if !self.is_all_small(g) {
            return None;
        }
        // A far star: a nimber beyond every nimber that can occur below g.
        let n = (self.birthday(g) + 2).next_power_of_two();
        let far = self.nimber(n);
        let mut memo = FxHashMap::default();
        Some(self.aw(g, far, &mut memo))
    }

    fn aw(&mut self, g: GameId, far: GameId, memo: &mut FxHashMap<GameId, GameId>) -> GameId {
        if let Some(&w) = memo.get(&g) {
            return w;
        }
        let two = self.integer(2);
        let l = self.left(g).to_vec();
        let r = self.right(g).to_vec();
        let mut al = Vec::with_capacity(l.len());
        for o in l {
            let w = self.aw(o, far, memo);
            al.push(self.sub(w, two));
        }
        let mut ar = Vec::with_capacity(r.len());
        for o in r {
            let w = self.aw(o, far, memo);
            ar.push(self.add(w, two));
        }
        let a = self.game(&al, &ar);
        let w = match self.as_number(a) {
            Some(x) if x.is_integer() => match self.compare(g, far) {
                Comparison::Greater => {
                    // The largest n with n less than or confused with every A^R.
                    let mut n = self.ceiling_above(&ar);
                    while !ar.iter().all(|&x| {
                        let m = self.number(&n);
                        !self.leq(x, m)
                    }) {
                        n = &n - &Dyadic::int(1);
                    }
                    self.number(&n)
                }
                Comparison::Less => {
                    // The least n greater than or confused with every A^L.
                    let negated: Vec<GameId> = al.iter().map(|&x| self.neg(x)).collect();
                    let mut n = -self.ceiling_above(&negated);
                    while !al.iter().all(|&x| {
                        let m = self.number(&n);
                        !self.leq(m, x)
                    }) {
                        n = &n + &Dyadic::int(1);
                    }
                    self.number(&n)
                }
                _ => self.zero(),
            },
            _ => a,
        };
        memo.insert(g, w);
        w
    }

    /// An integer above the left stop of every game in `games` (a start for counting down).
    fn ceiling_above(&mut self, games: &[GameId]) -> Dyadic {
        games
            .iter()
            .map(|&x| self.stops(x).0.floor() + Dyadic::int(1))
            .max()
            .unwrap_or_else(Dyadic::zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aw(s: &mut Store, text: &str) -> String {
        let g = s.parse(text).unwrap();
        let w = s.atomic_weight(g).expect("all-small");
        s.show(w)
    }

    /// cgt-tools' vectors (its `^2` is our `^^`, its `v3` our `v3`).
    #[test]
    fn atomic_weight_vectors() {
        let mut s = Store::new();
        for (g, want) in [
            ("*3", "0"),
            ("^", "1"),
            ("v", "-1"),
            ("vv", "-2"),
            ("{^^|v}", "1/2"),
            ("{^^|vv}", "*"),
            ("{^3|v3}", "{1|-1}"),
            ("{^^|*}", "1"),
            ("{*|vv}", "-1"),
        ] {
            assert_eq!(aw(&mut s, g), want, "{g}");
        }
        let one = s.integer(1);
        assert_eq!(s.atomic_weight(one), None);
    }

    /// A random all-small game from a seed (both sides empty or both not).
    fn random_small(s: &mut Store, seed: &mut u64, depth: u32) -> GameId {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        if depth == 0 {
            let base = ["0", "*", "^", "v", "*2", "^*", "{^^|*}", "{*|vv}", "^[2]"];
            return s
                .parse(base[(next() % base.len() as u64) as usize])
                .unwrap();
        }
        let k = next() % 3;
        let (nl, nr) = if k == 0 {
            (0, 0)
        } else {
            (1 + next() % 2, 1 + next() % 2)
        };
        let mut l = Vec::new();
        let mut r = Vec::new();
        for _ in 0..nl {
            let mut sub = next();
            l.push(random_small(s, &mut sub, depth - 1));
        }
        for _ in 0..nr {
            let mut sub = next();
            r.push(random_small(s, &mut sub, depth - 1));
        }
        s.game(&l, &r)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Atomic weights add, and negate with the game.
        #[test]
        fn atomic_weights_add(a in 1u64.., b in 1u64..) {
            let mut s = Store::new();
            let (mut sa, mut sb) = (a, b);
            let g = random_small(&mut s, &mut sa, 2);
            let h = random_small(&mut s, &mut sb, 2);
            proptest::prop_assert!(s.is_all_small(g) && s.is_all_small(h));
            let (wg, wh) = (s.atomic_weight(g).unwrap(), s.atomic_weight(h).unwrap());
            let gh = s.add(g, h);
            let wgh = s.atomic_weight(gh).unwrap();
            proptest::prop_assert_eq!(s.add(wg, wh), wgh, "{} + {}", s.show(g), s.show(h));
            let ng = s.neg(g);
            let wng = s.atomic_weight(ng).unwrap();
            proptest::prop_assert_eq!(s.neg(wg), wng);
        }
    }
}
