//! The scenario's events applied at their times: faults (crash, restart, reboot, partitions,
//! spot interruptions) and operator actions (join, etcd membership, pod deletion, scaling,
//! component restarts). Operator actions on the API go through the operator process, as
//! `kubectl` would; those on etcd go through `etcdctl` to the leader ([`super::membership`]).

use super::membership::AfterStop;
use super::{Ev, K8sCtx, World};
use crate::etcd::raft::ConfChange;
use crate::k8s::objects::{Effect, TaintSpec};
use crate::k8s::operator::{NodeEdit, Operator};
use crate::k8s::Observe as _;
use crate::kernel::net::HostId;
use crate::record::{Event, EventKind};
use crate::scenario::label::parse_label;
use crate::scenario::taint::{TaintEffect, TaintText};
use crate::scenario::{Action, Role};

impl World {
    /// A scenario event comes: a fault of a host, of the network, an etcd membership change,
    /// or an operator's action through the API.
    pub(super) fn apply_scenario_event(&mut self, i: usize) {
        let action = self.scenario.events[i].action.clone();
        match action {
            Action::Partition { .. }
            | Action::Isolate { .. }
            | Action::PartitionOneway { .. }
            | Action::Heal => self.apply_network_fault(action),
            Action::DeletePod { pod, force } => {
                self.with_operator(|o, ctx| o.delete_pod(ctx, &pod, force))
            }
            Action::Scale { workload, replicas } => {
                self.with_operator(|o, ctx| o.scale(ctx, &workload, replicas))
            }
            action => {
                if let Some(h) = self.hosts.id(action.host().unwrap_or_default()) {
                    self.apply_host_action(h, action);
                }
            }
        }
        self.update_quorum();
    }

    fn apply_network_fault(&mut self, action: Action) {
        match action {
            Action::Partition { groups } => {
                let mut ids: Vec<Vec<HostId>> = (groups.iter())
                    .map(|g| self.hosts.resolve(&self.scenario, g))
                    .collect();
                // The hidden probe host sees everybody.
                ids.iter_mut()
                    .for_each(|g| g.retain(|&h| h != self.hosts.probe));
                self.net.partition(&ids);
                let desc: Vec<String> = (groups.iter())
                    .map(|g| format!("[{}]", g.join(", ")))
                    .collect();
                let text = format!("the network splits into {}", desc.join(" | "));
                self.push_event(EventKind::NetPartition, None, text);
            }
            Action::Isolate { host } => {
                if let Some(h) = self.hosts.id(&host) {
                    self.net.isolate(h);
                    let text = format!("{host} is cut off from every other host");
                    self.push_event(EventKind::NetIsolate, Some(h), text);
                }
            }
            Action::PartitionOneway { from, to } => {
                let f = self.hosts.resolve(&self.scenario, &from);
                let d = self.hosts.resolve(&self.scenario, &to);
                self.net.partition_oneway(&f, &d);
                let (from, to) = (from.join(", "), to.join(", "));
                self.push_event(
                    EventKind::NetPartitionOneway,
                    None,
                    format!("messages from {from} to {to} are dropped; the other direction works"),
                );
            }
            Action::Heal => {
                self.net.heal();
                let text = "every partition and isolation ends".to_string();
                self.push_event(EventKind::NetHeal, None, text);
            }
            _ => unreachable!("not a network fault"),
        }
    }

    /// An action on one host `h` (the scenario's checks made sure the host exists).
    fn apply_host_action(&mut self, h: HostId, action: Action) {
        let action_name = action.name();
        match action {
            Action::Crash { .. } => self.crash_host(h, "the scenario crashed it"),
            Action::Restart { .. } => self.boot_host(h),
            // A clean shutdown: an etcd leader hands over before the host goes down.
            Action::Reboot { downtime, .. } => {
                self.stop_etcd_cleanly(h, AfterStop::Reboot { downtime })
            }
            Action::SpotInterrupt { .. } => self.spot_notice(h, None),
            Action::Join { .. } => self.kubeadm_join(h),
            Action::EtcdMemberAdd { learner, .. } => {
                let id = self.etcd.next_member_id(h);
                let change = match learner {
                    true => ConfChange::AddLearner(id),
                    false => ConfChange::AddVoter(id),
                };
                self.start_member_change("etcd_member_add", h, change);
            }
            Action::EtcdMemberPromote { .. } => {
                let change = ConfChange::PromoteLearner(self.etcd.member_id_of(h));
                self.start_member_change("etcd_member_promote", h, change);
            }
            Action::EtcdMemberRemove { .. } => {
                let change = ConfChange::Remove(self.etcd.member_id_of(h));
                self.start_member_change("etcd_member_remove", h, change);
            }
            Action::EtcdForceNewCluster { .. } => self.force_new_cluster(h),
            Action::RestartComponent { component, .. } => self.restart_component(h, component),
            Action::Drain { host } => self.with_operator(|o, ctx| o.drain(ctx, &host, h, true)),
            Action::Cordon { host } | Action::Uncordon { host } => {
                let change = match action_name {
                    "cordon" => NodeEdit::Cordon,
                    _ => NodeEdit::Uncordon,
                };
                self.with_operator(|o, ctx| o.edit_node(ctx, &host, h, change));
            }
            Action::Taint { host, taint } | Action::Untaint { host, taint } => {
                // Checked when the scenario was read.
                let Ok(text) = TaintText::parse(&taint) else {
                    return;
                };
                let spec = taint_spec(&text);
                let change = match action_name {
                    "taint" => NodeEdit::Taint(spec),
                    _ => NodeEdit::Untaint(spec),
                };
                self.with_operator(|o, ctx| o.edit_node(ctx, &host, h, change));
            }
            Action::Label { host, label } | Action::Unlabel { host, label } => {
                let set = action_name == "label";
                // Checked when the scenario was read.
                let Ok((key, value)) = parse_label(&label, set) else {
                    return;
                };
                let change = match set {
                    true => NodeEdit::Label { key, value },
                    false => NodeEdit::Unlabel { key },
                };
                self.with_operator(|o, ctx| o.edit_node(ctx, &host, h, change));
            }
            _ => unreachable!("not an action on one host"),
        }
    }

    /// Runs an operator action through the API (the operator exists when an apiserver does).
    pub(super) fn with_operator(&mut self, f: impl FnOnce(&mut Operator, &mut K8sCtx)) {
        let Some(o) = self.procs.operator.as_mut() else {
            return;
        };
        let mut ctx: K8sCtx = ctx!(self, self.hosts.probe);
        f(o, &mut ctx);
        self.apply_effects(self.hosts.probe);
    }

    /// `kubeadm join` of host `h` (one attempt): discovery through the API endpoint from the
    /// host (a cluster of etcd alone has none: its join only adds the member), then the etcd
    /// member as a learner (promoted once caught up), or the Node and its components.
    pub(super) fn kubeadm_join(&mut self, h: HostId) {
        if self.api_endpoint().is_some() && !self.api_serves_from(h) {
            let reason = "couldn't validate the identity of the API server: the API \
                          endpoint does not answer from this host (kubeadm join)";
            self.obs
                .operation(self.now, "join", Some(h), Err(reason.to_string()));
        } else if self.scenario.hosts[h as usize].has_role(Role::Etcd) {
            if let Some(down) = self.etcd_unhealthy_for_join(h) {
                self.join_refused_unhealthy(h, down);
                return;
            }
            self.add_joining_learner(h, 1);
        } else {
            self.hosts[h as usize].joined = true;
            self.obs.operation(self.now, "join", Some(h), Ok(()));
            self.start_k8s_processes(h);
        }
    }

    /// A spot interruption notice (from the scenario's event, or from the fault process
    /// `process`): the node is drained if it can be, and the host terminated after the `spot_notice` setting.
    pub(super) fn spot_notice(&mut self, h: HostId, process: Option<&str>) {
        // The node termination handler runs on the node: it drains only if the API answers there.
        let node = self.scenario.hosts[h as usize].is_node();
        let drains = node && self.api_serves_from(h);
        let what = match (node, drains) {
            (false, _) => "it will be terminated in 2 minutes",
            (true, true) => "it is cordoned and drained, and will be terminated in 2 minutes",
            (true, false) => "the API does not answer there, so it cannot be drained; it will be terminated in 2 minutes",
        };
        let host = self.obs.name(h).to_string();
        let from = process.map(|p| format!(" ({p})")).unwrap_or_default();
        self.push_event(
            EventKind::HostSpotNotice,
            Some(h),
            format!("{host} got a spot interruption notice{from}: {what}"),
        );
        let notice = self.scenario.settings.spot_notice;
        self.hosts[h as usize].terminate_at = Some(self.now + notice);
        self.queue.push(self.now + notice, Ev::Terminate(h));
        if drains {
            self.with_operator(|o, ctx| o.drain(ctx, &host, h, false));
        }
    }

    /// The end of a spot notice: the instance is reclaimed.
    pub(super) fn terminate(&mut self, h: HostId) {
        self.crash_host(
            h,
            "its spot instance was reclaimed after the 2-minute notice",
        );
        self.hosts[h as usize].terminated = true;
        let node = self.obs.name(h).to_string();
        if let Some(o) = self.procs.operator.as_mut() {
            o.forget_drain(&node);
        }
        for kcm in self.procs.on.iter_mut().filter_map(|p| p.kcm.as_mut()) {
            let (spec, work) = kcm.spec_and_work();
            if let Some(gone) = spec.cloud.as_mut() {
                gone.insert(node.clone());
            }
            if let Some(w) = work {
                w.instance_gone(&node);
            }
        }
    }

    pub(super) fn push_event(&mut self, kind: EventKind, host: Option<HostId>, text: String) {
        let mut e = Event::new(self.obs.secs(self.now), kind, text);
        e.host = host.map(|h| self.obs.name(h).to_string());
        self.obs.push(self.now, e);
    }
}

/// The Node change a taint as written asks for (the `taint` and `untaint` events, `kubectl taint`).
pub fn taint_spec(text: &TaintText) -> TaintSpec {
    TaintSpec {
        key: text.key.clone(),
        value: text.value.clone(),
        effect: text.effect.map(|e| match e {
            TaintEffect::NoSchedule => Effect::NoSchedule,
            TaintEffect::NoExecute => Effect::NoExecute,
        }),
    }
}
