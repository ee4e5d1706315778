"""Detached runs and attach: the requests sent, and the resume after a dropped connection."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

from ._support import BASE

RUN = "inv-1"
EVENTS = [
    ("1", "start", {"invokeId": RUN, "startedAt": "2026-01-01T00:00:00.000Z"}),
    ("2", "log", {"stream": "stdout", "data": "a\n"}),
    ("3", "log", {"stream": "stdout", "data": "b\n"}),
    ("4", "exit", {"invokeId": RUN, "exitCode": 0, "durationMs": 5, "reason": "completed"}),
]


def frame(event_id: str, name: str, data: Any) -> bytes:
    return f"id: {event_id}\nevent: {name}\ndata: {json.dumps(data)}\n\n".encode()


class Dropping(httpx.SyncByteStream, httpx.AsyncByteStream):
    """Sends the events after `after`, dropping the connection after `cut` of them."""

    def __init__(self, after: int, cut: int | None) -> None:
        events = [e for e in EVENTS if int(e[0]) > after]
        self.chunks = [frame(*e) for e in (events if cut is None else events[:cut])]
        self.drop = cut is not None

    def __iter__(self) -> Any:
        yield from self.chunks
        if self.drop:
            raise httpx.ReadError("connection reset")

    async def __aiter__(self) -> Any:
        for c in self.chunks:
            yield c
        if self.drop:
            raise httpx.ReadError("connection reset")


class Server:
    """A MockTransport handler: the first events connection drops after two events."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        path = request.url.path
        if path.endswith("/invoke") or path.endswith("/exec"):
            body = {"invokeId": RUN, "eventsUrl": f"/api/v1/sandboxes/sb/runs/{RUN}/events"}
            return httpx.Response(202, json=body)
        if path.endswith("/runs"):
            item = {"invokeId": RUN, "kind": "invoke", "state": "running", "startedAt": "t"}
            item |= {"exitCode": None, "durationMs": None, "detached": True}
            return httpx.Response(200, json={"items": [item]})
        if path.endswith("/cancel"):
            return httpx.Response(202, json={"invokeId": RUN, "status": "canceling"})
        if path.endswith("/runs/inv-gone/events"):
            return httpx.Response(404, json={"error": "not_found", "message": "no run"})
        after = int(request.headers.get("last-event-id", "0"))
        first = sum(1 for r in self.requests if r.url.path.endswith("/events")) == 1
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=Dropping(after, 2 if first else None))


def check(server: Server, got: list[Any]) -> None:
    events = [r for r in server.requests if r.url.path.endswith("/events")]
    assert [r.headers.get("last-event-id") for r in events] == [None, "2"]
    assert [type(e).__name__ for e in got] == ["Start", "Log", "Log", "Exit"]
    assert [e.data for e in got if isinstance(e, svc.Log)] == ["a\n", "b\n"]


def test_detach_runs_attach_resume_and_cancel() -> None:
    server = Server()
    with Client(BASE, api_key="k", transport=httpx.MockTransport(server)) as client:
        run = client.invoke("sb", "hi", detach=True, timeout="5m")
        assert run == svc.DetachedRun(RUN, f"/api/v1/sandboxes/sb/runs/{RUN}/events")
        sent = server.requests[0]
        assert sent.url.params["detach"] == "true" and sent.url.params["timeout"] == "5m"
        assert sent.content == b"hi" and "text/event-stream" not in sent.headers.get("accept", "")
        execd = client.exec("sb", "sleep 9", timeout=30, detach=True)
        assert execd.invoke_id == RUN and server.requests[1].url.params["detach"] == "true"
        assert [r.detached for r in client.runs("sb")] == [True]
        stream = client.attach("sb", RUN, reconnect_delay=0)
        got = list(stream)
        check(server, got)
        assert stream.last_event_id == "4" and stream.exit is not None
        assert client.cancel_run("sb", RUN)["status"] == "canceling"
        with pytest.raises(svc.NotFound):
            list(client.attach("sb", "inv-gone"))


async def test_async_detach_and_attach_resume() -> None:
    server = Server()
    async with AsyncClient(BASE, api_key="k", transport=httpx.MockTransport(server)) as client:
        run = await client.invoke("sb", "hi", detach=True)
        assert run.invoke_id == RUN
        got = [e async for e in client.attach("sb", RUN, reconnect_delay=0)]
        check(server, got)
        # Resuming after an id a reader saw: only what follows it.
        later = [e async for e in client.attach("sb", RUN, "3")]
        assert [type(e).__name__ for e in later] == ["Exit"]
