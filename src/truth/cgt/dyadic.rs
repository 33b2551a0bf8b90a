//! Dyadic rationals `m / 2^k` of any size: the numbers of short games.
//!
//! A blue-red stalk of n edges is worth a number with denominator up to 2^(n-1), so there is no
//! fixed cap: numerators that fit in an `i64` stay there, larger ones move to a `BigInt`.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// An exact dyadic rational `num / 2^exp`, kept normalised (`exp == 0` or `num` odd), so equal
/// values are equal structs and hash alike.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Dyadic {
    num: Num,
    exp: u32,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Num {
    Small(i64),
    Big(BigInt),
}

impl Num {
    fn big(&self) -> BigInt {
        match self {
            Num::Small(n) => BigInt::from(*n),
            Num::Big(b) => b.clone(),
        }
    }
    fn from_big(b: BigInt) -> Num {
        match b.to_i64() {
            Some(n) => Num::Small(n),
            None => Num::Big(b),
        }
    }
    fn signum(&self) -> i32 {
        match self {
            Num::Small(n) => n.signum() as i32,
            Num::Big(b) => {
                if b.is_positive() {
                    1
                } else if b.is_negative() {
                    -1
                } else {
                    0
                }
            }
        }
    }
}

impl Dyadic {
    /// Zero.
    pub fn zero() -> Dyadic {
        Dyadic::int(0)
    }

    /// An integer.
    pub fn int(n: i64) -> Dyadic {
        Dyadic {
            num: Num::Small(n),
            exp: 0,
        }
    }

    /// `num / 2^exp`, normalised.
    pub fn new(num: i64, exp: u32) -> Dyadic {
        Dyadic::from_big(BigInt::from(num), exp)
    }

    /// `num / 2^exp` for a numerator of any size, normalised.
    pub fn from_big(mut num: BigInt, mut exp: u32) -> Dyadic {
        if num.is_zero() {
            return Dyadic::zero();
        }
        if exp > 0 {
            let tz = num.trailing_zeros().unwrap_or(0).min(exp as u64) as u32;
            if tz > 0 {
                num >>= tz;
                exp -= tz;
            }
        }
        Dyadic {
            num: Num::from_big(num),
            exp,
        }
    }

    fn small(num: i128, exp: u32) -> Dyadic {
        if num == 0 {
            return Dyadic::zero();
        }
        let tz = num.trailing_zeros().min(exp);
        let (num, exp) = (num >> tz, exp - tz);
        match i64::try_from(num) {
            Ok(n) => Dyadic {
                num: Num::Small(n),
                exp,
            },
            Err(_) => Dyadic::from_big(BigInt::from(num), exp),
        }
    }

    /// The numerator (odd unless the value is an integer).
    pub fn numerator(&self) -> BigInt {
        self.num.big()
    }

    /// The exponent k of the denominator 2^k.
    pub fn exponent(&self) -> u32 {
        self.exp
    }

    pub fn is_zero(&self) -> bool {
        self.num.signum() == 0
    }

    pub fn is_integer(&self) -> bool {
        self.exp == 0
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        self.num.signum()
    }

    /// The value as an `i64` when it is an integer that fits.
    pub fn to_i64(&self) -> Option<i64> {
        match (&self.num, self.exp) {
            (Num::Small(n), 0) => Some(*n),
            _ => None,
        }
    }

    /// The nearest `f64` (for plots and summaries; never for decisions).
    pub fn to_f64(&self) -> f64 {
        let n = match &self.num {
            Num::Small(n) => *n as f64,
            Num::Big(b) => b.to_f64().unwrap_or(f64::NAN),
        };
        n / 2f64.powi(self.exp as i32)
    }

    /// Both numerators over the common exponent.
    fn aligned(&self, other: &Dyadic) -> (BigInt, BigInt, u32) {
        let e = self.exp.max(other.exp);
        (
            self.num.big() << (e - self.exp),
            other.num.big() << (e - other.exp),
            e,
        )
    }

    /// Both numerators over the common exponent, when they fit in an `i128`.
    fn aligned_small(&self, other: &Dyadic) -> Option<(i128, i128, u32)> {
        let (Num::Small(a), Num::Small(b)) = (&self.num, &other.num) else {
            return None;
        };
        let e = self.exp.max(other.exp);
        let (sa, sb) = (e - self.exp, e - other.exp);
        if sa > 60 || sb > 60 {
            return None;
        }
        Some(((*a as i128) << sa, (*b as i128) << sb, e))
    }

    /// `self / 2`.
    pub fn half(&self) -> Dyadic {
        if self.is_zero() {
            return Dyadic::zero();
        }
        if self.exp == 0 {
            Dyadic::from_big(self.num.big(), 1)
        } else {
            Dyadic {
                num: self.num.clone(),
                exp: self.exp + 1,
            }
        }
    }

    /// `self * 2^k`.
    pub fn shl(&self, k: u32) -> Dyadic {
        if k <= self.exp {
            Dyadic {
                num: self.num.clone(),
                exp: self.exp - k,
            }
        } else {
            Dyadic::from_big(self.num.big() << (k - self.exp), 0)
        }
    }

    /// The greatest integer not above the value.
    pub fn floor(&self) -> Dyadic {
        if self.exp == 0 {
            return self.clone();
        }
        let n = self.num.big();
        let d = BigInt::one() << self.exp;
        Dyadic::from_big(n.div_floor(&d), 0)
    }

    /// The least integer not below the value.
    pub fn ceil(&self) -> Dyadic {
        -(-self).floor()
    }

    /// The simplest number strictly between `lo` and `hi` (either bound may be absent): the
    /// simplicity rule. `None` when the bounds leave no room (`lo >= hi`).
    pub fn simplest_between(lo: Option<&Dyadic>, hi: Option<&Dyadic>) -> Option<Dyadic> {
        let zero = Dyadic::zero();
        match (lo, hi) {
            (None, None) => Some(zero),
            (Some(a), None) => Some(if a.signum() < 0 {
                zero
            } else {
                a.floor() + Dyadic::int(1)
            }),
            (None, Some(b)) => Some(if b.signum() > 0 {
                zero
            } else {
                b.ceil() - Dyadic::int(1)
            }),
            (Some(a), Some(b)) => {
                if a >= b {
                    return None;
                }
                if a.signum() < 0 && b.signum() > 0 {
                    return Some(zero);
                }
                // An integer strictly between, the one nearest zero.
                if a.signum() >= 0 {
                    let c = a.floor() + Dyadic::int(1);
                    if &c < b {
                        return Some(c);
                    }
                } else {
                    let c = b.ceil() - Dyadic::int(1);
                    if &c > a {
                        return Some(c);
                    }
                }
                // Otherwise the one with the smallest denominator.
                let mut k = 1;
                loop {
                    let scaled = a.shl(k);
                    let m = scaled.floor() + Dyadic::int(1);
                    let c = Dyadic::from_big(m.numerator(), k);
                    if &c < b {
                        return Some(c);
                    }
                    k += 1;
                }
            }
        }
    }

    /// The options of the number's canonical form: an integer n > 0 is {n-1 | }, n < 0 is
    /// { | n+1}, zero is { | }, and m/2^k is {(m-1)/2^k | (m+1)/2^k}.
    pub fn canonical_options(&self) -> (Option<Dyadic>, Option<Dyadic>) {
        if self.exp == 0 {
            match self.signum() {
                0 => (None, None),
                1 => (Some(self - &Dyadic::int(1)), None),
                _ => (None, Some(self + &Dyadic::int(1))),
            }
        } else {
            let n = self.num.big();
            (
                Some(Dyadic::from_big(&n - 1, self.exp)),
                Some(Dyadic::from_big(&n + 1, self.exp)),
            )
        }
    }

    /// The birthday of the number: the day its canonical form is born.
    pub fn birthday(&self) -> u64 {
        // floor(|x|) days to reach the integer part, one more for each binary digit after it.
        let abs = if self.signum() < 0 {
            -self
        } else {
            self.clone()
        };
        let whole = abs.floor();
        // Saturating: a number of 2^64 or more is born on day u64::MAX as far as we count.
        let whole_days = whole.numerator().to_u64().unwrap_or(u64::MAX);
        if self.exp == 0 {
            whole_days
        } else {
            whole_days.saturating_add(1 + self.exp as u64)
        }
    }
}

impl Ord for Dyadic {
    fn cmp(&self, other: &Dyadic) -> Ordering {
        if let Some((a, b, _)) = self.aligned_small(other) {
            return a.cmp(&b);
        }
        let (a, b, _) = self.aligned(other);
        a.cmp(&b)
    }
}

impl PartialOrd for Dyadic {
    fn partial_cmp(&self, other: &Dyadic) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::ops::Add<&Dyadic> for &Dyadic {
    type Output = Dyadic;
    fn add(self, other: &Dyadic) -> Dyadic {
        if let Some((a, b, e)) = self.aligned_small(other) {
            return Dyadic::small(a + b, e);
        }
        let (a, b, e) = self.aligned(other);
        Dyadic::from_big(a + b, e)
    }
}

impl std::ops::Add for Dyadic {
    type Output = Dyadic;
    fn add(self, other: Dyadic) -> Dyadic {
        &self + &other
    }
}

impl std::ops::Sub<&Dyadic> for &Dyadic {
    type Output = Dyadic;
    fn sub(self, other: &Dyadic) -> Dyadic {
        self + &(-other)
    }
}

impl std::ops::Sub for Dyadic {
    type Output = Dyadic;
    fn sub(self, other: Dyadic) -> Dyadic {
        &self - &other
    }
}

impl std::ops::Neg for &Dyadic {
    type Output = Dyadic;
    fn neg(self) -> Dyadic {
        match &self.num {
            Num::Small(n) if *n != i64::MIN => Dyadic {
                num: Num::Small(-n),
                exp: self.exp,
            },
            _ => Dyadic::from_big(-self.num.big(), self.exp),
        }
    }
}

impl std::ops::Neg for Dyadic {
    type Output = Dyadic;
    fn neg(self) -> Dyadic {
        -&self
    }
}

impl fmt::Display for Dyadic {
    /// `3`, `-1/2`, `77/128`: CGSuite's way.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.num {
            Num::Small(n) => write!(f, "{n}")?,
            Num::Big(b) => write!(f, "{b}")?,
        }
        if self.exp > 0 {
            if self.exp < 64 {
                write!(f, "/{}", 1u64 << self.exp)?;
            } else {
                write!(f, "/{}", BigInt::one() << self.exp)?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Dyadic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text is not a dyadic rational.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseDyadicError(pub String);

impl fmt::Display for ParseDyadicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseDyadicError {}

impl FromStr for Dyadic {
    type Err = ParseDyadicError;
    /// `5`, `-3/4`, `0.375` (a decimal is accepted when it is dyadic).
    fn from_str(s: &str) -> Result<Dyadic, ParseDyadicError> {
        let s = s.trim();
        let bad = || {
            ParseDyadicError(format!(
                "`{s}` is not a dyadic rational (like 3, -1/2, 3/8)"
            ))
        };
        if let Some((n, d)) = s.split_once('/') {
            let n: BigInt = n.trim().parse().map_err(|_| bad())?;
            let d: BigInt = d.trim().parse().map_err(|_| bad())?;
            if !d.is_positive() || d.magnitude().count_ones() != 1 {
                return Err(ParseDyadicError(format!(
                    "`{s}`: the denominator must be a power of two (short games' numbers are dyadic)"
                )));
            }
            let k = d.trailing_zeros().unwrap_or(0) as u32;
            return Ok(Dyadic::from_big(n, k));
        }
        if let Some((w, frac)) = s.split_once('.') {
            // [sign] digits . digits = (w * 10^f + frac) / 10^f; dyadic iff 5^f divides it.
            let (neg, w) = match w.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, w.strip_prefix('+').unwrap_or(w)),
            };
            let all_digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if !all_digits(w) || !all_digits(frac) {
                return Err(bad());
            }
            let mut n: BigInt = format!("{w}{frac}").parse().map_err(|_| bad())?;
            if neg {
                n = -n;
            }
            let f = frac.len() as u32;
            let five = BigInt::from(5u32).pow(f);
            if !(&n % &five).is_zero() {
                return Err(ParseDyadicError(format!(
                    "`{s}` is not dyadic (its denominator is not a power of two)"
                )));
            }
            return Ok(Dyadic::from_big(n / five, f));
        }
        let n: BigInt = s.parse().map_err(|_| bad())?;
        Ok(Dyadic::from_big(n, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dyadic {
        s.parse().unwrap()
    }

    #[test]
    fn arithmetic_and_printing() {
        assert_eq!((d("1/4") + d("1/8")).to_string(), "3/8");
        assert_eq!((d("1/2") + d("1/2")).to_string(), "1");
        assert_eq!((d("1") - d("1/2") + d("1/4")).to_string(), "3/4");
        assert_eq!(d("-6/8").to_string(), "-3/4");
        assert_eq!(d("0.375"), d("3/8"));
        assert!("0.1".parse::<Dyadic>().is_err());
        assert_eq!(d("-0.5"), d("-1/2"));
        for bad in ["+-1.5", "--1.5", "-+1.5", "1.", ".5"] {
            assert!(bad.parse::<Dyadic>().is_err(), "{bad}");
        }
        assert!("1/3".parse::<Dyadic>().is_err());
        assert!(d("-1/2") < d("1/4"));
        assert_eq!(d("-3/2").floor(), d("-2"));
        assert_eq!(d("-3/2").ceil(), d("-1"));
    }

    #[test]
    fn wide_values_stay_exact() {
        let mut x = Dyadic::int(1);
        for _ in 0..200 {
            x = x.half();
        }
        assert_eq!(x.exponent(), 200);
        let y = &x + &x;
        assert_eq!(y.exponent(), 199);
        assert_eq!(&(&y - &x) - &x, Dyadic::zero());
        assert!(x > Dyadic::zero() && x < Dyadic::new(1, 100));
        assert_eq!(d(&x.to_string()), x);
    }

    #[test]
    fn simplicity_rule() {
        let s = |a: Option<&str>, b: Option<&str>| {
            Dyadic::simplest_between(a.map(d).as_ref(), b.map(d).as_ref()).map(|x| x.to_string())
        };
        assert_eq!(s(Some("0"), Some("2")).unwrap(), "1");
        assert_eq!(s(Some("1/2"), Some("2")).unwrap(), "1");
        assert_eq!(s(Some("3/4"), Some("7/8")).unwrap(), "13/16");
        assert_eq!(s(Some("2"), None).unwrap(), "3");
        assert_eq!(s(Some("1/4"), Some("1")).unwrap(), "1/2");
        assert_eq!(s(Some("-5/2"), Some("-2")).unwrap(), "-9/4");
        assert_eq!(s(Some("-3"), Some("7")).unwrap(), "0");
        assert_eq!(s(None, Some("-3/2")).unwrap(), "-2");
        assert!(s(Some("1"), Some("1")).is_none());
    }

    #[test]
    fn canonical_options_and_birthdays() {
        assert_eq!(d("3/4").canonical_options(), (Some(d("1/2")), Some(d("1"))));
        assert_eq!(d("2").canonical_options(), (Some(d("1")), None));
        assert_eq!(d("-1").canonical_options(), (None, Some(d("0"))));
        assert_eq!(d("0").birthday(), 0);
        assert_eq!(d("3").birthday(), 3);
        assert_eq!(d("1/2").birthday(), 2);
        assert_eq!(d("-3/4").birthday(), 3);
    }
}
