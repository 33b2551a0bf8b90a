//! Learning-curve figures: the rows of [`Curves`] aggregated over seeds (the mean, and a band:
//! a 95% bootstrap interval, the range, or the evaluator's own interval), then drawn by
//! [`crate::io::plot`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail, ensure};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::config::{BandSpec, ExperimentConfig};
use crate::eval::Metric;
use crate::experiment::output::Curves;
use crate::io::hash::{FNV_OFFSET, fnv1a};
use crate::io::plot::{Band, PlotSpec, Series, SeriesPoint};

/// Draws `spec.metric` of `curves` as one line per (learner, opponent) pair,
/// the mean over seeds, with a translucent band (see [`Band`] and
/// [`aggregate`]) and an optional dashed reference line.
///
/// Writes `<dir>/<file_stem>.png` (1024x640) and `<dir>/<file_stem>.svg`
/// atomically, creating `dir` if missing, and returns the paths written.
pub fn plot_metric(dir: &Path, curves: &Curves, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    let stem_is_plain = Path::new(&spec.file_stem).file_name() == Some(spec.file_stem.as_ref());
    ensure!(
        stem_is_plain,
        "plot file_stem {:?} must be a plain file name",
        spec.file_stem
    );
    let series = aggregate_series(curves, &spec.metric, &spec.band);
    if series.is_empty() {
        bail!(
            "cannot plot {:?}: no finite values for metric {:?} (metrics present: {:?})",
            spec.file_stem,
            spec.metric,
            curves.metrics()
        );
    }
    crate::io::plot::learning_curves(dir, spec, &series)
}

/// Number of bootstrap resamples per point.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// Base of the per-point bootstrap seeds; changing it changes every band.
const BOOTSTRAP_SEED: u64 = 0x5eed_0f0c_1095_0001;

/// Aggregates the rows of `curves` whose metric is `metric` over seeds.
///
/// One series per distinct (learner, opponent) pair, in first-appearance
/// order; its points are sorted by episode. Non-finite values (NaN, ±inf) are
/// skipped, and a series or episode left without values is omitted. The band
/// of a bootstrap point is drawn from an RNG seeded by the series, metric and
/// episode, so results are reproducible and independent of the other rows.
pub fn aggregate(
    curves: &Curves,
    metric: &str,
    band: &Band,
) -> Vec<((String, String), Vec<SeriesPoint>)> {
    aggregate_series(curves, metric, band)
        .into_iter()
        .map(|s| (s.key, s.points))
        .collect()
}

fn aggregate_series(curves: &Curves, metric: &str, band: &Band) -> Vec<Series> {
    // The means over seeds of a band's own metrics, by series and episode.
    let bound = |name: &str| -> HashMap<((String, String), u64), f64> {
        group(curves, name)
            .into_iter()
            .flat_map(|g| {
                let key = g.key;
                g.by_episode
                    .into_iter()
                    .map(move |(e, v)| ((key.clone(), e), mean(&v)))
            })
            .collect()
    };
    let bounds = match band {
        Band::Interval { low, high } => Some((bound(low), bound(high))),
        _ => None,
    };
    group(curves, metric)
        .into_iter()
        .map(|g| {
            let points = g
                .by_episode
                .iter()
                .map(|(&episode, values)| {
                    let (low, high) = match band {
                        Band::Interval { .. } => {
                            let at = (g.key.clone(), episode);
                            let (lows, highs) = bounds.as_ref().expect("interval bounds");
                            let m = mean(values);
                            (
                                lows.get(&at).copied().unwrap_or(m),
                                highs.get(&at).copied().unwrap_or(m),
                            )
                        }
                        Band::MinMax => min_max(values),
                        Band::Bootstrap95 => {
                            let seed = point_seed(&g.key.0, &g.key.1, metric, episode);
                            bootstrap_ci95(values, seed)
                        }
                    };
                    SeriesPoint {
                        x: episode as f64,
                        mean: mean(values),
                        low,
                        high,
                        n: values.len(),
                    }
                })
                .collect();
            Series {
                key: g.key,
                points,
                seeds: g.seeds.len(),
            }
        })
        .collect()
}

/// Rows of one (learner, opponent) pair, finite values only.
struct Group {
    key: (String, String),
    by_episode: BTreeMap<u64, Vec<f64>>,
    seeds: BTreeSet<u64>,
}

fn group(curves: &Curves, metric: &str) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    for row in curves.rows() {
        let (learner, opponent, seed, episode, value) =
            (row.learner, row.opponent, row.seed, row.episode, row.value);
        if row.metric != metric || !value.is_finite() {
            continue;
        }
        let i = *index.entry((learner, opponent)).or_insert_with(|| {
            groups.push(Group {
                key: (learner.to_string(), opponent.to_string()),
                by_episode: BTreeMap::new(),
                seeds: BTreeSet::new(),
            });
            groups.len() - 1
        });
        groups[i].by_episode.entry(episode).or_default().push(value);
        groups[i].seeds.insert(seed);
    }
    groups
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// Percentile bootstrap: the 2.5% and 97.5% quantiles of the means of
/// [`BOOTSTRAP_RESAMPLES`] resamples (with replacement) of `values`.
fn bootstrap_ci95(values: &[f64], seed: u64) -> (f64, f64) {
    let n = values.len();
    if n == 1 {
        return (values[0], values[0]);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    (quantile(&means, 0.025), quantile(&means, 0.975))
}

/// Linear interpolation between order statistics of sorted, non-empty `sorted`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    match sorted.get(i + 1) {
        Some(&next) => sorted[i] + (next - sorted[i]) * frac,
        None => sorted[i],
    }
}

/// FNV-1a over the point's identity: stable across platforms and Rust
/// versions, unlike `std::hash`, so a plot can be regenerated identically.
fn point_seed(learner: &str, opponent: &str, metric: &str, episode: u64) -> u64 {
    let mut h: u64 = FNV_OFFSET ^ BOOTSTRAP_SEED;
    let mut eat = |bytes: &[u8]| h = fnv1a(h, bytes);
    // Length prefixes keep ("ab", "c") and ("a", "bc") apart.
    for s in [learner, opponent, metric] {
        eat(&(s.len() as u64).to_le_bytes());
        eat(s.as_bytes());
    }
    eat(&episode.to_le_bytes());
    h
}

/// Labels and the reference lines of a plotted metric, from what its conditions (`recorded`,
/// each with its series' key: learner and opponent) say of it: one line where every condition
/// recording the metric gives the same one, else each condition's own line in its colour.
pub(super) fn plot_spec(
    config: &ExperimentConfig,
    recorded: &[Vec<Metric>],
    keys: &[(String, String)],
    metric: &str,
) -> PlotSpec {
    let defs: Vec<(&(String, String), &Metric)> = keys
        .iter()
        .zip(recorded)
        .filter_map(|(key, ms)| ms.iter().find(|m| m.name == metric).map(|m| (key, m)))
        .collect();
    let first = defs[0].1;
    let shared = defs.iter().all(|(_, m)| m.reference == first.reference);
    let reference = first.reference.clone().filter(|_| shared);
    let series_references = if shared {
        Vec::new()
    } else {
        defs.iter()
            .filter_map(|&(key, m)| {
                let (y, label) = m.reference.clone()?;
                let label = if label.contains("its training opponent") {
                    label.replace("its training opponent", &key.1)
                } else {
                    format!("{} vs {}: {label}", key.0, key.1)
                };
                Some((key.clone(), y, label))
            })
            .collect()
    };
    let seat_note = first.seat.map_or(String::new(), |_| {
        format!(" (as {})", metric.rsplit("_as_").next().unwrap_or(""))
    });
    PlotSpec {
        file_stem: metric.to_string(),
        title: format!("{}: {}{seat_note}", config.name(), first.title),
        metric: metric.to_string(),
        x_label: "games played".to_string(),
        y_label: first.unit.clone(),
        reference,
        series_references,
        y_range: first.range,
        y_bounds: first.bounds,
        band: match (config.band(), &first.interval) {
            (_, Some((low, high))) => Band::Interval {
                low: low.clone(),
                high: high.clone(),
            },
            (BandSpec::Bootstrap95, None) => Band::Bootstrap95,
            (BandSpec::MinMax, None) => Band::MinMax,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
    }

    fn small_table() -> Curves {
        let mut c = Curves::new("r", "g", "h");
        // Interleaved rows and an unrelated metric to exercise grouping.
        c.push("q", "random", 0, 10, "loss", 1.0);
        c.push("mc", "random", 0, 10, "loss", 5.0);
        c.push("q", "random", 1, 10, "loss", 2.0);
        c.push("q", "random", 0, 10, "draws", 100.0);
        c.push("q", "random", 2, 10, "loss", 6.0);
        c.push("q", "random", 0, 0, "loss", 0.5);
        c.push("q", "random", 1, 0, "loss", f64::NAN);
        c.push("q", "minimax", 0, 0, "loss", 3.0);
        c
    }

    #[test]
    fn aggregate_min_max_exact() {
        let agg = aggregate(&small_table(), "loss", &Band::MinMax);
        let keys: Vec<(&str, &str)> = agg
            .iter()
            .map(|((l, o), _)| (l.as_str(), o.as_str()))
            .collect();
        assert_eq!(keys, [("q", "random"), ("mc", "random"), ("q", "minimax")]);

        let q = &agg[0].1;
        assert_eq!(q.len(), 2);
        // Sorted by episode; the NaN at episode 0 is skipped.
        assert_eq!(
            q[0],
            SeriesPoint {
                x: 0.0,
                mean: 0.5,
                low: 0.5,
                high: 0.5,
                n: 1
            }
        );
        assert_eq!(
            q[1],
            SeriesPoint {
                x: 10.0,
                mean: 3.0,
                low: 1.0,
                high: 6.0,
                n: 3
            }
        );
        assert_eq!(
            agg[1].1,
            [SeriesPoint {
                x: 10.0,
                mean: 5.0,
                low: 5.0,
                high: 5.0,
                n: 1
            }]
        );

        let draws = aggregate(&small_table(), "draws", &Band::MinMax);
        assert_eq!(draws.len(), 1);
        assert_eq!(draws[0].1[0].mean, 100.0);
        assert!(aggregate(&small_table(), "nope", &Band::MinMax).is_empty());
    }

    #[test]
    fn aggregate_bootstrap_contains_mean_and_is_deterministic() {
        let mut c = Curves::new("r", "g", "h");
        for seed in 0..10u64 {
            for episode in 0..5u64 {
                let v = (seed * 7 % 10) as f64 + episode as f64 * 0.5;
                c.push("q", "random", seed, episode, "loss", v);
            }
        }
        let a = aggregate(&c, "loss", &Band::Bootstrap95);
        let b = aggregate(&c, "loss", &Band::Bootstrap95);
        assert_eq!(a, b);
        let minmax = aggregate(&c, "loss", &Band::MinMax);
        for (p, m) in a[0].1.iter().zip(&minmax[0].1) {
            assert_eq!(p.n, 10);
            assert!(p.low < p.mean && p.mean < p.high, "{p:?}");
            // The CI of the mean is narrower than the spread of the data.
            assert!(m.low < p.low && p.high < m.high, "{p:?} vs {m:?}");
            assert!(close(p.mean, m.mean));
        }
        // Appending another series must not change this one's band.
        c.push("other", "random", 0, 0, "loss", 1.0);
        assert_eq!(aggregate(&c, "loss", &Band::Bootstrap95)[0], a[0]);
    }

    #[test]
    fn single_seed_band_is_degenerate() {
        let mut c = Curves::new("r", "g", "h");
        for episode in 0..4u64 {
            c.push(
                "q",
                "random",
                3,
                episode,
                "loss",
                0.1 * episode as f64 + 0.7,
            );
        }
        for band in [Band::Bootstrap95, Band::MinMax] {
            for p in &aggregate(&c, "loss", &band)[0].1 {
                assert_eq!(p.n, 1);
                assert!(p.low == p.mean && p.high == p.mean, "{band:?} {p:?}");
            }
        }
    }

    #[test]
    fn quantile_interpolates() {
        let v = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 0.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert!(close(quantile(&v, 0.125), 0.5));
    }

    /// Two series, three seeds each, 50 episodes; seeds differ enough for a visible band.
    fn learning_curves() -> Curves {
        let mut c = Curves::new("demo", "tictactoe", "abc123");
        let pairs = [
            ("q-learning", "random", 0.02),
            ("monte-carlo", "minimax", 0.05),
        ];
        for (learner, opponent, rate) in pairs {
            for seed in 0..3u64 {
                let speed = rate * (0.7 + 0.3 * seed as f64);
                let mut cumulative = 0.0;
                for episode in 1..=50u64 {
                    let wobble = ((seed * 31 + episode * 17) % 11) as f64 / 11.0;
                    cumulative += (-(speed * episode as f64)).exp() * (1.0 + wobble);
                    c.push(
                        learner,
                        opponent,
                        seed,
                        episode * 100,
                        "cumulative_losses",
                        cumulative,
                    );
                }
            }
        }
        c.push(
            "q-learning",
            "random",
            0,
            5000,
            "cumulative_losses",
            f64::NAN,
        );
        c
    }

    fn demo_spec(file_stem: &str, band: Band) -> PlotSpec {
        PlotSpec {
            file_stem: file_stem.to_owned(),
            title: "Tic-tac-toe: cumulative losses against the opponent".to_owned(),
            metric: "cumulative_losses".to_owned(),
            x_label: "games played".to_owned(),
            y_label: "cumulative losses (games)".to_owned(),
            reference: Some((1.0, "optimal (solver)".to_owned())),
            series_references: Vec::new(),
            y_range: None,
            y_bounds: None,
            band,
        }
    }

    fn scratch_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("solvedgym-plot-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn plot_metric_writes_png_and_svg() {
        let dir = scratch_dir("plot");
        let c = learning_curves();
        let paths = plot_metric(&dir, &c, &demo_spec("losses", Band::Bootstrap95)).unwrap();
        assert_eq!(paths, [dir.join("losses.png"), dir.join("losses.svg")]);
        let png = std::fs::read(&paths[0]).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert!(png.len() > 10_000, "png is only {} bytes", png.len());
        let svg = std::fs::read_to_string(&paths[1]).unwrap();
        assert!(svg.len() > 10_000, "svg is only {} bytes", svg.len());
        for text in [
            "q-learning vs random (n=3)",
            "optimal (solver)",
            "95% bootstrap CI",
            "games played",
        ] {
            assert!(svg.contains(text), "svg lacks {text:?}");
        }

        // Fixed y range cutting through the data, min–max band.
        let mut spec = demo_spec("losses-fixed", Band::MinMax);
        spec.y_range = Some((0.0, 10.0));
        let paths = plot_metric(&dir, &c, &spec).unwrap();
        assert!(
            std::fs::read_to_string(&paths[1])
                .unwrap()
                .contains("min–max over seeds")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plot_metric_rejects_empty_and_bad_input() {
        let dir = scratch_dir("empty");
        let err = plot_metric(
            &dir,
            &learning_curves(),
            &demo_spec("x", Band::MinMax).with_metric("nope"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("no finite values") && err.contains("cumulative_losses"),
            "{err}"
        );

        let mut nan_only = Curves::new("r", "g", "h");
        nan_only.push("q", "random", 0, 0, "m", f64::NAN);
        assert!(
            plot_metric(
                &dir,
                &nan_only,
                &demo_spec("x", Band::MinMax).with_metric("m")
            )
            .is_err()
        );

        let mut spec = demo_spec("x", Band::MinMax);
        spec.y_range = Some((1.0, 1.0));
        assert!(plot_metric(&dir, &learning_curves(), &spec).is_err());
        for stem in ["", "a/b", ".."] {
            let mut spec = demo_spec(stem, Band::MinMax);
            spec.file_stem = stem.to_owned();
            assert!(
                plot_metric(&dir, &learning_curves(), &spec).is_err(),
                "{stem:?}"
            );
        }
        assert!(!dir.exists(), "nothing should be written on error");
    }

    #[test]
    fn single_point_series_plots() {
        let dir = scratch_dir("single");
        let mut c = Curves::new("r", "g", "h");
        c.push("q", "random", 0, 0, "m", 2.0);
        let mut spec = demo_spec("one", Band::Bootstrap95).with_metric("m");
        spec.reference = None;
        assert_eq!(plot_metric(&dir, &c, &spec).unwrap().len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The figures whose layout no other test reaches: a fixed y range cutting through the
    /// data, and curves that fill every corner (four learners, five seeds each), so the legend
    /// has no free corner. Every series must be labelled, and drawing again must give the same
    /// bytes. With `SG_EXAMPLE_DIR` set, the figures are written (and kept) there to be looked
    /// at: `SG_EXAMPLE_DIR=/some/dir cargo test --release busy_and_clipped`.
    #[test]
    fn busy_and_clipped_figures_are_complete_and_repeatable() {
        let keep = std::env::var_os("SG_EXAMPLE_DIR").map(PathBuf::from);
        let dir = keep.clone().unwrap_or_else(|| scratch_dir("busy"));
        let c = learning_curves();
        plot_metric(&dir, &c, &demo_spec("example", Band::Bootstrap95)).unwrap();

        let mut spec = demo_spec("example-fixed-minmax", Band::MinMax);
        spec.y_range = Some((0.0, 30.0));
        let paths = plot_metric(&dir, &c, &spec).unwrap();
        let svg = std::fs::read_to_string(&paths[1]).unwrap();
        for text in [
            "q-learning vs random (n=3)",
            "monte-carlo vs minimax (n=3)",
            "min–max over seeds",
            "optimal (solver)",
        ] {
            assert!(svg.contains(text), "clipped svg lacks {text:?}");
        }

        // Curves that fill every corner, to exercise the legend headroom.
        let learners = ["sarsa", "q-learning", "monte-carlo", "td(0)"];
        let mut busy = Curves::new("demo", "tictactoe", "abc123");
        for (k, learner) in learners.into_iter().enumerate() {
            for seed in 0..5u64 {
                for episode in 0..=40u64 {
                    let t = episode as f64 / 40.0;
                    let noise = ((seed * 13 + episode * 7 + k as u64) % 9) as f64 / 90.0;
                    let v = if k % 2 == 0 { 1.0 - t } else { t } * 0.9 + noise;
                    busy.push(learner, "minimax", seed, episode * 25, "draw_rate", v);
                }
            }
        }
        let spec = PlotSpec {
            file_stem: "example-busy".to_owned(),
            title: "Draw rate against the perfect player".to_owned(),
            metric: "draw_rate".to_owned(),
            x_label: "games played".to_owned(),
            y_label: "draw rate (fraction of games)".to_owned(),
            reference: Some((1.0, "optimal (solver)".to_owned())),
            series_references: Vec::new(),
            y_range: None,
            y_bounds: None,
            band: Band::MinMax,
        };
        let paths = plot_metric(&dir, &busy, &spec).unwrap();
        assert_eq!(
            paths,
            [dir.join("example-busy.png"), dir.join("example-busy.svg")]
        );
        let png = std::fs::read(&paths[0]).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let svg = std::fs::read_to_string(&paths[1]).unwrap();
        for learner in learners {
            let label = format!("{learner} vs minimax (n=5)");
            assert!(svg.contains(&label), "busy svg lacks {label:?}");
        }
        for text in [
            "Draw rate against the perfect player",
            "draw rate (fraction of games)",
            "optimal (solver)",
            "min–max over seeds",
        ] {
            assert!(svg.contains(text), "busy svg lacks {text:?}");
        }

        // The outputs of a study are compared byte for byte: so are two drawings.
        let again = scratch_dir("busy-again");
        let repeat = plot_metric(&again, &busy, &spec).unwrap();
        for (a, b) in paths.iter().zip(&repeat) {
            assert!(
                std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
                "{} differs from {}",
                a.display(),
                b.display()
            );
        }
        std::fs::remove_dir_all(&again).unwrap();
        if keep.is_none() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    impl PlotSpec {
        fn with_metric(mut self, metric: &str) -> Self {
            self.metric = metric.to_owned();
            self
        }
    }
}
