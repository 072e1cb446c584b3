//! The load balancer in front of the apiservers (kubeadm's haproxy example): a health
//! check of every backend every 2 s, a backend marked down after 3 failed checks and up
//! after 2 good ones (settings `lb_check_interval`, `lb_fall`, `lb_rise`), requests spread round-robin over the backends marked up.
//!
//! With `readyz` checks a backend whose etcd lost quorum is taken out; with plain `tcp`
//! checks it stays in as long as the process accepts connections, and requests sent to
//! it fail. A watch stays on the backend it started on (its stream flows back through
//! here), as a long-lived connection does.
//!
//! The world relays a message through the balancer as it is sent (see [`LoadBalancer::route`]):
//! both network hops keep their latency and their partition checks, but the choice of backend is
//! made as the request leaves its client, a millisecond before it would reach the balancer.
//!
//! Left out: connection limits, retries inside the balancer, TLS.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::observe::Note;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::members::MemberMap;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Sub, Timer};
use crate::kernel::time::Duration;

/// What a request gets when no backend is in service (the balancer closes the connection).
pub const NO_BACKEND: &str = "no apiserver in service behind the load balancer";
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// haproxy's check of the backends (settings `lb_health_check`, `lb_check_interval`, `lb_fall`,
/// `lb_rise`): kubeadm's example checks every 2 s, 3 failures mark a backend down, 2 passes up.
#[derive(Clone, Copy, Debug)]
pub struct LbConfig {
    pub check: HealthCheck,
    pub check_interval: Duration,
    pub fall: u32,
    pub rise: u32,
}

/// How the load balancer checks an apiserver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HealthCheck {
    /// HTTP `/readyz` (includes the etcd check).
    Readyz,
    /// A plain TCP connect: keeps routing to an apiserver whose etcd lost quorum.
    Tcp,
}

#[derive(Clone)]
struct Backend {
    host: HostId,
    up: bool,
    /// Consecutive results against the current state.
    streak: u32,
}

#[derive(Clone)]
pub struct LoadBalancer {
    addr: Addr,
    config: LbConfig,
    backends: Vec<Backend>,
    next_id: u64,
    checks: MemberMap<u64, usize>,
    rr: usize,
}

impl LoadBalancer {
    pub fn new(host: HostId, backends: Vec<HostId>, config: LbConfig) -> Self {
        LoadBalancer {
            addr: Addr {
                host,
                port: Port::Lb,
            },
            config,
            // A settled cluster starts with every backend in service.
            backends: backends
                .into_iter()
                .map(|host| Backend {
                    host,
                    up: true,
                    streak: 0,
                })
                .collect(),
            next_id: 0,
            checks: MemberMap::default(),
            rr: 0,
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        ctx.set_timer(Port::Lb, self.config.check_interval, Timer::LbCheck);
    }

    /// Every backend and whether it is in service.
    pub fn backends(&self) -> Vec<(HostId, bool)> {
        self.backends.iter().map(|b| (b.host, b.up)).collect()
    }

    /// Whether every backend's last check agreed with its state (no fall or rise under way).
    pub fn steady(&self) -> bool {
        self.backends.iter().all(|b| b.streak == 0)
    }

    pub fn on_check_timer(&mut self, ctx: &mut Ctx) {
        for (i, b) in self.backends.iter().enumerate() {
            self.next_id += 1;
            let id = self.next_id;
            self.checks.insert(id, i);
            let req = match self.config.check {
                HealthCheck::Readyz => ApiRequest::Readyz,
                HealthCheck::Tcp => ApiRequest::Tcp,
            };
            let msg = ApiPayload::Request {
                id: RequestId::new(Sub::default(), id),
                client: self.addr,
                via: None,
                req,
            };
            ctx.send(
                Port::Lb,
                Addr {
                    host: b.host,
                    port: Port::Apiserver,
                },
                Payload::Api(msg),
            );
            ctx.set_timer(Port::Lb, CHECK_TIMEOUT, Timer::LbCheckTimeout { id });
        }
        ctx.set_timer(Port::Lb, self.config.check_interval, Timer::LbCheck);
    }

    pub fn on_check_timeout(&mut self, ctx: &mut Ctx, id: u64) {
        if let Some(i) = self.checks.remove(&id) {
            self.record(ctx, i, false, "did not answer");
        }
    }

    fn record(&mut self, ctx: &mut Ctx, i: usize, ok: bool, why: &str) {
        let b = &mut self.backends[i];
        if ok == b.up {
            b.streak = 0;
            return;
        }
        b.streak += 1;
        let (fall, rise) = (self.config.fall, self.config.rise);
        let threshold = if b.up { fall } else { rise };
        if b.streak < threshold {
            return;
        }
        b.up = ok;
        b.streak = 0;
        let name = ctx.obs.name(b.host).to_string();
        let check = match self.config.check {
            HealthCheck::Readyz => "/readyz",
            HealthCheck::Tcp => "the TCP check",
        };
        let (kind, text) = if ok {
            (Note::LbBackendUp, format!("the load balancer puts the apiserver on {name} back in service: {check} passed {rise} times"))
        } else {
            (Note::LbBackendDown, format!("the load balancer stops sending to the apiserver on {name}: {check} {why} {fall} times"))
        };
        ctx.obs.note(ctx.now, kind, Some(b.host), text);
    }

    /// The balancer's own traffic: the answers to its health checks.
    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        let Payload::Api(ApiPayload::Response { id, client, resp }) = payload else {
            return;
        };
        if client == self.addr {
            if let Some(i) = self.checks.remove(&id.seq()) {
                let ok = resp == ApiResponse::Ready(true);
                self.record(ctx, i, ok, "failed");
            }
        }
    }

    /// Whether `msg`, sent to the balancer, is traffic it passes on (not an answer to its checks).
    pub fn relays(&self, msg: &ApiPayload) -> bool {
        msg.client() != Some(self.addr)
    }

    /// Where a message passing through goes next: a request to the next backend in service
    /// (with none, a failure back to its client), a response or watch stream on to its client.
    pub fn route(&mut self, msg: ApiPayload) -> Option<(Addr, ApiPayload)> {
        match msg {
            ApiPayload::Request {
                id, client, req, ..
            } => {
                let up = self.backends.iter().filter(|b| b.up).count();
                if up == 0 {
                    let resp = ApiResponse::Failed(NO_BACKEND);
                    return Some((client, ApiPayload::Response { id, client, resp }));
                }
                self.rr = (self.rr + 1) % up;
                let host = self.backends.iter().filter(|b| b.up).nth(self.rr)?.host;
                let backend = Addr {
                    host,
                    port: Port::Apiserver,
                };
                let fwd = ApiPayload::Request {
                    id,
                    client,
                    via: Some(self.addr),
                    req,
                };
                Some((backend, fwd))
            }
            other => other.client().map(|client| (client, other)),
        }
    }
}

impl SelfTimed for LoadBalancer {
    /// Not while a backend is about to fall or rise, or stays in service on a host whose
    /// apiserver is gone (its checks will take it out).
    fn quiet(&self, stand: &Stand) -> Quiet {
        let gone = |&(h, up): &(HostId, bool)| {
            up && !(stand.running[h as usize] && stand.serves_api[h as usize])
        };
        Quiet::when(self.steady() && !self.backends().iter().any(gone))
    }

    /// Nothing of its own to move: its checks repeat what they found.
    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
