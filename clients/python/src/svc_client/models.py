"""Typed models shared by :class:`~svc_client.Client` and :class:`~svc_client.AsyncClient`.

Field names are snake case; the wire form is camel case (``invokeId`` is ``invoke_id``).
Every model read from the server keeps the decoded JSON in ``raw`` so fields this
version does not know about are still reachable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

Phase = Literal["Pending", "Creating", "Running", "Stopped", "Error"]
"""Sandbox phases the server reports."""

Json = dict[str, Any]


def _obj(value: Any) -> Json:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def to_camel(name: str) -> str:
    """``max_cpu`` -> ``maxCpu``."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_snake(name: str) -> str:
    """``maxCpu`` -> ``max_cpu``."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


# --- sandboxes -----------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateRef:
    """The template a sandbox is made from."""

    name: str
    kind: str = "ClusterSandboxTemplate"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TemplateRef:
        return cls(name=_str(data.get("name")) or "", kind=_str(data.get("kind")) or cls.kind)


@dataclass(frozen=True)
class ForwardedPort:
    """A forwarded container port (``POST .../ports``, ``status.forwardedPorts``)."""

    port: int
    protocol: str
    internal_url: str
    preview_url: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForwardedPort:
        return cls(
            port=_int(data.get("port")) or 0,
            protocol=_str(data.get("protocol")) or "http",
            internal_url=_str(data.get("internalUrl")) or "",
            preview_url=_str(data.get("previewUrl")),
        )


@dataclass(frozen=True)
class Condition:
    """A status condition of a sandbox."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        return cls(
            type=_str(data.get("type")) or "",
            status=_str(data.get("status")) or "Unknown",
            reason=_str(data.get("reason")) or "",
            message=_str(data.get("message")) or "",
            last_transition_time=_str(data.get("lastTransitionTime")),
        )


@dataclass(frozen=True)
class AgentConfigureStatus:
    """``status.agentConfigure``: what the last configure recorded."""

    last_configured_at: str | None = None
    install_command_hash: str | None = None
    entrypoint: list[str] = field(default_factory=list)
    install_exit_code: int | None = None
    max_concurrent_invokes: int | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentConfigureStatus:
        return cls(
            last_configured_at=_str(data.get("lastConfiguredAt")),
            install_command_hash=_str(data.get("installCommandHash")),
            entrypoint=_strs(data.get("entrypoint")),
            install_exit_code=_int(data.get("installExitCode")),
            max_concurrent_invokes=_int(data.get("maxConcurrentInvokes")),
        )


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
    """``spec.harness.agent`` for ``mode="agent"`` sandboxes."""

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
class Accepted:
    """A 202 acknowledgement (delete)."""

    name: str
    namespace: str
    message: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Accepted:
        return cls(
            name=_str(data.get("name")) or "",
            namespace=_str(data.get("namespace")) or "",
            message=_str(data.get("message")) or "",
        )


@dataclass(frozen=True)
class SecretSummary:
    """A Secret of a user's own, as ``/secrets`` shows it: names and keys, never values."""

    name: str
    namespace: str
    owner: str
    keys: list[str]
    creation_timestamp: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SecretSummary:
        return cls(
            name=_str(data.get("name")) or "",
            namespace=_str(data.get("namespace")) or "",
            owner=_str(data.get("owner")) or "",
            keys=_strs(data.get("keys")),
            creation_timestamp=_str(data.get("creationTimestamp")),
        )


@dataclass(frozen=True)
class CloneResult:
    """The 202 body of ``POST .../clone``: the new sandbox is hydrating from ``snapshot``."""

    name: str
    namespace: str
    snapshot: str
    cloned_from: str
    phase: str
    message: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CloneResult:
        return cls(
            name=_str(data.get("name")) or "",
            namespace=_str(data.get("namespace")) or "",
            snapshot=_str(data.get("snapshot")) or "",
            cloned_from=_str(data.get("clonedFrom")) or "",
            phase=_str(data.get("phase")) or "Pending",
            message=_str(data.get("message")) or "",
        )


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; ``continue_token`` is ``None`` on the last page."""

    items: list[T]
    continue_token: str | None


# --- governance ----------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One entry of a ``policy_violation`` body (``code`` is stable, see the spec)."""

    code: str
    message: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Violation:
        return cls(code=_str(data.get("code")) or "", message=_str(data.get("message")) or "")


Quantity = str | int


@dataclass(frozen=True)
class Policy:
    """A governance policy. ``None`` means unset (falls through to the cluster value)."""

    max_sandboxes_per_user: int | None = None
    max_sandboxes_total: int | None = None
    max_cpu: Quantity | None = None
    max_memory: Quantity | None = None
    max_storage: Quantity | None = None
    max_ephemeral_storage: Quantity | None = None
    max_timeout: str | None = None
    max_idle_timeout: str | None = None
    allowed_templates: list[str] | None = None
    approved_registries: list[str] | None = None
    max_agent_sandboxes: int | None = None
    allowed_agent_images: list[str] | None = None
    max_concurrent_invokes_per_sandbox: int | None = None
    allowed_runtime_classes: list[str] | None = None
    default_runtime_class: str | None = None

    def to_dict(self) -> Json:
        """The wire (camel case) form, without unset fields."""
        return {
            to_camel(f.name): getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) is not None
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Policy:
        known = {f.name for f in fields(cls)}
        kwargs = {to_snake(k): v for k, v in data.items() if to_snake(k) in known}
        return cls(**kwargs)


@dataclass(frozen=True)
class StoredPolicies:
    """``GET /governance/policies``: the cluster default and every namespace override."""

    cluster: Policy | None
    namespaces: dict[str, Policy]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StoredPolicies:
        cluster = data.get("cluster")
        return cls(
            cluster=Policy.from_dict(cluster) if isinstance(cluster, dict) else None,
            namespaces={
                k: Policy.from_dict(v)
                for k, v in _obj(data.get("namespaces")).items()
                if isinstance(v, dict)
            },
        )


@dataclass(frozen=True)
class EffectivePolicy:
    """``GET /governance/effective``: the policy in force in ``namespace``."""

    namespace: str
    policy: Policy

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EffectivePolicy:
        return cls(
            namespace=_str(data.get("namespace")) or "",
            policy=Policy.from_dict(_obj(data.get("policy"))),
        )


# --- audit ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditEvent:
    """One audit record (a Sandbox event), from ``GET /audit/events``."""

    id: str
    time: str
    reason: str
    type: str
    sandbox: str
    namespace: str
    actor: str | None
    message: str
    count: int
    involved_object: Json = field(default_factory=dict)
    raw: Json = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditEvent:
        return cls(
            id=_str(data.get("id")) or "",
            time=_str(data.get("time")) or "",
            reason=_str(data.get("reason")) or "",
            type=_str(data.get("type")) or "",
            sandbox=_str(data.get("sandbox")) or "",
            namespace=_str(data.get("namespace")) or "",
            actor=_str(data.get("actor")),
            message=_str(data.get("message")) or "",
            count=_int(data.get("count")) or 0,
            involved_object=_obj(data.get("involvedObject")),
            raw=dict(data),
        )


# --- agent mode ----------------------------------------------------------------------


@dataclass(frozen=True)
class File:
    """A file written into the sandbox by configure (``path`` is absolute)."""

    path: str
    content: str

    def to_dict(self) -> Json:
        return {"path": self.path, "content": self.content}


@dataclass(frozen=True)
class Start:
    """SSE ``start``: the first event of an invoke."""

    invoke_id: str
    started_at: str


@dataclass(frozen=True)
class Log:
    """SSE ``log``: a chunk of the entrypoint's ``stdout`` or ``stderr``."""

    stream: str
    data: str


@dataclass(frozen=True)
class Exit:
    """SSE ``exit``: the last event. ``exit_code`` is -1 when canceled."""

    invoke_id: str
    exit_code: int
    duration_ms: int
    reason: str


@dataclass(frozen=True)
class Error:
    """SSE ``error``: the stream failed server side; an ``exit`` normally follows."""

    code: str
    message: str


InvokeEvent = Start | Log | Exit | Error
"""The typed events an invoke yields."""


@dataclass(frozen=True)
class ConfigureResult:
    """SSE ``result``: the last event of configure.

    ``skipped`` is true when the files and install command were unchanged, so the install
    did not run again; ``max_concurrent_invokes`` is the cap now in force.
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


def invoke_event(name: str, data: Mapping[str, Any]) -> InvokeEvent | None:
    """The typed event for an SSE event name and its JSON data (``None`` if unknown)."""
    if name == "start":
        return Start(
            invoke_id=_str(data.get("invokeId")) or "", started_at=_str(data.get("startedAt")) or ""
        )
    if name == "log":
        return Log(stream=_str(data.get("stream")) or "stdout", data=_str(data.get("data")) or "")
    if name == "exit":
        code = _int(data.get("exitCode"))
        return Exit(
            invoke_id=_str(data.get("invokeId")) or "",
            exit_code=-1 if code is None else code,
            duration_ms=_int(data.get("durationMs")) or 0,
            reason=_str(data.get("reason")) or "",
        )
    if name == "error":
        return Error(code=_str(data.get("code")) or "", message=_str(data.get("message")) or "")
    return None
