//! The report's SVG charts, drawn with plotters' SVG backend (no fonts, no
//! bitmaps: text is left to the viewer's SVG renderer).
//!
//! - `comparison-fpr.svg`: measured false-positive rate against bits per
//!   key, over the theoretical curves and the lower bound;
//! - `comparison-lookup.svg`: lookup ns/key (hit, miss and mixed), by filter and size;
//! - `comparison-build.svg`: build or insert ns/key and remove ns/key, one
//!   by one and batched where measured, by filter and size.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Result;
use super::row::{Row, count, default_quality, pct};
use super::subject::Family;
use super::theory;

/// The chart files and what they show, in report order.
pub(crate) const FILES: [(&str, &str); 3] = [
    (
        "comparison-fpr.svg",
        "False-positive rate against bits per key, with theory and the lower bound",
    ),
    (
        "comparison-lookup.svg",
        "Lookup ns/key by filter and size (member, non-member and shuffled half-and-half)",
    ),
    (
        "comparison-build.svg",
        "Build or insert and remove ns/key by filter and size, one by one and batched",
    ),
];

const FONT: &str = "sans-serif";

fn family_color(f: Family) -> RGBColor {
    match f {
        Family::Bloom => RGBColor(31, 119, 180),
        Family::BlockedBloom => RGBColor(23, 190, 207),
        Family::CountingBloom => RGBColor(148, 103, 189),
        Family::Cuckoo => RGBColor(255, 127, 14),
        Family::Xor8 => RGBColor(44, 160, 44),
        Family::Xor16 => RGBColor(152, 223, 138),
        Family::BinaryFuse8 => RGBColor(214, 39, 40),
        Family::BinaryFuse16 => RGBColor(255, 152, 150),
    }
}

fn chart_error(e: impl std::fmt::Display) -> super::Error {
    format!("drawing a chart: {e}").into()
}

/// Draws every chart into `dir`; returns their paths.
pub(crate) fn write(dir: &Path, rows: &[Row]) -> Result<Vec<PathBuf>> {
    // The default types only: a row of `UniformHashes` shares its family,
    // colour and crate with the default's, and the tables show it.
    let defaults = default_quality(rows);
    let rows = defaults.as_slice();
    let paths: Vec<PathBuf> = FILES.iter().map(|(f, _)| dir.join(f)).collect();
    fpr_chart(&paths[0], rows).map_err(chart_error)?;
    bar_chart(
        &paths[1],
        "Lookup, ns per key (lower is better)",
        rows,
        &[
            ("member (hit)", RGBColor(31, 119, 180), |r| {
                Some(r.timing.hit_ns)
            }),
            ("non-member (miss)", RGBColor(255, 127, 14), |r| {
                Some(r.timing.miss_ns)
            }),
            ("half and half, shuffled", RGBColor(44, 160, 44), |r| {
                Some(r.timing.mixed_ns)
            }),
        ],
    )
    .map_err(chart_error)?;
    bar_chart(
        &paths[2],
        "Build or insert, and remove, ns per key (lower is better)",
        rows,
        &[
            ("build / insert", RGBColor(44, 160, 44), |r| {
                Some(r.timing.build_ns)
            }),
            // Each batched series in a lighter shade of its one-by-one
            // twin, drawn just below it, so a pair reads as one measure.
            ("build batched", RGBColor(152, 223, 138), |r| {
                r.timing.build_batched_ns
            }),
            ("build, 2 threads", RGBColor(188, 189, 34), |r| {
                r.timing.build_shared_ns
            }),
            ("remove", RGBColor(148, 103, 189), |r| r.timing.remove_ns),
            ("remove batched", RGBColor(197, 176, 213), |r| {
                r.timing.remove_batched_ns
            }),
        ],
    )
    .map_err(chart_error)?;
    for path in &paths {
        stamp(path)?;
    }
    Ok(paths)
}

/// Puts the generated-file notice first in an SVG file, as an XML comment
/// (plotters starts the file with the `<svg>` element), so that a reader who
/// opens the chart's source knows where it came from.
fn stamp(path: &Path) -> Result<()> {
    let svg = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let stamped = format!("<!-- {} -->\n{svg}", super::report::GENERATED);
    std::fs::write(path, stamped).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn fpr_chart(path: &Path, rows: &[Row]) -> DrawResult {
    let root = SVGBackend::new(path, (1100, 750)).into_drawing_area();
    root.fill(&WHITE)?;
    let plotted: Vec<&Row> = rows.iter().filter(|r| r.measured_fpr() > 0.0).collect();
    let x_max = plotted
        .iter()
        .map(|r| r.bits_per_key())
        .fold(24.0f64, f64::max)
        .ceil()
        + 2.0;
    let y_min = plotted
        .iter()
        .map(|r| r.measured_fpr())
        .fold(1e-5f64, f64::min)
        / 3.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "False-positive rate against space (points: measured; lines: theory)",
            (FONT, 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..x_max, (y_min..0.5f64).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("bits per key")
        .y_desc("false-positive rate")
        .y_label_formatter(&|v| pct(*v))
        .draw()?;

    let curve_colors = [
        BLACK,
        family_color(Family::Bloom),
        family_color(Family::CountingBloom),
        family_color(Family::BlockedBloom),
        RGBColor(120, 120, 120),
        family_color(Family::Cuckoo),
        family_color(Family::Xor8),
        family_color(Family::BinaryFuse8),
    ];
    for (curve, color) in theory::curves().into_iter().zip(curve_colors) {
        let style = ShapeStyle::from(color).stroke_width(if color == BLACK { 3 } else { 1 });
        let points: Vec<(f64, f64)> = curve
            .points
            .into_iter()
            .filter(|&(x, y)| x <= x_max && y >= y_min)
            .collect();
        chart
            .draw_series(LineSeries::new(points, style))?
            .label(format!("theory: {}", curve.name))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }

    // One series per (family, ours or peer), so the legend names each.
    let mut keys: Vec<(Family, bool, &str)> = plotted
        .iter()
        .map(|r| (r.entry.family, r.entry.peer, r.entry.krate))
        .collect();
    keys.sort();
    keys.dedup();
    for (family, peer, krate) in keys {
        let color = family_color(family);
        let points: Vec<(f64, f64)> = plotted
            .iter()
            .filter(|r| r.entry.family == family && r.entry.peer == peer && r.entry.krate == krate)
            .map(|r| (r.bits_per_key(), r.measured_fpr()))
            .collect();
        let name = plotted
            .iter()
            .find(|r| r.entry.family == family && r.entry.krate == krate)
            .map_or("", |r| r.entry.name);
        if peer {
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| TriangleMarker::new(p, 7, color.stroke_width(2))),
                )?
                .label(format!("{name} [{krate}]"))
                .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 6, color.stroke_width(2)));
        } else {
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 5, color.filled())),
                )?
                .label(name.to_string())
                .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
        }
    }
    // The counting Bloom filter sits far right at high rates; when the axis
    // reaches out to it, the legend goes in the empty space between the
    // steep curves on the left and that point, not on top of it.
    let legend = if x_max > 45.0 {
        let (left, _) = chart.backend_coord(&(0.0, 0.5));
        let (at, _) = chart.backend_coord(&(19.0, 0.5));
        SeriesLabelPosition::Coordinate(at - left, 10)
    } else {
        SeriesLabelPosition::UpperRight
    };
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .draw()?;
    root.present()?;
    Ok(())
}

type Metric = fn(&Row) -> Option<f64>;

/// Pixels per row of a bar chart: 26, or 12 per series where there are
/// more than two, so that each bar stays about as tall as its 11 px label.
fn row_height(series: usize) -> u32 {
    (12 * u32::try_from(series).unwrap_or(u32::MAX / 12)).max(26)
}

/// The bar charts' width in pixels.
const WIDTH: u32 = 1100;
/// The bar charts' header: the title, and under it the legend row.
const HEADER_HEIGHT: u32 = 72;
const LEGEND_Y: i32 = 44;

/// The left edge of each legend entry (swatch, gap, name), side by side
/// from the left margin. Widths are estimated at 8 px per character of
/// 15 px sans-serif, a generous average, so entries never overlap; the
/// entries used to sit at fixed 200 px steps from x = 700, and a third
/// series fell off the 1100 px canvas.
fn legend_x(names: &[&str]) -> Vec<i32> {
    let mut x = 20;
    names
        .iter()
        .map(|name| {
            let at = x;
            x += entry_width(name) + 30;
            at
        })
        .collect()
}

/// A legend entry's estimated width: swatch, gap and name.
fn entry_width(name: &str) -> i32 {
    22 + 8 * i32::try_from(name.chars().count()).unwrap_or(i32::MAX / 16)
}

/// Where the last legend entry ends, by the same estimate.
#[cfg(test)]
fn legend_end(names: &[&str]) -> i32 {
    let last = names.last().map_or(0, |n| entry_width(n));
    legend_x(names).last().map_or(0, |x| x + last)
}

/// Horizontal bars, one panel per size, one bar per series in each row.
fn bar_chart(
    path: &Path,
    title: &str,
    rows: &[Row],
    series: &[(&str, RGBColor, Metric)],
) -> DrawResult {
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.n).collect();
    sizes.dedup();
    let per_size = rows.iter().filter(|r| r.n == sizes[0]).count().max(1);
    let panel_height = 70 + row_height(series.len()) * per_size as u32;
    let root = SVGBackend::new(
        path,
        (WIDTH, HEADER_HEIGHT + panel_height * sizes.len() as u32),
    )
    .into_drawing_area();
    root.fill(&WHITE)?;
    let (header, body) = root.split_vertically(HEADER_HEIGHT);
    header.draw(&Text::new(
        format!("{title}; [crate] marks a peer"),
        (20, 10),
        (FONT, 22),
    ))?;
    let names: Vec<&str> = series.iter().map(|(name, _, _)| *name).collect();
    for ((name, color, _), x) in series.iter().zip(legend_x(&names)) {
        header.draw(&Rectangle::new(
            [(x, LEGEND_Y), (x + 16, LEGEND_Y + 14)],
            color.filled(),
        ))?;
        header.draw(&Text::new(name.to_string(), (x + 22, LEGEND_Y), (FONT, 15)))?;
    }
    let panels = body.split_evenly((sizes.len(), 1));
    for (panel, &n) in panels.iter().zip(&sizes) {
        let panel_rows: Vec<&Row> = rows.iter().filter(|r| r.n == n).collect();
        bar_panel(&root, panel, n, &panel_rows, series)?;
    }
    root.present()?;
    Ok(())
}

fn bar_panel(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
    n: usize,
    rows: &[&Row],
    series: &[(&str, RGBColor, Metric)],
) -> DrawResult {
    let max = rows
        .iter()
        .flat_map(|r| series.iter().filter_map(move |(_, _, m)| m(r)))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max);
    let height = rows.len() as f64;
    let mut chart = ChartBuilder::on(panel)
        .caption(format!("{} keys", count(n)), (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(300)
        .build_cartesian_2d(0f64..max * 1.12, 0f64..height)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc("ns per key")
        .draw()?;
    let lane = 0.8 / series.len() as f64;
    for (i, r) in rows.iter().enumerate() {
        // First row at the top.
        let y0 = height - 1.0 - i as f64 + 0.1;
        for (j, (_, color, metric)) in series.iter().enumerate() {
            let Some(v) = metric(r).filter(|v| v.is_finite()) else {
                continue;
            };
            let (a, b) = (
                y0 + lane * (series.len() - 1 - j) as f64,
                y0 + lane * (series.len() - j) as f64,
            );
            chart.draw_series(std::iter::once(Rectangle::new(
                [(0.0, a), (v, b)],
                color.filled(),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("{v:.1}"),
                (v, (a + b) / 2.0),
                TextStyle::from((FONT, 11)).pos(Pos::new(HPos::Left, VPos::Center)),
            )))?;
        }
        let (px, py) = chart.backend_coord(&(0.0, y0 + 0.4));
        let style =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
        let style = if r.entry.peer {
            style.color(&RGBColor(90, 90, 90))
        } else {
            style
        };
        root.draw(&Text::new(r.label(), (px - 8, py), style))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_legend_entry_fits_on_the_canvas() {
        // The series of both bar charts, as `write` draws them.
        let lookup = [
            "member (hit)",
            "non-member (miss)",
            "half and half, shuffled",
        ];
        let build = [
            "build / insert",
            "build batched",
            "remove",
            "remove batched",
        ];
        for names in [&lookup[..], &build[..]] {
            let xs = legend_x(names);
            assert_eq!(xs.len(), names.len());
            assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
            assert!(
                legend_end(names) < i32::try_from(WIDTH).unwrap(),
                "{names:?}: {xs:?}"
            );
        }
    }

    #[test]
    fn a_stamped_svg_says_it_is_generated_and_is_otherwise_unchanged() {
        let path =
            std::env::temp_dir().join(format!("xtask-stamp-test-{}.svg", std::process::id()));
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n";
        std::fs::write(&path, svg).unwrap();
        stamp(&path).unwrap();
        let stamped = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            stamped,
            format!("<!-- generated by `cargo xtask compare`, do not edit -->\n{svg}")
        );
        // "--" may not appear inside an XML comment.
        assert!(!super::super::report::GENERATED.contains("--"));
    }
}
