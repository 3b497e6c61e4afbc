//! The `serde` form of `Dist`, `Ordering` and `ChurnAction`: exactly the TOML that
//! configuration files write (`{ dist = "exponential", mean = 2.0 }`, `"fifo"`,
//! `"crash"`), parameters checked by `Dist::sampler`, not by deserialization.

use serde::{Deserialize, Serialize};
use sim_core::{ChurnAction, Dist, Ordering};

#[derive(Debug, Deserialize, Serialize, PartialEq)]
struct Table {
    d: Dist,
}

fn dist(src: &str) -> Result<Dist, String> {
    toml::from_str::<Table>(&format!("d = {src}"))
        .map(|t| t.d)
        .map_err(|e| e.to_string())
}

#[test]
fn every_family_reads_from_its_toml_form() {
    let cases = [
        (
            "{ dist = \"constant\", value = 3.5 }",
            Dist::Constant { value: 3.5 },
        ),
        (
            "{ dist = \"uniform\", low = 1.0, high = 2.0 }",
            Dist::Uniform {
                low: 1.0,
                high: 2.0,
            },
        ),
        (
            "{ dist = \"normal\", mean = 5, std_dev = 1 }",
            Dist::Normal {
                mean: 5.0,
                std_dev: 1.0,
            },
        ),
        (
            "{ dist = \"lognormal\", mu = 0.5, sigma = 0.25 }",
            Dist::LogNormal {
                mu: 0.5,
                sigma: 0.25,
            },
        ),
        (
            "{ dist = \"exponential\", mean = 2.0 }",
            Dist::Exponential { mean: 2.0 },
        ),
        (
            "{ dist = \"pareto\", scale = 1.0, shape = 1.5 }",
            Dist::Pareto {
                scale: 1.0,
                shape: 1.5,
            },
        ),
        (
            "{ dist = \"weibull\", scale = 2.0, shape = 0.8 }",
            Dist::Weibull {
                scale: 2.0,
                shape: 0.8,
            },
        ),
        (
            "{ dist = \"gamma\", shape = 2.0, scale = 3.0 }",
            Dist::Gamma {
                shape: 2.0,
                scale: 3.0,
            },
        ),
    ];
    for (src, want) in cases {
        let got = dist(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(got, want, "{src}");
        // The tag is the family name, and writing gives back the same value.
        assert!(src.contains(&format!("\"{}\"", got.family())));
        let written = toml::to_string(&Table { d: got.clone() }).unwrap();
        assert_eq!(
            toml::from_str::<Table>(&written).unwrap().d,
            got,
            "{written}"
        );
    }
}

#[test]
fn the_form_is_strict() {
    // Unknown field, missing field, unknown family, the Rust spelling of a family.
    for bad in [
        "{ dist = \"exponential\", mean = 2.0, rate = 1.0 }",
        "{ dist = \"uniform\", low = 1.0 }",
        "{ dist = \"cauchy\", scale = 1.0 }",
        "{ dist = \"log-normal\", mu = 0.0, sigma = 1.0 }",
        "{ dist = \"LogNormal\", mu = 0.0, sigma = 1.0 }",
        "{ mean = 2.0 }",
        "\"exponential\"",
    ] {
        assert!(dist(bad).is_err(), "accepted {bad}");
    }
}

#[test]
fn parameters_are_checked_by_the_sampler_not_by_reading() {
    let d = dist("{ dist = \"exponential\", mean = -1.0 }").unwrap();
    assert_eq!(d, Dist::Exponential { mean: -1.0 });
    assert!(d.sampler().is_err());
}

#[test]
fn ordering_and_churn_actions_read_as_lowercase_names() {
    #[derive(Deserialize, Serialize)]
    struct T {
        o: Ordering,
        a: Vec<ChurnAction>,
    }
    let t: T = toml::from_str("o = \"reorder\"\na = [\"join\", \"leave\", \"crash\"]").unwrap();
    assert_eq!(t.o, Ordering::Reorder);
    assert_eq!(
        t.a,
        [ChurnAction::Join, ChurnAction::Leave, ChurnAction::Crash]
    );
    for a in &t.a {
        assert_eq!(toml::Value::try_from(a).unwrap().as_str(), Some(a.name()));
    }
    let t: T = toml::from_str("o = \"fifo\"\na = []").unwrap();
    assert_eq!(t.o, Ordering::Fifo);
    assert!(toml::from_str::<T>("o = \"Fifo\"\na = []").is_err());
    assert!(toml::from_str::<T>("o = \"fifo\"\na = [\"Crash\"]").is_err());
    assert!(toml::from_str::<T>("o = \"tcp\"\na = []").is_err());
}
