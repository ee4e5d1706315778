#!/usr/bin/env bash
# svc on a hack/cluster run, installed by its own chart as a platform team would (issue 37):
# `helm upgrade --install` of config/helm/svc with the locally built image
# (localhost/svc/svc:dev, imagePullPolicy Never: hack/cluster/images.sh imports it), the
# webhook's certificate made by the chart (webhook.certificates=selfSigned: no cert-manager
# here), the sample templates (their images imported likewise, their workspaces on the
# cluster's default StorageClass, clones through its default VolumeSnapshotClass) and
# leader election on (two operators). Then API keys for admin, alice and bob, a forwarder
# from 127.0.0.1 to the API Service, and `make dev`'s banner; STATE/svc.env holds it all as
# shell variables. Run it again to upgrade in place (keys, port and certificate are kept).
#
#   hack/cluster/install.sh [STATE]   default: the run .dev/cluster-state names
#   PORT=8080                         the API's port on 127.0.0.1 (default: a free one)
#   SVC_SANDBOX_NAMESPACE=default     the namespace sandboxes run in
#   SVC_SANDBOXD_DELIVERY=csi         operator.sandboxdDelivery (default: the chart's)
#
# Forwarders (hack/cluster/forward.sh), both on 127.0.0.1 and stopped by down.sh:
#   apiserver  -> kube-apiserver in the control plane's namespace; STATE/host.kubeconfig
#   api        -> the svc-api Service's ClusterIP, dialled from the first node's namespace
#                 (where kube-proxy's rules are: the control plane's namespace has none)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "hack/cluster: install: $*" >&2; }
die() {
  say "$*"
  exit 1
}
t0=$(date +%s)
t_phase=$t0
phase() { # what just finished, with its time
  local now
  now=$(date +%s)
  say "$* ($((now - t_phase))s)"
  t_phase=$now
}

state=${1:-$(cat "$repo/.dev/cluster-state" 2>/dev/null || true)}
[ -n "$state" ] || die "no cluster: give its state folder, or bring one up first (make cluster)"
state=${state%/}
[ -f "$state/env" ] || die "$state is not a hack/cluster run (no env file)"
# shellcheck disable=SC1091
. "$state/env"
release=svc
namespace=svc-system
sandboxes=${SVC_SANDBOX_NAMESPACE:-default}
image=localhost/svc/svc:dev
node=$repo/node_modules/.bin/node
[ -x "$node" ] || die "node_modules/.bin/node is missing: run make node_modules/.stamp"

helm=$(bash "$repo/hack/helm/build.sh")/helm
kube=$(bash "$repo/hack/kube/build.sh")
first_node=${NODES%% *}

# --- the apiserver from 127.0.0.1 ----------------------------------------------------------
apiserver_port=$(bash "$here/forward.sh" "$state" apiserver "svcc-$RUN-cp" "$CP_IP:6443")
# The admin kubeconfig with the forwarder's address: the apiserver's certificate names 127.0.0.1.
sed "s#https://$CP_IP:6443#https://127.0.0.1:$apiserver_port#" "$state/admin.kubeconfig" >"$state/host.kubeconfig"
chmod 600 "$state/host.kubeconfig"
k() { "$kube/kubectl" --kubeconfig "$state/host.kubeconfig" --cache-dir "$state/kube-cache" "$@"; }
k get --raw /readyz >/dev/null || die "kube-apiserver does not answer through 127.0.0.1:$apiserver_port ($state/logs/forward-apiserver.log)"

# --- what the chart's Pods need from the cluster ---------------------------------------------
for nn in $NODES; do
  for img in "$image" docker.io/library/debian:bookworm docker.io/library/debian:bookworm-slim; do
    ctr --address "$state/$nn/containerd.sock" -n k8s.io images ls -q "name==$img" | grep -q . ||
      die "node $nn has no image $img: run hack/cluster/images.sh $state (make images)"
  done
done
default_class() { # KIND: the name of the class annotated as the default
  k get "$1" -o go-template='{{range .items}}{{if eq (index .metadata.annotations "'"$2"'") "true"}}{{.metadata.name}} {{end}}{{end}}' 2>/dev/null || true
}
sc=$(default_class storageclass storageclass.kubernetes.io/is-default-class)
vsc=$(default_class volumesnapshotclass snapshot.storage.kubernetes.io/is-default-class)
[ -n "$sc" ] || die "the cluster has no default StorageClass (hack/cluster's CSI driver makes svc-local): workspaces could not be provisioned"
[ -n "$vsc" ] || say "warning: no default VolumeSnapshotClass: clones will fail (hack/cluster's CSI driver makes svc-local)"
# The apiserver dials the webhook at its Service's ClusterIP: up.sh routes the Service range
# from the control plane's namespace through the first node. A run made by an older up.sh
# has no such route: add it the same way (it goes with the namespace, at down.sh).
net=${NET%.0.0/16}
if ! ip -n "svcc-$RUN-cp" route show "$net.128.0/20" | grep -q .; then
  ip -n "svcc-$RUN-cp" route add "$net.128.0/20" via "$net.0.$((10 + ${first_node#n}))"
  say "routed the Service range from the control plane through $first_node (a run from an older up.sh)"
fi
phase "cluster ready for the chart: images on $NODES, StorageClass ${sc% }, VolumeSnapshotClass ${vsc:-none}"

# --- the chart -------------------------------------------------------------------------------
# sandboxdDelivery csi: the node plugin binds into the kubelet's folders, so it must be told
# the kubelet's --root-dir (a run's nodes keep theirs under STATE, not /var/lib/kubelet), and
# it keeps its sandboxd copies in the run's folder, so down.sh removes them with the run.
kubelet_dir=
for nn in $NODES; do
  dir=$(tr '\0' '\n' <"/proc/$(cat "$state/pids/kubelet-$nn")/cmdline" | sed -n 's/^--root-dir=//p')
  dir=${dir:-/var/lib/kubelet}
  [ -z "$kubelet_dir" ] || [ "$kubelet_dir" = "$dir" ] || {
    [ "${SVC_SANDBOXD_DELIVERY:-}" != csi ] || die "sandboxdDelivery csi needs one kubelet root on every node; $nn's is $dir, not $kubelet_dir"
  }
  kubelet_dir=${kubelet_dir:-$dir}
done
delivery=
[ -z "${SVC_SANDBOXD_DELIVERY:-}" ] || delivery="operator: { sandboxdDelivery: $SVC_SANDBOXD_DELIVERY }"
cat >"$state/values.yaml" <<EOF
# hack/cluster/install.sh's values for config/helm/svc
image: { repository: ${image%:*}, tag: ${image##*:}, pullPolicy: Never }
sandboxNamespaces: [$sandboxes]
webhook:
  certificates: selfSigned
auth:
  # As make dev: the admin key is an admin without an OIDC issuer.
  devAuth: true
networking:
  podCIDR: $net.64.0/18
  serviceCIDR: $net.128.0/20
sandboxdCsi:
  kubeletDir: $kubelet_dir
  hostDir: $state/sandboxd-csi
$delivery
EOF
# The chart takes the sandbox namespace over (its label svc.io/sandboxes=enabled), and Helm
# takes over only what carries its ownership metadata (docs/install.md, "Enabling a namespace").
if k get namespace "$sandboxes" >/dev/null 2>&1; then
  k label namespace "$sandboxes" app.kubernetes.io/managed-by=Helm --overwrite >/dev/null
  k annotate namespace "$sandboxes" meta.helm.sh/release-name=$release \
    meta.helm.sh/release-namespace=$namespace --overwrite >/dev/null
fi
say "helm upgrade --install $release config/helm/svc (namespace $namespace, image $image, sandboxes in $sandboxes)"
"$helm" upgrade --install "$release" "$repo/config/helm/svc" --kubeconfig "$state/host.kubeconfig" \
  --namespace "$namespace" --create-namespace --values "$state/values.yaml" >"$state/logs/helm.log" 2>&1 ||
  die "helm failed: $(tail -n 5 "$state/logs/helm.log")"
phase "chart installed (revision $(sed -n 's/^REVISION: //p' "$state/logs/helm.log"))"
# A rebuilt image keeps its name (localhost/svc/svc:dev), so the Deployments do not change:
# restart them when the image's digest is not the one the last install ran.
digest=$(ctr --address "$state/$first_node/containerd.sock" -n k8s.io images ls "name==$image" | awk 'NR > 1 {print $3}')
if [ -f "$state/installed-image" ] && [ "$(cat "$state/installed-image")" != "$digest" ]; then
  k -n "$namespace" rollout restart deployment -l "app.kubernetes.io/instance=$release" >/dev/null
  say "image $image is new ($digest): Pods restarted"
fi
echo "$digest" >"$state/installed-image"

# --- Pods Ready ------------------------------------------------------------------------------
if k -n "$namespace" get daemonset "$release-sandboxd-csi" >/dev/null 2>&1; then
  k -n "$namespace" rollout status "daemonset/$release-sandboxd-csi" --timeout=300s >/dev/null ||
    die "daemonset $release-sandboxd-csi not Ready in 300s (k -n $namespace logs ds/$release-sandboxd-csi)"
  phase "$release-sandboxd-csi Ready on $NODES"
fi
for d in webhook operator api; do
  if ! k -n "$namespace" rollout status "deployment/$release-$d" --timeout=600s >/dev/null 2>&1; then
    k -n "$namespace" get pods -o wide >&2 || true
    k -n "$namespace" describe pods -l "app.kubernetes.io/component=$d" | tail -n 30 >&2 || true
    die "deployment $release-$d not Ready in 600s (k -n $namespace logs deploy/$release-$d)"
  fi
  phase "$release-$d Ready: $(k -n "$namespace" get pods -l "app.kubernetes.io/component=$d" \
    -o go-template='{{range .items}}{{.metadata.name}}@{{.spec.nodeName}} {{end}}')"
done
# Leader election: one operator holds the Lease, naming a Pod that runs.
for t in $(seq 1 120); do
  leader=$(k -n "$namespace" get lease "$release-operator" -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null || true)
  [ -n "$leader" ] && k -n "$namespace" get pod "$leader" >/dev/null 2>&1 && break
  [ "$t" -lt 120 ] || die "no operator took the Lease $release-operator in 60s (k -n $namespace logs deploy/$release-operator)"
  sleep 0.5
done
phase "operator leader: $leader"

# --- keys, the API from 127.0.0.1, the banner ------------------------------------------------
envfile=$state/svc.env
keys=$("$node" "$repo/hack/cluster/keys.ts" --kubeconfig "$state/host.kubeconfig" --namespace "$namespace" --env "$envfile")
key() { echo "$keys" | sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
admin=$(key admin) alice=$(key alice) bob=$(key bob)
vip=$(k -n "$namespace" get service "$release-api" -o 'jsonpath={.spec.clusterIP}')
svc_port=$(k -n "$namespace" get service "$release-api" -o 'jsonpath={.spec.ports[0].port}')
port=$(bash "$here/forward.sh" "$state" api "svcc-$RUN-$first_node" "$vip:$svc_port" "${PORT:-}")
url=http://127.0.0.1:$port
for t in $(seq 1 120); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H "x-api-key: $admin" "$url/api/v1/sandboxes" || true)
  [ "$code" = 200 ] && break
  [ "$t" -lt 120 ] || die "the API at $url does not answer 200 (last: $code; $state/logs/forward-api.log)"
  sleep 0.5
done
phase "API answers at $url (Service $release-api $vip:$svc_port, through $first_node)"

cat >"$envfile" <<EOF
export SVC_BASE_URL=$url
export SVC_ADMIN_KEY=$admin
export SVC_ALICE_KEY=$alice
export SVC_BOB_KEY=$bob
export SVC_NAMESPACE=$sandboxes
export SVC_CLUSTER_STATE=$state
export KUBECONFIG=$state/host.kubeconfig
export PATH="$kube:\$PATH"
EOF
chmod 600 "$envfile"
say "installed in $(($(date +%s) - t0))s"
version=$(k version -o json 2>/dev/null | sed -n 's/.*"gitVersion": "\([^"]*\)".*/\1/p' | tail -n 1)
cat <<EOF

svc is running: $url/api/v1  (chart $release in $namespace on cluster run $RUN: $NODES, kube-apiserver $version)
  console:   $url/  (sign in with a key below)
  admin key: $admin
  alice key: $alice
  bob key:   $bob
  kubectl:   $kube/kubectl  (KUBECONFIG=$state/host.kubeconfig, through 127.0.0.1:$apiserver_port)
  sbx:       dist/sbx login $url --api-key $alice --name cluster   # after make cli-binary
  source $envfile   # the above as shell variables, KUBECONFIG, kubectl on PATH
  logs: kubectl -n $namespace logs deploy/$release-api (or -operator, -webhook); $state/logs/
  stop: hack/cluster/down.sh $state  (make cluster-down)
EOF
