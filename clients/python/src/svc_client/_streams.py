"""The iteration and closing every event stream of the client shares.

A stream holds one generator of its events (``_events``); these bases make it an iterator
that can be closed, and a context manager that closes it. Each stream only says how its
generator is made (a request, and how an event is decoded or resumed).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")
S = TypeVar("S", bound="EventStream")  # type: ignore[type-arg]
A = TypeVar("A", bound="AsyncEventStream")  # type: ignore[type-arg]


class EventStream(Generic[T]):
    """An iterator over ``_events`` that closes it when left (``with`` or :meth:`close`)."""

    _events: Generator[T, None, None]

    def __iter__(self: S) -> S:
        return self

    def __next__(self) -> T:
        return next(self._events)

    def close(self) -> None:
        self._events.close()

    def __enter__(self: S) -> S:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        self.close()


class AsyncEventStream(Generic[T]):
    """Async twin of :class:`EventStream`: ``async for``, ``async with``, :meth:`aclose`."""

    _events: AsyncGenerator[T, None]

    def __aiter__(self: A) -> A:
        return self

    async def __anext__(self) -> T:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        await self._events.aclose()

    async def __aenter__(self: A) -> A:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        await self.aclose()
