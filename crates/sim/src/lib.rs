//! The simulation core of the Kubernetes HA Playground.
//!
//! Pure Rust, deterministic, no I/O: a scenario goes in, a report comes out. The
//! browser and the command-line runner both drive this crate; the same scenario
//! gives the same report byte for byte on both.

pub mod engine;
pub mod etcd;
pub mod inflight;
pub mod k8s;
pub mod keymap;
pub mod net;
pub mod observe;
pub mod proc;
pub mod quorum;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod time;
pub mod view;
pub mod world;
