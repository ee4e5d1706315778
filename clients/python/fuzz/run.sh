#!/usr/bin/env bash
# The API fuzzer (fuzz.py) in the Python client's venv: against SVC_BASE_URL when set,
# else against a stack it starts itself (hack/dev.ts in a temporary folder, a free port).
# `make test-fuzz` runs it; FUZZ_SEED, FUZZ_EXAMPLES and FUZZ_MAX_TIME tune it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source venv.sh
exec "$bin/python" fuzz/fuzz.py
