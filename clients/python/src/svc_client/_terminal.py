"""The terminal (a shell in a sandbox over a WebSocket) and the discovery calls: templates,
the caller, a sandbox's ports. Mixed into :class:`~svc_client.Client` and
:class:`~svc_client.AsyncClient`.

The WebSocket side is the ``websockets`` library (its sync and asyncio clients). Binary
frames are input and output; text frames are JSON control: ``resize`` from us, and the
server's last ``{"type":"exit","exitCode":N}`` before it closes (see docs/terminal.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import httpx
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as aconnect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from ._http import Call, json_body
from .errors import APIError, error_from_response
from .models import ForwardedPort

if TYPE_CHECKING:
    from ._http import AsyncHTTP, SyncHTTP
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


def _refusal(err: InvalidStatus) -> APIError:
    """The API's refusal of the upgrade (401, 403, 404, 409, 429…) as the usual exception."""
    res = err.response
    response = httpx.Response(
        res.status_code,
        headers=list(res.headers.raw_items()),
        content=bytes(res.body or b""),
        request=httpx.Request("GET", "ws://terminal"),
    )
    return error_from_response(response)


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


class TerminalSession:
    """One shell in a sandbox (blocking). ``recv()`` returns output bytes as they come and
    ``None`` once the session has ended; then :attr:`exit_code` is the shell's exit code
    (``None`` when it ended without one: closed by us, the server or the network).

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self.exit_code: int | None = None

    def send(self, data: bytes | str) -> None:
        """Input: keystrokes or a paste (``str`` is sent as UTF-8)."""
        self._ws.send(data.encode() if isinstance(data, str) else bytes(data), text=False)

    def recv(self, timeout: float | None = None) -> bytes | None:
        """The next output; ``None`` at the end. Raises ``TimeoutError`` after ``timeout``."""
        while True:
            try:
                message = self._ws.recv(timeout)
            except ConnectionClosed:
                return None
            if isinstance(message, bytes):
                return message
            code = _control(message)
            if code is not None:
                self.exit_code = code

    def resize(self, cols: int, rows: int) -> None:
        self._ws.send(_resize(cols, rows))

    def close(self) -> None:
        """Ends the session: the server hangs up the shell and whatever it started."""
        self._ws.close()

    def __enter__(self) -> TerminalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncTerminalSession:
    """:class:`TerminalSession` for asyncio."""

    def __init__(self, ws: AsyncConnection) -> None:
        self._ws = ws
        self.exit_code: int | None = None

    async def send(self, data: bytes | str) -> None:
        await self._ws.send(data.encode() if isinstance(data, str) else bytes(data), text=False)

    async def recv(self) -> bytes | None:
        while True:
            try:
                message = await self._ws.recv()
            except ConnectionClosed:
                return None
            if isinstance(message, bytes):
                return message
            code = _control(message)
            if code is not None:
                self.exit_code = code

    async def resize(self, cols: int, rows: int) -> None:
        await self._ws.send(_resize(cols, rows))

    async def close(self) -> None:
        await self._ws.close()

    async def __aenter__(self) -> AsyncTerminalSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


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


class TerminalMixin:
    """The blocking client's terminal and discovery calls."""

    _req: _Requests
    _http: SyncHTTP

    def terminal(
        self,
        name: str,
        *,
        cols: int = 80,
        rows: int = 24,
        command: str | None = None,
        namespace: str | None = None,
        open_timeout: float = 30.0,
    ) -> TerminalSession:
        """Opens a shell (or ``command``) in sandbox ``name`` on a pseudo-terminal."""
        query = _terminal_query(self._req, cols, rows, command, namespace)
        url = _ws_url(self._req.base_url, name, query)
        try:
            ws = connect(
                url,
                additional_headers=self._http._auth(),
                compression=None,
                max_size=None,
                open_timeout=open_timeout,
                # The connection itself, which the session owns and closes (not a context
                # manager, which websockets 17.1 made the default it is moving to).
                legacy=True,
            )
        except InvalidStatus as err:
            raise _refusal(err) from None
        return TerminalSession(ws)

    def terminal_ticket(self, name: str, *, namespace: str | None = None) -> TerminalTicket:
        """A ticket for a client that cannot send headers (a browser): ``?ticket=``."""
        data = json_body(self._http.request(_ticket_call(self._req, name, namespace)))
        return TerminalTicket(ticket=str(data["ticket"]), expires_at=str(data["expiresAt"]))

    def templates(self, *, namespace: str | None = None) -> list[Template]:
        """The templates the caller may use in the namespace (governance applied)."""
        data = json_body(self._http.request(_templates_call(self._req, namespace)))
        return [Template.from_dict(t) for t in data.get("templates", [])]

    def template(
        self, name: str, *, namespace: str | None = None, kind: str | None = None
    ) -> Template:
        data = json_body(self._http.request(_template_call(self._req, name, namespace, kind)))
        return Template.from_dict(data)

    def me(self) -> User:
        """Who the API takes the caller for."""
        return User.from_dict(json_body(self._http.request(Call("GET", "/user/me"))))

    def ports(self, name: str, *, namespace: str | None = None) -> list[ForwardedPort]:
        """The sandbox's forwarded ports."""
        data = json_body(self._http.request(_ports_call(self._req, name, namespace)))
        return [ForwardedPort.from_dict(p) for p in data.get("ports", [])]


class AsyncTerminalMixin:
    """The asyncio client's terminal and discovery calls."""

    _req: _Requests
    _http: AsyncHTTP

    async def terminal(
        self,
        name: str,
        *,
        cols: int = 80,
        rows: int = 24,
        command: str | None = None,
        namespace: str | None = None,
        open_timeout: float = 30.0,
    ) -> AsyncTerminalSession:
        query = _terminal_query(self._req, cols, rows, command, namespace)
        url = _ws_url(self._req.base_url, name, query)
        try:
            ws = await aconnect(
                url,
                additional_headers=await self._http._auth(),
                compression=None,
                max_size=None,
                open_timeout=open_timeout,
            )
        except InvalidStatus as err:
            raise _refusal(err) from None
        return AsyncTerminalSession(ws)

    async def terminal_ticket(self, name: str, *, namespace: str | None = None) -> TerminalTicket:
        data = json_body(await self._http.request(_ticket_call(self._req, name, namespace)))
        return TerminalTicket(ticket=str(data["ticket"]), expires_at=str(data["expiresAt"]))

    async def templates(self, *, namespace: str | None = None) -> list[Template]:
        data = json_body(await self._http.request(_templates_call(self._req, namespace)))
        return [Template.from_dict(t) for t in data.get("templates", [])]

    async def template(
        self, name: str, *, namespace: str | None = None, kind: str | None = None
    ) -> Template:
        data = json_body(await self._http.request(_template_call(self._req, name, namespace, kind)))
        return Template.from_dict(data)

    async def me(self) -> User:
        return User.from_dict(json_body(await self._http.request(Call("GET", "/user/me"))))

    async def ports(self, name: str, *, namespace: str | None = None) -> list[ForwardedPort]:
        data = json_body(await self._http.request(_ports_call(self._req, name, namespace)))
        return [ForwardedPort.from_dict(p) for p in data.get("ports", [])]
