"""The embedded model server: llama.cpp's OpenAI-compatible server (``python -m
llama_cpp.server`` from ``llama-cpp-python[server]``) on a loopback port, its state in
``<data_dir>/llm``. Shared like the embedded stores (``stores.py``): every process using it
holds a shared flock on ``locks/llm-usage.lock``; starting is serialised by
``locks/llm-start.lock``; the last user to close stops it. Started on demand (the first chat
turn that needs it), and started again by the next step that finds it dead.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx
import psutil

from regintel.errors import DependencyUnavailable
from regintel.runtime.locks import FileLock

log = logging.getLogger(__name__)

_MODULE = "llama_cpp.server"


@dataclass(frozen=True)
class ServerState:
    pid: int
    port: int
    model: str

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


class EmbeddedModelServer:
    def __init__(self, directory: Path, model_path: Path, *, alias: str, threads: int = 2,
                 context_tokens: int = 4096, chat_format: str = "chatml",
                 start_timeout_s: float = 180.0) -> None:
        self.directory = directory.resolve()
        self.model_path = model_path.resolve()
        self.alias = alias
        self.threads = threads
        self.context_tokens = context_tokens
        self.chat_format = chat_format
        self.start_timeout_s = start_timeout_s
        self.state_file = self.directory / "server.json"
        self.log_file = self.directory / "server.log"

    def state(self) -> ServerState | None:
        try:
            raw = json.loads(self.state_file.read_text())
            return ServerState(pid=int(raw["pid"]), port=int(raw["port"]),
                               model=str(raw["model"]))
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None

    def alive(self) -> ServerState | None:
        """The running server's state when its process is alive and serves our model. Cheap
        (no request: the server answers nothing while it generates)."""
        state = self.state()
        if state is None or state.model != str(self.model_path):
            return None
        return state if _is_server(state.pid) else None

    def start(self) -> ServerState:
        """Start, or attach to the live server of this directory; returns its state."""
        if (state := self.alive()) is not None:
            return state
        self._stop_stale()
        if importlib.util.find_spec("llama_cpp") is None:  # fail here, not in a child's log
            raise DependencyUnavailable(
                "llama-cpp-python is not installed", hint="pip install 'regintel[local-llm]'")
        self.directory.mkdir(parents=True, exist_ok=True)
        previous = self.state()
        port = previous.port if previous and _port_free(previous.port) else _free_port()
        argv = [sys.executable, "-m", _MODULE, "--model", str(self.model_path),
                "--model_alias", self.alias, "--host", "127.0.0.1", "--port", str(port),
                "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
                "--n_ctx", str(self.context_tokens), "--chat_format", self.chat_format,
                "--verbose", "False"]
        # Detached through a shell (like a daemon): the server belongs to no process of ours,
        # so it outlives this one for the other users, and no Popen waits on it.
        started = subprocess.run(
            ["/bin/sh", "-c", '"$@" >>"$REGINTEL_LLM_LOG" 2>&1 </dev/null & echo $!', "sh",
             *argv], env={**os.environ, "REGINTEL_LLM_LOG": str(self.log_file)},
            capture_output=True, text=True, check=True, start_new_session=True, timeout=30)
        state = ServerState(pid=int(started.stdout.strip()), port=port,
                            model=str(self.model_path))
        self.state_file.write_text(json.dumps(
            {"pid": state.pid, "port": state.port, "model": state.model}))
        deadline = time.monotonic() + self.start_timeout_s
        while not _answers(state):
            if not _is_server(state.pid) or time.monotonic() > deadline:
                self.stop()
                raise DependencyUnavailable("the local model server did not start",
                                            hint=f"see {self.log_file}")
            time.sleep(0.2)
        log.info("local model server pid %s on port %s (%s)", state.pid, port, self.alias)
        return state

    def stop(self) -> None:
        state = self.state()
        if state is not None and _is_server(state.pid):
            try:
                proc = psutil.Process(state.pid)
                proc.terminate()
                proc.wait(timeout=10)
            except psutil.TimeoutExpired:
                proc.kill()
            except psutil.NoSuchProcess:
                pass
        self.state_file.unlink(missing_ok=True)

    def _stop_stale(self) -> None:
        """A live server of another model (or one that hangs) is ended: one per directory."""
        state = self.state()
        if state is not None and _is_server(state.pid):
            log.warning("stopping the local model server pid %s (%s)", state.pid, state.model)
            self.stop()


class LocalModelLease:
    """This process's use of the directory's model server (see the module docstring)."""

    def __init__(self, data_dir: Path, server: EmbeddedModelServer) -> None:
        self.server = server
        locks = data_dir.resolve() / "locks"
        self._usage = FileLock(locks / "llm-usage.lock")
        self._start = FileLock(locks / "llm-start.lock")
        self._held = False
        self.restarts = 0

    def ensure(self) -> ServerState:
        """The live server, started (or started again) when it is not running."""
        if not self._held:
            self._usage.acquire(shared=True)
            self._held = True
        if (state := self.server.alive()) is not None:
            return state
        with self._start:
            if (state := self.server.alive()) is not None:
                return state
            if self.server.state() is not None:
                self.restarts += 1
                log.warning("the local model server is gone; starting it again")
            return self.server.start()

    def status(self) -> str:
        """``ok`` (running), ``idle`` (not started yet: it starts on demand) or ``down``."""
        if self.server.alive() is not None:
            return "ok"
        return "down" if self._held else "idle"

    def close(self) -> None:
        if not self._held:
            return
        self._held = False
        if self._usage.acquire(blocking=False):  # shared → exclusive: the last user
            with self._start:
                self.server.stop()
            log.info("local model server stopped")
        self._usage.release()

    def __enter__(self) -> ServerState:
        return self.ensure()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _is_server(pid: int) -> bool:
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE and _MODULE in " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def _answers(state: ServerState) -> bool:
    try:
        return httpx.get(f"{state.base_url}/models", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
