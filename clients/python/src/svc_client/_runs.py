"""Runs: invokes and execs, attached or detached, and their replayable events.

A detached run (``invoke(..., detach=True)``, ``exec(..., detach=True)``) answers with its id
at once and goes on without a client. Every run's events carry ids; :meth:`RunsMixin.attach`
reads them and, when a connection drops, reconnects with ``Last-Event-ID`` so nothing still
buffered is missed. Mixins of :class:`~svc_client.Client` (:class:`RunsMixin`) and
:class:`~svc_client.AsyncClient` (:class:`AsyncRunsMixin`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, Callable, Generator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import AsyncHTTP, Call, SyncHTTP, json_body
from ._sse import SSEEvent, aiter_sse_response, iter_sse_response
from ._streams import AsyncEventStream, EventStream
from .errors import APIConnectionError, StreamInterrupted
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


class AttachStream(EventStream[RunEvent]):
    """A run's events to its ``Exit``: ``Start``, ``Log``..., maybe ``Drop`` (in a replay
    whose buffer overflowed) or ``Error``. A connection that drops is reopened after
    :attr:`last_event_id`. Closing it (or leaving the loop) leaves the run alone."""

    def __init__(
        self,
        http: SyncHTTP,
        call_for: Callable[[str | None], Call],
        resume: _Resume,
    ) -> None:
        self._http = http
        self._call_for = call_for
        self._resume = resume
        self._events = self._run()

    @property
    def last_event_id(self) -> str | None:
        """The id of the last event read: give it to a later ``attach`` to go on from there."""
        return self._resume.last_event_id

    @property
    def exit(self) -> Exit | None:
        return self._resume.exit

    def _run(self) -> Generator[RunEvent, None, None]:
        r = self._resume
        while True:
            progressed = False
            try:
                with self._http.stream(self._call_for(r.last_event_id), sse=True) as response:
                    for sse in iter_sse_response(response, self._http.sse_max_event_size):
                        progressed = True
                        r.last_event_id = sse.id or r.last_event_id
                        event = decode_run_event(sse)
                        if event is None:
                            continue
                        yield event
                        if isinstance(event, Exit):
                            r.exit = event
                            return
                if not progressed:
                    return  # a clean, empty stream: the exit was before last_event_id
            except APIConnectionError:  # StreamInterrupted too: reconnect after the last id
                pass
            time.sleep(r.next_delay(progressed))


class AsyncAttachStream(AsyncEventStream[RunEvent]):
    """Async twin of :class:`AttachStream`: ``async for event in ...``."""

    def __init__(
        self,
        http: AsyncHTTP,
        call_for: Callable[[str | None], Call],
        resume: _Resume,
    ) -> None:
        self._http = http
        self._call_for = call_for
        self._resume = resume
        self._events = self._run()

    @property
    def last_event_id(self) -> str | None:
        return self._resume.last_event_id

    @property
    def exit(self) -> Exit | None:
        return self._resume.exit

    async def _run(self) -> AsyncGenerator[RunEvent, None]:
        r = self._resume
        while True:
            progressed = False
            try:
                call = self._call_for(r.last_event_id)
                async with self._http.stream(call, sse=True) as response:
                    size = self._http.sse_max_event_size
                    async for sse in aiter_sse_response(response, size):
                        progressed = True
                        r.last_event_id = sse.id or r.last_event_id
                        event = decode_run_event(sse)
                        if event is None:
                            continue
                        yield event
                        if isinstance(event, Exit):
                            r.exit = event
                            return
                if not progressed:
                    return
            except APIConnectionError:
                pass
            await asyncio.sleep(r.next_delay(progressed))


class RunsMixin:
    """Runs on :class:`~svc_client.Client`."""

    _req: _Requests
    _http: SyncHTTP

    def runs(self, name: str, *, namespace: str | None = None) -> list[Run]:
        """The sandbox's invokes and execs: in flight, and ended ones still kept (15 min)."""
        items = json_body(self._http.request(runs_call(self._req, name, namespace))).get("items")
        return [Run.from_dict(i) for i in items or [] if isinstance(i, dict)]

    def attach(
        self,
        name: str,
        invoke_id: str,
        last_event_id: str | None = None,
        *,
        namespace: str | None = None,
        max_reconnects: int = 5,
        reconnect_delay: float = 0.5,
    ) -> AttachStream:
        """A run's events, replayed from the start (or after ``last_event_id``) and followed
        to its ``Exit``, reconnecting after the last id seen when a connection drops."""
        return AttachStream(
            self._http,
            lambda last: events_call(self._req, name, invoke_id, namespace, last),
            _Resume(last_event_id, max_reconnects, reconnect_delay),
        )

    def cancel_run(
        self, name: str, invoke_id: str, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """Cancel an invoke or exec in flight, attached or detached."""
        return json_body(self._http.request(cancel_run_call(self._req, name, invoke_id, namespace)))


class AsyncRunsMixin:
    """Runs on :class:`~svc_client.AsyncClient`."""

    _req: _Requests
    _http: AsyncHTTP

    async def runs(self, name: str, *, namespace: str | None = None) -> list[Run]:
        """See :meth:`RunsMixin.runs`."""
        response = await self._http.request(runs_call(self._req, name, namespace))
        items = json_body(response).get("items")
        return [Run.from_dict(i) for i in items or [] if isinstance(i, dict)]

    def attach(
        self,
        name: str,
        invoke_id: str,
        last_event_id: str | None = None,
        *,
        namespace: str | None = None,
        max_reconnects: int = 5,
        reconnect_delay: float = 0.5,
    ) -> AsyncAttachStream:
        """See :meth:`RunsMixin.attach`."""
        return AsyncAttachStream(
            self._http,
            lambda last: events_call(self._req, name, invoke_id, namespace, last),
            _Resume(last_event_id, max_reconnects, reconnect_delay),
        )

    async def cancel_run(
        self, name: str, invoke_id: str, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """See :meth:`RunsMixin.cancel_run`."""
        response = await self._http.request(cancel_run_call(self._req, name, invoke_id, namespace))
        return json_body(response)


def detached(call: Call, timeout: str | None = None) -> Call:
    """``call`` (an invoke or exec) asking to detach: ``?detach=true``, a JSON answer."""
    params = {**call.params, "detach": "true"}
    if timeout:
        params["timeout"] = timeout
    headers = {k: v for k, v in call.headers.items() if k.lower() != "accept"}
    return replace(call, params=params, headers=headers, timeout=None)
