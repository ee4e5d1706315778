#!/usr/bin/env bash
# The images hack/cluster/images.sh imported, run in Pods on every node of the run, from the
# nodes' containerd only (imagePullPolicy: Never):
#   - localhost/svc/svc:dev through its ENTRYPOINT as the image's USER (runAsNonRoot, so the
#     kubelet verifies the numeric user; runAsGroup as the chart sets it) with a read-only root and an emptyDir at /tmp, as the
#     chart runs it: `--help` prints the usage (exit 2); and a shell in it shows uid and gid
#     65532, WORKDIR /app, HOME /tmp, Node 24 and sandboxd at /usr/local/bin/sandboxd;
#   - each template image (debian:bookworm, debian:bookworm-slim) as the operator runs it:
#     sandboxd copied in by an init container of the svc image as 65532, then `id && sh -c
#     'echo ok'` and the copied sandboxd (static: it runs and asks for its token) as user 1000.
#   hack/cluster/images-check.sh STATE VERSION TEMPLATE-IMAGE...
set -euo pipefail
usage="usage: images-check.sh STATE VERSION TEMPLATE-IMAGE..."
state=${1:?$usage}
version=${2:?$usage}
shift 2
(($#)) || { echo "$usage" >&2; exit 2; }
say() { echo "hack/cluster: images: $*" >&2; }
die() {
  say "$*"
  exit 1
}
# shellcheck disable=SC1091
. "$state/env"
k() { "$state/kubectl" "$@"; }
ns=images-check-$(date +%s)
k create namespace "$ns" >/dev/null
trap 'k delete namespace "$ns" --wait=false >/dev/null 2>&1 || true' EXIT
for t in $(seq 1 40); do
  k -n "$ns" get serviceaccount default >/dev/null 2>&1 && break
  [ "$t" -lt 40 ] || die "no default ServiceAccount in $ns after 20s (kube-controller-manager: $state/logs/kube-controller-manager.log)"
  sleep 0.5
done

# The chart's container settings: no privilege, every capability dropped, a read-only root.
secure='runAsGroup: 65532, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: [ALL] }'
pods=()
declare -A image_of
for nn in $NODES; do
  k -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: svc-$nn }
spec:
  nodeName: $nn
  restartPolicy: Never
  automountServiceAccountToken: false
  # The chart's securityContext but runAsUser, which the image's USER gives. kubelet takes only
  # its uid (the gid would come from the image's /etc/passwd, which has no 65532: 0), which is
  # why the chart sets runAsGroup; here on the containers, as containerd 1.6 refuses a Pod-level
  # group without a user for the Pod's sandbox.
  securityContext: { runAsNonRoot: true, fsGroup: 65532, seccompProfile: { type: RuntimeDefault } }
  containers:
    - name: entrypoint
      image: localhost/svc/svc:dev
      imagePullPolicy: Never
      args: [--help]
      securityContext: { $secure }
      volumeMounts: [{ name: tmp, mountPath: /tmp }]
    - name: layout
      image: localhost/svc/svc:$version
      imagePullPolicy: Never
      command: [sh, -c, 'echo "\$(id -u):\$(id -g) \$(pwd) \$HOME \$(node --version)"; test -x /usr/local/bin/sandboxd && echo sandboxd']
      securityContext: { $secure }
      volumeMounts: [{ name: tmp, mountPath: /tmp }]
  volumes: [{ name: tmp, emptyDir: {} }]
EOF
  pods+=("svc-$nn")
  for image in "$@"; do
    tag=${image##*:}
    k -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: $tag-$nn }
spec:
  nodeName: $nn
  restartPolicy: Never
  automountServiceAccountToken: false
  initContainers:
    - name: install
      image: localhost/svc/svc:dev
      imagePullPolicy: Never
      command: [cp, /usr/local/bin/sandboxd, /svc-bin/sandboxd]
      securityContext: { runAsUser: 65532, runAsNonRoot: true, $secure }
      volumeMounts: [{ name: bin, mountPath: /svc-bin }]
  containers:
    - name: main
      image: $image
      imagePullPolicy: Never
      command: [sh, -c, "id && sh -c 'echo ok' && { /svc-bin/sandboxd 2>&1 || true; } | head -n 1"]
      securityContext: { runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true, allowPrivilegeEscalation: false }
      volumeMounts: [{ name: bin, mountPath: /svc-bin, readOnly: true }]
  volumes: [{ name: bin, emptyDir: {} }]
EOF
    pods+=("$tag-$nn")
    image_of[$tag-$nn]=$image
  done
done
t0=$(date +%s)

# finished POD: each container's "name=exitCode" once all have terminated; empty before.
finished() {
  local out
  out=$(k -n "$ns" get pod "$1" -o 'jsonpath={range .status.containerStatuses[*]}{.name}={.state.terminated.exitCode} {end}')
  [[ -n $out && $out != *"= "* ]] && echo "${out% }"
}
# expect POD CONTAINER PATTERN: the container's log must match PATTERN (grep -E, whole log).
expect_log() {
  local log
  log=$(k -n "$ns" logs "$1" -c "$2")
  grep -Eq "$3" <<<"$log" || die "$1/$2: log does not match /$3/:"$'\n'"$log"
}
for p in "${pods[@]}"; do
  got=""
  for t in $(seq 1 240); do
    got=$(finished "$p") && break
    [ "$t" -lt 240 ] || {
      k -n "$ns" describe pod "$p" >&2 || true
      die "Pod $p not finished after 120s"
    }
    sleep 0.5
  done
  node=${p##*-}
  case $p in
    svc-*)
      [ "$got" = "entrypoint=2 layout=0" ] || {
        k -n "$ns" logs "$p" --all-containers >&2 || true
        die "$p: exit codes $got, expected entrypoint=2 layout=0"
      }
      expect_log "$p" entrypoint '^usage: svc <'
      expect_log "$p" layout '^65532:65532 /app /tmp v24\.'
      expect_log "$p" layout '^sandboxd$'
      say "$node: localhost/svc/svc:dev ENTRYPOINT --help prints the usage (exit 2); $(k -n "$ns" logs "$p" -c layout | head -n 1 | sed 's/^/uid:gid workdir HOME node = /'), sandboxd present ($(($(date +%s) - t0))s)"
      ;;
    *)
      [ "$got" = "main=0" ] || {
        k -n "$ns" logs "$p" --all-containers >&2 || true
        die "$p: exit codes $got, expected main=0"
      }
      expect_log "$p" main '^uid=1000 gid=1000 groups=1000$'
      expect_log "$p" main '^ok$'
      expect_log "$p" main 'a token is required'
      say "$node: ${image_of[$p]} runs id, sh and the copied sandboxd as uid 1000 ($(($(date +%s) - t0))s)"
      ;;
  esac
done
say "${#pods[@]} Pods on $NODES passed"
