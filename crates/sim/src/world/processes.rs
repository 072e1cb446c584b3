//! The Kubernetes processes of each host, addressed by host and port, and the one way the
//! world hands them an input: [`Processes::get`] gives the process at an address as a
//! [`Process`], which takes a message or a timer and says whether it exited. etcd members
//! live apart ([`super::etcd_cluster`]): a member's disk outlives its process.
//!
//! Slots per host rather than a map of boxed processes: every input looks its process up,
//! and a host's slots sit together in memory. The control plane's processes, on a few hosts of
//! many, are boxed: inline, their slots made every host 6 KB, a fifth of a 1,000-worker world
//! (and the page keeps a dozen copies of it).

use super::hosts::Hosts;
use crate::k8s::api::ApiPayload;
use crate::k8s::apiserver::{Apiserver, Verdict};
use crate::k8s::controllers::Controllers;
use crate::k8s::keepalived::Keepalived;
use crate::k8s::kubelet::Kubelet;
use crate::k8s::lb::LoadBalancer;
use crate::k8s::leader::Transition;
use crate::k8s::leading::Leading;
use crate::k8s::operator::Operator;
use crate::k8s::probe::ApiProbe;
use crate::k8s::proxy::{DnsServers, KubeProxy};
use crate::k8s::scheduler::Scheduler;
use crate::k8s::self_timed::SelfTimed;
use crate::k8s::vip::HoldVip;
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::rng::Rng;
use crate::kernel::time::Duration;

/// The Kubernetes processes of one host.
#[derive(Clone, Default)]
pub struct Procs {
    pub apiserver: Option<Box<Apiserver>>,
    pub lb: Option<Box<LoadBalancer>>,
    pub kcm: Option<Box<Leading<Controllers>>>,
    pub scheduler: Option<Box<Leading<Scheduler>>>,
    pub kube_vip: Option<Box<Leading<HoldVip>>>,
    pub keepalived: Option<Box<Keepalived>>,
    pub kubelet: Option<Kubelet>,
    pub proxy: Option<KubeProxy>,
    /// One DNS server per CoreDNS container the host's kubelet runs.
    pub dns: DnsServers,
}

#[derive(Clone)]
pub struct Processes {
    /// Per host, in host order.
    pub on: Vec<Procs>,
    /// On the hidden probe host: the API write probe and the operator (both exist when an
    /// apiserver does).
    pub api_probe: Option<ApiProbe>,
    pub operator: Option<Operator>,
    /// A console's call in progress (only on a copy of the world the console runs).
    pub terminal: Option<super::terminal::Terminal>,
    /// CoreDNS servers started so far: each gets its own range of request ids.
    pub dns_started: u64,
    /// Seeds each process's randomness, forked by label.
    pub rng: Rng,
}

/// The process at one address, ready to take an input.
pub enum Process<'a> {
    Apiserver(&'a mut Apiserver),
    Lb(&'a mut LoadBalancer),
    ControllerManager(&'a mut Leading<Controllers>),
    Scheduler(&'a mut Leading<Scheduler>),
    KubeVip(&'a mut Leading<HoldVip>),
    Keepalived(&'a mut Keepalived),
    Kubelet(&'a mut Kubelet),
    KubeProxy(&'a mut KubeProxy),
    CoreDns(&'a mut DnsServers),
    ApiProbe(&'a mut ApiProbe),
    Operator(&'a mut Operator),
}

impl Procs {
    /// Its processes (every field: a process added to the host is one more here, or this does
    /// not compile).
    fn self_timed(&self) -> impl Iterator<Item = &dyn SelfTimed> {
        let Procs {
            apiserver,
            lb,
            kcm,
            scheduler,
            kube_vip,
            keepalived,
            kubelet,
            proxy,
            dns,
        } = self;
        let one: [Option<&dyn SelfTimed>; 8] = [
            apiserver.as_deref().map(|p| p as _),
            lb.as_deref().map(|p| p as _),
            kcm.as_deref().map(|p| p as _),
            scheduler.as_deref().map(|p| p as _),
            kube_vip.as_deref().map(|p| p as _),
            keepalived.as_deref().map(|p| p as _),
            kubelet.as_ref().map(|p| p as _),
            proxy.as_ref().map(|p| p as _),
        ];
        (one.into_iter().flatten()).chain(dns.values().map(|p| p as _))
    }

    /// [`Procs::self_timed`], to change them.
    fn self_timed_mut(&mut self) -> impl Iterator<Item = &mut dyn SelfTimed> {
        let Procs {
            apiserver,
            lb,
            kcm,
            scheduler,
            kube_vip,
            keepalived,
            kubelet,
            proxy,
            dns,
        } = self;
        let one: [Option<&mut dyn SelfTimed>; 8] = [
            apiserver.as_deref_mut().map(|p| p as _),
            lb.as_deref_mut().map(|p| p as _),
            kcm.as_deref_mut().map(|p| p as _),
            scheduler.as_deref_mut().map(|p| p as _),
            kube_vip.as_deref_mut().map(|p| p as _),
            keepalived.as_deref_mut().map(|p| p as _),
            kubelet.as_mut().map(|p| p as _),
            proxy.as_mut().map(|p| p as _),
        ];
        (one.into_iter().flatten()).chain(dns.values_mut().map(|p| p as _))
    }

    /// Its keepalived is the VRRP master: it answers for the VIP.
    pub fn vrrp_master(&self) -> bool {
        self.keepalived.as_ref().is_some_and(|k| k.master)
    }
}

impl Processes {
    /// When a node lifecycle controller running now last saw `node`'s lease change (its probe
    /// time, the latest of them): `None` if none counts the node Ready or has seen it yet.
    pub(crate) fn node_heard_from(&self, node: &str) -> Option<crate::kernel::time::SimTime> {
        (self.on.iter())
            .filter_map(|p| p.kcm.as_ref()?.work()?.heard_from(node))
            .max()
    }

    pub fn new(hosts: usize, rng: Rng) -> Processes {
        Processes {
            on: (0..hosts).map(|_| Procs::default()).collect(),
            api_probe: None,
            operator: None,
            terminal: None,
            dns_started: 0,
            rng,
        }
    }

    /// The Kubernetes process at `to`, if it runs.
    pub fn get(&mut self, to: Addr) -> Option<Process<'_>> {
        if let Some(p) = self.on.get_mut(to.host as usize) {
            return match to.port {
                Port::APISERVER => p.apiserver.as_deref_mut().map(Process::Apiserver),
                Port::LB => p.lb.as_deref_mut().map(Process::Lb),
                Port::CONTROLLER_MANAGER => p.kcm.as_deref_mut().map(Process::ControllerManager),
                Port::SCHEDULER => p.scheduler.as_deref_mut().map(Process::Scheduler),
                Port::KUBE_VIP => p.kube_vip.as_deref_mut().map(Process::KubeVip),
                Port::KEEPALIVED => p.keepalived.as_deref_mut().map(Process::Keepalived),
                Port::KUBELET => p.kubelet.as_mut().map(Process::Kubelet),
                Port::KUBE_PROXY => p.proxy.as_mut().map(Process::KubeProxy),
                Port::COREDNS => Some(Process::CoreDns(&mut p.dns)),
                _ => None,
            };
        }
        match to.port {
            Port::API_PROBE => self.api_probe.as_mut().map(Process::ApiProbe),
            Port::OPERATOR => self.operator.as_mut().map(Process::Operator),
            _ => None,
        }
    }

    /// The process at `(h, port)` is gone (it exited, or is replaced). False for a port that
    /// is not one process the kubelet restarts on its own.
    pub fn remove(&mut self, h: HostId, port: Port) -> bool {
        let p = &mut self.on[h as usize];
        match port {
            Port::APISERVER => p.apiserver = None,
            Port::CONTROLLER_MANAGER => p.kcm = None,
            Port::KUBE_PROXY => p.proxy = None,
            Port::KUBELET => p.kubelet = None,
            Port::SCHEDULER => p.scheduler = None,
            Port::KUBE_VIP => p.kube_vip = None,
            _ => return false,
        }
        true
    }

    /// Every process of the running hosts, and the probe host's: the study's shortcut asks
    /// each whether it is quiet ([`SelfTimed`]).
    pub fn self_timed<'a>(
        &'a self,
        running: &'a [bool],
    ) -> impl Iterator<Item = &'a dyn SelfTimed> {
        let Processes {
            on,
            api_probe,
            operator,
            terminal: _,
            dns_started: _,
            rng: _,
        } = self;
        let hosts =
            (on.iter().zip(running).filter(|(_, &up)| up)).flat_map(|(p, _)| p.self_timed());
        let probe_host: [Option<&dyn SelfTimed>; 2] = [
            api_probe.as_ref().map(|p| p as _),
            operator.as_ref().map(|p| p as _),
        ];
        hosts.chain(probe_host.into_iter().flatten())
    }

    /// [`Processes::self_timed`], to change them.
    pub fn self_timed_mut<'a>(
        &'a mut self,
        running: &'a [bool],
    ) -> impl Iterator<Item = &'a mut dyn SelfTimed> {
        let Processes {
            on,
            api_probe,
            operator,
            terminal: _,
            dns_started: _,
            rng: _,
        } = self;
        let hosts = (on.iter_mut().zip(running).filter(|(_, &up)| up))
            .flat_map(|(p, _)| p.self_timed_mut());
        let probe_host: [Option<&mut dyn SelfTimed>; 2] = [
            api_probe.as_mut().map(|p| p as _),
            operator.as_mut().map(|p| p as _),
        ];
        hosts.chain(probe_host.into_iter().flatten())
    }

    /// Which state of its containers the host's kubelet is in (None without a kubelet).
    pub fn containers_version(&self, hosts: &Hosts, h: HostId) -> Option<(u64, u64)> {
        let k = self.on.get(h as usize)?.kubelet.as_ref()?;
        let to = Addr {
            host: h,
            port: Port::KUBELET,
        };
        Some((hosts.generation(to), k.containers_version))
    }
}

impl Process<'_> {
    /// Hands the process a message; true if it exited (lost its lease, killed by its probe).
    pub fn on_message(self, ctx: &mut Ctx, payload: Payload) -> bool {
        match self {
            Process::Apiserver(a) => {
                a.on_message(ctx, payload);
                a.verdict == Verdict::KilledByLiveness
            }
            Process::Lb(lb) => {
                lb.on_message(ctx, payload);
                false
            }
            Process::ControllerManager(p) => p.on_message(ctx, payload) == Transition::Lost,
            Process::Scheduler(p) => p.on_message(ctx, payload) == Transition::Lost,
            Process::KubeVip(p) => p.on_message(ctx, payload) == Transition::Lost,
            Process::Keepalived(k) => {
                k.on_message(ctx, payload);
                false
            }
            Process::Kubelet(k) => {
                k.on_message(ctx, payload);
                false
            }
            Process::KubeProxy(p) => {
                if let Payload::Api(msg) = &payload {
                    p.on_api(ctx, msg);
                }
                false
            }
            Process::CoreDns(servers) => {
                if let Payload::Api(msg) = &payload {
                    for d in servers.values_mut() {
                        if d.on_api(ctx, msg) {
                            break;
                        }
                    }
                }
                false
            }
            Process::ApiProbe(p) => {
                if let Payload::Api(ApiPayload::Response { id, resp, .. }) = payload {
                    p.on_response(id, &resp, ctx.now);
                }
                false
            }
            Process::Operator(o) => {
                if let Payload::Api(msg) = payload {
                    o.on_api(ctx, msg);
                }
                false
            }
        }
    }

    /// Hands the process a timer it set; true if it exited.
    pub fn on_timer(self, ctx: &mut Ctx, timer: Timer) -> bool {
        match self {
            Process::Apiserver(a) => {
                match timer {
                    Timer::EtcdTimeouts => a.on_etcd_timeouts(ctx),
                    Timer::Housekeeping => a.on_housekeeping(ctx),
                    Timer::Livez => a.on_livez(ctx),
                    _ => {}
                }
                a.verdict == Verdict::KilledByLiveness
            }
            Process::Lb(lb) => {
                match timer {
                    Timer::LbCheck => lb.on_check_timer(ctx),
                    Timer::LbCheckTimeout { id } => lb.on_check_timeout(ctx, id),
                    _ => {}
                }
                false
            }
            Process::ControllerManager(p) => p.on_timer(ctx, timer) == Transition::Lost,
            Process::Scheduler(p) => p.on_timer(ctx, timer) == Transition::Lost,
            Process::KubeVip(p) => p.on_timer(ctx, timer) == Transition::Lost,
            Process::Keepalived(k) => {
                k.on_timer(ctx, timer);
                false
            }
            Process::Kubelet(k) => {
                k.on_timer(ctx, timer);
                false
            }
            Process::KubeProxy(p) => {
                match timer {
                    Timer::Housekeeping => p.on_sync(ctx),
                    Timer::ApiTimeout { sub } => p.on_timeout(ctx, sub),
                    _ => {}
                }
                false
            }
            Process::CoreDns(servers) => {
                match timer {
                    Timer::Housekeeping => {
                        for d in servers.values_mut() {
                            d.tick(ctx);
                        }
                        if !servers.is_empty() {
                            ctx.set_timer(
                                Port::COREDNS,
                                Duration::from_secs(1),
                                Timer::Housekeeping,
                            );
                        }
                    }
                    Timer::ApiTimeout { sub } => {
                        if let Some(d) = servers.values_mut().find(|d| d.owns(sub)) {
                            d.on_timeout(ctx, sub);
                        }
                    }
                    _ => {}
                }
                false
            }
            Process::ApiProbe(p) => {
                if let Timer::ApiTimeout { .. } = timer {
                    p.on_timeout(ctx);
                }
                false
            }
            Process::Operator(o) => {
                match timer {
                    Timer::Housekeeping => o.on_tick(ctx),
                    Timer::Wake => o.on_wake(ctx),
                    Timer::ApiTimeout { .. } => o.on_timeout(ctx),
                    _ => {}
                }
                false
            }
        }
    }
}
