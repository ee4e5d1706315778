#!/usr/bin/env bash
# Builds the peer bench/peer.ts measures beside us — kubernetes-sigs/agent-sandbox's
# controller at the version go.mod pins — from the Go module proxy into a cache folder keyed
# by that version, copies the module's own CRDs (k8s/crds) beside it, and prints the folder:
#   <folder>/agent-sandbox-controller   <folder>/crds/*.yaml
# None of the peer's source is committed; go.sum pins what the proxy serves.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
module=sigs.k8s.io/agent-sandbox
version=$(awk -v m="$module" '$1==m {print $2}' "$here/go.mod")
[ -n "$version" ] || { echo "hack/peer: $module is not pinned in go.mod" >&2; exit 1; }
cache="${XDG_CACHE_HOME:-$HOME/.cache}/svc/peer/$version"
if [ -x "$cache/agent-sandbox-controller" ] && [ -d "$cache/crds" ]; then echo "$cache"; exit 0; fi
echo "hack/peer: building $module $version into $cache" >&2
start=$(date +%s)
mkdir -p "$cache.tmp.$$/crds"
trap 'rm -rf "$cache.tmp.$$"' EXIT
(cd "$here" && nice -n 19 go build -trimpath -ldflags "-s -w" -o "$cache.tmp.$$/agent-sandbox-controller" "$module/cmd/agent-sandbox-controller") >&2
src=$(cd "$here" && go list -m -f '{{.Dir}}' "$module")
cp "$src"/k8s/crds/*.yaml "$cache.tmp.$$/crds/"
chmod -R u+w "$cache.tmp.$$"
rm -rf "$cache" && mv "$cache.tmp.$$" "$cache"
trap - EXIT
echo "hack/peer: built in $(( $(date +%s) - start ))s" >&2
echo "$cache"
