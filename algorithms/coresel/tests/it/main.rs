//! Integration tests of coresel (one binary, one module per topic).

mod common;
mod diameter;
mod facility;
mod groups;
mod metrics;
mod select;
