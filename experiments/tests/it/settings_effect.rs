//! "A setting never silently has no effect", over the whole registry.
//!
//! For every registered experiment, starting from its small example scenario
//! (`Experiment::EXAMPLE`), and every key of the shared tables (`tables::SHARED_KEYS`):
//!
//! * a key of a table the experiment declares unused, or a key it declares unused
//!   (`Experiment::UNUSED_KEYS`), must be refused when a scenario sets it;
//! * any other key must change the outputs: among the cases below (two scenarios that differ in
//!   that key, with the context the key needs), at least one must validate on both sides and
//!   give different outputs. (One case may show no difference where the example's own
//!   setting hides it, e.g. a 2-client session whose two links a Barabási–Albert `m` does not
//!   change; a case in which one side fails after validation is always a problem.) Keys
//!   documented as not affecting the outputs (`tables::NO_OUTPUT_EFFECT`,
//!   `Experiment::NO_EFFECT_KEYS`) must instead give identical outputs in every case, so that
//!   their documentation is checked too.
//!
//! The test knows the shared tables, never the experiments: a new experiment is covered as
//! soon as it is registered (and fails here until it declares an example).

use experiments::experiment::{DynExperiment, Progress};
use experiments::scenario::tables::{NO_OUTPUT_EFFECT, SHARED_KEYS, Use};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A patch: dotted keys set to TOML values (`"topology"` replaces the whole table; the
/// value `"-"` removes the key).
type Patch = Vec<(&'static str, String)>;

fn data(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    format!("{:?}", p.display().to_string())
}

/// A measured `n × n` RTT matrix (ms) in the temporary folder whose pairs (0, 2) and (2, 0)
/// are the marker 777 (a missing value when `missing = 777.0`).
fn marked_matrix(n: usize) -> String {
    let p = std::env::temp_dir().join(format!("mmvesim-settings-marked-{n}.tsv"));
    let mut s = String::new();
    for i in 0..n {
        let row: Vec<String> = (0..n)
            .map(|j| match (i, j) {
                _ if i == j => "0".into(),
                (0, 2) | (2, 0) => "777".into(),
                _ => format!("{}", 20 + (i * 7 + j * 13) % 90),
            })
            .collect();
        s.push_str(&row.join(" "));
        s.push('\n');
    }
    // The (experiment, key) cases run in parallel and share this file: each writes the same
    // bytes to a file of its own and renames it into place, so a reader never sees a file
    // being written (it once read an empty one and failed).
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = p.with_extension(format!("{}-{k}.tmp", std::process::id()));
    std::fs::write(&tmp, s).unwrap();
    std::fs::rename(&tmp, &p).unwrap();
    p.display().to_string()
}

/// The cases of `key`: pairs of patches that differ in that key. `n`: node count for the
/// topologies the cases bring in.
fn cases(key: &str, n: usize) -> Vec<(Patch, Patch)> {
    let wax_n =
        |m: usize, extra: &str| format!("{{ kind = \"waxman\", nodes = {m}, hs = 100{extra} }}");
    let wax = |extra: &str| wax_n(n, extra);
    let ba = |extra: &str| format!("{{ kind = \"barabasi-albert\", nodes = {n}{extra} }}");
    let hosts = |extra: &str| wax(&format!(", hosts = {n}{extra}"));
    let matrix = |extra: &str| {
        format!(
            "{{ kind = \"matrix\", file = {}, nodes = {n}{extra} }}",
            data("data/latency/seattle99_median688.tsv")
        )
    };
    let topo = |a: String, b: String| (vec![("topology", a)], vec![("topology", b)]);
    let set = |k: &'static str, a: &str, b: &str| -> (Patch, Patch) {
        (vec![(k, a.to_owned())], vec![(k, b.to_owned())])
    };
    let sessions = |s: &str, d: &str, extra: Patch| -> Patch {
        let mut p: Patch = vec![
            (
                "churn.session_s",
                format!("{{ dist = \"exponential\", mean = {s} }}"),
            ),
            (
                "churn.downtime_s",
                format!("{{ dist = \"exponential\", mean = {d} }}"),
            ),
        ];
        p.extend(extra);
        p
    };
    let with = |mut a: Patch, b: Patch| {
        a.extend(b);
        a
    };
    match key {
        "topology.kind" => vec![topo(wax(""), ba(""))],
        "topology.nodes" => vec![topo(wax(""), wax_n(n + 6, ""))],
        "topology.side_ms" => vec![topo(wax(""), wax(", side_ms = 20.0"))],
        "topology.hs" => vec![topo(wax(""), wax("").replace("hs = 100", "hs = 200"))],
        "topology.ls" => vec![topo(
            wax(", placement = \"heavy-tailed\", ls = 10"),
            wax(", placement = \"heavy-tailed\", ls = 20"),
        )],
        "topology.m" => vec![topo(wax(""), wax(", m = 4")), topo(ba(", m = 1"), ba(", m = 5"))],
        "topology.alpha" => vec![topo(wax(""), wax(", alpha = 0.9"))],
        "topology.beta" => vec![topo(wax(""), wax(", beta = 5.0"))],
        "topology.placement" => vec![topo(wax(""), wax(", placement = \"heavy-tailed\""))],
        "topology.seed" => vec![topo(wax(""), wax(", seed = 77"))],
        "topology.hosts" => vec![
            topo(wax(""), hosts("")),
            topo(wax(""), wax(", hosts = 3")),
            topo(wax(""), wax(", hosts = 4")),
            topo(hosts(""), hosts("").replace(&format!("hosts = {n}"), &format!("hosts = {}", n + 6))),
        ],
        // Also with 3 and 4 hosts: sessions of 2 and 3 clients and a router refuse hosts
        // they would not simulate.
        "topology.access_ms" => [hosts(""), wax(", hosts = 3"), wax(", hosts = 4")]
            .into_iter()
            .map(|h| {
                let with = h.replace(" }", ", access_ms = { dist = \"constant\", value = 40.0 } }");
                topo(h, with)
            })
            .collect(),
        "topology.attach" => [hosts(""), wax(", hosts = 3"), wax(", hosts = 4")]
            .into_iter()
            .map(|h| {
                let with = h.replace(" }", ", attach = \"round-robin\" }");
                topo(h, with)
            })
            .collect(),
        "topology.file" => vec![
            topo(
                matrix(""),
                matrix("").replace(&data("data/latency/seattle99_median688.tsv"), &data("data/latency/planetlab490_median18.tsv")),
            ),
            topo(
                format!("{{ kind = \"brite\", file = {} }}", data("topologies/tests/data/topo1.brite")),
                format!("{{ kind = \"brite\", file = {} }}", data("topologies/tests/data/rtwaxman-n200-default.brite")),
            ),
        ],
        "topology.unit" => vec![topo(matrix(""), matrix(", unit = \"s\""))],
        "topology.missing" => {
            // A measured matrix whose pairs (0, 2) and (2, 0) hold the marker 777.
            let f = marked_matrix(n);
            let m = |extra: &str| format!("{{ kind = \"matrix\", file = {f:?}{extra} }}");
            vec![topo(m(""), m(", missing = 777.0"))]
        }
        "topology.frame" => {
            let f = |k: u32| {
                format!(
                    "{{ kind = \"matrix\", file = {}, nodes = {n}, frame = {k} }}",
                    data("data/latency/planetlab215_frames01-18.tsv.gz")
                )
            };
            vec![topo(f(1), f(2))]
        }
        "network.latency" => vec![
            (
                vec![("topology", wax("")), ("network.latency", "\"topology\"".into())],
                vec![("topology", wax("")), ("network.latency", "\"euclidean\"".into())],
            ),
            (
                vec![("topology", wax("")), ("network.latency", "\"topology\"".into())],
                vec![
                    ("topology", wax("")),
                    ("network.latency", "\"constant\"".into()),
                    ("network.constant_ms", "300.0".into()),
                ],
            ),
        ],
        "network.constant_ms" => vec![
            (
                vec![("network.latency", "\"constant\"".into()), ("network.constant_ms", "1.0".into())],
                vec![("network.latency", "\"constant\"".into()), ("network.constant_ms", "700.0".into())],
            ),
            // Without a topology the latency is the constant one (for experiments that
            // refuse `latency`, which has one possible value there).
            (
                vec![("topology", "-".into()), ("network.constant_ms", "1.0".into())],
                vec![("topology", "-".into()), ("network.constant_ms", "700.0".into())],
            ),
        ],
        "network.jitter_ms" => vec![set("network.jitter_ms", "-", "{ dist = \"exponential\", mean = 80.0 }")],
        "network.loss" => vec![set("network.loss", "0.0", "0.3")],
        "network.ordering" => vec![(
            vec![
                ("network.jitter_ms", "{ dist = \"exponential\", mean = 300.0 }".into()),
                ("network.ordering", "\"fifo\"".into()),
            ],
            vec![
                ("network.jitter_ms", "{ dist = \"exponential\", mean = 300.0 }".into()),
                ("network.ordering", "\"reorder\"".into()),
            ],
        )],
        "network.uplink_mbps" => vec![set("network.uplink_mbps", "-", "0.01")],
        "network.downlink_mbps" => vec![set("network.downlink_mbps", "-", "0.01")],
        "network.processing_ms" => vec![set("network.processing_ms", "-", "{ dist = \"exponential\", mean = 80.0 }")],
        "network.per_node_stats" => vec![set("network.per_node_stats", "false", "true")],
        "churn.session_s" => vec![
            (vec![("churn", "-".into())], sessions("3.0", "1.0", vec![])),
            (sessions("3.0", "1.0", vec![]), sessions("30.0", "1.0", vec![])),
        ],
        "churn.downtime_s" => vec![(sessions("3.0", "1.0", vec![]), sessions("3.0", "10.0", vec![]))],
        "churn.crash_fraction" => vec![(
            sessions("3.0", "1.0", vec![("churn.crash_fraction", "0.0".into())]),
            sessions("3.0", "1.0", vec![("churn.crash_fraction", "1.0".into())]),
        )],
        "churn.stable_nodes" => vec![(
            sessions("3.0", "1.0", vec![]),
            sessions("3.0", "1.0", vec![("churn.stable_nodes", "10".into())]),
        )],
        "churn.start_s" => vec![(
            sessions("3.0", "1.0", vec![]),
            sessions("3.0", "1.0", vec![("churn.start_s", "2.0".into())]),
        )],
        "churn.initially_down" => vec![
            (vec![("churn", "-".into())], vec![("churn.initially_down", "[1, 2, 3]".into())]),
            (
                sessions("3.0", "1.0", vec![]),
                with(sessions("3.0", "1.0", vec![]), vec![("churn.initially_down", "[1, 2, 3]".into())]),
            ),
        ],
        "churn.events" => vec![
            (
                vec![("churn", "-".into())],
                vec![("churn.events", "[{ at_s = 0.5, node = 1, action = \"crash\" }, { at_s = 0.5, node = 2, action = \"leave\" }]".into())],
            ),
            (
                sessions("3.0", "1.0", vec![]),
                with(
                    sessions("3.0", "1.0", vec![]),
                    vec![("churn.events", "[{ at_s = 0.5, node = 1, action = \"crash\" }, { at_s = 0.5, node = 2, action = \"leave\" }]".into())],
                ),
            ),
        ],
        other => panic!("no cases for shared key {other}: add them here"),
    }
}

/// A TOML value from its text.
fn value(text: &str) -> toml::Value {
    let t: toml::Table =
        toml::from_str(&format!("v = {text}")).unwrap_or_else(|e| panic!("{text}: {e}"));
    t["v"].clone()
}

/// `base` with `patch` applied.
fn apply(base: &toml::Table, patch: &Patch) -> toml::Table {
    let mut t = base.clone();
    for (key, v) in patch {
        let parts: Vec<&str> = key.split('.').collect();
        let mut cur = &mut t;
        for p in &parts[..parts.len() - 1] {
            let e = cur
                .entry(p.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            cur = e.as_table_mut().expect("a table on the path");
        }
        let last = parts[parts.len() - 1].to_string();
        if v == "-" {
            cur.remove(&last);
        } else {
            cur.insert(last, value(v));
        }
    }
    // A sweep or quick variant of the example would only get in the way.
    t.remove("sweep");
    t.remove("quick");
    t
}

/// The outcomes already computed for one experiment, by scenario text: most cases share one
/// side (often the example itself), and the keys of one experiment run in parallel.
type Cache = Mutex<BTreeMap<String, Result<String, String>>>;

/// Validate `t`; on success, run its first job and render its tables (a failing job is an
/// error naming the case).
fn outcome(
    e: &dyn DynExperiment,
    t: &toml::Table,
    file: &Path,
    cache: &Cache,
) -> Result<String, String> {
    let text = toml::to_string(t).unwrap();
    if let Some(r) = cache.lock().unwrap().get(&text) {
        return r.clone();
    }
    let header = experiments::scenario::Header::parse(file, &text).map_err(|x| x.to_string());
    let r = header.and_then(|h| e.validate(&h).map_err(|x| x.to_string()));
    let r = match r {
        Err(x) => Err(format!("invalid: {x}")),
        Ok(s) => match s.run_job(0, &Progress::default()) {
            Ok(tables) => Ok(format!("{tables:?}")),
            Err(x) => Err(format!("job failed after validation: {x:#}")),
        },
    };
    cache.lock().unwrap().insert(text, r.clone());
    r
}

fn table_use(e: &dyn DynExperiment, key: &str) -> Use {
    let t = e.tables();
    match key.split('.').next() {
        Some("topology") => t.topology,
        Some("network") => t.network,
        _ => t.churn,
    }
}

#[test]
fn every_shared_key_is_refused_or_changes_the_outputs() {
    use rayon::prelude::*;
    let registry = experiments::exp::registry();
    let file: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/probe.toml");
    // Each experiment's example first, then every (experiment, key) pair in parallel: one
    // experiment's runs can take most of the test's time (a Colyseus example at the
    // topology keys' 24 nodes), so its keys must not wait on one thread.
    let experiments: Vec<&dyn DynExperiment> = registry.iter().collect();
    let examples: Vec<Result<Example, String>> =
        experiments.par_iter().map(|&e| example(e, &file)).collect();
    let mut problems: Vec<String> = Vec::new();
    let mut work = Vec::new();
    for (&e, x) in experiments.iter().zip(&examples) {
        match x {
            Ok(x) => work.extend(SHARED_KEYS.iter().map(|&(key, _)| (e, x, key))),
            Err(p) => problems.push(p.clone()),
        }
    }
    let found: Vec<(Vec<String>, usize)> = work
        .par_iter()
        .map(|&(e, x, key)| shared_key(e, x, key, &file))
        .collect();
    let exercised: usize = found.iter().map(|(_, n)| n).sum();
    problems.extend(found.into_iter().flat_map(|(p, _)| p));
    println!("{exercised} pairs of runs compared");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Keys of an experiment's own `[params]` that a case above cannot reach (the shared-table
/// test knows no experiment): each pair of patches must validate on both sides and change the
/// outputs of the experiment's example.
#[test]
fn experiment_keys_change_the_outputs() {
    let registry = experiments::exp::registry();
    let file: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/probe.toml");
    let cases: [(&str, Patch, Patch); 1] = [(
        // The protocol-built ring (joins, sampled n̂) against the oracle ring.
        "colyseus",
        vec![
            ("params.ring", "\"mercury-oracle\"".into()),
            ("params.nodes", "12".into()),
        ],
        vec![
            ("params.ring", "\"mercury-sampled\"".into()),
            ("params.nodes", "12".into()),
        ],
    )];
    for (name, a, b) in cases {
        let e = registry
            .iter()
            .find(|e| e.name() == name)
            .unwrap_or_else(|| panic!("{name} is registered"));
        let x = example(e, &file).unwrap_or_else(|p| panic!("{p}"));
        let (ta, tb) = (apply(&x.base, &a), apply(&x.base, &b));
        let ra = outcome(e, &ta, &file, &x.cache).unwrap_or_else(|p| panic!("{name}: {p}"));
        let rb = outcome(e, &tb, &file, &x.cache).unwrap_or_else(|p| panic!("{name}: {p}"));
        assert_ne!(ra, rb, "{name}: {a:?} and {b:?} give the same outputs");
    }
}

/// An experiment's example scenario, parsed and known to validate and run.
struct Example {
    /// The example as a TOML table, with `experiment` set.
    base: toml::Table,
    /// Node count for the topologies the cases bring in.
    n: usize,
    /// The outcomes computed so far.
    cache: Cache,
}

/// `e`'s example, or the problem that stops its keys from being checked.
fn example(e: &dyn DynExperiment, file: &Path) -> Result<Example, String> {
    if e.example().trim().is_empty() {
        return Err(format!("{}: declares no EXAMPLE scenario", e.name()));
    }
    let base: toml::Table =
        toml::from_str(&format!("experiment = \"{}\"\n{}", e.name(), e.example()))
            .unwrap_or_else(|x| panic!("{}: EXAMPLE is not TOML: {x}", e.name()));
    let n = base
        .get("topology")
        .and_then(|t| t.get("nodes"))
        .and_then(toml::Value::as_integer)
        .map_or(24, |x| x as usize);
    let cache = Mutex::new(BTreeMap::new());
    // The example itself must validate and run.
    if let Err(x) = outcome(e, &apply(&base, &Vec::new()), file, &cache) {
        return Err(format!("{}: its EXAMPLE does not validate: {x}", e.name()));
    }
    Ok(Example { base, n, cache })
}

/// One shared key of `e` (the test above): the problems found and the number of pairs of
/// runs compared.
fn shared_key(e: &dyn DynExperiment, x: &Example, key: &str, file: &Path) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let unused = table_use(e, key) == Use::Unused || e.unused_keys().contains(&key);
    let no_effect = NO_OUTPUT_EFFECT
        .iter()
        .chain(e.no_effect_keys())
        .any(|(k, _)| *k == key);
    let (mut ran, mut differ) = (0, 0);
    for (a, b) in cases(key, x.n) {
        let (ta, tb) = (apply(&x.base, &a), apply(&x.base, &b));
        let rb = outcome(e, &tb, file, &x.cache);
        if unused {
            // Setting the key must be refused (at the key or at its table).
            if rb.is_ok() {
                problems.push(format!(
                    "{}: `{key}` is unused but a scenario setting it is accepted",
                    e.name()
                ));
            }
            continue;
        }
        let ra = outcome(e, &ta, file, &x.cache);
        for r in [&ra, &rb] {
            if let Err(x) = r
                && x.starts_with("job failed")
            {
                problems.push(format!("{}: `{key}`: {x}", e.name()));
            }
        }
        let (Ok(oa), Ok(ob)) = (&ra, &rb) else {
            continue;
        };
        ran += 1;
        if oa != ob {
            differ += 1;
        }
        if no_effect && oa != ob {
            problems.push(format!(
                "{}: `{key}` is documented as not affecting the outputs, but they differ \
                 ({a:?} vs {b:?})",
                e.name()
            ));
        }
    }
    if !unused && ran == 0 {
        problems.push(format!(
            "{}: no case of `{key}` validates; declare it unused or add a case",
            e.name()
        ));
    } else if !unused && !no_effect && differ == 0 {
        problems.push(format!(
            "{}: `{key}` changes nothing in the outputs in any of its {ran} case(s); \
             refuse it (UNUSED_KEYS) or document it (NO_EFFECT_KEYS)",
            e.name()
        ));
    }
    (problems, ran)
}

/// Keys of an experiment's own `[params]` that its example leaves at their defaults are
/// checked where they are added: here, `colyseus`'s route-cache size, discovery timing and
/// dht region count, each at two values on a small dht game (12 p2p nodes on a sqr map:
/// subscriptions overlap several regions, so the two timings differ), must change the outputs;
/// the region count, which `rangedht` ignores, must leave a `rangedht` game unchanged.
#[test]
fn colyseus_discovery_keys_change_the_outputs() {
    let registry = experiments::exp::registry();
    let e = registry
        .iter()
        .find(|e| e.name() == "colyseus")
        .expect("colyseus is registered");
    let file: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/probe.toml");
    let base: toml::Table = toml::from_str(
        "experiment = \"colyseus\"\n[network]\nlatency = \"constant\"\nconstant_ms = 20.0\n\
         [params]\nnodes = 12\ndeployment = \"p2p\"\nmap = \"sqr\"\nlocation = \"dht\"\n\
         matching = \"conjunction\"\nduration_s = 12.0\nmeasure_from_s = 4.0\nmeasure_to_s = 10.0\n",
    )
    .unwrap();
    let cache = Mutex::new(BTreeMap::new());
    // Cache sizes at 40 nodes (at 12, ten successors and the predecessor already name every
    // node, so no cache entry is ever closer than the routing table), one entry against
    // 2 log2 n (a 12-second game does not fill 2 log2 n entries, so larger ones change nothing
    // here; the ablation's 200-node runs show their effect).
    for (key, a, b, nodes) in [
        ("params.route_cache_factor", "2.0", "0.0", 12),
        ("params.route_cache_factor", "0.2", "2.0", 40),
        ("params.discovery_timing", "\"first\"", "\"per-region\"", 12),
        ("params.dht_regions_per_player", "1.0", "4.0", 12),
    ] {
        let run = |v: &str| {
            let patch = vec![(key, v.to_owned()), ("params.nodes", nodes.to_string())];
            outcome(e, &apply(&base, &patch), &file, &cache)
                .unwrap_or_else(|x| panic!("{key} = {v}: {x}"))
        };
        assert_ne!(run(a), run(b), "{key}: {a} and {b} give the same outputs");
    }
    let rangedht = |v: &str| {
        let patch = vec![
            ("params.location", "\"rangedht\"".to_owned()),
            ("params.dht_regions_per_player", v.to_owned()),
        ];
        outcome(e, &apply(&base, &patch), &file, &cache)
            .unwrap_or_else(|x| panic!("rangedht, regions per player {v}: {x}"))
    };
    assert_eq!(
        rangedht("1.0"),
        rangedht("4.0"),
        "rangedht must ignore params.dht_regions_per_player"
    );
}
