from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from regintel.errors import ConfigurationError
from regintel.settings import Settings, resolve_secret_key


def test_env_prefix_and_nested_groups(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REGINTEL_GRAPH_URL", "falkor://graph.internal:6379")
    monkeypatch.setenv("REGINTEL_DATABASE__POOL_SIZE", "7")
    monkeypatch.setenv("REGINTEL_LLM__ACTION_MODELS", '{"audit": "large"}')
    settings = Settings()
    assert settings.data_dir == tmp_path
    assert settings.pg_dir == tmp_path / "pg"
    assert settings.graph_url == "falkor://graph.internal:6379"
    assert settings.database.pool_size == 7
    assert settings.llm.action_models == {"audit": "large"}
    assert settings.database_url is None


def test_defaults_are_embedded_and_offline() -> None:
    settings = Settings()
    assert settings.data_dir == Path(".regintel")
    assert settings.database_url is None and settings.graph_url is None
    assert settings.llm.base_url is None
    assert settings.embedding.dimension == 384
    assert settings.upload.max_bytes == 50 * 1024 * 1024


def test_unknown_settings_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGINTEL_DATABASE__POOLSIZE", "7")  # typo
    with pytest.raises(ValidationError):
        Settings()


def test_unknown_graph_scheme_is_refused() -> None:
    with pytest.raises(ValidationError, match="unsupported graph URL scheme"):
        Settings(graph_url="http://example.org")


def test_secret_key_required_outside_demo(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="REGINTEL_SECRET_KEY is not set"):
        resolve_secret_key(Settings(data_dir=tmp_path))


@pytest.mark.parametrize("weak", ["changeme", "secret", "short-but-random-x9"])
def test_placeholder_or_short_secret_is_refused(tmp_path: Path, weak: str) -> None:
    with pytest.raises(ConfigurationError, match="placeholder or shorter"):
        resolve_secret_key(Settings(data_dir=tmp_path, secret_key=SecretStr(weak)))


def test_strong_secret_is_used(tmp_path: Path) -> None:
    key = "k" * 20 + "0123456789abcdef"
    assert resolve_secret_key(Settings(data_dir=tmp_path, secret_key=SecretStr(key))) == key


def test_demo_generates_and_keeps_a_secret(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, demo=True)
    first = resolve_secret_key(settings)
    assert len(first) >= 32
    assert resolve_secret_key(settings) == first  # survives restarts: sessions stay valid
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
