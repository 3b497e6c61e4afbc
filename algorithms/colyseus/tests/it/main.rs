//! Integration tests of the colyseus crate.
