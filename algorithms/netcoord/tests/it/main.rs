//! Integration tests of netcoord (one binary, one module per topic).

mod common;
mod gnp;
mod metrics;
mod milestone;
mod nelder_mead;
mod seattle;
mod vivaldi;
