//! `mmvesim spd solve`: one algorithm on one JSON instance, every [`spd::SolveOptions`] knob
//! as a flag.
//!
//! The command solves from scratch: SPDVR-CS / SPDVR-P2P start from SPDCS-H / SPDP2P-H's
//! assignment unless `--initial` gives one (the paper's worked example starts from Fig. 3's
//! assignment: `--initial a=A,b=D,c=B,d=D,e=C --initial-root D`; the scenario
//! `scenarios/spd-example.toml` writes every table of the example).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use serde::de::DeserializeOwned;
use spd::{
    Algo, ClientServer, Instance, KBestConfig, NamedAssignment, Report, SolveOptions, SpdcsRoot,
    ZizoConfig,
};

use super::network::load_instance;

/// The flags of `mmvesim spd solve`.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Instance file (JSON: server_links, client_latency, optional names).
    #[arg(long)]
    pub instance: PathBuf,
    /// Algorithm: alg-m, alg-mp, spdcs-h, spdp2p-h, zizo, k-best-cs, k-best-p2p, spdvr-cs,
    /// spdvr-p2p.
    #[arg(long)]
    pub algo: String,
    /// Delay bound μ in ms, or `inf` for no bound (the report then says `"mu": "inf"`).
    #[arg(long, value_parser = parse_mu)]
    pub mu: f64,
    /// k-best: the subset size k (default: the servers SPDCS-H / SPDP2P-H use at μ).
    #[arg(long)]
    pub k: Option<usize>,
    /// k-best: refuse (exit 1) runs that would enumerate more than this many (root, subset)
    /// pairs k·C(n, k) (default 2e10 for CS, 3e8 for P2P; `inf` = no limit). A run within
    /// the limit that finds no feasible k-subset reports `"feasible": false`.
    #[arg(long, value_parser = parse_pairs)]
    pub max_pairs: Option<u64>,
    /// SPDCS-H's root (also for SPDP2P-H, k-best's k and the SPDVR inputs): all-roots
    /// (default), matching-root (the paper's single greedy) or a server name.
    #[arg(long, default_value = "all-roots")]
    pub spdcs_root: String,
    /// Where alg-mp and SPDP2P-H start: cs-tree (default, the paper's) or p2p-fallback.
    #[arg(long)]
    pub p2p_start: Option<String>,
    /// SPDVR-CS tuple key: text-faithful (default) or paper-table (the printed Tables II/III).
    #[arg(long)]
    pub chain_key: Option<String>,
    /// SPDVR-P2P's Reassign: sequential (default, the pseudocode) or best-improvement.
    #[arg(long)]
    pub reassign: Option<String>,
    /// ZIZO core distance: via-servers (default) or direct.
    #[arg(long)]
    pub zizo_core: Option<String>,
    /// ZIZO zoom-out targets: hop-or-used (default), next-hop or used.
    #[arg(long)]
    pub zizo_targets: Option<String>,
    /// ZIZO zoom-out moves: whole-server (default) or per-client.
    #[arg(long)]
    pub zizo_moves: Option<String>,
    /// Initial assignment for spdvr-cs / spdvr-p2p: `client=server,...` (every client once),
    /// or JSON `{"root": "D", "contacts": [{"client": "a", "server": "A"}, ...]}` inline or in
    /// a file.
    #[arg(long)]
    pub initial: Option<String>,
    /// Root of a `client=server,...` initial assignment (needed for spdvr-cs).
    #[arg(long, requires = "initial")]
    pub initial_root: Option<String>,
}

/// μ: a positive number or `inf` (`infinity`, `none`: no bound).
fn parse_mu(s: &str) -> Result<f64, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "inf" | "infinity" | "+inf" | "none" => Ok(f64::INFINITY),
        t => match t.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
            Ok(x) => Err(format!("mu must be > 0 (or `inf`), got {x}")),
            Err(_) => Err(format!(
                "`{s}` is not a delay bound: a number of ms > 0, or `inf`"
            )),
        },
    }
}

/// A pair limit: a non-negative number (`2e10` is fine) or `inf`.
fn parse_pairs(s: &str) -> Result<u64, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "inf" | "infinity" | "none" => Ok(u64::MAX),
        t => match t.parse::<f64>() {
            Ok(x) if x >= 0.0 && x.is_finite() => Ok(if x >= u64::MAX as f64 {
                u64::MAX
            } else {
                x as u64
            }),
            _ => Err(format!("`{s}` is not a pair limit: a number ≥ 0, or `inf`")),
        },
    }
}

/// A kebab-case option value read with the library's own serde names.
fn option<T: DeserializeOwned>(flag: &str, v: &Option<String>) -> Result<Option<T>> {
    v.as_ref()
        .map(|s| {
            serde_json::from_value(serde_json::Value::String(s.clone()))
                .map_err(|e| anyhow!("--{flag}: {e}"))
        })
        .transpose()
}

fn initial(inst: &Instance, args: &SolveArgs) -> Result<Option<spd::Assignment>> {
    let Some(text) = &args.initial else {
        return Ok(None);
    };
    let named: NamedAssignment = if text.trim_start().starts_with('{') {
        serde_json::from_str(text).context("--initial: invalid JSON")?
    } else if !text.contains('=') {
        let json = std::fs::read_to_string(text)
            .with_context(|| format!("--initial: cannot read {text}"))?;
        serde_json::from_str(&json).with_context(|| format!("--initial: {text}: invalid JSON"))?
    } else {
        let contacts = text
            .split(',')
            .map(|pair| {
                let (c, s) = pair
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--initial: `{pair}` is not client=server"))?;
                Ok(ClientServer {
                    client: c.trim().to_owned(),
                    server: s.trim().to_owned(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        NamedAssignment {
            root: None,
            contacts,
            servers: None,
        }
    };
    let named = match (&args.initial_root, named.root.is_some()) {
        (Some(_), true) => bail!("--initial-root: the JSON assignment names its root already"),
        (Some(r), false) => NamedAssignment {
            root: Some(r.clone()),
            ..named
        },
        (None, _) => named,
    };
    Ok(Some(
        named.resolve(inst).map_err(|e| anyhow!("--initial: {e}"))?,
    ))
}

/// The options of a `spd solve` call.
pub fn solve_options(inst: &Instance, args: &SolveArgs) -> Result<SolveOptions> {
    let spdcs_root = match args.spdcs_root.as_str() {
        "all-roots" => SpdcsRoot::AllRoots,
        "matching-root" => SpdcsRoot::MatchingRoot,
        name => SpdcsRoot::Fixed(inst.server_index(name).ok_or_else(|| {
            anyhow!("--spdcs-root: `{name}` is neither all-roots, matching-root nor a server")
        })?),
    };
    let d = ZizoConfig::default();
    Ok(SolveOptions {
        spdcs_root,
        chain_key: option("chain-key", &args.chain_key)?.unwrap_or_default(),
        reassign: option("reassign", &args.reassign)?.unwrap_or_default(),
        zizo: ZizoConfig {
            core: option("zizo-core", &args.zizo_core)?.unwrap_or(d.core),
            targets: option("zizo-targets", &args.zizo_targets)?.unwrap_or(d.targets),
            moves: option("zizo-moves", &args.zizo_moves)?.unwrap_or(d.moves),
        },
        k_best: KBestConfig {
            k: args.k,
            max_pairs: args.max_pairs,
        },
        p2p_start: option("p2p-start", &args.p2p_start)?.unwrap_or_default(),
        initial: initial(inst, args)?,
    })
}

/// Runs `mmvesim spd solve` and returns the report (errors name the file and the flag).
pub fn solve(args: &SolveArgs) -> Result<Report> {
    let algo: Algo = args.algo.parse().map_err(|e| anyhow!("--algo: {e}"))?;
    let inst = load_instance(&args.instance)?;
    let opts = solve_options(&inst, args)?;
    if opts.initial.is_some() && !matches!(algo, Algo::SpdvrCs | Algo::SpdvrP2p) {
        bail!("--initial applies to spdvr-cs and spdvr-p2p only, not {algo}");
    }
    spd::solve_with(&inst, algo, args.mu, &opts)
        .map_err(|e| anyhow!("{}: {algo}: {e}", args.instance.display()))
}
