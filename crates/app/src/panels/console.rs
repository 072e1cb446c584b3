//! The console: a terminal on the simulated cluster. The prompt names the vantage host and the
//! time at the cursor; a command runs from that host against the cluster as it is at that
//! moment, through the simulated network (`sim::console`), and prints what the real tool would.
//! A command that changes the cluster is recorded as a scenario event at that moment, so the
//! run forks there. History with ↑/↓, completion with Tab. Output is text, never markup.

use crate::fmt::{escape, fmt_t_precise, Fixed};
use crate::language::t;
use crate::session::use_session;
use crate::ui::UiAction;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// One command and what it printed.
#[derive(Clone, PartialEq)]
struct Entry {
    prompt: String,
    line: String,
    /// `None` while the engine runs the command.
    out: Option<console::Output>,
}

/// Words Tab completes, besides the scenario's host and workload names.
const WORDS: &[&str] = &[
    "kubectl",
    "etcdctl",
    "kubeadm",
    "etcd",
    "curl",
    "nslookup",
    "dig",
    "+short",
    "+search",
    "crictl",
    "ps",
    "namespaces",
    "--no-headers",
    "version",
    "put",
    "get",
    "describe",
    "scale",
    "delete",
    "cordon",
    "uncordon",
    "drain",
    "--ignore-daemonsets",
    "taint",
    "label",
    "--overwrite",
    "NoSchedule",
    "NoExecute",
    "cluster-info",
    "port-forward",
    "proxy",
    "svc/",
    "localhost:",
    "sleep",
    "nodes",
    "node",
    "pods",
    "pod",
    "leases",
    "services",
    "service",
    "endpoints",
    "endpointslices",
    "poddisruptionbudgets",
    "pdb",
    "deployments",
    "deployment",
    "statefulsets",
    "statefulset",
    "daemonsets",
    "replicasets",
    "events",
    "--replicas=",
    "-o",
    "wide",
    "json",
    "yaml",
    "-A",
    "-n",
    "kube-system",
    "kube-node-lease",
    "default",
    "--raw",
    "/readyz?verbose",
    "/livez?verbose",
    "--server=https://",
    "member",
    "list",
    "add",
    "remove",
    "promote",
    "--peer-urls=https://",
    "--learner",
    "endpoint",
    "health",
    "status",
    "--cluster",
    "-w",
    "table",
    "--endpoints=",
    "join",
    "--control-plane",
    "--force-new-cluster",
    "http://",
    "clear",
];

/// The longest completion of the line's last word among `words`, as far as it is unambiguous;
/// a word completed whole gets its space.
pub fn complete(line: &str, words: &[&str]) -> Option<String> {
    let start = line.rfind(' ').map_or(0, |i| i + 1);
    let last = &line[start..];
    let matches: Vec<&str> = (words.iter().copied())
        .filter(|w| w.starts_with(last) && w.len() > last.len())
        .collect();
    let first = matches.first()?;
    let common = first
        .char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .take_while(|&end| matches.iter().all(|m| m.get(..end) == first.get(..end)))
        .last()?;
    let mut done = format!("{}{}", &line[..start], &first[..common]);
    if matches.len() == 1 && !first.ends_with(['=', '/']) {
        done.push(' ');
    }
    Some(done)
}

/// The terminal's screen: what was typed and printed, the history ↑/↓ walks, how far back it
/// is, and a redraw for outputs that arrive later (the engine runs the commands).
#[derive(Clone)]
struct Screen {
    entries: std::rc::Rc<std::cell::RefCell<Vec<Entry>>>,
    history: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    back: std::rc::Rc<std::cell::RefCell<usize>>,
    redraw: UseForceUpdateHandle,
}

/// The screen of this scenario's terminal session: another scenario (another name: an edit or
/// a recorded command keeps it) starts with an empty screen and history.
#[hook]
fn use_screen(scenario: AttrValue) -> Screen {
    let screen = Screen {
        entries: use_mut_ref(Vec::new),
        history: use_mut_ref(Vec::new),
        back: use_mut_ref(|| 0),
        redraw: use_force_update(),
    };
    let s = screen.clone();
    use_effect_with(scenario, move |_| {
        if !s.entries.borrow().is_empty() || !s.history.borrow().is_empty() {
            s.entries.borrow_mut().clear();
            s.history.borrow_mut().clear();
            *s.back.borrow_mut() = 0;
            s.redraw.force_update();
        }
    });
    screen
}

impl Screen {
    /// How many things are shown (lines typed and outputs), to scroll when it grows.
    fn shown(&self) -> usize {
        let entries = self.entries.borrow();
        entries.len() + entries.iter().filter(|e| e.out.is_some()).count()
    }

    /// Runs the typed line from host `from` at the moment shown (playback stops there); its
    /// output fills its entry when the engine answers, and a command that changes the cluster
    /// is recorded.
    fn run(&self, session: &crate::session::Session, from: usize, prompt: &str, line: String) {
        *self.back.borrow_mut() = 0;
        if line.trim() == "clear" {
            self.entries.borrow_mut().clear();
            self.redraw.force_update();
            return;
        }
        if !line.trim().is_empty() {
            self.history.borrow_mut().push(line.clone());
        }
        session.ui.dispatch(UiAction::Pause);
        {
            let mut all = self.entries.borrow_mut();
            all.push(Entry {
                prompt: prompt.to_string(),
                line: line.clone(),
                out: None,
            });
            // The last screens' worth.
            let extra = all.len().saturating_sub(50);
            all.drain(..extra);
        }
        self.redraw.force_update();
        let (screen, session2) = (self.clone(), session.clone());
        session.sim.console(from as u32, line, move |out| {
            if let Some(action) = out.record.clone() {
                session2.apply(action);
            }
            // Outputs come in the order the commands went.
            let mut entries = screen.entries.borrow_mut();
            if let Some(e) = entries.iter_mut().find(|e| e.out.is_none()) {
                e.out = Some(out);
            }
            drop(entries);
            screen.redraw.force_update();
        });
    }

    /// ↑ (`older`) or ↓ through the history, into the input.
    fn recall(&self, older: bool, el: &HtmlInputElement) {
        let h = self.history.borrow();
        let mut b = self.back.borrow_mut();
        *b = if older {
            (*b + 1).min(h.len())
        } else {
            b.saturating_sub(1)
        };
        el.set_value(if *b == 0 { "" } else { &h[h.len() - *b] });
    }
}

/// The console panel. The host picker's thousand options are built only once the console is
/// opened, and again only when the scenario or the host changes.
#[function_component(ConsolePanel)]
pub fn console_panel() -> Html {
    let session = use_session();
    let scenario = session.sim.borrow().scenario_rc();
    let host = use_state(|| None::<usize>);
    let from = host
        .filter(|&h| h < scenario.hosts.len())
        .or_else(|| console::default_vantage(&scenario))
        .unwrap_or(0);
    let screen = use_screen(scenario.name.clone().into());
    let input = use_node_ref();
    let screen_ref = use_node_ref();
    // The newest output and the prompt stay in view, as in a terminal.
    {
        let screen_ref = screen_ref.clone();
        use_effect_with(screen.shown(), move |&shown| {
            // Nothing typed yet: no layout forced while the page first renders.
            if shown == 0 {
                return;
            }
            if let Some(el) = screen_ref.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let prompt = format!(
        "[{}] root@{}:~#",
        fmt_t_precise(session.ui.cursor),
        scenario.hosts.get(from).map_or("", |h| h.name.as_str())
    );
    let onkeydown = {
        let (screen, input, session, prompt) = (
            screen.clone(),
            input.clone(),
            session.clone(),
            prompt.clone(),
        );
        Callback::from(move |e: KeyboardEvent| {
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    let line = el.value();
                    el.set_value("");
                    screen.run(&session, from, &prompt, line);
                }
                key @ ("ArrowUp" | "ArrowDown") => {
                    e.prevent_default();
                    screen.recall(key == "ArrowUp", &el);
                }
                "Tab" => {
                    e.prevent_default();
                    let names = completion_names(&session.sim.borrow());
                    let words: Vec<&str> = (WORDS.iter().copied())
                        .chain(names.iter().map(String::as_str))
                        .collect();
                    if let Some(done) = complete(&el.value(), &words) {
                        el.set_value(&done);
                    }
                }
                _ => {}
            }
        })
    };
    // A thousand options are not built again for every news of the engine, nor before the
    // console is first opened: their styles were a tenth of a second of a large cluster's page
    // load.
    let opened = use_mut_ref(|| false);
    let picker = {
        let host = host.clone();
        (*use_memo(
            (session.sim.scenario_version, from, *opened.borrow()),
            move |&(_, _, opened)| {
                if !opened {
                    return Html::default();
                }
                let pick_host = Callback::from(move |e: Event| {
                    let v = e
                        .target_unchecked_into::<web_sys::HtmlSelectElement>()
                        .value();
                    host.set(v.parse().ok());
                });
                let options = host_options(&scenario, from);
                html! {
                    <select aria-label={t("Console host")} onchange={pick_host}>
                        { Html::from_html_unchecked(options.into()) }
                    </select>
                }
            },
        ))
        .clone()
    };
    let redraw = screen.redraw.clone();
    html! {
        <details class="console">
            <summary onclick={move |_| { *opened.borrow_mut() = true; redraw.force_update(); }}>{ t("Console: kubectl, etcdctl and curl on this cluster, from any host, at the time shown") }</summary>
            <div class="console-bar">
                <label>{ t("Run from") }{ " " }{ picker }</label>
                <span class="hint">{ t("Try: kubectl get nodes · kubectl get pods -A -o wide · etcdctl endpoint status --cluster -w table · curl http://web · kubectl get --raw /readyz?verbose · kubectl port-forward svc/web 8080:80 & curl localhost:8080. ↑/↓ history, Tab completes. Commands that change the cluster (cordon, taint, scale, delete pod, etcdctl member add|remove|promote, kubeadm join, etcd --force-new-cluster) are recorded at this moment.") }</span>
            </div>
            <div class="console-screen" role="log" aria-label={t("Console output")} ref={screen_ref}>
                { for screen.entries.borrow().iter().map(entry) }
                <div class="input-line">
                    <span class="prompt">{ prompt }</span>
                    <input ref={input} type="text" aria-label={t("Console command")} spellcheck="false"
                        autocomplete="off" autocapitalize="off" placeholder="kubectl get nodes" {onkeydown} />
                </div>
            </div>
        </details>
    }
}

/// The host picker's options, `from` selected, as markup: a thousand options drawn one element
/// at a time are a long task.
fn host_options(scenario: &sim::scenario::Scenario, from: usize) -> String {
    (scenario.hosts.iter().enumerate())
        .map(|(i, h)| {
            let selected = if i == from { " selected" } else { "" };
            format!(
                r#"<option value="{i}"{selected}>{}</option>"#,
                escape(&h.name)
            )
        })
        .collect()
}

/// The names Tab completes beside the tools' words: hosts, workloads, a Deployment's
/// ReplicaSet (named from its name alone), and the pods as the moment shown has them.
fn completion_names(run: &crate::mirror::Mirror) -> Vec<String> {
    let (scenario, snapshot) = (run.scenario_rc(), run.snapshot());
    let replica_sets = (scenario.workloads.iter())
        .filter(|w| w.kind == sim::scenario::WorkloadKind::Deployment)
        .map(|w| sim::k8s::objects::replica_set_name(&w.name));
    (scenario.hosts.iter().map(|h| h.name.clone()))
        .chain(scenario.workloads.iter().map(|w| w.name.clone()))
        .chain(replica_sets)
        .chain(
            snapshot
                .hosts
                .iter()
                .flat_map(|h| h.pods.iter())
                .map(|p| p.name.clone()),
        )
        .collect()
}

/// One command on the screen: its prompt and line, then what it printed once it came back.
fn entry(e: &Entry) -> Html {
    html! {
        <div class={classes!("entry", e.out.is_none().then_some("pending"))}>
            <div class="cmd"><span class="prompt">{ &e.prompt }</span>{ " " }{ &e.line }</div>
            if let Some(out) = &e.out {
                if !out.stdout.is_empty() { <pre class="stdout">{ &out.stdout }</pre> }
                if !out.stderr.is_empty() { <pre class="stderr">{ &out.stderr }</pre> }
                if out.took_s >= 0.5 || out.status != 0 {
                    <div class="took">{ format!("took {} s of simulated time · exit status {}", Fixed(out.took_s, 1), out.status) }</div>
                }
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::complete;

    #[test]
    fn tab_completes_the_last_word_as_far_as_it_is_unambiguous() {
        let words = ["kubectl", "get", "nodes", "node-1", "pods", "--replicas="];
        assert_eq!(complete("kub", &words).as_deref(), Some("kubectl "));
        assert_eq!(
            complete("kubectl get po", &words).as_deref(),
            Some("kubectl get pods ")
        );
        assert_eq!(
            complete("kubectl get no", &words).as_deref(),
            Some("kubectl get node")
        );
        assert_eq!(
            complete("kubectl scale --rep", &words).as_deref(),
            Some("kubectl scale --replicas=")
        );
        assert_eq!(complete("kubectl get x", &words), None);
        assert_eq!(complete("", &words), None);
    }
}
