"""Code mode: exec a command in a sandbox (JSON or streamed) and read its template's logs.

The request builders and models both clients share; the clients' methods are written once
in ``_async/exec.py`` (``_sync/exec.py`` is generated from it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from ._http import Call
from ._sse import SSEEvent
from .errors import StreamInterrupted
from .models import Log

if TYPE_CHECKING:
    from ._requests import _Requests


def _sandbox_path(name: str, *rest: str) -> str:
    return "/".join(["/sandboxes", quote(name, safe=""), *rest])


Command = str | Sequence[str]
"""A shell string (run with ``sh -c``) or an argv."""
Timeout = float | int | str | None
"""Seconds, or a duration such as ``"30s"``; ``None`` for none."""


@dataclass(frozen=True)
class ExecResult:
    """The answer of :meth:`ExecMixin.exec`: each output stream up to 10 MiB."""

    exit_code: int
    stdout: str
    stderr: str
    duration_ms: int
    reason: str
    truncated: bool
    """``stdout`` or ``stderr`` was longer than 10 MiB and is cut there."""
    exec_id: str | None = None

    @property
    def ok(self) -> bool:
        """The command ran to its end and exited 0."""
        return self.reason == "completed" and self.exit_code == 0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], exec_id: str | None = None) -> ExecResult:
        return cls(
            exit_code=int(data.get("exitCode", -1)),
            stdout=str(data.get("stdout", "")),
            stderr=str(data.get("stderr", "")),
            duration_ms=int(data.get("durationMs", 0)),
            reason=str(data.get("reason", "")),
            truncated=bool(data.get("truncated", False)),
            exec_id=exec_id,
        )


@dataclass(frozen=True)
class SandboxLogs:
    """The template process's recent output (the last 1 MiB), oldest first."""

    entries: list[Log] = field(default_factory=list)
    truncated: bool = False
    """Older output was dropped."""
    dropped_bytes: int = 0

    @property
    def stdout(self) -> str:
        return "".join(e.data for e in self.entries if e.stream == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(e.data for e in self.entries if e.stream == "stderr")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SandboxLogs:
        entries = [
            Log.from_dict({"stream": "stdout", **e})
            for e in data.get("entries") or []
            if isinstance(e, dict)
        ]
        return cls(entries, bool(data.get("truncated")), int(data.get("droppedBytes", 0)))


def exec_call(
    req: _Requests,
    name: str,
    command: Command,
    *,
    timeout: Timeout,
    working_dir: str | None,
    env: Mapping[str, str] | None,
    stdin: str | None,
    namespace: str | None,
    stream: bool,
) -> Call:
    body: dict[str, Any] = {"command": command if isinstance(command, str) else list(command)}
    if timeout is not None:
        body["timeout"] = timeout
    if working_dir is not None:
        body["workingDir"] = working_dir
    if env is not None:
        body["env"] = dict(env)
    if stdin is not None:
        body["stdin"] = stdin
    headers = {"Accept": "text/event-stream"} if stream else {}
    # The JSON answer comes when the command ends: wait as long as its timeout (and some),
    # or for ever without one; connecting and sending keep their usual bounds.
    wait = _seconds(timeout)
    read = None if wait is None or stream else wait + 30.0
    limit = None if stream else httpx.Timeout(30.0, connect=10.0, read=read)
    return Call(
        "POST", _sandbox_path(name, "exec"), req.ns(namespace), json=body, headers=headers,
        timeout=limit,
    )  # fmt: skip


def _seconds(timeout: Timeout) -> float | None:
    if timeout is None or timeout == 0 or timeout == "0":
        return None
    if isinstance(timeout, (int, float)):
        return float(timeout)
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    total, number = 0.0, ""
    text = timeout
    while text:
        if text[0].isdigit() or text[0] == ".":
            number, text = number + text[0], text[1:]
            continue
        unit = next((u for u in ("ms", "h", "m", "s") if text.startswith(u)), None)
        if unit is None or not number:
            return None  # the server refuses it; no bound to compute
        total, number, text = total + float(number) * units[unit], "", text[len(unit) :]
    return total


def cancel_call(req: _Requests, name: str, exec_id: str, namespace: str | None) -> Call:
    return Call(
        "POST", _sandbox_path(name, "exec", "cancel"), req.ns(namespace),
        json={"invokeId": exec_id},
    )  # fmt: skip


def logs_call(req: _Requests, name: str, namespace: str | None, follow: bool) -> Call:
    params = req.ns(namespace)
    if follow:
        params["follow"] = "true"
        return Call(
            "GET", _sandbox_path(name, "logs"), params, headers={"Accept": "text/event-stream"}
        )
    return Call("GET", _sandbox_path(name, "logs"), params)


def decode_log(sse: SSEEvent) -> Log | None:
    if sse.event != "log":
        return None
    try:
        data = json.loads(sse.data)
    except ValueError as exc:
        raise StreamInterrupted(f"malformed log event data: {sse.data[:200]!r}") from exc
    return Log.from_dict({"stream": "stdout", **data}) if isinstance(data, dict) else None
