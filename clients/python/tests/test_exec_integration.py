"""Exec and logs end to end against a real service (see conftest.py), sync and async.

The template's own process (``default``: ``sleep infinity``) prints nothing, so the tests
write to its stdout themselves: an exec opens ``/proc/<pid>/fd/1`` of that process, which is
the pipe sandboxd keeps the logs from.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

pytestmark = pytest.mark.integration

READY_TIMEOUT = float(os.environ.get("SVC_READY_TIMEOUT", "180"))
TRAP = (
    "trap 'echo term > /workspace/{marker}; exit 143' TERM; echo ready;"
    " while :; do sleep 0.05; done"
)
# Writes its argument to the template process's stdout (the process whose command is the
# template's, found among the sandbox's processes).
TO_TEMPLATE_STDOUT = (
    'for p in /proc/[0-9]*; do [ "$(tr "\\0" " " < $p/cmdline 2>/dev/null)" = "sleep infinity " ]'
    ' && printf "%s\\n" "$MARK" > $p/fd/1; done; true'
)


def unique(prefix: str) -> str:
    return f"{prefix}-{int(time.time())}-{uuid.uuid4().hex[:6]}"


def eventually(probe: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


@pytest.fixture
def template(svc_env: dict[str, str]) -> str:
    return svc_env.get("SVC_TEMPLATE", "default")


@pytest.fixture
def namespace(svc_env: dict[str, str]) -> str | None:
    return svc_env.get("SVC_NAMESPACE") or None


@pytest.fixture
def alice(svc_env: dict[str, str], namespace: str | None) -> Iterator[Client]:
    with Client(
        svc_env["SVC_BASE_URL"], api_key=svc_env["SVC_ALICE_KEY"], namespace=namespace
    ) as c:
        yield c


@pytest.fixture
def bob(svc_env: dict[str, str], namespace: str | None) -> Iterator[Client]:
    with Client(svc_env["SVC_BASE_URL"], api_key=svc_env["SVC_BOB_KEY"], namespace=namespace) as c:
        yield c


@pytest.fixture
async def aalice(svc_env: dict[str, str], namespace: str | None) -> AsyncIterator[AsyncClient]:
    base, key = svc_env["SVC_BASE_URL"], svc_env["SVC_ALICE_KEY"]
    async with AsyncClient(base, api_key=key, namespace=namespace) as c:
        yield c


@pytest.fixture
def sandbox(alice: Client, template: str) -> Iterator[str]:
    """A Running code sandbox of alice's, deleted afterwards."""
    name = unique("pyexec")
    created = alice.create(name, template, env={"GREETING": "from-spec"})
    assert created.name == name
    try:
        alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)
        yield name
    finally:
        alice.delete(name)


def test_exec_sync(alice: Client, bob: Client, sandbox: str) -> None:
    # JSON: exit codes, both streams, stdin, argv, the sandbox's environment and the call's
    three = alice.exec(sandbox, "echo out; echo err >&2; exit 3")
    assert (three.exit_code, three.stdout, three.stderr) == (3, "out\n", "err\n")
    assert three.reason == "completed" and not three.truncated and not three.ok
    assert three.exec_id is not None and three.exec_id.startswith("exec-")
    piped = alice.exec(sandbox, ["cat"], stdin="from stdin")
    assert piped.ok and piped.stdout == "from stdin"
    env = alice.exec(
        sandbox, 'echo "$GREETING $EXTRA"; pwd', env={"EXTRA": "x"}, working_dir="/workspace"
    )
    assert env.stdout == "from-spec x\n/workspace\n"
    timed = alice.exec(sandbox, "sleep 30", timeout="1s")
    assert (timed.exit_code, timed.reason) == (143, "timeout")
    assert alice.exec(sandbox, "sleep 30", timeout=1).reason == "timeout"
    with pytest.raises(svc.BadRequest):
        alice.exec(sandbox, "true", working_dir="/etc")

    # streamed: Start, Log..., Exit
    with alice.exec_stream(sandbox, "echo one; echo two >&2; exit 0") as stream:
        events = list(stream)
    assert isinstance(events[0], svc.Start) and events[0].invoke_id.startswith("exec-")
    logs = [e for e in events if isinstance(e, svc.Log)]
    assert "".join(e.data for e in logs if e.stream == "stdout") == "one\n"
    assert "".join(e.data for e in logs if e.stream == "stderr") == "two\n"
    assert isinstance(events[-1], svc.Exit) and events[-1].exit_code == 0

    # cancel by id: the TERM trap runs; Exit is -1 / canceled
    with alice.exec_stream(sandbox, TRAP.format(marker="py.cancel")) as stream:
        for event in stream:
            if isinstance(event, svc.Log) and event.data == "ready\n":
                assert stream.invoke_id is not None
                answer = alice.cancel_exec(sandbox, stream.invoke_id)
                assert answer == {"invokeId": stream.invoke_id, "status": "canceling"}
    assert stream.exit is not None
    assert (stream.exit.exit_code, stream.exit.reason) == (-1, "canceled")
    assert alice.exec(sandbox, "cat /workspace/py.cancel").stdout == "term\n"

    # leaving the loop early disconnects: SIGTERM as well
    with alice.exec_stream(sandbox, TRAP.format(marker="py.gone")) as stream:
        for event in stream:
            if isinstance(event, svc.Log):
                break
    eventually(
        lambda: alice.exec(sandbox, "cat /workspace/py.gone 2>/dev/null").stdout == "term\n",
        "the disconnected exec's SIGTERM",
    )

    # bob may not touch alice's sandbox
    with pytest.raises(svc.PermissionDenied):
        bob.exec(sandbox, "true")
    with pytest.raises(svc.PermissionDenied):
        bob.cancel_exec(sandbox, "exec-x")
    with pytest.raises(svc.PermissionDenied):
        bob.logs(sandbox)
    with pytest.raises(svc.PermissionDenied):
        list(bob.follow_logs(sandbox))


def test_logs_sync(alice: Client, sandbox: str) -> None:
    first = f"first-{uuid.uuid4().hex[:6]}"
    assert alice.exec(sandbox, TO_TEMPLATE_STDOUT, env={"MARK": first}).ok
    eventually(lambda: first in alice.logs(sandbox).stdout, "the tail to hold the first mark")
    tail = alice.logs(sandbox)
    assert not tail.truncated and tail.dropped_bytes == 0
    assert tail.entries[-1] == svc.Log("stdout", f"{first}\n")

    # follow: the kept output first; then, written after it began, the second mark
    second = f"second-{uuid.uuid4().hex[:6]}"
    seen = ""
    with alice.follow_logs(sandbox) as logs:
        for log in logs:
            seen += log.data
            if first in seen and second not in seen and "written" not in seen:
                seen += "written"
                assert alice.exec(sandbox, TO_TEMPLATE_STDOUT, env={"MARK": second}).ok
            if second in seen:
                break
    assert seen.index(first) < seen.index("written") < seen.index(second)


async def test_exec_and_logs_async(aalice: AsyncClient, sandbox: str) -> None:
    result = await aalice.exec(sandbox, "echo async; exit 3")
    assert (result.exit_code, result.stdout, result.reason) == (3, "async\n", "completed")
    async with aalice.exec_stream(sandbox, ["sh", "-c", "cat; exit 0"], stdin="in") as stream:
        events = [e async for e in stream]
    assert isinstance(events[0], svc.Start) and isinstance(events[-1], svc.Exit)
    assert "".join(e.data for e in events if isinstance(e, svc.Log)) == "in"

    async with aalice.exec_stream(sandbox, TRAP.format(marker="apy.cancel")) as stream:
        async for event in stream:
            if isinstance(event, svc.Log) and event.data == "ready\n":
                assert stream.invoke_id is not None
                await aalice.cancel_exec(sandbox, stream.invoke_id)
    assert stream.exit is not None and stream.exit.reason == "canceled"

    mark = f"async-{uuid.uuid4().hex[:6]}"
    assert (await aalice.exec(sandbox, TO_TEMPLATE_STDOUT, env={"MARK": mark})).ok
    deadline = time.monotonic() + 30
    while mark not in (await aalice.logs(sandbox)).stdout:
        assert time.monotonic() < deadline, "the tail to hold the async mark"
        await asyncio.sleep(0.2)
    async with aalice.follow_logs(sandbox) as logs:
        async for log in logs:
            if mark in log.data:
                break
