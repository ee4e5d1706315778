#!/usr/bin/env bash
# The client's generated code (codegen/generate.py), in its venv: the models from
# api/openapi.json and the blocking client from the async one. `generate.sh` writes them
# (`make python-client`); `generate.sh --check` exits 1 when one is stale (`make check-generated`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
source venv.sh
exec "$bin/python" codegen/generate.py "$@"
