"""Test configuration.

Integration tests (marker ``integration``) run against a real service, described by the
variables ``make dev`` writes to its env file: SVC_BASE_URL, SVC_ADMIN_KEY, SVC_ALICE_KEY,
SVC_BOB_KEY and SVC_NAMESPACE.

* ``SVC_INTEGRATION=1`` (what ``make test-python`` sets): they run. With SVC_BASE_URL in
  the environment, or ``SVC_ENV_FILE`` naming an env file (``SVC_ENV_FILE=.dev/env`` for a
  running ``make dev``), against that service; otherwise the session starts its own stack
  once (``hack/dev.ts`` in a temporary state folder on a free port, see ``_stack.py``) and
  stops it and removes the folder at the end.
* otherwise, with SVC_BASE_URL set they run unless ``-m "not integration"`` is given;
  without it they are *deselected* (counted in pytest's summary, with the reason printed),
  never reported as passing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ._stack import start_stack

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


def env_file() -> Path | None:
    """``$SVC_ENV_FILE``; a relative path may also be relative to the repository root."""
    value = os.environ.get("SVC_ENV_FILE")
    if not value:
        return None
    path = Path(value)
    if not path.is_file() and not path.is_absolute() and (REPO_ROOT / path).is_file():
        return REPO_ROOT / path
    return path


def integration_env() -> dict[str, str]:
    """The SVC_* variables of an existing service: the environment, then ``$SVC_ENV_FILE``."""
    env = {k: v for k, v in os.environ.items() if k.startswith("SVC_")}
    path = env_file()
    if "SVC_BASE_URL" not in env and path is not None and path.is_file():
        env = {**read_env_file(path), **env}
    return env


def pytest_configure(config: pytest.Config) -> None:
    path = env_file()
    if os.environ.get("SVC_INTEGRATION") == "1" and path is not None and not path.is_file():
        raise pytest.UsageError(f"SVC_ENV_FILE={path} does not exist (is `make dev` up?)")


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
            f"deselected {len(deselected)} integration tests: neither SVC_INTEGRATION=1 "
            "(starts a stack for the session) nor SVC_BASE_URL is set",
            yellow=True,
        )


@pytest.fixture(scope="session")
def svc_env() -> Iterator[dict[str, str]]:
    """The service's variables: an existing one's, or those of a stack started here."""
    env = integration_env()
    if env.get("SVC_BASE_URL"):
        missing = [k for k in REQUIRED if not env.get(k)]
        if missing:
            pytest.fail(f"integration tests need {', '.join(missing)} (see tests/conftest.py)")
        yield env
        return
    stack = start_stack(REPO_ROOT, REQUIRED, read_env_file)
    try:
        yield {**env, **stack.env}
    finally:
        stack.stop()
