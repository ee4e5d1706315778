"""Property-based fuzzing of the HTTP API with schemathesis, driven by ``api/openapi.json``.

Against the service ``SVC_BASE_URL`` names (with SVC_ALICE_KEY), else a stack started here
like the Python integration tests start theirs (``hack/dev.ts`` in a temporary folder, see
``tests/_stack.py``). It creates two sandboxes as alice, then runs schemathesis twice, both
seeded and bounded:

* ``generated``: every operation, every parameter generated (valid and invalid);
* ``targeted``: the same document with ``{id}`` narrowed to the sandboxes created here, so
  the requests reach real objects (stop, resume, ports, configure, invoke, clone …).

Checks: no 500, and no other 5xx than the gateway answers each operation documents (502
the sandbox did not answer, 503 unavailable — only with Retry-After —, 504 the operator did
not publish in time); only documented status codes, content types and response bodies that
conform to the document. Each failure is printed by schemathesis with
a curl command that reproduces it. The last line is the summary:
``fuzz: requests=N failures=F seed=S``; the exit status is non-zero on any failure or
when fewer than FUZZ_MIN_REQUESTS were sent.
"""

from __future__ import annotations

import calendar
import copy
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))

from tests._stack import start_stack  # noqa: E402
from tests.conftest import integration_env, read_env_file  # noqa: E402

SEED = int(os.environ.get("FUZZ_SEED", "20261123"))
# Test cases per operation and phase; with the coverage phase's own cases this sends well
# over 2,000 requests in all (the summary line says how many).
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
MIN_REQUESTS = int(os.environ.get("FUZZ_MIN_REQUESTS", "2000"))
# Per schemathesis run; both runs together stay within 5 minutes on a 2-core machine.
MAX_TIME = int(os.environ.get("FUZZ_MAX_TIME", "130"))
CHECKS = ",".join(
    (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
    )
)
# schemathesis's configuration. 502/503/504 are the API's documented gateway answers (an app
# in a sandbox that does not listen on its forwarded port, a sandbox stopping under the
# fuzzer's own stop calls, a port change on a sandbox the operator does not run);
# status_code_conformance still fails each where its operation does not document it, and
# count() demands Retry-After on a 503. A 500 is always a failure.
CONFIG = """
[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx", "502", "503", "504"]
"""
# The targeted run: only the operations on one sandbox, and never removing the targets,
# which would leave it nothing real to reach.
TARGETED = ("--include-path-regex", r"\{id\}", "--exclude-operation-id", "deleteSandbox")


def main() -> int:
    env = integration_env()
    stack = None
    if not env.get("SVC_BASE_URL"):
        # Port endpoints wait this long for the operator (504 after); a sandbox the fuzzer
        # created with a template that does not exist never publishes its ports.
        os.environ.setdefault("SVC_STATUS_WAIT_SECONDS", "5")
        stack = start_stack(REPO_ROOT, ("SVC_BASE_URL", "SVC_ALICE_KEY"), read_env_file)
        env = {**env, **stack.env}
    try:
        return fuzz(env)
    finally:
        if stack is not None:
            stack.stop()


def fuzz(env: dict[str, str]) -> int:
    base = env["SVC_BASE_URL"].rstrip("/")
    key = env["SVC_ALICE_KEY"]
    namespace = env.get("SVC_NAMESPACE") or "default"
    started = time.time()
    with httpx.Client(base_url=f"{base}/api/v1", headers={"X-API-Key": key}, timeout=30) as api:
        targets = create_targets(api)
        document = json.loads((REPO_ROOT / "api" / "openapi.json").read_text())
        with tempfile.TemporaryDirectory(prefix="svc-fuzz-") as tmp:
            runs = [
                ("generated", document, ()),
                ("targeted", targeted(document, targets, namespace), TARGETED),
            ]
            totals = [
                schemathesis(name, doc, filters, base, key, Path(tmp))
                for name, doc, filters in runs
            ]
        cleanup(api, started)
    requests = sum(r for r, _ in totals)
    failures = sum(f for _, f in totals)
    ok = failures == 0 and requests >= MIN_REQUESTS
    print(
        f"fuzz: requests={requests} failures={failures} seed={SEED} "
        f"({', '.join(f'{n}={r}' for (n, _, _), (r, _) in zip(runs, totals, strict=True))}; "
        f"{time.time() - started:.0f} s) {'OK' if ok else 'FAILED'}",
        flush=True,
    )
    if requests < MIN_REQUESTS:
        print(f"fuzz: fewer than {MIN_REQUESTS} requests were generated", flush=True)
    return 0 if ok else 1


def create_targets(api: httpx.Client) -> list[str]:
    """A code-mode and an agent-mode sandbox of alice's; waits (bounded) for them to run."""
    suffix = secrets.token_hex(3)
    bodies = [
        {"name": f"fuzz-code-{suffix}", "templateRef": {"name": "default"}},
        {"name": f"fuzz-agent-{suffix}", "mode": "agent", "templateRef": {"name": "default"}},
    ]
    for body in bodies:
        res = api.post("/sandboxes", json=body)
        if res.status_code != 201:
            raise RuntimeError(f"creating {body['name']}: {res.status_code} {res.text}")
    names = [str(b["name"]) for b in bodies]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        phases = [api.get(f"/sandboxes/{n}").json().get("status", {}).get("phase") for n in names]
        if all(p == "Running" for p in phases):
            break
        time.sleep(0.5)
    return names


def targeted(document: dict[str, Any], targets: list[str], namespace: str) -> dict[str, Any]:
    """The document with `{id}` one of the targets and `?namespace=` theirs."""
    doc = copy.deepcopy(document)
    for item in doc["paths"].values():
        for op in item.values():
            for param in op.get("parameters", []):
                if param["in"] == "path" and param["name"] == "id":
                    param["schema"] = {"type": "string", "enum": targets}
                if param["in"] == "query" and param["name"] == "namespace":
                    param["schema"] = {"type": "string", "enum": [namespace]}
    return doc


def schemathesis(
    name: str,
    document: dict[str, Any],
    filters: tuple[str, ...],
    base: str,
    key: str,
    tmp: Path,
) -> tuple[int, int]:
    """One seeded, bounded schemathesis run: (requests sent, failures found)."""
    schema = tmp / f"{name}.json"
    schema.write_text(json.dumps(document))
    events = tmp / f"{name}.ndjson"
    config = tmp / "schemathesis.toml"
    config.write_text(CONFIG)
    argv = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(config),
        "run",
        str(schema),
        "--url",
        f"{base}/api/v1",
        "--header",
        f"X-API-Key: {key}",
        "--seed",
        str(SEED),
        "--max-examples",
        str(EXAMPLES),
        "--max-time",
        str(MAX_TIME),
        "--phases",
        "examples,coverage,fuzzing",
        "--checks",
        CHECKS,
        # One worker: with two, hypothesis's lambda descriptions call ast.parse from two
        # threads at once, which CPython 3.11 does not survive ("AST constructor recursion
        # depth mismatch"), and schemathesis reports it as an error of the operation.
        "--workers",
        "1",
        "--request-timeout",
        "60",
        "--continue-on-failure",
        "--suppress-health-check",
        "all",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(events),
        "--output-sanitize",
        "true",
    ]
    argv += filters
    print(f"fuzz: {name}: schemathesis {' '.join(argv[4:])}".replace(key, "[key]"), flush=True)
    code = subprocess.run(argv, check=False, env={**os.environ, "NO_COLOR": "1"}).returncode
    requests, failures = count(events)
    if code != 0 and failures == 0:
        failures = 1  # schemathesis itself failed (errors are failures too)
    print(f"fuzz: {name}: requests={requests} failures={failures} exit={code}", flush=True)
    return requests, failures


def count(events: Path) -> tuple[int, int]:
    """Requests sent and failed test cases, from schemathesis's NDJSON event stream. A case
    fails on any failed check, and on a 503 without Retry-After."""
    requests = 0
    failed: set[str] = set()
    if not events.is_file():
        return 0, 0
    for line in events.read_text().splitlines():
        body = json.loads(line).get("ScenarioFinished")
        if body is None:
            continue
        recorder = body.get("recorder", {})
        interactions = recorder.get("interactions", {})
        requests += len(interactions)
        for case_id, checks in recorder.get("checks", {}).items():
            if any(check.get("status") == "failure" for check in checks):
                failed.add(case_id)
        for case_id, interaction in interactions.items():
            response = interaction.get("response") or {}
            headers = {k.lower() for k in response.get("headers", {})}
            if response.get("status_code") == 503 and "retry-after" not in headers:
                print(f"fuzz: 503 without Retry-After: {interaction.get('request')}", flush=True)
                failed.add(case_id)
    return requests, len(failed)


def cleanup(api: httpx.Client, since: float) -> None:
    """Deletes alice's sandboxes created during the run (the targets and what the fuzzer made)."""
    for _ in range(5):
        res = api.get("/sandboxes", params={"limit": 500})
        if res.status_code != 200:
            return
        fresh = [
            s["metadata"]["name"]
            for s in res.json()["items"]
            if parse_time(s["metadata"].get("creationTimestamp")) >= since - 5
        ]
        if not fresh:
            return
        for name in fresh:
            api.delete(f"/sandboxes/{name}")
        time.sleep(1)


def parse_time(value: str | None) -> float:
    if not value:
        return 0.0
    return float(calendar.timegm(time.strptime(value, "%Y-%m-%dT%H:%M:%SZ")))


if __name__ == "__main__":
    sys.exit(main())
