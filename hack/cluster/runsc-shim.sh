# The body of each node's runsc wrapper (isolation.sh writes STATE/nI/runsc: a line setting $runsc,
# runsc with its flags, then this), which containerd's runc shim (io.containerd.runc.v2) calls as
# its BinaryName with runc's command line. runsc takes that command line; what differs is
# adjusted here:
#
# - A Pod's second and later containers (init and main containers, beside the pause container)
#   run inside the pause container's sandbox, and `runsc create` writes the sandbox's pid into
#   --pid-file for them. The shim waits on that pid for the container's exit, so an init
#   container would never finish. And runsc gives such a container the stdio of `runsc start`,
#   where runc keeps those `runc create` was given (the shim passes the container's pipes to
#   create only). So the pid file gets the pid of a waiter instead, a process that outlives
#   this script (the shim, a subreaper, adopts it) holding create's stdio: when the shim calls
#   start, the waiter runs `runsc start` with that stdio, then waits for the container's exit
#   (`runsc wait`) and exits with its status.
# - `runsc kill` refuses a container that was created but never started ("cannot signal
#   container in state created"), so a Pod whose sandbox failed to start could never be
#   removed: such a container is deleted instead (and the sandbox process, for the pause
#   container, killed), as runc would.
# - `kill` of a container whose sandbox died says "container not running", as runc does.
# - `delete` of a container runsc no longer knows succeeds (runc's "does not exist").
# - `start` answers through files (below), not through the shim's pipes.
#
# gVisor's own shim (containerd-shim-runsc-v1) does all this itself; Debian does not ship it.

# The global flags go-runc puts before the command.
globals="" root=/run/runsc # runsc's default, unless the shim names one (it does: Root)
while [ $# -gt 0 ]; do
  case $1 in
  --root | --log | --log-format)
    globals="$globals $1 $2"
    [ "$1" != --root ] || root=$2
    shift 2
    ;;
  -*)
    globals="$globals $1"
    shift
    ;;
  *) break ;;
  esac
done
cmd=$1
# shellcheck disable=SC2086 # $runsc and $globals are word lists
rs() { $runsc $globals "$@"; }
# status ID: the container's OCI status (created, running, stopped), or nothing.
status() { rs state "$1" 2>/dev/null | sed -n 's/^ *"status": *"\([a-z]*\)".*/\1/p'; }
sandbox_pid() { rs state "$1" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\).*/\1/p'; }

case $cmd in
create)
  shift
  bundle="" pidfile="" id=""
  args=""
  while [ $# -gt 0 ]; do
    case $1 in
    --bundle | -b)
      bundle=$2
      args="$args $1 $2"
      shift 2
      ;;
    --pid-file)
      pidfile=$2
      shift 2
      ;;
    --console-socket)
      args="$args $1 $2"
      shift 2
      ;;
    -*)
      args="$args $1"
      shift
      ;;
    *)
      id=$1
      shift
      ;;
    esac
  done
  if [ -z "$pidfile" ] || ! grep -q '"io.kubernetes.cri.container-type": *"container"' "$bundle/config.json"; then
    # shellcheck disable=SC2086
    exec $runsc $globals create $args ${pidfile:+--pid-file "$pidfile"} "$id"
  fi
  # shellcheck disable=SC2086
  $runsc $globals create $args --pid-file "$pidfile.sandbox" "$id" || exit $?
  d=$root/$id.shim
  mkdir -p "$d"
  (
    # The container's stdio stays (runsc start hands its own to the container); nothing else of
    # the shim's: go-runc waits for EOF on the pipes it gave this script.
    for fd in $(ls /proc/self/fd); do [ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null; done
    i=0
    until [ -e "$d/start" ]; do
      sleep 0.1
      i=$((i + 1))
      [ $((i % 20)) != 0 ] || [ -n "$(status "$id")" ] || exit 137 # deleted before it started
    done
    # shellcheck disable=SC2086
    $runsc $globals start "$id"
    rc=$?
    echo "$rc" >"$d/rc.tmp" && mv "$d/rc.tmp" "$d/rc"
    [ "$rc" = 0 ] || exit 137
    code=$(rs wait "$id" </dev/null 2>/dev/null | sed -n 's/.*"exitStatus": *\([0-9]*\).*/\1/p')
    exit "${code:-137}"
  ) &
  printf %s $! >"$pidfile" # no newline: the shim parses it as a bare number
  exit 0
  ;;
start)
  # A Pod's later container: its waiter starts it, with the container's stdio (above).
  id=${2:-}
  d=$root/$id.shim
  if [ -n "$id" ] && [ -d "$d" ]; then
    : >"$d/start"
    for i in $(seq 1 1200); do
      [ ! -e "$d/rc" ] || exit "$(cat "$d/rc")"
      sleep 0.05
    done
    echo "runsc start of $id did not answer in 60s" >&2
    exit 1
  fi
  ;;
kill)
  # kill [--all] ID SIGNAL
  id=""
  for a in "$@"; do
    case $a in kill | -*) ;; *) [ -n "$id" ] || id=$a ;; esac
  done
  if [ -n "$id" ] && [ "$(status "$id")" = created ]; then
    if rs state "$id" 2>/dev/null | grep -q '"io.kubernetes.cri.container-type": *"sandbox"'; then
      pid=$(sandbox_pid "$id")
      [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null
    fi
    rs delete --force "$id"
    exit 0
  fi
  ;;
delete)
  id=""
  for a in "$@"; do
    case $a in delete | -*) ;; *) id=$a ;; esac
  done
  [ -z "$id" ] || rm -rf "$root/$id.shim"
  [ -z "$id" ] || [ -n "$(status "$id")" ] || exit 0
  ;;
esac
case $cmd in
exec | run | events)
  # The process's stdio (exec), a stream (events): passed through.
  # shellcheck disable=SC2086
  exec $runsc $globals "$@"
  ;;
esac
# The rest answer through files, not the shim's pipes: `runsc start` starts a container's gofer,
# which would inherit the pipe and hold it open for the container's life, and go-runc waits for
# EOF on it (the shim would hang in Start).
out=$(mktemp) err=$(mktemp)
# shellcheck disable=SC2086
$runsc $globals "$@" >"$out" 2>"$err" </dev/null
rc=$?
# A container whose sandbox is gone: runc's words, which the shim takes as "already finished"
# (otherwise containerd retries the stop of a dead Pod for ever).
if [ "$cmd" = kill ] && [ "$rc" != 0 ] && grep -q 'not running\|in state stopped' "$err"; then
  echo "container not running" >>"$err"
fi
cat "$out"
cat "$err" >&2
rm -f "$out" "$err"
exit $rc
