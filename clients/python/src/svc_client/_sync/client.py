# Generated from _async/client.py by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
"""The client of the svc API, written once: this asyncio :class:`AsyncClient` is the source,
and the blocking :class:`~svc_client.Client` (``_sync/client.py``) is generated from it by
``unasync`` (``make python-client``; ``make check-generated`` fails when it drifts).

Write here what both clients do; write it so that removing ``async``/``await`` and the
renames of ``codegen/generate.py`` give the blocking code (no ``asyncio``-only calls).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from time import monotonic, sleep
from types import TracebackType
from typing import Any, Literal, overload

import httpx

from .._flavor import Blocking
from .._http import (
    DEFAULT_STREAM_READ_TIMEOUT,
    DEFAULT_TIMEOUT,
    Call,
    RetryPolicy,
    TokenProvider,
    json_body,
)
from .._requests import (
    InvokeCollector,
    InvokeInput,
    LineSplitter,
    _Requests,
    audit_page,
    check_wait_phase,
    configure_failure,
    decode_invoke_event,
    decode_result,
    phases,
    sandbox_page,
)
from .._runs import DetachedRun, detached
from .._sse import SSE_MAX_EVENT_SIZE, iter_sse_response
from ..errors import NotFound, StreamInterrupted, WaitTimeout
from ..models import (
    Accepted,
    AgentHarness,
    AuditEvent,
    CloneResult,
    ConfigureResult,
    EffectivePolicy,
    Error,
    Exit,
    File,
    ForwardedPort,
    InvokeEvent,
    InvokeResult,
    Log,
    Page,
    Policy,
    Sandbox,
    SecretSummary,
    Start,
    StoredPolicies,
)
from .exec import ExecMixin
from .files import Archive, Files
from .http import SyncHTTP
from .preview import PreviewMixin
from .runs import RunsMixin
from .terminal import TerminalMixin
from .usage import UsageMixin

_Opener = Callable[[], AbstractContextManager[httpx.Response]]


class InvokeStream:
    """The events of one invoke: ``Start``, ``Log``..., optional ``Error``, then ``Exit``.

    The request is sent when iteration starts, so HTTP errors (409, 424, 429, ...) are
    raised by the first ``next()``. Iteration stops after ``Exit``; a stream that ends
    before it raises :class:`~svc_client.errors.StreamInterrupted`. Leaving the loop
    early closes the connection, which the server treats as a cancel. Use as a context
    manager (or close it) when you may not iterate to the end, so the connection is
    closed promptly.
    """

    def __init__(self, open_stream: _Opener, max_event_size: int = SSE_MAX_EVENT_SIZE) -> None:
        self._open = open_stream
        self._max_event_size = max_event_size
        self._events = self._run()
        self.invoke_id: str | None = None
        """Set once ``Start`` has been received (use it with ``cancel``)."""
        self.exit: Exit | None = None
        """The ``Exit`` event, once received."""

    def _run(self) -> Generator[InvokeEvent, None]:
        with self._open() as response:
            for sse in iter_sse_response(response, self._max_event_size):
                event = decode_invoke_event(sse)
                if event is None:
                    continue
                if isinstance(event, Start):
                    self.invoke_id = event.invoke_id
                if isinstance(event, Exit):
                    self.exit = event
                yield event
                if isinstance(event, Exit):
                    return
        raise StreamInterrupted("invoke stream ended without an exit event")

    def __iter__(self) -> InvokeStream:
        return self

    def __next__(self) -> InvokeEvent:
        return self._events.__next__()

    def collect(self) -> InvokeResult:
        """Read the rest of the stream and return the collected output and exit."""
        collector = InvokeCollector()
        for event in self:
            collector.add(event)
        if self.exit is not None and collector.exit is None:
            collector.exit = self.exit
        return collector.result()

    def close(self) -> None:
        """Close the connection (the server cancels an invoke still running)."""
        self._events.close()

    def __enter__(self) -> InvokeStream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class ConfigureStream:
    """A configure call: iterate it for the install log, one ``Log`` per line.

    When iteration ends, :attr:`result` holds the ``result`` event. :meth:`wait` skips
    the log and returns the result. Like the invoke stream, the request is sent when
    iteration starts; a stream without ``result`` raises ``StreamInterrupted``.
    """

    def __init__(self, open_stream: _Opener, max_event_size: int = SSE_MAX_EVENT_SIZE) -> None:
        self._open = open_stream
        self._max_event_size = max_event_size
        self._lines = self._run()
        self.result: ConfigureResult | None = None
        self.errors: list[Error] = []

    def _run(self) -> Generator[Log, None]:
        splitter = LineSplitter()
        with self._open() as response:
            for sse in iter_sse_response(response, self._max_event_size):
                if sse.event == "result":
                    for line in splitter.flush():
                        yield line
                    self.result = decode_result(sse)
                    return
                event = decode_invoke_event(sse)
                if isinstance(event, Log):
                    for line in splitter.feed(event):
                        yield line
                elif isinstance(event, Error):
                    self.errors.append(event)
        for line in splitter.flush():
            yield line
        raise configure_failure(self.errors[-1] if self.errors else None)

    def __iter__(self) -> ConfigureStream:
        return self

    def __next__(self) -> Log:
        return self._lines.__next__()

    def wait(self) -> ConfigureResult:
        """Drain the stream and return its result."""
        for _ in self:
            pass
        if self.result is None:  # pragma: no cover - _run raises first
            raise configure_failure(None)
        return self.result

    def close(self) -> None:
        self._lines.close()

    def __enter__(self) -> ConfigureStream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Client(ExecMixin, RunsMixin, TerminalMixin, PreviewMixin, UsageMixin):
    """Client of the svc API (``AsyncClient``: coroutines, async iterators and async
    streams; ``Client``: the same, blocking).

    Args:
        base_url: the service address, e.g. ``http://127.0.0.1:8080`` (``/api/v1`` is
            appended unless already there).
        api_key: sent as ``X-API-Key``.
        token: a bearer token, or a callable returning one (called before every
            request, so it can refresh; the async client also takes a coroutine
            function). Pass either ``api_key`` or ``token``.
        namespace: default ``?namespace=`` for sandbox calls (else the server's default).
        timeout: seconds (or an ``httpx.Timeout``) for ordinary calls.
        stream_read_timeout: longest silence tolerated on an SSE stream. The server sends
            a keepalive every 15 s, so the default 60 s detects a dead connection.
        sse_max_event_size: the largest SSE event (in characters, a line not yet ended
            included) a stream may send before ``SSEEventTooLarge``; 16 MiB by default.
        retry: the :class:`RetryPolicy` (idempotent calls and 429 only).
        transport: an ``httpx`` transport (tests use ``httpx.MockTransport``).

    Use as a context manager, or close it.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        token: str | TokenProvider | None = None,
        namespace: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        stream_read_timeout: float = DEFAULT_STREAM_READ_TIMEOUT,
        sse_max_event_size: int = SSE_MAX_EVENT_SIZE,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._req = _Requests(base_url, namespace)
        self._http = SyncHTTP(
            base_url,
            api_key=api_key,
            token=token,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            stream_read_timeout=stream_read_timeout,
            retry=retry or RetryPolicy(),
            transport=transport,
        )
        self._http.sse_max_event_size = sse_max_event_size
        self.files = Files(self._http, namespace)
        """Files of a sandbox's workspace (:class:`~svc_client.Files`)."""
        self.archive = Archive(self._http, namespace)
        """Folders of a sandbox's workspace as archives (:class:`~svc_client.Archive`)."""

    def _json(self, call: Call) -> dict[str, Any]:
        return json_body(self._http.request(call))

    # --- sandboxes -------------------------------------------------------------------

    def create(
        self,
        name: str,
        template: str,
        *,
        namespace: str | None = None,
        template_kind: str | None = None,
        mode: str | None = None,
        image: str | None = None,
        timeout: str | None = None,
        idle_timeout: str | None = None,
        stopped: bool | None = None,
        resources: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        ports: Iterable[int] | None = None,
        credentials: Mapping[str, Any] | None = None,
        agent: AgentHarness | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Sandbox:
        """Create a sandbox from ``template``.

        ``mode`` is ``"code"`` (default) or ``"agent"``; ``timeout``/``idle_timeout`` are
        Go durations (``"1h30m"``, ``"0"`` for none); ``resources`` is the wire form
        (``{"limits": {"cpu": "1"}}``); ``extra`` adds raw body fields. Raises
        :class:`~svc_client.errors.PolicyViolation` when governance refuses it.
        """
        call = self._req.create(
            name,
            template,
            namespace=namespace,
            template_kind=template_kind,
            mode=mode,
            image=image,
            timeout=timeout,
            idle_timeout=idle_timeout,
            stopped=stopped,
            resources=resources,
            env=env,
            ports=ports,
            credentials=credentials,
            agent=agent,
            extra=extra,
        )
        return Sandbox.from_dict(self._json(call))

    def get(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Fetch a sandbox (raises :class:`~svc_client.errors.NotFound`)."""
        return Sandbox.from_dict(self._json(self._req.get(name, namespace)))

    def list_page(
        self,
        *,
        namespace: str | None = None,
        mode: str | None = None,
        phase: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
    ) -> Page[Sandbox]:
        """One page of sandboxes (non-admins see their own)."""
        call = self._req.list(namespace, mode, phase, limit, continue_token)
        return sandbox_page(self._json(call))

    def list(
        self,
        *,
        namespace: str | None = None,
        mode: str | None = None,
        phase: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[Sandbox]:
        """Every sandbox, following ``continue`` tokens page by page."""
        token: str | None = None
        while True:
            page = self.list_page(
                namespace=namespace, mode=mode, phase=phase, limit=page_size, continue_token=token
            )
            for item in page.items:
                yield item
            if not page.continue_token:
                return
            token = page.continue_token

    def delete(self, name: str, *, namespace: str | None = None) -> Accepted:
        """Delete a sandbox (202: deletion proceeds in the background)."""
        call = self._req.action("DELETE", name, None, namespace)
        return Accepted.from_dict(self._json(call))

    def stop(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Stop a sandbox; its workspace is kept."""
        call = self._req.action("POST", name, "stop", namespace)
        return Sandbox.from_dict(self._json(call))

    def resume(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Resume a stopped sandbox."""
        call = self._req.action("POST", name, "resume", namespace)
        return Sandbox.from_dict(self._json(call))

    def wait_for_phase(
        self,
        name: str,
        phase: str | Iterable[str] = "Running",
        *,
        timeout: float = 300.0,
        interval: float = 1.0,
        namespace: str | None = None,
        allow_missing: bool = False,
    ) -> Sandbox:
        """Poll until the sandbox is in ``phase`` (one name or several).

        Raises :class:`~svc_client.errors.WaitTimeout` after ``timeout`` seconds and
        :class:`~svc_client.errors.SandboxFailed` if it enters ``Error`` instead. With
        ``allow_missing``, a 404 counts as "not yet" (a sandbox still being made).
        """
        targets = phases(phase)
        deadline = monotonic() + timeout
        last: str | None = None
        while True:
            try:
                sandbox = self.get(name, namespace=namespace)
                last = sandbox.phase
                if check_wait_phase(sandbox, targets):
                    return sandbox
            except NotFound:
                if not allow_missing:
                    raise
            remaining = deadline - monotonic()
            if remaining <= 0:
                raise WaitTimeout(
                    f"sandbox {name} not in {sorted(targets)} after {timeout}s (phase {last})",
                    last,
                )
            sleep(min(interval, remaining))

    def wait_deleted(
        self,
        name: str,
        *,
        timeout: float = 120.0,
        interval: float = 1.0,
        namespace: str | None = None,
    ) -> None:
        """Poll until the sandbox is gone (404)."""
        deadline = monotonic() + timeout
        while True:
            try:
                last = (self.get(name, namespace=namespace)).phase
            except NotFound:
                return
            remaining = deadline - monotonic()
            if remaining <= 0:
                raise WaitTimeout(f"sandbox {name} still exists after {timeout}s", last)
            sleep(min(interval, remaining))

    # --- clone -----------------------------------------------------------------------

    def clone(
        self,
        name: str,
        *,
        new_name: str | None = None,
        snapshot_class: str | None = None,
        namespace: str | None = None,
    ) -> CloneResult:
        """Clone ``name`` from a VolumeSnapshot of its workspace (202; hydrates async)."""
        call = self._req.clone(name, new_name, snapshot_class, namespace)
        return CloneResult.from_dict(self._json(call))

    def wait_for_clone(
        self, clone: CloneResult | str, *, timeout: float = 600.0, interval: float = 2.0
    ) -> Sandbox:
        """Wait until a clone (the :meth:`clone` result, or its name) is ``Running``."""
        if isinstance(clone, CloneResult):
            name, namespace = clone.name, clone.namespace or None
        else:
            name, namespace = clone, None
        return self.wait_for_phase(
            name, "Running", timeout=timeout, interval=interval, namespace=namespace,
            allow_missing=True,
        )  # fmt: skip

    # --- ports -----------------------------------------------------------------------

    def forward_port(
        self, name: str, port: int, *, protocol: str = "http", namespace: str | None = None
    ) -> ForwardedPort:
        """Forward a container port; returns its internal (and preview) URL."""
        call = self._req.forward_port(name, port, protocol, namespace)
        return ForwardedPort.from_dict(self._json(call))

    def remove_port(self, name: str, port: int, *, namespace: str | None = None) -> None:
        """Stop forwarding a port (idempotent)."""
        self._http.request(self._req.remove_port(name, port, namespace))

    def preview_url(
        self, name: str, port: int, path: str = "", *, namespace: str | None = None
    ) -> str:
        """The router-proxied preview URL of a forwarded port (needs the same auth)."""
        return self._req.preview_url(name, port, path, namespace)

    # --- agent mode ------------------------------------------------------------------

    def configure(
        self,
        name: str,
        *,
        files: Iterable[File | Mapping[str, str]] | None = None,
        entrypoint: Sequence[str] | None = None,
        install_command: Sequence[str] | None = None,
        namespace: str | None = None,
    ) -> ConfigureStream:
        """Configure an agent sandbox: write ``files``, run ``install_command`` once,
        record ``entrypoint``. Iterate the returned stream for install log lines, or call
        ``.wait()`` for the :class:`~svc_client.models.ConfigureResult`."""
        call = self._req.configure(name, files, entrypoint, install_command, namespace)
        return ConfigureStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

    @overload
    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: Literal[False] = False,
    ) -> InvokeStream: ...  # fmt: skip

    @overload
    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: Literal[True],
    ) -> Blocking[DetachedRun]: ...  # fmt: skip

    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: bool = False,
    ) -> InvokeStream | Blocking[DetachedRun]:  # fmt: skip
        """Run the entrypoint with ``input`` on stdin; iterate the typed events.

        ``input`` may be ``str``, ``bytes`` or a JSON-serialisable object. ``timeout`` (a
        duration such as ``"30s"``) caps this invoke. With ``detach=True`` the answer is a
        :class:`DetachedRun` (awaited, in the async client) and the run goes on without a
        client: read it with :meth:`attach`, end it with :meth:`cancel_run`.
        """
        if detach:
            return self.invoke_detached(name, input, namespace=namespace, timeout=timeout)
        call = self._req.invoke(name, input, namespace)
        if timeout:
            call.params["timeout"] = timeout
        return InvokeStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

    def invoke_detached(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None,
    ) -> DetachedRun:  # fmt: skip
        """:meth:`invoke` with ``detach=True``: the run's id at once."""
        call = detached(self._req.invoke(name, input, namespace), timeout)
        return DetachedRun.from_dict(self._json(call))

    def run(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None
    ) -> InvokeResult:
        """Invoke and collect stdout, stderr and the exit into an :class:`InvokeResult`."""
        with self.invoke(name, input, namespace=namespace) as stream:
            return stream.collect()

    def cancel(self, name: str, invoke_id: str, *, namespace: str | None = None) -> dict[str, Any]:
        """Cancel a running invoke; its ``Exit`` then reports exit code -1."""
        return self._json(self._req.cancel(name, invoke_id, namespace))

    # --- secrets ---------------------------------------------------------------------

    def create_secret(
        self, name: str, data: Mapping[str, str], *, namespace: str | None = None
    ) -> SecretSummary:
        """Store a Secret of your own for ``credentials``; its values are never shown again."""
        call = self._req.create_secret(name, data, namespace)
        return SecretSummary.from_dict(self._json(call))

    def list_secrets(self, *, namespace: str | None = None) -> builtins.list[SecretSummary]:
        """Your Secrets (an admin: everyone's), with their keys but never their values."""
        items = (self._json(self._req.list_secrets(namespace))).get("items") or []
        return [SecretSummary.from_dict(i) for i in items]

    def delete_secret(self, name: str, *, namespace: str | None = None) -> None:
        """Delete one of your Secrets (``NotFound`` for another user's)."""
        self._http.request(self._req.delete_secret(name, namespace))

    # --- governance ------------------------------------------------------------------

    def get_policies(self) -> StoredPolicies:
        """The cluster default and every namespace override (admin)."""
        return StoredPolicies.from_dict(self._json(self._req.get_policies()))

    def put_policy(
        self, policy: Policy | Mapping[str, Any], *, namespace: str | None = None
    ) -> Policy:
        """Set the cluster default, or a namespace override when ``namespace`` is given."""
        return Policy.from_dict(self._json(self._req.put_policy(policy, namespace)))

    def delete_policy(self, namespace: str) -> None:
        """Remove a namespace override; the cluster default applies again (admin)."""
        self._http.request(self._req.delete_policy(namespace))

    def effective_policy(self, *, namespace: str | None = None) -> EffectivePolicy:
        """The policy in force in a namespace (any authenticated caller)."""
        return EffectivePolicy.from_dict(self._json(self._req.effective_policy(namespace)))

    # --- audit -----------------------------------------------------------------------

    def audit_page(
        self,
        *,
        namespace: str | None = None,
        sandbox: str | None = None,
        reason: str | None = None,
        since: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
    ) -> Page[AuditEvent]:
        """One page of audit records, newest first."""
        call = self._req.audit(namespace, sandbox, reason, since, limit, continue_token)
        return audit_page(self._json(call))

    def audit_events(
        self,
        *,
        namespace: str | None = None,
        sandbox: str | None = None,
        reason: str | None = None,
        since: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[AuditEvent]:
        """Every audit record matching the filters, following ``continue`` tokens."""
        token: str | None = None
        while True:
            page = self.audit_page(
                namespace=namespace,
                sandbox=sandbox,
                reason=reason,
                since=since,
                limit=page_size,
                continue_token=token,
            )
            for item in page.items:
                yield item
            if not page.continue_token:
                return
            token = page.continue_token

    # --- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
