#!/usr/bin/env bash
# Lint, type-check and test the Python client in its own venv (clients/python/.venv).
# Idempotent: pip runs only when requirements-dev.txt or pyproject.toml changed.
# SVC_INTEGRATION=1 also runs tests/test_integration.py: against the service SVC_BASE_URL (or
# the env file SVC_ENV_FILE) names, else against a stack the session starts and stops itself
# (hack/dev.ts in a temporary folder; needs `make deps kube`). `make test-python` does that.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

PYTHON="${PYTHON:-python3}"
VENV=.venv
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.stamp-$(cat requirements-dev.txt pyproject.toml | sha256sum | cut -c1-16)"
if [[ ! -f "$stamp" ]]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e .
  rm -f "$VENV"/.stamp-*
  touch "$stamp"
fi

bin="$VENV/bin"
"$bin/ruff" check src tests
"$bin/ruff" format --check src tests
"$bin/mypy" --strict src

if [[ "${SVC_INTEGRATION:-}" == "1" ]]; then
  "$bin/pytest" -q
else
  "$bin/pytest" -q -m "not integration"
fi
