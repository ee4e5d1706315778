"""The requests of ``client.files`` and ``client.archive``, sync and async: paths, query
parameters, streamed bodies (never retried), and how answers are read."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

import svc_client as svc

from .test_client import Recorder

LISTING = {
    "path": "/workspace",
    "entries": [
        {
            "name": "a b.txt",
            "path": "/workspace/a b.txt",
            "size": 3,
            "isDir": False,
            "type": "file",
            "mode": "-rw-r--r--",
            "modifiedAt": 1700000000,
        }
    ],
}
WRITTEN = {"path": "/workspace/a b.txt", "size": 3, "sha256": "abc"}


def answer(request: httpx.Request) -> httpx.Response:
    if request.method == "PUT" and request.url.path.endswith("/archive"):
        return httpx.Response(200, json={"files": 2, "bytes": 7})
    if request.method == "PUT":
        return httpx.Response(201, json={**WRITTEN, "size": len(request.content)})
    if request.method == "DELETE":
        return httpx.Response(204)
    if request.method == "POST":
        op = request.read()
        return httpx.Response(200 if b"move" in op else 201, json={"path": "/workspace/to"})
    if request.url.path.endswith("/archive"):
        return httpx.Response(200, content=tar_of({"x.txt": b"archived"}))
    if request.url.path.endswith("/files"):
        return httpx.Response(200, json=LISTING)
    return httpx.Response(200, content=b"0123456789")


def tar_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def chunks() -> Iterator[bytes]:
    yield b"ab"
    yield b"c"


def test_sync_files_requests(tmp_path: Path) -> None:
    rec = Recorder(answer)
    with rec.sync(namespace="ns") as c:
        listing = c.files.list("box", "/workspace")
        assert listing.entries[0] == svc.FileEntry(
            "a b.txt", "/workspace/a b.txt", 3, False, "file", "-rw-r--r--", 1700000000
        )
        assert rec.last.url.path == "/api/v1/sandboxes/box/files"
        assert dict(rec.last.url.params) == {"path": "/workspace", "namespace": "ns"}

        assert c.files.read("box", "/workspace/a b.txt", range="bytes=0-1") == b"0123456789"
        assert (
            rec.last.url.raw_path == b"/api/v1/sandboxes/box/files/workspace/a%20b.txt?namespace=ns"
        )
        assert rec.last.headers["range"] == "bytes=0-1"

        written = c.files.write("box", "/workspace/a b.txt", chunks(), mode=0o755)
        assert written == svc.WrittenFile("/workspace/a b.txt", 3, "abc", created=True)
        assert rec.last.method == "PUT" and rec.last.content == b"abc"
        assert dict(rec.last.url.params) == {"mode": "0755", "namespace": "ns"}
        assert c.files.write("box", "/workspace/t.txt", "text").size == 4

        c.files.delete("box", "/workspace/d", recursive=True)
        assert (rec.last.method, dict(rec.last.url.params)) == (
            "DELETE",
            {"recursive": "true", "namespace": "ns"},
        )
        assert c.files.mkdir("box", "/workspace/d") == "/workspace/to"
        assert json.loads(rec.last.content) == {"op": "mkdir"}
        assert c.files.move("box", "/workspace/a", "/workspace/to") == "/workspace/to"

        local = tmp_path / "up.bin"
        local.write_bytes(b"x" * 3_000_000)
        assert c.files.upload("box", local, "/workspace/up.bin").size == 3_000_000
        assert c.files.download("box", "/workspace/up.bin", tmp_path / "down.bin") == 10
        assert (tmp_path / "down.bin").read_bytes() == b"0123456789"

        folder = tmp_path / "folder"
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.txt").write_text("hello")
        assert c.archive.upload("box", folder, "/workspace/dest") == svc.Extracted(2, 7)
        assert dict(rec.last.url.params) == {"path": "/workspace/dest", "namespace": "ns"}
        with tarfile.open(fileobj=io.BytesIO(rec.last.content)) as sent:
            assert sorted(sent.getnames()) == ["sub", "sub/f.txt"]
        c.archive.download("box", "/workspace/dest", tmp_path / "out")
        assert (tmp_path / "out" / "x.txt").read_bytes() == b"archived"
        assert dict(rec.last.url.params)["format"] == "tar.gz"


def test_a_streamed_upload_is_never_retried() -> None:
    calls = 0

    def busy(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        request.read()
        return httpx.Response(503, json={"error": "sandbox_unreachable", "message": "later"})

    with svc.Client("http://svc.test", transport=httpx.MockTransport(busy)) as c:
        c._http.sleep = lambda _: None
        with pytest.raises(svc.ServerError):
            c.files.write("box", "/workspace/x", chunks())
        assert calls == 1
        calls = 0
        with pytest.raises(svc.ServerError):
            c.files.write("box", "/workspace/x", b"bytes can be sent again")
        assert calls > 1


def test_an_outside_path_is_a_bad_request() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"error": "path_outside_workspace", "message": "/etc/x: not inside"}
        )

    with svc.Client("http://svc.test", transport=httpx.MockTransport(refuse)) as c:
        with pytest.raises(svc.BadRequest) as err:
            c.files.write("box", "/etc/x", b"x")
        assert err.value.code == "path_outside_workspace"


async def test_async_files_requests(tmp_path: Path) -> None:
    rec = Recorder(answer)

    async def achunks() -> AsyncIterator[bytes]:
        yield b"ab"
        yield b"cd"

    async with rec.aio(namespace="ns") as c:
        assert (await c.files.list("box")).path == "/workspace"
        assert await c.files.read("box", "/workspace/a") == b"0123456789"
        assert (await c.files.write("box", "/workspace/a", achunks())).size == 4
        assert rec.last.content == b"abcd"
        await c.files.delete("box", "/workspace/a")
        assert await c.files.mkdir("box", "/workspace/d") == "/workspace/to"
        assert await c.files.move("box", "/workspace/a", "/workspace/to") == "/workspace/to"
        assert await c.files.download("box", "/workspace/a", tmp_path / "d.bin") == 10
        (tmp_path / "f").mkdir()
        (tmp_path / "f" / "x").write_text("1")
        assert (await c.archive.upload("box", tmp_path / "f", "/workspace/f")).files == 2
        await c.archive.download("box", "/workspace/f", tmp_path / "back")
        assert (tmp_path / "back" / "x.txt").read_bytes() == b"archived"
