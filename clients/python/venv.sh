# Sourced by test.sh and fuzz/run.sh (from clients/python): the client's venv in .venv with
# requirements-dev.txt installed. Idempotent: pip runs only when requirements-dev.txt or
# pyproject.toml changed.
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
