"""The terminal session of both clients against a WebSocket server of the test's own on
127.0.0.1 (``websockets``' blocking server in a thread), speaking docs/terminal.md: binary
frames are input and output, text frames JSON control, an exit frame before the close, and
a refused upgrade an ordinary error answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

import svc_client as svc


@dataclass
class Seen:
    """What the server was sent: the upgrade's path and key, and each text frame."""

    paths: list[str] = field(default_factory=list)
    keys: list[str | None] = field(default_factory=list)
    control: list[str] = field(default_factory=list)


def _refuse(status: int, code: str) -> Response:
    body = json.dumps({"error": code, "message": f"refused: {code}"}).encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return Response(status, "Refused", headers, body)


def _shell(seen: Seen, conn: ServerConnection) -> None:
    """Echoes input; ``exit N`` ends with an exit frame, ``hang`` ends without one, ``quiet``
    answers nothing; a resize is answered by a control frame the client must skip and the
    size as output."""
    for message in conn:
        if isinstance(message, str):
            seen.control.append(message)
            size = json.loads(message)
            conn.send(json.dumps({"type": "ready"}))
            conn.send(f"{size['rows']} {size['cols']}\r\n".encode())
        elif message.startswith(b"exit "):
            conn.send(json.dumps({"type": "exit", "exitCode": int(message[5:])}))
            conn.close()
        elif message == b"hang":
            conn.close()
        elif message != b"quiet":
            conn.send(message)


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    seen = Seen()

    def upgrade(conn: ServerConnection, request: Request) -> Response | None:
        seen.paths.append(request.path)
        seen.keys.append(request.headers.get("X-API-Key"))
        if request.headers.get("X-API-Key") != "alice":
            return _refuse(403, "forbidden")
        if "/sandboxes/stopped/" in request.path:
            return _refuse(409, "not_running")
        return None

    srv: Server = serve(lambda conn: _shell(seen, conn), "127.0.0.1", 0, process_request=upgrade)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.socket.getsockname()[1]}", seen
    finally:
        srv.shutdown()
        thread.join(10)


def test_sync_session(server: tuple[str, Seen]) -> None:
    url, seen = server
    with (
        svc.Client(url, api_key="alice", namespace="team") as alice,
        alice.terminal("my box", cols=100, rows=30, command="bash -l") as term,
    ):
        assert isinstance(term, svc.TerminalSession)
        term.send("echo hi\n")
        assert term.recv(timeout=5) == b"echo hi\n"
        term.send(b"\x03")
        assert term.recv(timeout=5) == b"\x03"
        term.resize(120, 40)
        assert term.recv(timeout=5) == b"40 120\r\n"
        term.send(b"quiet")
        with pytest.raises(TimeoutError):
            term.recv(timeout=0.2)
        term.send(b"exit 3")
        assert term.recv(timeout=5) is None
        assert term.exit_code == 3
        assert term.recv(timeout=5) is None
    assert seen.paths == [
        "/api/v1/sandboxes/my%20box/terminal?namespace=team&cols=100&rows=30&command=bash+-l"
    ]
    assert seen.keys == ["alice"]
    assert [json.loads(c) for c in seen.control] == [{"type": "resize", "cols": 120, "rows": 40}]


async def test_async_session(server: tuple[str, Seen]) -> None:
    url, seen = server
    async with svc.AsyncClient(url, api_key="alice") as alice:
        term = await alice.terminal("box")
        assert isinstance(term, svc.AsyncTerminalSession)
        async with term:
            await term.send("echo hi\n")
            assert await term.recv() == b"echo hi\n"
            await term.resize(90, 20)
            assert await term.recv(timeout=5) == b"20 90\r\n"
            await term.send(b"quiet")
            with pytest.raises(TimeoutError):
                await term.recv(timeout=0.2)
            await term.send(b"after")  # the message a timed out recv waited for is not lost
            assert await term.recv(timeout=5) == b"after"
            await term.send(b"exit 7")
            assert await term.recv() is None
            assert term.exit_code == 7
    assert seen.paths == ["/api/v1/sandboxes/box/terminal?cols=80&rows=24"]


def test_ended_without_exit_frame(server: tuple[str, Seen]) -> None:
    url, _ = server
    with svc.Client(url, api_key="alice") as alice, alice.terminal("box") as term:
        term.send(b"hang")
        assert term.recv(timeout=5) is None
        assert term.exit_code is None


async def test_closed_by_us(server: tuple[str, Seen]) -> None:
    url, _ = server
    async with svc.AsyncClient(url, api_key="alice") as alice:
        term = await alice.terminal("box")
        await term.close()
        assert await term.recv() is None
        assert term.exit_code is None


def test_refusals_sync(server: tuple[str, Seen]) -> None:
    url, _ = server
    with svc.Client(url, api_key="bob") as bob, pytest.raises(svc.PermissionDenied) as denied:
        bob.terminal("box")
    assert (denied.value.status_code, denied.value.code) == (403, "forbidden")
    assert denied.value.message == "refused: forbidden"
    with svc.Client(url, api_key="alice") as alice, pytest.raises(svc.Conflict) as conflict:
        alice.terminal("stopped")
    assert (conflict.value.status_code, conflict.value.code) == (409, "not_running")


async def test_refusals_async(server: tuple[str, Seen]) -> None:
    url, _ = server
    async with svc.AsyncClient(url, api_key="bob") as bob:
        with pytest.raises(svc.PermissionDenied) as denied:
            await bob.terminal("box")
    assert (denied.value.status_code, denied.value.code) == (403, "forbidden")
    async with svc.AsyncClient(url, api_key="alice") as alice:
        with pytest.raises(svc.Conflict) as conflict:
            await alice.terminal("stopped")
    assert (conflict.value.status_code, conflict.value.code) == (409, "not_running")
