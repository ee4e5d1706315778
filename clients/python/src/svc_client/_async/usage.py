"""Usage on the clients: the source of both (``_sync/usage.py`` is generated from it)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from .._http import Call, json_body
from .._sse import aiter_sse_response
from .._streams import AsyncEventStream
from .._usage import Usage, decode_usage, usage_call
from .http import AsyncHTTP

if TYPE_CHECKING:
    from .._requests import _Requests


class AsyncUsageStream(AsyncEventStream[Usage]):
    """``Usage`` every 2 s (the API's setting). It never ends by itself: leave the loop, or
    close it (a context manager)."""

    def __init__(self, http: AsyncHTTP, call: Call) -> None:
        self._events = self._run(http, call)

    @staticmethod
    async def _run(http: AsyncHTTP, call: Call) -> AsyncGenerator[Usage, None]:
        async with http.stream(call, sse=True) as response:
            async for sse in aiter_sse_response(response, http.sse_max_event_size):
                usage = decode_usage(sse)
                if usage is not None:
                    yield usage


class AsyncUsageMixin:
    """Usage on the client."""

    _req: _Requests
    _http: AsyncHTTP

    async def usage(
        self, name: str, *, history: int | None = None, namespace: str | None = None
    ) -> Usage:
        """The sandbox's figures now; ``history`` adds the samples of the last that many
        seconds (at most 600)."""
        call = usage_call(self._req, name, namespace, history, stream=False)
        return Usage.from_dict(json_body(await self._http.request(call)))

    def watch_usage(self, name: str, *, namespace: str | None = None) -> AsyncUsageStream:
        """The sandbox's figures every 2 s, until the loop is left."""
        call = usage_call(self._req, name, namespace, None, stream=True)
        return AsyncUsageStream(self._http, call)
