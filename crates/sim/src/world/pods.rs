//! Counting what runs: the containers of every workload on every host, as the kubelets hold
//! them (the truth of what runs, whatever the API believes), the most of each seen at once,
//! and the check that no StatefulSet ordinal runs twice.
//!
//! A host is recounted only when its kubelet's containers may have changed since the last
//! sample (sampled every second, a scan of every host was a hot spot at a thousand nodes).

use super::hosts::Hosts;
use super::processes::Processes;
use crate::k8s::objects::Kind;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::net::HostId;
use crate::kernel::time::SimTime;
use crate::record::{Recorder, ViolationKind};

/// What one host's containers add up to, and for which state of its kubelet.
#[derive(Clone, Default)]
struct HostPods {
    version: Option<(u64, u64)>,
    /// Per workload, in `workloads` order.
    running: Vec<u32>,
    stateful: Vec<String>,
}

#[derive(Clone)]
pub struct PodCount {
    /// Workloads in scenario order (CoreDNS last).
    pub workloads: Vec<String>,
    /// Each workload's place in `workloads`.
    index: MemberMap<String, usize>,
    /// The most pods of each workload seen running at once.
    max_running: Vec<u32>,
    /// Containers running per workload as of the last sample.
    running_now: Vec<u32>,
    reported_doubles: MemberSet<String>,
    hosts: Vec<HostPods>,
    /// Hosts whose containers may have changed since the last sample (a kubelet handled an
    /// input, or a process started or stopped, or the host crashed), each once: `marked[h]`.
    recount: Vec<HostId>,
    marked: Vec<bool>,
}

impl PodCount {
    pub fn new(workloads: Vec<String>, hosts: usize) -> PodCount {
        let n = workloads.len();
        let mut index = MemberMap::default();
        for (i, w) in workloads.iter().enumerate() {
            index.insert(w.clone(), i);
        }
        let recount = (0..hosts as HostId).collect();
        PodCount {
            index,
            workloads,
            max_running: vec![0; n],
            running_now: vec![0; n],
            reported_doubles: MemberSet::new(),
            hosts: vec![HostPods::default(); hosts],
            recount,
            marked: vec![true; hosts],
        }
    }

    /// The host's containers may have changed: recount it at the next sample.
    pub fn touch(&mut self, h: HostId) {
        if let Some(m) = self.marked.get_mut(h as usize).filter(|m| !**m) {
            *m = true;
            self.recount.push(h);
        }
    }

    /// A sample: recounts what changed, checks StatefulSet ordinals, and appends each workload's
    /// running count to the series.
    pub fn sample(&mut self, procs: &Processes, hosts: &Hosts, now: SimTime, obs: &mut Recorder) {
        if self.refresh(procs, hosts) {
            self.check_statefulset_ordinals(hosts, now, obs);
        }
        for (i, &r) in self.running_now.iter().enumerate() {
            self.max_running[i] = self.max_running[i].max(r);
            let name = &self.workloads[i];
            match obs.series.running_pods.get_mut(name) {
                Some(series) => series.push(r),
                None => {
                    obs.series
                        .running_pods
                        .insert(name.clone(), [r].into_iter().collect());
                }
            }
        }
    }

    /// What each host's containers add up to, recomputed only for the hosts marked for a
    /// recount whose containers did change; `running_now` follows the changes.
    /// Returns whether any host's containers changed.
    fn refresh(&mut self, procs: &Processes, hosts: &Hosts) -> bool {
        let mut changed = false;
        for h in std::mem::take(&mut self.recount) {
            let h = h as usize;
            self.marked[h] = false;
            if self.hosts[h].version == procs.containers_version(hosts, h as HostId) {
                continue;
            }
            let fresh = self.count_host(procs, hosts, h as HostId);
            let old = std::mem::replace(&mut self.hosts[h], fresh);
            for (i, total) in self.running_now.iter_mut().enumerate() {
                *total =
                    *total + self.hosts[h].running[i] - old.running.get(i).copied().unwrap_or(0);
            }
            changed = true;
        }
        debug_assert_eq!(self.running_now, self.running(procs, hosts));
        changed
    }

    fn count_host(&self, procs: &Processes, hosts: &Hosts, h: HostId) -> HostPods {
        let mut running = vec![0u32; self.workloads.len()];
        let mut stateful = Vec::new();
        if let Some(k) = &procs.on[h as usize].kubelet {
            for (pod, c) in k.containers.iter() {
                if let Some(&i) = self.index.get(&c.workload) {
                    running[i] += 1;
                }
                if c.kind == Some(Kind::StatefulSet) {
                    stateful.push(pod.clone());
                }
            }
        }
        HostPods {
            version: procs.containers_version(hosts, h),
            running,
            stateful,
        }
    }

    /// At most one pod per StatefulSet ordinal may run: two containers of one pod name on two
    /// nodes (a force-delete while the old node was only cut off) is a violation.
    fn check_statefulset_ordinals(&mut self, hosts: &Hosts, now: SimTime, obs: &mut Recorder) {
        // Pods in name order, each with the hosts it runs on (host order).
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for (i, p) in self.hosts.iter().enumerate() {
            for pod in &p.stateful {
                seen.push((pod.as_str(), hosts[i].name.as_str()));
            }
        }
        crate::kernel::sort::sort_by(&mut seen, |a, b| a.0.cmp(b.0));
        let mut doubles: Vec<(String, String)> = Vec::new();
        for run in seen.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
            let on: Vec<&str> = run.iter().map(|(_, h)| *h).collect();
            doubles.push((run[0].0.to_string(), on.join(" and ")));
        }
        for (pod, hosts) in doubles {
            if self.reported_doubles.insert(pod.clone()) {
                let text = format!(
                    "{pod} runs twice, on {hosts}: a StatefulSet ordinal must run at most once"
                );
                obs.violation(now, ViolationKind::StatefulsetTwoPods, text);
            }
        }
    }

    /// Containers running per workload right now, anywhere (isolated nodes included).
    fn running(&self, procs: &Processes, hosts: &Hosts) -> Vec<u32> {
        let mut counts = vec![0u32; self.workloads.len()];
        for (h, cached) in self.hosts.iter().enumerate() {
            let fresh;
            let p = if cached.version == procs.containers_version(hosts, h as HostId) {
                cached
            } else {
                fresh = self.count_host(procs, hosts, h as HostId);
                &fresh
            };
            for (c, r) in counts.iter_mut().zip(&p.running) {
                *c += r;
            }
        }
        counts
    }

    /// Per workload (scenario order, CoreDNS last): name, most running at once, running now.
    pub fn counts(&self, procs: &Processes, hosts: &Hosts) -> Vec<(String, u32, u32)> {
        let now = self.running(procs, hosts);
        self.workloads
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), self.max_running[i].max(now[i]), now[i]))
            .collect()
    }
}
