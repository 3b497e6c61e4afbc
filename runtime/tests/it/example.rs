//! The example program: two `mercury-node` processes on loopback, one creating a ring, one
//! joining it; the joiner's lookup of a key the creator owns is answered by the creator.

use std::io::{BufRead, BufReader, Write};
use std::net::UdpSocket;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Proc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Proc {
    fn start(args: &[&str]) -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mercury-node"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Proc {
            child,
            stdin,
            lines,
        }
    }

    /// The first line starting with `prefix` within 20 s.
    fn wait_for(&self, prefix: &str) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return l,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("no `{prefix}` line within 20 s");
    }

    fn say(&mut self, cmd: &str) {
        writeln!(self.stdin, "{cmd}").unwrap();
        self.stdin.flush().unwrap();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key} in `{line}`"))
}

#[test]
fn two_processes_answer_a_lookup() {
    let (pa, pb) = (free_port(), free_port());
    let (sa, sb) = (pa.to_string(), pb.to_string());
    let a = Proc::start(&["--port", &sa, "--create"]);
    a.wait_for("joined"); // the socket is bound before the node starts
    let mut b = Proc::start(&["--port", &sb, "--join", &sa]);
    let joined = b.wait_for("joined");
    // The joiner took the lower half of the creator's range; the creator kept the rest.
    let range = field(&joined, "range");
    let hi: u64 = range.split("..").nth(1).unwrap().parse().unwrap();
    let key = hi + 1000; // owned by the creator
    b.say(&format!("lookup {key}"));
    let line = b.wait_for("lookup");
    assert_eq!(field(&line, "owner"), sa, "{line}");
    assert_eq!(field(&line, "key"), key.to_string());
    assert_eq!(field(&line, "hops"), "1", "{line}");
    let ms: f64 = field(&line, "latency_ms").parse().unwrap();
    assert!(ms > 0.0 && ms < 5_000.0, "{line}");
    // And a key of its own is answered at once, by itself.
    b.say("lookup 0");
    let own = b.wait_for("lookup");
    assert_eq!(field(&own, "owner"), sb);
}
