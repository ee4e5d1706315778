#!/usr/bin/env bash
# Lint, type-check, check the generated code of, and test the Python client in its own venv
# (clients/python/.venv).
# Idempotent: pip runs only when requirements-dev.txt or pyproject.toml changed.
# SVC_INTEGRATION=1 also runs tests/test_integration.py: against the service SVC_BASE_URL (or
# the env file SVC_ENV_FILE) names, else against a stack the session starts and stops itself
# (hack/dev.ts in a temporary folder; needs `make deps kube`). `make test-python` does that.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

source venv.sh
"$bin/ruff" check src tests fuzz codegen
"$bin/ruff" format --check src tests fuzz codegen
"$bin/mypy" --strict src fuzz codegen
"$bin/python" codegen/generate.py --check

if [[ "${SVC_INTEGRATION:-}" == "1" ]]; then
  "$bin/pytest" -q
else
  "$bin/pytest" -q -m "not integration"
fi
