//! The load balancer in front of the apiservers (kubeadm's haproxy example): a health
//! check of every backend every 2 s, a backend marked down after 3 failed checks and up
//! after 2 good ones (settings `lb_check_interval`, `lb_fall`, `lb_rise`).
//!
//! It balances connections, as haproxy's `mode tcp` does (setting `lb_balance`): a client that
//! keeps its connection (the kubelet, kube-proxy, the operator: client-go's programs) is given
//! the next backend in service round-robin when it dials, and every request it sends goes there
//! for as long as the connection stands. A backend marked down keeps its connections (unless
//! `lb_shutdown_sessions`): only new ones avoid it. A connection ends when its client hangs up
//! (the kubelet after two failed renewals), when the apiserver it reached stops (its host
//! resets it, and haproxy closes the client's side), or when the client's HTTP/2 health check
//! gives up on a silent backend. kubectl, curl and the API write probe dial for every request,
//! so each of their requests is balanced anew, as every request is under `lb_balance: request`.
//!
//! With `readyz` checks a backend whose etcd lost quorum is taken out of new connections; with
//! plain `tcp` checks it stays in as long as the process accepts connections, and requests sent
//! to it fail. A watch stays on the backend it started on (its stream flows back through here).
//!
//! The world relays a message through the balancer as it is sent (see [`LoadBalancer::route`]):
//! both network hops keep their latency and their partition checks, but the choice of backend is
//! made as the request leaves its client, a millisecond before it would reach the balancer.
//!
//! Left out: connection limits, retries inside the balancer, TLS, haproxy's own idle timeouts;
//! requests in flight on a connection that ends time out rather than fail at once, and a watch
//! on a connection `lb_shutdown_sessions` closed keeps flowing. A client's health check is
//! judged when it next sends, from the backend's last answer to the balancer's checks.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::client::{keeps_its_connection, HTTP2_HEALTH_CHECK};
use crate::k8s::observe::Note;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::members::MemberMap;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Sub};
use crate::kernel::time::{Duration, SimTime};

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
    /// `lb_balance`: connections (haproxy `mode tcp`), or every request anew.
    pub connections: bool,
    /// `lb_shutdown_sessions`: a backend marked down loses its connections.
    pub shutdown_sessions: bool,
}

/// A backend's apiserver as the world stands, for the balancer's side of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    /// Its host runs.
    pub up: bool,
    /// The network between the balancer and its host works both ways.
    pub reachable: bool,
    /// An apiserver process runs there.
    pub listening: bool,
    /// Which life of the apiserver answers there (a restart is a new one).
    pub life: u64,
}

impl Peer {
    /// A connection to it is refused at once: the host answers, nothing listens.
    fn refuses(&self) -> bool {
        self.up && self.reachable && !self.listening
    }

    /// A connection to it would be made.
    fn accepts(&self) -> bool {
        self.up && self.reachable && self.listening
    }
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
    /// When it last answered a check (passed or not): a client's ping would have been answered.
    answered: SimTime,
}

/// A client's connection through the balancer: the backend it was given when it dialled, and in
/// which lives of the client and of that backend's apiserver.
#[derive(Clone, Copy)]
struct Connection {
    backend: usize,
    client_life: u64,
    backend_life: u64,
}

#[derive(Clone)]
pub struct LoadBalancer {
    addr: Addr,
    config: LbConfig,
    backends: Vec<Backend>,
    next_id: u64,
    checks: MemberMap<u64, usize>,
    rr: usize,
    /// The connections of clients that keep theirs, by client.
    connections: MemberMap<Addr, Connection>,
}

impl LoadBalancer {
    pub fn new(host: HostId, backends: Vec<HostId>, config: LbConfig) -> Self {
        LoadBalancer {
            addr: Addr {
                host,
                port: Port::LB,
            },
            config,
            // A settled cluster starts with every backend in service.
            backends: backends
                .into_iter()
                .map(|host| Backend {
                    host,
                    up: true,
                    streak: 0,
                    answered: SimTime::ZERO,
                })
                .collect(),
            next_id: 0,
            checks: MemberMap::default(),
            rr: 0,
            connections: MemberMap::default(),
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        for b in &mut self.backends {
            b.answered = ctx.now;
        }
        ctx.set_timer(Port::LB, self.config.check_interval, Timer::LbCheck);
    }

    /// Every backend and whether it is in service.
    pub fn backends(&self) -> Vec<(HostId, bool)> {
        self.backends.iter().map(|b| (b.host, b.up)).collect()
    }

    /// Per backend, in the order of [`LoadBalancer::backends`], the connections held to it.
    pub fn connections(&self) -> Vec<u32> {
        let mut n = vec![0; self.backends.len()];
        for c in self.connections.values() {
            n[c.backend] += 1;
        }
        n
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
                Port::LB,
                Addr {
                    host: b.host,
                    port: Port::APISERVER,
                },
                Payload::Api(msg),
            );
            ctx.set_timer(Port::LB, CHECK_TIMEOUT, Timer::LbCheckTimeout { id });
        }
        ctx.set_timer(Port::LB, self.config.check_interval, Timer::LbCheck);
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
        if !ok && self.config.shutdown_sessions {
            self.connections.retain(|_, c| c.backend != i);
        }
        let name = ctx.obs.name(b.host).to_string();
        let check = match self.config.check {
            HealthCheck::Readyz => "/readyz",
            HealthCheck::Tcp => "the TCP check",
        };
        let (kind, text) = if ok {
            (Note::LbBackendUp, format!("the load balancer puts the apiserver on {name} back in service: {check} passed {rise} times"))
        } else if !self.config.connections {
            (Note::LbBackendDown, format!("the load balancer stops sending to the apiserver on {name}: {check} {why} {fall} times"))
        } else {
            let after = if self.config.shutdown_sessions {
                "its connections are closed and new ones go to the others"
            } else {
                "new connections go to the others, the ones it has stay"
            };
            (Note::LbBackendDown, format!("the load balancer takes the apiserver on {name} out of service: {check} {why} {fall} times; {after}"))
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
                self.backends[i].answered = ctx.now;
                let ok = resp == ApiResponse::Ready(true);
                self.record(ctx, i, ok, "failed");
            }
        }
    }

    /// Whether `msg`, sent to the balancer, is traffic it passes on (not an answer to its checks).
    pub fn relays(&self, msg: &ApiPayload) -> bool {
        msg.client() != Some(self.addr)
    }

    /// Where a request from `from` (in its life `from_life`) goes: to the backend of its
    /// connection, or to the next backend in service (with none, a failure back to its client).
    /// `peer` tells how a backend's apiserver stands. Anything else is not a request: None.
    pub fn route(
        &mut self,
        msg: ApiPayload,
        from_life: u64,
        now: SimTime,
        peer: impl Fn(HostId) -> Peer,
    ) -> Option<(Addr, ApiPayload)> {
        let ApiPayload::Request {
            id, client, req, ..
        } = msg
        else {
            return None;
        };
        let backend = if !self.config.connections {
            self.next_backend()
        } else if keeps_its_connection(client.port) {
            self.connection(client, from_life, now, peer)
        } else {
            self.dial(&peer, |p| !p.refuses())
        };
        let Some(backend) = backend else {
            let resp = ApiResponse::Failed(NO_BACKEND);
            return Some((client, ApiPayload::Response { id, client, resp }));
        };
        let backend = Addr {
            host: self.backends[backend].host,
            port: Port::APISERVER,
        };
        let fwd = ApiPayload::Request {
            id,
            client,
            via: Some(self.addr),
            req,
        };
        Some((backend, fwd))
    }

    /// The client closed its connections: its next request dials again. The host of the
    /// apiserver it was connected to, if it had a connection.
    pub fn hang_up(&mut self, client: Addr) -> Option<HostId> {
        let c = self.connections.remove(&client)?;
        Some(self.backends[c.backend].host)
    }

    /// The backend of `client`'s connection, dialling a new one if it has none that stands.
    fn connection(
        &mut self,
        client: Addr,
        client_life: u64,
        now: SimTime,
        peer: impl Fn(HostId) -> Peer,
    ) -> Option<usize> {
        if let Some(c) = self.connections.get(&client) {
            if c.client_life == client_life && self.stands(c, now, &peer) {
                return Some(c.backend);
            }
        }
        let Some(backend) = self.dial(&peer, Peer::accepts) else {
            self.connections.remove(&client);
            return None;
        };
        let c = Connection {
            backend,
            client_life,
            backend_life: peer(self.backends[backend].host).life,
        };
        self.connections.insert(client, c);
        Some(backend)
    }

    /// Whether a connection still stands: the apiserver it reached has not stopped (a running
    /// host resets a connection whose process is gone), and its client's health check has not
    /// given up on it: the backend has answered the balancer's checks within 45 s (what the
    /// client reads comes the same way, so it would have answered the client's ping too).
    fn stands(&self, c: &Connection, now: SimTime, peer: &impl Fn(HostId) -> Peer) -> bool {
        let b = &self.backends[c.backend];
        let p = peer(b.host);
        let reset = p.up && p.life != c.backend_life;
        !reset && now.saturating_sub(b.answered) < HTTP2_HEALTH_CHECK
    }

    /// A new connection: the next backend in service, round-robin, passing over those `takes`
    /// rejects (haproxy's `option redispatch`): one that refuses at once (no apiserver
    /// listening) for every client, and for a client that keeps its connection one out of
    /// reach too (haproxy's connect times out after 5 s and tries the next: those seconds are
    /// left out). A request of kubectl, curl or the write probe to one out of reach is lost.
    fn dial(&mut self, peer: &impl Fn(HostId) -> Peer, takes: fn(&Peer) -> bool) -> Option<usize> {
        let up = self.backends.iter().filter(|b| b.up).count();
        (0..up).find_map(|_| {
            let i = self.next_backend()?;
            takes(&peer(self.backends[i].host)).then_some(i)
        })
    }

    /// haproxy's `roundrobin` over the backends in service.
    fn next_backend(&mut self) -> Option<usize> {
        let up = self.backends.iter().filter(|b| b.up).count();
        if up == 0 {
            return None;
        }
        self.rr = (self.rr + 1) % up;
        let mut in_service = self.backends.iter().enumerate().filter(|(_, b)| b.up);
        in_service.nth(self.rr).map(|(i, _)| i)
    }
}

impl SelfTimed for LoadBalancer {
    /// Not while a backend is about to fall or rise, or stays in service on a host whose
    /// apiserver is gone (its checks will take it out). A connection to a backend taken out
    /// changes nothing of its own accord: its client redials when it next sends, and a client
    /// that fails there answers for itself.
    fn quiet(&self, stand: &Stand) -> Quiet {
        let gone = |&(h, up): &(HostId, bool)| {
            up && !(stand.running[h as usize] && stand.serves_api[h as usize])
        };
        Quiet::when(self.steady() && !self.backends().iter().any(gone))
    }

    /// Nothing of its own to move: its checks repeat what they found.
    fn skipped(&mut self, _: Duration, _: &Stand) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::wire::Key;

    const KUBELET: Addr = Addr {
        host: 10,
        port: Port::KUBELET,
    };
    const KUBECTL: Addr = Addr {
        host: 10,
        port: Port::TERMINAL,
    };

    fn balancer(connections: bool) -> LoadBalancer {
        let config = LbConfig {
            check: HealthCheck::Readyz,
            check_interval: Duration::from_secs(2),
            fall: 3,
            rise: 2,
            connections,
            shutdown_sessions: false,
        };
        LoadBalancer::new(0, vec![1, 2, 3], config)
    }

    fn request(client: Addr) -> ApiPayload {
        ApiPayload::Request {
            id: RequestId::new(Sub::default(), 1),
            client,
            via: None,
            req: ApiRequest::Get {
                key: Key::from("/registry/x"),
            },
        }
    }

    fn healthy(_: HostId) -> Peer {
        Peer {
            up: true,
            reachable: true,
            listening: true,
            life: 0,
        }
    }

    /// Where `client`'s request at second `t` goes.
    fn send(lb: &mut LoadBalancer, client: Addr, t: u64, peer: impl Fn(HostId) -> Peer) -> HostId {
        let at = SimTime::ZERO + Duration::from_secs(t);
        let (to, _) = lb.route(request(client), 0, at, peer).unwrap();
        to.host
    }

    #[test]
    fn a_client_that_keeps_its_connection_stays_on_one_backend_kubectl_goes_round() {
        let mut lb = balancer(true);
        let first = send(&mut lb, KUBELET, 0, healthy);
        assert!((1..=3).all(|t| send(&mut lb, KUBELET, t, healthy) == first));
        let kubectl: Vec<HostId> = (0..3).map(|t| send(&mut lb, KUBECTL, t, healthy)).collect();
        assert_eq!(kubectl.len(), 3);
        assert!(kubectl
            .iter()
            .all(|h| kubectl.iter().filter(|x| *x == h).count() == 1));
        // Balancing requests: the kubelet goes round too.
        let mut per_request = balancer(false);
        let a = send(&mut per_request, KUBELET, 0, healthy);
        assert_ne!(send(&mut per_request, KUBELET, 1, healthy), a);
    }

    #[test]
    fn a_connection_ends_when_its_apiserver_restarts_or_its_client_hangs_up() {
        let mut lb = balancer(true);
        let first = send(&mut lb, KUBELET, 0, healthy);
        // The same host, a new life of its apiserver: the old connection was reset.
        let restarted = |h: HostId| Peer {
            life: u64::from(h == first),
            ..healthy(h)
        };
        assert_ne!(send(&mut lb, KUBELET, 1, restarted), first);
        let second = send(&mut lb, KUBELET, 2, restarted);
        assert_eq!(lb.hang_up(KUBELET), Some(second));
        assert_eq!(lb.hang_up(KUBELET), None);
        assert_ne!(send(&mut lb, KUBELET, 3, restarted), second);
    }

    #[test]
    fn a_silent_backend_keeps_its_connections_until_the_http2_health_check_gives_up() {
        let mut lb = balancer(true);
        let first = send(&mut lb, KUBELET, 0, healthy);
        // Its host is down: no reset, no answer to anything since t = 0.
        let down = |h: HostId| Peer {
            up: h != first,
            ..healthy(h)
        };
        assert_eq!(send(&mut lb, KUBELET, 44, down), first);
        let next = send(&mut lb, KUBELET, 45, down);
        assert_ne!(next, first);
        // Its apiserver stopped, its host runs: every new connection there is refused and
        // goes to the next backend.
        let refusing = |h: HostId| Peer {
            listening: h != first,
            ..healthy(h)
        };
        assert!((46..60).all(|t| send(&mut lb, KUBECTL, t, refusing) != first));
    }
}
