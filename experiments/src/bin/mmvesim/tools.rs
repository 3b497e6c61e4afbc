//! `mmvesim spd` and `mmvesim topo`: the tools beside the scenario runner (solve one SPD
//! instance; generate and inspect topologies).

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use experiments::exp;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum SpdCmd {
    /// Run one SPD/SPDVR algorithm on a JSON instance and print the report (assignment,
    /// servers used, delay, delay variation, run time) as JSON. Solves from scratch: the
    /// SPDVR algorithms start from SPDCS-H / SPDP2P-H's assignment unless `--initial` gives
    /// one (the paper's worked example: `mmvesim run scenarios/spd-example.toml`).
    Solve(exp::server_network::cli::SolveArgs),
}

#[derive(Subcommand, Debug)]
pub enum TopoCmd {
    /// Generate a BRITE router-level Waxman topology and write it as a `.brite` file.
    #[command(allow_negative_numbers = true)]
    Gen {
        /// Output file.
        #[arg(long)]
        out: PathBuf,
        /// Number of nodes.
        #[arg(long, default_value_t = 1000)]
        nodes: usize,
        /// Links per new node.
        #[arg(long, default_value_t = 2)]
        m: usize,
        /// Waxman alpha.
        #[arg(long, allow_hyphen_values = true, default_value_t = 0.15)]
        alpha: f64,
        /// Waxman beta.
        #[arg(long, allow_hyphen_values = true, default_value_t = 0.2)]
        beta: f64,
        /// Plane side HS.
        #[arg(long, default_value_t = 1000)]
        hs: u32,
        /// Inner square side LS.
        #[arg(long, default_value_t = 100)]
        ls: u32,
        /// Heavy-tailed placement instead of random.
        #[arg(long)]
        heavy_tailed: bool,
        /// Model: waxman or ba (Barabási–Albert).
        #[arg(long, default_value = "waxman")]
        model: String,
        /// Portable seed (ignored with --brite-seeds).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Use BRITE's own erand48 streams with this seed file (six lines `NAME w0 w1 w2`);
        /// `default` uses BRITE's shipped seed_file words. Output is then byte-identical
        /// to BRITE's C++ generator.
        #[arg(long)]
        brite_seeds: Option<String>,
    },
    /// Print statistics of a `.brite` file or a latency matrix.
    #[command(allow_negative_numbers = true)]
    Inspect {
        /// A `.brite` file or a matrix (`.tsv`, `.txt`, `.gz`).
        file: PathBuf,
        /// Plane side in ms (for `.brite` link latencies).
        #[arg(long, allow_hyphen_values = true, default_value_t = 200.0)]
        side_ms: f64,
        /// Matrix unit: ms, s, us.
        #[arg(long, default_value = "ms")]
        unit: String,
        /// Treat 0 off the diagonal as missing (Seattle data); same as `--missing
        /// zero-off-diagonal`.
        #[arg(long)]
        zero_missing: bool,
        /// Missing-value convention of a matrix: none, nan (NaN tokens), negative,
        /// zero-off-diagonal, or a marker number such as -1.
        #[arg(long, default_value = "none", allow_hyphen_values = true)]
        missing: String,
    },
}

pub fn spd_cmd(cmd: SpdCmd) -> Result<()> {
    match cmd {
        SpdCmd::Solve(args) => {
            let report = exp::server_network::cli::solve(&args)?;
            println!("{}", report.to_json());
        }
    }
    Ok(())
}

/// `topo gen`: range checks naming the options (the generators check the combinations).
fn check_gen_options(
    model: &str,
    nodes: usize,
    m: usize,
    alpha: f64,
    beta: f64,
    hs: u32,
    ls: u32,
) -> Result<()> {
    use topologies::fmt_g;
    let max = topologies::MAX_NODES;
    if !(2..=max).contains(&nodes) {
        bail!("--nodes must be in 2..={max} (a topology needs at least 2 nodes), got {nodes}");
    }
    if m == 0 || m >= nodes {
        bail!(
            "--m must be in 1..={} (fewer than --nodes), got {m}",
            nodes - 1
        );
    }
    if hs == 0 || hs > i32::MAX as u32 {
        bail!("--hs must be in 1..={}, got {hs}", i32::MAX);
    }
    if model == "waxman" {
        if !(alpha > 0.0 && alpha <= 1.0) {
            bail!(
                "--alpha is a probability and must be in (0, 1], got {}",
                fmt_g(alpha)
            );
        }
        if !(beta > 0.0 && beta.is_finite()) {
            bail!("--beta must be a positive number, got {}", fmt_g(beta));
        }
        if ls == 0 || ls > hs {
            bail!("--ls must be in 1..={hs} (at most --hs), got {ls}");
        }
    }
    Ok(())
}

/// A generator's refusal, with the option names its BRITE parameter names stand for.
fn gen_error(e: topologies::GenerateError) -> anyhow::Error {
    anyhow::anyhow!("{e} (N = --nodes, HS = --hs, LS = --ls)")
}

pub fn topo(cmd: TopoCmd) -> Result<()> {
    use topologies::stats::*;
    use topologies::*;
    match cmd {
        TopoCmd::Gen {
            out,
            nodes,
            m,
            alpha,
            beta,
            hs,
            ls,
            heavy_tailed,
            model,
            seed,
            brite_seeds,
        } => {
            check_gen_options(&model, nodes, m, alpha, beta, hs, ls)?;
            let t = match model.as_str() {
                "waxman" => {
                    let p = WaxmanParams {
                        n: nodes,
                        hs,
                        ls,
                        m,
                        alpha,
                        beta,
                        placement: if heavy_tailed {
                            Placement::HeavyTailed
                        } else {
                            Placement::Random
                        },
                        ..WaxmanParams::default()
                    };
                    p.check().map_err(gen_error)?;
                    match brite_seeds {
                        Some(src) => {
                            let mut seeds = if src == "default" {
                                BriteSeeds::default()
                            } else {
                                let text = std::fs::read_to_string(&src)
                                    .with_context(|| format!("reading seed file {src}"))?;
                                BriteSeeds::parse(&text)
                                    .map_err(|e| anyhow::anyhow!("{src}: {e}"))?
                            };
                            rt_waxman_brite(&p, &mut seeds).map_err(gen_error)?
                        }
                        None => rt_waxman_portable(&p, seed).map_err(gen_error)?,
                    }
                }
                "ba" => {
                    let p = BaParams {
                        n: nodes,
                        m,
                        hs,
                        bandwidth: 10.0,
                    };
                    p.check().map_err(gen_error)?;
                    barabasi_albert(&p, seed).map_err(gen_error)?
                }
                other => bail!("unknown model `{other}` (waxman or ba)"),
            };
            experiments::output::write_atomic(&out, to_brite_string(&t).as_bytes())?;
            println!(
                "wrote {} ({} nodes, {} edges)",
                out.display(),
                t.n(),
                t.edges.len()
            );
        }
        TopoCmd::Inspect {
            file,
            side_ms,
            unit,
            zero_missing,
            missing,
        } => {
            if !(side_ms.is_finite() && side_ms > 0.0) {
                bail!(
                    "--side-ms must be a positive number of milliseconds, got {}",
                    fmt_g(side_ms)
                );
            }
            let name = file.to_string_lossy();
            let matrix = if name.ends_with(".brite") {
                let t = read_brite(&file)?;
                let d = degree_stats(&t);
                println!(
                    "{}: {} nodes, {} edges",
                    file.display(),
                    t.n(),
                    t.edges.len()
                );
                println!("degree: min {}, mean {:.3}, max {}", d.min, d.mean, d.max);
                let csr = t.try_csr(side_ms)?;
                let yes_no = |b: bool| if b { "yes" } else { "no" };
                println!("connected: {}", yes_no(is_connected(&csr)));
                let (mean, min, max) = length_summary(&t);
                if t.edges.is_empty() {
                    println!("link length: no links");
                } else {
                    println!(
                        "link length: mean {mean:.2}, min {min:.2}, max {max:.2} plane units \
                         (plane side {} units = {side_ms} ms)",
                        t.plane_side
                    );
                }
                apsp(&csr)
            } else {
                let missing = match (zero_missing, missing.as_str()) {
                    (true, "none" | "zero-off-diagonal") | (false, "zero-off-diagonal") => {
                        Missing::ZeroOffDiagonal
                    }
                    (true, other) => {
                        bail!("--zero-missing and --missing {other} contradict each other")
                    }
                    (false, "none") => Missing::None,
                    (false, "nan") => Missing::Value(f64::NAN),
                    (false, "negative") => Missing::Negative,
                    (false, v) => match v.parse::<f64>() {
                        Ok(x) if x.is_finite() => Missing::Value(x),
                        _ => bail!(
                            "--missing must be none, nan, negative, zero-off-diagonal or a \
                             number, got `{v}`"
                        ),
                    },
                };
                let opts = MatrixOptions {
                    unit: match unit.as_str() {
                        "ms" => TimeUnit::Millis,
                        "s" => TimeUnit::Seconds,
                        "us" => TimeUnit::Micros,
                        u => bail!("--unit must be ms, s or us, got `{u}`"),
                    },
                    missing,
                    zero_diagonal: true,
                };
                let m = read_matrix(&file, &opts)?;
                println!("{}: {} × {} matrix", file.display(), m.n, m.n);
                println!(
                    "missing values: {} of {} off the diagonal",
                    m.missing_off_diagonal(),
                    m.n * (m.n - 1)
                );
                m
            };
            let pairs = matrix.n * (matrix.n - 1);
            let finite = (0..matrix.n)
                .flat_map(|i| (0..matrix.n).map(move |j| (i, j)))
                .filter(|&(i, j)| i != j && matrix.get(i, j).is_finite())
                .count();
            if finite == 0 {
                println!("mean latency: none (no pair has a latency)");
            } else {
                println!(
                    "mean latency: {:.3} ms over {finite} of {pairs} ordered pairs",
                    mean_latency(&matrix)
                );
            }
            if let Some(d) = diameter_latency(&matrix) {
                println!("latency diameter (largest pair latency): {d:.3} ms");
            }
            let tv = triangle_violations(
                &matrix,
                Triples::Sampled {
                    count: 100_000,
                    seed: 1,
                },
            );
            if tv.triples == 0 {
                println!("triangle-inequality violations: no complete triple to check");
            } else {
                let pct = |k: usize| 100.0 * k as f64 / tv.triples as f64;
                println!(
                    "triangle-inequality violations: {} of {} sampled triples ({:.2} %); by \
                     more than 10 %: {} ({:.2} %); by more than 50 %: {} ({:.2} %)",
                    tv.violations,
                    tv.triples,
                    pct(tv.violations),
                    tv.violations_10pct,
                    pct(tv.violations_10pct),
                    tv.violations_50pct,
                    pct(tv.violations_50pct)
                );
            }
        }
    }
    Ok(())
}
