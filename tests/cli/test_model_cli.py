"""``regintel model``: the packaged models listed with their licences, ``pull`` from a
directory laid out like the Hugging Face hub (served over HTTP, named by HF_ENDPOINT, as a
mirror would be) or from a local file, and ``use``."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

from regintel.errors import ConfigurationError
from regintel.runtime import models
from regintel.runtime.models import ModelStore, Packaged
from tests.cli.conftest import RunCli

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TINY_GGUF = b"GGUF" + bytes(range(256)) * 40


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """``<root>/<owner>/<repo>/resolve/<revision>/<file>``, answered with the headers the hub
    client reads (the commit, an ETag); returns the endpoint and the paths requested."""
    root = tmp_path / "hub"
    repo = root / "acme" / "tiny-GGUF" / "resolve" / "main"
    repo.mkdir(parents=True)
    (repo / "tiny-q4_k_m.gguf").write_bytes(TINY_GGUF)
    requested: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def end_headers(self) -> None:
            requested.append(f"{self.command} {self.path}")
            self.send_header("X-Repo-Commit", COMMIT)
            path = Path(self.translate_path(self.path))
            if path.is_file():
                self.send_header("ETag", f'"{hashlib.sha256(path.read_bytes()).hexdigest()}"')
            super().end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requested
    server.shutdown()
    server.server_close()


def _online(endpoint: str) -> dict[str, str]:
    # The local embedder sets HF_HUB_OFFLINE=1 in this process once an earlier test has loaded
    # it, and the CLI's subprocess would inherit it and refuse the mirror.
    return {"HF_ENDPOINT": endpoint, "HF_HUB_OFFLINE": "0"}


def test_list_shows_the_packaged_models_and_their_licences(run_cli: RunCli) -> None:
    done = run_cli("model", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed = {m["name"]: m for m in json.loads(done.stdout)}
    assert set(models.PACKAGED) <= set(listed)
    assert {listed[n]["licence"] for n in models.PACKAGED} == {"Apache-2.0"}
    assert listed[models.DEFAULT_MODEL]["in_use"]


def test_pull_from_a_hub_mirror_then_use(run_cli: RunCli, server_dir: Path,
                                         hub: tuple[str, list[str]]) -> None:
    endpoint, requested = hub
    done = run_cli("model", "pull", "acme/tiny-GGUF", "tiny-q4_k_m.gguf", "--json",
                   **_online(endpoint))
    assert done.returncode == 0, done.stderr
    [pulled] = json.loads(done.stdout)
    assert pulled["name"] == "tiny-q4_k_m" and pulled["source"] == "hf://acme/tiny-GGUF/" \
        "tiny-q4_k_m.gguf"
    assert Path(pulled["path"]).read_bytes() == TINY_GGUF
    assert any(r.startswith("GET /acme/tiny-GGUF/resolve/main/tiny-q4_k_m.gguf")
               for r in requested), requested
    used = run_cli("model", "use", "tiny-q4_k_m", "--json")
    assert used.returncode == 0 and json.loads(used.stdout)[0]["in_use"]
    assert (server_dir / "models" / "current").read_text() == "tiny-q4_k_m"
    assert ModelStore(server_dir / "models").resolve(None) == Path(pulled["path"])


def test_pull_errors_are_clear(run_cli: RunCli, tmp_path: Path,
                               hub: tuple[str, list[str]]) -> None:
    endpoint, _ = hub
    missing = run_cli("model", "pull", "acme/tiny-GGUF", "absent.gguf", **_online(endpoint))
    assert missing.returncode == 4 and "could not download acme/tiny-GGUF/absent.gguf" \
        in missing.stderr
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_text("not a model")
    bad = run_cli("model", "pull", str(not_gguf))
    assert bad.returncode == 3 and "is not a GGUF model file" in bad.stderr
    local = tmp_path / "Local-Model.Q4.gguf"
    local.write_bytes(TINY_GGUF)
    ok = run_cli("model", "pull", str(local), "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)[0]["name"] == "local-model.q4"
    unknown = run_cli("model", "use", "no-such-model")
    assert unknown.returncode == 2 and "no model named 'no-such-model'" in unknown.stderr


def _parts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pieces: list[bytes]) -> list[str]:
    names = []
    for i, piece in enumerate(pieces, 1):
        path = tmp_path / f"part{i}.bin"
        path.write_bytes(piece)
        module = ModuleType(f"tiny_model_part{i}")
        module.get_part_path = lambda path=path: str(path)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
        names.append(module.__name__)
    return names


def test_a_packaged_model_is_assembled_in_order_and_verified(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pieces = [TINY_GGUF[:1000], TINY_GGUF[1000:5000], TINY_GGUF[5000:]]
    modules = tuple(_parts(monkeypatch, tmp_path, pieces))
    good = Packaged(name="tiny", title="Tiny", licence="Apache-2.0", source="x",
                    modules=modules, sha256=hashlib.sha256(TINY_GGUF).hexdigest(),
                    size=len(TINY_GGUF), distribution="tiny-part1 … part3")
    store = ModelStore(tmp_path / "models")
    store.directory.mkdir()
    assert store.assemble(good).read_bytes() == TINY_GGUF
    bad = Packaged(**{**good.__dict__, "name": "tampered", "sha256": "0" * 64})
    with pytest.raises(ConfigurationError, match="does not match its sha256"):
        store.assemble(bad)
    assert not list(store.directory.glob("tampered*"))
