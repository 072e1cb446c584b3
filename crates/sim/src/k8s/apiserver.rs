//! kube-apiserver: stateless, every request ends in etcd.
//!
//! - Consistent reads and writes go to etcd (a quorum read, or a compare-and-swap on the
//!   object's resourceVersion) and fail when etcd cannot answer within its timeout.
//! - The watch cache (cacher) lists then watches all of `/registry/` on one etcd member and
//!   serves the clients' watches from memory. When etcd cancels that watch (its member has
//!   had no leader for three election timeouts: `WithRequireLeader`), the cache closes every
//!   client watch and stays unready until a new list succeeds.
//! - `/readyz` passes when the watch cache is synced and an etcd quorum read answers within
//!   2 s. `/livez` has the same etcd check. kubeadm probes it every 10 s: first the startup
//!   probe (24 failures in a row kill the process, ≈ 240 s; liveness is off until it passes),
//!   then the liveness probe (8 failures in a row kill it, ≈ 72–84 s after etcd became
//!   unusable). The kubelet restarts a killed apiserver with its back-off.
//! - Stacked: the only etcd endpoint is the member on the same host. External: every etcd
//!   member, one pinned at a time, moving on after a failure to one not known to be failing, as
//!   the etcd client's balancer does with its connection health checks.
//!
//! Left out: admission, authentication, priority and fairness, the watch cache's own
//! resourceVersion semantics beyond "current state, then changes".

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::eviction::{Eviction, Next};
use crate::k8s::observe::Note;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::store::Store;
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, EtcdError, EtcdMsg, EtcdRequest, EtcdResponse, Payload, WatchEvent};
use crate::k8s::wire::{Key, KeyValue, KvOp, KvResult};
use crate::kernel::inflight::InFlight;
use crate::kernel::keymap::KeyMap;
use crate::kernel::keymap::KeySet;
use crate::kernel::members::MemberMap;
use crate::kernel::members::MemberSet;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Alarm, Port, Sub};
use crate::kernel::time::{Duration, SimTime};
use std::collections::BTreeMap;

/// The etcd client's timeout for requests (etcd's own proposal timeout is ≈ 7 s).
pub const ETCD_REQUEST_TIMEOUT: Duration = Duration::from_secs(7);
/// The health checks' etcd timeout.
pub const ETCD_CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// kubeadm's probes of `/livez`: the period, startup and liveness alike.
pub const LIVENESS_PERIOD: Duration = Duration::from_secs(10);

/// kubeadm's failure thresholds of the apiserver's probes (settings
/// `apiserver_liveness_failure_threshold`, `apiserver_startup_failure_threshold`).
#[derive(Clone, Copy, Debug)]
pub struct ProbeThresholds {
    pub liveness: u32,
    pub startup: u32,
}
/// How long the cache waits for any message (events or progress notifications) before
/// it gives up on its etcd watch.
const ETCD_WATCH_SILENCE: Duration = Duration::from_secs(15);
const HOUSEKEEPING: Duration = Duration::from_secs(1);
/// How long an endpoint that failed is avoided (the balancer's connection health check).
const ENDPOINT_BACKOFF: Duration = Duration::from_secs(30);
/// Client watches hear from the server at least this often: client-go pings a connection
/// that was silent for 30 s and a live server answers at once. An empty batch stands for
/// that exchange, so a client notices a dead server `WATCH_SILENCE` after its last frame.
const WATCH_HEARTBEAT: Duration = Duration::from_secs(30);

const REGISTRY: &str = "/registry/";

/// What the apiserver answers when etcd failed a request.
fn etcd_failure(e: EtcdError) -> &'static str {
    match e {
        EtcdError::NoLeader => "etcdserver: no leader",
        EtcdError::NotServing => "etcd member not serving",
        EtcdError::Timeout => "etcdserver: request timed out",
    }
}

/// Changes of objects as a watch stream carries them (None: deleted).
type Changes = Vec<(Key, Option<KeyValue>)>;

/// What a client's request wants from etcd's answer.
#[derive(Clone)]
enum Want {
    /// A write's outcome.
    Written,
    /// One object, by a consistent read.
    Object(Key),
    /// Everything under a prefix, by a consistent read.
    List,
}
#[derive(Clone)]
enum EtcdPending {
    /// A client's request, and what its etcd answer is turned into.
    Client {
        client: Addr,
        via: Option<Addr>,
        id: RequestId,
        want: Want,
    },
    Readyz {
        client: Addr,
        via: Option<Addr>,
        id: RequestId,
        /// Answer each check ([`ApiRequest::Checks`]), not only the verdict.
        checks: bool,
    },
    Livez,
    Watch,
    /// An eviction between two of its steps.
    Evict(Box<Eviction>),
}

#[derive(Clone)]
enum CacheState {
    /// Not watching; retry after this instant.
    Idle {
        retry_at: SimTime,
    },
    Starting,
    /// Its watch stream closed (a clean restart of the member): opened again, the cache and
    /// the clients' watches kept; the answer's differences are delivered as changes.
    Resuming,
    Watching {
        id: u64,
        last_heard: SimTime,
    },
}

#[derive(Clone)]
struct ClientWatch {
    client: Addr,
    via: Option<Addr>,
    id: RequestId,
    prefix: String,
    node: Option<String>,
}

impl ClientWatch {
    /// Whether an object (its old or new state) concerns this watch.
    fn wants(&self, key: &str, kv: Option<&KeyValue>) -> bool {
        if !key.starts_with(&self.prefix) {
            return false;
        }
        match &self.node {
            None => true,
            Some(node) => kv
                .and_then(|kv| kv.value.as_pod())
                .is_some_and(|p| p.node.as_deref() == Some(node.as_str())),
        }
    }
}

/// The client watches, in the order they started (the order changes go out in), indexed by
/// prefix (unfiltered watches) and by node (the kubelets' pod watches) so that a change
/// reaches the watches that want it without scanning them all.
#[derive(Clone, Default)]
struct Watchers {
    next: u64,
    by_start: BTreeMap<u64, ClientWatch>,
    /// The watch of each client's request stream (its address and id space): a client's new
    /// watch replaces its old one, whose connection the client gave up.
    by_stream: MemberMap<(Addr, Sub), u64>,
    by_prefix: MemberMap<String, MemberSet<u64>>,
    /// Hashed: every pod change looks up its node here, among a thousand nodes.
    by_node: KeyMap<MemberSet<u64>>,
}

impl Watchers {
    fn add(&mut self, w: ClientWatch) {
        self.next += 1;
        let n = self.next;
        if let Some(old) = self.by_stream.insert((w.client, w.id.sub()), n) {
            self.remove(old);
        }
        match &w.node {
            Some(node) => match self.by_node.get_mut(node) {
                Some(set) => set.insert(n),
                None => {
                    let mut set = MemberSet::new();
                    set.insert(n);
                    self.by_node.insert(&node.as_str().into(), set);
                    true
                }
            },
            None => self
                .by_prefix
                .get_or_insert_with(w.prefix.clone(), MemberSet::new)
                .0
                .insert(n),
        };
        self.by_start.insert(n, w);
    }

    fn remove(&mut self, n: u64) {
        let Some(w) = self.by_start.remove(&n) else {
            return;
        };
        let index = match &w.node {
            Some(node) => self.by_node.get_mut(node),
            None => self.by_prefix.get_mut(&w.prefix),
        };
        if let Some(set) = index {
            set.remove(&n);
        }
    }

    fn get(&self, n: u64) -> Option<&ClientWatch> {
        self.by_start.get(&n)
    }

    fn iter(&self) -> impl Iterator<Item = &ClientWatch> {
        self.by_start.values()
    }

    fn take_all(&mut self) -> Vec<ClientWatch> {
        let all = std::mem::take(&mut self.by_start).into_values().collect();
        *self = Watchers {
            next: self.next,
            ..Watchers::default()
        };
        all
    }

    /// Adds the watches that may want a change of `key` (from or to the given states).
    fn interested(&self, key: &str, states: [Option<&KeyValue>; 2], out: &mut Vec<u64>) {
        for (prefix, ws) in &self.by_prefix {
            if key.starts_with(prefix.as_str()) {
                out.extend(ws);
            }
        }
        for kv in states.into_iter().flatten() {
            if let Some(node) = kv.value.as_pod().and_then(|p| p.node.as_ref()) {
                out.extend(self.by_node.get(node).into_iter().flatten());
            }
        }
    }
}

/// What the world must do after the apiserver handled an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Running,
    /// The liveness probe failed 8 times: the kubelet kills the container.
    KilledByLiveness,
}

#[derive(Clone)]
pub struct Apiserver {
    host: HostId,
    endpoints: Vec<HostId>,
    pinned: usize,
    /// Per endpoint: considered unhealthy until then (after a failure or a timeout).
    unhealthy_until: Vec<SimTime>,
    next_id: u64,
    /// Outstanding etcd requests: the endpoint each went to and its deadline.
    pending: InFlight<(EtcdPending, usize, SimTime)>,
    /// One timer at the earliest deadline, not one per request: answers come in milliseconds,
    /// so almost every per-request timer would fire for nothing.
    timeouts: Alarm,
    cache: Store,
    cache_state: CacheState,
    /// The endpoint the cache's watch is on.
    watch_endpoint: usize,
    watchers: Watchers,
    livez_failures: u32,
    probes: ProbeThresholds,
    /// The startup probe has passed: from now on the liveness probe judges.
    started: bool,
    last_heartbeat: SimTime,
    pub verdict: Verdict,
}

impl Apiserver {
    /// `endpoints`: the etcd members this apiserver may use, in preference order.
    pub fn new(host: HostId, endpoints: Vec<HostId>, probes: ProbeThresholds) -> Self {
        let n = endpoints.len();
        Apiserver {
            host,
            endpoints,
            pinned: 0,
            unhealthy_until: vec![SimTime::ZERO; n],
            next_id: 0,
            pending: InFlight::default(),
            timeouts: Alarm::default(),
            cache: Store::default(),
            cache_state: CacheState::Idle {
                retry_at: SimTime::ZERO,
            },
            watch_endpoint: 0,
            watchers: Watchers::default(),
            livez_failures: 0,
            probes,
            started: false,
            last_heartbeat: SimTime::ZERO,
            verdict: Verdict::Running,
        }
    }

    /// The process started: begin the housekeeping loop and the probes (startup, then liveness).
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.housekeeping(ctx);
        ctx.set_timer(Port::APISERVER, LIVENESS_PERIOD, Timer::Livez);
    }

    pub fn cache_synced(&self) -> bool {
        matches!(
            self.cache_state,
            CacheState::Watching { .. } | CacheState::Resuming
        )
    }

    /// `/readyz` once its etcd check has ended: the verdict, or each check.
    fn readyz_answer(&self, etcd: bool, checks: bool) -> ApiResponse {
        let synced = self.cache_synced();
        if checks {
            ApiResponse::Checks { etcd, synced }
        } else {
            ApiResponse::Ready(etcd && synced)
        }
    }

    fn etcd(&mut self, ctx: &mut Ctx, req: EtcdRequest, pending: EtcdPending, timeout: Duration) {
        self.next_id += 1;
        let id = self.next_id;
        let Some(&member) = self.endpoints.get(self.pinned) else {
            return;
        };
        let deadline = ctx.now + timeout;
        self.pending.insert(id, (pending, self.pinned, deadline));
        ctx.send(
            Port::APISERVER,
            Addr {
                host: member,
                port: Port::ETCD,
            },
            EtcdMsg::Request { id, req },
        );
        self.timeouts
            .request(ctx, Port::APISERVER, deadline, Timer::EtcdTimeouts);
    }

    fn respond(ctx: &mut Ctx, client: Addr, via: Option<Addr>, id: RequestId, resp: ApiResponse) {
        ctx.send(
            Port::APISERVER,
            via.unwrap_or(client),
            Payload::Api(ApiPayload::Response { id, client, resp }),
        );
    }

    /// An endpoint failed a request: it is avoided for a while, and if it was the pinned one the
    /// client moves to the next endpoint not known to be failing (external topology).
    fn endpoint_failed(&mut self, endpoint: usize, now: SimTime) {
        let n = self.endpoints.len();
        if endpoint >= n {
            return;
        }
        self.unhealthy_until[endpoint] = now + ENDPOINT_BACKOFF;
        if endpoint != self.pinned {
            return;
        }
        let next = (1..=n)
            .map(|k| (self.pinned + k) % n)
            .find(|&i| self.unhealthy_until[i] <= now);
        self.pinned = next.unwrap_or((self.pinned + 1) % n);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        match payload {
            Payload::Api(ApiPayload::Request {
                id,
                client,
                via,
                req,
            }) => self.on_request(ctx, client, via, id, req),
            Payload::Etcd(EtcdMsg::Response { id, resp }) => self.on_etcd_response(ctx, id, resp),
            Payload::Etcd(EtcdMsg::Watch { id, events }) => self.on_etcd_watch(ctx, id, events),
            Payload::Etcd(EtcdMsg::WatchCancelled { id }) => {
                if matches!(self.cache_state, CacheState::Watching { id: w, .. } if w == id) {
                    self.cache_lost(ctx, "etcd cancelled the watch: its member has no leader");
                }
            }
            Payload::Etcd(EtcdMsg::WatchReset { id }) => {
                if matches!(self.cache_state, CacheState::Watching { id: w, .. } if w == id) {
                    // clientv3 opens the stream again from its last revision: no gap.
                    let watched = self.watch_endpoint;
                    self.endpoint_failed(watched, ctx.now);
                    self.open_watch(ctx, CacheState::Resuming);
                }
            }
            _ => {}
        }
    }

    fn on_request(
        &mut self,
        ctx: &mut Ctx,
        client: Addr,
        via: Option<Addr>,
        id: RequestId,
        req: ApiRequest,
    ) {
        let caller = |want| EtcdPending::Client {
            client,
            via,
            id,
            want,
        };
        let health = |checks| EtcdPending::Readyz {
            client,
            via,
            id,
            checks,
        };
        match req {
            ApiRequest::Tcp => Self::respond(ctx, client, via, id, ApiResponse::Ready(true)),
            ApiRequest::Readyz if !self.cache_synced() => {
                Self::respond(ctx, client, via, id, ApiResponse::Ready(false))
            }
            ApiRequest::Readyz => {
                self.read(ctx, "/health".into(), health(false), ETCD_CHECK_TIMEOUT)
            }
            ApiRequest::Checks => {
                self.read(ctx, "/health".into(), health(true), ETCD_CHECK_TIMEOUT)
            }
            ApiRequest::Get { key } => {
                let pending = caller(Want::Object(key.clone()));
                self.read(ctx, key.to_string(), pending, ETCD_REQUEST_TIMEOUT)
            }
            ApiRequest::ListConsistent { prefix } => {
                self.read(ctx, prefix, caller(Want::List), ETCD_REQUEST_TIMEOUT)
            }
            ApiRequest::Put { key, value } => {
                self.write(ctx, client, via, id, KvOp::Put { key, value })
            }
            ApiRequest::Create { key, value } => {
                let op = KvOp::CompareAndSwap {
                    key,
                    expected: 0,
                    value,
                };
                self.write(ctx, client, via, id, op);
            }
            ApiRequest::Update {
                key,
                value,
                resource_version,
            } => {
                let op = KvOp::CompareAndSwap {
                    key,
                    expected: resource_version,
                    value,
                };
                self.write(ctx, client, via, id, op);
            }
            ApiRequest::Delete {
                key,
                resource_version,
            } => {
                let op = KvOp::CompareAndDelete {
                    key,
                    expected: resource_version,
                };
                self.write(ctx, client, via, id, op);
            }
            ApiRequest::Evict { key } => {
                let (e, first) = Eviction::start(client, via, id, key);
                self.evict(ctx, Box::new(e), first);
            }
            ApiRequest::GetCached { key } => {
                let resp = if self.cache_synced() {
                    ApiResponse::Object(self.cache.items().get(&key).cloned())
                } else {
                    ApiResponse::Failed("watch cache not ready")
                };
                Self::respond(ctx, client, via, id, resp);
            }
            ApiRequest::List { prefix, node } => {
                let filter = ClientWatch {
                    client,
                    via,
                    id,
                    prefix,
                    node,
                };
                let resp = match self.cache_synced() {
                    true => ApiResponse::List {
                        items: self.cached(&filter),
                    },
                    false => ApiResponse::Failed("watch cache not ready"),
                };
                Self::respond(ctx, client, via, id, resp);
            }
            ApiRequest::Watch { prefix, node } => {
                let watch = ClientWatch {
                    client,
                    via,
                    id,
                    prefix,
                    node,
                };
                self.start_watch(ctx, watch);
            }
        }
    }

    /// A quorum read of `prefix` from etcd, answered as `pending` says.
    fn read(&mut self, ctx: &mut Ctx, prefix: String, pending: EtcdPending, timeout: Duration) {
        let read = EtcdRequest::Read {
            prefix,
            linearizable: true,
        };
        self.etcd(ctx, read, pending, timeout);
    }

    /// A client's watch, from the watch cache: what it holds now, then every change.
    fn start_watch(&mut self, ctx: &mut Ctx, watch: ClientWatch) {
        let (client, via, id) = (watch.client, watch.via, watch.id);
        let CacheState::Watching { .. } = self.cache_state else {
            let resp = ApiResponse::Failed("watch cache not ready");
            Self::respond(ctx, client, via, id, resp);
            return;
        };
        let items = self.cached(&watch);
        let revision = items
            .iter()
            .map(|(_, kv)| kv.mod_revision)
            .max()
            .unwrap_or(0);
        let resp = ApiResponse::WatchStarted {
            backend: self.host,
            revision,
            items,
        };
        Self::respond(ctx, client, via, id, resp);
        self.watchers.add(watch);
    }

    /// The cached objects a watch or list asks for.
    fn cached(&self, filter: &ClientWatch) -> Vec<(Key, KeyValue)> {
        let pick =
            |(k, v): (&Key, &KeyValue)| filter.wants(k, Some(v)).then(|| (k.clone(), v.clone()));
        match &filter.node {
            Some(node) => self.cache.pods_on(node).filter_map(pick).collect(),
            None => self
                .cache
                .items()
                .range_prefix(&filter.prefix)
                .filter_map(pick)
                .collect(),
        }
    }

    fn write(&mut self, ctx: &mut Ctx, client: Addr, via: Option<Addr>, id: RequestId, op: KvOp) {
        self.etcd(
            ctx,
            EtcdRequest::Write(op),
            EtcdPending::Client {
                client,
                via,
                id,
                want: Want::Written,
            },
            ETCD_REQUEST_TIMEOUT,
        );
    }

    /// An eviction's next step: another etcd request, or its answer.
    fn evict(&mut self, ctx: &mut Ctx, e: Box<Eviction>, next: Next) {
        match next {
            Next::Etcd(req) => self.etcd(ctx, req, EtcdPending::Evict(e), ETCD_REQUEST_TIMEOUT),
            Next::Answer(resp) => Self::respond(ctx, e.client, e.via, e.id, resp),
        }
    }

    fn on_etcd_response(&mut self, ctx: &mut Ctx, id: u64, resp: EtcdResponse) {
        let Some((pending, endpoint, _)) = self.pending.remove(id) else {
            return;
        };
        if matches!(resp, EtcdResponse::Failed(_)) {
            self.endpoint_failed(endpoint, ctx.now);
        }
        match pending {
            EtcdPending::Client {
                client,
                via,
                id,
                want,
            } => {
                let api = match resp {
                    EtcdResponse::Written(KvResult::Ok { revision }) => ApiResponse::Written {
                        resource_version: revision,
                    },
                    EtcdResponse::Written(KvResult::Conflict { .. }) => ApiResponse::Conflict,
                    EtcdResponse::Read { kvs, .. } => match want {
                        Want::Object(key) => ApiResponse::Object(
                            kvs.into_iter().find(|(k, _)| **k == *key).map(|(_, v)| v),
                        ),
                        Want::List | Want::Written => ApiResponse::List { items: kvs },
                    },
                    EtcdResponse::Failed(e) => ApiResponse::Failed(etcd_failure(e)),
                    EtcdResponse::WatchStarted { .. }
                    | EtcdResponse::Members(_)
                    | EtcdResponse::Status(_) => ApiResponse::Failed("unexpected etcd response"),
                };
                Self::respond(ctx, client, via, id, api);
            }
            EtcdPending::Evict(mut e) => {
                let next = match resp {
                    EtcdResponse::Failed(err) => {
                        Next::Answer(ApiResponse::Failed(etcd_failure(err)))
                    }
                    resp => e.on_etcd(ctx.now, resp),
                };
                self.evict(ctx, e, next);
            }
            EtcdPending::Readyz {
                client,
                via,
                id,
                checks,
            } => {
                let etcd = matches!(resp, EtcdResponse::Read { .. });
                let answer = self.readyz_answer(etcd, checks);
                Self::respond(ctx, client, via, id, answer);
            }
            EtcdPending::Livez => {
                if matches!(resp, EtcdResponse::Read { .. }) {
                    self.livez_failures = 0;
                    self.started = true;
                } else {
                    self.livez_failed(ctx);
                }
            }
            EtcdPending::Watch => match resp {
                EtcdResponse::WatchStarted { kvs, revision } => {
                    let resumed = matches!(self.cache_state, CacheState::Resuming);
                    self.cache_state = CacheState::Watching {
                        id,
                        last_heard: ctx.now,
                    };
                    if resumed {
                        let changes = self.differences(kvs, revision);
                        self.on_etcd_watch(ctx, id, changes);
                    } else {
                        self.cache.replace(kvs);
                    }
                }
                _ if matches!(self.cache_state, CacheState::Resuming) => {
                    self.cache_lost(ctx, "its etcd watch could not be opened again");
                }
                _ => {
                    self.cache_state = CacheState::Idle {
                        retry_at: ctx.now + HOUSEKEEPING,
                    }
                }
            },
        }
    }

    /// The timeout timer fired: every request past its deadline fails.
    pub fn on_etcd_timeouts(&mut self, ctx: &mut Ctx) {
        self.timeouts.rang(ctx.now);
        let overdue: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.2 <= ctx.now)
            .map(|(id, _)| id)
            .collect();
        for id in overdue {
            self.etcd_timed_out(ctx, id);
        }
        // Every deadline was offered to the alarm when its request went out; once it has rung,
        // the earliest one still pending is the next.
        if let Some(earliest) = self.pending.values().map(|p| p.2).min() {
            self.timeouts
                .request(ctx, Port::APISERVER, earliest, Timer::EtcdTimeouts);
        }
    }

    fn etcd_timed_out(&mut self, ctx: &mut Ctx, id: u64) {
        let Some((pending, endpoint, _)) = self.pending.remove(id) else {
            return;
        };
        self.endpoint_failed(endpoint, ctx.now);
        match pending {
            EtcdPending::Client {
                client, via, id, ..
            } => Self::respond(
                ctx,
                client,
                via,
                id,
                // What etcd answers after its own request timeout (5 s + 2 × election timeout).
                ApiResponse::Failed("etcdserver: request timed out"),
            ),
            EtcdPending::Readyz {
                client,
                via,
                id,
                checks,
            } => {
                let answer = self.readyz_answer(false, checks);
                Self::respond(ctx, client, via, id, answer)
            }
            EtcdPending::Evict(e) => Self::respond(
                ctx,
                e.client,
                e.via,
                e.id,
                ApiResponse::Failed("etcdserver: request timed out"),
            ),
            EtcdPending::Livez => self.livez_failed(ctx),
            EtcdPending::Watch if matches!(self.cache_state, CacheState::Resuming) => {
                self.cache_lost(ctx, "its etcd watch could not be opened again");
            }
            EtcdPending::Watch => self.cache_state = CacheState::Idle { retry_at: ctx.now },
        }
    }

    /// What changed between the cache and `kvs`, the registry at `revision`, as watch events:
    /// what a watch resumed from the cache's last revision would have delivered.
    fn differences(&self, kvs: Vec<(Key, KeyValue)>, revision: u64) -> Vec<WatchEvent> {
        let mut seen = KeySet::default();
        let mut changes = Vec::new();
        for (key, kv) in kvs {
            let same = (self.cache.items().get(&key))
                .is_some_and(|old| old.mod_revision == kv.mod_revision);
            seen.insert(key.clone());
            if !same {
                changes.push(WatchEvent {
                    key,
                    kv: Some(kv),
                    revision,
                });
            }
        }
        for (key, _) in self.cache.items().iter() {
            if !seen.contains(key) {
                changes.push(WatchEvent {
                    key: key.clone(),
                    kv: None,
                    revision,
                });
            }
        }
        changes
    }

    fn on_etcd_watch(&mut self, ctx: &mut Ctx, id: u64, events: Vec<WatchEvent>) {
        let CacheState::Watching { id: w, last_heard } = &mut self.cache_state else {
            return;
        };
        if *w != id {
            return;
        }
        *last_heard = ctx.now;
        if events.is_empty() {
            return;
        }
        let mut olds = Vec::with_capacity(events.len());
        for e in &events {
            olds.push(self.cache.apply(&e.key, e.kv.as_ref()));
        }
        // Each change goes to the watches that want it (a pod that left a node-filtered watch
        // looks deleted to it), gathered per watch in the order the watches started. A change
        // wants a handful of watches: small sorted vectors, not maps.
        let mut batches: Vec<(u64, Changes)> = Vec::new();
        let mut candidates = Vec::new();
        for (e, old) in events.iter().zip(&olds) {
            candidates.clear();
            self.watchers
                .interested(&e.key, [e.kv.as_ref(), old.as_ref()], &mut candidates);
            candidates.sort_unstable();
            candidates.dedup();
            for &i in &candidates {
                let Some(w) = self.watchers.get(i) else {
                    continue;
                };
                if w.wants(&e.key, e.kv.as_ref()) || w.wants(&e.key, old.as_ref()) {
                    let kv = e.kv.clone().filter(|kv| w.wants(&e.key, Some(kv)));
                    let at = batches
                        .binary_search_by_key(&i, |b| b.0)
                        .unwrap_or_else(|at| {
                            batches.insert(at, (i, Vec::new()));
                            at
                        });
                    batches[at].1.push((e.key.clone(), kv));
                }
            }
        }
        for (i, batch) in batches {
            let Some(w) = self.watchers.get(i) else {
                continue;
            };
            let msg = ApiPayload::WatchEvents {
                id: w.id,
                client: w.client,
                events: batch,
            };
            ctx.send(
                Port::APISERVER,
                w.via.unwrap_or(w.client),
                Payload::Api(msg),
            );
        }
    }

    /// The cache lost its etcd watch: every client watch is closed and the cache is unready.
    fn cache_lost(&mut self, ctx: &mut Ctx, why: &'static str) {
        let name = ctx.obs.name(self.host).to_string();
        let text =
            format!("the apiserver on {name} closed its clients' watches and is unready: {why}");
        ctx.obs
            .note(ctx.now, Note::ApiserverCacheLost, Some(self.host), text);
        for w in self.watchers.take_all() {
            let msg = ApiPayload::WatchClosed {
                id: w.id,
                client: w.client,
            };
            ctx.send(
                Port::APISERVER,
                w.via.unwrap_or(w.client),
                Payload::Api(msg),
            );
        }
        self.cache_state = CacheState::Idle {
            retry_at: ctx.now + HOUSEKEEPING,
        };
        let watched = self.watch_endpoint;
        self.endpoint_failed(watched, ctx.now);
    }

    pub fn on_housekeeping(&mut self, ctx: &mut Ctx) {
        self.housekeeping(ctx);
    }

    /// The cache's watch of the whole registry, on the pinned endpoint; `state` says whether
    /// it starts the cache (`Starting`) or resumes it (`Resuming`).
    fn open_watch(&mut self, ctx: &mut Ctx, state: CacheState) {
        self.watch_endpoint = self.pinned;
        self.cache_state = state;
        let req = EtcdRequest::Watch {
            prefix: REGISTRY.into(),
        };
        self.etcd(ctx, req, EtcdPending::Watch, ETCD_REQUEST_TIMEOUT);
    }

    fn housekeeping(&mut self, ctx: &mut Ctx) {
        match self.cache_state {
            CacheState::Idle { retry_at } if ctx.now >= retry_at => {
                self.open_watch(ctx, CacheState::Starting);
            }
            CacheState::Watching { last_heard, .. }
                if ctx.now - last_heard > ETCD_WATCH_SILENCE =>
            {
                self.cache_lost(ctx, "its etcd watch went silent");
            }
            _ => {}
        }
        if ctx.now - self.last_heartbeat >= WATCH_HEARTBEAT {
            self.last_heartbeat = ctx.now;
            for w in self.watchers.iter() {
                let msg = ApiPayload::WatchEvents {
                    id: w.id,
                    client: w.client,
                    events: Vec::new(),
                };
                ctx.send(
                    Port::APISERVER,
                    w.via.unwrap_or(w.client),
                    Payload::Api(msg),
                );
            }
        }
        ctx.set_timer(Port::APISERVER, HOUSEKEEPING, Timer::Housekeeping);
    }

    /// kubeadm's probe of `/livez` (startup or liveness), whose etcd check is a quorum read with a
    /// 2 s timeout.
    pub fn on_livez(&mut self, ctx: &mut Ctx) {
        let read = EtcdRequest::Read {
            prefix: "/health".into(),
            linearizable: true,
        };
        self.etcd(ctx, read, EtcdPending::Livez, ETCD_CHECK_TIMEOUT);
        ctx.set_timer(Port::APISERVER, LIVENESS_PERIOD, Timer::Livez);
    }

    fn livez_failed(&mut self, ctx: &mut Ctx) {
        self.livez_failures += 1;
        let (probe, threshold) = if self.started {
            ("liveness", self.probes.liveness)
        } else {
            ("startup", self.probes.startup)
        };
        if self.livez_failures >= threshold && self.verdict == Verdict::Running {
            self.verdict = Verdict::KilledByLiveness;
            let name = ctx.obs.name(self.host).to_string();
            let text = format!(
                "the kubelet on {name} kills its apiserver: its {probe} probe failed {threshold} times in a row (/livez: its etcd check cannot get a quorum read)"
            );
            ctx.obs
                .note(ctx.now, Note::ApiserverKilled, Some(self.host), text);
        }
    }
}

impl SelfTimed for Apiserver {
    /// It acts on requests and on its etcd client's deadlines; an etcd it cannot reach shows
    /// in the API write probe's figure, which the study checks as settled.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    /// Nothing of its own to move: its periodic steps read the state, which has not changed.
    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
