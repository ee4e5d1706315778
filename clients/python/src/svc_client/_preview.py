"""The preview's sign-in for browsers: a one-use ticket whose URL, opened in a browser, is
exchanged for a cookie of that port's preview path alone (see docs/ports.md). Programs
reach a preview with their own credential instead (``Client.preview``). The clients'
method is in ``_async/preview.py`` (and ``_sync/preview.py``, generated from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin

from ._http import Call

if TYPE_CHECKING:
    from ._requests import _Requests


@dataclass(frozen=True)
class PreviewTicket:
    """``url`` (absolute) opens the port's preview in a browser, once, within 30 seconds."""

    url: str = field(repr=False)
    expires_at: str


def preview_call(req: _Requests, name: str, port: int, namespace: str | None) -> Call:
    path = f"/sandboxes/{quote(name, safe='')}/ports/{int(port)}/preview-ticket"
    return Call("POST", path, params=req.ns(namespace))


def decode_ticket(req: _Requests, data: dict[str, object]) -> PreviewTicket:
    # The API answers a URL relative to its host; the base URL says which host that is.
    return PreviewTicket(
        url=urljoin(req.base_url, str(data["url"])), expires_at=str(data["expiresAt"])
    )
