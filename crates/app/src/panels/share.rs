//! "Share": shows the link of this run at this time, selected, and copies it; "Copy embed
//! code" does the same with an `<iframe>` of the embed view. "Compare with a variant" keeps a
//! copy of this run beside it (the link then carries both). "Availability study" opens the study
//! page (`study/`, a page of its own) on this scenario.

use crate::codec;
use crate::language::t;
use crate::menu;
use crate::session::use_session;
use yew::prelude::*;

/// What the share box shows: the link, or the embed code.
#[derive(Clone, PartialEq)]
enum Shown {
    Link(String),
    Embed(String),
}

#[function_component(Share)]
pub fn share() -> Html {
    let session = use_session();
    let shown = use_state(|| None::<Shown>);
    let link_of = {
        let (encoded, cursor) = (session.encoded.clone(), session.ui.cursor);
        let compared = session.compare.as_ref().map(|c| c.encoded.clone());
        move |embed: bool| -> String {
            let base = crate::language::page_base();
            format!(
                "{base}{}",
                codec::fragment_of(
                    &encoded,
                    compared.as_deref().map(String::as_str).filter(|_| !embed),
                    Some(cursor).filter(|&t| t > 0.0),
                    embed
                )
            )
        }
    };
    // A browser without CompressionStream has no encoding to share: say so instead.
    let unsupported = session.encoded.is_empty().then(|| {
        let ui = session.ui.clone();
        move || {
            let m = codec::UNSUPPORTED.to_string();
            ui.dispatch(crate::ui::UiAction::Notify(Some(crate::ui::Notice::error(
                m,
            ))));
        }
    });
    let on_link = {
        let (shown, link_of, unsupported) = (shown.clone(), link_of.clone(), unsupported.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(say) = &unsupported {
                return say();
            }
            let link = link_of(false);
            copy(&link);
            shown.set(Some(Shown::Link(link)));
        })
    };
    let on_embed = {
        let (shown, sim) = (shown.clone(), session.sim.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(say) = &unsupported {
                return say();
            }
            let link = link_of(true);
            let title = crate::fmt::escape(&sim.borrow().scenario().name).into_owned();
            let code = format!(
                "<iframe src=\"{}\" title=\"Kubernetes HA Playground: {title}\" width=\"100%\" height=\"760\" style=\"border:1px solid #c9c9ce;border-radius:8px\" loading=\"lazy\"></iframe>\n{}",
                crate::fmt::escape(&link),
                embed_listener()
            );
            copy(&code);
            shown.set(Some(Shown::Embed(code)));
        })
    };
    let comparing = session.compare.is_some();
    let on_compare = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.compare_with_copy(!comparing))
    };
    let close = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| shown.set(None))
    };
    let onkeydown = {
        let shown = shown.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                shown.set(None);
                // Back to the button that opened the box, as a menu returns focus to its item.
                menu::focus_selector(".share > .share-buttons > button");
            }
        })
    };
    let select_all = Callback::from(|e: FocusEvent| {
        e.target_unchecked_into::<web_sys::HtmlInputElement>()
            .select()
    });
    html! {
        <div class="share">
            <div class="share-buttons">
                <button onclick={on_link}>{ t("Share this run") }</button>
                <button class="secondary" onclick={on_embed}>{ t("Copy embed code") }</button>
                <button class="secondary" onclick={on_compare} title={t("Keep a copy of this run beside it, then change this run: the charts show where the two part")}>
                    { if comparing { t("Stop comparing") } else { t("Compare with a variant") } }
                </button>
                // In the reader's language, as the page itself.
                <a href={format!("study/{}#s={}", crate::language::query(), session.encoded)}>
                    { t("Availability study") }
                </a>
                <a href={format!("import/{}#s={}", crate::language::query(), session.encoded)}
                    title={t("The files to build this cluster on kind and run its events there, with the simulation's prediction to compare")}>
                    { t("Try it on kind") }
                </a>
            </div>
            if let Some(s) = (*shown).clone() {
                <div class="share-box" {onkeydown}>
                    { match s {
                        Shown::Link(link) => html! {
                            <label>{ t("Link to this run at this moment (copied):") }
                                <input type="text" readonly=true value={link} aria-label={t("Share link")} onfocus={select_all} />
                            </label>
                        },
                        Shown::Embed(code) => html! {
                            <label>{ t("Embed code for a web page (copied):") }
                                <textarea readonly=true rows="4" aria-label={t("Embed code")} onfocus={select_all} value={code} />
                            </label>
                        },
                    } }
                    <button onclick={close} aria-label={t("Close share box")}>{ "×" }</button>
                </div>
            }
        </div>
    }
}

/// The script of the embed code: sizes each playground iframe to the height its page posts
/// (once per page, however many iframes it holds).
pub fn embed_listener() -> String {
    format!(
        "<script>window.k8sHaSized||(window.k8sHaSized=addEventListener(\"message\",function(e){{var p=\"{}\";if(typeof e.data==\"string\"&&e.data.indexOf(p)===0)document.querySelectorAll(\"iframe\").forEach(function(f){{if(f.contentWindow===e.source)f.style.height=e.data.slice(p.length)+\"px\"}})}})||1)</script>",
        crate::session::EMBED_HEIGHT_MESSAGE
    )
}

/// Puts `text` on the clipboard; best effort: the clipboard needs a secure context and permission.
pub fn copy(text: &str) {
    let _ = gloo_utils::window()
        .navigator()
        .clipboard()
        .write_text(text);
}
