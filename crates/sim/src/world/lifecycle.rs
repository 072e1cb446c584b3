//! How hosts and their processes live: a host crashes (everything on it stops, its network
//! goes silent) and boots (etcd keeps its disk, every other process starts fresh); kubeadm's
//! static pods and the kubelet's restart of a process that exited, after its back-off; a
//! component restarted on its own (`restart_component`), keeping what that process keeps.

use super::membership::AfterStop;
use super::Timer;
use super::{K8sCtx, World};
use crate::k8s::apiserver::{Apiserver, ProbeThresholds};
use crate::k8s::controllers::{Controllers, ControllersSpec, NodeTimings};
use crate::k8s::keepalived::Keepalived;
use crate::k8s::kubelet::Kubelet;
use crate::k8s::lb::{HealthCheck, LbConfig, LoadBalancer};
use crate::k8s::leader::{LeaderElector, LeaseTimings, KCM_LEASE, KUBE_VIP_LEASE, SCHEDULER_LEASE};
use crate::k8s::leading::Leading;
use crate::k8s::node_lease::NodeLeaseTimings;
use crate::k8s::proxy::KubeProxy;
use crate::k8s::scheduler::{Scheduler, SchedulerSpec, Spread};
use crate::k8s::vip::HoldVip;
use crate::k8s::Observe as _;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::rng::Rng;
use crate::kernel::time::Duration;
use crate::record::EventKind;
use crate::scenario::{self, ApiEndpoint, Component, LbBalance, LbHealthCheck, Role};

impl World {
    /// Starts every Kubernetes process the host's roles call for (at boot and when it joins).
    pub(super) fn start_k8s_processes(&mut self, h: HostId) {
        let host = &self.scenario.hosts[h as usize];
        let ports: Vec<Port> = [
            (host.runs_apiserver(), Port::APISERVER),
            (host.has_role(Role::LoadBalancer), Port::LB),
            (host.runs_controller_manager(), Port::CONTROLLER_MANAGER),
            (host.runs_scheduler(), Port::SCHEDULER),
            (
                host.runs_apiserver()
                    && self.scenario.settings.api_endpoint == ApiEndpoint::KubeVip,
                Port::KUBE_VIP,
            ),
            (
                host.runs_apiserver()
                    && self.scenario.settings.api_endpoint == ApiEndpoint::Keepalived,
                Port::KEEPALIVED,
            ),
            (host.is_node(), Port::KUBELET),
            (host.is_worker(), Port::KUBE_PROXY),
            (host.has_role(Role::Client), Port::CLIENT),
        ]
        .into_iter()
        .filter(|(runs, _)| *runs)
        .map(|(_, p)| p)
        .collect();
        for port in ports {
            self.start_process(h, port);
        }
    }

    /// A fresh copy of one process starts on a host that is up: made from the scenario's
    /// settings, started with the context of its host, then its first effects applied.
    pub(super) fn start_process(&mut self, h: HostId, port: Port) {
        if !self.hosts[h as usize].up {
            return;
        }
        self.pods.touch(h);
        self.hosts.started(h, port, self.now);
        let me = Addr { host: h, port };
        let api = self.local_apiserver(h);
        let api_for_nodes = self.api_endpoint();
        macro_rules! start {
            ($process:expr, $slot:ident $(, $arg:expr)*) => {{
                let mut p = $process;
                let mut ctx: K8sCtx = ctx!(self, h);
                p.start(&mut ctx $(, $arg)*);
                self.procs.on[h as usize].$slot = Some(p.into());
            }};
        }
        match port {
            Port::APISERVER => start!(self.new_apiserver(h), apiserver),
            Port::LB => start!(self.new_lb(h), lb),
            Port::KEEPALIVED => start!(Keepalived::new(h, self.apiservers()), keepalived),
            Port::KUBE_VIP => {
                let Some(api) = api else { return };
                start!(self.new_kube_vip(me, api), kube_vip)
            }
            Port::CONTROLLER_MANAGER => {
                let Some(api) = api else { return };
                start!(self.new_controller_manager(me, api), kcm)
            }
            Port::SCHEDULER => {
                let Some(api) = api else { return };
                start!(self.new_scheduler(me, api), scheduler)
            }
            Port::KUBELET => {
                let Some(api) = api_for_nodes else { return };
                let (k, first_sync) = self.new_kubelet(h, api);
                start!(k, kubelet, first_sync)
            }
            Port::KUBE_PROXY => {
                let Some(api) = api_for_nodes else { return };
                start!(KubeProxy::new(me, api), proxy)
            }
            _ => {}
        }
        self.apply_effects(h);
        if port == Port::CLIENT {
            self.set_timer(self.now, me, Timer::ClientTick);
        }
    }

    /// The hosts that run an apiserver: the load balancer's backends, keepalived's VRRP group
    /// (only they need the list: a thousand kubelets starting would each scan every host).
    fn apiservers(&self) -> Vec<HostId> {
        (0..self.scenario.hosts.len() as HostId)
            .filter(|&x| self.scenario.hosts[x as usize].runs_apiserver())
            .collect()
    }

    /// An apiserver: its local etcd member if the host runs one (stacked), else every member.
    fn new_apiserver(&self, h: HostId) -> Box<Apiserver> {
        let endpoints = if self.scenario.hosts[h as usize].has_role(Role::Etcd) {
            vec![h]
        } else {
            (self.scenario.hosts.iter().enumerate())
                .filter(|(_, x)| x.has_role(Role::Etcd))
                .map(|(i, _)| i as HostId)
                .collect()
        };
        let s = &self.scenario.settings;
        let probes = ProbeThresholds {
            liveness: s.apiserver_liveness_failure_threshold,
            startup: s.apiserver_startup_failure_threshold,
        };
        Box::new(Apiserver::new(h, endpoints, probes))
    }

    fn new_lb(&self, h: HostId) -> LoadBalancer {
        let s = &self.scenario.settings;
        let check = match s.lb_health_check {
            LbHealthCheck::Readyz => HealthCheck::Readyz,
            LbHealthCheck::Tcp => HealthCheck::Tcp,
        };
        let config = LbConfig {
            check,
            check_interval: s.lb_check_interval,
            fall: s.lb_fall,
            rise: s.lb_rise,
            connections: s.lb_balance == LbBalance::Connection,
            shutdown_sessions: s.lb_shutdown_sessions,
        };
        LoadBalancer::new(h, self.apiservers(), config)
    }

    /// This life of the process at `me`, for the labels of its random streams.
    fn life_label(&self, what: &str, me: Addr) -> String {
        let life = self.hosts.generation(me);
        format!("{what}/{}/{life}", self.hosts.name(me.host))
    }

    fn new_kube_vip(&self, me: Addr, api: Addr) -> Box<Leading<HoldVip>> {
        let s = &self.scenario.settings;
        let rng = self.procs.rng.fork(&self.life_label(KUBE_VIP_LEASE, me));
        let timings = LeaseTimings {
            lease_duration: s.kube_vip_lease_duration,
            renew_deadline: s.kube_vip_renew_deadline,
            retry_period: s.kube_vip_retry_period,
        };
        let name = self.hosts.name(me.host).to_string();
        let elector = LeaderElector::new(KUBE_VIP_LEASE, me.host, name, me, api, timings, rng);
        Box::new(Leading::new(elector, me.port, ()))
    }

    /// The leader elector of a controller-manager or scheduler, and its random stream.
    fn elector(&self, lease: &'static str, me: Addr, api: Addr) -> (LeaderElector, Rng) {
        let s = &self.scenario.settings;
        let timings = LeaseTimings {
            lease_duration: s.lease_duration,
            renew_deadline: s.renew_deadline,
            retry_period: s.retry_period,
        };
        let label = self.life_label(lease, me);
        let rng = self.procs.rng.fork(&label);
        // `hostname_UUID`, a new UUID each start: a restarted copy sees the lease held by its
        // former self as held by another, and waits for it to expire.
        let mut id_rng = self.procs.rng.fork(&format!("{label}/id"));
        let identity = format!("{}_{}", self.hosts.name(me.host), id_rng.uuid());
        let elector = LeaderElector::new(lease, me.host, identity, me, api, timings, rng.clone());
        (elector, rng)
    }

    fn new_controller_manager(&self, me: Addr, api: Addr) -> Box<Leading<Controllers>> {
        let s = &self.scenario.settings;
        let (elector, rng) = self.elector(KCM_LEASE, me, api);
        let timings = NodeTimings {
            node_monitor_period: s.node_monitor_period,
            node_monitor_grace_period: s.node_monitor_grace_period,
            toleration_seconds: s.toleration_seconds,
            node_eviction_rate: s.node_eviction_rate.as_f64(),
            secondary_node_eviction_rate: s.secondary_node_eviction_rate.as_f64(),
            large_cluster_size_threshold: s.large_cluster_size_threshold as usize,
            unhealthy_zone_threshold: s.unhealthy_zone_threshold.as_f64(),
        };
        let budgets = self.scenario.workloads.iter().any(|w| w.pdb.is_some());
        // With a cloud controller manager, the Nodes of machines already gone.
        let cloud = s.cloud_controller_manager.then(|| {
            let mut gone = crate::kernel::members::MemberSet::new();
            let hosts = self.scenario.hosts.iter().zip(self.hosts.iter());
            for (h, _) in hosts.filter(|(_, state)| state.terminated) {
                gone.insert(h.name.clone());
            }
            gone
        });
        let spec = ControllersSpec {
            budgets,
            cloud,
            me,
            api,
            timings,
            rng,
        };
        Box::new(Leading::new(elector, me.port, spec))
    }

    fn new_scheduler(&self, me: Addr, api: Addr) -> Box<Leading<Scheduler>> {
        let (elector, _) = self.elector(SCHEDULER_LEASE, me, api);
        let spread = (self.scenario.workloads.iter())
            .filter_map(|w| {
                let over = match w.spread? {
                    scenario::Spread::Zone => Spread::Zone,
                    scenario::Spread::Host => Spread::Host,
                };
                Some((w.name.clone(), over))
            })
            .collect();
        let spec = SchedulerSpec {
            me,
            api,
            order: self.hosts.worker_order.clone(),
            capacity: self.hosts.capacity.clone(),
            spread,
            track_pending: self.scenario.tracks_pending(),
        };
        Box::new(Leading::new(elector, me.port, spec))
    }

    /// A kubelet, and when its first lease sync is due.
    fn new_kubelet(&self, h: HostId, api: Addr) -> (Kubelet, Duration) {
        let s = &self.scenario.settings;
        let host = &self.scenario.hosts[h as usize];
        let me = Addr {
            host: h,
            port: Port::KUBELET,
        };
        let mut rng = self.procs.rng.fork(&self.life_label("kubelet", me));
        // Real nodes join a cluster at different times, so their lease syncs are spread over a
        // period; the run's cluster boots all at once (before t = 0): the first sync of a
        // kubelet that starts with it is drawn over a period instead.
        let first_sync = if self.now < self.obs.origin {
            s.node_lease_renew_interval.mul_f64(rng.unit())
        } else {
            Duration::ZERO
        };
        let timings = NodeLeaseTimings {
            renew_interval: s.node_lease_renew_interval,
            lease_duration: s.node_lease_duration,
        };
        let name = self.hosts.name(h).to_string();
        let zone = host.zone.clone();
        let k = Kubelet::new(h, name, zone, host.is_control_plane(), api, timings, rng);
        let stop_takes = (self.scenario.workloads.iter())
            .filter(|w| w.stop_takes > Duration::ZERO)
            .map(|w| (w.name.clone(), w.stop_takes))
            .collect();
        let k = (k.with_stop_times(stop_takes)).with_static_pods(host.static_pods().collect());
        (k, first_sync)
    }

    /// A process exited (lost its lease) or was killed (liveness): the kubelet restarts it
    /// after its back-off.
    pub(super) fn process_exited(&mut self, h: HostId, port: Port) {
        self.pods.touch(h);
        if !self.procs.remove(h, port) {
            return;
        }
        let backoff = self.hosts.exited(h, port, self.now);
        let to = Addr { host: h, port };
        self.set_timer(self.now + backoff, to, Timer::Start);
    }

    /// `restart_component`: one process restarts at once, with what that process keeps:
    /// a restarted kubelet adopts the running containers; kube-proxy and CoreDNS start with
    /// empty caches until they can list from the API; etcd keeps its disk.
    pub(super) fn restart_component(&mut self, h: HostId, component: Component) {
        let name = self.hosts.name(h).to_string();
        let (port, what) = match component {
            Component::Etcd => {
                self.stop_etcd_cleanly(h, AfterStop::Restart);
                return;
            }
            Component::Coredns => {
                let pods: Vec<String> = self.procs.on[h as usize].dns.keys().cloned().collect();
                self.procs.on[h as usize].dns.clear();
                self.hosts[h as usize].process_generation[Port::COREDNS.index()] += 1;
                self.sync_dns_servers(h);
                let text = format!("CoreDNS on {name} ({}) restarted: it must list Services from the API before it can answer", pods.join(", "));
                self.push_event(EventKind::ComponentRestarted, Some(h), text);
                return;
            }
            Component::KubeProxy => (
                Port::KUBE_PROXY,
                "kube-proxy restarted: the node's rules stay as they are until it has listed EndpointSlices from the API",
            ),
            Component::Kubelet => (
                Port::KUBELET,
                "the kubelet restarted: its containers keep running",
            ),
            Component::Apiserver => (Port::APISERVER, "the apiserver restarted"),
            Component::KubeControllerManager => {
                (Port::CONTROLLER_MANAGER, "kube-controller-manager restarted")
            }
            Component::KubeScheduler => (Port::SCHEDULER, "kube-scheduler restarted"),
        };
        let containers = self.procs.on[h as usize]
            .kubelet
            .as_ref()
            .map(|k| k.containers.clone());
        let proxy = (port == Port::KUBE_PROXY)
            .then(|| self.procs.on[h as usize].proxy.clone())
            .flatten();
        let lease = match port {
            Port::CONTROLLER_MANAGER => Some(KCM_LEASE),
            Port::SCHEDULER => Some(SCHEDULER_LEASE),
            _ => None,
        };
        if let Some(lease) = lease {
            self.obs
                .lease_lost(self.now, lease, h, "its process restarted");
        }
        self.procs.remove(h, port);
        self.hosts[h as usize].process_generation[port.index()] += 1;
        self.start_process(h, port);
        if let (Some(containers), Some(k)) =
            (containers, self.procs.on[h as usize].kubelet.as_mut())
        {
            k.containers = containers;
        }
        if let (Some(old), Some(new)) = (proxy, self.procs.on[h as usize].proxy.as_mut()) {
            new.inherit(&old);
        }
        self.push_event(
            EventKind::ComponentRestarted,
            Some(h),
            format!("on {name}, {what}"),
        );
    }

    pub(super) fn crash_host(&mut self, h: HostId, why: &str) {
        let rt = &mut self.hosts[h as usize];
        if !rt.up {
            return;
        }
        rt.up = false;
        rt.incarnation += 1;
        self.net.set_up(h, false);
        self.pods.touch(h);
        let name = rt.name.clone();
        self.push_event(
            EventKind::HostCrashed,
            Some(h),
            format!("{name} went down: {why}"),
        );
        let master = self.procs.on[h as usize].vrrp_master();
        self.procs.on[h as usize] = Default::default();
        if master && !(0..self.hosts.len() as HostId).any(|x| self.holds_vip(x)) {
            self.push_event(
                EventKind::VipLost,
                Some(h),
                format!("the virtual IP went down with {name}: nobody answers for it until a backup hears no VRRP advertisement for 3 × 1 s + skew"),
            );
        }
        for lease in [KCM_LEASE, SCHEDULER_LEASE, KUBE_VIP_LEASE] {
            self.obs.lease_lost(self.now, lease, h, "");
        }
        self.update_quorum();
    }

    pub(super) fn boot_host(&mut self, h: HostId) {
        let rt = &mut self.hosts[h as usize];
        if rt.up || rt.terminated {
            return;
        }
        rt.up = true;
        rt.incarnation += 1;
        self.net.set_up(h, true);
        let name = rt.name.clone();
        self.push_event(
            EventKind::HostStarted,
            Some(h),
            format!("{name} is up again; its processes start fresh"),
        );
        if let Some(m) = self.etcd.members[h as usize].as_mut() {
            m.restart();
            self.start_etcd_ticks(h);
        }
        self.hosts.booted(h);
        if self.hosts[h as usize].joined {
            self.start_k8s_processes(h);
        }
        self.update_quorum();
    }
}
