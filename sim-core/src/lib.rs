//! # sim-core: a deterministic discrete-event network simulation engine
//!
//! `sim-core` runs node logic over a simulated network, one event at a time, in a
//! strictly reproducible order. It does no I/O and never reads the wall clock; all
//! randomness flows from the seed given to [`Simulation::new`] (in its [`SimConfig`]).
//!
//! * **Time** is an integer number of nanoseconds ([`SimTime`]). Events are ordered by
//!   `(time, insertion sequence)`, so events at the same instant run in the order they
//!   were scheduled.
//! * **Node logic** implements [`Node`], generic over its message type: delivering a
//!   message is a direct, monomorphised call, with no boxing or dynamic dispatch.
//!   Through the [`Ctx`] a node sends messages, sets and cancels timers
//!   ([`TimerKey`]), and draws from its own random stream.
//! * **Random streams** are derived from `(seed, node id, stream name)`
//!   ([`rng::stream_rng`]), so adding a node or a stream leaves every other stream's
//!   numbers unchanged.
//! * **The network** ([`Network`]) turns a base latency ([`LatencyModel`]: matrix,
//!   coordinates, end hosts attached to routers, constant) into delivery times with
//!   optional jitter, loss, FIFO or reordering links, serialization delay on the
//!   sender's uplink and, at the receiver, a downlink and a per-message processing time
//!   (FIFO queues in arrival order), and
//!   accounts traffic per node and per message kind ([`NetStats`]). Every message sent
//!   is delivered, dropped at a dead node, lost, unroutable (no route between the
//!   pair), or still in flight ([`Simulation::messages_in_flight`]).
//! * **Churn** ([`Churn`]): scheduled or session-based joins, leaves and crashes;
//!   messages to a dead node are dropped and counted.
//! * **Metrics** ([`Metrics`]): counters, exact-quantile histograms and time series,
//!   exported as tidy rows.
//! * **Long runs** are driven in chunks with [`Simulation::run_until`]; between
//!   chunks, [`Simulation::now`] and [`Simulation::events_processed`] are plain field
//!   reads, and chunking changes neither the events nor their order.
//!
//! ```
//! use sim_core::{ConstantLatency, Ctx, Message, Network, Node, NodeId, SimConfig, SimTime, Simulation};
//!
//! struct Ping;
//! impl Message for Ping {}
//!
//! /// Node 0 pings node 1 once; node 1 counts what it receives.
//! #[derive(Default)]
//! struct P { got: u32 }
//! impl Node for P {
//!     type Msg = Ping;
//!     fn on_start(&mut self, ctx: &mut Ctx<'_, Ping>) {
//!         if ctx.me() == 0 { ctx.send(1, Ping); }
//!     }
//!     fn on_message(&mut self, _ctx: &mut Ctx<'_, Ping>, _from: NodeId, _msg: Ping) {
//!         self.got += 1;
//!     }
//! }
//!
//! let net = Network::ideal(ConstantLatency(SimTime::from_millis(10)));
//! let mut sim = Simulation::new(vec![P::default(), P::default()], net, SimConfig::new(42));
//! sim.run();
//! assert_eq!(sim.node(1).got, 1);
//! assert_eq!(sim.now(), SimTime::from_millis(10));
//! ```

pub mod churn;
pub mod dist;
pub mod metrics;
pub mod network;
mod node;
pub mod partition;
mod prefetch;
mod queue;
pub mod rng;
mod sched;
mod simulation;
pub mod stats;
pub mod time;
mod timer;

pub use churn::{Churn, ChurnAction, ScheduledChurn, SessionChurn};
pub use dist::{Dist, DistError, Sampler};
pub use metrics::{Histogram, MetricRow, Metrics, Scope, TimeSeries};
pub use network::{
    Attachment, ConstantLatency, CoordinateLatency, Delivery, LatencyModel, LinkConfig,
    MatrixLatency, NO_ROUTE_US, Network, OneWayLatency, Ordering, RouterLatency,
    RouterLatencyError,
};
pub use node::{Ctx, Message, Node, NodeId, Upcoming};
pub use partition::{
    PartitionDriver, PartitionError, Partitioning, run_partitioned, run_partitions,
};
pub use prefetch::Prefetcher;
pub use rng::SimRng;
pub use simulation::{STALL_EVENTS, STALL_EVENTS_PER_NODE, SimConfig, Simulation, Stall};
pub use stats::{NetStats, Traffic};
pub use time::SimTime;
pub use timer::TimerKey;
