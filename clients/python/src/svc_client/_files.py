"""Files and archives of a sandbox's workspace: the models, request builders and helpers
both clients share (``client.files`` and ``client.archive`` are written once, in
``_async/files.py``).

Paths in a sandbox are absolute (``/workspace/app/x.py``). Bodies stream both ways: an
upload is read from its source a chunk at a time and a download written as it arrives, so a
file of any size costs a chunk of memory.
"""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import quote

from ._http import Call

CHUNK = 1024 * 1024
"""How much of a file an upload reads, or a download writes, at a time."""

Data = bytes | str | Iterable[bytes] | IO[bytes]
"""What a write sends: bytes, text (UTF-8), chunks, or a binary file object."""
AsyncData = bytes | str | AsyncIterable[bytes] | Iterable[bytes] | IO[bytes]


@dataclass(frozen=True)
class FileEntry:
    """One entry of a folder listing."""

    name: str
    path: str
    size: int
    is_dir: bool
    type: str
    """``file``, ``dir`` or ``symlink``."""
    mode: str
    """Type and permission bits as ``ls -l`` writes them, such as ``-rw-r--r--`` or
    ``drwxr-xr-x`` (setuid, setgid and sticky as ``s``/``S`` and ``t``/``T``)."""
    modified_at: int
    """Seconds since the epoch."""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FileEntry:
        return cls(
            name=d["name"],
            path=d["path"],
            size=d["size"],
            is_dir=d["isDir"],
            type=d["type"],
            mode=d["mode"],
            modified_at=d["modifiedAt"],
        )


@dataclass(frozen=True)
class FileListing:
    path: str
    entries: list[FileEntry]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FileListing:
        return cls(path=d["path"], entries=[FileEntry.from_dict(e) for e in d["entries"]])


@dataclass(frozen=True)
class WrittenFile:
    """What a write answers: the path, its size and the sha256 of what was written."""

    path: str
    size: int
    sha256: str
    created: bool
    """True for a new file (201), False when one was replaced (200)."""


@dataclass(frozen=True)
class Extracted:
    """What an archive upload answers: the files and links written, and their bytes."""

    files: int
    bytes: int


def _sandbox(name: str) -> str:
    return f"/sandboxes/{quote(name, safe='')}"


def _file_path(name: str, path: str) -> str:
    """``/workspace/a b.txt`` -> ``/sandboxes/{name}/files/workspace/a%20b.txt``."""
    return f"{_sandbox(name)}/files/{quote(path.lstrip('/'), safe='/')}"


def _ns(namespace: str | None, default: str | None) -> dict[str, str]:
    value = namespace or default
    return {"namespace": value} if value else {}


def _mode(mode: int | None) -> dict[str, str]:
    return {} if mode is None else {"mode": format(mode, "04o")}


def _chunks(data: Data) -> bytes | Iterator[bytes]:
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, bytes):
        return data
    if hasattr(data, "read"):
        stream = cast(IO[bytes], data)
        return iter(lambda: stream.read(CHUNK), b"")
    return iter(data)


async def _achunks(data: AsyncData) -> AsyncIterator[bytes]:
    if isinstance(data, str):
        yield data.encode()
    elif isinstance(data, bytes):
        yield data
    elif hasattr(data, "read"):
        stream = cast(IO[bytes], data)
        while chunk := stream.read(CHUNK):
            yield chunk
    elif hasattr(data, "__aiter__"):
        async for chunk in cast(AsyncIterable[bytes], data):
            yield chunk
    else:
        for chunk in data:
            yield chunk


def _written(status: int, body: dict[str, Any]) -> WrittenFile:
    return WrittenFile(
        path=body["path"], size=body["size"], sha256=body["sha256"], created=status == 201
    )


def _tar_folder(folder: Path) -> IO[bytes]:
    """A tar.gz of ``folder``'s contents in a temporary file (on disk, never in memory)."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes it)
    with tarfile.open(fileobj=spool, mode="w:gz") as tar:
        for entry in sorted(folder.iterdir()):
            tar.add(entry, arcname=entry.name)
    spool.seek(0)
    return spool


def _extract(archive: IO[bytes], dest: Path) -> None:
    """Extracts a downloaded tar(.gz) into ``dest``, refusing entries that would land outside."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=archive, mode="r:*") as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # Pythons before the extraction filters: check the names ourselves
            root = dest.resolve()
            for member in tar.getmembers():
                target = (dest / member.name).resolve()
                if root != target and root not in target.parents:
                    raise ValueError(f"archive entry {member.name!r} lands outside {dest}")
            tar.extractall(dest)


class _Calls:
    """The calls of the file and archive endpoints; no I/O. Shared by both clients."""

    def __init__(self, namespace: str | None) -> None:
        self.namespace = namespace

    def list(self, name: str, path: str, namespace: str | None) -> Call:
        params = {"path": path, **_ns(namespace, self.namespace)}
        return Call("GET", f"{_sandbox(name)}/files", params)

    def read(self, name: str, path: str, namespace: str | None, range: str | None) -> Call:
        headers = {"Accept": "*/*", **({"Range": range} if range else {})}
        return Call("GET", _file_path(name, path), _ns(namespace, self.namespace), headers=headers)

    def write(
        self, name: str, path: str, mode: int | None, namespace: str | None, body: Any
    ) -> Call:
        return Call(
            "PUT",
            _file_path(name, path),
            {**_mode(mode), **_ns(namespace, self.namespace)},
            content=body,
            headers={"Content-Type": "application/octet-stream"},
            once=not isinstance(body, bytes),
        )

    def delete(self, name: str, path: str, recursive: bool, namespace: str | None) -> Call:
        params = {**({"recursive": "true"} if recursive else {}), **_ns(namespace, self.namespace)}
        return Call("DELETE", _file_path(name, path), params)

    def op(self, name: str, path: str, body: dict[str, str], namespace: str | None) -> Call:
        return Call("POST", _file_path(name, path), _ns(namespace, self.namespace), json=body)

    def download_archive(self, name: str, path: str, fmt: str, namespace: str | None) -> Call:
        params = {"path": path, "format": fmt, **_ns(namespace, self.namespace)}
        return Call("GET", f"{_sandbox(name)}/archive", params, headers={"Accept": "*/*"})

    def upload_archive(self, name: str, path: str, namespace: str | None, body: Any) -> Call:
        params = {"path": path, **_ns(namespace, self.namespace)}
        return Call(
            "PUT",
            f"{_sandbox(name)}/archive",
            params,
            content=body,
            headers={"Content-Type": "application/octet-stream"},
            once=not isinstance(body, bytes),
        )
