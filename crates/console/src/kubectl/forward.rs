//! `kubectl port-forward` and `kubectl proxy`: a local port on the vantage host whose traffic
//! goes through the API endpoint to an apiserver, and from there to a pod. So they stop working
//! with the API, while NodePorts keep serving.
//!
//! - port-forward picks one pod at the start (for a Service or a workload: a running, ready pod,
//!   the oldest first, as kubectl's `GetFirstPod` sorts them) and opens one connection to it
//!   through an apiserver and the pod's kubelet. The connection lasts while each process on its
//!   path (the balancer, the apiserver, the kubelet) stays the same life: when one of them exits
//!   or restarts, kubectl exits with "lost connection to pod". A connection handled while the
//!   pod's container is not running gets kubectl's error and an empty reply.
//! - proxy sends every request anew to the API endpoint; for a Service's `/proxy/` path the
//!   apiserver reads the Service's endpoints, picks a ready one, and connects to the pod itself.
//!   Its failures are logged by kubectl (`Error while proxying request: …`) and answered with the
//!   error as the body.
//!
//! A console line runs them in the background (`kubectl port-forward svc/web 8080:80 & curl
//! localhost:8080`); they last as long as the line. A person waits for "Forwarding from" before
//! typing the next command, so the line's next command starts once the job is listening.
//!
//! Left out: several ports in one command, UDP, `--address`, `kubectl proxy`'s static files and
//! its `--accept-paths` filters (its default filter is kept: no exec or attach).

use super::client::Client;
use super::flags::Flags;
use super::rows::{
    endpoint_pods, host_of, namespace_of, pod_ip, service_workload, workload_namespace,
};
use crate::calendar::klog_time;
use crate::object::quote_json;
use crate::words::clip;
use crate::{ip_of, Output};
use sim::k8s::api::{ApiRequest, ApiResponse};
use sim::k8s::lb::NO_BACKEND;
use sim::k8s::objects::{pod_key, Object, Pod};
use sim::kernel::net::HostId;
use sim::kernel::process::{Addr, Port};
use sim::kernel::rng::Rng;
use sim::kernel::time::{Duration, SimTime};
use sim::scenario::COREDNS;
use sim::world::terminal::Answer;
use sim::world::World;

/// `kubectl proxy`'s default port.
const PROXY_PORT: u16 = 8001;
/// The kubelet's port, which the apiserver dials for port-forward.
const KUBELET_PORT: u16 = 10250;
/// The dial timeout of the apiserver's connections to kubelets and pods, and of kubectl's.
const DIAL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the console waits for an answer that does not come (kubectl and curl wait for
/// ever): then it stops the command as Ctrl-C would.
const GIVE_UP: Duration = Duration::from_secs(60);

/// The jobs a vantage host's console has started: a line's foreground ones end with it (as
/// Ctrl-C ends them), its background ones (`&`) stay for the next lines.
#[derive(Clone, Default)]
pub struct Jobs {
    list: Vec<Job>,
    /// Connections this host's console has opened to Services so far: each is balanced anew.
    connections: u64,
}

#[derive(Clone)]
struct Job {
    port: u16,
    /// The process id kubectl's log lines carry.
    pid: u32,
    kind: JobKind,
    /// When it started: a line run at an earlier moment (the cursor moved back) has not got it.
    started: SimTime,
    background: bool,
}

#[derive(Clone)]
enum JobKind {
    Forward(Tunnel),
    Proxy,
}

/// A port-forward's connection: the pod, and each process on its way with the life it had when
/// the connection opened.
#[derive(Clone)]
struct Tunnel {
    remote: u16,
    pod: String,
    node: HostId,
    ends: Vec<(Addr, u64)>,
    /// Host pairs the connection crosses.
    hops: Vec<(HostId, HostId)>,
}

impl Jobs {
    /// A line begins at `now`: the jobs started later than that did not exist yet.
    pub(crate) fn begin_line(&mut self, now: SimTime) {
        self.list.retain(|j| j.started <= now);
    }

    /// The line ended: its foreground jobs with it.
    pub(crate) fn end_line(&mut self) {
        self.list.retain(|j| j.background);
    }

    /// A new connection to a Service: its number (kube-proxy picks an endpoint at random per
    /// connection, so a second `curl` at the same moment may reach another pod).
    pub(crate) fn next_connection(&mut self) -> u64 {
        self.connections += 1;
        self.connections
    }

    /// How many jobs the line has started.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    fn listening(&self, port: u16) -> bool {
        self.list.iter().any(|j| j.port == port)
    }
}

fn fail(text: String) -> Output {
    Output::error(text, 1)
}

/// `kubectl port-forward TYPE/NAME [LOCAL:]REMOTE` from `from` (`words`: what follows
/// `port-forward`): the ports read, the pod found, the tunnel opened through the API to its
/// kubelet, then a job that keeps it.
pub(crate) fn port_forward(
    world: &World,
    from: HostId,
    words: &[&str],
    flags: &Flags,
    jobs: &mut Jobs,
    background: bool,
) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let [target, ports] = words[..] else {
        return fail(match words.len() {
            0 | 1 => "error: TYPE/NAME and list of ports are required for port-forward\nSee 'kubectl port-forward -h' for help and examples\n".into(),
            _ => "console: this console forwards one port per command\n".into(),
        });
    };
    let (local, remote) = match forwarded_ports(world, ports) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let (kind, name) = target.split_once('/').unwrap_or(("pod", target));
    let kind = match resource(kind) {
        Ok(k) => k,
        Err(e) => return e,
    };
    let mut client = Client::new(world, from, flags);
    let items = match client.list("/registry/", &format!("get {kind} {name}")) {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    let target_pod = forwarded_pod(world, &mut client, &objects, kind, name, namespace, remote);
    let (pod, node) = match target_pod {
        Ok(p) => p,
        Err(e) => return client.failed(e),
    };
    let tunnel = match open_tunnel(&mut client, from, pod, node, (local, remote), jobs) {
        Ok(t) => t,
        Err(e) => return client.failed(e),
    };
    jobs.list.push(Job {
        port: local,
        pid: pid(world, from),
        started: world.now(),
        background,
        kind: JobKind::Forward(tunnel),
    });
    Output {
        stdout: format!(
            "Forwarding from 127.0.0.1:{local} -> {remote}\nForwarding from [::1]:{local} -> {remote}\n"
        ),
        stderr: foreground(
            background,
            &format!(
                "kubectl port-forward {} {ports} & curl localhost:{local}",
                clip(target)
            ),
        ),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `[LOCAL:]REMOTE`: the local and the remote port (an empty local port asks for a free one).
fn forwarded_ports(world: &World, ports: &str) -> Result<(u16, u16), Output> {
    let (local, remote) = ports.split_once(':').unwrap_or((ports, ports));
    let port = |p: &str, which: &str| match p.parse::<u16>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(fail(format!(
            "error: Error parsing {which} port '{}': invalid port\n",
            clip(p)
        ))),
    };
    let remote = port(remote, "remote")?;
    let local = match local {
        "" => free_port(world),
        l => port(l, "local")?,
    };
    Ok((local, remote))
}

/// The resource a port-forward's TYPE names, as the API calls it.
fn resource(kind: &str) -> Result<&'static str, Output> {
    Ok(match kind {
        "pod" | "pods" | "po" => "pods",
        "svc" | "service" | "services" => "services",
        "deploy" | "deployment" | "deployments" => "deployments.apps",
        "sts" | "statefulset" | "statefulsets" => "statefulsets.apps",
        "ds" | "daemonset" | "daemonsets" => "daemonsets.apps",
        other => {
            return Err(fail(format!(
                "error: the server doesn't have a resource type \"{}\"\n",
                clip(other)
            )))
        }
    })
}

/// The running pod a port-forward goes to, and its node: the one named, or for a workload or
/// Service the first of its pods in kubectl's order (waiting for one to appear as kubectl does).
fn forwarded_pod<'a>(
    world: &World,
    client: &mut Client,
    objects: &[&'a Object],
    kind: &str,
    name: &str,
    namespace: &str,
    remote: u16,
) -> Result<(&'a Pod, HostId), (String, i32)> {
    let mut pods = (objects.iter())
        .filter_map(|o| o.as_pod())
        .filter(|p| namespace_of(p) == namespace);
    let not_found = format!(
        "Error from server (NotFound): {kind} \"{}\" not found\n",
        clip(name)
    );
    let pod = if kind == "pods" {
        pods.find(|p| p.name == name)
    } else {
        let workload = match kind {
            "services" => service_workload(objects, namespace, name),
            _ => (objects.iter())
                .filter_map(|o| o.as_workload())
                .find(|w| w.name == name && workload_namespace(&w.name) == namespace)
                .map(|w| w.name.as_str()),
        };
        let Some(workload) = workload else {
            return Err((not_found, 1));
        };
        let ports: &[u16] = if workload == COREDNS {
            &[53, 9153]
        } else {
            &[80]
        };
        if kind == "services" && !ports.contains(&remote) {
            let e = format!(
                "error: Service {} does not have a service port {remote}\n",
                clip(name)
            );
            return Err((e, 1));
        }
        // kubectl's order: running and ready pods first, the oldest of them first.
        let pod = pods
            .filter(|p| p.workload == workload)
            .min_by_key(|p| (!(p.running && p.ready), p.created));
        if pod.is_none() {
            // kubectl waits for a pod to appear, for --pod-running-timeout (1 minute).
            client.copy.run_until(client.now() + GIVE_UP, u64::MAX);
            return Err(("error: timed out waiting for the condition\n".into(), 1));
        }
        pod
    };
    let (Some(pod), Some(node)) = (pod, pod.and_then(|p| host_of(world, p))) else {
        return Err((not_found, 1));
    };
    if !pod.running {
        // A pod whose containers have not started is Pending.
        return Err((
            "error: unable to forward port because pod is not running. Current status=Pending\n"
                .into(),
            1,
        ));
    }
    Ok((pod, node))
}

/// The upgrade request: the apiserver reads the pod, then dials its node's kubelet. The
/// tunnel's way (the balancer if any, the apiserver, the kubelet) and the lives of its ends.
fn open_tunnel(
    client: &mut Client,
    from: HostId,
    pod: &Pod,
    node: HostId,
    (local, remote): (u16, u16),
    jobs: &Jobs,
) -> Result<Tunnel, (String, i32)> {
    client.get(&pod_key(&pod.name), "get pods", "pods", &pod.name)?;
    let apiserver = client.served_by.unwrap_or(from);
    let kubelet = Addr {
        host: node,
        port: Port::KUBELET,
    };
    let dial = format!(
        "error: error upgrading connection: error dialing backend: dial tcp {}:{KUBELET_PORT}",
        ip_of(node)
    );
    let reachable = client.copy.reachable(apiserver, node);
    let kubelet_life = client.copy.process_life(kubelet);
    let refused = match (reachable, kubelet_life) {
        (false, _) => {
            client.copy.run_until(client.now() + DIAL_TIMEOUT, u64::MAX);
            Some(format!("{dial}: i/o timeout\n"))
        }
        (true, None) => Some(format!("{dial}: connect: connection refused\n")),
        (true, Some(_)) if jobs.listening(local) => Some(format!(
            "error: unable to listen on any of the requested ports: [{{{local} {remote}}}]\n"
        )),
        _ => None,
    };
    if let Some(e) = refused {
        return Err((e, 1));
    }
    let mut ends = Vec::new();
    let mut hops = vec![(apiserver, node)];
    let endpoint = client.copy.api_endpoint().filter(|e| e.port == Port::LB);
    let first = endpoint.map_or(apiserver, |lb| lb.host);
    hops.extend([(from, first), (first, apiserver)]);
    let api = Addr {
        host: apiserver,
        port: Port::APISERVER,
    };
    for at in endpoint.into_iter().chain([api, kubelet]) {
        if let Some(life) = client.copy.process_life(at) {
            ends.push((at, life));
        }
    }
    Ok(Tunnel {
        remote,
        pod: pod.name.clone(),
        node,
        ends,
        hops,
    })
}

/// What the console says of a job run in the foreground: it would run until stopped.
fn foreground(background: bool, example: &str) -> String {
    match background {
        true => String::new(),
        false => {
            format!("console: it runs until stopped; try: {example}\n")
        }
    }
}

/// A free local port, as the system picks one when asked for port 0.
fn free_port(world: &World) -> u16 {
    40_000 + (world.now().0 / 1_000 % 20_000) as u16
}

/// `kubectl proxy [--port N]` from `from`: it listens at once (it asks the API nothing until a
/// request comes).
pub fn proxy(
    world: &World,
    from: HostId,
    args: &[String],
    jobs: &mut Jobs,
    background: bool,
) -> Output {
    let mut port = PROXY_PORT;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = match a.as_str() {
            "-p" | "--port" => it.next().map(String::as_str),
            s if s.starts_with("--port=") => Some(&s["--port=".len()..]),
            _ => continue,
        };
        match value.and_then(|v| v.parse::<u16>().ok()) {
            Some(0) => port = free_port(world),
            Some(p) => port = p,
            None => return fail("error: invalid argument for \"-p, --port\" flag\n".into()),
        }
    }
    if jobs.listening(port) {
        return fail(format!(
            "error: listen tcp 127.0.0.1:{port}: bind: address already in use\n"
        ));
    }
    jobs.list.push(Job {
        port,
        pid: pid(world, from),
        kind: JobKind::Proxy,
        started: world.now(),
        background,
    });
    Output {
        stdout: format!("Starting to serve on 127.0.0.1:{port}\n"),
        stderr: foreground(
            background,
            &format!("kubectl proxy & curl localhost:{port}/api/v1/namespaces/default/services/NAME/proxy/"),
        ),
        ..Output::default()
    }
}

/// A process id for kubectl's log lines, the same for a host at a moment.
fn pid(world: &World, from: HostId) -> u32 {
    1_000 + ((world.now().0 / 1_000_000) as u32 ^ (from * 7_919)) % 60_000
}

/// What curl gets from `localhost:port` on the vantage host when a job listens there (None:
/// nothing listens). `max_time`: curl's `--max-time`.
pub fn serve(
    world: &World,
    from: HostId,
    jobs: &mut Jobs,
    port: u16,
    path: &str,
    max_time: Option<f64>,
) -> Option<Output> {
    let i = jobs.list.iter().position(|j| j.port == port)?;
    let job = &jobs.list[i];
    let pid = job.pid;
    Some(match &job.kind {
        JobKind::Forward(tunnel) => {
            let lost = !tunnel
                .ends
                .iter()
                .all(|&(at, life)| world.still_runs(at, life));
            if lost {
                // kubectl exited when the connection broke: nothing listens any more.
                jobs.list.remove(i);
                return Some(Output::error(
                    format!(
                        "error: lost connection to pod\ncurl: (7) Failed to connect to localhost port {port} after 0 ms: Couldn't connect to server\n"
                    ),
                    7,
                ));
            }
            let handling = format!("Handling connection for {port}\n");
            if !tunnel.hops.iter().all(|&(a, b)| world.reachable(a, b)) {
                return Some(no_answer(handling, max_time));
            }
            if !world.runs_pod(tunnel.node, &tunnel.pod) {
                let log = klog_time(world.now());
                return Some(Output {
                    stdout: handling,
                    stderr: format!(
                        "E{log} {pid:>7} portforward.go:424] \"Unhandled Error\" err=\"an error occurred forwarding {port} -> {}: error forwarding port {} to pod {}: container not running\"\ncurl: (52) Empty reply from server\n",
                        tunnel.remote, tunnel.remote, tunnel.pod
                    ),
                    status: 52,
                    took_s: 0.004,
                    record: None,
                });
            }
            Output {
                stdout: format!("{handling}Hostname: {}\n", tunnel.pod),
                took_s: 0.004,
                ..Output::default()
            }
        }
        JobKind::Proxy => proxied(world, from, pid, path, max_time),
    })
}

/// No answer on an open connection: curl waits for `--max-time`, else until stopped.
fn no_answer(stdout: String, max_time: Option<f64>) -> Output {
    match max_time {
        Some(m) if m < GIVE_UP.as_secs_f64() => Output {
            stdout,
            stderr: format!(
                "curl: (28) Operation timed out after {} milliseconds with 0 bytes received\n",
                (m * 1000.0) as u64
            ),
            status: 28,
            took_s: m,
            record: None,
        },
        _ => Output {
            stdout,
            stderr: format!(
                "^C\nconsole: no answer after {} s of simulated time (curl waits without a timeout); stopped as with Ctrl-C\n",
                GIVE_UP.secs()
            ),
            status: 130,
            took_s: GIVE_UP.as_secs_f64(),
            record: None,
        },
    }
}

/// The body the apiserver sends for an error: a `Status` object.
fn status(message: &str, reason: &str, code: u16) -> String {
    format!(
        "{{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {{}},\n  \"status\": \"Failure\",\n  \"message\": {},\n  \"reason\": \"{reason}\",\n  \"code\": {code}\n}}",
        quote_json(message)
    )
}

/// A request through `kubectl proxy`.
fn proxied(world: &World, from: HostId, pid: u32, path: &str, max_time: Option<f64>) -> Output {
    let bare = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = bare.split('/').collect();
    // /api/v1/namespaces/NS/services/NAME[:PORT]/proxy[/...]
    let ["", "api", "v1", "namespaces", namespace, "services", name, "proxy", ..] = parts[..]
    else {
        return Output::error(
            "console: kubectl proxy serves Service paths here: /api/v1/namespaces/NS/services/NAME/proxy/\n".into(),
            2,
        );
    };
    let service = name.split(':').next().unwrap_or(name);
    let mut client = Client::new(world, from, &Flags::default());
    let answer = client.call(ApiRequest::ListConsistent {
        prefix: "/registry/".into(),
    });
    // What the apiserver answered (a Status when it failed), or kubectl's own error: logged,
    // and sent as the body.
    let reply = |client: &Client, body: Result<String, String>| {
        // kubectl logs the error (on the terminal both share), then curl prints the body.
        let stdout = match body {
            Ok(body) => body,
            Err(e) => format!(
                "E{} {pid:>7} proxy_server.go:147] Error while proxying request: {e}\n{e}",
                klog_time(client.now())
            ),
        };
        Output {
            stdout: stdout + "\n",
            took_s: client.took_s(),
            ..Output::default()
        }
    };
    let unavailable = |m: String| Ok(status(&m, "ServiceUnavailable", 503));
    let items = match answer {
        None => {
            return reply(
                &client,
                Err("dial tcp 127.0.0.1:8080: connect: connection refused".into()),
            )
        }
        Some((Answer::Api(ApiResponse::List { items }), _)) => items,
        Some((Answer::Timeout, _)) => return no_answer(String::new(), max_time),
        Some((answer, server)) => {
            let body = match answer {
                Answer::Api(ApiResponse::Failed(r)) if r == NO_BACKEND => Err("EOF".into()),
                Answer::Refused => Err(format!("dial tcp {server}: connect: connection refused")),
                Answer::DialTimeout => Err(format!("dial tcp {server}: i/o timeout")),
                Answer::Etcd(_) => Ok(status(
                    &format!("the server was unable to return a response in the time allotted, but may still be processing the request (get endpoints {service})"),
                    "Timeout",
                    504,
                )),
                _ => Ok(status("an error on the server", "InternalError", 500)),
            };
            return reply(&client, body);
        }
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    let Some(workload) = service_workload(&objects, namespace, service) else {
        let m = format!("services \"{}\" not found", clip(service));
        return reply(&client, Ok(status(&m, "NotFound", 404)));
    };
    let pods: Vec<&Pod> = objects.iter().filter_map(|o| o.as_pod()).collect();
    let ready = endpoint_pods(&objects, &pods, workload);
    if ready.is_empty() {
        let m = format!("no endpoints available for service \"{}\"", clip(service));
        return reply(&client, unavailable(m));
    }
    // The apiserver that took the request connects to one ready endpoint, at random.
    let mut rng = Rng::new(client.now().0 ^ u64::from(from) << 40);
    let pod = ready[rng.below(ready.len() as u64) as usize];
    let dial = format!(
        "error trying to reach service: dial tcp {}:{}",
        pod_ip(world, pod),
        if workload == COREDNS { 53 } else { 80 }
    );
    let node = host_of(world, pod);
    let apiserver = client.served_by.unwrap_or(from);
    let body = match node {
        Some(h) if client.copy.reachable(apiserver, h) => {
            match client.copy.runs_pod(h, &pod.name) {
                true => Ok(format!("Hostname: {}", pod.name)),
                false => unavailable(format!("{dial}: connect: connection refused")),
            }
        }
        _ => {
            client.copy.run_until(client.now() + DIAL_TIMEOUT, u64::MAX);
            unavailable(format!("{dial}: i/o timeout"))
        }
    };
    reply(&client, body)
}
