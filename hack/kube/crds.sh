#!/usr/bin/env bash
# Prints the folder of CRD manifests that a pinned Go module ships, downloading the module
# from the Go module proxy if needed. Usage: crds.sh snapshot
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  snapshot) module=github.com/kubernetes-csi/external-snapshotter/client/v8 sub=config/crd ;;
  *) echo "usage: $0 snapshot" >&2; exit 2 ;;
esac
cd "$here"
go mod download "$module"
echo "$(go list -m -f '{{.Dir}}' "$module")/$sub"
