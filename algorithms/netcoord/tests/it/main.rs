//! Integration tests of netcoord (one binary, one module per topic).

mod common;
mod gnp;
mod metrics;
mod nelder_mead;
mod netvigator;
mod planetlab;
mod seattle;
mod vivaldi;
