#!/usr/bin/env bash
# Brings up a real Kubernetes on this machine (issue 37, first part): etcd and kube-apiserver
# (hack/kube's binaries), kube-controller-manager, kube-scheduler and snapshot-controller in a
# control-plane network namespace, and NODES nodes — each containerd (own root, state and socket),
# kubelet (own cgroup root), kube-proxy and kube-router's NetworkPolicy firewall in a network and
# mount namespace of the node's own — joined to the control plane by veths through a bridge,
# bridge CNI, CoreDNS as a Deployment, our CSI driver with csi-provisioner and csi-snapshotter on
# every node (storage.sh: default StorageClass and VolumeSnapshotClass svc-local), images built
# locally (no registry), and smoke checks: Pods Running, Pod to Pod, a Service and its DNS name, a
# NetworkPolicy dropping packets, a PVC written, snapshotted and restored, a Pod scheduled; and
# (isolation.sh, issue 33) a runsc handler with the RuntimeClass gvisor, the kubelet's
# podPidsLimit, a gVisor Pod, a fork bomb bounded and a Pod evicted for disk use. A component whose binary is not in CLUSTER_BIN is left out with its
# checks (only kubelet is required). Everything it makes is named by a run id and recorded under
# the run's state folder, so `hack/cluster/down.sh STATE` removes it all and two runs never
# collide. Addresses exist only inside the namespaces it creates.
#
#   hack/cluster/up.sh            prints the state folder on its last line; progress on stderr
#   CLUSTER_BIN=DIR               the folder of the built binaries; default: hack/cluster/build.sh's
#                                 cache (it builds the node module if missing; `build.sh` builds all)
#   CLUSTER_CSI_BIN=DIR           the folder of svc-csi; default: `hack/cluster/build.sh csi`'s
#   NODES=n                       how many nodes (default 1)
#   CLUSTER_PROXY_MODE=nftables   kube-proxy's mode (default iptables)
#   CLUSTER_RUN=xxxx              the run id (4 hex digits; default random)
#   CLUSTER_STATE=DIR             the state folder (default /tmp/svc-cluster-$CLUSTER_RUN)
#   CLUSTER_SMOKE=0               skip the smoke checks
#   CLUSTER_VOLUME_BINDING=MODE   the StorageClass svc-local's volumeBindingMode: Immediate (the
#                                 default with one node) or WaitForFirstConsumer (with more); see storage.sh
#   CLUSTER_GVISOR, CLUSTER_RUNSC_*, CLUSTER_POD_PIDS_LIMIT, CLUSTER_CONTAINERD_BIN   see isolation.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "hack/cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# Root, namespaces, cgroups, overlayfs, /dev/kmsg, room: one line for each that is missing.
bash "$here/preflight.sh" "$(dirname "${CLUSTER_STATE:-/tmp/svc-cluster-run}")" || exit 1
for b in ip nsenter containerd containerd-shim-runc-v2 runc ctr umoci openssl iptables; do
  command -v "$b" >/dev/null || die "$b is missing: run hack/cluster/deps.sh"
done
[ -x /usr/lib/cni/bridge ] || die "CNI plugins are missing: run hack/cluster/deps.sh"
busybox=/bin/busybox # Debian's busybox-static: one static binary, so it runs in an image of its own
[ -x "$busybox" ] || die "$busybox is missing: run hack/cluster/deps.sh (busybox-static)"

kube=$(bash "$repo/hack/kube/build.sh" | tail -n 1)
bin=${CLUSTER_BIN:-$(bash "$here/build.sh" node | tail -n 1)}
# svc-csi, our CSI driver: a module and a cache folder of its own (seconds to build).
csi=${CLUSTER_CSI_BIN:-$(bash "$here/build.sh" csi | tail -n 1)}
# shellcheck source=storage.sh
. "$here/storage.sh"
# shellcheck source=isolation.sh
. "$here/isolation.sh"
[ -x "$bin/kubelet" ] || die "no kubelet in $bin (hack/cluster/build.sh builds it)"

run=${CLUSTER_RUN:-$(od -An -N2 -tx2 /dev/urandom | tr -d ' \n')}
[[ $run =~ ^[0-9a-f]{4}$ ]] || die "CLUSTER_RUN must be 4 hex digits, not '$run'"
state=${CLUSTER_STATE:-/tmp/svc-cluster-$run}
[ ! -e "$state" ] || die "$state exists: another run with id $run? (hack/cluster/down.sh $state removes it)"
# One /16 per run, its second octet taken from the run id: the namespaces are private, so equal
# ranges would not collide, but distinct ones keep two runs' logs and captures apart.
o=$((0x$run % 200 + 20))
net=10.$o
cp_ip=$net.0.1 # the control plane's address on the bridge
pod_cidr=$net.64.0/18 # node i: $net.(64+i).0/24
svc_cidr=$net.128.0/20
dns_ip=$net.128.10
ns_cp=svcc-$run-cp
nodes=${NODES:-1}
[[ $nodes =~ ^[1-9]$ ]] || die "NODES must be 1 to 9, not '$nodes'"
# One node has no placement to make, so its volumes are made at once (storage.sh says why).
volume_binding=${CLUSTER_VOLUME_BINDING:-$([ "$nodes" = 1 ] && echo Immediate || echo WaitForFirstConsumer)}
[[ $volume_binding =~ ^(Immediate|WaitForFirstConsumer)$ ]] ||
  die "CLUSTER_VOLUME_BINDING must be Immediate or WaitForFirstConsumer, not '$volume_binding'"
node_ip() { echo "$net.0.$((10 + $1))"; }
node_pod_cidr() { echo "$net.$((64 + $1)).0/24"; }
node_names=$(seq -f 'n%g' 1 "$nodes" | tr '\n' ' ')
node_names=${node_names% }
node_netns=$(seq -f "svcc-$run-n%g" 1 "$nodes" | tr '\n' ' ')
cg=svc-cluster-$run # cgroup root of every node, in every hierarchy

mkdir -p "$state"/{logs,pids,pki} && chmod 700 "$state"
# From here on a failure leaves the run up to be looked at; down.sh removes it.
trap 'rc=$?; [ $rc = 0 ] || say "failed; the run is left up for a look: hack/cluster/down.sh $state removes it"' EXIT
cat >"$state/env" <<EOF
# hack/cluster run $run — read by down.sh
RUN=$run
STATE=$state
NETNS="$ns_cp $node_netns"
CGROUP=$cg
NET=$net.0.0/16
CP_IP=$cp_ip
NODES="$node_names"
EOF
mkdir -p "$repo/.dev" && echo "$state" >"$repo/.dev/cluster-state"
say "run $run: $nodes node(s), state $state, network $net.0.0/16, cgroup /$cg"

# --- network: a bridge in the control-plane namespace, one veth per node --------------------
ip netns add "$ns_cp"
ip -n "$ns_cp" link set lo up
ip -n "$ns_cp" link add br0 type bridge
ip -n "$ns_cp" addr add "$cp_ip/24" dev br0
ip -n "$ns_cp" link set br0 up
ip netns exec "$ns_cp" sysctl -qw net.ipv4.ip_forward=1
for i in $(seq 1 "$nodes"); do
  ns=svcc-$run-n$i
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip -n "$ns_cp" link add "n$i" type veth peer name eth0 netns "$ns"
  ip -n "$ns_cp" link set "n$i" master br0 up
  ip -n "$ns" addr add "$(node_ip "$i")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
  # Pods on one node talk across its bridge; the NetworkPolicy firewall must see those packets too.
  ip netns exec "$ns" sysctl -qw net.bridge.bridge-nf-call-iptables=1
  # Services: kube-proxy rewrites their addresses after routing, so the range needs a route.
  ip -n "$ns" route add "$svc_cidr" via "$cp_ip"
  # The control plane reaches Pods (webhooks, aggregated APIs) through their node.
  ip -n "$ns_cp" route add "$(node_pod_cidr "$i")" via "$(node_ip "$i")"
  # Pods reach the other nodes' Pods through those nodes.
  for j in $(seq 1 "$nodes"); do
    [ "$j" = "$i" ] || ip -n "$ns" route add "$(node_pod_cidr "$j")" via "$(node_ip "$j")"
  done
done
# The apiserver dials admission webhooks and aggregated APIs at their Service's ClusterIP, as
# on any cluster; this namespace has no kube-proxy, so the Service range goes through the first
# node, whose kube-proxy rules carry it to a Pod on any node (and masquerade it, its source
# being outside the Pod range, so the answer comes back the same way). The route lives in the
# run's namespace and goes with it (down.sh); the machine's own routing table is not touched.
ip -n "$ns_cp" route add "$svc_cidr" via "$(node_ip 1)"

# A mount namespace per node, kept by a bind of its file under STATE/ns (a private mount: a
# namespace file cannot be bound on a shared one). The node's containerd and kubelet share it, so
# the volumes kubelet mounts are the ones runc binds into containers, and no mount of theirs is
# seen by the machine. In it, the kernel settings kubelet insists on (it rewrites them machine-
# wide unless they already read as it wants: panic on oops, overcommit...) read as kubelet wants,
# from files bound over /proc/sys, while the machine keeps its own.
mkdir -p "$state/ns"
mount --bind "$state/ns" "$state/ns"
mount --make-private "$state/ns"
node_mountns() { # NODE
  local sys=$state/$1/sysctl binds="" key want
  mkdir -p "$sys"
  touch "$state/ns/$1.mnt"
  while read -r key want; do
    [ "$(cat "/proc/sys/$key")" = "$want" ] && continue
    echo "$want" >"$sys/${key//\//.}"
    binds="$binds mount --bind $sys/${key//\//.} /proc/sys/$key;"
  done <<SYSCTL
vm/overcommit_memory 1
vm/panic_on_oom 0
kernel/panic 10
kernel/panic_on_oops 1
kernel/keys/root_maxkeys 1000000
kernel/keys/root_maxbytes 25000000
SYSCTL
  # Folders kubelet, containerd and CNI use whatever they are told (kubelet's device-plugin
  # socket and log links, containerd 1.6's shim sockets, libcni's result cache): the node's own
  # folders are bound over them, so nodes and runs never share one and nothing is left in them.
  local path dir
  for path in $fixed_dirs; do
    dir=$state/$1/fixed${path//\//_}
    mkdir -p "$dir"
    binds="$binds mount --bind $dir $path;"
  done
  # The kubelet's root must be a shared mount (kubelet makes it rshared, and a container's
  # Bidirectional mount under it needs that); made so here, kubelet would bind it over itself
  # and containerd, reading the lower mount, would refuse a Bidirectional mount of it.
  binds="$binds mount --make-shared /var/lib/kubelet;"
  unshare --mount="$state/ns/$1.mnt" --propagation private sh -ec "$binds true"
}
fixed_dirs="/var/lib/kubelet /var/lib/cni /var/log/containers /var/log/pods /run/containerd"
# The folders to bind over must exist. Those made here are listed in /run/svc-cluster.made, for
# the down.sh that leaves no run behind to remove (runs may end in any order).
for path in $fixed_dirs; do
  [ -d "$path" ] && continue
  mkdir -p "$path"
  echo "$path" >>/run/svc-cluster.made
done
for nn in $node_names; do node_mountns "$nn"; done

# start NAME NETNS [NODE] -- CMD...: a daemon in a network namespace (and a node's mount
# namespace), in its own session, logged under STATE/logs.
start() {
  local name=$1 ns=$2 mnt=()
  shift 2
  if [ "$1" != -- ]; then
    mnt=(--mount="$state/ns/$1.mnt")
    shift
  fi
  shift
  setsid nsenter --net="/run/netns/$ns" "${mnt[@]}" -- "$@" >"$state/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$state/pids/$name"
}

# --- certificates and tokens ------------------------------------------------------------------
pki=$state/pki
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=svc-cluster-$run-ca" \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
cat >"$pki/apiserver.ext" <<EOF
subjectAltName=IP:$cp_ip,IP:$net.128.1,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
EOF
openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
  -extfile "$pki/apiserver.ext" -out "$pki/apiserver.crt" 2>/dev/null
# kube-apiserver's client certificate towards kubelets (logs, exec, port-forward).
openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" \
  -keyout "$pki/apiserver-kubelet.key" -out "$pki/apiserver-kubelet.csr" 2>/dev/null
openssl x509 -req -in "$pki/apiserver-kubelet.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
  -out "$pki/apiserver-kubelet.crt" 2>/dev/null
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
token() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
admin_token=$(token)
echo "$admin_token,admin,admin,system:masters" >"$pki/tokens.csv"
kubeconfig() { # FILE TOKEN
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: svc-$run
    cluster: { server: "https://$cp_ip:6443", certificate-authority: "$pki/ca.crt" }
users:
  - name: u
    user: { token: "$2" }
contexts:
  - name: svc-$run
    context: { cluster: svc-$run, user: u }
current-context: svc-$run
EOF
}
kubeconfig "$state/admin.kubeconfig" "$admin_token"
# kube-proxy as the user the default RBAC binds to system:node-proxier.
proxy_token=$(token)
echo "$proxy_token,system:kube-proxy,kube-proxy" >>"$pki/tokens.csv"
kubeconfig "$state/kube-proxy.kubeconfig" "$proxy_token"
# kube-router under a user of its own, bound below to what its firewall reads.
router_token=$(token)
echo "$router_token,kube-router,kube-router" >>"$pki/tokens.csv"
kubeconfig "$state/kube-router.kubeconfig" "$router_token"
# snapshot-controller runs as a process of the control plane, under a user of its own.
snap_token=$(token)
echo "$snap_token,snapshot-controller,snapshot-controller" >>"$pki/tokens.csv"
kubeconfig "$state/snapshot-controller.kubeconfig" "$snap_token"
# The CSI sidecars (every node's) under a user each, bound below to what they read and write.
for u in csi-provisioner csi-snapshotter; do
  t=$(token)
  echo "$t,$u,$u" >>"$pki/tokens.csv"
  kubeconfig "$state/$u.kubeconfig" "$t"
done
for nn in $node_names; do
  t=$(token)
  echo "$t,system:node:$nn,node-$nn,system:nodes" >>"$pki/tokens.csv"
  kubeconfig "$state/$nn.kubeconfig" "$t"
done
# kubectl for this cluster: the apiserver's address exists only inside the namespaces.
cat >"$state/kubectl" <<EOF
#!/bin/sh
exec nsenter --net=/run/netns/$ns_cp -- "$kube/kubectl" --kubeconfig "$state/admin.kubeconfig" --cache-dir "$state/kube-cache" "\$@"
EOF
chmod +x "$state/kubectl"
k() { "$state/kubectl" "$@"; }

# --- control plane ------------------------------------------------------------------------------
say "starting etcd and kube-apiserver in $ns_cp"
start etcd "$ns_cp" -- "$kube/etcd" --data-dir="$state/etcd" --listen-client-urls=http://127.0.0.1:2379 \
  --advertise-client-urls=http://127.0.0.1:2379 --listen-peer-urls=http://127.0.0.1:2380 \
  --initial-advertise-peer-urls=http://127.0.0.1:2380 --initial-cluster=default=http://127.0.0.1:2380 \
  --unsafe-no-fsync --log-level=warn
start kube-apiserver "$ns_cp" -- "$kube/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --bind-address="$cp_ip" --advertise-address="$cp_ip" --secure-port=6443 \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" --token-auth-file="$pki/tokens.csv" \
  --authorization-mode=Node,RBAC --service-cluster-ip-range="$svc_cidr" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --kubelet-client-certificate="$pki/apiserver-kubelet.crt" --kubelet-client-key="$pki/apiserver-kubelet.key" \
  --kubelet-preferred-address-types=InternalIP --allow-privileged=true --profiling=false
for i in $(seq 1 120); do
  k get --raw /readyz >/dev/null 2>&1 && break
  [ "$i" -lt 120 ] || die "kube-apiserver not ready after 60s: $state/logs/kube-apiserver.log"
  sleep 0.5
done
say "kube-apiserver ready at https://$cp_ip:6443 (in $ns_cp; $state/kubectl)"
k apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: svc-cluster:kube-router }
rules:
  - { apiGroups: [""], resources: [namespaces, pods, services, endpoints, nodes], verbs: [get, list, watch] }
  - { apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [get, list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch] }
  - { apiGroups: [""], resources: [events], verbs: [create, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: svc-cluster:kube-router }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: svc-cluster:kube-router }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: kube-router }]
EOF
if [ -x "$bin/kube-controller-manager" ]; then
  start kube-controller-manager "$ns_cp" -- "$bin/kube-controller-manager" \
    --kubeconfig="$state/admin.kubeconfig" --authentication-kubeconfig="$state/admin.kubeconfig" \
    --authorization-kubeconfig="$state/admin.kubeconfig" --bind-address=127.0.0.1 --secure-port=10257 \
    --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
    --use-service-account-credentials --cluster-cidr="$pod_cidr" --service-cluster-ip-range="$svc_cidr" \
    --leader-elect=false --profiling=false
fi
if [ -x "$bin/kube-scheduler" ]; then
  start kube-scheduler "$ns_cp" -- "$bin/kube-scheduler" --kubeconfig="$state/admin.kubeconfig" \
    --authentication-kubeconfig="$state/admin.kubeconfig" --authorization-kubeconfig="$state/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=10259 --leader-elect=false --profiling=false
fi

# --- the VolumeSnapshot pipeline's controller: CRDs and RBAC from the pinned external-snapshotter --
if [ -x "$bin/snapshot-controller" ]; then
  # The manifests ship in the modules addons/go.mod pins (its go.sum checks them).
  mod_dir() { (cd "$here/addons" && go mod download "$1" && go list -m -f '{{.Dir}}' "$1"); }
  snapclient=$(mod_dir github.com/kubernetes-csi/external-snapshotter/client/v8)
  snapper=$(mod_dir github.com/kubernetes-csi/external-snapshotter/v8)
  # VolumeSnapshot and, needed by snapshot-controller v8.7, the VolumeGroupSnapshot CRDs.
  for f in "$snapclient"/config/crd/*storage.k8s.io_*.yaml; do k apply -f "$f" >/dev/null; done
  k wait --for=condition=Established --timeout=30s crd/volumesnapshots.snapshot.storage.k8s.io \
    crd/volumegroupsnapshots.groupsnapshot.storage.k8s.io >/dev/null
  # Its ClusterRole as the project ships it, bound to its user as well as its ServiceAccount.
  k apply -f "$snapper/deploy/kubernetes/snapshot-controller/rbac-snapshot-controller.yaml" >/dev/null
  k create clusterrolebinding svc-cluster:snapshot-controller --clusterrole=snapshot-controller-runner \
    --user=snapshot-controller >/dev/null
  # Distributed snapshotting: the controller labels each VolumeSnapshotContent with the node its
  # volume lives on, so that node's csi-snapshotter (--node-deployment) takes it. It reads Nodes
  # for that, a rule the shipped ClusterRole leaves commented out.
  k create clusterrole svc-cluster:snapshot-controller-nodes --verb=get,list,watch --resource=nodes >/dev/null
  k create clusterrolebinding svc-cluster:snapshot-controller-nodes --clusterrole=svc-cluster:snapshot-controller-nodes \
    --user=snapshot-controller >/dev/null
  say "starting snapshot-controller in $ns_cp"
  start snapshot-controller "$ns_cp" -- "$bin/snapshot-controller" \
    --kubeconfig="$state/snapshot-controller.kubeconfig" --leader-election=false --enable-distributed-snapshotting
fi

# --- images (no registry): busybox-static packed as OCI by umoci ------------------------------
# image NAME ENTRYPOINT CMD...: busybox and its applets' links, and each binary in $extra under
# /bin with the shared libraries it loads (ldd), packed as OCI by umoci.
img=$state/images
mkdir -p "$img"
image() {
  local name=$1 layout=$img/$1 entrypoint=$2
  shift 2
  umoci init --layout "$layout"
  umoci new --image "$layout:latest"
  umoci unpack --image "$layout:latest" "$img/$name.bundle" >/dev/null
  local root=$img/$name.bundle/rootfs
  mkdir -p "$root"/{bin,etc,tmp,proc,sys,dev}
  cp "$busybox" "$root/bin/busybox"
  for a in sh sleep cat ls echo nc id ps hostname ip nslookup ping httpd printf tail; do ln -s busybox "$root/bin/$a"; done
  local f l
  for f in ${extra:-}; do
    cp "$f" "$root/bin/"
    for l in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
      mkdir -p "$root$(dirname "$l")" && cp -L "$l" "$root$l"
    done
  done
  echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
  echo "root:x:0:" >"$root/etc/group"
  umoci repack --image "$layout:latest" "$img/$name.bundle" >/dev/null
  local cmd=() c
  for c in "$@"; do cmd+=(--config.cmd "$c"); done
  umoci config --image "$layout:latest" --config.entrypoint "$entrypoint" --clear=config.cmd "${cmd[@]}" \
    --config.env PATH=/bin
  rm -rf "$img/$name.bundle"
  tar -C "$layout" -cf "$img/$name.tar" .
}
images="pause busybox"
say "building images pause and busybox (busybox-static packed by umoci)"
extra= image pause /bin/sleep 2147483647
extra= image busybox /bin/sh
if [ -x "$bin/coredns" ]; then
  say "building image coredns (hack/cluster's CoreDNS build)"
  extra=$bin/coredns image coredns /bin/coredns -conf /etc/coredns/Corefile
  images="$images coredns"
fi

# --- the nodes: containerd and kubelet in each node's namespaces -------------------------------
node_up() { # I
  local i=$1 nn=n$1 ns=svcc-$run-n$1 n=$state/n$1 ip
  ip=$(node_ip "$i")
  mkdir -p "$n"/{containerd/root,containerd/state,cni,kubelet,pod-logs}
  # Its cgroup root in every hierarchy (cgroup v1 here; cgroup v2 has one).
  for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
    [ -f "$h/cgroup.procs" ] || continue
    case "$h" in */unified/) [ -f /sys/fs/cgroup/cpu/cgroup.procs ] && continue ;; esac
    mkdir -p "$h/$cg/$nn"
    # A new cpuset cgroup starts empty in v1; give it its parent's CPUs and memory nodes.
    if [ -f "$h/cpuset.cpus" ]; then
      cat "$h/cpuset.cpus" >"$h/$cg/cpuset.cpus" && cat "$h/cpuset.mems" >"$h/$cg/cpuset.mems"
      cat "$h/cpuset.cpus" >"$h/$cg/$nn/cpuset.cpus" && cat "$h/cpuset.mems" >"$h/$cg/$nn/cpuset.mems"
    fi
  done
  cat >"$n/containerd.toml" <<EOF
version = 2
root = "$n/containerd/root"
state = "$n/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]
[grpc]
  address = "$n/containerd.sock"
[ttrpc]
  address = "$n/containerd.ttrpc.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$n/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/svc/pause:latest"
  # No CAP_SYS_RESOURCE in this VM: without it every Pod fails in runc ("can't get final child's PID from pipe").
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$n/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$n/cni"
EOF
  isolation_containerd "$n" >>"$n/containerd.toml" # the runsc handler (isolation.sh)
  cat >"$n/cni/10-bridge.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "svc-$run",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$(node_pod_cidr "$i")" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$n/cni-ipam"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
  say "$nn: starting containerd in $ns ($n/containerd.sock)"
  start "containerd-$nn" "$ns" "$nn" -- "${containerd_cmd[@]}" --config "$n/containerd.toml" # isolation.sh
  for t in $(seq 1 60); do
    [ -S "$n/containerd.sock" ] && ctr --address "$n/containerd.sock" version >/dev/null 2>&1 && break
    [ "$t" -lt 60 ] || die "containerd not up after 30s: $state/logs/containerd-$nn.log"
    sleep 0.5
  done
  for im in $images; do
    ctr --address "$n/containerd.sock" -n k8s.io images import --base-name "localhost/svc/$im" "$img/$im.tar" >/dev/null
  done
  ctr --address "$n/containerd.sock" -n k8s.io images ls -q | sed 's/^/hack\/cluster:   image /' >&2

  printf 'nameserver %s\nsearch default.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n' "$dns_ip" >"$n/resolv.conf"
  cat >"$n/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine has cgroup v1 controllers; kubelet 1.35 refuses them unless told.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$cg/$nn
cgroupsPerQOS: true
containerRuntimeEndpoint: unix://$n/containerd.sock
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
clusterDNS: [$dns_ip]
clusterDomain: cluster.local
resolvConf: $n/resolv.conf
podLogsDir: $n/pod-logs
failSwapOn: false
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $pki/ca.crt }
authorization: { mode: Webhook }
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }
imageGCHighThresholdPercent: 100
serializeImagePulls: false
EOF
  isolation_kubelet >>"$n/kubelet.yaml" # podPidsLimit (isolation.sh)
  say "$nn: starting kubelet in $ns (cgroup root /$cg/$nn)"
  # Its root is /var/lib/kubelet as on any node, which the node's mount namespace binds to the
  # node's own folder (fixed_dirs): one path on every node, so a DaemonSet that mounts the
  # kubelet's folders (a CSI node plugin: svc's sandboxd-csi) needs one value for all of them.
  start "kubelet-$nn" "$ns" "$nn" -- "$bin/kubelet" --config="$n/kubelet.yaml" --kubeconfig="$state/$nn.kubeconfig" \
    --root-dir=/var/lib/kubelet --cert-dir="$n/kubelet-pki" --hostname-override="$nn" --node-ip="$ip" --v=1
  if [ -x "$bin/kube-proxy" ]; then
    # conntrack: the table's size and timeouts are the machine's or its namespace's own; leave them.
    cat >"$n/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ${CLUSTER_PROXY_MODE:-iptables}
clientConnection: { kubeconfig: $state/kube-proxy.kubeconfig }
hostnameOverride: $nn
bindAddress: $ip
healthzBindAddress: $ip:10256
metricsBindAddress: 127.0.0.1:10249
clusterCIDR: $pod_cidr
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s, udpTimeout: 0s, udpStreamTimeout: 0s }
EOF
    say "$nn: starting kube-proxy (${CLUSTER_PROXY_MODE:-iptables} mode)"
    start "kube-proxy-$nn" "$ns" "$nn" -- "$bin/kube-proxy" --config="$n/kube-proxy.yaml"
  fi
}
for i in $(seq 1 "$nodes"); do node_up "$i"; done
for nn in $node_names; do
  for t in $(seq 1 120); do
    [ "$(k get node "$nn" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] && break
    kill -0 "$(cat "$state/pids/kubelet-$nn")" 2>/dev/null || die "kubelet of $nn exited: $state/logs/kubelet-$nn.log"
    [ "$t" -lt 120 ] || die "node $nn not Ready after 120s: $state/logs/kubelet-$nn.log"
    sleep 1
  done
  say "node $nn Ready"
  if [ -x "$bin/kube-router" ]; then
    # kube-router as the NetworkPolicy firewall only (no routing, no service proxy, no CNI); it
    # finds its node by name, so it starts once the node is registered.
    say "$nn: starting kube-router (NetworkPolicy firewall only)"
    start "kube-router-$nn" "svcc-$run-$nn" "$nn" -- "$bin/kube-router" --kubeconfig="$state/kube-router.kubeconfig" \
      --hostname-override="$nn" --run-firewall=true --run-router=false --run-service-proxy=false \
      --enable-cni=false --service-cluster-ip-range="$svc_cidr" --health-port=0 --metrics-port=0
  fi
done

# --- isolation: RuntimeClass gvisor (isolation.sh) ----------------------------------------------
isolation_up

# --- storage: svc-csi, csi-provisioner and csi-snapshotter on every node (storage.sh) -------------
if [ -x "$bin/csi-provisioner" ]; then
  storage_up
fi

# --- cluster DNS: CoreDNS as a Deployment behind the kube-dns Service at $dns_ip ----------------
if [ -x "$bin/coredns" ]; then
  say "deploying CoreDNS (kube-system/coredns, Service kube-dns at $dns_ip)"
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ServiceAccount
metadata: { name: coredns, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:coredns" }
rules:
  - { apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:coredns" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns" }
subjects: [{ kind: ServiceAccount, name: coredns, namespace: kube-system }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: coredns, namespace: kube-system }
data:
  # No forward: nothing outside the run is asked.
  Corefile: |
    .:53 {
        errors
        health
        ready
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
            ttl 30
        }
        cache 30
        loop
        reload
        loadbalance
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: coredns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  replicas: 1
  selector: { matchLabels: { k8s-app: kube-dns } }
  template:
    metadata: { labels: { k8s-app: kube-dns } }
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      containers:
        - name: coredns
          image: localhost/svc/coredns:latest
          imagePullPolicy: Never
          ports:
            - { name: dns, containerPort: 53, protocol: UDP }
            - { name: dns-tcp, containerPort: 53, protocol: TCP }
          readinessProbe: { httpGet: { path: /ready, port: 8181 }, periodSeconds: 2 }
          livenessProbe: { httpGet: { path: /health, port: 8080 }, initialDelaySeconds: 10 }
          volumeMounts: [{ name: config, mountPath: /etc/coredns, readOnly: true }]
      volumes: [{ name: config, configMap: { name: coredns } }]
---
apiVersion: v1
kind: Service
metadata: { name: kube-dns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  clusterIP: $dns_ip
  selector: { k8s-app: kube-dns }
  ports:
    - { name: dns, port: 53, protocol: UDP }
    - { name: dns-tcp, port: 53, protocol: TCP }
EOF
  k -n kube-system rollout status deployment/coredns --timeout=90s >/dev/null ||
    die "CoreDNS not ready in 90s: $state/kubectl -n kube-system describe pods -l k8s-app=kube-dns"
  say "CoreDNS ready"
fi

if [ "${CLUSTER_SMOKE:-1}" != 0 ]; then
  # kube-controller-manager makes each namespace's default ServiceAccount; without it, up.sh does.
  for t in $(seq 1 20); do
    k get serviceaccount default >/dev/null 2>&1 && break
    [ -x "$bin/kube-controller-manager" ] && [ "$t" -lt 20 ] || {
      k create serviceaccount default >/dev/null 2>&1 || k get serviceaccount default >/dev/null
      break
    }
    sleep 0.5
  done
  # A Pod per node (two on a single node, so that Pod to Pod and the policy check have a peer):
  # an init container writes into an emptyDir that the main container serves over HTTP.
  smokes=$node_names
  [ "$nodes" != 1 ] || smokes="n1 n1b"
  t0=$(date +%s)
  for p in $smokes; do
    k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: smoke-$p, namespace: default, labels: { app: smoke, smoke: $p } }
spec:
  nodeName: ${p%b}
  automountServiceAccountToken: false
  initContainers:
    - name: init
      image: localhost/svc/busybox:latest
      imagePullPolicy: Never
      args: [-c, "echo ok >/work/init"]
      volumeMounts: [{ name: work, mountPath: /work }]
  containers:
    - name: main
      image: localhost/svc/busybox:latest
      imagePullPolicy: Never
      args: [-c, "cat /work/init; exec httpd -f -p 8080 -h /work"]
      volumeMounts: [{ name: work, mountPath: /work }]
  volumes: [{ name: work, emptyDir: {} }]
EOF
  done
  for p in $smokes; do
    for t in $(seq 1 120); do
      phase=$(k get pod "smoke-$p" -o 'jsonpath={.status.phase}' 2>/dev/null || true)
      [ "$phase" = Running ] && break
      [ "$t" -lt 120 ] || {
        k describe pod "smoke-$p" >&2 || true
        die "Pod smoke-$p not Running after 120s (phase '$phase')"
      }
      sleep 1
    done
    say "Pod smoke-$p Running $(($(date +%s) - t0))s after create, at $(k get pod "smoke-$p" -o 'jsonpath={.status.podIP}')"
  done
  # fetch URL-PATH HOST PORT: an HTTP GET from smoke-n1 with busybox nc (Debian's static busybox
  # wget crashes), printing the body's last line.
  fetch() { k exec smoke-n1 -c main -- sh -c "printf 'GET $1 HTTP/1.0\\r\\n\\r\\n' | nc -w 3 $2 $3 | tail -n 1" 2>&1; }
  # Pod to Pod over TCP, across nodes when there are two or more.
  last=${smokes##* }
  to=$(k get pod "smoke-$last" -o 'jsonpath={.status.podIP}')
  got=$(fetch /init "$to" 8080) || true
  [ "$got" = ok ] || die "smoke-n1 does not reach smoke-$last at $to:8080 (got: $got)"
  say "smoke-n1 reaches smoke-$last at $to:8080"
  if [ -x "$bin/kube-proxy" ]; then
    k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Service
metadata: { name: smoke, namespace: default }
spec: { selector: { app: smoke }, ports: [{ port: 80, targetPort: 8080 }] }
EOF
    vip=$(k get service smoke -o 'jsonpath={.spec.clusterIP}')
    for t in $(seq 1 30); do
      got=$(fetch /init "$vip" 80) || true
      [ "$got" = ok ] && break
      [ "$t" -lt 30 ] || die "smoke-n1 does not reach the Service smoke at $vip:80 (got: $got)"
      sleep 1
    done
    say "smoke-n1 reaches the Service smoke at $vip:80 (kube-proxy)"
    # As the apiserver reaches a webhook: from the control plane's namespace, through n1.
    got=$(ip netns exec "$ns_cp" timeout 10 "$busybox" sh -c \
      "printf 'GET /init HTTP/1.0\\r\\n\\r\\n' | $busybox nc -w 3 $vip 80 | tail -n 1" 2>&1) || true
    [ "$got" = ok ] || die "the control plane's namespace does not reach the Service smoke at $vip:80 (got: $got; ip -n $ns_cp route)"
    say "the control plane's namespace reaches the Service smoke at $vip:80 (through n1)"
  fi
  if [ -x "$bin/coredns" ] && [ -x "$bin/kube-proxy" ]; then
    got=$(k exec smoke-n1 -c main -- nslookup smoke.default.svc.cluster.local 2>&1) || true
    echo "$got" | grep -q "Address: $vip" || die "smoke.default.svc.cluster.local does not resolve to $vip: $got"
    say "smoke.default.svc.cluster.local resolves to $vip (CoreDNS)"
  fi
  if [ -x "$bin/kube-router" ]; then
    # A deny-all ingress policy on the last node's smoke Pod must drop packets, and lifting it
    # must let them through again: enforcement, not configuration.
    k apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: smoke-deny, namespace: default }
spec: { podSelector: { matchLabels: { smoke: $last } }, policyTypes: [Ingress] }
EOF
    t0=$(date +%s)
    for t in $(seq 1 30); do
      got=$(fetch /init "$to" 8080) || true
      [ "$got" != ok ] && break
      [ "$t" -lt 30 ] || die "the deny-all policy did not stop smoke-n1 reaching smoke-$last in 30s"
      sleep 1
    done
    say "NetworkPolicy smoke-deny drops smoke-n1 -> smoke-$last ($(($(date +%s) - t0))s after apply)"
    k delete networkpolicy smoke-deny >/dev/null
    for t in $(seq 1 30); do
      got=$(fetch /init "$to" 8080) || true
      [ "$got" = ok ] && break
      [ "$t" -lt 30 ] || die "smoke-n1 still cannot reach smoke-$last 30s after the policy went"
      sleep 1
    done
    say "without it, smoke-n1 reaches smoke-$last again"
  fi
  if [ -x "$bin/csi-provisioner" ] && [ -x "$bin/csi-snapshotter" ] && [ -x "$bin/kube-scheduler" ]; then
    storage_smoke
  elif [ -x "$bin/snapshot-controller" ]; then
    # No CSI driver: a VolumeSnapshot of a class that does not exist must get the controller's
    # error in its status, which shows the controller watching and writing.
    k apply -f - >/dev/null <<EOF
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: { name: smoke-probe, namespace: default }
spec: { volumeSnapshotClassName: smoke-none, source: { persistentVolumeClaimName: smoke-none } }
EOF
    for t in $(seq 1 30); do
      got=$(k get volumesnapshot smoke-probe -o 'jsonpath={.status.error.message}' 2>/dev/null) || true
      [ -n "$got" ] && break
      [ "$t" -lt 30 ] || die "snapshot-controller did not process VolumeSnapshot smoke-probe in 30s"
      sleep 1
    done
    k delete volumesnapshot smoke-probe --wait=false >/dev/null
    say "snapshot-controller processes VolumeSnapshots (\"$got\")"
  fi
  isolation_smoke
  if [ -x "$bin/kube-scheduler" ]; then
    k run smoke-scheduled --image=localhost/svc/busybox:latest --image-pull-policy=Never \
      --overrides='{"spec":{"automountServiceAccountToken":false}}' --command -- sleep 2147483647 >/dev/null
    k wait --for=condition=Ready pod/smoke-scheduled --timeout=60s >/dev/null ||
      die "Pod smoke-scheduled not Ready in 60s (kube-scheduler: $state/logs/kube-scheduler.log)"
    say "Pod smoke-scheduled scheduled to $(k get pod smoke-scheduled -o 'jsonpath={.spec.nodeName}') and Ready"
  fi
fi
say "up: $state/kubectl get nodes; hack/cluster/down.sh $state removes it all"
echo "$state"
