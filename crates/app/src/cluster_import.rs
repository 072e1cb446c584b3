//! The import page (`import/`, a page of its own like the study page): a person pastes or picks
//! what kubectl prints about their cluster, the page turns it into a scenario with the runner's
//! own importer (`import::import`, docs/scenario-format.md "Import a real cluster"), lists what
//! could not be carried over, and opens the result in the playground as an editable scenario.
//! Everything runs here: nothing read is sent anywhere, and the page says so.
//!
//! The same page tries a scenario on a real cluster the other way round: opened with a scenario in
//! its link (the playground's "Try it on kind") or after an import, it offers the runner's kind
//! files (`import::kind`, "Export to a real cluster") as downloads.

use crate::language::{t, tf};
use sim::scenario::Scenario;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The commands whose output the page reads, ready to copy.
pub const COMMANDS: [&str; 2] = [
    "kubectl get nodes,deployments,statefulsets,daemonsets,services,poddisruptionbudgets -A -o yaml > cluster.yaml",
    "kubectl -n kube-system get pods,configmap/kubeadm-config -o yaml > kube-system.yaml",
];

/// What an import came to.
#[derive(Clone, PartialEq)]
enum Outcome {
    None,
    Refused(String),
    Imported {
        name: String,
        hosts: usize,
        workloads: usize,
        notes: Vec<String>,
        /// The playground's address with the scenario in its link, once encoded.
        open: Option<String>,
        /// What to try first: a title, what to watch, and its address once encoded.
        tour: Vec<(String, &'static str, Option<String>)>,
        scenario: Rc<Scenario>,
    },
}

/// The kind files of a scenario, once asked for.
#[derive(Clone, PartialEq)]
enum Kind {
    None,
    Refused(String),
    Files {
        name: String,
        files: Rc<Vec<(&'static str, String)>>,
    },
}

impl Kind {
    /// Runs the scenario to its end for `expected.md`: a second or two for the ready scenarios.
    fn of(s: &Scenario) -> Kind {
        match import::kind::export(s) {
            Ok(files) => Kind::Files {
                name: s.name.clone(),
                files: Rc::new(files),
            },
            Err(e) => Kind::Refused(crate::language::translate(&e)),
        }
    }
}

/// A tour step's title and what to watch in it.
fn step_words(step: &import::Step) -> (String, &'static str) {
    let target = &step.target;
    match step.key {
        "zone" => (
            tf(format_args!("Lose its biggest zone ({target})")),
            t("Every host of the zone crashes at 1:00. Watch whether etcd keeps a majority, and where the zone's pods go."),
        ),
        "drain" => (
            tf(format_args!("Drain its busiest node ({target})")),
            t("kubectl drain at 1:00. Watch the budgets hold evictions back, and whether the pods fit elsewhere."),
        ),
        "etcd-leader" => (
            tf(format_args!("Lose its etcd leader ({target})")),
            t("It crashes at 1:00. Watch the election, and how long API writes fail."),
        ),
        _ => (
            tf(format_args!("Lose two masters ({target})")),
            t("Both crash at 1:00. Watch whether etcd keeps quorum, and what still works without the API."),
        ),
    }
}

/// A step as the playground opens it: named after its breakage, what to watch first in its
/// description (the imported notes after it), as a ready scenario explains itself; within the
/// format's limits.
fn explained(step: &import::Step) -> Scenario {
    use sim::scenario::{MAX_DESCRIPTION_LEN, MAX_NAME_LEN};
    let (title, watch) = step_words(step);
    let clip = |text: String, max: usize| text.chars().take(max).collect::<String>();
    let mut s = step.scenario.clone();
    s.name = clip(format!("{}: {title}", s.name), MAX_NAME_LEN);
    let notes = s.description.take().unwrap_or_default();
    s.description = Some(clip(format!("{watch}\n\n{notes}"), MAX_DESCRIPTION_LEN));
    s
}

#[function_component(ImportPage)]
pub fn import_page() -> Html {
    let outcome = use_state(|| Outcome::None);
    let kind = use_state(|| Kind::None);
    // Came with a scenario in its link (the playground's "Try it on kind"): its files at once, and
    // first on the page.
    let linked = use_state(|| false);
    {
        let (kind, linked) = (kind.clone(), linked.clone());
        use_effect_with((), move |_| {
            let hash = gloo_utils::window().location().hash().unwrap_or_default();
            if hash
                .trim_start_matches('#')
                .split('&')
                .any(|p| p.starts_with("s="))
            {
                linked.set(true);
                wasm_bindgen_futures::spawn_local(async move {
                    let link = crate::codec::decode_fragment(&hash).await;
                    kind.set(match (link.scenario, link.problem) {
                        (Some(s), _) => Kind::of(&s),
                        (None, p) => Kind::Refused(
                            p.unwrap_or_else(|| t("This link carries no scenario.").into()),
                        ),
                    });
                });
            }
        });
    }
    let files = use_state(Vec::<(String, String)>::new);
    let text = use_node_ref();
    let name = use_node_ref();
    let on_files = {
        let files = files.clone();
        Callback::from(move |e: Event| {
            let input = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok());
            if let Some(list) = input.and_then(|i| i.files()) {
                read_files(list, files.clone());
            }
        })
    };
    // Files dropped anywhere on the input's box are read as chosen ones.
    let on_drop = {
        let files = files.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(list) = e.data_transfer().and_then(|d| d.files()) {
                read_files(list, files.clone());
            }
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let read_names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let on_import = {
        let (outcome, files, text, name) =
            (outcome.clone(), files.clone(), text.clone(), name.clone());
        Callback::from(move |_| {
            let pasted = text
                .cast::<HtmlTextAreaElement>()
                .map(|t| t.value())
                .unwrap_or_default();
            let wanted = name
                .cast::<HtmlInputElement>()
                .map(|n| n.value())
                .unwrap_or_default();
            import_now(&files, &pasted, &wanted, outcome.clone());
        })
    };
    html! {
        <main class="import-page">
            <header class="study-head">
                <h1>{ t("Import your cluster") }</h1>
                <p class="tagline">{ t("Turn what kubectl prints about your cluster into a scenario, then break it in the playground. It all runs in this page: nothing you paste or choose is sent anywhere.") }</p>
                // Back to the scenario the link brought, if any.
                <a href={format!("../{}{}", crate::language::query(), gloo_utils::window().location().hash().unwrap_or_default())}>{ t("← Back to the playground") }</a>
            </header>
            if *linked {
                { kind_view(&kind) }
            }
            <section class="import-input" aria-label={t("Your cluster's objects")} ondrop={on_drop} ondragover={on_drag_over}>
                <p>{ t("Run these on your cluster (the second is optional: it tells stacked etcd and kube-vip):") }</p>
                { for COMMANDS.iter().map(|c| html! {
                    <div class="command-line">
                        <pre class="command"><code>{ *c }</code></pre>
                        <button onclick={Callback::from(move |_| crate::panels::share::copy(c))}>{ t("Copy") }</button>
                    </div>
                }) }
                <label>{ t("Paste their output") }
                    <textarea ref={text} rows="10" spellcheck="false" aria-label={t("Cluster objects (YAML or JSON)")} />
                </label>
                <label>{ t("or choose the files") }
                    <input type="file" multiple=true accept=".yaml,.yml,.json,text/yaml,application/json" onchange={on_files} />
                </label>
                <p class="hint">{ t("or drop them on this box") }</p>
                if !read_names.is_empty() {
                    <p class="read-files">{ t("Files read:") }{ " " }{ read_names.join(", ") }</p>
                }
                <label>{ t("Name") }
                    <input ref={name} type="text" placeholder={t("imported cluster")} />
                </label>
                <button class="primary" onclick={on_import}>{ t("Import") }</button>
            </section>
            { outcome_view(&outcome, &kind) }
            if !*linked {
                { kind_view(&kind) }
            }
        </main>
    }
}

/// Reads the files chosen or dropped, replacing those read before.
fn read_files(list: web_sys::FileList, files: UseStateHandle<Vec<(String, String)>>) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut read = Vec::new();
        for i in 0..list.length() {
            let Some(f) = list.get(i) else { continue };
            let text = wasm_bindgen_futures::JsFuture::from(f.text()).await;
            read.push((
                f.name(),
                text.ok().and_then(|v| v.as_string()).unwrap_or_default(),
            ));
        }
        files.set(read);
    });
}

/// Imports what was chosen and pasted: the outcome at once, then again with the playground's
/// links once the scenario and its tour are encoded.
fn import_now(
    files: &[(String, String)],
    pasted: &str,
    wanted: &str,
    outcome: UseStateHandle<Outcome>,
) {
    let mut inputs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    if !pasted.trim().is_empty() {
        inputs.push((t("the pasted text"), pasted));
    }
    if inputs.is_empty() {
        outcome.set(Outcome::Refused(
            t("Paste the output of the commands above, or choose its files.").into(),
        ));
        return;
    }
    let wanted = (!wanted.trim().is_empty()).then_some(wanted.trim());
    let imported = match import::import(&inputs, wanted) {
        Ok(i) => i,
        Err(e) => return outcome.set(Outcome::Refused(e.to_string())),
    };
    let scenario = Rc::new(imported.scenario);
    let steps = import::tour(&scenario);
    let done = Outcome::Imported {
        name: scenario.name.clone(),
        hosts: scenario.hosts.len(),
        workloads: scenario.workloads.len(),
        notes: imported.notes,
        open: None,
        scenario,
        tour: steps
            .iter()
            .map(|s| {
                let (title, watch) = step_words(s);
                (title, watch, None)
            })
            .collect(),
    };
    outcome.set(done.clone());
    wasm_bindgen_futures::spawn_local(async move {
        outcome.set(with_links(done, &steps).await);
    });
}

/// The imported outcome with the playground's address of its scenario and of each tour step.
async fn with_links(mut done: Outcome, steps: &[import::Step]) -> Outcome {
    let href = |f: String| format!("../{}{f}", crate::language::query());
    if let Outcome::Imported {
        open,
        tour,
        scenario,
        ..
    } = &mut done
    {
        *open = crate::codec::fragment(scenario.as_ref(), None)
            .await
            .ok()
            .map(href);
        for (i, step) in steps.iter().enumerate() {
            let opened = explained(step);
            tour[i].2 = crate::codec::fragment(&opened, None).await.ok().map(href);
        }
    }
    done
}

fn outcome_view(outcome: &Outcome, kind: &UseStateHandle<Kind>) -> Html {
    match outcome {
        Outcome::None => Html::default(),
        Outcome::Refused(why) => html! { <p class="notice error" role="alert">{ why.clone() }</p> },
        Outcome::Imported {
            name,
            hosts,
            workloads,
            notes,
            open,
            tour,
            scenario,
        } => html! {
            <section class="import-result" aria-label={t("The imported scenario")}>
                <p role="status">{ tf(format_args!("“{name}”: {hosts} hosts and {workloads} workloads.")) }</p>
                if notes.is_empty() {
                    <p>{ t("Everything was carried over.") }</p>
                } else {
                    <p>{ t("Not carried over, or changed on the way:") }</p>
                    <ul class="import-notes">{ for notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                }
                if let Some(href) = open {
                    <a class="primary-link" href={href.clone()}>{ t("Open it in the playground") }</a>
                }
                if !tour.is_empty() {
                    <h2>{ t("What to try first") }</h2>
                    <ul class="import-tour">
                        { for tour.iter().map(|(title, watch, href)| html! {
                            <li>
                                { match href {
                                    Some(h) => html! { <a href={h.clone()}>{ title.clone() }</a> },
                                    None => html! { <span>{ title.clone() }</span> },
                                } }
                                <span class="watch">{ *watch }</span>
                            </li>
                        }) }
                    </ul>
                }
                <h2>{ t("Check the prediction on a real cluster") }</h2>
                <button class="secondary" onclick={
                    let (kind, scenario) = (kind.clone(), scenario.clone());
                    Callback::from(move |_| kind.set(Kind::of(&scenario)))
                }>{ t("Try it on kind") }</button>
            </section>
        },
    }
}

/// The kind files, each a download and a look inside; README.md first, open: it says what to run.
fn kind_view(kind: &Kind) -> Html {
    match kind {
        Kind::None => Html::default(),
        Kind::Refused(why) => html! { <p class="notice error" role="alert">{ why.clone() }</p> },
        Kind::Files { name, files } => html! {
            <section class="import-result kind-files" aria-label={t("The scenario on kind")}>
                <h2>{ tf(format_args!("“{name}” on a kind cluster")) }</h2>
                <p>{ t("A kind cluster of the scenario's shape, its workloads as an echo server with the same requests, spreading, budgets and Services, its events as timed commands, and what the simulation predicts. Download the five files into one folder, then follow README.md.") }</p>
                <ul class="kind-downloads">
                    { for files.iter().map(|(file, text)| html! {
                        <li><a download={*file} href={format!("data:text/plain;charset=utf-8,{}", js_sys::encode_uri_component(text))}>{ *file }</a></li>
                    }) }
                </ul>
                { for files.iter().filter(|f| f.0 == "README.md").chain(files.iter().filter(|f| f.0 != "README.md")).map(|(file, text)| html! {
                    <details open={*file == "README.md"}>
                        <summary>{ *file }</summary>
                        <pre class="kind-file">{ text.clone() }</pre>
                    </details>
                }) }
            </section>
        },
    }
}
