"""The terminal's WebSocket, one class per flavour, so that the session and the mixin are
written once (``_async/terminal.py``, from which ``_sync/terminal.py`` is generated).

``websockets``' two clients differ past what ``unasync`` renames: the blocking ``recv``
takes a timeout and the asyncio one does not; the blocking ``connect`` takes ``legacy=True``;
and the module ``websockets.asyncio`` would meet the ``asyncio`` → ``time`` rename. Each class
here hides that behind the same methods, and ``unasync`` turns ``AsyncWebSocket`` into
``SyncWebSocket`` by its own rule. Both turn a refused upgrade into the usual
:class:`~svc_client.errors.APIError` and the end of the connection into ``None``.
"""

from __future__ import annotations

import asyncio

import httpx
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as aconnect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from .errors import APIError, error_from_response


def _refusal(err: InvalidStatus) -> APIError:
    """The API's refusal of the upgrade (401, 403, 404, 409, 429…) as the usual exception."""
    res = err.response
    response = httpx.Response(
        res.status_code,
        headers=list(res.headers.raw_items()),
        content=bytes(res.body or b""),
        request=httpx.Request("GET", "ws://terminal"),
    )
    return error_from_response(response)


class SyncWebSocket:
    """A blocking connection: binary frames for ``bytes``, text frames for ``str``."""

    def __init__(self, conn: ClientConnection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, url: str, headers: dict[str, str], open_timeout: float) -> SyncWebSocket:
        try:
            conn = connect(
                url,
                additional_headers=headers,
                compression=None,
                max_size=None,
                open_timeout=open_timeout,
                # The connection itself, which the session owns and closes (not a context
                # manager, which websockets 17.1 made the default it is moving to).
                legacy=True,
            )
        except InvalidStatus as err:
            raise _refusal(err) from None
        return cls(conn)

    def send(self, message: bytes | str) -> None:
        self._conn.send(message, text=isinstance(message, str))

    def recv(self, timeout: float | None) -> bytes | str | None:
        """The next message, ``None`` once closed; ``TimeoutError`` after ``timeout``."""
        try:
            return self._conn.recv(timeout)
        except ConnectionClosed:
            return None

    def close(self) -> None:
        self._conn.close()


class AsyncWebSocket:
    """:class:`SyncWebSocket` for asyncio."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    @classmethod
    async def open(cls, url: str, headers: dict[str, str], open_timeout: float) -> AsyncWebSocket:
        try:
            conn = await aconnect(
                url,
                additional_headers=headers,
                compression=None,
                max_size=None,
                open_timeout=open_timeout,
            )
        except InvalidStatus as err:
            raise _refusal(err) from None
        return cls(conn)

    async def send(self, message: bytes | str) -> None:
        await self._conn.send(message, text=isinstance(message, str))

    async def recv(self, timeout: float | None) -> bytes | str | None:
        # The asyncio recv takes no timeout but may be cancelled without losing a message.
        try:
            return await asyncio.wait_for(self._conn.recv(), timeout)
        except ConnectionClosed:
            return None
        except asyncio.TimeoutError:  # not yet the builtin TimeoutError on Python 3.10
            raise TimeoutError from None

    async def close(self) -> None:
        await self._conn.close()
