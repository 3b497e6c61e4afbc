//! Integration tests of the runtime (one binary): the timer wheel against a binary heap,
//! nodes on loopback with injected delays, and the example program in two processes.

mod example;
mod loopback;
mod wheel;
