//! The Eviction API (`POST /api/v1/namespaces/NS/pods/NAME/eviction`), as kube-apiserver
//! serves it: a pod is deleted only if its PodDisruptionBudget allows one more disruption.
//!
//! The handler reads the pod, then its budget, both from etcd. A pod that is not running
//! (Pending) or already terminating is deleted without consulting the budget; an unready pod is
//! too while the budget is met (`unhealthyPodEvictionPolicy: IfHealthyBudget`, the default).
//! Otherwise the budget's status decides: until the disruption controller has computed it once,
//! and while `disruptionsAllowed` is 0, the answer is 429 Too Many Requests. An allowed eviction
//! first writes the budget back with one disruption fewer and the pod listed in
//! `disruptedPods` (a compare-and-swap: two evictions racing for the last disruption cannot both
//! win; the loser reads the budget again), then marks the pod for graceful deletion.
//!
//! The budget's numbers are the controller's, not recomputed here: with the controller-manager
//! down, the budget's last status stands, and once its disruptions are spent every eviction is
//! refused until a controller counts the pods again.
//!
//! Left out: budgets selecting several workloads' pods (each budget here covers one workload),
//! percentages, `DeleteOptions` and dry runs.

use crate::k8s::api::{ApiResponse, RequestId};
use crate::k8s::objects::{pdb_key, Object, Pod, PodDisruptionBudget};
use crate::k8s::wire::{EtcdRequest, EtcdResponse, Key, KeyValue, KvOp, KvResult};
use crate::kernel::process::Addr;
use crate::kernel::time::SimTime;
use std::sync::Arc;

/// How often the handler reads the budget again after losing a race for it (client-go's
/// `retry.DefaultRetry`-like bound of the eviction REST handler).
const CONFLICT_RETRIES: u32 = 5;

/// kubectl prints this for every 429 of the Eviction API.
pub const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

#[derive(Clone, Debug)]
enum Step {
    ReadPod,
    ReadBudget { pod: KeyValue },
    WriteBudget { pod: KeyValue },
    DeletePod,
}

/// One eviction request in flight in the apiserver.
#[derive(Clone, Debug)]
pub struct Eviction {
    pub client: Addr,
    pub via: Option<Addr>,
    pub id: RequestId,
    key: Key,
    step: Step,
    conflicts: u32,
}

/// What the handler does after an etcd answer: ask etcd again, or answer the client.
pub enum Next {
    Etcd(EtcdRequest),
    Answer(ApiResponse),
}

fn read(key: String) -> Next {
    Next::Etcd(EtcdRequest::Read {
        prefix: key,
        linearizable: true,
    })
}

impl Eviction {
    /// A new eviction of the pod at `key`, and its first etcd request.
    pub fn start(client: Addr, via: Option<Addr>, id: RequestId, key: Key) -> (Self, Next) {
        let first = read(key.to_string());
        let e = Eviction {
            client,
            via,
            id,
            key,
            step: Step::ReadPod,
            conflicts: 0,
        };
        (e, first)
    }

    /// etcd answered this eviction's last request (the apiserver answers etcd's failures).
    pub fn on_etcd(&mut self, now: SimTime, resp: EtcdResponse) -> Next {
        let step = std::mem::replace(&mut self.step, Step::DeletePod);
        match (step, resp) {
            (Step::ReadPod, EtcdResponse::Read { kvs, .. }) => {
                let Some(kv) = found(kvs, &self.key) else {
                    return Next::Answer(ApiResponse::Object(None));
                };
                let Some(pod) = kv.value.as_pod() else {
                    return Next::Answer(ApiResponse::Object(None));
                };
                // A Pending or terminating pod disrupts nothing: no budget is consulted.
                if !pod.running || pod.deletion.is_some() {
                    return self.delete(now, &kv);
                }
                let budget = pdb_key(&pod.workload);
                self.step = Step::ReadBudget { pod: kv };
                read(budget)
            }
            (Step::ReadBudget { pod }, EtcdResponse::Read { kvs, .. }) => {
                let p = pod.value.as_pod().expect("read as a pod");
                let key = pdb_key(&p.workload);
                let Some(budget_kv) = found(kvs, &key) else {
                    return self.delete(now, &pod);
                };
                let Some(b) = budget_kv.value.as_pdb() else {
                    return self.delete(now, &pod);
                };
                match decide(p, b, now) {
                    Err(why) => Next::Answer(ApiResponse::TooManyRequests(why.into())),
                    Ok(None) => self.delete(now, &pod),
                    Ok(Some(spent)) => {
                        self.step = Step::WriteBudget { pod };
                        Next::Etcd(EtcdRequest::Write(KvOp::CompareAndSwap {
                            key: key.into(),
                            expected: budget_kv.mod_revision,
                            value: Arc::new(Object::PodDisruptionBudget(spent)),
                        }))
                    }
                }
            }
            (Step::WriteBudget { pod }, EtcdResponse::Written(KvResult::Ok { .. })) => {
                self.delete(now, &pod)
            }
            (Step::WriteBudget { pod }, EtcdResponse::Written(KvResult::Conflict { .. }))
                if self.conflicts < CONFLICT_RETRIES =>
            {
                self.conflicts += 1;
                let p = pod.value.as_pod().expect("read as a pod");
                let key = pdb_key(&p.workload);
                self.step = Step::ReadBudget { pod };
                read(key)
            }
            (Step::DeletePod, EtcdResponse::Written(KvResult::Ok { revision })) => {
                Next::Answer(ApiResponse::Written {
                    resource_version: revision,
                })
            }
            (_, EtcdResponse::Written(KvResult::Conflict { .. })) => {
                Next::Answer(ApiResponse::Conflict)
            }
            _ => Next::Answer(ApiResponse::Failed("unexpected etcd response")),
        }
    }

    /// Graceful deletion: the pod gets its deletion timestamp; its kubelet stops it and confirms.
    fn delete(&mut self, now: SimTime, kv: &KeyValue) -> Next {
        let Some(pod) = kv.value.as_pod() else {
            return Next::Answer(ApiResponse::Object(None));
        };
        if pod.deletion.is_some() {
            return Next::Answer(ApiResponse::Written {
                resource_version: kv.mod_revision,
            });
        }
        let mut pod = pod.clone();
        pod.deletion = Some(now);
        self.step = Step::DeletePod;
        Next::Etcd(EtcdRequest::Write(KvOp::CompareAndSwap {
            key: self.key.clone(),
            expected: kv.mod_revision,
            value: Arc::new(Object::Pod(pod)),
        }))
    }
}

fn found(kvs: Vec<(Key, KeyValue)>, key: &str) -> Option<KeyValue> {
    kvs.into_iter().find(|(k, _)| **k == *key).map(|(_, v)| v)
}

/// The budget's verdict on evicting `pod`: refused (kubectl's message with the budget's cause),
/// allowed without spending a disruption (`None`), or allowed with the budget as it becomes.
fn decide(
    pod: &Pod,
    b: &PodDisruptionBudget,
    now: SimTime,
) -> Result<Option<PodDisruptionBudget>, String> {
    if !b.observed {
        return Err(format!(
            "{REFUSED} The disruption budget {} is still being processed by the server.",
            b.name
        ));
    }
    if !pod.ready && b.current_healthy >= b.desired_healthy {
        return Ok(None);
    }
    if b.disruptions_allowed == 0 {
        return Err(format!(
            "{REFUSED} The disruption budget {} needs {} healthy pods and has {} currently",
            b.name, b.desired_healthy, b.current_healthy
        ));
    }
    let mut spent = b.clone();
    spent.disruptions_allowed -= 1;
    spent.disrupted_pods.push((pod.name.clone(), now));
    Ok(Some(spent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::objects::{Budget, Kind};

    fn pod(ready: bool) -> Pod {
        Pod {
            name: "web-1".into(),
            workload: "web".into(),
            kind: Some(Kind::Deployment),
            node: Some("w1".into()),
            running: true,
            ready,
            deletion: None,
            created: SimTime(0),
        }
    }

    fn budget(current: u32, desired: u32) -> PodDisruptionBudget {
        PodDisruptionBudget {
            name: "web".into(),
            budget: Budget::MinAvailable(desired),
            observed: true,
            expected_pods: 3,
            current_healthy: current,
            desired_healthy: desired,
            disruptions_allowed: current.saturating_sub(desired),
            disrupted_pods: vec![],
            created: SimTime(0),
        }
    }

    #[test]
    fn an_eviction_spends_one_disruption_and_lists_the_pod() {
        let spent = decide(&pod(true), &budget(3, 2), SimTime(5))
            .unwrap()
            .unwrap();
        assert_eq!(spent.disruptions_allowed, 0);
        assert_eq!(
            spent.disrupted_pods,
            vec![("web-1".to_string(), SimTime(5))]
        );
    }

    #[test]
    fn a_spent_budget_refuses_with_kubectls_words() {
        let why = decide(&pod(true), &budget(2, 2), SimTime(5)).unwrap_err();
        assert!(why.starts_with(REFUSED), "{why}");
        assert!(
            why.ends_with("needs 2 healthy pods and has 2 currently"),
            "{why}"
        );
        let mut fresh = budget(3, 2);
        fresh.observed = false;
        let why = decide(&pod(true), &fresh, SimTime(5)).unwrap_err();
        assert!(why.contains("still being processed"), "{why}");
    }

    #[test]
    fn an_unready_pod_goes_free_only_while_the_budget_is_met() {
        assert_eq!(decide(&pod(false), &budget(2, 2), SimTime(5)), Ok(None));
        assert!(decide(&pod(false), &budget(1, 2), SimTime(5)).is_err());
    }
}
