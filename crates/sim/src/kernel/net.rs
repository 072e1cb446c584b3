//! The simulated network: who can reach whom, and how long a message takes.
//!
//! Links are per direction. Faults follow the vocabulary of the scenario format
//! (and of turmoil): `partition` into groups, `isolate` one host, `partition_oneway`
//! from one set of hosts to another, `heal` everything. A crashed host neither sends
//! nor receives. Reachability is checked when a message is sent and again when it
//! arrives, so messages in flight when a partition starts are lost.
//!
//! Left out: bandwidth, packet loss rates, TCP connection state (a message either
//! arrives whole after its latency or not at all).

use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};

/// Index of a host in the scenario's host list.
pub type HostId = u32;

#[derive(Clone)]
pub struct Network {
    latency: Duration,
    up: Vec<bool>,
    /// Island of each host; hosts in the same island can talk. All 0 when healed.
    island: Vec<u32>,
    isolated: Vec<bool>,
    /// Observer hosts outside every partition (they still cannot reach isolated or crashed hosts).
    omni: Vec<bool>,
    /// One-way blocks: messages from a host in `.0` to a host in `.1` are dropped.
    oneway: Vec<(Vec<bool>, Vec<bool>)>,
    /// Per sender: its latency jitter and its links' last arrivals.
    senders: Vec<Sender>,
    /// Some partition, isolation or one-way cut is in force (most of a run has none: then only
    /// crashes decide who can send).
    faulty: bool,
}

/// What sending from one host needs, together: a thousand kubelets each send every few
/// seconds, and each one's state is cold by then.
#[derive(Clone)]
struct Sender {
    rng: Rng,
    /// Last arrival time per link to a receiver, by receiver, so each link delivers in order
    /// (like TCP). Most hosts talk to a handful of others: a sorted vector.
    last_arrival: Vec<(HostId, SimTime)>,
}

impl Network {
    pub fn new(hosts: usize, latency: Duration, rng: &Rng) -> Self {
        Network {
            latency,
            up: vec![true; hosts],
            island: vec![0; hosts],
            isolated: vec![false; hosts],
            omni: vec![false; hosts],
            oneway: Vec::new(),
            senders: (0..hosts)
                .map(|h| Sender {
                    rng: rng.fork(&format!("net/{h}")),
                    last_arrival: Vec::new(),
                })
                .collect(),
            faulty: false,
        }
    }

    pub fn hosts(&self) -> usize {
        self.up.len()
    }

    pub fn set_up(&mut self, host: HostId, up: bool) {
        self.up[host as usize] = up;
    }

    pub fn is_up(&self, host: HostId) -> bool {
        self.up[host as usize]
    }

    /// Replaces any earlier partition: each host goes to the island of its group;
    /// hosts in no group form one more island together.
    pub fn partition(&mut self, groups: &[Vec<HostId>]) {
        self.faulty = true;
        let rest = groups.len() as u32 + 1;
        self.island.iter_mut().for_each(|i| *i = rest);
        for (g, members) in groups.iter().enumerate() {
            for &h in members {
                self.island[h as usize] = g as u32 + 1;
            }
        }
    }

    pub fn set_omni(&mut self, host: HostId) {
        self.omni[host as usize] = true;
    }

    pub fn isolate(&mut self, host: HostId) {
        self.faulty = true;
        self.isolated[host as usize] = true;
    }

    pub fn partition_oneway(&mut self, from: &[HostId], to: &[HostId]) {
        self.faulty = true;
        let mut f = vec![false; self.hosts()];
        let mut t = vec![false; self.hosts()];
        from.iter().for_each(|&h| f[h as usize] = true);
        to.iter().for_each(|&h| t[h as usize] = true);
        self.oneway.push((f, t));
    }

    pub fn heal(&mut self) {
        self.faulty = false;
        self.island.iter_mut().for_each(|i| *i = 0);
        self.isolated.iter_mut().for_each(|i| *i = false);
        self.oneway.clear();
    }

    /// Whether a message from `a` to `b` would get through now (both up, no fault between them).
    pub fn can_send(&self, a: HostId, b: HostId) -> bool {
        let (ai, bi) = (a as usize, b as usize);
        if !self.up[ai] || !self.up[bi] {
            return false;
        }
        if a == b || !self.faulty {
            return true;
        }
        (self.island[ai] == self.island[bi] || self.omni[ai] || self.omni[bi])
            && !self.isolated[ai]
            && !self.isolated[bi]
            && !self.oneway.iter().any(|(f, t)| f[ai] && t[bi])
    }

    /// Both directions work.
    pub fn connected(&self, a: HostId, b: HostId) -> bool {
        self.can_send(a, b) && self.can_send(b, a)
    }

    /// When a message sent now from `a` to `b` arrives: one-way latency plus up to 50 % seeded jitter,
    /// never before an earlier message on the same link. Local messages take no time.
    pub fn arrival(&mut self, now: SimTime, a: HostId, b: HostId) -> SimTime {
        if a == b {
            return now;
        }
        let base = self.latency.as_micros();
        let sender = &mut self.senders[a as usize];
        let jitter = sender.rng.below(base / 2 + 1);
        let at = now + Duration(base + jitter);
        let links = &mut sender.last_arrival;
        let i = match links.binary_search_by_key(&b, |l| l.0) {
            Ok(i) => i,
            Err(i) => {
                links.insert(i, (b, SimTime::ZERO));
                i
            }
        };
        let at = at.max(links[i].1);
        links[i].1 = at;
        at
    }

    /// The island of each up, non-isolated host (`None` when down or isolated): used to find majorities.
    pub fn island_of(&self, h: HostId) -> Option<u32> {
        let i = h as usize;
        (self.up[i] && !self.isolated[i]).then_some(self.island[i])
    }

    pub fn island(&self, h: HostId) -> u32 {
        self.island[h as usize]
    }

    pub fn is_isolated(&self, h: HostId) -> bool {
        self.isolated[h as usize]
    }

    /// Whether any partition, isolation or one-way fault is in force.
    pub fn is_faulty(&self) -> bool {
        !self.oneway.is_empty()
            || self.isolated.iter().any(|&i| i)
            || self.island.iter().any(|&i| i != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(n: usize) -> Network {
        Network::new(n, Duration::from_millis(1), &Rng::new(1))
    }

    #[test]
    fn partition_groups_and_the_rest() {
        let mut n = net(5);
        n.partition(&[vec![0, 1], vec![2]]);
        assert!(n.connected(0, 1));
        assert!(!n.can_send(0, 2));
        assert!(!n.can_send(2, 3));
        // 3 and 4 were named by no group: they form one more group together.
        assert!(n.connected(3, 4));
        n.heal();
        assert!(n.connected(0, 2) && n.connected(2, 4));
    }

    #[test]
    fn isolate_oneway_and_crash() {
        let mut n = net(3);
        n.isolate(1);
        assert!(!n.can_send(0, 1) && !n.can_send(1, 2));
        assert!(n.connected(0, 2));
        n.heal();
        n.partition_oneway(&[0], &[1]);
        assert!(!n.can_send(0, 1));
        assert!(n.can_send(1, 0));
        n.heal();
        n.set_up(2, false);
        assert!(!n.can_send(0, 2) && !n.can_send(2, 0));
    }

    #[test]
    fn latency_has_bounded_jitter_and_links_stay_in_order() {
        let mut n = net(2);
        let mut last = SimTime::ZERO;
        for _ in 0..1000 {
            let at = n.arrival(SimTime(0), 0, 1);
            assert!(at.0 >= 1000 && at.0 <= 1500, "{at:?}");
            assert!(at >= last);
            last = at;
        }
        assert_eq!(n.arrival(SimTime(7), 1, 1), SimTime(7));
    }
}
