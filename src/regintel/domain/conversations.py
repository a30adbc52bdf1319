"""Conversations and their memory: messages, the rolling summary and the Q&A index."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from regintel.domain.chat import EngineChoice

Role = Literal["user", "assistant", "system", "tool"]


class Conversation(BaseModel):
    id: UUID
    title: str
    user_id: UUID | None = None
    project_id: UUID | None = None
    engine: EngineChoice | None = None  # None: the deployment's default engine
    created_at: datetime
    last_message_at: datetime | None = None


class StoredMessage(BaseModel):
    id: UUID
    role: Role
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime


class QaEntry(BaseModel):
    """One line per exchange (Layer 3): what was asked, the gist of the answer, its topics and
    the documents it cited, so "what did we discuss about X" can be answered."""

    exchange_id: UUID = Field(description="The assistant message that answered.")
    question: str
    answer_digest: str
    topics: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    created_at: datetime


class Memory(BaseModel):
    """What a turn starts from: the recent window, the rolling summary, and the message count."""

    recent: list[StoredMessage] = Field(default_factory=list)
    summary: str = ""
    summary_covers: int = 0
    message_count: int = 0
