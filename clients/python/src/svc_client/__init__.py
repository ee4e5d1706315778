"""Python client for the svc sandbox orchestration API.

>>> from svc_client import Client
>>> with Client("http://127.0.0.1:8080", api_key="...") as svc:
...     sandbox = svc.create("demo", template="python")
"""

from ._async.exec import AsyncLogStream
from ._async.files import AsyncArchive, AsyncFiles
from ._async.runs import AsyncAttachStream
from ._async.terminal import AsyncTerminalSession
from ._async.usage import AsyncUsageStream
from ._exec import ExecResult, SandboxLogs
from ._files import Extracted, FileEntry, FileListing, WrittenFile
from ._http import RetryPolicy, __version__
from ._preview import PreviewTicket
from ._runs import DetachedRun, Drop, Run, RunEvent
from ._sse import SSE_MAX_EVENT_SIZE, SSEDecoder, SSEEvent, aiter_sse, iter_sse
from ._sync.exec import LogStream
from ._sync.files import Archive, Files
from ._sync.runs import AttachStream
from ._sync.terminal import TerminalSession
from ._sync.usage import UsageStream
from ._terminal import Template, TerminalTicket, User
from ._usage import Usage, UsageSample
from .aio import AsyncClient, AsyncConfigureStream, AsyncInvokeStream
from .client import Client, ConfigureStream, InvokeStream
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequest,
    ConcurrencyExceeded,
    Conflict,
    FailedDependency,
    NotFound,
    PermissionDenied,
    PolicyViolation,
    RateLimited,
    SandboxFailed,
    ServerError,
    SSEEventTooLarge,
    StreamInterrupted,
    SvcError,
    WaitTimeout,
)
from .models import (
    Accepted,
    AgentConfigureStatus,
    AgentHarness,
    AuditEvent,
    CloneResult,
    Condition,
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
    TemplateRef,
    Violation,
)

__all__ = [
    "SSE_MAX_EVENT_SIZE",
    "APIConnectionError",
    "APIError",
    "Accepted",
    "AgentConfigureStatus",
    "AgentHarness",
    "Archive",
    "AsyncArchive",
    "AsyncAttachStream",
    "AsyncClient",
    "AsyncConfigureStream",
    "AsyncFiles",
    "AsyncInvokeStream",
    "AsyncLogStream",
    "AsyncTerminalSession",
    "AsyncUsageStream",
    "AttachStream",
    "AuditEvent",
    "AuthenticationError",
    "BadRequest",
    "Client",
    "CloneResult",
    "ConcurrencyExceeded",
    "Condition",
    "ConfigureResult",
    "ConfigureStream",
    "Conflict",
    "DetachedRun",
    "Drop",
    "EffectivePolicy",
    "Error",
    "ExecResult",
    "Exit",
    "Extracted",
    "FailedDependency",
    "File",
    "FileEntry",
    "FileListing",
    "Files",
    "ForwardedPort",
    "InvokeEvent",
    "InvokeResult",
    "InvokeStream",
    "Log",
    "LogStream",
    "NotFound",
    "Page",
    "PermissionDenied",
    "Policy",
    "PolicyViolation",
    "PreviewTicket",
    "RateLimited",
    "RetryPolicy",
    "Run",
    "RunEvent",
    "SSEDecoder",
    "SSEEvent",
    "SSEEventTooLarge",
    "Sandbox",
    "SandboxFailed",
    "SandboxLogs",
    "SecretSummary",
    "ServerError",
    "Start",
    "StoredPolicies",
    "StreamInterrupted",
    "SvcError",
    "Template",
    "TemplateRef",
    "TerminalSession",
    "TerminalTicket",
    "Usage",
    "UsageSample",
    "UsageStream",
    "User",
    "Violation",
    "WaitTimeout",
    "WrittenFile",
    "__version__",
    "aiter_sse",
    "iter_sse",
]
