# Isolation for hack/cluster/up.sh (issue 33; sourced, uses its variables and helpers: state, run,
# node_names, nodes, k, say, die): a second runtime handler `runsc` (gVisor) in every node's
# containerd and the RuntimeClass `gvisor` naming it, the kubelet's per-Pod process limit, and the
# smoke checks that show them on the real kubelet: a gVisor Pod (its dmesg is gVisor's kernel's)
# with an init container, an emptyDir and shareProcessNamespace, as a sandbox Pod has (whether the
# PID namespace is shared is reported: this runsc does not share it); a fork bomb in one Pod while
# another on the same node answers exec (median of five within 2 s); a Pod writing past its
# ephemeral-storage limit evicted by the kubelet.
#
# gVisor: Debian's runsc (a 2022-12 build) ships without gVisor's containerd shim, and the shim
# built from the module proxy cannot start in this VM ("failed to set OOM Score on shim": no
# CAP_SYS_RESOURCE), so containerd's own runc shim (io.containerd.runc.v2) runs it
# through `BinaryName`, a wrapper per node: runsc with its flags, then runsc-shim.sh, which mends
# where the shim's runc assumptions and runsc part (a Pod's later containers, their stdio, start's
# pipes, kill). Platform ptrace: KVM hangs in this VM ("unable to read from the sync descriptor:
# 0, error EOF") and this build has no systrap. Network host (hostinet, in the Pod's namespace):
# this runsc's own stack refuses every Pod on this kernel ("cannot run with network enabled in
# root network namespace": it tells the root namespace by /proc/sys/net/core/rmem_default, which
# newer kernels show in every namespace).
#
#   CLUSTER_GVISOR=0              no runsc handler, no RuntimeClass, no gVisor smoke check
#   CLUSTER_LIMITS_SMOKE=0        no fork-bomb and disk-fill smoke checks (the e2e tier makes the
#                                 same through svc's sandboxes: e2e/isolation.test.ts)
#   CLUSTER_RUNSC_PLATFORM=p      runsc's --platform (default ptrace)
#   CLUSTER_RUNSC_NETWORK=n       runsc's --network (default host)
#   CLUSTER_RUNSC_DEBUG=1         runsc's debug logs under STATE/nI/runsc-logs/
#   CLUSTER_POD_PIDS_LIMIT=n      the kubelet's podPidsLimit (default 1024)
#   CLUSTER_CONTAINERD_BIN=DIR    containerd, containerd-shim-runc-v2 and runc from DIR (PATH first)

# containerd, its runc shim and runc from a folder of their own (containerd 2 and runc >= 1.2 for
# user namespaces), or Debian's.
containerd_cmd=(containerd)
if [ -n "${CLUSTER_CONTAINERD_BIN:-}" ]; then
  for b in containerd containerd-shim-runc-v2 runc; do
    [ -x "$CLUSTER_CONTAINERD_BIN/$b" ] || die "CLUSTER_CONTAINERD_BIN: no $b in $CLUSTER_CONTAINERD_BIN"
  done
  containerd_cmd=(env "PATH=$CLUSTER_CONTAINERD_BIN:$PATH" "$CLUSTER_CONTAINERD_BIN/containerd")
fi
pod_pids_limit=${CLUSTER_POD_PIDS_LIMIT:-1024}
[[ $pod_pids_limit =~ ^[1-9][0-9]*$ ]] || die "CLUSTER_POD_PIDS_LIMIT must be a positive number, not '$pod_pids_limit'"
gvisor=0
if [ "${CLUSTER_GVISOR:-1}" != 0 ]; then
  if command -v runsc >/dev/null; then
    gvisor=1
  else
    say "runsc is missing (hack/cluster/deps.sh installs it): no RuntimeClass gvisor"
  fi
fi

# isolation_containerd NODE_DIR: the runsc handler, appended to the node's containerd.toml (a TOML
# table of its own, so it may follow the others).
isolation_containerd() {
  [ "$gvisor" = 1 ] || return 0
  local n=$1 debug=
  mkdir -p "$n/runsc-root" "$n/runsc-logs"
  [ "${CLUSTER_RUNSC_DEBUG:-0}" = 0 ] || debug="--debug --debug-log=$n/runsc-logs/ --strace"
  # runsc with its flags, then the adjustments the runc shim needs (runsc-shim.sh).
  {
    echo '#!/bin/bash'
    echo "# runsc for containerd's runc shim on node $(basename "$n") (hack/cluster/isolation.sh, runsc-shim.sh)"
    echo "runsc='$(command -v runsc) --platform=${CLUSTER_RUNSC_PLATFORM:-ptrace} --network=${CLUSTER_RUNSC_NETWORK:-host} $debug'"
    cat "$here/runsc-shim.sh"
  } >"$n/runsc"
  chmod 755 "$n/runsc"
  cat <<EOF
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc.options]
    BinaryName = "$n/runsc"
    Root = "$n/runsc-root"
    SystemdCgroup = false
EOF
}

# isolation_kubelet: appended to the node's kubelet.yaml. podPidsLimit bounds the processes (and
# threads) of every Pod on the node, through the pids cgroup of the Pod.
isolation_kubelet() {
  echo "podPidsLimit: $pod_pids_limit"
}

isolation_up() {
  [ "$gvisor" = 1 ] || return 0
  k apply -f - >/dev/null <<EOF
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: { name: gvisor }
handler: runsc
EOF
  say "RuntimeClass gvisor (handler runsc, platform ${CLUSTER_RUNSC_PLATFORM:-ptrace}); podPidsLimit $pod_pids_limit"
}

# iso_pod NAME NODE EXTRA-SPEC CONTAINERS: a Pod of the busybox image on NODE.
iso_pod() {
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: $1, namespace: default }
spec:
  nodeName: $2
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 1
$3
  containers:
$4
EOF
}

iso_running() { [ "$(k get pod "$1" -o 'jsonpath={.status.phase}')" = Running ]; }

isolation_smoke() {
  local t0 t1 got nn=n1 uid cgdir
  if [ "$gvisor" = 1 ]; then
    # As a sandbox Pod: an init container fills an emptyDir the main container reads, and the
    # containers share one PID namespace.
    t0=$(date +%s.%N)
    iso_pod iso-gvisor "$nn" "  runtimeClassName: gvisor
  shareProcessNamespace: true
  initContainers:
    - { name: init, image: localhost/svc/busybox:latest, imagePullPolicy: Never, args: [-c, 'echo ok >/work/init'], volumeMounts: [{ name: work, mountPath: /work }] }
  volumes: [{ name: work, emptyDir: {} }]" \
      "    - { name: main, image: localhost/svc/busybox:latest, imagePullPolicy: Never, args: [-c, 'cat /work/init; exec sleep 2147483646'], volumeMounts: [{ name: work, mountPath: /work }] }"
    wait_for "Pod iso-gvisor Running ($state/kubectl describe pod iso-gvisor; $state/logs/containerd-$nn.log)" 120 \
      iso_running iso-gvisor
    t1=$(date +%s.%N)
    got=$(k logs iso-gvisor -c main)
    [ "$got" = ok ] || die "iso-gvisor's main container read '$got' from the emptyDir, not ok"
    got=$(k exec iso-gvisor -c main -- busybox dmesg 2>&1) || true
    echo "$got" | grep -q gVisor || die "iso-gvisor's dmesg is not gVisor's: $got"
    say "Pod iso-gvisor (runtimeClassName gvisor) Running in $(elapsed "$t0" "$t1")s; dmesg: $(echo "$got" | head -n 1)"
    # The pause container sleeps 2147483647 s, the main container 2147483646 s: with one PID
    # namespace, the main container sees both.
    got=$(k exec iso-gvisor -c main -- ps -o pid,args 2>&1) || true
    if echo "$got" | grep -q 'sleep 2147483647$'; then
      say "iso-gvisor: init container and emptyDir work; the containers share a PID namespace"
    else
      # Recorded, not fatal: this runsc gives each container a PID namespace of its own.
      say "iso-gvisor: init container and emptyDir work; shareProcessNamespace is NOT honoured: the main container sees only $(echo "$got" | grep -c sleep) sleep (its own)"
    fi
  fi

  if [ "${CLUSTER_LIMITS_SMOKE:-1}" != 0 ]; then
    # A fork bomb in one Pod (busybox ash runs a special builtin before a function named `:`, so
    # the bomb is named b); another Pod on the same node answers exec within 2 s.
    iso_pod iso-peer "$nn" "" \
      "    - { name: main, image: localhost/svc/busybox:latest, imagePullPolicy: Never, args: [-c, 'exec sleep 2147483647'] }"
    iso_pod iso-bomb "$nn" "" \
      "    - name: main
      image: localhost/svc/busybox:latest
      imagePullPolicy: Never
      args: [-c, 'b() { b | b & }; b; exec sleep 2147483647']
      resources: { limits: { cpu: '1', memory: 512Mi } }"
    wait_for "Pod iso-peer Running" 60 iso_running iso-peer
    wait_for "Pod iso-bomb Running" 60 iso_running iso-bomb
    uid=$(k get pod iso-bomb -o 'jsonpath={.metadata.uid}')
    cgdir=$(find "/sys/fs/cgroup/pids/$cg/$nn" -type d -name "pod$uid" | head -n 1)
    [ -n "$cgdir" ] || die "no pids cgroup for iso-bomb (pod$uid) under /sys/fs/cgroup/pids/$cg/$nn"
    wait_for "iso-bomb reaching its pids limit ($cgdir)" 180 sh -c "[ \$(cat $cgdir/pids.current) -ge $pod_pids_limit ]"
    # Five execs once the bomb is at its limit; the median must be under 2 s (on a loaded 2-core
    # machine one can be slower whatever the bomb does: all five are reported).
    local ms i all=""
    for i in 1 2 3 4 5; do
      t0=$(date +%s%N)
      got=$(k exec iso-peer -- echo ok 2>&1) || true
      ms=$((($(date +%s%N) - t0) / 1000000))
      [ "$got" = ok ] || die "iso-peer does not answer exec during the fork bomb: $got"
      all="$all $ms"
    done
    ms=$(echo "$all" | tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n 3p)
    say "fork bomb in iso-bomb: pids.max $(cat "$cgdir/pids.max"), pids.current $(cat "$cgdir/pids.current"); iso-peer answers exec ok in$all ms (median $ms, load $(cut -d' ' -f1 /proc/loadavg))"
    [ "$ms" -le 2000 ] || die "iso-peer's median exec took ${ms} ms during the fork bomb (over 2 s)"
    k delete pod iso-bomb --wait=false >/dev/null

    # A Pod writing past its ephemeral-storage limit into its own filesystem is evicted.
    t0=$(date +%s.%N)
    iso_pod iso-disk "$nn" "  restartPolicy: Never" \
      "    - name: main
      image: localhost/svc/busybox:latest
      imagePullPolicy: Never
      args: [-c, 'busybox dd if=/dev/zero of=/fill bs=1M count=64 2>/dev/null; exec sleep 2147483647']
      resources: { limits: { ephemeral-storage: 20Mi } }"
    wait_for "Pod iso-disk evicted ($state/kubectl describe pod iso-disk; $state/logs/kubelet-$nn.log)" 180 \
      sh -c "[ \"\$('$state/kubectl' get pod iso-disk -o 'jsonpath={.status.reason}')\" = Evicted ]"
    t1=$(date +%s.%N)
    say "Pod iso-disk evicted $(elapsed "$t0" "$t1")s after create: $(k get pod iso-disk -o 'jsonpath={.status.phase} {.status.reason}: {.status.message}')"
    k delete pod iso-disk iso-peer --wait=false >/dev/null
  fi
  [ "$gvisor" = 1 ] && k delete pod iso-gvisor --wait=false >/dev/null
  return 0
}
