# Generated from _async/runs.py by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
"""Runs on the clients: the source of both (``_sync/runs.py`` is generated from it).

:meth:`AsyncRunsMixin.attach` reads a run's events and, when a connection drops, reconnects
with ``Last-Event-ID`` so nothing still buffered is missed (``_runs.py`` has the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from time import sleep
from typing import TYPE_CHECKING, Any

from .._http import Call, json_body
from .._runs import (
    Run,
    RunEvent,
    _Resume,
    cancel_run_call,
    decode_run_event,
    events_call,
    runs_call,
)
from .._sse import iter_sse_response
from .._streams import EventStream
from ..errors import APIConnectionError
from ..models import Exit
from .http import SyncHTTP

if TYPE_CHECKING:
    from .._requests import _Requests


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

    def _run(self) -> Generator[RunEvent, None]:
        r = self._resume
        while True:
            progressed = False
            try:
                call = self._call_for(r.last_event_id)
                with self._http.stream(call, sse=True) as response:
                    size = self._http.sse_max_event_size
                    for sse in iter_sse_response(response, size):
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
            sleep(r.next_delay(progressed))


class RunsMixin:
    """Runs on the client."""

    _req: _Requests
    _http: SyncHTTP

    def runs(self, name: str, *, namespace: str | None = None) -> list[Run]:
        """The sandbox's invokes and execs: in flight, and ended ones still kept (15 min)."""
        response = self._http.request(runs_call(self._req, name, namespace))
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
        response = self._http.request(cancel_run_call(self._req, name, invoke_id, namespace))
        return json_body(response)
