#!/usr/bin/env python3
"""`clustersim export kind`, checked offline on every ready scenario (`cargo xtask test` runs this
with kubernetes-validate from .tools/python and a release clustersim):

- kind.yaml is a kind Cluster (kind.x-k8s.io/v1alpha4) with a node per control-plane and worker
  host, in the scenario's order, each labelled with its host's zone;
- workloads.yaml passes Kubernetes' strict schemas (1.33) and carries each workload's replicas,
  requests, spread, budget and Service;
- faults.sh is valid shell with one timed line per event;
- expected.md has the run's timeline and availability; README.md names every host not exported.
"""
import glob
import json
import os
import subprocess
import tempfile

import kubernetes_validate
import yaml

import checks
from checks import CLUSTERSIM, ROOT, check



# The moments expected.md holds (the report's event kinds a person can check on a real cluster).
CHECKED = {"etcd.leader_elected", "etcd.leader_lost", "etcd.quorum_lost", "etcd.quorum_regained",
           "lease.lost", "lease.acquired", "node.not_ready", "node.ready", "pod.evicted",
           "pod.pending", "eviction.refused", "vip.moved", "operation"}


def parse_at(at):
    """Seconds from a scenario event's `at` ("90s", "1m30s", "2h", "500ms")."""
    total, number = 0.0, ""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    i = 0
    while i < len(at):
        c = at[i]
        if c.isdigit() or c == ".":
            number += c
            i += 1
            continue
        unit = "ms" if at[i:i + 2] == "ms" else c
        total += float(number) * units[unit]
        number, i = "", i + len(unit)
    return total + (float(number) if number else 0.0)


scenarios = sorted(glob.glob(os.path.join(ROOT, "web", "scenarios", "*.json")))
with tempfile.TemporaryDirectory() as tmp:
    for path in scenarios:
        name = os.path.basename(path)
        s = json.load(open(path))
        out = os.path.join(tmp, name)
        run = subprocess.run([CLUSTERSIM, "export", "kind", path, "--out", out], capture_output=True, text=True)
        hosts = s["hosts"]
        is_cp = lambda h: "control-plane" in h["roles"] or "apiserver" in h["roles"]
        if not any("control-plane" in h["roles"] and not h.get("standby") for h in hosts):
            check(run.returncode == 2 and "has no control-plane host" in run.stderr, f"{name}: refused: {run.stderr}")
            continue
        check(run.returncode == 0, f"{name}: {run.stderr}")
        exported = [h for h in hosts if not h.get("standby") and (is_cp(h) or "worker" in h["roles"])]

        kind = yaml.safe_load(open(os.path.join(out, "kind.yaml")))
        check(kind["kind"] == "Cluster" and kind["apiVersion"] == "kind.x-k8s.io/v1alpha4", f"{name}: a kind Cluster")
        roles = [n["role"] for n in kind["nodes"]]
        check(roles == ["control-plane" if is_cp(h) else "worker" for h in exported], f"{name}: nodes {roles}")
        zones = [n["labels"]["topology.kubernetes.io/zone"] for n in kind["nodes"]]
        check(zones == [h.get("zone", "default") for h in exported], f"{name}: zones {zones}")

        docs = [d for d in yaml.safe_load_all(open(os.path.join(out, "workloads.yaml"))) if d]
        for d in docs:
            try:
                kubernetes_validate.validate(d, "1.33.0", strict=True)
            except kubernetes_validate.ValidationError as e:
                check(False, f"{name}: {d['kind']} {d['metadata']['name']}: {e.message} at {list(e.path)}")
            check(True, f"{name}: {d['kind']} valid")
        by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
        for w in s.get("workloads", []):
            obj = by.get((w["kind"], w["name"]))
            check(obj is not None, f"{name}: workload {w['name']}")
            if "replicas" in w:
                check(obj["spec"]["replicas"] == w["replicas"], f"{name}: {w['name']} replicas")
            if w.get("service"):
                check(("Service", w["name"]) in by, f"{name}: {w['name']} Service")
            if "pdb" in w:
                pdb = by[("PodDisruptionBudget", w["name"])]["spec"]
                want = {"min_available": "minAvailable", "max_unavailable": "maxUnavailable"}
                (k, v), = w["pdb"].items()
                check(pdb[want[k]] == v, f"{name}: {w['name']} budget")
            if "spread" in w:
                key = obj["spec"]["template"]["spec"]["topologySpreadConstraints"][0]["topologyKey"]
                check(key == {"zone": "topology.kubernetes.io/zone", "host": "kubernetes.io/hostname"}[w["spread"]], f"{name}: spread")

        faults = os.path.join(out, "faults.sh")
        check(subprocess.run(["sh", "-n", faults]).returncode == 0, f"{name}: faults.sh parses")
        timed = [l for l in open(faults) if l.startswith("at ")]
        check(len(timed) == len(s.get("events", [])), f"{name}: one line per event ({len(timed)})")

        expected = open(os.path.join(out, "expected.md")).read()
        check("| t | what |" in expected and "## Availability over the run" in expected, f"{name}: expected.md")
        # Its timeline is the run's, read from the runner's own report: every checkable moment
        # from the first event on, at its time from that event, and the same availability.
        report = json.loads(subprocess.run([CLUSTERSIM, "run", path, "--json"], capture_output=True, text=True, check=True).stdout)
        first = min((parse_at(e["at"]) for e in s.get("events", [])), default=0.0)
        want = [f"| {e['t'] - first:+.1f} | {e['text'].replace('|', '/')} |" for e in report["events"]
                if e["kind"] in CHECKED and e["t"] >= first]
        rows = [l for l in expected.splitlines() if l.startswith("| ") and not l.startswith("| t |")]
        check(rows == want, f"{name}: expected.md's timeline is the run's ({len(rows)} rows against {len(want)})")
        api = report["summary"].get("api")
        if api:
            check(f"- API writes: {api['write_availability']:.4f}" in expected, f"{name}: expected.md's API availability")
        for svc, v in report["summary"]["services"].items():
            check(f"- Service {svc}: {v['availability']:.4f} of requests answered" in expected, f"{name}: expected.md's {svc}")
        readme = open(os.path.join(out, "README.md")).read()
        for h in hosts:
            if h not in exported:
                check(f"- {h['name']}:" in readme, f"{name}: README names {h['name']}")

print(f"kind export: {checks.passed} checks passed over {len(scenarios)} ready scenarios")
