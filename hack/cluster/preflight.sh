#!/usr/bin/env bash
# What a real cluster of hack/cluster needs from this machine beyond its Debian packages
# (deps.sh) and Go binaries (build.sh), each tried for real where it is cheap — in a network
# or mount namespace made for the try and gone with it — rather than guessed from versions.
# Prints one line per missing prerequisite saying what to do, and exits 1 if there is any;
# up.sh runs it first, so a machine that cannot run a cluster says why before anything is made.
#   hack/cluster/preflight.sh [STATE_PARENT]   STATE_PARENT: where state folders go (/tmp)
set -uo pipefail
parent=${1:-${TMPDIR:-/tmp}}
problems=0
need() { # one missing prerequisite: what, and what to do
  echo "hack/cluster: $*" >&2
  problems=$((problems + 1))
}
have() { command -v "$1" >/dev/null; }

if [ "$(id -u)" != 0 ]; then
  need "run as root (sudo make cluster): network namespaces, cgroups, mounts and each node's containerd need it"
  exit 1 # nothing below can be tried
fi
tools=1
for b in unshare nsenter ip mount; do
  have "$b" || {
    need "$b is missing: run hack/cluster/deps.sh (util-linux, iproute2)"
    tools=0
  }
done

# --- namespaces and the network devices each run makes ----------------------------------------
if ((tools)); then
  if ! out=$(unshare --net true 2>&1); then
    need "cannot make a network namespace ($out): a VM, or a container run with --privileged, is needed"
  else
    out=$(unshare --net sh -c 'ip link add svcpf0 type veth peer name svcpf1 && ip link add svcpfbr type bridge' 2>&1) ||
      need "cannot make veth pairs and bridges ($out): load the kernel modules (modprobe veth bridge)"
    if have iptables; then
      out=$(unshare --net iptables -w -t nat -S 2>&1 >/dev/null) ||
        need "iptables cannot use the nat table in a network namespace ($out): load nf_tables or iptable_nat (modprobe nf_tables iptable_nat)"
    fi
    if [ ! -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
      have modprobe && modprobe br_netfilter 2>/dev/null
      [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] ||
        need "br_netfilter is not loaded (NetworkPolicies between Pods of one node need it): modprobe br_netfilter"
    fi
  fi
  out=$(unshare --mount true 2>&1) || need "cannot make a mount namespace ($out): a VM, or a container run with --privileged, is needed"
fi
# `ip netns add` keeps each namespace as a file under /run/netns.
if ! out=$(mkdir -p /run/netns 2>&1 && f=$(mktemp /run/netns/.svc-preflight-XXXXXX 2>&1) && rm -f "$f"); then
  need "/run/netns cannot be made or written (${out:-read-only}): ip netns keeps namespaces there; mount a writable tmpfs on /run (mount -t tmpfs tmpfs /run)"
fi

# --- overlayfs, containerd's snapshotter, where the state folders go ---------------------------
grep -qw overlay /proc/filesystems || { have modprobe && modprobe overlay 2>/dev/null; }
if ! grep -qw overlay /proc/filesystems; then
  need "the kernel has no overlay file system (containerd's snapshotter): modprobe overlay"
elif ((tools)) && [ -d "$parent" ]; then
  try=$(mktemp -d "$parent/.svc-preflight-XXXXXX")
  mkdir -p "$try"/{l,u,w,m}
  out=$(unshare --mount sh -c "mount -t overlay overlay -o lowerdir=$try/l,upperdir=$try/u,workdir=$try/w $try/m" 2>&1) ||
    need "cannot mount overlayfs in $parent ($out): put the state folders on a file system overlayfs stacks on (CLUSTER_STATE=/var/tmp/…, ext4 or xfs)"
  rm -rf "$try"
fi

# --- cgroups: a root of the run's own in every hierarchy, with the controllers kubelet uses ------
cg=/sys/fs/cgroup
want="cpu cpuacct cpuset memory pids devices freezer"
if [ -f "$cg/cgroup.controllers" ]; then # cgroup v2 only
  for c in cpu cpuset memory pids; do
    grep -qw "$c" "$cg/cgroup.controllers" ||
      need "cgroup v2 without the $c controller at $cg: kubelet needs cpu, cpuset, memory and pids (a VM or a host whose init delegates them)"
    grep -qw "$c" "$cg/cgroup.subtree_control" ||
      need "cgroup v2: $c is not enabled for child cgroups: echo +$c > $cg/cgroup.subtree_control"
  done
  probe=$cg
elif [ -f "$cg/memory/cgroup.procs" ] || [ -d "$cg/cpu" ]; then # cgroup v1 (hybrid: v1 controllers)
  for c in $want; do
    [ -f "$cg/$c/cgroup.procs" ] ||
      need "cgroup v1 without a $c hierarchy at $cg/$c: mount it (mkdir -p $cg/$c && mount -t cgroup -o $c cgroup $cg/$c), or boot with cgroup v2"
  done
  probe=$cg/memory
else
  need "no cgroup hierarchy is mounted at $cg: mount cgroup v2 (mount -t cgroup2 cgroup2 $cg) or the v1 controllers ($want)"
  probe=""
fi
if [ -n "$probe" ] && [ -f "$probe/cgroup.procs" ]; then
  d=$probe/svc-preflight-$$
  if out=$(mkdir "$d" 2>&1); then
    rmdir "$d"
  else
    need "cannot make cgroups under $probe ($out): a read-only cgroup file system (an unprivileged container); a VM or --privileged is needed"
  fi
fi

# --- what kubelet reads at start ---------------------------------------------------------------
# Its OOM watcher reads the kernel log; kubelet exits without it.
if [ ! -c /dev/kmsg ] || [ ! -r /dev/kmsg ]; then
  need "/dev/kmsg is not a readable character device (kubelet's OOM watcher reads it): in a container, pass it in (--device /dev/kmsg)"
fi

# --- room ------------------------------------------------------------------------------------
if [ -d "$parent" ]; then
  free=$(df -Pk "$parent" | awk 'NR == 2 {print int($4 / 1024)}')
  ((free >= 2048)) || need "only ${free} MiB free in $parent: a run's containerd roots and images need about 2 GiB (CLUSTER_STATE= elsewhere)"
fi
avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
((avail >= 1536)) || need "only ${avail} MiB of memory available: two nodes hold about 1.4 GiB (NODES=1 needs less)"

if ((problems)); then
  echo "hack/cluster: $problems prerequisite(s) missing; nothing was made" >&2
  exit 1
fi
echo "hack/cluster: preflight ok (root, namespaces, veth and bridge, iptables, overlayfs, cgroups, /dev/kmsg, room)" >&2
