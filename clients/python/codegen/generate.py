"""Generates the Python client's checked-in code, so that nothing in it is written twice:

* ``src/svc_client/_generated.py``: the models, from api/openapi.json, by
  datamodel-code-generator (frozen dataclasses, snake case fields, enums as ``Literal``;
  ``_model.Model`` reads and writes them);
* ``src/svc_client/_sync/*.py``: the blocking client, from the async one in
  ``src/svc_client/_async/``, by unasync.

    python codegen/generate.py           writes them (`make python-client`)
    python codegen/generate.py --check   exits 1 if any differs (`make check-generated`)

Both tools and ruff (which formats the output) are pinned in requirements-dev.txt; nothing
here reaches the network.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import unasync  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parent
PACKAGE = CLIENT / "src" / "svc_client"
DOCUMENT = CLIENT.parent.parent / "api" / "openapi.json"
BIN = Path(sys.executable).parent

HEADER = (
    "# Generated from {source} by clients/python/codegen/generate.py; do not edit.\n"
    "# Regenerate with `make python-client` (`make check-generated` fails when it drifts).\n"
)

# Schemas written inline in the document that the client names in its public API: each is
# moved into components under this name first, so its class has this name and not one
# derived from a property's. A path goes through properties; "[]" is an array's items.
NAMED_INLINE: dict[str, tuple[str, ...]] = {
    "Phase": ("Sandbox", "status", "phase"),
    "TemplateRef": ("Sandbox", "spec", "templateRef"),
    "Condition": ("Sandbox", "status", "conditions", "[]"),
    "AgentConfigureStatus": ("Sandbox", "status", "agentConfigure"),
    "File": ("ConfigureRequest", "files", "[]"),
    # The MCP message's JSON-RPC error: left inline, the generator would name it "Error" and
    # push the invoke's error event, which the client has always called Error, to "Error1".
    "JsonRpcError": ("JsonRpcMessage", "error"),
}

# Components whose class the client names otherwise (the names it has always had; repr and
# type(...).__name__ show them).
RENAMED = {
    "Error": "ErrorBody",
    "StartEvent": "Start",
    "LogEvent": "Log",
    "ExitEvent": "Exit",
    "ErrorEvent": "Error",
}

DATAMODEL_OPTIONS = [
    "--input-file-type=openapi",
    "--output-model-type=dataclasses.dataclass",
    "--frozen-dataclasses",
    "--snake-case-field",
    "--enum-field-as-literal=all",
    "--target-python-version=3.10",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-schema-description",
    "--use-field-description",
    "--base-class=svc_client._model.Model",
    "--disable-timestamp",
    "--no-formatters",
]

# unasync's own renames (async with/for, __aenter__, AsyncIterator, ...) plus ours: the async
# names of this package whose blocking twin has another name than "Sync" + the rest.
REPLACEMENTS = {
    "AsyncClient": "Client",
    "AsyncInvokeStream": "InvokeStream",
    "AsyncConfigureStream": "ConfigureStream",
    "AsyncExecMixin": "ExecMixin",
    "AsyncLogStream": "LogStream",
    "AsyncRunsMixin": "RunsMixin",
    "AsyncAttachStream": "AttachStream",
    "AsyncEventStream": "EventStream",
    "AsyncUsageStream": "UsageStream",
    "AsyncTerminalMixin": "TerminalMixin",
    "AsyncTerminalSession": "TerminalSession",
    "AsyncPreviewMixin": "PreviewMixin",
    "AsyncUsageMixin": "UsageMixin",
    "AsyncFiles": "Files",
    "AsyncArchive": "Archive",
    "AsyncTokenProvider": "TokenProvider",
    "AsyncBaseTransport": "BaseTransport",
    "AbstractAsyncContextManager": "AbstractContextManager",
    "aiter_sse_response": "iter_sse_response",
    "aiter_bytes": "iter_bytes",
    "_achunks": "_chunks",
    "AsyncData": "Data",
    "aclose": "close",
    "aread": "read",
    "aget_token": "get_token",
    "asyncio": "time",
    "Awaitable": "Blocking",
}


def _resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = doc["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def name_inline_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """The document with RENAMED applied, and each schema of NAMED_INLINE moved into
    components, first (so that it keeps the name and a copy of it elsewhere gets another)."""
    text = json.dumps(document)
    for old, new in RENAMED.items():
        text = text.replace(f'"#/components/schemas/{old}"', f'"#/components/schemas/@{new}"')
    doc: dict[str, Any] = json.loads(
        text.replace('"#/components/schemas/@', '"#/components/schemas/')
    )
    schemas = doc["components"]["schemas"]
    doc["components"]["schemas"] = {RENAMED.get(k, k): v for k, v in schemas.items()}
    named: dict[str, Any] = {}
    for name, (root, *steps) in NAMED_INLINE.items():
        holder, slot = doc["components"]["schemas"], root  # holder[slot] is where we are
        for step in steps:
            node = _resolve(doc, holder[slot])
            holder, slot = (node, "items") if step == "[]" else (node["properties"], step)
        if "$ref" not in holder[slot]:
            named[name] = holder[slot]
            holder[slot] = {"$ref": f"#/components/schemas/{name}"}
    doc["components"]["schemas"] = {**named, **doc["components"]["schemas"]}
    return doc


def _ruff(source: str, target: Path) -> str:
    """``source`` fixed and formatted by ruff as if it were ``target`` (its config)."""
    for args in (["check", "--fix-only", "--exit-zero", "-q"], ["format", "-q"]):
        source = subprocess.run(
            [str(BIN / "ruff"), *args, "--stdin-filename", str(target), "-"],
            input=source,
            capture_output=True,
            text=True,
            check=True,
            cwd=CLIENT,
        ).stdout
    return source


def models(tmp: Path) -> str:
    document = name_inline_schemas(json.loads(DOCUMENT.read_text()))
    source = tmp / "openapi.json"
    source.write_text(json.dumps(document))
    out = tmp / "_generated.py"
    subprocess.run(
        [
            str(BIN / "datamodel-codegen"),
            f"--input={source}",
            f"--output={out}",
            *DATAMODEL_OPTIONS,
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    body = out.read_text().split("\n", 3)[3]  # its own header names the temporary file
    header = HEADER.format(source="api/openapi.json")
    return _ruff(header + body, PACKAGE / "_generated.py")


def sync_client(tmp: Path) -> dict[str, str]:
    """The blocking modules, by name, from the async ones."""
    src, dst = tmp / "_async", tmp / "_sync"
    shutil.copytree(PACKAGE / "_async", src, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(str(p) for p in src.glob("*.py") if p.name != "__init__.py")
    rule = unasync.Rule(f"{src}/", f"{dst}/", additional_replacements=REPLACEMENTS)
    unasync.unasync_files(files, [rule])
    out = {}
    for path in sorted(dst.glob("*.py")):
        header = HEADER.format(source=f"_async/{path.name}")
        out[path.name] = _ruff(header + path.read_text(), PACKAGE / "_sync" / path.name)
    return out


def main(check: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        wanted = {PACKAGE / "_generated.py": models(Path(tmp))}
        for name, text in sync_client(Path(tmp)).items():
            wanted[PACKAGE / "_sync" / name] = text
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
    if check:
        for path in stale:
            print(f"{path.relative_to(CLIENT)} is stale: run `make python-client`", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path])
        print(f"wrote {path.relative_to(CLIENT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
