"""Runs: invokes and execs, attached or detached, and their replayable events.

A detached run (``invoke(..., detach=True)``, ``exec(..., detach=True)``) answers with its id
at once and goes on without a client. Every run's events carry ids; :meth:`RunsMixin.attach`
reads them and, when a connection drops, reconnects with ``Last-Event-ID`` so nothing still
buffered is missed. What both clients share without I/O is here; their streams and methods
are in ``_async/runs.py`` (and ``_sync/runs.py``, generated from it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import Call
from ._sse import SSEEvent
from .errors import StreamInterrupted
from .models import Error, Exit, Log, Start, invoke_event

if TYPE_CHECKING:
    from ._requests import _Requests


@dataclass(frozen=True)
class DetachedRun:
    """The 202 answer of a detached invoke or exec."""

    invoke_id: str
    events_url: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DetachedRun:
        return cls(str(data.get("invokeId", "")), str(data.get("eventsUrl", "")))


@dataclass(frozen=True)
class Run:
    """One run of :meth:`RunsMixin.runs`: in flight, or ended and still kept."""

    invoke_id: str
    kind: str
    """``invoke`` or ``exec``."""
    state: str
    """``running`` or ``exited``."""
    started_at: str
    exit_code: int | None
    duration_ms: int | None
    reason: str | None
    detached: bool

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Run:
        code, ms, reason = data.get("exitCode"), data.get("durationMs"), data.get("reason")
        return cls(
            invoke_id=str(data.get("invokeId", "")),
            kind=str(data.get("kind", "")),
            state=str(data.get("state", "")),
            started_at=str(data.get("startedAt", "")),
            exit_code=code if isinstance(code, int) else None,
            duration_ms=ms if isinstance(ms, int) else None,
            reason=reason if isinstance(reason, str) else None,
            detached=bool(data.get("detached")),
        )


@dataclass(frozen=True)
class Drop:
    """SSE ``drop`` in a replay: the run's buffer lost this many of its oldest ``log``
    events (this many bytes of output)."""

    dropped_bytes: int
    dropped_events: int


RunEvent = Start | Log | Exit | Error | Drop
"""The typed events of a run's event stream."""


def decode_run_event(sse: SSEEvent) -> RunEvent | None:
    try:
        data = json.loads(sse.data) if sse.data else {}
    except ValueError as exc:
        raise StreamInterrupted(f"malformed {sse.event!r} event data: {sse.data[:200]!r}") from exc
    data = data if isinstance(data, dict) else {}
    if sse.event == "drop":
        return Drop(int(data.get("droppedBytes", 0)), int(data.get("droppedEvents", 0)))
    return invoke_event(sse.event, data)


def _path(name: str, *rest: str) -> str:
    return "/".join(["/sandboxes", quote(name, safe=""), *rest])


def runs_call(req: _Requests, name: str, namespace: str | None) -> Call:
    return Call("GET", _path(name, "runs"), req.ns(namespace))


def events_call(
    req: _Requests, name: str, invoke_id: str, namespace: str | None, last_event_id: str | None
) -> Call:
    headers = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    path = _path(name, "runs", quote(invoke_id, safe=""), "events")
    return Call("GET", path, req.ns(namespace), headers=headers)


def cancel_run_call(req: _Requests, name: str, invoke_id: str, namespace: str | None) -> Call:
    path = _path(name, "runs", quote(invoke_id, safe=""), "cancel")
    return Call("POST", path, req.ns(namespace))


class _Resume:
    """What an attach knows across its connections: the last id seen, and how often in a
    row a reconnect brought nothing."""

    def __init__(self, last_event_id: str | None, max_reconnects: int, delay: float) -> None:
        self.last_event_id = last_event_id
        self.max_reconnects = max_reconnects
        self.delay = delay
        self.failures = 0
        self.exit: Exit | None = None

    def next_delay(self, progressed: bool) -> float:
        self.failures = 0 if progressed else self.failures + 1
        if self.failures > self.max_reconnects:
            raise StreamInterrupted(
                f"the run's events could not be read after {self.max_reconnects} reconnects"
            )
        return float(self.delay * 2 ** max(0, self.failures - 1))


def detached(call: Call, timeout: str | None = None) -> Call:
    """``call`` (an invoke or exec) asking to detach: ``?detach=true``, a JSON answer."""
    params = {**call.params, "detach": "true"}
    if timeout:
        params["timeout"] = timeout
    headers = {k: v for k, v in call.headers.items() if k.lower() != "accept"}
    return replace(call, params=params, headers=headers, timeout=None)
