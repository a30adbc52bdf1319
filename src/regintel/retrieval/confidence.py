"""Confidence tiers. ``assess`` reads them off retrieval scores alone (relevance probabilities;
the thresholds live in settings and were chosen on ObliQA dev fold 0, see ``regintel bench
retrieval``): what a topical comparison and the retrieval benchmark use. An inquiry's answer
is assessed by ``retrieval.calibration`` instead: the calibrated probability that the passages
it cites answer the question, tiered by thresholds fitted with it."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel

from regintel.domain.documents import ChunkHit


class Tier(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Confidence(BaseModel):
    tier: Tier
    score: float


def assess(hits: Sequence[ChunkHit], *, high: float, medium: float) -> Confidence:
    """The tier of the best evidence: one strong passage is what an answer can stand on."""
    top = max((h.score for h in hits), default=0.0)
    tier = Tier.HIGH if top >= high else Tier.MEDIUM if top >= medium else Tier.LOW
    return Confidence(tier=tier, score=round(top, 4))
