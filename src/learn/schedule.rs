//! Schedules for exploration rates and step sizes, by episode number.
//!
//! In a config a schedule is a number (constant) or a table:
//! ```toml
//! epsilon = 0.1                                                           # constant
//! epsilon = { kind = "linear", start = 1.0, end = 0.05, episodes = 20000 }    # then stays at end
//! alpha = { kind = "exponential", start = 0.5, end = 0.01, half_life = 5000 } # never below end
//! ```

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Schedule {
    Constant(f64),
    Decay(Decay),
}

/// A number, or a table read as a [`Decay`]: a visitor rather than an untagged enum, so that a
/// mistake inside the table ("unknown field `strat`") is reported as it is, with its key.
impl<'de> Deserialize<'de> for Schedule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScheduleVisitor;
        impl<'de> Visitor<'de> for ScheduleVisitor {
            type Value = Schedule;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    r#"a number or a schedule table such as { kind = "linear", start = 1.0, end = 0.1, episodes = 1000 }"#,
                )
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Schedule, E> {
                Ok(Schedule::Constant(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Schedule, E> {
                Ok(Schedule::Constant(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Schedule, E> {
                Ok(Schedule::Constant(v as f64))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Schedule, A::Error> {
                Decay::deserialize(de::value::MapAccessDeserializer::new(map)).map(Schedule::Decay)
            }
        }
        d.deserialize_any(ScheduleVisitor)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Decay {
    /// From `start` to `end` in a straight line over `episodes`, then `end`.
    Linear { start: f64, end: f64, episodes: u64 },
    /// `end + (start - end) * 2^(-episode / half_life)`.
    Exponential {
        start: f64,
        end: f64,
        half_life: f64,
    },
}

impl Schedule {
    /// The value at `episode` (0 = the first episode).
    #[inline]
    pub fn at(&self, episode: u64) -> f64 {
        match *self {
            Schedule::Constant(v) => v,
            Schedule::Decay(Decay::Linear {
                start,
                end,
                episodes,
            }) => {
                if episode >= episodes {
                    end
                } else {
                    start + (end - start) * episode as f64 / episodes as f64
                }
            }
            Schedule::Decay(Decay::Exponential {
                start,
                end,
                half_life,
            }) => end + (start - end) * (-(episode as f64) / half_life).exp2(),
        }
    }

    /// Checks that every value the schedule takes lies in `range` (e.g. a probability), and that
    /// its own parameters make sense; the message says what is wrong.
    pub fn check(&self, range: std::ops::RangeInclusive<f64>) -> Result<(), String> {
        let ok = |v: f64| v.is_finite() && range.contains(&v);
        let bounds = || {
            if *range.start() == f64::MIN_POSITIVE {
                format!("above 0 and at most {}", short(*range.end()))
            } else {
                format!(
                    "between {} and {}",
                    short(*range.start()),
                    short(*range.end())
                )
            }
        };
        match *self {
            Schedule::Constant(v) if !ok(v) => Err(format!("{} is not {}", short(v), bounds())),
            Schedule::Constant(_) => Ok(()),
            Schedule::Decay(Decay::Linear {
                start,
                end,
                episodes,
            }) => {
                if !ok(start) || !ok(end) {
                    Err(format!("start and end must be {}", bounds()))
                } else if episodes == 0 {
                    Err("episodes must be at least 1".into())
                } else {
                    Ok(())
                }
            }
            Schedule::Decay(Decay::Exponential {
                start,
                end,
                half_life,
            }) => {
                if !ok(start) || !ok(end) {
                    Err(format!("start and end must be {}", bounds()))
                } else if !(half_life.is_finite() && half_life > 0.0) {
                    Err("half_life must be a positive number of episodes".into())
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// An exploration rate ε that follows its schedule episode by episode, for the test `u < ε`
/// against a uniform draw `u` made at every move ([`Epsilon::below`]). It answers exactly as
/// the value [`Schedule::at`] gives, bit for bit. An exponential decay is followed by one
/// multiplication per episode instead of an `exp2` and a division (what that gains:
/// docs/performance.md); the running product stays within [`SLACK`] of the
/// value, and only a draw that falls that close to it, about one move in 2^29, has the value
/// worked out.
///
/// Why the product stays that close: it restarts from the value every [`RESYNC`] episodes, and
/// each multiplication adds a relative error of about 2^-52 (the rounding, and the rounding of
/// the factor 2^(-1/half_life)), so after 1,024 of them the decay term is within 2^-42 of the
/// value's (itself within about 2^-52 of the exact power, absolutely, however large the
/// exponent); the schedule's values lie in [0, 1], so ε is within 2^-41 of it, 2^11 times
/// inside the slack. Below [`FLOOR`] the value is worked out at every episode: there whether ε
/// is 0 (no draw at all) must be known exactly.
#[derive(Clone, Debug)]
pub struct Epsilon {
    schedule: Schedule,
    episode: u64,
    /// `at(episode)`, when worked out this episode.
    known: Option<f64>,
    /// Work the value out at every episode (for a learner that reads it at every move).
    exact: bool,
    /// Within [`SLACK`] of `at(episode)` (equal to it when `known` holds it).
    approx: f64,
    /// An exponential decay's 2^(-episode / half_life), as a running product.
    decay: f64,
    /// 2^(-1 / half_life).
    factor: f64,
    /// Episodes since the product last restarted from the value.
    since: u32,
}

/// How far [`Epsilon`]'s running product may be from the value it follows.
pub const SLACK: f64 = 1.0 / (1u64 << 30) as f64;
/// Episodes between restarts of [`Epsilon`]'s running product.
pub const RESYNC: u32 = 1024;
/// Below this, [`Epsilon`] works the value out at every episode.
pub const FLOOR: f64 = 1.0 / (1u64 << 20) as f64;

impl Epsilon {
    /// The schedule at episode 0. Its values must lie in [0, 1] (an exploration rate).
    pub fn new(schedule: Schedule) -> Self {
        Self::with_exact_value(schedule, false)
    }

    /// The schedule at episode 0, its value worked out at every episode when `exact` (for a
    /// learner that reads the value itself at every move, not only `u < ε`).
    pub fn with_exact_value(schedule: Schedule, exact: bool) -> Self {
        let factor = match schedule {
            Schedule::Decay(Decay::Exponential { half_life, .. }) => (-1.0 / half_life).exp2(),
            _ => 1.0,
        };
        let mut epsilon = Epsilon {
            schedule,
            episode: 0,
            known: None,
            exact,
            approx: 0.0,
            decay: 1.0,
            factor,
            since: 0,
        };
        epsilon.restart();
        epsilon
    }

    /// On to the next episode.
    #[inline]
    pub fn next_episode(&mut self) {
        self.episode += 1;
        if let Schedule::Decay(Decay::Exponential { start, end, .. }) = self.schedule
            && self.since < RESYNC
            && !self.exact
        {
            self.decay *= self.factor;
            let approx = end + (start - end) * self.decay;
            if approx >= FLOOR {
                self.since += 1;
                self.approx = approx;
                self.known = None;
                return;
            }
        }
        self.restart();
    }

    /// The value worked out, and the running product started again from it.
    #[cold]
    fn restart(&mut self) {
        let value = self.schedule.at(self.episode);
        self.approx = value;
        self.known = Some(value);
        self.since = 0;
        if let Schedule::Decay(Decay::Exponential { half_life, .. }) = self.schedule {
            self.decay = (-(self.episode as f64) / half_life).exp2();
        }
    }

    /// Moves a fresh schedule on to `episodes` the way training does, one episode at a time,
    /// so that a restored learner ([`super::saved`]) holds the same value to the bit.
    ///
    /// It costs at most a few thousand steps however many episodes (a header may claim 10^18):
    /// where every step restarts from the value, the state at `episodes` is the restart there;
    /// a block of [`RESYNC`] products that cannot meet [`FLOOR`] ends in the restart after it;
    /// only near the floor is it stepped one episode at a time. The margins (twice and half the
    /// floor) are far wider than the product's distance from the value (2^-41).
    pub fn replay(&mut self, episodes: u64) {
        let product =
            matches!(self.schedule, Schedule::Decay(Decay::Exponential { .. })) && !self.exact;
        if !product {
            if self.episode < episodes {
                self.episode = episodes;
                self.restart();
            }
            return;
        }
        while self.episode < episodes {
            let at = |e: u64| self.schedule.at(e);
            let next = self.episode + 1;
            let block_end = self.episode.saturating_add(u64::from(RESYNC) + 1);
            if self.since == 0
                && block_end <= episodes
                && at(next).min(at(block_end - 1)) >= 2.0 * FLOOR
            {
                self.episode = block_end;
                self.restart();
            } else if at(next).max(at(episodes)) < 0.5 * FLOOR {
                self.episode = episodes;
                self.restart();
            } else {
                self.next_episode();
            }
        }
    }

    /// The episode it stands at (0 = the first).
    pub fn episode(&self) -> u64 {
        self.episode
    }

    /// The value at this episode, as [`Schedule::at`] gives it (worked out if not known).
    #[inline]
    pub fn value(&self) -> f64 {
        match self.known {
            Some(v) => v,
            None => self.work_out(),
        }
    }

    #[cold]
    #[inline(never)]
    fn work_out(&self) -> f64 {
        self.schedule.at(self.episode)
    }

    /// Whether the value is above 0.
    #[inline]
    pub fn positive(&self) -> bool {
        match self.known {
            Some(v) => v > 0.0,
            // The product is at least FLOOR, and the value within SLACK of it.
            None => true,
        }
    }

    /// Whether `u < value`, for `u` in [0, 1).
    #[inline]
    pub fn below(&self, u: f64) -> bool {
        match self.known {
            Some(v) => u < v,
            None if u < self.approx - SLACK => true,
            None if u >= self.approx + SLACK => false,
            None => u < self.value(),
        }
    }
}

/// Field readers for learner configs: each reads a number or a schedule and refuses a value out
/// of its range with an error on that value (`#[serde(deserialize_with = "...")]`).
pub mod checked {
    use serde::de::{Deserialize, Deserializer, Error};

    use super::Schedule;

    fn number<'de, D: Deserializer<'de>>(
        d: D,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, D::Error> {
        let v = f64::deserialize(d)?;
        if ok(v) {
            Ok(v)
        } else {
            Err(D::Error::custom(format!(
                "{} is not {what}",
                crate::io::text::short_number(v)
            )))
        }
    }

    /// A probability: 0 to 1.
    pub fn probability<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(d, |v| (0.0..=1.0).contains(&v), "a probability (0 to 1)")
    }
    /// A discount γ: above 0, at most 1.
    pub fn discount<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(
            d,
            |v| v > 0.0 && v <= 1.0,
            "a discount (above 0, at most 1)",
        )
    }
    /// A trace decay λ: 0 to 1.
    pub fn trace_decay<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(d, |v| (0.0..=1.0).contains(&v), "a trace decay (0 to 1)")
    }
    /// A value a table starts from: a number within ±10^6 (returns here lie within ±1, and a
    /// start of 1e308 overflows to infinity as soon as two are added).
    pub fn finite<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(
            d,
            |v| v.is_finite() && v.abs() <= 1e6,
            "a number from -1e6 to 1e6",
        )
    }
    /// Step sizes α: above 0, at most 1, at every episode.
    pub const STEP_SIZE: std::ops::RangeInclusive<f64> = f64::MIN_POSITIVE..=1.0;

    fn schedule<'de, D: Deserializer<'de>>(
        d: D,
        range: std::ops::RangeInclusive<f64>,
    ) -> Result<Schedule, D::Error> {
        let s = Schedule::deserialize(d)?;
        s.check(range).map_err(D::Error::custom)?;
        Ok(s)
    }
    /// An exploration rate ε by episode: a probability at every episode.
    pub fn probability_schedule<'de, D: Deserializer<'de>>(d: D) -> Result<Schedule, D::Error> {
        schedule(d, 0.0..=1.0)
    }
    /// A step size α by episode.
    pub fn step_size_schedule<'de, D: Deserializer<'de>>(d: D) -> Result<Schedule, D::Error> {
        schedule(d, STEP_SIZE)
    }
}

use crate::io::text::short_number as short;

#[cfg(test)]
mod tests {
    use super::*;

    /// `replay` skips whole blocks; stepping one episode at a time is the reference: the two
    /// must hold the same state to the bit, near the floor, across it and far below it.
    #[test]
    fn replay_equals_stepping_every_episode() {
        let exponential = |start, end, half_life| {
            Schedule::Decay(Decay::Exponential {
                start,
                end,
                half_life,
            })
        };
        let schedules = [
            exponential(1.0, 0.0, 300.0),
            exponential(0.5, 0.05, 2000.0),
            exponential(1.0, 1e-7, 150.0),
            exponential(0.3, 0.0, 1.5),
            exponential(0.0, 0.4, 700.0),
            exponential(1.0, 0.0, 1e9),
            Schedule::Constant(0.1),
            Schedule::Decay(Decay::Linear {
                start: 1.0,
                end: 0.0,
                episodes: 5000,
            }),
        ];
        for schedule in schedules {
            for exact in [false, true] {
                let mut stepped = Epsilon::with_exact_value(schedule, exact);
                let mut checked = 0;
                for n in [0u64, 1, 1024, 1025, 1026, 3000, 9000, 20_000, 40_000] {
                    while stepped.episode < n {
                        stepped.next_episode();
                    }
                    let mut jumped = Epsilon::with_exact_value(schedule, exact);
                    jumped.replay(n);
                    assert_eq!(
                        format!("{jumped:?}"),
                        format!("{stepped:?}"),
                        "{schedule:?}, exact {exact}, {n} episodes"
                    );
                    // From part way, too, as a restored learner that trains on would not.
                    let mut half = Epsilon::with_exact_value(schedule, exact);
                    half.replay(n / 3);
                    half.replay(n);
                    assert_eq!(format!("{half:?}"), format!("{stepped:?}"));
                    checked += 1;
                }
                assert_eq!(checked, 9);
            }
        }
        // A header may claim any count: replayed in a few thousand steps.
        let mut far = Epsilon::new(exponential(1.0, 0.0, 300.0));
        far.replay(1_000_000_000_000_000_000);
        assert_eq!(far.episode(), 1_000_000_000_000_000_000);
        assert_eq!(far.value(), 0.0);
    }

    #[test]
    fn bounds_and_values_are_printed_short() {
        for (v, says) in [
            (f64::NAN, "NaN is not above 0 and at most 1"),
            (f64::INFINITY, "inf is not above 0 and at most 1"),
            (-0.5, "-0.5 is not above 0 and at most 1"),
            (1e308, "1e308 is not above 0 and at most 1"),
            (0.0, "0 is not above 0 and at most 1"),
        ] {
            let e = Schedule::Constant(v).check(checked::STEP_SIZE).unwrap_err();
            assert_eq!(e, says);
        }
        let e = Schedule::Constant(2.0).check(0.0..=1.0).unwrap_err();
        assert_eq!(e, "2 is not between 0 and 1");
        assert_eq!(short(2.5e-7), "2.5e-7");
    }

    #[derive(Deserialize, Serialize)]
    struct Holder {
        s: Schedule,
    }

    fn parse(text: &str) -> Result<Schedule, toml::de::Error> {
        toml::from_str::<Holder>(text).map(|h| h.s)
    }

    #[test]
    fn schedules_read_from_toml_and_decay_as_documented() {
        assert_eq!(parse("s = 0.1").unwrap(), Schedule::Constant(0.1));
        let lin =
            parse("s = { kind = \"linear\", start = 1.0, end = 0.0, episodes = 10 }").unwrap();
        assert_eq!(lin.at(0), 1.0);
        assert!((lin.at(5) - 0.5).abs() < 1e-12);
        assert_eq!(lin.at(10), 0.0);
        assert_eq!(lin.at(1000), 0.0);
        let exp = parse("s = { kind = \"exponential\", start = 1.0, end = 0.2, half_life = 10 }")
            .unwrap();
        assert!((exp.at(10) - 0.6).abs() < 1e-12);
        assert!(exp.at(1_000_000) >= 0.2);
        assert!(parse("s = { kind = \"cosine\", start = 1.0 }").is_err());
        assert!(
            parse("s = { kind = \"linear\", start = 1.0, end = 0.0, episodes = 10, x = 1 }")
                .is_err()
        );
        // A mistake inside the table names itself, not "did not match any variant".
        let e = parse("s = { kind = \"linear\", strat = 1.0, end = 0.0, episodes = 10 }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `strat`"), "{e}");
        let e = parse("s = \"high\"").unwrap_err().to_string();
        assert!(e.contains("a number or a schedule table"), "{e}");
        // Round trip through the resolved config.
        let text = toml::to_string(&Holder { s: lin }).unwrap();
        assert_eq!(parse(&text).unwrap(), lin);
    }

    #[test]
    fn out_of_range_schedules_are_refused() {
        assert!(Schedule::Constant(1.5).check(0.0..=1.0).is_err());
        assert!(Schedule::Constant(f64::NAN).check(0.0..=1.0).is_err());
        let bad = Schedule::Decay(Decay::Linear {
            start: 1.0,
            end: 0.0,
            episodes: 0,
        });
        assert!(bad.check(0.0..=1.0).is_err());
        assert!(Schedule::Constant(0.3).check(0.0..=1.0).is_ok());
    }

    /// Every answer of an [`Epsilon`] is the one its schedule's value gives, at every episode,
    /// for draws anywhere and right next to the value; and its value is the schedule's.
    fn epsilon_agrees(schedule: Schedule, episodes: u64, seed: u64) {
        for exact in [false, true] {
            epsilon_agrees_in(Epsilon::with_exact_value(schedule, exact), episodes, seed);
        }
    }

    fn epsilon_agrees_in(mut epsilon: Epsilon, episodes: u64, seed: u64) {
        use rand::RngExt;
        let schedule = epsilon.schedule;
        let mut r = crate::core::random::rng(seed);
        for episode in 0..episodes {
            assert_eq!(epsilon.episode(), episode);
            let v = schedule.at(episode);
            assert_eq!(epsilon.positive(), v > 0.0, "episode {episode}");
            let mut draws: Vec<f64> = (0..4).map(|_| r.random::<f64>()).collect();
            // Next to the value: the nearest draws of 53 bits either side, and the value.
            let k = (v * (1u64 << 53) as f64).floor();
            for d in [-2.0, -1.0, 0.0, 1.0, 2.0] {
                draws.push(((k + d) / (1u64 << 53) as f64).clamp(0.0, 1.0 - f64::EPSILON / 2.0));
            }
            for u in draws {
                assert_eq!(
                    epsilon.below(u),
                    u < v,
                    "episode {episode}, u = {u}, value {v}"
                );
            }
            assert_eq!(epsilon.value().to_bits(), v.to_bits(), "episode {episode}");
            if epsilon.exact {
                assert_eq!(epsilon.known, Some(v));
            }
            epsilon.next_episode();
        }
    }

    #[test]
    fn epsilon_answers_as_its_schedules_value() {
        let exp = |start, end, half_life| {
            Schedule::Decay(Decay::Exponential {
                start,
                end,
                half_life,
            })
        };
        // The learners' default (down to the floor and past it), a decay to a floor of its own,
        // a fast and a very slow one, a rising one, and the plain schedules.
        epsilon_agrees(exp(1.0, 0.0, 1_000.0), 30_000, 1);
        epsilon_agrees(exp(0.5, 0.05, 333.3), 5_000, 2);
        epsilon_agrees(exp(1.0, 0.0, 0.7), 3_000, 3);
        epsilon_agrees(exp(0.3, 0.0, 1e9), 5_000, 4);
        epsilon_agrees(exp(0.0, 1.0, 50.0), 3_000, 5);
        epsilon_agrees(Schedule::Constant(0.1), 100, 6);
        epsilon_agrees(Schedule::Constant(0.0), 100, 7);
        epsilon_agrees(
            Schedule::Decay(Decay::Linear {
                start: 1.0,
                end: 0.0,
                episodes: 500,
            }),
            1_000,
            8,
        );
    }

    #[test]
    fn an_epsilon_decay_stays_well_inside_its_slack() {
        // The running product against the value over many restarts: the bound the exactness
        // rests on, with room to spare (a tenth of the slack would still be far inside it).
        let schedule = Schedule::Decay(Decay::Exponential {
            start: 1.0,
            end: 0.0,
            half_life: 100_000.0,
        });
        let mut epsilon = Epsilon::new(schedule);
        let mut worst = 0.0f64;
        for episode in 0..1_000_000u64 {
            worst = worst.max((epsilon.approx - schedule.at(episode)).abs());
            epsilon.next_episode();
        }
        assert!(worst < SLACK / 1024.0, "{worst:e}");
    }
}
