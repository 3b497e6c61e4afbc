//! Integration tests of `experiments::plot`: render real SVG/PNG files from a small tidy CSV.

use std::fs;
use std::io::Cursor;
use std::path::Path;

use experiments::plot::*;

/// Two algorithms x three client counts x three seeds, plus a `topo` facet column.
fn write_metrics(dir: &Path) {
    let mut csv = String::from("algo,topo,n,seed,delay_ms\n");
    for (algo, base) in [("spd", 10.0), ("naive", 25.0)] {
        for topo in ["ring", "mesh"] {
            for n in [10, 20, 40] {
                for seed in 1..=3 {
                    let v = base
                        + n as f64 * 0.5
                        + seed as f64
                        + if topo == "mesh" { 3.0 } else { 0.0 };
                    csv.push_str(&format!("{algo},{topo},{n},{seed},{v}\n"));
                }
            }
        }
    }
    // A row with a missing value must be skipped, not break the plot.
    csv.push_str("spd,ring,80,1,\n");
    fs::write(dir.join("metrics.csv"), csv).unwrap();
}

/// Decodes a PNG file, returning (width, height, RGB(A) pixel bytes, bytes per pixel).
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>, usize) {
    let bytes = fs::read(path).unwrap();
    assert!(
        bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]),
        "{} lacks the PNG signature",
        path.display()
    );
    let mut reader = png::Decoder::new(Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf, info.color_type.samples())
}

/// The contents of all `<text>` elements of an SVG, trimmed, in document order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(t[start..end].trim().to_owned())
        })
        .collect()
}

/// Position of the text element whose content is exactly `s`.
fn text_pos(svg: &str, s: &str) -> Option<usize> {
    texts(svg).iter().position(|t| t == s)
}

/// The `width`/`height` attributes of the SVG root element.
fn svg_size(svg: &str) -> (u32, u32) {
    let attr = |name: &str| -> u32 {
        let key = format!(" {name}=\"");
        let start = svg.find(&key).unwrap() + key.len();
        let end = start + svg[start..].find('"').unwrap();
        svg[start..end].parse().unwrap()
    };
    (attr("width"), attr("height"))
}

fn line_spec() -> PlotSpec {
    PlotSpec::new("delay_line", "metrics", PlotKind::Line, "n", "delay_ms")
        .with_title("Delay vs clients")
        .with_series("algo")
        .with_filter("topo", "ring")
        .with_aggregate(Aggregate::MeanWithStdErr)
}

fn cdf_spec() -> PlotSpec {
    PlotSpec::new("delay_cdf", "metrics", PlotKind::Cdf, "", "delay_ms")
        .with_title("Delay CDF")
        .with_series("algo")
}

#[test]
fn line_and_cdf_render_svg_and_png() {
    let tmp = crate::scratch("plot-line-cdf");
    let dir = tmp.path();
    write_metrics(dir);
    let files = render_all(dir, &[line_spec(), cdf_spec()]).unwrap();
    assert_eq!(
        files,
        [
            dir.join("plots/delay_line.svg"),
            dir.join("plots/delay_line.png"),
            dir.join("plots/delay_cdf.svg"),
            dir.join("plots/delay_cdf.png"),
        ]
    );
    for (stem, title) in [
        ("delay_line", "Delay vs clients"),
        ("delay_cdf", "Delay CDF"),
    ] {
        let svg = fs::read_to_string(dir.join(format!("plots/{stem}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{stem}: not an SVG");
        assert_eq!(texts(&svg)[0], title, "{stem}: title missing");
        // Legend labels, in sorted (lexicographic) order.
        let naive = text_pos(&svg, "algo=naive").expect("legend label algo=naive");
        let spd = text_pos(&svg, "algo=spd").expect("legend label algo=spd");
        assert!(naive < spd, "{stem}: legend not sorted");
        // No temporary files left behind.
        assert!(!dir.join(format!("plots/{stem}.svg.tmp")).exists());

        let (w, h, pixels, bpp) = decode_png(&dir.join(format!("plots/{stem}.png")));
        assert_eq!((w, h), svg_size(&svg), "{stem}: PNG and SVG sizes differ");
        assert!(w >= 640 && h >= 440, "{stem}: implausible size {w}x{h}");
        assert_eq!(pixels.len(), (w * h) as usize * bpp);
        // Both series colours appear in the raster (palette entries 0 and 1).
        for c in &PALETTE[..2] {
            assert!(
                pixels.chunks(bpp).any(|p| p[..3] == [c.0, c.1, c.2]),
                "{stem}: colour {c:?} not drawn"
            );
        }
    }
    let line = fs::read_to_string(dir.join("plots/delay_line.svg")).unwrap();
    assert!(texts(&line).iter().any(|t| t == "delay_ms (mean ± s.e.)"));
}

#[test]
fn error_bars_are_drawn_for_every_aggregated_point() {
    let tmp = crate::scratch("plot-errbars");
    let dir = tmp.path();
    write_metrics(dir);
    let count = |agg: Aggregate| {
        let spec = PlotSpec {
            aggregate: agg,
            ..line_spec()
        };
        render(dir, &spec).unwrap();
        let svg = fs::read_to_string(dir.join("plots/delay_line.svg")).unwrap();
        // Polylines in the first two series colours (the axes and grid are grey/black).
        PALETTE[..2]
            .iter()
            .map(|c| {
                let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
                svg.lines()
                    .filter(|l| l.starts_with("<polyline") && l.contains(&stroke))
                    .count()
            })
            .collect::<Vec<_>>()
    };
    // Per series: the data line, plus for each of the 3 x values a vertical segment and two caps
    // (+ the legend swatch line).
    assert_eq!(count(Aggregate::Mean), [2, 2]);
    assert_eq!(count(Aggregate::MeanWithStdErr), [2 + 9, 2 + 9]);
}

#[test]
fn numeric_series_order_and_single_point() {
    let tmp = crate::scratch("plot-numeric");
    let dir = tmp.path();
    fs::write(dir.join("t.csv"), "k,x,y\n10,1,1\n5,1,2\n40,1,3\n").unwrap();
    let spec = PlotSpec::new("one", "t", PlotKind::Scatter, "x", "y").with_series("k");
    render(dir, &spec).unwrap();
    let svg = fs::read_to_string(dir.join("plots/one.svg")).unwrap();
    let pos: Vec<usize> = ["k=5", "k=10", "k=40"]
        .iter()
        .map(|l| text_pos(&svg, l).unwrap_or_else(|| panic!("legend {l} missing")))
        .collect();
    assert!(
        pos[0] < pos[1] && pos[1] < pos[2],
        "numeric order expected: {pos:?}"
    );
    // A single point per series (all x equal) still renders, and log axes do too.
    let spec = PlotSpec::new("single", "t", PlotKind::Line, "x", "y")
        .with_filter("k", "5")
        .with_log(true, true);
    render(dir, &spec).unwrap();
    assert!(dir.join("plots/single.png").exists());
}

#[test]
fn rendering_is_deterministic() {
    let tmp = crate::scratch("plot-determinism");
    let dir = tmp.path();
    write_metrics(dir);
    let spec = line_spec().with_facet("topo");
    let spec = PlotSpec {
        filter: Vec::new(),
        ..spec
    };
    render(dir, &spec).unwrap();
    let svg1 = fs::read(dir.join("plots/delay_line.svg")).unwrap();
    let png1 = fs::read(dir.join("plots/delay_line.png")).unwrap();
    render(dir, &spec).unwrap();
    assert_eq!(svg1, fs::read(dir.join("plots/delay_line.svg")).unwrap());
    assert_eq!(png1, fs::read(dir.join("plots/delay_line.png")).unwrap());
    let svg = String::from_utf8(svg1).unwrap();
    assert!(text_pos(&svg, "topo=mesh").unwrap() < text_pos(&svg, "topo=ring").unwrap());
}

#[test]
fn filter_removes_series_and_changes_output() {
    let tmp = crate::scratch("plot-filter");
    let dir = tmp.path();
    write_metrics(dir);
    let all = line_spec();
    render(dir, &all).unwrap();
    let svg_all = fs::read_to_string(dir.join("plots/delay_line.svg")).unwrap();
    let only_spd = line_spec().with_filter("algo", "spd");
    render(dir, &only_spd).unwrap();
    let svg_spd = fs::read_to_string(dir.join("plots/delay_line.svg")).unwrap();
    assert!(text_pos(&svg_all, "algo=naive").is_some());
    assert!(text_pos(&svg_spd, "algo=naive").is_none());
    assert!(text_pos(&svg_spd, "algo=spd").is_some());
}

#[test]
fn bar_scatter_and_log_axes_render() {
    let tmp = crate::scratch("plot-bar");
    let dir = tmp.path();
    write_metrics(dir);
    let bar = PlotSpec::new("bars", "metrics", PlotKind::Bar, "topo", "delay_ms")
        .with_series("algo")
        .with_aggregate(Aggregate::MeanWithStdErr);
    let scatter = PlotSpec::new("scatter", "metrics", PlotKind::Scatter, "n", "delay_ms")
        .with_facet("algo")
        .with_log(true, true)
        .with_aggregate(Aggregate::Median);
    let files = render_all(dir, &[bar, scatter]).unwrap();
    assert_eq!(files.len(), 4);
    let bars = fs::read_to_string(&files[0]).unwrap();
    // Categories become tick labels.
    assert!(text_pos(&bars, "mesh").unwrap() < text_pos(&bars, "ring").unwrap());
    let scatter = fs::read_to_string(&files[2]).unwrap();
    assert!(text_pos(&scatter, "algo=naive").is_some() && text_pos(&scatter, "algo=spd").is_some());
}

#[test]
fn missing_column_is_named() {
    let tmp = crate::scratch("plot-missing-col");
    let dir = tmp.path();
    write_metrics(dir);
    let spec = PlotSpec::new("bad", "metrics", PlotKind::Line, "n", "latency");
    let err = format!("{:#}", render(dir, &spec).unwrap_err());
    assert!(err.contains("'latency'"), "{err}");
    assert!(
        err.contains("delay_ms"),
        "available columns not listed: {err}"
    );
    assert!(!dir.join("plots/bad.svg").exists());
}

#[test]
fn missing_table_and_no_data_errors() {
    let tmp = crate::scratch("plot-errors");
    let dir = tmp.path();
    write_metrics(dir);
    let spec = PlotSpec::new("x", "nope", PlotKind::Line, "n", "delay_ms");
    let err = format!("{:#}", render(dir, &spec).unwrap_err());
    assert!(
        err.contains("nope.csv") && err.contains("does not exist"),
        "{err}"
    );

    let spec =
        PlotSpec::new("x", "metrics", PlotKind::Line, "n", "delay_ms").with_filter("algo", "zzz");
    let err = format!("{:#}", render(dir, &spec).unwrap_err());
    assert!(err.contains("no numeric data"), "{err}");

    fs::write(dir.join("text.csv"), "a,b\n1,\n2,NA\n").unwrap();
    let spec = PlotSpec::new("x", "text", PlotKind::Scatter, "a", "b");
    let err = format!("{:#}", render(dir, &spec).unwrap_err());
    assert!(err.contains("no numeric data"), "{err}");

    fs::write(dir.join("bad.csv"), "a,b\n1,2\n2,oops\n").unwrap();
    let spec = PlotSpec::new("x", "bad", PlotKind::Scatter, "a", "b");
    let err = format!("{:#}", render(dir, &spec).unwrap_err());
    assert!(err.contains("'oops'") && err.contains("'b'"), "{err}");
}

#[test]
fn spec_serde_round_trip_and_defaults() {
    let spec = line_spec()
        .with_facet("topo")
        .with_labels("clients", "delay [ms]");
    let json = serde_json::to_string(&spec).unwrap();
    let back: PlotSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(back, spec);
    let minimal: PlotSpec = serde_json::from_str(
        r#"{"name":"c","table":"metrics","kind":"cdf","y":"delay_ms","aggregate":"MeanWithStdErr"}"#,
    )
    .unwrap();
    assert_eq!(minimal.kind, PlotKind::Cdf);
    assert_eq!(minimal.aggregate, Aggregate::MeanWithStdErr);
    assert!(minimal.series.is_none() && minimal.filter.is_empty() && !minimal.log_x);
    assert!(
        serde_json::from_str::<PlotSpec>(
            r#"{"name":"c","table":"t","kind":"cdf","y":"v","colour":1}"#
        )
        .is_err()
    );
}

/// A swept key shown through the table's own column of the same name (`params.ring` as the
/// `ring` series) is not reported as averaged over; a key the plot does not show still is.
#[test]
fn a_swept_key_shown_by_its_short_column_counts_as_shown() {
    use experiments::plot::{Aggregate, PlotKind, PlotSpec, cover_swept_keys};
    use experiments::scenario::SweepAxis;
    let axis = |key: &str| SweepAxis {
        key: key.to_owned(),
        values: vec![toml::Value::Integer(1), toml::Value::Integer(2)],
    };
    let spec = PlotSpec::new("hops", "hops", PlotKind::Line, "nodes", "hops")
        .with_title("Hops")
        .with_series("ring")
        .with_facet("cache")
        .with_aggregate(Aggregate::Mean);
    let out = cover_swept_keys(vec![spec], &[axis("params.ring"), axis("topology.hosts")]);
    assert_eq!(out[0].series.as_deref(), Some("ring"));
    assert_eq!(out[0].title, "Hops (averaged over topology.hosts)");
}

#[test]
fn confidence_intervals_and_paper_values_are_drawn() {
    let tmp = crate::scratch("plot-ref");
    let dir = tmp.path();
    write_metrics(dir);
    let spec = line_spec()
        .with_aggregate(Aggregate::MeanWithCi95)
        .with_filter("topo", "ring")
        .with_reference(Reference::line(60.0))
        .with_reference(Reference::point(20.0, 5.0).labelled("paper (Fig. 9)"));
    render(dir, &spec).unwrap();
    let svg = fs::read_to_string(dir.join("plots").join(format!("{}.svg", spec.name))).unwrap();
    let t = texts(&svg);
    assert!(t.iter().any(|s| s == "paper"), "{t:?}");
    assert!(t.iter().any(|s| s == "paper (Fig. 9)"), "{t:?}");
    assert!(t.iter().any(|s| s.contains("mean ± 95 % CI")), "{t:?}");
    // The axis reaches the reference values, far outside the data (13.5-48 ms).
    let without = line_spec()
        .with_aggregate(Aggregate::MeanWithCi95)
        .with_filter("topo", "ring");
    render(
        dir,
        &PlotSpec {
            name: "plain".into(),
            ..without
        },
    )
    .unwrap();
    let plain = fs::read_to_string(dir.join("plots/plain.svg")).unwrap();
    assert!(texts(&plain).iter().all(|s| s != "paper"));
    assert_ne!(texts(&plain), t);
}
