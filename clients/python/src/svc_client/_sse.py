"""A Server-Sent Events reader (the WHATWG event-stream format).

Comments (lines starting with ``:``, which is how the server sends keepalives) are
ignored, ``data`` spread over several lines is joined with ``\\n``, and an event cut off
by the end of the stream is dropped. A connection failure while reading becomes
:class:`~svc_client.errors.StreamInterrupted`; whether a stream ended *early* is for the
caller to judge (an invoke must end with ``exit``, a configure with ``result``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass

import httpx

from .errors import StreamInterrupted


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event: its name (``message`` when unnamed), data and id."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Turns lines (without their line terminator) into events, one line at a time."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._retry: int | None = None
        self._has_data = False
        self.last_event_id: str | None = None

    @property
    def pending(self) -> bool:
        """True when fields were read for an event that has not been dispatched yet."""
        return self._has_data or bool(self._event)

    def feed(self, line: str) -> SSEEvent | None:
        """Consume one line; return an event when the line completes one."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        has_data, event, data = self._has_data, self._event, "\n".join(self._data)
        retry = self._retry
        self._event, self._data, self._has_data, self._retry = "", [], False, None
        if not has_data:
            return None
        return SSEEvent(event or "message", data, self.last_event_id, retry)


def _lines(raw: str) -> list[str]:
    """``raw`` as lines: httpx's ``iter_lines`` gives one line without terminator, but
    text holding ``\n``, ``\r\n`` or ``\r`` is split too (a final terminator ends the
    last line; it does not start an empty one)."""
    if "\n" not in raw and "\r" not in raw:
        return [raw]
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def iter_sse(lines: Iterable[str]) -> Iterator[SSEEvent]:
    """Events from an iterable of lines. An unterminated trailing event is dropped."""
    decoder = SSEDecoder()
    for raw in lines:
        for line in _lines(raw):
            event = decoder.feed(line)
            if event is not None:
                yield event


async def aiter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SSEEvent]:
    """Async twin of :func:`iter_sse`."""
    decoder = SSEDecoder()
    async for raw in lines:
        for line in _lines(raw):
            event = decoder.feed(line)
            if event is not None:
                yield event


def iter_sse_response(response: httpx.Response) -> Iterator[SSEEvent]:
    """Events of a streamed response; transport failures become ``StreamInterrupted``."""
    try:
        yield from iter_sse(response.iter_lines())
    except httpx.TransportError as exc:
        raise StreamInterrupted(f"event stream interrupted: {exc!r}") from exc


async def aiter_sse_response(response: httpx.Response) -> AsyncIterator[SSEEvent]:
    """Async twin of :func:`iter_sse_response`."""
    try:
        async for event in aiter_sse(response.aiter_lines()):
            yield event
    except httpx.TransportError as exc:
        raise StreamInterrupted(f"event stream interrupted: {exc!r}") from exc
