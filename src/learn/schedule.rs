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
        let bounds = || format!("between {} and {}", range.start(), range.end());
        match *self {
            Schedule::Constant(v) if !ok(v) => Err(format!("{v} is not {}", bounds())),
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
            Err(D::Error::custom(format!("{v} is not {what}")))
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
    /// Any finite number.
    pub fn finite<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(d, f64::is_finite, "a finite number")
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
