//! The kubelet's node Lease controller (component-helpers' `lease` controller): the heartbeat
//! the node lifecycle controller watches.
//!
//! A sync runs, then the next waits `renew_interval` stretched by up to 4 %, counted from the
//! end of the sync (client-go's `JitterUntil(sync, renewInterval, 0.04, sliding)`), so kubelets
//! drift apart and never renew in lockstep. A sync updates the Lease it last wrote; a failed
//! update is retried at once, 5 attempts in all (`maxUpdateRetries`); after that, or after a
//! conflict, it reads the Lease (creating it if missing) for as long as that fails, sleeping
//! 200 ms, then twice as long each time up to 7 s (`backoffEnsureLease`), and updates what it
//! read. From the second failed attempt of an update loop on (upstream's `i > 0`: a conflict
//! counts as an attempt) the kubelet is told to close its connections
//! (`onRepeatedHeartbeatFailure`). Requests go through the kubelet's heartbeat client, its own
//! client with a 10 s timeout.
//!
//! Left out: the Lease's owner reference to the Node, which changes nothing simulated here.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::objects::{Lease, Object};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Key, Value};
use crate::kernel::process::{Addr, Port, Sub};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

/// The kubelet's Node Lease settings: how often it renews (`node_lease_renew_interval`) and
/// the duration it writes into the Lease (`nodeLeaseDurationSeconds`, `node_lease_duration`).
#[derive(Clone, Copy, Debug)]
pub struct NodeLeaseTimings {
    pub renew_interval: Duration,
    pub lease_duration: Duration,
}
/// The heartbeat client's timeout: `nodeStatusUpdateFrequency`, 10 s.
const HEARTBEAT_TIMEOUT: Duration = Duration::from_secs(10);
/// `maxUpdateRetries`: updates tried at once, one after the other, before falling back to a read.
const MAX_UPDATE_RETRIES: u8 = 5;
/// `JitterUntil`'s factor: each wait is the period stretched by up to this much.
const JITTER: f64 = 0.04;
/// `backoffEnsureLease`'s sleep starts here and doubles before its first use (200 ms first).
const ENSURE_BACKOFF_START: Duration = Duration::from_millis(100);
/// `maxBackoff`.
const ENSURE_BACKOFF_MAX: Duration = Duration::from_secs(7);
/// The heartbeat client's sub-address: answers and timeouts come back to it by this.
pub const HEARTBEAT: Sub = Sub(2);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Req {
    Get,
    Create,
    Update,
}

/// Where a sync is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sync {
    /// Between syncs: the next one starts at the `NodeLease` timer.
    Waiting,
    /// `retryUpdateLease`: update number `attempt` (from 0) is in flight. `last`: the update
    /// after the sync's fallback read, whose failure ends the sync.
    Update { attempt: u8, last: bool },
    /// `backoffEnsureLease`: a read (or a create) is in flight, or, `asleep`, its back-off runs
    /// until the `NodeLease` timer. `resume`: the update loop a conflict interrupted (its next
    /// attempt and whether it is the last loop), None for the sync's fallback read.
    Ensure {
        sleep: Duration,
        asleep: bool,
        resume: Option<(u8, bool)>,
    },
}

/// What the kubelet hears from its lease controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heartbeat {
    /// The Lease was written (updated, or created).
    Renewed,
    /// An update failed again: the kubelet's connections are closed (`onRepeatedHeartbeatFailure`;
    /// the lease controller hangs up before its next attempt, the kubelet ends the rest).
    Failing,
}

#[derive(Clone)]
pub struct NodeLease {
    sync: Sync,
    /// The resourceVersion of the Lease last written or read (client-go's `latestLease`).
    latest: Option<u64>,
    /// When the Lease was created (kept by every renewal).
    created: SimTime,
    renew_interval: Duration,
    lease_duration: Duration,
    /// The kubelet's own stream, for the waits' stretch.
    rng: Rng,
    client: ApiClient<Req>,
    key: Key,
    holder: String,
}

impl NodeLease {
    pub fn new(
        me: Addr,
        api: Addr,
        key: Key,
        holder: String,
        timings: NodeLeaseTimings,
        rng: Rng,
    ) -> Self {
        NodeLease {
            sync: Sync::Waiting,
            latest: None,
            created: SimTime::ZERO,
            renew_interval: timings.renew_interval,
            lease_duration: timings.lease_duration,
            rng,
            client: ApiClient::at(me, api, HEARTBEAT),
            key,
            holder,
        }
    }

    /// Starts the loop: the first sync after `first_wait` (at once for a kubelet that starts on
    /// its own; spread over a period for the nodes of a cluster that booted together).
    pub fn start(&mut self, ctx: &mut Ctx, first_wait: Duration) {
        if first_wait == Duration::ZERO {
            self.start_sync(ctx);
        } else {
            ctx.set_timer(Port::KUBELET, first_wait, Timer::NodeLease);
        }
    }

    pub fn owns(&self, sub: Sub) -> bool {
        self.client.owns(sub)
    }

    /// The `NodeLease` timer: the next sync is due, or a back-off ended.
    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        match self.sync {
            Sync::Waiting => self.start_sync(ctx),
            Sync::Ensure {
                sleep,
                asleep: true,
                resume,
            } => {
                self.sync = Sync::Ensure {
                    sleep,
                    asleep: false,
                    resume,
                };
                self.get(ctx);
            }
            _ => {}
        }
    }

    /// The heartbeat client's timeout check fired: an expired request failed.
    pub fn on_timeout(&mut self, ctx: &mut Ctx) -> Option<Heartbeat> {
        let mut news = None;
        for req in self.client.expired(ctx) {
            news = self.failed(ctx, req).or(news);
        }
        news
    }

    /// An answer to the heartbeat client.
    pub fn on_answer(&mut self, ctx: &mut Ctx, msg: &ApiPayload) -> Option<Heartbeat> {
        let ApiPayload::Response { id, resp, .. } = msg else {
            return None;
        };
        let req = self.client.answered(*id, ctx.now)?;
        match (req, resp) {
            (Req::Update, ApiResponse::Written { resource_version }) => {
                self.latest = Some(*resource_version);
                self.finish(ctx);
                Some(Heartbeat::Renewed)
            }
            (Req::Update, ApiResponse::Conflict) => {
                // The Lease changed under it: read it again, then go on with the next attempt.
                let Sync::Update { attempt, last } = self.sync else {
                    return None;
                };
                self.ensure(ctx, Some((attempt + 1, last)));
                None
            }
            (Req::Get, ApiResponse::Object(Some(kv))) => {
                self.latest = Some(kv.mod_revision);
                self.created = kv.value.as_lease().map_or(ctx.now, |l| l.created);
                self.ensured(ctx, false);
                None
            }
            (Req::Get, ApiResponse::Object(None)) => {
                self.created = ctx.now;
                let req = ApiRequest::Create {
                    key: self.key.clone(),
                    value: self.value(ctx.now),
                };
                self.client.send(ctx, req, Req::Create, HEARTBEAT_TIMEOUT);
                None
            }
            (Req::Create, ApiResponse::Written { resource_version }) => {
                self.latest = Some(*resource_version);
                self.ensured(ctx, true);
                Some(Heartbeat::Renewed)
            }
            (req, _) => self.failed(ctx, req),
        }
    }

    fn start_sync(&mut self, ctx: &mut Ctx) {
        if self.latest.is_some() {
            self.update(ctx, 0, false);
        } else {
            self.ensure(ctx, None);
        }
    }

    fn update(&mut self, ctx: &mut Ctx, attempt: u8, last: bool) {
        let Some(resource_version) = self.latest else {
            return self.ensure(ctx, None);
        };
        self.sync = Sync::Update { attempt, last };
        let req = ApiRequest::Update {
            key: self.key.clone(),
            value: self.value(ctx.now),
            resource_version,
        };
        self.client.send(ctx, req, Req::Update, HEARTBEAT_TIMEOUT);
    }

    fn ensure(&mut self, ctx: &mut Ctx, resume: Option<(u8, bool)>) {
        self.sync = Sync::Ensure {
            sleep: ENSURE_BACKOFF_START,
            asleep: false,
            resume,
        };
        self.get(ctx);
    }

    fn get(&mut self, ctx: &mut Ctx) {
        let req = ApiRequest::Get {
            key: self.key.clone(),
        };
        self.client.send(ctx, req, Req::Get, HEARTBEAT_TIMEOUT);
    }

    /// `backoffEnsureLease` returned: the Lease is read (or was just created).
    fn ensured(&mut self, ctx: &mut Ctx, created: bool) {
        let Sync::Ensure { resume, .. } = self.sync else {
            return;
        };
        match resume {
            Some((attempt, last)) if attempt < MAX_UPDATE_RETRIES => {
                self.update(ctx, attempt, last)
            }
            Some((_, last)) => self.updates_failed(ctx, last),
            // The sync's fallback: a Lease it just created needs no update.
            None if created => self.finish(ctx),
            None => self.update(ctx, 0, true),
        }
    }

    fn failed(&mut self, ctx: &mut Ctx, req: Req) -> Option<Heartbeat> {
        match (req, self.sync) {
            (Req::Update, Sync::Update { attempt, last }) => {
                let failing = attempt > 0;
                if failing {
                    // Before the next attempt, which dials again.
                    ctx.hang_up(Port::KUBELET);
                }
                if attempt + 1 < MAX_UPDATE_RETRIES {
                    self.update(ctx, attempt + 1, last);
                } else {
                    self.updates_failed(ctx, last);
                }
                failing.then_some(Heartbeat::Failing)
            }
            (Req::Get | Req::Create, Sync::Ensure { sleep, resume, .. }) => {
                let sleep = (sleep + sleep).min(ENSURE_BACKOFF_MAX);
                self.sync = Sync::Ensure {
                    sleep,
                    asleep: true,
                    resume,
                };
                ctx.set_timer(Port::KUBELET, sleep, Timer::NodeLease);
                None
            }
            _ => None,
        }
    }

    /// `retryUpdateLease` gave up: the sync falls back to reading the Lease, or, if this was
    /// already the update after that, ends ("will retry after renewInterval").
    fn updates_failed(&mut self, ctx: &mut Ctx, last: bool) {
        if last {
            self.finish(ctx);
        } else {
            self.ensure(ctx, None);
        }
    }

    /// The sync is over: the next one after the period, stretched by up to 4 %.
    fn finish(&mut self, ctx: &mut Ctx) {
        self.sync = Sync::Waiting;
        let wait = self.renew_interval.mul_f64(1.0 + JITTER * self.rng.unit());
        ctx.set_timer(Port::KUBELET, wait, Timer::NodeLease);
    }

    fn value(&self, now: SimTime) -> Value {
        Arc::new(Object::Lease(Lease {
            holder: self.holder.clone(),
            lease_duration: self.lease_duration,
            acquire_time: now,
            renew_time: now,
            transitions: 0,
            created: self.created,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::api::RequestId;
    use crate::k8s::observe::blind_step;
    use crate::k8s::wire::{KeyValue, Payload};
    use crate::kernel::process::Effect;

    /// What the controller did in one step: the request it sent and the timer it set, if any.
    #[derive(Debug, Default)]
    struct Step {
        sent: Option<(RequestId, ApiRequest)>,
        timer: Option<Duration>,
        heard: Option<Heartbeat>,
    }

    /// A lease controller on its own, driven by hand: the test answers its requests.
    struct Bench {
        lease: NodeLease,
        now: SimTime,
    }

    impl Bench {
        fn new(seed: u64) -> Self {
            let me = Addr {
                host: 1,
                port: Port::KUBELET,
            };
            let api = Addr {
                host: 0,
                port: Port::LB,
            };
            let lease = NodeLease::new(
                me,
                api,
                crate::k8s::objects::lease_key("kube-node-lease", "w1").into(),
                "w1".into(),
                NodeLeaseTimings {
                    renew_interval: Duration::from_secs(10),
                    lease_duration: Duration::from_secs(40),
                },
                Rng::new(seed),
            );
            Bench {
                lease,
                now: SimTime::ZERO,
            }
        }

        fn step(&mut self, f: impl FnOnce(&mut NodeLease, &mut Ctx) -> Option<Heartbeat>) -> Step {
            let lease = &mut self.lease;
            let (heard, effects) = blind_step(self.now, |ctx| f(lease, ctx));
            let mut step = Step {
                heard,
                ..Step::default()
            };
            for e in effects {
                match e {
                    Effect::Send {
                        payload: Payload::Api(ApiPayload::Request { id, req, .. }),
                        ..
                    } => {
                        assert!(step.sent.is_none(), "one request at a time");
                        step.sent = Some((id, req));
                    }
                    Effect::Timer {
                        after,
                        timer: Timer::NodeLease,
                        ..
                    } => step.timer = Some(after),
                    _ => {}
                }
            }
            step
        }

        fn answer(&mut self, id: RequestId, resp: ApiResponse) -> Step {
            let client = Addr {
                host: 1,
                port: Port::KUBELET,
            };
            let msg = ApiPayload::Response { id, client, resp };
            self.step(|l, ctx| l.on_answer(ctx, &msg))
        }

        fn found(&self, rv: u64) -> ApiResponse {
            let value = self.lease.value(SimTime::ZERO);
            ApiResponse::Object(Some(KeyValue {
                value,
                create_revision: 1,
                mod_revision: rv,
                version: 1,
            }))
        }

        /// Starts it and lets its first sync find the Lease and update it: the wait it then set.
        fn started(&mut self) -> Duration {
            let first = self.step(|l, ctx| {
                l.start(ctx, Duration::ZERO);
                None
            });
            let (id, req) = first.sent.expect("a read first");
            assert!(matches!(req, ApiRequest::Get { .. }), "{req:?}");
            let (id, req) = self.answer(id, self.found(7)).sent.expect("then an update");
            assert!(
                matches!(
                    req,
                    ApiRequest::Update {
                        resource_version: 7,
                        ..
                    }
                ),
                "{req:?}"
            );
            let done = self.answer(
                id,
                ApiResponse::Written {
                    resource_version: 8,
                },
            );
            assert_eq!(done.heard, Some(Heartbeat::Renewed));
            done.timer.expect("the next sync is timed")
        }
    }

    /// `JitterUntil(sync, 10 s, 0.04, sliding)`: every wait is between 10 s and 10.4 s, spread
    /// over that range, and two kubelets started together drift apart.
    #[test]
    fn waits_are_the_period_stretched_by_up_to_four_percent() {
        let mut waits = Vec::new();
        let mut drift = Vec::new();
        for seed in 1..=2 {
            let mut b = Bench::new(seed);
            let mut wait = b.started();
            let mut at = SimTime::ZERO;
            for _ in 0..500 {
                waits.push(wait);
                at += wait;
                b.now = at;
                let (id, req) = b
                    .step(|l, ctx| {
                        l.on_timer(ctx);
                        None
                    })
                    .sent
                    .expect("each sync updates the Lease");
                assert!(
                    matches!(req, ApiRequest::Update { .. }),
                    "no read while updates succeed: {req:?}"
                );
                wait = b
                    .answer(
                        id,
                        ApiResponse::Written {
                            resource_version: 9,
                        },
                    )
                    .timer
                    .expect("timed");
            }
            drift.push(at);
        }
        let (lo, hi) = (Duration::from_secs(10), Duration::from_millis(10_400));
        assert!(
            waits.iter().all(|&w| lo <= w && w < hi),
            "a wait outside [10 s, 10.4 s)"
        );
        let mean = waits.iter().map(|w| w.as_secs_f64()).sum::<f64>() / waits.len() as f64;
        assert!((mean - 10.2).abs() < 0.02, "mean wait {mean} s");
        assert!(
            waits.iter().any(|&w| w < Duration::from_millis(10_040)),
            "the low end is reached"
        );
        assert!(
            waits.iter().any(|&w| w > Duration::from_millis(10_360)),
            "the high end is reached"
        );
        // 500 waits of sd 0.115 s each: the two kubelets are seconds apart by now.
        let apart = (drift[0].0 as i64 - drift[1].0 as i64).unsigned_abs();
        assert!(
            apart > 300_000,
            "two kubelets {apart} µs apart after 500 syncs"
        );
    }

    /// A failed update is retried at once, 5 attempts in all; from the second failure on the
    /// kubelet is told to close its connections; then the Lease is read with a back-off of
    /// 200 ms doubling up to 7 s for as long as reading fails, then updated once more (5
    /// attempts), and the sync ends.
    #[test]
    fn failed_renewals_retry_at_once_then_read_with_a_back_off() {
        let mut b = Bench::new(3);
        let wait = b.started();
        b.now += wait;
        let mut sent = b.step(|l, ctx| {
            l.on_timer(ctx);
            None
        });
        let mut failing = Vec::new();
        for attempt in 0..5 {
            let (id, req) = sent.sent.take().expect("an update");
            assert!(
                matches!(req, ApiRequest::Update { .. }),
                "attempt {attempt}: {req:?}"
            );
            sent = b.answer(id, ApiResponse::Failed("etcd timeout"));
            assert_eq!(sent.timer, None, "attempt {attempt} is retried at once");
            failing.push(sent.heard == Some(Heartbeat::Failing));
        }
        assert_eq!(failing, [false, true, true, true, true]);
        // The fallback read: it times out (no answer within 10 s), then backs off.
        let mut sleeps = Vec::new();
        for _ in 0..8 {
            let (_, req) = sent.sent.take().expect("a read");
            assert!(matches!(req, ApiRequest::Get { .. }), "{req:?}");
            b.now += Duration::from_secs(10) + Duration::from_micros(1);
            let timed_out = b.step(|l, ctx| l.on_timeout(ctx));
            let sleep = timed_out.timer.expect("a back-off");
            sleeps.push(sleep.as_secs_f64());
            b.now += sleep;
            sent = b.step(|l, ctx| {
                l.on_timer(ctx);
                None
            });
        }
        assert_eq!(sleeps, [0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 7.0, 7.0]);
        // Read at last: one more update loop, whose failures end the sync (the next in 10–10.4 s).
        let (id, _) = sent.sent.take().expect("a read");
        sent = b.answer(id, b.found(20));
        for attempt in 0..5 {
            let (id, req) = sent
                .sent
                .take()
                .unwrap_or_else(|| panic!("update {attempt} after the read"));
            assert!(
                matches!(
                    req,
                    ApiRequest::Update {
                        resource_version: 20,
                        ..
                    }
                ),
                "{req:?}"
            );
            sent = b.answer(id, ApiResponse::Failed("etcd timeout"));
        }
        assert!(sent.sent.is_none(), "the sync is over");
        let next = sent.timer.expect("the next sync is timed");
        assert!(Duration::from_secs(10) <= next && next < Duration::from_millis(10_400));
    }

    /// A conflict reads the Lease again and goes on with the next attempt on what it read;
    /// a missing Lease is created, and a created Lease needs no update.
    #[test]
    fn a_conflict_reads_again_and_a_missing_lease_is_created() {
        let mut b = Bench::new(4);
        let wait = b.started();
        b.now += wait;
        let (id, _) = b
            .step(|l, ctx| {
                l.on_timer(ctx);
                None
            })
            .sent
            .unwrap();
        let (id, req) = b.answer(id, ApiResponse::Conflict).sent.expect("a read");
        assert!(matches!(req, ApiRequest::Get { .. }), "{req:?}");
        let (id, req) = b.answer(id, b.found(30)).sent.expect("the next attempt");
        assert!(
            matches!(
                req,
                ApiRequest::Update {
                    resource_version: 30,
                    ..
                }
            ),
            "{req:?}"
        );
        // The remaining attempts fail, then the fallback read finds nothing (deleted meanwhile)
        // and creates it.
        let mut step = b.answer(id, ApiResponse::Failed("etcd timeout"));
        for _ in 2..5 {
            let (id, _) = step.sent.take().unwrap();
            step = b.answer(id, ApiResponse::Failed("etcd timeout"));
        }
        let (id, req) = step.sent.expect("the fallback read");
        assert!(matches!(req, ApiRequest::Get { .. }), "{req:?}");
        let (id, req) = b
            .answer(id, ApiResponse::Object(None))
            .sent
            .expect("a create");
        assert!(matches!(req, ApiRequest::Create { .. }), "{req:?}");
        let done = b.answer(
            id,
            ApiResponse::Written {
                resource_version: 31,
            },
        );
        assert_eq!(done.heard, Some(Heartbeat::Renewed));
        assert!(done.sent.is_none(), "a created Lease is not updated again");
        assert!(done.timer.is_some(), "the next sync is timed");
    }
}
