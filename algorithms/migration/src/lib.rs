//! Object migration over a distributed name service.
//!
//! TODO crate docs.

mod config;
mod error;
mod id;
mod io;
mod message;
mod migrate;
mod route;
mod server;
pub mod wire;

pub use config::{Config, LeasePolicy};
pub use error::{CallError, ConfigError, WireError};
pub use id::{ObjectId, ServerId, StreamKey};
pub use io::{Call, DropReason, Dropped, EntryView, Event, Input, Output, Stats, Timer};
pub use message::{Body, Message, Pending, Route, Routed, Stream, Transfer};
pub use server::Server;
