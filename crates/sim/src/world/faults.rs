//! Random fault processes (the scenario's `faults`): each is drawn, when the run starts, into
//! the moments its hosts fail and come back, its zones are cut off and return, or its spot hosts
//! are interrupted, up to the scenario's end; the world applies them at those moments as it
//! applies the scenario's events (the same crash, partition and spot notice).
//!
//! Every target (host or zone) of every process draws from its own stream, so a longer run or
//! another process never shifts its draws (runs stay prefix-stable), and the waiting times are
//! exponential: failures are memoryless, as MTBF/MTTR figures assume.
//!
//! A replacement of a reclaimed spot host takes its place: the same name and roles, a fresh
//! machine (no disk of the old one) that runs `kubeadm join` (one attempt). A replacement with
//! `etcd` first removes the reclaimed machine's member, which is still listed and would fail
//! kubeadm's etcd health check, then joins a new member (a learner, promoted once caught up):
//! both steps need a quorum, so two reclaims close together in a 3-member cluster leave it
//! without one for good; unless the process removes the member on the notice
//! (`remove_on_notice`), while the doomed machine still answers and the quorum still holds. A
//! fault
//! that meets a host in another state (a repair of a host the scenario crashed, a failure of a
//! terminated host) does nothing: the process only repairs what it broke.

use super::World;
use crate::k8s::operator::NodeEdit;
use crate::kernel::net::HostId;
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use crate::record::EventKind;
use crate::scenario::{FaultKind, Scenario};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum FaultAction {
    Fail(HostId),
    Repair(HostId),
    ZoneOut(u32),
    ZoneBack(u32),
    SpotNotice(HostId),
    /// A fresh machine takes the terminated host's place and joins.
    Replace(HostId),
}

/// One drawn fault: when (after t = 0), what, and which process (`faults[process]`) drew it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Draw {
    pub at: Duration,
    pub action: FaultAction,
    pub process: u32,
}

/// The processes' draws and what they have done so far (kept with the hosts): who is down
/// because of them, which zones are out.
#[derive(Clone, Default)]
pub(super) struct FaultState {
    /// Every draw of the run, in time order (shared by clones of the world).
    draws: Rc<[Draw]>,
    /// The next draw to apply.
    next: usize,
    /// How much earlier than drawn the remaining draws apply: the stretches a study skipped.
    shift: Duration,
    /// Zone names, indexed by `ZoneOut`/`ZoneBack`.
    zones: Vec<String>,
    /// Hosts a fault process took down (its repair brings back only these).
    downed: Vec<HostId>,
    /// Zones cut off now.
    out: Vec<u32>,
}

/// Draws every fault of `s`'s processes up to its `duration`, in time order (ties: process
/// order, then target order).
pub(super) fn draw(s: &Scenario) -> FaultState {
    let root = Rng::new(s.seed).fork("faults");
    let end = s.duration.as_secs_f64();
    let mut draws = Vec::new();
    let mut state = FaultState::default();
    // Alternating up/down spells from t = 0 (everything starts up): (start of each down spell, its end).
    let spells = |rng: &mut Rng, up: Duration, down: Duration| {
        let mut out = Vec::new();
        let mut t = 0.0;
        loop {
            t += rng.exponential(up.as_secs_f64());
            if t >= end {
                return out;
            }
            let back = t + rng.exponential(down.as_secs_f64());
            out.push((t, back));
            t = back;
        }
    };
    let ms = |t: f64| Duration::from_millis((t * 1000.0) as u64);
    for (i, f) in s.faults.iter().enumerate() {
        let process = i as u32;
        let mut push = |t: f64, action| {
            if t < end {
                draws.push(Draw {
                    at: ms(t),
                    action,
                    process,
                })
            }
        };
        match f.kind {
            FaultKind::HostFailures { mtbf, mttr } => {
                for h in s.selected_hosts(&f.targets) {
                    let mut rng = root.fork(&format!("{i}/{}", s.hosts[h].name));
                    for (t0, t1) in spells(&mut rng, mtbf, mttr) {
                        push(t0, FaultAction::Fail(h as HostId));
                        push(t1, FaultAction::Repair(h as HostId));
                    }
                }
            }
            FaultKind::ZoneOutages { mtbf, mttr } => {
                for z in s.selected_zones(&f.targets) {
                    let zi = match state.zones.iter().position(|n| n == z) {
                        Some(k) => k,
                        None => {
                            state.zones.push(z.to_string());
                            state.zones.len() - 1
                        }
                    } as u32;
                    let mut rng = root.fork(&format!("{i}/{z}"));
                    for (t0, t1) in spells(&mut rng, mtbf, mttr) {
                        push(t0, FaultAction::ZoneOut(zi));
                        push(t1, FaultAction::ZoneBack(zi));
                    }
                }
            }
            // A terminated spot host never returns; a replacement joins in its place, and is
            // interrupted in its turn.
            FaultKind::SpotInterruptions {
                every,
                replace_after,
                ..
            } => {
                for h in s.selected_hosts(&f.targets) {
                    let h_id = h as HostId;
                    let mut rng = root.fork(&format!("{i}/{}", s.hosts[h].name));
                    let mut t = 0.0;
                    loop {
                        t += rng.exponential(every.as_secs_f64());
                        if t >= end {
                            break;
                        }
                        push(t, FaultAction::SpotNotice(h_id));
                        let Some(after) = replace_after else { break };
                        t += (s.settings.spot_notice + after).as_secs_f64();
                        push(t, FaultAction::Replace(h_id));
                    }
                }
            }
        }
    }
    crate::kernel::sort::sort_by_key(&mut draws, |d| d.at);
    state.draws = draws.into();
    state
}

impl World {
    /// When the next draw applies (absolute simulated time), if one remains.
    pub fn next_fault_at(&self) -> Option<SimTime> {
        let f = &self.hosts.faults;
        let d = f.draws.get(f.next)?;
        let after_origin = Duration(d.at.as_micros().saturating_sub(f.shift.as_micros()));
        Some((self.obs.origin + after_origin).max(self.now))
    }

    /// When the next change comes that the world itself makes: a fault draw, or a change it
    /// scheduled for a host (a spot notice's termination, a reboot's boot).
    pub fn next_change_at(&self) -> Option<SimTime> {
        let scheduled = (self.hosts.iter()).flat_map(|rt| [rt.boot_at, rt.terminate_at]);
        scheduled.chain([self.next_fault_at()]).flatten().min()
    }

    /// A study's shortcut through a settled stretch: every remaining draw and every scheduled
    /// change of a host comes `d` earlier, as if the world had stayed as it is for `d` longer.
    /// The caller accounts for that time, and skips no further than the next of them.
    pub fn skip(&mut self, d: Duration) {
        self.hosts.faults.shift = self.hosts.faults.shift + d;
        self.queue_next_fault();
        self.skip_processes(d);
        let now = self.now;
        for h in 0..self.hosts.len() {
            let rt = &mut self.hosts[h];
            let id = h as HostId;
            let scheduled = [
                (&mut rt.boot_at, super::Ev::Boot(id)),
                (&mut rt.terminate_at, super::Ev::Terminate(id)),
            ];
            for (at, ev) in scheduled {
                if let Some(t) = at.as_mut() {
                    *t = (*t - d).max(now);
                    self.queue.push(*t, ev);
                }
            }
        }
    }

    /// Queues the next draw (a draw queued before a skip is then stale and ignored).
    pub(super) fn queue_next_fault(&mut self) {
        if let Some(at) = self.next_fault_at() {
            let next = self.hosts.faults.next as u32;
            self.queue.push(at, super::Ev::Fault(next));
        }
    }

    pub(super) fn fault_due(&mut self, i: u32) {
        let f = &mut self.hosts.faults;
        if i as usize != f.next {
            return;
        }
        let d = f.draws[f.next];
        f.next += 1;
        self.apply_fault(d);
        self.queue_next_fault();
    }

    /// A replacement that has joined: a new machine's Node is schedulable, but the reclaimed
    /// one's was cordoned by its drain, and the replacement keeps the name.
    pub(super) fn replacement_joined(&mut self, h: HostId) {
        let rt = &mut self.hosts[h as usize];
        if !(rt.replacing && rt.joined) {
            return;
        }
        rt.replacing = false;
        if self.scenario.hosts[h as usize].is_node() {
            let name = rt.name.clone();
            self.with_operator(|o, ctx| o.edit_node(ctx, &name, h, NodeEdit::Uncordon));
        }
    }

    fn apply_fault(&mut self, d: Draw) {
        // Counted from one, as a reader counts the scenario's processes (`faults[0]` is the first).
        let why = format!("random faults, process {}", d.process + 1);
        match d.action {
            FaultAction::Fail(h) => {
                if self.host_is_up(h) {
                    self.hosts.faults.downed.push(h);
                    self.crash_host(h, &format!("a random failure struck it ({why})"));
                }
            }
            FaultAction::Repair(h) => {
                if let Some(k) = self.hosts.faults.downed.iter().position(|&x| x == h) {
                    self.hosts.faults.downed.swap_remove(k);
                    self.boot_host(h);
                }
            }
            FaultAction::SpotNotice(h) => {
                if self.host_is_up(h) {
                    self.spot_notice(h, Some(&why));
                    let remove = matches!(
                        self.scenario.faults[d.process as usize].kind,
                        FaultKind::SpotInterruptions {
                            remove_on_notice: true,
                            ..
                        }
                    );
                    if remove {
                        self.remove_member_on_notice(h);
                    }
                }
            }
            FaultAction::Replace(h) => {
                let rt = &mut self.hosts[h as usize];
                if rt.terminated {
                    rt.terminated = false;
                    rt.joined = false;
                    rt.replacing = true;
                    let name = rt.name.clone();
                    let text = format!(
                        "a replacement for the reclaimed {name} boots ({why}): a fresh machine with the same name and roles, which runs kubeadm join"
                    );
                    self.push_event(EventKind::HostStarted, Some(h), text);
                    // A fresh machine: the reclaimed one's disk, and its etcd data, are gone.
                    self.etcd.lose_disk(h);
                    self.boot_host(h);
                    if self.scenario.hosts[h as usize].has_role(crate::scenario::Role::Etcd) {
                        self.replace_etcd_member(h);
                    } else {
                        self.kubeadm_join(h);
                        self.replacement_joined(h);
                    }
                }
            }
            FaultAction::ZoneOut(z) | FaultAction::ZoneBack(z) => {
                let out = &mut self.hosts.faults.out;
                out.retain(|&x| x != z);
                if matches!(d.action, FaultAction::ZoneOut(_)) {
                    out.push(z);
                }
                let zone = self.hosts.faults.zones[z as usize].clone();
                if self.hosts.faults.out.is_empty() {
                    self.net.heal();
                    let text = format!("zone {zone} is reachable again ({why}): the network heals");
                    self.push_event(EventKind::NetHeal, None, text);
                    return;
                }
                // Each zone out is an island of its own; the others stay together.
                let f = &self.hosts.faults;
                let groups: Vec<Vec<HostId>> = (f.out.iter())
                    .map(|&z| {
                        let zone = std::slice::from_ref(&f.zones[z as usize]);
                        self.hosts.resolve(&self.scenario, zone)
                    })
                    .collect();
                self.net.partition(&groups);
                let names: Vec<&str> = self
                    .hosts
                    .faults
                    .out
                    .iter()
                    .map(|&z| self.hosts.faults.zones[z as usize].as_str())
                    .collect();
                let verb = if matches!(d.action, FaultAction::ZoneOut(_)) {
                    format!("zone {zone} is cut off from the others")
                } else {
                    format!("zone {zone} is reachable again")
                };
                let text = format!("{verb} ({why}); cut off now: {}", names.join(", "));
                self.push_event(EventKind::NetPartition, None, text);
            }
        }
    }
}
