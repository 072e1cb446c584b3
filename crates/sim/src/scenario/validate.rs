//! Validation: every semantic rule of the format, for a parsed document and for a scenario
//! built or edited in code alike. Each refusal names the field as the JSON document would
//! (`hosts[3].zone: unknown zone "rack-c"`).

use crate::kernel::members::MemberMap;

/// Names to their index, and the set of zone names: sorted vectors (a map type per use would
/// cost the page's bundle its own B-tree code).
type Index<'a> = MemberMap<&'a str, usize>;
type Names<'a> = MemberMap<&'a str, ()>;

use super::error::{fail, index_path, quote, ScenarioError, R};
use super::limits::check_count;
use super::{
    Action, ApiEndpoint, FaultKind, Milli, Range, Scenario, Selector, SettingKey, SettingValue,
    WorkloadKind, COREDNS, DEFAULT_ZONE, KUBE_PROXY, MAX_DESCRIPTION_LEN, MAX_DURATION, MAX_EVENTS,
    MAX_FAULTS, MAX_FAULT_DRAWS, MAX_HOSTS, MAX_LABEL_LEN, MAX_NAME_LEN, MAX_PODS,
    MAX_POD_NAME_LEN, MAX_SETTING_DURATION, MAX_WORKLOADS, MAX_ZONES, MIN_FAULT_MEAN, MIN_PERIOD,
    STATIC_PODS, VERSION,
};
use crate::kernel::decimal::Fixed;
use crate::kernel::time::Duration;

/// A DNS-label-like name: lowercase letters, digits and '-', starting and ending with a letter
/// or digit, 1 to `max` characters.
fn check_label(path: &str, what: &str, s: &str, max: usize) -> R<()> {
    let n = s.chars().count();
    if n == 0 {
        return fail(
            path,
            format!(
                "{what} must not be empty: use lowercase letters, digits and '-', starting and \
                 ending with a letter or digit (like a DNS label)"
            ),
        );
    }
    if n > max {
        return fail(
            path,
            format!("{what} is {n} characters long; the limit is {max}"),
        );
    }
    let b = s.as_bytes();
    let ok = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-';
    if !ok {
        return fail(
            path,
            format!(
                "invalid {what} {}: use lowercase letters, digits and '-', starting and ending \
                 with a letter or digit (like a DNS label)",
                quote(s)
            ),
        );
    }
    Ok(())
}

/// Free text: bounded, and without control characters (but line breaks and tabs where the
/// text may span lines).
fn check_text(path: &str, s: &str, max: usize, multiline: bool) -> R<()> {
    let n = s.chars().count();
    if n > max {
        return fail(path, format!("{n} characters; the limit is {max}"));
    }
    if s.chars()
        .any(|c| c.is_control() && !(multiline && matches!(c, '\n' | '\t' | '\r')))
    {
        return fail(path, "must not contain control characters");
    }
    Ok(())
}

impl Scenario {
    /// Every semantic check of the format. [`parse`](super::parse) runs it; run it after building
    /// or editing a scenario in code. Errors name the field as the JSON document would
    /// (`events[2].host`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_header()?;
        let zones = self.validate_zones()?;
        let hosts = self.validate_hosts(&zones)?;
        let workloads = self.validate_workloads()?;
        self.validate_settings()?;

        let pods = self.pod_count();
        if pods > MAX_PODS as u64 {
            return fail("workloads", too_many_pods(pods));
        }

        self.validate_events(&zones, &hosts, &workloads)?;
        self.validate_faults(&zones, &hosts)
    }

    /// The version, the name and description, the duration.
    fn validate_header(&self) -> Result<(), ScenarioError> {
        if self.version != VERSION {
            return fail("version", unsupported_version(self.version as u64));
        }
        if self.name.trim().is_empty() {
            return fail("name", "must not be empty");
        }
        check_text("name", &self.name, MAX_NAME_LEN, false)?;
        if let Some(d) = &self.description {
            check_text("description", d, MAX_DESCRIPTION_LEN, true)?;
        }
        if self.duration > MAX_DURATION {
            return fail(
                "duration",
                format!(
                    "{} exceeds the limit of {MAX_DURATION} (7 days)",
                    self.duration
                ),
            );
        }
        Ok(())
    }

    /// The zones, each named once; the default zone is known too.
    fn validate_zones(&self) -> Result<Names<'_>, ScenarioError> {
        check_count("zones", self.zones.len(), MAX_ZONES, "zones")?;
        let mut zones: Names = MemberMap::default();
        for (i, z) in self.zones.iter().enumerate() {
            let p = index_path("zones", i);
            check_label(&p, "zone name", z, MAX_LABEL_LEN)?;
            if zones.insert(z, ()).is_some() {
                return fail(p, format!("duplicate zone {}", quote(z)));
            }
        }
        zones.insert(DEFAULT_ZONE, ());
        Ok(zones)
    }

    /// The hosts: names (none also a zone's), zones, roles; at least one etcd member at t = 0.
    fn validate_hosts(&self, zones: &Names) -> Result<Index<'_>, ScenarioError> {
        check_count("hosts", self.hosts.len(), MAX_HOSTS, "hosts")?;
        if self.hosts.is_empty() {
            return fail("hosts", "a scenario needs at least one host");
        }
        let mut hosts: Index = MemberMap::default();
        for (i, h) in self.hosts.iter().enumerate() {
            let p = index_path("hosts", i);
            let np = format!("{p}.name");
            check_label(&np, "host name", &h.name, MAX_LABEL_LEN)?;
            if hosts.insert(&h.name, i).is_some() {
                return fail(np, format!("duplicate host name {}", quote(&h.name)));
            }
            // Partition groups name zones and hosts alike, so one name must not mean both.
            if zones.contains_key(&h.name.as_str()) {
                return fail(
                    np,
                    format!(
                        "{} is also a zone name; partitions name hosts and zones alike",
                        quote(&h.name)
                    ),
                );
            }
            if !zones.contains_key(&h.zone.as_str()) {
                return fail(
                    format!("{p}.zone"),
                    format!("unknown zone {}", quote(&h.zone)),
                );
            }
            let rp = format!("{p}.roles");
            if h.roles.is_empty() {
                return fail(rp, "a host needs at least one role");
            }
            for (ri, r) in h.roles.iter().enumerate() {
                if h.roles[..ri].contains(r) {
                    return fail(
                        index_path(&rp, ri),
                        format!("duplicate role \"{}\"", r.name()),
                    );
                }
            }
        }
        // t = 0 is a running cluster: etcd must have a leader, so at least one initial member.
        if self.initial_etcd_members().is_empty() {
            return fail(
                "hosts",
                "no host runs etcd (outside standby hosts); the cluster needs at least one etcd member",
            );
        }
        Ok(hosts)
    }

    /// The workloads: names, the kind's replicas, grace periods.
    fn validate_workloads(&self) -> Result<Index<'_>, ScenarioError> {
        check_count(
            "workloads",
            self.workloads.len(),
            MAX_WORKLOADS,
            "workloads",
        )?;
        let mut workloads: Index = MemberMap::default();
        for (i, w) in self.workloads.iter().enumerate() {
            let p = index_path("workloads", i);
            let np = format!("{p}.name");
            check_label(&np, "workload name", &w.name, MAX_LABEL_LEN)?;
            if w.name == COREDNS {
                return fail(np, "\"coredns\" is reserved for cluster DNS");
            }
            if w.name == KUBE_PROXY {
                return fail(
                    np,
                    "\"kube-proxy\" is reserved for kubeadm's kube-proxy DaemonSet",
                );
            }
            if STATIC_PODS.contains(&w.name.as_str()) {
                let why = format!(
                    "{} is reserved for the control plane's static pods",
                    quote(&w.name)
                );
                return fail(np, why);
            }
            if workloads.insert(&w.name, i).is_some() {
                return fail(np, format!("duplicate workload name {}", quote(&w.name)));
            }
            // A Service name is an RFC 1035 label: it must start with a letter.
            if w.service && !w.name.starts_with(|c: char| c.is_ascii_lowercase()) {
                return fail(
                    np,
                    format!(
                        "{} cannot name a Service: it must start with a letter",
                        quote(&w.name)
                    ),
                );
            }
            let rp = format!("{p}.replicas");
            match (w.kind, w.replicas) {
                (WorkloadKind::DaemonSet, Some(_)) => {
                    return fail(
                        rp,
                        "a DaemonSet has no replicas: it runs one pod on every node",
                    )
                }
                (WorkloadKind::DaemonSet, None) if w.spread.is_some() => {
                    return fail(
                        format!("{p}.spread"),
                        "a DaemonSet runs one pod on every node: spread applies to Deployments and StatefulSets",
                    )
                }
                (WorkloadKind::DaemonSet, None) => {}
                (kind, None) => {
                    return fail(
                        rp,
                        format!("missing required field (a {} needs replicas)", kind.name()),
                    )
                }
                (_, Some(n)) if n > MAX_PODS => {
                    return fail(rp, format!("{n} exceeds the limit of {MAX_PODS} pods"))
                }
                (_, Some(_)) => {}
            }
            let grace = w.termination_grace_period;
            if grace > MAX_SETTING_DURATION {
                return fail(
                    format!("{p}.termination_grace_period"),
                    format!("must be at most {MAX_SETTING_DURATION} (found {grace})"),
                );
            }
            if w.stop_takes > grace {
                return fail(
                    format!("{p}.stop_takes"),
                    format!(
                        "{} is longer than the termination grace period ({grace}): the kubelet kills the container then",
                        w.stop_takes
                    ),
                );
            }
        }

        Ok(workloads)
    }

    /// How many faults and repairs the fault processes are expected to draw over `duration`.
    pub fn expected_fault_draws(&self) -> f64 {
        self.expected_fault_draws_upto(self.faults.len())
    }

    fn expected_fault_draws_upto(&self, k: usize) -> f64 {
        let d = self.duration.as_secs_f64();
        self.faults[..k]
            .iter()
            .map(|f| {
                let (on_zones, cycle, per_cycle) = match f.kind {
                    FaultKind::HostFailures { mtbf, mttr } => (false, mtbf + mttr, 2.0),
                    FaultKind::ZoneOutages { mtbf, mttr } => (true, mtbf + mttr, 2.0),
                    // One interruption each, unless a replacement joins and is interrupted in turn.
                    FaultKind::SpotInterruptions {
                        replace_after: None,
                        ..
                    } => (false, Duration::ZERO, 1.0),
                    FaultKind::SpotInterruptions {
                        every,
                        replace_after: Some(r),
                        ..
                    } => (false, every + self.settings.spot_notice + r, 2.0),
                };
                let targets = if on_zones {
                    self.selected_zones(&f.targets).len()
                } else {
                    self.selected_hosts(&f.targets).len()
                } as f64;
                if cycle == Duration::ZERO {
                    targets * per_cycle
                } else {
                    targets * per_cycle * d / cycle.as_secs_f64().max(1e-3)
                }
            })
            .sum()
    }

    /// Fault processes: known names, something selected, means long enough, and not so many
    /// expected draws that the run would be all faults.
    fn validate_faults(&self, zones: &Names, hosts: &Index) -> R<()> {
        check_count("faults", self.faults.len(), MAX_FAULTS, "fault processes")?;
        for (i, f) in self.faults.iter().enumerate() {
            let p = index_path("faults", i);
            let on_zones = matches!(f.kind, FaultKind::ZoneOutages { .. });
            let sp = format!("{p}.{}", if on_zones { "zones" } else { "hosts" });
            if let Selector::Names(names) = &f.targets {
                for (k, n) in names.iter().enumerate() {
                    let known = zones.contains_key(&n.as_str())
                        || (!on_zones && hosts.contains_key(&n.as_str()));
                    if !known {
                        let what = if on_zones { "zone" } else { "host or zone" };
                        return fail(index_path(&sp, k), format!("unknown {what} {}", quote(n)));
                    }
                }
            }
            let targets = if on_zones {
                self.selected_zones(&f.targets).len()
            } else {
                self.selected_hosts(&f.targets).len()
            };
            if targets == 0 {
                let what = if on_zones { "zone" } else { "host" };
                return fail(sp, format!("selects no {what}"));
            }
            let means = match f.kind {
                FaultKind::HostFailures { mtbf, mttr } | FaultKind::ZoneOutages { mtbf, mttr } => {
                    vec![("mtbf", mtbf), ("mttr", mttr)]
                }
                FaultKind::SpotInterruptions { every, .. } => {
                    if let Some(h) = self
                        .selected_hosts(&f.targets)
                        .into_iter()
                        .find(|&h| !self.hosts[h].spot)
                    {
                        return fail(
                            sp,
                            format!(
                                "{} is not a spot host (spot interruptions need \"spot\": true)",
                                quote(&self.hosts[h].name)
                            ),
                        );
                    }
                    vec![("spot_interruptions_every", every)]
                }
            };
            for (k, d) in means {
                if d < MIN_FAULT_MEAN {
                    return fail(
                        format!("{p}.{k}"),
                        format!("{d} is shorter than the minimum of {MIN_FAULT_MEAN}"),
                    );
                }
            }
            let draws = self.expected_fault_draws_upto(i + 1);
            if draws > MAX_FAULT_DRAWS {
                return fail(
                    p,
                    format!(
                        "the fault processes would draw about {} faults and repairs in {}; the limit is {}",
                        Fixed(draws, 0),
                        self.duration,
                        Fixed(MAX_FAULT_DRAWS, 0)
                    ),
                );
            }
        }
        Ok(())
    }

    fn validate_settings(&self) -> R<()> {
        let s = &self.settings;
        let path = |k: SettingKey| format!("settings.{}", k.name());
        if s.api_endpoint != ApiEndpoint::LoadBalancer
            && !self.hosts.iter().any(|h| h.runs_apiserver())
        {
            return fail(
                path(SettingKey::ApiEndpoint),
                format!(
                    "{} runs beside an apiserver: no host runs one",
                    s.api_endpoint.name()
                ),
            );
        }
        for &key in SettingKey::ALL {
            let value = s.get(key);
            let (d, min, max) = match (value, key.range()) {
                (SettingValue::Duration(d), Range::Period) => (d, MIN_PERIOD, MAX_SETTING_DURATION),
                (SettingValue::Duration(d), Range::Wait) => {
                    (d, Duration::ZERO, MAX_SETTING_DURATION)
                }
                (SettingValue::Duration(d), Range::Seconds) => (d, Duration::ZERO, MAX_DURATION),
                (SettingValue::Count(n), Range::Count(min, max, noun)) => {
                    if n > max {
                        return fail(path(key), format!("{n} exceeds the limit of {max} {noun}"));
                    }
                    if n < min {
                        return fail(path(key), format!("must be at least {min} (found {n})"));
                    }
                    continue;
                }
                (SettingValue::Milli(m), Range::Milli(min, max)) => {
                    let (lo, hi) = (Milli(min), Milli(max));
                    if m < lo || m > hi {
                        return fail(path(key), format!("must be from {lo} to {hi} (found {m})"));
                    }
                    continue;
                }
                _ => continue,
            };
            if d < min {
                return fail(path(key), format!("must be at least {min} (found {d})"));
            }
            if d > max {
                return fail(path(key), format!("must be at most {max} (found {d})"));
            }
        }
        // client-go refuses these combinations (leaderelection.NewLeaderElector): the leader
        // must give up before others may take over, and retries must fit in the deadline.
        // The message names the setting the document changed.
        if s.renew_deadline >= s.lease_duration {
            return fail(
                if s.explicit.contains_key(&SettingKey::RenewDeadline) {
                    path(SettingKey::RenewDeadline)
                } else {
                    path(SettingKey::LeaseDuration)
                },
                format!(
                    "renew_deadline ({}) must be shorter than lease_duration ({})",
                    s.renew_deadline, s.lease_duration
                ),
            );
        }
        // renew_deadline > 1.2 × retry_period (client-go's JitterFactor), in integers.
        if s.renew_deadline.as_micros() * 5 <= s.retry_period.as_micros() * 6 {
            return fail(
                if s.explicit.contains_key(&SettingKey::RetryPeriod) {
                    path(SettingKey::RetryPeriod)
                } else {
                    path(SettingKey::RenewDeadline)
                },
                format!(
                    "renew_deadline ({}) must be longer than 1.2 × retry_period ({})",
                    s.renew_deadline, s.retry_period
                ),
            );
        }
        Ok(())
    }

    fn validate_events(&self, zones: &Names, hosts: &Index, workloads: &Index) -> R<()> {
        check_count("events", self.events.len(), MAX_EVENTS, "events")?;
        // First, what each event says on its own, in list order; then the hosts' states along
        // the events in the order they apply.
        for (i, ev) in self.events.iter().enumerate() {
            self.validate_event(i, ev, zones, hosts, workloads)?;
        }
        self.validate_event_sequence(hosts, workloads)
    }

    /// What the `i`th event says on its own: its time, its host, what its action names.
    fn validate_event(
        &self,
        i: usize,
        ev: &super::Event,
        zones: &Names,
        hosts: &Index,
        workloads: &Index,
    ) -> R<()> {
        let exists = |n: &str| hosts.contains_key(&n) || zones.contains_key(&n);
        let p = index_path("events", i);
        let at = |f: &str| format!("{p}.{f}");
        if ev.at > self.duration {
            return fail(
                at("at"),
                format!(
                    "{} is after the end of the scenario (duration {})",
                    ev.at, self.duration
                ),
            );
        }
        let host = match ev.action.host() {
            None => None,
            Some(name) => match hosts.get(&name) {
                Some(&hi) => Some(&self.hosts[hi]),
                None => return fail(at("host"), format!("unknown host {}", quote(name))),
            },
        };
        let hq = host.map(|h| quote(&h.name)).unwrap_or_default();
        match &ev.action {
            Action::Cordon { .. } | Action::Uncordon { .. } | Action::Drain { .. }
                if !host.is_some_and(|h| h.is_node()) =>
            {
                return fail(
                    at("host"),
                    format!("{hq} is not a Node: only worker and control-plane hosts can be cordoned or drained"),
                );
            }
            Action::Taint { .. } | Action::Untaint { .. } if !host.is_some_and(|h| h.is_node()) => {
                return fail(
                    at("host"),
                    format!(
                        "{hq} is not a Node: only worker and control-plane hosts can be tainted"
                    ),
                );
            }
            Action::Label { .. } | Action::Unlabel { .. } if !host.is_some_and(|h| h.is_node()) => {
                return fail(
                    at("host"),
                    format!(
                        "{hq} is not a Node: only worker and control-plane hosts can be labelled"
                    ),
                );
            }
            Action::Label { label, .. } | Action::Unlabel { label, .. } => {
                let set = matches!(ev.action, Action::Label { .. });
                super::label::parse_label(label, set)
                    .map_err(|e| ScenarioError::new(at("label"), e))?;
            }
            Action::Taint { taint, .. } | Action::Untaint { taint, .. } => check_taint(
                &at("taint"),
                taint,
                matches!(ev.action, Action::Taint { .. }),
            )?,
            Action::Reboot { downtime, .. } if *downtime > MAX_DURATION => {
                return fail(
                    at("downtime"),
                    format!("{downtime} exceeds the limit of {MAX_DURATION}"),
                );
            }
            Action::Partition { groups } => check_partition(&at("groups"), groups, &exists)?,
            Action::PartitionOneway { from, to } => check_oneway(&at, from, to, &exists)?,
            Action::SpotInterrupt { .. } if host.is_some_and(|h| !h.spot) => {
                return fail(
                    at("host"),
                    format!("host {hq} is not a spot host (it needs \"spot\": true)"),
                );
            }
            Action::Join { .. } if host.is_some_and(|h| !h.standby) => {
                return fail(
                    at("host"),
                    format!(
                        "host {hq} is not a standby host; only hosts with \"standby\": true can join"
                    ),
                );
            }
            Action::EtcdMemberAdd { .. }
            | Action::EtcdMemberPromote { .. }
            | Action::EtcdMemberRemove { .. }
            | Action::EtcdForceNewCluster { .. }
                if host.is_some_and(|h| !h.runs_etcd()) =>
            {
                return fail(at("host"), format!("host {hq} does not have the etcd role"));
            }
            Action::RestartComponent { component, .. }
                if host.is_some_and(|h| !h.can_run(*component)) =>
            {
                return fail(
                    at("component"),
                    format!("host {hq} does not run {}", component.name()),
                );
            }
            Action::DeletePod { pod, .. } => {
                let pp = at("pod");
                check_label(&pp, "pod name", pod, MAX_POD_NAME_LEN)?;
                // Pods are named after their workload (`web-7d4b9-x2x`, `db-0`), kube-system's
                // after their add-on or static pod (`kube-proxy-w1`, `etcd-m1`).
                let named_after = |w: &str| {
                    pod.len() > w.len() + 1 && pod.starts_with(w) && pod.as_bytes()[w.len()] == b'-'
                };
                let owned = workloads.keys().any(|w| named_after(w))
                    || super::kube_system_names().any(named_after);
                if !owned {
                    return fail(
                        pp,
                        format!(
                            "pod {} belongs to no workload (a pod's name starts with its workload's name and '-')",
                            quote(pod)
                        ),
                    );
                }
            }
            Action::Scale { workload, replicas } => {
                let wp = at("workload");
                if workload != COREDNS {
                    let Some(&wi) = workloads.get(&workload.as_str()) else {
                        return fail(wp, format!("unknown workload {}", quote(workload)));
                    };
                    if self.workloads[wi].kind == WorkloadKind::DaemonSet {
                        return fail(
                            wp,
                            format!(
                                "{} is a DaemonSet: it runs one pod on every node and has no replicas to scale",
                                quote(workload)
                            ),
                        );
                    }
                }
                if *replicas > MAX_PODS {
                    return fail(
                        at("replicas"),
                        format!("{replicas} exceeds the limit of {MAX_PODS} pods"),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The state of each host along the events in the order they apply: an event that cannot
    /// take effect (crash of a crashed host) is an error, not a silent no-op. And the pods that
    /// scaling asks for, against the limit.
    fn validate_event_sequence(&self, hosts: &Index, workloads: &Index) -> R<()> {
        // cannot take effect (crash of a crashed host) is an error, not a silent no-op.
        let mut crashed_by: Vec<Option<usize>> = vec![None; self.hosts.len()];
        // (the interrupting event, when the instance is terminated: 2 minutes after the notice)
        let mut terminated_by: Vec<Option<(usize, Duration)>> = vec![None; self.hosts.len()];
        let mut join_tried: Vec<bool> = vec![false; self.hosts.len()];
        let mut replicas: Vec<u64> = self
            .workloads
            .iter()
            .map(|w| w.replicas.unwrap_or(0) as u64)
            .collect();
        let mut coredns = self.settings.coredns_replicas as u64;
        let fixed_pods = self.daemonset_pods();
        for (i, ev) in self.events_sorted_indexed() {
            let p = index_path("events", i);
            let t = ev.at;
            if let Some(name) = ev.action.host() {
                // Checked to exist in the first pass.
                let Some(&hi) = hosts.get(&name) else {
                    continue;
                };
                let hp = format!("{p}.host");
                let hq = quote(name);
                if let Some((by, end)) = terminated_by[hi] {
                    if t >= end || matches!(ev.action, Action::SpotInterrupt { .. }) {
                        return fail(
                            hp,
                            format!(
                                "host {hq} was terminated at {end} by the spot interruption notice at {} (events[{by}]); it never comes back",
                                self.events[by].at
                            ),
                        );
                    }
                }
                let crashed = crashed_by[hi];
                let crashed_msg = |by: usize, is: &str, what: &str| {
                    format!(
                        "host {hq} is {is}crashed at {t} (events[{by}] crashed it at {}){what}",
                        self.events[by].at
                    )
                };
                match (&ev.action, crashed) {
                    (Action::Crash { .. }, Some(by)) => {
                        return fail(hp, crashed_msg(by, "already ", ""));
                    }
                    (Action::Crash { .. }, None) => crashed_by[hi] = Some(i),
                    (Action::Restart { .. }, None) => {
                        return fail(
                            hp,
                            format!(
                                "host {hq} is not crashed at {t}; only a crashed host can restart"
                            ),
                        );
                    }
                    (Action::Restart { .. }, Some(_)) => crashed_by[hi] = None,
                    (Action::Reboot { .. }, Some(by)) => {
                        return fail(hp, crashed_msg(by, "", "; use restart"));
                    }
                    (
                        Action::Join { .. }
                        | Action::EtcdForceNewCluster { .. }
                        | Action::RestartComponent { .. },
                        Some(by),
                    ) => {
                        let what = format!("; {} cannot take effect", ev.action.name());
                        return fail(hp, crashed_msg(by, "", &what));
                    }
                    (Action::SpotInterrupt { .. }, _) => {
                        terminated_by[hi] = Some((i, t + self.settings.spot_notice))
                    }
                    (Action::Join { .. }, None) => join_tried[hi] = true,
                    // A standby host runs no component before its first join (whether a join
                    // succeeds is only known at run time, so after one the check stops).
                    (Action::RestartComponent { component, .. }, None)
                        if self.hosts[hi].standby && !join_tried[hi] =>
                    {
                        return fail(
                            format!("{p}.component"),
                            format!(
                                "host {hq} is a standby host that has not joined at {t}; it runs no {}",
                                component.name()
                            ),
                        );
                    }
                    _ => {}
                }
            }
            if let Action::Scale {
                workload,
                replicas: n,
            } = &ev.action
            {
                match workloads.get(&workload.as_str()) {
                    Some(&wi) => replicas[wi] = *n as u64,
                    None => coredns = *n as u64,
                }
                let total = replicas.iter().sum::<u64>() + fixed_pods + coredns;
                if total > MAX_PODS as u64 {
                    return fail(format!("{p}.replicas"), too_many_pods(total));
                }
            }
        }
        Ok(())
    }
}

/// A partition's groups: at least one, none empty, each name a host or zone in one group only.
fn check_partition(gp: &str, groups: &[Vec<String>], exists: &dyn Fn(&str) -> bool) -> R<()> {
    if groups.is_empty() {
        return fail(gp, "a partition needs at least one group");
    }
    let mut seen: Index = MemberMap::default();
    for (gi, g) in groups.iter().enumerate() {
        let gpi = index_path(gp, gi);
        if g.is_empty() {
            return fail(gpi, "empty group");
        }
        for (ni, n) in g.iter().enumerate() {
            let np = index_path(&gpi, ni);
            if !exists(n) {
                return fail(np, format!("unknown host or zone {}", quote(n)));
            }
            if let Some(prev) = seen.insert(n, gi) {
                return fail(np, format!("{} is already in group {prev}", quote(n)));
            }
        }
    }
    Ok(())
}

/// A one-way cut's two sides: each names hosts or zones, and none is on both.
fn check_oneway(
    at: &dyn Fn(&str) -> String,
    from: &[String],
    to: &[String],
    exists: &dyn Fn(&str) -> bool,
) -> R<()> {
    for (field, names) in [("from", from), ("to", to)] {
        if names.is_empty() {
            return fail(at(field), "must name at least one zone or host");
        }
        for (ni, n) in names.iter().enumerate() {
            let np = if names.len() == 1 {
                at(field)
            } else {
                index_path(&at(field), ni)
            };
            if !exists(n) {
                return fail(np, format!("unknown host or zone {}", quote(n)));
            }
            if field == "to" && from.contains(n) {
                return fail(np, format!("{} is on both sides", quote(n)));
            }
        }
    }
    Ok(())
}

fn too_many_pods(n: u64) -> String {
    format!(
        "{n} pods in total (replicas, one pod of each DaemonSet on every node, kube-proxy's \
         included, the control plane's static pods, and CoreDNS) exceed the limit of {MAX_PODS}"
    )
}

/// Also the message of parsing, which checks the version before any other field.
pub(super) fn unsupported_version(v: u64) -> String {
    format!("unsupported version {v}; this program reads version {VERSION}")
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// An operator's taint as `kubectl taint` takes it: `key[=value]:Effect` to add, `key[:Effect]`
/// to remove; Kubernetes' own taints are left to the components that set them.
fn check_taint(path: &str, taint: &str, add: bool) -> R<()> {
    let spec = super::taint::TaintText::parse(taint).map_err(|e| ScenarioError::new(path, e))?;
    if add && spec.effect.is_none() {
        return fail(
            path,
            format!(
                "{} has no effect: write key=value:NoSchedule or key=value:NoExecute",
                quote(taint)
            ),
        );
    }
    if spec.is_kubernetes_own() {
        return fail(path, format!("{} is a taint Kubernetes manages itself: the playground keeps workload pods off control-plane Nodes, and cordon, uncordon and the node lifecycle controller set the others", quote(&spec.key)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::example::{assert_errors, edited, with_events};

    /// Documents that read, but break a rule (those that do not read are in `json.rs`).
    #[test]
    fn invalid_scenarios_name_the_field() {
        use serde_json::json;
        let long_name = "a".repeat(10_000);
        let cases: Vec<(String, &str)> = vec![
            (edited(|v| v["hosts"][3]["zone"] = json!("rack-c")),
             "hosts[3].zone: unknown zone \"rack-c\""),
            (edited(|v| v["hosts"][4]["name"] = json!("m1")),
             "hosts[4].name: duplicate host name \"m1\""),
            (edited(|v| v["hosts"][0]["name"] = json!("<script>")),
             "hosts[0].name: invalid host name \"<script>\": use lowercase letters, digits and '-', starting and ending with a letter or digit (like a DNS label)"),
            (edited(|v| v["hosts"][0]["name"] = json!(long_name)),
             "hosts[0].name: host name is 10000 characters long; the limit is 63"),
            (edited(|v| v["hosts"][0]["name"] = json!("web server")),
             "hosts[0].name: invalid host name \"web server\": use lowercase letters, digits and '-', starting and ending with a letter or digit (like a DNS label)"),
            (edited(|v| v["duration"] = json!("200h")),
             "duration: 200h exceeds the limit of 168h (7 days)"),
            (with_events(json!([{"at": "20m", "action": "heal"}])),
             "events[0].at: 20m is after the end of the scenario (duration 15m)"),
            (with_events(json!([
                {"at": "3m", "action": "crash", "host": "m1"},
                {"at": "2m", "action": "crash", "host": "m1"}])),
             "events[0].host: host \"m1\" is already crashed at 3m (events[1] crashed it at 2m)"),
            (with_events(json!([
                {"at": "2m", "action": "crash", "host": "m1"},
                {"at": "3m", "action": "reboot", "host": "m1"}])),
             "events[1].host: host \"m1\" is crashed at 3m (events[0] crashed it at 2m); use restart"),
            (edited(|v| {
                let spare = json!({"name": "s1", "zone": "rack-a", "roles": ["worker"], "standby": true});
                v["hosts"].as_array_mut().unwrap().push(spare);
                v["events"] = json!([{"at": "1m", "action": "restart_component", "host": "s1", "component": "kubelet"}]);
            }),
             "events[0].component: host \"s1\" is a standby host that has not joined at 1m; it runs no kubelet"),
            (with_events(json!([{"at": "1m", "action": "partition", "groups": [["rack-a"], ["rack-a"]]}])),
             "events[0].groups[1][0]: \"rack-a\" is already in group 0"),
            (with_events(json!([{"at": "3m", "action": "restart", "host": "m1"}])),
             "events[0].host: host \"m1\" is not crashed at 3m; only a crashed host can restart"),
            (with_events(json!([{"at": "3m", "action": "join", "host": "w1"}])),
             "events[0].host: host \"w1\" is not a standby host; only hosts with \"standby\": true can join"),
            (with_events(json!([{"at": "3m", "action": "spot_interrupt", "host": "w1"}])),
             "events[0].host: host \"w1\" is not a spot host (it needs \"spot\": true)"),
            (with_events(json!([
                {"at": "3m", "action": "spot_interrupt", "host": "w2"},
                {"at": "9m", "action": "restart", "host": "w2"}])),
             "events[1].host: host \"w2\" was terminated at 5m by the spot interruption notice at 3m (events[0]); it never comes back"),
            (with_events(json!([{"at": "3m", "action": "scale", "workload": "api", "replicas": 3}])),
             "events[0].workload: unknown workload \"api\""),
            (with_events(json!([{"at": "3m", "action": "scale", "workload": "agent", "replicas": 3}])),
             "events[0].workload: \"agent\" is a DaemonSet: it runs one pod on every node and has no replicas to scale"),
            (edited(|v| v["workloads"][2]["replicas"] = json!(3)),
             "workloads[2].replicas: a DaemonSet has no replicas: it runs one pod on every node"),
            (edited(|v| { v["workloads"][0].as_object_mut().unwrap().remove("replicas"); }),
             "workloads[0].replicas: missing required field (a Deployment needs replicas)"),
            (edited(|v| v["workloads"][1]["name"] = json!("coredns")),
             "workloads[1].name: \"coredns\" is reserved for cluster DNS"),
            (edited(|v| v["settings"]["renew_deadline"] = json!("20s")),
             "settings.renew_deadline: renew_deadline (20s) must be shorter than lease_duration (15s)"),
            (edited(|v| v["settings"]["etcd_heartbeat_interval"] = json!("0s")),
             "settings.etcd_heartbeat_interval: must be at least 1ms (found 0s)"),
            (edited(|v| v["settings"]["etcd_election_timeout"] = json!("2h")),
             "settings.etcd_election_timeout: must be at most 1h (found 2h)"),
            (with_events(json!([{"at": "1m", "action": "partition", "groups": [["rack-a"], ["rack-z"]]}])),
             "events[0].groups[1][0]: unknown host or zone \"rack-z\""),
            (with_events(json!([{"at": "1m", "action": "restart_component", "host": "lb", "component": "kube-proxy"}])),
             "events[0].component: host \"lb\" does not run kube-proxy"),
            (with_events(json!([{"at": "1m", "action": "delete_pod", "pod": "nginx-1"}])),
             "events[0].pod: pod \"nginx-1\" belongs to no workload (a pod's name starts with its workload's name and '-')"),
            (edited(|v| v["zones"] = json!(["rack-a", "rack-b", "outside", "rack-a"])),
             "zones[3]: duplicate zone \"rack-a\""),
            (edited(|v| v["faults"] = json!([{"hosts": ["etcd-1", "etcd-9"], "mtbf": "1h", "mttr": "5m"}])),
             "faults[0].hosts[1]: unknown host or zone \"etcd-9\""),
            (edited(|v| v["faults"] = json!([{"zones": ["etcd-1"], "mtbf": "1h", "mttr": "5m"}])),
             "faults[0].zones[0]: unknown zone \"etcd-1\""),
            (edited(|v| v["faults"] = json!([{"zones": "spot", "mtbf": "1h", "mttr": "0s"}])),
             "faults[0].mttr: 0s is shorter than the minimum of 1s"),
            (edited(|v| v["faults"] = json!([{"hosts": "role:scheduler", "mtbf": "1h", "mttr": "5m"}])),
             "faults[0].hosts: selects no host"),
            (edited(|v| v["faults"] = json!([{"hosts": "role:worker", "spot_interruptions_every": "1h"}])),
             "faults[0].hosts: \"w1\" is not a spot host (spot interruptions need \"spot\": true)"),
            // 9 hosts, each failing and repaired every 2 s on average, for 7 days.
            (edited(|v| { v["duration"] = json!("168h"); v["faults"] = json!([{"hosts": "all", "mtbf": "1s", "mttr": "1s"}]) }),
             "faults[0]: the fault processes would draw about 5443200 faults and repairs in 168h; the limit is 100000"),
        ];
        assert_errors(cases);
    }
}
