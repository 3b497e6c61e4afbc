//! One regression test per defect found by probing the tool with bad input: everything
//! checkable is checked before the first job, results folders are never mixed up, and
//! errors name what is wrong.

use experiments::runner::{self, FolderLock, RunOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn mmvesim() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mmvesim"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(rel)
}

fn err(text: &str) -> experiments::scenario::ScenarioError {
    crate::parse(Path::new("/nonexistent/x.toml"), text).unwrap_err()
}

fn quiet(out: &Path) -> RunOptions {
    RunOptions {
        out: Some(out.to_owned()),
        jobs: Some(1),
        quiet: true,
        no_plots: true,
        ..Default::default()
    }
}

#[test]
fn plots_show_every_swept_key() {
    // The README's own example: loss × fanout. Before, `coverage` averaged over fanout.
    let s = crate::parse(
        Path::new("x.toml"),
        "experiment = \"smoke\"\n[network]\nloss = 0.0\n[params]\nduration_s = 2.0\nnodes = 10\n\
         [sweep]\n\"network.loss\" = [0.0, 0.05]\n\"params.fanout\" = [1, 2, 3, 4]\n",
    )
    .unwrap();
    let m = runner::Manifest::of(&*s);
    for p in &m.plots {
        let shown = |k: &str| {
            p.series.as_deref() == Some(k)
                || p.facet.as_deref() == Some(k)
                || p.title.contains(k)
                || p.filter.iter().any(|(c, _)| c == k)
        };
        assert!(
            shown("network.loss") && shown("params.fanout"),
            "{}: {p:?}",
            p.name
        );
    }
    // A third swept key is named in the title.
    let s = crate::parse(
        Path::new("x.toml"),
        "experiment = \"smoke\"\n[network]\nloss = 0.0\n[params]\nduration_s = 2.0\nnodes = 10\n\
         [sweep]\n\"network.loss\" = [0.0, 0.05]\n\"params.fanout\" = [1, 2]\n\"params.ping_interval_ms\" = [100.0, 200.0]\n",
    )
    .unwrap();
    let m = runner::Manifest::of(&*s);
    let cov = m.plots.iter().find(|p| p.name == "coverage").unwrap();
    assert!(
        cov.title.contains("params.ping_interval_ms"),
        "{}",
        cov.title
    );
}

#[test]
fn sizes_that_cannot_fit_are_refused_with_the_estimate() {
    let e = err("experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = 100000\n");
    assert_eq!(e.key.as_deref(), Some("topology"), "{e}");
    assert!(
        e.message.contains("needs about") && e.message.contains("GB"),
        "{e}"
    );
    let e =
        err("experiment = \"smoke\"\n[topology]\nkind = \"barabasi-albert\"\nnodes = 1000000\n");
    assert!(e.message.contains("TB"), "{e}");
}

#[test]
fn data_files_and_every_sweep_point_are_checked_before_any_job() {
    let planetlab = data("latency/planetlab490_median18.tsv");
    // A node count beyond the matrix, reached only by a sweep.
    let e = err(&format!(
        "experiment = \"core-diameter\"\n[topology]\nkind = \"matrix\"\nfile = \"{}\"\nnodes = 10\n\
         [params]\nproxy_counts = [5]\n[sweep]\n\"topology.nodes\" = [10, 1000]\n",
        planetlab.display()
    ));
    assert!(e.message.contains("490"), "{e}");
    assert_eq!(e.line, Some(9), "{e}");
    // Churn node ids beyond the node count.
    let e = err(
        "experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = 20\n[churn]\n\
         events = [{ at_s = 1.0, node = 25, action = \"crash\" }]\n",
    );
    assert_eq!(e.key.as_deref(), Some("churn.events.0.node"), "{e}");
    let e = err(
        "experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = 20\n[churn]\nstable_nodes = 50\n",
    );
    assert_eq!(e.key.as_deref(), Some("churn.stable_nodes"), "{e}");
    // An unparsable matrix file.
    let tmp = crate::scratch("bad-matrix");
    let d = tmp.path();
    let m = d.join("m.tsv");
    std::fs::write(&m, "0 1 2\n1 0 x\n2 1 0\n").unwrap();
    let e = err(&format!(
        "experiment = \"smoke\"\n[topology]\nkind = \"matrix\"\nfile = \"{}\"\n",
        m.display()
    ));
    assert_eq!(e.key.as_deref(), Some("topology.file"), "{e}");
    assert!(e.message.contains("m.tsv"), "{e}");
    // A frame the file does not have.
    let e = err(&format!(
        "experiment = \"smoke\"\n[topology]\nkind = \"matrix\"\nfile = \"{}\"\nframe = 5000\n",
        data("latency/seattle99_frames001-688.tsv.gz").display()
    ));
    assert_eq!(e.key.as_deref(), Some("topology.file"), "{e}");
    // A base value that a sweep overrides is checked too.
    let e = err(
        "experiment = \"smoke\"\n[network]\nloss = 1.5\n[sweep]\n\"network.loss\" = [0.0, 0.1]\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("network.loss"), Some(3)),
        "{e}"
    );
}

#[test]
fn a_results_folder_is_locked_and_never_mixes_scenarios() {
    let tmp = crate::scratch("out-reuse");
    let d = tmp.path();
    let a = d.join("a.toml");
    let b = d.join("b.toml");
    std::fs::write(
        &a,
        "experiment = \"smoke\"\n[params]\nduration_s = 2.0\nnodes = 10\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "experiment = \"averaging\"\n[params]\nnodes = 50\ncycles = 3\ndegree = 4\n",
    )
    .unwrap();
    let out = d.join("out");
    runner::run(&*crate::load(&a).unwrap(), &quiet(&out)).unwrap();
    let sb = crate::load(&b).unwrap();
    let e = runner::run(&*sb, &quiet(&out)).unwrap_err().to_string();
    assert!(e.contains("holds the results of scenario `a`"), "{e}");
    // --clean clears it: only b's tables are left.
    let mut opts = quiet(&out);
    opts.clean = true;
    runner::run(&*sb, &opts).unwrap();
    assert!(out.join("cycles.csv").is_file());
    assert!(
        !out.join("summary.csv").exists(),
        "a's table was left behind"
    );
    // Two runs into one folder: the second is refused while the first holds the lock.
    let _held = FolderLock::acquire(&out).unwrap();
    let e = runner::run(&*sb, &opts).unwrap_err().to_string();
    assert!(e.contains("being written by another"), "{e}");
}

#[test]
fn temporaries_of_killed_runs_are_removed() {
    let tmp = crate::scratch("leftovers");
    let d = tmp.path();
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "experiment = \"smoke\"\n[params]\nduration_s = 2.0\nnodes = 10\n",
    )
    .unwrap();
    let out = d.join("out");
    std::fs::create_dir_all(out.join("parts")).unwrap();
    let stale = out.join("parts").join(".job-000000.json.tmp-999999");
    std::fs::write(&stale, "{\"trunc").unwrap();
    runner::run(&*crate::load(&f).unwrap(), &quiet(&out)).unwrap();
    assert!(!stale.exists());
}

#[test]
fn merge_and_plot_work_from_any_folder_with_shard_manifests() {
    let tmp = crate::scratch("merge-cwd");
    let d = tmp.path();
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "experiment = \"smoke\"\nrepetitions = 3\n[params]\nduration_s = 2.0\nnodes = 10\n",
    )
    .unwrap();
    let s = crate::load(&f).unwrap();
    runner::run(&*s, &quiet(&d.join("full"))).unwrap();
    for i in 1..=2 {
        let mut o = quiet(&d.join(format!("s{i}")));
        o.shard = Some(runner::Shard { index: i, count: 2 });
        runner::run(&*s, &o).unwrap();
        assert!(d.join(format!("s{i}/manifest.json")).is_file());
    }
    std::fs::remove_file(&f).unwrap();
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let o = mmvesim()
        .args(["merge", "../s1", "../s2", "--out", "../merged"])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(d.join("full/summary.csv")).unwrap(),
        std::fs::read(d.join("merged/summary.csv")).unwrap()
    );
    // Merging into another scenario's folder is refused, like `run` refuses it, and
    // leaves that folder as it was.
    let other = d.join("other.toml");
    std::fs::write(
        &other,
        "experiment = \"averaging\"\n[params]\nnodes = 50\ncycles = 3\ndegree = 4\n",
    )
    .unwrap();
    runner::run(&*crate::load(&other).unwrap(), &quiet(&d.join("avg"))).unwrap();
    let before = std::fs::read(d.join("avg/manifest.json")).unwrap();
    let o = mmvesim()
        .args(["merge", "../s1", "../s2", "--out", "../avg"])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "merge into another scenario's folder succeeded"
    );
    assert!(e.contains("holds the results of scenario `other`"), "{e}");
    assert_eq!(std::fs::read(d.join("avg/manifest.json")).unwrap(), before);
    assert!(
        !d.join("avg/summary.csv").exists(),
        "smoke's table was merged in"
    );
}

#[test]
fn durations_have_an_upper_bound() {
    let e = err("experiment = \"smoke\"\n[params]\nduration_s = 1e12\n");
    assert_eq!(e.key.as_deref(), Some("params.duration_s"), "{e}");
}

#[test]
fn nonsense_options_exit_non_zero() {
    for args in [
        vec!["list", "--dir", "/nonexistent"],
        vec!["reproduce", "--only", "zzz-no-such-scenario"],
        vec!["run", "--jobs", "100000", "scenarios/smoke.toml"],
    ] {
        let o = mmvesim()
            .args(&args)
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?} succeeded");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
}

#[test]
fn error_text_names_the_key_and_the_place() {
    // A key inside [topology].
    let e = err("experiment = \"smoke\"\n[topology]\nkind = \"waxman\"\nnodes = \"x\"\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("topology.nodes"), Some(4)),
        "{e}"
    );
    // A duplicate key and an integer out of range.
    let e = err("experiment = \"smoke\"\nseed = 5\nseed = 6\n");
    assert_eq!((e.key.as_deref(), e.line), (Some("seed"), Some(3)), "{e}");
    let e = err("experiment = \"smoke\"\nseed = 99999999999999999999\n");
    assert_eq!(e.key.as_deref(), Some("seed"), "{e}");
    assert!(!e.message.contains("i128"), "{e}");
    // Invalid UTF-8, with its place; a directory given as a scenario file.
    let tmp = crate::scratch("utf8");
    let d = tmp.path();
    let f = d.join("bad.toml");
    std::fs::write(&f, b"experiment = \"smoke\"\n# \xff\xfe\n").unwrap();
    let e = crate::load(&f).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.contains("UTF-8"), "{e}");
    let e = crate::load(d).unwrap_err();
    assert!(e.message.contains("is a directory"), "{e}");
    // A missing file is said once.
    let o = mmvesim()
        .args(["run", "/nonexistent/x.toml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(text.matches("no such file").count(), 1, "{text}");
    assert!(!text.contains("os error"), "{text}");
}

#[test]
fn churn_cycles_of_zero_length_are_refused_before_any_work() {
    // Both constant 0: the churn process alone would fill the queue at one instant.
    let zero = "experiment = \"smoke\"\n[churn]\nsession_s = { dist = \"constant\", value = 0.0 }\n\
                downtime_s = { dist = \"constant\", value = 0.0 }\n[params]\nduration_s = 10.0\nnodes = 20\n";
    let e = err(zero);
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("churn.session_s"), Some(3)),
        "{e}"
    );
    assert!(e.message.contains("at least 0.001 s"), "{e}");
    // Exponential means of a nanosecond: the same livelock, refused the same way.
    let tiny = zero.replace(
        "{ dist = \"constant\", value = 0.0 }",
        "{ dist = \"exponential\", mean = 1e-9 }",
    );
    assert_eq!(err(&tiny).key.as_deref(), Some("churn.session_s"));
    // A short but real cycle (1 ms on average) is still a legal stress test.
    let short = zero.replace("value = 0.0 }", "value = 0.0005 }");
    crate::parse(Path::new("x.toml"), &short).unwrap();
}

#[test]
fn negative_access_delays_are_refused_not_clamped() {
    let text = |access: &str| {
        format!(
            "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 100\nhosts = 200\naccess_ms = {access}\n"
        )
    };
    for access in [
        "{ dist = \"constant\", value = -5.0 }",
        "{ dist = \"normal\", mean = 5.0, std_dev = 1.0 }",
        "{ dist = \"uniform\", low = -1.0, high = 9.0 }",
    ] {
        let e = err(&text(access));
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("topology.access_ms"), Some(6)),
            "{access}: {e}"
        );
        assert!(e.message.contains("negative"), "{e}");
    }
    for access in [
        "{ dist = \"constant\", value = 0.0 }",
        "{ dist = \"exponential\", mean = 5.0 }",
        "{ dist = \"uniform\", low = 0.0, high = 9.0 }",
    ] {
        crate::parse(Path::new("x.toml"), &text(access)).unwrap();
    }
}

#[test]
fn partitions_without_router_latencies_are_refused_at_validation() {
    let base = "experiment = \"dht-churn\"\n[topology]\nkind = \"waxman\"\nnodes = 30\nhosts = 150\n\
                [churn]\nsession_s = { dist = \"exponential\", mean = 60.0 }\n\
                downtime_s = { dist = \"exponential\", mean = 30.0 }\n[params]\nduration_s = 60.0\npartitions = 2\n";
    // The hosts are there, but a constant latency gives no lookahead between partitions:
    // before, validate said ok and the run failed with "needs end hosts behind routers".
    let e = err(&base.replace(
        "[params]",
        "[network]\nlatency = \"constant\"\nconstant_ms = 10.0\n[params]",
    ));
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.partitions"), Some(14)),
        "{e}"
    );
    assert!(e.message.contains("routers' latencies"), "{e}");
    // More partitions than hosts.
    let e = err(&base
        .replace("hosts = 150", "hosts = 3")
        .replace("partitions = 2", "partitions = 4"));
    assert_eq!(e.key.as_deref(), Some("params.partitions"), "{e}");
    assert!(e.message.contains("only 3 end hosts"), "{e}");
    crate::parse(Path::new("x.toml"), base).unwrap();
}

#[test]
fn timelines_topologies_too_small_for_the_session_are_refused_at_validation() {
    // Before, validate said ok and every job failed with "the session needs 11 nodes".
    for (exp, clients) in [
        ("timelines-dead-reckoning", "clients = 10\n"),
        ("timelines-clock-sync", "clients = 10\n"),
        ("timelines-local-lag", "clients = 10\n"),
        ("timelines-smooth-corrections", "clients = 10\n"),
        ("timelines-send-suppression", "clients = 10\n"),
        ("timelines-perception-filter", ""),
        ("timelines-remote-lag", ""),
    ] {
        let e = err(&format!(
            "experiment = \"{exp}\"\n[topology]\nkind = \"waxman\"\nnodes = 2\nm = 1\n[params]\n{clients}"
        ));
        assert_eq!(
            (e.key.as_deref(), e.line),
            (Some("topology.nodes"), Some(4)),
            "{exp}: {e}"
        );
        assert!(e.message.contains("the session needs"), "{exp}: {e}");
    }
    crate::parse(
        Path::new("x.toml"),
        "experiment = \"timelines-dead-reckoning\"\n[topology]\nkind = \"waxman\"\nnodes = 11\n[params]\nclients = 10\n",
    )
    .unwrap();
}

#[test]
fn an_empty_churn_table_in_dht_churn_is_refused() {
    // dht-churn "needs a [churn] table"; an empty one used to run with no churn at all.
    let e = err(
        "experiment = \"dht-churn\"\n[topology]\nkind = \"waxman\"\nnodes = 30\n[churn]\n[params]\nduration_s = 60.0\n",
    );
    assert_eq!((e.key.as_deref(), e.line), (Some("churn"), Some(5)), "{e}");
    assert!(e.message.contains("is empty"), "{e}");
}

#[test]
fn delays_above_the_largest_allowed_are_refused() {
    // constant_ms was capped at 1e9 ms, a jitter mean of 1e300 ms was accepted.
    let e = err(
        "experiment = \"smoke\"\n[network]\njitter_ms = { dist = \"exponential\", mean = 1e300 }\n[params]\nduration_s = 10.0\nnodes = 20\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("network.jitter_ms"), Some(3)),
        "{e}"
    );
    let e = err(
        "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 100\nhosts = 200\naccess_ms = { dist = \"constant\", value = 2e9 }\n",
    );
    assert_eq!(e.key.as_deref(), Some("topology.access_ms"), "{e}");
    // A heavy tail without a finite mean is still a legal jitter.
    crate::parse(
        Path::new("x.toml"),
        "experiment = \"smoke\"\n[network]\njitter_ms = { dist = \"pareto\", scale = 1.0, shape = 0.9 }\n[params]\nduration_s = 10.0\nnodes = 20\n",
    )
    .unwrap();
}

#[test]
fn zero_worker_threads_are_refused() {
    for verb in ["run", "sweep", "reproduce"] {
        let mut args = vec![verb, "--jobs", "0"];
        if verb != "reproduce" {
            args.push("scenarios/smoke.toml");
        }
        let o = mmvesim()
            .args(&args)
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(e.contains("--jobs"), "{args:?}: {e}");
    }
}

/// A small `migration` scenario on a 25-node Waxman topology (continents: west-east strips).
fn migration_on_25_nodes(extra_topology: &str, params: &str) -> String {
    format!(
        "experiment = \"migration\"\nrepetitions = 2\n[topology]\nkind = \"waxman\"\nnodes = 25\n\
         {extra_topology}[params]\nduration_h = 1.0\nplayers = 50\ncontinent_map = \"longitude\"\n{params}"
    )
}

#[test]
fn a_continent_smaller_than_its_servers_is_refused_at_validation() {
    // Before, validate said ok and the first job failed after its world was built. The
    // strips' sizes depend on the drawn topology, so the check runs per repetition.
    let e = err(&migration_on_25_nodes("", "servers_per_continent = 8\n"));
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.servers_per_continent"), Some(10)),
        "{e}"
    );
    assert!(
        e.message.contains("fewer than servers_per_continent = 8")
            && e.message.contains("repetition"),
        "{e}"
    );
    crate::parse(
        Path::new("x.toml"),
        &migration_on_25_nodes("", "servers_per_continent = 1\n"),
    )
    .unwrap();
}

#[test]
fn end_hosts_in_migration_are_refused() {
    // `[topology] hosts` had no effect: every CSV was byte-identical with and without it.
    let e = err(&migration_on_25_nodes("hosts = 50\n", ""));
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("topology.hosts"), Some(6)),
        "{e}"
    );
}

#[test]
fn repeated_list_entries_are_refused() {
    // `caches = [true, true]` ran every lookup twice and drew two identical series.
    let e = err(
        "experiment = \"dht-lookup\"\n[topology]\nkind = \"waxman\"\nnodes = 50\n[params]\ncaches = [true, true]\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line, e.column),
        (Some("params.caches.1"), Some(6), Some(17)),
        "{e}"
    );
    assert!(e.message.contains("repeats entry 0"), "{e}");
    let e = err("experiment = \"spd-eval\"\n[params]\nalgos = [\"alg-m\", \"zizo\", \"alg-m\"]\n");
    assert_eq!(e.key.as_deref(), Some("params.algos.2"), "{e}");
    // Two continents with one name: the second is blamed.
    let e = err(&migration_on_25_nodes(
        "",
        "continents = [{ name = \"a\", utc_offset_h = 0.0, share = 0.5 }, { name = \"a\", utc_offset_h = 8.0, share = 0.5 }]\n",
    ));
    assert_eq!(e.key.as_deref(), Some("params.continents.1.name"), "{e}");
    // A sweep that lists one value twice runs its points twice.
    let e = err(
        "experiment = \"smoke\"\n[params]\nduration_s = 2.0\nnodes = 10\n[sweep]\n\"params.fanout\" = [1, 2, 1]\n",
    );
    assert_eq!(e.key.as_deref(), Some("sweep.params.fanout"), "{e}");
    assert!(e.message.contains("repeats value 0"), "{e}");
}

#[test]
fn settings_that_only_apply_with_another_are_refused() {
    // Each of these was accepted and changed nothing in the outputs (found by the
    // registry-wide settings test): refused at the key written, before any work.
    let smoke = |extra: &str| format!("experiment = \"smoke\"\n{extra}[params]\nnodes = 20\n");
    for (text, key, line) in [
        (
            smoke("[topology]\nkind = \"waxman\"\nnodes = 20\nhs = 100\nls = 10\n"),
            "topology.ls",
            6,
        ),
        (
            smoke("[topology]\nkind = \"waxman\"\nnodes = 20\n[network]\nconstant_ms = 5.0\n"),
            "network.constant_ms",
            6,
        ),
        (
            smoke("[network]\nordering = \"reorder\"\n"),
            "network.ordering",
            3,
        ),
        (
            smoke("[churn]\ninitially_down = [1]\ncrash_fraction = 0.5\n"),
            "churn.crash_fraction",
            4,
        ),
        (
            smoke("[churn]\ninitially_down = [1]\nstable_nodes = 3\n"),
            "churn.stable_nodes",
            4,
        ),
        (
            smoke("[churn]\ninitially_down = [1]\nstart_s = 3.0\n"),
            "churn.start_s",
            4,
        ),
    ] {
        let e = err(&text);
        assert_eq!((e.key.as_deref(), e.line), (Some(key), Some(line)), "{e}");
        assert!(e.message.contains("only applies"), "{e}");
    }
    // With what they need, they are accepted.
    for ok in [
        smoke(
            "[topology]\nkind = \"waxman\"\nnodes = 20\nhs = 100\nplacement = \"heavy-tailed\"\nls = 10\n",
        ),
        smoke("[network]\nlatency = \"constant\"\nconstant_ms = 5.0\n"),
        smoke(
            "[network]\njitter_ms = { dist = \"exponential\", mean = 1.0 }\nordering = \"reorder\"\n",
        ),
        smoke(
            "[churn]\nsession_s = { dist = \"exponential\", mean = 5.0 }\ndowntime_s = { dist = \"exponential\", mean = 1.0 }\ncrash_fraction = 0.5\nstable_nodes = 3\nstart_s = 3.0\n",
        ),
    ] {
        crate::parse(Path::new("x.toml"), &ok).unwrap_or_else(|e| panic!("{e}\n{ok}"));
    }
}

#[test]
fn keys_an_experiment_ignores_are_refused_also_when_swept() {
    // Without a topology, averaging's latency can only be the constant one.
    let e = err("experiment = \"averaging\"\n[network]\nlatency = \"constant\"\n");
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("network.latency"), Some(3)),
        "{e}"
    );
    assert!(e.message.contains("does not use"), "{e}");
    // A swept value is blamed on its sweep entry.
    let e = err(&format!(
        "experiment = \"core-diameter\"\n[topology]\nkind = \"matrix\"\nfile = {:?}\nnodes = 30\n[sweep]\n\"topology.missing\" = [-1.0, 0.0]\n",
        data("latency/seattle99_median688.tsv")
            .display()
            .to_string()
    ));
    assert_eq!(e.line, Some(7), "{e}");
    assert!(e.message.contains("topology.missing"), "{e}");
}

#[test]
fn a_run_estimated_beyond_a_day_or_the_machine_needs_yes() {
    let dir = std::env::temp_dir().join(format!("mmvesim-yes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("big.toml");
    // 20 nodes pinging every 10 µs for 10⁵ s: 4·10¹¹ events, 1.6 TB of RTTs.
    std::fs::write(
        &f,
        "experiment = \"smoke\"\n[params]\nnodes = 20\nduration_s = 100000.0\nping_interval_ms = 0.01\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = mmvesim()
        .args(["run", "--quiet", "--no-plots", "--out"])
        .arg(&out)
        .arg(&f)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{e}");
    for part in ["--yes", "engine events", "of memory at once", "big.toml"] {
        assert!(e.contains(part), "{part:?} not in {e}");
    }
    // Refused before any job.
    assert!(
        !out.join("parts").exists()
            || std::fs::read_dir(out.join("parts"))
                .unwrap()
                .next()
                .is_none()
    );
    // The small example of every experiment runs without being asked.
    let reg = experiments::exp::registry();
    for x in reg.iter() {
        let text = format!("experiment = \"{}\"\n{}", x.name(), x.example());
        let h = experiments::scenario::Header::parse(&dir.join("x.toml"), &text).unwrap();
        let s = x.validate(&h).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runner::size_check(&*s, &[0], 2), None, "{}", x.name());
    }
    // spd-sim sends every action's update to every client: with 1000 clients a job is
    // about 5·10⁷ events, not the 6·10⁵ of a per-server count (a probe ran it as "small"
    // and it took over 10 s).
    let h = experiments::scenario::Header::parse(
        &dir.join("x.toml"),
        "experiment = \"spd-sim\"\n[params]\nservers = 8\nclients = 1000\nalgos = [\"alg-m\"]\nduration_s = 2.0\nwarmup_s = 0.5\n",
    )
    .unwrap();
    let s = reg.validate(&h).unwrap();
    let events = s.estimate(0).events.unwrap();
    assert!(events > 3e7, "{events}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn defects_the_probe_generator_found_are_refused_before_any_work() {
    // An unknown key inside a uniform key distribution was ignored (serde's
    // `deny_unknown_fields` does not hold for a unit variant).
    let e = err(
        "experiment = \"dht-lookup\"\n[params]\nnodes = 50\nkeys = { dist = \"uniform\", s = 2.0 }\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.keys.s"), Some(4)),
        "{e}"
    );
    // Churn sessions with a mean of 1e300 s: no node would ever churn.
    let e = err(
        "experiment = \"smoke\"\n[churn]\nsession_s = { dist = \"exponential\", mean = 1e300 }\ndowntime_s = { dist = \"exponential\", mean = 1.0 }\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("churn.session_s"), Some(3)),
        "{e}"
    );
    // Churn naming a node beyond the node count of `[params]` (no topology).
    for exp in ["smoke", "dht-churn"] {
        let e = err(&format!(
            "experiment = \"{exp}\"\n[churn]\nevents = [{{ at_s = 0.5, node = 1000000000, action = \"crash\" }}]\n[params]\nnodes = 40\n"
        ));
        assert_eq!(e.key.as_deref(), Some("churn.events.0.node"), "{exp}: {e}");
        assert_eq!(e.line, Some(3), "{exp}: {e}");
    }
    // Vivaldi read before any host had probed: every estimate 0, every directed error -inf.
    let e = err(
        "experiment = \"core-estimation\"\n[topology]\nkind = \"waxman\"\nnodes = 40\nhs = 100\n[params]\nneighbours = [4]\nrates_hz = [0.001]\nlog_times_min = [0.5]\nlandmark_methods = [\"gnp\"]\n",
    );
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("params.rates_hz.0"), Some(8)),
        "{e}"
    );
    // A measured matrix whose RTTs (here read in µs) are below the engine's 1 µs latency
    // resolution: those pairs were simulated without delay, Vivaldi measured RTTs of 0, never
    // moved, and the directed errors were -inf.
    let seattle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/latency/seattle99_median688.tsv");
    let e = err(&format!(
        "experiment = \"core-estimation\"\n[topology]\nkind = \"matrix\"\nfile = {:?}\nunit = \"us\"\nnodes = 24\n[params]\nneighbours = [4]\nrates_hz = [1.0]\nlog_times_min = [0.5]\nlandmark_methods = []\n",
        seattle.display().to_string()
    ));
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("topology.file"), Some(4)),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("1 µs") && msg.contains("unit = \"us\""),
        "{msg}"
    );
    // The same file read in its own unit (seconds) is fine.
    crate::parse(
        Path::new("/nonexistent/x.toml"),
        &format!(
            "experiment = \"core-estimation\"\n[topology]\nkind = \"matrix\"\nfile = {:?}\nunit = \"s\"\nnodes = 24\n[params]\nneighbours = [4]\nrates_hz = [1.0]\nlog_times_min = [0.5]\nlandmark_methods = []\n",
            seattle.display().to_string()
        ),
    )
    .unwrap();
}
