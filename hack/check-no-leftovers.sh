#!/usr/bin/env bash
# Fails when a control-plane process started by the tests outlived them.
set -euo pipefail
left=$(pgrep -a -f 'svc/kube/.*/(etcd|kube-apiserver)( |$)' || true)
if [ -n "$left" ]; then
  echo "control-plane processes left running after the tests:" >&2
  echo "$left" >&2
  exit 1
fi
echo "no etcd or kube-apiserver process left behind"
