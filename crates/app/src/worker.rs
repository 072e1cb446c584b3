//! Where the engine runs: a Web Worker started from the page's own wasm (the same module, so the
//! bundle does not grow by a second copy of the core), or, when a worker cannot start, on the
//! page's thread in short turns (slower to scrub, never wrong). Either way the page posts
//! [`Verb`]s and receives [`News`] as bytes, later.
//!
//! The worker is a module script made on the spot: it imports the page's wasm-bindgen glue,
//! instantiates the module the page sends it (compiled once, by the page) and calls
//! [`engine_main`]. Its first message, an empty one, says it listens.

use crate::engine::{Engine, News, Verb, TICK_MS};
use crate::wire;
use js_sys::{Array, Uint8Array};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

type OnNews = Rc<RefCell<Rc<dyn Fn(News)>>>;

/// The page's end of the engine.
pub struct Link {
    to: RefCell<To>,
    on_news: OnNews,
}

thread_local! {
    /// A worker started before the page renders (see [`Link::prestart`]).
    static EARLY: RefCell<Option<Rc<Link>>> = const { RefCell::new(None) };
}

enum To {
    /// Verbs wait in `queue` until the worker says it listens.
    Worker {
        worker: web_sys::Worker,
        listening: Rc<Cell<bool>>,
        queue: Rc<RefCell<Vec<Vec<u8>>>>,
    },
    Here(Rc<Here>),
}

impl Link {
    /// Starts the engine's worker while the page is still reading its link (a worker takes a
    /// couple of hundred milliseconds to start); [`Link::start`] then uses it.
    pub fn prestart() {
        let link = Link::here(|_| {});
        if let Some(to) = spawn(&link) {
            *link.to.borrow_mut() = to;
            EARLY.with(|e| *e.borrow_mut() = Some(link));
        }
    }

    /// Starts the engine (in a worker when the browser allows), its news going to `on_news`.
    pub fn start(on_news: impl Fn(News) + 'static) -> Rc<Link> {
        if let Some(link) = EARLY.with(|e| e.borrow_mut().take()) {
            *link.on_news.borrow_mut() = Rc::new(on_news);
            return link;
        }
        let link = Link::here(on_news);
        if let Some(to) = spawn(&link) {
            *link.to.borrow_mut() = to;
        }
        link
    }

    /// The engine on the page's thread (what [`Link::start`] falls back to).
    pub fn here(on_news: impl Fn(News) + 'static) -> Rc<Link> {
        let on_news: OnNews = Rc::new(RefCell::new(Rc::new(on_news)));
        Rc::new(Link {
            to: RefCell::new(To::Here(Here::new(on_news.clone()))),
            on_news,
        })
    }

    pub fn post(&self, verb: &Verb) {
        let bytes = wire::encode(verb);
        match &*self.to.borrow() {
            To::Worker {
                worker,
                listening,
                queue,
            } => {
                if listening.get() {
                    let _ = send(worker, &bytes);
                } else {
                    queue.borrow_mut().push(bytes);
                }
            }
            To::Here(here) => here.post(bytes),
        }
    }

    /// Whether the engine runs in a worker (the page's thread stays free).
    pub fn in_worker(&self) -> bool {
        matches!(&*self.to.borrow(), To::Worker { .. })
    }

    /// The worker failed before it listened: the engine runs here, with the verbs it missed.
    fn fall_back(&self) {
        let queued = match &*self.to.borrow() {
            To::Worker { worker, queue, .. } => {
                worker.terminate();
                queue.take()
            }
            To::Here(_) => return,
        };
        let here = Here::new(self.on_news.clone());
        for bytes in queued {
            here.post(bytes);
        }
        *self.to.borrow_mut() = To::Here(here);
    }
}

fn send(to: &web_sys::Worker, bytes: &[u8]) -> Result<(), JsValue> {
    let arr = Uint8Array::from(bytes);
    to.post_message_with_transfer(&arr, &Array::of1(&arr.buffer()))
}

#[wasm_bindgen]
extern "C" {
    /// The URL of the page's wasm-bindgen glue (the module the worker imports).
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: String;
}

/// A module worker that instantiates this page's wasm and calls its export `entry` (the engine's,
/// or the study page's trial runner), or `None` when the browser refuses one.
pub fn start_worker(entry: &str) -> Option<web_sys::Worker> {
    let glue = GLUE_URL.with(String::clone);
    let script = format!(
        "import init, {{ {entry} }} from {glue:?};\n\
         onmessage = async (e) => {{ onmessage = null; await init({{ module_or_path: e.data }}); {entry}(); }};"
    );
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type("text/javascript");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&Array::of1(&script.into()), &bag).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options).ok()?;
    let _ = web_sys::Url::revoke_object_url(&url);
    worker.post_message(&wasm_bindgen::module()).ok()?;
    Some(worker)
}

/// A worker running [`engine_main`], or `None` when the browser refuses one.
fn spawn(link: &Rc<Link>) -> Option<To> {
    let worker = start_worker("engine_main")?;
    let listening = Rc::new(Cell::new(false));
    let queue = Rc::new(RefCell::new(Vec::<Vec<u8>>::new()));
    let on_message = {
        let (listening, queue, worker) = (listening.clone(), queue.clone(), worker.clone());
        let on_news = link.on_news.clone();
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let bytes = Uint8Array::new(&e.data()).to_vec();
            if bytes.is_empty() {
                listening.set(true);
                for q in queue.take() {
                    let _ = send(&worker, &q);
                }
                return;
            }
            let on_news = on_news.borrow().clone();
            match wire::decode::<News>(&bytes) {
                Some(news) => on_news(news),
                None => on_news(broken(
                    "a message from the simulation worker was unreadable",
                )),
            }
        })
    };
    let on_error = {
        let (link, listening) = (Rc::downgrade(link), listening.clone());
        Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            let Some(link) = link.upgrade() else { return };
            if listening.get() {
                let what = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .unwrap_or_default();
                let on_news = link.on_news.borrow().clone();
                on_news(broken(&format!("the simulation worker stopped ({what})")));
            } else {
                link.fall_back();
            }
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The worker lives as long as the page.
    on_message.forget();
    on_error.forget();
    Some(To::Worker {
        worker,
        listening,
        queue,
    })
}

/// News that the engine itself has failed (shown for the run on screen).
fn broken(what: &str) -> News {
    News::Failed {
        slot: crate::engine::SHOWN,
        gen: crate::engine::EVERY_RUN,
        message: format!("{what}: reload the page to start again."),
    }
}

/// The engine on the page's thread: verbs and news pass through the same bytes, in turns of at
/// most [`HERE_TICK_MS`] so the page still draws between them.
pub struct Here {
    engine: RefCell<Engine>,
    inbox: RefCell<Vec<Vec<u8>>>,
    /// A turn is scheduled.
    turn: Cell<bool>,
    on_news: OnNews,
}

const HERE_TICK_MS: f64 = 8.0;

impl Here {
    fn new(on_news: OnNews) -> Rc<Here> {
        Rc::new(Here {
            engine: Default::default(),
            inbox: Default::default(),
            turn: Default::default(),
            on_news,
        })
    }

    fn post(self: &Rc<Self>, bytes: Vec<u8>) {
        self.inbox.borrow_mut().push(bytes);
        self.schedule();
    }

    fn schedule(self: &Rc<Self>) {
        if self.turn.replace(true) {
            return;
        }
        let me = self.clone();
        // Forgotten: a timeout that fires frees itself.
        gloo_timers::callback::Timeout::new(0, move || {
            me.turn.set(false);
            let mut out = Vec::new();
            {
                let mut engine = me.engine.borrow_mut();
                for bytes in me.inbox.take() {
                    out.extend(wire::decode::<Verb>(&bytes).and_then(|v| engine.handle(v)));
                }
                // After verbs too: a seek to a kept world needs no work, only news.
                out.extend(engine.tick(HERE_TICK_MS));
            }
            let on_news = me.on_news.borrow().clone();
            for news in out {
                if let Some(news) = wire::decode::<News>(&wire::encode(&news)) {
                    on_news(news);
                }
            }
            if me.engine.borrow().busy() {
                me.schedule();
            }
        })
        .forget();
    }
}

/// The worker's entry point (called by the worker's script once the module is instantiated):
/// handles verbs as they arrive and, while a run is busy, works in ticks of [`TICK_MS`],
/// yielding between them so verbs are read. Exported by the page's binary (`main.rs`), not here:
/// the study page's binary links this crate too and has no use for the engine.
pub fn engine_main() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let engine = Rc::new(RefCell::new(Engine::default()));
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return;
    };
    let wake = channel.port2();
    let pending = Rc::new(Cell::new(false));
    let schedule = {
        let pending = pending.clone();
        Rc::new(move || {
            if !pending.replace(true) {
                let _ = wake.post_message(&JsValue::NULL);
            }
        })
    };
    let tell = {
        let scope = scope.clone();
        move |news: News| {
            let arr = Uint8Array::from(&wire::encode(&news)[..]);
            let _ = scope.post_message_with_transfer(&arr, &Array::of1(&arr.buffer()));
        }
    };
    let tell = Rc::new(tell);
    let on_tick = {
        let (engine, schedule, tell) = (engine.clone(), schedule.clone(), tell.clone());
        Closure::<dyn Fn()>::new(move || {
            pending.set(false);
            let news = engine.borrow_mut().tick(TICK_MS);
            for n in news {
                tell(n);
            }
            if engine.borrow().busy() {
                schedule();
            }
        })
    };
    let on_verb = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let bytes = Uint8Array::new(&e.data()).to_vec();
        if let Some(verb) = wire::decode::<Verb>(&bytes) {
            if let Some(news) = engine.borrow_mut().handle(verb) {
                tell(news);
            }
        }
        schedule();
    });
    channel
        .port1()
        .set_onmessage(Some(on_tick.as_ref().unchecked_ref()));
    scope.set_onmessage(Some(on_verb.as_ref().unchecked_ref()));
    on_tick.forget();
    on_verb.forget();
    let _ = scope.post_message(&Uint8Array::new_with_length(0));
}
