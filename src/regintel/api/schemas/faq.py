"""FAQ entries: fixed answers a tenant's admins set for recurring questions."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, StringConstraints

from regintel.api.schemas.common import RequestBody, not_blank


class FaqCreate(RequestBody):
    question: Annotated[str, StringConstraints(strip_whitespace=True,
                                               min_length=3, max_length=1000), not_blank(3)]
    answer: Annotated[str, StringConstraints(strip_whitespace=True,
                                             min_length=1, max_length=8000), not_blank(1)]


class FaqPublic(BaseModel):
    id: UUID
    question: str
    answer: str


class FaqsPublic(BaseModel):
    data: list[FaqPublic]
    count: int
