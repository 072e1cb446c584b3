//! `etcd --force-new-cluster` on the vantage host: etcd's disaster-recovery step, as the
//! scenario's `etcd_force_new_cluster` event does it (the member restarts as the only voter of
//! the same cluster, keeping its data; the others are recorded as removed). On a kubeadm host
//! this is the flag added to the etcd static Pod's manifest. The server keeps running: the
//! console prints its first log lines (etcd's JSON logging) and returns.

use super::etcdctl::member_id;
use super::Output;
use sim::kernel::net::HostId;
use sim::kernel::time::Duration;
use sim::scenario::Action;
use sim::world::World;

pub fn run(world: &World, from: HostId, args: &[String]) -> Output {
    if !args.iter().any(|a| a == "--force-new-cluster") {
        return Output::error(
            "console: in this console etcd runs only as `etcd --force-new-cluster` (the disaster-recovery step)\n".into(),
            1,
        );
    }
    let name = world.scenario().hosts[from as usize].name.clone();
    let action = Action::EtcdForceNewCluster { host: name.clone() };
    let mut copy = world.clone();
    let (op, took) = copy.operate(action.clone(), Duration::from_secs(1));
    match op {
        Some(op) if op.ok => Output {
            stdout: format!(
                "{{\"level\":\"info\",\"msg\":\"forcing restart member\",\"local-member-id\":\"{:x}\"}}\n{{\"level\":\"info\",\"msg\":\"serving client traffic securely\",\"address\":\"{}:2379\"}}\n",
                member_id(&name),
                super::ip_of(from)
            ),
            took_s: took.as_secs_f64(),
            record: Some(action),
            ..Output::default()
        },
        Some(op) => Output::error(
            format!(
                "console: etcd --force-new-cluster: {}\n",
                op.reason.unwrap_or_default()
            ),
            1,
        ),
        None => Output::error("console: etcd did not start\n".into(), 1),
    }
}
