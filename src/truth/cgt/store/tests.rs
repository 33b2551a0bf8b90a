use super::*;

fn d(s: &str) -> Dyadic {
    s.parse().unwrap()
}

#[test]
fn numbers_by_the_simplicity_rule() {
    let mut s = Store::new();
    let (z, one, two) = (s.zero(), s.integer(1), s.integer(2));
    let half = s.number(&d("1/2"));
    assert_eq!(s.game(&[z], &[one]), half);
    assert_eq!(s.game(&[z], &[two]), one);
    assert_eq!(s.game(&[half], &[two]), one);
    let (a, b) = (s.number(&d("3/4")), s.number(&d("7/8")));
    let m = s.number(&d("13/16"));
    assert_eq!(s.game(&[a], &[b]), m);
    let three = s.integer(3);
    assert_eq!(s.game(&[one, two], &[]), three);
    let q = s.number(&d("1/4"));
    assert_eq!(s.game(&[q], &[one]), half);
}

#[test]
fn stars_and_nimbers() {
    let mut s = Store::new();
    let z = s.zero();
    let star = s.game(&[z], &[z]);
    assert_eq!(s.as_nimber(star), Some(1));
    let s2 = s.nimber(2);
    let s3 = s.nimber(3);
    assert_eq!(s.game(&[z, star, s2], &[z, star, s2]), s3);
    assert_eq!(s.add(star, star), z);
    let s1 = s.nimber(1);
    let sum = s.sum(&[s1, s3, s2]);
    assert_eq!(sum, z);
    let s4 = s.nimber(4);
    assert_eq!(s.neg(s4), s4);
    assert_eq!(s.compare(z, star), Comparison::Confused);
    assert_eq!(s.compare(s2, star), Comparison::Confused);
    let m1 = s.integer(-1);
    assert_eq!(s.compare(m1, star), Comparison::Less);
    let one = s.integer(1);
    assert_eq!(s.compare(one, star), Comparison::Greater);
}

#[test]
fn sums_of_hot_games_and_infinitesimals() {
    let mut s = Store::new();
    let (z, one) = (s.zero(), s.integer(1));
    let a = s.game(&[one], &[z]);
    let b = s.game(&[z], &[one]);
    // {0|1} is 1/2 by the simplicity rule.
    assert_eq!(b, s.number(&d("1/2")));
    let sum = s.add(a, b);
    let three_halves = s.number(&d("3/2"));
    let half = s.number(&d("1/2"));
    let want = s.game(&[three_halves], &[half]);
    assert_eq!(sum, want);
    // 3/4 + * = {3/4 | 3/4}.
    let star = s.nimber(1);
    let tq = s.number(&d("3/4"));
    let x = s.add(tq, star);
    assert_eq!(x, s.game(&[tq], &[tq]));
    // ↑ = {0|*}, ↑ + ↑ + ↓ = ↑; ↑ > 0, ↑* ‖ 0.
    let up = s.game(&[z], &[star]);
    assert_eq!(s.outcome(up), Outcome::L);
    let upstar = s.add(up, star);
    assert_eq!(s.outcome(upstar), Outcome::N);
    assert_eq!(s.game(&[z, star], &[z]), upstar);
    let down = s.neg(up);
    let uu = s.add(up, up);
    assert_eq!(s.add(uu, down), up);
    // −{↑ | *} = {* | ↓}.
    let g = s.game(&[up], &[star]);
    let ng = s.neg(g);
    assert_eq!(ng, s.game(&[star], &[down]));
}

#[test]
fn stops_and_outcomes() {
    let mut s = Store::new();
    let (z, two, three) = (s.zero(), s.integer(2), s.integer(3));
    let h = s.game(&[three], &[two]);
    let g = s.game(&[h], &[z]);
    assert_eq!(s.stops(g), (d("2"), d("0")));
    let five = s.integer(5);
    assert_eq!(s.outcome(five), Outcome::L);
    assert_eq!(s.outcome(z), Outcome::P);
    let mh = s.number(&d("-1/2"));
    assert_eq!(s.outcome(mh), Outcome::R);
    let s8 = s.nimber(8);
    assert_eq!(s.outcome(s8), Outcome::N);
}

#[test]
fn limits_give_up_with_the_numbers() {
    // Unlimited by default.
    assert_eq!(Store::new().limits(), Limits::NONE);
    let small = Limits {
        work: 1_000,
        printed: 1_000,
        nimber: 16,
    };
    // Work: a sum far beyond 1,000 steps.
    let e = within_limits(|| {
        let mut s = Store::with_limits(small);
        let g = s.parse("^[20] + ^[19] + *7").unwrap();
        s.show(g)
    })
    .unwrap_err();
    assert!(e.0.contains("the limit is 1000"), "{e}");
    // Nimbers beyond the limit are not built.
    let e = within_limits(|| Store::with_limits(small).nimber(17)).unwrap_err();
    assert!(e.0.contains("nimbers up to *16"), "{e}");
    // Within the limits: the answer, and the work counted.
    let (shown, work) = within_limits(|| {
        let mut s = Store::with_limits(small);
        let g = s.parse("{0|1} + *").unwrap();
        (s.show(g), s.work())
    })
    .unwrap();
    assert_eq!(shown, "1/2*");
    assert!(work > 0 && work <= 1_000);
    // A panic that is not a store's giving up passes through.
    let other = std::panic::catch_unwind(|| within_limits(|| panic!("a bug")));
    assert!(other.is_err());
}

/// A game plus a number is interned as translated (`Store::translate`): the form is the
/// one the full canonicalisation gives, for every subgame of a range of games, with numbers
/// among their options too.
#[test]
fn translations_are_canonical() {
    let mut s = Store::new();
    let games = [
        "{1|-1}",
        "^",
        "^*",
        "{3||2*|1*}",
        "*3",
        "{1/2|-1/2}",
        "{2|{1|0}}",
        "^[3]",
        "v*2",
        "{0|{0|-2}}",
        "{-1,-1*,-1*2|-1,-1*}",
        "{1/2,*|3/4}",
        "{0,^*|v}",
        "{5/4|1/8*,{1|0}}",
        "{-1,{-1,-1*,-1*2|-1,-1*}|-1*,{-1*|-3/2}}",
        "^<3>*",
        "{1*|-1/4,*2}",
    ];
    let xs = ["1/2", "-3/4", "5", "-1", "1/8", "7/4", "-33/16"];
    for text in games {
        let g = s.parse(text).unwrap();
        let mut todo = vec![g];
        let mut seen = std::collections::HashSet::new();
        while let Some(h) = todo.pop() {
            if !seen.insert(h) || s.as_number(h).is_some() {
                continue;
            }
            todo.extend(s.left(h).iter().chain(s.right(h).iter()).copied());
            for x in xs {
                let x = s.number(&d(x));
                let t = s.add(h, x);
                let l: Vec<GameId> = s.left(h).iter().map(|&o| s.add(o, x)).collect();
                let r: Vec<GameId> = s.right(h).iter().map(|&o| s.add(o, x)).collect();
                let full = s.canonical_afresh(&l, &r);
                assert_eq!(t, full, "{text}: a subgame plus {}", s.show(x));
            }
        }
    }
}

impl Store {
    /// The canonical form of {l | r} worked out in full (no memo of lists).
    fn canonical_afresh(&mut self, l: &[GameId], r: &[GameId]) -> GameId {
        self.game_memo.clear();
        self.game(l, r)
    }
}

#[test]
fn big_integers_cost_one_node() {
    let mut s = Store::new();
    let n = s.integer(1_000_000);
    let before = s.len();
    let m = s.integer(999_999);
    assert!(s.leq(m, n) && !s.leq(n, m));
    assert_eq!(s.len(), before + 1);
}
