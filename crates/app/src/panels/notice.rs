//! The message above the page (a recorded or refused change, a broken link), with "Undo" when
//! the change it reports can be taken back, and a dismiss button.

use crate::language::{t, translate};
use crate::session::use_session;
use crate::ui::{NoticeKind, UiAction};
use yew::prelude::*;

#[function_component(NoticeBar)]
pub fn notice_bar() -> Html {
    let session = use_session();
    let Some(n) = session.ui.notice.clone() else {
        return html! {};
    };
    let undo = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.undo())
    };
    let keep = {
        let (session, dropped) = (session.clone(), n.dropped.clone());
        Callback::from(move |_: MouseEvent| session.keep_events(dropped.clone()))
    };
    let dismiss = {
        let ui = session.ui.clone();
        Callback::from(move |_: MouseEvent| ui.dispatch(UiAction::Notify(None)))
    };
    let error = n.kind == NoticeKind::Error;
    // An error interrupts (alert); news of a recorded change waits its turn (status).
    let class = classes!("notice", if error { "error" } else { "info" });
    let role = if error { "alert" } else { "status" };
    html! {
        <div class={class} role={role}>
            <span>{ translate(&n.text) }</span>
            if !n.dropped.is_empty() {
                <button onclick={keep}>{ t("Keep the later events") }</button>
            }
            if n.undo && session.sim.can_undo() {
                <button onclick={undo}>{ t("Undo") }</button>
            }
            <button class="dismiss" aria-label={t("Dismiss message")} onclick={dismiss}>{ "×" }</button>
        </div>
    }
}
