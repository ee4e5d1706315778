#!/usr/bin/env bash
# Removes everything hack/cluster/up.sh made for one run: its processes (daemons, shims and
# every container, found by the state folder in their command lines and by the run's cgroups),
# the mounts under the state folder, the network namespaces (and with them every address,
# route, iptables/nftables rule, ipset and conntrack entry, which all live inside them), the
# cgroups, the fixed folders it had to make (once no run is left), and the state folder. Idempotent.
#   hack/cluster/down.sh [STATE]   default: the run .dev/cluster-state names
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "hack/cluster: $*" >&2; }

state=${1:-$(cat "$repo/.dev/cluster-state" 2>/dev/null || true)}
[ -n "$state" ] || {
  say "no run to take down (no STATE argument and no .dev/cluster-state)"
  exit 0
}
state=${state%/}
[ -f "$state/env" ] || {
  say "$state is not a hack/cluster run (no env file)"
  exit 1
}
# shellcheck disable=SC1091
. "$state/env"

pids_of_run() {
  # Daemons and shims name the state folder in their command lines.
  pgrep -f -- "$STATE/" | grep -vx -e "$$" -e "$BASHPID" || true
  # Containers live in the run's cgroups (every hierarchy holds the same processes; one is enough).
  for h in /sys/fs/cgroup/memory /sys/fs/cgroup/pids /sys/fs/cgroup; do
    [ -d "$h/$CGROUP" ] || continue
    find "$h/$CGROUP" -name cgroup.procs -exec cat {} + 2>/dev/null
    break
  done
}

# kubelet first, so it restarts nothing; then the rest politely, then by force.
for f in "$STATE"/pids/kubelet-*; do
  [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
sleep 0.5
# shellcheck disable=SC2046
kill $(pids_of_run) 2>/dev/null
for i in $(seq 1 20); do
  [ -z "$(pids_of_run)" ] && break
  sleep 0.25
done
left=$(pids_of_run)
if [ -n "$left" ]; then
  # shellcheck disable=SC2086
  kill -9 $left 2>/dev/null
  sleep 0.5
fi
left=$(pids_of_run)
[ -z "$left" ] || say "processes still alive: $left"

# Mounts under the state folder (rootfs overlays, pod netns, volumes), deepest first.
for i in 1 2 3; do
  mounts=$(awk -v p="$STATE/" 'index($5, p) == 1 {print $5}' /proc/self/mountinfo | sort -r)
  [ -z "$mounts" ] && break
  for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
done
for ns in $NETNS; do
  [ -e "/run/netns/$ns" ] && ip netns delete "$ns"
done
# The run's cgroups, in every hierarchy, leaves first.
for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
  [ -d "$h$CGROUP" ] || continue
  find "$h$CGROUP" -depth -type d -exec rmdir {} \; 2>/dev/null
  [ -d "$h$CGROUP" ] && say "cgroup $h$CGROUP is still there"
done
# The fixed folders up.sh had to make (to bind each node's own over them), once no other run
# is up: removing a folder another run's namespace binds over would unmount it there.
others=$(find /run/netns -maxdepth 1 -name 'svcc-*' 2>/dev/null | grep -v "/svcc-$RUN-" || true)
if [ -z "$others" ] && [ -f /run/svc-cluster.made ]; then
  while read -r d; do rmdir "$d" 2>/dev/null; done </run/svc-cluster.made
  rm -f /run/svc-cluster.made
fi
rm -rf "$STATE"
[ "$(cat "$repo/.dev/cluster-state" 2>/dev/null)" = "$STATE" ] && rm -f "$repo/.dev/cluster-state"
say "run $RUN removed ($STATE)"
if [ "$STATE" = "/tmp/svc-cluster-$RUN" ]; then
  "$here/check-no-leftovers.sh" "$RUN"
fi
