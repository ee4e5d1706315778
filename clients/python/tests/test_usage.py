"""The usage calls: the request each sends and how the answer is read, sync and async."""

from __future__ import annotations

from typing import Any

import httpx

from svc_client import AsyncClient, Client, Usage

from ._support import BASE, sse, sse_response

FIGURES: dict[str, Any] = {
    "at": "2026-11-26T10:00:02Z",
    "cpu": {"cores": 0.97, "throttledSeconds": 1.5, "limitCores": 2},
    "memory": {"workingSetBytes": 52428800, "limitBytes": None},
    "workspace": {"usedBytes": 104857600, "freeBytes": 900, "totalBytes": 1000},
    "processes": 4,
    "runs": {"exec": 1, "invoke": 0, "configure": 0},
    "terminals": 2,
    "cgroup": True,
    "history": [{"at": "2026-11-26T10:00:01Z", "cpuCores": 0.5, "memoryBytes": 1024}],
}


def expected(history: bool = True) -> Usage:
    return Usage.from_dict(FIGURES if history else {**FIGURES, "history": []})


def test_usage_reads_the_figures_and_sends_history_and_namespace() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=FIGURES)

    with Client(BASE, api_key="k", namespace="team", transport=httpx.MockTransport(answer)) as c:
        u = c.usage("dev", history=300)
    assert str(seen[0].url) == f"{BASE}/api/v1/sandboxes/dev/usage?namespace=team&history=300"
    assert u.cpu_cores == 0.97 and u.cpu_limit_cores == 2 and u.memory_limit_bytes is None
    assert u.workspace_used_bytes == 104857600 and u.runs["exec"] == 1 and u.terminals == 2
    assert u.history[0].cpu_cores == 0.5 and u.history[0].memory_bytes == 1024


def test_watch_usage_yields_each_usage_event() -> None:
    body = [sse("usage", {**FIGURES, "history": None}), sse("usage", {**FIGURES, "processes": 5})]

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["accept"] == "text/event-stream"
        return sse_response(body)

    with Client(BASE, api_key="k", transport=httpx.MockTransport(answer)) as c:
        got = list(c.watch_usage("dev"))
    assert [u.processes for u in got] == [4, 5]


async def test_async_usage_and_watch() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.headers.get("accept") == "text/event-stream":
            return sse_response([sse("usage", FIGURES)])
        return httpx.Response(200, json=FIGURES)

    async with AsyncClient(BASE, api_key="k", transport=httpx.MockTransport(answer)) as c:
        assert await c.usage("dev") == expected()
        assert [u async for u in c.watch_usage("dev")] == [expected()]
