"""Saying a server's address only once it answers: a thread polls its health route and calls
back with the URL a browser can open (a wildcard bind address is opened as loopback)."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable

POLL_S = 0.25
GIVE_UP_S = 600.0  # the server failing to start is reported by the server itself
_WILDCARDS = {"0.0.0.0", "::", ""}  # noqa: S104 (recognised, to open loopback instead)


def browser_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in _WILDCARDS else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def answers(url: str, timeout_s: float = 2.0) -> bool:
    """True when ``url``/healthz gives any HTTP answer (503 while a store is down is still the
    server answering: the page opens and says what is wrong)."""
    try:
        # S310: the URL is always http://, built by browser_url, never a scheme from a user.
        with urllib.request.urlopen(f"{url}/healthz", timeout=timeout_s):  # noqa: S310
            return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, OSError):
        return False


def announce_when_answering(host: str, port: int, on_ready: Callable[[str], None]) -> None:
    """Calls ``on_ready(url)`` from a daemon thread once the server at host:port answers."""
    url = browser_url(host, port)

    def wait() -> None:
        deadline = time.monotonic() + GIVE_UP_S
        while time.monotonic() < deadline:
            if answers(url):
                on_ready(url)
                return
            time.sleep(POLL_S)

    threading.Thread(target=wait, name="regintel-ready", daemon=True).start()
