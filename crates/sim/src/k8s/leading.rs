//! A control-plane process that works only while it holds its lease: the elector runs
//! always; the work (controllers, or scheduling) is created fresh on every acquisition
//! and runs once per second while leading. Losing the lease ends the process.

use crate::k8s::api::ApiPayload;
use crate::k8s::leader::{LeaderElector, Transition};
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::process::{Port, Sub};
use crate::kernel::time::Duration;

const RUN: Duration = Duration::from_secs(1);
/// The elector's client is the process's own (sub-address 0); the work's clients are at this
/// sub-address and the ones after it.
pub const WORK: Sub = Sub(16);

/// The work a leader does.
pub trait Work: SelfTimed + Sized {
    /// What a fresh copy is made from (plain data, so a process, and a world, can be cloned).
    type Spec: Clone;
    fn fresh(spec: &Self::Spec, ctx: &Ctx) -> Self;
    /// Whether a client of the work is at `sub`.
    fn owns(&self, sub: Sub) -> bool;
    fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload);
    fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub);
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

    /// What fresh work is made from, and the work if leading: to tell both of a change in the
    /// world outside the cluster (a cloud instance gone).
    pub fn spec_and_work(&mut self) -> (&mut W::Spec, Option<&mut W>) {
        (&mut self.spec, self.work.as_mut())
    }

    /// The work, if leading.
    pub fn work(&self) -> Option<&W> {
        self.work.as_ref()
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
            if self.elector.owns(id.sub()) {
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
            Timer::ApiTimeout { sub } if self.elector.owns(sub) => {
                self.elector.on_timeout(ctx);
                Transition::None
            }
            Timer::ApiTimeout { sub } => {
                if let Some(w) = self.work.as_mut().filter(|w| w.owns(sub)) {
                    w.on_timeout(ctx, sub);
                }
                Transition::None
            }
            _ => Transition::None,
        }
    }
}

impl<W: Work + Clone> SelfTimed for Leading<W> {
    /// Not while its lease has no leader acting on a running host (an election is on its
    /// way); while leading, as quiet as its work.
    fn quiet(&self, stand: &Stand) -> Quiet {
        let led = Quiet::when(stand.is_led(self.elector.lease));
        (self.work.as_ref()).map_or(led, |w| led.and(w.quiet(stand)))
    }

    /// The elector's renewals repeat what the lease says; the work's clocks move on.
    fn skipped(&mut self, d: Duration, stand: &Stand) {
        if let Some(w) = self.work.as_mut() {
            w.skipped(d, stand);
        }
    }
}
