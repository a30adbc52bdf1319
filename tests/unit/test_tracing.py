"""LangSmith tracing is off unless the setting asks for it, whatever the environment says; on,
it needs a key. (No run happens here, so nothing could be sent either way.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.tracers.context import _tracing_v2_is_enabled
from langsmith import run_trees
from langsmith.utils import tracing_is_enabled

from regintel import tracing
from regintel.errors import ConfigurationError
from regintel.settings import TracingSettings


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    yield
    run_trees.configure(enabled=False)


def test_an_environment_switch_alone_does_not_turn_tracing_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test")
    assert tracing.configure(TracingSettings()) is False
    assert not tracing_is_enabled() and not _tracing_v2_is_enabled()


def test_tracing_on_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    monkeypatch.delenv("LANGCHAIN_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="no API key"):
        tracing.configure(TracingSettings(langsmith=True))
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test")
    assert tracing.configure(TracingSettings(langsmith=True, project="audit-team")) is True
    assert tracing_is_enabled() is True
