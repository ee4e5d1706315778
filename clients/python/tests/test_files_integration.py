# ruff: noqa: F811 (pytest fixtures imported from the end-to-end suite, used as parameters)
"""``client.files`` and ``client.archive`` end to end against a real service (see
conftest.py), sync and async: a code sandbox's files written, read (whole, by range,
streamed to disk), listed, moved and deleted; a folder up and down as an archive with its
modes and an inside link; escapes and another user refused."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import svc_client as svc
from svc_client import AsyncClient, Client

# The stack fixtures of the end-to-end suite (clients for alice and bob, the template).
from .test_integration import (  # noqa: F401
    READY_TIMEOUT,
    aalice,
    alice,
    bob,
    namespace,
    template,
    unique,
)

pytestmark = pytest.mark.integration


def test_sync_files_and_archives(alice: Client, bob: Client, template: str, tmp_path: Path) -> None:
    name = unique("pyfiles")
    alice.create(name, template, mode="code", timeout="30m")
    try:
        alice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)

        written = alice.files.write(name, "/workspace/app/x.py", "print('hi')\n", mode=0o755)
        assert written.created and written.size == 12
        assert written.sha256 == hashlib.sha256(b"print('hi')\n").hexdigest()
        assert not alice.files.write(name, "/workspace/app/x.py", b"0123456789").created
        assert alice.files.read(name, "/workspace/app/x.py") == b"0123456789"
        assert alice.files.read(name, "/workspace/app/x.py", range="bytes=3-5") == b"345"
        entries = alice.files.list(name, "/workspace/app").entries
        assert [(e.name, e.type, e.size, e.mode) for e in entries] == [
            ("x.py", "file", 10, "-rwxr-xr-x")
        ]

        assert alice.files.mkdir(name, "/workspace/data") == "/workspace/data"
        assert alice.files.move(name, "/workspace/app/x.py", "/workspace/data/y.py") == (
            "/workspace/data/y.py"
        )
        with pytest.raises(svc.NotFound):
            alice.files.read(name, "/workspace/app/x.py")
        with pytest.raises(svc.Conflict):
            alice.files.delete(name, "/workspace/data")  # not empty
        alice.files.delete(name, "/workspace/data", recursive=True)
        assert "data" not in {e.name for e in alice.files.list(name).entries}

        big = tmp_path / "big.bin"
        with open(big, "wb") as f:
            for i in range(24):
                f.write(bytes([i]) * (1024 * 1024))
        up = alice.files.upload(name, big, "/workspace/big.bin")
        assert up.size == 24 * 1024 * 1024
        assert up.sha256 == hashlib.sha256(big.read_bytes()).hexdigest()
        assert alice.files.download(name, "/workspace/big.bin", tmp_path / "back.bin") == up.size
        assert hashlib.sha256((tmp_path / "back.bin").read_bytes()).hexdigest() == up.sha256

        folder = tmp_path / "tree"
        (folder / "bin").mkdir(parents=True)
        (folder / "bin" / "run.sh").write_text("#!/bin/sh\necho hi\n")
        os.chmod(folder / "bin" / "run.sh", 0o755)
        (folder / "secret.txt").write_text("s")
        os.chmod(folder / "secret.txt", 0o600)
        os.symlink("bin/run.sh", folder / "run")
        assert alice.archive.upload(name, folder, "/workspace/tree") == svc.Extracted(3, 19)
        alice.archive.download(name, "/workspace/tree", tmp_path / "again")
        again = tmp_path / "again"
        assert stat.S_IMODE((again / "bin" / "run.sh").stat().st_mode) == 0o755
        assert stat.S_IMODE((again / "secret.txt").stat().st_mode) == 0o600
        assert os.readlink(again / "run") == "bin/run.sh"
        alice.archive.download(
            name, "/workspace/tree", tmp_path / "t.zip", extract=False, format="zip"
        )
        assert (tmp_path / "t.zip").read_bytes()[:2] == b"PK"

        for escape in ("/etc/x", "/workspace/../etc/x", "relative/x"):
            with pytest.raises(svc.BadRequest) as err:
                alice.files.write(name, escape, b"evil")
            assert err.value.code == "path_outside_workspace"
        with pytest.raises((svc.PermissionDenied, svc.NotFound)):
            bob.files.list(name)
        with pytest.raises((svc.PermissionDenied, svc.NotFound)):
            bob.files.write(name, "/workspace/bob.txt", b"bob")
        with pytest.raises((svc.PermissionDenied, svc.NotFound)):
            bob.archive.download(name, "/workspace", tmp_path / "bob")
    finally:
        with contextlib.suppress(svc.NotFound):
            alice.delete(name)


async def test_async_files_and_archives(aalice: AsyncClient, template: str, tmp_path: Path) -> None:
    name = unique("pyafiles")
    await aalice.create(name, template, mode="code", timeout="30m")
    try:
        await aalice.wait_for_phase(name, "Running", timeout=READY_TIMEOUT)

        async def chunks() -> AsyncIterator[bytes]:
            for i in range(8):
                yield bytes([i]) * 65536

        written = await aalice.files.write(name, "/workspace/a.bin", chunks())
        assert written.created and written.size == 8 * 65536
        assert (await aalice.files.read(name, "/workspace/a.bin", range="bytes=65536-65539")) == (
            b"\x01" * 4
        )
        assert await aalice.files.mkdir(name, "/workspace/d") == "/workspace/d"
        await aalice.files.move(name, "/workspace/a.bin", "/workspace/d/a.bin")
        listing = await aalice.files.list(name, "/workspace/d")
        assert [e.name for e in listing.entries] == ["a.bin"]
        size = await aalice.files.download(name, "/workspace/d/a.bin", tmp_path / "a.bin")
        assert size == 8 * 65536
        await aalice.files.delete(name, "/workspace/d", recursive=True)

        folder = tmp_path / "up"
        folder.mkdir()
        (folder / "f.txt").write_text("hello")
        assert (await aalice.archive.upload(name, folder, "/workspace/up")).files == 1
        await aalice.archive.download(name, "/workspace/up", tmp_path / "down")
        assert (tmp_path / "down" / "f.txt").read_text() == "hello"
        with pytest.raises(svc.BadRequest):
            await aalice.files.read(name, "/etc/hostname")
    finally:
        with contextlib.suppress(svc.NotFound):
            await aalice.delete(name)
