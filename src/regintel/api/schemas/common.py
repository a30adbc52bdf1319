"""What every request body shares."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


class RequestBody(BaseModel):
    """Unknown fields are refused (a stray ``tenant_id`` is an error, not silently ignored),
    and so are NUL characters, which no Postgres text column can store."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        if _has_nul(data):
            raise ValueError("text must not contain NUL characters")
        return data
