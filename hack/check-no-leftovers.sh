#!/usr/bin/env bash
# Fails when a control-plane process started by the test harness outlived the test run.
# The harness keeps all its state under a temporary folder named svc-test-cp-*, which
# every etcd and kube-apiserver it starts names in its flags.
set -euo pipefail
left=$(pgrep -a -f 'svc-test-cp-' | grep -E '(etcd|kube-apiserver) ' || true)
if [ -n "$left" ]; then
  echo "control-plane processes left running after the tests:" >&2
  echo "$left" >&2
  exit 1
fi
echo "no etcd or kube-apiserver process left behind by the tests"
# devnode's Pods are bubblewrap trees with overlay roots under svc-test-devnode-* folders.
pods=$(pgrep -a -f 'svc-test-devnode-' | grep -v check-no-leftovers || true)
if [ -n "$pods" ]; then
  echo "devnode Pod processes left running after the tests:" >&2
  echo "$pods" >&2
  exit 1
fi
if grep -q 'svc-test-devnode-' /proc/mounts; then
  echo "devnode mounts left after the tests:" >&2
  grep 'svc-test-devnode-' /proc/mounts >&2
  exit 1
fi
echo "no devnode process or mount left behind by the tests"
