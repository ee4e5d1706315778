"""Typed models shared by :class:`~svc_client.Client` and :class:`~svc_client.AsyncClient`.

Field names are snake case; the wire form is camel case (``invokeId`` is ``invoke_id``).
The models of the API's schemas are generated from its OpenAPI document
(``_generated.py``, by ``codegen/generate.py``, which gives them the names the client has
always used: ``Start`` is the document's ``StartEvent``). Written here are only the views the
client makes of them (:class:`Sandbox` flattened, :class:`InvokeResult` collected,
:class:`Page`) and the arguments it builds requests from (:class:`AgentHarness`).
Models read from the server with a ``raw`` field keep the decoded JSON there, so fields
this version does not know about are still reachable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Generic, TypeVar, get_args

from ._generated import (
    Accepted,
    AgentConfigureStatus,
    AuditRecord,
    Condition,
    EffectivePolicy,
    Error,
    Exit,
    File,
    ForwardedPort,
    Log,
    Phase,
    Policy,
    SecretSummary,
    Start,
    StoredPolicies,
    TemplateRef,
    Violation,
)
from ._model import Json, Model, to_camel, to_snake

__all__ = [
    "PHASES",
    "Accepted",
    "AgentConfigureStatus",
    "AgentHarness",
    "AuditEvent",
    "CloneResult",
    "Condition",
    "ConfigureResult",
    "EffectivePolicy",
    "Error",
    "Exit",
    "File",
    "ForwardedPort",
    "InvokeEvent",
    "InvokeResult",
    "Json",
    "Log",
    "Page",
    "Phase",
    "Policy",
    "Quantity",
    "Sandbox",
    "SecretSummary",
    "Start",
    "StoredPolicies",
    "TemplateRef",
    "Violation",
    "env_list",
    "invoke_event",
    "to_camel",
    "to_snake",
]

T = TypeVar("T")

PHASES: tuple[Phase, ...] = get_args(Phase)
"""The phases a sandbox reports, as the API's document lists them."""

Quantity = str | int

InvokeEvent = Start | Log | Exit | Error
"""The typed events an invoke yields."""


def _obj(value: Any) -> Json:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


@dataclass(frozen=True)
class Sandbox:
    """A Sandbox resource as the API returns it, flattened to the useful fields.

    ``spec`` and ``status`` hold the wire (camel case) objects for everything else.
    """

    name: str
    namespace: str
    mode: str
    template_ref: TemplateRef
    phase: str | None
    created_by: str | None = None
    clone_from_snapshot: str | None = None
    cloned_from: str | None = None
    pod_name: str | None = None
    message: str | None = None
    resolved_template: str | None = None
    forwarded_ports: list[ForwardedPort] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    agent_configure: AgentConfigureStatus | None = None
    spec: Json = field(default_factory=dict, repr=False)
    status: Json = field(default_factory=dict, repr=False)
    raw: Json = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sandbox:
        meta, spec, status = (
            _obj(data.get("metadata")),
            _obj(data.get("spec")),
            _obj(data.get("status")),
        )
        agent = status.get("agentConfigure")
        return cls(
            name=_str(meta.get("name")) or "",
            namespace=_str(meta.get("namespace")) or "",
            mode=_str(spec.get("mode")) or "code",
            template_ref=TemplateRef.from_dict(_obj(spec.get("templateRef"))),
            phase=_str(status.get("phase")),
            created_by=_str(spec.get("createdBy")),
            clone_from_snapshot=_str(spec.get("cloneFromSnapshot")),
            cloned_from=_str(status.get("clonedFrom")),
            pod_name=_str(status.get("podName")),
            message=_str(status.get("message")),
            resolved_template=_str(status.get("resolvedTemplate")),
            forwarded_ports=[
                ForwardedPort.from_dict(p)
                for p in status.get("forwardedPorts") or []
                if isinstance(p, dict)
            ],
            conditions=[
                Condition.from_dict(c)
                for c in status.get("conditions") or []
                if isinstance(c, dict)
            ],
            agent_configure=AgentConfigureStatus.from_dict(agent)
            if isinstance(agent, dict)
            else None,
            spec=spec,
            status=status,
            raw=dict(data),
        )


@dataclass(frozen=True)
class AgentHarness:
    """``spec.harness.agent`` for ``mode="agent"`` sandboxes (``env`` as a mapping)."""

    entrypoint: list[str] | None = None
    install_command: list[str] | None = None
    working_dir: str | None = None
    env: Mapping[str, str] | None = None
    max_concurrent_invokes: int | None = None
    default_invoke_timeout: str | None = None

    def to_dict(self) -> Json:
        out: Json = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[to_camel(f.name)] = env_list(value) if f.name == "env" else value
        return out


def env_list(env: Mapping[str, str]) -> list[Json]:
    """``{"A": "1"}`` -> ``[{"name": "A", "value": "1"}]`` (the wire form of env)."""
    return [{"name": k, "value": v} for k, v in env.items()]


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; ``continue_token`` is ``None`` on the last page."""

    items: list[T]
    continue_token: str | None


@dataclass(frozen=True)
class AuditEvent(AuditRecord):
    """One audit record (a Sandbox event), from ``GET /audit/events``."""

    raw: Json = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class CloneResult(Model):
    """The 202 body of ``POST .../clone`` (the document's ``CloneResponse``): the new
    sandbox is hydrating from ``snapshot``. Declared here to keep the order of its fields
    (it is built positionally) and ``phase`` open to phases this client does not know."""

    name: str
    namespace: str
    snapshot: str
    cloned_from: str
    phase: str
    message: str
    sandbox_id: str = ""


@dataclass(frozen=True)
class ConfigureResult:
    """SSE ``result``: the last event of configure.

    ``skipped`` is true when the files and install command were unchanged, so the install
    did not run again; ``max_concurrent_invokes`` is the cap now in force. Written here, not
    generated: a field the server left out reads as ``None`` (the document requires all).
    """

    install_command_hash: str | None
    install_exit_code: int | None
    last_configured_at: str | None = None
    entrypoint: list[str] = field(default_factory=list)
    max_concurrent_invokes: int | None = None
    skipped: bool = False
    raw: Json = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigureResult:
        return cls(
            install_command_hash=_str(data.get("installCommandHash")),
            install_exit_code=_int(data.get("installExitCode")),
            last_configured_at=_str(data.get("lastConfiguredAt")),
            entrypoint=_strs(data.get("entrypoint")),
            max_concurrent_invokes=_int(data.get("maxConcurrentInvokes")),
            skipped=data.get("skipped") is True,
            raw=dict(data),
        )


@dataclass(frozen=True)
class InvokeResult:
    """What :meth:`~svc_client.Client.run` collected from one invoke."""

    invoke_id: str
    stdout: str
    stderr: str
    exit_code: int
    duration_ms: int
    reason: str
    errors: list[Error] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the entrypoint completed with exit code 0."""
        return self.exit_code == 0 and self.reason == "completed"


_EVENTS: dict[str, type[InvokeEvent]] = {"start": Start, "log": Log, "exit": Exit, "error": Error}


def invoke_event(name: str, data: Mapping[str, Any]) -> InvokeEvent | None:
    """The typed event for an SSE event name and its JSON data (``None`` if unknown)."""
    model = _EVENTS.get(name)
    if model is None:
        return None
    event = model.from_dict(data)
    if isinstance(event, Exit) and _int(data.get("exitCode")) is None:
        return replace(event, exit_code=-1)  # no exit code: it did not exit by itself
    return event
