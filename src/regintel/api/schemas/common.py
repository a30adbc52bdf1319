"""What every request body shares."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

# What pydantic's ``strip_whitespace`` removes (Unicode White_Space), spelled out: JSON
# Schema's ``\s`` (ECMA-262) is another set.
_SPACE = r"\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_SOLID = f"[^{_SPACE}]"


def not_blank(min_length: int = 1) -> Any:
    """Schema for a stripped string that must keep ``min_length`` characters: pydantic's schema
    shows only ``minLength``, so a blank string would look valid; this pattern says it is not.
    Goes beside ``StringConstraints(strip_whitespace=True, min_length=...)``."""
    solid = _SOLID if min_length <= 1 else f"{_SOLID}[\\s\\S]{{{min_length - 2},}}{_SOLID}"
    return Field(json_schema_extra={"pattern": solid})


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
