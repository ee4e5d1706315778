from __future__ import annotations

import svc_client as svc
from svc_client.models import invoke_event, to_camel, to_snake

SANDBOX = {
    "apiVersion": "svc.io/v1alpha1",
    "kind": "Sandbox",
    "metadata": {"name": "demo-clone-1", "namespace": "team-a", "uid": "u1"},
    "spec": {
        "mode": "agent",
        "templateRef": {"name": "default", "kind": "ClusterSandboxTemplate"},
        "createdBy": "alice",
        "cloneFromSnapshot": "demo-snap-1",
        "timeout": "2h",
    },
    "status": {
        "phase": "Running",
        "podName": "demo-clone-1-pod",
        "clonedFrom": "demo",
        "resolvedTemplate": "default",
        "forwardedPorts": [
            {
                "port": 8080,
                "protocol": "http",
                "internalUrl": "http://pf-demo-clone-1-8080.team-a.svc.cluster.local:8080",
                "previewUrl": "https://sandbox-demo-clone-1-8080.preview.test/",
            }
        ],
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "PodReady", "lastTransitionTime": "t"}
        ],
        "agentConfigure": {
            "lastConfiguredAt": "2025-01-01T00:00:00Z",
            "installCommandHash": "abc",
            "entrypoint": ["python", "agent.py"],
            "installExitCode": 0,
            "maxConcurrentInvokes": 4,
        },
    },
}


def test_sandbox_fields_are_snake_case() -> None:
    sb = svc.Sandbox.from_dict(SANDBOX)
    assert (sb.name, sb.namespace, sb.mode, sb.phase) == (
        "demo-clone-1",
        "team-a",
        "agent",
        "Running",
    )
    assert sb.template_ref == svc.TemplateRef("default", "ClusterSandboxTemplate")
    assert (sb.created_by, sb.clone_from_snapshot, sb.cloned_from) == (
        "alice",
        "demo-snap-1",
        "demo",
    )
    assert (sb.pod_name, sb.resolved_template) == ("demo-clone-1-pod", "default")
    [port] = sb.forwarded_ports
    assert port.internal_url.startswith("http://pf-demo-clone-1-8080.")
    assert port.preview_url == "https://sandbox-demo-clone-1-8080.preview.test/"
    assert sb.conditions[0].last_transition_time == "t"
    assert sb.agent_configure == svc.AgentConfigureStatus(
        last_configured_at="2025-01-01T00:00:00Z",
        install_command_hash="abc",
        entrypoint=["python", "agent.py"],
        install_exit_code=0,
        max_concurrent_invokes=4,
    )
    assert sb.spec["timeout"] == "2h" and sb.raw["metadata"]["uid"] == "u1"


def test_sandbox_tolerates_missing_status() -> None:
    sb = svc.Sandbox.from_dict({"metadata": {"name": "x", "namespace": "y"}, "spec": {}})
    assert (sb.phase, sb.mode, sb.forwarded_ports, sb.agent_configure) == (None, "code", [], None)


def test_clone_result_and_accepted() -> None:
    body = {
        "name": "demo-clone-1",
        "namespace": "team-a",
        "snapshot": "demo-snap-1",
        "clonedFrom": "demo",
        "phase": "Pending",
        "message": "poll GET /api/v1/sandboxes/demo-clone-1",
    }
    clone = svc.CloneResult.from_dict(body)
    assert (clone.cloned_from, clone.snapshot, clone.phase) == ("demo", "demo-snap-1", "Pending")
    accepted = svc.Accepted.from_dict({"name": "a", "namespace": "b", "message": "deleting"})
    assert accepted == svc.Accepted("a", "b", "deleting")


def test_policy_round_trips_camel_case_and_omits_unset() -> None:
    wire = {
        "maxSandboxesPerUser": 3,
        "maxSandboxesTotal": 10,
        "maxCpu": "2",
        "maxMemory": "4Gi",
        "maxStorage": 10,
        "maxTimeout": "1h",
        "maxIdleTimeout": "30m",
        "allowedTemplates": ["default"],
        "approvedRegistries": ["docker.io/library/"],
        "maxAgentSandboxes": 2,
        "allowedAgentImages": ["ghcr.io/acme/"],
        "maxConcurrentInvokesPerSandbox": 4,
    }
    policy = svc.Policy.from_dict({**wire, "unknownField": True})
    assert policy.max_concurrent_invokes_per_sandbox == 4
    assert policy.allowed_agent_images == ["ghcr.io/acme/"]
    assert policy.to_dict() == wire
    assert svc.Policy(max_cpu="1").to_dict() == {"maxCpu": "1"}


def test_stored_and_effective_policies() -> None:
    stored = svc.StoredPolicies.from_dict(
        {"cluster": {"maxCpu": "4"}, "namespaces": {"team-a": {"maxTimeout": "1h"}}}
    )
    assert stored.cluster == svc.Policy(max_cpu="4")
    assert stored.namespaces["team-a"].max_timeout == "1h"
    assert svc.StoredPolicies.from_dict({"namespaces": {}}).cluster is None
    eff = svc.EffectivePolicy.from_dict({"namespace": "team-a", "policy": {"maxIdleTimeout": "5m"}})
    assert eff.policy.max_idle_timeout == "5m"


def test_audit_event() -> None:
    event = svc.AuditEvent.from_dict(
        {
            "id": "e1",
            "time": "t",
            "reason": "Invoked",
            "type": "Normal",
            "sandbox": "demo",
            "namespace": "team-a",
            "actor": None,
            "message": "m",
            "count": 2,
            "involvedObject": {"kind": "Sandbox"},
        }
    )
    assert (event.actor, event.count, event.involved_object) == (None, 2, {"kind": "Sandbox"})


def test_invoke_events_are_snake_case() -> None:
    assert invoke_event("start", {"invokeId": "i", "startedAt": "t"}) == svc.Start("i", "t")
    assert invoke_event("log", {"stream": "stderr", "data": "x"}) == svc.Log("stderr", "x")
    exit_ = invoke_event(
        "exit", {"invokeId": "i", "exitCode": -1, "durationMs": 9, "reason": "canceled"}
    )
    assert exit_ == svc.Exit(invoke_id="i", exit_code=-1, duration_ms=9, reason="canceled")
    assert invoke_event("error", {"code": "unreachable", "message": "m"}) == svc.Error(
        "unreachable", "m"
    )
    assert invoke_event("something-new", {}) is None
    result = svc.ConfigureResult.from_dict({"installCommandHash": "h", "installExitCode": 0})
    assert (result.install_command_hash, result.install_exit_code) == ("h", 0)
    assert (result.entrypoint, result.skipped, result.max_concurrent_invokes) == ([], False, None)
    full = svc.ConfigureResult.from_dict(
        {
            "installCommandHash": "sha256:ab",
            "installExitCode": 7,
            "lastConfiguredAt": "2026-01-01T00:00:00Z",
            "entrypoint": ["sh", "/workspace/agent.sh"],
            "maxConcurrentInvokes": 2,
            "skipped": True,
        }
    )
    assert full == svc.ConfigureResult(
        install_command_hash="sha256:ab",
        install_exit_code=7,
        last_configured_at="2026-01-01T00:00:00Z",
        entrypoint=["sh", "/workspace/agent.sh"],
        max_concurrent_invokes=2,
        skipped=True,
    )


def test_agent_harness_wire_form() -> None:
    harness = svc.AgentHarness(
        entrypoint=["python", "a.py"],
        install_command=["pip", "install", "x"],
        working_dir="/workspace",
        env={"A": "1"},
        max_concurrent_invokes=2,
        default_invoke_timeout="5m",
    )
    assert harness.to_dict() == {
        "entrypoint": ["python", "a.py"],
        "installCommand": ["pip", "install", "x"],
        "workingDir": "/workspace",
        "env": [{"name": "A", "value": "1"}],
        "maxConcurrentInvokes": 2,
        "defaultInvokeTimeout": "5m",
    }


def test_case_helpers() -> None:
    assert to_camel("max_concurrent_invokes_per_sandbox") == "maxConcurrentInvokesPerSandbox"
    assert to_snake("maxConcurrentInvokesPerSandbox") == "max_concurrent_invokes_per_sandbox"
