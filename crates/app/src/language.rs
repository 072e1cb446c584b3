//! The page's language: `?lang=` when the link has one, else the first of the browser's
//! languages the playground speaks, else English. Its catalog (`lang/<code>.txt` beside the
//! page, see the `lang` crate) is fetched before the first render, so only a reader of another
//! language downloads one; `t` writes a text of the page in it. Choosing another language
//! reloads the page with `?lang=` and the same fragment, so the run comes back as it was.

use lang::{Catalog, Lang};
use std::cell::Cell;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The reader's catalog, kept for the page's life (so its texts are `'static`); none in English.
    static CATALOG: Cell<Option<&'static Catalog>> = const { Cell::new(None) };
}

/// The language the page is written in.
pub fn current() -> Lang {
    CATALOG.with(|c| c.get().map_or(Lang::En, Catalog::lang))
}

/// A text of the page in its language. Fixed texts take and give `&'static str`, so in English
/// a call costs no more than the literal it wraps (the page's bundle is at its budget).
#[inline(never)]
pub fn t(english: &'static str) -> &'static str {
    match CATALOG.with(Cell::get) {
        Some(c) => c.exact(english).unwrap_or(english),
        None => english,
    }
}

/// [`t`] as an owned `String`, for texts kept in the page's data (a chart row's title).
#[inline(never)]
pub fn ts(english: &'static str) -> String {
    t(english).to_string()
}

/// A text with names and numbers in it (`tf(format_args!(…))`) in the page's language.
#[inline(never)]
pub fn tf(english: std::fmt::Arguments) -> String {
    let text = std::fmt::format(english);
    match CATALOG.with(Cell::get) {
        Some(c) => c.text(&text).into_owned(),
        None => text,
    }
}

/// A text made elsewhere (an event of the run, a scenario's description) in the page's language.
pub fn translate(english: &str) -> String {
    match CATALOG.with(Cell::get) {
        Some(c) => c.text(english).into_owned(),
        None => english.to_string(),
    }
}

/// Marks a text for the catalogs without translating it: a word the page puts into another text
/// ("requests" in "all requests FAIL"), translated there as a piece of it.
pub const fn mark(english: &'static str) -> &'static str {
    english
}

/// The language a link's query asks for (`?lang=ru`): `Err` names an unknown one.
pub fn from_query(search: &str) -> Option<Result<Lang, String>> {
    let query = search.strip_prefix('?').unwrap_or(search);
    let code = query.split('&').find_map(|p| p.strip_prefix("lang="))?;
    Some(Lang::parse(code))
}

/// Chooses the page's language and fetches its catalog. Returns the problem to show when the
/// link names an unknown language or the catalog cannot be had (the page is then in English).
#[inline(never)]
pub async fn choose() -> Option<String> {
    choose_in("lang/").await
}

/// [`choose`] for a page whose catalogs are in `dir` (the study page's are `../lang/`).
pub async fn choose_in(dir: &str) -> Option<String> {
    let window = gloo_utils::window();
    let search = window.location().search().unwrap_or_default();
    let lang = match from_query(&search) {
        Some(Ok(l)) => l,
        Some(Err(e)) => {
            return Some(format!(
                "This link's language: {e}. The page is in English."
            ))
        }
        None => {
            let tags: Vec<String> = window
                .navigator()
                .languages()
                .iter()
                .filter_map(|v| v.as_string())
                .collect();
            Lang::from_browser(tags.iter().map(String::as_str))
        }
    };
    if lang == Lang::En {
        return None;
    }
    match fetch_text(&format!("{dir}{}.txt", lang.code())).await {
        Ok(text) => {
            // Checked by the lang crate's tests: read without the checks' code.
            speak(Catalog::load(lang, &text));
            None
        }
        Err(e) => Some(format!(
            "The {} texts could not be loaded ({e}). The page is in English.",
            lang.name()
        )),
    }
}

async fn fetch_text(url: &str) -> Result<String, String> {
    let why = |e: wasm_bindgen::JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let response: web_sys::Response = JsFuture::from(gloo_utils::window().fetch_with_str(url))
        .await
        .map_err(why)?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(why)?)
        .await
        .map_err(why)?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}

/// The page's address without its query and fragment: a shared link leaves the language to
/// its reader.
pub fn page_base() -> String {
    let href = gloo_utils::window().location().href().unwrap_or_default();
    href.split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The page's query (`?lang=ru`, or nothing), for its links to its other pages.
pub fn query() -> String {
    gloo_utils::window().location().search().unwrap_or_default()
}

/// Reloads the page in `lang`, keeping the fragment (the scenario and the moment).
pub fn switch_to(lang: Lang) {
    let _ = gloo_utils::window()
        .location()
        .set_search(&format!("lang={}", lang.code()));
}

/// The page's language; choosing one reloads the page in it, what it shows kept by the link.
pub fn picker() -> yew::Html {
    use yew::TargetCast;
    let current = current();
    let onchange = yew::Callback::from(|e: yew::Event| {
        let code = e
            .target_unchecked_into::<web_sys::HtmlSelectElement>()
            .value();
        if let Ok(l) = Lang::parse(&code) {
            switch_to(l);
        }
    });
    yew::html! {
        <select class="language" aria-label={ t("Language") } {onchange}>
            { for Lang::ALL.into_iter().map(|l| crate::option::option(l.code(), l.name(), l == current)) }
        </select>
    }
}

/// Writes this thread's texts in `c`'s language from now on (the page's for its life; a test's
/// thread is its own).
pub(crate) fn speak(c: Catalog) {
    CATALOG.with(|slot| slot.set(Some(Box::leak(Box::new(c)))));
}

/// The catalogs of `web/lang/` the page would fetch, checked (for the app's tests).
#[cfg(test)]
pub(crate) fn catalogs() -> Vec<Catalog> {
    [Lang::Ru, Lang::Zh, Lang::De]
        .into_iter()
        .map(|l| {
            let path = format!(
                "{}/../../web/lang/{}.txt",
                env!("CARGO_MANIFEST_DIR"),
                l.code()
            );
            Catalog::parse(l, &std::fs::read_to_string(path).unwrap()).unwrap()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_language() {
        assert_eq!(from_query("?lang=ru"), Some(Ok(Lang::Ru)));
        assert_eq!(from_query("?x=1&lang=de"), Some(Ok(Lang::De)));
        assert_eq!(from_query(""), None);
        assert!(from_query("?lang=fr")
            .unwrap()
            .unwrap_err()
            .contains("\"fr\""));
    }
}
