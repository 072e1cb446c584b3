//! The simulation core of the Kubernetes HA Playground.
//!
//! Pure Rust, deterministic, no I/O: a scenario goes in, a report comes out. The
//! browser and the command-line runner both drive this crate; the same scenario
//! gives the same report byte for byte on both.
//!
//! Layers, each naming only those before it (the tidy test keeps them so):
//! [`kernel`] (time, randomness, the event queue, the network, the process interface) →
//! [`etcd`] (a replicated key-value store that knows nothing of Kubernetes) → [`k8s`]
//! (the cluster's processes) → [`record`] (what a run observes) → [`world`] (the wiring:
//! hosts, processes, scenario events) → [`report`], [`view`] (what is shown) and [`console`]
//! (kubectl on a copy of the world).
//! [`scenario`] is the input and names only the kernel.

// First: the kernel's macros (`kinds!`) are for every module after it.
#[macro_use]
pub mod kernel;
pub mod etcd;
pub mod k8s;
pub mod record;
pub mod report;
pub mod scenario;
pub mod study;
pub mod view;
pub mod world;

pub use kernel::time;

use report::Report;
use world::World;

/// The report of a world's run so far.
pub fn report(world: &World) -> Report {
    Report::build(&world.record(), world.scenario())
}

/// Parses, runs to the end, and reports: the whole pipeline of the runner and the tests.
pub fn run_scenario(json: &str) -> Result<Report, scenario::ScenarioError> {
    let scenario = scenario::parse(json)?;
    let mut world = World::new(scenario);
    world.run_to_end();
    Ok(report(&world))
}
