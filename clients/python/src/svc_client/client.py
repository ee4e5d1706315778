"""The blocking :class:`Client` (generated from the async one: ``_sync/client.py``)."""

from ._sync.client import Client, ConfigureStream, InvokeStream

__all__ = ["Client", "ConfigureStream", "InvokeStream"]
