"""Exceptions raised by the client.

Every HTTP error the server answers with becomes an :class:`APIError` subclass that keeps
the status code, the parsed JSON body (``body``), the server's machine code (``code``,
the body's ``error`` field) and its human ``message``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from .models import Violation


class SvcError(Exception):
    """Base class of every error this package raises."""


class APIConnectionError(SvcError):
    """The server could not be reached, or the connection failed or timed out."""


class StreamInterrupted(APIConnectionError):
    """An SSE stream ended (or the connection dropped) before its final event."""


class SSEEventTooLarge(SvcError):
    """One SSE event (its lines so far plus a line not yet ended) passed the reader's bound
    (``max_event_size``, 16 MiB by default): the stream is refused, not buffered further."""

    def __init__(self, max_event_size: int) -> None:
        super().__init__(
            f"an SSE event is larger than {max_event_size} characters: the stream is refused"
        )
        self.max_event_size = max_event_size


class WaitTimeout(SvcError, TimeoutError):
    """A ``wait_*`` helper gave up before the sandbox reached the wanted phase."""

    def __init__(self, message: str, last_phase: str | None = None) -> None:
        super().__init__(message)
        self.last_phase = last_phase


class SandboxFailed(SvcError):
    """A ``wait_*`` helper saw the sandbox enter the ``Error`` phase."""

    def __init__(self, message: str, sandbox: Any) -> None:
        super().__init__(message)
        self.sandbox = sandbox


class APIError(SvcError):
    """The server answered with an error status.

    Attributes:
        status_code: the HTTP status.
        body: the decoded JSON body (a dict), or ``{}`` when it was not JSON.
        code: the body's ``error`` field (``"not_found"``, ``"policy_violation"``, ...).
        message: the body's ``message`` field, or the raw text.
        headers: the response headers.
    """

    def __init__(
        self,
        status_code: int,
        body: Mapping[str, Any] | None = None,
        *,
        text: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status_code = status_code
        self.body: dict[str, Any] = dict(body or {})
        self.code: str | None = _str_or_none(self.body.get("error"))
        self.message: str = _str_or_none(self.body.get("message")) or text or ""
        self.headers: dict[str, str] = dict(headers or {})
        super().__init__(self._describe())

    def _describe(self) -> str:
        parts = [str(self.status_code)]
        if self.code:
            parts.append(self.code)
        if self.message:
            parts.append(self.message)
        return ": ".join(parts)


class BadRequest(APIError):
    """400: the request was invalid (``fields`` lists bad fields when the server says)."""

    @property
    def fields(self) -> list[dict[str, Any]]:
        fields = self.body.get("fields")
        return [f for f in fields if isinstance(f, dict)] if isinstance(fields, list) else []


class AuthenticationError(APIError):
    """401: missing or invalid credentials (or admin endpoints disabled)."""


class PermissionDenied(APIError):
    """403: authenticated, but not allowed (not the owner, not an admin)."""


class PolicyViolation(PermissionDenied):
    """403 with ``{"error": "policy_violation", "violations": [...]}``."""

    @property
    def violations(self) -> list[Violation]:
        items = self.body.get("violations")
        if not isinstance(items, list):
            return []
        return [Violation.from_dict(v) for v in items if isinstance(v, dict)]

    def _describe(self) -> str:
        codes = ", ".join(v.code for v in self.violations)
        return f"403: policy_violation: {codes}" if codes else super()._describe()


class NotFound(APIError):
    """404: no such sandbox, port, policy override, ..."""


class Conflict(APIError):
    """409: the resource exists already or is in the wrong phase."""


class FailedDependency(APIError):
    """424: a prerequisite is missing (invoke before any configure)."""


class RateLimited(APIError):
    """429: too many requests. ``retry_after`` is the header, in seconds, when sent."""

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.headers.get("retry-after"))


class ConcurrencyExceeded(RateLimited):
    """429 ``concurrency_exceeded``: the sandbox runs its ``maxConcurrentInvokes`` already."""

    @property
    def limit(self) -> int | None:
        value = self.body.get("limit")
        return value if isinstance(value, int) else None

    @property
    def inflight(self) -> int | None:
        value = self.body.get("inflight")
        return value if isinstance(value, int) else None


class ServerError(APIError):
    """5xx: the server failed."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequest,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    424: FailedDependency,
    429: RateLimited,
}


def error_for(
    status_code: int, body: Mapping[str, Any] | None, text: str, headers: Mapping[str, str]
) -> APIError:
    """The exception for an error response (status >= 400)."""
    code = body.get("error") if body else None
    cls: type[APIError]
    if status_code == 403 and code == "policy_violation":
        cls = PolicyViolation
    elif status_code == 429 and code == "concurrency_exceeded":
        cls = ConcurrencyExceeded
    elif status_code >= 500:
        cls = ServerError
    else:
        cls = _BY_STATUS.get(status_code, APIError)
    return cls(status_code, body, text=text, headers=headers)


def error_from_response(response: httpx.Response) -> APIError:
    """Build the exception for a (read) error response."""
    text = response.text
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_for(
        response.status_code,
        body if isinstance(body, dict) else None,
        text,
        {k.lower(): v for k, v in response.headers.items()},
    )


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (only the delta-seconds form is understood)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return max(seconds, 0.0)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
