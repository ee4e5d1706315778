from __future__ import annotations

from typing import Any

import httpx
import pytest

import svc_client as svc
from svc_client import Client, RetryPolicy

from ._support import BASE

NO_RETRY = RetryPolicy(max_retries=0)


def fail_with(status: int, body: Any, headers: dict[str, str] | None = None) -> Client:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(status, text=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    return Client(BASE, api_key="k", retry=NO_RETRY, transport=httpx.MockTransport(handler))


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "invalid_request", svc.BadRequest),
        (401, "unauthenticated", svc.AuthenticationError),
        (403, "forbidden", svc.PermissionDenied),
        (404, "not_found", svc.NotFound),
        (409, "conflict", svc.Conflict),
        (424, "not_configured", svc.FailedDependency),
        (429, "too_many", svc.RateLimited),
        (500, "internal", svc.ServerError),
        (502, "bad_gateway", svc.ServerError),
        (504, "timeout", svc.ServerError),
        (418, "teapot", svc.APIError),
    ],
)
def test_status_maps_to_exception_with_body(status: int, code: str, cls: type[Exception]) -> None:
    body = {"error": code, "message": f"msg {status}", "detail": 1}
    with fail_with(status, body) as client, pytest.raises(cls) as info:
        client.get("sb")
    err = info.value
    assert type(err) is cls
    assert isinstance(err, svc.APIError) and isinstance(err, svc.SvcError)
    assert (err.status_code, err.code, err.message) == (status, code, f"msg {status}")
    assert err.body == body
    assert f"msg {status}" in str(err)


def test_bad_request_fields() -> None:
    body = {
        "error": "invalid_request",
        "message": "m",
        "fields": [{"path": "name", "message": "x"}],
    }
    with fail_with(400, body) as client, pytest.raises(svc.BadRequest) as info:
        client.create("Bad_Name", "default")
    assert info.value.fields == [{"path": "name", "message": "x"}]


def test_policy_violation_carries_violations() -> None:
    body = {
        "error": "policy_violation",
        "violations": [
            {"code": "template_not_allowed", "message": "template gpu is not allowed"},
            {"code": "timeout_exceeded", "message": "timeout 2h above 1h"},
        ],
    }
    with fail_with(403, body) as client, pytest.raises(svc.PolicyViolation) as info:
        client.create("sb", "gpu")
    err = info.value
    assert isinstance(err, svc.PermissionDenied)
    assert [v.code for v in err.violations] == ["template_not_allowed", "timeout_exceeded"]
    assert err.violations[0] == svc.Violation("template_not_allowed", "template gpu is not allowed")
    assert "template_not_allowed" in str(err)


def test_concurrency_exceeded_carries_retry_after_limit_inflight() -> None:
    body = {"error": "concurrency_exceeded", "limit": 2, "inflight": 2, "message": "busy"}
    with (
        fail_with(429, body, {"Retry-After": "5"}) as client,
        pytest.raises(svc.ConcurrencyExceeded) as info,
    ):
        list(client.invoke("sb", "x"))
    err = info.value
    assert isinstance(err, svc.RateLimited)
    assert (err.retry_after, err.limit, err.inflight) == (5.0, 2, 2)


def test_non_json_error_body_keeps_text() -> None:
    with fail_with(502, "<html>bad gateway</html>") as client, pytest.raises(svc.ServerError) as e:
        client.get("sb")
    assert e.value.body == {} and e.value.code is None
    assert e.value.message == "<html>bad gateway</html>"


def test_connection_error_is_wrapped() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    transport = httpx.MockTransport(handler)
    client = Client(BASE, api_key="k", retry=NO_RETRY, transport=transport)
    with pytest.raises(svc.APIConnectionError, match="refused"):
        client.get("sb")
