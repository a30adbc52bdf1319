"""A document's obligation register as the API returns it."""

from __future__ import annotations

from pydantic import BaseModel

from regintel.domain.coverage import ObligationRow


class ObligationsPublic(BaseModel):
    data: list[ObligationRow]
    count: int
