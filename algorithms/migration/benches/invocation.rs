//! The analogue of the core-selection paper's Table 2 (cost of method invocation): a regular
//! method call against an invocation through the name service, in ns per call.
//!
//! - `local_call`: a direct (not inlined) method call on the object;
//! - `name_service_same_server`: `Server::invoke` on an object hosted on the same server
//!   (name-service lookup, sequence number, delivery event, then the call);
//! - `remote_postcard` / `remote_json`: the object on another server; the invocation message
//!   is serialized with serde (postcard, the crate's wire format, or serde_json), deserialized,
//!   handled by the host's name service and applied (what the paper timed with sender and
//!   receiver on one machine, without the network);
//! - `remote_postcard_one_forward`: the same through one forwarding entry (the object migrated
//!   once after the caller's server learnt its location), so two encode/decode rounds.
//!
//! Run: `cargo bench -p migration --bench invocation`.

use divan::{Bencher, black_box};
use migration::{Config, Input, Message, ObjectId, Output, Server, ServerId, wire};
use serde::{Deserialize, Serialize};

fn main() {
    divan::main();
}

/// A small game object.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Avatar {
    x: f32,
    y: f32,
    z: f32,
    moves: u64,
}

/// The method's arguments: a move event.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Move {
    player: u64,
    dx: f32,
    dy: f32,
    dz: f32,
}

impl Avatar {
    #[inline(never)]
    fn apply(&mut self, m: &Move) {
        self.x += m.dx;
        self.y += m.dy;
        self.z += m.dz;
        self.moves += 1;
    }
}

type Srv = Server<Avatar, Move>;

const ARGS: Move = Move {
    player: 42,
    dx: 0.5,
    dy: -0.25,
    dz: 0.0,
};

/// Applies the invocations delivered in `out` to `server`'s objects.
fn apply(server: &mut Srv, out: &mut Vec<Output<Move>>) {
    for o in out.drain(..) {
        if let Output::Event(migration::Event::Invoked { home, payload, .. }) = o
            && let Some(obj) = server.object_mut(home)
        {
            obj.apply(&payload);
        }
    }
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn local_call(bencher: Bencher<'_, '_>) {
    let mut obj = Avatar::default();
    bencher.bench_local(|| obj.apply(black_box(&ARGS)));
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn name_service_same_server(bencher: Bencher<'_, '_>) {
    let mut s = Srv::new(ServerId(0), Config::PAPER).unwrap();
    let home = s.create(Avatar::default());
    let mut out = Vec::with_capacity(8);
    bencher.bench_local(|| {
        s.invoke(black_box(home), 1, ARGS, 0, &mut out).unwrap();
        apply(&mut s, &mut out);
    });
}

#[derive(Clone, Copy)]
enum Format {
    Postcard,
    Json,
}

/// Encodes and decodes `m` in `format` (the transport, minus the network).
fn round_trip(m: &Message<Move>, format: Format, buf: &mut Vec<u8>) -> Message<Move> {
    buf.clear();
    match format {
        Format::Postcard => {
            wire::encode_into(m, buf).unwrap();
            wire::decode(buf).unwrap()
        }
        Format::Json => {
            serde_json::to_writer(&mut *buf, m).unwrap();
            serde_json::from_slice(buf).unwrap()
        }
    }
}

/// Delivers every `Send` in `out` (all addressed among `servers`) until quiet.
fn pump(
    servers: &mut [Srv],
    from: usize,
    out: &mut Vec<Output<Move>>,
    format: Format,
    buf: &mut Vec<u8>,
) {
    let mut at = from;
    loop {
        let Some(pos) = out.iter().position(|o| matches!(o, Output::Send { .. })) else {
            apply(&mut servers[at], out);
            return;
        };
        let Output::Send { to, message } = out.swap_remove(pos) else {
            unreachable!()
        };
        let message = round_trip(&message, format, buf);
        out.clear();
        let from = ServerId(at as u32);
        at = to.0 as usize;
        servers[at].handle(Input::Message { from, message }, 0, out);
    }
}

/// Servers 0..n with an object created on server 1 and migrated along `path`.
fn setup(n: usize, path: &[u32]) -> (Vec<Srv>, ObjectId) {
    let mut servers: Vec<Srv> = (0..n)
        .map(|i| Srv::new(ServerId(i as u32), Config::PAPER).unwrap())
        .collect();
    let home = servers[1].create(Avatar::default());
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut at = 1;
    for &to in path {
        servers[at]
            .migrate(home, ServerId(to), 0, &mut out)
            .unwrap();
        pump(&mut servers, at, &mut out, Format::Postcard, &mut buf);
        at = to as usize;
    }
    (servers, home)
}

fn remote(bencher: Bencher<'_, '_>, format: Format, path: &[u32]) {
    let (mut servers, home) = setup(3, path);
    let mut out = Vec::with_capacity(8);
    let mut buf = Vec::with_capacity(256);
    bencher.bench_local(|| {
        servers[0]
            .invoke(black_box(home), 1, ARGS, 0, &mut out)
            .unwrap();
        pump(&mut servers, 0, &mut out, format, &mut buf);
    });
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn remote_postcard(bencher: Bencher<'_, '_>) {
    remote(bencher, Format::Postcard, &[]);
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn remote_json(bencher: Bencher<'_, '_>) {
    remote(bencher, Format::Json, &[]);
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn remote_postcard_one_forward(bencher: Bencher<'_, '_>) {
    remote(bencher, Format::Postcard, &[2]);
}
