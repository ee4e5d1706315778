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
