#!/usr/bin/env bash
# Fails when a control-plane process or a devnode Pod started by the test harness outlived the
# test run. The harness keeps all its state under temporary folders named svc-test-cp-* and
# svc-test-devnode-*, which every etcd, kube-apiserver and Pod names in its flags or mounts.
# With a folder argument (the run's TMPDIR), only what lies under it counts, so a second test
# run on the same machine is not taken for this one's leftovers.
set -euo pipefail
under="${1:+${1%/}/}"
left=$(pgrep -a -f "${under}svc-test-cp-" | grep -E '(etcd|kube-apiserver) ' || true)
if [ -n "$left" ]; then
  echo "control-plane processes left running after the tests:" >&2
  echo "$left" >&2
  exit 1
fi
echo "no etcd or kube-apiserver process left behind by the tests"
# devnode's Pods are bubblewrap trees with overlay roots under svc-test-devnode-* folders.
pods=$(pgrep -a -f "${under}svc-test-devnode-" | grep -v check-no-leftovers || true)
if [ -n "$pods" ]; then
  echo "devnode Pod processes left running after the tests:" >&2
  echo "$pods" >&2
  exit 1
fi
if grep -q "${under}svc-test-devnode-" /proc/mounts; then
  echo "devnode mounts left after the tests:" >&2
  grep "${under}svc-test-devnode-" /proc/mounts >&2
  exit 1
fi
echo "no devnode process or mount left behind by the tests"
