"""What the guardrails return: PII findings, masked text, and the input verdict."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BlockCategory = Literal["injection", "toxicity"]
# Found, but left in the text by masking: a full date is rarely identifying in a compliance
# question and often the point of it ("the amendments of 31/12/2023").
UNMASKED = frozenset({"DATE_TIME"})


class PiiFinding(BaseModel):
    """One span of personal data; ``text`` is ``source[start:end]``."""

    model_config = ConfigDict(frozen=True)

    entity_type: str
    start: int
    end: int
    score: float
    text: str


class MaskedText(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The input with each finding replaced by <ENTITY_TYPE>.")
    findings: tuple[PiiFinding, ...] = ()


class InputVerdict(BaseModel):
    """The input guardrail's decision on one user message. PII is masked, never blocked."""

    model_config = ConfigDict(frozen=True)

    blocked: bool
    category: BlockCategory | None = None
    response: str | None = Field(
        None, description="The early answer shown instead of running the pipeline.")
    masked_text: str
    pii: list[PiiFinding] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list)
