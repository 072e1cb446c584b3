//! The editor's forms: a table per part of the scenario (hosts, zones, workloads, random faults,
//! settings, its own name, duration and seed), each row's controls making a [`Change`], and
//! forms to add to each part. What is typed stays until an edit that uses it is accepted, also
//! when the core refuses one.

use super::{edit, fault_text, free_name, setting_text, BudgetKind, Change, FaultForm};
use crate::language::{t as tr, tf as trf};
use crate::option::option;
use sim::scenario::{
    fmt_cpu, fmt_memory, Host, Role, Scenario, SettingKey, Spread, Workload, WorkloadKind,
    DEFAULT_ZONE,
};
use std::rc::Rc;
use yew::prelude::*;

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
    fault_kind: FaultForm,
    fault_targets: String,
    fault_every: String,
    fault_then: String,
    /// Typed but not (yet) accepted, by the field's path in the format (`settings.NAME`,
    /// `workloads[1].replicas`, `hosts[3].cpu`, `name`, …).
    typed: Typed,
}

/// Text typed into fields, by path (a form has a few dozen fields).
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
            fault_kind: FaultForm::HostFailures,
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

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

fn checked(e: &Event) -> bool {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .checked()
}

/// Applies a change: on success the owner reloads the run; on refusal the message shows and the
/// drafts stay as typed. The `fn` removes the drafts the accepted change consumed.
type Commit = Rc<dyn Fn(Change, Option<fn(&mut Drafts)>)>;

/// What every part of the form draws from: the scenario, what is typed, and the way to commit.
/// Its callbacks take plain `fn`s, one callback type for all the controls of a kind.
struct Form<'a> {
    s: &'a Scenario,
    d: &'a Drafts,
    drafts: UseStateHandle<Drafts>,
    commit: Commit,
}

impl Form<'_> {
    /// The change a row's control makes, from its row and the event.
    fn row_change(&self, i: usize, make: fn(usize, &Event) -> Change) -> Callback<Event> {
        let c = self.commit.clone();
        Callback::from(move |e: Event| c(make(i, &e), None))
    }

    fn row_remove(&self, i: usize, make: fn(usize) -> Change) -> Callback<MouseEvent> {
        let c = self.commit.clone();
        Callback::from(move |_: MouseEvent| c(make(i), None))
    }

    /// Keeps a draft control's state.
    fn draft(&self, f: fn(&mut Drafts, Event)) -> Callback<Event> {
        let drafts = self.drafts.clone();
        Callback::from(move |e: Event| {
            let mut d = (*drafts).clone();
            f(&mut d, e);
            drafts.set(d);
        })
    }

    /// Keeps what is typed into a draft field.
    fn text_draft(&self, f: fn(&mut Drafts, String)) -> Callback<InputEvent> {
        let drafts = self.drafts.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*drafts).clone();
            f(
                &mut d,
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            );
            drafts.set(d);
        })
    }

    /// Keeps what is typed into the field at `path` (shown until an edit is accepted).
    fn typing(&self, path: String) -> Callback<InputEvent> {
        let drafts = self.drafts.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*drafts).clone();
            d.typed.set(
                path.clone(),
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            );
            drafts.set(d);
        })
    }

    /// A text field of a row: shows what was typed until an edit is accepted, else `current`;
    /// applied when the user leaves it or presses Enter.
    fn field(
        &self,
        path: String,
        label: String,
        current: String,
        hint: &'static str,
        make: Rc<dyn Fn(String) -> Change>,
    ) -> Html {
        let text = self.d.typed.get(&path).cloned().unwrap_or(current);
        let on_input = self.typing(path);
        let c = self.commit.clone();
        let on_change = Callback::from(move |e: Event| {
            c(
                make(input_value(&e)),
                Some(|d: &mut Drafts| d.typed.clear_rows()),
            )
        });
        html! {
            <input type="text" class="num" value={text} placeholder={hint} oninput={on_input} onchange={on_change} aria-label={label} />
        }
    }

    /// One of the scenario's own fields (name, duration, seed), marked while edited.
    fn meta(
        &self,
        key: &'static str,
        label: &'static str,
        current: String,
        make: fn(String) -> Change,
    ) -> Html {
        let text = self.d.typed.get(key).cloned().unwrap_or(current.clone());
        let on_input = self.typing(key.to_string());
        let c = self.commit.clone();
        let on_change = Callback::from(move |e: Event| c(make(input_value(&e)), None));
        let edited = self.d.typed.get(key).is_some_and(|t| *t != current);
        html! {
            <label class={classes!("setting", edited.then_some("edited"))}>
                <span>{ label }</span>
                <input type="text" value={text} oninput={on_input} onchange={on_change} aria-label={trf(format_args!("Scenario {label}"))} />
            </label>
        }
    }

    /// The zones a host may be in: the scenario's, then the default one.
    fn zones(&self) -> Vec<String> {
        let mut zones = self.s.zones.clone();
        zones.push(DEFAULT_ZONE.to_string());
        zones
    }
}

#[function_component(Editor)]
pub fn editor(props: &Props) -> Html {
    let drafts = use_state(Drafts::new);
    let error = use_state(|| None::<String>);
    let last_ok = use_state(|| None::<String>);
    let commit: Commit = {
        let (s, on_change, error, last_ok, drafts) = (
            props.scenario.clone(),
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
    let f = Form {
        s: &props.scenario,
        d: &drafts,
        drafts: drafts.clone(),
        commit,
    };
    let s = f.s;
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
                    { f.meta("name", "name", s.name.clone(), Change::SetName) }
                    { f.meta("duration", "duration", s.duration.to_string(), Change::SetDuration) }
                    { f.meta("seed", "seed", s.seed.to_string(), Change::SetSeed) }
                </div>
            </fieldset>
            { hosts(&f) }
            { zones(&f) }
            { workloads(&f) }
            { faults(&f) }
            { settings(&f) }
        </div>
    }
}

fn hosts(f: &Form) -> Html {
    let s = f.s;
    html! {
        <fieldset class="group">
            <legend>{ trf(format_args!("Hosts ({})", s.hosts.len())) }</legend>
            <div class="table-scroll">
                <table class="edit-table">
                    <thead><tr><th>{ tr("host") }</th><th>{ tr("zone") }</th><th>{ tr("roles") }</th><th>{ tr("spot") }</th><th>{ tr("standby") }</th><th title={tr("The Node's allocatable: cpu (cores, or millicores like 3500m) and memory (like 16Gi). Empty: 4 and 16Gi.")}>{ tr("cpu · memory") }</th><th></th></tr></thead>
                    <tbody>{ for s.hosts.iter().enumerate().map(|(i, h)| host_row(f, i, h)) }</tbody>
                </table>
            </div>
            { add_host(f) }
        </fieldset>
    }
}

fn host_row(f: &Form, i: usize, h: &Host) -> Html {
    let on_zone = f.row_change(i, |i, e| Change::SetZone(i, select_value(e)));
    let on_spot = f.row_change(i, |i, e| Change::SetSpot(i, checked(e)));
    let on_standby = f.row_change(i, |i, e| Change::SetStandby(i, checked(e)));
    let on_remove = f.row_remove(i, Change::RemoveHost);
    let mut host_zones = f.zones();
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
                    let c = f.commit.clone();
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
                { f.field(format!("hosts[{i}].cpu"), format!("{}: cpu", h.name), h.cpu.map(fmt_cpu).unwrap_or_default(), "4", Rc::new(move |t| Change::SetCpu(i, t))) }
                { f.field(format!("hosts[{i}].memory"), format!("{}: memory", h.name), h.memory.map(fmt_memory).unwrap_or_default(), "16Gi", Rc::new(move |t| Change::SetMemory(i, t))) }
            </td>
            <td><button onclick={on_remove} aria-label={trf(format_args!("Remove host {}", h.name))}>{ tr("Remove") }</button></td>
        </tr>
    }
}

fn add_host(f: &Form) -> Html {
    let (s, d) = (f.s, f.d);
    let zones = f.zones();
    let zone_default = if d.host_zone.is_empty() {
        zones[0].clone()
    } else {
        d.host_zone.clone()
    };
    let on_submit = {
        let c = f.commit.clone();
        let d = d.clone();
        let zone = zone_default.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let mut roles = d.host_roles.clone();
            sim::kernel::sort::sort(&mut roles);
            c(
                Change::AddHost {
                    name: d.host_name.clone(),
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
    html! {
        <form class="add" onsubmit={on_submit} aria-label={tr("Add a host")}>
            <label>{ tr("Name") }{ " " }
                <input type="text" value={d.host_name.clone()} placeholder={trf(format_args!("required, like {}", free_name(s, "w")))} aria-label={tr("New host name")}
                    oninput={f.text_draft(|d, v| d.host_name = v)} />
            </label>
            <label title={tr("More than one: the name is a prefix (worker → worker-1, worker-2, …)")}>{ tr("How many") }{ " " }
                <input type="text" inputmode="numeric" size="3" value={d.host_count.clone()} aria-label={tr("How many new hosts")}
                    oninput={f.text_draft(|d, v| d.host_count = v)} />
            </label>
            <label>{ tr("Zone") }{ " " }
                <select aria-label={tr("New host zone")} onchange={f.draft(|d, e| d.host_zone = select_value(&e))}>
                    { for zones.iter().map(|z| option(z.clone(), z.clone(), *z == zone_default)) }
                </select>
            </label>
            <fieldset class="roles-cell">
                <legend>{ tr("Roles") }</legend>
                { for Role::ALL.iter().map(|&r| {
                    let drafts = f.drafts.clone();
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
            <label class="check"><input type="checkbox" checked={d.host_spot} onchange={f.draft(|d, e| d.host_spot = checked(&e))} />{ tr("spot") }</label>
            <label class="check"><input type="checkbox" checked={d.host_standby} onchange={f.draft(|d, e| d.host_standby = checked(&e))} />{ tr("standby") }</label>
            <button type="submit">{ tr("Add host") }</button>
        </form>
    }
}

fn zones(f: &Form) -> Html {
    let (s, d) = (f.s, f.d);
    let items = s.zones.iter().enumerate().map(|(i, z)| {
        let on_remove = f.row_remove(i, Change::RemoveZone);
        let hosts = s.hosts_in_zone(z).count();
        html! {
            <li data-edit-zone={z.clone()}>
                { if hosts == 1 { trf(format_args!("{z} (1 host)")) } else { trf(format_args!("{z} ({hosts} hosts)")) } }
                <button onclick={on_remove} aria-label={trf(format_args!("Remove zone {z}"))}>{ tr("Remove") }</button>
            </li>
        }
    });
    let on_submit = {
        let c = f.commit.clone();
        let name = d.zone_name.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            c(
                Change::AddZone(name.clone()),
                Some(|d: &mut Drafts| d.zone_name.clear()),
            )
        })
    };
    html! {
        <fieldset class="group">
            <legend>{ tr("Zones") }</legend>
            <ul class="zones">{ for items }</ul>
            <form class="add" onsubmit={on_submit} aria-label={tr("Add a zone")}>
                <label>{ tr("Zone name") }{ " " }
                    <input type="text" value={d.zone_name.clone()} aria-label={tr("New zone name")}
                        oninput={f.text_draft(|d, v| d.zone_name = v)} />
                </label>
                <button type="submit">{ tr("Add zone") }</button>
            </form>
        </fieldset>
    }
}

fn workloads(f: &Form) -> Html {
    let s = f.s;
    html! {
        <fieldset class="group">
            <legend>{ tr("Workloads") }</legend>
            <table class="edit-table">
                <thead><tr><th>{ tr("name") }</th><th>{ tr("kind") }</th><th>{ tr("replicas") }</th><th>{ tr("Service") }</th><th title={tr("What each pod requests: the scheduler places it only where it fits. Empty: nothing.")}>{ tr("pod requests") }</th><th title={tr("A PodDisruptionBudget: drains and spot notices evict only while it allows.")}>{ tr("disruption budget") }</th><th title={tr("A topology spread constraint (maxSkew 1, DoNotSchedule): every Node's zone or host is a domain, control-plane Nodes included.")}>{ tr("spread") }</th><th></th></tr></thead>
                <tbody>{ for s.workloads.iter().enumerate().map(|(i, w)| workload_row(f, i, w)) }</tbody>
            </table>
            { add_workload(f) }
        </fieldset>
    }
}

fn workload_row(f: &Form, i: usize, w: &Workload) -> Html {
    let on_service = f.row_change(i, |i, e| Change::SetService(i, checked(e)));
    let on_remove = f.row_remove(i, Change::RemoveWorkload);
    let replicas = w.replicas.map(|r| {
        let path = format!("workloads[{i}].replicas");
        let text = f.d.typed.get(&path).cloned().unwrap_or_else(|| r.to_string());
        let on_input = f.typing(path);
        let c = f.commit.clone();
        let on_change = Callback::from(move |e: Event| {
            c(Change::SetReplicas(i, input_value(&e)), Some(|d: &mut Drafts| d.typed.clear_rows()))
        });
        html! {
            <input type="text" inputmode="numeric" class="num" value={text} oninput={on_input} onchange={on_change}
                aria-label={trf(format_args!("Replicas of {}", w.name))} />
        }
    });
    html! {
        <tr data-edit-workload={w.name.clone()}>
            <th scope="row">{ &w.name }</th>
            <td>{ w.kind.name() }</td>
            <td>{ replicas.unwrap_or_else(|| html! { <span class="muted">{ tr("one per node") }</span> }) }</td>
            <td><input type="checkbox" checked={w.service} onchange={on_service} aria-label={trf(format_args!("{}: Service in front", w.name))} /></td>
            <td class="capacity">
                { f.field(format!("workloads[{i}].requests.cpu"), format!("{}: cpu request per pod", w.name), w.requests.filter(|r| r.cpu > 0).map(|r| fmt_cpu(r.cpu)).unwrap_or_default(), "cpu", Rc::new(move |t| Change::SetRequestCpu(i, t))) }
                { f.field(format!("workloads[{i}].requests.memory"), format!("{}: memory request per pod", w.name), w.requests.filter(|r| r.memory > 0).map(|r| fmt_memory(r.memory)).unwrap_or_default(), "memory", Rc::new(move |t| Change::SetRequestMemory(i, t))) }
            </td>
            <td class="budget">{ budget(f, i, w) }</td>
            <td>{ spread(f, i, w) }</td>
            <td><button onclick={on_remove} aria-label={trf(format_args!("Remove workload {}", w.name))}>{ tr("Remove") }</button></td>
        </tr>
    }
}

fn budget(f: &Form, i: usize, w: &Workload) -> Html {
    let (kind, n) = BudgetKind::of(w.pdb);
    let c = f.commit.clone();
    let on_kind = Callback::from(move |e: Event| {
        let k = BudgetKind::from_name(&select_value(&e)).unwrap_or(BudgetKind::None);
        c(Change::SetBudget(i, k, n.to_string()), None)
    });
    html! {
        <>
            <select aria-label={trf(format_args!("{}: disruption budget", w.name))} onchange={on_kind}>
                { for BudgetKind::ALL.iter().map(|k| option(k.name(), k.name(), *k == kind)) }
            </select>
            if kind != BudgetKind::None {
                { f.field(format!("workloads[{i}].pdb"), format!("{}: disruption budget pods", w.name), n.to_string(), "1", Rc::new(move |t| Change::SetBudget(i, kind, t))) }
            }
        </>
    }
}

fn spread(f: &Form, i: usize, w: &Workload) -> Html {
    if w.kind == WorkloadKind::DaemonSet {
        return html! {};
    }
    let on_spread = f.row_change(i, |i, e| {
        let v = select_value(e);
        let sp = [Spread::Zone, Spread::Host]
            .into_iter()
            .find(|s| s.name() == v);
        Change::SetSpread(i, sp)
    });
    html! {
        <select aria-label={trf(format_args!("{}: topology spread", w.name))} onchange={on_spread}>
            { for ["none", "zone", "host"].iter().map(|t| option(*t, *t, w.spread.map_or("none", Spread::name) == *t)) }
        </select>
    }
}

fn add_workload(f: &Form) -> Html {
    let (s, d) = (f.s, f.d);
    let on_submit = {
        let c = f.commit.clone();
        let d = d.clone();
        let app = free_name(s, "app");
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let name = if d.wl_name.trim().is_empty() {
                app.clone()
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
    html! {
        <form class="add" onsubmit={on_submit} aria-label={tr("Add a workload")}>
            <label>{ tr("Kind") }{ " " }
                <select aria-label={tr("New workload kind")} onchange={f.draft(|d, e| {
                    d.wl_kind = WorkloadKind::from_name(&select_value(&e)).unwrap_or(WorkloadKind::Deployment)
                })}>
                    { for WorkloadKind::ALL.iter().map(|k| option(k.name(), k.name(), *k == d.wl_kind)) }
                </select>
            </label>
            <label>{ tr("Name") }{ " " }
                <input type="text" value={d.wl_name.clone()} placeholder={free_name(s, "app")} aria-label={tr("New workload name")}
                    oninput={f.text_draft(|d, v| d.wl_name = v)} />
            </label>
            if d.wl_kind != WorkloadKind::DaemonSet {
                <label>{ tr("Replicas") }{ " " }
                    <input type="text" inputmode="numeric" class="num" value={d.wl_replicas.clone()} aria-label={tr("New workload replicas")}
                        oninput={f.text_draft(|d, v| d.wl_replicas = v)} />
                </label>
            }
            <label class="check"><input type="checkbox" checked={d.wl_service} onchange={f.draft(|d, e| d.wl_service = checked(&e))} />{ tr("Service") }</label>
            <button type="submit">{ tr("Add workload") }</button>
        </form>
    }
}

fn faults(f: &Form) -> Html {
    let (s, d) = (f.s, f.d);
    let items = s.faults.iter().enumerate().map(|(i, fault)| {
        let on_remove = f.row_remove(i, Change::RemoveFault);
        html! {
            <li>
                { fault_text(fault) }
                <button onclick={on_remove} aria-label={trf(format_args!("Remove random faults {i}"))}>{ tr("Remove") }</button>
            </li>
        }
    });
    let on_submit = {
        let c = f.commit.clone();
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
        FaultForm::SpotInterruptions => (tr("Every"), tr("Replaced after")),
        FaultForm::ZoneOutages => (tr("Every"), tr("Cut off for")),
        FaultForm::HostFailures => (tr("Every (MTBF)"), tr("Repaired in (MTTR)")),
    };
    html! {
        <fieldset class="group">
            <legend>{ tr("Random faults") }</legend>
            <p class="hint">{ tr("Failures drawn at random from the seed (exponential times around the means): the same scenario fails the same way every run, another seed draws again. For how often over years, open the Availability study beside Share this run.") }</p>
            <ul class="zones">{ for items }</ul>
            <form class="add" onsubmit={on_submit} aria-label={tr("Add random faults")}>
                <label>{ tr("What") }{ " " }
                    <select aria-label={tr("Random fault kind")} onchange={f.draft(|d, e| {
                        d.fault_kind = FaultForm::from_name(&select_value(&e)).unwrap_or(FaultForm::HostFailures);
                        let spot = d.fault_kind == FaultForm::SpotInterruptions;
                        d.fault_then = if spot { "5m".into() } else { "1h".into() };
                        d.fault_targets = if spot { "spot".into() } else { "all".into() };
                    })}>
                        { for FaultForm::ALL.iter().map(|k| option(k.name(), tr(k.label()), *k == d.fault_kind)) }
                    </select>
                </label>
                <label>{ tr("Of") }{ " " }
                    <input type="text" value={d.fault_targets.clone()} placeholder={tr("all, spot, role:etcd or names")} aria-label={tr("Random fault targets")}
                        oninput={f.text_draft(|d, v| d.fault_targets = v)} />
                </label>
                <label>{ every_label }{ " " }
                    <input type="text" class="num" value={d.fault_every.clone()} aria-label={tr("Random fault mean interval")}
                        oninput={f.text_draft(|d, v| d.fault_every = v)} />
                </label>
                <label>{ then_label }{ " " }
                    <input type="text" class="num" value={d.fault_then.clone()} aria-label={tr("Random fault mean duration")}
                        oninput={f.text_draft(|d, v| d.fault_then = v)} />
                </label>
                <button type="submit">{ tr("Add random faults") }</button>
            </form>
        </fieldset>
    }
}

fn settings(f: &Form) -> Html {
    let (s, d) = (f.s, f.d);
    let rows = SettingKey::ALL.iter().map(|&k| {
        let path = format!("settings.{}", k.name());
        let text = d.typed.get(&path).cloned().unwrap_or_else(|| setting_text(s, k));
        let on_input = f.typing(path.clone());
        let c = f.commit.clone();
        let drafts = f.drafts.clone();
        let on_change = Callback::from(move |e: Event| {
            let v = input_value(&e);
            // Keep the text even after acceptance until the scenario shows it back.
            let mut d = (*drafts).clone();
            d.typed.set(format!("settings.{}", k.name()), v.clone());
            drafts.set(d);
            c(Change::SetSetting(k, v), None)
        });
        let edited = d.typed.get(&path).is_some_and(|t| *t != setting_text(s, k));
        html! {
            <label class={classes!("setting", edited.then_some("edited"))}>
                <span>{ k.name() }</span>
                <input type="text" value={text} oninput={on_input} onchange={on_change} aria-label={trf(format_args!("Setting {}", k.name()))} />
            </label>
        }
    });
    html! {
        <fieldset class="group">
            <legend>{ tr("Settings") }</legend>
            <p class="hint">{ tr("Durations as in Kubernetes (250ms, 40s, 5m); lb_health_check: readyz or tcp; api_endpoint: load-balancer, kube-vip or keepalived; etcd_pre_vote, cloud_controller_manager: true or false. Applied when you leave the field or press Enter.") }</p>
            <div class="settings">{ for rows }</div>
        </fieldset>
    }
}
