//! Charts drawn with plotters to PNG and SVG: learning curves (lines with a band and a dashed
//! reference), bar charts with intervals, and panels of lines; with the bundled font plotters
//! needs to draw any text. The data comes aggregated: what to draw, not how it was measured.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow, bail, ensure};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::register_font;

use crate::io::files::{write_atomic, write_atomic_with};

/// Which spread around the mean is shaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Band {
    /// 95% percentile-bootstrap confidence interval of the mean over seeds.
    Bootstrap95,
    /// Smallest to largest value over seeds.
    MinMax,
    /// The metric's own confidence interval, recorded as two other metrics (the match
    /// evaluator's), averaged over seeds.
    Interval { low: String, high: String },
}

impl Band {
    fn legend_label(&self) -> &'static str {
        match self {
            Band::Bootstrap95 => "shaded: 95% bootstrap CI of the mean",
            Band::MinMax => "shaded: min–max over seeds",
            Band::Interval { .. } => "shaded: 95% CI of each point (mean over seeds)",
        }
    }
}

/// What to draw and where; see [`plot_metric`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    /// Output is `<dir>/<file_stem>.png` and `<dir>/<file_stem>.svg`.
    pub file_stem: String,
    pub title: String,
    /// Which metric of the [`Curves`] to draw.
    pub metric: String,
    /// Axis labels, including units, e.g. "games played".
    pub x_label: String,
    pub y_label: String,
    /// Horizontal dashed line at `y` with its legend label, e.g. `(1.0, "optimal (solver)")`.
    pub reference: Option<(f64, String)>,
    /// Reference lines of single series where they differ (perfect play's result against each
    /// training opponent): the series' key, `y` and the legend label. Series with the same
    /// label share one line; each line is dashed in a pattern of its own.
    pub series_references: Vec<((String, String), f64, String)>,
    /// Fixed y axis; if `None` it is fitted to lines, bands and reference with a small margin.
    pub y_range: Option<(f64, f64)>,
    /// The y range a fitted axis shows where everything drawn is flat (one value, or values
    /// apart by rounding only), e.g. -1 to 1 for a return; without it such an axis spans the
    /// value ± 10% (± 1 at 0).
    pub y_bounds: Option<(f64, f64)>,
    pub band: Band,
}

/// One aggregated point of a series: the values of all seeds at one episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesPoint {
    pub x: f64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// Number of values (normally one per seed) behind this point.
    pub n: usize,
}

pub const PNG_SIZE: (u32, u32) = (1024, 640);

/// The only family registered with plotters, so every text style must use it.
const FONT_FAMILY: &str = "sans-serif";
const FONT_BYTES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSans.ttf"
));

/// Okabe–Ito's colours without black (kept for the reference line) and with the hard-to-see
/// yellow moved out, then Tol's muted dark colours: twelve series with twelve colours, told
/// apart also by those who see red and green alike. Series beyond twelve reuse colours.
const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(230, 159, 0),   // orange
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(136, 34, 85),   // wine
    RGBColor(153, 153, 51),  // olive
    RGBColor(51, 34, 136),   // indigo
    RGBColor(120, 120, 120), // grey
    RGBColor(204, 102, 119), // rose
    RGBColor(221, 204, 119), // sand
];
const REFERENCE_COLOR: RGBColor = RGBColor(0, 0, 0);
/// Dash and gap (pixels) of the series' own reference lines, one pattern per line.
const DASHES: [(u32, u32); 4] = [(4, 4), (14, 4), (2, 6), (10, 3)];
const BAND_ALPHA: f64 = 0.22;

// Pixel layout shared by the drawing code and the legend placement estimate.
const TITLE_FONT_PX: f64 = 24.0;
const TICK_FONT_PX: f64 = 14.0;
const AXIS_FONT_PX: f64 = 16.0;
const LEGEND_FONT_PX: f64 = 14.0;
const TOP_MARGIN: u32 = 8;
const CHART_MARGIN: u32 = 15;
const X_LABEL_AREA: u32 = 50;
const Y_LABEL_AREA: u32 = 75;
/// Plotters' legend box: its default inner margin and icon column width, and
/// the gap it keeps from the plotting-area edge.
const LEGEND_MARGIN: u32 = 10;
const LEGEND_ICON_AREA: u32 = 30;
const LEGEND_OFFSET: u32 = 5;

/// One aggregated (learner, opponent) series and its number of distinct seeds.
pub struct Series {
    pub key: (String, String),
    pub points: Vec<SeriesPoint>,
    pub seeds: usize,
}

/// Draws learning curves: one line per series, the mean over seeds, with a translucent band
/// and an optional dashed reference line ([`PlotSpec`]). Writes `<dir>/<file_stem>.png`
/// (1024x640) and `<dir>/<file_stem>.svg` atomically, creating `dir` if missing, and returns
/// the paths written.
pub fn learning_curves(dir: &Path, spec: &PlotSpec, series: &[Series]) -> Result<Vec<PathBuf>> {
    ensure_font()?;
    let plan = Plan::new(spec, series)?;

    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let png = dir.join(format!("{}.png", spec.file_stem));
    let svg = dir.join(format!("{}.svg", spec.file_stem));

    write_atomic_with(&png, |tmp| {
        let root = BitMapBackend::new(tmp, PNG_SIZE).into_drawing_area();
        draw(&root, spec, &plan)?;
        root.present()
            .with_context(|| format!("writing {}", tmp.display()))
    })
    .with_context(|| format!("plotting {}", png.display()))?;

    let mut svg_text = String::new();
    {
        let root = SVGBackend::with_string(&mut svg_text, PNG_SIZE).into_drawing_area();
        draw(&root, spec, &plan).with_context(|| format!("plotting {}", svg.display()))?;
        root.present()
            .with_context(|| format!("plotting {}", svg.display()))?;
    }
    write_atomic(&svg, svg_text.as_bytes())?;

    Ok(vec![png, svg])
}

/// One bar of [`bar_chart`]: a value with its interval, named under the bar (`name`, cut short
/// where it does not fit) and in full in the list under the chart (`label`).
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub name: String,
    pub label: String,
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// Whether an image is to be written as SVG (else PNG), by its file name; an error for any
/// other ending, so a command can refuse it before the work.
pub fn is_svg(path: &Path) -> Result<bool> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(true),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(false),
        _ => bail!(
            "plotting {}: the file name ends in .svg or .png",
            path.display()
        ),
    }
}

/// Height of one line of the list of bars under a bar chart.
const BAR_LIST_LINE_PX: u32 = 24;

/// A bar chart of `bars` (numbered on the x axis, each named with its value and interval in a
/// list under the chart) with the interval drawn as a whisker, on a fixed y axis, with an
/// optional dashed reference line (value, label). Writes `path` (.svg or .png) atomically,
/// creating its folder if missing.
pub fn bar_chart(
    path: &Path,
    title: &str,
    y_label: &str,
    y_range: (f64, f64),
    bars: &[Bar],
    reference: Option<(f64, String)>,
) -> Result<()> {
    ensure!(!bars.is_empty(), "plotting {}: no bars", path.display());
    let svg = is_svg(path)?;
    ensure_font()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let lines = bars.len() as u32 + u32::from(reference.is_some());
    let size = (PNG_SIZE.0, 520 + 16 + BAR_LIST_LINE_PX * lines);
    let reference = reference.as_ref();
    let context = || format!("plotting {}", path.display());
    if svg {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            draw_bars(&root, title, y_label, y_range, bars, reference).with_context(context)?;
            root.present().with_context(context)?;
        }
        write_atomic(path, text.as_bytes())
    } else {
        write_atomic_with(path, |tmp| {
            let root = BitMapBackend::new(tmp, size).into_drawing_area();
            draw_bars(&root, title, y_label, y_range, bars, reference)?;
            root.present().with_context(context)
        })
        .with_context(context)
    }
}

fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    y_label: &str,
    (y0, y1): (f64, f64),
    bars: &[Bar],
    reference: Option<&(f64, String)>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (chart_area, list_area) = root.split_vertically(520);
    let area = chart_area
        .margin(TOP_MARGIN, 0, 0, 0)
        .titled(title, font(TITLE_FONT_PX))?;
    let n = bars.len() as i32;
    let mut chart = ChartBuilder::on(&area)
        .margin(CHART_MARGIN)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA)
        // A discrete range includes its end: segments 0..=n-1, one per bar.
        .build_cartesian_2d((0..(n - 1).max(1)).into_segmented(), y0..y1)?;
    // Each bar is named under it: its number and as much of its name as its width holds
    // (about 0.55 em per character); the list under the chart names it in full.
    let plot_w = f64::from(PNG_SIZE.0 - 2 * CHART_MARGIN - Y_LABEL_AREA);
    let fits = ((plot_w / bars.len() as f64) / (0.55 * TICK_FONT_PX)).floor() as usize;
    let names: Vec<String> = bars
        .iter()
        .enumerate()
        .map(|(i, bar)| bar_name(i + 1, &bar.name, fits))
        .collect();
    let number = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let y_ticks = tick_formatter(y1 - y0);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(bars.len() + 1)
        .x_desc("entrant (in full in the list below)")
        .y_desc(y_label)
        .label_style(font(TICK_FONT_PX))
        .axis_desc_style(font(AXIS_FONT_PX))
        .x_label_formatter(&number)
        .y_label_formatter(&y_ticks)
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;
    let clip = |y: f64| y.clamp(y0, y1);
    for (i, bar) in bars.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let i = i as i32;
        let mut rect = Rectangle::new(
            [
                (SegmentValue::Exact(i), clip(0.0)),
                (SegmentValue::Exact(i + 1), clip(bar.value)),
            ],
            color.mix(0.75).filled(),
        );
        rect.set_margin(0, 0, 18, 18);
        chart.draw_series(std::iter::once(rect))?;
        let whisker = BLACK.stroke_width(2);
        let (lo, hi) = (clip(bar.low), clip(bar.high));
        chart.draw_series(std::iter::once(PathElement::new(
            vec![
                (SegmentValue::CenterOf(i), lo),
                (SegmentValue::CenterOf(i), hi),
            ],
            whisker,
        )))?;
        for y in [lo, hi] {
            chart.draw_series(std::iter::once(
                EmptyElement::at((SegmentValue::CenterOf(i), y))
                    + PathElement::new(vec![(-8, 0), (8, 0)], whisker),
            ))?;
        }
    }
    let reference_style = REFERENCE_COLOR.mix(0.8).stroke_width(2);
    if let Some(&(y, _)) = reference.filter(|r| (y0..=y1).contains(&r.0)) {
        chart.draw_series(DashedLineSeries::new(
            [(SegmentValue::Exact(0), y), (SegmentValue::Exact(n), y)],
            10,
            6,
            reference_style,
        ))?;
    }
    // The list under the chart: long names (search settings) do not fit under the bars.
    let x = (Y_LABEL_AREA + CHART_MARGIN) as i32;
    let text = font(LEGEND_FONT_PX);
    for (i, bar) in bars.iter().enumerate() {
        let y = (8 + BAR_LIST_LINE_PX * i as u32) as i32;
        let color = PALETTE[i % PALETTE.len()];
        list_area.draw(&Rectangle::new(
            [(x, y + 2), (x + 22, y + 14)],
            color.mix(0.75).filled(),
        ))?;
        let line = format!(
            "{}  {}   {:.3} [{:.3}, {:.3}]",
            i + 1,
            bar.label,
            bar.value,
            bar.low,
            bar.high
        );
        list_area.draw(&Text::new(line, (x + 30, y), text.clone()))?;
    }
    if let Some((_, label)) = reference {
        let y = (8 + BAR_LIST_LINE_PX * bars.len() as u32) as i32 + 8;
        list_area.draw(&PathElement::new(vec![(x, y), (x + 8, y)], reference_style))?;
        list_area.draw(&PathElement::new(
            vec![(x + 14, y), (x + 22, y)],
            reference_style,
        ))?;
        list_area.draw(&Text::new(label.clone(), (x + 30, y - 8), text))?;
    }
    Ok(())
}

/// A bar's name under it: `number` and `name`, cut to `fits` characters with an ellipsis.
fn bar_name(number: usize, name: &str, fits: usize) -> String {
    let full = format!("{number} {name}");
    if full.chars().count() <= fits.max(2) {
        return full;
    }
    let kept: String = full.chars().take(fits.max(2) - 1).collect();
    format!("{}…", kept.trim_end())
}

/// One panel of [`line_chart`]: lines over the chart's x axis and an optional dashed
/// reference line.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePanel {
    pub title: String,
    pub y_label: String,
    pub y_range: (f64, f64),
    /// One line per label, its points in x order. A label takes the same colour in every panel.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
    /// A horizontal dashed line at y, with its label.
    pub reference: Option<(f64, String)>,
}

/// Height of a line chart's panels.
const LINE_PANEL_PX: u32 = 500;

/// Panels side by side over one x axis of whole numbers (search depths, sizes), each point of a
/// line marked with a dot; the lines' labels and the reference lines are listed once under the
/// panels. Writes `path` (.svg or .png) atomically, creating its folder if missing.
pub fn line_chart(path: &Path, title: &str, x_label: &str, panels: &[LinePanel]) -> Result<()> {
    ensure!(!panels.is_empty(), "plotting {}: no panels", path.display());
    let svg = is_svg(path)?;
    let xs = panels.iter().flat_map(|p| {
        p.lines
            .iter()
            .flat_map(|(_, points)| points.iter().map(|q| q.0))
    });
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    ensure!(x0.is_finite(), "plotting {}: no points", path.display());
    let mut labels: Vec<&str> = Vec::new();
    for (label, _) in panels.iter().flat_map(|p| &p.lines) {
        if !labels.contains(&label.as_str()) {
            labels.push(label);
        }
    }
    let mut references: Vec<&str> = Vec::new();
    for (_, label) in panels.iter().filter_map(|p| p.reference.as_ref()) {
        if !references.contains(&label.as_str()) {
            references.push(label);
        }
    }
    ensure_font()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let list = (labels.len() + references.len()) as u32;
    let width = (560 * panels.len() as u32).max(PNG_SIZE.0);
    let size = (width, LINE_PANEL_PX + 24 + BAR_LIST_LINE_PX * list);
    let x_range = (x0 - 0.3, x1 + 0.3);
    let context = || format!("plotting {}", path.display());
    if svg {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            draw_lines(&root, title, x_label, x_range, panels, &labels, &references)
                .with_context(context)?;
            root.present().with_context(context)?;
        }
        write_atomic(path, text.as_bytes())
    } else {
        write_atomic_with(path, |tmp| {
            let root = BitMapBackend::new(tmp, size).into_drawing_area();
            draw_lines(&root, title, x_label, x_range, panels, &labels, &references)?;
            root.present().with_context(context)
        })
        .with_context(context)
    }
}

fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    (x0, x1): (f64, f64),
    panels: &[LinePanel],
    labels: &[&str],
    references: &[&str],
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (chart_area, list_area) = root.split_vertically(LINE_PANEL_PX);
    let area = chart_area
        .margin(TOP_MARGIN, 0, 0, 0)
        .titled(title, font(title_px(root, title)))?;
    let colour = |label: &str| {
        let i = labels.iter().position(|l| *l == label).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    };
    let reference_style = REFERENCE_COLOR.mix(0.8).stroke_width(2);
    let whole = |v: &f64| {
        if (v - v.round()).abs() < 1e-9 {
            format!("{}", v.round() as i64)
        } else {
            String::new()
        }
    };
    for (panel, area) in panels.iter().zip(area.split_evenly((1, panels.len()))) {
        let (y0, y1) = panel.y_range;
        let mut chart = ChartBuilder::on(&area)
            .caption(&panel.title, font(AXIS_FONT_PX + 2.0))
            .margin(CHART_MARGIN)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        let y_ticks = tick_formatter(y1 - y0);
        chart
            .configure_mesh()
            .x_labels(((x1 - x0).round() as usize + 1).min(30))
            .x_desc(x_label)
            .y_desc(&panel.y_label)
            .label_style(font(TICK_FONT_PX))
            .axis_desc_style(font(AXIS_FONT_PX))
            .x_label_formatter(&whole)
            .y_label_formatter(&y_ticks)
            .bold_line_style(BLACK.mix(0.12))
            .light_line_style(BLACK.mix(0.04))
            .draw()?;
        if let Some((y, _)) = panel
            .reference
            .as_ref()
            .filter(|r| (y0..=y1).contains(&r.0))
        {
            chart.draw_series(DashedLineSeries::new(
                [(x0, *y), (x1, *y)],
                10,
                6,
                reference_style,
            ))?;
        }
        // Earlier lines are drawn wider, so lines that coincide still show one inside another.
        let n = panel.lines.len() as u32;
        for (i, (label, points)) in panel.lines.iter().enumerate() {
            let c = colour(label);
            let wider = n - 1 - i as u32;
            let inside: Vec<(f64, f64)> =
                points.iter().map(|&(x, y)| (x, y.clamp(y0, y1))).collect();
            chart.draw_series(LineSeries::new(
                inside.iter().copied(),
                c.stroke_width(2 + 3 * wider),
            ))?;
            chart.draw_series(
                inside
                    .iter()
                    .map(|&p| Circle::new(p, 4 + 2 * wider, c.filled())),
            )?;
        }
    }
    // The list under the panels: one entry per line label, then the reference lines.
    let x = (Y_LABEL_AREA + CHART_MARGIN) as i32;
    let text = font(LEGEND_FONT_PX);
    for (i, label) in labels.iter().enumerate() {
        let y = (8 + BAR_LIST_LINE_PX * i as u32) as i32;
        let c = colour(label);
        list_area.draw(&PathElement::new(
            vec![(x, y + 8), (x + 22, y + 8)],
            c.stroke_width(3),
        ))?;
        list_area.draw(&Circle::new((x + 11, y + 8), 4, c.filled()))?;
        list_area.draw(&Text::new(label.to_string(), (x + 30, y), text.clone()))?;
    }
    for (i, label) in references.iter().enumerate() {
        let y = (8 + BAR_LIST_LINE_PX * (labels.len() + i) as u32) as i32 + 8;
        list_area.draw(&PathElement::new(vec![(x, y), (x + 8, y)], reference_style))?;
        list_area.draw(&PathElement::new(
            vec![(x + 14, y), (x + 22, y)],
            reference_style,
        ))?;
        list_area.draw(&Text::new(label.to_string(), (x + 30, y - 8), text.clone()))?;
    }
    Ok(())
}

/// A title's size: a long one (a game's parameters, a metric said in full) shrinks to the
/// width, about 0.46 em per character.
fn title_px<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str) -> f64 {
    let width = f64::from(root.dim_in_pixel().0);
    TITLE_FONT_PX.min(0.95 * width / (0.46 * title.chars().count() as f64))
}

/// plotters' ab_glyph text backend has no system font lookup, so the bundled
/// font is registered once per process before anything is drawn (charts here, pictures of
/// positions in `front`).
pub fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            register_font(FONT_FAMILY, FontStyle::Normal, FONT_BYTES)
                .map_err(|_| "the bundled DejaVu Sans font could not be parsed".to_owned())
        })
        .clone()
        .map_err(|e| anyhow!(e))
}

/// The bundled font at `px` pixels: the one family registered, so every text drawn uses it.
pub fn font(px: f64) -> FontDesc<'static> {
    (FONT_FAMILY, px).into_font()
}

/// Everything about the figure that does not depend on the backend, computed
/// once so the PNG and the SVG agree.
struct Plan<'a> {
    x_range: (f64, f64),
    y_range: (f64, f64),
    series: Vec<PlannedSeries<'a>>,
    reference: Option<(f64, String)>,
    /// The series' own reference lines, one per label.
    extra: Vec<(f64, String)>,
    legend: SeriesLabelPosition,
}

struct PlannedSeries<'a> {
    label: String,
    color: RGBColor,
    points: &'a [SeriesPoint],
}

impl<'a> Plan<'a> {
    fn new(spec: &PlotSpec, series: &'a [Series]) -> Result<Self> {
        let planned: Vec<PlannedSeries<'a>> = series
            .iter()
            .enumerate()
            .map(|(i, s)| PlannedSeries {
                label: format!("{} vs {} (n={})", s.key.0, s.key.1, s.seeds),
                color: PALETTE[i % PALETTE.len()],
                points: &s.points,
            })
            .collect();
        // The series' own lines, one per label, of the series drawn.
        let mut extra: Vec<(f64, String)> = Vec::new();
        for (key, y, label) in &spec.series_references {
            let drawn = series.iter().any(|s| s.key == *key);
            if drawn && y.is_finite() && !extra.iter().any(|(_, l)| l == label) {
                extra.push((*y, label.clone()));
            }
        }
        let all = || planned.iter().flat_map(|s| s.points.iter());

        let (x0, x1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.x), hi.max(p.x))
        });
        let x_range = if x1 > x0 {
            (x0, x1)
        } else {
            (x0 - 0.5, x0 + 0.5)
        };

        if let Some((y, _)) = &spec.reference {
            ensure!(
                y.is_finite(),
                "reference line of {:?} is not finite",
                spec.file_stem
            );
        }
        let fixed_y = spec.y_range.is_some();
        let mut y_range = match spec.y_range {
            Some((lo, hi)) => {
                ensure!(
                    lo.is_finite() && hi.is_finite() && lo < hi,
                    "y_range of {:?} must be finite with low < high, got {lo}..{hi}",
                    spec.file_stem
                );
                (lo, hi)
            }
            None => {
                let reference = spec
                    .reference
                    .iter()
                    .map(|(y, _)| *y)
                    .chain(extra.iter().map(|r| r.0));
                let (lo, hi) = all()
                    .flat_map(|p| [p.low, p.high, p.mean])
                    .chain(reference)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                        (lo.min(v), hi.max(v))
                    });
                flat_or_fitted(lo, hi, spec.y_bounds)
            }
        };

        let reference = spec.reference.as_ref().map(|(y, label)| {
            let off_scale = *y < y_range.0 || *y > y_range.1;
            let label = if off_scale {
                format!("{label} (y = {y}, off scale)")
            } else {
                label.clone()
            };
            (*y, label)
        });

        // Legend placement: the corner whose box would cover the least of the
        // lines, bands and reference line; if every corner is busy and the
        // axis is ours to choose, make headroom above the data instead.
        let mut labels: Vec<&str> = planned.iter().map(|s| s.label.as_str()).collect();
        if let Some((_, label)) = &reference {
            labels.push(label);
        }
        labels.extend(extra.iter().map(|r| r.1.as_str()));
        labels.push(spec.band.legend_label());
        let (box_w, box_h) = legend_fraction(&spec.title, &labels)?;
        let lines: Vec<f64> = reference
            .iter()
            .map(|r| r.0)
            .chain(extra.iter().map(|r| r.0))
            .collect();
        let tracks = coverage_tracks(&planned, &lines, x_range);
        let mut legend = best_corner(&tracks, x_range, y_range, box_w, box_h);
        if legend.1 > 0 && !fixed_y && box_h < 0.5 {
            y_range.1 = y_range.0 + (y_range.1 - y_range.0) / (1.0 - box_h);
            legend = best_corner(&tracks, x_range, y_range, box_w, box_h);
        }

        Ok(Self {
            x_range,
            y_range,
            series: planned,
            reference,
            extra,
            legend: legend.0,
        })
    }
}

/// A fitted y axis around everything drawn, `lo` to `hi`, with a margin of 5%. Where that is
/// flat (a constant series: the values apart by rounding only) the axis would have no span to
/// read, so it shows `bounds` (the metric's natural range) and the value, or the value ± 10%.
fn flat_or_fitted(lo: f64, hi: f64, bounds: Option<(f64, f64)>) -> (f64, f64) {
    let scale = lo.abs().max(hi.abs()).max(1.0);
    if hi - lo > 1e-9 * scale {
        let pad = 0.05 * (hi - lo);
        return (lo - pad, hi + pad);
    }
    let (lo, hi) = match bounds {
        Some((b0, b1)) if b1 > b0 => (lo.min(b0), hi.max(b1)),
        _ => {
            let pad = if lo.abs() < 1e-12 {
                1.0
            } else {
                0.1 * lo.abs()
            };
            return (lo - pad, hi + pad);
        }
    };
    let pad = 0.05 * (hi - lo);
    (lo - pad, hi + pad)
}

/// Approximate legend box size as a fraction of the plotting area (w, h).
fn legend_fraction(title: &str, labels: &[&str]) -> Result<(f64, f64)> {
    let measure = |px: f64, text: &str| {
        font(px)
            .box_size(text)
            .map_err(|e| anyhow!("measuring text {text:?}: {e:?}"))
    };
    let mut text_w = 0u32;
    for label in labels {
        text_w = text_w.max(measure(LEGEND_FONT_PX, label)?.0);
    }
    let text_h = labels.len() as f64 * LEGEND_FONT_PX * 1.25;
    let (_, title_h) = measure(TITLE_FONT_PX, title)?;
    // Mirrors DrawingArea::titled and ChartBuilder's margins/label areas.
    let title_area = f64::from(title_h) + 2.0 * (f64::from(title_h) / 2.0).min(5.0);
    let plot_w = f64::from(PNG_SIZE.0 - 2 * CHART_MARGIN - Y_LABEL_AREA);
    let plot_h = f64::from(PNG_SIZE.1 - TOP_MARGIN - 2 * CHART_MARGIN - X_LABEL_AREA) - title_area;
    let w = f64::from(text_w + LEGEND_ICON_AREA + 2 * LEGEND_MARGIN + LEGEND_OFFSET) + 5.0;
    let h = text_h + f64::from(2 * LEGEND_MARGIN + LEGEND_OFFSET) + 5.0;
    Ok(((w / plot_w).min(1.0), (h / plot_h).min(1.0)))
}

/// Vertical extents (x, low, high) of everything drawn, sampled densely in x
/// so that segments crossing a corner count even between data points.
fn coverage_tracks(
    series: &[PlannedSeries],
    references: &[f64],
    x_range: (f64, f64),
) -> Vec<(f64, f64, f64)> {
    const SAMPLES: usize = 200;
    let xs = (0..=SAMPLES).map(|i| x_range.0 + (x_range.1 - x_range.0) * i as f64 / SAMPLES as f64);
    let mut tracks = Vec::new();
    for s in series {
        let pts = s.points;
        tracks.extend(
            pts.iter()
                .map(|p| (p.x, p.low.min(p.mean), p.high.max(p.mean))),
        );
        for x in xs.clone() {
            let Some(j) = pts.windows(2).position(|w| w[0].x <= x && x <= w[1].x) else {
                continue;
            };
            let (a, b) = (pts[j], pts[j + 1]);
            let t = (x - a.x) / (b.x - a.x);
            let lerp = |u: f64, v: f64| u + (v - u) * t;
            let (m, lo, hi) = (
                lerp(a.mean, b.mean),
                lerp(a.low, b.low),
                lerp(a.high, b.high),
            );
            tracks.push((x, lo.min(m), hi.max(m)));
        }
    }
    for &y in references {
        tracks.extend(xs.clone().map(|x| (x, y, y)));
    }
    tracks
}

/// The corner with the fewest covered samples, preferring upper-left, then
/// lower-right, on ties. Returns the position and its count.
fn best_corner(
    tracks: &[(f64, f64, f64)],
    x_range: (f64, f64),
    y_range: (f64, f64),
    box_w: f64,
    box_h: f64,
) -> (SeriesLabelPosition, usize) {
    let nx = |x: f64| (x - x_range.0) / (x_range.1 - x_range.0);
    let ny = |y: f64| (y - y_range.0) / (y_range.1 - y_range.0);
    let corners = [
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    corners
        .into_iter()
        .map(|(pos, right, upper)| {
            let (xa, xb) = if right {
                (1.0 - box_w, 1.0)
            } else {
                (0.0, box_w)
            };
            let (ya, yb) = if upper {
                (1.0 - box_h, 1.0)
            } else {
                (0.0, box_h)
            };
            let count = tracks
                .iter()
                .filter(|&&(x, lo, hi)| {
                    let x = nx(x);
                    xa <= x && x <= xb && ny(lo) <= yb && ny(hi) >= ya
                })
                .count();
            (pos, count)
        })
        .min_by_key(|&(_, count)| count)
        .expect("four corners")
}

/// Pieces of a band (or, with low == high, a line) that lie within
/// `lo..=hi`, with the crossing points of the range edges inserted and values
/// clamped to it. plotters does not clip to the plotting area, so anything
/// outside a fixed y range would otherwise be drawn over the axes.
fn visible_runs(points: &[(f64, f64, f64)], lo: f64, hi: f64) -> Vec<Vec<(f64, f64, f64)>> {
    let clamp = |(x, a, b): (f64, f64, f64)| (x, a.clamp(lo, hi), b.clamp(lo, hi));
    let visible = |a: f64, b: f64| a <= hi && b >= lo;
    if let [p] = points {
        return if visible(p.1, p.2) {
            vec![vec![clamp(*p)]]
        } else {
            Vec::new()
        };
    }
    let mut runs: Vec<Vec<(f64, f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64, f64)> = Vec::new();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut ts: Vec<f64> = [(a.1, b.1), (a.2, b.2)]
            .into_iter()
            .flat_map(|(u, v)| {
                [lo, hi].into_iter().filter_map(move |edge| {
                    let t = (edge - u) / (v - u);
                    (t > 0.0 && t < 1.0).then_some(t)
                })
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        // A line is a band with low == high, so its crossings come in pairs.
        ts.dedup();
        ts.push(1.0);
        let at = |t: f64| {
            let lerp = |u: f64, v: f64| u + (v - u) * t;
            (lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
        };
        let mut start = (0.0, a);
        for t in ts {
            let end = if t == 1.0 { b } else { at(t) };
            let mid = at(0.5 * (start.0 + t));
            if visible(mid.1, mid.2) {
                if current.is_empty() {
                    current.push(clamp(start.1));
                }
                current.push(clamp(end));
            } else if !current.is_empty() {
                runs.push(std::mem::take(&mut current));
            }
            start = (t, end);
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// Tick labels with as many decimals as roughly ten ticks over `span` need,
/// without plotters' trailing ".0" on whole numbers such as episode counts.
fn tick_formatter(span: f64) -> impl Fn(&f64) -> String {
    let decimals = (1.0 - (span / 10.0).log10().floor()).clamp(0.0, 12.0) as usize;
    move |v: &f64| {
        let text = format!("{v:.decimals$}");
        let text = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            &text
        };
        if text == "-0" {
            "0".to_owned()
        } else {
            text.to_owned()
        }
    }
}

/// Tick labels for counts of games: 250k, 1.5M on long runs (a seven-digit label at the right
/// edge would be cut off), plain numbers otherwise.
fn count_formatter(span: f64) -> impl Fn(&f64) -> String {
    let plain = tick_formatter(span);
    move |v: &f64| {
        let trim = |x: f64| {
            let t = format!("{x:.2}");
            t.trim_end_matches('0').trim_end_matches('.').to_owned()
        };
        if span < 10_000.0 || *v == 0.0 {
            plain(v)
        } else if v.abs() >= 1e6 {
            format!("{}M", trim(v / 1e6))
        } else {
            format!("{}k", trim(v / 1e3))
        }
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &PlotSpec,
    plan: &Plan,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let area = root
        .margin(TOP_MARGIN, 0, 0, 0)
        .titled(&spec.title, font(title_px(root, &spec.title)))?;
    let (x0, x1) = plan.x_range;
    let (y0, y1) = plan.y_range;
    let x_ticks = count_formatter(x1 - x0);
    let y_ticks = tick_formatter(y1 - y0);
    let mut chart = ChartBuilder::on(&area)
        .margin(CHART_MARGIN)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .label_style(font(TICK_FONT_PX))
        .axis_desc_style(font(AXIS_FONT_PX))
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&y_ticks)
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(BLACK.mix(0.04))
        .draw()?;

    // Bands first so that no band hides another series' line.
    for s in &plan.series {
        let band: Vec<_> = s.points.iter().map(|p| (p.x, p.low, p.high)).collect();
        let fill = s.color.mix(BAND_ALPHA).filled();
        for run in visible_runs(&band, y0, y1) {
            if let [(x, low, high)] = run[..] {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x, low), (x, high)],
                    fill,
                )))?;
                continue;
            }
            let outline = run
                .iter()
                .map(|&(x, _, high)| (x, high))
                .chain(run.iter().rev().map(|&(x, low, _)| (x, low)));
            chart.draw_series(std::iter::once(Polygon::new(
                outline.collect::<Vec<_>>(),
                fill,
            )))?;
        }
    }
    for s in &plan.series {
        let line: Vec<_> = s.points.iter().map(|p| (p.x, p.mean, p.mean)).collect();
        let style = s.color.stroke_width(2);
        for run in visible_runs(&line, y0, y1) {
            if let [(x, y, _)] = run[..] {
                chart.draw_series(std::iter::once(Circle::new((x, y), 3, style.filled())))?;
            } else {
                chart.draw_series(LineSeries::new(
                    run.into_iter().map(|(x, y, _)| (x, y)),
                    style,
                ))?;
            }
        }
    }
    let reference_style = REFERENCE_COLOR.mix(0.8).stroke_width(2);
    if let Some(y) = plan
        .reference
        .as_ref()
        .map(|r| r.0)
        .filter(|y| (y0..=y1).contains(y))
    {
        chart.draw_series(DashedLineSeries::new(
            [(x0, y), (x1, y)],
            10,
            6,
            reference_style,
        ))?;
    }
    for (i, &(y, _)) in plan.extra.iter().enumerate() {
        if (y0..=y1).contains(&y) {
            let (dash, gap) = DASHES[i % DASHES.len()];
            chart.draw_series(DashedLineSeries::new(
                [(x0, y), (x1, y)],
                dash,
                gap,
                reference_style,
            ))?;
        }
    }

    // Legend entries come from empty series so that each appears exactly once,
    // in this order, however the geometry above was split.
    let no_points = || std::iter::empty::<Circle<(f64, f64), i32>>();
    for s in &plan.series {
        let (line, band) = (s.color.stroke_width(2), s.color.mix(BAND_ALPHA).filled());
        chart
            .draw_series(no_points())?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + Rectangle::new([(0, -6), (22, 6)], band)
                    + PathElement::new(vec![(0, 0), (22, 0)], line)
            });
    }
    if let Some((_, label)) = &plan.reference {
        chart
            .draw_series(no_points())?
            .label(label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (8, 0)], reference_style)
                    + PathElement::new(vec![(14, 0), (22, 0)], reference_style)
            });
    }
    for (i, (_, label)) in plan.extra.iter().enumerate() {
        let (dash, gap) = DASHES[i % DASHES.len()];
        chart
            .draw_series(no_points())?
            .label(label.as_str())
            .legend(move |(x, y)| {
                // Three dashes of the line's pattern, within the icon's 22 pixels.
                let (d, g) = (dash as i32, gap as i32);
                let dash_at = |k: i32| {
                    let start = (k * (d + g)).min(22);
                    PathElement::new(vec![(start, 0), ((start + d).min(22), 0)], reference_style)
                };
                EmptyElement::at((x, y)) + dash_at(0) + dash_at(1) + dash_at(2)
            });
    }
    let neutral = RGBColor(110, 110, 110).mix(BAND_ALPHA + 0.1).filled();
    chart
        .draw_series(no_points())?
        .label(spec.band.legend_label())
        .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], neutral));
    chart
        .configure_series_labels()
        .position(plan.legend.clone())
        .margin(LEGEND_MARGIN)
        .legend_area_size(LEGEND_ICON_AREA)
        .label_font(font(LEGEND_FONT_PX))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests;
