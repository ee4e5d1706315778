#!/usr/bin/env bash
# Prints the folder of CRD manifests that a pinned Go module ships, downloading the module
# from the Go module proxy if needed. Usage: crds.sh snapshot|cert-manager
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  snapshot) module=github.com/kubernetes-csi/external-snapshotter/client/v8 sub=config/crd dir=$here ;;
  cert-manager) module=github.com/cert-manager/cert-manager sub=deploy/crds dir=$here/../helm ;;
  *) echo "usage: $0 snapshot|cert-manager" >&2; exit 2 ;;
esac
cd "$dir"
go mod download "$module"
echo "$(go list -m -f '{{.Dir}}' "$module")/$sub"
