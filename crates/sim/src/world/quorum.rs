//! Quorum accounting: whether a majority of the voting etcd members is up and mutually
//! reachable, checked at every change that can alter it (a fault, a membership change, a
//! sample), the seconds without one (`quorum_lost_s`), and the events when it is lost and
//! regained. Time spent electing a leader while a majority exists is not quorum loss.

use crate::etcd::quorum;
use crate::kernel::time::SimTime;
use crate::record::{Event, EventKind, Recorder};

#[derive(Clone)]
pub struct QuorumClock {
    /// Whether there was a quorum at the last check (None before the first).
    pub quorum: Option<bool>,
    since: SimTime,
    lost_us: u64,
}

impl QuorumClock {
    pub fn new(origin: SimTime) -> QuorumClock {
        QuorumClock {
            quorum: None,
            since: origin,
            lost_us: 0,
        }
    }

    /// The quorum as it is at `now`: `connected` of `voters` members up and mutually reachable.
    pub fn update(
        &mut self,
        now: SimTime,
        (connected, voters): (usize, usize),
        obs: &mut Recorder,
    ) {
        let now_ok = quorum::has_quorum(connected, voters);
        let origin = obs.origin;
        let at = now.max(origin);
        if self.quorum == Some(false) && now >= origin {
            self.lost_us += (at - self.since.max(origin)).as_micros();
        }
        if self.quorum != Some(now_ok) {
            if self.quorum.is_some() {
                let (kind, text) = if now_ok {
                    (
                        EventKind::EtcdQuorumRegained,
                        "a majority of etcd members can reach each other again".to_string(),
                    )
                } else {
                    (
                        EventKind::EtcdQuorumLost,
                        format!(
                            "only {connected} of the {voters} etcd members are up and connected, and a quorum needs {}: etcd cannot commit writes",
                            quorum::quorum(voters)
                        ),
                    )
                };
                let e = Event::new(obs.secs(now), kind, text);
                obs.push(now, e);
            }
            self.quorum = Some(now_ok);
        }
        self.since = at;
    }

    /// Seconds without a quorum between t = 0 and `now` (at most `end`).
    pub fn lost_s(&self, now: SimTime, end: SimTime, origin: SimTime) -> f64 {
        let mut us = self.lost_us;
        if self.quorum == Some(false) {
            us += now
                .min(end)
                .saturating_sub(self.since.max(origin))
                .as_micros();
        }
        us as f64 / 1e6
    }
}
