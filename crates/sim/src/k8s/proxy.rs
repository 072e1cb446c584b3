//! The Service data path on a worker: kube-proxy's rules and CoreDNS's answers.
//!
//! kube-proxy programs the node's rules from EndpointSlices and keeps the last rules it had
//! when the API goes away (they may point at pods that died since). The rules are the
//! kernel's: a restarted kube-proxy leaves them as they are until its informer has synced,
//! so restarting it during an API outage changes nothing; a rebooted node has none until
//! kube-proxy can list. A CoreDNS pod answers from its informer cache while
//! the API is down; one (re)started while the API is down answers nothing for ≈ 5 s, then
//! SERVFAIL, for every name it never synced.

use crate::k8s::api::ApiPayload;
use crate::k8s::informer::Informer;
use crate::k8s::objects::{slice_key, Endpoint, ENDPOINT_SLICES, WORKLOADS};
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, KeyValue};
use crate::kernel::keymap::KeyMap;
use crate::kernel::process::{Addr, Alarm, Port, Sub};
use crate::kernel::time::{Duration, SimTime};

/// CoreDNS waits this long for its first sync before it starts answering SERVFAIL.
pub const DNS_SYNC_WAIT: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub struct KubeProxy {
    slices: Informer,
    /// The node's rules as a previous kube-proxy left them, in force until this one has synced.
    inherited: Option<KeyMap<KeyValue>>,
    /// When its informer next needs a look (a relist is due, or its watch may have gone silent).
    check: Alarm,
}

impl KubeProxy {
    pub fn new(me: Addr, api: Addr) -> Self {
        KubeProxy {
            slices: Informer::new(ENDPOINT_SLICES, None, me, api, Sub::default()),
            inherited: None,
            check: Alarm::default(),
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.on_sync(ctx);
    }

    /// This kube-proxy replaces `previous` on the same node (a restart): the rules stay.
    pub fn inherit(&mut self, previous: &KubeProxy) {
        self.inherited = Some(previous.programmed().clone());
    }

    /// What the node's rules are programmed from.
    fn programmed(&self) -> &KeyMap<KeyValue> {
        match &self.inherited {
            Some(rules) if !self.slices.synced => rules,
            _ => self.slices.items(),
        }
    }

    pub fn on_sync(&mut self, ctx: &mut Ctx) {
        self.check.rang(ctx.now);
        self.slices.tick(ctx);
        self.schedule(ctx);
    }

    pub fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) {
        self.slices.on_api(ctx, msg);
        if self.slices.synced {
            self.inherited = None;
        }
        self.schedule(ctx);
    }

    pub fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub) {
        self.slices.on_timeout(ctx, sub);
        self.schedule(ctx);
    }

    fn schedule(&mut self, ctx: &mut Ctx) {
        if let Some(at) = self.slices.next_check() {
            self.check
                .request(ctx, Port::KUBE_PROXY, at, Timer::Housekeeping);
        }
    }

    /// The endpoints this kube-proxy would send a Service's traffic to.
    pub fn rules(&self, service: &str) -> &[Endpoint] {
        self.rules_at(&slice_key(service))
    }

    /// [`KubeProxy::rules`] of the Service whose EndpointSlice is at `key` (`slice_key`): the
    /// users' requests look their keys up once, not at each of their million requests a year.
    pub fn rules_at(&self, key: &str) -> &[Endpoint] {
        self.programmed()
            .get(key)
            .and_then(|kv| kv.value.as_endpoint_slice())
            .map_or(&[], |s| s.endpoints.as_slice())
    }
}

/// One CoreDNS pod's server.
#[derive(Clone)]
pub struct DnsServer {
    services: Informer,
    started: SimTime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DnsAnswer {
    Answer,
    /// Not synced yet: no answer (the client times out).
    Silent,
    ServFail,
    NxDomain,
}

impl DnsServer {
    /// A server whose informer is at sub-address `sub` of the host's CoreDNS port.
    pub fn new(me: Addr, api: Addr, sub: Sub, now: SimTime) -> Self {
        DnsServer {
            services: Informer::new(WORKLOADS, None, me, api, sub),
            started: now,
        }
    }

    pub fn owns(&self, sub: Sub) -> bool {
        self.services.owns(sub)
    }

    pub fn synced(&self) -> bool {
        self.services.synced
    }

    pub fn tick(&mut self, ctx: &mut Ctx) {
        self.services.tick(ctx);
    }

    pub fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) -> bool {
        self.services.on_api(ctx, msg)
    }

    pub fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub) {
        self.services.on_timeout(ctx, sub);
    }

    /// When this server (its container) started.
    pub fn started(&self) -> SimTime {
        self.started
    }

    pub fn resolve(&self, service: &str, now: SimTime) -> DnsAnswer {
        if !self.services.synced {
            return if now - self.started < DNS_SYNC_WAIT {
                DnsAnswer::Silent
            } else {
                DnsAnswer::ServFail
            };
        }
        let known = self
            .services
            .items()
            .values()
            .filter_map(|kv| kv.value.as_workload())
            .any(|w| w.service && w.name == service);
        if known {
            DnsAnswer::Answer
        } else {
            DnsAnswer::NxDomain
        }
    }
}

/// Pods of CoreDNS on one host, by pod name.
/// The CoreDNS pods of a host, by name.
pub type DnsServers = crate::kernel::members::MemberMap<String, DnsServer>;

impl SelfTimed for KubeProxy {
    /// Its rules follow the EndpointSlices it watches; whether they lead anywhere is the
    /// world's check of the users' routes.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}

impl SelfTimed for DnsServer {
    /// It answers from its cache and its informer; an answer about to expire is the world's
    /// check of the users' routes.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
