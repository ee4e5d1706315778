#!/usr/bin/env bash
# `make dev CLUSTER=real`: the whole service on a real cluster of this machine (hack/cluster),
# installed by its own chart: the run .dev/cluster-state names when it is up, else a new one
# (NODES=2 by default), then the images (hack/cluster/images.sh) and the chart
# (hack/cluster/install.sh), which prints make dev's banner and writes STATE/svc.env. The
# cluster keeps running after it returns: `make cluster-down` removes it.
#   PORT=8080 make dev CLUSTER=real   the API's port on 127.0.0.1 (default: a free one)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "make dev CLUSTER=real: $*" >&2; }
t0=$(date +%s)

state=$(cat "$repo/.dev/cluster-state" 2>/dev/null || true)
if [ -n "$state" ] && [ -f "$state/env" ] && (
  # shellcheck disable=SC1091
  . "$state/env"
  [ -e "/run/netns/svcc-$RUN-cp" ]
); then
  say "using the cluster at $state (make cluster-down removes it)"
else
  say "no cluster up: starting one (NODES=${NODES:-2})"
  # The fork-bomb and disk-fill smoke checks prove the node's limits (make cluster runs them, the
  # e2e tier proves them through svc); a person waiting for make dev need not wait for them.
  state=$(NODES=${NODES:-2} CLUSTER_LIMITS_SMOKE=${CLUSTER_LIMITS_SMOKE:-0} bash "$here/up.sh" | tail -n 1)
fi
t1=$(date +%s)
bash "$here/images.sh" "$state"
t2=$(date +%s)
bash "$here/install.sh" "$state"
say "cluster $((t1 - t0))s, images $((t2 - t1))s, install $(($(date +%s) - t2))s"
