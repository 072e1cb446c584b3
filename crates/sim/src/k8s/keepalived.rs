//! keepalived holding the API's virtual IP, as kubeadm's high-availability guide sets it up:
//! VRRP (version 2) among the control-plane hosts, and a track script that checks the local
//! apiserver.
//!
//! The master sends an advertisement every second to the other hosts. A backup that hears none
//! for the master-down interval (3 × advert + skew, skew = (256 − priority)/256 s) becomes master;
//! with preemption on, a backup ignores adverts of a lower priority than its own, so it takes over
//! after that interval too, and a master that hears a higher priority steps down; between equal
//! priorities the higher address wins. Priorities as in kubeadm's example: the first
//! control-plane host (`state MASTER`, master from its start) 101, the others 100. The track
//! script asks the local apiserver for its health (the etcd check included, 2 s at most) every
//! 3 s; after 10 failures in a row it takes its `weight` (2) off the host's priority, after 2
//! successes it gives it back. A master that stops cleanly (a reboot) sends a priority-0 advert:
//! a backup then takes over after its skew time, not the whole interval. A weighted track script
//! is ignored on an address owner (priority 255). Nothing here needs the API to hold
//! the VIP: a master whose etcd lost quorum keeps it while no healthier host advertises. During a
//! network split each side elects its own master; the world routes the VIP to the holder a sender
//! can reach.
//!
//! Left out: the gratuitous ARP and ARP caches (a client reaches the new holder at once),
//! authentication, unicast peers.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::observe::Note;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Advert, Ctx, Payload};
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Sub};
use crate::kernel::time::{Duration, SimTime};

/// `advert_int`.
pub const ADVERT_INTERVAL: Duration = Duration::from_secs(1);
/// The track script's `interval`, its `fall` and `rise` (kubeadm's example), and curl's `--max-time`.
pub const CHECK_EVERY: u32 = 3;
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
pub const FALL: u32 = 10;
pub const RISE: u32 = 2;
/// kubeadm's example: `priority 101` on the first host, `100` on the others, `weight -2`.
pub const MASTER_PRIORITY: u32 = 101;
pub const BACKUP_PRIORITY: u32 = 100;
pub const WEIGHT: u32 = 2;
/// RFC 3768's address owner: master at once, and no track script lowers it.
const OWNER: u32 = 255;

#[derive(Clone)]
pub struct Keepalived {
    host: HostId,
    /// The control-plane hosts, itself included: the advertisements' multicast group.
    group: Vec<HostId>,
    /// The configured priority, and what a failing check takes off it.
    base: u32,
    penalty: u32,
    pub master: bool,
    /// The track script's state, its count against that state, its request in flight.
    healthy: bool,
    streak: u32,
    check: Option<u32>,
    ticks: u32,
    /// A backup becomes master at this moment unless an advert comes first.
    master_down_at: SimTime,
    /// The last advert a backup ignored (a lower priority than its own), for the log.
    ignored: Option<Advert>,
    /// The master that said it is leaving (a priority-0 advert), for the log.
    resigned: Option<HostId>,
}

impl Keepalived {
    /// The keepalived of `host`, one of `group` (the control-plane hosts, in host order).
    pub fn new(host: HostId, group: Vec<HostId>) -> Keepalived {
        let index = group
            .iter()
            .position(|&x| x == host)
            .expect("keepalived runs on a host of its group") as u32;
        Keepalived {
            host,
            base: if index == 0 {
                MASTER_PRIORITY
            } else {
                BACKUP_PRIORITY
            },
            penalty: WEIGHT,
            group,
            master: false,
            healthy: true,
            streak: 0,
            check: None,
            ticks: 0,
            master_down_at: SimTime(0),
            ignored: None,
            resigned: None,
        }
    }

    pub fn priority(&self) -> u32 {
        if self.healthy || self.base == OWNER {
            self.base
        } else {
            self.base.saturating_sub(self.penalty).max(1)
        }
    }

    /// 3 × advert + skew: how long a backup waits without adverts.
    fn master_down_interval(&self) -> Duration {
        Duration(3 * ADVERT_INTERVAL.0) + self.skew()
    }

    /// 3 × advert + skew: how long a backup waits without adverts; the skew alone after a
    /// priority-0 advert.
    fn skew(&self) -> Duration {
        Duration(ADVERT_INTERVAL.0 * (256 - self.priority() as u64) / 256)
    }

    /// The start-up: the host configured `state MASTER` (the first, priority 101) or an address
    /// owner is master at once, the others wait.
    pub fn start(&mut self, ctx: &mut Ctx) {
        if self.base >= MASTER_PRIORITY {
            let why = format!("it starts as master (state MASTER, priority {})", self.base);
            self.become_master(ctx, why);
        } else {
            self.wait_for_master(ctx);
        }
        ctx.set_timer(Port::KEEPALIVED, ADVERT_INTERVAL, Timer::Housekeeping);
    }

    fn wait_for_master(&mut self, ctx: &mut Ctx) {
        self.ignored = None;
        self.resigned = None;
        let after = self.master_down_interval();
        self.master_down_at = ctx.now + after;
        ctx.set_timer(Port::KEEPALIVED, after, Timer::Wake);
    }

    fn become_master(&mut self, ctx: &mut Ctx, why: String) {
        self.master = true;
        self.advertise(ctx);
        let name = ctx.obs.name(self.host).to_string();
        let text = format!("{name} holds the API's virtual IP (keepalived's VRRP master): {why}");
        ctx.obs.note(ctx.now, Note::VipMoved, Some(self.host), text);
    }

    fn advertise(&self, ctx: &mut Ctx) {
        self.advertise_priority(ctx, self.priority());
    }

    /// An advert of `priority` to every other host of the group (0: the master is leaving).
    fn advertise_priority(&self, ctx: &mut Ctx, priority: u32) {
        let advert = Advert {
            from: self.host,
            priority,
        };
        for &peer in self.group.iter().filter(|&&h| h != self.host) {
            let to = Addr {
                host: peer,
                port: Port::KEEPALIVED,
            };
            ctx.send(Port::KEEPALIVED, to, Payload::Vrrp(advert));
        }
    }

    /// Every advert interval: the master advertises; every third tick the track script runs.
    pub fn on_tick(&mut self, ctx: &mut Ctx) {
        if self.master {
            self.advertise(ctx);
        }
        self.ticks += 1;
        if self.ticks.is_multiple_of(CHECK_EVERY) {
            let seq = self.ticks;
            self.check = Some(seq);
            let me = Addr {
                host: self.host,
                port: Port::KEEPALIVED,
            };
            let msg = ApiPayload::Request {
                id: RequestId::new(Sub::default(), seq as u64),
                client: me,
                via: None,
                req: ApiRequest::Readyz,
            };
            let api = Addr {
                host: self.host,
                port: Port::APISERVER,
            };
            ctx.send(Port::KEEPALIVED, api, Payload::Api(msg));
            ctx.set_timer(
                Port::KEEPALIVED,
                CHECK_TIMEOUT,
                Timer::ApiTimeout { sub: Sub(seq) },
            );
        }
        ctx.set_timer(Port::KEEPALIVED, ADVERT_INTERVAL, Timer::Housekeeping);
    }

    /// The master-down timer, or a check that did not answer in time.
    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: Timer) {
        match timer {
            Timer::Housekeeping => self.on_tick(ctx),
            Timer::Wake if !self.master && ctx.now >= self.master_down_at => {
                let why = match (self.resigned, self.ignored) {
                    (Some(from), _) => format!(
                        "{} sent a priority-0 advert (it is stopping): after the skew time, {} s at priority {}",
                        ctx.obs.name(from),
                        crate::kernel::decimal::Fixed(self.skew().as_secs_f64(), 2),
                        self.priority()
                    ),
                    (None, Some(a)) => format!(
                        "{}'s adverts carry priority {}, below its own {} (preemption)",
                        ctx.obs.name(a.from),
                        a.priority,
                        self.priority()
                    ),
                    (None, None) => format!(
                        "no advertisement for {} s (3 × advert + skew at priority {})",
                        crate::kernel::decimal::Fixed(self.master_down_interval().as_secs_f64(), 1),
                        self.priority()
                    ),
                };
                self.become_master(ctx, why);
            }
            Timer::ApiTimeout { sub } if self.check == Some(sub.0) => self.checked(false),
            _ => {}
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        match payload {
            Payload::Vrrp(advert) => self.on_advert(ctx, advert),
            Payload::Api(ApiPayload::Response { id, resp, .. })
                if self.check == Some(id.seq() as u32) =>
            {
                self.checked(resp == ApiResponse::Ready(true));
            }
            _ => {}
        }
    }

    /// keepalived stops cleanly: a master says so with a priority-0 advert. Whether it sent one.
    pub fn stop(&mut self, ctx: &mut Ctx) -> bool {
        let master = self.master;
        if master {
            self.advertise_priority(ctx, 0);
            self.master = false;
        }
        master
    }

    fn on_advert(&mut self, ctx: &mut Ctx, advert: Advert) {
        if advert.priority == 0 {
            // The master is leaving: a backup waits only its skew time.
            if !self.master {
                self.ignored = None;
                self.resigned = Some(advert.from);
                self.master_down_at = ctx.now + self.skew();
                ctx.set_timer(Port::KEEPALIVED, self.skew(), Timer::Wake);
            }
            return;
        }
        let mine = self.priority();
        let higher = advert.priority > mine || (advert.priority == mine && advert.from > self.host);
        if self.master {
            if higher {
                self.master = false;
                self.wait_for_master(ctx);
            }
        } else if advert.priority >= mine {
            self.wait_for_master(ctx);
        } else {
            self.ignored = Some(advert);
        }
    }

    /// One result of the track script, counted against `fall` and `rise`.
    fn checked(&mut self, ok: bool) {
        self.check = None;
        if ok == self.healthy {
            self.streak = 0;
            return;
        }
        self.streak += 1;
        if self.streak < if self.healthy { FALL } else { RISE } {
            return;
        }
        // The next advert carries the new priority: a healthier backup preempts a failing master.
        self.healthy = ok;
        self.streak = 0;
    }
}

impl SelfTimed for Keepalived {
    /// Its adverts and checks repeat what they found; a master's loss is followed by a
    /// backup's takeover within seconds, which the users' requests through the VIP show.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
