//! `kubeadm join` on the vantage host: the host joins as the scenario's `join` event does it
//! (discovery through the API endpoint from this host; a control-plane host's etcd member added
//! as a learner and promoted once caught up), and the command waits for the outcome as kubeadm
//! does, printing kubeadm's phases and its closing message, or its error. The host's roles in
//! the scenario decide what it joins as; `--control-plane` and the token flags are accepted and
//! not checked. Left out: `kubeadm init|reset|upgrade|certs`.

use super::words::clip;
use super::Output;
use sim::kernel::net::HostId;
use sim::kernel::time::Duration;
use sim::scenario::{Action, Role};
use sim::world::World;

/// How long kubeadm waits for its join to finish (its default discovery and TLS-bootstrap
/// timeouts are 5 minutes).
const JOIN_TIMEOUT: Duration = Duration::from_secs(300);

const PREFLIGHT: &str = "[preflight] Running pre-flight checks\n";
const STACK: &str = "To see the stack trace of this error execute with --v=5 or higher\n";

pub fn run(world: &World, from: HostId, args: &[String]) -> Output {
    match args.first().map(String::as_str) {
        Some("join") => join(world, from),
        Some(other) if !other.starts_with('-') => Output::error(
            format!("console: kubeadm {}: only kubeadm join runs in this console\n", clip(other)),
            1,
        ),
        _ => Output {
            stdout: "kubeadm: easily bootstrap a secure Kubernetes cluster\n\nIn this console: kubeadm join (on a standby host)\n".into(),
            ..Output::default()
        },
    }
}

fn join(world: &World, from: HostId) -> Output {
    let host = &world.scenario().hosts[from as usize];
    if world.host_is_joined(from) {
        return Output::error(
            format!(
                "{PREFLIGHT}error execution phase preflight: [preflight] Some fatal errors occurred:\n\t[ERROR FileAvailable--etc-kubernetes-kubelet.conf]: /etc/kubernetes/kubelet.conf already exists\n\t[ERROR Port-10250]: Port 10250 is in use\n[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`\n{STACK}"
            ),
            1,
        );
    }
    let action = Action::Join {
        host: host.name.clone(),
    };
    if let Err(e) = super::accepted(world, &action) {
        return Output::error(format!("console: {e}\n"), 1);
    }
    let mut copy = world.clone();
    let (op, took) = copy.operate(action.clone(), JOIN_TIMEOUT);
    let took_s = took.as_secs_f64();
    let control_plane = host.has_role(Role::ControlPlane);
    let name = &host.name;
    match op {
        Some(op) if op.ok => {
            let stdout = if control_plane {
                format!("{PREFLIGHT}[preflight] Reading configuration from the cluster...\n[control-plane] Creating static Pod manifests\n[etcd] Announced new etcd member joining to the existing etcd cluster\n[etcd] Waiting for the new etcd member to join the cluster\n[mark-control-plane] Marking the node {name} as control-plane\n\nThis node has joined the cluster and a new control plane instance was created:\n\n* Certificate signing request was sent to apiserver and approval was received.\n* The Kubelet was informed of the new secure connection details.\n* Control plane label and taint were applied to the new node.\n* The Kubernetes control plane instances scaled up.\n* A new etcd member was added to the local/stacked etcd cluster.\n\nRun 'kubectl get nodes' to see this node join the cluster.\n")
            } else {
                format!("{PREFLIGHT}[preflight] Reading configuration from the cluster...\n[kubelet-start] Starting the kubelet\n[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap\n\nThis node has joined the cluster:\n* Certificate signing request was sent to apiserver and a response was received.\n* The Kubelet was informed of the new secure connection details.\n\nRun 'kubectl get nodes' on the control-plane to see this node join the cluster.\n")
            };
            Output {
                stdout,
                took_s,
                record: Some(action),
                ..Output::default()
            }
        }
        Some(op) => Output {
            stderr: format!(
                "{PREFLIGHT}error execution phase preflight: {}\n{STACK}",
                op.reason.unwrap_or_default()
            ),
            status: 1,
            took_s,
            ..Output::default()
        },
        None => Output {
            stderr: format!("{PREFLIGHT}error execution phase control-plane-join/etcd: error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available\n{STACK}"),
            status: 1,
            took_s,
            ..Output::default()
        },
    }
}
