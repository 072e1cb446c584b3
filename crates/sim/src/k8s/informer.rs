//! An informer (client-go's reflector + store, reduced): list then watch one kind of
//! object through the API, keep the last known state in memory, and start over with
//! a fresh list when the watch is closed or goes silent. The store is kept while the
//! API is unreachable: a component cut off from the API still acts on what it last knew.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::client::ApiClient;
use crate::k8s::store::Store;
use crate::k8s::wire::Ctx;
use crate::k8s::wire::KeyValue;
use crate::kernel::process::{Addr, Sub};
use crate::kernel::time::{Duration, SimTime};

/// A watch with no message (not even a heartbeat) for this long is given up (its
/// connection's health check closed it).
pub const WATCH_SILENCE: Duration = crate::k8s::client::HTTP2_HEALTH_CHECK;
/// Wait before listing again after a failure.
pub const RELIST_BACKOFF: Duration = Duration::from_secs(1);
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone)]
enum State {
    Idle { retry_at: SimTime },
    Listing,
    Watching { id: RequestId, last_heard: SimTime },
}

/// The state first (`repr(C)`): its owner looks at it after every input.
#[derive(Clone)]
#[repr(C)]
pub struct Informer {
    state: State,
    /// Listed successfully at least once since the process started.
    pub synced: bool,
    client: ApiClient<()>,
    prefix: String,
    node: Option<String>,
    store: Store,
}

impl Informer {
    /// An informer at sub-address `sub` of its owner (apart from the owner's other clients).
    pub fn new(prefix: &str, node: Option<String>, me: Addr, endpoint: Addr, sub: Sub) -> Self {
        Informer {
            prefix: prefix.to_string(),
            node,
            client: ApiClient::at(me, endpoint, sub),
            state: State::Idle {
                retry_at: SimTime::ZERO,
            },
            store: Store::default(),
            synced: false,
        }
    }

    pub fn owns(&self, sub: Sub) -> bool {
        self.client.owns(sub)
    }

    /// Called from the owner's periodic loop: (re)starts the list-watch when needed.
    pub fn tick(&mut self, ctx: &mut Ctx) {
        match self.state {
            State::Idle { retry_at } if ctx.now >= retry_at => {
                let req = ApiRequest::Watch {
                    prefix: self.prefix.clone(),
                    node: self.node.clone(),
                };
                self.client.send(ctx, req, (), LIST_TIMEOUT);
                self.state = State::Listing;
            }
            State::Watching { last_heard, .. } if ctx.now - last_heard > WATCH_SILENCE => {
                self.state = State::Idle { retry_at: ctx.now };
            }
            _ => {}
        }
    }

    /// When the owner should call `tick` next: a relist is due, or the watch has been silent
    /// for too long. None while a list is in flight (its request timeout covers it).
    pub fn next_check(&self) -> Option<SimTime> {
        match self.state {
            State::Idle { retry_at } => Some(retry_at),
            State::Listing => None,
            State::Watching { last_heard, .. } => {
                Some(last_heard + WATCH_SILENCE + Duration::from_micros(1))
            }
        }
    }

    /// Handles an API message if it is this informer's; returns whether the store changed.
    pub fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) -> bool {
        match msg {
            ApiPayload::Response { id, resp, .. } if self.client.owns(id.sub()) => {
                if self.client.answered(*id, ctx.now).is_none() {
                    return false;
                }
                match resp {
                    ApiResponse::WatchStarted { items, .. } => {
                        self.store.replace(items.iter().cloned());
                        self.synced = true;
                        self.state = State::Watching {
                            id: *id,
                            last_heard: ctx.now,
                        };
                        true
                    }
                    _ => {
                        self.state = State::Idle {
                            retry_at: ctx.now + RELIST_BACKOFF,
                        };
                        false
                    }
                }
            }
            ApiPayload::WatchEvents { id, events, .. } => {
                let State::Watching { id: w, last_heard } = &mut self.state else {
                    return false;
                };
                if w != id {
                    return false;
                }
                *last_heard = ctx.now;
                for (key, kv) in events {
                    self.store.apply(key, kv.as_ref());
                }
                !events.is_empty()
            }
            ApiPayload::WatchClosed { id, .. } => {
                if matches!(self.state, State::Watching { id: w, .. } if w == *id) {
                    self.state = State::Idle {
                        retry_at: ctx.now + RELIST_BACKOFF,
                    };
                }
                false
            }
            _ => false,
        }
    }

    /// The last known objects, by key.
    pub fn items(&self) -> &crate::kernel::keymap::KeyMap<KeyValue> {
        self.store.items()
    }

    /// Keeps counts of each workload's pods (see [`Informer::active_pods`]).
    pub fn counting_pods(mut self) -> Self {
        self.store = Store::counting_pods();
        self
    }

    /// How many last known pods of `workload` have no deletion timestamp, if counted.
    pub fn active_pods(&self, workload: &str) -> Option<usize> {
        self.store.active_pods(workload)
    }

    /// How many changes the endpoints among the last known pods of `workload` have seen, if
    /// counted: equal counts mean they are as they were.
    pub fn endpoint_changes(&self, workload: &str) -> Option<u64> {
        self.store.endpoint_changes(workload)
    }

    /// How many of the last known objects are pods bound to a node.
    pub fn bound_pods(&self) -> usize {
        self.store.bound_pods()
    }

    /// The nodes the last known pods are bound to, in name order.
    pub fn bound_nodes(&self) -> impl Iterator<Item = &str> {
        self.store.bound_nodes()
    }

    /// The last known pods bound to `node`, in key order.
    pub fn pods_on<'a>(&'a self, node: &str) -> impl Iterator<Item = &'a KeyValue> {
        self.store.pods_on(node).map(|(_, kv)| kv)
    }

    /// Its connection was closed under it: a list or watch in flight ends, and it starts over
    /// after the usual back-off, as after a watch the server closed.
    pub fn reconnect(&mut self, ctx: &mut Ctx) {
        self.client.close();
        if !matches!(self.state, State::Idle { .. }) {
            self.state = State::Idle {
                retry_at: ctx.now + RELIST_BACKOFF,
            };
        }
    }

    /// A check timer of this informer's client fired.
    pub fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub) {
        if self.client.owns(sub) && !self.client.expired(ctx).is_empty() {
            self.state = State::Idle {
                retry_at: ctx.now + RELIST_BACKOFF,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::observe::blind_step;
    use crate::k8s::wire::Payload;
    use crate::kernel::process::{Effect, Port};

    /// The list-watch requests `f` sent, at `now`.
    fn sent(now: SimTime, f: impl FnOnce(&mut Ctx)) -> Vec<RequestId> {
        let ((), effects) = blind_step(now, f);
        (effects.into_iter())
            .filter_map(|e| match e {
                Effect::Send {
                    payload: Payload::Api(ApiPayload::Request { id, .. }),
                    ..
                } => Some(id),
                _ => None,
            })
            .collect()
    }

    /// Its connection closed (the kubelet's `closeAllConns`), a watching informer stops
    /// listening to its watch and lists again after the back-off; a list in flight is dropped.
    #[test]
    fn a_closed_connection_ends_the_watch_and_lists_again() {
        let me = Addr {
            host: 1,
            port: Port::KUBELET,
        };
        let api = Addr {
            host: 0,
            port: Port::LB,
        };
        let mut inf = Informer::new(crate::k8s::objects::PODS, None, me, api, Sub(1));
        let t0 = SimTime::ZERO;
        let [list] = sent(t0, |ctx| inf.tick(ctx))[..] else {
            panic!("one list")
        };
        let started = ApiResponse::WatchStarted {
            backend: 0,
            revision: 5,
            items: Vec::new(),
        };
        let msg = ApiPayload::Response {
            id: list,
            client: me,
            resp: started,
        };
        sent(t0, |ctx| {
            inf.on_api(ctx, &msg);
        });
        assert_eq!(
            inf.next_check(),
            Some(t0 + WATCH_SILENCE + Duration::from_micros(1))
        );
        let t1 = t0 + Duration::from_secs(3);
        sent(t1, |ctx| inf.reconnect(ctx));
        assert_eq!(
            inf.next_check(),
            Some(t1 + RELIST_BACKOFF),
            "it lists again after the back-off"
        );
        // The old watch's events are no longer taken.
        let gone = vec![(crate::k8s::objects::pod_key("web-1").into(), None)];
        let events = ApiPayload::WatchEvents {
            id: list,
            client: me,
            events: gone,
        };
        sent(t1, |ctx| {
            assert!(
                !inf.on_api(ctx, &events),
                "the closed watch's events are ignored"
            )
        });
        let t2 = t1 + RELIST_BACKOFF;
        let [relist] = sent(t2, |ctx| inf.tick(ctx))[..] else {
            panic!("one list")
        };
        assert_ne!(relist, list);
        // A list in flight when the connection closes is dropped: its late answer is ignored.
        sent(t2, |ctx| inf.reconnect(ctx));
        let late = ApiPayload::Response {
            id: relist,
            client: me,
            resp: ApiResponse::WatchStarted {
                backend: 0,
                revision: 6,
                items: Vec::new(),
            },
        };
        sent(t2, |ctx| {
            assert!(
                !inf.on_api(ctx, &late),
                "a dropped list's answer is ignored"
            )
        });
        assert_eq!(inf.next_check(), Some(t2 + RELIST_BACKOFF));
    }
}
