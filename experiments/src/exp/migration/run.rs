//! One `migration` job: build the world and the nodes, run the day while sampling who is
//! online and where each region is hosted, drain, and hand everything to [`super::report`].

use super::Params;
use super::node::{ClientNode, MigNode, RegionObjects, ServerNode, Shared};
use super::report::{self, Outcome, Sample};
use super::wire::{Filler, Obj, Payload, RegionState};
use super::world::World;
use crate::experiment::Job;
use crate::table::Table;
use coresel::RowMajor;
use migration::{EntryView, ObjectId, Server, ServerId};
use sim_core::{Attachment, MatrixLatency, RouterLatency, SimConfig, SimTime, Simulation};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Run one job.
pub fn run(job: &Job<'_, Params>) -> anyhow::Result<Vec<Table>> {
    let p = job.params();
    let topo = job
        .settings()
        .topology
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("migration needs a [topology] table"))?
        .build(job.seed)?;
    let world = World::build(&topo, p, job.seed)?;
    let config = p.config();
    let n_servers = world.server_router.len();
    let candidates: Vec<usize> = world.server_router.iter().map(|&r| r as usize).collect();
    let d = RowMajor::new(&world.one_way_ms, world.routers)?;

    // Regions start at the group center of the players online at time 0 (of all the
    // region's players if none is).
    let mut servers: Vec<Server<Obj, Payload>> = (0..n_servers)
        .map(|i| Server::new(ServerId(i as u32), config))
        .collect::<Result<_, _>>()?;
    let mut regions = Vec::with_capacity(p.regions);
    let mut object_region = BTreeMap::new();
    let mut initial_host = Vec::with_capacity(p.regions);
    for r in 0..p.regions as u32 {
        let all: Vec<usize> = (0..world.player_router.len())
            .filter(|&q| world.player_region[q] == r)
            .collect();
        let online: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&q| world.sessions_of(q).first().is_some_and(|s| s.0 == 0))
            .collect();
        let members = if online.is_empty() { &all } else { &online };
        let routers: Vec<usize> = members
            .iter()
            .map(|&q| world.player_router[q] as usize)
            .collect();
        let host = if routers.is_empty() {
            0
        } else {
            coresel::group_center(&d, &candidates, &routers, p.objective)
                .map_or(0, |c| world.router_server[c])
        };
        initial_host.push(host);
        let srv = &mut servers[host as usize];
        let others: Vec<ObjectId> = (1..p.objects_per_region)
            .map(|_| srv.create(Obj::State(Filler(p.object_bytes))))
            .collect();
        let group = srv.create(Obj::Region(RegionState {
            region: r,
            others: others.clone(),
            body: Filler(p.object_bytes),
            ..RegionState::default()
        }));
        object_region.insert(group, (r, true));
        for &o in &others {
            object_region.insert(o, (r, false));
        }
        regions.push(RegionObjects { group, others });
    }
    let sh = Arc::new(Shared {
        world,
        regions,
        object_region,
        candidates,
        cfg: p.node_config(),
    });
    let w = &sh.world;

    // Servers and players are hosts attached to the topology's nodes.
    let micros = topo
        .one_way_ms
        .as_ref()
        .map(|m| m.to_micros_u32())
        .unwrap_or_default();
    let access_us = (p.player_access_ms * 1000.0).round() as u32;
    let hosts: Vec<Attachment> = w
        .server_router
        .iter()
        .map(|&router| Attachment {
            router,
            access_us: 0,
        })
        .chain(
            w.player_router
                .iter()
                .map(|&router| Attachment { router, access_us }),
        )
        .collect();
    let latency = RouterLatency::new(MatrixLatency::from_micros(w.routers, micros), hosts)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let network = sim_core::Network::new(latency, job.settings().network.link_config());
    let mut cfg = SimConfig::new(job.seed);
    cfg.per_node_stats = false;
    let nodes = servers
        .into_iter()
        .map(|s| MigNode::Server(Box::new(ServerNode::new(s, Arc::clone(&sh)))))
        .chain(
            (0..w.player_router.len() as u32)
                .map(|q| MigNode::Client(ClientNode::new(Arc::clone(&sh), q))),
        )
        .collect::<Vec<_>>();
    let mut sim = Simulation::new(nodes, network, cfg);

    // The day, sampled.
    let end = sh.cfg.end_ns;
    let step = (p.sample_s * 1e9).round() as u64;
    let mut samples = Vec::new();
    let mut sample_players = Vec::new();
    let mut by_region: Vec<Vec<u32>> = vec![Vec::new(); p.regions];
    let mut t = 0;
    while t < end {
        t = (t + step).min(end);
        sim.run_until(SimTime(t));
        sim.check_progress()?;
        for v in &mut by_region {
            v.clear();
        }
        for node in sim.nodes() {
            if let MigNode::Client(c) = node
                && c.online
            {
                by_region[w.player_region[c.player() as usize] as usize].push(c.player());
            }
        }
        for (r, members) in by_region.iter().enumerate() {
            let host = host_of(&sim, n_servers, sh.regions[r].group).unwrap_or(initial_host[r]);
            samples.push(Sample {
                t_ns: t,
                region: r as u32,
                host,
                start: sample_players.len() as u32,
                len: members.len() as u32,
            });
            sample_players.extend_from_slice(members);
        }
        job.progress
            .report(t as f64 / end as f64, sim.events_processed());
    }
    let drain = (p.drain_s * 1e9).round() as u64;
    sim.run_until(SimTime(end + drain));
    sim.check_progress()?;

    let outcome = Outcome {
        p,
        sh: &sh,
        sim: &sim,
        n_servers,
        initial_host: &initial_host,
        samples: &samples,
        sample_players: &sample_players,
        final_host: (0..p.regions)
            .map(|r| host_of(&sim, n_servers, sh.regions[r].group))
            .collect(),
    };
    Ok(report::tables(&outcome))
}

/// The server hosting `group` (not migrating), else the one migrating it away.
fn host_of(sim: &Simulation<MigNode>, n_servers: usize, group: ObjectId) -> Option<u32> {
    let mut migrating = None;
    for s in 0..n_servers {
        if let MigNode::Server(srv) = sim.node(s as u32) {
            match srv.ns.entry(group) {
                Some(EntryView::Hosted { .. }) => return Some(s as u32),
                Some(EntryView::Migrating { .. }) => migrating = Some(s as u32),
                _ => {}
            }
        }
    }
    migrating
}
