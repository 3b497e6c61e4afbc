//! Mercury nodes in one process on loopback: a static ring answers lookups with the hops the
//! ring dictates, injected delays show in the latency, and the stats count what was sent.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

use mercury::codec::Endpoints;
use mercury::{Addr, Config, Estimation, Event, build};
use runtime::{AddressBook, Api, App, Clock, MercuryHost, Runtime, Settings, Start};

/// Reports answered lookups as (id, owner, hops, latency ns).
struct Probe {
    tx: Sender<(u32, Addr, u16, u64)>,
    issued: Vec<(u32, u64)>,
}

impl App<()> for Probe {
    type Msg = ();
    fn on_event(&mut self, api: &mut Api<'_, (), ()>, event: Event<()>) {
        if let Event::LookupDone {
            id, owner, hops, ..
        } = event
        {
            let t = self.issued.iter().find(|e| e.0 == id).map_or(0, |e| e.1);
            let _ = self.tx.send((id, owner.addr, hops, api.now() - t));
        }
    }
}

#[test]
fn a_static_ring_answers_lookups_with_injected_delays() {
    const N: usize = 8;
    const DELAY: u64 = 15_000_000; // 15 ms one way
    let cfg = Arc::new(Config {
        estimation: Estimation::Oracle,
        ..Config::default()
    });
    let (nodes, _oracle) = build::static_ring::<()>(cfg, &build::equal_ring(N), 3).unwrap();
    let rt = Runtime::new(Clock::new()).unwrap();
    let bound: Vec<_> = (0..N)
        .map(|_| rt.bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap())
        .collect();
    let mut book = AddressBook::new();
    for (i, b) in bound.iter().enumerate() {
        book.insert(i as Addr, b.endpoint());
    }
    let book = Arc::new(book);
    assert_eq!(book.endpoint(3), Some(bound[3].endpoint()));
    let (tx, rx) = channel();
    let mut handles = Vec::new();
    let mut slots: Vec<_> = nodes.into_iter().map(Some).collect();
    slots.sort_by_key(|n| n.as_ref().unwrap().addr());
    for (b, n) in bound.into_iter().zip(slots) {
        let n = n.unwrap();
        let a = n.addr();
        let mut s = Settings::new(a, b.endpoint(), Arc::clone(&book), rt.clock());
        s.delay = Some(Arc::new(|_, _| DELAY));
        let app = Probe {
            tx: tx.clone(),
            issued: Vec::new(),
        };
        let host = MercuryHost::new(n, app, Start::Static { maintain: true });
        handles.push(rt.spawn(host, b, s).unwrap());
    }
    // Node 0 looks up a key in the range of node 5 (equal ranges of 2^64 / 8).
    let key = 5 * (u64::MAX / 8) + 12345;
    let id = handles[0]
        .call(move |h, now, io| {
            h.act(now, io, |app, api| {
                let id = api.call(|n, now, out| n.lookup(now, key, out)).unwrap();
                app.issued.push((id, api.now()));
                id
            })
        })
        .unwrap();
    let (got, owner, hops, latency) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!((got, owner), (id, 5));
    assert!(hops >= 1);
    // Each forward and the direct answer waited for the injected one-way delay.
    assert!(
        latency >= (u64::from(hops) + 1) * DELAY,
        "latency {latency} ns for {hops} hops"
    );
    let reports: Vec<_> = handles.into_iter().map(|h| h.stop().unwrap()).collect();
    let sent: u64 = reports.iter().map(|r| r.stats.sent_msgs[0]).sum();
    assert_eq!(
        sent,
        u64::from(hops) + 1,
        "routing messages: the forwards and the answer"
    );
    assert!(reports.iter().all(|r| r.stats.decode_errors == 0));
    assert!(reports.iter().any(|r| !r.stats.lateness_ns.is_empty()));
    assert!(
        reports
            .iter()
            .all(|r| r.stats.processing_ns.len() as u64 >= r.stats.received)
    );
}

#[test]
fn port_ids_and_tables() {
    let ip = Ipv4Addr::LOCALHOST;
    let mut book = AddressBook::with_port_ids(ip);
    assert_eq!(book.endpoint(7000), Some(SocketAddrV4::new(ip, 7000)));
    assert_eq!(book.addr(SocketAddrV4::new(ip, 7001)), Some(7001));
    assert_eq!(book.endpoint(70_000), None);
    book.insert(70_000, SocketAddrV4::new(ip, 9));
    assert_eq!(book.endpoint(70_000), Some(SocketAddrV4::new(ip, 9)));
    assert_eq!(book.addr(SocketAddrV4::new(ip, 9)), Some(70_000));
    assert_eq!(
        AddressBook::new().addr(SocketAddrV4::new(ip, 9)),
        None,
        "an empty book knows no endpoint"
    );
}
