#!/usr/bin/env bash
# `npm ci` with whatever npm and Node the machine has. The project never runs on that Node:
# it runs on its own Node 24 (the `node` devDependency, node_modules/.bin/node). So when the
# system's Node is older (Debian's Node 20), npm's five-line EBADENGINE warning for each
# package that asks for a newer Node (28 of them) says nothing a user must act on; it is
# folded into one line. Every other line of npm's output is shown as it was.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
npm ci --no-audit --no-fund "$@" >"$log" 2>&1
status=$?
grep -v 'EBADENGINE' "$log"
engines=$(grep -c 'EBADENGINE Unsupported engine' "$log")
if [ "$engines" -gt 0 ]; then
  echo "npm ran on this machine's Node $(node --version); $engines packages (svc among them) want a newer one," \
    "which is fine: svc runs on its own Node $(node_modules/.bin/node --version 2>/dev/null || echo 24) from node_modules."
fi
exit $status
