"""The terminal (a shell in a sandbox over a WebSocket) and the discovery calls (templates,
the caller, a sandbox's ports) on the clients: the source of both (``_sync/terminal.py`` is
generated from it); the models and request builders are in ``_terminal.py``, the WebSocket
of each flavour in ``_ws.py``.

Binary frames are input and output; text frames are JSON control: ``resize`` from us, and
the server's last ``{"type":"exit","exitCode":N}`` before it closes (see docs/terminal.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._http import Call, json_body
from .._terminal import (
    Template,
    TerminalTicket,
    User,
    _control,
    _ports_call,
    _resize,
    _template_call,
    _templates_call,
    _terminal_query,
    _ticket_call,
    _ws_url,
)
from .._ws import AsyncWebSocket
from ..models import ForwardedPort

if TYPE_CHECKING:
    from .._requests import _Requests
    from .http import AsyncHTTP


class AsyncTerminalSession:
    """One shell in a sandbox. ``recv()`` returns output bytes as they come and ``None``
    once the session has ended; then :attr:`exit_code` is the shell's exit code (``None``
    when it ended without one: closed by us, the server or the network).

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, ws: AsyncWebSocket) -> None:
        self._ws = ws
        self.exit_code: int | None = None

    async def send(self, data: bytes | str) -> None:
        """Input: keystrokes or a paste (``str`` is sent as UTF-8)."""
        await self._ws.send(data.encode() if isinstance(data, str) else bytes(data))

    async def recv(self, timeout: float | None = None) -> bytes | None:
        """The next output; ``None`` at the end. Raises ``TimeoutError`` after ``timeout``."""
        while True:
            message = await self._ws.recv(timeout)
            if message is None or isinstance(message, bytes):
                return message
            code = _control(message)
            if code is not None:
                self.exit_code = code

    async def resize(self, cols: int, rows: int) -> None:
        await self._ws.send(_resize(cols, rows))

    async def close(self) -> None:
        """Ends the session: the server hangs up the shell and whatever it started."""
        await self._ws.close()

    async def __aenter__(self) -> AsyncTerminalSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncTerminalMixin:
    """The terminal and discovery calls on the client."""

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
        """Opens a shell (or ``command``) in sandbox ``name`` on a pseudo-terminal."""
        query = _terminal_query(self._req, cols, rows, command, namespace)
        url = _ws_url(self._req.base_url, name, query)
        headers = await self._http._auth()
        return AsyncTerminalSession(await AsyncWebSocket.open(url, headers, open_timeout))

    async def terminal_ticket(self, name: str, *, namespace: str | None = None) -> TerminalTicket:
        """A ticket for a client that cannot send headers (a browser): ``?ticket=``."""
        data = json_body(await self._http.request(_ticket_call(self._req, name, namespace)))
        return TerminalTicket(ticket=str(data["ticket"]), expires_at=str(data["expiresAt"]))

    async def templates(self, *, namespace: str | None = None) -> list[Template]:
        """The templates the caller may use in the namespace (governance applied)."""
        data = json_body(await self._http.request(_templates_call(self._req, namespace)))
        return [Template.from_dict(t) for t in data.get("templates", [])]

    async def template(
        self, name: str, *, namespace: str | None = None, kind: str | None = None
    ) -> Template:
        data = json_body(await self._http.request(_template_call(self._req, name, namespace, kind)))
        return Template.from_dict(data)

    async def me(self) -> User:
        """Who the API takes the caller for."""
        return User.from_dict(json_body(await self._http.request(Call("GET", "/user/me"))))

    async def ports(self, name: str, *, namespace: str | None = None) -> list[ForwardedPort]:
        """The sandbox's forwarded ports."""
        data = json_body(await self._http.request(_ports_call(self._req, name, namespace)))
        return [ForwardedPort.from_dict(p) for p in data.get("ports", [])]
