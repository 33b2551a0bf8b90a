//! Thermographs: the mean and temperature of a short game (Winning Ways ch. 6; Siegel,
//! *Combinatorial Game Theory*, II.5).
//!
//! For a game G that is not a number, at tax t ≥ 0 the left wall is the greatest right wall
//! of Left's options taxed by t, LW(t) = max (RW_{G^L}(t) − t), and the right wall the least
//! left wall of Right's options subsidised by t, RW(t) = min (LW_{G^R}(t) + t). The walls
//! meet at the temperature T; above it the thermograph is a vertical mast at the mean. A
//! number x is a mast from t = 0; its temperature is −1 for an integer and −1/2^k for
//! m/2^k, as CGSuite reports. Walls are piecewise linear with slopes −1, 0 and 1 and dyadic
//! breakpoints, so everything stays exact.

use super::Dyadic;
use super::store::{GameId, Store};

/// A piecewise-linear function of the tax t ≥ 0: segments `(start, value at start, slope)`,
/// the last one running on for ever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wall {
    pub segments: Vec<(Dyadic, Dyadic, i32)>,
}

impl Wall {
    fn constant(x: &Dyadic) -> Wall {
        Wall {
            segments: vec![(Dyadic::zero(), x.clone(), 0)],
        }
    }

    /// The value at `t`.
    pub fn at(&self, t: &Dyadic) -> Dyadic {
        let i = self.segment_at(t);
        let (s, v, k) = &self.segments[i];
        v + &times(&(t - s), *k)
    }

    fn segment_at(&self, t: &Dyadic) -> usize {
        self.segments
            .iter()
            .rposition(|(s, _, _)| s <= t)
            .unwrap_or(0)
    }

    /// f(t) + k·t.
    fn tilt(&self, k: i32) -> Wall {
        Wall {
            segments: self
                .segments
                .iter()
                .map(|(s, v, sl)| (s.clone(), v + &times(s, k), sl + k))
                .collect(),
        }
    }

    fn merged(mut segs: Vec<(Dyadic, Dyadic, i32)>) -> Wall {
        let mut out: Vec<(Dyadic, Dyadic, i32)> = Vec::with_capacity(segs.len());
        for seg in segs.drain(..) {
            if let Some(last) = out.last()
                && last.2 == seg.2
            {
                continue;
            }
            out.push(seg);
        }
        Wall { segments: out }
    }

    /// Where either wall's segments start, in order.
    fn breakpoints(&self, other: &Wall) -> Vec<Dyadic> {
        let mut starts: Vec<Dyadic> = self
            .segments
            .iter()
            .chain(other.segments.iter())
            .map(|s| s.0.clone())
            .collect();
        starts.sort();
        starts.dedup();
        starts
    }

    /// The pointwise max (or min) of two walls.
    fn combine(&self, other: &Wall, max: bool) -> Wall {
        let starts = self.breakpoints(other);
        let mut segs = Vec::new();
        for (i, t0) in starts.iter().enumerate() {
            let t1 = starts.get(i + 1);
            let (a, b) = (self.at(t0), other.at(t0));
            let sa = self.segments[self.segment_at(t0)].2;
            let sb = other.segments[other.segment_at(t0)].2;
            let better = |va: &Dyadic, vb: &Dyadic, ka: i32, kb: i32| -> bool {
                // Whether `self`'s line is the one to take just after the point.
                if va != vb {
                    (va > vb) == max
                } else {
                    (ka > kb) == max || ka == kb
                }
            };
            let first_a = better(&a, &b, sa, sb);
            let (v, k) = if first_a {
                (a.clone(), sa)
            } else {
                (b.clone(), sb)
            };
            segs.push((t0.clone(), v, k));
            if sa != sb && a != b {
                // Crossing at t0 + (b − a)/(sa − sb), if inside the interval.
                let dt = divide(&(&b - &a), sa - sb);
                if dt.signum() > 0 {
                    let tc = t0 + &dt;
                    if t1.is_none_or(|t1| &tc < t1) {
                        let v = &a + &times(&dt, sa);
                        let k = if first_a { sb } else { sa };
                        segs.push((tc, v, k));
                    }
                }
            }
        }
        Wall::merged(segs)
    }

    /// The first t ≥ 0 where `self(t) ≤ other(t)`, if any.
    fn first_at_most(&self, other: &Wall) -> Option<Dyadic> {
        let starts = self.breakpoints(other);
        for (i, t0) in starts.iter().enumerate() {
            let gap = &self.at(t0) - &other.at(t0);
            if gap.signum() <= 0 {
                return Some(t0.clone());
            }
            let k = self.segments[self.segment_at(t0)].2 - other.segments[other.segment_at(t0)].2;
            if k < 0 {
                let tc = t0 + &divide(&gap, -k);
                if starts.get(i + 1).is_none_or(|t1| &tc <= t1) {
                    return Some(tc);
                }
            }
        }
        None
    }

    /// The wall up to `t`, then a mast at `m`.
    fn capped(&self, t: &Dyadic, m: &Dyadic) -> Wall {
        let mut segs: Vec<(Dyadic, Dyadic, i32)> =
            self.segments.iter().filter(|s| &s.0 < t).cloned().collect();
        segs.push((t.clone(), m.clone(), 0));
        Wall::merged(segs)
    }
}

fn times(x: &Dyadic, k: i32) -> Dyadic {
    match k {
        0 => Dyadic::zero(),
        1 => x.clone(),
        -1 => -x,
        k => {
            let mut acc = Dyadic::zero();
            for _ in 0..k.unsigned_abs() {
                acc = &acc + x;
            }
            if k < 0 { -acc } else { acc }
        }
    }
}

/// x / k for k = ±1, ±2, ±4, … (the only divisors walls of slopes −1..1 produce).
fn divide(x: &Dyadic, k: i32) -> Dyadic {
    let m = k.unsigned_abs();
    debug_assert!(m.is_power_of_two(), "walls only cross at dyadic points");
    let mut y = x.clone();
    for _ in 0..m.trailing_zeros() {
        y = y.half();
    }
    if k < 0 { -y } else { y }
}

/// A thermograph: the two walls (left wall first), the temperature and the mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thermograph {
    pub left: Wall,
    pub right: Wall,
    pub temperature: Dyadic,
    pub mean: Dyadic,
}

impl Store {
    /// The thermograph of `g`.
    pub fn thermograph(&mut self, g: GameId) -> Thermograph {
        if let Some(t) = self.thermo_cache().get(&g) {
            return t.clone();
        }
        let t = if let Some(x) = self.as_number(g).cloned() {
            let temperature = if x.is_integer() {
                Dyadic::int(-1)
            } else {
                -Dyadic::new(1, x.exponent())
            };
            Thermograph {
                left: Wall::constant(&x),
                right: Wall::constant(&x),
                temperature,
                mean: x,
            }
        } else {
            let l = self.left(g);
            let r = self.right(g);
            let mut lw: Option<Wall> = None;
            for &o in l.iter() {
                let w = self.thermograph(o).right.tilt(-1);
                lw = Some(match lw {
                    None => w,
                    Some(a) => a.combine(&w, true),
                });
            }
            let mut rw: Option<Wall> = None;
            for &o in r.iter() {
                let w = self.thermograph(o).left.tilt(1);
                rw = Some(match rw {
                    None => w,
                    Some(a) => a.combine(&w, false),
                });
            }
            let lw = lw.expect("a game that is not a number has left options");
            let rw = rw.expect("a game that is not a number has right options");
            let t = lw
                .first_at_most(&rw)
                .expect("the walls of a short game meet");
            let m = lw.at(&t);
            Thermograph {
                left: lw.capped(&t, &m),
                right: rw.capped(&t, &m),
                temperature: t,
                mean: m,
            }
        };
        self.thermo_cache().insert(g, t.clone());
        t
    }

    /// The temperature: how much a move is worth (−1 for integers, −1/2^k for numbers m/2^k,
    /// 0 for infinitesimals and tepid games).
    pub fn temperature(&mut self, g: GameId) -> Dyadic {
        self.thermograph(g).temperature
    }

    /// The mean value (the mast of the thermograph).
    pub fn mean(&mut self, g: GameId) -> Dyadic {
        self.thermograph(g).mean
    }

    /// `g` cooled by `t` ≥ 0: {G^L cooled − t | G^R cooled + t}, except that once the game is
    /// infinitesimally close to a number (above its temperature) it is that number, the mean.
    pub fn cool(&mut self, g: GameId, t: &Dyadic) -> GameId {
        // Cooling is taken for t ≥ 0 only; t ≤ 0 leaves the game as it is.
        if self.as_number(g).is_some() || t.signum() <= 0 {
            return g;
        }
        let th = self.thermograph(g);
        if t > &th.temperature {
            return self.number(&th.mean);
        }
        let shift = self.number(t);
        let l = self.left(g).to_vec();
        let r = self.right(g).to_vec();
        let mut nl = Vec::with_capacity(l.len());
        for o in l {
            let c = self.cool(o, t);
            nl.push(self.sub(c, shift));
        }
        let mut nr = Vec::with_capacity(r.len());
        for o in r {
            let c = self.cool(o, t);
            nr.push(self.add(c, shift));
        }
        self.game(&nl, &nr)
    }

    /// `a ≤ b` modulo infinitesimals: b − a is at least some infinitesimal, which holds
    /// exactly when the right stop of b − a is not below zero.
    pub fn leq_inf(&mut self, a: GameId, b: GameId) -> bool {
        let d = self.sub(b, a);
        self.stops(d).1.signum() >= 0
    }

    /// The reduced canonical form: the simplest game infinitesimally close to `g` (options
    /// reduced, options dominated or reversible modulo infinitesimals removed or bypassed, and
    /// a game whose stops meet at x is x). {{2|0}, 1* | *} reduces to {1|0}.
    pub fn reduced(&mut self, g: GameId) -> GameId {
        if self.as_number(g).is_some() {
            return g;
        }
        let (ls, rs) = self.stops(g);
        if ls == rs {
            return self.number(&ls);
        }
        let l: Vec<GameId> = self.left(g).to_vec();
        let r: Vec<GameId> = self.right(g).to_vec();
        let mut l: Vec<GameId> = l.into_iter().map(|o| self.reduced(o)).collect();
        let mut r: Vec<GameId> = r.into_iter().map(|o| self.reduced(o)).collect();
        loop {
            l.sort_unstable();
            l.dedup();
            r.sort_unstable();
            r.dedup();
            l = self.drop_dominated(l, true, Store::leq_inf);
            r = self.drop_dominated(r, false, Store::leq_inf);
            let me = self.game(&l, &r);
            let mut changed = false;
            let mut nl = Vec::with_capacity(l.len());
            for &a in &l {
                let ar = self.right(a).to_vec();
                match ar.into_iter().find(|&x| self.leq_inf(x, me)) {
                    Some(x) => {
                        changed = true;
                        let xl = self.left(x).to_vec();
                        nl.extend(xl.into_iter().map(|o| self.reduced(o)));
                    }
                    None => nl.push(a),
                }
            }
            let mut nr = Vec::with_capacity(r.len());
            for &a in &r {
                let al = self.left(a).to_vec();
                match al.into_iter().find(|&x| self.leq_inf(me, x)) {
                    Some(x) => {
                        changed = true;
                        let xr = self.right(x).to_vec();
                        nr.extend(xr.into_iter().map(|o| self.reduced(o)));
                    }
                    None => nr.push(a),
                }
            }
            l = nl;
            r = nr;
            if !changed {
                break;
            }
        }
        let out = self.game(&l, &r);
        let (ls, rs) = self.stops(out);
        if ls == rs { self.number(&ls) } else { out }
    }

    /// `g` heated by `t`: a number stays, any other game is {G^L heated + t | G^R heated − t}
    /// (the inverse of cooling on the games cooling reaches).
    pub fn heat(&mut self, g: GameId, t: &Dyadic) -> GameId {
        if self.as_number(g).is_some() {
            return g;
        }
        let shift = self.number(t);
        let l = self.left(g).to_vec();
        let r = self.right(g).to_vec();
        let mut nl = Vec::with_capacity(l.len());
        for o in l {
            let h = self.heat(o, t);
            nl.push(self.add(h, shift));
        }
        let mut nr = Vec::with_capacity(r.len());
        for o in r {
            let h = self.heat(o, t);
            nr.push(self.sub(h, shift));
        }
        self.game(&nl, &nr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tm(s: &mut Store, text: &str) -> (String, String) {
        let g = s.parse(text).unwrap();
        (s.temperature(g).to_string(), s.mean(g).to_string())
    }

    #[test]
    fn published_temperatures_and_means() {
        let mut s = Store::new();
        assert_eq!(tm(&mut s, "{1|-1}"), ("1".into(), "0".into()));
        assert_eq!(tm(&mut s, "{3||2*|1*}"), ("3/4".into(), "9/4".into()));
        assert_eq!(
            tm(&mut s, "{3/2* | 1/2 || {0|-3}, {-1*, {-1/2 | -1*} | -5/2}}"),
            ("21/16".into(), "-5/16".into())
        );
        assert_eq!(tm(&mut s, "{2|-1}"), ("3/2".into(), "1/2".into()));
        for (g, t) in [
            ("0", "-1"),
            ("5", "-1"),
            ("-1/2", "-1/2"),
            ("25/16", "-1/16"),
        ] {
            assert_eq!(tm(&mut s, g).0, t, "{g}");
        }
        for g in ["*8", "^", "v*", "9/8*", "6^*", "^*6", "^[4]"] {
            assert_eq!(tm(&mut s, g).0, "0", "{g}");
        }
        assert_eq!(tm(&mut s, "9/8*").1, "9/8");
        let g = s
            .parse("{3/2* | 1/2 || {0|-3}, {-1*, {-1/2 | -1*} | -5/2}}")
            .unwrap();
        assert_eq!(s.stops(g), ("1/2".parse().unwrap(), "-1".parse().unwrap()));
    }

    /// Cooling {2 | -1} (cgt-tools' vectors) and heating back.
    #[test]
    fn cooling_and_heating() {
        let mut s = Store::new();
        let g = s.parse("{2|-1}").unwrap();
        let mut cooled = |t: &str| {
            let c = s.cool(g, &t.parse().unwrap());
            s.show(c)
        };
        assert_eq!(cooled("0"), "{2|-1}");
        assert_eq!(cooled("1/2"), "{3/2|-1/2}");
        assert_eq!(cooled("1"), "{1|0}");
        assert_eq!(cooled("3/2"), "1/2*");
        assert_eq!(cooled("2"), "1/2");
        assert_eq!(cooled("3"), "1/2");
        assert_eq!(cooled("42"), "1/2");
        // The particle: G cooled by 3/2 minus G cooled by 5/2 is *.
        let a = s.cool(g, &"3/2".parse().unwrap());
        let b = s.cool(g, &"5/2".parse().unwrap());
        let star = s.nimber(1);
        assert_eq!(s.sub(a, b), star);
        // Heating * by 3/2 gives {3/2 | -3/2}; 1/2 + that is {2 | -1} again.
        let h = s.heat(star, &"3/2".parse().unwrap());
        assert_eq!(s.show(h), "{3/2|-3/2}");
        let half = s.number(&"1/2".parse().unwrap());
        assert_eq!(s.add(half, h), g);
    }

    /// Reduced canonical forms (cgt-tools' vector and simple cases).
    #[test]
    fn reduced_forms() {
        let mut s = Store::new();
        let mut red = |t: &str| {
            let g = s.parse(t).unwrap();
            let r = s.reduced(g);
            s.show(r)
        };
        assert_eq!(red("{{2|0}, 1* | *}"), "{1|0}");
        assert_eq!(red("^"), "0");
        assert_eq!(red("1*"), "1");
        assert_eq!(red("{1|0}"), "{1|0}");
        assert_eq!(red("{3||2*|1*}"), "{3||2|1}");
        assert_eq!(red("{1|-1} + ^*"), "{1|-1}");
    }
}
