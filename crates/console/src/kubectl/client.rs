//! kubectl's connection to the cluster: its requests from the vantage host through the
//! kubeconfig's endpoint (or `--server`), on a copy of the world that moves on by the time each
//! takes, and kubectl's error for each way a request fails (refused, dial timeout, EOF from a
//! balancer with no backend, the server's timeout).

use super::flags::Flags;
use crate::words::clip;
use crate::{ip_of, Output};
use sim::k8s::api::{ApiRequest, ApiResponse};
use sim::k8s::lb::NO_BACKEND;
use sim::k8s::objects::KeyValue;
use sim::kernel::keymap::Key;
use sim::kernel::net::HostId;
use sim::kernel::process::{Addr, Port};
use sim::kernel::time::{Duration, SimTime};
use sim::world::terminal::{Answer, Call};
use sim::world::World;

/// client-go's TCP dial timeout (`transport/cache.go`).
pub(super) const DIAL_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the console waits: kube-apiserver's `--request-timeout` (kubectl itself waits for
/// ever, `--request-timeout=0`).
pub(super) const SERVER_TIMEOUT: Duration = Duration::from_secs(60);

pub(super) const SERVER_TIMEOUT_MESSAGE: &str = "the server was unable to return a response in the time allotted, but may still be processing the request";

pub(super) const API_PORT: u16 = 6443;

/// kubectl at work: its requests from the vantage host on a copy of the world (which moves on by
/// the time each takes), and the simulated time they took together.
pub(crate) struct Client {
    pub(crate) copy: World,
    from: HostId,
    start: SimTime,
    /// `--server`, else the kubeconfig's endpoint.
    server: Option<Addr>,
    /// The apiserver that took the last request.
    pub(crate) served_by: Option<HostId>,
}

impl Client {
    pub(crate) fn new(world: &World, from: HostId, flags: &Flags) -> Client {
        let copy = world.clone();
        let start = copy.now();
        Client {
            copy,
            from,
            start,
            server: flags.server,
            served_by: None,
        }
    }

    pub(crate) fn now(&self) -> SimTime {
        self.copy.now()
    }

    pub(crate) fn took_s(&self) -> f64 {
        (self.copy.now().0 - self.start.0) as f64 / 1e6
    }

    /// A failure after the time taken so far.
    pub(crate) fn failed(&self, (stderr, status): (String, i32)) -> Output {
        Output {
            stderr,
            status,
            took_s: self.took_s(),
            ..Output::default()
        }
    }

    /// A GET of the object at `key` (`what` names the request in a timeout's message). Err:
    /// kubectl's error, NotFound for `resource` `name` when there is no such object.
    pub(crate) fn get(
        &mut self,
        key: &str,
        what: &str,
        resource: &str,
        name: &str,
    ) -> Result<KeyValue, (String, i32)> {
        let get = ApiRequest::Get { key: key.into() };
        match self.request(get, what)? {
            ApiResponse::Object(Some(kv)) => Ok(kv),
            _ => Err(not_found(resource, name)),
        }
    }

    /// A consistent list of everything under `prefix`.
    pub(crate) fn list(
        &mut self,
        prefix: &str,
        what: &str,
    ) -> Result<Vec<(Key, KeyValue)>, (String, i32)> {
        let list = ApiRequest::ListConsistent {
            prefix: prefix.into(),
        };
        match self.request(list, what)? {
            ApiResponse::List { items } => Ok(items),
            _ => Err(("error: unexpected answer from the server\n".into(), 1)),
        }
    }

    /// One API request through the kubeconfig's endpoint: how it ended, and the server as kubectl
    /// names it (`IP:6443`). None: the host has no kubeconfig.
    pub(crate) fn call(&mut self, req: ApiRequest) -> Option<(Answer, String)> {
        // A host that has not joined has no kubeconfig: kubectl falls back to localhost:8080.
        let kubeconfig = self.copy.host_is_joined(self.from) || self.server.is_some();
        let endpoint = self.server.or_else(|| self.copy.api_endpoint());
        let endpoint = endpoint.filter(|_| kubeconfig)?;
        let outcome = self.copy.call(
            self.from,
            endpoint,
            Call::Api(req),
            DIAL_TIMEOUT,
            SERVER_TIMEOUT,
        );
        self.served_by = outcome.served_by;
        Some((
            outcome.answer,
            format!("{}:{API_PORT}", endpoint_ip(endpoint)),
        ))
    }

    /// One API request through the kubeconfig's endpoint. Err: kubectl's error for the way it
    /// failed, and its exit status.
    pub(super) fn request(
        &mut self,
        req: ApiRequest,
        what: &str,
    ) -> Result<ApiResponse, (String, i32)> {
        let Some((answer, server)) = self.call(req) else {
            let refused = "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n";
            return Err((refused.into(), 1));
        };
        Err(match answer {
        Answer::Api(ApiResponse::Failed(reason)) if reason == NO_BACKEND => {
            // A balancer with no backend in service accepts the connection and closes it.
            ("Unable to connect to the server: EOF\n".into(), 1)
        }
        Answer::Api(ApiResponse::Failed(reason)) => (format!("Error from server: {reason}\n"), 1),
        Answer::Api(resp) => return Ok(resp),
        Answer::Refused => (
            format!("The connection to the server {server} was refused - did you specify the right host or port?\n"),
            1,
        ),
        Answer::DialTimeout => (
            format!("Unable to connect to the server: dial tcp {server}: i/o timeout\n"),
            1,
        ),
        // Lost on the way (a backend that died, a cut link): kubectl has no request timeout
        // and would wait until interrupted.
        Answer::Timeout => (
            format!(
                "^C\nconsole: no answer after {} s of simulated time (kubectl waits without a timeout); stopped as with Ctrl-C\n",
                SERVER_TIMEOUT.secs()
            ),
            130,
        ),
        Answer::Etcd(_) => (
            format!("Error from server (Timeout): {SERVER_TIMEOUT_MESSAGE} ({what})\n"),
            1,
        ),
    })
    }
}

/// The address kubeconfigs name: the virtual IP (kube-vip, keepalived), else the endpoint host's.
pub(crate) fn endpoint_ip(endpoint: Addr) -> String {
    if endpoint.port == Port::VIP {
        VIP_IP.to_string()
    } else {
        ip_of(endpoint.host)
    }
}

/// The API's virtual IP, outside the hosts' addresses.
pub(super) const VIP_IP: &str = "10.0.255.100";

pub(super) fn not_found(what: &str, name: &str) -> (String, i32) {
    (
        format!(
            "Error from server (NotFound): {what} \"{}\" not found\n",
            clip(name)
        ),
        1,
    )
}
