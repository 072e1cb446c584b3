//! etcd membership as an operator changes it: `etcdctl member add/remove` (and kubeadm's
//! `join` of a control-plane host with `etcd`), proposed to the leader and waited for until
//! it commits or `etcdctl`'s command timeout passes; `--force-new-cluster` on a survivor; a
//! member's clean stop (a leader hands its leadership over first); and each member's tick loop.

use super::etcd_cluster::MemberChange;
use super::{EtcdCtx, Ev, K8sCtx, World};
use crate::etcd::member::member_host;
use crate::etcd::raft::{ConfChange, MemberId, Role as RaftRole};
use crate::etcd::Timer;
use crate::k8s::wire::EtcdMember;
use crate::k8s::Observe as _;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::time::{Duration, SimTime};
use crate::record::{Event, EventKind};

/// How long the operator's `etcdctl member add/remove` waits for the change to commit (its command timeout).
pub const MEMBER_CHANGE_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the operator's command looks whether its change has applied.
const MEMBER_CHANGE_POLL: Duration = Duration::from_millis(100);
/// kubeadm's back-off between attempts to add its learner and to promote it (`etcdBackoff`:
/// 50 ms, doubling, 9 attempts: ≈ 25 s in all).
const PROMOTE_BACKOFF: Duration = Duration::from_millis(50);
const PROMOTE_ATTEMPTS: u32 = 9;
/// How often a stopping leader looks whether its leadership has moved.
const HAND_OVER_POLL: Duration = Duration::from_millis(10);
/// How long after handing its leadership over a member stopped with SIGTERM exits.
const EXIT_AFTER_HAND_OVER: Duration = Duration::from_secs(1);

/// What follows a clean stop of a host's etcd member.
#[derive(Clone, Copy, Debug)]
pub(super) enum AfterStop {
    /// The host reboots: everything on it stops, it is off for `downtime`, then boots.
    Reboot { downtime: Duration },
    /// Only etcd restarts (`restart_component`).
    Restart,
}

impl World {
    /// A clean stop of the etcd member on `h`, then `then`. A leader hands its leadership to the
    /// most up-to-date voter first and exits a second after another member leads, or once an
    /// election timeout has passed (etcd gives a transfer that long); any other member stops at
    /// once.
    pub(super) fn stop_etcd_cleanly(&mut self, h: HostId, then: AfterStop) {
        let handing = match self.etcd.members[h as usize].as_mut() {
            Some(m) if self.hosts[h as usize].up => {
                let mut ctx: EtcdCtx = ctx!(self, h);
                m.hand_over(&mut ctx)
            }
            _ => false,
        };
        self.apply_effects(h);
        if handing {
            let deadline = self.now + self.etcd.cfg.election_timeout;
            self.queue.push(
                self.now + HAND_OVER_POLL,
                Ev::EtcdStopping { h, then, deadline },
            );
        } else {
            self.after_etcd_stop(h, then);
        }
    }

    pub(super) fn check_etcd_stopping(&mut self, h: HostId, then: AfterStop, deadline: SimTime) {
        let leading = self.etcd.members[h as usize]
            .as_ref()
            .is_some_and(|m| m.raft.role() == RaftRole::Leader);
        let up = self.hosts[h as usize].up;
        if leading && self.now < deadline && up {
            self.queue.push(
                self.now + HAND_OVER_POLL,
                Ev::EtcdStopping { h, then, deadline },
            );
        } else if !leading && self.now < deadline && up {
            // Handed over: the process exits about a second later (measured on etcd 3.5), as
            // its servers shut down; the next check finds the deadline passed.
            let deadline = SimTime::ZERO;
            self.queue.push(
                self.now + EXIT_AFTER_HAND_OVER,
                Ev::EtcdStopping { h, then, deadline },
            );
        } else {
            self.after_etcd_stop(h, then);
        }
    }

    fn after_etcd_stop(&mut self, h: HostId, then: AfterStop) {
        // A clean stop closes the member's connections: its watchers see their streams end.
        if let Some(m) = self.etcd.members[h as usize].as_mut() {
            if self.hosts[h as usize].up {
                let mut ctx: EtcdCtx = ctx!(self, h);
                m.close_watch_streams(&mut ctx);
            }
        }
        self.apply_effects(h);
        match then {
            AfterStop::Reboot { downtime } => {
                // keepalived stops cleanly too: a master says so (a priority-0 advert), and the
                // machine goes down once that advert is on its way to the others.
                let said_goodbye = self.procs.on[h as usize]
                    .keepalived
                    .as_mut()
                    .is_some_and(|k| {
                        let mut ctx: K8sCtx = ctx!(self, h);
                        k.stop(&mut ctx)
                    });
                self.apply_effects(h);
                if said_goodbye {
                    // A message takes the latency and up to half of it again (`Network::arrival`).
                    let latency = self.scenario.settings.network_latency.as_micros();
                    let off = self.now + Duration(2 * latency + 1);
                    self.queue.push(off, Ev::PowerOff { h, downtime });
                } else {
                    self.power_off(h, downtime);
                }
            }
            AfterStop::Restart => {
                if let Some(m) = self.etcd.members[h as usize].as_mut() {
                    m.restart();
                    self.hosts[h as usize].process_generation[Port::ETCD.index()] += 1;
                    self.start_etcd_ticks(h);
                }
                let name = self.hosts.name(h).to_string();
                self.push_event(
                    EventKind::ComponentRestarted,
                    Some(h),
                    format!("etcd on {name} restarted: it keeps its data and rejoins"),
                );
            }
        }
    }

    /// The second half of a clean reboot: the machine goes down, to boot after `downtime`.
    pub(super) fn power_off(&mut self, h: HostId, downtime: Duration) {
        self.crash_host(h, "it is rebooting");
        self.hosts[h as usize].boot_at = Some(self.now + downtime);
        self.queue.push(self.now + downtime, Ev::Boot(h));
    }

    pub(super) fn start_etcd_ticks(&mut self, h: HostId) {
        // Members start their tick loops at slightly different instants, as real processes do.
        let offset = Duration(
            self.etcd
                .rng
                .fork(&format!("tick/{h}/{}", self.hosts.incarnation(h)))
                .below(self.etcd.cfg.heartbeat_interval.as_micros()),
        );
        let to = Addr {
            host: h,
            port: Port::ETCD,
        };
        self.set_timer(self.now + offset, to, Timer::RaftTick);
    }

    pub(super) fn start_member_change(
        &mut self,
        action: &'static str,
        host: HostId,
        change: ConfChange,
    ) {
        // The operator's commands run on its terminal; kubeadm's on the joining host.
        let from = if action == "join" {
            host
        } else {
            self.hosts.probe
        };
        if let Err(reason) = self.propose_member_change(action, host, change, from, false) {
            self.obs
                .operation(self.now, action, Some(host), Err(reason.into()));
        }
    }

    /// The machine replacing a reclaimed control-plane host (a fault's `replace_after`) removes
    /// the reclaimed machine's etcd member first, from itself (`etcdctl member remove`), since
    /// kubeadm's etcd health check fails while a listed member does not answer, then joins.
    /// Both steps need a quorum: without one the replacement cannot join.
    pub(super) fn replace_etcd_member(&mut self, h: HostId) {
        let old = self.etcd.member_id_of(h);
        if !self.etcd.listed(old) {
            self.kubeadm_join(h);
            return;
        }
        let action = "etcd_member_remove";
        if let Err(reason) = self.propose_member_change(action, h, ConfChange::Remove(old), h, true)
        {
            self.obs
                .operation(self.now, action, Some(h), Err(reason.into()));
            self.join_refused_unhealthy(h, old);
        }
    }

    /// The automation acting on a spot notice (`remove_on_notice`) removes the doomed host's
    /// etcd member at once (`etcdctl member remove` from the host itself), while it answers and
    /// the quorum holds: the cluster shrinks by one, and a replacement only has to join.
    pub(super) fn remove_member_on_notice(&mut self, h: HostId) {
        if !self.scenario.hosts[h as usize].runs_etcd() {
            return;
        }
        let id = self.etcd.member_id_of(h);
        if !self.etcd.listed(id) {
            return;
        }
        let action = "etcd_member_remove";
        if let Err(reason) = self.propose_member_change(action, h, ConfChange::Remove(id), h, false)
        {
            self.obs
                .operation(self.now, action, Some(h), Err(reason.into()));
        }
    }

    /// kubeadm's join of a host with `etcd` checks the health of every member the cluster
    /// lists (`CheckLocalEtcdClusterStatus`): a member that does not answer from the joining
    /// host fails the join.
    pub(super) fn etcd_unhealthy_for_join(&self, h: HostId) -> Option<crate::etcd::raft::MemberId> {
        let m = self.etcd.freshest()?;
        let listed = m.raft.voters().iter().chain(m.raft.learners());
        listed.copied().find(|&id| {
            let host = member_host(id);
            let serving = self
                .etcd
                .member(id)
                .is_some_and(|x| !x.removed && x.cluster == self.etcd.current);
            !(serving && self.hosts[host as usize].up && self.net.connected(h, host))
        })
    }

    pub(super) fn join_refused_unhealthy(&mut self, h: HostId, id: crate::etcd::raft::MemberId) {
        let of = member_host(id);
        let replaced = if of == h && self.etcd.member(id).is_none() {
            " (the reclaimed machine this one replaces)"
        } else {
            ""
        };
        let reason = format!(
            "etcd cluster is not healthy: its member {}{replaced} does not answer (kubeadm join checks every listed member)",
            self.hosts.name(of)
        );
        self.obs.operation(self.now, "join", Some(h), Err(reason));
    }

    /// The etcd leader a membership request from `from` reaches: the first member in host order
    /// that `from` can reach passes the proposal on to the leader it follows, if it can reach it
    /// (etcdctl given every member's endpoint; Raft forwards a follower's proposals).
    fn leader_reached_from(&self, from: HostId) -> Option<HostId> {
        let (h, m) = self.member_reached_from(from)?;
        let leader_id = m.raft.leader()?;
        let leader = member_host(leader_id);
        let leads = self
            .etcd
            .member(leader_id)
            .is_some_and(|l| l.raft.role() == RaftRole::Leader && l.raft.term() == m.raft.term());
        (leads && self.net.connected(h, leader)).then_some(leader)
    }

    /// Proposes `change` on the etcd leader reached from where the command runs (the operator's
    /// terminal; kubeadm's join on the joining host) and polls until it applies or times out.
    /// The member a membership request from `from` reaches: the first in host order that
    /// `from` can reach and that is no learner (a learner refuses member requests: etcdctl
    /// moves on to the next endpoint).
    fn member_reached_from(&self, from: HostId) -> Option<(HostId, &EtcdMember)> {
        self.etcd.members().find(|&(h, m)| {
            m.cluster == self.etcd.current
                && !m.removed
                && !m.raft.learners().contains(&m.raft.id())
                && self.net.connected(from, h)
        })
    }

    fn propose_member_change(
        &mut self,
        action: &'static str,
        host: HostId,
        change: ConfChange,
        from: HostId,
        then_join: bool,
    ) -> Result<(), &'static str> {
        if let ConfChange::AddVoter(_) | ConfChange::AddLearner(_) = change {
            if let Some((_, m)) = self.member_reached_from(from) {
                m.may_add_member(self.now)?;
            }
        }
        let leader = self
            .leader_reached_from(from)
            .ok_or("no etcd leader: no quorum")?;
        if let ConfChange::PromoteLearner(_) = change {
            // etcd's `IsReadyToPromoteMember`: with the learner counted as a started voter, a
            // quorum of the grown cluster must have started (published itself) once.
            let voters: Vec<MemberId> = (self.etcd.members[leader as usize].as_ref())
                .map_or(Vec::new(), |m| m.raft.voters().iter().copied().collect());
            let started = voters.iter().filter(|&&v| self.etcd.started(v)).count();
            if started + 1 < crate::etcd::quorum::quorum(voters.len() + 1) {
                return Err("re-configuration failed due to not enough started members");
            }
        }
        // Raft sends the proposal's messages from its outbox on the member's next tick.
        self.etcd.members[leader as usize]
            .as_mut()
            .expect("leader exists")
            .propose_member_change(change, self.now)?;
        if let ConfChange::AddVoter(id) | ConfChange::AddLearner(id) = change {
            self.etcd.claim_member_id(id);
        }
        let op = self.etcd.changes.len();
        self.etcd.changes.push(MemberChange {
            action,
            host,
            leader,
            change,
            deadline: self.now + MEMBER_CHANGE_TIMEOUT,
            then_join,
            done: false,
        });
        self.queue
            .push(self.now + MEMBER_CHANGE_POLL, Ev::MemberChangeCheck { op });
        Ok(())
    }

    pub(super) fn check_member_change(&mut self, op: usize) {
        let c = &self.etcd.changes[op];
        let (host, leader, change, deadline, action, then_join) = (
            c.host,
            c.leader,
            c.change,
            c.deadline,
            c.action,
            c.then_join,
        );
        let applied = self.etcd.members[leader as usize]
            .as_ref()
            .is_some_and(|m| {
                self.hosts[leader as usize].up
                    && match change {
                        ConfChange::AddVoter(id) | ConfChange::PromoteLearner(id) => {
                            m.raft.voters().contains(&id)
                        }
                        ConfChange::AddLearner(id) => m.raft.learners().contains(&id),
                        ConfChange::Remove(id) => {
                            !m.raft.voters().contains(&id) && !m.raft.learners().contains(&id)
                        }
                    }
            });
        // kubeadm's join adds a learner first: the join is done when the learner is promoted.
        let join_learner = action == "join" && matches!(change, ConfChange::AddLearner(_));
        if applied || self.now >= deadline {
            self.etcd.changes[op].done = true;
        }
        if applied {
            if !join_learner {
                self.obs.operation(self.now, action, Some(host), Ok(()));
            }
            if let ConfChange::AddVoter(id) | ConfChange::AddLearner(id) = change {
                // The operator starts etcd on the new host with an empty data dir (`--initial-cluster-state=existing`).
                let rng = self.etcd.rng.fork(&format!(
                    "etcd/{}/join/{}",
                    self.hosts[host as usize].name, op
                ));
                let member = EtcdMember::joining(id, self.etcd.current, self.etcd.cfg, rng);
                self.etcd.place(host, member);
                let newly_joined = !self.hosts[host as usize].joined;
                self.hosts[host as usize].joined = true;
                if self.hosts[host as usize].up {
                    self.start_etcd_ticks(host);
                    if newly_joined && action == "join" {
                        self.start_k8s_processes(host);
                    }
                }
                self.replacement_joined(host);
            }
            if join_learner {
                self.queue
                    .push(self.now + PROMOTE_BACKOFF, Ev::Promote { host, attempt: 1 });
            }
            self.update_quorum();
            if then_join {
                self.kubeadm_join(host);
            }
        } else if self.now >= deadline {
            self.obs.operation(
                self.now,
                action,
                Some(host),
                Err("timed out: the change did not commit (no quorum)".into()),
            );
            if let (true, ConfChange::Remove(id)) = (then_join, change) {
                self.join_refused_unhealthy(host, id);
            }
        } else {
            self.queue
                .push(self.now + MEMBER_CHANGE_POLL, Ev::MemberChangeCheck { op });
        }
    }

    /// kubeadm's join adds its etcd member as a learner (`MemberAddAsLearner`), trying again
    /// after a refusal (a leader elected less than 5 s ago fails `--strict-reconfig-check`, a
    /// change still in progress) with its back-off, as it does for the promotion.
    pub(super) fn add_joining_learner(&mut self, host: HostId, attempt: u32) {
        if attempt > 1 {
            self.etcd.joins_due -= 1;
        }
        let change = ConfChange::AddLearner(self.etcd.next_member_id(host));
        let Err(refused) = self.propose_member_change("join", host, change, host, false) else {
            return;
        };
        if attempt < PROMOTE_ATTEMPTS {
            self.etcd.joins_due += 1;
            let wait = Duration(PROMOTE_BACKOFF.as_micros() << attempt);
            let next = Ev::AddLearner {
                host,
                attempt: attempt + 1,
            };
            self.queue.push(self.now + wait, next);
        } else {
            self.obs
                .operation(self.now, "join", Some(host), Err(refused.into()));
        }
    }

    /// kubeadm's promotion of the learner its join added: refused while the learner has not
    /// caught up (or the cluster is not healthy enough), retried with kubeadm's back-off.
    pub(super) fn promote_joined_learner(&mut self, host: HostId, attempt: u32) {
        let change = ConfChange::PromoteLearner(self.etcd.member_id_of(host));
        let Err(refused) = self.propose_member_change("join", host, change, host, false) else {
            return;
        };
        if attempt < PROMOTE_ATTEMPTS {
            let wait = Duration(PROMOTE_BACKOFF.as_micros() << attempt);
            self.queue.push(
                self.now + wait,
                Ev::Promote {
                    host,
                    attempt: attempt + 1,
                },
            );
        } else {
            let reason = format!("the etcd learner could not be promoted: {refused}");
            self.obs
                .operation(self.now, "join", Some(host), Err(reason));
        }
    }

    pub(super) fn force_new_cluster(&mut self, h: HostId) {
        let action = "etcd_force_new_cluster";
        if !self.hosts[h as usize].up {
            self.obs
                .operation(self.now, action, Some(h), Err("the host is down".into()));
            return;
        }
        let Some(m) = self.etcd.members[h as usize].as_mut() else {
            self.obs.operation(
                self.now,
                action,
                Some(h),
                Err("no etcd member on this host".into()),
            );
            return;
        };
        self.etcd.clusters += 1;
        let new_cluster = self.etcd.clusters;
        let old_cluster = m.cluster;
        let keep = m.raft.commit_index();
        // A member that had stopped as removed starts again (its tick loop had ended).
        let was_stopped = m.removed;
        let discarded = m.force_new_cluster(new_cluster);
        if was_stopped {
            self.hosts[h as usize].process_generation[Port::ETCD.index()] += 1;
            self.start_etcd_ticks(h);
        }
        self.etcd.current = new_cluster;
        self.obs.etcd_forked(old_cluster, new_cluster, keep);
        self.obs.operation(self.now, action, Some(h), Ok(()));
        if discarded > 0 {
            let name = self.hosts.name(h).to_string();
            let mut e = Event::new(
                self.obs.secs(self.now),
                EventKind::EtcdEntriesDiscarded,
                format!(
                    "{name} discarded {discarded} log entries it had not seen committed: --force-new-cluster keeps only its committed data"
                ),
            );
            e.host = Some(name);
            e.count = Some(discarded);
            self.obs.push(self.now, e);
        }
        self.update_quorum();
    }
}
