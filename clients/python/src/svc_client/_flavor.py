"""Types that differ between the async client (the source) and the blocking one that
``unasync`` generates from it (``codegen/generate.py`` renames the first to the second).

``Awaitable[T]`` in the async source is ``Blocking[T]`` in the blocking client: the value
itself, for a method that is not a coroutine but hands one back in the async client.
"""

from collections.abc import Awaitable
from typing import Annotated, TypeVar

T = TypeVar("T")

Blocking = Annotated[T, "the value itself: what Awaitable[T] is in the async client"]

__all__ = ["Awaitable", "Blocking"]
