//! The study's trials in Web Workers, one per core (at most eight): each worker is the study
//! page's own wasm ([`worker_main`]), takes the designs once, then one trial at a time, so a
//! fast worker takes more of them. A trial is `sim::study::run_trial` as the runner's, so the
//! page's figures are the runner's for the same seed. Dropping the [`Pool`] stops its workers
//! (the page's Cancel).

use sim::kernel::time::Duration;
use sim::scenario::Scenario;
use sim::study::{run_trial_traced, FirstLosses, Shortcut, Trial};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[derive(serde::Serialize, serde::Deserialize)]
enum ToWorker {
    /// The designs' scenarios as JSON, in order.
    Designs(Vec<String>),
    Run {
        design: usize,
        trial: u64,
        seed: u64,
        horizon_us: u64,
    },
}

#[derive(serde::Serialize, serde::Deserialize)]
enum FromWorker {
    Ready,
    /// How far into its horizon the current trial is (0 to 1).
    Progress(f64),
    Done {
        design: usize,
        trial: Trial,
        first: FirstLosses,
    },
    Failed(String),
}

/// What the page hears of a running study.
pub enum News {
    Progress {
        /// Trials finished, of all designs.
        done: u64,
        total: u64,
        /// Trials finished plus the running ones' fractions.
        fraction: f64,
    },
    /// Every design's trials, in the designs' order.
    Finished(Vec<Vec<(Trial, FirstLosses)>>),
    Failed(String),
}

struct Shared {
    queue: VecDeque<(usize, u64)>,
    /// When the page last heard of progress (ms): a trial of a day ends many times a second.
    told_ms: f64,
    results: Vec<Vec<(Trial, FirstLosses)>>,
    /// Each worker's running trial's fraction.
    running: Vec<f64>,
    done: u64,
    total: u64,
    over: bool,
}

type Handler = Closure<dyn Fn(web_sys::MessageEvent)>;
type ErrorHandler = Closure<dyn Fn(web_sys::Event)>;

/// A study running in workers.
pub struct Pool {
    workers: Vec<web_sys::Worker>,
    _handlers: Vec<(Handler, ErrorHandler)>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &self.workers {
            w.terminate();
            w.set_onmessage(None);
            w.set_onerror(None);
        }
    }
}

fn post(to: &web_sys::Worker, m: &ToWorker) {
    let text = serde_json::to_string(m).unwrap_or_default();
    let _ = to.post_message(&JsValue::from_str(&text));
}

/// How many workers a study of `jobs` trials gets on this machine.
pub fn workers_for(jobs: u64) -> u64 {
    let cores = gloo_utils::window().navigator().hardware_concurrency() as u64;
    cores.clamp(1, 8).min(jobs.max(1))
}

/// Starts `trials` trials of each design over `horizon`, telling `on` how they go.
pub fn start(
    designs: &[Scenario],
    seed: u64,
    trials: u64,
    horizon: Duration,
    on: Rc<dyn Fn(News)>,
) -> Result<Pool, String> {
    let total = trials * designs.len() as u64;
    let n = workers_for(total) as usize;
    let shared = Rc::new(RefCell::new(Shared {
        told_ms: 0.0,
        queue: (0..designs.len())
            .flat_map(|d| (0..trials).map(move |i| (d, i)))
            .collect(),
        results: vec![Vec::new(); designs.len()],
        running: vec![0.0; n],
        done: 0,
        total,
        over: false,
    }));
    let designs: Vec<String> = designs.iter().map(Scenario::to_json).collect();
    // Built first, so the workers started before a refusal are stopped with it.
    let mut pool = Pool {
        workers: Vec::new(),
        _handlers: Vec::new(),
    };
    for k in 0..n {
        let worker = crate::worker::start_worker("study_worker_main")
            .ok_or("this browser refused to start a Web Worker for the study")?;
        let next = {
            let (worker, shared) = (worker.clone(), shared.clone());
            move || {
                let job = shared.borrow_mut().queue.pop_front();
                if let Some((design, trial)) = job {
                    post(
                        &worker,
                        &ToWorker::Run {
                            design,
                            trial,
                            seed,
                            horizon_us: horizon.0,
                        },
                    );
                }
            }
        };
        let progress = {
            let (shared, on) = (shared.clone(), on.clone());
            move || {
                let now = js_sys::Date::now();
                let news = {
                    let mut s = shared.borrow_mut();
                    if now - s.told_ms < 100.0 {
                        return;
                    }
                    s.told_ms = now;
                    News::Progress {
                        done: s.done,
                        total: s.total,
                        fraction: s.done as f64 + s.running.iter().sum::<f64>(),
                    }
                };
                on(news);
            }
        };
        let fail = {
            let (shared, on) = (shared.clone(), on.clone());
            move |why: String| {
                if !std::mem::replace(&mut shared.borrow_mut().over, true) {
                    on(News::Failed(why));
                }
            }
        };
        let on_message = {
            let (worker, shared, on, designs, fail) = (
                worker.clone(),
                shared.clone(),
                on.clone(),
                designs.clone(),
                fail.clone(),
            );
            Handler::new(move |e: web_sys::MessageEvent| {
                // A study that failed or finished hears no more (the page stops the workers).
                if shared.borrow().over {
                    return;
                }
                let text = e.data().as_string().unwrap_or_default();
                match serde_json::from_str::<FromWorker>(&text) {
                    Ok(FromWorker::Ready) => {
                        post(&worker, &ToWorker::Designs(designs.clone()));
                        next();
                    }
                    Ok(FromWorker::Progress(f)) => {
                        shared.borrow_mut().running[k] = f;
                        progress();
                    }
                    Ok(FromWorker::Done {
                        design,
                        trial,
                        first,
                    }) => {
                        let finished = {
                            let mut s = shared.borrow_mut();
                            s.results[design].push((trial, first));
                            s.running[k] = 0.0;
                            s.done += 1;
                            s.done == s.total && !std::mem::replace(&mut s.over, true)
                        };
                        if finished {
                            on(News::Finished(std::mem::take(
                                &mut shared.borrow_mut().results,
                            )));
                        } else {
                            progress();
                            next();
                        }
                    }
                    Ok(FromWorker::Failed(why)) => fail(why),
                    Err(e) => fail(format!("a study worker's message was unreadable ({e})")),
                }
            })
        };
        let on_error = ErrorHandler::new(move |e: web_sys::Event| {
            e.prevent_default();
            let what = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .unwrap_or_default();
            fail(format!("a study worker stopped ({what})"));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        pool.workers.push(worker);
        pool._handlers.push((on_message, on_error));
    }
    Ok(pool)
}

/// A study worker: the study page's binary exports this as `study_worker_main`.
pub fn worker_main() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let tell = Rc::new(move |m: &FromWorker| {
        let text = serde_json::to_string(m).unwrap_or_default();
        let _ = scope.post_message(&JsValue::from_str(&text));
    });
    let designs: RefCell<Vec<Scenario>> = RefCell::new(Vec::new());
    let on_message = {
        let tell = tell.clone();
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            match serde_json::from_str::<ToWorker>(&text) {
                Ok(ToWorker::Designs(list)) => {
                    let parsed: Result<Vec<Scenario>, String> = list
                        .iter()
                        .map(|j| sim::scenario::parse(j).map_err(|e| e.to_string()))
                        .collect();
                    match parsed {
                        Ok(p) => *designs.borrow_mut() = p,
                        Err(e) => tell(&FromWorker::Failed(e)),
                    }
                }
                Ok(ToWorker::Run {
                    design,
                    trial,
                    seed,
                    horizon_us,
                }) => {
                    let designs = designs.borrow();
                    let Some(s) = designs.get(design) else {
                        return tell(&FromWorker::Failed(format!("no design {design}")));
                    };
                    // Progress at most five times a second: the page's bar moves, the
                    // messages cost nothing.
                    let mut last = js_sys::Date::now();
                    let (trial, first) = run_trial_traced(
                        s,
                        seed,
                        trial,
                        Duration(horizon_us),
                        Shortcut::On,
                        &mut |f| {
                            let now = js_sys::Date::now();
                            if now - last >= 200.0 {
                                last = now;
                                tell(&FromWorker::Progress(f));
                            }
                        },
                    );
                    tell(&FromWorker::Done {
                        design,
                        trial,
                        first,
                    });
                }
                Err(e) => tell(&FromWorker::Failed(format!("an unreadable job ({e})"))),
            }
        })
    };
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    tell(&FromWorker::Ready);
}
