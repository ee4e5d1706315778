"""The terminal (a shell in a sandbox over a WebSocket) and the discovery calls: templates,
the caller, a sandbox's ports. The models and request builders both clients share; the
sessions and the clients' methods are written once in ``_async/terminal.py``
(``_sync/terminal.py`` is generated from it), on the WebSocket of ``_ws.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from ._http import Call

if TYPE_CHECKING:
    from ._requests import _Requests


@dataclass(frozen=True)
class Template:
    """A template the caller may use (``GET /templates``)."""

    name: str
    kind: str
    description: str
    image: str
    resource_version: str
    spec: dict[str, Any] = field(default_factory=dict)
    #: Warm-pool members ready in the namespace for this template.
    ready_members: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Template:
        return cls(
            name=str(data.get("name", "")),
            kind=str(data.get("kind", "")),
            description=str(data.get("description", "")),
            image=str(data.get("image", "")),
            resource_version=str(data.get("resourceVersion", "")),
            spec=dict(data.get("spec") or {}),
            ready_members=int(data.get("readyMembers") or 0),
        )


@dataclass(frozen=True)
class User:
    """The caller as the API sees it (``GET /user/me``)."""

    sub: str
    name: str
    email: str | None
    groups: list[str]
    is_admin: bool

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> User:
        email = data.get("email")
        return cls(
            sub=str(data.get("sub", "")),
            name=str(data.get("name", "")),
            email=email if isinstance(email, str) else None,
            groups=[str(g) for g in data.get("groups") or []],
            is_admin=bool(data.get("isAdmin")),
        )


@dataclass(frozen=True)
class TerminalTicket:
    """A one-use ticket for the terminal's WebSocket (``?ticket=``), valid 30 seconds."""

    ticket: str = field(repr=False)
    expires_at: str


def _ws_url(base_url: str, name: str, query: dict[str, str]) -> str:
    scheme, rest = base_url.split("://", 1)
    ws = "wss" if scheme == "https" else "ws"
    return f"{ws}://{rest}/sandboxes/{quote(name, safe='')}/terminal?{urlencode(query)}"


def _control(data: str) -> int | None:
    """The exit code of an exit frame, else ``None``."""
    try:
        msg = json.loads(data)
    except ValueError:
        return None
    if isinstance(msg, dict) and msg.get("type") == "exit" and isinstance(msg.get("exitCode"), int):
        return int(msg["exitCode"])
    return None


def _resize(cols: int, rows: int) -> str:
    return json.dumps({"type": "resize", "cols": cols, "rows": rows})


def _terminal_query(
    req: _Requests, cols: int, rows: int, command: str | None, namespace: str | None
) -> dict[str, str]:
    query = {**req.ns(namespace), "cols": str(cols), "rows": str(rows)}
    if command is not None:
        query["command"] = command
    return query


def _templates_call(req: _Requests, namespace: str | None) -> Call:
    return Call("GET", "/templates", params=req.ns(namespace))


def _template_call(req: _Requests, name: str, namespace: str | None, kind: str | None) -> Call:
    params = req.ns(namespace)
    if kind is not None:
        params["kind"] = kind
    return Call("GET", f"/templates/{quote(name, safe='')}", params=params)


def _ports_call(req: _Requests, name: str, namespace: str | None) -> Call:
    return Call("GET", f"/sandboxes/{quote(name, safe='')}/ports", params=req.ns(namespace))


def _ticket_call(req: _Requests, name: str, namespace: str | None) -> Call:
    return Call(
        "POST", f"/sandboxes/{quote(name, safe='')}/terminal/ticket", params=req.ns(namespace)
    )
