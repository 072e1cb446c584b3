#!/bin/sh
# Runs an availability study as a Kubernetes Indexed Job and prints the merged report: the same,
# byte for byte, as `clustersim study SCENARIO --trials TRIALS --horizon HORIZON --seed SEED` on
# one machine.
#
#   deploy/run-study.sh SCENARIO SHARDS TRIALS HORIZON       run it on the cluster kubectl points at
#   deploy/run-study.sh --dry-run SCENARIO SHARDS TRIALS HORIZON   print the manifests only
#
# Each of the SHARDS pods runs shard JOB_COMPLETION_INDEX (from 0) and prints its shard's JSON on
# stdout; the script waits for the Job, reads each index's log and merges them here with
# `clustersim study merge` (so clustersim must be on this machine too). Nothing is shared between
# the pods: no volume, no privileges. Settings, from the environment:
#
#   IMAGE      the image with clustersim as its entrypoint (default clustersim:0.1.0, see the README)
#   SEED       the study's seed (default 1)
#   JOB_NAME   the Job's name, and its ConfigMap's with -scenario (default availability-study)
#   NAMESPACE  where to run it (default: kubectl's current namespace)
#   THREADS    trials run at once in a pod, and the cpu it requests (default 1)
#   MEMORY     memory each pod requests (default 256Mi; its limit is four times that)
#   JSON       1: print the merged report as JSON
#   CLUSTERSIM the clustersim to merge with (default clustersim)
#   POLL_S     seconds between looks at the Job (default 10)
set -eu

dry_run=0
if [ "${1:-}" = "--dry-run" ]; then
    dry_run=1
    shift
fi
if [ "$#" -ne 4 ]; then
    echo "usage: $0 [--dry-run] SCENARIO SHARDS TRIALS HORIZON   (e.g. cluster.json 8 400 8760h)" >&2
    exit 2
fi
scenario=$1 shards=$2 trials=$3 horizon=$4
image=${IMAGE:-clustersim:0.1.0}
seed=${SEED:-1}
name=${JOB_NAME:-availability-study}
threads=${THREADS:-1}
memory=${MEMORY:-256Mi}
clustersim=${CLUSTERSIM:-clustersim}
poll=${POLL_S:-10}

whole() { case $2 in '' | *[!0-9]*) echo "$0: $1 must be a whole number, not '$2'" >&2; exit 2 ;; esac; }
whole SHARDS "$shards"
whole TRIALS "$trials"
whole SEED "$seed"
whole THREADS "$threads"
if [ "$shards" -lt 1 ] || [ "$threads" -lt 1 ]; then
    echo "$0: SHARDS and THREADS must be at least 1" >&2
    exit 2
fi
if [ ! -r "$scenario" ]; then
    echo "$0: cannot read the scenario $scenario" >&2
    exit 2
fi
case $memory in *[!0-9A-Za-z]*) echo "$0: MEMORY must be a quantity such as 256Mi" >&2; exit 2 ;; esac
limit=$(echo "$memory" | sed 's/^\([0-9]*\)\(.*\)$/\1 \2/' | { read -r n unit; echo "$((n * 4))$unit"; })

# The scenario, then the Job. The pod's shard comes from the kubelet's expansion of
# $(JOB_COMPLETION_INDEX) in its arguments: the image needs no shell.
manifests() {
    cat <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: $name-scenario
  labels:
    app.kubernetes.io/name: clustersim-study
    app.kubernetes.io/instance: $name
data:
  scenario.json: |
EOF
    awk '{ print "    " $0 }' "$scenario"
    cat <<EOF
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
  labels:
    app.kubernetes.io/name: clustersim-study
    app.kubernetes.io/instance: $name
spec:
  completionMode: Indexed
  completions: $shards
  parallelism: $shards
  # A failed shard is retried alone, twice; a shard that fails three times fails the Job.
  backoffLimitPerIndex: 2
  maxFailedIndexes: 0
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        app.kubernetes.io/name: clustersim-study
        app.kubernetes.io/instance: $name
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: study
          image: $image
          args:
            - study
            - /scenario/scenario.json
            - --trials
            - "$trials"
            - --horizon
            - "$horizon"
            - --seed
            - "$seed"
            - --shard-index
            - \$(JOB_COMPLETION_INDEX)/$shards
            - --threads
            - "$threads"
            - --json
          resources:
            requests:
              cpu: "$threads"
              memory: $memory
            limits:
              memory: $limit
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop:
                - ALL
          volumeMounts:
            - name: scenario
              mountPath: /scenario
              readOnly: true
      volumes:
        - name: scenario
          configMap:
            name: $name-scenario
EOF
}

if [ "$dry_run" = 1 ]; then
    manifests
    exit 0
fi

ns=
if [ -n "${NAMESPACE:-}" ]; then
    ns="--namespace=$NAMESPACE"
fi
# A Job's pod template cannot change: a study of the same name starts afresh.
kubectl $ns delete job "$name" --ignore-not-found --wait=true >&2
manifests | kubectl $ns apply -f - >&2

echo "$0: waiting for job/$name ($shards shards of $trials trials)" >&2
while :; do
    state=$(kubectl $ns get job "$name" -o 'jsonpath={.status.conditions[?(@.status=="True")].type}')
    case " $state " in
        *" Complete "*) break ;;
        *" Failed "*)
            echo "$0: job/$name failed; see kubectl $ns describe job $name" >&2
            exit 1
            ;;
    esac
    sleep "$poll"
done

shard_dir=$(mktemp -d)
trap 'rm -rf "$shard_dir"' EXIT
i=0
while [ "$i" -lt "$shards" ]; do
    pod=$(kubectl $ns get pods \
        -l "batch.kubernetes.io/job-name=$name,batch.kubernetes.io/job-completion-index=$i" \
        --field-selector=status.phase=Succeeded -o 'jsonpath={.items[0].metadata.name}')
    if [ -z "$pod" ]; then
        echo "$0: no succeeded pod for shard index $i of job/$name" >&2
        exit 1
    fi
    kubectl $ns logs "$pod" >"$shard_dir/shard-$i.json"
    i=$((i + 1))
done

if [ "${JSON:-0}" = 1 ]; then
    "$clustersim" study merge "$shard_dir"/shard-*.json --json
else
    "$clustersim" study merge "$shard_dir"/shard-*.json
fi
