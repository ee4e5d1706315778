# Generated from _async/files.py by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
"""Files and archives of a sandbox's workspace on the clients: the source of both
(``_sync/files.py`` is generated from it); the models, request builders and helpers are in
``_files.py``."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .._files import (
    CHUNK,
    Data,
    Extracted,
    FileListing,
    WrittenFile,
    _Calls,
    _chunks,
    _extract,
    _tar_folder,
    _written,
)
from .._http import json_body

if TYPE_CHECKING:
    from .http import SyncHTTP


class Files:
    """``client.files``: read, write, list, delete, mkdir, move, upload and download."""

    def __init__(self, http: SyncHTTP, namespace: str | None) -> None:
        self._http = http
        self._calls = _Calls(namespace)

    def list(
        self, name: str, path: str = "/workspace", *, namespace: str | None = None
    ) -> FileListing:
        """The entries of a folder."""
        res = self._http.request(self._calls.list(name, path, namespace))
        return FileListing.from_dict(json_body(res))

    def read(
        self, name: str, path: str, *, range: str | None = None, namespace: str | None = None
    ) -> bytes:
        """A file's bytes (``range="bytes=0-99"`` for a part); large files: :meth:`download`."""
        return (self._http.request(self._calls.read(name, path, namespace, range))).content

    def iter_bytes(self, name: str, path: str, *, namespace: str | None = None) -> Iterator[bytes]:
        """A file's bytes as they arrive."""
        with self._http.stream(self._calls.read(name, path, namespace, None), sse=True) as res:
            for chunk in res.iter_bytes(CHUNK):
                yield chunk

    def write(
        self,
        name: str,
        path: str,
        data: Data,
        *,
        mode: int | None = None,
        namespace: str | None = None,
    ) -> WrittenFile:
        """Writes a file (folders created); streamed unless ``data`` is bytes or text."""
        body = data if isinstance(data, bytes) else _chunks(data)
        res = self._http.request(self._calls.write(name, path, mode, namespace, body))
        return _written(res.status_code, json_body(res))

    def delete(
        self, name: str, path: str, *, recursive: bool = False, namespace: str | None = None
    ) -> None:
        """Deletes a file, link or empty folder (``recursive=True`` for one with entries)."""
        self._http.request(self._calls.delete(name, path, recursive, namespace))

    def mkdir(self, name: str, path: str, *, namespace: str | None = None) -> str:
        """Makes a folder and its parents; fine when it exists."""
        res = self._http.request(self._calls.op(name, path, {"op": "mkdir"}, namespace))
        return str(json_body(res)["path"])

    def move(self, name: str, path: str, to: str, *, namespace: str | None = None) -> str:
        """Moves (renames) an entry inside the workspace; ``to`` must not exist."""
        res = self._http.request(self._calls.op(name, path, {"op": "move", "to": to}, namespace))
        return str(json_body(res)["path"])

    def upload(
        self,
        name: str,
        local: str | os.PathLike[str],
        path: str,
        *,
        mode: int | None = None,
        namespace: str | None = None,
    ) -> WrittenFile:
        """Uploads the local file ``local`` to ``path``, streamed from disk."""
        with open(local, "rb") as f:
            return self.write(name, path, f, mode=mode, namespace=namespace)

    def download(
        self, name: str, path: str, local: str | os.PathLike[str], *, namespace: str | None = None
    ) -> int:
        """Downloads ``path`` into the local file ``local``, whole or not at all; its size."""
        target = Path(local)
        size = 0
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as out:
            try:
                for chunk in self.iter_bytes(name, path, namespace=namespace):
                    out.write(chunk)
                    size += len(chunk)
            except BaseException:
                out.close()
                os.unlink(out.name)
                raise
        os.replace(out.name, target)
        return size


class Archive:
    """``client.archive``: a folder up (a local folder or tar) and down (extracted or kept)."""

    def __init__(self, http: SyncHTTP, namespace: str | None) -> None:
        self._http = http
        self._calls = _Calls(namespace)

    def upload(
        self, name: str, local: str | os.PathLike[str], path: str, *, namespace: str | None = None
    ) -> Extracted:
        """Puts a local folder (or a ``.tar``/``.tar.gz`` file) into the folder ``path``."""
        source = Path(local)
        with _tar_folder(source) if source.is_dir() else open(source, "rb") as f:
            call = self._calls.upload_archive(name, path, namespace, _chunks(f))
            body = json_body(self._http.request(call))
        return Extracted(files=body["files"], bytes=body["bytes"])

    def download(
        self,
        name: str,
        path: str,
        local: str | os.PathLike[str],
        *,
        extract: bool = True,
        format: str = "tar.gz",
        namespace: str | None = None,
    ) -> None:
        """The folder ``path`` extracted into the local folder ``local`` (``extract=False``:
        the archive saved as the file ``local``, in ``format`` zip, tar or tar.gz)."""
        if extract and format == "zip":
            raise ValueError("extract a tar or tar.gz; a zip is saved as it is (extract=False)")
        call = self._calls.download_archive(name, path, format, namespace)
        with tempfile.TemporaryFile() as spool:
            with self._http.stream(call, sse=True) as res:
                for chunk in res.iter_bytes(CHUNK):
                    spool.write(chunk)
            spool.seek(0)
            if extract:
                _extract(spool, Path(local))
            else:
                with open(local, "wb") as out:
                    shutil.copyfileobj(spool, out, CHUNK)
