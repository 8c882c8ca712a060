//! The report's SVG charts, drawn with plotters' SVG backend: text is left
//! to the viewer's renderer, and each legend sits in a column of its own to
//! the right of the plot, so that no legend covers a point.
//!
//! - `comparison-fpr.svg`: measured false-positive rate against bits per
//!   key at every size, over the theoretical curves and the lower bound;
//! - `comparison-lookup.svg`: lookup time (the shuffled mix) against bits
//!   per key at the report's reference size.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::subject::Family;
use super::{Result, Row, Section, theory};

/// The chart files and what they show, in report order.
pub(crate) const FILES: [(&str, &str); 2] = [
    (
        "comparison-fpr.svg",
        "False-positive rate against bits per key, with theory and the lower bound",
    ),
    (
        "comparison-lookup.svg",
        "Lookup ns/key (shuffled members and non-members) against bits per key",
    ),
];

const FONT: &str = "sans-serif";
const WIDTH: u32 = 1000;
const HEIGHT: u32 = 560;
/// The plot's share of the width; the legend column takes the rest.
const PLOT_WIDTH: u32 = 700;

fn color(f: Family) -> RGBColor {
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(23, 190, 207),
        RGBColor(174, 199, 232),
        RGBColor(148, 103, 189),
        RGBColor(197, 176, 213),
        RGBColor(140, 86, 75),
        RGBColor(255, 127, 14),
        RGBColor(255, 187, 120),
        RGBColor(188, 189, 34),
        RGBColor(44, 160, 44),
        RGBColor(152, 223, 138),
        RGBColor(214, 39, 40),
        RGBColor(255, 152, 150),
        RGBColor(227, 119, 194),
    ];
    palette[f as usize % palette.len()]
}

fn chart_error(e: impl std::fmt::Display) -> super::Error {
    format!("drawing a chart: {e}").into()
}

/// Draws every chart into `dir`; returns their paths.
pub(crate) fn write(dir: &Path, rows: &[Row]) -> Result<Vec<PathBuf>> {
    let main: Vec<&Row> = rows
        .iter()
        .filter(|r| r.section == Section::Main && r.measured_fpr() > 0.0)
        .collect();
    let fpr = dir.join(FILES[0].0);
    scatter(
        &fpr,
        "False-positive rate against bits per key",
        "measured false-positive rate (log)",
        &main,
        |r| r.measured_fpr(),
        true,
    )?;
    let n = rows
        .iter()
        .filter(|r| r.section != Section::Main)
        .map(|r| r.n)
        .next()
        .or_else(|| main.first().map(|r| r.n))
        .unwrap_or(0);
    let at_n: Vec<&Row> = main.iter().copied().filter(|r| r.n == n).collect();
    let lookup = dir.join(FILES[1].0);
    scatter(
        &lookup,
        &format!(
            "Lookups at {} keys against bits per key",
            super::report::count(n)
        ),
        "ns per lookup (log)",
        &at_n,
        |r| r.timing.mixed_ns,
        false,
    )?;
    Ok(vec![fpr, lookup])
}

/// A log-scale scatter of `y` against bits per key, one colour per family,
/// filled circles for ours and hollow ones for peers, the legend in a
/// column of its own; with `theory`, the theoretical curves behind.
fn scatter(
    path: &Path,
    title: &str,
    y_label: &str,
    rows: &[&Row],
    y: impl Fn(&Row) -> f64,
    theory: bool,
) -> Result<()> {
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(chart_error)?;
    let (plot, legend) = root.split_horizontally(PLOT_WIDTH);
    let points: Vec<(f64, f64, &Row)> = rows
        .iter()
        .map(|r| (r.bits_per_key(), y(r), *r))
        .filter(|(x, y, _)| x.is_finite() && y.is_finite() && *y > 0.0)
        .collect();
    let x_max = points.iter().map(|p| p.0).fold(1.0, f64::max) * 1.1;
    let y_min = points
        .iter()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        .min(1.0)
        / 2.0;
    let y_max = points
        .iter()
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(y_min * 4.0)
        * 2.0;
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, (y_min..y_max).log_scale())
        .map_err(chart_error)?;
    chart
        .configure_mesh()
        .x_desc("bits per key")
        .y_desc(y_label)
        .label_style((FONT, 12))
        .draw()
        .map_err(chart_error)?;
    if theory {
        for curve in theory::curves() {
            chart
                .draw_series(LineSeries::new(
                    curve.points.iter().copied().filter(|&(x, _)| x <= x_max),
                    BLACK.mix(0.3),
                ))
                .map_err(chart_error)?;
        }
    }
    chart
        .draw_series(points.iter().map(|&(x, y, r)| {
            let style = color(r.entry.info.family);
            let style = if r.entry.info.peer {
                style.stroke_width(2)
            } else {
                style.filled()
            };
            Circle::new((x, y), 5, style)
        }))
        .map_err(chart_error)?;

    // The legend: one line per filter shown, in its own column.
    let mut seen: Vec<(String, Family, bool)> = Vec::new();
    for (_, _, r) in &points {
        let key = (r.label(), r.entry.info.family, r.entry.info.peer);
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen.sort_by(|a, b| (a.1, a.2).cmp(&(b.1, b.2)));
    for (i, (label, family, peer)) in seen.iter().enumerate() {
        let y = 30 + 20 * i as i32;
        let style = color(*family);
        let style = if *peer {
            style.stroke_width(2)
        } else {
            style.filled()
        };
        legend
            .draw(&Circle::new((12, y), 5, style))
            .map_err(chart_error)?;
        legend
            .draw(&Text::new(label.clone(), (24, y - 7), (FONT, 12)))
            .map_err(chart_error)?;
    }
    if theory {
        let top = 30 + 20 * seen.len() as i32;
        legend
            .draw(&Text::new("grey lines, theory:", (4, top), (FONT, 11)))
            .map_err(chart_error)?;
        for (i, curve) in theory::curves().iter().enumerate() {
            legend
                .draw(&Text::new(
                    curve.name,
                    (12, top + 16 * (i as i32 + 1)),
                    (FONT, 11),
                ))
                .map_err(chart_error)?;
        }
    }
    root.present().map_err(chart_error)?;
    Ok(())
}
