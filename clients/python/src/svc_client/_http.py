"""HTTP plumbing: configuration, authentication headers, retries, error mapping.

The retry *decision* (:func:`retry_delay`) is pure and shared; :class:`SyncHTTP` and
:class:`AsyncHTTP` only differ in how they send and sleep.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
)
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from ._sse import SSE_MAX_EVENT_SIZE
from .errors import APIConnectionError, error_from_response, parse_retry_after

__version__ = "0.1.0"

API_PREFIX = "/api/v1"
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({502, 503, 504})

TokenProvider = Callable[[], str]
"""Returns a bearer token; called before every request so it can refresh."""
AsyncTokenProvider = Callable[[], str | Awaitable[str]]
"""Like :data:`TokenProvider`, and may also be a coroutine function."""

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
# The server sends an SSE keepalive every 15 s, so a silent minute means a dead stream.
DEFAULT_STREAM_READ_TIMEOUT = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before sending a request again.

    Idempotent requests (GET, PUT, DELETE) are retried after connection errors, timeouts
    and 502/503/504. Any request is retried after a 429 (it was not processed), waiting
    ``Retry-After`` seconds, unless that is longer than ``max_retry_after``.
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    retry_on_429: bool = True
    max_retry_after: float = 30.0


def retry_delay(
    policy: RetryPolicy,
    method: str,
    attempt: int,
    *,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    transport_error: bool = False,
) -> float | None:
    """Seconds to wait before attempt ``attempt + 1``, or ``None`` to give up."""
    if attempt >= policy.max_retries:
        return None
    if status == 429:
        if not policy.retry_on_429:
            return None
        after = parse_retry_after((headers or {}).get("retry-after"))
        if after is None:
            return _backoff(policy, attempt)
        return after if after <= policy.max_retry_after else None
    if method.upper() not in IDEMPOTENT_METHODS:
        return None
    if transport_error or status in RETRY_STATUSES:
        return _backoff(policy, attempt)
    return None


def _backoff(policy: RetryPolicy, attempt: int) -> float:
    base: float = min(policy.max_backoff, policy.backoff * (2**attempt))
    return base * (0.5 + random.random() / 2)


@dataclass(frozen=True)
class Call:
    """One API request, relative to ``{base_url}/api/v1``."""

    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    json: Any = None
    content: bytes | Iterable[bytes] | AsyncIterable[bytes] | None = None
    """The raw body: bytes, or chunks streamed as they come."""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: httpx.Timeout | None = None
    """Instead of the client's own (a JSON exec answers only when its command ends)."""
    once: bool = False
    """Never retried: a streamed body cannot be sent twice."""


def api_base(base_url: str) -> str:
    """``http://host:8080`` -> ``http://host:8080/api/v1`` (left alone if already there)."""
    url = base_url.rstrip("/")
    return url if url.endswith(API_PREFIX) else url + API_PREFIX


def check_auth(api_key: str | None, token: object) -> None:
    if api_key is not None and token is not None:
        raise ValueError("pass either api_key or token, not both")


def _static_headers() -> dict[str, str]:
    return {"User-Agent": f"svc-client-python/{__version__}", "Accept": "application/json"}


class _Base:
    def __init__(
        self, *, retry: RetryPolicy, timeout: httpx.Timeout, stream_read_timeout: float
    ) -> None:
        self.retry = retry
        # The bound on one SSE event of this client's streams (set by Client/AsyncClient).
        self.sse_max_event_size = SSE_MAX_EVENT_SIZE
        self.timeout = timeout
        self.stream_timeout = httpx.Timeout(
            connect=timeout.connect,
            read=stream_read_timeout,
            write=timeout.write,
            pool=timeout.pool,
        )

    def _request_kwargs(self, call: Call, auth: dict[str, str], stream: bool) -> dict[str, Any]:
        headers = {**auth, **call.headers}
        kwargs: dict[str, Any] = {
            "params": call.params or None,
            "headers": headers,
            "timeout": call.timeout or (self.stream_timeout if stream else self.timeout),
        }
        if call.content is not None:
            kwargs["content"] = call.content
        elif call.json is not None:
            kwargs["json"] = call.json
        return kwargs


class SyncHTTP(_Base):
    """Blocking transport with retries; raises :mod:`svc_client.errors` exceptions."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        token: str | TokenProvider | None,
        timeout: httpx.Timeout,
        stream_read_timeout: float,
        retry: RetryPolicy,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(retry=retry, timeout=timeout, stream_read_timeout=stream_read_timeout)
        check_auth(api_key, token)
        self._api_key, self._token = api_key, token
        self.sleep: Callable[[float], None] = time.sleep
        self.client = httpx.Client(
            base_url=api_base(base_url), headers=_static_headers(), transport=transport
        )

    def _auth(self) -> dict[str, str]:
        if self._api_key is not None:
            return {"X-API-Key": self._api_key}
        if self._token is not None:
            token = self._token() if callable(self._token) else self._token
            return {"Authorization": f"Bearer {token}"}
        return {}

    @contextmanager
    def stream(self, call: Call, *, sse: bool = False) -> Iterator[httpx.Response]:
        """Send ``call`` and yield the (successful) response, its body not yet read."""
        attempt = 0
        while True:
            kwargs = self._request_kwargs(call, self._auth(), stream=sse)
            try:
                request = self.client.build_request(call.method, call.path, **kwargs)
                response = self.client.send(request, stream=True)
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
                            response.read()
                        except httpx.TransportError as exc:
                            raise APIConnectionError(repr(exc)) from exc
                        raise error_from_response(response)
                finally:
                    response.close()
            self.sleep(delay)
            attempt += 1

    def request(self, call: Call) -> httpx.Response:
        """Send ``call``, read the body, return the successful response."""
        with self.stream(call) as response:
            try:
                response.read()
            except httpx.TransportError as exc:
                raise APIConnectionError(f"{call.method} {call.path}: {exc!r}") from exc
            return response

    def close(self) -> None:
        self.client.close()


class AsyncHTTP(_Base):
    """Async twin of :class:`SyncHTTP`."""

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
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.client = httpx.AsyncClient(
            base_url=api_base(base_url), headers=_static_headers(), transport=transport
        )

    async def _auth(self) -> dict[str, str]:
        if self._api_key is not None:
            return {"X-API-Key": self._api_key}
        if self._token is not None:
            token = self._token() if callable(self._token) else self._token
            if inspect.isawaitable(token):
                token = await token
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


def json_body(response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object (``{}`` for an empty body)."""
    if not response.content:
        return {}
    try:
        data = response.json()
    except ValueError as exc:
        raise APIConnectionError(f"expected JSON, got {response.text[:200]!r}") from exc
    return data if isinstance(data, dict) else {"value": data}
