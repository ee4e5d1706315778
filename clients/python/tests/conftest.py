"""Test configuration.

Integration tests (marker ``integration``) need a running service, described by the
variables ``make dev`` writes to ``.dev/env``: SVC_BASE_URL, SVC_ADMIN_KEY, SVC_ALICE_KEY,
SVC_BOB_KEY and SVC_NAMESPACE.

* ``SVC_INTEGRATION=1``: they run; if SVC_BASE_URL is missing from the environment and
  from ``.dev/env`` (or ``$SVC_ENV_FILE``), the session stops with a clear error.
* otherwise, with SVC_BASE_URL set they run unless ``-m "not integration"`` is given;
  without it they are *deselected* (counted in pytest's summary, with the reason printed),
  never reported as passing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
REQUIRED = ("SVC_BASE_URL", "SVC_ADMIN_KEY", "SVC_ALICE_KEY", "SVC_BOB_KEY")
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` / ``export KEY=value`` lines (optionally quoted) of a shell env file."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        match = _LINE.match(line)
        if match:
            value = match.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[match.group(1)] = value
    return out


def integration_env() -> dict[str, str]:
    """The SVC_* variables: the environment first, then ``.dev/env``."""
    env = {k: v for k, v in os.environ.items() if k.startswith("SVC_")}
    env_file = Path(os.environ.get("SVC_ENV_FILE", REPO_ROOT / ".dev" / "env"))
    if (
        "SVC_BASE_URL" not in env
        and os.environ.get("SVC_INTEGRATION") == "1"
        and env_file.is_file()
    ):
        env = {**read_env_file(env_file), **env}
    return env


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("SVC_INTEGRATION") != "1":
        return
    env = integration_env()
    missing = [k for k in REQUIRED if not env.get(k)]
    if missing:
        raise pytest.UsageError(
            f"SVC_INTEGRATION=1 but {', '.join(missing)} not set: start the service with "
            "`make dev` and `source .dev/env` (or point SVC_ENV_FILE at its env file)"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SVC_INTEGRATION") == "1" or integration_env().get("SVC_BASE_URL"):
        return
    deselected = [i for i in items if i.get_closest_marker("integration")]
    if not deselected:
        return
    config.hook.pytest_deselected(items=deselected)
    items[:] = [i for i in items if not i.get_closest_marker("integration")]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(
            f"deselected {len(deselected)} integration tests: SVC_BASE_URL is not set "
            "(run `make dev`, `source .dev/env`, then SVC_INTEGRATION=1 bash test.sh)",
            yellow=True,
        )


@pytest.fixture(scope="session")
def svc_env() -> dict[str, str]:
    env = integration_env()
    missing = [k for k in REQUIRED if not env.get(k)]
    if missing:
        pytest.fail(f"integration test needs {', '.join(missing)} (see tests/conftest.py)")
    return env
