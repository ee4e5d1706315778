"""End-to-end flow against a running service (``make dev``; see conftest.py).

create -> get -> list -> ports -> governance denial -> delete, with the sync and the
async client. SVC_TEMPLATE picks the template (default ``default``).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

pytestmark = pytest.mark.integration

PORT = 8080
READY_TIMEOUT = float(os.environ.get("SVC_READY_TIMEOUT", "180"))


def unique(prefix: str) -> str:
    return f"{prefix}-{int(time.time())}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def template(svc_env: dict[str, str]) -> str:
    return svc_env.get("SVC_TEMPLATE", "default")


@pytest.fixture
def namespace(svc_env: dict[str, str]) -> str | None:
    return svc_env.get("SVC_NAMESPACE") or None


def client(svc_env: dict[str, str], key: str, namespace: str | None) -> Client:
    return Client(svc_env["SVC_BASE_URL"], api_key=svc_env[key], namespace=namespace)


@pytest.fixture
def alice(svc_env: dict[str, str], namespace: str | None) -> Iterator[Client]:
    with client(svc_env, "SVC_ALICE_KEY", namespace) as c:
        yield c


@pytest.fixture
def bob(svc_env: dict[str, str], namespace: str | None) -> Iterator[Client]:
    with client(svc_env, "SVC_BOB_KEY", namespace) as c:
        yield c


@pytest.fixture
def admin(svc_env: dict[str, str], namespace: str | None) -> Iterator[Client]:
    with client(svc_env, "SVC_ADMIN_KEY", namespace) as c:
        yield c


@pytest.fixture
async def aalice(svc_env: dict[str, str], namespace: str | None) -> AsyncIterator[AsyncClient]:
    key = svc_env["SVC_ALICE_KEY"]
    async with AsyncClient(svc_env["SVC_BASE_URL"], api_key=key, namespace=namespace) as c:
        yield c


def denial_policy(admin: Client, namespace: str) -> tuple[svc.Policy | None, svc.Policy]:
    """The namespace's override now, and one that also caps timeouts at 1h."""
    before = admin.get_policies().namespaces.get(namespace)
    wire = {**(before.to_dict() if before else {}), "maxTimeout": "1h"}
    return before, svc.Policy.from_dict(wire)


def restore_policy(admin: Client, namespace: str, before: svc.Policy | None) -> None:
    if before is None:
        with contextlib.suppress(svc.NotFound):
            admin.delete_policy(namespace)
    else:
        admin.put_policy(before, namespace=namespace)


def test_sync_flow(alice: Client, bob: Client, admin: Client, template: str) -> None:
    name = unique("pyit")
    created = alice.create(name, template, timeout="30m")
    try:
        assert created.name == name and created.template_ref.name == template
        namespace = created.namespace

        got = alice.get(name)
        assert (got.name, got.namespace, got.mode) == (name, namespace, "code")
        with pytest.raises((svc.PermissionDenied, svc.NotFound)):
            bob.get(name)

        assert name in {s.name for s in alice.list(page_size=1)}
        assert name not in {s.name for s in bob.list()}

        running = alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        assert running.phase == "Running"

        port = alice.forward_port(name, PORT)
        assert port.port == PORT and f"pf-{name}-{PORT}" in port.internal_url
        forwarded = alice.get(name).forwarded_ports
        assert PORT in {p.port for p in forwarded}
        assert f"/api/v1/sandboxes/{name}/preview/{PORT}/" in alice.preview_url(name, PORT)
        alice.remove_port(name, PORT)
        alice.remove_port(name, PORT)  # idempotent
        assert PORT not in {p.port for p in alice.get(name).forwarded_ports}

        before, policy = denial_policy(admin, namespace)
        admin.put_policy(policy, namespace=namespace)
        try:
            assert admin.effective_policy(namespace=namespace).policy.max_timeout == "1h"
            with pytest.raises(svc.PolicyViolation) as info:
                alice.create(unique("pyit-denied"), template, timeout="2h", namespace=namespace)
            assert "timeout_exceeded" in {v.code for v in info.value.violations}
        finally:
            restore_policy(admin, namespace, before)

        with pytest.raises(svc.NotFound):
            alice.get(unique("pyit-missing"))
    finally:
        accepted = alice.delete(name)
        assert accepted.name == name
        alice.wait_deleted(name, timeout=120)
    with pytest.raises(svc.NotFound):
        alice.get(name)


async def test_async_flow(aalice: AsyncClient, admin: Client, template: str) -> None:
    name = unique("pyit-aio")
    created = await aalice.create(name, template, timeout="30m")
    try:
        namespace = created.namespace
        assert (await aalice.get(name)).name == name
        assert name in {s.name async for s in aalice.list(page_size=1)}

        await aalice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        port = await aalice.forward_port(name, PORT)
        assert f"pf-{name}-{PORT}" in port.internal_url
        await aalice.remove_port(name, PORT)

        before, policy = denial_policy(admin, namespace)
        admin.put_policy(policy, namespace=namespace)
        try:
            with pytest.raises(svc.PolicyViolation) as info:
                await aalice.create(unique("pyit-aio-denied"), template, timeout="2h")
            assert "timeout_exceeded" in {v.code for v in info.value.violations}
        finally:
            restore_policy(admin, namespace, before)
    finally:
        assert (await aalice.delete(name)).name == name
        await aalice.wait_deleted(name, timeout=120)


def test_unauthenticated_call_is_401(svc_env: dict[str, str]) -> None:
    anon = Client(svc_env["SVC_BASE_URL"], api_key="not-a-key")
    with anon, pytest.raises(svc.AuthenticationError):
        anon.get("anything")
