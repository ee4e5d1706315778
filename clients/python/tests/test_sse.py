from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from svc_client import (
    SSE_MAX_EVENT_SIZE,
    AsyncClient,
    Client,
    Exit,
    Log,
    SSEEventTooLarge,
    Start,
    StreamInterrupted,
    SvcError,
)
from svc_client._sse import (
    SSEDecoder,
    SSEEvent,
    aiter_sse,
    aiter_sse_text,
    iter_sse,
    iter_sse_text,
)

from ._support import BASE, sse, sse_response


def events(text: str) -> list[SSEEvent]:
    return list(iter_sse(text.split("\n")))


def test_comments_and_keepalives_are_ignored() -> None:
    text = ": keepalive\n\n:\n\nevent: log\n: in between\ndata: {}\n\n: keepalive\n\n"
    assert events(text) == [SSEEvent("log", "{}")]


def test_multi_line_data_is_joined_with_newlines() -> None:
    text = "event: log\ndata: first\ndata:second\ndata:  third\n\n"
    assert events(text) == [SSEEvent("log", "first\nsecond\n third")]


def test_unnamed_event_is_message_and_empty_data_is_dispatched() -> None:
    assert events("data:\n\ndata\n\n") == [SSEEvent("message", ""), SSEEvent("message", "")]


def test_event_without_data_is_not_dispatched() -> None:
    assert events("event: start\n\n") == []


def test_id_and_retry_fields() -> None:
    [event] = events("id: 7\nretry: 1500\nretry: x\nevent: e\ndata: d\n\n")
    assert (event.id, event.retry) == ("7", 1500)


def test_crlf_and_cr_line_endings() -> None:
    assert list(iter_sse(["event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r"])) == [
        SSEEvent("a", "1"),
        SSEEvent("b", "2"),
    ]


def test_unterminated_trailing_event_is_dropped() -> None:
    decoder = SSEDecoder()
    assert events("event: exit\ndata: {}\n\nevent: log\ndata: partial") == [SSEEvent("exit", "{}")]
    decoder.feed("data: x")
    assert decoder.pending


async def test_async_parser_matches_sync() -> None:
    text = ": ka\n\nevent: log\ndata: a\ndata: b\n\n"

    async def lines():  # type: ignore[no-untyped-def]
        for line in text.split("\n"):
            yield line

    assert [e async for e in aiter_sse(lines())] == events(text)


def test_the_bound_is_the_typescript_clients_and_its_error_is_a_svc_error() -> None:
    assert SSE_MAX_EVENT_SIZE == 16 * 1024 * 1024
    assert SSEDecoder().max_event_size == SSE_MAX_EVENT_SIZE
    assert issubclass(SSEEventTooLarge, SvcError)


def test_an_event_of_many_lines_past_the_bound_is_refused() -> None:
    # 10 lines of "data: xxxx" (10 characters and a line end each): 110 > 100.
    text = "data: xxxx\n" * 10 + "\n"
    assert [e.data for e in iter_sse_text([text], max_event_size=110)] == ["\n".join(["xxxx"] * 10)]
    with pytest.raises(SSEEventTooLarge, match="larger than 100 characters") as info:
        list(iter_sse_text([text], max_event_size=100))
    assert info.value.max_event_size == 100
    with pytest.raises(SSEEventTooLarge):
        list(iter_sse(text.split("\n"), max_event_size=100))


def test_the_bound_is_per_event_and_comments_do_not_count() -> None:
    one = "data: " + "x" * 50 + "\n\n"
    chunks = [one] * 100 + [": " + "k" * 500 + "\n\n"]
    assert len(list(iter_sse_text(chunks, max_event_size=60))) == 100


def test_an_endless_line_is_refused_without_being_held_whole() -> None:
    sent = 0

    def endless() -> Iterator[str]:
        nonlocal sent
        yield "event: log\n"
        while True:
            sent += 1
            yield "data: " if sent == 1 else "x" * 1000

    with pytest.raises(SSEEventTooLarge):
        list(iter_sse_text(endless(), max_event_size=10_000))
    assert sent <= 11


def test_text_split_anywhere_matches_lines() -> None:
    text = ": ka\r\n\r\nevent: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n"
    for size in (1, 2, 3, 7, len(text)):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert list(iter_sse_text(chunks)) == [
            SSEEvent("a", "1"),
            SSEEvent("b", "2"),
            SSEEvent("message", "3"),
        ]


async def test_async_text_reader_is_bounded_too() -> None:
    async def chunks():  # type: ignore[no-untyped-def]
        yield "data: " + "x" * 200

    with pytest.raises(SSEEventTooLarge):
        async for _ in aiter_sse_text(chunks(), max_event_size=100):
            pass


START = sse("start", {"invokeId": "inv-1", "startedAt": "2025-01-01T00:00:00Z"})
LOG = sse("log", {"stream": "stdout", "data": "hi\n"})
EXIT = sse("exit", {"invokeId": "inv-1", "exitCode": 0, "durationMs": 5, "reason": "completed"})


def client_for(response: httpx.Response) -> Client:
    return Client(BASE, api_key="k", transport=httpx.MockTransport(lambda r: response))


def test_invoke_stream_over_http_with_keepalives_split_across_chunks() -> None:
    body = ": keepalive\n\n" + START + LOG + EXIT
    chunks = [body[i : i + 7] for i in range(0, len(body), 7)]
    with client_for(sse_response(chunks)) as client:
        got = list(client.invoke("sb", "input"))
    assert got == [
        Start("inv-1", "2025-01-01T00:00:00Z"),
        Log("stdout", "hi\n"),
        Exit("inv-1", 0, 5, "completed"),
    ]


def test_connection_dropped_mid_stream_raises() -> None:
    response = sse_response([START, LOG[:20]], httpx.RemoteProtocolError("peer closed"))
    with client_for(response) as client:
        stream = client.invoke("sb", "x")
        assert next(stream) == Start("inv-1", "2025-01-01T00:00:00Z")
        with pytest.raises(StreamInterrupted, match="interrupted"):
            next(stream)


def test_stream_ending_before_exit_raises() -> None:
    with client_for(sse_response([START, LOG])) as client, pytest.raises(StreamInterrupted):
        client.run("sb", "x")


async def test_async_connection_dropped_mid_stream_raises() -> None:
    response = sse_response([START], httpx.ReadError("connection reset"))
    transport = httpx.MockTransport(lambda r: response)
    async with AsyncClient(BASE, api_key="k", transport=transport) as client:
        with pytest.raises(StreamInterrupted):
            async for _ in client.invoke("sb", "x"):
                pass


def test_an_invoke_stream_with_an_event_past_16_mib_is_refused() -> None:
    big = "x" * (1024 * 1024)
    chunks = [START, "event: log\ndata: "] + [big] * 17
    with client_for(sse_response(chunks)) as client:
        stream = client.invoke("sb", "x")
        assert next(stream) == Start("inv-1", "2025-01-01T00:00:00Z")
        with pytest.raises(SSEEventTooLarge, match=str(SSE_MAX_EVENT_SIZE)):
            next(stream)


async def test_async_invoke_stream_with_an_endless_line_is_refused() -> None:
    big = "x" * (1024 * 1024)
    response = sse_response([START, "data: "] + [big] * 17)
    transport = httpx.MockTransport(lambda r: response)
    async with AsyncClient(BASE, api_key="k", transport=transport) as client:
        with pytest.raises(SSEEventTooLarge):
            async for _ in client.invoke("sb", "x"):
                pass


def test_the_clients_option_sets_the_bound_of_its_streams() -> None:
    log = sse("log", {"stream": "stdout", "data": "x" * 200})
    transport = httpx.MockTransport(lambda r: sse_response([START, log, EXIT]))
    with Client(BASE, api_key="k", transport=transport) as client:
        assert len(client.run("sb", "x").stdout) == 200
    small = Client(BASE, api_key="k", transport=transport, sse_max_event_size=100)
    with small, pytest.raises(SSEEventTooLarge, match="larger than 100 characters"):
        small.run("sb", "x")


async def test_the_async_clients_option_sets_the_bound_of_its_streams() -> None:
    log = sse("log", {"stream": "stdout", "data": "x" * 200})
    transport = httpx.MockTransport(lambda r: sse_response([START, log, EXIT]))
    async with AsyncClient(BASE, api_key="k", transport=transport, sse_max_event_size=100) as c:
        with pytest.raises(SSEEventTooLarge):
            async for _ in c.invoke("sb", "x"):
                pass


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A real HTTP server that sends headers and one event, then goes quiet."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            chunk = START.encode()
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            stop.wait(10)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(5)
    server.close()


def test_silent_stream_times_out_instead_of_hanging(silent_server: str) -> None:
    with Client(silent_server, api_key="k", stream_read_timeout=0.5) as client:
        stream = client.invoke("sb", "x")
        assert isinstance(next(stream), Start)
        began = time.monotonic()
        with pytest.raises(StreamInterrupted):
            next(stream)
        assert time.monotonic() - began < 5


def test_streams_use_the_stream_read_timeout_and_calls_the_normal_one() -> None:
    seen: list[dict[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        if request.method == "GET":
            return httpx.Response(200, json={"metadata": {"name": "sb", "namespace": "ns"}})
        return sse_response([START, EXIT])

    transport = httpx.MockTransport(handler)
    with Client(BASE, api_key="k", timeout=7, stream_read_timeout=42, transport=transport) as c:
        c.run("sb")
        c.get("sb")
    assert [t["read"] for t in seen] == [42, 7]
