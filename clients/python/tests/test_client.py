"""The requests each operation sends and how answers are read, sync and async."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

from ._support import BASE, sse, sse_response


def sandbox(name: str, phase: str = "Running") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": {}, "status": {"phase": phase}}


class Recorder:
    """A MockTransport handler answering from a function and keeping the requests."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response]) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.answer(request)

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]

    def sync(self, **kwargs: Any) -> Client:
        kwargs.setdefault("api_key", "key-1")
        return Client(BASE, transport=httpx.MockTransport(self), **kwargs)

    def aio(self, **kwargs: Any) -> AsyncClient:
        kwargs.setdefault("api_key", "key-1")
        return AsyncClient(BASE, transport=httpx.MockTransport(self), **kwargs)


def body(request: httpx.Request) -> Any:
    return json.loads(request.content)


def test_api_key_header_base_path_and_namespace() -> None:
    rec = Recorder(lambda r: httpx.Response(200, json=sandbox("sb")))
    with rec.sync(namespace="team-a") as client:
        assert client.get("sb").phase == "Running"
        client.get("sb", namespace="other")
    first, second = rec.requests
    assert str(first.url) == f"{BASE}/api/v1/sandboxes/sb?namespace=team-a"
    assert first.headers["x-api-key"] == "key-1" and "authorization" not in first.headers
    assert second.url.params["namespace"] == "other"


def test_base_url_already_ending_in_api_v1() -> None:
    rec = Recorder(lambda r: httpx.Response(200, json=sandbox("sb")))
    client = Client(f"{BASE}/api/v1/", api_key="k", transport=httpx.MockTransport(rec))
    client.get("sb")
    assert rec.last.url.path == "/api/v1/sandboxes/sb"


def test_bearer_token_provider_is_called_per_request() -> None:
    tokens = iter(["t1", "t2"])
    rec = Recorder(lambda r: httpx.Response(200, json=sandbox("sb")))
    with rec.sync(api_key=None, token=lambda: next(tokens)) as client:
        client.get("sb")
        client.get("sb")
    assert [r.headers["authorization"] for r in rec.requests] == ["Bearer t1", "Bearer t2"]


def test_api_key_and_token_are_exclusive() -> None:
    with pytest.raises(ValueError):
        Client(BASE, api_key="k", token="t")


async def test_async_token_provider_may_be_a_coroutine() -> None:
    async def token() -> str:
        return "async-token"

    rec = Recorder(lambda r: httpx.Response(200, json=sandbox("sb")))
    async with rec.aio(api_key=None, token=token) as client:
        await client.get("sb")
    assert rec.last.headers["authorization"] == "Bearer async-token"


async def test_async_token_provider_may_be_a_plain_function() -> None:
    rec = Recorder(lambda r: httpx.Response(200, json=sandbox("sb")))
    async with rec.aio(api_key=None, token=lambda: "plain-token") as client:
        await client.get("sb")
    assert rec.last.headers["authorization"] == "Bearer plain-token"


def test_create_body_is_camel_case() -> None:
    rec = Recorder(lambda r: httpx.Response(201, json=sandbox("sb", "Pending")))
    with rec.sync() as client:
        created = client.create(
            "sb",
            "default",
            mode="agent",
            image="docker.io/library/python:3.12",
            timeout="2h",
            idle_timeout="30m",
            resources={"limits": {"cpu": "1"}},
            env={"A": "1"},
            ports=[8080],
            agent=svc.AgentHarness(entrypoint=["python", "a.py"], max_concurrent_invokes=2),
        )
    assert created.phase == "Pending"
    assert (rec.last.method, rec.last.url.path) == ("POST", "/api/v1/sandboxes")
    assert body(rec.last) == {
        "name": "sb",
        "templateRef": {"name": "default"},
        "mode": "agent",
        "image": {"repository": "docker.io/library/python:3.12"},
        "timeout": "2h",
        "idleTimeout": "30m",
        "resources": {"limits": {"cpu": "1"}},
        "env": [{"name": "A", "value": "1"}],
        "ports": [{"port": 8080, "protocol": "http"}],
        "harness": {"agent": {"entrypoint": ["python", "a.py"], "maxConcurrentInvokes": 2}},
    }


def paged(request: httpx.Request) -> httpx.Response:
    token = request.url.params.get("continue")
    pages = {None: (["a", "b"], "t1"), "t1": (["c"], "t2"), "t2": ([], "")}
    names, nxt = pages[token]
    return httpx.Response(200, json={"items": [sandbox(n) for n in names], "continue": nxt})


def test_list_follows_continue_tokens() -> None:
    rec = Recorder(paged)
    with rec.sync() as client:
        names = [s.name for s in client.list(phase="Running", page_size=2)]
    assert names == ["a", "b", "c"]
    assert [r.url.params.get("continue") for r in rec.requests] == [None, "t1", "t2"]
    assert rec.requests[0].url.params["limit"] == "2"
    assert rec.requests[0].url.params["phase"] == "Running"


async def test_async_list_follows_continue_tokens() -> None:
    async with Recorder(paged).aio() as client:
        assert [s.name async for s in client.list()] == ["a", "b", "c"]


def test_lifecycle_calls() -> None:
    def answer(r: httpx.Request) -> httpx.Response:
        if r.method == "DELETE":
            return httpx.Response(202, json={"name": "sb", "namespace": "ns", "message": "bye"})
        return httpx.Response(202, json=sandbox("sb", "Stopped"))

    rec = Recorder(answer)
    with rec.sync() as client:
        assert client.stop("sb").phase == "Stopped"
        client.resume("sb")
        assert client.delete("sb").message == "bye"
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("POST", "/api/v1/sandboxes/sb/stop"),
        ("POST", "/api/v1/sandboxes/sb/resume"),
        ("DELETE", "/api/v1/sandboxes/sb"),
    ]


def phase_script(phases: list[str | None]) -> Recorder:
    def answer(r: httpx.Request) -> httpx.Response:
        phase = phases.pop(0) if len(phases) > 1 else phases[0]
        if phase is None:
            return httpx.Response(404, json={"error": "not_found", "message": "no"})
        return httpx.Response(200, json=sandbox("sb", phase))

    return Recorder(answer)


def test_wait_for_phase() -> None:
    with phase_script(["Creating", "Creating", "Running"]).sync() as client:
        assert client.wait_for_phase("sb", "Running", interval=0.01).phase == "Running"
    with phase_script(["Creating"]).sync() as client, pytest.raises(svc.WaitTimeout) as info:
        client.wait_for_phase("sb", timeout=0.05, interval=0.01)
    assert info.value.last_phase == "Creating" and isinstance(info.value, TimeoutError)
    with phase_script(["Creating", "Error"]).sync() as client, pytest.raises(svc.SandboxFailed):
        client.wait_for_phase("sb", interval=0.01)
    with phase_script([None]).sync() as client, pytest.raises(svc.NotFound):
        client.wait_for_phase("sb", interval=0.01)


def test_clone_and_wait_for_clone() -> None:
    accepted = {
        "name": "sb-clone-1",
        "namespace": "ns",
        "snapshot": "sb-snap-1",
        "clonedFrom": "sb",
        "phase": "Pending",
        "message": "poll",
    }
    phases: list[str | None] = [None, "Creating", "Running"]

    def answer(r: httpx.Request) -> httpx.Response:
        if r.method == "POST":
            return httpx.Response(202, json=accepted)
        phase = phases.pop(0)
        if phase is None:
            return httpx.Response(404, json={"error": "not_found", "message": "not yet"})
        return httpx.Response(200, json=sandbox("sb-clone-1", phase))

    rec = Recorder(answer)
    with rec.sync() as client:
        clone = client.clone("sb", new_name="sb-clone-1", snapshot_class="csi")
        assert clone == svc.CloneResult("sb-clone-1", "ns", "sb-snap-1", "sb", "Pending", "poll")
        assert client.wait_for_clone(clone, interval=0.01).phase == "Running"
    assert body(rec.requests[0]) == {"name": "sb-clone-1", "snapshotClass": "csi"}
    assert rec.requests[0].url.path == "/api/v1/sandboxes/sb/clone"
    assert rec.last.url.params["namespace"] == "ns"


async def test_async_wait_for_phase() -> None:
    async with phase_script(["Pending", "Running"]).aio() as client:
        assert (await client.wait_for_phase("sb", interval=0.01)).phase == "Running"


def test_ports() -> None:
    port = {"port": 8080, "protocol": "http", "internalUrl": "http://pf-sb-8080.ns.svc:8080"}

    def answer(r: httpx.Request) -> httpx.Response:
        return httpx.Response(201, json=port) if r.method == "POST" else httpx.Response(204)

    rec = Recorder(answer)
    with rec.sync(namespace="ns") as client:
        forwarded = client.forward_port("sb", 8080)
        client.remove_port("sb", 8080)
        url = client.preview_url("sb", 8080, "/index.html")
    assert forwarded == svc.ForwardedPort(8080, "http", "http://pf-sb-8080.ns.svc:8080")
    assert body(rec.requests[0]) == {"port": 8080, "protocol": "http"}
    assert (rec.last.method, rec.last.url.path) == ("DELETE", "/api/v1/sandboxes/sb/ports/8080")
    assert url == f"{BASE}/api/v1/sandboxes/sb/preview/8080/index.html?namespace=ns"


def test_preview_ticket() -> None:
    ticket = {"url": "/api/v1/sandboxes/sb/preview/8080/?namespace=ns&ticket=t.s", "expiresAt": "x"}
    rec = Recorder(lambda r: httpx.Response(200, json=ticket))
    with rec.sync(namespace="ns") as client:
        got = client.preview_ticket("sb", 8080)
    assert (rec.last.method, str(rec.last.url)) == (
        "POST",
        f"{BASE}/api/v1/sandboxes/sb/ports/8080/preview-ticket?namespace=ns",
    )
    assert got == svc.PreviewTicket(url=f"{BASE}{ticket['url']}", expires_at="x")
    assert "t.s" not in repr(got)


async def test_async_preview_ticket() -> None:
    ticket = {"url": "/api/v1/sandboxes/sb/preview/8080/?ticket=t.s", "expiresAt": "x"}
    rec = Recorder(lambda r: httpx.Response(200, json=ticket))
    async with rec.aio() as client:
        got = await client.preview_ticket("sb", 8080)
    assert rec.last.url.path == "/api/v1/sandboxes/sb/ports/8080/preview-ticket"
    assert got.url == f"{BASE}{ticket['url']}"


def test_governance_calls() -> None:
    def answer(r: httpx.Request) -> httpx.Response:
        if r.method == "DELETE":
            return httpx.Response(204)
        if r.method == "PUT":
            return httpx.Response(200, content=r.content)
        if r.url.path.endswith("/effective"):
            return httpx.Response(200, json={"namespace": "ns", "policy": {"maxCpu": "1"}})
        return httpx.Response(200, json={"cluster": {"maxCpu": "2"}, "namespaces": {}})

    rec = Recorder(answer)
    with rec.sync() as client:
        assert client.get_policies().cluster == svc.Policy(max_cpu="2")
        put = client.put_policy(svc.Policy(max_timeout="1h"), namespace="ns")
        assert put == svc.Policy(max_timeout="1h")
        client.put_policy({"maxCpu": "3"})
        client.delete_policy("ns")
        assert client.effective_policy(namespace="ns").policy.max_cpu == "1"
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("GET", "/api/v1/governance/policies"),
        ("PUT", "/api/v1/governance/policies/ns"),
        ("PUT", "/api/v1/governance/policies"),
        ("DELETE", "/api/v1/governance/policies/ns"),
        ("GET", "/api/v1/governance/effective"),
    ]
    assert body(rec.requests[1]) == {"maxTimeout": "1h"}


def test_audit_events_paginate_with_filters() -> None:
    record = {
        "id": "1",
        "time": "t",
        "reason": "Invoked",
        "type": "Normal",
        "sandbox": "sb",
        "namespace": "ns",
        "actor": "alice",
        "message": "m",
        "count": 1,
        "involvedObject": {},
    }

    def answer(r: httpx.Request) -> httpx.Response:
        nxt = "" if r.url.params.get("continue") else "c1"
        return httpx.Response(200, json={"items": [record], "continue": nxt})

    rec = Recorder(answer)
    with rec.sync() as client:
        got = list(client.audit_events(sandbox="sb", reason="Invoked", since="1h"))
    assert [e.actor for e in got] == ["alice", "alice"]
    assert dict(rec.requests[0].url.params) == {"sandbox": "sb", "reason": "Invoked", "since": "1h"}


START = sse("start", {"invokeId": "inv-9", "startedAt": "2025-01-01T00:00:00Z"})
EXIT = sse("exit", {"invokeId": "inv-9", "exitCode": 3, "durationMs": 12, "reason": "completed"})


def invoke_answer(r: httpx.Request) -> httpx.Response:
    if r.url.path.endswith("/cancel"):
        return httpx.Response(202, json={"status": "canceling"})
    return sse_response(
        [
            START,
            sse("log", {"stream": "stdout", "data": "out1 "}),
            sse("log", {"stream": "stderr", "data": "err"}),
            sse("log", {"stream": "stdout", "data": "out2"}),
            sse("error", {"code": "late", "message": "m"}),
            EXIT,
        ]
    )


def test_invoke_request_and_run_collects_output() -> None:
    rec = Recorder(invoke_answer)
    with rec.sync() as client:
        result = client.run("sb", {"prompt": "hi"})
    assert result == svc.InvokeResult(
        invoke_id="inv-9",
        stdout="out1 out2",
        stderr="err",
        exit_code=3,
        duration_ms=12,
        reason="completed",
        errors=[svc.Error("late", "m")],
    )
    assert not result.ok
    req = rec.last
    assert (req.method, req.url.path) == ("POST", "/api/v1/sandboxes/sb/invoke")
    assert req.headers["accept"] == "text/event-stream"
    assert req.headers["content-type"] == "application/json"
    assert body(req) == {"prompt": "hi"}


def test_invoke_raw_text_and_bytes_bodies() -> None:
    rec = Recorder(invoke_answer)
    with rec.sync() as client:
        client.run("sb", "plain text")
        assert rec.last.content == b"plain text"
        client.run("sb", b"\x00\x01")
        assert rec.last.content == b"\x00\x01"


def test_invoke_stream_exposes_invoke_id_and_cancel() -> None:
    rec = Recorder(invoke_answer)
    with rec.sync() as client, client.invoke("sb", "x") as stream:
        assert isinstance(next(stream), svc.Start)
        assert stream.invoke_id == "inv-9"
        assert client.cancel("sb", stream.invoke_id) == {"status": "canceling"}
        assert body(rec.last) == {"invokeId": "inv-9"}
        assert rec.last.url.path == "/api/v1/sandboxes/sb/invoke/cancel"
        events = list(stream)
    assert isinstance(events[-1], svc.Exit) and stream.exit == events[-1]


async def test_async_invoke_events_and_run() -> None:
    async with Recorder(invoke_answer).aio() as client:
        kinds = [type(e).__name__ async for e in client.invoke("sb", "x")]
        result = await client.run("sb", "x")
    assert kinds == ["Start", "Log", "Log", "Log", "Error", "Exit"]
    assert (result.stdout, result.exit_code) == ("out1 out2", 3)


def configure_answer(r: httpx.Request) -> httpx.Response:
    return sse_response(
        [
            sse("start", {"invokeId": "cfg", "startedAt": "t"}),
            sse("log", {"stream": "stdout", "data": "Collecting x\nInstal"}),
            sse("log", {"stream": "stderr", "data": "warn\n"}),
            sse("log", {"stream": "stdout", "data": "led x\ntail"}),
            ": keepalive\n\n",
            sse("exit", {"invokeId": "cfg", "exitCode": 0, "durationMs": 1, "reason": "completed"}),
            sse("result", {"installCommandHash": "h1", "installExitCode": 0, "extra": 1}),
        ]
    )


def test_configure_iterates_log_lines_then_result() -> None:
    rec = Recorder(configure_answer)
    with rec.sync() as client:
        stream = client.configure(
            "sb",
            files=[svc.File("/workspace/agent.py", "print(1)")],
            entrypoint=["python", "agent.py"],
            install_command=["pip", "install", "x"],
        )
        lines = [(log.stream, log.data) for log in stream]
        assert stream.result is not None and stream.result.install_command_hash == "h1"
        assert client.configure("sb", entrypoint=["a"]).wait().install_exit_code == 0
    assert lines == [
        ("stdout", "Collecting x"),
        ("stderr", "warn"),
        ("stdout", "Installed x"),
        ("stdout", "tail"),
    ]
    assert body(rec.requests[0]) == {
        "files": [{"path": "/workspace/agent.py", "content": "print(1)"}],
        "entrypoint": ["python", "agent.py"],
        "installCommand": ["pip", "install", "x"],
    }
    assert rec.requests[0].headers["accept"] == "text/event-stream"


def test_configure_without_result_raises() -> None:
    def answer(r: httpx.Request) -> httpx.Response:
        return sse_response([sse("error", {"code": "install_failed", "message": "boom"})])

    with Recorder(answer).sync() as client, pytest.raises(svc.StreamInterrupted, match="boom"):
        client.configure("sb", entrypoint=["a"]).wait()


async def test_async_configure() -> None:
    async with Recorder(configure_answer).aio() as client:
        stream = client.configure("sb", entrypoint=["a"])
        lines = [log.data async for log in stream]
        assert lines[0] == "Collecting x" and stream.result is not None
        assert (await client.configure("sb", entrypoint=["a"]).wait()).install_command_hash == "h1"


def test_configure_errors_are_raised_on_iteration() -> None:
    def answer(r: httpx.Request) -> httpx.Response:
        return httpx.Response(409, json={"error": "conflict", "message": "not Running"})

    with Recorder(answer).sync() as client, pytest.raises(svc.Conflict):
        client.configure("sb", entrypoint=["a"]).wait()


SECRET = {"name": "openai", "namespace": "ns", "owner": "alice", "keys": ["key"]}


def _secrets_answer(r: httpx.Request) -> httpx.Response:
    if r.method == "DELETE":
        return httpx.Response(204)
    if r.method == "POST":
        return httpx.Response(201, json={**SECRET, "creationTimestamp": "2026-01-01T00:00:00.000Z"})
    return httpx.Response(200, json={"items": [SECRET]})


def test_secret_calls() -> None:
    rec = Recorder(_secrets_answer)
    with rec.sync(namespace="ns") as client:
        made = client.create_secret("openai", {"key": "sk-1"})
        assert made == svc.SecretSummary(
            "openai", "ns", "alice", ["key"], "2026-01-01T00:00:00.000Z"
        )
        assert client.list_secrets() == [svc.SecretSummary("openai", "ns", "alice", ["key"])]
        client.delete_secret("openai", namespace="other")
    assert [(r.method, r.url.path, r.url.params["namespace"]) for r in rec.requests] == [
        ("POST", "/api/v1/secrets", "ns"),
        ("GET", "/api/v1/secrets", "ns"),
        ("DELETE", "/api/v1/secrets/openai", "other"),
    ]
    assert body(rec.requests[0]) == {"name": "openai", "data": {"key": "sk-1"}}


async def test_async_secret_calls() -> None:
    rec = Recorder(_secrets_answer)
    async with rec.aio(namespace="ns") as client:
        assert (await client.create_secret("openai", {"key": "sk-1"})).keys == ["key"]
        assert [s.name for s in await client.list_secrets()] == ["openai"]
        await client.delete_secret("openai")
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("POST", "/api/v1/secrets"),
        ("GET", "/api/v1/secrets"),
        ("DELETE", "/api/v1/secrets/openai"),
    ]
    assert body(rec.requests[0]) == {"name": "openai", "data": {"key": "sk-1"}}


def test_credential_refusal_is_a_policy_violation() -> None:
    refused = {
        "error": "policy_violation",
        "violations": [
            {"code": "credential_not_allowed", "message": "Secret x is not bob's to use"}
        ],
    }
    rec = Recorder(lambda r: httpx.Response(403, json=refused))
    with rec.sync() as client, pytest.raises(svc.PolicyViolation) as caught:
        client.create(
            "sb", "default", credentials={"env": [{"name": "X", "secretName": "x", "key": "k"}]}
        )
    assert [v.code for v in caught.value.violations] == ["credential_not_allowed"]
