# Generated from api/openapi.json by clients/python/codegen/generate.py; do not edit.
# Regenerate with `make python-client` (`make check-generated` fails when it drifts).
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from svc_client._model import Model

Phase: TypeAlias = Literal["Pending", "Creating", "Running", "Stopped", "Error"]
"""
Pending, Creating, Running, Stopped or Error
"""


@dataclass(frozen=True)
class TemplateRef(Model):
    """
    The template the sandbox is made from. Immutable
    """

    name: str
    """
    Name of the template (a Kubernetes object name)
    """
    kind: Literal["ClusterSandboxTemplate", "SandboxTemplate"] | None = "ClusterSandboxTemplate"
    """
    ClusterSandboxTemplate (cluster-wide, the default) or SandboxTemplate (in the sandbox namespace)
    """


@dataclass(frozen=True)
class Condition(Model):
    type: str
    """
    Kind of the condition: Ready, TemplateResolved, VolumeReady or Stopped
    """
    status: Literal["True", "False", "Unknown"]
    """
    Whether the condition holds: True, False or Unknown
    """
    reason: str
    """
    Why the condition has its status, in CamelCase, such as PodReady
    """
    last_transition_time: str
    """
    When the status of the condition last changed (RFC 3339)
    """
    message: str | None = ""
    """
    The reason for people to read
    """
    observed_generation: int | None = None
    """
    metadata.generation of the Sandbox the condition was set from
    """


@dataclass(frozen=True)
class AgentConfigureStatus(Model):
    """
    What the last configure of an agent sandbox left
    """

    last_configured_at: str | None = None
    """
    When the last configure finished (RFC 3339)
    """
    install_command_hash: str | None = None
    """
    Digest of the install command and files of the last configure; the same again is a no-op
    """
    entrypoint: list[str] | None = None
    """
    Command (argv) that invoke runs, as configured
    """
    install_exit_code: int | None = None
    """
    Exit code of the install command of the last configure
    """
    max_concurrent_invokes: int | None = None
    """
    Cap on parallel invokes in force, already lowered by governance
    """


@dataclass(frozen=True)
class File(Model):
    path: str
    content: str | None = None
    """
    The file as text (UTF-8)
    """
    content_base64: str | None = None
    """
    The file as base64, for binary files
    """


@dataclass(frozen=True)
class JsonRpcError(Model):
    code: int
    message: str
    data: Any | None = None


@dataclass(frozen=True)
class ForwardedPort(Model):
    """
    A forwarded port of a sandbox and where to reach it
    """

    port: int
    """
    Port the sandbox listens on
    """
    protocol: str
    """
    Protocol of the port: http
    """
    internal_url: str
    """
    URL inside the cluster: http://pf-<sandbox>-<port>.<namespace>.svc.cluster.local:<port>
    """
    preview_url: str | None = None
    """
    Public URL, https://sandbox-<sandbox>-<port>.<namespace>.<preview domain>/, when a preview domain is set
    """


@dataclass(frozen=True)
class TemplateRef1(Model):
    name: str
    kind: Literal["ClusterSandboxTemplate", "SandboxTemplate"] | None = "ClusterSandboxTemplate"
    """
    ClusterSandboxTemplate (cluster-wide, the default) or SandboxTemplate (in the sandbox namespace)
    """


@dataclass(frozen=True)
class Image(Model):
    """
    Override of the template's image
    """

    repository: str | None = None
    """
    Image to run instead of the template's; governance may restrict registries
    """


@dataclass(frozen=True)
class Requests(Model):
    """
    What the scheduler reserves for the sandbox container
    """

    cpu: int | str | None = None
    """
    CPU request, in cores: 500m, 1 or 2
    """
    memory: int | str | None = None
    """
    Memory request, in bytes: 512Mi or 2Gi
    """
    ephemeral_storage: int | str | None = None
    """
    Ephemeral storage request (the container's writable filesystem and logs), in bytes: 10Gi
    """


@dataclass(frozen=True)
class Limits(Model):
    """
    What the sandbox container may use at most; each unset limit gets a default
    """

    cpu: int | str | None = None
    """
    CPU limit, in cores: 500m, 1 or 2
    """
    memory: int | str | None = None
    """
    Memory limit, in bytes: 512Mi or 2Gi
    """
    ephemeral_storage: int | str | None = None
    """
    Ephemeral storage limit (the container's writable filesystem and logs), in bytes: 10Gi
    """


@dataclass(frozen=True)
class Resources(Model):
    """
    CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's
    """

    requests: Requests | None = None
    """
    What the scheduler reserves for the sandbox container
    """
    limits: Limits | None = None
    """
    What the sandbox container may use at most; each unset limit gets a default
    """
    storage: int | str | None = None
    """
    Size of the /workspace volume, such as 1Gi
    """


@dataclass(frozen=True)
class EnvItem(Model):
    """
    An environment variable with a literal value
    """

    name: str
    """
    Name of the variable: letters, digits and underscores, not starting with a digit
    """
    value: str | None = ""
    """
    Literal value of the variable; empty when unset
    """


@dataclass(frozen=True)
class Port(Model):
    port: int
    """
    Port the sandbox listens on; not 9000, sandboxd's
    """
    protocol: Literal["http"] | None = "http"
    """
    Protocol of the port; http is the only one
    """


@dataclass(frozen=True)
class EnvItem1(Model):
    name: str
    """
    Name of the environment variable the sandbox sees
    """
    secret_name: str
    """
    Secret in the sandbox namespace that holds the value
    """
    key: str
    """
    Key of the value in that Secret
    """


@dataclass(frozen=True)
class File1(Model):
    secret_name: str
    """
    Secret in the sandbox namespace whose keys become files
    """
    mount_path: str
    """
    Absolute folder the files appear in, read-only
    """


@dataclass(frozen=True)
class Credentials(Model):
    """
    Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events
    """

    env: list[EnvItem1] | None = None
    """
    Environment variables whose values come from Secrets
    """
    files: list[File1] | None = None
    """
    Secrets mounted as files, one file per key
    """


AllowedHost: TypeAlias = str
"""
A host name (pypi.org), or *. and a name (*.pythonhosted.org), with an optional :port
"""


@dataclass(frozen=True)
class Network(Model):
    """
    This sandbox's egress within its template's
    """

    allowed_hosts: list[AllowedHost] | None = None
    """
    Hosts this sandbox may reach, each inside an entry of its template's allowedHosts (the template's egress must be allowlist): a Sandbox narrows its template's list, never widens it. The template's list when unset
    """


@dataclass(frozen=True)
class EnvItem2(Model):
    """
    An environment variable with a literal value
    """

    name: str
    """
    Name of the variable: letters, digits and underscores, not starting with a digit
    """
    value: str | None = ""
    """
    Literal value of the variable; empty when unset
    """


@dataclass(frozen=True)
class Agent(Model):
    """
    The agent harness: what configure installs and invoke runs (mode: agent)
    """

    entrypoint: list[str] | None = None
    """
    Command (argv) run on every invoke, with the request body on its stdin; configure sets it
    """
    install_command: list[str] | None = None
    """
    Command (argv) run once at configure time
    """
    working_dir: str | None = "/workspace"
    """
    Absolute working directory of the install command and the entrypoint
    """
    env: list[EnvItem2] | None = None
    """
    Environment of the install command and the entrypoint
    """
    max_concurrent_invokes: int | None = None
    """
    Cap on parallel invokes of this sandbox; governance may lower it
    """
    default_invoke_timeout: str | None = None
    """
    Wall-clock cap of one invoke, such as 5m; 0 means none
    """


@dataclass(frozen=True)
class Harness(Model):
    """
    Harnesses of the sandbox modes; agent applies to mode: agent
    """

    agent: Agent | None = None
    """
    The agent harness: what configure installs and invoke runs (mode: agent)
    """


@dataclass(frozen=True)
class CreateSandboxRequest(Model):
    template_ref: TemplateRef1
    name: str
    mode: Literal["code", "agent"] | None = "code"
    """
    code: an interactive sandbox; agent: runs a configured entrypoint on demand (configure, invoke). Immutable
    """
    image: Image | None = None
    """
    Override of the template's image
    """
    timeout: str | None = None
    """
    Lifetime cap from the Pod's start, such as 8h; 0 means infinite. The template's when unset
    """
    idle_timeout: str | None = None
    """
    The sandbox stops after this long without an API call, such as 30m. The template's when unset
    """
    created_by: str | None = None
    """
    Ignored: the service sets createdBy to the authenticated caller.
    """
    stopped: bool | None = False
    """
    true stops the sandbox (its Pod goes, its /workspace stays); false starts it again
    """
    resources: Resources | None = None
    """
    CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's
    """
    env: list[EnvItem] | None = None
    """
    Environment variables, added to the template's (these win on a name)
    """
    ports: list[Port] | None = None
    """
    Ports forwarded to a Service (and a preview URL when a preview domain is set)
    """
    credentials: Credentials | None = None
    """
    Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events
    """
    runtime_class_name: str | None = None
    """
    RuntimeClass of the sandbox's Pod instead of the template's; allowed only when it is in the governance policy's allowedRuntimeClasses. Immutable
    """
    network: Network | None = None
    """
    This sandbox's egress within its template's
    """
    harness: Harness | None = None
    """
    Harnesses of the sandbox modes; agent applies to mode: agent
    """
    namespace: str | None = None


@dataclass(frozen=True)
class CloneRequest(Model):
    name: str | None = None
    snapshot_class: str | None = None
    namespace: str | None = None
    created_by: str | None = None
    """
    Ignored: the service sets createdBy to the authenticated caller.
    """


@dataclass(frozen=True)
class CloneResponse(Model):
    sandbox_id: str
    """
    The new sandbox’s id: its name
    """
    name: str
    namespace: str
    snapshot: str
    cloned_from: str
    phase: Literal["Pending"]
    message: str


@dataclass(frozen=True)
class PortRequest(Model):
    port: int
    protocol: Literal["http"] | None = "http"


@dataclass(frozen=True)
class ErrorBody(Model):
    error: str
    message: str


@dataclass(frozen=True)
class DetachedRun(Model):
    invoke_id: str
    events_url: str
    """
    GET it for the run’s events: replayed, then followed to `exit`
    """


@dataclass(frozen=True)
class RunSummary(Model):
    invoke_id: str
    kind: Literal["exec", "invoke"]
    state: Literal["running", "exited"]
    started_at: str
    exit_code: int | None
    """
    null while running
    """
    duration_ms: int | None
    """
    null while running
    """
    detached: bool
    reason: Literal["completed", "canceled", "timeout", "error"] | None = None


@dataclass(frozen=True)
class RunList(Model):
    items: list[RunSummary]


@dataclass(frozen=True)
class DropEvent(Model):
    dropped_bytes: int
    dropped_events: int


@dataclass(frozen=True)
class CreateSecretRequest(Model):
    name: str
    data: dict[str, str]


@dataclass(frozen=True)
class SecretSummary(Model):
    name: str
    namespace: str
    owner: str
    keys: list[str]
    creation_timestamp: str | None = None


@dataclass(frozen=True)
class SecretList(Model):
    items: list[SecretSummary]


Group: TypeAlias = str


@dataclass(frozen=True)
class CreateApiKeyRequest(Model):
    user: str
    groups: list[Group] | None = field(default_factory=list)
    admin: bool | None = False


@dataclass(frozen=True)
class ApiKey(Model):
    id: str
    user: str
    created_at: str
    groups: list[str] | None = field(default_factory=list)
    admin: bool | None = False


@dataclass(frozen=True)
class ApiKeyList(Model):
    items: list[ApiKey]


@dataclass(frozen=True)
class CreatedApiKey(Model):
    id: str
    user: str
    created_at: str
    key: str
    """
    The key itself: shown once, never again
    """
    groups: list[str] | None = field(default_factory=list)
    admin: bool | None = False


@dataclass(frozen=True)
class ExecRequest(Model):
    command: str | list[str]
    timeout: float | str | None = None
    working_dir: str | None = None
    env: dict[str, str] | None = None
    stdin: str | None = None


@dataclass(frozen=True)
class ExecResult(Model):
    exit_code: int
    stdout: str
    stderr: str
    duration_ms: int
    reason: Literal["completed", "canceled", "timeout", "error"]
    truncated: bool
    """
    stdout or stderr was longer than 10 MiB and is cut there
    """


@dataclass(frozen=True)
class ExecCancelRequest(Model):
    invoke_id: str


@dataclass(frozen=True)
class Entry(Model):
    stream: Literal["stdout", "stderr"]
    data: str


@dataclass(frozen=True)
class SandboxLogs(Model):
    entries: list[Entry]
    truncated: bool
    """
    older output was dropped (only the last 1 MiB is kept)
    """
    dropped_bytes: int


@dataclass(frozen=True)
class UsageSample(Model):
    at: str
    """
    When the sample was taken (RFC 3339)
    """
    cpu_cores: float
    """
    CPU used over the second before, in cores
    """
    memory_bytes: float
    """
    Working set: memory used less the inactive page cache
    """


@dataclass(frozen=True)
class Cpu(Model):
    cores: float
    """
    CPU used over the last second, in cores
    """
    throttled_seconds: float
    """
    Time the CPU limit held the sandbox back, since its start
    """
    limit_cores: float | None
    """
    The CPU limit in cores; null: none
    """


@dataclass(frozen=True)
class Memory(Model):
    working_set_bytes: float
    """
    Memory used less the inactive page cache (what the limit counts)
    """
    limit_bytes: float | None
    """
    The memory limit; null: none
    """


@dataclass(frozen=True)
class Workspace(Model):
    used_bytes: float
    """
    Bytes /workspace's files take
    """
    free_bytes: float
    """
    Bytes still free for /workspace
    """
    total_bytes: float
    """
    Size of /workspace's file system
    """


@dataclass(frozen=True)
class Runs(Model):
    """
    Runs alive, by kind
    """

    exec: int
    invoke: int
    configure: int


@dataclass(frozen=True)
class SandboxUsage(Model):
    at: str
    """
    When the figures were read (RFC 3339)
    """
    cpu: Cpu
    memory: Memory
    workspace: Workspace
    processes: int
    """
    Processes in the sandbox, sandboxd among them
    """
    runs: Runs
    """
    Runs alive, by kind
    """
    terminals: int
    """
    Terminal sessions open
    """
    cgroup: bool
    """
    Whether the Pod's cgroup could be read (false: CPU and memory read 0)
    """
    history: list[UsageSample] | None = None
    """
    With `?history=S`: the samples of the last S seconds
    """


@dataclass(frozen=True)
class FileEntry(Model):
    name: str
    path: str
    size: int
    is_dir: bool
    type: Literal["file", "dir", "symlink"]
    mode: str
    """
    Type and permission bits as `ls -l` writes them: `-rw-r--r--`, `drwxr-xr-x`, `lrwxrwxrwx`; setuid, setgid and sticky as `s`/`S` and `t`/`T` in the execute slots
    """
    modified_at: int
    """
    Seconds since the epoch
    """


@dataclass(frozen=True)
class FileListing(Model):
    path: str
    entries: list[FileEntry]


@dataclass(frozen=True)
class FileWritten(Model):
    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class FilePath(Model):
    path: str


@dataclass(frozen=True)
class FileOperation1(Model):
    op: Literal["mkdir"]


@dataclass(frozen=True)
class FileOperation2(Model):
    op: Literal["move"]
    to: str
    """
    An absolute path inside /workspace
    """


FileOperation: TypeAlias = FileOperation1 | FileOperation2


@dataclass(frozen=True)
class ArchiveExtracted(Model):
    files: int
    """
    Files and links written
    """
    bytes: int
    """
    Bytes of the files written
    """


@dataclass(frozen=True)
class TerminalTicket(Model):
    ticket: str
    """
    Opaque; valid once, for this caller and this sandbox
    """
    expires_at: str
    """
    30 seconds after it was issued
    """


@dataclass(frozen=True)
class Metadata(Model):
    name: str
    namespace: str


@dataclass(frozen=True)
class Resources1(Model):
    """
    CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's
    """

    requests: Requests | None = None
    """
    What the scheduler reserves for the sandbox container
    """
    limits: Limits | None = None
    """
    What the sandbox container may use at most; each unset limit gets a default
    """
    storage: int | str | None = None
    """
    Size of the /workspace volume, such as 1Gi
    """


@dataclass(frozen=True)
class EnvItem4(Model):
    name: str
    """
    Name of the environment variable the sandbox sees
    """
    secret_name: str
    """
    Secret in the sandbox namespace that holds the value
    """
    key: str
    """
    Key of the value in that Secret
    """


@dataclass(frozen=True)
class Credentials1(Model):
    """
    Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events
    """

    env: list[EnvItem4] | None = None
    """
    Environment variables whose values come from Secrets
    """
    files: list[File1] | None = None
    """
    Secrets mounted as files, one file per key
    """


@dataclass(frozen=True)
class Network1(Model):
    """
    This sandbox's egress within its template's
    """

    allowed_hosts: list[AllowedHost] | None = None
    """
    Hosts this sandbox may reach, each inside an entry of its template's allowedHosts (the template's egress must be allowlist): a Sandbox narrows its template's list, never widens it. The template's list when unset
    """


@dataclass(frozen=True)
class EnvItem5(Model):
    """
    An environment variable with a literal value
    """

    name: str
    """
    Name of the variable: letters, digits and underscores, not starting with a digit
    """
    value: str | None = ""
    """
    Literal value of the variable; empty when unset
    """


@dataclass(frozen=True)
class Agent1(Model):
    """
    The agent harness: what configure installs and invoke runs (mode: agent)
    """

    entrypoint: list[str] | None = None
    """
    Command (argv) run on every invoke, with the request body on its stdin; configure sets it
    """
    install_command: list[str] | None = None
    """
    Command (argv) run once at configure time
    """
    working_dir: str | None = "/workspace"
    """
    Absolute working directory of the install command and the entrypoint
    """
    env: list[EnvItem5] | None = None
    """
    Environment of the install command and the entrypoint
    """
    max_concurrent_invokes: int | None = None
    """
    Cap on parallel invokes of this sandbox; governance may lower it
    """
    default_invoke_timeout: str | None = None
    """
    Wall-clock cap of one invoke, such as 5m; 0 means none
    """


@dataclass(frozen=True)
class Harness1(Model):
    """
    Harnesses of the sandbox modes; agent applies to mode: agent
    """

    agent: Agent1 | None = None
    """
    The agent harness: what configure installs and invoke runs (mode: agent)
    """


@dataclass(frozen=True)
class Spec(Model):
    """
    What the user asks for: the template, mode, limits, environment and ports of the sandbox
    """

    template_ref: TemplateRef
    mode: Literal["code", "agent"] | None = "code"
    """
    code: an interactive sandbox; agent: runs a configured entrypoint on demand (configure, invoke). Immutable
    """
    image: Image | None = None
    """
    Override of the template's image
    """
    timeout: str | None = None
    """
    Lifetime cap from the Pod's start, such as 8h; 0 means infinite. The template's when unset
    """
    idle_timeout: str | None = None
    """
    The sandbox stops after this long without an API call, such as 30m. The template's when unset
    """
    created_by: str | None = None
    """
    The user who created the sandbox, set from the authenticated user by the API and the webhook. Immutable
    """
    clone_from_snapshot: str | None = None
    """
    VolumeSnapshot a clone was hydrated from. Immutable
    """
    stopped: bool | None = False
    """
    true stops the sandbox (its Pod goes, its /workspace stays); false starts it again
    """
    resources: Resources1 | None = None
    """
    CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's
    """
    env: list[EnvItem2] | None = None
    """
    Environment variables, added to the template's (these win on a name)
    """
    ports: list[Port] | None = None
    """
    Ports forwarded to a Service (and a preview URL when a preview domain is set)
    """
    credentials: Credentials1 | None = None
    """
    Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events
    """
    runtime_class_name: str | None = None
    """
    RuntimeClass of the sandbox's Pod instead of the template's; allowed only when it is in the governance policy's allowedRuntimeClasses. Immutable
    """
    network: Network1 | None = None
    """
    This sandbox's egress within its template's
    """
    harness: Harness1 | None = None
    """
    Harnesses of the sandbox modes; agent applies to mode: agent
    """


@dataclass(frozen=True)
class Status(Model):
    """
    What the operator observed; written through the status subresource only
    """

    phase: Phase | None = None
    message: str | None = None
    """
    What the sandbox is doing or why it failed, for people to read
    """
    pod_name: str | None = None
    """
    Name of the sandbox Pod
    """
    observed_generation: int | None = None
    """
    metadata.generation of the Sandbox the operator last acted on
    """
    conditions: list[Condition] | None = None
    """
    Conditions of the sandbox, one per type (Ready tells whether sandboxd answers)
    """
    cloned_from: str | None = None
    """
    Name of the source sandbox, on a clone
    """
    forwarded_ports: list[ForwardedPort] | None = None
    """
    One entry per forwarded port
    """
    resolved_template: str | None = None
    """
    The template the sandbox resolved to, as <kind>/<name>
    """
    agent_configure: AgentConfigureStatus | None = None
    last_activity_at: str | None = None
    """
    When the sandbox was last seen active, for idleTimeout (RFC 3339)
    """
    active_reasons: (
        list[Literal["api", "request", "exec", "invoke", "configure", "terminal", "cpu"]] | None
    ) = None
    """
    Why the sandbox was active when last looked at; empty when it was idle
    """


@dataclass(frozen=True)
class Sandbox(Model):
    sandbox_id: str
    """
    The sandbox’s id in API paths: its name
    """
    name: str
    namespace: str
    api_version: Literal["svc.io/v1alpha1"]
    kind: Literal["Sandbox"]
    metadata: Metadata
    spec: Spec
    """
    What the user asks for: the template, mode, limits, environment and ports of the sandbox
    """
    status: Status
    """
    What the operator observed; written through the status subresource only
    """


@dataclass(frozen=True)
class SandboxList(Model):
    items: list[Sandbox]
    continue_: str | None = None


@dataclass(frozen=True)
class Accepted(Model):
    name: str
    namespace: str
    message: str


@dataclass(frozen=True)
class ConcurrencyExceeded(Model):
    error: Literal["concurrency_exceeded"]
    limit: int
    inflight: int
    message: str


@dataclass(frozen=True)
class CancelAccepted(Model):
    invoke_id: str
    status: Literal["canceling"]


@dataclass(frozen=True)
class Violation(Model):
    code: str
    message: str


@dataclass(frozen=True)
class PolicyViolation(Model):
    error: Literal["policy_violation"]
    violations: list[Violation]


@dataclass(frozen=True)
class PreviewTicket(Model):
    url: str
    """
    The preview path with `?ticket=`, relative to the API's host: open it in a browser. Its first GET answers 303 with the preview's cookie and the same URL without the ticket
    """
    expires_at: str
    """
    30 seconds after it was issued; the ticket is valid once
    """


@dataclass(frozen=True)
class Template(Model):
    name: str
    kind: Literal["ClusterSandboxTemplate", "SandboxTemplate"]
    description: str
    """
    The svc.io/description (or kubernetes.io/description) annotation; empty without
    """
    image: str
    resource_version: str
    spec: dict[str, Any]
    """
    The template's spec as stored
    """
    ready_members: int
    """
    Warm-pool members ready in the namespace for this template (SandboxWarmPools' readyReplicas): a create that fits one starts at once
    """


@dataclass(frozen=True)
class TemplateList(Model):
    templates: list[Template]


@dataclass(frozen=True)
class CurrentUser(Model):
    sub: str
    """
    The user name the API knows the caller by (owner of their sandboxes)
    """
    name: str
    """
    The token's name claim; the user name without one
    """
    email: str | None
    """
    The token's email claim; null without one
    """
    groups: list[str]
    is_admin: bool


@dataclass(frozen=True)
class PortList(Model):
    ports: list[ForwardedPort]


OpenApiDocument: TypeAlias = dict[str, Any]


AllowedTemplate: TypeAlias = str


ApprovedRegistry: TypeAlias = str


AllowedAgentImage: TypeAlias = str


AllowedRuntimeClass: TypeAlias = str


AllowedEgressHost: TypeAlias = str
"""
A host name (pypi.org), or *. and a name (*.pythonhosted.org), with an optional :port
"""


@dataclass(frozen=True)
class Policy(Model):
    max_sandboxes_per_user: int | None = None
    max_sandboxes_total: int | None = None
    max_cpu: int | str | None = None
    max_memory: int | str | None = None
    max_storage: int | str | None = None
    max_ephemeral_storage: int | str | None = None
    max_timeout: str | None = None
    max_idle_timeout: str | None = None
    allowed_templates: list[AllowedTemplate] | None = None
    approved_registries: list[ApprovedRegistry] | None = None
    max_agent_sandboxes: int | None = None
    allowed_agent_images: list[AllowedAgentImage] | None = None
    max_concurrent_invokes_per_sandbox: int | None = None
    keep_clone_snapshots: bool | None = None
    allowed_runtime_classes: list[AllowedRuntimeClass] | None = None
    default_runtime_class: str | None = None
    allow_root_sandboxes: bool | None = None
    allowed_egress_hosts: list[AllowedEgressHost] | None = None


@dataclass(frozen=True)
class StoredPolicies(Model):
    namespaces: dict[str, Policy]
    cluster: Policy | None = None


@dataclass(frozen=True)
class EffectivePolicy(Model):
    namespace: str
    policy: Policy


@dataclass(frozen=True)
class JsonRpcMessage(Model):
    jsonrpc: Literal["2.0"]
    id: str | int | None = None
    method: str | None = None
    params: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: JsonRpcError | None = None


McpMessages: TypeAlias = JsonRpcMessage | list[JsonRpcMessage]


@dataclass(frozen=True)
class AuditEgress(Model):
    host: str
    port: int
    decision: Literal["allowed", "denied"]
    connections: int
    """
    Connections the record stands for: 1, or, with summary, those after the first in a window
    """
    summary: bool
    """
    A window's like connections after the first, summed
    """
    bytes_out: int
    """
    Bytes from the sandbox to the host
    """
    bytes_in: int
    """
    Bytes from the host back
    """
    duration_ms: int
    reason: str | None
    """
    The line a refused tool saw; null when allowed
    """


@dataclass(frozen=True)
class AuditRecord(Model):
    id: str
    time: str
    reason: str
    type: str
    sandbox: str
    namespace: str
    actor: str | None
    message: str
    count: int
    involved_object: dict[str, Any]
    egress: AuditEgress | None = None
    """
    On the egress gateway's records (EgressAllowed, EgressDenied): the decision as fields
    """


@dataclass(frozen=True)
class AuditList(Model):
    items: list[AuditRecord]
    continue_: str | None = None


@dataclass(frozen=True)
class Start(Model):
    invoke_id: str
    started_at: str


@dataclass(frozen=True)
class Log(Model):
    stream: Literal["stdout", "stderr"]
    data: str


@dataclass(frozen=True)
class Exit(Model):
    invoke_id: str
    exit_code: int
    duration_ms: int
    reason: Literal["completed", "canceled", "timeout", "error"]


@dataclass(frozen=True)
class Error(Model):
    code: str
    message: str


@dataclass(frozen=True)
class ConfigureRequest(Model):
    entrypoint: list[str]
    """
    An argv: the program, then its arguments
    """
    files: list[File] | None = field(default_factory=list)
    install_command: list[str] | None = None
    """
    An argv: the program, then its arguments
    """


@dataclass(frozen=True)
class ConfigureResult(Model):
    install_command_hash: str
    install_exit_code: int
    last_configured_at: str
    entrypoint: list[str]
    max_concurrent_invokes: int
    skipped: bool


@dataclass(frozen=True)
class CancelRequest(Model):
    invoke_id: str
