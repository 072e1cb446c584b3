//! The kubelet: registers its Node, renews its node Lease (the heartbeat the node lifecycle
//! controller watches, [`crate::k8s::node_lease`]), and runs the pods bound to its node.
//!
//! Its containers are the truth of what runs: they keep running while the API is
//! unreachable, because the kubelet only acts on deletions it has seen. When it
//! reconnects, its informer lists afresh: pods deleted meanwhile are killed, pods being
//! deleted are killed and then confirmed (the final delete that frees a StatefulSet
//! ordinal). After a reboot it starts only what it can fetch from the API, so without
//! the API it runs nothing.
//!
//! A pod being deleted gets SIGTERM: its container serves on for as long as its app takes to
//! stop (the workload's `stop_takes`, at most its `termination_grace_period`; the simulated
//! echo server stops at once), then the kubelet confirms the deletion.
//!
//! On a control-plane host it keeps a mirror pod in the API for each static pod kubeadm wrote
//! there (`etcd-NODE`, `kube-apiserver-NODE`, …, owned by its Node): created once the API takes
//! it, again after someone deleted it, and reported Running and Ready.
//!
//! Left out: the static pods' containers (the control-plane components are processes of their
//! own here, so a mirror pod's status does not follow its component's restarts), images, probes
//! of application pods, resource accounting, preStop hooks.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::events::{Event, Pending, Reason};
use crate::k8s::informer::Informer;
use crate::k8s::node_lease::{Heartbeat, NodeLease, NodeLeaseTimings};
use crate::k8s::objects::{
    lease_key, node_key, pod_key, Condition, Effect, Kind, Node, Object, Pod, Taint, TaintKey, PODS,
};
use crate::k8s::observe::PodChange;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::store::seek;
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Payload};
use crate::k8s::wire::{Key, KeyValue};
use crate::kernel::members::MemberSet;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Alarm, Port, Sub};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use std::rc::Rc;
use std::sync::Arc;

/// How long a container takes to start (image already on the node).
pub const CONTAINER_START: Duration = Duration::from_secs(1);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// `nodeStatusUpdateFrequency`: the status loop reads its Node this often. Pod changes are
/// handled as they arrive; this loop is also the pod worker's periodic resync.
const STATUS_PERIOD: Duration = Duration::from_secs(10);
/// The pod informer's sub-address; the kubelet's own client is at the default one, its
/// heartbeat client at [`crate::k8s::node_lease::HEARTBEAT`]. A status answer goes to the
/// client without a look at the informer.
const POD_INFORMER: Sub = Sub(1);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Req {
    RegisterNode,
    GetNode,
    UpdateNode,
    PodStatus(String),
    PodDelete(String),
    MirrorPod(String),
}

/// A running container of a pod.
#[derive(Clone, Debug, PartialEq)]
pub struct Container {
    pub workload: String,
    pub kind: Option<Kind>,
    /// When the kubelet started it.
    pub started: SimTime,
}

/// The fields every timer and answer looks at come first, and in this order (`repr(C)`):
/// at a thousand nodes a kubelet's state is cold each time it is woken, and each cache line
/// it spans is one more miss.
#[derive(Clone)]
#[repr(C)]
pub struct Kubelet {
    host: HostId,
    node_busy: bool,
    /// The pod store or the containers changed since the last sync.
    dirty: bool,
    control_plane: bool,
    last_status: SimTime,
    /// When the pod informer next needs a look (a relist is due, or its watch may have gone silent).
    informer_check: Alarm,
    /// Bumped whenever `containers` changes, so observers can keep what they derived from it.
    pub containers_version: u64,
    client: ApiClient<Req>,
    pods: Informer,
    lease: NodeLease,
    /// Its Node's key, built once: read every few seconds.
    node_key: Key,
    pub node: String,
    zone: String,
    /// Shared with the copies of the world the page keeps as checkpoints until it changes.
    pub containers: Rc<crate::kernel::members::MemberMap<String, Container>>,
    starting: crate::kernel::members::MemberMap<String, SimTime>,
    /// Containers told to stop (SIGTERM), and when they will have stopped.
    stopping: crate::kernel::members::MemberMap<String, SimTime>,
    /// How long each workload's app takes to stop (only those that take any time).
    stop_takes: Vec<(String, Duration)>,
    /// The static pods kubeadm wrote on this host, by their mirror pods' names.
    static_pods: Vec<(String, &'static str)>,
    /// Mirror pods created and not yet seen through the informer, and when they were sent.
    mirrored: crate::kernel::members::MemberMap<String, SimTime>,
    /// Pods with a status update or delete in flight (one at a time per pod).
    busy: MemberSet<String>,
    /// Its Events not yet written: they go with its next successful write.
    events: Pending,
}

impl Kubelet {
    pub fn new(
        host: HostId,
        node: String,
        zone: String,
        control_plane: bool,
        api: Addr,
        lease: NodeLeaseTimings,
        rng: Rng,
    ) -> Self {
        let me = Addr {
            host,
            port: Port::KUBELET,
        };
        Kubelet {
            host,
            zone,
            control_plane,
            client: ApiClient::new(me, api),
            pods: Informer::new(PODS, Some(node.clone()), me, api, POD_INFORMER),
            node_key: node_key(&node).into(),
            lease: NodeLease::new(
                me,
                api,
                lease_key("kube-node-lease", &node).into(),
                node.clone(),
                lease,
                rng,
            ),
            node,
            containers: Default::default(),
            containers_version: 0,
            starting: Default::default(),
            stopping: Default::default(),
            stop_takes: Vec::new(),
            static_pods: Vec::new(),
            mirrored: Default::default(),
            busy: MemberSet::new(),
            events: Pending::default(),
            node_busy: false,
            last_status: SimTime::ZERO,
            dirty: true,
            informer_check: Alarm::default(),
        }
    }

    /// Starts the kubelet: it registers its Node, and its first lease sync comes after
    /// `first_lease_sync` (see [`NodeLease::start`]).
    pub fn start(&mut self, ctx: &mut Ctx, first_lease_sync: Duration) {
        self.register(ctx);
        self.last_status = ctx.now;
        self.lease.start(ctx, first_lease_sync);
        ctx.set_timer(Port::KUBELET, Duration::ZERO, Timer::Housekeeping);
    }

    fn register(&mut self, ctx: &mut Ctx) {
        let taints = if self.control_plane {
            vec![Taint {
                key: TaintKey::ControlPlane,
                value: String::new(),
                effect: Effect::NoSchedule,
                time_added: ctx.now,
            }]
        } else {
            Vec::new()
        };
        let node = Node {
            name: self.node.clone(),
            zone: self.zone.clone(),
            control_plane: self.control_plane,
            ready: Condition::True,
            ready_since: ctx.now,
            taints,
            labels: Default::default(),
            created: ctx.now,
        };
        let req = ApiRequest::Create {
            key: self.node_key.clone(),
            value: Arc::new(Object::Node(node)),
        };
        self.node_busy = true;
        self.client
            .send(ctx, req, Req::RegisterNode, REQUEST_TIMEOUT);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: Timer) {
        match timer {
            Timer::NodeLease => self.lease.on_timer(ctx),
            Timer::Housekeeping => {
                if ctx.now - self.last_status >= STATUS_PERIOD && !self.node_busy {
                    self.last_status = ctx.now;
                    self.node_busy = true;
                    // The status loop reads its Node with resourceVersion=0: from the watch cache.
                    let req = ApiRequest::GetCached {
                        key: self.node_key.clone(),
                    };
                    self.client.send(ctx, req, Req::GetNode, REQUEST_TIMEOUT);
                }
                if self.dirty || !self.busy.is_empty() {
                    self.sync_pods(ctx);
                }
                ctx.set_timer(Port::KUBELET, STATUS_PERIOD, Timer::Housekeeping);
            }
            Timer::Wake => {
                self.informer_check.rang(ctx.now);
                self.pods.tick(ctx);
                if self.dirty || !self.starting.is_empty() || !self.stopping.is_empty() {
                    self.sync_pods(ctx);
                }
            }
            Timer::ApiTimeout { sub } if sub == POD_INFORMER => self.pods.on_timeout(ctx, sub),
            Timer::ApiTimeout { sub } if self.lease.owns(sub) => {
                let heard = self.lease.on_timeout(ctx);
                self.heartbeat(ctx, heard);
            }
            Timer::ApiTimeout { .. } => {
                for req in self.client.expired(ctx) {
                    self.request_done(&req);
                }
            }
            _ => {}
        }
        self.schedule_informer_check(ctx);
    }

    fn schedule_informer_check(&mut self, ctx: &mut Ctx) {
        if let Some(at) = self.pods.next_check() {
            self.informer_check
                .request(ctx, Port::KUBELET, at, Timer::Wake);
        }
    }

    fn request_done(&mut self, req: &Req) {
        match req {
            Req::RegisterNode | Req::GetNode | Req::UpdateNode => self.node_busy = false,
            Req::PodStatus(p) | Req::PodDelete(p) | Req::MirrorPod(p) => {
                // The status (or the deletion) is still owed if the request failed: the status
                // manager tries again at its next sync (every 10 s), at once after an answer.
                self.busy.remove(p);
                self.dirty = true;
            }
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        let Payload::Api(msg) = payload else { return };
        if msg.id().sub() == POD_INFORMER {
            if self.pods.on_api(ctx, &msg) {
                self.dirty = true;
                self.sync_pods(ctx);
            }
            self.schedule_informer_check(ctx);
            return;
        }
        if self.lease.owns(msg.id().sub()) {
            let heard = self.lease.on_answer(ctx, &msg);
            self.heartbeat(ctx, heard);
            return;
        }
        let ApiPayload::Response { id, resp, .. } = msg else {
            return;
        };
        let Some(req) = self.client.answered(id, ctx.now) else {
            return;
        };
        if let ApiResponse::Written { .. } = resp {
            self.events_go_with_a_write(ctx);
        }
        self.request_done(&req);
        if matches!(
            req,
            Req::PodStatus(_) | Req::PodDelete(_) | Req::MirrorPod(_)
        ) {
            // The pod worker goes on with the pod at once (a status may still be owed).
            self.dirty = true;
            self.sync_pods(ctx);
        }
        match (req, resp) {
            (Req::GetNode, ApiResponse::Object(Some(kv))) => self.check_node(ctx, &kv),
            (Req::GetNode, ApiResponse::Object(None)) => self.register(ctx),
            _ => {}
        }
    }

    /// What its lease controller said: a renewal is a write that goes through (its pending
    /// Events go with it); repeated failures close its connections (`closeAllConns`): the
    /// requests in flight on them fail, and the pod informer starts over with a fresh list
    /// (its watch was one of them), dialling the API again.
    fn heartbeat(&mut self, ctx: &mut Ctx, heard: Option<Heartbeat>) {
        match heard {
            Some(Heartbeat::Renewed) => self.events_go_with_a_write(ctx),
            Some(Heartbeat::Failing) => {
                for req in self.client.close() {
                    self.request_done(&req);
                }
                self.pods.reconnect(ctx);
                self.schedule_informer_check(ctx);
            }
            None => {}
        }
    }

    /// A write of the kubelet's went through: its pending Events reach the API with it.
    fn events_go_with_a_write(&mut self, ctx: &mut Ctx) {
        for event in self.events.deliverable(ctx.now) {
            ctx.obs.api_event(ctx.now, event);
        }
    }

    /// The kubelet reports its node Ready again once it can (the controller set it Unknown).
    fn check_node(&mut self, ctx: &mut Ctx, kv: &KeyValue) {
        let Some(node) = kv.value.as_node() else {
            return;
        };
        if node.ready != Condition::True {
            let mut node = node.clone();
            node.ready = Condition::True;
            node.ready_since = ctx.now;
            self.node_busy = true;
            let req = ApiRequest::Update {
                key: self.node_key.clone(),
                value: Arc::new(Object::Node(node)),
                resource_version: kv.mod_revision,
            };
            self.client.send(ctx, req, Req::UpdateNode, REQUEST_TIMEOUT);
        }
    }

    /// Brings the containers in line with the pods the API binds to this node, as far as
    /// the kubelet knows them.
    /// With the time each workload's app takes to stop after SIGTERM (those not listed: none).
    pub fn with_stop_times(mut self, stop_takes: Vec<(String, Duration)>) -> Self {
        self.stop_takes = stop_takes;
        self
    }

    /// With the static pods kubeadm wrote on its host (`STATIC_PODS` names).
    pub fn with_static_pods(mut self, components: Vec<&'static str>) -> Self {
        let node = &self.node;
        self.static_pods = (components.into_iter())
            .map(|c| (format!("{c}-{node}"), c))
            .collect();
        self
    }

    fn stop_time(&self, workload: &str) -> Duration {
        (self.stop_takes.iter())
            .find(|(w, _)| w == workload)
            .map_or(Duration::ZERO, |&(_, d)| d)
    }

    fn sync_pods(&mut self, ctx: &mut Ctx) {
        if !self.pods.synced {
            return;
        }
        self.dirty = !self.starting.is_empty() || !self.stopping.is_empty();
        let now = ctx.now;
        // Containers whose start time has come are running now.
        let ready: Vec<String> = self
            .starting
            .iter()
            .filter(|(_, &t)| t <= now)
            .map(|(p, _)| p.clone())
            .collect();
        for name in ready {
            self.starting.remove(&name);
            let Some(pod) = self
                .pods
                .items()
                .get(&pod_key(&name))
                .and_then(|kv| kv.value.as_pod())
                .cloned()
            else {
                continue;
            };
            if pod.deletion.is_some() {
                continue;
            }
            ctx.obs.pod_event(
                now,
                PodChange::Started,
                &pod.name,
                &self.node,
                &pod.workload,
                format!("{} started on {}", pod.name, self.node),
            );
            let message = format!("Started container {}", pod.workload);
            let event = Event::on_pod(Reason::Started, &pod.name, &pod.workload, message, now);
            self.events.record(event);
            self.containers_version += 1;
            Rc::make_mut(&mut self.containers).insert(
                pod.name.clone(),
                Container {
                    workload: pod.workload.clone(),
                    kind: pod.kind,
                    started: now,
                },
            );
        }
        // Kill what the API no longer wants here. The store changes only through a list or a
        // watch, so a pod missing from it is a deletion the kubelet has seen. The store's pods and
        // the containers are both in name order: one pass over the two, no copies (this runs on
        // every change of the node's pods).
        let mut gone = Vec::new();
        let mut wanted = self
            .pods
            .items()
            .values()
            .filter_map(|kv| kv.value.as_pod())
            .peekable();
        for name in self.containers.keys() {
            match seek(&mut wanted, name, |p| &p.name) {
                None => gone.push((name.clone(), "it was deleted from the API")),
                Some(p) if p.deletion.is_some() => gone.push((name.clone(), "it is being deleted")),
                Some(_) => {}
            }
        }
        drop(wanted);
        for (name, why) in gone {
            // SIGTERM first: an app that takes time to stop serves on until it has.
            let workload = &self.containers.get(&name).expect("listed").workload;
            let stop = self.stop_time(workload);
            if stop > Duration::ZERO {
                match self.stopping.get(&name) {
                    None => {
                        self.stopping.insert(name.clone(), now + stop);
                        let message = format!("Stopping container {workload}");
                        let event = Event::on_pod(Reason::Killing, &name, workload, message, now);
                        self.events.record(event);
                        ctx.set_timer(Port::KUBELET, stop, Timer::Wake);
                        continue;
                    }
                    Some(&at) if at > now => continue,
                    Some(_) => {}
                }
            }
            let graceful = self.stopping.remove(&name).is_some();
            let c = Rc::make_mut(&mut self.containers)
                .remove(&name)
                .expect("listed");
            self.containers_version += 1;
            ctx.obs.pod_event(
                now,
                PodChange::Killed,
                &name,
                &self.node,
                &c.workload,
                format!("the kubelet on {} stopped {name}: {why}", self.node),
            );
            if !graceful {
                let message = format!("Stopping container {}", c.workload);
                let event = Event::on_pod(Reason::Killing, &name, &c.workload, message, now);
                self.events.record(event);
            }
        }
        for kv in self.pods.items().values() {
            let Some(pod) = kv.value.as_pod() else {
                continue;
            };
            let (name, rv) = (&pod.name, kv.mod_revision);
            if self.busy.contains(name) {
                continue;
            }
            if pod.deletion.is_some() {
                if !self.containers.contains_key(name) {
                    // Confirm the deletion: the object goes away for good.
                    self.busy.insert(name.clone());
                    self.starting.remove(name);
                    let req = ApiRequest::Delete {
                        key: pod_key(name).into(),
                        resource_version: rv,
                    };
                    self.client
                        .send(ctx, req, Req::PodDelete(name.clone()), REQUEST_TIMEOUT);
                }
                continue;
            }
            // A mirror pod's containers are the static pod's, running whether or not the API is.
            if self.containers.contains_key(name) || pod.kind.is_none() {
                if !pod.running || !pod.ready {
                    let mut p = pod.clone();
                    p.running = true;
                    p.ready = true;
                    self.busy.insert(name.clone());
                    let req = ApiRequest::Update {
                        key: pod_key(name).into(),
                        value: Arc::new(Object::Pod(p)),
                        resource_version: rv,
                    };
                    self.client
                        .send(ctx, req, Req::PodStatus(name.clone()), REQUEST_TIMEOUT);
                }
            } else if !self.starting.contains_key(name) {
                self.starting.insert(name.clone(), now + CONTAINER_START);
                ctx.set_timer(Port::KUBELET, CONTAINER_START, Timer::Wake);
            }
        }
        self.sync_mirror_pods(ctx);
    }

    /// Creates the mirror pods the API lacks (its first sync, or after a deletion was confirmed).
    /// One sent and not yet seen is sent again after a status period (its answer may be lost).
    fn sync_mirror_pods(&mut self, ctx: &mut Ctx) {
        for (name, component) in &self.static_pods {
            if self.pods.items().contains_key(&pod_key(name)) {
                self.mirrored.remove(name);
                continue;
            }
            self.dirty = true;
            let sent = self.mirrored.get(name).copied();
            if self.busy.contains(name) || sent.is_some_and(|t| ctx.now < t + STATUS_PERIOD) {
                continue;
            }
            let pod = Pod {
                name: name.clone(),
                workload: component.to_string(),
                kind: None,
                node: Some(self.node.clone()),
                running: true,
                ready: true,
                deletion: None,
                created: ctx.now,
            };
            self.busy.insert(name.clone());
            self.mirrored.insert(name.clone(), ctx.now);
            let req = ApiRequest::Create {
                key: pod_key(name).into(),
                value: Arc::new(Object::Pod(pod)),
            };
            (self.client).send(ctx, req, Req::MirrorPod(name.clone()), REQUEST_TIMEOUT);
        }
    }

    pub fn host(&self) -> HostId {
        self.host
    }
}

impl SelfTimed for Kubelet {
    /// Not while its Node is not Ready in the store (its next status update will say so),
    /// while a pod's container is starting, or a pod's status or deletion is on its way or
    /// still owed.
    fn quiet(&self, stand: &Stand) -> Quiet {
        let node = stand
            .store
            .get(&self.node_key)
            .and_then(|kv| kv.value.as_node());
        let not_ready = node.is_some_and(|n| n.ready != Condition::True);
        let pods_owed = self.dirty
            || !self.busy.is_empty()
            || !self.starting.is_empty()
            || !self.stopping.is_empty();
        Quiet::when(!not_ready && !pods_owed)
    }

    /// Nothing of its own to move: its renewals and syncs repeat what the store says.
    fn skipped(&mut self, _: Duration, _: &Stand) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::api::RequestId;
    use crate::k8s::objects::{Kind, Pod};
    use crate::k8s::observe::blind_step;
    use crate::kernel::process::Effect as Do;

    /// What `f` sent at `now`: the list-watch requests, and the pods written.
    fn sent(now: SimTime, f: impl FnOnce(&mut Ctx)) -> (Vec<RequestId>, Vec<Pod>) {
        let ((), effects) = blind_step(now, f);
        let (mut lists, mut pods) = (Vec::new(), Vec::new());
        for e in effects {
            let Do::Send {
                payload: Payload::Api(ApiPayload::Request { id, req, .. }),
                ..
            } = e
            else {
                continue;
            };
            match req {
                ApiRequest::Watch { .. } => lists.push(id),
                ApiRequest::Update { value, .. } => pods.extend(value.as_pod().cloned()),
                _ => {}
            }
        }
        (lists, pods)
    }

    /// A status update lost to a timeout (the API without etcd's quorum) is still owed: the
    /// kubelet sends it again at its next sync, as the status manager does every 10 s, instead
    /// of leaving the pod NotReady (out of its Service's endpoints) until something else changes.
    #[test]
    fn a_status_update_that_timed_out_is_sent_again_at_the_next_sync() {
        let api = Addr {
            host: 0,
            port: Port::LB,
        };
        let rng = Rng::new(1);
        let lease = NodeLeaseTimings {
            renew_interval: Duration::from_secs(10),
            lease_duration: Duration::from_secs(40),
        };
        let mut k = Kubelet::new(1, "w1".into(), "a".into(), false, api, lease, rng);
        let t0 = SimTime::ZERO;
        sent(t0, |ctx| k.start(ctx, Duration::from_secs(5)));
        sent(t0, |ctx| k.on_timer(ctx, Timer::Housekeeping));
        let [list] = sent(t0, |ctx| k.on_timer(ctx, Timer::Wake)).0[..] else {
            panic!("the pod informer lists")
        };
        // Its pod, bound here, running and Ready.
        let mut pod = Pod {
            name: "web-1".into(),
            workload: "web".into(),
            kind: Some(Kind::Deployment),
            node: Some("w1".into()),
            running: true,
            ready: true,
            deletion: None,
            created: t0,
        };
        let key: Key = pod_key("web-1").into();
        let me = Addr {
            host: 1,
            port: Port::KUBELET,
        };
        let at = |pod: &Pod, rev| KeyValue {
            value: Arc::new(Object::Pod(pod.clone())),
            mod_revision: rev,
            create_revision: 7,
            version: rev - 6,
        };
        let listed = ApiPayload::Response {
            id: list,
            client: me,
            resp: ApiResponse::WatchStarted {
                backend: 0,
                revision: 7,
                items: vec![(key.clone(), at(&pod, 7))],
            },
        };
        sent(t0, |ctx| k.on_message(ctx, Payload::Api(listed)));
        let t1 = t0 + CONTAINER_START;
        let (_, written) = sent(t1, |ctx| k.on_timer(ctx, Timer::Wake));
        assert!(written.is_empty(), "its status is what the API has");
        let t2 = t1 + Duration::from_secs(1);
        sent(t2, |ctx| k.on_timer(ctx, Timer::Housekeeping));
        // The node lifecycle controller marks it NotReady (its node was unreachable); the
        // kubelet says Ready again.
        pod.ready = false;
        let marked = ApiPayload::WatchEvents {
            id: list,
            client: me,
            events: vec![(key, Some(at(&pod, 9)))],
        };
        let (_, written) = sent(t2, |ctx| k.on_message(ctx, Payload::Api(marked)));
        assert!(
            matches!(&written[..], [p] if p.running && p.ready),
            "the kubelet reports it Ready: {written:?}"
        );
        // No answer (the API has no etcd quorum): the request times out.
        let t3 = t2 + REQUEST_TIMEOUT;
        let (_, again) = sent(t3, |ctx| k.on_timer(ctx, Timer::ApiTimeout { sub: Sub(0) }));
        assert!(again.is_empty(), "not at once: {again:?}");
        let (_, again) = sent(t3 + Duration::from_secs(10), |ctx| {
            k.on_timer(ctx, Timer::Housekeeping)
        });
        assert!(
            matches!(&again[..], [p] if p.name == "web-1" && p.running && p.ready),
            "the status is sent again at the next sync: {again:?}"
        );
    }
}
