#!/usr/bin/env bash
# A TCP forwarder from the machine's own namespace, on 127.0.0.1 only, to an address that
# exists only inside one of a run's network namespaces (the apiserver in the control plane's,
# a Service's ClusterIP in a node's, where kube-proxy's rules are). Prints the local port.
#
#   hack/cluster/forward.sh STATE NAME NETNS ADDR:PORT [LOCAL_PORT]
#
# Two socats, each started once: one inside NETNS (`nsenter --net` through the
# STATE/nsexec-NETNS wrapper) listens on the unix socket STATE/forward-NAME.sock and dials
# ADDR:PORT there per connection; one in the machine's namespace listens on
# 127.0.0.1:LOCAL_PORT (a free one by default) and passes each connection to that socket. The
# machine's namespace gets no address, route or rule, and nothing but 127.0.0.1 listens. Each
# forks per connection but execs nothing: a new connection costs a fork, not the nsenter, shell
# and socat a per-connection `EXEC:` would start (15–77 ms each on a loaded machine, which
# every e2e test and bench paid on its first request of a connection).
# The 127.0.0.1 listener's pid goes to STATE/pids/forward-NAME and its port to
# STATE/forward-NAME.port; the inner socat is its child, started with a parent-death signal,
# so killing that pid ends both. Both command lines name the state folder, so down.sh stops
# them with the run's other processes. Asking again for a NAME whose forwarder is alive
# prints its port.
set -euo pipefail
say() { echo "hack/cluster: forward: $*" >&2; }
die() {
  say "$*"
  exit 1
}
[ $# -ge 4 ] || die "usage: forward.sh STATE NAME NETNS ADDR:PORT [LOCAL_PORT]"
state=${1%/} name=$2 netns=$3 target=$4 want=${5:-}
[ -f "$state/env" ] || die "$state is not a hack/cluster run (no env file)"
[[ $name =~ ^[a-z0-9-]+$ ]] || die "NAME must be lower-case letters, digits and dashes, not '$name'"
[ -e "/run/netns/$netns" ] || die "no network namespace $netns (is the run up?)"
[[ $target =~ ^[0-9.]+:[0-9]+$ ]] || die "ADDR:PORT must be an IPv4 address and a port, not '$target'"
command -v socat >/dev/null || die "socat is missing: run hack/cluster/deps.sh"

listening() { ss -Hltn "sport = :$1" | grep -q .; }
# Whether process $2 itself listens on port $1 (not another program that took the port).
ours() { ss -Hltnp "sport = :$1" | grep -q "pid=$2,"; }

pidfile=$state/pids/forward-$name portfile=$state/forward-$name.port sock=$state/forward-$name.sock
if [ -f "$pidfile" ] && [ -f "$portfile" ] && ours "$(cat "$portfile")" "$(cat "$pidfile")"; then
  cat "$portfile"
  exit 0
fi

wrapper=$state/nsexec-$netns
cat >"$wrapper" <<EOF
#!/bin/sh
# Runs a command in network namespace $netns (hack/cluster/forward.sh).
exec nsenter --net=/run/netns/$netns -- "\$@"
EOF
chmod +x "$wrapper"

for attempt in $(seq 1 20); do
  if [ -n "$want" ]; then
    port=$want
  else
    port=$((20000 + RANDOM % 30000))
    listening "$port" && continue
  fi
  rm -f "$sock"
  # The inner socat first, in the background, as a child of the shell that then becomes the
  # outer one (exec keeps its pid): its parent-death signal fires when the outer one ends.
  # nsenter with --net alone execs its command without forking, so the signal stays set.
  # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
  setsid bash -c 'setpriv --pdeathsig TERM "$1" socat "UNIX-LISTEN:$2,fork,unlink-early" "TCP:$3" &
    exec socat "TCP-LISTEN:$4,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$2"' \
    forward "$wrapper" "$sock" "$target" "$port" >"$state/logs/forward-$name.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    ours "$port" "$pid" && [ -S "$sock" ] && break
    sleep 0.05
  done
  if ours "$port" "$pid" && [ -S "$sock" ]; then
    echo "$pid" >"$pidfile"
    echo "$port" >"$portfile"
    say "$name: 127.0.0.1:$port -> $target in $netns"
    echo "$port"
    exit 0
  fi
  kill "$pid" 2>/dev/null || true
  [ -z "$want" ] || die "cannot listen on 127.0.0.1:$want (taken?): $state/logs/forward-$name.log"
  [ "$attempt" -lt 20 ] || die "no free port found for $name: $state/logs/forward-$name.log"
done
