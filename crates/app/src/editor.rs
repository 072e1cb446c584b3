//! The topology editor: one's own scenario as forms. Hosts (zone, roles, spot, standby), zones,
//! workloads, random fault processes and the settings section of the format, plus the
//! scenario's name, duration and seed. Every edit builds a new scenario and checks it with the core's `Scenario::validate()`;
//! an accepted one restarts the run from t = 0 (the scenario changed from its start), a refused
//! one shows the core's message (naming the field) and keeps everything that was typed.
//!
//! The edits themselves are pure functions on a `Scenario` ([`edit`]), tested without a DOM.

use crate::language::{mark, t as tr, tf as trf};
use crate::option::option;
use sim::scenario::{
    fmt_cpu, fmt_memory, parse_cpu, parse_memory, Budget, Fault, FaultKind, Host, LbHealthCheck,
    Resources, Role, Scenario, Selector, SettingKey, SettingValue, Spread, Workload, WorkloadKind,
    DEFAULT_ZONE,
};
use sim::time::parse_duration;
use std::rc::Rc;
use yew::prelude::*;

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
    /// A workload's PodDisruptionBudget: `kind` 0 none, 1 minAvailable, 2 maxUnavailable, of
    /// `count` pods.
    SetBudget(usize, u8, String),
    /// A workload's topology spread: `None`, or over zones or hosts.
    SetSpread(usize, Option<Spread>),
    /// A random fault process from the form's text: `kind` 0 host failures, 1 zone outages,
    /// 2 spot interruptions; `targets` `all`, `spot`, `role:ROLE` or names separated by commas;
    /// `every` the mean time between faults, `then` the mean repair time (for spot
    /// interruptions the replacement delay, empty for none).
    AddFault {
        kind: u8,
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

/// Applies `change` to a copy of `s` and validates it with the core. Ok: the new scenario and
/// a few words saying what changed. Err: the core's message (or, for text that is not even a
/// number or a duration, a message naming the field the same way).
pub fn edit(s: &Scenario, change: &Change) -> Result<(Scenario, String), String> {
    let mut s = s.clone();
    let host = |s: &Scenario, i: usize| s.hosts.get(i).map(|h| h.name.clone()).unwrap_or_default();
    let what = match change {
        Change::AddHost {
            name,
            count: n,
            zone,
            roles,
            spot,
            standby,
        } => {
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
                let mut names = Vec::new();
                for k in 1.. {
                    if names.len() == n as usize {
                        break;
                    }
                    let candidate = format!("{name}-{k}");
                    if s.host(&candidate).is_none() && s.workload(&candidate).is_none() {
                        names.push(candidate);
                    }
                }
                names
            };
            for name in &names {
                s.hosts.push(Host {
                    name: name.clone(),
                    zone: zone.clone(),
                    roles: roles.clone(),
                    spot: *spot,
                    standby: *standby,
                    cpu: None,
                    memory: None,
                });
            }
            match names.as_slice() {
                [one] => format!("host {one} added"),
                [first, .., last] => {
                    format!(
                        "{} hosts added to zone {zone}: {first} … {last}",
                        names.len()
                    )
                }
                [] => "no host added".to_string(),
            }
        }
        Change::RemoveHost(i) => {
            let name = host(&s, *i);
            s.hosts.remove(*i);
            format!("host {name} removed")
        }
        Change::SetZone(i, z) => {
            s.hosts[*i].zone = z.clone();
            format!("{} moved to zone {z}", host(&s, *i))
        }
        Change::ToggleRole(i, r) => {
            let roles = &mut s.hosts[*i].roles;
            let had = roles.contains(r);
            if had {
                roles.retain(|x| x != r);
            } else {
                roles.push(*r);
                // The document's order, so the link stays canonical.
                sim::kernel::sort::sort(roles);
            }
            format!(
                "{}: role {} {}",
                host(&s, *i),
                r.name(),
                if had { "removed" } else { "added" }
            )
        }
        Change::SetSpot(i, v) => {
            s.hosts[*i].spot = *v;
            format!("{}: spot {}", host(&s, *i), if *v { "on" } else { "off" })
        }
        Change::SetStandby(i, v) => {
            s.hosts[*i].standby = *v;
            format!(
                "{}: standby {}",
                host(&s, *i),
                if *v { "on" } else { "off" }
            )
        }
        Change::SetCpu(i, text) => {
            let t = text.trim();
            let path = format!("hosts[{i}].cpu");
            s.hosts[*i].cpu = if t.is_empty() {
                None
            } else {
                Some(parse_cpu(t).map_err(|e| format!("{path}: {e}"))?)
            };
            let shown = s.hosts[*i].allocatable().cpu;
            format!("{}: {} cpu", host(&s, *i), fmt_cpu(shown))
        }
        Change::SetMemory(i, text) => {
            let t = text.trim();
            let path = format!("hosts[{i}].memory");
            s.hosts[*i].memory = if t.is_empty() {
                None
            } else {
                Some(parse_memory(t).map_err(|e| format!("{path}: {e}"))?)
            };
            let shown = s.hosts[*i].allocatable().memory;
            format!("{}: {} memory", host(&s, *i), fmt_memory(shown))
        }
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
        } => {
            let path = format!("workloads[{}].replicas", s.workloads.len());
            let replicas = match kind {
                WorkloadKind::DaemonSet => None,
                _ => Some(count(&path, replicas)?),
            };
            s.workloads.push(Workload {
                kind: *kind,
                name: name.trim().to_string(),
                replicas,
                service: *service,
                requests: None,
                pdb: None,
                spread: None,
            });
            format!("{} {} added", kind.name(), name.trim())
        }
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
            format!(
                "{}: Service {}",
                s.workloads[*i].name,
                if *v { "on" } else { "off" }
            )
        }
        Change::SetRequestCpu(i, text) | Change::SetRequestMemory(i, text) => {
            let t = text.trim();
            let cpu = matches!(change, Change::SetRequestCpu(..));
            let path = format!(
                "workloads[{i}].requests.{}",
                if cpu { "cpu" } else { "memory" }
            );
            let parse = if cpu { parse_cpu } else { parse_memory };
            let n = if t.is_empty() {
                0
            } else {
                parse(t).map_err(|e| format!("{path}: {e}"))?
            };
            let w = &mut s.workloads[*i];
            let mut r = w.requests.unwrap_or(Resources { cpu: 0, memory: 0 });
            if cpu {
                r.cpu = n;
            } else {
                r.memory = n;
            }
            w.requests = (r.cpu > 0 || r.memory > 0).then_some(r);
            match w.requests {
                Some(r) => format!(
                    "{}: each pod requests {} cpu, {} memory",
                    w.name,
                    fmt_cpu(r.cpu),
                    fmt_memory(r.memory)
                ),
                None => format!("{}: no requests", w.name),
            }
        }
        Change::SetBudget(i, kind, text) => {
            let path = format!("workloads[{i}].pdb");
            let w = &mut s.workloads[*i];
            w.pdb = match kind {
                1 => Some(Budget::MinAvailable(count(
                    &format!("{path}.min_available"),
                    text,
                )?)),
                2 => Some(Budget::MaxUnavailable(count(
                    &format!("{path}.max_unavailable"),
                    text,
                )?)),
                _ => None,
            };
            match w.pdb {
                Some(b) => format!("{}: disruption budget {}", w.name, budget_text(b)),
                None => format!("{}: no disruption budget", w.name),
            }
        }
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
            let p = format!("faults[{}]", s.faults.len());
            let t = targets.trim();
            let on = if *kind == 1 { "zones" } else { "hosts" };
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
                2 => FaultKind::SpotInterruptions {
                    every: dur("spot_interruptions_every", every)?,
                    replace_after: match then.trim() {
                        "" => None,
                        t => Some(dur("replace_after", t)?),
                    },
                },
                k => {
                    let (mtbf, mttr) = (dur("mtbf", every)?, dur("mttr", then)?);
                    if *k == 1 {
                        FaultKind::ZoneOutages { mtbf, mttr }
                    } else {
                        FaultKind::HostFailures { mtbf, mttr }
                    }
                }
            };
            let f = Fault { targets, kind };
            let text = fault_text(&f);
            s.faults.push(f);
            format!("random faults added: {text}")
        }
        Change::RemoveFault(i) => {
            let f = s.faults.remove(*i);
            format!("random faults removed: {}", fault_text(&f))
        }
        Change::SetSetting(key, text) => {
            let path = format!("settings.{}", key.name());
            let t = text.trim();
            let value = match s.settings.get(*key) {
                SettingValue::Duration(_) => {
                    SettingValue::Duration(parse_duration(t).map_err(|e| format!("{path}: {e}"))?)
                }
                SettingValue::Bool(_) => SettingValue::Bool(match t {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("{path}: expected true or false (found \"{t}\")")),
                }),
                SettingValue::LbHealthCheck(_) => {
                    SettingValue::LbHealthCheck(LbHealthCheck::from_name(t).ok_or_else(|| {
                        format!("{path}: expected \"readyz\" or \"tcp\" (found \"{t}\")")
                    })?)
                }
                SettingValue::ApiEndpoint(_) => {
                    SettingValue::ApiEndpoint(sim::scenario::ApiEndpoint::from_name(t).ok_or_else(|| {
                        format!("{path}: expected \"load-balancer\", \"kube-vip\" or \"keepalived\" (found \"{t}\")")
                    })?)
                }
                SettingValue::Count(_) => SettingValue::Count(count(&path, t)?),
            };
            s.settings.set(*key, value);
            format!("{} = {t}", key.name())
        }
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
    crate::run::fits_browser(&s)?;
    Ok((s, what))
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
        } => match replace_after {
            Some(r) => {
                format!("spot hosts {who} interrupted every {every} on average, replaced after {r}")
            }
            None => {
                format!("spot hosts {who} interrupted every {every} on average, never replaced")
            }
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
    match s.settings.get(key) {
        SettingValue::Duration(d) => d.to_string(),
        SettingValue::Bool(b) => b.to_string(),
        SettingValue::LbHealthCheck(c) => c.name().to_string(),
        SettingValue::ApiEndpoint(e) => e.name().to_string(),
        SettingValue::Count(n) => n.to_string(),
    }
}

/// A free host name: `prefix-N` for the smallest N not taken.
fn free_name(s: &Scenario, prefix: &str) -> String {
    (1..)
        .map(|n| format!("{prefix}-{n}"))
        .find(|n| s.host(n).is_none() && s.workload(n).is_none())
        .unwrap_or_default()
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub scenario: Rc<Scenario>,
    /// An accepted edit: the new (validated) scenario, and what changed.
    pub on_change: Callback<(Scenario, String)>,
}

/// What is typed into the forms; kept across refusals and across accepted edits of other fields.
#[derive(Clone, PartialEq)]
struct Drafts {
    host_name: String,
    host_count: String,
    host_zone: String,
    host_roles: Vec<Role>,
    host_spot: bool,
    host_standby: bool,
    zone_name: String,
    wl_kind: WorkloadKind,
    wl_name: String,
    wl_replicas: String,
    wl_service: bool,
    fault_kind: u8,
    fault_targets: String,
    fault_every: String,
    fault_then: String,
    /// Typed but not (yet) accepted, by the field's path in the format (`settings.NAME`,
    /// `workloads[1].replicas`, `hosts[3].cpu`, `name`, …).
    typed: Typed,
}

/// Text typed into fields, by path. A vector: a form has a few dozen fields, and a map type
/// would cost the page's bundle its own copy of the B-tree code.
#[derive(Clone, Default, PartialEq)]
struct Typed(Vec<(String, String)>);

impl Typed {
    fn get(&self, path: &str) -> Option<&String> {
        self.0.iter().find(|(p, _)| p == path).map(|(_, t)| t)
    }
    fn set(&mut self, path: String, text: String) {
        match self.0.iter_mut().find(|(p, _)| *p == path) {
            Some(slot) => slot.1 = text,
            None => self.0.push((path, text)),
        }
    }
    /// Forgets the rows' fields once an edit of one was accepted (the scenario shows them
    /// now); settings and the scenario's own fields stay, marked as edited.
    fn clear_rows(&mut self) {
        self.0
            .retain(|(p, _)| p.starts_with("settings.") || !p.contains('.'));
    }
}

impl Drafts {
    fn new() -> Drafts {
        Drafts {
            host_name: String::new(),
            host_count: "1".into(),
            host_zone: String::new(),
            host_roles: vec![Role::Worker],
            host_spot: false,
            host_standby: false,
            zone_name: String::new(),
            wl_kind: WorkloadKind::Deployment,
            wl_name: String::new(),
            wl_replicas: "2".into(),
            wl_service: true,
            fault_kind: 0,
            fault_targets: "all".into(),
            fault_every: "720h".into(),
            fault_then: "1h".into(),
            typed: Typed::default(),
        }
    }
}

fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

fn checked(e: &Event) -> bool {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .checked()
}

#[function_component(Editor)]
pub fn editor(props: &Props) -> Html {
    let s = props.scenario.clone();
    let drafts = use_state(Drafts::new);
    let error = use_state(|| None::<String>);
    let last_ok = use_state(|| None::<String>);

    // Applies a change: on success the owner reloads the run; on refusal the message shows and
    // the drafts stay as typed. `clear` removes the drafts the accepted change consumed.
    let commit = {
        let (s, on_change, error, last_ok, drafts) = (
            s.clone(),
            props.on_change.clone(),
            error.clone(),
            last_ok.clone(),
            drafts.clone(),
        );
        Rc::new(
            move |change: Change, clear: Option<fn(&mut Drafts)>| match edit(&s, &change) {
                Ok((new, what)) => {
                    error.set(None);
                    last_ok.set(Some(trf(format_args!(
                        "Accepted: {what}. The run restarted from 0:00."
                    ))));
                    if let Some(clear) = clear {
                        let mut d = (*drafts).clone();
                        clear(&mut d);
                        drafts.set(d);
                    }
                    on_change.emit((new, what));
                }
                Err(m) => {
                    last_ok.set(None);
                    error.set(Some(m));
                }
            },
        )
    };
    // The change a row's control makes, from its row and the event: one callback type for all
    // of them (each closure type is compiled anew, and the bundle has a size budget).
    let row_change = |i: usize, make: fn(usize, &Event) -> Change| {
        let c = commit.clone();
        Callback::from(move |e: Event| c(make(i, &e), None))
    };
    let row_remove = |i: usize, make: fn(usize) -> Change| {
        let c = commit.clone();
        Callback::from(move |_: MouseEvent| c(make(i), None))
    };
    let draft = |f: fn(&mut Drafts, Event)| {
        let drafts = drafts.clone();
        Callback::from(move |e: Event| {
            let mut d = (*drafts).clone();
            f(&mut d, e);
            drafts.set(d);
        })
    };
    // Keeps what is typed into a draft field.
    let text_draft = |f: fn(&mut Drafts, String)| {
        let drafts = drafts.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*drafts).clone();
            f(
                &mut d,
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            );
            drafts.set(d);
        })
    };
    let d = &*drafts;
    // Keeps what is typed into the field at `path` (shown until an edit is accepted).
    let typing = |path: String| {
        let drafts = drafts.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*drafts).clone();
            d.typed.set(
                path.clone(),
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            );
            drafts.set(d);
        })
    };
    // A text field of a row: shows what was typed until an edit is accepted, else `current`;
    // applied when the user leaves it or presses Enter.
    let field = |path: String,
                 label: String,
                 current: String,
                 hint: &'static str,
                 make: Rc<dyn Fn(String) -> Change>| {
        let text = d.typed.get(&path).cloned().unwrap_or(current);
        let on_input = typing(path);
        let c = commit.clone();
        let on_change = Callback::from(move |e: Event| {
            c(
                make(input_value(&e)),
                Some(|d: &mut Drafts| d.typed.clear_rows()),
            )
        });
        html! {
            <input type="text" class="num" value={text} placeholder={hint} oninput={on_input} onchange={on_change} aria-label={label} />
        }
    };
    let zones: Vec<String> = s
        .zones
        .iter()
        .cloned()
        .chain(std::iter::once(DEFAULT_ZONE.to_string()))
        .collect();
    let zone_default = if d.host_zone.is_empty() {
        zones[0].clone()
    } else {
        d.host_zone.clone()
    };

    // ---- hosts -------------------------------------------------------------------------
    let host_rows = s.hosts.iter().enumerate().map(|(i, h)| {
        let on_zone = row_change(i, |i, e| Change::SetZone(i, e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()));
        let on_spot = row_change(i, |i, e| Change::SetSpot(i, checked(e)));
        let on_standby = row_change(i, |i, e| Change::SetStandby(i, checked(e)));
        let on_remove = row_remove(i, Change::RemoveHost);
        let mut host_zones = zones.clone();
        if !host_zones.contains(&h.zone) {
            host_zones.push(h.zone.clone());
        }
        html! {
            <tr data-edit-host={h.name.clone()}>
                <th scope="row">{ &h.name }</th>
                <td>
                    <select aria-label={trf(format_args!("Zone of {}", h.name))} onchange={on_zone}>
                        { for host_zones.iter().map(|z| option(z.clone(), z.clone(), *z == h.zone)) }
                    </select>
                </td>
                <td class="roles-cell">
                    { for Role::ALL.iter().map(|&r| {
                        let c = commit.clone();
                        let on = Callback::from(move |_: Event| c(Change::ToggleRole(i, r), None));
                        html! {
                            <label class="check">
                                <input type="checkbox" checked={h.roles.contains(&r)} onchange={on}
                                    aria-label={trf(format_args!("{}: role {}", h.name, r.name()))} />
                                { r.name() }
                            </label>
                        }
                    }) }
                </td>
                <td><input type="checkbox" checked={h.spot} onchange={on_spot} aria-label={trf(format_args!("{}: spot instance", h.name))} /></td>
                <td><input type="checkbox" checked={h.standby} onchange={on_standby} aria-label={trf(format_args!("{}: standby (joins later)", h.name))} /></td>
                <td class="capacity">
                    { field(format!("hosts[{i}].cpu"), format!("{}: cpu", h.name), h.cpu.map(fmt_cpu).unwrap_or_default(), "4", Rc::new(move |t| Change::SetCpu(i, t))) }
                    { field(format!("hosts[{i}].memory"), format!("{}: memory", h.name), h.memory.map(fmt_memory).unwrap_or_default(), "16Gi", Rc::new(move |t| Change::SetMemory(i, t))) }
                </td>
                <td><button onclick={on_remove} aria-label={trf(format_args!("Remove host {}", h.name))}>{ tr("Remove") }</button></td>
            </tr>
        }
    });
    let add_host = {
        let c = commit.clone();
        let d = d.clone();
        let zone = zone_default.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let name = d.host_name.clone();
            let mut roles = d.host_roles.clone();
            sim::kernel::sort::sort(&mut roles);
            c(
                Change::AddHost {
                    name,
                    count: d.host_count.clone(),
                    zone: zone.clone(),
                    roles,
                    spot: d.host_spot,
                    standby: d.host_standby,
                },
                Some(|d: &mut Drafts| d.host_name.clear()),
            )
        })
    };
    let host_form = html! {
        <form class="add" onsubmit={add_host} aria-label={tr("Add a host")}>
            <label>{ tr("Name") }{ " " }
                <input type="text" value={d.host_name.clone()} placeholder={trf(format_args!("required, like {}", free_name(&s, "w")))} aria-label={tr("New host name")}
                    oninput={text_draft(|d, v| d.host_name = v)} />
            </label>
            <label title={tr("More than one: the name is a prefix (worker → worker-1, worker-2, …)")}>{ tr("How many") }{ " " }
                <input type="text" inputmode="numeric" size="3" value={d.host_count.clone()} aria-label={tr("How many new hosts")}
                    oninput={text_draft(|d, v| d.host_count = v)} />
            </label>
            <label>{ tr("Zone") }{ " " }
                <select aria-label={tr("New host zone")} onchange={draft(|d, e| d.host_zone = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value())}>
                    { for zones.iter().map(|z| option(z.clone(), z.clone(), *z == zone_default)) }
                </select>
            </label>
            <fieldset class="roles-cell">
                <legend>{ tr("Roles") }</legend>
                { for Role::ALL.iter().map(|&r| {
                    let drafts = drafts.clone();
                    let on = Callback::from(move |e: Event| {
                        let mut d = (*drafts).clone();
                        if checked(&e) { if !d.host_roles.contains(&r) { d.host_roles.push(r); } } else { d.host_roles.retain(|x| *x != r); }
                        drafts.set(d);
                    });
                    html! {
                        <label class="check">
                            <input type="checkbox" checked={d.host_roles.contains(&r)} onchange={on} aria-label={trf(format_args!("New host: role {}", r.name()))} />
                            { r.name() }
                        </label>
                    }
                }) }
            </fieldset>
            <label class="check"><input type="checkbox" checked={d.host_spot} onchange={draft(|d, e| d.host_spot = checked(&e))} />{ tr("spot") }</label>
            <label class="check"><input type="checkbox" checked={d.host_standby} onchange={draft(|d, e| d.host_standby = checked(&e))} />{ tr("standby") }</label>
            <button type="submit">{ tr("Add host") }</button>
        </form>
    };

    // ---- zones -------------------------------------------------------------------------
    let zone_items = s.zones.iter().enumerate().map(|(i, z)| {
        let on_remove = row_remove(i, Change::RemoveZone);
        let hosts = s.hosts_in_zone(z).count();
        html! {
            <li data-edit-zone={z.clone()}>
                { if hosts == 1 { trf(format_args!("{z} (1 host)")) } else { trf(format_args!("{z} ({hosts} hosts)")) } }
                <button onclick={on_remove} aria-label={trf(format_args!("Remove zone {z}"))}>{ tr("Remove") }</button>
            </li>
        }
    });
    let add_zone = {
        let c = commit.clone();
        let name = d.zone_name.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            c(
                Change::AddZone(name.clone()),
                Some(|d: &mut Drafts| d.zone_name.clear()),
            )
        })
    };

    // ---- workloads ---------------------------------------------------------------------
    let wl_rows = s.workloads.iter().enumerate().map(|(i, w)| {
        let on_service = row_change(i, |i, e| Change::SetService(i, checked(e)));
        let on_remove = row_remove(i, Change::RemoveWorkload);
        let replicas = w.replicas.map(|r| {
            let path = format!("workloads[{i}].replicas");
            let text = d.typed.get(&path).cloned().unwrap_or_else(|| r.to_string());
            let on_input = typing(path);
            let c = commit.clone();
            let on_change = Callback::from(move |e: Event| {
                c(Change::SetReplicas(i, input_value(&e)), Some(|d: &mut Drafts| d.typed.clear_rows()))
            });
            html! {
                <input type="text" inputmode="numeric" class="num" value={text} oninput={on_input} onchange={on_change}
                    aria-label={trf(format_args!("Replicas of {}", w.name))} />
            }
        });
        let (kind, n) = match w.pdb {
            Some(Budget::MinAvailable(n)) => (1u8, n),
            Some(Budget::MaxUnavailable(n)) => (2, n),
            None => (0, 1),
        };
        let c = commit.clone();
        let on_kind = Callback::from(move |e: Event| {
            let k = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value().parse().unwrap_or(0);
            c(Change::SetBudget(i, k, n.to_string()), None)
        });
        let budget = html! {
            <>
                <select aria-label={trf(format_args!("{}: disruption budget", w.name))} onchange={on_kind}>
                    { for ["none", "minAvailable", "maxUnavailable"].iter().enumerate().map(|(k, t)| option(k.to_string(), *t, k as u8 == kind)) }
                </select>
                if kind > 0 {
                    { field(format!("workloads[{i}].pdb"), format!("{}: disruption budget pods", w.name), n.to_string(), "1", Rc::new(move |t| Change::SetBudget(i, kind, t))) }
                }
            </>
        };
        let spread = if w.kind == WorkloadKind::DaemonSet {
            html! {}
        } else {
            let on_spread = row_change(i, |i, e| {
                let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
                let sp = [Spread::Zone, Spread::Host].into_iter().find(|s| s.name() == v);
                Change::SetSpread(i, sp)
            });
            html! {
                <select aria-label={trf(format_args!("{}: topology spread", w.name))} onchange={on_spread}>
                    { for ["none", "zone", "host"].iter().map(|t| option(*t, *t, w.spread.map_or("none", Spread::name) == *t)) }
                </select>
            }
        };
        html! {
            <tr data-edit-workload={w.name.clone()}>
                <th scope="row">{ &w.name }</th>
                <td>{ w.kind.name() }</td>
                <td>{ replicas.unwrap_or_else(|| html! { <span class="muted">{ tr("one per node") }</span> }) }</td>
                <td><input type="checkbox" checked={w.service} onchange={on_service} aria-label={trf(format_args!("{}: Service in front", w.name))} /></td>
                <td class="capacity">
                    { field(format!("workloads[{i}].requests.cpu"), format!("{}: cpu request per pod", w.name), w.requests.filter(|r| r.cpu > 0).map(|r| fmt_cpu(r.cpu)).unwrap_or_default(), "cpu", Rc::new(move |t| Change::SetRequestCpu(i, t))) }
                    { field(format!("workloads[{i}].requests.memory"), format!("{}: memory request per pod", w.name), w.requests.filter(|r| r.memory > 0).map(|r| fmt_memory(r.memory)).unwrap_or_default(), "memory", Rc::new(move |t| Change::SetRequestMemory(i, t))) }
                </td>
                <td class="budget">{ budget }</td>
                <td>{ spread }</td>
                <td><button onclick={on_remove} aria-label={trf(format_args!("Remove workload {}", w.name))}>{ tr("Remove") }</button></td>
            </tr>
        }
    });
    let add_wl = {
        let c = commit.clone();
        let d = d.clone();
        let s = s.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let name = if d.wl_name.trim().is_empty() {
                free_name(&s, "app")
            } else {
                d.wl_name.clone()
            };
            c(
                Change::AddWorkload {
                    kind: d.wl_kind,
                    name,
                    replicas: d.wl_replicas.clone(),
                    service: d.wl_service,
                },
                Some(|d: &mut Drafts| d.wl_name.clear()),
            )
        })
    };

    // ---- random faults -------------------------------------------------------------------
    let fault_items = s.faults.iter().enumerate().map(|(i, f)| {
        let c = commit.clone();
        let on_remove = Callback::from(move |_: MouseEvent| c(Change::RemoveFault(i), None));
        html! {
            <li>
                { fault_text(f) }
                <button onclick={on_remove} aria-label={trf(format_args!("Remove random faults {i}"))}>{ tr("Remove") }</button>
            </li>
        }
    });
    let add_fault = {
        let c = commit.clone();
        let d = d.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            c(
                Change::AddFault {
                    kind: d.fault_kind,
                    targets: d.fault_targets.clone(),
                    every: d.fault_every.clone(),
                    then: d.fault_then.clone(),
                },
                None,
            )
        })
    };
    let (every_label, then_label) = match d.fault_kind {
        2 => (tr("Every"), tr("Replaced after")),
        1 => (tr("Every"), tr("Cut off for")),
        _ => (tr("Every (MTBF)"), tr("Repaired in (MTTR)")),
    };

    // ---- settings and the scenario's own fields ------------------------------------------
    let setting_rows = SettingKey::ALL.iter().map(|&k| {
        let path = format!("settings.{}", k.name());
        let text = d.typed.get(&path).cloned().unwrap_or_else(|| setting_text(&s, k));
        let on_input = typing(path.clone());
        let c = commit.clone();
        let drafts3 = drafts.clone();
        let on_change = Callback::from(move |e: Event| {
            let v = input_value(&e);
            // Keep the text even after acceptance until the scenario shows it back.
            let mut d = (*drafts3).clone();
            d.typed.set(format!("settings.{}", k.name()), v.clone());
            drafts3.set(d);
            c(Change::SetSetting(k, v), None)
        });
        let edited = d.typed.get(&path).is_some_and(|t| *t != setting_text(&s, k));
        html! {
            <label class={classes!("setting", edited.then_some("edited"))}>
                <span>{ k.name() }</span>
                <input type="text" value={text} oninput={on_input} onchange={on_change} aria-label={trf(format_args!("Setting {}", k.name()))} />
            </label>
        }
    });
    let meta = |key: &'static str,
                label: &'static str,
                current: String,
                make: fn(String) -> Change| {
        let text = d.typed.get(key).cloned().unwrap_or(current.clone());
        let on_input = typing(key.to_string());
        let c = commit.clone();
        let on_change = Callback::from(move |e: Event| c(make(input_value(&e)), None));
        let edited = d.typed.get(key).is_some_and(|t| *t != current);
        html! {
            <label class={classes!("setting", edited.then_some("edited"))}>
                <span>{ label }</span>
                <input type="text" value={text} oninput={on_input} onchange={on_change} aria-label={trf(format_args!("Scenario {label}"))} />
            </label>
        }
    };

    html! {
        <div class="editor-body">
            <p class="hint">{ tr("Every change is checked by the simulation core and restarts the run from 0:00 (the scenario changed). \
                               Scheduled events stay; a change they contradict is refused with the core's message.") }</p>
            if let Some(m) = &*error {
                <p class="edit-error" role="alert">{ trf(format_args!("Not applied — {m}")) }</p>
            }
            if let Some(m) = &*last_ok {
                <p class="edit-ok" role="status">{ m }</p>
            }
            <fieldset class="group">
                <legend>{ tr("Scenario") }</legend>
                <div class="settings">
                    { meta("name", "name", s.name.clone(), Change::SetName) }
                    { meta("duration", "duration", s.duration.to_string(), Change::SetDuration) }
                    { meta("seed", "seed", s.seed.to_string(), Change::SetSeed) }
                </div>
            </fieldset>
            <fieldset class="group">
                <legend>{ trf(format_args!("Hosts ({})", s.hosts.len())) }</legend>
                <div class="table-scroll">
                    <table class="edit-table">
                        <thead><tr><th>{ tr("host") }</th><th>{ tr("zone") }</th><th>{ tr("roles") }</th><th>{ tr("spot") }</th><th>{ tr("standby") }</th><th title={tr("The Node's allocatable: cpu (cores, or millicores like 3500m) and memory (like 16Gi). Empty: 4 and 16Gi.")}>{ tr("cpu · memory") }</th><th></th></tr></thead>
                        <tbody>{ for host_rows }</tbody>
                    </table>
                </div>
                { host_form }
            </fieldset>
            <fieldset class="group">
                <legend>{ tr("Zones") }</legend>
                <ul class="zones">{ for zone_items }</ul>
                <form class="add" onsubmit={add_zone} aria-label={tr("Add a zone")}>
                    <label>{ tr("Zone name") }{ " " }
                        <input type="text" value={d.zone_name.clone()} aria-label={tr("New zone name")}
                            oninput={text_draft(|d, v| d.zone_name = v)} />
                    </label>
                    <button type="submit">{ tr("Add zone") }</button>
                </form>
            </fieldset>
            <fieldset class="group">
                <legend>{ tr("Workloads") }</legend>
                <table class="edit-table">
                    <thead><tr><th>{ tr("name") }</th><th>{ tr("kind") }</th><th>{ tr("replicas") }</th><th>{ tr("Service") }</th><th title={tr("What each pod requests: the scheduler places it only where it fits. Empty: nothing.")}>{ tr("requests") }</th><th title={tr("A PodDisruptionBudget: drains and spot notices evict only while it allows.")}>{ tr("disruption budget") }</th><th title={tr("A topology spread constraint (maxSkew 1, DoNotSchedule): every Node's zone or host is a domain, control-plane Nodes included.")}>{ tr("spread") }</th><th></th></tr></thead>
                    <tbody>{ for wl_rows }</tbody>
                </table>
                <form class="add" onsubmit={add_wl} aria-label={tr("Add a workload")}>
                    <label>{ tr("Kind") }{ " " }
                        <select aria-label={tr("New workload kind")} onchange={draft(|d, e| {
                            d.wl_kind = WorkloadKind::from_name(&e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()).unwrap_or(WorkloadKind::Deployment)
                        })}>
                            { for WorkloadKind::ALL.iter().map(|k| option(k.name(), k.name(), *k == d.wl_kind)) }
                        </select>
                    </label>
                    <label>{ tr("Name") }{ " " }
                        <input type="text" value={d.wl_name.clone()} placeholder={free_name(&s, "app")} aria-label={tr("New workload name")}
                            oninput={text_draft(|d, v| d.wl_name = v)} />
                    </label>
                    if d.wl_kind != WorkloadKind::DaemonSet {
                        <label>{ tr("Replicas") }{ " " }
                            <input type="text" inputmode="numeric" class="num" value={d.wl_replicas.clone()} aria-label={tr("New workload replicas")}
                                oninput={text_draft(|d, v| d.wl_replicas = v)} />
                        </label>
                    }
                    <label class="check"><input type="checkbox" checked={d.wl_service} onchange={draft(|d, e| d.wl_service = checked(&e))} />{ tr("Service") }</label>
                    <button type="submit">{ tr("Add workload") }</button>
                </form>
            </fieldset>
            <fieldset class="group">
                <legend>{ tr("Random faults") }</legend>
                <p class="hint">{ tr("Failures drawn at random from the seed (exponential times around the means): the same scenario fails the same way every run, another seed draws again. For how often over years, open the Availability study beside Share this run.") }</p>
                <ul class="zones">{ for fault_items }</ul>
                <form class="add" onsubmit={add_fault} aria-label={tr("Add random faults")}>
                    <label>{ tr("What") }{ " " }
                        <select aria-label={tr("Random fault kind")} onchange={draft(|d, e| {
                            d.fault_kind = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value().parse().unwrap_or(0);
                            d.fault_then = if d.fault_kind == 2 { "5m".into() } else { "1h".into() };
                            d.fault_targets = if d.fault_kind == 2 { "spot".into() } else { "all".into() };
                        })}>
                            { for [mark("host failures"), mark("zone outages"), mark("spot interruptions")].iter().enumerate().map(|(k, n)| option(k.to_string(), tr(n), k as u8 == d.fault_kind)) }
                        </select>
                    </label>
                    <label>{ tr("Of") }{ " " }
                        <input type="text" value={d.fault_targets.clone()} placeholder={tr("all, spot, role:etcd or names")} aria-label={tr("Random fault targets")}
                            oninput={text_draft(|d, v| d.fault_targets = v)} />
                    </label>
                    <label>{ every_label }{ " " }
                        <input type="text" class="num" value={d.fault_every.clone()} aria-label={tr("Random fault mean interval")}
                            oninput={text_draft(|d, v| d.fault_every = v)} />
                    </label>
                    <label>{ then_label }{ " " }
                        <input type="text" class="num" value={d.fault_then.clone()} aria-label={tr("Random fault mean duration")}
                            oninput={text_draft(|d, v| d.fault_then = v)} />
                    </label>
                    <button type="submit">{ tr("Add random faults") }</button>
                </form>
            </fieldset>
            <fieldset class="group">
                <legend>{ tr("Settings") }</legend>
                <p class="hint">{ tr("Durations as in Kubernetes (250ms, 40s, 5m); lb_health_check: readyz or tcp; api_endpoint: load-balancer, kube-vip or keepalived; etcd_pre_vote, cloud_controller_manager: true or false. Applied when you leave the field or press Enter.") }</p>
                <div class="settings">{ for setting_rows }</div>
            </fieldset>
        </div>
    }
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
        let add = |kind: u8, targets: &str, every: &str, then: &str| Change::AddFault {
            kind,
            targets: targets.into(),
            every: every.into(),
            then: then.into(),
        };
        let (s2, what) = edit(&s, &add(0, "role:worker", "30m", "2m")).unwrap();
        assert_eq!(
            what,
            "random faults added: hosts role:worker fail every 30m on average, repaired in 2m"
        );
        assert_eq!(s2.faults.len(), 1);
        // The run applies them: a worker fails at random within the scenario.
        let r = sim::run_scenario(&s2.to_json()).unwrap();
        assert!(
            r.events
                .iter()
                .any(|e| e.text.contains("a random failure struck it (faults[0])")),
            "no random failure in {} events",
            r.events.len()
        );
        // Bad text is named by field; the core names what it refuses.
        assert_eq!(
            edit(&s2, &add(0, "role:master", "1h", "1m")).unwrap_err(),
            "faults[1].hosts: unknown role \"master\""
        );
        assert_eq!(
            edit(&s2, &add(1, "all", "soon", "1m")).unwrap_err(),
            "faults[1].mtbf: invalid duration \"soon\": expected a number"
        );
        let err = edit(&s2, &add(2, "all", "1h", "")).unwrap_err();
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

        let (s2, what) = edit(&s, &Change::SetBudget(0, 1, "2".into())).unwrap();
        assert_eq!(s2.workloads[0].pdb, Some(Budget::MinAvailable(2)));
        assert!(
            what.ends_with("disruption budget minAvailable: 2"),
            "{what}"
        );
        let (s3, _) = edit(&s2, &Change::SetBudget(0, 0, "2".into())).unwrap();
        assert_eq!(s3.workloads[0].pdb, None);
        let err = edit(&s, &Change::SetBudget(0, 2, "one".into())).unwrap_err();
        assert_eq!(
            err,
            "workloads[0].pdb.max_unavailable: expected a whole number ≥ 0 (found \"one\")"
        );
        // The edited scenario round-trips through its JSON (the share link).
        let (s2, _) = edit(&s, &Change::SetBudget(0, 2, "1".into())).unwrap();
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
            Change::SetBudget(w(0), 1, "2".into()),
            Change::SetBudget(w(0), 2, "one".into()),
            Change::SetSpread(w(0), Some(Spread::Zone)),
            Change::AddFault {
                kind: 0,
                targets: "role:worker".into(),
                every: "30m".into(),
                then: "2m".into(),
            },
            Change::AddFault {
                kind: 1,
                targets: "all".into(),
                every: "soon".into(),
                then: "1m".into(),
            },
            Change::AddFault {
                kind: 2,
                targets: "spot".into(),
                every: "14d".into(),
                then: "5m".into(),
            },
            Change::AddFault {
                kind: 0,
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
