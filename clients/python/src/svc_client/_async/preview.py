"""The preview ticket on the clients: the source of both (``_sync/preview.py`` is generated
from it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._http import json_body
from .._preview import PreviewTicket, decode_ticket, preview_call

if TYPE_CHECKING:
    from .._requests import _Requests
    from .http import AsyncHTTP


class AsyncPreviewMixin:
    """The client's preview ticket."""

    _req: _Requests
    _http: AsyncHTTP

    async def preview_ticket(
        self, name: str, port: int, *, namespace: str | None = None
    ) -> PreviewTicket:
        """A one-use ticket that signs a browser in to port ``port``'s preview."""
        call = preview_call(self._req, name, port, namespace)
        return decode_ticket(self._req, json_body(await self._http.request(call)))
