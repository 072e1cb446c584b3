//! Leader election through a `Lease`, as client-go's `leaderelection` does it for
//! kube-controller-manager and kube-scheduler.
//!
//! Every try reads the lease and writes it back with the resourceVersion it read
//! (optimistic concurrency), so two candidates can never both succeed on one version.
//! A candidate may take the lease only when the record it observes has not changed
//! for `lease_duration` *by its own clock* (`observedTime`), which is why a failover
//! takes 13–24 s with the defaults. The leader renews every `retry_period`: each renew poll
//! starts a `retry_period` after the last success and has `renew_deadline` to succeed, so a
//! leader that cannot renew gives up ("leaderelection lost") `retry_period + renew_deadline`
//! (≈ 12 s) after its last renewal, and the process exits, to be restarted by the kubelet as a
//! candidate. Candidates retry every
//! `retry_period` with jitter factor 1.2 (`wait.JitterUntil`).
//!
//! Left out: `ReleaseOnCancel`, clock skew between hosts (there is one simulated clock).

use crate::k8s::api::{ApiRequest, ApiResponse, RequestId};
use crate::k8s::client::ApiClient;
use crate::k8s::events::{Event, Reason};
use crate::k8s::objects::{lease_key, Lease, Object};
use crate::k8s::wire::Ctx;
use crate::k8s::wire::Timer;
use crate::kernel::keymap::Key;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Sub};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

/// The leases of the control plane's leader-elected components, in kube-system.
pub const KCM_LEASE: &str = "kube-controller-manager";
pub const SCHEDULER_LEASE: &str = "kube-scheduler";
/// kube-vip's control-plane lease (`vip_leasename`).
pub const KUBE_VIP_LEASE: &str = "plndr-cp-lock";

#[derive(Clone, Copy, Debug)]
pub struct LeaseTimings {
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Get,
    Write,
}

/// What a try changed, for the owner (which starts or stops its controllers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    None,
    Acquired,
    /// Could not renew within `renew_deadline`: the process must exit.
    Lost,
}

#[derive(Clone)]
pub struct LeaderElector {
    pub lease: &'static str,
    host: HostId,
    identity: String,
    timings: LeaseTimings,
    client: ApiClient<Step>,
    observed: Option<(Lease, u64)>,
    observed_time: SimTime,
    pub leading: bool,
    last_renew: SimTime,
    busy: bool,
    rng: Rng,
}

impl LeaderElector {
    pub fn new(
        lease: &'static str,
        host: HostId,
        identity: String,
        me: Addr,
        apiserver: Addr,
        timings: LeaseTimings,
        rng: Rng,
    ) -> Self {
        LeaderElector {
            lease,
            host,
            identity,
            timings,
            client: ApiClient::new(me, apiserver),
            observed: None,
            observed_time: SimTime::ZERO,
            leading: false,
            last_renew: SimTime::ZERO,
            busy: false,
            rng,
        }
    }

    pub fn owns(&self, sub: Sub) -> bool {
        self.client.owns(sub)
    }

    fn key(&self) -> Key {
        lease_key("kube-system", self.lease).into()
    }

    /// Starts the loop: the first try right away, as `PollImmediateUntil` does.
    pub fn start(&mut self, ctx: &mut Ctx) {
        ctx.set_timer(self.client.me_port(), Duration::ZERO, Timer::LeaderElection);
    }

    /// When a leader that has not renewed since `last_renew` gives up: its failing renew poll
    /// began one `retry_period` after that renewal, with `renew_deadline` to succeed.
    fn give_up_at(&self) -> SimTime {
        self.last_renew + self.timings.retry_period + self.timings.renew_deadline
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) -> Transition {
        if self.leading && ctx.now >= self.give_up_at() {
            return self.lose(ctx);
        }
        if !self.busy {
            self.busy = true;
            let timeout = self.request_timeout();
            self.client
                .send(ctx, ApiRequest::Get { key: self.key() }, Step::Get, timeout);
        }
        let wait = if self.leading {
            self.timings
                .retry_period
                .min(self.give_up_at().saturating_sub(ctx.now))
        } else {
            // JitterUntil(retryPeriod, 1.2): retryPeriod × [1, 2.2)
            self.timings
                .retry_period
                .mul_f64(1.0 + 1.2 * self.rng.unit())
        };
        ctx.set_timer(self.client.me_port(), wait, Timer::LeaderElection);
        Transition::None
    }

    /// Each request may take at most the time left before the renew deadline would pass.
    fn request_timeout(&self) -> Duration {
        self.timings.retry_period.max(Duration::from_secs(1))
    }

    pub fn on_response(&mut self, ctx: &mut Ctx, id: RequestId, resp: ApiResponse) -> Transition {
        let Some(step) = self.client.answered(id, ctx.now) else {
            return Transition::None;
        };
        match (step, resp) {
            (Step::Get, ApiResponse::Object(current)) => {
                let now = ctx.now;
                let record = current.as_ref().and_then(|kv| match &*kv.value {
                    Object::Lease(l) => Some((l.clone(), kv.mod_revision)),
                    _ => None,
                });
                if let Some((lease, rv)) = &record {
                    if self.observed.as_ref().map(|(_, orv)| orv) != Some(rv) {
                        // The record changed since we last looked: restart our own clock on it.
                        self.observed = Some((lease.clone(), *rv));
                        self.observed_time = now;
                    }
                    let held_by_other = lease.holder != self.identity && !lease.holder.is_empty();
                    if held_by_other && self.observed_time + lease.lease_duration > now {
                        self.busy = false;
                        return Transition::None;
                    }
                }
                let (acquire_time, transitions) = match &record {
                    Some((l, _)) if l.holder == self.identity => (l.acquire_time, l.transitions),
                    Some((l, _)) => (now, l.transitions + 1),
                    None => (now, 0),
                };
                let created = record.as_ref().map_or(now, |(l, _)| l.created);
                let lease = Lease {
                    holder: self.identity.clone(),
                    lease_duration: self.timings.lease_duration,
                    acquire_time,
                    renew_time: now,
                    transitions,
                    created,
                };
                let value = Arc::new(Object::Lease(lease));
                let req = match record {
                    Some((_, rv)) => ApiRequest::Update {
                        key: self.key(),
                        value,
                        resource_version: rv,
                    },
                    None => ApiRequest::Create {
                        key: self.key(),
                        value,
                    },
                };
                let timeout = self.request_timeout();
                self.client.send(ctx, req, Step::Write, timeout);
                Transition::None
            }
            (Step::Write, ApiResponse::Written { .. }) => {
                self.busy = false;
                self.last_renew = ctx.now;
                self.observed = None;
                if !self.leading {
                    self.leading = true;
                    ctx.obs.lease_acquired(ctx.now, self.lease, self.host);
                    // client-go's `RecordEvent("became leader")`; kube-vip records none.
                    if self.lease != KUBE_VIP_LEASE {
                        let event = Event {
                            reason: Reason::LeaderElection,
                            kind: "Lease",
                            name: self.lease.to_string(),
                            namespace: "kube-system",
                            message: format!("{} became leader", self.identity),
                            at: ctx.now,
                        };
                        ctx.obs.api_event(ctx.now, event);
                    }
                    return Transition::Acquired;
                }
                Transition::None
            }
            _ => {
                self.busy = false;
                Transition::None
            }
        }
    }

    pub fn on_timeout(&mut self, ctx: &mut Ctx) {
        if !self.client.expired(ctx).is_empty() {
            self.busy = false;
        }
    }

    fn lose(&mut self, ctx: &mut Ctx) -> Transition {
        self.leading = false;
        let (deadline, retry) = (
            self.timings.renew_deadline.secs(),
            self.timings.retry_period.secs(),
        );
        let why = format!("its renew poll, begun {retry} s after its last renewal, did not succeed within renewDeadline ({deadline} s); the process exits and the kubelet restarts it");
        ctx.obs.lease_lost(ctx.now, self.lease, self.host, &why);
        Transition::Lost
    }
}
