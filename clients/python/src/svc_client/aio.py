"""The asyncio :class:`AsyncClient`: the same operations and models as :class:`Client`
(whose source it is: ``_async/client.py``)."""

from ._async.client import AsyncClient, AsyncConfigureStream, AsyncInvokeStream

__all__ = ["AsyncClient", "AsyncConfigureStream", "AsyncInvokeStream"]
