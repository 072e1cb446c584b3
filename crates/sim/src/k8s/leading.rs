//! A control-plane process that works only while it holds its lease: the elector runs
//! always; the work (controllers, or scheduling) is created fresh on every acquisition
//! and runs once per second while leading. Losing the lease ends the process.

use crate::k8s::api::ApiPayload;
use crate::k8s::client::ID_SPACE;
use crate::k8s::leader::{LeaderElector, Transition};
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::process::{Port, Timer};
use crate::kernel::time::Duration;

const RUN: Duration = Duration::from_secs(1);
/// Request ids of the work start here, clear of the elector's.
pub const WORK_IDS: u64 = 16 * ID_SPACE;

/// The work a leader does.
pub trait Work: Sized {
    /// What a fresh copy is made from (plain data, so a process, and a world, can be cloned).
    type Spec: Clone;
    fn fresh(spec: &Self::Spec, ctx: &Ctx) -> Self;
    fn owns(&self, id: u64) -> bool;
    fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload);
    fn on_timeout(&mut self, ctx: &mut Ctx, id: u64);
    fn run(&mut self, ctx: &mut Ctx);
}

#[derive(Clone)]
pub struct Leading<W: Work + Clone> {
    pub elector: LeaderElector,
    port: Port,
    spec: W::Spec,
    work: Option<W>,
}

impl<W: Work + Clone> Leading<W> {
    pub fn new(elector: LeaderElector, port: Port, spec: W::Spec) -> Self {
        Leading {
            elector,
            port,
            spec,
            work: None,
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.elector.start(ctx);
        ctx.set_timer(self.port, RUN, Timer::Housekeeping);
    }

    pub fn is_leading(&self) -> bool {
        self.elector.leading
    }

    fn transition(&mut self, ctx: &Ctx, t: Transition) -> Transition {
        if t == Transition::Acquired {
            self.work = Some(W::fresh(&self.spec, ctx));
        }
        t
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) -> Transition {
        let Payload::Api(msg) = payload else {
            return Transition::None;
        };
        if let ApiPayload::Response { id, resp, .. } = &msg {
            if self.elector.owns(*id) {
                let t = self.elector.on_response(ctx, *id, resp.clone());
                return self.transition(ctx, t);
            }
        }
        if let Some(w) = self.work.as_mut() {
            w.on_api(ctx, &msg);
        }
        Transition::None
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: Timer) -> Transition {
        match timer {
            Timer::LeaderElection => self.elector.on_timer(ctx),
            Timer::Housekeeping => {
                if let Some(w) = self.work.as_mut() {
                    w.run(ctx);
                }
                ctx.set_timer(self.port, RUN, Timer::Housekeeping);
                Transition::None
            }
            Timer::ApiTimeout { id } if self.elector.owns(id) => {
                self.elector.on_timeout(ctx);
                Transition::None
            }
            Timer::ApiTimeout { id } => {
                if let Some(w) = self.work.as_mut().filter(|w| w.owns(id)) {
                    w.on_timeout(ctx, id);
                }
                Transition::None
            }
            _ => Transition::None,
        }
    }
}
