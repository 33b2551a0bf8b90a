//! The static evaluation in the reference AI's shape: per hare E = ks·S + kc·C + kp·P (salads, carrots,
//! progress), and a seat's score is its E less the best rival's (the reference AI's "lead"). P comes
//! from the cell reached; C from the carrots in hand and those due at the hare's next turn,
//! through one of three curves chosen by progress and by whether the hare can finish; S from a
//! table of salads held against salad cells ahead. Terminal positions are scored exactly by the
//! search, never here.
//!
//! The coefficients and curves are an [`Evaluation`], read from TOML: the committed
//! `configs/hase-und-igel-ai.toml` (compiled in, the default) or a file a search player names.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::board::{Cell, cost};
use super::{EAT, Hare, HaseIgelState, HaseUndIgel};
use crate::core::game::Player;

/// The evaluation the AI loads by default: `configs/hase-und-igel-ai.toml`.
pub const DEFAULT_EVALUATION: &str = include_str!("../../../configs/hase-und-igel-ai.toml");

/// Coefficients and curves of the evaluation (the TOML file's tables).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evaluation {
    /// The weights for three hares or more (and for two where `two_hares` is not given).
    pub weights: Weights,
    /// The weights for two hares (tuned apart: a set tuned head to head need not carry over to
    /// three hares, and this one does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_hares: Option<Weights>,
    pub progress: Progress,
    pub carrots: Carrots,
    pub salads: Salads,
}

/// E = ks·S + kc·C + kp·P.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub ks: f64,
    pub kc: f64,
    pub kp: f64,
}

/// P = per_cell × the cell reached.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    pub per_cell: f64,
}

/// The three carrot curves (see the config file for the formulas).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Carrots {
    pub early: f64,
    pub early_power: f64,
    pub mid: f64,
    pub mid_power: f64,
    pub short: f64,
    pub surplus: f64,
    pub surplus_power: f64,
    /// Cells per hop when estimating the carrots the rest of the race needs.
    pub hop: u32,
}

/// S by salads held (rows 0..=3, the last for 3 or more) and salad cells ahead (columns 0..=5,
/// the last for 5 or more).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Salads {
    pub table: [[f64; 6]; 4],
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation::parse(DEFAULT_EVALUATION).expect("the committed evaluation config parses")
    }
}

impl Evaluation {
    /// Reads an evaluation from TOML; the error names the key and line.
    pub fn parse(text: &str) -> Result<Evaluation, String> {
        let e: Evaluation = toml::from_str(text).map_err(|e| e.to_string())?;
        if e.carrots.hop == 0 {
            return Err("carrots.hop: at least 1 cell per hop".into());
        }
        Ok(e)
    }

    /// This evaluation with the number at `key` (dotted: `carrots.surplus`) set to `value`.
    fn with_number(&self, key: &str, value: f64) -> Result<Evaluation, String> {
        let mut table = toml::Value::try_from(self).expect("an evaluation is a table");
        let mut at = &mut table;
        for part in key.split('.') {
            at = at
                .get_mut(part)
                .ok_or_else(|| format!("`{key}`: the evaluation file has no such key"))?;
        }
        *at = match at {
            toml::Value::Float(_) => toml::Value::Float(value),
            toml::Value::Integer(_) if value.fract() == 0.0 && value >= 1.0 => {
                toml::Value::Integer(value as i64)
            }
            _ => return Err(format!("`{key}`: not a number of the evaluation file")),
        };
        Evaluation::parse(&toml::to_string(&table).expect("a table serialises"))
    }

    /// Reads an evaluation file.
    pub fn load(path: &str) -> Result<Evaluation, String> {
        let text = crate::io::files::read_text(Path::new(path), crate::io::files::CONFIG_LIMIT)
            .map_err(|e| format!("reading {path}: {e:#}"))?;
        Evaluation::parse(&text).map_err(|e| format!("{path}: {e}"))
    }

    /// The file's text (TOML), as [`Evaluation::parse`] reads it.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("an evaluation serialises")
    }

    /// This evaluation changed by search-player settings: `eval=FILE` (start from that file),
    /// `ks=`, `kc=`, `kp=` (weights), or any number of the file by its dotted key
    /// (`carrots.surplus=0.8`, `progress.per_cell=2.5`).
    pub fn with_settings(&self, settings: &[(String, String)]) -> Result<Evaluation, String> {
        let mut e = self.clone();
        if let Some((_, path)) = settings.iter().find(|(k, _)| k == "eval") {
            e = Evaluation::load(path)?;
        }
        for (key, value) in settings {
            let weight = || {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite())
                    .ok_or_else(|| format!("`{key}={value}`: a weight is a number"))
            };
            if matches!(key.as_str(), "ks" | "kc" | "kp") {
                weight()?;
            }
            // A weight given by a player holds for every number of hares.
            let both = |e: &mut Evaluation, set: &dyn Fn(&mut Weights)| {
                set(&mut e.weights);
                if let Some(w) = e.two_hares.as_mut() {
                    set(w);
                }
            };
            match key.as_str() {
                "eval" => {}
                "ks" => both(&mut e, &|w: &mut Weights| w.ks = weight().unwrap_or(w.ks)),
                "kc" => both(&mut e, &|w: &mut Weights| w.kc = weight().unwrap_or(w.kc)),
                "kp" => both(&mut e, &|w: &mut Weights| w.kp = weight().unwrap_or(w.kp)),
                dotted if dotted.contains('.') => e = e.with_number(dotted, weight()?)?,
                _ => {
                    return Err(format!(
                        "`{key}={value}`: not a search setting, and Hase und Igel's evaluation takes eval=FILE, ks=W, kc=W, kp=W and dotted keys of its file (carrots.surplus=W)"
                    ));
                }
            }
        }
        Ok(e)
    }
}

/// A curve `scale · k^power` tabled for whole k below [`Curve::LEN`] (computed beyond): the
/// same bits as the formula, without `powf`, which took a third of the search's time.
#[derive(Clone, Debug)]
struct Curve {
    scale: f64,
    power: f64,
    table: Vec<f64>,
}

impl Curve {
    const LEN: u32 = 512;

    fn new(scale: f64, power: f64) -> Curve {
        let table = (0..Curve::LEN)
            .map(|k| scale * f64::from(k).powf(power))
            .collect();
        Curve {
            scale,
            power,
            table,
        }
    }

    #[inline]
    fn at(&self, k: u32) -> f64 {
        match self.table.get(k as usize) {
            Some(&v) => v,
            None => self.scale * f64::from(k).powf(self.power),
        }
    }
}

/// The evaluation's parts that depend on one number only (carrots held, the cell), computed
/// once for a game and an evaluation.
#[derive(Clone, Debug)]
pub(super) struct Tables {
    early: Curve,
    mid: Curve,
    surplus: Curve,
    /// By cell: the carrots the rest of the race needs (in hops of about `carrots.hop`
    /// cells), and the mid curve at that need.
    need: Vec<(f64, f64)>,
}

impl Tables {
    pub(super) fn new(e: &Evaluation, goal: u8) -> Tables {
        let c = &e.carrots;
        let need = (0..=goal)
            .map(|cell| {
                let left = f64::from(goal) - f64::from(cell);
                let hops = (left / f64::from(c.hop)).ceil().max(1.0);
                let need = hops * f64::from(cost((left / hops).ceil() as u32));
                (need, c.mid * need.powf(c.mid_power))
            })
            .collect();
        Tables {
            early: Curve::new(c.early, c.early_power),
            mid: Curve::new(c.mid, c.mid_power),
            surplus: Curve::new(c.surplus, c.surplus_power),
            need,
        }
    }
}

impl HaseUndIgel {
    /// Carrots due to hare `p` at the start of its next turn: a salad cell's payout (10 × rank,
    /// with a salad eaten) or a number cell's (10 × rank where the rank matches). The hare to
    /// move has had its payout already.
    fn due(&self, s: &HaseIgelState, p: Player, h: &Hare) -> (u32, f64) {
        if h.flags & EAT != 0 {
            return (10 * u32::from(self.rank(s, p)), 1.0);
        }
        if usize::from(s.to_move) != p
            && let c @ Cell::Number(_) = self.board.cell(h.cell)
        {
            let rank = self.rank(s, p);
            if c.pays(rank) {
                return (10 * u32::from(rank), 0.0);
            }
        }
        (0, 0.0)
    }

    /// One hare's E.
    fn hare_value(&self, s: &HaseIgelState, p: Player, h: &Hare, finished: u8) -> f64 {
        let e = &self.evaluation;
        let t = &self.tables;
        let weights = match (&e.two_hares, self.players) {
            (Some(w), 2) => w,
            _ => &e.weights,
        };
        let goal = f64::from(self.goal);
        if h.place > 0 {
            // Home: beyond any racing hare's reach, earlier places higher.
            return weights.kp * e.progress.per_cell * goal + 200.0 - 20.0 * f64::from(h.place);
        }
        let (paid, eaten) = self.due(s, p, h);
        // Whole numbers of carrots: the curves' powers are looked up by them.
        let held = h.carrots + paid;
        let carrots = f64::from(held);
        let salads = (f64::from(h.salads) - eaten).max(0.0);
        let cell = f64::from(h.cell);
        let progress = e.progress.per_cell * cell;
        let c = &e.carrots;
        let carrot_score = if cell < goal / 2.0 {
            t.early.at(held)
        } else {
            // Carrots to cover the rest in hops of about `hop` cells, and to arrive with at
            // most 10 × place.
            let (need, need_score) = t.need[usize::from(h.cell)];
            let limit = 10.0 * (f64::from(finished) + 1.0);
            if carrots < need {
                t.mid.at(held) - c.short * (need - carrots)
            } else {
                // Whole: carrots, need and limit are.
                let excess = (carrots - need - limit).max(0.0);
                need_score - t.surplus.at(excess as u32)
            }
        };
        let row = (salads as usize).min(3);
        let column = (self.board.salads_ahead(h.cell) as usize).min(5);
        let salad_score = e.salads.table[row][column];
        weights.ks * salad_score + weights.kc * carrot_score + weights.kp * progress
    }

    /// Seat `p`'s lead: its E less the best rival's.
    pub fn lead(&self, s: &HaseIgelState, p: Player) -> f64 {
        let n = self.players as usize;
        let finished = self.finished(s);
        let mine = self.hare_value(s, p, &s.hares[p], finished);
        let best_rival = (0..n)
            .filter(|&q| q != p)
            .map(|q| self.hare_value(s, q, &s.hares[q], finished))
            .fold(f64::NEG_INFINITY, f64::max);
        mine - best_rival
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_evaluation_parses_and_round_trips() {
        let e = Evaluation::default();
        assert_eq!(Evaluation::parse(&e.to_toml()).unwrap(), e);
        let set = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        let changed = e.with_settings(&set("kc", "1.5")).unwrap();
        assert_eq!(changed.weights.kc, 1.5);
        assert_eq!(changed.two_hares.map(|w| w.kc), e.two_hares.map(|_| 1.5));
        let err = e.with_settings(&set("kx", "1")).unwrap_err();
        assert!(err.contains("ks=W"), "{err}");
        let curve = e.with_settings(&set("carrots.surplus", "0.8")).unwrap();
        assert_eq!(curve.carrots.surplus, 0.8);
        assert!(e.with_settings(&set("carrots.nope", "1")).is_err());
        let err = e.with_settings(&set("ks", "x")).unwrap_err();
        assert!(err.contains("a weight is a number"), "{err}");
        let err = Evaluation::parse("[weights]\nks = 1\nkc = 1\nkp = 1\nkz = 2\n").unwrap_err();
        assert!(err.contains("kz") && err.contains("line"), "{err}");
    }
}
