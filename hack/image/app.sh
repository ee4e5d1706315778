#!/usr/bin/env bash
# Assembles the image's /app: the source `svc` runs (what cmd/svc.ts and its subcommands
# import, without tests), package.json for "type": "module", and the production
# dependencies from the lockfile. The Dockerfile's build stage runs it into /app and
# hack/image/check.sh into a temporary folder, so the image and the check cannot differ.
# npm settings come from npm_config_* variables (check.sh sets prefer-offline).
# Usage: app.sh OUT_DIR
#        app.sh --inputs   prints the paths (from the checkout's root) it reads, one a line:
#                          hack/cluster/images.sh keys its cache by their contents
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: app.sh OUT_DIR | --inputs}
# check.sh imports every module copied here with only these dependencies installed, so a
# folder missing from this list, or a devDependency imported at run time, fails it.
folders=(cmd core kube operator api webhook egress telemetry sandboxd devnode mcp)
if [ "$out" = --inputs ]; then
  printf '%s\n' "${folders[@]}" console package.json package-lock.json .npmrc hack/image/app.sh
  exit 0
fi
mkdir -p "$out"
(cd "$root" && find "${folders[@]}" -type f ! -name '*.test.ts' -print0 | xargs -0 cp --parents -t "$out")
cp "$root/package.json" "$root/package-lock.json" "$out/"
# The browser console, built here (its bundler is a devDependency, never in /app) into
# /app/console, which the chart passes to `svc api --console.dir`.
"$root/node_modules/.bin/node" "$root/console/build.ts" --out "$out/console" >/dev/null
# --ignore-scripts: no production dependency has an install script, and none may run.
(cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
