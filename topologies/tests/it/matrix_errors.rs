//! Latency-matrix readers: options, and errors naming file, line and column.

use std::io::Write;
use std::path::PathBuf;
use tempfile::TempDir;

use topologies::matrix::{parse_matrix, parse_triples};
use topologies::{
    FrameSelect, LatencyMatrix, MatrixOptions, Missing, TimeUnit, TripleOptions, read_frames,
    read_matrix, read_triples,
};

/// Write `content` to the file `name` in `dir`; its path.
fn file(dir: &TempDir, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn err_of(s: &TempDir, name: &str, content: &str) -> String {
    let p = file(s, name, content.as_bytes());
    read_matrix(&p, &MatrixOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn ragged_row() {
    let s = crate::scratch("ragged");
    let e = err_of(&s, "ragged.tsv", "0\t1\t2\n1\t0\n2\t1\t0\n");
    assert!(e.contains("ragged.tsv:2:4:"), "{e}");
    assert!(
        e.contains("expected 3 values (as in line 1), found 2"),
        "{e}"
    );
    let e = err_of(&s, "long.tsv", "0 1 2\n1 0 3\n2 1 0 9\n");
    assert!(e.contains("long.tsv:3:7:") && e.contains("found 4"), "{e}");
}

#[test]
fn non_number() {
    let s = crate::scratch("nonnum");
    let e = err_of(&s, "bad.tsv", "0\t1\t2\n1\t0\t3\n2\tx1\t0\n");
    assert!(e.contains("bad.tsv:3:3:"), "{e}");
    assert!(e.contains("expected a number, found \"x1\""), "{e}");
    let e = err_of(&s, "inf.tsv", "0 inf\n1 0\n");
    assert!(e.contains("inf.tsv:1:3:"), "{e}");
}

#[test]
fn non_square() {
    let s = crate::scratch("nonsq");
    let e = err_of(&s, "short.tsv", "0 1 2\n1 0 3\n");
    assert!(
        e.contains("short.tsv:3:1:") && e.contains("non-square") && e.contains("only 2 rows"),
        "{e}"
    );
    let e = err_of(&s, "tall.tsv", "0 1\n1 0\n2 2\n");
    assert!(
        e.contains("tall.tsv:3:1:") && e.contains("non-square"),
        "{e}"
    );
    let e = err_of(&s, "empty.tsv", "\n\n");
    assert!(e.contains("empty.tsv:3:1:") && e.contains("no data"), "{e}");
}

#[test]
fn negative_value() {
    let s = crate::scratch("neg");
    let e = err_of(&s, "neg.tsv", "0 1\n-2.5 0\n");
    assert!(
        e.contains("neg.tsv:2:1:") && e.contains("negative latency -2.5"),
        "{e}"
    );
    // the same value is fine when it is the missing marker or negatives are missing
    let p = file(&s, "neg2.tsv", b"0 1\n-1 0\n");
    let m = read_matrix(
        &p,
        &MatrixOptions {
            missing: Missing::Value(-1.0),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(m.get(1, 0).is_nan());
    let e = read_matrix(
        file(&s, "neg3.tsv", b"0 -2\n-1 0\n"),
        &MatrixOptions {
            missing: Missing::Value(-1.0),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("neg3.tsv:1:3:"), "{e}");
    let m = read_matrix(
        file(&s, "neg4.tsv", b"0 -2 3\n-1 0 -7\n3 -4 0\n"),
        &MatrixOptions {
            missing: Missing::Negative,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(m.missing_off_diagonal(), 4);
}

#[test]
fn missing_units_and_gzip() {
    let text = "0.5\t0\t0.02\n0\t0\tnan\n0.03\t0.04\t0\n";
    let m = parse_matrix(text.as_bytes(), None, &MatrixOptions::seattle()).unwrap();
    // seconds -> ms, zero off-diagonal missing, diagonal forced to 0
    assert_eq!(m.get(0, 0), 0.0);
    assert!(m.get(0, 1).is_nan() && m.get(1, 0).is_nan() && m.get(1, 2).is_nan());
    assert!((m.get(0, 2) - 20.0).abs() < 1e-12);
    assert_eq!(m.get(1, 1), 0.0);
    let us = parse_matrix(
        "0 1500\n2 0\n".as_bytes(),
        None,
        &MatrixOptions {
            unit: TimeUnit::Micros,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(us.data, vec![0.0, 1.5, 0.002, 0.0]);

    let s = crate::scratch("gz");
    let p = s.path().join("m.tsv.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&p).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(b"0 1 2\n1 0 3\n2 3 0\n").unwrap();
    enc.finish().unwrap();
    let m = read_matrix(&p, &MatrixOptions::default()).unwrap();
    assert_eq!(
        m,
        LatencyMatrix {
            n: 3,
            data: vec![0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 2.0, 3.0, 0.0]
        }
    );
    assert!(matches!(
        read_matrix(s.path().join("absent.tsv"), &MatrixOptions::default()),
        Err(topologies::ReadError::Io { .. })
    ));
}

#[test]
fn frames_single_and_median() {
    let s = crate::scratch("frames");
    let p = file(&s, "f.tsv", b"0 1\n1 0\n0 3\n5 0\n0 2\nnan 0\n");
    // NaN is read as missing only with a missing-value convention
    let o = MatrixOptions {
        missing: Missing::Value(f64::NAN),
        ..MatrixOptions::default()
    };
    assert_eq!(
        read_frames(&p, None, FrameSelect::Frame(2), &o)
            .unwrap()
            .data,
        vec![0.0, 3.0, 5.0, 0.0]
    );
    // median of (1,3,2) = 2 and of (1,5) ignoring NaN = 3
    assert_eq!(
        read_frames(&p, None, FrameSelect::Median, &o).unwrap().data,
        vec![0.0, 2.0, 3.0, 0.0]
    );
    let e = read_frames(&p, None, FrameSelect::Frame(4), &o)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}:7:1: frame 4 is missing: the file ends after 3 frames of 2 rows",
            p.display()
        )
    );
    let p2 = file(&s, "g.tsv", b"0 1\n1 0\n0 3\n");
    let e = read_frames(&p2, None, FrameSelect::Median, &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("g.tsv:4:1: frame 2 (from line 3) is incomplete: it has 1 of its 2 rows"),
        "{e}"
    );
    let e = read_frames(&p2, Some(3), FrameSelect::Median, &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("g.tsv:1:4:") && e.contains("expected 3 values (as requested)"),
        "{e}"
    );
}

#[test]
fn triples() {
    let text = "# i j rtt\n1 2 10\n2 3 20\n3 1 -1\n";
    let o = TripleOptions {
        one_based: true,
        symmetric: true,
        values: MatrixOptions {
            missing: Missing::Value(-1.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let m = parse_triples(text.as_bytes(), None, &o).unwrap();
    assert_eq!(m.n, 3);
    assert_eq!(
        (m.get(0, 1), m.get(1, 0), m.get(1, 2), m.get(2, 1)),
        (10.0, 10.0, 20.0, 20.0)
    );
    assert!(m.get(2, 0).is_nan() && m.get(0, 2).is_nan());
    assert_eq!(m.get(1, 1), 0.0);
    // asymmetric, 0-based, explicit n
    let m = parse_triples(
        "0 1 5\n1 0 7\n".as_bytes(),
        None,
        &TripleOptions {
            n: Some(4),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((m.n, m.get(0, 1), m.get(1, 0)), (4, 5.0, 7.0));
    assert!(m.get(3, 2).is_nan());

    let s = crate::scratch("triples");
    let bad = |content: &str, o: &TripleOptions| {
        read_triples(file(&s, "t.txt", content.as_bytes()), o)
            .unwrap_err()
            .to_string()
    };
    let e = bad("0 1 5\n0 q 5\n", &TripleOptions::default());
    assert!(e.contains("t.txt:2:3:") && e.contains("node index"), "{e}");
    let e = bad("0 1 5\n0 1 6\n", &TripleOptions::default());
    assert!(e.contains("t.txt:2:1:") && e.contains("duplicate"), "{e}");
    let e = bad("0 1\n", &TripleOptions::default());
    assert!(
        e.contains("t.txt:1:4:") && e.contains("three fields"),
        "{e}"
    );
    let e = bad(
        "0 5 1\n",
        &TripleOptions {
            n: Some(3),
            ..Default::default()
        },
    );
    assert!(
        e.contains("t.txt:1:3:") && e.contains("out of range"),
        "{e}"
    );
    let e = bad("1 0 1\n", &o);
    assert!(e.contains("t.txt:1:3:") && e.contains("1-based"), "{e}");
    let e = bad("0 1 -3\n", &TripleOptions::default());
    assert!(e.contains("t.txt:1:5:") && e.contains("negative"), "{e}");
}

#[test]
fn matrix_helpers() {
    let m = LatencyMatrix::from_fn(4, |i, j| (10 * i + j) as f64);
    let s = m.subset(&[3, 1]);
    assert_eq!(s.data, vec![33.0, 31.0, 13.0, 11.0]);
    assert!(!m.is_symmetric(0.0));
    let mut t = m.clone();
    t.symmetrize(topologies::Symmetrize::Min);
    assert_eq!((t.get(0, 3), t.get(3, 0)), (3.0, 3.0));
    assert_eq!(m.to_tsv(1.0, 6).lines().next(), Some("0\t1\t2\t3"));
}

#[test]
fn nan_without_missing_marker_is_an_error() {
    let s = crate::scratch("nan");
    // default (missing = none): an error at the NaN's line and column, saying what to set
    let e = err_of(&s, "nan.tsv", "0 1 2\n1 0 NaN\n2 3 0\n");
    assert!(
        e.contains("nan.tsv:2:5: NaN without a missing-value marker; set missing = nan"),
        "{e}"
    );
    let e = err_of(&s, "na.tsv", "0 NA\n1 0\n");
    assert!(
        e.contains("na.tsv:1:3: NA without a missing-value marker"),
        "{e}"
    );
    // the same in frames and triples
    let p = file(&s, "f.tsv", b"0 1\n1 0\n0 nan\n1 0\n");
    let e = read_frames(&p, None, FrameSelect::Median, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("f.tsv:3:3: nan without a missing-value marker"),
        "{e}"
    );
    let e = read_triples(file(&s, "t.txt", b"0 1 nan\n"), &TripleOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.txt:1:5: nan without"), "{e}");
    // with a convention, NaN is missing
    for missing in [
        Missing::Value(f64::NAN),
        Missing::Value(-1.0),
        Missing::Negative,
        Missing::ZeroOffDiagonal,
    ] {
        let m = parse_matrix(
            "0 1 2\n1 0 NaN\n2 3 0\n".as_bytes(),
            None,
            &MatrixOptions {
                missing,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(m.get(1, 2).is_nan(), "{missing:?}");
        assert_eq!(m.missing_off_diagonal(), 1);
    }
}

#[test]
fn fewer_than_two_nodes_rejected() {
    let s = crate::scratch("small");
    let e = err_of(&s, "one.tsv", "\n0\n");
    assert!(
        e.contains("one.tsv:2:1: a latency matrix needs at least 2 nodes") && e.contains("1 × 1"),
        "{e}"
    );
    let p = file(&s, "one-frame.tsv", b"0\n0\n");
    let e = read_frames(&p, None, FrameSelect::Median, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("one-frame.tsv:1:1: a latency matrix needs at least 2"),
        "{e}"
    );
    let e = read_frames(&p, Some(1), FrameSelect::Median, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("frame size must be in 2..="), "{e}");
    // no rows at all, with the frame size given (was accepted as a matrix of NaN)
    for text in [&b""[..], b"\n\n"] {
        let p = file(&s, "empty.tsv", text);
        let e = read_frames(&p, Some(3), FrameSelect::Median, &MatrixOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("empty.tsv:") && e.contains("expected a matrix, found no data"),
            "{e}"
        );
    }
    let e = read_triples(file(&s, "t.txt", b"0 0 0\n"), &TripleOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.txt:2:1: a latency matrix needs at least 2 nodes"),
        "{e}"
    );
    let e = read_triples(file(&s, "e.txt", b"# nothing\n"), &TripleOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("found 0"), "{e}");
}

#[test]
fn unreadable_content_names_file_and_line() {
    let s = crate::scratch("binary");
    // bytes that are not text
    let p = file(&s, "bin.tsv", b"0 1\n1 \xff\xfe0\n");
    let e = read_matrix(&p, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bin.tsv:2:3: expected text, found the byte 0xff (not UTF-8)"),
        "{e}"
    );
    // a gzip file cut in the middle, and one that is not gzip at all
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(
            &(0..300)
                .map(|j| format!("{}", (i * j) % 97))
                .collect::<Vec<_>>()
                .join(" "),
        );
        text.push('\n');
    }
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let p = file(&s, "cut.tsv.gz", &gz[..gz.len() / 2]);
    let e = read_matrix(&p, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{}:", p.display())), "{e}");
    assert!(e.contains(": cannot read this line: "), "{e}");
    let line: usize = e[p.display().to_string().len() + 1..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((2..300).contains(&line), "{e}");
    let p = file(&s, "plain.tsv.gz", b"0 1 2 3\n1 0 2 3\n2 2 0 3\n3 3 3 0\n");
    let e = read_matrix(&p, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("plain.tsv.gz:1:1: cannot read this line: invalid gzip header"),
        "{e}"
    );
    // huge values that overflow when converted to ms
    let e = read_matrix(
        file(&s, "big.tsv", b"0 1e308\n1 0\n"),
        &MatrixOptions {
            unit: TimeUnit::Seconds,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("big.tsv:1:3: latency 1e308 is above the largest accepted"),
        "{e}"
    );
}

#[test]
fn io_errors_say_what_happened_once() {
    let s = crate::scratch("io");
    let absent = s.path().join("absent.tsv");
    let e = read_matrix(&absent, &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("{}: no such file", absent.display()));
    let e = read_matrix(s.path(), &MatrixOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!("{}: is a directory, not a file", s.path().display())
    );
    let e = topologies::read_brite(s.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: is a directory, not a file", s.path().display())
    );
    // the message is not repeated through the error's source chain
    assert!(std::error::Error::source(&e).is_none());
}

#[test]
fn triples_limits_and_duplicates() {
    // an index far beyond any real data set is an error, not a 10^12-cell allocation
    let e = parse_triples(
        "0 1 5\n999999 1 3\n".as_bytes(),
        None,
        &TripleOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("<input>:2:1: index 999999 out of range (matrices of more than 50000"),
        "{e}"
    );
    let e = parse_triples(
        "0 1 5\n".as_bytes(),
        None,
        &TripleOptions {
            n: Some(usize::MAX),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("matrix size must be in 2..=50000"), "{e}");
    // a duplicate names both lines, whatever their distance
    let e = parse_triples(
        "0 1 5\n1 2 3\n0 1 6\n".as_bytes(),
        None,
        &TripleOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("<input>:3:1: duplicate entry for pair (0, 1) (0-based; first given on line 1)"),
        "{e}"
    );
}

#[test]
fn latencies_above_a_billion_ms_and_matrices_with_no_measured_pair_are_refused() {
    let s = crate::scratch("huge-or-empty");
    // 1e308 ms passed before, and a mean over the matrix became infinite.
    let e = err_of(&s, "huge.tsv", "0 1e308\n1e308 0\n");
    assert!(
        e.contains("huge.tsv:1:3:") && e.contains("largest accepted"),
        "{e}"
    );
    // 2e6 s = 2e9 ms after the unit conversion.
    let p = file(&s, "secs.tsv", b"0 2e6\n2e6 0\n");
    let opts = MatrixOptions {
        unit: TimeUnit::Seconds,
        ..MatrixOptions::default()
    };
    let e = read_matrix(&p, &opts).unwrap_err().to_string();
    assert!(e.contains("secs.tsv:1:3:"), "{e}");
    // 1e9 ms itself is accepted.
    assert!(parse_matrix(&b"0 1e9\n1e9 0\n"[..], None, &MatrixOptions::default()).is_ok());
    // Every pair missing: square, frames and triples.
    let nan = MatrixOptions {
        missing: Missing::Value(-1.0),
        ..MatrixOptions::default()
    };
    let e = parse_matrix(&b"0 -1 -1\n-1 0 -1\n-1 -1 0\n"[..], None, &nan)
        .unwrap_err()
        .to_string();
    assert!(e.contains("every latency between distinct nodes"), "{e}");
    let p = file(&s, "frames.tsv", b"0 -1\n-1 0\n0 -1\n-1 0\n");
    let e = read_frames(&p, None, FrameSelect::Median, &nan)
        .unwrap_err()
        .to_string();
    assert!(e.contains("every latency between distinct nodes"), "{e}");
    // With the frame size given, the error still points at the first row (line 2 here, after
    // a blank line), not at a sentinel line number.
    let p = file(&s, "frames-n.tsv", b"\n0 -1\n-1 0\n");
    let e = read_frames(&p, Some(2), FrameSelect::Median, &nan)
        .unwrap_err()
        .to_string();
    assert!(e.contains("frames-n.tsv:2:1:"), "{e}");
    let t = TripleOptions {
        n: Some(3),
        ..TripleOptions::default()
    };
    let e = parse_triples(&b"0 0 0\n"[..], None, &t)
        .unwrap_err()
        .to_string();
    assert!(e.contains("every latency between distinct nodes"), "{e}");
    // One measured pair is enough.
    assert!(parse_matrix(&b"0 5 -1\n5 0 -1\n-1 -1 0\n"[..], None, &nan).is_ok());
}
