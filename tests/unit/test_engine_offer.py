"""Which engines a deployment offers its conversations, read from settings and the data
directory alone (nothing installed or started): offline always, the local model when
configured or installed and servable, the model endpoint when configured; one default."""

from __future__ import annotations

from pathlib import Path

import pytest

from regintel import builders
from regintel.builders import offered_engines
from regintel.domain.chat import EngineChoice
from regintel.runtime.models import DEFAULT_MODEL
from regintel.settings import LlmModel, LlmSettings, LocalModelSettings, Settings

ENDPOINT = "http://127.0.0.1:9/v1"


def _offer(data_dir: Path, llm: LlmSettings) -> list[tuple[str, str, bool]]:
    settings = Settings(data_dir=data_dir, llm=llm)
    return [(e.id.value, e.label, e.default) for e in offered_engines(settings)]


@pytest.fixture(autouse=True)
def servable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builders, "can_serve_local", lambda: True)


def test_without_a_model_only_the_offline_engine(tmp_path: Path) -> None:
    assert _offer(tmp_path, LlmSettings()) == [("offline", "Offline engine", True)]


def test_a_configured_endpoint_is_named_by_its_inquiry_model(tmp_path: Path) -> None:
    llm = LlmSettings(base_url=ENDPOINT, models={"small": LlmModel(name="mini"),
                                                 "large": LlmModel(name="maxi")},
                      action_models={"inquire": "large"})
    assert _offer(tmp_path, llm) == [("offline", "Offline engine", False),
                                     ("cloud", "Cloud model · maxi", True)]


def test_an_installed_local_model_is_offered_beside_the_endpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = LlmSettings(base_url=ENDPOINT)
    assert [e for e, _, _ in _offer(tmp_path, llm)] == ["offline", "cloud"]
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / f"{DEFAULT_MODEL}.gguf").write_bytes(b"GGUF")
    assert _offer(tmp_path, llm) == [
        ("offline", "Offline engine", False),
        ("local", f"Local model · {DEFAULT_MODEL}", False),
        ("cloud", "Cloud model · gpt-4o-mini", True)]
    # Without llama-cpp-python nothing could serve it.
    monkeypatch.setattr(builders, "can_serve_local", lambda: False)
    assert [e for e, _, _ in _offer(tmp_path, llm)] == ["offline", "cloud"]


def test_a_configured_local_model_is_offered_and_named(tmp_path: Path) -> None:
    assert _offer(tmp_path, LlmSettings(provider="local")) == [
        ("offline", "Offline engine", False),
        ("local", f"Local model · {DEFAULT_MODEL}", True)]
    by_path = LlmSettings(local=LocalModelSettings(model=str(tmp_path / "my-model.Q4.gguf")))
    assert _offer(tmp_path, by_path) == [("offline", "Offline engine", True),
                                         ("local", "Local model · my-model.Q4", False)]
    assert builders.default_engine(LlmSettings(provider="local", base_url=ENDPOINT)) is \
        EngineChoice.LOCAL
