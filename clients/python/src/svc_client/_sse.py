"""A Server-Sent Events reader (the WHATWG event-stream format).

Comments (lines starting with ``:``, which is how the server sends keepalives) are
ignored, ``data`` spread over several lines is joined with ``\\n``, and an event cut off
by the end of the stream is dropped. A connection failure while reading becomes
:class:`~svc_client.errors.StreamInterrupted`; whether a stream ended *early* is for the
caller to judge (an invoke must end with ``exit``, a configure with ``result``).

One event is bounded like the TypeScript client's (``SSE_MAX_EVENT_SIZE``, 16 MiB of
characters, counting the event's lines so far plus a line not yet ended): past it,
:class:`~svc_client.errors.SSEEventTooLarge`. Responses are read in chunks, not lines,
so a peer that never ends a line cannot make the reader hold more than that either.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass

import httpx

from .errors import SSEEventTooLarge, StreamInterrupted

SSE_MAX_EVENT_SIZE = 16 * 1024 * 1024
"""The default bound on one event, in characters (the TypeScript client's too)."""


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event: its name (``message`` when unnamed), data and id."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Turns lines (without their line terminator) into events, one line at a time."""

    def __init__(self, max_event_size: int = SSE_MAX_EVENT_SIZE) -> None:
        self.max_event_size = max_event_size
        self._size = 0
        self._event = ""
        self._data: list[str] = []
        self._retry: int | None = None
        self._has_data = False
        self.last_event_id: str | None = None

    @property
    def pending(self) -> bool:
        """True when fields were read for an event that has not been dispatched yet."""
        return self._has_data or bool(self._event)

    @property
    def size(self) -> int:
        """Characters of the event so far: its field lines and their line ends."""
        return self._size

    def check_unfinished(self, length: int) -> None:
        """Raise when the event so far plus a line of ``length`` not yet ended is too large."""
        if self._size + length > self.max_event_size:
            raise SSEEventTooLarge(self.max_event_size)

    def feed(self, line: str) -> SSEEvent | None:
        """Consume one line; return an event when the line completes one."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        self._size += len(line) + 1
        if self._size > self.max_event_size:
            raise SSEEventTooLarge(self.max_event_size)
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
        self._size = 0
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


class _LineSplitter:
    """Text chunks, split anywhere, into lines; what is left unended stays bounded."""

    def __init__(self, decoder: SSEDecoder) -> None:
        self._decoder = decoder
        self._buffer = ""

    def push(self, chunk: str) -> list[SSEEvent]:
        buffer = self._buffer + chunk
        out: list[SSEEvent] = []
        start = 0
        while True:
            lf = buffer.find("\n", start)
            cr = buffer.find("\r", start)
            if cr != -1 and (lf == -1 or cr < lf):
                # A CR ending the text so far may be half of a CRLF split across chunks.
                if cr == len(buffer) - 1:
                    break
                end, nxt = cr, (lf + 1 if lf == cr + 1 else cr + 1)
            elif lf != -1:
                end, nxt = lf, lf + 1
            else:
                break
            event = self._decoder.feed(buffer[start:end])
            if event is not None:
                out.append(event)
            start = nxt
        self._buffer = buffer[start:]
        self._decoder.check_unfinished(len(self._buffer))
        return out


def iter_sse(lines: Iterable[str], max_event_size: int = SSE_MAX_EVENT_SIZE) -> Iterator[SSEEvent]:
    """Events from an iterable of lines. An unterminated trailing event is dropped."""
    decoder = SSEDecoder(max_event_size)
    for raw in lines:
        for line in _lines(raw):
            event = decoder.feed(line)
            if event is not None:
                yield event


async def aiter_sse(
    lines: AsyncIterable[str], max_event_size: int = SSE_MAX_EVENT_SIZE
) -> AsyncIterator[SSEEvent]:
    """Async twin of :func:`iter_sse`."""
    decoder = SSEDecoder(max_event_size)
    async for raw in lines:
        for line in _lines(raw):
            event = decoder.feed(line)
            if event is not None:
                yield event


def iter_sse_text(
    chunks: Iterable[str], max_event_size: int = SSE_MAX_EVENT_SIZE
) -> Iterator[SSEEvent]:
    """Events from text in chunks split anywhere (not lines): an endless line is bounded."""
    splitter = _LineSplitter(SSEDecoder(max_event_size))
    for chunk in chunks:
        yield from splitter.push(chunk)


async def aiter_sse_text(
    chunks: AsyncIterable[str], max_event_size: int = SSE_MAX_EVENT_SIZE
) -> AsyncIterator[SSEEvent]:
    """Async twin of :func:`iter_sse_text`."""
    splitter = _LineSplitter(SSEDecoder(max_event_size))
    async for chunk in chunks:
        for event in splitter.push(chunk):
            yield event


def iter_sse_response(
    response: httpx.Response, max_event_size: int = SSE_MAX_EVENT_SIZE
) -> Iterator[SSEEvent]:
    """Events of a streamed response; transport failures become ``StreamInterrupted``.

    Read as decoded text in the chunks that arrive (``iter_text``), not ``iter_lines``,
    which would hold a whole line however long before the bound could be checked."""
    try:
        yield from iter_sse_text(response.iter_text(), max_event_size)
    except httpx.TransportError as exc:
        raise StreamInterrupted(f"event stream interrupted: {exc!r}") from exc


async def aiter_sse_response(
    response: httpx.Response, max_event_size: int = SSE_MAX_EVENT_SIZE
) -> AsyncIterator[SSEEvent]:
    """Async twin of :func:`iter_sse_response`."""
    try:
        async for event in aiter_sse_text(response.aiter_text(), max_event_size):
            yield event
    except httpx.TransportError as exc:
        raise StreamInterrupted(f"event stream interrupted: {exc!r}") from exc
