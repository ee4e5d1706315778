# shellcheck shell=bash
# shellcheck disable=SC2034 # the df_ variables are for the script that sources this file
# The Dockerfile's runtime stage, read once for everything that rebuilds the image without
# Docker: hack/image/check.sh (`make image-check`) rebuilds its file system and runs it,
# hack/cluster/images.sh (`make images`) packs it as an OCI image for a real cluster. Both
# source this file, so the two cannot read the Dockerfile differently.
#
#   . hack/image/dockerfile.sh
#   dockerfile_read ROOT VERSION   parses ROOT/Dockerfile (VERSION: the build's ARG VERSION,
#                                  empty for the ARG's default), exits through df_fail
#   dockerfile_source STAGE PATH BUILD   where a `COPY --from=STAGE PATH` comes from: the
#                                  build stage's /app is BUILD/app (hack/image/app.sh's output),
#                                  the sandboxd stage's /src/dist is ROOT/dist (make sandboxd-binary)
#
# What dockerfile_read sets:
#   df_gostage df_build df_runtime   each stage's instructions, continuation lines joined
#   df_from       the runtime stage's base image (node:24-bookworm-slim)
#   df_version    ARG VERSION: VERSION when given, else its default in the Dockerfile
#   df_labels     LABEL key=value pairs, ${VERSION} expanded
#   df_copies     one "STAGE SRC DEST" per COPY --from, in order
#   df_env        ENV KEY=VALUE pairs; df_home HOME's value
#   df_workdir df_user df_uid df_gid df_entrypoint (the JSON array as written)
# Any instruction in the runtime stage that these do not cover fails: a new one must be
# taught here, once, for both.

df_fail() {
  echo "${df_prog:-dockerfile}: $*" >&2
  exit 1
}

dockerfile_read() {
  local root=$1 version=${2:-} l stage=0 names=() op rest
  local env_re='^([A-Za-z_][A-Za-z0-9_]*)=([^[:space:]"]*)$'
  df_root=$root
  local -a lines args
  mapfile -t lines < <(awk '
    /^[[:space:]]*#/ || /^[[:space:]]*$/ { next }
    { line = line $0 }
    /\\$/ { sub(/\\$/, "", line); next }
    { print line; line = "" }' "$root/Dockerfile")
  # Three stages: `sandboxd` (Go), `build` (Node) and the unnamed runtime stage, in that order.
  df_gostage=() df_build=() df_runtime=()
  for l in "${lines[@]}"; do
    if [[ $l == FROM* ]]; then
      stage=$((stage + 1))
      names+=("$(sed -nE 's/^FROM .* AS ([a-z0-9_-]+)$/\1/ip' <<<"$l")")
    fi
    case $stage in
      1) df_gostage+=("$l") ;;
      2) df_build+=("$l") ;;
      3) df_runtime+=("$l") ;;
    esac
  done
  ((stage == 3)) || df_fail "expected a sandboxd stage, a build stage and a runtime stage in the Dockerfile, found $stage stages"
  [[ ${names[0]} == sandboxd && ${names[1]} == build && -z ${names[2]} ]] ||
    df_fail "expected stages named sandboxd and build, then the runtime stage; found '${names[*]}'"
  # The stages must make /src/dist and /app the way dockerfile_source says.
  [[ ${df_gostage[0]} =~ ^FROM\ golang: ]] || df_fail "the sandboxd stage must build FROM a golang image: ${df_gostage[0]}"
  printf '%s\n' "${df_gostage[@]}" | grep -q 'make .*sandboxd-binary' || df_fail "the sandboxd stage no longer runs make sandboxd-binary"
  printf '%s\n' "${df_build[@]}" | grep -q 'hack/image/app.sh /app' || df_fail "the build stage no longer runs hack/image/app.sh /app"

  df_from="" df_version="" df_labels=() df_copies=() df_env=() df_home="" df_workdir=/ df_user="" df_entrypoint=""
  local labels=""
  for l in "${df_runtime[@]}"; do
    read -r op rest <<<"$l"
    case $op in
      FROM) df_from=$rest ;;
      ARG)
        [[ $rest =~ ^VERSION=([^[:space:]]+)$ ]] || df_fail "only ARG VERSION=default is understood in the runtime stage: $l"
        df_version=${version:-${BASH_REMATCH[1]}}
        ;;
      LABEL) labels="$labels $rest" ;;
      COPY)
        read -r -a args <<<"$rest"
        [[ ${args[0]} =~ ^--from=(build|sandboxd)$ ]] || df_fail "COPY without --from=build or --from=sandboxd in the runtime stage: $l"
        ((${#args[@]} == 3)) || df_fail "expected COPY --from=STAGE SRC DEST: $l"
        df_copies+=("${args[0]#--from=} ${args[1]} ${args[2]}")
        ;;
      ENV)
        [[ $rest =~ $env_re ]] || df_fail "only ENV KEY=VALUE (one, unquoted) is understood: $l"
        df_env+=("$rest")
        [[ ${BASH_REMATCH[1]} == HOME ]] && df_home=${BASH_REMATCH[2]}
        ;;
      WORKDIR) df_workdir=$rest ;;
      USER) df_user=$rest ;;
      ENTRYPOINT) df_entrypoint=$rest ;;
      *) df_fail "the runtime stage's $op is not reproduced without Docker (hack/image/dockerfile.sh): $l" ;;
    esac
  done
  [[ $df_user =~ ^([0-9]+):([0-9]+)$ ]] || df_fail "USER must be numeric uid:gid, found '$df_user'"
  df_uid=${BASH_REMATCH[1]} df_gid=${BASH_REMATCH[2]}
  [ -n "$df_home" ] || df_fail "the runtime stage sets no HOME"
  [[ $df_entrypoint == \[*\] ]] || df_fail "ENTRYPOINT must be a JSON array: $df_entrypoint"
  # LABEL k="v" k2="v2" …: each pair, with the one build argument there is expanded.
  while [[ $labels =~ ^[[:space:]]*([A-Za-z0-9._-]+)=\"([^\"]*)\"(.*)$ ]]; do
    local value=${BASH_REMATCH[2]}
    labels=${BASH_REMATCH[3]}
    # shellcheck disable=SC2016 # the Dockerfile's own ${VERSION}, literally
    value=${value//'${VERSION}'/$df_version}
    # shellcheck disable=SC2016
    value=${value//'$VERSION'/$df_version}
    df_labels+=("${BASH_REMATCH[1]}=$value")
  done
  [[ -z ${labels//[[:space:]]/} ]] || df_fail "LABEL pairs must be key=\"value\"; could not read: $labels"
}

dockerfile_source() { # STAGE PATH BUILD -> the local path a COPY takes
  case $1:$2 in
    build:/app | build:/app/*) echo "$3$2" ;;
    sandboxd:/src/dist/*) echo "$df_root/${2#/src/}" ;; # the Go stage's WORKDIR plus make's outputs
    *) df_fail "COPY --from=$1 $2: only /app of the build stage and /src/dist of the sandboxd stage are known" ;;
  esac
}
