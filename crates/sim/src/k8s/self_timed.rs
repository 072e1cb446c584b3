//! What a process does of its own accord, for a study's shortcut through a settled stretch.
//!
//! A study leaves the world as it is for a while and brings everything still to come that much
//! earlier (`World::skip`). That is only the plain run's outcome if no process would have
//! changed anything meanwhile on its own: every process of the world says whether it is quiet
//! (nothing of its own on its way, or only an action at a known time: a grace period's end) and
//! moves the clocks of such actions on by a skipped stretch. Every process implements
//! [`SelfTimed`], with no default: a new process cannot join the world without saying both.
//!
//! Left out: periodic steps that only repeat what the state already says (renewals,
//! heartbeats, resyncs, health checks that pass); the study checks the figures they drive
//! instead, and its skip ends at a random phase of them.

use crate::etcd::kv::KvStore;
use crate::k8s::objects::Value;
use crate::kernel::keymap::KeyMap;
use crate::kernel::net::HostId;
use crate::kernel::time::{Duration, SimTime};

/// How quiet a process, or the whole cluster, is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quiet {
    /// A reaction to an earlier change may be on its way.
    No,
    /// Nothing is on its way.
    Yes,
    /// Nothing is on its way but what will be done at this time of its own accord, however long
    /// the world stays as it is: mark a silent node NotReady once its grace period ends, evict a
    /// tainted node's pods once their tolerations run out. A study skips no further than this,
    /// and its skip moves these clocks on as well.
    Until(SimTime),
}

impl Quiet {
    /// Both at once: not quiet if either is not, else until the earlier of their times.
    pub fn and(self, other: Quiet) -> Quiet {
        match (self, other) {
            (Quiet::No, _) | (_, Quiet::No) => Quiet::No,
            (Quiet::Until(a), Quiet::Until(b)) => Quiet::Until(a.min(b)),
            (Quiet::Until(t), Quiet::Yes) | (Quiet::Yes, Quiet::Until(t)) => Quiet::Until(t),
            (Quiet::Yes, Quiet::Yes) => Quiet::Yes,
        }
    }

    /// Quiet if `yes`, else not.
    pub fn when(yes: bool) -> Quiet {
        if yes {
            Quiet::Yes
        } else {
            Quiet::No
        }
    }
}

/// The world as it stands, as a process judging its quiet needs it (plain data and lookups,
/// built by the world for one question).
pub struct Stand<'a> {
    /// Per host: whether it runs.
    pub running: &'a [bool],
    /// Per host: whether it runs an apiserver.
    pub serves_api: &'a [bool],
    /// Per host: whether it is a Node that renews nothing as the world stands (its host is
    /// down, the API does not answer there, or the controllers have not heard from it lately).
    pub silent: &'a [bool],
    /// Host ids by name.
    pub hosts: &'a KeyMap<HostId>,
    /// The leases whose leader acts, on a running host.
    pub led: &'a [&'static str],
    /// The objects as the freshest etcd member has them.
    pub store: &'a KvStore<Value>,
}

impl Stand<'_> {
    /// Whether the host of this name runs.
    pub fn runs(&self, name: &str) -> bool {
        self.hosts
            .get(name)
            .is_some_and(|&h| self.running[h as usize])
    }

    /// Whether the Node of this name renews nothing as the world stands.
    pub fn is_silent(&self, name: &str) -> bool {
        self.hosts
            .get(name)
            .is_some_and(|&h| self.silent[h as usize])
    }

    /// Whether a leader of the lease acts, on a running host.
    pub fn is_led(&self, lease: &str) -> bool {
        self.led.contains(&lease)
    }
}

/// A process of the world, as a study's shortcut sees it.
pub trait SelfTimed {
    /// Whether it is quiet as the world stands, and if it will still act of its own accord at
    /// a known time, when.
    fn quiet(&self, stand: &Stand) -> Quiet;
    /// A study skipped `d` of a settled stretch: the clocks of what it will do of its own
    /// accord move on by `d`, as if the time had passed with nothing changing.
    fn skipped(&mut self, d: Duration, stand: &Stand);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_not_quiet_makes_the_whole_not_quiet_and_the_earliest_time_wins() {
        let (a, b) = (SimTime(5), SimTime(9));
        assert_eq!(Quiet::Until(a).and(Quiet::No), Quiet::No);
        assert_eq!(Quiet::No.and(Quiet::Yes), Quiet::No);
        assert_eq!(Quiet::Until(b).and(Quiet::Until(a)), Quiet::Until(a));
        assert_eq!(Quiet::Yes.and(Quiet::Until(b)), Quiet::Until(b));
        assert_eq!(Quiet::Yes.and(Quiet::Yes), Quiet::Yes);
        assert_eq!(Quiet::when(false), Quiet::No);
    }
}
