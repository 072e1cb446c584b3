#!/usr/bin/env python3
"""The study Job, checked offline (`cargo xtask test` runs this with kubernetes-validate from
.tools/python and a release clustersim):

- the manifests deploy/run-study.sh applies, for several studies, and deploy/study-job.yaml (the
  script's manifests for its example, kept the same) pass Kubernetes' own schemas, strictly (no
  field the API would drop), for 1.33 (where backoffLimitPerIndex is GA) and the newest bundled;
- the script, against a kubectl that answers as a cluster would (tests/deploy/fake_kubectl.py runs
  each pod's container as the kubelet would), sends the commands it should and prints the merged
  report: byte for byte the study run on one machine, as text and as JSON;
- a failed Job, or a bad argument, ends the script with a message and a non-zero status.
"""
import json
import os
import subprocess
import sys
import tempfile

import kubernetes_validate
import yaml

import checks
from checks import CLUSTERSIM, ROOT, check

SCRIPT = os.path.join(ROOT, "deploy", "run-study.sh")
VERSIONS = ["1.33.0", kubernetes_validate.latest_version()]

SMALL = """{"version": 1, "name": "3 etcd members, MTBF 100h, MTTR 10h", "duration": "1h",
 "hosts": [{"name": "etcd-1", "roles": ["etcd"]}, {"name": "etcd-2", "roles": ["etcd"]},
           {"name": "etcd-3", "roles": ["etcd"]}],
 "faults": [{"hosts": "all", "mtbf": "100h", "mttr": "10h"}]}
"""



def script(args, env=None):
    full = dict(os.environ, CLUSTERSIM=CLUSTERSIM, POLL_S="0", **(env or {}))
    return subprocess.run(["sh", SCRIPT] + args, capture_output=True, text=True, env=full)


def validate(text, what):
    docs = [d for d in yaml.safe_load_all(text) if d]
    check([d["kind"] for d in docs] == ["ConfigMap", "Job"], f"{what}: a ConfigMap and a Job")
    for doc in docs:
        for version in VERSIONS:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                check(False, f"{what}: {doc['kind']} against {version}: {e.message} at {list(e.path)}")
            check(True, f"{what}: {doc['kind']} against {version}")
    return docs


with tempfile.TemporaryDirectory() as tmp:
    small = os.path.join(tmp, "small.json")
    with open(small, "w") as f:
        f.write(SMALL)

    # The manifests, for the example and for other studies and settings.
    example = os.path.join(ROOT, "deploy", "example-scenario.json")
    for args, env in [
        ([example, "8", "800", "8760h"], {}),
        ([small, "1", "5", "24h"], {}),
        ([small, "16", "1000000", "168h"], {"THREADS": "4", "MEMORY": "1Gi", "JOB_NAME": "etcd-3", "SEED": "7"}),
    ]:
        out = script(["--dry-run"] + args, env)
        check(out.returncode == 0, f"dry run {args}: {out.stderr}")
        job = validate(out.stdout, f"manifests for {args} {env}")[1]
        spec = job["spec"]
        shards = int(args[1])
        check(spec["completions"] == shards and spec["parallelism"] == shards, "one pod per shard, all at once")
        check(spec["completionMode"] == "Indexed" and spec["backoffLimitPerIndex"] == 2, "each shard retried alone")
        check(spec["ttlSecondsAfterFinished"] > 0, "the finished Job is cleaned up")
        pod = spec["template"]["spec"]
        (c,) = pod["containers"]
        check(pod["securityContext"]["runAsNonRoot"] and not c["securityContext"]["allowPrivilegeEscalation"], "no privileges")
        check(c["securityContext"]["capabilities"]["drop"] == ["ALL"] and c["securityContext"]["readOnlyRootFilesystem"], "no capabilities, nothing written")
        check(c["resources"]["requests"]["cpu"] == env.get("THREADS", "1"), "the cpu its threads use")
        check(f"$(JOB_COMPLETION_INDEX)/{shards}" in c["args"], "the shard from the completion index")
    with open(os.path.join(ROOT, "deploy", "study-job.yaml")) as f:
        shipped = f.read()
    body = "".join(line for line in shipped.splitlines(keepends=True) if not line.startswith("#"))
    check(body == script(["--dry-run", example, "8", "800", "8760h"]).stdout,
          "deploy/study-job.yaml is what the script applies for its example")
    validate(shipped, "deploy/study-job.yaml")

    # The whole run against the fake cluster, merged: the study on one machine, byte for byte.
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    kubectl = os.path.join(bin_dir, "kubectl")
    with open(kubectl, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {os.path.join(ROOT, 'tests', 'deploy', 'fake_kubectl.py')} \"$@\"\n")
    os.chmod(kubectl, 0o755)
    path = bin_dir + os.pathsep + os.environ["PATH"]
    pythonpath = os.environ.get("PYTHONPATH", "")
    for as_json in [False, True]:
        state = os.path.join(tmp, f"state-{as_json}")
        os.makedirs(state)
        env = {"PATH": path, "PYTHONPATH": pythonpath, "FAKE_KUBE_STATE": state, "SEED": "3", "NAMESPACE": "studies"}
        if as_json:
            env["JSON"] = "1"
        out = script([small, "3", "7", "720h"], env)
        check(out.returncode == 0, f"the script ran: {out.stderr}")
        alone = [CLUSTERSIM, "study", small, "--trials", "7", "--horizon", "720h", "--seed", "3"]
        if as_json:
            alone.append("--json")
        one = subprocess.run(alone, capture_output=True, text=True, check=True).stdout
        check(out.stdout == one, f"merged equals the study on one machine (json {as_json}):\n{out.stdout}\n---\n{one}")
        calls = open(os.path.join(state, "calls.log")).read().splitlines()
        verbs = [c.split()[1] + " " + c.split()[2] if c.split()[1] in ("delete", "apply", "get") else c.split()[1] for c in calls]
        check(verbs == ["delete job", "apply -f", "get job", "get job", "get pods", "logs", "get pods", "logs", "get pods", "logs"],
              f"the commands, in order: {verbs}")
        check(all(c.startswith("--namespace=studies ") for c in calls), "every command in the namespace asked for")
        if as_json:
            report = json.loads(out.stdout)
            check(report["trials"] == 7 and report["shard"] == "1/1", "the merged report is the whole study")

    # A failed Job and bad arguments end with a message.
    state = os.path.join(tmp, "state-failed")
    os.makedirs(state)
    out = script([small, "2", "4", "24h"], {"PATH": path, "PYTHONPATH": pythonpath, "FAKE_KUBE_STATE": state, "FAKE_JOB_FAILS": "1"})
    check(out.returncode == 1 and "job/availability-study failed" in out.stderr, f"a failed Job: {out.returncode} {out.stderr}")
    for args, words in [
        ([small, "two", "4", "24h"], "SHARDS must be a whole number"),
        ([small, "0", "4", "24h"], "SHARDS and THREADS must be at least 1"),
        ([os.path.join(tmp, "missing.json"), "2", "4", "24h"], "cannot read the scenario"),
        ([small, "2", "4"], "usage:"),
    ]:
        out = script(args)
        check(out.returncode == 2 and words in out.stderr, f"{args}: {out.returncode} {out.stderr}")

print(f"study Job: {checks.passed} checks passed (schemas {', '.join(VERSIONS)})")
