//! The workspace's one quantile definition (type 7): the engine's histograms, the frame
//! median of measured matrices and the plots agree bit for bit with `netmeasure`, which
//! the algorithm crates use.

use proptest::prelude::*;

proptest! {
    #[test]
    fn engine_and_topologies_agree_with_netmeasure(
        mut v in proptest::collection::vec(-1e6f64..1e6, 1..60),
        q in 0.0f64..=1.0,
    ) {
        v.sort_by(f64::total_cmp);
        let ours = netmeasure::quantile::quantile_sorted(&v, q).unwrap();
        prop_assert_eq!(sim_core::metrics::quantile_sorted(&v, q).to_bits(), ours.to_bits());
        let mut h = sim_core::Histogram::new();
        for &x in v.iter().rev() {
            h.record(x);
        }
        prop_assert_eq!(h.quantile(q).to_bits(), ours.to_bits());
        let med = netmeasure::quantile::median_sorted(&v).unwrap();
        let mut w = v.clone();
        prop_assert_eq!(topologies::matrix::median(&mut w).to_bits(), med.to_bits());
    }
}
