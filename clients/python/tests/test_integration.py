"""End to end against a real service (a stack started for the session, or ``make dev``;
see conftest.py), with the sync and the async client:

create -> wait Running -> configure (files + install command, its log, the result) ->
invoke (typed events; ``run()``) -> cancel -> ports (forward, preview, remove) -> clone ->
governance denial -> delete.

SVC_TEMPLATE picks the template (default ``default``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

pytestmark = pytest.mark.integration

PORT = 8080
READY_TIMEOUT = float(os.environ.get("SVC_READY_TIMEOUT", "180"))
ENTRYPOINT = ["sh", "/workspace/agent.sh"]

# The agent: its first stdin line picks what it does; the rest of stdin is its input.
AGENT = """read -r cmd arg
case "$cmd" in
  echo) cat ;;
  split) echo to-stdout; echo to-stderr >&2; exit 3 ;;
  wait) trap 'echo "$arg" > /workspace/term.marker; exit 143' TERM
        echo ready; while :; do sleep 0.05; done ;;
  write) echo "$arg" > /workspace/kept.txt ;;
  cat) cat "/workspace/$arg" ;;
  serve) command -v python3 >/dev/null || { echo no-python; exit 0; }
         mkdir -p /workspace/www && echo "$arg" > /workspace/www/index.html
         cd /workspace/www && exec python3 -u -m http.server 8080 --bind 0.0.0.0 ;;
  *) echo "$cmd $arg" ;;
esac
"""
INSTALL = ["sh", "-c", "echo installing; echo warming-up >&2; echo run >> /workspace/install.count"]
FILES = [svc.File("/workspace/agent.sh", AGENT), svc.File("/workspace/data/input.txt", "x\n")]


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


def aclient(svc_env: dict[str, str], key: str, namespace: str | None) -> AsyncClient:
    return AsyncClient(svc_env["SVC_BASE_URL"], api_key=svc_env[key], namespace=namespace)


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
    async with aclient(svc_env, "SVC_ALICE_KEY", namespace) as c:
        yield c


@pytest.fixture
async def aadmin(svc_env: dict[str, str], namespace: str | None) -> AsyncIterator[AsyncClient]:
    async with aclient(svc_env, "SVC_ADMIN_KEY", namespace) as c:
        yield c


def denial_policy(before: svc.Policy | None, template: str) -> svc.Policy:
    """The namespace's override plus an allowedTemplates list without ``template``."""
    wire = {**(before.to_dict() if before else {}), "allowedTemplates": [f"not-{template}"]}
    return svc.Policy.from_dict(wire)


def eventually(probe: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


def check_configured(lines: list[svc.Log], result: svc.ConfigureResult | None) -> str:
    assert ("stdout", "installing") in [(x.stream, x.data) for x in lines]
    assert ("stderr", "warming-up") in [(x.stream, x.data) for x in lines]
    assert all("\n" not in x.data for x in lines)  # one Log per line
    assert result is not None
    assert result.install_exit_code == 0 and not result.skipped
    assert result.install_command_hash and result.install_command_hash.startswith("sha256:")
    assert result.entrypoint == ENTRYPOINT and result.last_configured_at
    assert (result.max_concurrent_invokes or 0) >= 1
    return result.install_command_hash


def check_split(events: list[svc.InvokeEvent], invoke_id: str | None) -> None:
    """The typed events of ``split``: Start, stdout and stderr Logs, Exit 3."""
    assert isinstance(events[0], svc.Start) and events[0].invoke_id.startswith("inv-")
    assert events[0].invoke_id == invoke_id and events[0].started_at
    assert isinstance(events[-1], svc.Exit)
    logs = [e for e in events[1:-1] if isinstance(e, svc.Log)]
    assert "".join(e.data for e in logs if e.stream == "stdout") == "to-stdout\n"
    assert "".join(e.data for e in logs if e.stream == "stderr") == "to-stderr\n"
    exit_ = events[-1]
    assert (exit_.invoke_id, exit_.exit_code, exit_.reason) == (invoke_id, 3, "completed")
    assert exit_.duration_ms >= 0


def test_sync_flow(
    alice: Client, bob: Client, admin: Client, template: str, svc_env: dict[str, str]
) -> None:
    name = unique("pyit")
    clone_name = f"{name}-copy"
    created = alice.create(name, template, mode="agent", timeout="30m")
    try:
        assert created.name == name and created.template_ref.name == template
        assert created.mode == "agent" and created.created_by
        namespace = created.namespace

        got = alice.get(name)
        assert (got.name, got.namespace, got.mode) == (name, namespace, "agent")
        with pytest.raises((svc.PermissionDenied, svc.NotFound)):
            bob.get(name)
        assert name in {s.name for s in alice.list(page_size=1)}
        assert name not in {s.name for s in bob.list()}

        running = alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        assert running.phase == "Running"

        # configure: the install's output line by line, then the result
        with pytest.raises(svc.FailedDependency):
            alice.run(name, "echo\n")  # 424 before any configure
        cfg = alice.configure(name, files=FILES, entrypoint=ENTRYPOINT, install_command=INSTALL)
        lines = list(cfg)
        hash_ = check_configured(lines, cfg.result)
        again = alice.configure(name, files=FILES, entrypoint=ENTRYPOINT, install_command=INSTALL)
        repeat = again.wait()
        assert repeat.skipped and repeat.install_command_hash == hash_
        assert alice.get(name).agent_configure is not None

        # invoke: typed events, then run() collecting them
        with alice.invoke(name, "split\n") as stream:
            events = list(stream)
        check_split(events, stream.invoke_id)
        assert stream.exit == events[-1]
        result = alice.run(name, "echo\nline one\nline two\n")
        assert (result.stdout, result.stderr, result.exit_code) == ("line one\nline two\n", "", 0)
        assert result.ok and result.reason == "completed" and result.invoke_id.startswith("inv-")
        assert alice.run(name, b"cat data/input.txt\n").stdout == "x\n"
        assert alice.run(name, {"k": "v"}).stdout == '{"k": "v"}\n'  # JSON body
        assert alice.run(name, "cat install.count\n").stdout == "run\n"  # installed once
        failed = alice.run(name, "split\n")
        assert (failed.exit_code, failed.ok, failed.stderr) == (3, False, "to-stderr\n")

        # cancel: by invoke id while it runs; the TERM trap runs; Exit is -1 / canceled
        with alice.invoke(name, "wait canceled\n") as stream:
            seen: list[svc.InvokeEvent] = []
            for event in stream:
                seen.append(event)
                if isinstance(event, svc.Log) and event.data == "ready\n":
                    assert stream.invoke_id is not None
                    answer = alice.cancel(name, stream.invoke_id)
                    assert answer == {"invokeId": stream.invoke_id, "status": "canceling"}
        assert isinstance(seen[0], svc.Start)
        exit_ = stream.exit
        assert exit_ is not None and seen[-1] == exit_
        assert (exit_.invoke_id, exit_.exit_code, exit_.reason) == (
            stream.invoke_id,
            -1,
            "canceled",
        )
        assert stream.invoke_id
        with pytest.raises(svc.NotFound):
            alice.cancel(name, stream.invoke_id)  # no longer in flight
        eventually(
            lambda: alice.run(name, "cat term.marker\n").stdout == "canceled\n",
            "the TERM trap's marker",
        )

        # ports: forward, reach it through the preview proxy, remove
        port = alice.forward_port(name, PORT)
        assert port.port == PORT and port.protocol == "http"
        assert f"pf-{name}-{PORT}" in port.internal_url
        assert PORT in {p.port for p in alice.get(name).forwarded_ports}
        preview = alice.preview_url(name, PORT, "index.html")
        alice_key = {"X-API-Key": svc_env["SVC_ALICE_KEY"]}
        assert f"/api/v1/sandboxes/{name}/preview/{PORT}/index.html" in preview
        with alice.invoke(name, "serve hello-from-the-sandbox\n") as server:
            # (an image without python3 answers "no-python" and exits: nothing to reach)
            served = False
            for event in server:
                if isinstance(event, svc.Log) and event.data == "no-python\n":
                    served = True
                if isinstance(event, svc.Log) and "Serving HTTP" in event.data:
                    served = True
                    page = httpx.get(preview, headers=alice_key, timeout=30)
                    assert (page.status_code, page.text) == (200, "hello-from-the-sandbox\n")
                    denied = httpx.get(preview, headers={"X-API-Key": svc_env["SVC_BOB_KEY"]})
                    assert denied.status_code in (403, 404)
                    assert server.invoke_id
                    alice.cancel(name, server.invoke_id)
        assert served and server.exit is not None
        alice.remove_port(name, PORT)
        alice.remove_port(name, PORT)  # idempotent
        assert PORT not in {p.port for p in alice.get(name).forwarded_ports}
        gone = httpx.get(preview, headers=alice_key)
        assert gone.status_code == 404

        # clone: 202 body, then the copy runs with the workspace as it was
        alice.run(name, "write kept-before-clone\n")
        cloned = alice.clone(name, new_name=clone_name)
        assert (cloned.name, cloned.cloned_from) == (clone_name, name)
        assert cloned.namespace == namespace and cloned.snapshot and cloned.phase
        copy = alice.wait_for_clone(cloned, timeout=READY_TIMEOUT)
        assert (copy.name, copy.phase, copy.cloned_from) == (clone_name, "Running", name)
        assert copy.mode == "agent"
        assert alice.run(clone_name, "cat kept.txt\n").stdout == "kept-before-clone\n"

        # governance: a namespace policy refuses the template, then goes away
        before = admin.get_policies().namespaces.get(namespace)
        admin.put_policy(denial_policy(before, template), namespace=namespace)
        try:
            effective = admin.effective_policy(namespace=namespace).policy
            assert effective.allowed_templates == [f"not-{template}"]
            with pytest.raises(svc.PolicyViolation) as info:
                alice.create(unique("pyit-denied"), template, namespace=namespace)
            assert info.value.status_code == 403 and info.value.code == "policy_violation"
            violations = info.value.violations
            assert "template_not_allowed" in {v.code for v in violations}
            assert all(v.message for v in violations)
        finally:
            if before is None:
                admin.delete_policy(namespace)
            else:
                admin.put_policy(before, namespace=namespace)
        assert namespace not in admin.get_policies().namespaces or before is not None

        with pytest.raises(svc.NotFound):
            alice.get(unique("pyit-missing"))
    finally:
        for doomed in (clone_name, name):
            with contextlib.suppress(svc.NotFound):
                assert alice.delete(doomed).name == doomed
        for doomed in (clone_name, name):
            alice.wait_deleted(doomed, timeout=120)
    with pytest.raises(svc.NotFound):
        alice.get(name)


async def test_async_flow(
    aalice: AsyncClient, aadmin: AsyncClient, template: str, svc_env: dict[str, str]
) -> None:
    name = unique("pyit-aio")
    clone_name = f"{name}-copy"
    created = await aalice.create(name, template, mode="agent", timeout="30m")
    try:
        namespace = created.namespace
        assert (await aalice.get(name)).mode == "agent"
        assert name in {s.name async for s in aalice.list(page_size=1)}
        running = await aalice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        assert running.phase == "Running"

        # configure
        cfg = aalice.configure(name, files=FILES, entrypoint=ENTRYPOINT, install_command=INSTALL)
        lines = [line async for line in cfg]
        hash_ = check_configured(lines, cfg.result)
        repeat = await aalice.configure(
            name, files=FILES, entrypoint=ENTRYPOINT, install_command=INSTALL
        ).wait()
        assert repeat.skipped and repeat.install_command_hash == hash_

        # invoke and run
        async with aalice.invoke(name, "split\n") as stream:
            events = [event async for event in stream]
        check_split(events, stream.invoke_id)
        result = await aalice.run(name, "echo\nasync input\n")
        assert (result.stdout, result.exit_code, result.ok) == ("async input\n", 0, True)
        failed = await aalice.run(name, "split\n")
        assert (failed.stdout, failed.stderr, failed.exit_code) == ("to-stdout\n", "to-stderr\n", 3)

        # cancel from another task while this one reads the stream
        async with aalice.invoke(name, "wait async-canceled\n") as stream:
            ready = asyncio.Event()

            async def read() -> list[svc.InvokeEvent]:
                out: list[svc.InvokeEvent] = []
                async for event in stream:
                    out.append(event)
                    if isinstance(event, svc.Log) and event.data == "ready\n":
                        ready.set()
                return out

            reader = asyncio.create_task(read())
            await asyncio.wait_for(ready.wait(), 30)
            assert stream.invoke_id
            answer = await aalice.cancel(name, stream.invoke_id)
            assert answer["status"] == "canceling"
            seen = await asyncio.wait_for(reader, 30)
        exit_ = seen[-1]
        assert isinstance(exit_, svc.Exit) and exit_ == stream.exit
        assert (exit_.exit_code, exit_.reason) == (-1, "canceled")
        with pytest.raises(svc.NotFound):
            await aalice.cancel(name, stream.invoke_id)
        for _ in range(100):
            marker = await aalice.run(name, "cat term.marker\n")
            if marker.stdout == "async-canceled\n":
                break
            await asyncio.sleep(0.2)
        assert marker.stdout == "async-canceled\n"

        # ports
        port = await aalice.forward_port(name, PORT)
        assert f"pf-{name}-{PORT}" in port.internal_url
        preview = aalice.preview_url(name, PORT, "index.html")
        async with aalice.invoke(name, "serve async-page\n") as server:
            served = False
            async for event in server:
                if isinstance(event, svc.Log) and event.data == "no-python\n":
                    served = True
                if isinstance(event, svc.Log) and "Serving HTTP" in event.data:
                    served = True
                    key = {"X-API-Key": svc_env["SVC_ALICE_KEY"]}
                    async with httpx.AsyncClient(headers=key, timeout=30) as http:
                        page = await http.get(preview)
                    assert (page.status_code, page.text) == (200, "async-page\n")
                    assert server.invoke_id
                    await aalice.cancel(name, server.invoke_id)
        assert served and server.exit is not None
        await aalice.remove_port(name, PORT)
        assert PORT not in {p.port for p in (await aalice.get(name)).forwarded_ports}

        # clone
        await aalice.run(name, "write async-kept\n")
        cloned = await aalice.clone(name, new_name=clone_name)
        assert (cloned.name, cloned.cloned_from) == (clone_name, name)
        copy = await aalice.wait_for_clone(cloned, timeout=READY_TIMEOUT)
        assert (copy.phase, copy.cloned_from) == ("Running", name)
        assert (await aalice.run(clone_name, "cat kept.txt\n")).stdout == "async-kept\n"

        # governance denial
        before = (await aadmin.get_policies()).namespaces.get(namespace)
        await aadmin.put_policy(denial_policy(before, template), namespace=namespace)
        try:
            with pytest.raises(svc.PolicyViolation) as info:
                await aalice.create(unique("pyit-aio-denied"), template)
            assert "template_not_allowed" in {v.code for v in info.value.violations}
        finally:
            if before is None:
                await aadmin.delete_policy(namespace)
            else:
                await aadmin.put_policy(before, namespace=namespace)
    finally:
        for doomed in (clone_name, name):
            with contextlib.suppress(svc.NotFound):
                assert (await aalice.delete(doomed)).name == doomed
        for doomed in (clone_name, name):
            await aalice.wait_deleted(doomed, timeout=120)


def test_own_secret_reaches_own_sandbox_and_no_one_elses(
    alice: Client, bob: Client, template: str
) -> None:
    secret = unique("pysecret")
    value = f"value-{uuid.uuid4().hex}"
    made = alice.create_secret(secret, {"token": value})
    name = unique("pycred")
    try:
        assert (made.name, made.owner, made.keys) == (secret, "alice", ["token"])
        assert secret in {s.name for s in alice.list_secrets()}
        assert secret not in {s.name for s in bob.list_secrets()}
        with pytest.raises(svc.NotFound):
            bob.delete_secret(secret)
        env = {"env": [{"name": "TOKEN", "secretName": secret, "key": "token"}]}
        with pytest.raises(svc.PolicyViolation) as refused:
            bob.create(unique("pysteal"), template, credentials=env)
        assert [v.code for v in refused.value.violations] == ["credential_not_allowed"]
        assert value not in str(refused.value.body)

        alice.create(name, template, mode="agent", credentials=env)
        alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        alice.configure(name, entrypoint=["sh", "-c", 'printf "%s" "$TOKEN"']).wait()
        result = alice.run(name)
        assert (result.stdout, result.exit_code) == (value, 0)
    finally:
        with contextlib.suppress(svc.NotFound):
            alice.delete(name)
        alice.delete_secret(secret)
    assert secret not in {s.name for s in alice.list_secrets()}


async def test_async_secrets(aalice: AsyncClient) -> None:
    secret = unique("pyasecret")
    made = await aalice.create_secret(secret, {"a": "1", "b": "2"})
    assert made.keys == ["a", "b"]
    assert secret in {s.name for s in await aalice.list_secrets()}
    await aalice.delete_secret(secret)
    assert secret not in {s.name for s in await aalice.list_secrets()}
    with pytest.raises(svc.NotFound):
        await aalice.delete_secret(secret)


def test_unauthenticated_call_is_401(svc_env: dict[str, str]) -> None:
    anon = Client(svc_env["SVC_BASE_URL"], api_key="not-a-key")
    with anon, pytest.raises(svc.AuthenticationError):
        anon.get("anything")
