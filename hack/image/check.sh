#!/usr/bin/env bash
# The image, checked without Docker. Reads the Dockerfile's runtime stage (with
# hack/image/dockerfile.sh, the parser `make images` shares) and rebuilds its
# file system in a temporary folder: each `COPY --from=build` taken from what the build
# stage makes (/app by hack/image/app.sh) and `COPY --from=sandboxd` from what the Go stage
# makes (/src/dist by `make sandboxd-binary`, which the image-check target runs first), HOME
# from its ENV, the user from its USER. Then runs it as the chart does (as that user, the
# image's files not writable, only HOME writable):
#   - /app holds the built console (/app/console/index.html);
#   - every module in /app imports with production dependencies only;
#   - the ENTRYPOINT prints its usage, refuses unknown flags, and `svc api`, `svc operator`
#     and `svc webhook` get past their imports to their first real error;
#   - /usr/local/bin/sandboxd is a static executable (no ELF interpreter) and, copied as the
#     operator's init container copies it, serves and exits 0 on SIGTERM;
# and that .dockerignore keeps nothing the build needs out of the context, and that the
# image's version label is package.json's version and the chart's appVersion.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
node="$root/node_modules/.bin/node"
start=$(date +%s)
fail() {
  echo "image-check: $*" >&2
  exit 1
}

# --- The Dockerfile's stages, read by the parser `make images` (hack/cluster/images.sh) uses too.
df_prog=image-check
# shellcheck source=hack/image/dockerfile.sh
. "$root/hack/image/dockerfile.sh"
dockerfile_read "$root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/svc-image-check-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
rootfs="$tmp/rootfs"
mkdir -p "$rootfs"

# --- The build stage's /app, made by the script the Dockerfile runs.
npm_config_prefer_offline=true bash "$root/hack/image/app.sh" "$tmp/build/app" >/dev/null
echo "image-check: /app assembled by hack/image/app.sh in $(($(date +%s) - start))s"
# The chart serves the console from /app/console (`svc api --console.dir`).
[ -f "$tmp/build/app/console/index.html" ] || fail "/app/console/index.html is missing: hack/image/app.sh builds the console there"
[ -x "$root/dist/sandboxd" ] || fail "dist/sandboxd is missing: run make sandboxd-binary (make image-check does)"
[ -x "$root/dist/sandboxd-csi" ] || fail "dist/sandboxd-csi is missing: run make sandboxd-csi-binary (make image-check does)"

# --- The runtime stage: each COPY into the file system, as the image's user, HOME and WORKDIR.
for c in "${df_copies[@]}"; do
  read -r from path to <<<"$c"
  src=$(dockerfile_source "$from" "$path" "$tmp/build")
  dest="$rootfs$to"
  if [ -d "$src" ]; then
    mkdir -p "$dest"
    cp -al "$src/." "$dest/" 2>/dev/null || cp -a "$src/." "$dest/"
  elif [ -f "$src" ]; then
    [[ $dest == */ ]] && dest="$dest$(basename "$src")"
    mkdir -p "$(dirname "$dest")"
    cp -a "$src" "$dest"
  else
    fail "COPY source missing: $path ($src)"
  fi
done
uid=$df_uid gid=$df_gid home=$df_home workdir=$df_workdir entrypoint=$df_entrypoint
mkdir -p "$rootfs$home"
mapfile -t argv < <("$node" -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$entrypoint")
[[ ${argv[0]} == node && ${argv[1]} == /* ]] || fail "ENTRYPOINT must be [\"node\", \"/path/to/svc.ts\"], found $entrypoint"
# The base image's node, at its place: the checkout may sit where the image's user cannot
# reach (a private mktemp folder), so the user never runs anything from it.
mkdir -p "$rootfs/usr/local/bin"
cp "$(readlink -f "$node")" "$rootfs/usr/local/bin/node"
node="$rootfs/usr/local/bin/node"
svc=("$node" "$rootfs${argv[1]}")
echo "image-check: runtime stage rebuilt in $rootfs ($(du -sh "$rootfs" | cut -f1))"

# --- As the image's user when this machine lets us switch; the image's files stay root's,
# so only HOME (the chart's /tmp emptyDir) is writable, as with a read-only root.
as=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chown "$uid:$gid" "$rootfs$home"
  as=(setpriv --reuid="$uid" --regid="$gid" --clear-groups)
fi
isolated=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$rootfs$home")

# expect CODE PATTERN -- COMMAND...: CODE is an exit code or "fail" (any but 0); the output
# must match PATTERN and never name a module that is not there.
expect() {
  local want=$1 pattern=$2 out code=0
  shift 3
  out=$(cd "$rootfs$workdir" && timeout 60 "${as[@]}" "${isolated[@]}" "$@" 2>&1) || code=$?
  local shown="$*"
  shown=${shown//"$node"/node}
  shown=${shown//"$rootfs"/}
  shown=${shown//"$tmp"/\$tmp}
  ((${#shown} <= 100)) || shown="${shown:0:97}..."
  if grep -qE 'ERR_MODULE_NOT_FOUND|Cannot find (module|package)' <<<"$out"; then
    fail "$shown: a module is missing from the image:"$'\n'"$out"
  fi
  if [[ $want == fail && $code == 0 ]] || [[ $want != fail && $code != "$want" ]]; then
    fail "$shown: exit $code, expected $want:"$'\n'"$out"
  fi
  grep -qE "$pattern" <<<"$out" || fail "$shown: output does not match /$pattern/:"$'\n'"$out"
  echo "image-check: ok (exit $code) $shown"
}

# Every module, so a subcommand's lazily imported code is covered too.
mapfile -t modules < <(cd "$rootfs/app" && find . -path ./node_modules -prune -o -name '*.ts' -print | grep -v '^./cmd/svc.ts$' | sort)
cat >"$tmp/import-all.mjs" <<'JS'
import { pathToFileURL } from 'node:url';
for (const m of process.argv.slice(2)) await import(pathToFileURL(m).href);
console.log(`imported ${process.argv.length - 2} modules`);
JS
expect 0 "^imported ${#modules[@]} modules$" -- "$node" "$tmp/import-all.mjs" "${modules[@]/#./$rootfs/app}"

expect 2 '^usage: svc <' -- "${svc[@]}"
expect 2 "^svc api: Unknown option '--help'" -- "${svc[@]}" api --help
expect 2 "^svc operator: Unknown option '--bogus'" -- "${svc[@]}" operator --bogus
expect 2 '^svc api: --listen: must be host:port or port' -- "${svc[@]}" api --listen nowhere
# A file the configuration names but that is not there: one line naming it, no stack.
expect 1 '^svc api: cannot read /nonexistent/kubeconfig: ENOENT$' -- \
  "${svc[@]}" api --kubeconfig /nonexistent/kubeconfig
expect 1 '^svc operator: cannot read /nonexistent/kubeconfig: ENOENT$' -- \
  "${svc[@]}" operator --kubeconfig /nonexistent/kubeconfig
expect 1 '^svc webhook: cannot read /nonexistent/tls.crt: ENOENT$' -- \
  "${svc[@]}" webhook --tls-cert-file /nonexistent/tls.crt
expect 2 "^usage: svc <[a-z|]*>" -- "${svc[@]}" sandboxd # sandboxd is its own binary now

# --- sandboxd as a sandbox Pod gets it: copied by the init container (the image's user,
# `cp` from the image), then run from the copy.
bin="$tmp/svc-bin"
mkdir -p "$bin" "$tmp/workspace"
chmod 777 "$bin" "$tmp/workspace"
(cd / && "${as[@]}" cp "$rootfs/usr/local/bin/sandboxd" "$bin/sandboxd") || fail "the init container's cp of /usr/local/bin/sandboxd failed"
[ -x "$bin/sandboxd" ] || fail "the copied sandboxd is not executable"
# Static: an ELF without a program interpreter runs in any Linux image (Alpine, distroless).
[[ $(head -c 4 "$bin/sandboxd") == $'\x7fELF' ]] || fail "the copied sandboxd is not an ELF executable"
if LC_ALL=C grep -qaE '/lib(64)?/ld-(linux|musl)' "$bin/sandboxd"; then fail "the copied sandboxd names a dynamic loader: not static"; fi
echo "image-check: ok /usr/local/bin/sandboxd is a static ELF executable ($(du -h "$bin/sandboxd" | cut -f1))"
expect 2 'a token is required' -- "$bin/sandboxd"
socket="$bin/sandboxd.sock"
(cd / && exec "${as[@]}" env -i PATH=/usr/bin:/bin SANDBOXD_TOKEN=image-check SANDBOXD_LISTEN="unix:$socket" \
  SANDBOXD_WORKSPACE="$tmp/workspace" "$bin/sandboxd" 2>"$tmp/sandboxd.log" >&2) &
pid=$!
health=""
for _ in $(seq 100); do
  health=$("$node" -e '
    const req = require("node:http").get({ socketPath: process.argv[1], path: "/healthz" }, (res) => {
      let body = ""; res.on("data", (c) => (body += c)); res.on("end", () => console.log(res.statusCode, body));
    });
    req.on("error", () => process.exit(1));' "$socket" 2>/dev/null) && break
  sleep 0.1
done
kill -TERM "$pid" 2>/dev/null || true
code=0
wait "$pid" || code=$?
[[ $health == '200 {"status":"ok"}' ]] || fail "sandboxd did not answer /healthz (got '$health'):"$'\n'"$(cat "$tmp/sandboxd.log")"
((code == 0)) || fail "sandboxd exited $code on SIGTERM:"$'\n'"$(cat "$tmp/sandboxd.log")"
echo "image-check: ok sandboxd served /healthz from the init container's copy and exited 0 on SIGTERM"

# --- .dockerignore: no pattern may drop a file the build stage uses. Bash's [[ == ]] lets
# `*` cross `/`, so this errs on the side of refusing.
needed=(Makefile package.json package-lock.json .npmrc)
mapfile -t -O ${#needed[@]} needed < <(cd "$root" && find sandboxd sandboxd-csi hack/image -type f)
mapfile -t -O ${#needed[@]} needed < <(cd "$tmp/build/app" && find . -path ./node_modules -prune -o -type f -print |
  sed 's|^\./||' | grep -vxE 'package(-lock)?\.json')
while read -r pattern; do
  pattern=${pattern#/}
  [[ -z $pattern || $pattern == \#* ]] && continue
  [[ $pattern == !* ]] && fail ".dockerignore exceptions (!) are not understood by check.sh: $pattern"
  for f in "${needed[@]}"; do
    p=$f
    while :; do
      # shellcheck disable=SC2053
      if [[ $p == $pattern || $p == ${pattern#\*\*/} ]]; then
        fail ".dockerignore pattern '$pattern' drops $f, which the build uses"
      fi
      [[ $p == */* ]] || break
      p=${p%/*}
    done
  done
done <"$root/.dockerignore"
echo "image-check: ok .dockerignore keeps the ${#needed[@]} files the build uses"

# --- One version for the image, package.json and the chart.
label=$df_version
pkg=$("$node" -p 'require(process.argv[1]).version' "$root/package.json")
chart_field() { sed -n "s/^$1: *\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$root/config/helm/svc/Chart.yaml"; }
app=$(chart_field appVersion) chart=$(chart_field version)
[[ $label == "$pkg" && $label == "$app" && $label == "$chart" ]] ||
  fail "versions differ: Dockerfile ARG VERSION=$label, package.json $pkg, Chart.yaml version $chart and appVersion $app"
echo "image-check: ok version $label (Dockerfile, package.json, the chart's version and appVersion)"
echo "image-check: passed in $(($(date +%s) - start))s"
