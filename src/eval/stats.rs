//! The statistics every report shares: means summed stably (Neumaier) and kept within the
//! samples' range, and the Wilson score interval of a rate.

/// The sum of `values` with Neumaier's compensation: exact for values that are all equal, and
/// within a unit or two of the last place of the true sum for any others.
pub fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// The mean of `values` (NaN for none), summed stably and clamped to [min, max], so a mean is
/// never outside the values it averages (200 equal values give that value, to the bit).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let m = sum(values.iter().copied()) / values.len() as f64;
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if m.is_nan() { m } else { m.clamp(lo, hi) }
}

/// z of a two-sided 95 % interval, as the reports have always rounded it.
pub const Z95: f64 = 1.96;

/// The Wilson score 95 % interval of a rate `p` observed over `n` trials: within [0, 1], never
/// of width zero at 0 or 1 (0 wins in 40 games: [0, 0.088]), and sound for small `n`.
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 || !p.is_finite() {
        return (0.0, 1.0);
    }
    let p = p.clamp(0.0, 1.0);
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_give_their_value() {
        let x = 0.8198198198198199;
        let v = vec![x; 200];
        assert_eq!(mean(&v), x);
        // The naive sum drifts above: the bug this fixes.
        assert!(v.iter().sum::<f64>() / 200.0 > x);
    }

    #[test]
    fn mean_stays_within_the_values() {
        let v = [0.1, 0.2, 0.3, 1e16, -1e16, 0.7];
        let m = mean(&v);
        assert!((-1e16..=1e16).contains(&m));
        assert_eq!(sum([1e100, 1.0, -1e100]), 1.0);
        assert!(mean(&[]).is_nan());
    }

    #[test]
    fn wilson_at_the_edges_and_inside() {
        let (lo, hi) = wilson(0.0, 40.0);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.0876).abs() < 1e-3, "{hi}");
        let (lo, hi) = wilson(1.0, 40.0);
        assert!((lo - 0.9124).abs() < 1e-3, "{lo}");
        assert_eq!(hi, 1.0);
        // A textbook value: 8 of 10, [0.490, 0.943].
        let (lo, hi) = wilson(0.8, 10.0);
        assert!(
            (lo - 0.4902).abs() < 1e-3 && (hi - 0.9433).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.5, 0.0), (0.0, 1.0));
    }
}
