//! Drawing the SVG charts with plotters' SVG backend (no font files: the
//! text goes into the SVG as `<text>` elements).

use std::cell::Cell;
use std::ops::Range;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::input::{count_text, sizes_text, Group, Lateness, Line, Panel};
use crate::Result;

/// Where a chart or part of one is drawn.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Line colours, one per structure (the Lawn first).
const COLORS: [RGBColor; 5] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
];
/// Colour of `lawn_rt` and of tokio in the lateness chart.
const RUNTIME_COLORS: [RGBColor; 2] = [COLORS[0], COLORS[1]];
/// Points per drawn CDF (quantiles; keeps the SVG small).
const CDF_POINTS: usize = 400;
const FONT: &str = "sans-serif";
const GRID: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);
const NOTE: RGBColor = RGBColor(0x60, 0x60, 0x60);

/// A legend line: colour, label and an optional note under it.
struct LegendEntry {
    color: RGBColor,
    /// Whether the series has point markers.
    marker: bool,
    label: String,
    note: Option<String>,
}

/// Draws `entries` one under the other, from `top` pixels down.
fn draw_legend(area: &Area, entries: &[LegendEntry], top: i32) -> Result<()> {
    let left =
        |size| TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = top;
    for entry in entries {
        area.draw(&PathElement::new(
            vec![(8, y), (38, y)],
            entry.color.stroke_width(3),
        ))?;
        if entry.marker {
            area.draw(&Circle::new((23, y), 4, entry.color.filled()))?;
        }
        area.draw(&Text::new(entry.label.clone(), (46, y), left(15)))?;
        y += 20;
        if let Some(note) = &entry.note {
            area.draw(&Text::new(note.clone(), (46, y - 2), left(13).color(&NOTE)))?;
            y += 18;
        }
        y += 6;
    }
    Ok(())
}

/// `lawn_vs_baselines_<group>.svg`: ns per operation against pending timers.
pub(crate) fn draw_baselines(path: &Path, group: &Group) -> Result<()> {
    let root = SVGBackend::new(path, (980, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(group.title, (FONT, 22))?;
    let (plot, legend) = root.split_horizontally(710);
    let x_ticks = tick_labels(|n| {
        if is_power_of_ten(n) {
            count_text(n)
        } else {
            String::new()
        }
    });
    let y_ticks = tick_labels(one_two_five_text);
    let mut chart = ChartBuilder::on(&plot)
        .caption(
            "mixed workload (ten TTLs, 100 ms to 120 s), median of criterion's samples",
            (FONT, 15),
        )
        .margin(12)
        .margin_right(28)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d((700f64..1.4e6).log_scale(), y_range(group).log_scale())?;
    chart
        .configure_mesh()
        .x_labels(40)
        .y_labels(60)
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&y_ticks)
        .x_desc("pending timers n (log scale)")
        .y_desc(format!("ns per {} (log scale; lower is better)", group.op))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .max_light_lines(0)
        .bold_line_style(GRID)
        .draw()?;
    let mut entries = Vec::new();
    for (i, (line, color)) in group.lines.iter().zip(COLORS).enumerate() {
        let width = if i == 0 { 3 } else { 2 }; // the Lawn stands out
        chart.draw_series(LineSeries::new(
            line.points.iter().copied(),
            color.stroke_width(width),
        ))?;
        chart.draw_series(
            line.points
                .iter()
                .map(|&p| Circle::new(p, 4, color.filled())),
        )?;
        entries.push(LegendEntry {
            color,
            marker: true,
            label: line.label.to_string(),
            note: missing_note(line),
        });
    }
    draw_legend(&legend, &entries, 70)?;
    root.present()?;
    Ok(())
}

/// The legend note for a structure with sizes criterion did not measure.
fn missing_note(line: &Line) -> Option<String> {
    match (line.points.is_empty(), line.missing.is_empty()) {
        (true, _) => Some("not measured".to_string()),
        (false, false) => Some(format!("not measured at n = {}", sizes_text(&line.missing))),
        (false, true) => None,
    }
}

/// The y range of a baselines chart: the data between two tick values.
fn y_range(group: &Group) -> Range<f64> {
    let values = group
        .lines
        .iter()
        .flat_map(|line| line.points.iter().map(|&(_, y)| y));
    let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    log_axis_range(lo / 1.1, hi * 1.1)
}

/// A log axis from the 1-2-5 value (1, 2, 5, 10, 20, ...) at or below
/// `lo` to the one at or above `hi`; from the power of ten below `lo` if
/// that leaves no power of ten inside (plotters puts the first tick of a
/// log axis at the first power of ten in its range).
fn log_axis_range(lo: f64, hi: f64) -> Range<f64> {
    let decade = |v: f64| 10f64.powf(v.log10().floor());
    let steps = [1.0, 2.0, 5.0, 10.0];
    let below = steps
        .iter()
        .rev()
        .map(|s| s * decade(lo))
        .find(|&v| v <= lo * (1.0 + 1e-9));
    let above = steps
        .iter()
        .map(|s| s * decade(hi))
        .find(|&v| v >= hi * (1.0 - 1e-9));
    let (below, above) = (
        below.unwrap_or(decade(lo)),
        above.unwrap_or(10.0 * decade(hi)),
    );
    if decade(lo) * 10.0 <= above {
        below..above
    } else {
        decade(lo)..above
    }
}

/// Tick text for a horizontal log axis over `range`: 1, 2 and 5 times a
/// power of ten, or powers of ten alone over more than 2.5 decades (where
/// wider labels would touch).
fn horizontal_tick_text(range: &Range<f64>) -> fn(f64) -> String {
    if (range.end / range.start).log10() > 2.5 {
        |v| {
            if is_power_of_ten(v) {
                one_two_five_text(v)
            } else {
                String::new()
            }
        }
    } else {
        one_two_five_text
    }
}

/// `lateness.svg`: one CDF panel per sleep duration, side by side.
pub(crate) fn draw_lateness(path: &Path, lateness: &Lateness) -> Result<()> {
    let root = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Sleep lateness (wake − deadline), lawn_rt vs tokio: one task, sequential sleeps",
        (FONT, 22),
    )?;
    let x = lateness_range(lateness);
    let areas = root.split_evenly((1, lateness.panels.len()));
    for (area, panel) in areas.iter().zip(&lateness.panels) {
        draw_cdf_panel(area, panel, x.clone())?;
    }
    root.present()?;
    Ok(())
}

/// One duration's CDFs, with p50 and p99 in the legend below the plot.
fn draw_cdf_panel(area: &Area, panel: &Panel, x: Range<f64>) -> Result<()> {
    let low = x.start;
    let (plot, legend) = area.split_vertically(area.dim_in_pixel().1.saturating_sub(64));
    let x_ticks = tick_labels(horizontal_tick_text(&x));
    let mut chart = ChartBuilder::on(&plot)
        .caption(
            format!("sleep({})", duration_text(panel.duration_us)),
            (FONT, 18),
        )
        .margin(12)
        .margin_right(28)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x.log_scale(), 0f64..1.0)?;
    chart
        .configure_mesh()
        .x_labels(40)
        .y_labels(11)
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&|&share| format!("{:.0}%", share * 100.0))
        .x_desc("lateness, µs (log scale)")
        .y_desc("sleeps with lateness ≤ x")
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .max_light_lines(0)
        .bold_line_style(GRID)
        .draw()?;
    let mut entries = Vec::new();
    for (curve, color) in panel.curves.iter().zip(RUNTIME_COLORS) {
        let points = cdf_points(&curve.sorted_us).map(|(us, share)| (us.max(low), share));
        chart.draw_series(LineSeries::new(points, color.stroke_width(2)))?;
        let early = curve.sorted_us.iter().filter(|&&us| us < 0.0).count();
        let label = format!(
            "{}: p50 {} µs, p99 {} µs ({} sleeps)",
            curve.runtime,
            micros_text(percentile(&curve.sorted_us, 50)),
            micros_text(percentile(&curve.sorted_us, 99)),
            curve.sorted_us.len()
        );
        let note = (early > 0).then(|| format!("{early} woke early (drawn at the left edge)"));
        entries.push(LegendEntry {
            color,
            marker: false,
            label,
            note,
        });
    }
    draw_legend(&legend, &entries, 12)?;
    Ok(())
}

/// The common x range of the lateness panels: around every positive
/// sample, see [`log_axis_range`].
fn lateness_range(lateness: &Lateness) -> Range<f64> {
    let samples = lateness
        .panels
        .iter()
        .flat_map(|p| &p.curves)
        .flat_map(|c| &c.sorted_us);
    let positive = samples.filter(|&&us| us > 0.0);
    let (lo, hi) = positive.fold((f64::MAX, f64::MIN), |(lo, hi), &us| {
        (lo.min(us), hi.max(us))
    });
    if lo > hi {
        return 1.0..10.0; // no positive sample at all
    }
    log_axis_range(lo, hi)
}

/// At most [`CDF_POINTS`] + 1 points (lateness, share at or below) of the
/// empirical CDF of non-empty `sorted`, quantiles including the maximum.
fn cdf_points(sorted: &[f64]) -> impl Iterator<Item = (f64, f64)> + '_ {
    let n = sorted.len();
    let steps = CDF_POINTS.min(n - 1);
    (0..=steps).map(move |k| {
        let rank = (k * (n - 1)).checked_div(steps).unwrap_or(0);
        (sorted[rank], (rank + 1) as f64 / n as f64)
    })
}

/// Nearest-rank percentile of non-empty `sorted` (as `precision` computes it).
fn percentile(sorted: &[f64], p: usize) -> f64 {
    sorted[(sorted.len() * p).div_ceil(100).max(1) - 1]
}

/// A log-axis tick formatter: `text` of each tick, but blank for a repeat
/// of the tick before (plotters 0.3 yields every power of ten inside a log
/// range twice, and the label drawn twice looks bold).
fn tick_labels(text: impl Fn(f64) -> String) -> impl Fn(&f64) -> String {
    let last = Cell::new(f64::NAN);
    move |&v| {
        let repeat = (last.replace(v) - v).abs() <= v.abs() * 1e-9;
        if repeat {
            String::new()
        } else {
            text(v)
        }
    }
}

fn is_power_of_ten(v: f64) -> bool {
    let exp = v.log10();
    (exp - exp.round()).abs() < 1e-9
}

/// Log-axis tick text: 1, 2 and 5 times a power of ten, the rest blank.
fn one_two_five_text(v: f64) -> String {
    let decade = 10f64.powf(v.log10().floor());
    let lead = (v / decade).round();
    if (v / decade - lead).abs() > 1e-6 || ![1.0, 2.0, 5.0].contains(&lead) {
        return String::new();
    }
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}
/// `200 µs`, `1 ms`.
fn duration_text(us: u64) -> String {
    if us % 1_000 == 0 {
        format!("{} ms", us / 1_000)
    } else {
        format!("{us} µs")
    }
}

/// One decimal under 100 µs, none above.
fn micros_text(us: f64) -> String {
    if us.abs() < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_ranges_end_on_tick_values_around_a_power_of_ten() {
        assert_eq!(log_axis_range(7.2, 96.0), 5.0..100.0);
        assert_eq!(log_axis_range(30.0, 10_300.0), 20.0..20_000.0);
        // No power of ten between the 1-2-5 values: start a decade lower.
        assert_eq!(log_axis_range(21.0, 45.0), 10.0..50.0);
    }

    #[test]
    fn ticks_are_labelled_at_one_two_five_once() {
        let label = tick_labels(one_two_five_text);
        let texts: Vec<String> = [10.0, 20.0, 30.0, 50.0, 100.0, 100.0, 200.0, 0.5]
            .iter()
            .map(&label)
            .collect();
        assert_eq!(texts, ["10", "20", "", "50", "100", "", "200", "0.5"]);
    }

    #[test]
    fn cdf_ends_at_the_maximum_and_one() {
        let sorted: Vec<f64> = (1..=1_000).map(f64::from).collect();
        let points: Vec<_> = cdf_points(&sorted).collect();
        assert_eq!(points.len(), CDF_POINTS + 1);
        assert_eq!(points.first(), Some(&(1.0, 0.001)));
        assert_eq!(points.last(), Some(&(1_000.0, 1.0)));
        assert_eq!(cdf_points(&[7.0]).collect::<Vec<_>>(), [(7.0, 1.0)]);
    }
}
