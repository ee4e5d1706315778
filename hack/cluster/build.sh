#!/usr/bin/env bash
# Builds the real cluster's Go binaries (issue 37) from the Go module proxy into a cache folder
# keyed by the pinned versions, and prints that folder on its last line; progress goes to stderr.
#   node (./go.mod):              kubelet kube-controller-manager kube-scheduler kube-proxy kube-router
#   addons (./addons/go.mod):     coredns snapshot-controller csi-snapshotter
#   provisioner (./provisioner):  csi-provisioner
#   csi (./csi):                  svc-csi, our CSI driver (a folder of its own, keyed by its own digest)
# The three modules pin Kubernetes libraries of different minors (v0.35 with k8s.io/kubernetes,
# v0.37 for CoreDNS and the snapshotter, v0.36 with external-provisioner's own replaces), so
# they cannot share one build list; each module is one `go build -o dir/ cmd...` invocation, so
# packages shared by its binaries compile once, and the node module's Kubernetes packages are
# the ones hack/kube's kube-apiserver already put in Go's build cache.
# Etcd, kube-apiserver and kubectl come from hack/kube/build.sh, not from here.
#
#   hack/cluster/build.sh [MODULE...]   default all four; `build.sh node` only what a node runs
#   hack/cluster/build.sh csi           builds only svc-csi and prints ITS folder (csi-DIGEST)
#
# Each module's binaries land in the folder with a marker (.done-MODULE) once its build
# succeeded, so an interrupted build keeps what it finished; `.complete` marks all three. A lock
# makes a second build of the same key wait for the first instead of compiling the same again.
# Run it at low priority beside other work: `nice -n 19 env GOFLAGS=-p=1 bash hack/cluster/build.sh`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

pin() { sed 's/^require //' "$here/$1" | awk -v m="$2" '$1==m && !n++ {print $2}'; }
k8s=$(pin go.mod k8s.io/kubernetes)
router=$(pin go.mod github.com/cloudnativelabs/kube-router/v2)
coredns=$(pin addons/go.mod github.com/coredns/coredns)
snapshotter=$(pin addons/go.mod github.com/kubernetes-csi/external-snapshotter/v8)
provisioner=$(pin provisioner/go.mod github.com/kubernetes-csi/external-provisioner/v6)
for v in k8s router coredns snapshotter provisioner; do
  [ -n "${!v}" ] || { echo "hack/cluster: no pinned version for $v in hack/cluster's go.mod files" >&2; exit 1; }
done
# The key names every pinned tool and a digest of what else decides the binaries (the build
# lists and CoreDNS's plugin set), so changing any of them rebuilds. Outside the work tree, so
# a fresh clone on the same machine (CI) reuses it.
digest=$(cd "$here" && cat go.mod go.sum addons/go.mod addons/go.sum addons/coredns/main.go provisioner/go.mod provisioner/go.sum | sha256sum | cut -c1-12)
# svc-csi is our own code and changes more often than the pins: it has a folder and a key of its
# own (a digest of its sources), so changing it rebuilds it alone (seconds) and never the rest.
root="${SVC_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc/cluster}"
csi_digest=$(cd "$here/csi" && cat go.mod go.sum $(ls ./*.go | grep -v _test.go) | sha256sum | cut -c1-12)
csi_cache="$root/csi-$csi_digest"
key="k8s-$k8s-kube-router-$router-coredns-$coredns-snapshotter-$snapshotter-provisioner-$provisioner-$digest"
cache="$root/$key"

all=(node addons provisioner)
wanted=()
want_csi=
args=("$@")
[ $# -gt 0 ] || args=("${all[@]}" csi)
for m in "${args[@]}"; do
  case " ${all[*]} csi " in *" $m "*) ;; *) echo "hack/cluster: no module '$m' (modules: ${all[*]} csi)" >&2; exit 2 ;; esac
  if [ "$m" = csi ]; then want_csi=1; else wanted+=("$m"); fi
done

# svc-csi: one small `go build` into its own folder, under its own lock.
if [ -n "$want_csi" ] && [ ! -f "$csi_cache/.done" ]; then
  command -v go >/dev/null || { echo "hack/cluster: go is not on PATH" >&2; exit 1; }
  mkdir -p "$csi_cache"
  (
    flock 8
    [ -f "$csi_cache/.done" ] && exit 0
    echo "hack/cluster: building csi (svc-csi) into $csi_cache" >&2
    t0=$(date +%s)
    rm -rf "$csi_cache/.tmp" && mkdir "$csi_cache/.tmp"
    if ! (cd "$here/csi" && go build -trimpath -ldflags "-s -w" -o "$csi_cache/.tmp/svc-csi" .) >"$csi_cache/build-csi.log" 2>&1; then
      echo "hack/cluster: building csi failed:" >&2
      tail -n 40 "$csi_cache/build-csi.log" >&2
      exit 1
    fi
    mv -f "$csi_cache/.tmp/svc-csi" "$csi_cache/svc-csi" && rmdir "$csi_cache/.tmp"
    echo "$(($(date +%s) - t0))s" >"$csi_cache/.done"
    echo "hack/cluster: built csi in $(($(date +%s) - t0))s" >&2
  ) 8>"$csi_cache/.lock"
fi
if [ ${#wanted[@]} = 0 ]; then
  echo "$csi_cache"
  exit 0
fi
done_all() {
  local m
  for m in "${wanted[@]}"; do [ -f "$cache/.done-$m" ] || return 1; done
}
if [ -f "$cache/.complete" ] || done_all; then
  echo "$cache"
  exit 0
fi

command -v go >/dev/null || { echo "hack/cluster: go is not on PATH (the tools are built from the Go module proxy)" >&2; exit 1; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
  echo "hack/cluster: another build of $key is running; waiting for it" >&2
  flock 9
fi

minor=$(echo "$k8s" | cut -d. -f2)
vpkg=k8s.io/component-base/version
k8s_ldflags="-s -w -X $vpkg.gitVersion=$k8s -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean"
k8s_ldflags="$k8s_ldflags -X k8s.io/client-go/pkg/version.gitVersion=$k8s -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
k8s_ldflags="$k8s_ldflags -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$router"

ticker=
tmp=
cleanup() {
  [ -z "$ticker" ] || kill "$ticker" 2>/dev/null || true
  [ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# build NAME DIR LDFLAGS PKG...: one go build for a module into a folder of its own, moved into
# the cache when it succeeded; -v's package lines go to a log whose count is reported every
# minute, and its tail is shown when the build fails.
build() {
  local name=$1 dir=$2 ldflags=$3
  shift 3
  [ -f "$cache/.done-$name" ] && return 0
  case " ${wanted[*]} " in *" $name "*) ;; *) return 0 ;; esac
  local log="$cache/build-$name.log" t0 f
  tmp="$cache/.tmp-$name"
  rm -rf "$tmp" && mkdir -p "$tmp"
  t0=$(date +%s)
  echo "hack/cluster: building $name: ${*##*/}" >&2
  : >"$log"
  (
    while sleep 60; do
      echo "hack/cluster:   $name: $(wc -l <"$log") packages compiled, $(($(date +%s) - t0))s" >&2
    done
  ) &
  ticker=$!
  if ! (cd "$here/$dir" && go build -v -trimpath -ldflags "$ldflags" -o "$tmp/" "$@") >"$log" 2>&1; then
    kill "$ticker" 2>/dev/null || true
    ticker=
    echo "hack/cluster: building $name failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  kill "$ticker" 2>/dev/null || true
  ticker=
  for f in "$tmp"/*; do mv -f "$f" "$cache/"; done
  rm -rf "$tmp"
  tmp=
  echo "$(($(date +%s) - t0))s" >"$cache/.done-$name"
  echo "hack/cluster: built $name in $(($(date +%s) - t0))s" >&2
}

echo "hack/cluster: building ${wanted[*]} into $cache (cold: tens of minutes each)" >&2
start=$(date +%s)
build node . "$k8s_ldflags" \
  k8s.io/kubernetes/cmd/kubelet \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kube-proxy \
  github.com/cloudnativelabs/kube-router/v2/cmd/kube-router
build addons addons "-s -w -X main.version=$snapshotter" \
  ./coredns \
  github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller \
  github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter
build provisioner provisioner "-s -w -X main.version=$provisioner" \
  github.com/kubernetes-csi/external-provisioner/v6/cmd/csi-provisioner
if [ -f "$cache/.done-node" ] && [ -f "$cache/.done-addons" ] && [ -f "$cache/.done-provisioner" ]; then
  touch "$cache/.complete"
fi
echo "hack/cluster: done in $(($(date +%s) - start))s" >&2
echo "$cache"
