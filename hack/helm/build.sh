#!/usr/bin/env bash
# Builds helm from the Go module proxy into a cache folder keyed by its pinned version and
# prints that folder. HELM_BIN (an existing helm binary) skips the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${HELM_BIN:-}" ]; then dirname "$HELM_BIN"; exit 0; fi
version=$(awk '$1=="helm.sh/helm/v3" {print $2}' "$here/go.mod")
cache="${SVC_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/kube}/helm-$version"
if [ -x "$cache/helm" ]; then echo "$cache"; exit 0; fi
echo "hack/helm: building helm $version into $cache" >&2
start=$(date +%s)
mkdir -p "$cache.tmp.$$"
trap 'rm -rf "$cache.tmp.$$"' EXIT
(cd "$here" && go build -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version" -o "$cache.tmp.$$/helm" helm.sh/helm/v3/cmd/helm) >&2
rm -rf "$cache" && mv "$cache.tmp.$$" "$cache"
trap - EXIT
echo "hack/helm: built in $(( $(date +%s) - start ))s" >&2
echo "$cache"
