"""The transport of the clients: the source of both (``_sync/http.py``, with ``SyncHTTP``, is
generated from it). It sends a :class:`~svc_client._http.Call`, retries it as the
:class:`~svc_client._http.RetryPolicy` says and turns a refusal into the usual exception;
what needs no I/O (the call, the retry decision, the headers) is in ``_http.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx

from .._flavor import Awaitable
from .._http import (
    AsyncTokenProvider,
    Call,
    RetryPolicy,
    _Base,
    _static_headers,
    aget_token,
    api_base,
    check_auth,
    retry_delay,
)
from ..errors import APIConnectionError, error_from_response


class AsyncHTTP(_Base):
    """The transport with retries; raises :mod:`svc_client.errors` exceptions."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        token: str | AsyncTokenProvider | None,
        timeout: httpx.Timeout,
        stream_read_timeout: float,
        retry: RetryPolicy,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(retry=retry, timeout=timeout, stream_read_timeout=stream_read_timeout)
        check_auth(api_key, token)
        self._api_key, self._token = api_key, token
        # An attribute, so that tests wait no real time between attempts.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.client = httpx.AsyncClient(
            base_url=api_base(base_url), headers=_static_headers(), transport=transport
        )

    async def _auth(self) -> dict[str, str]:
        if self._api_key is not None:
            return {"X-API-Key": self._api_key}
        if self._token is not None:
            # Not inside the f-string, where unasync would not see the await.
            token = await aget_token(self._token)
            return {"Authorization": f"Bearer {token}"}
        return {}

    @asynccontextmanager
    async def stream(self, call: Call, *, sse: bool = False) -> AsyncIterator[httpx.Response]:
        """Send ``call`` and yield the (successful) response, its body not yet read."""
        attempt = 0
        while True:
            kwargs = self._request_kwargs(call, await self._auth(), stream=sse)
            try:
                request = self.client.build_request(call.method, call.path, **kwargs)
                response = await self.client.send(request, stream=True)
            except httpx.TransportError as exc:
                delay = (
                    None
                    if call.once
                    else retry_delay(self.retry, call.method, attempt, transport_error=True)
                )
                if delay is None:
                    raise APIConnectionError(f"{call.method} {call.path}: {exc!r}") from exc
            else:
                try:
                    if response.status_code < 400:
                        yield response
                        return
                    delay = (
                        None
                        if call.once
                        else retry_delay(
                            self.retry,
                            call.method,
                            attempt,
                            status=response.status_code,
                            headers=response.headers,
                        )
                    )
                    if delay is None:
                        try:
                            await response.aread()
                        except httpx.TransportError as exc:
                            raise APIConnectionError(repr(exc)) from exc
                        raise error_from_response(response)
                finally:
                    await response.aclose()
            await self.sleep(delay)
            attempt += 1

    async def request(self, call: Call) -> httpx.Response:
        """Send ``call``, read the body, return the successful response."""
        async with self.stream(call) as response:
            try:
                await response.aread()
            except httpx.TransportError as exc:
                raise APIConnectionError(f"{call.method} {call.path}: {exc!r}") from exc
            return response

    async def aclose(self) -> None:
        await self.client.aclose()
