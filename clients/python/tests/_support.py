"""Helpers for unit tests: canned SSE bodies and streams that fail part way."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

BASE = "http://svc.test"


def sse(event: str | None, data: Any, *, raw: bool = False) -> str:
    """One SSE event block (``data`` JSON-encoded unless ``raw``)."""
    text = data if raw else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return head + "".join(f"data: {line}\n" for line in str(text).split("\n")) + "\n"


class Dropping(httpx.SyncByteStream, httpx.AsyncByteStream):
    """Yields ``chunks`` and then fails the way a dropped connection does (or ends)."""

    def __init__(self, chunks: list[str], error: Exception | None = None) -> None:
        self.chunks = [c.encode() for c in chunks]
        self.error = error

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        if self.error is not None:
            raise self.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        if self.error is not None:
            raise self.error


def sse_response(chunks: list[str], error: Exception | None = None) -> httpx.Response:
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=Dropping(chunks, error)
    )
