//! `mercury-node`: one Mercury DHT node on UDP that you start, join and query from a shell.
//!
//! ```text
//! mercury-node --port 7000 --create                  # the first node of a ring
//! mercury-node --port 7001 --join 7000               # another, joining through the first
//! ```
//!
//! Nodes live on one IPv4 address (`--ip`, default 127.0.0.1) and a node's address is its
//! port, so no address book is needed. Each node reads commands on its standard input, one per
//! line, and prints one line per event on its standard output:
//!
//! | command | what it prints |
//! |---|---|
//! | `lookup KEY` (a `u64`) | `lookup id=… key=… owner=PORT range=LO..HI hops=… latency_ms=…` when answered |
//! | `status` | `status addr=… phase=… range=LO..HI succ=…` |
//! | `leave` | leaves the ring gracefully (its range goes to its successor) |
//! | `quit` (or end of input) | stops |
//!
//! It also prints `ready addr=PORT` once its socket is bound and `joined range=LO..HI` once it
//! owns a range. Lookup latency is measured here, from the issue time kept beside the lookup's
//! id (no timestamp travels in the messages).

use std::io::BufRead;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;

use mercury::{Addr, Config, Event, MercuryNode};
use runtime::{AddressBook, Api, App, Clock, MercuryHost, Runtime, Settings, Start};

/// Prints events; keeps the issue time of each lookup it issued.
struct Cli {
    pending: Vec<(u32, u64)>,
}

impl App<()> for Cli {
    type Msg = ();

    fn on_event(&mut self, api: &mut Api<'_, (), ()>, event: Event<()>) {
        match event {
            Event::LookupDone {
                id,
                key,
                owner,
                hops,
            } => {
                let issued = self
                    .pending
                    .iter()
                    .position(|p| p.0 == id)
                    .map(|i| self.pending.swap_remove(i).1);
                let latency = issued.map_or(f64::NAN, |t| (api.now() - t) as f64 / 1e6);
                println!(
                    "lookup id={id} key={key} owner={} range={}..{} hops={hops} latency_ms={latency:.3}",
                    owner.addr, owner.range.lo, owner.range.hi
                );
            }
            Event::Joined { range } => println!("joined range={}..{}", range.lo, range.hi),
            Event::JoinFailed => println!("join-failed"),
            Event::Left { .. } => println!("left"),
            _ => {}
        }
    }
}

struct Args {
    ip: Ipv4Addr,
    port: u16,
    start: Start,
    seed: u64,
}

fn usage() -> ! {
    eprintln!(
        "usage: mercury-node --port PORT (--create | --join PORT) [--ip IPV4] [--seed N]\n\
         commands on stdin: lookup KEY | status | leave | quit"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = std::env::args().skip(1);
    let (mut ip, mut port, mut start, mut seed) = (Ipv4Addr::LOCALHOST, None, None, None);
    while let Some(k) = a.next() {
        let mut v = || a.next().unwrap_or_else(|| usage());
        match k.as_str() {
            "--ip" => ip = v().parse().unwrap_or_else(|_| usage()),
            "--port" => port = Some(v().parse().unwrap_or_else(|_| usage())),
            "--seed" => seed = Some(v().parse().unwrap_or_else(|_| usage())),
            "--create" => start = Some(Start::Create),
            "--join" => {
                let contact: u16 = v().parse().unwrap_or_else(|_| usage());
                start = Some(Start::Join {
                    contact: Addr::from(contact),
                    target: None,
                });
            }
            _ => usage(),
        }
    }
    let port: u16 = port.unwrap_or_else(|| usage());
    Args {
        ip,
        port,
        start: start.unwrap_or_else(|| usage()),
        seed: seed.unwrap_or(u64::from(port)),
    }
}

fn main() -> std::process::ExitCode {
    let args = parse();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let me = Addr::from(args.port);
    let rt = Runtime::new(Clock::new())?;
    let bound = rt.bind(SocketAddrV4::new(args.ip, args.port))?;
    let book = Arc::new(AddressBook::with_port_ids(args.ip));
    let node = MercuryNode::<()>::new(me, Arc::new(Config::default()), args.seed)?;
    let host = MercuryHost::new(
        node,
        Cli {
            pending: Vec::new(),
        },
        args.start,
    );
    let settings = Settings::new(me, bound.endpoint(), book, rt.clock());
    let handle = rt.spawn(host, bound, settings)?;
    println!("ready addr={me}");
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["lookup", key] => {
                let Ok(key) = key.parse::<u64>() else {
                    println!("error bad key");
                    continue;
                };
                let r = handle.call(move |h, now, io| {
                    h.act(now, io, |app, api| {
                        let id = api.call(|n, now, out| n.lookup(now, key, out));
                        if let Ok(id) = id {
                            app.pending.push((id, api.now()));
                        }
                        id.is_ok()
                    })
                })?;
                if !r {
                    println!("error not a ring member");
                }
            }
            ["status"] => {
                let s = handle.call(|h, _, _| {
                    let n = h.node();
                    format!(
                        "status addr={} phase={:?} range={}..{} succ={:?}",
                        n.addr(),
                        n.phase(),
                        n.range().lo,
                        n.range().hi,
                        n.successors().next().map(|p| p.addr)
                    )
                })?;
                println!("{s}");
            }
            ["leave"] => {
                handle.call(|h, now, io| {
                    h.act(now, io, |_, api| {
                        let _ = api.call(|n, now, out| n.leave(now, out));
                    });
                })?;
            }
            ["quit"] => break,
            [] => {}
            _ => println!("error unknown command"),
        }
    }
    let report = handle.stop()?;
    eprintln!(
        "stopped: received {} messages, sent {:?} per category {:?}",
        report.stats.received,
        report.stats.sent_msgs,
        runtime::mercury_host::CATEGORIES
    );
    Ok(())
}
