//! The topology editor: one's own scenario as forms. Hosts (zone, roles, spot, standby), zones,
//! workloads, random fault processes and the settings section of the format, plus the
//! scenario's name, duration and seed. Every edit builds a new scenario and checks it with the core's `Scenario::validate()`;
//! an accepted one restarts the run from t = 0 (the scenario changed from its start), a refused
//! one shows the core's message (naming the field) and keeps everything that was typed.
//!
//! The edits themselves are pure functions on a `Scenario` ([`edit`], one function per change
//! that needs more than a line), tested without a DOM; the forms are in `form.rs`.

mod form;

pub use form::{Editor, Props};

use crate::language::mark;
use sim::scenario::{
    fmt_cpu, fmt_memory, parse_cpu, parse_memory, Budget, Fault, FaultKind, Host, Resources, Role,
    Scenario, Selector, SettingKey, Spread, Workload, WorkloadKind,
};
use sim::time::parse_duration;

/// One change to a scenario, as the forms produce it.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// One host named `name`, or `count` hosts named `name-1`, `name-2`, … (the first free
    /// numbers).
    AddHost {
        name: String,
        count: String,
        zone: String,
        roles: Vec<Role>,
        spot: bool,
        standby: bool,
    },
    RemoveHost(usize),
    SetZone(usize, String),
    ToggleRole(usize, Role),
    SetSpot(usize, bool),
    SetStandby(usize, bool),
    /// A host's allocatable cpu or memory as typed (empty: the default).
    SetCpu(usize, String),
    SetMemory(usize, String),
    AddZone(String),
    RemoveZone(usize),
    AddWorkload {
        kind: WorkloadKind,
        name: String,
        replicas: String,
        service: bool,
    },
    RemoveWorkload(usize),
    SetReplicas(usize, String),
    SetService(usize, bool),
    /// What each pod of a workload requests, cpu or memory as typed (empty: nothing).
    SetRequestCpu(usize, String),
    SetRequestMemory(usize, String),
    /// A workload's PodDisruptionBudget, of `count` pods.
    SetBudget(usize, BudgetKind, String),
    /// A workload's topology spread: `None`, or over zones or hosts.
    SetSpread(usize, Option<Spread>),
    /// A random fault process from the form's text: `targets` `all`, `spot`, `role:ROLE` or
    /// names separated by commas;
    /// `every` the mean time between faults, `then` the mean repair time (for spot
    /// interruptions the replacement delay, empty for none).
    AddFault {
        kind: FaultForm,
        targets: String,
        every: String,
        then: String,
    },
    RemoveFault(usize),
    /// A setting from its text (a duration, `true`/`false`, `readyz`/`tcp`, a count).
    SetSetting(SettingKey, String),
    SetName(String),
    SetDuration(String),
    SetSeed(String),
}

/// The disruption budget a workload's form asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BudgetKind {
    None,
    MinAvailable,
    MaxUnavailable,
}

impl BudgetKind {
    pub const ALL: [BudgetKind; 3] = [
        BudgetKind::None,
        BudgetKind::MinAvailable,
        BudgetKind::MaxUnavailable,
    ];

    /// As Kubernetes names the budget's field.
    pub fn name(self) -> &'static str {
        match self {
            BudgetKind::None => "none",
            BudgetKind::MinAvailable => "minAvailable",
            BudgetKind::MaxUnavailable => "maxUnavailable",
        }
    }

    pub fn from_name(name: &str) -> Option<BudgetKind> {
        BudgetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A workload's budget: its kind and count (1 when there is none, to start from).
    pub fn of(pdb: Option<Budget>) -> (BudgetKind, u32) {
        match pdb {
            Some(Budget::MinAvailable(n)) => (BudgetKind::MinAvailable, n),
            Some(Budget::MaxUnavailable(n)) => (BudgetKind::MaxUnavailable, n),
            None => (BudgetKind::None, 1),
        }
    }
}

/// The random faults the form adds, in the words of the format's fault kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FaultForm {
    HostFailures,
    ZoneOutages,
    SpotInterruptions,
}

impl FaultForm {
    pub const ALL: [FaultForm; 3] = [
        FaultForm::HostFailures,
        FaultForm::ZoneOutages,
        FaultForm::SpotInterruptions,
    ];

    /// The option's value in the form.
    pub fn name(self) -> &'static str {
        match self {
            FaultForm::HostFailures => "host_failures",
            FaultForm::ZoneOutages => "zone_outages",
            FaultForm::SpotInterruptions => "spot_interruptions",
        }
    }

    pub fn from_name(name: &str) -> Option<FaultForm> {
        FaultForm::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What the form's select shows (translated where it is shown).
    pub fn label(self) -> &'static str {
        match self {
            FaultForm::HostFailures => mark("host failures"),
            FaultForm::ZoneOutages => mark("zone outages"),
            FaultForm::SpotInterruptions => mark("spot interruptions"),
        }
    }
}

/// Applies `change` to a copy of `s` and validates it with the core. Ok: the new scenario and
/// a few words saying what changed. Err: the core's message (or, for text that is not even a
/// number or a duration, a message naming the field the same way).
pub fn edit(s: &Scenario, change: &Change) -> Result<(Scenario, String), String> {
    let mut s = s.clone();
    let s = &mut s;
    let what = match change {
        Change::AddHost {
            name,
            count,
            zone,
            roles,
            spot,
            standby,
        } => add_hosts(s, name, count, zone, roles, *spot, *standby)?,
        Change::RemoveHost(i) => {
            let h = s.hosts.remove(*i);
            format!("host {} removed", h.name)
        }
        Change::SetZone(i, z) => {
            s.hosts[*i].zone = z.clone();
            format!("{} moved to zone {z}", s.hosts[*i].name)
        }
        Change::ToggleRole(i, r) => toggle_role(&mut s.hosts[*i], *r),
        Change::SetSpot(i, v) => {
            s.hosts[*i].spot = *v;
            format!("{}: spot {}", s.hosts[*i].name, on_off(*v))
        }
        Change::SetStandby(i, v) => {
            s.hosts[*i].standby = *v;
            format!("{}: standby {}", s.hosts[*i].name, on_off(*v))
        }
        Change::SetCpu(i, text) => set_allocatable(&mut s.hosts[*i], *i, text, true)?,
        Change::SetMemory(i, text) => set_allocatable(&mut s.hosts[*i], *i, text, false)?,
        Change::AddZone(z) => {
            s.zones.push(z.trim().to_string());
            format!("zone {} added", z.trim())
        }
        Change::RemoveZone(i) => {
            let z = s.zones.remove(*i);
            format!("zone {z} removed")
        }
        Change::AddWorkload {
            kind,
            name,
            replicas,
            service,
        } => add_workload(s, *kind, name, replicas, *service)?,
        Change::RemoveWorkload(i) => {
            let w = s.workloads.remove(*i);
            format!("workload {} removed", w.name)
        }
        Change::SetReplicas(i, text) => {
            let n = count(&format!("workloads[{i}].replicas"), text)?;
            s.workloads[*i].replicas = Some(n);
            format!("{}: {n} replicas", s.workloads[*i].name)
        }
        Change::SetService(i, v) => {
            s.workloads[*i].service = *v;
            format!("{}: Service {}", s.workloads[*i].name, on_off(*v))
        }
        Change::SetRequestCpu(i, text) => set_request(&mut s.workloads[*i], *i, text, true)?,
        Change::SetRequestMemory(i, text) => set_request(&mut s.workloads[*i], *i, text, false)?,
        Change::SetBudget(i, kind, text) => set_budget(&mut s.workloads[*i], *i, *kind, text)?,
        Change::SetSpread(i, spread) => {
            let w = &mut s.workloads[*i];
            w.spread = *spread;
            match spread {
                Some(sp) => format!("{}: pods spread over {}s (maxSkew 1)", w.name, sp.name()),
                None => format!("{}: no topology spread", w.name),
            }
        }
        Change::AddFault {
            kind,
            targets,
            every,
            then,
        } => {
            let f = fault(s.faults.len(), *kind, targets, every, then)?;
            let text = fault_text(&f);
            s.faults.push(f);
            format!("random faults added: {text}")
        }
        Change::RemoveFault(i) => {
            let f = s.faults.remove(*i);
            format!("random faults removed: {}", fault_text(&f))
        }
        Change::SetSetting(key, text) => set_setting(s, *key, text)?,
        Change::SetName(n) => {
            s.name = n.clone();
            "name changed".to_string()
        }
        Change::SetDuration(text) => {
            s.duration = parse_duration(text).map_err(|e| format!("duration: {e}"))?;
            format!("duration {}", s.duration)
        }
        Change::SetSeed(text) => {
            s.seed = text.trim().parse().map_err(|_| {
                format!(
                    "seed: expected a whole number ≥ 0 (found \"{}\")",
                    text.trim()
                )
            })?;
            format!("seed {}", s.seed)
        }
    };
    s.validate().map_err(|e| e.to_string())?;
    crate::run::fits_browser(s)?;
    Ok((s.clone(), what))
}

fn on_off(v: bool) -> &'static str {
    if v {
        "on"
    } else {
        "off"
    }
}

/// One host named `name`, or `count` hosts named `name-1`, `name-2`, … (the first free
/// numbers).
fn add_hosts(
    s: &mut Scenario,
    name: &str,
    n: &str,
    zone: &str,
    roles: &[Role],
    spot: bool,
    standby: bool,
) -> Result<String, String> {
    let n = count("how many new hosts", n)?;
    if n == 0 || n as usize > sim::scenario::MAX_HOSTS {
        return Err(format!(
            "how many new hosts: from 1 to {} (found {n})",
            sim::scenario::MAX_HOSTS
        ));
    }
    let name = name.trim();
    let names: Vec<String> = if n == 1 {
        vec![name.to_string()]
    } else {
        (1..)
            .map(|k| format!("{name}-{k}"))
            .filter(|c| s.host(c).is_none() && s.workload(c).is_none())
            .take(n as usize)
            .collect()
    };
    for name in &names {
        s.hosts.push(Host {
            name: name.clone(),
            zone: zone.to_string(),
            roles: roles.to_vec(),
            spot,
            standby,
            cpu: None,
            memory: None,
        });
    }
    Ok(match names.as_slice() {
        [one] => format!("host {one} added"),
        [first, .., last] => format!(
            "{} hosts added to zone {zone}: {first} … {last}",
            names.len()
        ),
        [] => "no host added".to_string(),
    })
}

fn toggle_role(h: &mut Host, r: Role) -> String {
    let had = h.roles.contains(&r);
    if had {
        h.roles.retain(|x| *x != r);
    } else {
        h.roles.push(r);
        // The document's order, so the link stays canonical.
        sim::kernel::sort::sort(&mut h.roles);
    }
    let done = if had { "removed" } else { "added" };
    format!("{}: role {} {done}", h.name, r.name())
}

/// A cpu (or memory) quantity as typed, refused under the field `{path}.cpu` (or `.memory`);
/// `None` for an empty field.
fn quantity(text: &str, cpu: bool, path: &str) -> Result<Option<u64>, String> {
    let (field, parse) = match cpu {
        true => ("cpu", parse_cpu as fn(&str) -> Result<u64, String>),
        false => ("memory", parse_memory as fn(&str) -> Result<u64, String>),
    };
    match text.trim() {
        "" => Ok(None),
        t => parse(t)
            .map(Some)
            .map_err(|e| format!("{path}.{field}: {e}")),
    }
}

/// A host's allocatable cpu (or memory) as typed; empty: the default.
fn set_allocatable(h: &mut Host, i: usize, text: &str, cpu: bool) -> Result<String, String> {
    let value = quantity(text, cpu, &format!("hosts[{i}]"))?;
    let field = if cpu { "cpu" } else { "memory" };
    let shown = if cpu {
        h.cpu = value;
        fmt_cpu(h.allocatable().cpu)
    } else {
        h.memory = value;
        fmt_memory(h.allocatable().memory)
    };
    Ok(format!("{}: {shown} {field}", h.name))
}

fn add_workload(
    s: &mut Scenario,
    kind: WorkloadKind,
    name: &str,
    replicas: &str,
    service: bool,
) -> Result<String, String> {
    let path = format!("workloads[{}].replicas", s.workloads.len());
    let replicas = match kind {
        WorkloadKind::DaemonSet => None,
        _ => Some(count(&path, replicas)?),
    };
    s.workloads.push(Workload {
        kind,
        name: name.trim().to_string(),
        replicas,
        service,
        requests: None,
        pdb: None,
        spread: None,
        termination_grace_period: sim::scenario::DEFAULT_TERMINATION_GRACE_PERIOD,
        stop_takes: sim::time::Duration::ZERO,
    });
    Ok(format!("{} {} added", kind.name(), name.trim()))
}

/// What each pod of a workload requests, cpu (or memory) as typed; empty: nothing.
fn set_request(w: &mut Workload, i: usize, text: &str, cpu: bool) -> Result<String, String> {
    let n = quantity(text, cpu, &format!("workloads[{i}].requests"))?.unwrap_or(0);
    let mut r = w.requests.unwrap_or(Resources { cpu: 0, memory: 0 });
    if cpu {
        r.cpu = n;
    } else {
        r.memory = n;
    }
    w.requests = (r.cpu > 0 || r.memory > 0).then_some(r);
    Ok(match w.requests {
        Some(r) => format!(
            "{}: each pod requests {} cpu, {} memory",
            w.name,
            fmt_cpu(r.cpu),
            fmt_memory(r.memory)
        ),
        None => format!("{}: no requests", w.name),
    })
}

fn set_budget(w: &mut Workload, i: usize, kind: BudgetKind, text: &str) -> Result<String, String> {
    let path = format!("workloads[{i}].pdb");
    w.pdb = match kind {
        BudgetKind::MinAvailable => Some(Budget::MinAvailable(count(
            &format!("{path}.min_available"),
            text,
        )?)),
        BudgetKind::MaxUnavailable => Some(Budget::MaxUnavailable(count(
            &format!("{path}.max_unavailable"),
            text,
        )?)),
        BudgetKind::None => None,
    };
    Ok(match w.pdb {
        Some(b) => format!("{}: disruption budget {}", w.name, budget_text(b)),
        None => format!("{}: no disruption budget", w.name),
    })
}

/// The random fault process of the form's text, as the `n`th of the scenario's.
fn fault(
    n: usize,
    kind: FaultForm,
    targets: &str,
    every: &str,
    then: &str,
) -> Result<Fault, String> {
    let p = format!("faults[{n}]");
    let t = targets.trim();
    let on = match kind {
        FaultForm::ZoneOutages => "zones",
        _ => "hosts",
    };
    let targets = match t {
        "all" => Selector::All,
        "spot" => Selector::Spot,
        _ => match t.strip_prefix("role:") {
            Some(r) => Selector::Role(
                Role::from_name(r.trim())
                    .ok_or_else(|| format!("{p}.{on}: unknown role \"{}\"", r.trim()))?,
            ),
            None => Selector::Names(
                t.split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect(),
            ),
        },
    };
    let dur = |field: &str, text: &str| {
        parse_duration(text.trim()).map_err(|e| format!("{p}.{field}: {e}"))
    };
    let kind = match kind {
        FaultForm::SpotInterruptions => FaultKind::SpotInterruptions {
            every: dur("spot_interruptions_every", every)?,
            replace_after: match then.trim() {
                "" => None,
                t => Some(dur("replace_after", t)?),
            },
            remove_on_notice: false,
        },
        FaultForm::ZoneOutages => FaultKind::ZoneOutages {
            mtbf: dur("mtbf", every)?,
            mttr: dur("mttr", then)?,
        },
        FaultForm::HostFailures => FaultKind::HostFailures {
            mtbf: dur("mtbf", every)?,
            mttr: dur("mttr", then)?,
        },
    };
    Ok(Fault { targets, kind })
}

/// A setting from its text, read as the document reads its kind (a duration, `true`/`false`,
/// one of an enum's words, a count, a decimal).
fn set_setting(s: &mut Scenario, key: SettingKey, text: &str) -> Result<String, String> {
    let value = (s.settings.get(key).parse_like(text))
        .map_err(|e| format!("settings.{}: {e}", key.name()))?;
    s.settings.set(key, value);
    Ok(format!("{} = {}", key.name(), text.trim()))
}

/// A budget in words, as Kubernetes names its fields.
fn budget_text(b: Budget) -> String {
    match b {
        Budget::MinAvailable(n) => format!("minAvailable: {n}"),
        Budget::MaxUnavailable(n) => format!("maxUnavailable: {n}"),
    }
}

/// A fault process in words: "role:etcd fail every 100h on average, repaired in 10h".
pub fn fault_text(f: &Fault) -> String {
    let who = match &f.targets {
        Selector::All => "all".to_string(),
        Selector::Spot => "spot".to_string(),
        Selector::Role(r) => format!("role:{}", r.name()),
        Selector::Names(n) => n.join(", "),
    };
    match f.kind {
        FaultKind::HostFailures { mtbf, mttr } => {
            format!("hosts {who} fail every {mtbf} on average, repaired in {mttr}")
        }
        FaultKind::ZoneOutages { mtbf, mttr } => {
            format!("zones {who} cut off every {mtbf} on average, for {mttr}")
        }
        FaultKind::SpotInterruptions {
            every,
            replace_after,
            remove_on_notice,
        } => match (replace_after, remove_on_notice) {
            (Some(r), false) => {
                format!("spot hosts {who} interrupted every {every} on average, replaced after {r}")
            }
            (None, false) => {
                format!("spot hosts {who} interrupted every {every} on average, never replaced")
            }
            (Some(r), true) => format!(
                "spot hosts {who} interrupted every {every} on average, each etcd member removed on its notice, replaced after {r}"
            ),
            (None, true) => format!(
                "spot hosts {who} interrupted every {every} on average, each etcd member removed on its notice, never replaced"
            ),
        },
    }
}

fn count(path: &str, text: &str) -> Result<u32, String> {
    text.trim().parse().map_err(|_| {
        format!(
            "{path}: expected a whole number ≥ 0 (found \"{}\")",
            text.trim()
        )
    })
}

/// A setting's value as the form shows it.
pub fn setting_text(s: &Scenario, key: SettingKey) -> String {
    s.settings.get(key).words()
}

/// A free host name: `prefix-N` for the smallest N not taken.
pub(super) fn free_name(s: &Scenario, prefix: &str) -> String {
    (1..)
        .map(|n| format!("{prefix}-{n}"))
        .find(|n| s.host(n).is_none() && s.workload(n).is_none())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(id: &str) -> Scenario {
        crate::catalog::Ready::by_id(id).unwrap().scenario()
    }

    #[test]
    fn random_faults_are_added_in_words_and_checked_by_the_core() {
        let s = ready("7-worker-dies");
        let add = |kind: FaultForm, targets: &str, every: &str, then: &str| Change::AddFault {
            kind,
            targets: targets.into(),
            every: every.into(),
            then: then.into(),
        };
        let (s2, what) = edit(
            &s,
            &add(FaultForm::HostFailures, "role:worker", "30m", "2m"),
        )
        .unwrap();
        assert_eq!(
            what,
            "random faults added: hosts role:worker fail every 30m on average, repaired in 2m"
        );
        assert_eq!(s2.faults.len(), 1);
        // The run applies them: a worker fails at random within the scenario.
        let r = sim::run_scenario(&s2.to_json()).unwrap();
        assert!(
            r.events.iter().any(|e| e
                .text
                .contains("a random failure struck it (random faults, process 1)")),
            "no random failure in {} events",
            r.events.len()
        );
        // Bad text is named by field; the core names what it refuses.
        assert_eq!(
            edit(
                &s2,
                &add(FaultForm::HostFailures, "role:master", "1h", "1m")
            )
            .unwrap_err(),
            "faults[1].hosts: unknown role \"master\""
        );
        assert_eq!(
            edit(&s2, &add(FaultForm::ZoneOutages, "all", "soon", "1m")).unwrap_err(),
            "faults[1].mtbf: invalid duration \"soon\": expected a number"
        );
        let err = edit(&s2, &add(FaultForm::SpotInterruptions, "all", "1h", "")).unwrap_err();
        assert!(
            err.starts_with("faults[1].hosts: ") && err.contains("is not a spot host"),
            "{err}"
        );
        let (s3, what) = edit(&s2, &Change::RemoveFault(0)).unwrap();
        assert!(
            what.starts_with("random faults removed: hosts role:worker"),
            "{what}"
        );
        assert!(s3.faults.is_empty());
    }

    #[test]
    fn adding_a_host_and_a_workload_validates_through_the_core() {
        let s = ready("three-zones");
        let add = Change::AddHost {
            name: "w9".into(),
            count: "1".into(),
            zone: "zone-a".into(),
            roles: vec![Role::Worker],
            spot: false,
            standby: false,
        };
        let (s2, what) = edit(&s, &add).unwrap();
        assert_eq!(what, "host w9 added");
        assert_eq!(s2.hosts.last().unwrap().name, "w9");
        // The same name again: the core's message, naming the field.
        let err = edit(&s2, &add).unwrap_err();
        assert!(
            err.starts_with(&format!("hosts[{}].name", s2.hosts.len())),
            "{err}"
        );
        let wl = Change::AddWorkload {
            kind: WorkloadKind::Deployment,
            name: "web".into(),
            replicas: "x".into(),
            service: true,
        };
        assert_eq!(
            edit(&s2, &wl).unwrap_err(),
            "workloads[0].replicas: expected a whole number ≥ 0 (found \"x\")"
        );
    }

    #[test]
    fn many_hosts_at_once_take_the_first_free_numbers_and_an_empty_name_is_refused() {
        let s = ready("k8s-three-zones");
        let add = |name: &str, count: &str| Change::AddHost {
            name: name.into(),
            count: count.into(),
            zone: "zone-b".into(),
            roles: vec![Role::Worker],
            spot: false,
            standby: false,
        };
        let (s2, what) = edit(&s, &add("w", "3")).unwrap();
        let added: Vec<_> = s2.hosts[s.hosts.len()..]
            .iter()
            .map(|h| (h.name.as_str(), h.zone.as_str()))
            .collect();
        assert_eq!(
            added,
            [("w-1", "zone-b"), ("w-2", "zone-b"), ("w-3", "zone-b")]
        );
        assert_eq!(what, "3 hosts added to zone zone-b: w-1 … w-3");
        // Taken numbers are skipped.
        let (s3, _) = edit(&s2, &add("w", "2")).unwrap();
        assert_eq!(s3.hosts[s2.hosts.len()].name, "w-4");
        // An empty name is refused with the naming rule; so are nonsense counts.
        let err = edit(&s, &add("  ", "1")).unwrap_err();
        assert!(
            err.contains("must not be empty: use lowercase letters, digits and '-'"),
            "{err}"
        );
        assert!(edit(&s, &add("w", "0"))
            .unwrap_err()
            .starts_with("how many new hosts: from 1 to"));
        assert!(edit(&s, &add("w", "many"))
            .unwrap_err()
            .starts_with("how many new hosts: expected a whole number"));
        assert!(edit(&s, &add("w", "99999999")).is_err());
    }

    #[test]
    fn settings_are_checked_by_the_core_and_bad_text_is_named() {
        let s = ready("three-zones");
        let (s2, _) = edit(
            &s,
            &Change::SetSetting(SettingKey::EtcdHeartbeatInterval, "50ms".into()),
        )
        .unwrap();
        assert_eq!(setting_text(&s2, SettingKey::EtcdHeartbeatInterval), "50ms");
        let err = edit(
            &s,
            &Change::SetSetting(SettingKey::EtcdHeartbeatInterval, "0s".into()),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "settings.etcd_heartbeat_interval: must be at least 1ms (found 0s)"
        );
        let err = edit(
            &s,
            &Change::SetSetting(SettingKey::LbHealthCheck, "http".into()),
        )
        .unwrap_err();
        assert!(err.starts_with("settings.lb_health_check:"), "{err}");
        // Removing a zone that hosts still name is refused by the core.
        let err = edit(&s, &Change::RemoveZone(0)).unwrap_err();
        assert!(err.contains("unknown zone"), "{err}");
    }

    #[test]
    fn capacity_requests_and_budgets_are_edited_and_bad_text_is_named() {
        let s = ready("7-worker-dies");
        let w1 = s.hosts.iter().position(|h| h.name == "w1").unwrap();
        let (s2, what) = edit(&s, &Change::SetCpu(w1, "3500m".into())).unwrap();
        assert_eq!(
            (s2.hosts[w1].cpu, what.as_str()),
            (Some(3500), "w1: 3500m cpu")
        );
        let (s2, _) = edit(&s2, &Change::SetMemory(w1, "8Gi".into())).unwrap();
        assert_eq!(s2.hosts[w1].memory, Some(8 << 30));
        let (s3, _) = edit(&s2, &Change::SetCpu(w1, " ".into())).unwrap();
        assert_eq!(s3.hosts[w1].cpu, None, "empty: back to the default");
        let err = edit(&s, &Change::SetCpu(w1, "4 cores".into())).unwrap_err();
        assert_eq!(
            err,
            format!(
                "hosts[{w1}].cpu: \"4 cores\" is not a cpu quantity (\"4\", \"0.5\", \"500m\")"
            )
        );

        let (s2, what) = edit(&s, &Change::SetRequestCpu(0, "500m".into())).unwrap();
        assert_eq!(
            s2.workloads[0].requests,
            Some(Resources {
                cpu: 500,
                memory: 0
            })
        );
        assert!(
            what.ends_with("each pod requests 500m cpu, 0 memory"),
            "{what}"
        );
        let (s3, _) = edit(&s2, &Change::SetRequestCpu(0, "".into())).unwrap();
        assert_eq!(
            s3.workloads[0].requests, None,
            "nothing requested: no requests"
        );
        let err = edit(&s, &Change::SetRequestMemory(0, "1GB".into())).unwrap_err();
        assert!(err.starts_with("workloads[0].requests.memory: "), "{err}");

        let (s2, what) = edit(
            &s,
            &Change::SetBudget(0, BudgetKind::MinAvailable, "2".into()),
        )
        .unwrap();
        assert_eq!(s2.workloads[0].pdb, Some(Budget::MinAvailable(2)));
        assert!(
            what.ends_with("disruption budget minAvailable: 2"),
            "{what}"
        );
        let (s3, _) = edit(&s2, &Change::SetBudget(0, BudgetKind::None, "2".into())).unwrap();
        assert_eq!(s3.workloads[0].pdb, None);
        let err = edit(
            &s,
            &Change::SetBudget(0, BudgetKind::MaxUnavailable, "one".into()),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "workloads[0].pdb.max_unavailable: expected a whole number ≥ 0 (found \"one\")"
        );
        // The edited scenario round-trips through its JSON (the share link).
        let (s2, _) = edit(
            &s,
            &Change::SetBudget(0, BudgetKind::MaxUnavailable, "1".into()),
        )
        .unwrap();
        assert_eq!(sim::scenario::parse(&s2.to_json()).unwrap(), s2);
    }

    /// The editor's summaries of a change and its refusals, as the page shows them ("Accepted: …",
    /// "Not applied — …"), are in every language: no English left but names and quoted values.
    #[test]
    fn summaries_and_refusals_are_translated() {
        use sim::scenario::{Role, Spread, WorkloadKind};
        let s = ready("4-rack-split");
        let (za, zb) = (
            s.hosts[0].zone.clone(),
            s.hosts.last().unwrap().zone.clone(),
        );
        let w = |i: usize| i.min(s.workloads.len().saturating_sub(1));
        let changes = [
            Change::AddHost {
                name: "w9".into(),
                count: "1".into(),
                zone: za.clone(),
                roles: vec![Role::Worker],
                spot: false,
                standby: false,
            },
            Change::AddHost {
                name: "w".into(),
                count: "3".into(),
                zone: zb.clone(),
                roles: vec![Role::Worker],
                spot: true,
                standby: false,
            },
            Change::AddHost {
                name: "".into(),
                count: "1".into(),
                zone: za.clone(),
                roles: vec![Role::Worker],
                spot: false,
                standby: false,
            },
            Change::AddHost {
                name: "w9".into(),
                count: "x".into(),
                zone: za.clone(),
                roles: vec![],
                spot: false,
                standby: false,
            },
            Change::AddHost {
                name: "w9".into(),
                count: "0".into(),
                zone: za.clone(),
                roles: vec![],
                spot: false,
                standby: false,
            },
            Change::RemoveHost(0),
            Change::SetZone(3, zb.clone()),
            Change::ToggleRole(3, Role::Etcd),
            Change::SetSpot(3, true),
            Change::SetStandby(3, true),
            Change::SetCpu(3, "3500m".into()),
            Change::SetCpu(3, "4 cores".into()),
            Change::SetMemory(3, "16Gi".into()),
            Change::AddZone("zone-d".into()),
            Change::AddZone("Zone D".into()),
            Change::AddWorkload {
                kind: WorkloadKind::Deployment,
                name: "api".into(),
                replicas: "2".into(),
                service: true,
            },
            Change::AddWorkload {
                kind: WorkloadKind::StatefulSet,
                name: "db".into(),
                replicas: "x".into(),
                service: false,
            },
            Change::SetReplicas(w(0), "5".into()),
            Change::SetService(w(0), true),
            Change::SetRequestCpu(w(0), "500m".into()),
            Change::SetRequestMemory(w(0), "1Gi".into()),
            Change::SetBudget(w(0), BudgetKind::MinAvailable, "2".into()),
            Change::SetBudget(w(0), BudgetKind::MaxUnavailable, "one".into()),
            Change::SetSpread(w(0), Some(Spread::Zone)),
            Change::AddFault {
                kind: FaultForm::HostFailures,
                targets: "role:worker".into(),
                every: "30m".into(),
                then: "2m".into(),
            },
            Change::AddFault {
                kind: FaultForm::ZoneOutages,
                targets: "all".into(),
                every: "soon".into(),
                then: "1m".into(),
            },
            Change::AddFault {
                kind: FaultForm::SpotInterruptions,
                targets: "spot".into(),
                every: "14d".into(),
                then: "5m".into(),
            },
            Change::AddFault {
                kind: FaultForm::HostFailures,
                targets: "role:master".into(),
                every: "1h".into(),
                then: "1m".into(),
            },
            Change::SetSetting(sim::scenario::SettingKey::LeaseDuration, "20s".into()),
            Change::SetSetting(sim::scenario::SettingKey::LeaseDuration, "0s".into()),
            Change::SetName("my cluster".into()),
            Change::SetDuration("2h".into()),
            Change::SetDuration("soon".into()),
            Change::SetSeed("-1".into()),
        ];
        let shown: Vec<String> = changes
            .iter()
            .map(|c| match edit(&s, c) {
                Ok((_, what)) => format!("Accepted: {what}. The run restarted from 0:00."),
                Err(m) => format!("Not applied — {m}"),
            })
            .collect();
        let mut left = vec![];
        for c in crate::language::catalogs() {
            let l = c.lang();
            for text in &shown {
                let out = c.text(text);
                let padded = format!(" {out} ");
                if [
                    " the ",
                    " is ",
                    " of ",
                    " to ",
                    " added",
                    " removed",
                    " must ",
                    " expected ",
                ]
                .iter()
                .any(|w| padded.contains(w))
                {
                    left.push(format!("{}: {text}  →  {out}", l.code()));
                }
            }
        }
        assert!(
            left.is_empty(),
            "{} left in English:\n{}",
            left.len(),
            left.join("\n")
        );
    }
}
