#!/usr/bin/env bash
# Fails when a hack/cluster run left something behind: a process naming its state folder, a
# process in its cgroups, a mount under its state folder, one of its network namespaces, one of
# its cgroups, its state folder (under /tmp, up.sh's default). With a run id, only that run counts (another run may be up).
#   hack/cluster/check-no-leftovers.sh [RUN]
set -uo pipefail
run=${1:-}
[ -z "$run" ] || [[ $run =~ ^[0-9a-f]{4}$ ]] || {
  echo "usage: $0 [RUN] (a 4-hex-digit run id)" >&2
  exit 2
}
id=${run:-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]}
if [ -n "$run" ]; then state_re="/tmp/svc-cluster-$run/"; else state_re="/tmp/svc-cluster-[0-9a-f]{4}/"; fi
found=0
report() {
  echo "hack/cluster: left behind: $*" >&2
  found=1
}

procs=$(pgrep -af -- "$state_re" | grep -v -e check-no-leftovers -e "^$$ " || true)
[ -z "$procs" ] || report "processes:
$procs"
# shellcheck disable=SC2086
for d in /sys/fs/cgroup/*/svc-cluster-$id /sys/fs/cgroup/svc-cluster-$id; do
  [ -d "$d" ] || continue
  report "cgroup $d"
  p=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
  [ -z "$p" ] || report "processes in $d: $p"
done
m=$(grep -E " $state_re" /proc/self/mountinfo | awk '{print $5}')
[ -z "$m" ] || report "mounts:
$m"
for ns in /run/netns/svcc-$id-*; do
  [ -e "$ns" ] && report "network namespace ${ns##*/}"
done
# The run's routes (the Service range from the control plane through a node, the Pod ranges
# between nodes) live in its namespaces; none may be in the machine's own routing table.
if [ -n "$run" ]; then
  net=10.$((0x$run % 200 + 20)) # up.sh's range for the run
  r=$(ip route show | grep -E "(^| )$net\." || true)
  [ -z "$r" ] || report "routes into $net.0.0/16 in the machine's namespace:
$r"
fi
for d in /tmp/svc-cluster-$id; do
  [ -e "$d" ] && report "state folder $d"
done
if [ -d /var/log/containers ]; then
  l=$(find /var/log/containers -maxdepth 1 -type l -lname "/tmp/svc-cluster-$id/*")
  [ -z "$l" ] || report "links in /var/log/containers: $l"
fi
if [ -z "$run" ] && [ -f /run/svc-cluster.made ]; then
  report "folders made for the runs' bind mounts (/run/svc-cluster.made): $(tr '\n' ' ' </run/svc-cluster.made)"
fi
what=${run:+run $run}
[ "$found" = 0 ] && echo "hack/cluster: nothing left behind by ${what:-any run}" >&2
exit "$found"
