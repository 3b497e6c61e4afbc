//! The driver of `spd-sim`: runs an `spd` algorithm, turns its solution into routing state
//! ([`Plan`]), builds the engine over the instance's latencies, runs the game traffic with the
//! scheduled server failure and player churn, and measures (module [`super::sim_measure`]).
//!
//! * **Latencies.** The engine's matrix model holds whole microseconds, so the experiment
//!   rounds every latency of the instance to 1 µs ([`super::sim_select::quantize_us`]) *before* the algorithms run.
//!   Every hop is then exactly representable and, with no jitter, processing or serialization,
//!   every realized delay equals the crate's analytic term rounded to the nearest nanosecond
//!   (the f64 sums of the analytic terms err by far less than 0.5 ns).
//! * **Server failure.** The failed server crashes at `at` (engine churn); messages sent to it
//!   are dropped and those queued there are lost. After `detect` (detection, re-computation and
//!   distribution, lumped), the same algorithm is **re-run** on the remaining servers (the
//!   largest connected part of the server graph without the failed server) and all clients,
//!   and the new routing state is installed at every node at once. The SPD paper's algorithms
//!   are centralized and static: they have no local repair, so re-running them is the recovery
//!   they support; re-running may move clients that the failure did not touch.
//! * **Player churn and re-selection.** Clients alternate between sessions and absences
//!   (exponential, engine session churn; servers never churn). Every `reselect` the algorithm
//!   is re-run on the clients present. A client that joins between re-selections is attached
//!   provisionally to a contact server of the current selection: the one minimizing
//!   d(c, s) + d(s, r) (CS) or d(c, s) + max over contact servers t of d(s, t) (P2P).

use std::sync::Arc;

use sim_core::{
    Churn, ChurnAction, Dist, LinkConfig, MatrixLatency, Network, Ordering, ScheduledChurn,
    SessionChurn, SimConfig, SimTime, Simulation,
};
use spd::{Algo, Instance, Model};

use super::sim_measure::{WindowStats, stream_gaps, window_stats};
use super::sim_nodes::{ClientNode, NONE, Plan, ServerNode, ServerStats, Shared, SpdNode};
use super::sim_select::{Selection, SelectionSummary, largest_component};

/// Which server fails.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FailTarget {
    /// No failure.
    None,
    /// CS: the root (central server). P2P, which has no root: the contact server with the
    /// most clients.
    Root,
    /// CS: the contact server other than the root with the most clients. P2P: the contact
    /// server with the second-most clients. When the solution has no such server, the one
    /// `root` names.
    Contact,
}

/// The traffic and the link and server effects of a run.
#[derive(Debug, Clone)]
pub struct Traffic {
    /// Actions per second per client.
    pub rate_hz: f64,
    /// Clients send in [0, duration).
    pub duration: SimTime,
    /// Interactions produced before this instant are not measured.
    pub warmup: SimTime,
    /// Mean jitter per hop as a fraction of the hop's latency.
    pub jitter_frac: f64,
    /// Processing time per message at a server.
    pub processing: SimTime,
    /// Uplink bandwidth of every node (serialization), bits/s; `None`: off.
    pub uplink_bps: Option<f64>,
    /// Bytes of an action.
    pub action_bytes: u32,
    /// Bytes of a CS state update.
    pub update_bytes: u32,
}

/// A scheduled server failure.
#[derive(Debug, Clone, Copy)]
pub struct Failure {
    /// Which server.
    pub target: FailTarget,
    /// When it crashes.
    pub at: SimTime,
    /// Until the new selection is installed.
    pub detect: SimTime,
}

/// Player churn: exponential sessions and absences of the clients.
#[derive(Debug, Clone, Copy)]
pub struct PlayerChurn {
    /// Mean session, s.
    pub session_s: f64,
    /// Mean absence, s.
    pub downtime_s: f64,
}

/// One run: an algorithm on an instance with traffic, failure and churn.
#[derive(Debug, Clone)]
pub struct RunSpec<'a> {
    /// The (quantized) instance.
    pub inst: &'a Instance,
    /// The algorithm.
    pub algo: Algo,
    /// The delay bound μ, ms.
    pub mu: f64,
    /// Traffic and effects.
    pub traffic: Traffic,
    /// A server failure, if any.
    pub failure: Option<Failure>,
    /// Player churn, if any.
    pub churn: Option<PlayerChurn>,
    /// Re-selection period, if any.
    pub reselect: Option<SimTime>,
    /// The engine seed.
    pub seed: u64,
}

/// A server's measurements over the run.
#[derive(Debug, Clone)]
pub struct ServerRow {
    /// Global server index.
    pub server: usize,
    /// Role in the initial plan: `root`, `contact`, `relay` or `unused`.
    pub role: &'static str,
    /// Its measurements.
    pub stats: ServerStats,
}

/// What the failure did.
#[derive(Debug, Clone)]
pub struct FailureOutcome {
    /// The failed server.
    pub server: usize,
    /// Its role in the initial plan.
    pub role: &'static str,
    /// Clients attached to it.
    pub clients_on_failed: usize,
    /// Servers cut off from the largest remaining part of the server graph.
    pub stranded: usize,
    /// The selection installed after detection.
    pub after: SelectionSummary,
    /// When it was installed.
    pub installed_at: SimTime,
    /// Messages lost: dropped at the dead server, queued there at the crash, or left without
    /// a route by the new plan.
    pub msgs_lost: u64,
    /// The interaction gap of every stream (ns).
    pub gaps: Vec<u64>,
    /// Interactions produced in [warmup, duration) and never delivered (`None` under player
    /// churn).
    pub interactions_lost: Option<u64>,
    /// Interactions expected in [warmup, duration).
    pub interactions_expected: Option<u64>,
}

/// One periodic re-selection.
#[derive(Debug, Clone)]
pub struct ReselectRow {
    /// When.
    pub at: SimTime,
    /// Clients present.
    pub alive: usize,
    /// The new selection.
    pub summary: SelectionSummary,
    /// Whether the set of servers used changed.
    pub set_changed: bool,
    /// Whether the root changed.
    pub root_changed: bool,
    /// Present clients whose contact server changed.
    pub migrated: usize,
}

/// Everything a run measured.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The algorithm's model.
    pub model: Model,
    /// The initial selection.
    pub initial: SelectionSummary,
    /// The measurement windows with the analytic figures of the selection in effect.
    pub windows: Vec<(WindowStats, SelectionSummary)>,
    /// Per-server measurements (servers that handled traffic or are used).
    pub servers: Vec<ServerRow>,
    /// The failure, if one was scheduled.
    pub failure: Option<FailureOutcome>,
    /// Periodic re-selections.
    pub reselections: Vec<ReselectRow>,
    /// Engine events.
    pub events: u64,
    /// Messages the engine found no route for (always 0 unless the plan is wrong).
    pub engine_unroutable: u64,
}

/// The engine's one-way latency matrix (µs) for n servers then m clients: direct server links,
/// client–server latencies both ways, no route between clients or between unlinked servers.
pub fn engine_latency_us(inst: &Instance) -> Vec<u32> {
    let (n, m) = (inst.num_servers(), inst.num_clients());
    let nodes = n + m;
    let us = |v: f64| (v * 1000.0).round() as u32;
    let mut lat = vec![sim_core::NO_ROUTE_US; nodes * nodes];
    for a in 0..n {
        lat[a * nodes + a] = 0;
        for b in 0..n {
            if let Some(w) = inst.link(a, b) {
                lat[a * nodes + b] = us(w);
            }
        }
    }
    for c in 0..m {
        for s in 0..n {
            let v = us(inst.client_dist(c, s));
            lat[(n + c) * nodes + s] = v;
            lat[s * nodes + n + c] = v;
        }
    }
    lat
}

fn role_of(plan: &Plan, s: usize) -> &'static str {
    if plan.root == Some(s as u32) && plan.model == Model::Cs {
        "root"
    } else if plan.contacts.contains(&(s as u32)) {
        "contact"
    } else if plan.servers_used.binary_search(&s).is_ok() {
        "relay"
    } else {
        "unused"
    }
}

/// The server `target` names in `plan` (ties: lower index).
fn fail_target(plan: &Plan, n: usize, target: FailTarget) -> Option<usize> {
    let mut count = vec![0usize; n];
    for &s in &plan.contact {
        if s != NONE {
            count[s as usize] += 1;
        }
    }
    // contact servers by decreasing number of clients, then index
    let mut by_clients: Vec<usize> = plan.contacts.iter().map(|&s| s as usize).collect();
    by_clients.sort_by_key(|&s| (std::cmp::Reverse(count[s]), s));
    let cs_root = match plan.model {
        Model::Cs => plan.root.map(|r| r as usize),
        Model::P2p => None,
    };
    let hub = cs_root.or_else(|| by_clients.first().copied());
    match target {
        FailTarget::None => None,
        FailTarget::Root => hub,
        FailTarget::Contact => by_clients.iter().copied().find(|&s| Some(s) != hub).or(hub),
    }
}

fn install(sim: &mut Simulation<SpdNode>, plan: &Arc<Plan>) {
    for node in sim.nodes_mut() {
        node.set_plan(plan);
    }
}

/// Runs the engine until `t` in chunks, calling `progress(now)` between them; the engine's
/// [`sim_core::Stall`] if simulated time stopped advancing.
fn run_to(
    sim: &mut Simulation<SpdNode>,
    t: SimTime,
    progress: &mut dyn FnMut(SimTime, u64),
) -> Result<(), sim_core::Stall> {
    let step = SimTime::from_millis(250);
    while sim.now() < t {
        let next = (sim.now() + step).min(t);
        sim.run_until(next);
        sim.check_progress()?;
        progress(next, sim.events_processed());
    }
    Ok(())
}

/// Runs one simulation (module docs). `progress(now, events)` is called between chunks.
pub fn simulate(
    spec: &RunSpec<'_>,
    progress: &mut dyn FnMut(SimTime, u64),
) -> anyhow::Result<RunOutcome> {
    let full = spec.inst;
    let (n, m) = (full.num_servers(), full.num_clients());
    let tr = &spec.traffic;
    let all_servers: Vec<usize> = (0..n).collect();
    let all_clients: Vec<usize> = (0..m).collect();
    let first = Selection::new(full, spec.algo, spec.mu, all_servers.clone(), all_clients)?;
    let model = first.solution.model;
    let plan0 = Arc::new(first.plan(full));
    let latency_us = engine_latency_us(full);
    let shared = Arc::new(Shared {
        n,
        m,
        latency_us: latency_us.clone(),
        jitter_frac: tr.jitter_frac,
        processing: tr.processing,
        ns_per_byte: tr.uplink_bps.map(|bps| 8e9 / bps),
        action_bytes: tr.action_bytes,
        update_bytes: tr.update_bytes,
        interval: SimTime::from_secs_f64(1.0 / tr.rate_hz),
        stop_at: tr.duration,
    });
    let nodes = (0..n)
        .map(|s| {
            SpdNode::Server(ServerNode::new(
                s as u32,
                Arc::clone(&plan0),
                Arc::clone(&shared),
            ))
        })
        .chain((0..m).map(|c| {
            SpdNode::Client(ClientNode::new(
                c as u32,
                Arc::clone(&plan0),
                Arc::clone(&shared),
            ))
        }));
    let net = Network::new(
        MatrixLatency::from_micros(n + m, latency_us),
        LinkConfig {
            jitter_ms: None,
            loss: 0.0,
            ordering: Ordering::Reorder,
            uplink_bps: tr.uplink_bps,
            downlink_bps: None,
            processing_ms: None,
        },
    );
    let mut cfg = SimConfig::new(spec.seed);
    cfg.per_node_stats = false;
    let failed = spec
        .failure
        .and_then(|f| fail_target(&plan0, n, f.target).map(|s| (s, f)));
    let mut churn = Churn::none();
    if let Some((s, f)) = failed {
        churn.scheduled.push(ScheduledChurn {
            at: f.at,
            node: s as u32,
            action: ChurnAction::Crash,
        });
    }
    if let Some(pc) = spec.churn {
        let exp = |mean: f64| {
            Dist::Exponential { mean }
                .sampler()
                .map_err(|e| anyhow::anyhow!("churn distribution: {e}"))
        };
        churn.sessions = Some(SessionChurn {
            session_s: exp(pc.session_s)?,
            downtime_s: exp(pc.downtime_s)?,
            crash_fraction: 0.0,
            start: SimTime::ZERO,
            stable_nodes: n as u32,
        });
    }
    cfg.churn = churn;
    let mut sim = Simulation::new(nodes, net, cfg);

    // the driver's instants: the failure's installation and the re-selections
    let mut instants: Vec<(SimTime, bool)> = Vec::new();
    if let Some((_, f)) = failed {
        instants.push((f.at + f.detect, true));
    }
    if let Some(p) = spec.reselect {
        let mut t = p;
        while t < tr.duration {
            instants.push((t, false));
            t += p;
        }
    }
    instants.sort_by_key(|&(t, install_failure)| (t, !install_failure));

    let mut up_servers = vec![true; n];
    let mut current = Arc::clone(&plan0);
    let mut failure_sel: Option<Selection> = None;
    let mut failure_out: Option<FailureOutcome> = None;
    let mut reselections = Vec::new();
    for (t, is_failure) in instants {
        run_to(&mut sim, t, progress)?;
        let present: Vec<usize> = (0..m).filter(|&c| sim.is_alive((n + c) as u32)).collect();
        if is_failure {
            let (s, _) = failed.expect("a failure instant implies a failure");
            up_servers[s] = false;
            let comp = largest_component(full, &up_servers);
            let clients = if present.is_empty() {
                (0..m).collect()
            } else {
                present
            };
            let sel = Selection::new(full, spec.algo, spec.mu, comp.clone(), clients)?;
            let plan = Arc::new(sel.plan(full));
            install(&mut sim, &plan);
            failure_out = Some(FailureOutcome {
                server: s,
                role: role_of(&plan0, s),
                clients_on_failed: plan0.contact.iter().filter(|&&x| x as usize == s).count(),
                stranded: n - 1 - comp.len(),
                after: sel.summary(),
                installed_at: t,
                msgs_lost: 0,
                gaps: Vec::new(),
                interactions_lost: None,
                interactions_expected: None,
            });
            current = plan;
            failure_sel = Some(sel);
        } else {
            if present.is_empty() {
                continue;
            }
            let comp = largest_component(full, &up_servers);
            let sel = Selection::new(full, spec.algo, spec.mu, comp, present.clone())?;
            let plan = Arc::new(sel.plan(full));
            let migrated = present
                .iter()
                .filter(|&&c| plan.contact[c] != current.contact[c])
                .count();
            reselections.push(ReselectRow {
                at: t,
                alive: present.len(),
                summary: sel.summary(),
                set_changed: plan.servers_used != current.servers_used,
                root_changed: plan.root != current.root,
                migrated,
            });
            install(&mut sim, &plan);
            current = plan;
        }
    }
    run_to(&mut sim, tr.duration, progress)?;
    // drain: clients have stopped; run until nothing is in flight, queued or held (steps
    // doubling from 1 s, so that a long saturated backlog takes few checks)
    let mut step = SimTime::from_secs(1);
    let mut doublings = 0u32;
    while !(sim.nodes().all(SpdNode::idle) && sim.messages_in_flight() == 0) {
        // the backlog is finite once clients stop; 2^30 s would mean a routing loop
        anyhow::ensure!(doublings < 30, "the network did not drain");
        doublings += 1;
        let next = sim.now() + step;
        sim.run_until(next);
        sim.check_progress()?;
        step = step + step;
    }

    let clients: Vec<&ClientNode> = sim
        .nodes()
        .filter_map(|x| match x {
            SpdNode::Client(c) => Some(c),
            SpdNode::Server(_) => None,
        })
        .collect();
    let mu_lim = spd::mu_limit(spec.mu);
    let steady_loss = spec.churn.is_none();
    let mut windows = Vec::new();
    match (&failure_out, failed) {
        (Some(fo), Some((_, f))) => {
            let terms0 = (spec.churn.is_none()).then(|| first.terms(m));
            let w0 = window_stats(
                "before",
                model,
                &clients,
                tr.warmup,
                f.at,
                mu_lim,
                terms0.as_deref(),
                steady_loss,
            );
            windows.push((w0, first.summary()));
            let terms1 = match (&failure_sel, spec.churn) {
                (Some(sel), None) => Some(sel.terms(m)),
                _ => None,
            };
            let w1 = window_stats(
                "after",
                model,
                &clients,
                fo.installed_at,
                tr.duration,
                mu_lim,
                terms1.as_deref(),
                steady_loss,
            );
            windows.push((w1, fo.after));
        }
        _ => {
            let dynamic = spec.churn.is_some();
            let name = if dynamic { "churn" } else { "steady" };
            let terms = (!dynamic).then(|| first.terms(m));
            let w = window_stats(
                name,
                model,
                &clients,
                tr.warmup,
                tr.duration,
                mu_lim,
                terms.as_deref(),
                steady_loss,
            );
            windows.push((w, first.summary()));
        }
    }
    let stats = sim.stats().total();
    let mut servers = Vec::new();
    let mut lost_at_servers = 0;
    for (s, node) in sim.nodes().take(n).enumerate() {
        if let SpdNode::Server(sv) = node {
            lost_at_servers += sv.stats.lost_at_crash + sv.stats.unroutable;
            let role = role_of(&plan0, s);
            if sv.stats.handled > 0 || role != "unused" {
                servers.push(ServerRow {
                    server: s,
                    role,
                    stats: sv.stats.clone(),
                });
            }
        }
    }
    if let Some(fo) = failure_out.as_mut() {
        fo.msgs_lost = stats.dropped_dead + lost_at_servers;
        fo.gaps = stream_gaps(model, &clients, tr.warmup);
        let all = window_stats(
            "all",
            model,
            &clients,
            tr.warmup,
            tr.duration,
            mu_lim,
            None,
            steady_loss,
        );
        fo.interactions_lost = all.lost;
        fo.interactions_expected = all.expected;
    }
    Ok(RunOutcome {
        model,
        initial: first.summary(),
        windows,
        servers,
        failure: failure_out,
        reselections,
        events: sim.events_processed(),
        engine_unroutable: stats.unroutable_msgs,
    })
}
