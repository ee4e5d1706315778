# Generated from _async/usage.py by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
"""Usage on the clients: the source of both (``_sync/usage.py`` is generated from it)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from .._http import Call, json_body
from .._sse import iter_sse_response
from .._streams import EventStream
from .._usage import Usage, decode_usage, usage_call
from .http import SyncHTTP

if TYPE_CHECKING:
    from .._requests import _Requests


class UsageStream(EventStream[Usage]):
    """``Usage`` every 2 s (the API's setting). It never ends by itself: leave the loop, or
    close it (a context manager)."""

    def __init__(self, http: SyncHTTP, call: Call) -> None:
        self._events = self._run(http, call)

    @staticmethod
    def _run(http: SyncHTTP, call: Call) -> Generator[Usage, None]:
        with http.stream(call, sse=True) as response:
            for sse in iter_sse_response(response, http.sse_max_event_size):
                usage = decode_usage(sse)
                if usage is not None:
                    yield usage


class UsageMixin:
    """Usage on the client."""

    _req: _Requests
    _http: SyncHTTP

    def usage(
        self, name: str, *, history: int | None = None, namespace: str | None = None
    ) -> Usage:
        """The sandbox's figures now; ``history`` adds the samples of the last that many
        seconds (at most 600)."""
        call = usage_call(self._req, name, namespace, history, stream=False)
        return Usage.from_dict(json_body(self._http.request(call)))

    def watch_usage(self, name: str, *, namespace: str | None = None) -> UsageStream:
        """The sandbox's figures every 2 s, until the loop is left."""
        call = usage_call(self._req, name, namespace, None, stream=True)
        return UsageStream(self._http, call)
