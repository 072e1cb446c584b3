//! The kernel: what any simulated distributed system needs and nothing of etcd or
//! Kubernetes. Simulated time, seeded randomness, the `(time, seq)` event queue, the
//! network's links and faults, the process interface (addresses, timers, effects), two
//! containers the processes above share (a key map, a buffer of requests in flight), and
//! decimal numbers read and written without core's float tables.

#[macro_use]
mod kinds;

pub mod chunked;
pub mod decimal;
pub mod engine;
pub mod inflight;
pub mod keymap;
pub mod members;
pub mod net;
pub mod process;
pub mod rng;
pub mod sort;
pub mod time;
