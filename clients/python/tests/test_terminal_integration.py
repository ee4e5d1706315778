"""The terminal and the discovery calls against a real service, with the sync and the
async client (see conftest.py for the stack; ``SVC_INTEGRATION=1``)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator

import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

pytestmark = pytest.mark.integration

READY_TIMEOUT = float(os.environ.get("SVC_READY_TIMEOUT", "180"))


def _client(env: dict[str, str], key: str) -> Client:
    return Client(env["SVC_BASE_URL"], api_key=env[key], namespace=env.get("SVC_NAMESPACE") or None)


@pytest.fixture
def sandbox(svc_env: dict[str, str]) -> Iterator[str]:
    name = f"term-{int(time.time())}-{uuid.uuid4().hex[:6]}"
    with _client(svc_env, "SVC_ALICE_KEY") as alice:
        alice.create(name, svc_env.get("SVC_TEMPLATE", "default"), mode="code")
        alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        yield name
        alice.delete(name)


def _read_until(session: svc.TerminalSession, needle: bytes) -> bytes:
    seen = b""
    while needle not in seen:
        chunk = session.recv(timeout=20)
        assert chunk is not None, f"ended before {needle!r}: {seen!r}"
        seen += chunk
    return seen


def test_terminal_sync(svc_env: dict[str, str], sandbox: str) -> None:
    with _client(svc_env, "SVC_ALICE_KEY") as alice, alice.terminal(sandbox, cols=100) as term:
        term.send("echo hi-$((40+2))\n")
        _read_until(term, b"hi-42\r\n")
        term.resize(120, 40)
        term.send("stty size\n")
        _read_until(term, b"40 120\r\n")
        term.send("exit 3\n")
        while term.recv(timeout=20) is not None:
            pass
        assert term.exit_code == 3
    with _client(svc_env, "SVC_BOB_KEY") as bob, pytest.raises(svc.PermissionDenied):
        bob.terminal(sandbox)


async def test_terminal_async(svc_env: dict[str, str], sandbox: str) -> None:
    async with AsyncClient(
        svc_env["SVC_BASE_URL"],
        api_key=svc_env["SVC_ALICE_KEY"],
        namespace=svc_env.get("SVC_NAMESPACE") or None,
    ) as alice:
        term = await alice.terminal(sandbox, command="echo from-command; exit 7")
        out = b""
        while (chunk := await term.recv()) is not None:
            out += chunk
        assert b"from-command\r\n" in out
        assert term.exit_code == 7
        ticket = await alice.terminal_ticket(sandbox)
        assert ticket.ticket and ticket.expires_at
        assert (await alice.me()).sub
        assert await alice.ports(sandbox) == []
        assert any(
            t.name == svc_env.get("SVC_TEMPLATE", "default") for t in await alice.templates()
        )


def test_discovery_sync(svc_env: dict[str, str], sandbox: str) -> None:
    template = svc_env.get("SVC_TEMPLATE", "default")
    with _client(svc_env, "SVC_ALICE_KEY") as alice:
        assert alice.template(template).name == template
        me = alice.me()
        assert me.sub and not me.is_admin
        assert alice.ports(sandbox) == []
    with _client(svc_env, "SVC_BOB_KEY") as bob, pytest.raises(svc.PermissionDenied):
        bob.ports(sandbox)
