"""A sandbox's live usage: CPU, memory, workspace bytes, processes, runs and terminals.

What both clients share without I/O; their streams and methods are in ``_async/usage.py``
(and ``_sync/usage.py``, generated from it). Reading usage is no activity: it never keeps a
sandbox from its ``idleTimeout``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ._http import Call
from ._sse import SSEEvent

if TYPE_CHECKING:
    from ._requests import _Requests


@dataclass(frozen=True)
class UsageSample:
    """One second of the sandbox's CPU (cores) and memory (working set, bytes)."""

    at: str
    cpu_cores: float
    memory_bytes: int


@dataclass(frozen=True)
class Usage:
    """``GET /sandboxes/{id}/usage``: the figures now, as the sandbox's sandboxd reads them."""

    at: str
    cpu_cores: float
    cpu_throttled_seconds: float
    cpu_limit_cores: float | None
    memory_working_set_bytes: int
    memory_limit_bytes: int | None
    workspace_used_bytes: int
    workspace_free_bytes: int
    workspace_total_bytes: int
    processes: int
    runs: dict[str, int]
    terminals: int
    cgroup: bool
    """Whether the Pod's cgroup could be read (``False``: CPU and memory read 0)."""
    history: list[UsageSample] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Usage:
        cpu, mem, ws = d.get("cpu", {}), d.get("memory", {}), d.get("workspace", {})
        return cls(
            at=str(d.get("at", "")),
            cpu_cores=float(cpu.get("cores", 0)),
            cpu_throttled_seconds=float(cpu.get("throttledSeconds", 0)),
            cpu_limit_cores=cpu.get("limitCores"),
            memory_working_set_bytes=int(mem.get("workingSetBytes", 0)),
            memory_limit_bytes=mem.get("limitBytes"),
            workspace_used_bytes=int(ws.get("usedBytes", 0)),
            workspace_free_bytes=int(ws.get("freeBytes", 0)),
            workspace_total_bytes=int(ws.get("totalBytes", 0)),
            processes=int(d.get("processes", 0)),
            runs={str(k): int(v) for k, v in dict(d.get("runs", {})).items()},
            terminals=int(d.get("terminals", 0)),
            cgroup=bool(d.get("cgroup", False)),
            history=[
                UsageSample(str(s["at"]), float(s["cpuCores"]), int(s["memoryBytes"]))
                for s in d.get("history") or []
            ],
        )


def usage_call(
    req: _Requests, name: str, namespace: str | None, history: int | None, stream: bool
) -> Call:
    params = req.ns(namespace)
    if history is not None:
        params["history"] = str(history)
    path = f"/sandboxes/{quote(name, safe='')}/usage"
    if stream:
        return Call("GET", path, params, headers={"Accept": "text/event-stream"})
    return Call("GET", path, params)


def decode_usage(sse: SSEEvent) -> Usage | None:
    if sse.event != "usage":
        return None
    return Usage.from_dict(json.loads(sse.data))
