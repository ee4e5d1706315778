# Generated from _async/exec.py by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
"""Exec and logs on the clients: the source of both (``_sync/exec.py`` is generated from
it); the request builders and models are in ``_exec.py``."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._exec import (
    Command,
    ExecResult,
    SandboxLogs,
    Timeout,
    cancel_call,
    decode_log,
    exec_call,
    logs_call,
)
from .._http import Call, json_body
from .._runs import DetachedRun, detached
from .._sse import iter_sse_response
from .._streams import EventStream
from ..models import Log
from .http import SyncHTTP

if TYPE_CHECKING:  # client.py imports this module for its mixin
    from .._requests import _Requests
    from .client import InvokeStream


class LogStream(EventStream[Log]):
    """The template's output as ``Log`` events: what is kept, then new output. It never ends
    by itself: leave the loop, or :meth:`close` it (a context manager)."""

    def __init__(self, http: SyncHTTP, call: Call) -> None:
        self._events = self._run(http, call)

    @staticmethod
    def _run(http: SyncHTTP, call: Call) -> Generator[Log, None]:
        with http.stream(call, sse=True) as response:
            for sse in iter_sse_response(response, http.sse_max_event_size):
                log = decode_log(sse)
                if log is not None:
                    yield log


class ExecMixin:
    """Exec and logs on the client."""

    _req: _Requests
    _http: SyncHTTP

    @overload
    def exec(
        self, name: str, command: Command, *, timeout: Timeout = None,
        working_dir: str | None = None, env: Mapping[str, str] | None = None,
        stdin: str | None = None, namespace: str | None = None, detach: Literal[False] = False,
    ) -> ExecResult: ...  # fmt: skip

    @overload
    def exec(
        self, name: str, command: Command, *, timeout: Timeout = None,
        working_dir: str | None = None, env: Mapping[str, str] | None = None,
        stdin: str | None = None, namespace: str | None = None, detach: Literal[True],
    ) -> DetachedRun: ...  # fmt: skip

    def exec(
        self,
        name: str,
        command: Command,
        *,
        timeout: Timeout = None,
        working_dir: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        namespace: str | None = None,
        detach: bool = False,
    ) -> ExecResult | DetachedRun:
        """Run ``command`` in the sandbox and return once it ends (a string runs with
        ``sh -c``). ``timeout`` is seconds or a duration (``"30s"``); ``working_dir`` must
        be inside ``/workspace``. Raises ``RateLimited`` beyond 32 concurrent execs.
        ``detach=True`` (which needs ``timeout``) answers with a :class:`DetachedRun` at once."""
        call = exec_call(
            self._req, name, command, timeout=timeout, working_dir=working_dir, env=env,
            stdin=stdin, namespace=namespace, stream=False,
        )  # fmt: skip
        if detach:
            return DetachedRun.from_dict(json_body(self._http.request(detached(call))))
        response = self._http.request(call)
        return ExecResult.from_dict(json_body(response), response.headers.get("x-exec-id"))

    def exec_stream(
        self,
        name: str,
        command: Command,
        *,
        timeout: Timeout = None,
        working_dir: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        namespace: str | None = None,
    ) -> InvokeStream:
        """:meth:`exec` as it runs: ``Start`` (its id for :meth:`cancel_exec`), ``Log``...,
        ``Exit``. Leaving the loop early ends the command (SIGTERM)."""
        from .client import InvokeStream

        call = exec_call(
            self._req, name, command, timeout=timeout, working_dir=working_dir, env=env,
            stdin=stdin, namespace=namespace, stream=True,
        )  # fmt: skip
        return InvokeStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

    def cancel_exec(
        self, name: str, exec_id: str, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """Cancel an exec in flight; its ``Exit`` then reports exit code -1, ``canceled``."""
        return json_body(self._http.request(cancel_call(self._req, name, exec_id, namespace)))

    def logs(self, name: str, *, namespace: str | None = None) -> SandboxLogs:
        """The template process's recent stdout and stderr (the last 1 MiB)."""
        response = self._http.request(logs_call(self._req, name, namespace, follow=False))
        return SandboxLogs.from_dict(json_body(response))

    def follow_logs(self, name: str, *, namespace: str | None = None) -> LogStream:
        """The kept output, then new output as it is written, as ``Log`` events."""
        return LogStream(self._http, logs_call(self._req, name, namespace, follow=True))
