//! The bytes between the page and its simulation worker: a plain binary layout of the core's
//! report and snapshot types (both sides run the same wasm, so no versioning is needed).
//!
//! Why not serde: deserialising these types through serde costs ≈ 32 KB of the bundle, this
//! layout a few. A struct is its fields in order ([`wire_struct!`]: a field added to a core type
//! stops the build until it is listed here); integers are LEB128, floats 8 bytes, a kind its
//! index in the kind's table. A reader past the end or on a bad tag marks itself bad and yields
//! defaults, so a broken message is refused whole instead of panicking.

use sim::record::{Event, EventKind, LeaderSeries, Operation, Series, Violation, ViolationKind};
use sim::report::{
    ApiSummary, EtcdSummary, LeaderSummary, Report, ServiceSummary, Summary, WorkloadSummary,
};
use sim::view::{
    ApiserverView, BackendView, EtcdView, Fill, HostState, HostView, LeaderRole, MemberRole,
    MemberView, NodeReadiness, NodeView, PodView, Snapshot,
};
use std::collections::BTreeMap;

pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    pub bad: bool,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            bad: false,
        }
    }

    fn byte(&mut self) -> u8 {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => {
                self.bad = true;
                0
            }
        }
    }

    fn bytes(&mut self, n: usize) -> &'a [u8] {
        match self.buf.get(self.pos..self.pos.saturating_add(n)) {
            Some(b) => {
                self.pos += n;
                b
            }
            None => {
                self.bad = true;
                &[]
            }
        }
    }

    /// A length, never more than the bytes left (each item takes at least one).
    fn len(&mut self) -> usize {
        let n = u64::get(self) as usize;
        let left = self.buf.len() - self.pos;
        if n > left {
            self.bad = true;
        }
        n.min(left)
    }
}

/// A value as bytes, and back.
pub trait Wire: Sized {
    fn put(&self, w: &mut Vec<u8>);
    fn get(r: &mut Reader) -> Self;
}

/// `value`, as bytes.
pub fn encode<T: Wire>(value: &T) -> Vec<u8> {
    let mut w = Vec::new();
    value.put(&mut w);
    w
}

/// The value `bytes` hold, or `None` when they do not hold exactly one.
pub fn decode<T: Wire>(bytes: &[u8]) -> Option<T> {
    let mut r = Reader::new(bytes);
    let v = T::get(&mut r);
    (!r.bad && r.pos == bytes.len()).then_some(v)
}

impl Wire for u64 {
    fn put(&self, w: &mut Vec<u8>) {
        let mut v = *self;
        while v >= 0x80 {
            w.push(v as u8 | 0x80);
            v >>= 7;
        }
        w.push(v as u8);
    }
    fn get(r: &mut Reader) -> Self {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = r.byte();
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return v;
            }
        }
        r.bad = true;
        v
    }
}

impl Wire for u32 {
    fn put(&self, w: &mut Vec<u8>) {
        (*self as u64).put(w)
    }
    fn get(r: &mut Reader) -> Self {
        u64::get(r) as u32
    }
}

impl Wire for i32 {
    fn put(&self, w: &mut Vec<u8>) {
        (*self as u32).put(w)
    }
    fn get(r: &mut Reader) -> Self {
        u32::get(r) as i32
    }
}

impl Wire for usize {
    fn put(&self, w: &mut Vec<u8>) {
        (*self as u64).put(w)
    }
    fn get(r: &mut Reader) -> Self {
        u64::get(r) as usize
    }
}

/// The table of names and a code a second, as the core keeps them.
impl Wire for LeaderSeries {
    fn put(&self, w: &mut Vec<u8>) {
        put_slice(self.names(), w);
        put_slice(self.codes(), w);
    }
    fn get(r: &mut Reader) -> Self {
        let names = Vec::get(r);
        LeaderSeries::from_parts(names, Vec::get(r))
    }
}

impl Wire for u8 {
    fn put(&self, w: &mut Vec<u8>) {
        w.push(*self)
    }
    fn get(r: &mut Reader) -> Self {
        r.byte()
    }
}

impl Wire for bool {
    fn put(&self, w: &mut Vec<u8>) {
        w.push(*self as u8)
    }
    fn get(r: &mut Reader) -> Self {
        r.byte() != 0
    }
}

impl Wire for f64 {
    fn put(&self, w: &mut Vec<u8>) {
        w.extend_from_slice(&self.to_le_bytes())
    }
    fn get(r: &mut Reader) -> Self {
        let b = r.bytes(8);
        b.try_into().map_or(0.0, f64::from_le_bytes)
    }
}

impl Wire for String {
    fn put(&self, w: &mut Vec<u8>) {
        self.len().put(w);
        w.extend_from_slice(self.as_bytes());
    }
    fn get(r: &mut Reader) -> Self {
        let n = r.len();
        match std::str::from_utf8(r.bytes(n)) {
            Ok(s) => s.to_string(),
            Err(_) => {
                r.bad = true;
                String::new()
            }
        }
    }
}

/// The core's fixed names (roles, leases) arrive as text and are kept once each for
/// the page's life: a handful of distinct strings.
impl Wire for &'static str {
    fn put(&self, w: &mut Vec<u8>) {
        self.to_string().put(w)
    }
    fn get(r: &mut Reader) -> Self {
        thread_local! {
            static KNOWN: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let s = String::get(r);
        KNOWN.with(|k| {
            let mut k = k.borrow_mut();
            if let Some(&known) = k.iter().find(|&&known| known == s) {
                return known;
            }
            let leaked: &'static str = Box::leak(s.into_boxed_str());
            k.push(leaked);
            leaked
        })
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, w: &mut Vec<u8>) {
        match self {
            None => w.push(0),
            Some(v) => {
                w.push(1);
                v.put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Self {
        bool::get(r).then(|| T::get(r))
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, w: &mut Vec<u8>) {
        put_slice(self, w)
    }
    fn get(r: &mut Reader) -> Self {
        let n = r.len();
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            if r.bad {
                break;
            }
            v.push(T::get(r));
        }
        v
    }
}

fn put_slice<T: Wire>(items: &[T], w: &mut Vec<u8>) {
    items.len().put(w);
    for x in items {
        x.put(w);
    }
}

impl<K: Wire + Ord, V: Wire> Wire for BTreeMap<K, V> {
    fn put(&self, w: &mut Vec<u8>) {
        self.len().put(w);
        for (k, v) in self {
            k.put(w);
            v.put(w);
        }
    }
    fn get(r: &mut Reader) -> Self {
        let n = r.len();
        // Inserted one by one: collecting sorts first, a sort instance per map type (≈ 20 KB).
        let mut m = BTreeMap::new();
        for _ in 0..n {
            if r.bad {
                break;
            }
            let k = K::get(r);
            m.insert(k, V::get(r));
        }
        m
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, w: &mut Vec<u8>) {
        self.0.put(w);
        self.1.put(w);
    }
    fn get(r: &mut Reader) -> Self {
        let a = A::get(r);
        (a, B::get(r))
    }
}

/// A kind travels as its index in the kind's table.
macro_rules! wire_kind {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Vec<u8>) {
                w.push(*self as u8)
            }
            fn get(r: &mut Reader) -> Self {
                let i = r.byte() as usize;
                <$t>::ALL.get(i).copied().unwrap_or_else(|| {
                    r.bad = true;
                    <$t>::ALL[0]
                })
            }
        }
    )*};
}

wire_kind!(
    EventKind,
    ViolationKind,
    HostState,
    MemberRole,
    LeaderRole,
    NodeReadiness
);

/// A struct travels as its fields in order.
macro_rules! wire_struct {
    ($($t:ident { $($f:ident),* $(,)? })*) => {$(
        impl Wire for $t {
            fn put(&self, w: &mut Vec<u8>) {
                $(self.$f.put(w);)*
            }
            fn get(r: &mut Reader) -> Self {
                $t { $($f: Wire::get(r)),* }
            }
        }
    )*};
}
pub(crate) use wire_struct;

wire_struct! {
    Snapshot { t, zones, hosts, etcd, network_faulty, pending }
    Fill { cpu, cpu_allocatable, memory, memory_allocatable }
    HostView {
        name, zone, roles, state, island, isolated, spot, etcd, apiserver, controller_manager,
        scheduler, node, pods, terminating, lb_backends, fill, vip,
    }
    ApiserverView { running, ready }
    BackendView { name, in_service, connections }
    NodeView { ready, stale_after, watched, taints }
    PodView { name, workload }
    MemberView { role, term, commit, applied, voter, learner }
    EtcdView { voters, connected, quorum_size, has_quorum, leader, term }
    Summary { etcd, api, leaders, services, workloads, operations, violations }
    EtcdSummary { quorum_lost_s, leader_changes, writes_ok, writes_failed }
    ApiSummary { write_availability }
    LeaderSummary { changes, final_holder }
    ServiceSummary { availability }
    WorkloadSummary { replicas, max_running, final_running, pending_max, pending_s }
    Operation { t, action, host, ok, reason }
    Violation { t, kind, text }
    Event { t, kind, host, term, lease, node, pod, workload, action, ok, reason, count, by, text }
    Series {
        t, etcd_quorum, etcd_leader, etcd_term, etcd_writable, api_writable,
        controller_manager_leader, scheduler_leader, service_availability, running_pods,
        pending_pods, dns_lookups,
    }
    ReportDelta { scenario, seed, duration_s, summary, rows_from, series, events_from, events, events_dropped }
}

/// What changed in a report since the one the page has: the summary whole, the series' rows
/// from the first that differs, the events from the first that differs (in practice: the new
/// ones; a run only appends, but the page must not depend on it).
#[derive(Clone, Debug, PartialEq)]
pub struct ReportDelta {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub summary: Summary,
    pub rows_from: usize,
    /// Every column's rows from `rows_from`.
    pub series: Series,
    pub events_from: usize,
    pub events: Vec<Event>,
    pub events_dropped: u64,
}

fn first_diff<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// The first row where two maps of columns differ (0 when their keys differ).
fn first_diff_map<T: PartialEq>(
    a: &BTreeMap<String, Vec<T>>,
    b: &BTreeMap<String, Vec<T>>,
) -> usize {
    if !a.keys().eq(b.keys()) {
        return 0;
    }
    a.values()
        .zip(b.values())
        .map(|(x, y)| first_diff(x, y))
        .min()
        .unwrap_or(usize::MAX)
}

fn tail<T: Clone>(v: &[T], from: usize) -> Vec<T> {
    v.get(from..).unwrap_or_default().to_vec()
}

fn tail_map<T: Clone>(m: &BTreeMap<String, Vec<T>>, from: usize) -> BTreeMap<String, Vec<T>> {
    // Filled by insertion: collecting into a B-tree sorts, with a sort compiled per type.
    let mut out = BTreeMap::new();
    for (k, v) in m {
        out.insert(k.clone(), tail(v, from));
    }
    out
}

fn splice<T>(col: &mut Vec<T>, from: usize, new: Vec<T>) {
    col.truncate(from);
    col.extend(new);
}

fn splice_map<T>(m: &mut BTreeMap<String, Vec<T>>, from: usize, new: BTreeMap<String, Vec<T>>) {
    m.retain(|k, _| new.contains_key(k));
    for (k, v) in new {
        splice(m.entry(k).or_default(), from, v);
    }
}

impl ReportDelta {
    /// The delta from `old` (what the page has; `None`: nothing yet) to `new`.
    pub fn between(old: Option<&Report>, new: &Report) -> ReportDelta {
        let (rows_from, events_from) = match old {
            None => (0, 0),
            Some(old) => {
                let (a, b) = (&old.series, &new.series);
                let rows = [
                    first_diff(&a.t, &b.t),
                    first_diff(&a.etcd_quorum, &b.etcd_quorum),
                    first_diff(a.etcd_leader.codes(), b.etcd_leader.codes()),
                    first_diff(&a.etcd_term, &b.etcd_term),
                    first_diff(&a.etcd_writable, &b.etcd_writable),
                    first_diff(&a.api_writable, &b.api_writable),
                    first_diff(
                        a.controller_manager_leader.codes(),
                        b.controller_manager_leader.codes(),
                    ),
                    first_diff(a.scheduler_leader.codes(), b.scheduler_leader.codes()),
                    first_diff_map(&a.service_availability, &b.service_availability),
                    first_diff_map(&a.running_pods, &b.running_pods),
                    first_diff_map(&a.pending_pods, &b.pending_pods),
                    first_diff(&a.dns_lookups, &b.dns_lookups),
                ]
                .into_iter()
                .min()
                .unwrap_or(0);
                (rows, first_diff(&old.events, &new.events))
            }
        };
        let s = &new.series;
        let from = rows_from;
        ReportDelta {
            scenario: new.scenario.clone(),
            seed: new.seed,
            duration_s: new.duration_s,
            summary: new.summary.clone(),
            rows_from,
            series: Series {
                t: tail(&s.t, from),
                etcd_quorum: tail(&s.etcd_quorum, from),
                etcd_leader: s.etcd_leader.tail(from),
                etcd_term: tail(&s.etcd_term, from),
                etcd_writable: tail(&s.etcd_writable, from),
                api_writable: tail(&s.api_writable, from),
                controller_manager_leader: s.controller_manager_leader.tail(from),
                scheduler_leader: s.scheduler_leader.tail(from),
                service_availability: tail_map(&s.service_availability, from),
                running_pods: tail_map(&s.running_pods, from),
                pending_pods: tail_map(&s.pending_pods, from),
                dns_lookups: tail(&s.dns_lookups, from),
            },
            events_from,
            events: tail(&new.events, events_from),
            events_dropped: new.events_dropped,
        }
    }

    /// `report` (the one the delta was taken from) brought up to the new one.
    pub fn apply(self, report: &mut Report) {
        report.scenario = self.scenario;
        report.seed = self.seed;
        report.duration_s = self.duration_s;
        report.summary = self.summary;
        report.events_dropped = self.events_dropped;
        splice(&mut report.events, self.events_from, self.events);
        let (s, n, from) = (&mut report.series, self.series, self.rows_from);
        splice(&mut s.t, from, n.t);
        splice(&mut s.etcd_quorum, from, n.etcd_quorum);
        s.etcd_leader.splice(from, n.etcd_leader);
        splice(&mut s.etcd_term, from, n.etcd_term);
        splice(&mut s.etcd_writable, from, n.etcd_writable);
        splice(&mut s.api_writable, from, n.api_writable);
        s.controller_manager_leader
            .splice(from, n.controller_manager_leader);
        s.scheduler_leader.splice(from, n.scheduler_leader);
        splice_map(&mut s.service_availability, from, n.service_availability);
        splice_map(&mut s.running_pods, from, n.running_pods);
        splice_map(&mut s.pending_pods, from, n.pending_pods);
        splice(&mut s.dns_lookups, from, n.dns_lookups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Ready;
    use sim::world::World;

    /// Another run's report (a new scenario in the same slot): its leaders met their names in
    /// another order, and the delta still rebuilds it from the first run's (rows are compared
    /// by code, and the page takes the new table).
    #[test]
    fn a_delta_to_another_runs_report_rebuilds_it() {
        let report = |id: &str| {
            let s = Ready::by_id(id).unwrap().scenario();
            sim::run_scenario(&s.to_json()).unwrap()
        };
        let (a, b) = (report("3-three-masters-two-die"), report("4-rack-split"));
        let (na, nb) = (a.series.etcd_leader.names(), b.series.etcd_leader.names());
        assert!(!nb.starts_with(na), "the tables differ: {na:?} {nb:?}");
        let delta: ReportDelta = decode(&encode(&ReportDelta::between(Some(&a), &b))).unwrap();
        let mut page = a.clone();
        delta.apply(&mut page);
        assert_eq!(page, b);
        assert_eq!(
            page.series.etcd_leader.iter().collect::<Vec<_>>(),
            b.series.etcd_leader.iter().collect::<Vec<_>>()
        );
    }

    /// A run published every few thousand events, as the engine does while computing ahead:
    /// each report rebuilt from the previous one and its delta, through bytes, equals it.
    #[test]
    fn report_deltas_rebuild_every_published_report() {
        for id in ["4-rack-split", "7-worker-dies", "6-spot-two-interruptions"] {
            let s = Ready::by_id(id).unwrap().scenario();
            let mut w = World::new(s);
            let end = w.end();
            let mut page: Option<Report> = None;
            let mut steps = 0;
            let mut appended = 0;
            loop {
                let more = w.run_until(end, 3_000);
                let report = sim::report(&w);
                let delta = ReportDelta::between(page.as_ref(), &report);
                if page.is_some() && delta.rows_from > 0 && delta.events_from > 0 {
                    appended += 1;
                }
                let delta: ReportDelta = decode(&encode(&delta)).unwrap();
                let mut mine = page.take().unwrap_or_else(|| {
                    let mut empty = report.clone();
                    empty.series = Series::default();
                    empty.events.clear();
                    empty
                });
                delta.apply(&mut mine);
                assert_eq!(mine, report, "{id} after {steps} steps");
                page = Some(mine);
                steps += 1;
                if !more {
                    break;
                }
            }
            assert!(
                steps > 5 && appended > 2,
                "{id}: {steps} steps, {appended} appended"
            );
        }
    }

    #[test]
    fn a_delta_carries_only_what_changed() {
        let s = Ready::by_id("4-rack-split").unwrap().scenario();
        let mut w = World::new(s);
        let at = w.at_report_secs(300.0);
        while w.run_until(at, u64::MAX) {}
        let before = sim::report(&w);
        let at = w.at_report_secs(310.0);
        while w.run_until(at, u64::MAX) {}
        let after = sim::report(&w);
        let d = ReportDelta::between(Some(&before), &after);
        assert!(
            d.rows_from >= 295 && d.series.t.len() <= 16,
            "{}",
            d.rows_from
        );
        assert_eq!(d.events_from, before.events.len());
        assert!(encode(&d).len() < encode(&ReportDelta::between(None, &after)).len() / 5);
    }

    #[test]
    fn snapshots_round_trip_and_broken_bytes_are_refused() {
        let s = Ready::by_id("4-rack-split").unwrap().scenario();
        let mut w = World::new(s);
        let at = w.at_report_secs(200.0);
        while w.run_until(at, u64::MAX) {}
        let snap = w.snapshot();
        assert!(snap
            .hosts
            .iter()
            .any(|h| !h.pods.is_empty() && h.node.is_some()));
        let bytes = encode(&snap);
        assert_eq!(decode::<Snapshot>(&bytes), Some(snap));
        // Cut anywhere, or followed by more: refused, never a panic.
        for cut in [0, 1, bytes.len() / 3, bytes.len() - 1] {
            assert_eq!(decode::<Snapshot>(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode::<Snapshot>(&longer), None);
        // A length far past the end does not allocate it.
        assert_eq!(decode::<Vec<String>>(&[0xff, 0xff, 0xff, 0xff, 0x0f]), None);
        assert_eq!(decode::<EventKind>(&[250]), None);
    }
}

/// What crosses between the page and its worker, cut or damaged: refused whole or read, never a
/// panic, and never an allocation of a length the bytes do not hold.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz {
    use super::*;
    use crate::catalog::Ready;
    use proptest::prelude::*;
    use sim::world::World;
    use std::sync::OnceLock;

    /// A snapshot and a report of a run in the middle of a rack split, encoded.
    fn valid() -> &'static (Vec<u8>, Vec<u8>) {
        static BYTES: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
        BYTES.get_or_init(|| {
            let mut w = World::new(Ready::by_id("4-rack-split").unwrap().scenario());
            let at = w.at_report_secs(200.0);
            while w.run_until(at, u64::MAX) {}
            let delta = ReportDelta::between(None, &sim::report(&w));
            (encode(&w.snapshot()), encode(&delta))
        })
    }

    proptest! {
        #[test]
        fn any_bytes_are_read_or_refused(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = decode::<Snapshot>(&bytes);
            let _ = decode::<ReportDelta>(&bytes);
        }

        #[test]
        fn damaged_messages_are_read_or_refused(edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..5), cut in prop::option::of(any::<usize>())) {
            for bytes in [&valid().0, &valid().1] {
                let mut bytes = bytes.clone();
                for &(at, b) in &edits {
                    let at = at % bytes.len();
                    bytes[at] = b;
                }
                if let Some(cut) = cut {
                    bytes.truncate(cut % (bytes.len() + 1));
                }
                let _ = decode::<Snapshot>(&bytes);
                let _ = decode::<ReportDelta>(&bytes);
            }
        }
    }
}
