"""What both clients share and that does no I/O: the :class:`~svc_client._http.Call` of
every operation, and the decoding and collecting of their answers and events."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from ._http import Call, api_base
from ._sse import SSEEvent
from .errors import SandboxFailed, StreamInterrupted
from .models import (
    AgentHarness,
    AuditEvent,
    ConfigureResult,
    Error,
    Exit,
    File,
    InvokeEvent,
    InvokeResult,
    Log,
    Page,
    Policy,
    Sandbox,
    Start,
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
        self._partial: dict[str, Log] = {}  # by stream: the part of a line not yet ended

    def feed(self, log: Log) -> list[Log]:
        before = self._partial.pop(log.stream, None)
        *lines, rest = ((before.data if before else "") + log.data).split("\n")
        if rest:
            self._partial[log.stream] = replace(log, data=rest)
        return [replace(log, data=line) for line in lines]

    def flush(self) -> list[Log]:
        out = [log for log in self._partial.values() if log.data]
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
