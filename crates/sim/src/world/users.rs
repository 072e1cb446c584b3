//! Users' requests, as the scenario format defines them (see `k8s::traffic`): every 100 ms a
//! `client` host resolves each Service through a CoreDNS pod and sends to a NodePort of a
//! worker it can reach, whose kube-proxy picks an endpoint from its own rules. Every step
//! consults a process's own state, at the moment the request is sent. Each round also makes
//! one uncached lookup per Service for the page's DNS row.

use super::processes::Procs;
use super::Timer;
use super::World;
use crate::k8s::objects::slice_key;
use crate::k8s::proxy::DnsAnswer;
use crate::k8s::traffic::{Client, REQUEST_PERIOD};
use crate::kernel::keymap::KeyMap;
use crate::kernel::members::MemberMap;
use crate::kernel::net::{HostId, Network};
use crate::kernel::process::{Addr, Port};
use crate::kernel::rng::Rng;
use crate::kernel::time::SimTime;
use crate::record::Traffic;
use crate::scenario::COREDNS;

/// The port of a `client` host's traffic, the world's own process, numbered on from the
/// cluster's.
impl Port {
    pub const CLIENT: Port = Port::OPERATOR.next();
}

/// Where a request to a Service ended ([`World::service_request`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ServiceHop {
    /// No CoreDNS pod answered the lookup.
    DnsTimeout,
    /// CoreDNS answered that it cannot resolve the name (SERVFAIL, NXDOMAIN).
    DnsFailed,
    /// The entry node has no rules for the Service: kube-proxy rejects the connection.
    NoEndpoints,
    /// No node to enter by, or the endpoint's host is down or cut off: no answer.
    Unreachable,
    /// The endpoint's host is up but its pod runs no container: reset.
    Refused,
    Served {
        pod: String,
    },
}

#[derive(Clone)]
pub struct Users {
    clients: MemberMap<HostId, Client>,
    pub traffic: Traffic,
    /// The EndpointSlice keys of CoreDNS and of each Service of `traffic`, in its order.
    coredns_key: String,
    slice_keys: Vec<String>,
    /// Seeds each client's randomness, forked by label.
    rng: Rng,
}

impl Users {
    pub fn new(services: Vec<String>, rng: Rng) -> Users {
        Users {
            clients: MemberMap::default(),
            coredns_key: slice_key(COREDNS),
            slice_keys: services.iter().map(|s| slice_key(s)).collect(),
            traffic: Traffic::new(services),
            rng,
        }
    }

    /// `client`'s state, made on first use with its streams forked from the users' stream.
    fn client(&mut self, client: HostId) -> &mut Client {
        let rng = &self.rng;
        self.clients
            .get_or_insert_with(client, || Client {
                rng: rng.fork(&format!("client/{client}")),
                probe: rng.fork(&format!("dns-probe/{client}")),
                dns_cache: Default::default(),
            })
            .0
    }
}

impl World {
    /// A request from `from` to a Service, as the users' requests go (`users.rs`), consulting
    /// each process's state now: the name looked up through CoreDNS (when `lookup`), then the
    /// rules of the entry node's kube-proxy (`node`, a NodePort; else `from` itself when it runs
    /// kube-proxy, else a worker `from` reaches), then the pod. The world does not move.
    /// `connection` numbers the caller's connections: each is balanced anew.
    pub fn service_request(
        &self,
        from: HostId,
        service: &str,
        lookup: bool,
        node: Option<HostId>,
        connection: u64,
    ) -> ServiceHop {
        let mut rng = connection_rng(self.now, from, connection);
        let Some(entry) = self.entry_node(from, node, &mut rng) else {
            return ServiceHop::Unreachable;
        };
        if lookup {
            match self.lookup_through(entry, service, &mut rng) {
                DnsAnswer::Answer => {}
                DnsAnswer::ServFail | DnsAnswer::NxDomain => return ServiceHop::DnsFailed,
                DnsAnswer::Silent => return ServiceHop::DnsTimeout,
            }
        }
        let procs = &self.procs.on;
        let rules = procs[entry as usize]
            .proxy
            .as_ref()
            .map_or(&[][..], |p| p.rules(service));
        if rules.is_empty() {
            return ServiceHop::NoEndpoints;
        }
        let e = &rules[rng.below(rules.len() as u64) as usize];
        match self.hosts.index().get(&e.node) {
            Some(&h) if self.host_is_up(h) && self.net.connected(entry, h) => {
                match self.runs_pod(h, &e.pod) {
                    true => ServiceHop::Served { pod: e.pod.clone() },
                    false => ServiceHop::Refused,
                }
            }
            _ => ServiceHop::Unreachable,
        }
    }

    /// A name lookup of `service` from `from` to the cluster DNS Service, as a pod's resolver
    /// makes it (one query, over connection number `connection`): kube-proxy on `from`, or on a
    /// worker it reaches, sends it to a CoreDNS pod, which answers from its informer's cache.
    /// `Silent` when no CoreDNS pod can be reached or none answers.
    pub fn name_lookup(&self, from: HostId, service: &str, connection: u64) -> DnsAnswer {
        let mut rng = connection_rng(self.now, from, connection);
        match self.entry_node(from, None, &mut rng) {
            Some(entry) => self.lookup_through(entry, service, &mut rng),
            None => DnsAnswer::Silent,
        }
    }

    /// The node whose kube-proxy routes a connection of `from`: `node` (a NodePort) if usable,
    /// else `from` itself when it runs kube-proxy, else a worker `from` reaches.
    fn entry_node(&self, from: HostId, node: Option<HostId>, rng: &mut Rng) -> Option<HostId> {
        let procs = &self.procs.on;
        let usable = |h: HostId| {
            self.host_is_up(h) && procs[h as usize].proxy.is_some() && self.net.connected(from, h)
        };
        match node {
            Some(h) => Some(h).filter(|&h| usable(h)),
            None if procs[from as usize].proxy.is_some() => Some(from),
            None => {
                let workers: Vec<HostId> = self
                    .hosts
                    .worker_ids
                    .iter()
                    .copied()
                    .filter(|&h| usable(h))
                    .collect();
                (!workers.is_empty()).then(|| workers[rng.below(workers.len() as u64) as usize])
            }
        }
    }

    /// A query of `service` sent by `entry`'s kube-proxy to a CoreDNS pod in its rules.
    fn lookup_through(&self, entry: HostId, service: &str, rng: &mut Rng) -> DnsAnswer {
        let procs = &self.procs.on;
        let coredns = &self.users.coredns_key;
        pick_endpoint(procs, &self.net, rng, entry, coredns, self.hosts.index())
            .and_then(|(pod, host)| procs[host as usize].dns.get(pod))
            .map_or(DnsAnswer::Silent, |server| {
                server.resolve(service, self.now)
            })
    }

    /// Whether every route the users' requests may take ends where it should: every rule of a
    /// running kube-proxy, for each Service and for CoreDNS, names a pod that runs on a host
    /// it reaches, and every such CoreDNS answers for each Service. Then a request succeeds
    /// whichever worker and endpoint it picks, and a lookup at its DNS cache's expiry too; a
    /// request that fails by chance, or a failure a cached answer hides, is not on its way.
    pub(super) fn routes_hold(&self) -> bool {
        let procs = &self.procs.on;
        let index = self.hosts.index();
        let services = (self.users.traffic.services.iter().map(String::as_str))
            .zip(self.users.slice_keys.iter().map(String::as_str));
        let dns = std::iter::once((COREDNS, self.users.coredns_key.as_str()));
        self.hosts.worker_ids.iter().all(|&w| {
            let Some(proxy) = procs[w as usize]
                .proxy
                .as_ref()
                .filter(|_| self.host_is_up(w))
            else {
                return true;
            };
            dns.clone().chain(services.clone()).all(|(service, key)| {
                proxy.rules_at(key).iter().all(|e| {
                    let Some(&h) = index.get(&e.node) else {
                        return false;
                    };
                    let serves = self.host_is_up(h) && self.net.connected(w, h);
                    if service != COREDNS {
                        return serves && self.runs_pod(h, &e.pod);
                    }
                    let answers = |(s, _): (&str, &str)| {
                        let server = procs[h as usize].dns.get(e.pod.as_str());
                        server.is_some_and(|d| d.resolve(s, self.now) == DnsAnswer::Answer)
                    };
                    serves && services.clone().all(answers)
                })
            })
        })
    }

    /// One round of a client's requests: one per Service.
    pub(super) fn client_tick(&mut self, h: HostId) {
        let second = self.obs.secs(self.now).floor();
        if second >= 0.0 && self.now <= self.end() {
            // The names are lent out of `traffic` for the round, which `request` does not touch.
            let services = std::mem::take(&mut self.users.traffic.services);
            for (i, service) in services.iter().enumerate() {
                let ok = self.request(h, i, service);
                self.users.traffic.record(i, second as usize, ok);
                let answered = self.lookup(h, service, Draws::Probe);
                self.users.traffic.record_lookup(second as usize, answered);
            }
            self.users.traffic.services = services;
        }
        let to = Addr {
            host: h,
            port: Port::CLIENT,
        };
        self.set_timer(self.now + REQUEST_PERIOD, to, Timer::ClientTick);
    }

    /// A worker the client can reach whose kube-proxy runs, chosen uniformly (by rejection:
    /// draws among all workers until one is reachable, then a full scan if none was found).
    fn pick_worker(&mut self, client: HostId, draws: Draws) -> Option<HostId> {
        let (procs, net) = (&self.procs.on, &self.net);
        let usable = |h: HostId| procs[h as usize].proxy.is_some() && net.connected(client, h);
        let workers = &self.hosts.worker_ids;
        let rng = draws.of(self.users.client(client));
        let n = workers.len() as u64;
        for _ in 0..16.min(n) {
            let h = workers[rng.below(n) as usize];
            if usable(h) {
                return Some(h);
            }
        }
        let reachable: Vec<HostId> = self
            .scenario
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, h)| h.is_worker() && usable(*i as HostId))
            .map(|(i, _)| i as HostId)
            .collect();
        if reachable.is_empty() {
            return None;
        }
        Some(reachable[rng.below(reachable.len() as u64) as usize])
    }

    /// A name lookup of `service` by `client` through a worker's kube-proxy to a CoreDNS pod:
    /// whether it was answered.
    fn lookup(&mut self, client: HostId, service: &str, draws: Draws) -> bool {
        let Some(worker) = self.pick_worker(client, draws) else {
            return false;
        };
        // The client's stream, lent to the query and given back with the draws it made.
        let mut rng = draws.of(self.users.client(client)).clone();
        let answer = self.lookup_through(worker, service, &mut rng);
        *draws.of(self.users.client(client)) = rng;
        answer == DnsAnswer::Answer
    }

    /// A request of `client` to the `i`th Service of the traffic, `service`.
    fn request(&mut self, client: HostId, i: usize, service: &str) -> bool {
        let now = self.now;
        let cached = self
            .users
            .clients
            .get(&client)
            .and_then(|c| c.dns_cache.get(service))
            .is_some_and(|&t| t > now);
        if !cached {
            if !self.lookup(client, service, Draws::Requests) {
                return false;
            }
            let ttl = self.scenario.settings.dns_cache_ttl;
            if let Some(c) = self.users.clients.get_mut(&client) {
                c.dns_cache.insert(service.to_string(), now + ttl);
            }
        }
        let Some(worker) = self.pick_worker(client, Draws::Requests) else {
            return false;
        };
        let Some(rng) = self.users.clients.get_mut(&client).map(|c| &mut c.rng) else {
            return false;
        };
        let Some((pod, host)) = pick_endpoint(
            &self.procs.on,
            &self.net,
            rng,
            worker,
            &self.users.slice_keys[i],
            self.hosts.index(),
        ) else {
            return false;
        };
        self.runs_pod(host, pod)
    }
}

/// Each connection its own draw, as kube-proxy balances each connection anew.
fn connection_rng(now: SimTime, from: HostId, connection: u64) -> Rng {
    Rng::new(now.0 ^ (from as u64) << 40).fork(&format!("connection/{connection}"))
}

/// Which of a client's random streams a lookup draws from.
#[derive(Clone, Copy)]
enum Draws {
    /// The users' requests (and their cached lookups).
    Requests,
    /// The DNS row's uncached lookup of every round.
    Probe,
}

impl Draws {
    fn of(self, c: &mut Client) -> &mut Rng {
        match self {
            Draws::Requests => &mut c.rng,
            Draws::Probe => &mut c.probe,
        }
    }
}

/// The endpoint a worker's kube-proxy picks for the Service whose EndpointSlice is at
/// `slice_key`, as (pod, host of the pod), if the worker can reach that host.
fn pick_endpoint<'a>(
    procs: &'a [Procs],
    net: &Network,
    rng: &mut Rng,
    worker: HostId,
    slice_key: &str,
    host_index: &KeyMap<HostId>,
) -> Option<(&'a str, HostId)> {
    let rules = procs[worker as usize].proxy.as_ref()?.rules_at(slice_key);
    if rules.is_empty() {
        return None;
    }
    let e = &rules[rng.below(rules.len() as u64) as usize];
    let host = *host_index.get(&e.node)?;
    net.connected(worker, host)
        .then_some((e.pod.as_str(), host))
}
