//! What an etcd member reports as it runs. The world's record implements it; etcd only
//! says what happened, the record words it, checks the safety invariants across members
//! and decides what falls inside the report.

use crate::kernel::net::HostId;
use crate::kernel::time::SimTime;

pub trait Observe {
    /// The host's name, for texts.
    fn name(&self, host: HostId) -> &str;
    /// `host` became leader of `cluster` in `term` (Election Safety is checked on it).
    fn etcd_leader(&mut self, now: SimTime, host: HostId, cluster: u64, term: u64);
    fn etcd_stepped_down(&mut self, now: SimTime, host: HostId, term: u64, why: &str);
    /// `host` applied the entry at `index` of `term` (State Machine Safety is checked on it).
    fn etcd_applied(&mut self, now: SimTime, host: HostId, cluster: u64, index: u64, term: u64);
    /// `host` replaced its store with a leader's snapshot taken at `index`.
    fn etcd_snapshot_installed(&mut self, now: SimTime, host: HostId, index: u64);
    /// `host` learnt from `peer` that it was removed from the cluster, and stopped.
    fn etcd_removed(&mut self, now: SimTime, host: HostId, peer: HostId);
    /// The write probe learnt the outcome of one of its writes.
    fn etcd_probe_write(&mut self, ok: bool);
}
