//! CoreDNS's lifecycle on a host: one DNS server per CoreDNS container the host's kubelet
//! runs, started when the container starts (with an empty cache, listing Services from the
//! API) and gone when it stops.

use super::World;
use crate::k8s::proxy::DnsServer;
use crate::k8s::wire::Timer;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Sub};
use crate::scenario::COREDNS;

impl World {
    /// Keeps one DNS server per CoreDNS container the host's kubelet runs.
    pub(super) fn sync_dns_servers(&mut self, h: HostId) {
        let procs = &mut self.procs.on[h as usize];
        let running: Vec<String> = procs
            .kubelet
            .as_ref()
            .map(|k| {
                k.containers
                    .iter()
                    .filter(|(_, c)| c.workload == COREDNS)
                    .map(|(p, _)| p.clone())
                    .collect()
            })
            .unwrap_or_default();
        let before = procs.dns.len();
        procs.dns.retain(|p, _| running.contains(p));
        let new: Vec<String> = running
            .into_iter()
            .filter(|p| !procs.dns.contains_key(p))
            .collect();
        if new.is_empty() {
            return;
        }
        let Some(api) = self.api_endpoint() else {
            return;
        };
        let me = Addr {
            host: h,
            port: Port::COREDNS,
        };
        for pod in new {
            self.procs.dns_started += 1;
            let sub = Sub(self.procs.dns_started as u32);
            let server = DnsServer::new(me, api, sub, self.now);
            self.procs.on[h as usize].dns.insert(pod, server);
        }
        if before == 0 {
            self.set_timer(self.now, me, Timer::Housekeeping);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The scenario's names of kube-system's pods and the Kubernetes layer's are one.
    #[test]
    fn kube_system_pods_have_one_name() {
        assert_eq!(super::COREDNS, crate::k8s::objects::COREDNS);
        assert_eq!(crate::scenario::KUBE_PROXY, crate::k8s::objects::KUBE_PROXY);
        assert_eq!(
            crate::scenario::STATIC_PODS,
            crate::k8s::objects::STATIC_PODS
        );
    }
}
