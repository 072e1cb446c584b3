//! The scenario picker: the ready scenarios by the question each answers, and what to watch in
//! the one shown (or, for a scenario of your own, what it holds).

use crate::catalog::{Ready, READY};
use crate::language::{t, tf, translate, ts};
use crate::session::use_session;
use yew::prelude::*;

#[function_component(ScenarioPicker)]
pub fn scenario_picker() -> Html {
    let session = use_session();
    let scenario = session.sim.borrow().scenario_rc();
    let ready = session.ready;
    let rename = use_node_ref();
    // The ready scenario this one still carries the name of (parsed once per name).
    let named_after = *use_memo(scenario.name.clone(), |name| {
        Ready::named(name).find(|r| r.scenario().name == *name)
    });
    let pick = {
        let session = session.clone();
        Callback::from(move |e: Event| {
            let id = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            session.pick(&id);
        })
    };
    // An edited ready scenario keeps its question in the reader's language, marked as changed.
    let title = match named_after {
        Some(from) => tf(format_args!("{} (changed)", t(from.question))),
        None => scenario.name.clone(),
    };
    html! {
        <section class="scenario" aria-labelledby="scenario-title">
            <h2 id="scenario-title" class="visually-hidden">{ t("Scenario") }</h2>
            <label class="pick">
                <span>{ t("Scenario") }</span>
                <select onchange={pick} aria-label={t("Ready scenario")}>
                    if ready.is_none() {
                        { crate::option::option("", tf(format_args!("Your scenario: {}", title)), true) }
                    }
                    { for READY.iter().map(|r| crate::option::option(r.id, t(r.question), ready.is_some_and(|x| x.id == r.id))) }
                </select>
                if ready.is_none_or(|r| r.id != READY[0].id) {
                    <button class="all-questions" onclick={ { let session = session.clone(); Callback::from(move |_| session.pick(READY[0].id)) } }>{ t("← All questions") }</button>
                }
                // A page of its own: the YAML reader is not in the playground's download.
                <a class="import-link" href={format!("import/{}", crate::language::query())}>{ t("Import your cluster") }</a>
            </label>
            <div class="about">
                if let Some(r) = ready {
                    { {
                        let (context, watch) = r.texts(&scenario);
                        html! {
                            <>
                                <p class="name"><strong>{ t(r.question) }</strong>
                                    { if context.is_empty() { String::new() } else { format!(" — {}", translate(&context)) } }</p>
                                <p class="watch"><strong>{ t("What to watch:") }</strong>{ " " }{ translate(&watch) }</p>
                            </>
                        }
                    } }
                } else {
                    // Its description too, in the reader's language.
                    <p class="name"><strong>{ title.clone() }</strong>
                        { match named_after {
                            // The ready scenario's own words, as its catalog entries have them.
                            Some(from) => {
                                let (context, _) = from.texts(&scenario);
                                if context.is_empty() { String::new() } else { format!(" — {}", translate(&context)) }
                            }
                            None => scenario.description.as_ref().map(|d| format!(" — {}", translate(d))).unwrap_or_default(),
                        } }</p>
                    if let Some(from) = named_after {
                        <form class="rename" aria-label={t("Rename the scenario")} onsubmit={ {
                            let (session, input) = (session.clone(), rename.clone());
                            Callback::from(move |e: SubmitEvent| {
                                e.prevent_default();
                                if let Some(input) = input.cast::<web_sys::HtmlInputElement>() {
                                    session.rename(&input.value());
                                }
                            })
                        } }>
                            <span>{ tf(format_args!("Changed since “{}”: its name and description no longer fit.", t(from.question))) }{ " " }</span>
                            <input type="text" ref={rename.clone()} aria-label={t("New scenario name")} value={tf(format_args!("{} (changed)", scenario.name))} />
                            <button type="submit">{ t("Rename") }</button>
                        </form>
                    }
                    <p class="watch"><strong>{ t("Your own run:") }</strong>{ " " }
                        { match scenario.events.len() {
                            1 => ts("1 scheduled event. Every change you make is recorded in the link (Share)."),
                            n => tf(format_args!("{n} scheduled events. Every change you make is recorded in the link (Share).")),
                        } }</p>
                }
            </div>
        </section>
    }
}
