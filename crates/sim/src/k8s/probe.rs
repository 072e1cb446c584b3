//! The API write probe: once per simulated second it writes an object through the
//! endpoint the kubelets use (the load balancer, or the first apiserver), and counts
//! the writes answered as applied within 2 s: `api.write_availability`.

use crate::etcd::probe::record_outcome;
use crate::k8s::api::{ApiRequest, ApiResponse, RequestId};
use crate::k8s::client::ApiClient;
use crate::k8s::objects::Object;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Ctx;
use crate::k8s::wire::Value;
use crate::kernel::chunked::Chunked;
use crate::kernel::process::Addr;
use crate::kernel::time::{Duration, SimTime};

pub const API_PROBE_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub struct ApiProbe {
    client: ApiClient<i64>,
    /// Outcome of the write sent at each report second; None until known.
    /// Shared by the copies of the world (see [`Chunked`]).
    pub outcomes: Chunked<Option<bool>>,
}

impl ApiProbe {
    pub fn new(me: Addr, endpoint: Addr) -> Self {
        ApiProbe {
            client: ApiClient::new(me, endpoint),
            outcomes: Chunked::default(),
        }
    }

    pub fn write(&mut self, ctx: &mut Ctx, second: i64) {
        let value = Value::new(Object::Opaque(second.to_string().into()));
        let req = ApiRequest::Put {
            key: "/registry/configmaps/default/api-probe".into(),
            value,
        };
        self.client.send(ctx, req, second, API_PROBE_TIMEOUT);
    }

    pub fn on_response(&mut self, id: RequestId, resp: &ApiResponse, now: SimTime) {
        if let Some(second) = self.client.answered(id, now) {
            self.record(second, matches!(resp, ApiResponse::Written { .. }));
        }
    }

    pub fn on_timeout(&mut self, ctx: &mut Ctx) {
        for second in self.client.expired(ctx) {
            self.record(second, false);
        }
    }

    fn record(&mut self, second: i64, ok: bool) {
        record_outcome(&mut self.outcomes, second, ok);
    }
}

impl SelfTimed for ApiProbe {
    /// It writes once a second, and its outcomes are a figure the study checks as settled.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
