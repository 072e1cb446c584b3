//! What a run observes: events with a one-sentence explanation, per-second series, users'
//! requests, counters, and the safety invariants checked while the simulation runs. The world
//! feeds it (processes through `etcd::Observe` and `k8s::Observe`, the world at its sample
//! points); the report and the views read it as a [`RunRecord`], never the world.
//!
//! Invariants (Raft's Election Safety and State Machine Safety): at most one etcd
//! leader per term, and every member applies the same entry at a given index. A
//! broken invariant becomes a [`Violation`] in the report; it never panics.
//! Everything here is bounded: past the limits, events are counted but not kept.

use crate::k8s::events::{Event as ApiEvent, EVENTS_KEPT, EVENT_TTL};
use crate::k8s::leader::KUBE_VIP_LEASE;
use crate::k8s::observe::{NodeChange, Note, PodChange};
use crate::kernel::chunked::Chunked;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::net::HostId;
use crate::kernel::time::SimTime;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

kinds! {
    /// What a report event is about (its `kind`).
    EventKind {
        EtcdLeaderElected = "etcd.leader_elected",
        EtcdLeaderLost = "etcd.leader_lost",
        EtcdQuorumLost = "etcd.quorum_lost",
        EtcdQuorumRegained = "etcd.quorum_regained",
        EtcdSnapshotInstalled = "etcd.snapshot_installed",
        EtcdEntriesDiscarded = "etcd.entries_discarded",
        /// A member learnt from a peer that it was removed from the cluster, and stopped.
        EtcdMemberRemoved = "etcd.member_removed",
        LeaseAcquired = "lease.acquired",
        LeaseLost = "lease.lost",
        NodeNotReady = "node.not_ready",
        NodeReady = "node.ready",
        PodStarted = "pod.started",
        PodEvicted = "pod.evicted",
        PodDeleted = "pod.deleted",
        PodKilled = "pod.killed",
        /// The scheduler found no Node with room for a pod (FailedScheduling).
        PodPending = "pod.pending",
        /// The Eviction API refused an eviction: the pod's disruption budget is spent (HTTP 429).
        EvictionRefused = "eviction.refused",
        /// An operator action, applied or refused.
        Operation = "operation",
        /// A control-plane host took the API's virtual IP (kube-vip's lease).
        VipMoved = "vip.moved",
        /// The host holding the virtual IP dropped it, and nobody holds it.
        VipLost = "vip.lost",
        NetPartition = "net.partition",
        NetIsolate = "net.isolate",
        NetPartitionOneway = "net.partition_oneway",
        NetHeal = "net.heal",
        HostCrashed = "host.crashed",
        HostStarted = "host.started",
        HostSpotNotice = "host.spot_notice",
        ComponentRestarted = "component.restarted",
        LbBackendUp = "lb.backend_up",
        LbBackendDown = "lb.backend_down",
        ApiserverKilled = "apiserver.killed",
        ApiserverCacheLost = "apiserver.cache_lost",
        /// A kubelet closed its connections after failed heartbeats (`onRepeatedHeartbeatFailure`).
        KubeletConnectionsClosed = "kubelet.connections_closed",
    }
}

kinds! {
    /// Which safety invariant a violation broke.
    ViolationKind {
        /// Raft's Election Safety: two leaders in one term.
        EtcdTwoLeaders = "etcd.two_leaders",
        /// Raft's State Machine Safety: two members applied different entries at one index.
        EtcdStateMachineSafety = "etcd.state_machine_safety",
        /// Two processes acted as leader of one lease at once.
        LeaseTwoLeaders = "lease.two_leaders",
        /// Two pods of one StatefulSet ordinal ran at once.
        StatefulsetTwoPods = "statefulset.two_pods",
        /// A member of a cluster that `--force-new-cluster` replaced was elected leader: two
        /// clusters would serve one cluster's data.
        EtcdTwoClusters = "etcd.two_clusters",
    }
}

impl From<PodChange> for EventKind {
    fn from(c: PodChange) -> Self {
        match c {
            PodChange::Started => EventKind::PodStarted,
            PodChange::Evicted | PodChange::EvictedByApi => EventKind::PodEvicted,
            PodChange::Deleted => EventKind::PodDeleted,
            PodChange::Killed => EventKind::PodKilled,
        }
    }
}

impl From<NodeChange> for EventKind {
    fn from(c: NodeChange) -> Self {
        match c {
            NodeChange::NotReady => EventKind::NodeNotReady,
            NodeChange::Ready => EventKind::NodeReady,
        }
    }
}

impl From<Note> for EventKind {
    fn from(n: Note) -> Self {
        match n {
            Note::LbBackendUp => EventKind::LbBackendUp,
            Note::LbBackendDown => EventKind::LbBackendDown,
            Note::ApiserverKilled => EventKind::ApiserverKilled,
            Note::ApiserverCacheLost => EventKind::ApiserverCacheLost,
            Note::VipMoved => EventKind::VipMoved,
        }
    }
}

/// Everything a run observed, as the report reads it (borrowed from the world at the moment
/// the report is made).
pub struct RunRecord<'a> {
    pub recorder: &'a Recorder,
    pub series: &'a Samples,
    pub traffic: &'a Traffic,
    /// The etcd write probe's outcome per report second (None: not known yet).
    pub etcd_writes: &'a Chunked<Option<bool>>,
    /// The API write probe's, when the scenario runs an apiserver.
    pub api_writes: Option<&'a Chunked<Option<bool>>>,
    /// Per workload (scenario order, CoreDNS last): name, most running at once, running now.
    pub workloads: Vec<(String, u32, u32)>,
    pub quorum_lost_s: f64,
}

/// Per-second samples over the report's time range.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Series {
    pub t: Vec<f64>,
    pub etcd_quorum: Vec<bool>,
    pub etcd_leader: LeaderSeries,
    pub etcd_term: Vec<u64>,
    pub etcd_writable: Vec<Option<bool>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub api_writable: Vec<Option<bool>>,
    #[serde(skip_serializing_if = "LeaderSeries::is_empty")]
    pub controller_manager_leader: LeaderSeries,
    #[serde(skip_serializing_if = "LeaderSeries::is_empty")]
    pub scheduler_leader: LeaderSeries,
    /// Per Service: the fraction of that second's requests that succeeded (filled in by the report).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub service_availability: BTreeMap<String, Vec<f64>>,
    /// Per workload (CoreDNS included): containers running anywhere, isolated nodes included.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub running_pods: BTreeMap<String, Vec<u32>>,
    /// Per workload: its pods the scheduler found no room for (only when the scenario gives
    /// capacity).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pending_pods: BTreeMap<String, Vec<u32>>,
    /// The share of name lookups (through CoreDNS) that succeeded each second: the clients
    /// look each Service up every round past their cache, as a client whose cached answer just
    /// expired would, so that the row shows what a lookup meets at every moment. `None` in a
    /// second without a lookup. For the page only: not part of the report format.
    #[serde(skip)]
    pub dns_lookups: Vec<Option<f64>>,
}

/// Who led in each second: a code per second into a table of the names seen (0: nobody), so a
/// week holds four bytes a second where a string a second made every copy of the world (the
/// page's checkpoints, the report it rebuilds while a run computes) grow by 500 KB an hour.
/// Serialised as the report's array of names and nulls.
#[derive(Clone, Debug, Default)]
pub struct LeaderSeries {
    names: Vec<String>,
    codes: Vec<u32>,
}

impl LeaderSeries {
    /// The series of `codes` into `names` (1 is the first name; a code without one reads as
    /// nobody).
    pub fn from_parts(names: Vec<String>, codes: Vec<u32>) -> Self {
        LeaderSeries { names, codes }
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The leader in second `i` (`Some(None)`: nobody), `None` past the end, as a slice's `get`.
    pub fn get(&self, i: usize) -> Option<Option<&str>> {
        self.codes.get(i).map(|&c| self.name(c))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Option<&str>> + ExactSizeIterator + '_ {
        self.codes.iter().map(|&c| self.name(c))
    }

    /// Each second's code: equal codes are the same leader.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }

    /// The leader a code stands for.
    pub fn name(&self, code: u32) -> Option<&str> {
        let i = (code as usize).checked_sub(1)?;
        self.names.get(i).map(String::as_str)
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The seconds from `from` on.
    pub fn tail(&self, from: usize) -> LeaderSeries {
        LeaderSeries {
            names: self.names.clone(),
            codes: self.codes.get(from..).unwrap_or_default().to_vec(),
        }
    }

    pub fn clear(&mut self) {
        self.codes.clear();
    }

    /// The first `from` seconds' codes, then `rest`'s seconds, all read with `rest`'s table: the
    /// first `from` codes must be `rest`'s run's too (the page's wire compares codes).
    pub fn splice(&mut self, from: usize, rest: LeaderSeries) {
        self.names = rest.names;
        self.codes.truncate(from);
        self.codes.extend(rest.codes);
    }
}

/// `leader`'s code in `names` (0: nobody), its name added if new.
fn code(names: &mut Vec<String>, leader: Option<&str>) -> u32 {
    let code = match leader {
        None => 0,
        Some(name) => match names.iter().position(|n| n == name) {
            Some(i) => i + 1,
            None => {
                names.push(name.to_string());
                names.len()
            }
        },
    };
    code as u32
}

/// The per-second samples as the world takes them: the recorded rows of a [`Series`], in
/// [`Chunked`] vectors that the copies of the world the page keeps as checkpoints share (a
/// day's rows are megabytes). The report copies them into its [`Series`].
#[derive(Clone, Default)]
pub struct Samples {
    pub t: Chunked<f64>,
    pub etcd_quorum: Chunked<bool>,
    pub etcd_leader: Leaders,
    pub etcd_term: Chunked<u64>,
    pub controller_manager_leader: Leaders,
    pub scheduler_leader: Leaders,
    pub running_pods: BTreeMap<String, Chunked<u32>>,
    pub pending_pods: BTreeMap<String, Chunked<u32>>,
}

impl Samples {
    /// The rows as the report has them (the ones the report derives left empty).
    pub fn series(&self) -> Series {
        let rows = |m: &BTreeMap<String, Chunked<u32>>| {
            (m.iter().map(|(k, v)| (k.clone(), v.to_vec()))).collect()
        };
        Series {
            t: self.t.to_vec(),
            etcd_quorum: self.etcd_quorum.to_vec(),
            etcd_leader: self.etcd_leader.series(),
            etcd_term: self.etcd_term.to_vec(),
            controller_manager_leader: self.controller_manager_leader.series(),
            scheduler_leader: self.scheduler_leader.series(),
            running_pods: rows(&self.running_pods),
            pending_pods: rows(&self.pending_pods),
            ..Series::default()
        }
    }
}

/// Who led in each second, recorded: a [`LeaderSeries`] in a [`Chunked`] vector.
#[derive(Clone, Default)]
pub struct Leaders {
    names: Vec<String>,
    codes: Chunked<u32>,
}

impl Leaders {
    pub fn push(&mut self, leader: Option<&str>) {
        self.codes.push(code(&mut self.names, leader));
    }

    /// Each second's code: equal codes are the same leader.
    pub fn codes(&self) -> &Chunked<u32> {
        &self.codes
    }

    fn series(&self) -> LeaderSeries {
        LeaderSeries::from_parts(self.names.clone(), self.codes.to_vec())
    }
}

impl PartialEq for LeaderSeries {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Serialize for LeaderSeries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Users' requests: successes and attempts per Service per report second (shared by the
/// copies of the world, as [`Samples`]).
#[derive(Clone, Default)]
pub struct Traffic {
    pub services: Vec<String>,
    pub per_second: Vec<Chunked<(u32, u32)>>,
    /// Name lookups through cluster DNS (all Services): successes and attempts per second.
    pub lookups: Chunked<(u32, u32)>,
}

impl Traffic {
    pub fn new(services: Vec<String>) -> Self {
        let n = services.len();
        Traffic {
            services,
            per_second: vec![Chunked::default(); n],
            lookups: Chunked::default(),
        }
    }

    pub fn record_lookup(&mut self, second: usize, ok: bool) {
        count(&mut self.lookups, second, ok);
    }

    pub fn record(&mut self, service: usize, second: usize, ok: bool) {
        count(&mut self.per_second[service], second, ok);
    }

    /// Fraction of successful requests over the run (1.0 with no request).
    pub fn availability(&self, service: usize) -> f64 {
        let (ok, total) = self.per_second[service]
            .iter()
            .fold((0u64, 0u64), |(a, b), &(o, t)| (a + o as u64, b + t as u64));
        if total == 0 {
            1.0
        } else {
            ok as f64 / total as f64
        }
    }
}

/// One more attempt in `second` of a per-second (successes, attempts) tally.
fn count(v: &mut Chunked<(u32, u32)>, second: usize, ok: bool) {
    v.resize(second + 1, (0, 0));
    let (successes, attempts) = &mut v[second];
    *successes += ok as u32;
    *attempts += 1;
}

/// Events kept per run; later ones are counted in `events_dropped`.
pub const MAX_EVENTS: usize = 100_000;
/// Violations kept per run.
pub const MAX_VIOLATIONS: usize = 1_000;

/// One notable change, as in the report's `events`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    pub t: f64,
    pub kind: EventKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Who evicted a pod: `"taint"` (taint-based eviction) or `"eviction-api"` (a drain).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'static str>,
    pub text: String,
}

impl Event {
    pub fn new(t: f64, kind: EventKind, text: String) -> Self {
        Event {
            t,
            kind,
            host: None,
            term: None,
            lease: None,
            node: None,
            pod: None,
            workload: None,
            action: None,
            ok: None,
            reason: None,
            count: None,
            by: None,
            text,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation {
    pub t: f64,
    pub kind: ViolationKind,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Operation {
    pub t: f64,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The term of the entry applied at each index of one cluster's log (1, 2, …), kept as runs of
/// equal terms: a term changes only at an election, so a run of hours holds a few runs where a
/// term per index would grow by megabytes an hour (in every copy of the world the page keeps).
#[derive(Clone, Debug, Default)]
struct AppliedTerms {
    /// Indexes recorded: 1..=len.
    len: u64,
    /// (first index, term) of each run, ascending.
    runs: Vec<(u64, u64)>,
}

impl AppliedTerms {
    fn len(&self) -> u64 {
        self.len
    }

    fn term_at(&self, index: u64) -> Option<u64> {
        if index == 0 || index > self.len {
            return None;
        }
        let run = self.runs.partition_point(|&(first, _)| first <= index) - 1;
        Some(self.runs[run].1)
    }

    fn push(&mut self, term: u64) {
        self.len += 1;
        if self.runs.last().is_none_or(|&(_, t)| t != term) {
            self.runs.push((self.len, term));
        }
    }

    fn truncate(&mut self, len: u64) {
        self.len = self.len.min(len);
        let keep = self.runs.partition_point(|&(first, _)| first <= self.len);
        self.runs.truncate(keep);
    }
}

/// Collects the processes' and the world's observations during a run. Times are converted to report seconds
/// (relative to t = 0 of the scenario, after the boot) by `origin`.
#[derive(Clone)]
pub struct Recorder {
    /// The per-second samples, appended by the world at each sample point.
    pub series: Samples,
    pub origin: SimTime,
    /// The end of the scenario: the run goes on briefly to resolve outstanding probes, unreported.
    pub horizon: SimTime,
    pub host_names: Vec<String>,
    /// Shared by the copies of the world the page keeps as checkpoints (see [`Chunked`]).
    pub events: Chunked<Event>,
    pub events_dropped: u64,
    pub violations: Vec<Violation>,
    pub operations: Vec<Operation>,
    pub etcd_leader_changes: u64,
    pub writes_ok: u64,
    pub writes_failed: u64,
    /// Leader of each (cluster, term): Election Safety.
    leaders: MemberMap<(u64, u64), HostId>,
    /// Term of the entry applied at each index, per cluster: State Machine Safety.
    applied_terms: MemberMap<u64, AppliedTerms>,
    /// Clusters that `--force-new-cluster` replaced: nobody may be elected in them any more.
    replaced: MemberSet<u64>,
    /// Lease acquisitions reported (the one held at t = 0 included), per lease.
    pub lease_changes: MemberMap<&'static str, u64>,
    /// Processes acting as leader right now, per lease: more than one is a violation.
    acting: MemberMap<&'static str, BTreeSet<HostId>>,
    /// The scenario gives capacity: unschedulable pods are followed.
    pub capacity: bool,
    /// Pods the scheduler found no room for (in the order it tried them), with their workload.
    pub unschedulable: Vec<(String, String)>,
    /// The Events the components posted to the API, with when, oldest first: what the API
    /// holds beside etcd for `kubectl get events` (kept for [`EVENT_TTL`]).
    pub api_events: std::collections::VecDeque<(SimTime, ApiEvent)>,
}

/// The command an operator runs for an operation (`etcd_force_new_cluster`: `etcd
/// --force-new-cluster`): the words a reader knows, the same in every language.
fn command_of(action: &str) -> &str {
    match action {
        "join" => "kubeadm join",
        "etcd_member_add" => "etcdctl member add",
        "etcd_member_promote" => "etcdctl member promote",
        "etcd_member_remove" => "etcdctl member remove",
        "etcd_force_new_cluster" => "etcd --force-new-cluster",
        "delete_pod" => "kubectl delete pod",
        "scale" => "kubectl scale",
        "cordon" => "kubectl cordon",
        "uncordon" => "kubectl uncordon",
        "drain" => "kubectl drain",
        "taint" | "untaint" => "kubectl taint",
        "label" | "unlabel" => "kubectl label",
        other => other,
    }
}

impl Recorder {
    pub fn new(host_names: Vec<String>) -> Self {
        Recorder {
            series: Samples::default(),
            origin: SimTime::ZERO,
            horizon: SimTime(u64::MAX),
            host_names,
            events: Chunked::default(),
            events_dropped: 0,
            violations: Vec::new(),
            operations: Vec::new(),
            etcd_leader_changes: 0,
            writes_ok: 0,
            writes_failed: 0,
            leaders: MemberMap::default(),
            applied_terms: MemberMap::default(),
            replaced: MemberSet::new(),
            lease_changes: MemberMap::default(),
            acting: MemberMap::default(),
            capacity: false,
            unschedulable: Vec::new(),
            api_events: Default::default(),
        }
    }

    /// Appends this second's count of unschedulable pods of each workload.
    pub fn sample_pending(&mut self, workloads: &[String]) {
        for w in workloads {
            let n = self.unschedulable.iter().filter(|(_, x)| x == w).count() as u32;
            match self.series.pending_pods.get_mut(w) {
                Some(series) => series.push(n),
                None => {
                    self.series
                        .pending_pods
                        .insert(w.clone(), [n].into_iter().collect());
                }
            }
        }
    }

    /// Report seconds of a simulated instant (negative during the boot before t = 0).
    pub fn secs(&self, now: SimTime) -> f64 {
        (now.0 as f64 - self.origin.0 as f64) / 1e6
    }

    pub fn in_report(&self, now: SimTime) -> bool {
        now >= self.origin && now <= self.horizon
    }

    pub fn name(&self, h: HostId) -> &str {
        self.host_names.get(h as usize).map_or("?", String::as_str)
    }

    /// Records an event if it happened at or after t = 0; the boot before it is not reported.
    pub fn push(&mut self, now: SimTime, event: Event) {
        if !self.in_report(now) {
            return;
        }
        if self.events.len() < MAX_EVENTS {
            self.events.push(event);
        } else {
            self.events_dropped += 1;
        }
    }

    pub fn violation(&mut self, now: SimTime, kind: ViolationKind, text: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            let t = self.secs(now);
            self.violations.push(Violation { t, kind, text });
        }
    }

    /// The leader the boot established, reported at t = 0 (and counted, as every acquisition is).
    pub fn etcd_leader_at_start(&mut self, now: SimTime, host: HostId, term: u64) {
        self.etcd_leader_changes += 1;
        let mut e = Event::new(
            self.secs(now),
            EventKind::EtcdLeaderElected,
            format!(
                "{} is the etcd leader in term {term}, elected while the cluster booted",
                self.name(host)
            ),
        );
        e.host = Some(self.name(host).to_string());
        e.term = Some(term);
        self.push(now, e);
    }

    /// `--force-new-cluster` started `new_cluster` from `from_cluster`'s entries up to `keep`.
    pub fn etcd_forked(&mut self, from_cluster: u64, new_cluster: u64, keep: u64) {
        let mut log = self
            .applied_terms
            .get(&from_cluster)
            .cloned()
            .unwrap_or_default();
        log.truncate(keep);
        self.applied_terms.insert(new_cluster, log);
        self.replaced.insert(from_cluster);
    }

    /// Leases held when the boot ends, reported as acquisitions at t = 0.
    pub fn leases_at_start(&mut self, now: SimTime) {
        let held: Vec<(&'static str, HostId)> = self
            .acting
            .iter()
            .flat_map(|(l, hs)| hs.iter().map(move |h| (*l, *h)))
            .collect();
        for (lease, host) in held {
            *self.lease_changes.get_or_insert_with(lease, || 0).0 += 1;
            let text = format!(
                "{} holds the {lease} lease (acquired while the cluster booted)",
                self.name(host)
            );
            self.lease_event(now, EventKind::LeaseAcquired, lease, host, text);
        }
    }

    /// The host acting as leader of `lease` now (the first in host order if two do, which
    /// `lease_acquired` reports as a violation).
    pub fn lease_leader(&self, lease: &str) -> Option<HostId> {
        self.acting
            .iter()
            .find(|(k, _)| **k == lease)
            .and_then(|(_, s)| s.iter().next().copied())
    }

    /// Whether `host` acts as leader of `lease` now (two may, for a while: a violation).
    pub fn acts(&self, lease: &str, host: HostId) -> bool {
        self.acting
            .iter()
            .any(|(k, s)| *k == lease && s.contains(&host))
    }

    fn lease_event(
        &mut self,
        now: SimTime,
        kind: EventKind,
        lease: &'static str,
        host: HostId,
        text: String,
    ) {
        // kube-vip's lease is the virtual IP's: reported as the VIP moving or lost.
        let (kind, text) = match (lease, kind) {
            (KUBE_VIP_LEASE, EventKind::LeaseAcquired) => (
                EventKind::VipMoved,
                format!("{} holds the API's virtual IP (kube-vip's lease): clients and kubelets reach its apiserver", self.name(host)),
            ),
            (KUBE_VIP_LEASE, _) => (EventKind::VipLost, text),
            _ => (kind, text),
        };
        let mut e = Event::new(self.secs(now), kind, text);
        e.host = Some(self.name(host).to_string());
        if !matches!(kind, EventKind::VipMoved | EventKind::VipLost) {
            e.lease = Some(lease);
        }
        self.push(now, e);
    }

    /// A plain event about one host (or none), with its explanation.
    pub fn note(&mut self, now: SimTime, kind: EventKind, host: Option<HostId>, text: String) {
        let mut e = Event::new(self.secs(now), kind, text);
        e.host = host.map(|h| self.name(h).to_string());
        self.push(now, e);
    }
}

impl crate::etcd::Observe for Recorder {
    fn name(&self, host: HostId) -> &str {
        Recorder::name(self, host)
    }

    fn etcd_leader(&mut self, now: SimTime, host: HostId, cluster: u64, term: u64) {
        if self.replaced.contains(&cluster) {
            let text = format!(
                "{} was elected leader in term {term} of a cluster that --force-new-cluster replaced: two clusters would serve its data",
                self.name(host)
            );
            self.violation(now, ViolationKind::EtcdTwoClusters, text);
        }
        if let Some(&other) = self.leaders.get(&(cluster, term)) {
            if other != host {
                let text = format!(
                    "two etcd leaders in term {term}: {} and {}",
                    self.name(other),
                    self.name(host)
                );
                self.violation(now, ViolationKind::EtcdTwoLeaders, text);
            }
        }
        self.leaders.insert((cluster, term), host);
        if self.in_report(now) {
            self.etcd_leader_changes += 1;
        }
        let mut e = Event::new(
            self.secs(now),
            EventKind::EtcdLeaderElected,
            format!(
                "{} became the etcd leader in term {term}: a majority of members voted for it",
                self.name(host)
            ),
        );
        e.host = Some(self.name(host).to_string());
        e.term = Some(term);
        self.push(now, e);
    }

    fn etcd_stepped_down(&mut self, now: SimTime, host: HostId, term: u64, why: &str) {
        let mut e = Event::new(
            self.secs(now),
            EventKind::EtcdLeaderLost,
            format!(
                "{} stopped leading etcd in term {term}: {why}",
                self.name(host)
            ),
        );
        e.host = Some(self.name(host).to_string());
        e.term = Some(term);
        self.push(now, e);
    }

    /// A member applied the entry at `index` with `term`: it must be the entry every other
    /// member applied there.
    fn etcd_applied(&mut self, now: SimTime, host: HostId, cluster: u64, index: u64, term: u64) {
        let log = self
            .applied_terms
            .get_or_insert_with(cluster, AppliedTerms::default)
            .0;
        if index == 0 {
            return;
        }
        if let Some(seen) = log.term_at(index) {
            if seen != term {
                let text = format!(
                    "{} applied an entry of term {term} at index {index} where another member applied term {seen}",
                    self.name(host)
                );
                self.violation(now, ViolationKind::EtcdStateMachineSafety, text);
            }
        } else if log.len() + 1 == index {
            log.push(term);
        } else {
            // Applying beyond the known record means a member skipped entries: impossible in Raft.
            let next = log.len() + 1;
            let text = format!(
                "{} applied index {index} before index {next}",
                self.name(host)
            );
            self.violation(now, ViolationKind::EtcdStateMachineSafety, text);
        }
    }

    fn etcd_snapshot_installed(&mut self, now: SimTime, host: HostId, index: u64) {
        let text = format!(
            "{} was too far behind for the leader's log: it installed a snapshot at index {index}",
            self.name(host)
        );
        self.note(now, EventKind::EtcdSnapshotInstalled, Some(host), text);
    }

    fn etcd_removed(&mut self, now: SimTime, host: HostId, peer: HostId) {
        let text = format!(
            "etcd on {} stopped: {} answered that it was removed from the cluster (410), so the data-dir used by this member must be removed before it can join again",
            self.name(host),
            self.name(peer)
        );
        self.note(now, EventKind::EtcdMemberRemoved, Some(host), text);
    }

    fn etcd_probe_write(&mut self, ok: bool) {
        if ok {
            self.writes_ok += 1;
        } else {
            self.writes_failed += 1;
        }
    }
}

impl crate::k8s::Observe for Recorder {
    fn name(&self, host: HostId) -> &str {
        Recorder::name(self, host)
    }

    fn note(&mut self, now: SimTime, kind: Note, host: Option<HostId>, text: String) {
        Recorder::note(self, now, kind.into(), host, text);
    }

    /// Something happened to a pod (`pod.started`, `pod.evicted`, `pod.deleted`, `pod.killed`).
    fn pod_event(
        &mut self,
        now: SimTime,
        kind: PodChange,
        pod: &str,
        node: &str,
        workload: &str,
        text: String,
    ) {
        let mut e = Event::new(self.secs(now), kind.into(), text);
        e.pod = Some(pod.to_string());
        e.node = Some(node.to_string());
        e.workload = Some(workload.to_string());
        e.by = match kind {
            PodChange::Evicted => Some("taint"),
            PodChange::EvictedByApi => Some("eviction-api"),
            _ => None,
        };
        self.push(now, e);
    }

    fn eviction_refused(&mut self, now: SimTime, pod: &str, workload: &str, reason: &str) {
        let text = format!(
            "the eviction of {pod} was refused (429 Too Many Requests): {reason}; the drain retries in 5 s"
        );
        let mut e = Event::new(self.secs(now), EventKind::EvictionRefused, text);
        e.pod = Some(pod.to_string());
        e.workload = Some(workload.to_string());
        e.reason = Some(reason.to_string());
        self.push(now, e);
    }

    /// `pod.pending` for each pod that became unschedulable.
    fn unschedulable(&mut self, now: SimTime, pods: Vec<(String, String, String)>) {
        let mut now_set: Vec<(String, String)> = Vec::with_capacity(pods.len());
        for (pod, workload, why) in pods {
            let known = self.unschedulable.iter().any(|(p, _)| *p == pod);
            if !known {
                let mut e = Event::new(
                    self.secs(now),
                    EventKind::PodPending,
                    format!("{pod} is Pending: the scheduler finds no room for it ({why})"),
                );
                e.pod = Some(pod.clone());
                e.workload = Some(workload.clone());
                e.reason = Some(why);
                self.push(now, e);
            }
            now_set.push((pod, workload));
        }
        self.unschedulable = now_set;
    }

    /// A node changed readiness (`node.not_ready`, `node.ready`).
    fn node_event(&mut self, now: SimTime, kind: NodeChange, node: &str, text: String) {
        let mut e = Event::new(self.secs(now), kind.into(), text);
        e.node = Some(node.to_string());
        self.push(now, e);
    }

    /// A process started acting as leader of `lease`.
    fn lease_acquired(&mut self, now: SimTime, lease: &'static str, host: HostId) {
        let acting = self.acting.get_or_insert_with(lease, BTreeSet::new).0;
        if let Some(&other) = acting.iter().find(|&&h| h != host) {
            let text = format!(
                "{} and {} both act as {lease} leader: {} took the lease while {} had not yet given up",
                self.name(other),
                self.name(host),
                self.name(host),
                self.name(other)
            );
            self.violation(now, ViolationKind::LeaseTwoLeaders, text);
        }
        self.acting
            .get_or_insert_with(lease, BTreeSet::new)
            .0
            .insert(host);
        if self.in_report(now) {
            *self.lease_changes.get_or_insert_with(lease, || 0).0 += 1;
        }
        let text = format!(
            "{} acquired the {lease} lease and now leads",
            self.name(host)
        );
        self.lease_event(now, EventKind::LeaseAcquired, lease, host, text);
    }

    fn api_event(&mut self, posted: SimTime, event: ApiEvent) {
        // The apiserver's TTL: an Event is gone an hour after it was written.
        while self
            .api_events
            .front()
            .is_some_and(|(t, _)| posted - *t >= EVENT_TTL)
        {
            self.api_events.pop_front();
        }
        if self.api_events.len() == EVENTS_KEPT {
            self.api_events.pop_front();
        }
        self.api_events.push_back((posted, event));
    }

    /// A leader stopped acting: it gave up (`why` is said), or its process died with its host.
    fn lease_lost(&mut self, now: SimTime, lease: &'static str, host: HostId, why: &str) {
        let was = self
            .acting
            .get_or_insert_with(lease, BTreeSet::new)
            .0
            .remove(&host);
        if was && lease == KUBE_VIP_LEASE {
            let text = if why.is_empty() {
                format!("the virtual IP went down with {}: nobody answers for it until another control-plane host takes kube-vip's lease", self.name(host))
            } else {
                format!(
                    "{} dropped the virtual IP: {why}; nobody holds it",
                    self.name(host)
                )
            };
            self.lease_event(now, EventKind::LeaseLost, lease, host, text);
        } else if was && !why.is_empty() {
            let text = format!("{} lost the {lease} lease: {why}", self.name(host));
            self.lease_event(now, EventKind::LeaseLost, lease, host, text);
        }
    }

    fn operation(
        &mut self,
        now: SimTime,
        action: &str,
        host: Option<HostId>,
        result: Result<(), String>,
    ) {
        let t = self.secs(now);
        let host_name = host.map(|h| self.name(h).to_string());
        let target = host_name
            .as_deref()
            .map(|h| format!(" on {h}"))
            .unwrap_or_default();
        let (ok, reason) = match result {
            Ok(()) => (true, None),
            Err(r) => (false, Some(r)),
        };
        // As the operator typed it, not the format's name for it.
        let command = command_of(action);
        let text = match &reason {
            None => format!("operator: {command}{target} succeeded"),
            Some(r) => format!("operator: {command}{target} failed: {r}"),
        };
        self.operations.push(Operation {
            t,
            action: action.to_string(),
            host: host_name.clone(),
            ok,
            reason: reason.clone(),
        });
        let mut e = Event::new(t, EventKind::Operation, text);
        e.action = Some(action.to_string());
        e.host = host_name;
        e.ok = Some(ok);
        e.reason = reason;
        self.push(now, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leader series reads and serialises as the names it was given, second by second, and
    /// two series compare by those names whatever codes their tables gave them.
    #[test]
    fn leader_series_keep_names_not_codes() {
        /// `s` with the seconds `more` after it, as the recorder appends them.
        fn then(s: &LeaderSeries, more: &[Option<&str>]) -> LeaderSeries {
            let mut l = Leaders {
                names: s.names().to_vec(),
                codes: s.codes().iter().copied().collect(),
            };
            for &m in more {
                l.push(m);
            }
            l.series()
        }
        let a = then(
            &LeaderSeries::default(),
            &[Some("m1"), Some("m1"), None, Some("m2"), Some("m1")],
        );
        assert_eq!(a.len(), 5);
        assert_eq!(a.get(2), Some(None));
        assert_eq!(a.get(3), Some(Some("m2")));
        assert_eq!(a.get(5), None);
        assert_eq!(a.iter().next_back(), Some(Some("m1")));
        assert_eq!(a.names().len(), 2, "each name is kept once");
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"["m1","m1",null,"m2","m1"]"#
        );
        // The same leaders, met in another order: another table, the same series.
        let b = then(&LeaderSeries::default(), &[Some("m2")]);
        let b = then(&b, &a.iter().collect::<Vec<_>>());
        let b = LeaderSeries::from_parts(b.names().to_vec(), b.codes()[1..].to_vec());
        assert_eq!(b.names()[0], "m2");
        assert_eq!(b, a);
        let c = then(&b, &[Some("m3")]);
        assert_ne!(c, a);
        // The same run later: its seconds from 3 on bring the name it met since.
        let mut early = c.clone();
        early.splice(3, LeaderSeries::default());
        let rest = LeaderSeries::from_parts(c.names().to_vec(), c.codes()[3..].to_vec());
        assert_eq!(
            rest.iter().collect::<Vec<_>>(),
            [Some("m2"), Some("m1"), Some("m3")]
        );
        early.splice(3, rest);
        assert_eq!(early, c);
        let unknown = LeaderSeries::from_parts(vec!["m1".into()], vec![0, 1, 2]);
        assert_eq!(unknown.iter().collect::<Vec<_>>(), [None, Some("m1"), None]);
    }

    /// State Machine Safety is checked against the term first applied at each index, kept as
    /// runs of equal terms; a fork keeps the terms of the entries it kept.
    #[test]
    fn applied_terms_catch_a_member_that_applies_another_term() {
        use crate::etcd::Observe;
        let mut r = Recorder::new(vec!["a".into(), "b".into()]);
        let terms = [1, 1, 2, 2, 2, 5];
        for (i, &t) in terms.iter().enumerate() {
            r.etcd_applied(SimTime(0), 0, 1, i as u64 + 1, t);
        }
        assert_eq!(
            r.applied_terms.get(&1).unwrap().runs,
            [(1, 1), (3, 2), (6, 5)]
        );
        for (i, &t) in terms.iter().enumerate() {
            r.etcd_applied(SimTime(0), 1, 1, i as u64 + 1, t);
        }
        assert!(r.violations.is_empty());
        r.etcd_applied(SimTime(0), 1, 1, 5, 3);
        r.etcd_applied(SimTime(0), 1, 1, 8, 5);
        let texts: Vec<&str> = r.violations.iter().map(|v| v.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "b applied an entry of term 3 at index 5 where another member applied term 2",
                "b applied index 8 before index 7"
            ]
        );
        r.etcd_forked(1, 2, 4);
        let forked = r.applied_terms.get(&2).unwrap();
        assert_eq!(
            (forked.len(), forked.term_at(4), forked.term_at(5)),
            (4, Some(2), None)
        );
        assert_eq!(forked.runs, [(1, 1), (3, 2)]);
    }

    /// The API's Events: gone an hour after their write, and only the newest are kept.
    #[test]
    fn api_events_expire_after_an_hour_and_are_bounded() {
        use crate::k8s::events::{Event, Reason, EVENTS_KEPT};
        use crate::k8s::Observe;
        let ev = |t: u64| Event {
            reason: Reason::Started,
            kind: "Pod",
            name: format!("p{t}"),
            namespace: "default",
            message: String::new(),
            at: SimTime(t * 1_000_000),
        };
        let mut r = Recorder::new(vec![]);
        r.api_event(SimTime(0), ev(0));
        r.api_event(SimTime(3_599_000_000), ev(3_599));
        assert_eq!(r.api_events.len(), 2);
        r.api_event(SimTime(3_600_000_000), ev(3_600));
        assert_eq!(r.api_events.front().unwrap().1.name, "p3599");
        for t in 0..EVENTS_KEPT as u64 {
            r.api_event(SimTime(3_601_000_000), ev(4_000 + t));
        }
        assert_eq!(r.api_events.len(), EVENTS_KEPT);
        assert_eq!(
            r.api_events.back().unwrap().1.name,
            format!("p{}", 4_000 + EVENTS_KEPT - 1)
        );
    }

    use crate::etcd::Observe;

    fn obs() -> Recorder {
        Recorder::new(vec!["a".into(), "b".into(), "c".into()])
    }

    #[test]
    fn every_kind_serialises_as_its_own_dotted_name() {
        let names: Vec<&str> = EventKind::ALL
            .iter()
            .map(|k| k.as_str())
            .chain(ViolationKind::ALL.iter().map(|k| k.as_str()))
            .collect();
        let mut unique = BTreeSet::new();
        unique.extend(names.iter().copied());
        assert_eq!(
            unique.len(),
            names.len(),
            "two kinds share a name: {names:?}"
        );
        for k in EventKind::ALL {
            assert_eq!(serde_json::to_string(k).unwrap(), format!("\"{k}\""));
        }
        assert_eq!(
            serde_json::to_string(&ViolationKind::StatefulsetTwoPods).unwrap(),
            "\"statefulset.two_pods\""
        );
        assert!(EventKind::PodEvicted == "pod.evicted" && EventKind::Operation == "operation");
    }

    #[test]
    fn two_leaders_in_one_term_is_a_violation() {
        let mut o = obs();
        o.etcd_leader(SimTime(1), 0, 1, 2);
        o.etcd_leader(SimTime(2), 0, 1, 2); // the same leader again is fine
        assert!(o.violations.is_empty());
        o.etcd_leader(SimTime(3), 1, 1, 2);
        assert_eq!(o.violations.len(), 1);
        assert_eq!(o.violations[0].kind, "etcd.two_leaders");
        // The same term in another cluster (after force-new-cluster) is not a conflict.
        o.etcd_leader(SimTime(4), 2, 2, 2);
        assert_eq!(o.violations.len(), 1);
    }

    #[test]
    fn a_different_entry_at_an_applied_index_is_a_violation() {
        let mut o = obs();
        o.etcd_applied(SimTime(1), 0, 1, 1, 1);
        o.etcd_applied(SimTime(1), 0, 1, 2, 2);
        o.etcd_applied(SimTime(1), 1, 1, 1, 1);
        o.etcd_applied(SimTime(1), 1, 1, 2, 2);
        assert!(o.violations.is_empty());
        o.etcd_applied(SimTime(1), 2, 1, 2, 3);
        assert_eq!(o.violations.len(), 1);
        o.etcd_applied(SimTime(1), 2, 1, 9, 3);
        assert_eq!(o.violations.len(), 2);
    }

    #[test]
    fn force_new_cluster_keeps_the_prefix_only() {
        let mut o = obs();
        for i in 1..=5 {
            o.etcd_applied(SimTime(1), 0, 1, i, 2);
        }
        o.etcd_forked(1, 2, 3);
        o.etcd_applied(SimTime(1), 0, 2, 4, 5); // a new entry at 4 in the new cluster
        assert!(o.violations.is_empty());
        o.etcd_applied(SimTime(1), 1, 2, 2, 7);
        assert_eq!(o.violations.len(), 1);
    }

    #[test]
    fn a_leader_elected_in_a_replaced_cluster_is_a_violation() {
        let mut o = obs();
        o.etcd_leader(SimTime(1), 0, 1, 2);
        o.etcd_forked(1, 2, 10);
        o.etcd_leader(SimTime(2), 2, 2, 3); // the survivor's new cluster: fine
        assert!(o.violations.is_empty());
        o.etcd_leader(SimTime(3), 1, 1, 3); // an old member leads the old cluster again
        assert_eq!(o.violations.len(), 1);
        assert_eq!(o.violations[0].kind, "etcd.two_clusters");
    }

    #[test]
    fn boot_events_are_not_reported() {
        let mut o = obs();
        o.origin = SimTime(10_000_000);
        o.etcd_leader(SimTime(1), 0, 1, 2);
        assert!(o.events.is_empty());
        assert_eq!(o.etcd_leader_changes, 0);
        o.etcd_leader(SimTime(12_000_000), 1, 1, 3);
        assert_eq!(o.events.len(), 1);
        assert_eq!(o.events[0].t, 2.0);
    }
}
