"""The whole service for one pytest session: ``hack/dev.ts`` (what ``make dev`` runs)
with a state folder of its own and a free port, so it never meets a developer's
``make dev`` (which keeps ``.dev/`` and port 8080).

:func:`start_stack` launches it and waits for its env file and ``/healthz``;
:meth:`Stack.stop` sends SIGINT (dev.ts then stops devnode, the operator, the API and the
control plane), waits a bounded time, kills the process group if it must, and removes the
state folder. Everything listens on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

START_TIMEOUT = float(os.environ.get("SVC_STACK_START_TIMEOUT", "180"))
STOP_TIMEOUT = float(os.environ.get("SVC_STACK_STOP_TIMEOUT", "60"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def kube_assets(repo_root: Path) -> str:
    """``SVC_KUBE_ASSETS``: from the environment, else ``hack/kube/build.sh`` (cached)."""
    if os.environ.get("SVC_KUBE_ASSETS"):
        return os.environ["SVC_KUBE_ASSETS"]
    out = subprocess.run(
        ["bash", str(repo_root / "hack" / "kube" / "build.sh")],
        cwd=repo_root,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip().splitlines()[-1]


@dataclass
class Stack:
    process: subprocess.Popen[bytes]
    state_dir: Path
    log_path: Path
    env: dict[str, str]

    def log_tail(self, lines: int = 40) -> str:
        """The end of dev.ts's output and of each component's log (for failure messages)."""
        parts: list[str] = []
        logs = [*self.state_dir.glob("logs/*.log"), *self.state_dir.glob("cluster/*.log")]
        for path in [self.log_path, *sorted(logs)]:
            try:
                text = path.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            parts.append(f"--- {path.name} ---\n" + "\n".join(text))
        return "\n".join(parts)

    def stop(self) -> None:
        """SIGINT, wait up to STOP_TIMEOUT s, then SIGKILL the process group; remove the state."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
                try:
                    self.process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    # Still unreaped, so its process group is ours: dev.ts and its children.
                    _killpg(self.process.pid)
                    self.process.wait(timeout=10)
        finally:
            _unmount_under(self.state_dir)
            shutil.rmtree(self.state_dir, ignore_errors=True)
            self.log_path.unlink(missing_ok=True)


def _unmount_under(folder: Path) -> None:
    """Lazily unmount what devnode may have left mounted in the state folder (overlay
    roots of Pods it did not get to stop), so the folder can be removed."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return
    prefix = f"{folder}/"
    points = [m.split()[1] for m in mounts if len(m.split()) > 1]
    for point in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


def _killpg(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def start_stack(
    repo_root: Path, required: tuple[str, ...], read_env: Callable[[Path], dict[str, str]]
) -> Stack:
    """Start ``hack/dev.ts`` in a fresh temporary state folder; return once it answers."""
    state_dir = Path(tempfile.mkdtemp(prefix="svc-pyit-"))
    log_path = state_dir.with_name(state_dir.name + ".log")
    port = free_port()
    env = {**os.environ, "SVC_KUBE_ASSETS": kube_assets(repo_root)}
    node = repo_root / "node_modules" / ".bin" / "node"
    argv = [str(node), "hack/dev.ts", "--dir", str(state_dir), "--port", str(port)]
    if shutil.which("setpriv"):
        # dev.ts gets SIGTERM if pytest dies without its teardown (it then stops the rest).
        argv = ["setpriv", "--pdeathsig", "TERM", "--", *argv]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            argv,
            cwd=repo_root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    stack = Stack(process, state_dir, log_path, {})
    try:
        stack.env = _wait_ready(stack, required, read_env)
    except BaseException:
        tail = stack.log_tail()
        stack.stop()
        if tail:
            print(f"svc stack failed to start; its logs:\n{tail}")
        raise
    return stack


def _wait_ready(
    stack: Stack, required: tuple[str, ...], read_env: Callable[[Path], dict[str, str]]
) -> dict[str, str]:
    env_file = stack.state_dir / "env"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        code = stack.process.poll()
        if code is not None:
            raise RuntimeError(f"hack/dev.ts exited with {code} before the service was ready")
        env = read_env(env_file) if env_file.is_file() else {}
        if all(env.get(k) for k in required) and _healthy(env):
            return env
        if time.monotonic() > deadline:
            raise TimeoutError(f"the service did not start within {START_TIMEOUT:.0f} s")
        time.sleep(0.25)


def _healthy(env: Mapping[str, str]) -> bool:
    try:
        return httpx.get(f"{env['SVC_BASE_URL']}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
