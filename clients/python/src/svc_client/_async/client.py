"""The client of the svc API, written once: this asyncio :class:`AsyncClient` is the source,
and the blocking :class:`~svc_client.Client` (``_sync/client.py``) is generated from it by
``unasync`` (``make python-client``; ``make check-generated`` fails when it drifts).

Write here what both clients do; write it so that removing ``async``/``await`` and the
renames of ``codegen/generate.py`` give the blocking code (no ``asyncio``-only calls).
"""

from __future__ import annotations

import builtins
from asyncio import sleep
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from time import monotonic
from types import TracebackType
from typing import Any, Literal, overload

import httpx

from .._flavor import Awaitable
from .._http import (
    DEFAULT_STREAM_READ_TIMEOUT,
    DEFAULT_TIMEOUT,
    AsyncTokenProvider,
    Call,
    RetryPolicy,
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
from .._sse import SSE_MAX_EVENT_SIZE, aiter_sse_response
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
from .exec import AsyncExecMixin
from .files import AsyncArchive, AsyncFiles
from .http import AsyncHTTP
from .preview import AsyncPreviewMixin
from .runs import AsyncRunsMixin
from .terminal import AsyncTerminalMixin
from .usage import AsyncUsageMixin

_Opener = Callable[[], AbstractAsyncContextManager[httpx.Response]]


class AsyncInvokeStream:
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

    async def _run(self) -> AsyncGenerator[InvokeEvent, None]:
        async with self._open() as response:
            async for sse in aiter_sse_response(response, self._max_event_size):
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

    def __aiter__(self) -> AsyncInvokeStream:
        return self

    async def __anext__(self) -> InvokeEvent:
        return await self._events.__anext__()

    async def collect(self) -> InvokeResult:
        """Read the rest of the stream and return the collected output and exit."""
        collector = InvokeCollector()
        async for event in self:
            collector.add(event)
        if self.exit is not None and collector.exit is None:
            collector.exit = self.exit
        return collector.result()

    async def aclose(self) -> None:
        """Close the connection (the server cancels an invoke still running)."""
        await self._events.aclose()

    async def __aenter__(self) -> AsyncInvokeStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class AsyncConfigureStream:
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

    async def _run(self) -> AsyncGenerator[Log, None]:
        splitter = LineSplitter()
        async with self._open() as response:
            async for sse in aiter_sse_response(response, self._max_event_size):
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

    def __aiter__(self) -> AsyncConfigureStream:
        return self

    async def __anext__(self) -> Log:
        return await self._lines.__anext__()

    async def wait(self) -> ConfigureResult:
        """Drain the stream and return its result."""
        async for _ in self:
            pass
        if self.result is None:  # pragma: no cover - _run raises first
            raise configure_failure(None)
        return self.result

    async def aclose(self) -> None:
        await self._lines.aclose()

    async def __aenter__(self) -> AsyncConfigureStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class AsyncClient(
    AsyncExecMixin, AsyncRunsMixin, AsyncTerminalMixin, AsyncPreviewMixin, AsyncUsageMixin
):
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
        token: str | AsyncTokenProvider | None = None,
        namespace: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        stream_read_timeout: float = DEFAULT_STREAM_READ_TIMEOUT,
        sse_max_event_size: int = SSE_MAX_EVENT_SIZE,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._req = _Requests(base_url, namespace)
        self._http = AsyncHTTP(
            base_url,
            api_key=api_key,
            token=token,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            stream_read_timeout=stream_read_timeout,
            retry=retry or RetryPolicy(),
            transport=transport,
        )
        self._http.sse_max_event_size = sse_max_event_size
        self.files = AsyncFiles(self._http, namespace)
        """Files of a sandbox's workspace (:class:`~svc_client.Files`)."""
        self.archive = AsyncArchive(self._http, namespace)
        """Folders of a sandbox's workspace as archives (:class:`~svc_client.Archive`)."""

    async def _json(self, call: Call) -> dict[str, Any]:
        return json_body(await self._http.request(call))

    # --- sandboxes -------------------------------------------------------------------

    async def create(
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
        return Sandbox.from_dict(await self._json(call))

    async def get(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Fetch a sandbox (raises :class:`~svc_client.errors.NotFound`)."""
        return Sandbox.from_dict(await self._json(self._req.get(name, namespace)))

    async def list_page(
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
        return sandbox_page(await self._json(call))

    async def list(
        self,
        *,
        namespace: str | None = None,
        mode: str | None = None,
        phase: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[Sandbox]:
        """Every sandbox, following ``continue`` tokens page by page."""
        token: str | None = None
        while True:
            page = await self.list_page(
                namespace=namespace, mode=mode, phase=phase, limit=page_size, continue_token=token
            )
            for item in page.items:
                yield item
            if not page.continue_token:
                return
            token = page.continue_token

    async def delete(self, name: str, *, namespace: str | None = None) -> Accepted:
        """Delete a sandbox (202: deletion proceeds in the background)."""
        call = self._req.action("DELETE", name, None, namespace)
        return Accepted.from_dict(await self._json(call))

    async def stop(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Stop a sandbox; its workspace is kept."""
        call = self._req.action("POST", name, "stop", namespace)
        return Sandbox.from_dict(await self._json(call))

    async def resume(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Resume a stopped sandbox."""
        call = self._req.action("POST", name, "resume", namespace)
        return Sandbox.from_dict(await self._json(call))

    async def wait_for_phase(
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
                sandbox = await self.get(name, namespace=namespace)
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
            await sleep(min(interval, remaining))

    async def wait_deleted(
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
                last = (await self.get(name, namespace=namespace)).phase
            except NotFound:
                return
            remaining = deadline - monotonic()
            if remaining <= 0:
                raise WaitTimeout(f"sandbox {name} still exists after {timeout}s", last)
            await sleep(min(interval, remaining))

    # --- clone -----------------------------------------------------------------------

    async def clone(
        self,
        name: str,
        *,
        new_name: str | None = None,
        snapshot_class: str | None = None,
        namespace: str | None = None,
    ) -> CloneResult:
        """Clone ``name`` from a VolumeSnapshot of its workspace (202; hydrates async)."""
        call = self._req.clone(name, new_name, snapshot_class, namespace)
        return CloneResult.from_dict(await self._json(call))

    async def wait_for_clone(
        self, clone: CloneResult | str, *, timeout: float = 600.0, interval: float = 2.0
    ) -> Sandbox:
        """Wait until a clone (the :meth:`clone` result, or its name) is ``Running``."""
        if isinstance(clone, CloneResult):
            name, namespace = clone.name, clone.namespace or None
        else:
            name, namespace = clone, None
        return await self.wait_for_phase(
            name, "Running", timeout=timeout, interval=interval, namespace=namespace,
            allow_missing=True,
        )  # fmt: skip

    # --- ports -----------------------------------------------------------------------

    async def forward_port(
        self, name: str, port: int, *, protocol: str = "http", namespace: str | None = None
    ) -> ForwardedPort:
        """Forward a container port; returns its internal (and preview) URL."""
        call = self._req.forward_port(name, port, protocol, namespace)
        return ForwardedPort.from_dict(await self._json(call))

    async def remove_port(self, name: str, port: int, *, namespace: str | None = None) -> None:
        """Stop forwarding a port (idempotent)."""
        await self._http.request(self._req.remove_port(name, port, namespace))

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
    ) -> AsyncConfigureStream:
        """Configure an agent sandbox: write ``files``, run ``install_command`` once,
        record ``entrypoint``. Iterate the returned stream for install log lines, or call
        ``.wait()`` for the :class:`~svc_client.models.ConfigureResult`."""
        call = self._req.configure(name, files, entrypoint, install_command, namespace)
        return AsyncConfigureStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

    @overload
    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: Literal[False] = False,
    ) -> AsyncInvokeStream: ...  # fmt: skip

    @overload
    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: Literal[True],
    ) -> Awaitable[DetachedRun]: ...  # fmt: skip

    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: bool = False,
    ) -> AsyncInvokeStream | Awaitable[DetachedRun]:  # fmt: skip
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
        return AsyncInvokeStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

    async def invoke_detached(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None,
    ) -> DetachedRun:  # fmt: skip
        """:meth:`invoke` with ``detach=True``: the run's id at once."""
        call = detached(self._req.invoke(name, input, namespace), timeout)
        return DetachedRun.from_dict(await self._json(call))

    async def run(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None
    ) -> InvokeResult:
        """Invoke and collect stdout, stderr and the exit into an :class:`InvokeResult`."""
        async with self.invoke(name, input, namespace=namespace) as stream:
            return await stream.collect()

    async def cancel(
        self, name: str, invoke_id: str, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """Cancel a running invoke; its ``Exit`` then reports exit code -1."""
        return await self._json(self._req.cancel(name, invoke_id, namespace))

    # --- secrets ---------------------------------------------------------------------

    async def create_secret(
        self, name: str, data: Mapping[str, str], *, namespace: str | None = None
    ) -> SecretSummary:
        """Store a Secret of your own for ``credentials``; its values are never shown again."""
        call = self._req.create_secret(name, data, namespace)
        return SecretSummary.from_dict(await self._json(call))

    async def list_secrets(self, *, namespace: str | None = None) -> builtins.list[SecretSummary]:
        """Your Secrets (an admin: everyone's), with their keys but never their values."""
        items = (await self._json(self._req.list_secrets(namespace))).get("items") or []
        return [SecretSummary.from_dict(i) for i in items]

    async def delete_secret(self, name: str, *, namespace: str | None = None) -> None:
        """Delete one of your Secrets (``NotFound`` for another user's)."""
        await self._http.request(self._req.delete_secret(name, namespace))

    # --- governance ------------------------------------------------------------------

    async def get_policies(self) -> StoredPolicies:
        """The cluster default and every namespace override (admin)."""
        return StoredPolicies.from_dict(await self._json(self._req.get_policies()))

    async def put_policy(
        self, policy: Policy | Mapping[str, Any], *, namespace: str | None = None
    ) -> Policy:
        """Set the cluster default, or a namespace override when ``namespace`` is given."""
        return Policy.from_dict(await self._json(self._req.put_policy(policy, namespace)))

    async def delete_policy(self, namespace: str) -> None:
        """Remove a namespace override; the cluster default applies again (admin)."""
        await self._http.request(self._req.delete_policy(namespace))

    async def effective_policy(self, *, namespace: str | None = None) -> EffectivePolicy:
        """The policy in force in a namespace (any authenticated caller)."""
        return EffectivePolicy.from_dict(await self._json(self._req.effective_policy(namespace)))

    # --- audit -----------------------------------------------------------------------

    async def audit_page(
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
        return audit_page(await self._json(call))

    async def audit_events(
        self,
        *,
        namespace: str | None = None,
        sandbox: str | None = None,
        reason: str | None = None,
        since: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[AuditEvent]:
        """Every audit record matching the filters, following ``continue`` tokens."""
        token: str | None = None
        while True:
            page = await self.audit_page(
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

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
