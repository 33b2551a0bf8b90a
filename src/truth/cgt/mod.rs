//! Combinatorial game theory for short partizan games: the exact truth of Hackenbush.
//!
//! A [`Store`] holds games in canonical form, each distinct game once (hash-consed), and does
//! their arithmetic: sums, negatives, comparison (≤, =, confused), outcome classes, stops,
//! thermographs (mean and temperature), and reading and printing CGSuite's notation. Numbers
//! are exact [`Dyadic`] rationals of any size.
//!
//! ```
//! use solvedgym::truth::cgt::{Outcome, Store};
//! let mut s = Store::new();
//! let g = s.parse("{0|1} + *").unwrap();
//! assert_eq!(s.show(g), "1/2*");
//! assert_eq!(s.outcome(g), Outcome::L);
//! ```
//!
//! Written from the theory (Conway, *On Numbers and Games*; Berlekamp, Conway and Guy,
//! *Winning Ways*; Siegel, *Combinatorial Game Theory*), tested against published values.

pub mod atomic;
pub mod dyadic;
pub mod parse;
pub mod print;
pub mod store;
pub mod thermo;

pub use dyadic::Dyadic;
pub use parse::ParseGameError;
pub use store::{Comparison, GameId, Limits, Outcome, Store, TooBig, within_limits};
pub use thermo::{Thermograph, Wall};

/// What `solvedgym value` prints about a game expression.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Analysis {
    /// The expression as typed.
    pub input: String,
    /// Its canonical form in CGSuite's notation.
    pub value: String,
    /// "L", "R", "N" or "P".
    pub outcome: &'static str,
    pub winner_if_left_starts: &'static str,
    pub winner_if_right_starts: &'static str,
    pub left_stop: String,
    pub right_stop: String,
    pub mean: String,
    pub temperature: String,
    pub birthday: u64,
    /// The atomic weight, for an all-small game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic_weight: Option<String>,
    /// The reduced canonical form (modulo infinitesimals).
    pub reduced: String,
    /// Left's and Right's options of the canonical form.
    pub left_options: Vec<String>,
    pub right_options: Vec<String>,
}

/// Why an expression was not analysed: it does not read, or its game is too big.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalyseError {
    Parse(ParseGameError),
    TooBig(TooBig),
}

impl std::fmt::Display for AnalyseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyseError::Parse(e) => e.fmt(f),
            AnalyseError::TooBig(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AnalyseError {}

/// Reads a game expression and says what it is, within [`Limits::COMMAND`].
pub fn analyse(text: &str) -> Result<Analysis, AnalyseError> {
    analyse_within(text, Limits::COMMAND)
}

/// Reads a game expression and says what it is, giving up past `limits`.
pub fn analyse_within(text: &str, limits: Limits) -> Result<Analysis, AnalyseError> {
    match within_limits(|| analysis(text, limits)) {
        Ok(Ok(a)) => Ok(a),
        Ok(Err(e)) => Err(AnalyseError::Parse(e)),
        Err(e) => Err(AnalyseError::TooBig(e)),
    }
}

fn analysis(text: &str, limits: Limits) -> Result<Analysis, ParseGameError> {
    let mut s = Store::with_limits(limits);
    let g = s.parse(text)?;
    let outcome = s.outcome(g);
    let (ls, rs) = s.stops(g);
    let thermo = s.thermograph(g);
    let winner = |l: bool| if l { "Left" } else { "Right" };
    let (lo, ro) = if s.as_number(g).is_some() {
        (Vec::new(), Vec::new())
    } else {
        let l = s.left(g).to_vec();
        let r = s.right(g).to_vec();
        (
            l.into_iter().map(|o| s.show(o)).collect(),
            r.into_iter().map(|o| s.show(o)).collect(),
        )
    };
    let aw = s.atomic_weight(g).map(|w| s.show(w));
    let red = s.reduced(g);
    let reduced = s.show(red);
    Ok(Analysis {
        atomic_weight: aw,
        reduced,
        input: text.to_string(),
        value: s.show(g),
        outcome: outcome.letter(),
        winner_if_left_starts: winner(outcome.left_wins_moving_first()),
        winner_if_right_starts: winner(outcome.left_wins_moving_second()),
        left_stop: ls.to_string(),
        right_stop: rs.to_string(),
        mean: thermo.mean.to_string(),
        temperature: thermo.temperature.to_string(),
        birthday: s.birthday(g),
        left_options: lo,
        right_options: ro,
    })
}

impl std::fmt::Display for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} = {}", self.input.trim(), self.value)?;
        writeln!(
            f,
            "outcome {}: left starts -> {} wins, right starts -> {} wins",
            self.outcome, self.winner_if_left_starts, self.winner_if_right_starts
        )?;
        if !self.left_options.is_empty() || !self.right_options.is_empty() {
            writeln!(
                f,
                "options {{{} | {}}}",
                self.left_options.join(", "),
                self.right_options.join(", ")
            )?;
        }
        writeln!(
            f,
            "stops {} (left), {} (right); mean {}, temperature {}; born on day {}",
            self.left_stop, self.right_stop, self.mean, self.temperature, self.birthday
        )?;
        write!(f, "reduced form {}", self.reduced)?;
        if let Some(w) = &self.atomic_weight {
            write!(f, "; atomic weight {w}")?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A random game of birthday at most `depth + 2`, from a seed.
    fn random_game(s: &mut Store, seed: &mut u64, depth: u32) -> GameId {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        if depth == 0 {
            let base = ["0", "1", "-1", "1/2", "*", "^", "-2", "*2", "{1|-1}"];
            let t = base[(next() % base.len() as u64) as usize];
            return s.parse(t).unwrap();
        }
        let nl = next() % 3;
        let nr = next() % 3;
        let mut l = Vec::new();
        let mut r = Vec::new();
        for _ in 0..nl {
            let mut sub = next();
            l.push(random_game(s, &mut sub, depth - 1));
        }
        for _ in 0..nr {
            let mut sub = next();
            r.push(random_game(s, &mut sub, depth - 1));
        }
        s.game(&l, &r)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn algebra_holds(a in 1u64.., b in 1u64..) {
            let mut s = Store::new();
            let (mut sa, mut sb) = (a, b);
            let g = random_game(&mut s, &mut sa, 2);
            let h = random_game(&mut s, &mut sb, 2);
            let zero = s.zero();
            // G + (−G) = 0.
            let ng = s.neg(g);
            prop_assert_eq!(s.add(g, ng), zero);
            // Sums commute and the order agrees with the sign of the difference.
            prop_assert_eq!(s.add(g, h), s.add(h, g));
            let d = s.sub(g, h);
            prop_assert_eq!(s.leq(g, h), s.leq(d, zero));
            prop_assert_eq!(s.leq(h, g), s.leq(zero, d));
            // Printing and reading give the same game.
            let text = s.show(g);
            prop_assert_eq!(s.parse(&text).unwrap(), g, "{}", text);
            // The mean of a sum is the sum of the means.
            let gh = s.add(g, h);
            let (mg, mh, ms) = (s.mean(g), s.mean(h), s.mean(gh));
            prop_assert_eq!(ms, &mg + &mh);
            // Left's stop is never below Right's.
            let (ls, rs) = s.stops(g);
            prop_assert!(ls >= rs);
            // The reduced form is infinitesimally close to G, and reduced already.
            let red = s.reduced(g);
            let diff = s.sub(red, g);
            let (dl, dr) = s.stops(diff);
            prop_assert!(dl.is_zero() && dr.is_zero(), "{}", s.show(g));
            prop_assert_eq!(s.reduced(red), red);
            // Atomic weights add over sums of all-small games.
            if let (Some(wg), Some(wh)) = (s.atomic_weight(g), s.atomic_weight(h)) {
                let gh = s.add(g, h);
                let wgh = s.atomic_weight(gh).unwrap();
                prop_assert_eq!(s.add(wg, wh), wgh, "{} + {}", s.show(g), s.show(h));
            }
        }
    }
}
