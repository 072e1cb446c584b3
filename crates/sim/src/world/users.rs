//! Users' requests, as the scenario format defines them (see `k8s::traffic`): every 100 ms a
//! `client` host resolves each Service through a CoreDNS pod and sends to a NodePort of a
//! worker it can reach, whose kube-proxy picks an endpoint from its own rules. Every step
//! consults a process's own state, at the moment the request is sent.

use super::processes::Procs;
use super::World;
use crate::k8s::objects::slice_key;
use crate::k8s::proxy::DnsAnswer;
use crate::k8s::traffic::{Client, REQUEST_PERIOD};
use crate::kernel::keymap::KeyMap;
use crate::kernel::members::MemberMap;
use crate::kernel::net::{HostId, Network};
use crate::kernel::process::{Addr, Port, Timer};
use crate::kernel::rng::Rng;
use crate::record::Traffic;
use crate::scenario::COREDNS;

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

    fn client(&mut self, client: HostId) -> &mut Client {
        let rng = &self.rng;
        self.clients
            .get_or_insert_with(client, || Client {
                rng: rng.fork(&format!("client/{client}")),
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
        // Each connection its own draw, as kube-proxy balances each connection anew.
        let mut rng =
            Rng::new(self.now.0 ^ (from as u64) << 40).fork(&format!("connection/{connection}"));
        let procs = &self.procs.on;
        let usable = |h: HostId| {
            self.host_is_up(h) && procs[h as usize].proxy.is_some() && self.net.connected(from, h)
        };
        let entry = match node {
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
        };
        let Some(entry) = entry else {
            return ServiceHop::Unreachable;
        };
        let index = self.hosts.index();
        if lookup {
            let coredns = &self.users.coredns_key;
            let answer = pick_endpoint(procs, &self.net, &mut rng, entry, coredns, index)
                .and_then(|(pod, host)| procs[host as usize].dns.get(pod))
                .map(|server| server.resolve(service, self.now));
            match answer {
                Some(DnsAnswer::Answer) => {}
                Some(DnsAnswer::ServFail | DnsAnswer::NxDomain) => return ServiceHop::DnsFailed,
                Some(DnsAnswer::Silent) | None => return ServiceHop::DnsTimeout,
            }
        }
        let rules = procs[entry as usize]
            .proxy
            .as_ref()
            .map_or(&[][..], |p| p.rules(service));
        if rules.is_empty() {
            return ServiceHop::NoEndpoints;
        }
        let e = &rules[rng.below(rules.len() as u64) as usize];
        match index.get(&e.node) {
            Some(&h) if self.host_is_up(h) && self.net.connected(entry, h) => {
                match self.runs_pod(h, &e.pod) {
                    true => ServiceHop::Served { pod: e.pod.clone() },
                    false => ServiceHop::Refused,
                }
            }
            _ => ServiceHop::Unreachable,
        }
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
                let ok = self.request(h, i, service, second as usize);
                self.users.traffic.record(i, second as usize, ok);
            }
            self.users.traffic.services = services;
        }
        let to = Addr {
            host: h,
            port: Port::Client,
        };
        self.set_timer(self.now + REQUEST_PERIOD, to, Timer::ClientTick);
    }

    /// A worker the client can reach whose kube-proxy runs, chosen uniformly (by rejection:
    /// draws among all workers until one is reachable, then a full scan if none was found).
    fn pick_worker(&mut self, client: HostId) -> Option<HostId> {
        let (procs, net) = (&self.procs.on, &self.net);
        let usable = |h: HostId| procs[h as usize].proxy.is_some() && net.connected(client, h);
        let workers = &self.hosts.worker_ids;
        let c = self.users.client(client);
        let n = workers.len() as u64;
        for _ in 0..16.min(n) {
            let h = workers[c.rng.below(n) as usize];
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
        Some(reachable[c.rng.below(reachable.len() as u64) as usize])
    }

    /// A request of `client` to the `i`th Service of the traffic, `service`.
    fn request(&mut self, client: HostId, i: usize, service: &str, second: usize) -> bool {
        let now = self.now;
        let cached = self
            .users
            .clients
            .get(&client)
            .and_then(|c| c.dns_cache.get(service))
            .is_some_and(|&t| t > now);
        if !cached {
            let answered = (|| {
                let worker = self.pick_worker(client)?;
                let rng = &mut self.users.clients.get_mut(&client)?.rng;
                let (pod, host) = pick_endpoint(
                    &self.procs.on,
                    &self.net,
                    rng,
                    worker,
                    &self.users.coredns_key,
                    self.hosts.index(),
                )?;
                let server = self.procs.on[host as usize].dns.get(pod)?;
                (server.resolve(service, now) == DnsAnswer::Answer).then_some(())
            })();
            self.users.traffic.record_lookup(second, answered.is_some());
            if answered.is_none() {
                return false;
            }
            let ttl = self.scenario.settings.dns_cache_ttl;
            if let Some(c) = self.users.clients.get_mut(&client) {
                c.dns_cache.insert(service.to_string(), now + ttl);
            }
        }
        let Some(worker) = self.pick_worker(client) else {
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
