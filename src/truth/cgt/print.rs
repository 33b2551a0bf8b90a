//! Games printed the way CGSuite prints them, so values can be pasted into it.
//!
//! Numbers as `3`, `-1/2`, `77/128`; nimbers `*`, `*2`; multiples of up `^`, `^^`, `^3`,
//! `v`, `vv`, `v3`; the uptimals ↑^[n] = ↑ + ↑² + … + ↑ⁿ as `^[n]` and ↑ⁿ as `^<n>`;
//! sums of a number, one of these and a nimber juxtaposed (`1*`, `3/4v[3]*`, `^*2`). Other
//! games print as `{left | right}`; where one side holds a single game that itself prints in
//! braces, the braces are dropped and the bars counted instead (`{3||2*|1*}` is
//! {3 | {2* | 1*}}), as Conway writes them.

use super::Dyadic;
use super::store::{GameId, Store};

/// The infinitesimal part of a game that CGSuite names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ups {
    /// n·↑ (negative: downs).
    Multiple(i64),
    /// ±↑^[n].
    Sub(i64),
    /// ±↑ⁿ.
    Power(i64),
}

impl Store {
    /// ↑ = {0 | *}.
    pub fn up(&mut self) -> GameId {
        let z = self.zero();
        let star = self.nimber(1);
        self.game(&[z], &[star])
    }

    /// A named infinitesimal, made once.
    fn named_up(&mut self, kind: u8, n: i64, make: fn(&mut Store, i64) -> GameId) -> GameId {
        if let Some(&g) = self.named_cache().get(&(kind, n)) {
            return g;
        }
        let g = make(self, n);
        self.named_cache().insert((kind, n), g);
        g
    }

    /// n·↑ (n < 0: |n|·↓).
    pub fn up_multiple(&mut self, n: i64) -> GameId {
        self.named_up(0, n, Store::make_up_multiple)
    }

    /// ↑^[n] = {↑^[n−1] | *} with ↑^[1] = ↑ (n ≥ 1), negated for n < 0.
    pub fn up_sub(&mut self, n: i64) -> GameId {
        self.named_up(1, n, Store::make_up_sub)
    }

    /// ↑ⁿ = ↑^[n] − ↑^[n−1] (↑¹ = ↑), negated for n < 0.
    pub fn up_power(&mut self, n: i64) -> GameId {
        self.named_up(2, n, Store::make_up_power)
    }

    fn make_up_multiple(&mut self, n: i64) -> GameId {
        if n == 0 {
            return self.zero();
        }
        let up = self.up();
        let unit = if n < 0 { self.neg(up) } else { up };
        let rest = self.up_multiple(n - n.signum());
        self.add(rest, unit)
    }

    fn make_up_sub(&mut self, n: i64) -> GameId {
        let k = n.unsigned_abs() as i64;
        if n < 0 {
            let g = self.up_sub(k);
            return self.neg(g);
        }
        if k <= 1 {
            return self.up();
        }
        let star = self.nimber(1);
        let below = self.up_sub(k - 1);
        self.game(&[below], &[star])
    }

    fn make_up_power(&mut self, n: i64) -> GameId {
        let k = n.unsigned_abs() as i64;
        let g = if k <= 1 {
            self.up()
        } else {
            let a = self.up_sub(k);
            let b = self.up_sub(k - 1);
            self.sub(a, b)
        };
        if n < 0 { self.neg(g) } else { g }
    }

    /// A number, a named infinitesimal and a nimber whose sum is `g`, if there are.
    fn nus(&mut self, g: GameId) -> Option<(super::Dyadic, Option<Ups>, u64)> {
        if let Some(x) = self.as_number(g) {
            return Some((x.clone(), None, 0));
        }
        let (ls, rs) = self.stops(g);
        if ls != rs {
            return None;
        }
        let x = self.number(&ls);
        // A sum x + (ups) + *m has only such sums and x itself as options: a quick test that
        // spares the search below for most games.
        let mut checked = std::collections::HashSet::new();
        if !self.nus_shaped(g, &ls, &mut checked) {
            return None;
        }
        let h = self.sub(g, x);
        if let Some(m) = self.as_nimber(h) {
            return Some((ls, None, m));
        }
        let b = self.birthday(h) as i64;
        // Named ups up to the largest an expression may type; beyond, braces (still exact).
        let b = b.min(super::parse::MAX_UPS as i64);
        type Try = (fn(i64) -> Ups, fn(&mut Store, i64) -> GameId, i64);
        let tries: [Try; 3] = [
            (Ups::Multiple, Store::up_multiple, 1),
            (Ups::Sub, Store::up_sub, 2),
            (Ups::Power, Store::up_power, 2),
        ];
        for (make, build, from) in tries {
            for n in from..=b + 1 {
                for sign in [1, -1] {
                    let u = build(self, sign * n);
                    if !self.may_be_ups_plus_nimber(h, u) {
                        continue;
                    }
                    let rest = self.sub(h, u);
                    if let Some(m) = self.as_nimber(rest) {
                        return Some((ls, Some(make(sign * n)), m));
                    }
                }
            }
        }
        None
    }

    /// Whether `h` may be `u` plus a nimber: `false` only when it is not. `h − u` is wide
    /// where `h` is (the canonical forms of Hackenbush hold such games), so the difference is
    /// worked out only for the few `u` this cheap test leaves: `h = u` (*0), `h = u + *` (*1),
    /// or, for *m with m ≥ 2, `u − ↑ < h < u + ↑` (↑ + *m > 0 for m ≥ 2), which compares `h`
    /// with two small games instead of summing it.
    fn may_be_ups_plus_nimber(&mut self, h: GameId, u: GameId) -> bool {
        if h == u {
            return true;
        }
        let star = self.nimber(1);
        if self.add(u, star) == h {
            return true;
        }
        let up = self.up();
        let above = self.add(u, up);
        if !self.leq(h, above) {
            return false;
        }
        let down = self.neg(up);
        let below = self.add(u, down);
        self.leq(below, h)
    }

    /// Whether every option below `g` is the number `x` or has both stops at `x`.
    fn nus_shaped(
        &mut self,
        g: GameId,
        x: &super::Dyadic,
        checked: &mut std::collections::HashSet<GameId>,
    ) -> bool {
        if let Some(y) = self.as_number(g) {
            return y == x;
        }
        if !checked.insert(g) {
            return true;
        }
        let (ls, rs) = self.stops(g);
        if &ls != x || &rs != x {
            return false;
        }
        let l = self.left(g);
        let r = self.right(g);
        l.iter()
            .chain(r.iter())
            .all(|&o| self.nus_shaped(o, x, checked))
    }

    /// The game in CGSuite's notation.
    pub fn show(&mut self, g: GameId) -> String {
        let (text, level) = self.inner(g);
        if level == 0 {
            text
        } else {
            format!("{{{text}}}")
        }
    }

    /// The text without outer braces and the number of bars of its top separator (0 for a
    /// game that prints without braces).
    fn inner(&mut self, g: GameId) -> (String, usize) {
        if let Some(done) = self.print_cache().get(&g) {
            return done.clone();
        }
        let shown = self.inner_uncached(g);
        self.print_cache().insert(g, shown.clone());
        shown
    }

    fn inner_uncached(&mut self, g: GameId) -> (String, usize) {
        if let Some((x, ups, m)) = self.nus(g) {
            let mut s = String::new();
            if !x.is_zero() || (ups.is_none() && m == 0) {
                s.push_str(&x.to_string());
            }
            if let Some(u) = ups {
                let (n, open, close) = match u {
                    Ups::Multiple(n) => (n, "", ""),
                    Ups::Sub(n) => (n, "[", "]"),
                    Ups::Power(n) => (n, "<", ">"),
                };
                let arrow = if n > 0 { "^" } else { "v" };
                let k = n.unsigned_abs();
                match u {
                    Ups::Multiple(_) if k <= 2 => s.push_str(&arrow.repeat(k as usize)),
                    _ => s.push_str(&format!("{arrow}{open}{k}{close}")),
                }
            }
            match m {
                0 => {}
                1 => s.push('*'),
                m => s.push_str(&format!("*{m}")),
            }
            return (s, 0);
        }
        let left = self.left(g).to_vec();
        let right = self.right(g).to_vec();
        let (ltext, llevel) = self.side(left);
        let (rtext, rlevel) = self.side(right);
        let level = llevel.max(rlevel) + 1;
        self.printed_fits(ltext.len() + level + rtext.len());
        (format!("{ltext}{}{rtext}", "|".repeat(level)), level)
    }

    /// Gives up (see [`super::Limits`]) when a printed form would be longer than the limit.
    fn printed_fits(&self, len: usize) {
        let limit = self.limits().printed;
        if len > limit {
            super::store::give_up(format!(
                "the game's canonical form is too long to print: more than {limit} characters \
                 (the limit is {limit})"
            ));
        }
    }

    fn side(&mut self, mut opts: Vec<GameId>) -> (String, usize) {
        if opts.len() == 1 {
            let (t, k) = self.inner(opts[0]);
            return (t, k);
        }
        // A total order (sorting by the partial order of games would not be one): by the
        // stops' midpoint, then the older game, then the text.
        let mut shown: Vec<(Dyadic, u64, String)> = opts
            .drain(..)
            .map(|o| {
                let (l, r) = self.stops(o);
                (l + r, self.birthday(o), self.show(o))
            })
            .collect();
        self.printed_fits(shown.iter().map(|t| t.2.len() + 1).sum());
        shown.sort();
        let texts: Vec<String> = shown.into_iter().map(|(_, _, t)| t).collect();
        (texts.join(","), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_values_print_as_cgsuite_does() {
        let mut s = Store::new();
        let z = s.zero();
        let star = s.nimber(1);
        let x = s.number(&"3/4".parse::<Dyadic>().unwrap());
        assert_eq!(s.show(x), "3/4");
        assert_eq!(s.show(z), "0");
        assert_eq!(s.show(star), "*");
        let s2 = s.nimber(2);
        assert_eq!(s.show(s2), "*2");
        let up = s.up();
        assert_eq!(s.show(up), "^");
        let upstar = s.add(up, star);
        assert_eq!(s.show(upstar), "^*");
        let dd = s.up_multiple(-2);
        assert_eq!(s.show(dd), "vv");
        let t = s.up_multiple(3);
        let ts = s.add(t, s2);
        assert_eq!(s.show(ts), "^3*2");
        let u2 = s.up_sub(2);
        assert_eq!(s.show(u2), "^[2]");
        let p2 = s.up_power(2);
        assert_eq!(s.show(p2), "^<2>");
        // 3/4 + ↓^[3] + *.
        let d3 = s.up_sub(-3);
        let a = s.add(x, d3);
        let b = s.add(a, star);
        assert_eq!(s.show(b), "3/4v[3]*");
        let one = s.integer(1);
        let onestar = s.add(one, star);
        assert_eq!(s.show(onestar), "1*");
        let h = s.game(&[one], &[z]);
        assert_eq!(s.show(h), "{1|0}");
        // {3 || 2* | 1*}.
        let (two, three) = (s.integer(2), s.integer(3));
        let a = s.add(two, star);
        let inner = s.game(&[a], &[onestar]);
        let g = s.game(&[three], &[inner]);
        assert_eq!(s.show(g), "{3||2*|1*}");
        // A printed form longer than the limit gives up.
        let e = super::super::within_limits(|| {
            let mut t = Store::with_limits(super::super::Limits {
                printed: 5,
                ..super::super::Limits::NONE
            });
            let g = t.parse("{3||2*|1*}").unwrap();
            t.show(g)
        })
        .unwrap_err();
        assert!(e.0.contains("more than 5 characters"), "{e}");
        // ↑² is {0 | ↓*}.
        let down = s.neg(up);
        let ds = s.add(down, star);
        assert_eq!(s.game(&[z], &[ds]), p2);
    }

    /// The cheap test before the search for ups never turns away a sum it should find: every
    /// named infinitesimal plus a nimber passes it and prints by name, and a game of the
    /// family is told apart from its neighbours.
    #[test]
    fn the_quick_test_for_ups_keeps_every_named_sum() {
        let mut s = Store::new();
        type Build = fn(&mut Store, i64) -> GameId;
        let builds: [(Build, i64); 3] = [
            (Store::up_multiple, 1),
            (Store::up_sub, 2),
            (Store::up_power, 2),
        ];
        for (build, from) in builds {
            for n in from..=5 {
                for sign in [1, -1] {
                    let u = build(&mut s, sign * n);
                    for m in 0..=4 {
                        let nim = s.nimber(m);
                        let h = s.add(u, nim);
                        assert!(s.may_be_ups_plus_nimber(h, u), "n {n} m {m}");
                        let text = s.show(h);
                        assert!(!text.contains('{'), "{text}");
                        assert_eq!(s.parse(&text).unwrap(), h, "{text}");
                    }
                }
            }
        }
        // ↑↑↑ is not ↑ plus a nimber, nor is {1|-1}.
        let (u3, up) = (s.up_multiple(3), s.up());
        assert!(!s.may_be_ups_plus_nimber(u3, up));
        let hot = s.parse("{1|-1}").unwrap();
        assert!(!s.may_be_ups_plus_nimber(hot, up));
    }
}
