use super::*;
#[test]
fn long_runs_label_games_in_thousands_and_millions() {
    let f = count_formatter(1_500_000.0);
    let labels: Vec<String> = [0.0, 200_000.0, 1_000_000.0, 1_250_000.0]
        .iter()
        .map(&f)
        .collect();
    assert_eq!(labels, ["0", "200k", "1M", "1.25M"]);
    assert_eq!(count_formatter(500.0)(&250.0), "250");
}

#[test]
fn tick_labels_are_trimmed() {
    let f = tick_formatter(5000.0);
    assert_eq!([f(&500.0), f(&0.0), f(&1250.0)], ["500", "0", "1250"]);
    let f = tick_formatter(1.0);
    assert_eq!(
        [f(&0.25), f(&1.0), f(&-0.0), f(&(0.1 + 0.2))],
        ["0.25", "1", "0", "0.3"]
    );
}

#[test]
fn a_flat_series_gets_an_axis_to_read() {
    // A return that stays at -1 (up to rounding) shows the whole -1..1 with a margin.
    let (lo, hi) = flat_or_fitted(-1.0, -1.0 + 1e-15, Some((-1.0, 1.0)));
    assert!(
        (lo + 1.1).abs() < 1e-12 && (hi - 1.1).abs() < 1e-12,
        "{lo}..{hi}"
    );
    // Without bounds: the value ± 10%, or ± 1 at zero.
    assert_eq!(flat_or_fitted(3.0, 3.0, None), (2.7, 3.3));
    assert_eq!(flat_or_fitted(0.0, 0.0, None), (-1.0, 1.0));
    // A series that moves is fitted with a 5% margin, whatever the bounds.
    let (lo, hi) = flat_or_fitted(0.2, 0.4, Some((-1.0, 1.0)));
    assert!(
        (lo - 0.19).abs() < 1e-12 && (hi - 0.41).abs() < 1e-12,
        "{lo}..{hi}"
    );
    for (lo, hi, bounds) in [(-1.0, -1.0, Some((-1.0, 1.0))), (5.0, 5.0, None)] {
        let (a, b) = flat_or_fitted(lo, hi, bounds);
        assert!(b - a >= 0.5, "{lo}: {a}..{b}");
        // Its ticks read apart.
        let f = tick_formatter(b - a);
        assert_ne!(f(&a), f(&b));
    }
}

#[test]
fn bar_names_are_cut_to_their_width() {
    assert_eq!(bar_name(1, "random", 20), "1 random");
    assert_eq!(bar_name(2, "depth=3,eval=carrots", 10), "2 depth=3…");
    assert_eq!(bar_name(3, "abc", 0), "3…");
}

#[test]
fn visible_runs_clip_to_range() {
    // A line rising through the top edge and coming back down.
    let pts = [(0.0, 0.0, 0.0), (1.0, 2.0, 2.0), (2.0, 0.0, 0.0)];
    let runs = visible_runs(&pts, -1.0, 1.0);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0], [(0.0, 0.0, 0.0), (0.5, 1.0, 1.0)]);
    assert_eq!(runs[1], [(1.5, 1.0, 1.0), (2.0, 0.0, 0.0)]);
    // Entirely visible input is returned unchanged.
    assert_eq!(visible_runs(&pts, -5.0, 5.0), [pts.to_vec()]);
    assert!(visible_runs(&pts, 3.0, 4.0).is_empty());
}
