from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import svc_client as svc
from svc_client import AsyncClient, Client, RetryPolicy
from svc_client._http import retry_delay

from ._support import BASE, sse

SANDBOX = {"metadata": {"name": "sb", "namespace": "ns"}, "status": {"phase": "Running"}}
POLICY = RetryPolicy(max_retries=3, backoff=0.01, max_backoff=0.01)


def scripted(responses: list[httpx.Response | Exception]) -> tuple[list[str], httpx.MockTransport]:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        item = responses[min(len(calls), len(responses)) - 1]
        if isinstance(item, Exception):
            raise item
        return item

    return calls, httpx.MockTransport(handler)


def make(
    transport: httpx.MockTransport, policy: RetryPolicy = POLICY
) -> tuple[Client, list[float]]:
    client = Client(BASE, api_key="k", retry=policy, transport=transport)
    sleeps: list[float] = []
    client._http.sleep = sleeps.append
    return client, sleeps


def busy(retry_after: str | None = "5") -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = {"error": "concurrency_exceeded", "limit": 1, "inflight": 1, "message": "busy"}
    return httpx.Response(429, json=body, headers=headers)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.get("sb"),
        lambda c: c.remove_port("sb", 8080),
        lambda c: c.put_policy(svc.Policy(max_cpu="2")),
    ],
    ids=["GET", "DELETE", "PUT"],
)
def test_idempotent_calls_retry_on_503_and_transport_errors(
    call: Callable[[Client], object],
) -> None:
    ok = httpx.Response(200, json=SANDBOX)
    calls, transport = scripted([httpx.Response(503), httpx.ConnectError("refused"), ok])
    client, sleeps = make(transport)
    call(client)
    assert len(calls) == 3 and len(sleeps) == 2


def test_post_is_not_retried_on_503_or_transport_error() -> None:
    calls, transport = scripted([httpx.Response(503, json={"error": "x", "message": "y"})])
    client, sleeps = make(transport)
    with pytest.raises(svc.ServerError):
        client.create("sb", "default")
    calls2, transport2 = scripted([httpx.ReadTimeout("slow")])
    client2, _ = make(transport2)
    with pytest.raises(svc.APIConnectionError):
        client2.stop("sb")
    assert (len(calls), len(calls2), sleeps) == (1, 1, [])


def test_retries_give_up_after_max_retries() -> None:
    calls, transport = scripted([httpx.Response(503, json={"error": "u", "message": "down"})])
    client, sleeps = make(transport)
    with pytest.raises(svc.ServerError):
        client.get("sb")
    assert len(calls) == 4 and len(sleeps) == 3


def test_4xx_other_than_429_is_not_retried() -> None:
    calls, transport = scripted([httpx.Response(404, json={"error": "not_found", "message": "x"})])
    client, _ = make(transport)
    with pytest.raises(svc.NotFound):
        client.get("sb")
    assert len(calls) == 1


def test_429_is_retried_for_post_honouring_retry_after() -> None:
    exit_ = {"invokeId": "i", "exitCode": 0, "durationMs": 1, "reason": "completed"}
    body = sse("start", {"invokeId": "i", "startedAt": "t"}) + sse("exit", exit_)
    ok = httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})
    calls, transport = scripted([busy("5"), busy("2"), ok])
    client, sleeps = make(transport)
    assert client.run("sb", {"q": 1}).exit_code == 0
    assert calls == ["POST"] * 3 and sleeps == [5.0, 2.0]


def test_429_exhausted_raises_concurrency_exceeded() -> None:
    calls, transport = scripted([busy()])
    client, sleeps = make(transport, RetryPolicy(max_retries=1))
    with pytest.raises(svc.ConcurrencyExceeded) as info:
        client.run("sb")
    assert info.value.retry_after == 5.0 and sleeps == [5.0] and len(calls) == 2


def test_429_retry_after_too_long_or_disabled_raises_at_once() -> None:
    _, transport = scripted([busy("3600")])
    client, sleeps = make(transport)
    with pytest.raises(svc.ConcurrencyExceeded):
        client.run("sb")
    _, transport = scripted([busy("1")])
    client, sleeps2 = make(transport, RetryPolicy(retry_on_429=False))
    with pytest.raises(svc.ConcurrencyExceeded):
        client.run("sb")
    assert sleeps == [] and sleeps2 == []


def test_retry_delay_rules() -> None:
    p = RetryPolicy(max_retries=2, backoff=1, max_backoff=3)
    assert retry_delay(p, "GET", 0, status=502) is not None
    assert retry_delay(p, "GET", 2, status=502) is None
    assert retry_delay(p, "POST", 0, transport_error=True) is None
    assert retry_delay(p, "PUT", 0, transport_error=True) is not None
    assert retry_delay(p, "GET", 0, status=500) is None
    assert retry_delay(p, "POST", 0, status=429, headers={"retry-after": "4"}) == 4.0
    delay = retry_delay(p, "POST", 1, status=429)  # no header: backoff, jittered
    assert delay is not None and 1.0 <= delay <= 2.0
    big = retry_delay(p, "DELETE", 1, status=503)
    assert big is not None and big <= 3


async def test_async_retries_idempotent_and_429() -> None:
    ok = httpx.Response(200, json=SANDBOX)
    calls, transport = scripted([httpx.Response(503), busy("1"), ok])
    sleeps: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async with AsyncClient(BASE, api_key="k", retry=POLICY, transport=transport) as client:
        client._http.sleep = fake_sleep
        assert (await client.get("sb")).phase == "Running"
    assert len(calls) == 3 and sleeps[1] == 1.0
