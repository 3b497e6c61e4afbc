//! `mmvesim-fuzz`: run the readers of outside input on mutated inputs and report findings.
//!
//! ```text
//! mmvesim-fuzz --target all --count 1000000 --seed 1
//! mmvesim-fuzz --target probe --count 20000
//! mmvesim-fuzz --target brite,matrix --seconds 600
//! mmvesim-fuzz --replay fuzz/regressions/brite/new/panic-….brite --target brite
//! ```

use std::process::ExitCode;
use std::time::Duration;

use mmvesim_fuzz::Target;
use mmvesim_fuzz::driver::{Options, child, drive, replay};

const USAGE: &str = "usage: mmvesim-fuzz [--target all|NAME[,NAME...]] (--count N | --seconds T) \
[--seed S] [--batch B] [--limit-ms MS] [--mem-mb MB] [--no-save]
       mmvesim-fuzz --target NAME --replay FILE
       mmvesim-fuzz --target NAME --sample K [--start I] [--seed S]   (print the outcomes of
           inputs I..I+K, to tune mutations or to name a campaign's finding #I)
targets: matrix frames triples matrix-gz brite spd scenario probe";

struct Args {
    targets: Vec<Target>,
    count: Option<u64>,
    seconds: Option<f64>,
    seed: u64,
    batch: u64,
    limit_ms: u64,
    mem_mb: u64,
    save: bool,
    child: bool,
    start: u64,
    replay: Option<String>,
    sample: Option<u64>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        targets: Target::ALL.to_vec(),
        count: None,
        seconds: None,
        seed: 1,
        batch: 2000,
        limit_ms: 10_000,
        mem_mb: 2048,
        save: true,
        child: false,
        start: 0,
        replay: None,
        sample: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let num = |name: &str, v: String| -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("{name} must be a whole number >= 0, got `{v}`"))
        };
        match flag.as_str() {
            "--target" => {
                let v = value("--target")?;
                a.targets = if v == "all" {
                    Target::ALL.to_vec()
                } else {
                    v.split(',')
                        .map(|s| Target::from_name(s).ok_or(format!("unknown target `{s}`")))
                        .collect::<Result<_, _>>()?
                };
            }
            "--count" => a.count = Some(num("--count", value("--count")?)?),
            "--seconds" => {
                let v = value("--seconds")?;
                a.seconds = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .ok_or(format!("--seconds must be a positive number, got `{v}`"))?,
                );
            }
            "--seed" => a.seed = num("--seed", value("--seed")?)?,
            "--batch" => a.batch = num("--batch", value("--batch")?)?.max(1),
            "--limit-ms" => a.limit_ms = num("--limit-ms", value("--limit-ms")?)?.max(1),
            "--mem-mb" => a.mem_mb = num("--mem-mb", value("--mem-mb")?)?.max(64),
            "--no-save" => a.save = false,
            "--child" => a.child = true,
            "--start" => a.start = num("--start", value("--start")?)?,
            "--replay" => a.replay = Some(value("--replay")?),
            "--sample" => a.sample = Some(num("--sample", value("--sample")?)?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let limit = Duration::from_millis(a.limit_ms);
    if a.child {
        let code = child(a.targets[0], a.seed, a.start, a.count.unwrap_or(0), limit);
        return ExitCode::from(code as u8);
    }
    if let Some(file) = a.replay {
        if a.targets.len() != 1 {
            eprintln!("--replay needs exactly one --target");
            return ExitCode::from(2);
        }
        return match replay(a.targets[0], file.as_ref(), limit) {
            Ok(v) => {
                println!("{file}: {v:?}");
                if v.is_finding() {
                    ExitCode::FAILURE
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(k) = a.sample {
        return sample(&a.targets, a.seed, a.start, k);
    }
    if a.count.is_none() && a.seconds.is_none() {
        eprintln!("give --count or --seconds\n{USAGE}");
        return ExitCode::from(2);
    }
    let report = match drive(Options {
        targets: a.targets,
        count: a.count,
        seconds: a.seconds,
        seed: a.seed,
        batch: a.batch,
        limit,
        mem_mb: a.mem_mb,
        save: a.save,
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (t, c) in &report.counts {
        for (class, n) in &c.classes {
            println!("class {:<10} {class:<24} {n:>10}", t.name());
        }
    }
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}",
        "target", "inputs", "ok", "error", "findings", "time s", "inputs/s"
    );
    let mut total = 0;
    for (t, c) in &report.counts {
        total += c.inputs;
        println!(
            "{:<10} {:>10} {:>10} {:>10} {:>9} {:>9.1} {:>9.0}",
            t.name(),
            c.inputs,
            c.ok,
            c.err,
            c.findings,
            c.secs,
            c.inputs as f64 / c.secs.max(1e-9)
        );
    }
    println!(
        "total {total} inputs in {:.1} s (seed {}), {} findings",
        report.secs,
        a.seed,
        report.findings.len()
    );
    for f in &report.findings {
        println!(
            "  {} #{} {}: {}{}",
            f.target.name(),
            f.index,
            f.kind,
            f.message,
            f.saved
                .as_ref()
                .map(|p| format!(" -> {}", p.display()))
                .unwrap_or_default()
        );
    }
    if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Print the outcome of inputs `start..start + k` of each target (in this process; a panic
/// is caught, a hang is not).
fn sample(targets: &[Target], seed: u64, start: u64, k: u64) -> ExitCode {
    let root = mmvesim_fuzz::corpus::workspace_root();
    for &t in targets {
        let seeds = match mmvesim_fuzz::corpus::corpus(t, &root) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let cx = match mmvesim_fuzz::Context::new(root.clone(), "sample") {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: scratch directory: {e}");
                return ExitCode::FAILURE;
            }
        };
        for i in start..start.saturating_add(k) {
            let input = mmvesim_fuzz::make_input(t, &seeds, seed, i);
            // The input is named before it runs, so that a hang shows which one it is; with
            // MMVESIM_PROBE_VERBOSE its text is printed too.
            eprintln!("{} #{i} [{}] ...", t.name(), input.origin);
            if std::env::var_os("MMVESIM_PROBE_VERBOSE").is_some() {
                eprintln!("{}", String::from_utf8_lossy(&input.bytes));
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                mmvesim_fuzz::targets::run(t, &input, &cx)
            }));
            let what = match r {
                Ok(o) => format!("{o:?}"),
                Err(_) => "panic".into(),
            };
            println!("{} #{i} [{}]: {what}", t.name(), input.origin);
        }
        let _ = std::fs::remove_dir_all(&cx.scratch);
    }
    ExitCode::SUCCESS
}
