#!/usr/bin/env bash
# Builds sandboxd as a Node single executable: esbuild bundles `svc sandboxd` into one
# CommonJS file, Node turns it into a SEA blob, postject injects the blob into a copy of
# the node binary. The result runs in any glibc image (the operator's init container copies
# it into sandbox Pods). Usage: build.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/dist}
mkdir -p "$out"
node="$root/node_modules/.bin/node"
start=$(date +%s%N)
"$root/node_modules/.bin/esbuild" "$root/hack/sea/entry.ts" --bundle --platform=node --target=node24 \
  --format=cjs --outfile="$out/sandboxd.cjs" --log-level=warning
cat > "$out/sea-config.json" <<JSON
{ "main": "$out/sandboxd.cjs", "output": "$out/sandboxd.blob", "disableExperimentalSEAWarning": true, "useCodeCache": false }
JSON
"$node" --experimental-sea-config "$out/sea-config.json" >/dev/null
cp "$(readlink -f "$node")" "$out/sandboxd"
chmod u+w "$out/sandboxd"
"$node" "$root/node_modules/postject/dist/cli.js" "$out/sandboxd" NODE_SEA_BLOB "$out/sandboxd.blob" \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >/dev/null
rm -f "$out/sandboxd.blob" "$out/sea-config.json"
echo "built $out/sandboxd in $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
