"""The preview's sign-in for browsers: a one-use ticket whose URL, opened in a browser, is
exchanged for a cookie of that port's preview path alone (see docs/ports.md). Programs
reach a preview with their own credential instead (``Client.preview``). Mixed into
:class:`~svc_client.Client` and :class:`~svc_client.AsyncClient`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin

from ._http import Call, json_body

if TYPE_CHECKING:
    from ._http import AsyncHTTP, SyncHTTP
    from ._requests import _Requests


@dataclass(frozen=True)
class PreviewTicket:
    """``url`` (absolute) opens the port's preview in a browser, once, within 30 seconds."""

    url: str = field(repr=False)
    expires_at: str


def _call(req: _Requests, name: str, port: int, namespace: str | None) -> Call:
    path = f"/sandboxes/{quote(name, safe='')}/ports/{int(port)}/preview-ticket"
    return Call("POST", path, params=req.ns(namespace))


def _ticket(req: _Requests, data: dict[str, object]) -> PreviewTicket:
    # The API answers a URL relative to its host; the base URL says which host that is.
    return PreviewTicket(
        url=urljoin(req.base_url, str(data["url"])), expires_at=str(data["expiresAt"])
    )


class PreviewMixin:
    """The blocking client's preview ticket."""

    _req: _Requests
    _http: SyncHTTP

    def preview_ticket(
        self, name: str, port: int, *, namespace: str | None = None
    ) -> PreviewTicket:
        """A one-use ticket that signs a browser in to port ``port``'s preview."""
        return _ticket(
            self._req, json_body(self._http.request(_call(self._req, name, port, namespace)))
        )


class AsyncPreviewMixin:
    """The asyncio client's preview ticket."""

    _req: _Requests
    _http: AsyncHTTP

    async def preview_ticket(
        self, name: str, port: int, *, namespace: str | None = None
    ) -> PreviewTicket:
        """A one-use ticket that signs a browser in to port ``port``'s preview."""
        data = json_body(await self._http.request(_call(self._req, name, port, namespace)))
        return _ticket(self._req, data)
