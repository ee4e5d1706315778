"""HTTP plumbing without I/O: configuration, the :class:`Call`, authentication headers, the
retry decision (:func:`retry_delay`, pure) and reading a JSON body. The transport that sends
calls is written once in ``_async/http.py`` (``AsyncHTTP``), from which ``_sync/http.py``
(``SyncHTTP``) is generated.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ._sse import SSE_MAX_EVENT_SIZE
from .errors import APIConnectionError, parse_retry_after

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


def get_token(token: str | TokenProvider) -> str:
    """The bearer token to send now: ``token`` itself, or what the provider returns."""
    return token() if callable(token) else token


async def aget_token(token: str | AsyncTokenProvider) -> str:
    """:func:`get_token` for the async client, whose provider may be a coroutine function."""
    value = token() if callable(token) else token
    if inspect.isawaitable(value):
        value = await value
    return value


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


def json_body(response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object (``{}`` for an empty body)."""
    if not response.content:
        return {}
    try:
        data = response.json()
    except ValueError as exc:
        raise APIConnectionError(f"expected JSON, got {response.text[:200]!r}") from exc
    return data if isinstance(data, dict) else {"value": data}
