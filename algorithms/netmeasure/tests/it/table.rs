//! The table types agree with each other and reject bad shapes.

use netmeasure::{DenseTable, FnTable, LatencyTable, RowMajor, TableError, is_usable_rtt};

#[test]
fn three_implementations_agree() {
    let data: Vec<f64> = (0..9).map(f64::from).collect();
    let view = RowMajor::new(&data, 3).unwrap();
    let owned = DenseTable::from_vec(data.clone(), 3).unwrap();
    let f = FnTable::new(3, |i, j| (3 * i + j) as f64);
    for i in 0..3 {
        for j in 0..3 {
            let x = data[i * 3 + j];
            assert_eq!(view.get(i, j), x);
            assert_eq!(owned.get(i, j), x);
            assert_eq!(f.get(i, j), x);
            // through a reference, as generic code receives it
            assert_eq!(LatencyTable::get(&&owned, i, j), x);
        }
    }
    assert_eq!(DenseTable::from_table(&f), owned);
    assert_eq!(owned.view(), view);
    assert_eq!(owned.clone().into_vec(), data);
    assert_eq!((view.n(), owned.n(), f.n()), (3, 3, 3));
    // Row-major order of calls in from_fn.
    let mut calls = Vec::new();
    let _ = DenseTable::from_fn(2, |i, j| {
        calls.push((i, j));
        0.0
    });
    assert_eq!(calls, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
}

#[test]
fn bad_shapes_and_set() {
    assert_eq!(
        RowMajor::new(&[0.0; 5], 2),
        Err(TableError::BadLength { len: 5, n: 2 })
    );
    assert!(DenseTable::from_vec(vec![0.0; 3], 2).is_err());
    // n * n overflowing usize is a shape error, not a panic.
    assert!(RowMajor::new(&[], usize::MAX).is_err());
    assert!(RowMajor::new(&[], 0).is_ok());
    let mut t = DenseTable::from_fn(2, |_, _| 0.0);
    t.set(1, 0, 7.5);
    assert_eq!(t.as_slice(), &[0.0, 0.0, 7.5, 0.0]);
    let e = TableError::BadLength { len: 5, n: 2 }.to_string();
    assert!(e.contains("5 entries") && e.contains("2*2"), "{e}");
}

#[test]
#[should_panic(expected = "out of range")]
fn row_major_checks_the_column() {
    // (0, 3) would be a valid flat index of a 2 × 2 slice; the table must still refuse it.
    let d = [1.0, 2.0, 3.0, 4.0];
    RowMajor::new(&d, 2).unwrap().get(0, 3);
}

#[test]
fn usable_rtt() {
    assert!(is_usable_rtt(0.1));
    for bad in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(!is_usable_rtt(bad), "{bad}");
    }
}
