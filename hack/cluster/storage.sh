# Storage for hack/cluster/up.sh (sourced; uses its variables and helpers: state, run, bin, csi,
# node_names, start, k, say, die): svc-csi, our CSI driver, with the real csi-provisioner and
# csi-snapshotter on every node, the cluster's default StorageClass and VolumeSnapshotClass
# (both `svc-local`), and the smoke check of a PVC written, snapshotted and restored.
#
# A volume is a folder of its node's (STATE/nI/csi/volumes), bound into Pods by the driver from
# inside the node's mount namespace; a snapshot is a copy in STATE/csi/snapshots, which every
# node's driver shares, so a volume restored from it (an svc clone) may land on any node.
# Capacity is recorded, not enforced. Each node provisions and snapshots its own volumes:
# csi-provisioner and csi-snapshotter run with --node-deployment, and snapshot-controller labels
# each snapshot's content with its volume's node.
#
# The StorageClass's binding mode is CLUSTER_VOLUME_BINDING (volume_binding, set by up.sh):
# - WaitForFirstConsumer (the default with two nodes or more): the scheduler picks the node by
#   the Pod's needs, that node's provisioner makes the volume. It costs a cold start about a
#   second: kube-scheduler's volume binding (PreBind) writes the node on the claim, then checks
#   whether the claim is bound once a second, the first time a second later
#   (pkg/scheduler/framework/plugins/volumebinding, BindPodVolumes), however soon it was.
# - Immediate (the default with one node, where there is no choice of node to make): every
#   node's provisioner may take a new claim (--node-deployment-immediate-binding), after a random
#   wait of at most --node-deployment-base-delay so that they do not all try at once; the volume
#   is made before the Pod is scheduled, and the Pod follows it. With several nodes the node is
#   then the provisioners' race, blind to the Pod's CPU and memory: no spreading by load, and a
#   Pod whose volume landed on a full node stays Pending.

csi_driver=local.csi.svc.io
csi_topology=svc.io/node

storage_up() {
  say "CSI: $csi_driver (svc-csi) with csi-provisioner and csi-snapshotter on every node"
  # RBAC as kube-router's: a user per sidecar (tokens above), bound to what it reads and writes.
  k apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: svc-cluster:csi-provisioner }
rules:
  - { apiGroups: [""], resources: [persistentvolumes], verbs: [get, list, watch, create, patch, delete] }
  - { apiGroups: [""], resources: [persistentvolumeclaims], verbs: [get, list, watch, update] }
  - { apiGroups: [""], resources: [nodes], verbs: [get, list, watch] }
  - { apiGroups: [""], resources: [events], verbs: [list, watch, create, update, patch] }
  - { apiGroups: [storage.k8s.io], resources: [storageclasses, csinodes, volumeattachments], verbs: [get, list, watch] }
  - { apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshots], verbs: [get, list, watch] }
  - { apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotcontents], verbs: [get, list] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: svc-cluster:csi-provisioner }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: svc-cluster:csi-provisioner }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: csi-provisioner }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: svc-cluster:csi-snapshotter }
rules:
  - { apiGroups: [""], resources: [events], verbs: [list, watch, create, update, patch] }
  - { apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotclasses], verbs: [get, list, watch] }
  - { apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotcontents], verbs: [get, list, watch, update, patch] }
  - { apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotcontents/status], verbs: [update, patch] }
  - { apiGroups: [groupsnapshot.storage.k8s.io], resources: [volumegroupsnapshotclasses], verbs: [get, list, watch] }
  - { apiGroups: [groupsnapshot.storage.k8s.io], resources: [volumegroupsnapshotcontents], verbs: [get, list, watch, update, patch] }
  - { apiGroups: [groupsnapshot.storage.k8s.io], resources: [volumegroupsnapshotcontents/status], verbs: [update, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: svc-cluster:csi-snapshotter }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: svc-cluster:csi-snapshotter }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: csi-snapshotter }]
---
# No attach step (a folder is on its node already): without attachRequired: false, Pods would
# wait for a VolumeAttachment no attacher serves. fsGroupPolicy File: kubelet gives the volume to
# the Pod's fsGroup (a sandbox runs as a non-root user).
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: { name: $csi_driver }
spec:
  attachRequired: false
  podInfoOnMount: false
  fsGroupPolicy: File
  volumeLifecycleModes: [Persistent]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: svc-local
  annotations: { storageclass.kubernetes.io/is-default-class: "true" }
provisioner: $csi_driver
volumeBindingMode: $volume_binding
reclaimPolicy: Delete
allowVolumeExpansion: false
EOF
  if [ -x "$bin/csi-snapshotter" ]; then
    k apply -f - >/dev/null <<EOF
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: svc-local
  annotations: { snapshot.storage.kubernetes.io/is-default-class: "true" }
driver: $csi_driver
deletionPolicy: Delete
EOF
  fi
  mkdir -p "$state/csi/snapshots"
  local nn n ns
  for nn in $node_names; do
    n=$state/$nn ns=svcc-$run-$nn
    mkdir -p "$n/csi"
    start "csi-$nn" "$ns" "$nn" -- "$csi/svc-csi" --name="$csi_driver" --topology-key="$csi_topology" \
      --node="$nn" --endpoint="$n/csi/csi.sock" --volumes="$n/csi/volumes" --snapshots="$state/csi/snapshots" \
      --registry=/var/lib/kubelet/plugins_registry
    # Each node's sidecars take only their node's volumes (NODE_NAME) and need no leader election.
    # An Immediate claim is taken after a random wait of up to 20 ms (the default, 20 s, is made
    # for hundreds of nodes racing; here it would be a cold start's slowest step).
    start "csi-provisioner-$nn" "$ns" "$nn" -- env NODE_NAME="$nn" "$bin/csi-provisioner" \
      --kubeconfig="$state/csi-provisioner.kubeconfig" --csi-address="$n/csi/csi.sock" \
      --node-deployment --node-deployment-immediate-binding=true \
      --node-deployment-base-delay=20ms --node-deployment-max-delay=2s --feature-gates=Topology=true \
      --leader-election=false --timeout=60s --v=2
    if [ -x "$bin/csi-snapshotter" ]; then
      start "csi-snapshotter-$nn" "$ns" "$nn" -- env NODE_NAME="$nn" "$bin/csi-snapshotter" \
        --kubeconfig="$state/csi-snapshotter.kubeconfig" --csi-address="$n/csi/csi.sock" \
        --node-deployment --leader-election=false --timeout=60s --v=2
    fi
  done
  # kubelet registered the driver once the node's CSINode lists it and the Node carries its
  # topology label (from NodeGetInfo), which the provisioner and the scheduler match on.
  local t0 t
  t0=$(date +%s)
  for nn in $node_names; do
    for t in $(seq 1 60); do
      [ "$(k get nodes -l "$csi_topology=$nn" -o name 2>/dev/null)" = "node/$nn" ] &&
        k get csinode "$nn" -o 'jsonpath={.spec.drivers[*].name}' 2>/dev/null | grep -qw "$csi_driver" && break
      kill -0 "$(cat "$state/pids/csi-$nn")" 2>/dev/null || die "svc-csi on $nn exited: $state/logs/csi-$nn.log"
      [ "$t" -lt 60 ] || die "kubelet of $nn did not register $csi_driver in 30s: $state/logs/csi-$nn.log, $state/logs/kubelet-$nn.log"
      sleep 0.5
    done
  done
  say "CSI driver registered by every kubelet ($(($(date +%s) - t0))s); default StorageClass ($volume_binding) and VolumeSnapshotClass svc-local"
}

# wait_for WHAT SECONDS CMD...: runs CMD every half second until it succeeds.
wait_for() {
  local what=$1 secs=$2 t
  shift 2
  for t in $(seq 1 $((secs * 2))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  die "$what not within ${secs}s"
}

elapsed() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }

# smoke_pod NAME CLAIM NODE SCRIPT: a Pod that runs SCRIPT once against the claim at /data, as a
# non-root user with an fsGroup (as a sandbox runs), on node NODE when one is named.
smoke_pod() {
  local select=
  [ -z "$3" ] || select="nodeSelector: { $csi_topology: $3 }"
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: $1, namespace: default }
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  $select
  securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 }
  containers:
    - name: main
      image: localhost/svc/busybox:latest
      imagePullPolicy: Never
      args: [-c, "$4"]
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: $2 } }]
EOF
}

# smoke_claim NAME [SNAPSHOT CLASS]: a claim as the operator writes a workspace's: RWO, 1Gi, and
# for a clone the snapshot as its dataSource and the source claim's class.
smoke_claim() {
  local extra=
  [ -z "${2:-}" ] || extra="storageClassName: $3
  dataSource: { apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: $2 }"
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: $1, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
  $extra
EOF
}

pod_succeeded() { [ "$(k get pod "$1" -o 'jsonpath={.status.phase}')" = Succeeded ]; }

# The smoke check, as an svc clone does it: a PVC of the default class written by a Pod; a
# VolumeSnapshot of it naming no class (the default's); a PVC with the snapshot as its dataSource
# and the source's class, read by a Pod on another node when there is one, the snapshot deleted
# once that claim is bound (the operator releases a clone's snapshot then); the same sha256; and
# every volume and snapshot folder gone once their objects are deleted.
storage_smoke() {
  local t0 t1 node other sha_w sha_r class pvs pv left nn
  t0=$(date +%s.%N)
  smoke_claim smoke-data
  smoke_pod smoke-writer smoke-data "" \
    "busybox dd if=/dev/urandom of=/data/f bs=64k count=16 2>/dev/null && busybox sha256sum /data/f"
  wait_for "Pod smoke-writer Succeeded ($state/kubectl describe pvc smoke-data; describe pod smoke-writer)" 90 \
    pod_succeeded smoke-writer
  sha_w=$(k logs smoke-writer | cut -d' ' -f1)
  node=$(k get pod smoke-writer -o 'jsonpath={.spec.nodeName}')
  class=$(k get pvc smoke-data -o 'jsonpath={.spec.storageClassName}')
  [ "$class" = svc-local ] || die "PVC smoke-data got class '$class', not the default svc-local"
  t1=$(date +%s.%N)
  say "PVC smoke-data (class $class) provisioned on $node and written by a Pod in $(elapsed "$t0" "$t1")s (sha256 ${sha_w:0:12}…)"

  k apply -f - >/dev/null <<EOF
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: { name: smoke-snap, namespace: default }
spec: { source: { persistentVolumeClaimName: smoke-data } }
EOF
  t0=$(date +%s.%N)
  wait_for "VolumeSnapshot smoke-snap readyToUse ($state/kubectl describe volumesnapshot smoke-snap)" 60 \
    k wait --for=jsonpath='{.status.readyToUse}'=true volumesnapshot/smoke-snap --timeout=1s
  t1=$(date +%s.%N)
  say "VolumeSnapshot smoke-snap (class $(k get volumesnapshot smoke-snap -o 'jsonpath={.spec.volumeSnapshotClassName}')) readyToUse in $(elapsed "$t0" "$t1")s"

  other=$node
  for nn in $node_names; do [ "$nn" = "$node" ] || other=$nn; done
  # An Immediate claim's node is the provisioners' race: the reader follows its volume.
  [ "$volume_binding" = WaitForFirstConsumer ] || other=
  t0=$(date +%s.%N)
  smoke_claim smoke-restore smoke-snap "$class"
  smoke_pod smoke-reader smoke-restore "$other" "busybox sha256sum /data/f"
  wait_for "PVC smoke-restore Bound ($state/kubectl describe pvc smoke-restore)" 90 \
    k wait --for=jsonpath='{.status.phase}'=Bound pvc/smoke-restore --timeout=1s
  k delete volumesnapshot smoke-snap --wait=false >/dev/null
  wait_for "Pod smoke-reader Succeeded ($state/kubectl describe pod smoke-reader)" 90 pod_succeeded smoke-reader
  sha_r=$(k logs smoke-reader | cut -d' ' -f1)
  t1=$(date +%s.%N)
  [ "$sha_r" = "$sha_w" ] || die "the restored volume reads sha256 '$sha_r', not the $sha_w written"
  other=$(k get pod smoke-reader -o 'jsonpath={.spec.nodeName}')
  say "PVC smoke-restore from the snapshot on $other read by a Pod in $(elapsed "$t0" "$t1")s: the same sha256"

  # Deleting the objects deletes the data: DeleteVolume on each volume's node, DeleteSnapshot.
  t0=$(date +%s.%N)
  pvs=$(k get pvc smoke-data smoke-restore -o 'jsonpath={.items[*].spec.volumeName}')
  k delete pod smoke-writer smoke-reader --wait=false >/dev/null
  k delete pvc smoke-data smoke-restore --wait=false >/dev/null
  for pv in $pvs; do
    wait_for "PV $pv deleted" 60 sh -c "! '$state/kubectl' get pv $pv"
  done
  wait_for "VolumeSnapshotContents deleted" 60 sh -c "[ -z \"\$('$state/kubectl' get volumesnapshotcontents -o name)\" ]"
  left=$(find "$state"/n*/csi/volumes "$state/csi/snapshots" -mindepth 1 -maxdepth 1 2>/dev/null)
  [ -z "$left" ] || die "volumes or snapshots left after their objects went: $left"
  say "the PVs and the snapshot's content deleted, and their folders, in $(elapsed "$t0" "$(date +%s.%N)")s"
}
