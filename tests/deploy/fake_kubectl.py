#!/usr/bin/env python3
"""A kubectl that answers deploy/run-study.sh as a cluster would, without a cluster.

It keeps what was applied in $FAKE_KUBE_STATE, logs each command line there (calls.log), and
answers: `apply -f -` stores the ConfigMap and the Job; `get job` says the Job is running at the
first look and complete after (failed with $FAKE_JOB_FAILS); `get pods` by index names that index's succeeded pod; `logs POD`
runs the pod's container as the kubelet would, the Job's arguments with $(JOB_COMPLETION_INDEX)
expanded and the ConfigMap's scenario where the pod mounts it, through $CLUSTERSIM.
"""
import json
import os
import subprocess
import sys

import yaml

state = os.environ["FAKE_KUBE_STATE"]
args = sys.argv[1:]
with open(os.path.join(state, "calls.log"), "a") as log:
    log.write(" ".join(args) + "\n")
# kubectl's global flag, wherever it stands.
args = [a for a in args if not a.startswith("--namespace=")]


def path(name):
    return os.path.join(state, name)


def fail(text):
    sys.stderr.write(f"fake kubectl: {text}\n")
    sys.exit(1)


if args[:2] == ["delete", "job"]:
    sys.exit(0)

if args[:2] == ["apply", "-f"] and args[2] == "-":
    for doc in yaml.safe_load_all(sys.stdin.read()):
        kind, name = doc["kind"], doc["metadata"]["name"]
        with open(path(f"{kind}.json"), "w") as f:
            json.dump(doc, f)
        print(f"{kind.lower()}/{name} created")
    sys.exit(0)

if args[:2] == ["get", "job"]:
    looks = path("looks")
    n = int(open(looks).read()) if os.path.exists(looks) else 0
    with open(looks, "w") as f:
        f.write(str(n + 1))
    # Running at the first look (no condition true yet), then complete (or failed, when told).
    done = "Failed" if os.environ.get("FAKE_JOB_FAILS") else "Complete"
    print("" if n == 0 else done, end="")
    sys.exit(0)

if args[:2] == ["get", "pods"]:
    selector = args[args.index("-l") + 1]
    labels = dict(part.split("=", 1) for part in selector.split(","))
    job = json.load(open(path("Job.json")))
    if labels.get("batch.kubernetes.io/job-name") != job["metadata"]["name"]:
        fail(f"no pods for {selector}")
    if "--field-selector=status.phase=Succeeded" not in args:
        fail("the script should read succeeded pods only")
    index = labels["batch.kubernetes.io/job-completion-index"]
    print(f"{job['metadata']['name']}-{index}-x7k2p", end="")
    sys.exit(0)

if args[0] == "logs":
    pod = args[1]
    index = pod.split("-")[-2]
    job = json.load(open(path("Job.json")))
    config = json.load(open(path("ConfigMap.json")))
    spec = job["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    (mount,) = container["volumeMounts"]
    (volume,) = spec["volumes"]
    if volume["configMap"]["name"] != config["metadata"]["name"] or volume["name"] != mount["name"]:
        fail("the pod does not mount the scenario's ConfigMap")
    scenario = path("scenario.json")
    with open(scenario, "w") as f:
        f.write(config["data"]["scenario.json"])
    argv = [
        a.replace("$(JOB_COMPLETION_INDEX)", index).replace(
            mount["mountPath"] + "/scenario.json", scenario
        )
        for a in container["args"]
    ]
    out = subprocess.run([os.environ["CLUSTERSIM"]] + argv, capture_output=True, text=True)
    if out.returncode != 0:
        fail(out.stderr)
    # A pod's log is its stdout and stderr together.
    sys.stdout.write(out.stdout + out.stderr)
    sys.exit(0)

fail("unexpected command: " + " ".join(sys.argv[1:]))
