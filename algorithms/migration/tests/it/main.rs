//! Integration tests of the migration crate (one binary; modules below).

mod chain;
mod codec;
mod driver;
mod leases;
mod no_loss;
mod numbered;
mod oslo;
mod protocol;
