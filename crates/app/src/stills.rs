//! Stills: what the topology draws, kept at regular instants of a long run while it is computed
//! ahead, so a seek shows the cluster at once instead of after a replay of seconds.
//!
//! A large cluster's day keeps a few dozen checkpoints (the page's memory allows no more), and a
//! seek replays from the one before the target: up to seconds of computing. A still is the
//! view's snapshot at its instant, exact (taken once every event of that instant has run), and a
//! few kilobytes: consecutive stills share every host whose view did not change (in a quiet
//! minute of 1,000 workers, all but the three etcd members). A seek to a still's instant draws it
//! while the world itself is replayed for the console; a seek between two draws the earlier one
//! until the replay arrives.
//!
//! Kept only when a replay between two checkpoints may be slow ([`Stills::every_for`]): building
//! a 1,000-host snapshot costs as much as computing several simulated seconds, so the run thins
//! them when they cost more than a share of its computing (`Run`). A run whose hosts change all
//! the time (a fault every minute) would keep a new view of most hosts in every still: past
//! [`MOST_BYTES`] every other still goes and the interval doubles.

use sim::view::{EtcdView, HostView, PodView, Snapshot};
use std::rc::Rc;

/// The fewest host-seconds a run's checkpoints may be apart (the run's length times its hosts,
/// over the checkpoints it keeps at its end) for stills to be kept: replaying that many costs
/// about 300 ms in the page (the 1,000-worker hour computes in about 5 s in Chromium on a 2-core
/// machine, 1.4 µs per host and simulated second). Below it, seeks are about as quick already.
const HOST_SECONDS_BETWEEN_CHECKPOINTS: f64 = 200_000.0;

/// At most about this many stills a run: as many as a wide scrubber has pixels.
const MOST: f64 = 1_440.0;

/// Intervals between stills (seconds), shortest first: the first that keeps at most [`MOST`].
const INTERVALS_S: [f64; 8] = [60.0, 120.0, 300.0, 600.0, 900.0, 1_800.0, 3_600.0, 7_200.0];

/// The most memory a run's stills may take (estimated as below), within the page's budget.
pub const MOST_BYTES: f64 = 64e6;
/// A host's view in the page's 32-bit memory, rounded up: a worker's with ten pods, whose names
/// are its strings, is about 1 KB.
const HOST_VIEW_BYTES: f64 = 1_000.0;
/// A pending pod's view (its name and its workload's).
const POD_VIEW_BYTES: f64 = 64.0;
/// A still's pointer to each host's view.
const POINTER_BYTES: f64 = 4.0;

#[derive(Debug)]
pub struct Stills {
    /// Report seconds between stills.
    every: f64,
    /// Report seconds of the next still to keep.
    next: f64,
    kept: Vec<Still>,
    /// Distinct host views the stills hold.
    host_views: usize,
    /// Pending pods' views in the distinct lists of them the stills hold.
    pending_views: usize,
}

/// A snapshot whose hosts are shared with the still before it where they did not change.
#[derive(Debug)]
struct Still {
    t: f64,
    zones: Rc<Vec<String>>,
    hosts: Vec<Rc<HostView>>,
    etcd: EtcdView,
    network_faulty: bool,
    pending: Rc<Vec<PodView>>,
}

impl Stills {
    /// Stills for a run of `duration_s` seconds over `hosts` hosts that keeps `checkpoints`
    /// checkpoints at most; `None` when its seeks replay quickly enough without.
    pub fn every_for(duration_s: f64, hosts: usize, checkpoints: usize) -> Option<f64> {
        // A run too large for any checkpoint has no room for stills either.
        let apart = duration_s * hosts as f64 / checkpoints as f64;
        (checkpoints > 0 && apart >= HOST_SECONDS_BETWEEN_CHECKPOINTS).then(|| {
            (INTERVALS_S.iter().copied())
                .find(|every| duration_s / every <= MOST)
                .unwrap_or(INTERVALS_S[INTERVALS_S.len() - 1])
        })
    }

    pub fn new(every: f64) -> Stills {
        Stills {
            every,
            next: 0.0,
            kept: Vec::new(),
            host_views: 0,
            pending_views: 0,
        }
    }

    /// Report seconds between stills.
    pub fn every(&self) -> f64 {
        self.every
    }

    /// Report seconds of the next still to keep.
    pub fn next_s(&self) -> f64 {
        self.next
    }

    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Keeps `snapshot`, taken at [`Stills::next_s`], sharing what it has in common with the
    /// still before it; thins the stills if they take too much memory.
    pub fn keep(&mut self, snapshot: Snapshot) {
        let last = self.kept.last();
        let zones = match last {
            Some(l) if *l.zones == snapshot.zones => l.zones.clone(),
            _ => Rc::new(snapshot.zones),
        };
        let hosts = (snapshot.hosts.into_iter().enumerate())
            .map(|(i, h)| match last.and_then(|l| l.hosts.get(i)) {
                Some(same) if **same == h => same.clone(),
                _ => {
                    self.host_views += 1;
                    Rc::new(h)
                }
            })
            .collect::<Vec<_>>();
        let pending = match last {
            Some(l) if *l.pending == snapshot.pending => l.pending.clone(),
            _ => {
                self.pending_views += snapshot.pending.len();
                Rc::new(snapshot.pending)
            }
        };
        self.next = snapshot.t + self.every;
        self.kept.push(Still {
            t: snapshot.t,
            zones,
            hosts,
            etcd: snapshot.etcd,
            network_faulty: snapshot.network_faulty,
            pending,
        });
        while self.bytes() > MOST_BYTES && self.kept.len() > 1 {
            self.thin();
        }
    }

    /// Keeps every other still, doubling the interval (the next one on the new grid).
    pub fn thin(&mut self) {
        self.every *= 2.0;
        let every = self.every;
        self.kept.retain(|s| (s.t / every).fract() == 0.0);
        self.next = (self.next / every).ceil() * every;
        (self.host_views, self.pending_views) = self.count_views();
    }

    /// Estimated bytes the stills take.
    fn bytes(&self) -> f64 {
        let pointers: usize = self.kept.iter().map(|s| s.hosts.len()).sum();
        self.host_views as f64 * HOST_VIEW_BYTES
            + self.pending_views as f64 * POD_VIEW_BYTES
            + pointers as f64 * POINTER_BYTES
    }

    /// The index of the latest still in `(after, at]`, if any.
    pub fn latest(&self, after: f64, at: f64) -> Option<usize> {
        let i = self.kept.partition_point(|s| s.t <= at).checked_sub(1)?;
        (self.kept[i].t > after).then_some(i)
    }

    /// Still `i` as the snapshot it was.
    pub fn snapshot(&self, i: usize) -> Snapshot {
        let s = &self.kept[i];
        Snapshot {
            t: s.t,
            zones: (*s.zones).clone(),
            hosts: s.hosts.iter().map(|h| (**h).clone()).collect(),
            etcd: s.etcd.clone(),
            network_faulty: s.network_faulty,
            pending: (*s.pending).clone(),
        }
    }

    /// Report seconds of still `i`.
    pub fn t(&self, i: usize) -> f64 {
        self.kept[i].t
    }

    /// The host views, and the pending pods' views, no still shares with the one before it (a
    /// view is only ever shared with the still before).
    fn count_views(&self) -> (usize, usize) {
        let (mut hosts, mut pending) = (0, 0);
        for (k, s) in self.kept.iter().enumerate() {
            let before = k.checked_sub(1).map(|b| &self.kept[b]);
            hosts += (s.hosts.iter().enumerate())
                .filter(|&(i, h)| {
                    (before.and_then(|b| b.hosts.get(i))).is_none_or(|p| !Rc::ptr_eq(p, h))
                })
                .count();
            if !before.is_some_and(|b| Rc::ptr_eq(&b.pending, &s.pending)) {
                pending += s.pending.len();
            }
        }
        (hosts, pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_for_long_large_runs_only_a_minute_apart_at_least() {
        let day = 86_400.0;
        // The 1,000-worker day keeps 39 checkpoints: 2.2 million host-seconds apart. A run too
        // large for any checkpoint keeps no stills.
        assert_eq!(Stills::every_for(day, 1_008, 0), None);
        assert_eq!(Stills::every_for(day, 1_008, 39), Some(60.0));
        // A week of 100 workers, 60 checkpoints: one still every 10 minutes (1,008 stills).
        assert_eq!(Stills::every_for(7.0 * day, 108, 60), Some(600.0));
        // The 1,000-worker hour (39) and the 100-worker day (60) replay quickly already.
        assert_eq!(Stills::every_for(3_600.0, 1_008, 39), None);
        assert_eq!(Stills::every_for(day, 108, 60), None);
    }

    fn host(name: &str, term: u64) -> HostView {
        HostView {
            name: name.into(),
            zone: "rack-a".into(),
            roles: vec!["worker"],
            state: sim::view::HostState::Up,
            island: 0,
            isolated: false,
            spot: false,
            etcd: (term > 0).then_some(sim::view::MemberView {
                role: sim::view::MemberRole::Leader,
                term,
                commit: 10 * term,
                applied: 10 * term,
                voter: true,
                learner: false,
            }),
            apiserver: None,
            controller_manager: None,
            scheduler: None,
            node: None,
            pods: Default::default(),
            terminating: vec![],
            lb_backends: vec![],
            fill: None,
            vip: false,
        }
    }

    fn snapshot(t: f64, term: u64) -> Snapshot {
        Snapshot {
            t,
            zones: vec!["rack-a".into()],
            hosts: vec![host("etcd-1", term), host("w1", 0), host("w2", 0)],
            etcd: EtcdView {
                voters: 1,
                connected: 1,
                quorum_size: 1,
                has_quorum: true,
                leader: Some("etcd-1".into()),
                term,
            },
            network_faulty: false,
            pending: vec![],
        }
    }

    #[test]
    fn a_still_gives_back_its_snapshot_sharing_the_hosts_that_did_not_change() {
        let mut stills = Stills::new(60.0);
        assert_eq!(stills.next_s(), 0.0);
        for (k, term) in [1, 2, 2].into_iter().enumerate() {
            stills.keep(snapshot(60.0 * k as f64, term));
        }
        assert_eq!(stills.next_s(), 180.0);
        for (k, term) in [1, 2, 2].into_iter().enumerate() {
            assert_eq!(stills.snapshot(k), snapshot(60.0 * k as f64, term));
        }
        // Three hosts, then the etcd member anew, then nothing new.
        assert_eq!((stills.host_views, stills.count_views()), (4, (4, 0)));
        // The latest still at or before a time, later than another.
        assert_eq!(stills.latest(-1.0, 130.0), Some(2));
        assert_eq!(stills.latest(-1.0, 120.0), Some(2));
        assert_eq!(stills.latest(-1.0, 119.9), Some(1));
        assert_eq!(
            stills.latest(60.0, 119.9),
            None,
            "the world at 60 s is as late"
        );
        assert_eq!(stills.latest(-1.0, -0.5), None);
    }

    #[test]
    fn stills_past_their_memory_are_thinned_to_every_other() {
        // Each still a new view of every host (a term each time): 1,000 hosts a still.
        let mut stills = Stills::new(60.0);
        let many = |t: f64, term: u64| Snapshot {
            hosts: (0..1_000).map(|i| host(&format!("h{i}"), term)).collect(),
            ..snapshot(t, term)
        };
        let mut t = 0.0;
        for term in 1..=64 {
            assert_eq!(stills.next_s(), t);
            stills.keep(many(t, term));
            t = stills.next_s();
        }
        // 64 × 1,000 views (64 MB) and their pointers: past the bound at the 64th, every
        // other still went, the interval doubled; the next still is on the new interval.
        assert_eq!((stills.len(), stills.every()), (32, 120.0));
        assert_eq!(stills.host_views, 32_000);
        assert_eq!(stills.next_s(), 64.0 * 60.0);
        assert_eq!(stills.snapshot(31), many(62.0 * 60.0, 63));
    }
}
