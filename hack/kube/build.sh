#!/usr/bin/env bash
# Builds etcd, kube-apiserver and kubectl from the Go module proxy into a cache folder
# keyed by the pinned Kubernetes version, and prints that folder on the last line.
# KUBEBUILDER_ASSETS (a folder already holding the three binaries) skips the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  for b in etcd kube-apiserver kubectl; do
    [ -x "$KUBEBUILDER_ASSETS/$b" ] || { echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable $b" >&2; exit 1; }
  done
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

version=$(awk '$1=="k8s.io/kubernetes" {print $2}' "$here/go.mod")
etcd_version=$(awk '$1=="go.etcd.io/etcd/server/v3" {print $2}' "$here/go.mod")
# Outside the work tree so a fresh clone on the same machine (CI) reuses the build;
# the key names both pinned versions, so changing either pin rebuilds.
key="$version-etcd-$etcd_version"
cache="${SVC_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/kube}/$key"

if [ -f "$cache/.complete" ]; then
  echo "$cache"
  exit 0
fi

minor=$(echo "$version" | cut -d. -f2)
vpkg=k8s.io/component-base/version
ldflags="-s -w -X $vpkg.gitVersion=$version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"

echo "hack/kube: building kube-apiserver and kubectl $version, etcd $etcd_version into $cache (cold: several minutes)" >&2
start=$(date +%s)
tmp="$cache.tmp.$$"
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$here"
go build -trimpath -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
go build -trimpath -ldflags "$ldflags" -o "$tmp/kubectl" k8s.io/kubernetes/cmd/kubectl >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3 >&2
touch "$tmp/.complete"
rm -rf "$cache" && mv "$tmp" "$cache"
trap - EXIT
echo "hack/kube: built in $(( $(date +%s) - start ))s" >&2
echo "$cache"
