"""The blocking :class:`Client`, and the request builders it shares with the async one."""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Literal, overload
from urllib.parse import quote

import httpx

from ._exec import ExecMixin
from ._files import Archive, Files
from ._http import (
    DEFAULT_STREAM_READ_TIMEOUT,
    DEFAULT_TIMEOUT,
    Call,
    RetryPolicy,
    SyncHTTP,
    TokenProvider,
    api_base,
    json_body,
)
from ._preview import PreviewMixin
from ._runs import DetachedRun, RunsMixin, detached
from ._sse import SSE_MAX_EVENT_SIZE, SSEEvent, iter_sse_response
from ._terminal import TerminalMixin
from .errors import NotFound, SandboxFailed, StreamInterrupted, WaitTimeout
from .models import (
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
    env_list,
    invoke_event,
)

InvokeInput = str | bytes | Mapping[str, Any] | Sequence[Any] | None
"""An invoke body: text, bytes, or a JSON-serialisable object (sent as JSON)."""


def _seg(value: str | int) -> str:
    return quote(str(value), safe="")


def _sandbox_path(name: str, *rest: str | int) -> str:
    return "/".join(["/sandboxes", _seg(name), *(_seg(r) for r in rest)])


class _Requests:
    """Builds the :class:`Call` of every operation; no I/O. Shared by both clients."""

    def __init__(self, base_url: str, namespace: str | None) -> None:
        self.base_url = api_base(base_url)
        self.namespace = namespace

    def ns(self, namespace: str | None) -> dict[str, str]:
        value = namespace or self.namespace
        return {"namespace": value} if value else {}

    def create(
        self,
        name: str,
        template: str,
        *,
        namespace: str | None,
        template_kind: str | None,
        mode: str | None,
        image: str | None,
        timeout: str | None,
        idle_timeout: str | None,
        stopped: bool | None,
        resources: Mapping[str, Any] | None,
        env: Mapping[str, str] | None,
        ports: Iterable[int] | None,
        credentials: Mapping[str, Any] | None,
        agent: AgentHarness | None,
        extra: Mapping[str, Any] | None,
    ) -> Call:
        ref: dict[str, Any] = {"name": template}
        if template_kind:
            ref["kind"] = template_kind
        body: dict[str, Any] = {"name": name, "templateRef": ref}
        optional: dict[str, Any] = {
            "mode": mode,
            "image": {"repository": image} if image else None,
            "timeout": timeout,
            "idleTimeout": idle_timeout,
            "stopped": stopped,
            "resources": dict(resources) if resources is not None else None,
            "env": env_list(env) if env is not None else None,
            "ports": [{"port": p, "protocol": "http"} for p in ports]
            if ports is not None
            else None,
            "credentials": dict(credentials) if credentials is not None else None,
            "harness": {"agent": agent.to_dict()} if agent is not None else None,
        }
        body.update({k: v for k, v in optional.items() if v is not None})
        body.update(extra or {})
        return Call("POST", "/sandboxes", self.ns(namespace), json=body)

    def get(self, name: str, namespace: str | None) -> Call:
        return Call("GET", _sandbox_path(name), self.ns(namespace))

    def list(
        self,
        namespace: str | None,
        mode: str | None,
        phase: str | None,
        limit: int | None,
        continue_token: str | None,
    ) -> Call:
        params = self.ns(namespace)
        for key, value in (("mode", mode), ("phase", phase), ("continue", continue_token)):
            if value:
                params[key] = value
        if limit is not None:
            params["limit"] = str(limit)
        return Call("GET", "/sandboxes", params)

    def action(self, method: str, name: str, action: str | None, namespace: str | None) -> Call:
        path = _sandbox_path(name, action) if action else _sandbox_path(name)
        return Call(method, path, self.ns(namespace))

    def clone(
        self, name: str, new_name: str | None, snapshot_class: str | None, namespace: str | None
    ) -> Call:
        body = {"name": new_name, "snapshotClass": snapshot_class}
        body = {k: v for k, v in body.items() if v is not None}
        return Call("POST", _sandbox_path(name, "clone"), self.ns(namespace), json=body)

    def forward_port(self, name: str, port: int, protocol: str, namespace: str | None) -> Call:
        body = {"port": port, "protocol": protocol}
        return Call("POST", _sandbox_path(name, "ports"), self.ns(namespace), json=body)

    def remove_port(self, name: str, port: int, namespace: str | None) -> Call:
        return Call("DELETE", _sandbox_path(name, "ports", port), self.ns(namespace))

    def preview_url(self, name: str, port: int, path: str, namespace: str | None) -> str:
        url = f"{self.base_url}{_sandbox_path(name, 'preview', port)}/{path.lstrip('/')}"
        ns = self.ns(namespace)
        return f"{url}?namespace={_seg(ns['namespace'])}" if ns else url

    def configure(
        self,
        name: str,
        files: Iterable[File | Mapping[str, str]] | None,
        entrypoint: Sequence[str] | None,
        install_command: Sequence[str] | None,
        namespace: str | None,
    ) -> Call:
        body: dict[str, Any] = {}
        if files is not None:
            body["files"] = [f.to_dict() if isinstance(f, File) else dict(f) for f in files]
        if entrypoint is not None:
            body["entrypoint"] = list(entrypoint)
        if install_command is not None:
            body["installCommand"] = list(install_command)
        return Call(
            "POST",
            _sandbox_path(name, "configure"),
            self.ns(namespace),
            json=body,
            headers={"Accept": "text/event-stream"},
        )

    def invoke(self, name: str, body: InvokeInput, namespace: str | None) -> Call:
        if body is None:
            content, ctype = b"", "application/octet-stream"
        elif isinstance(body, bytes):
            content, ctype = body, "application/octet-stream"
        elif isinstance(body, str):
            content, ctype = body.encode(), "text/plain; charset=utf-8"
        else:
            content, ctype = json.dumps(body).encode(), "application/json"
        return Call(
            "POST",
            _sandbox_path(name, "invoke"),
            self.ns(namespace),
            content=content,
            headers={"Accept": "text/event-stream", "Content-Type": ctype},
        )

    def cancel(self, name: str, invoke_id: str, namespace: str | None) -> Call:
        return Call(
            "POST",
            _sandbox_path(name, "invoke", "cancel"),
            self.ns(namespace),
            json={"invokeId": invoke_id},
        )

    def create_secret(self, name: str, data: Mapping[str, str], namespace: str | None) -> Call:
        return Call("POST", "/secrets", self.ns(namespace), json={"name": name, "data": dict(data)})

    def list_secrets(self, namespace: str | None) -> Call:
        return Call("GET", "/secrets", self.ns(namespace))

    def delete_secret(self, name: str, namespace: str | None) -> Call:
        return Call("DELETE", f"/secrets/{_seg(name)}", self.ns(namespace))

    def get_policies(self) -> Call:
        return Call("GET", "/governance/policies")

    def put_policy(self, policy: Policy | Mapping[str, Any], namespace: str | None) -> Call:
        body = policy.to_dict() if isinstance(policy, Policy) else dict(policy)
        path = f"/governance/policies/{_seg(namespace)}" if namespace else "/governance/policies"
        return Call("PUT", path, json=body)

    def delete_policy(self, namespace: str) -> Call:
        return Call("DELETE", f"/governance/policies/{_seg(namespace)}")

    def effective_policy(self, namespace: str | None) -> Call:
        return Call("GET", "/governance/effective", self.ns(namespace))

    def audit(
        self,
        namespace: str | None,
        sandbox: str | None,
        reason: str | None,
        since: str | None,
        limit: int | None,
        continue_token: str | None,
    ) -> Call:
        params = self.ns(namespace)
        for key, value in (
            ("sandbox", sandbox),
            ("reason", reason),
            ("since", since),
            ("continue", continue_token),
        ):
            if value:
                params[key] = value
        if limit is not None:
            params["limit"] = str(limit)
        return Call("GET", "/audit/events", params)


def sandbox_page(data: Mapping[str, Any]) -> Page[Sandbox]:
    items = [Sandbox.from_dict(i) for i in data.get("items") or [] if isinstance(i, dict)]
    return Page(items, data.get("continue") or None)


def audit_page(data: Mapping[str, Any]) -> Page[AuditEvent]:
    items = [AuditEvent.from_dict(i) for i in data.get("items") or [] if isinstance(i, dict)]
    return Page(items, data.get("continue") or None)


def decode_invoke_event(sse: SSEEvent) -> InvokeEvent | None:
    """The typed event of an SSE event (``None`` for names an invoke does not define)."""
    try:
        data = json.loads(sse.data) if sse.data else {}
    except ValueError as exc:
        raise StreamInterrupted(f"malformed {sse.event!r} event data: {sse.data[:200]!r}") from exc
    return invoke_event(sse.event, data if isinstance(data, dict) else {})


def decode_result(sse: SSEEvent) -> ConfigureResult:
    data = json.loads(sse.data) if sse.data else {}
    return ConfigureResult.from_dict(data if isinstance(data, dict) else {})


class LineSplitter:
    """Re-chunks ``log`` events into whole lines, per stream."""

    def __init__(self) -> None:
        self._partial: dict[str, str] = {}

    def feed(self, log: Log) -> list[Log]:
        text = self._partial.pop(log.stream, "") + log.data
        *lines, rest = text.split("\n")
        if rest:
            self._partial[log.stream] = rest
        return [Log(log.stream, line) for line in lines]

    def flush(self) -> list[Log]:
        out = [Log(stream, text) for stream, text in self._partial.items() if text]
        self._partial.clear()
        return out


class InvokeCollector:
    """Accumulates invoke events into an :class:`InvokeResult`."""

    def __init__(self) -> None:
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self.errors: list[Error] = []
        self.invoke_id = ""
        self.exit: Exit | None = None

    def add(self, event: InvokeEvent) -> None:
        if isinstance(event, Start):
            self.invoke_id = event.invoke_id
        elif isinstance(event, Log):
            (self.stderr if event.stream == "stderr" else self.stdout).append(event.data)
        elif isinstance(event, Error):
            self.errors.append(event)
        else:
            self.exit = event

    def result(self) -> InvokeResult:
        if self.exit is None:
            raise StreamInterrupted("invoke stream ended without an exit event")
        return InvokeResult(
            invoke_id=self.exit.invoke_id or self.invoke_id,
            stdout="".join(self.stdout),
            stderr="".join(self.stderr),
            exit_code=self.exit.exit_code,
            duration_ms=self.exit.duration_ms,
            reason=self.exit.reason,
            errors=self.errors,
        )


def configure_failure(error: Error | None) -> StreamInterrupted:
    if error is not None:
        return StreamInterrupted(f"configure failed: {error.code}: {error.message}")
    return StreamInterrupted("configure stream ended without a result event")


class InvokeStream:
    """The events of one invoke: ``Start``, ``Log``..., optional ``Error``, then ``Exit``.

    The request is sent when iteration starts, so HTTP errors (409, 424, 429, ...) are
    raised by the first ``next()``. Iteration stops after ``Exit``; a stream that ends
    before it raises :class:`~svc_client.errors.StreamInterrupted`. Leaving the loop
    early closes the connection, which the server treats as a cancel. Use as a context
    manager (or call :meth:`close`) when you may not iterate to the end.
    """

    def __init__(
        self,
        open_stream: Callable[[], AbstractContextManager[httpx.Response]],
        max_event_size: int = SSE_MAX_EVENT_SIZE,
    ) -> None:
        self._open = open_stream
        self._max_event_size = max_event_size
        self._events = self._run()
        self.invoke_id: str | None = None
        """Set once ``Start`` has been received (use it with :meth:`Client.cancel`)."""
        self.exit: Exit | None = None
        """The ``Exit`` event, once received."""

    def _run(self) -> Generator[InvokeEvent, None, None]:
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
        return next(self._events)

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
    the log and returns the result. Like :class:`InvokeStream`, the request is sent
    when iteration starts; a stream without ``result`` raises ``StreamInterrupted``.
    """

    def __init__(
        self,
        open_stream: Callable[[], AbstractContextManager[httpx.Response]],
        max_event_size: int = SSE_MAX_EVENT_SIZE,
    ) -> None:
        self._open = open_stream
        self._max_event_size = max_event_size
        self._lines = self._run()
        self.result: ConfigureResult | None = None
        self.errors: list[Error] = []

    def _run(self) -> Generator[Log, None, None]:
        splitter = LineSplitter()
        with self._open() as response:
            for sse in iter_sse_response(response, self._max_event_size):
                if sse.event == "result":
                    yield from splitter.flush()
                    self.result = decode_result(sse)
                    return
                event = decode_invoke_event(sse)
                if isinstance(event, Log):
                    yield from splitter.feed(event)
                elif isinstance(event, Error):
                    self.errors.append(event)
        yield from splitter.flush()
        raise configure_failure(self.errors[-1] if self.errors else None)

    def __iter__(self) -> ConfigureStream:
        return self

    def __next__(self) -> Log:
        return next(self._lines)

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


def check_wait_phase(sandbox: Sandbox, targets: frozenset[str]) -> bool:
    """True when done; raises ``SandboxFailed`` on an unexpected ``Error`` phase."""
    if sandbox.phase in targets:
        return True
    if sandbox.phase == "Error":
        raise SandboxFailed(
            f"sandbox {sandbox.name} entered phase Error: {sandbox.message or ''}".rstrip(": "),
            sandbox,
        )
    return False


def phases(phase: str | Iterable[str]) -> frozenset[str]:
    return frozenset([phase] if isinstance(phase, str) else phase)


class Client(ExecMixin, RunsMixin, TerminalMixin, PreviewMixin):
    """Blocking client of the svc API.

    Args:
        base_url: the service address, e.g. ``http://127.0.0.1:8080`` (``/api/v1`` is
            appended unless already there).
        api_key: sent as ``X-API-Key``.
        token: a bearer token, or a callable returning one (called before every
            request, so it can refresh). Pass either ``api_key`` or ``token``.
        namespace: default ``?namespace=`` for sandbox calls (else the server's default).
        timeout: seconds (or an ``httpx.Timeout``) for ordinary calls.
        stream_read_timeout: longest silence tolerated on an SSE stream. The server sends
            a keepalive every 15 s, so the default 60 s detects a dead connection.
        sse_max_event_size: the largest SSE event (in characters, a line not yet ended
            included) a stream may send before ``SSEEventTooLarge``; 16 MiB by default.
        retry: the :class:`RetryPolicy` (idempotent calls and 429 only).
        transport: an ``httpx`` transport (tests use ``httpx.MockTransport``).

    Use as a context manager, or call :meth:`close`.
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
            yield from page.items
            if not page.continue_token:
                return
            token = page.continue_token

    def delete(self, name: str, *, namespace: str | None = None) -> Accepted:
        """Delete a sandbox (202: deletion proceeds in the background)."""
        return Accepted.from_dict(self._json(self._req.action("DELETE", name, None, namespace)))

    def stop(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Stop a sandbox; its workspace is kept."""
        return Sandbox.from_dict(self._json(self._req.action("POST", name, "stop", namespace)))

    def resume(self, name: str, *, namespace: str | None = None) -> Sandbox:
        """Resume a stopped sandbox."""
        return Sandbox.from_dict(self._json(self._req.action("POST", name, "resume", namespace)))

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
        deadline = time.monotonic() + timeout
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
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeout(
                    f"sandbox {name} not in {sorted(targets)} after {timeout}s (phase {last})",
                    last,
                )
            time.sleep(min(interval, remaining))

    def wait_deleted(
        self,
        name: str,
        *,
        timeout: float = 120.0,
        interval: float = 1.0,
        namespace: str | None = None,
    ) -> None:
        """Poll until the sandbox is gone (404)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                last = self.get(name, namespace=namespace).phase
            except NotFound:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeout(f"sandbox {name} still exists after {timeout}s", last)
            time.sleep(min(interval, remaining))

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
    ) -> DetachedRun: ...  # fmt: skip

    def invoke(
        self, name: str, input: InvokeInput = None, *, namespace: str | None = None,
        timeout: str | None = None, detach: bool = False,
    ) -> InvokeStream | DetachedRun:  # fmt: skip
        """Run the entrypoint with ``input`` on stdin; iterate the typed events.

        ``input`` may be ``str``, ``bytes`` or a JSON-serialisable object. ``timeout`` (a
        duration such as ``"30s"``) caps this invoke. With ``detach=True`` the answer is a
        :class:`DetachedRun` at once and the run goes on without a client: read it with
        :meth:`attach`, end it with :meth:`cancel_run`.
        """
        call = self._req.invoke(name, input, namespace)
        if detach:
            return DetachedRun.from_dict(self._json(detached(call, timeout)))
        if timeout:
            call.params["timeout"] = timeout
        return InvokeStream(
            lambda: self._http.stream(call, sse=True), self._http.sse_max_event_size
        )

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
        return SecretSummary.from_dict(self._json(self._req.create_secret(name, data, namespace)))

    def list_secrets(self, *, namespace: str | None = None) -> builtins.list[SecretSummary]:
        """Your Secrets (an admin: everyone's), with their keys but never their values."""
        items = self._json(self._req.list_secrets(namespace)).get("items") or []
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
            yield from page.items
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
