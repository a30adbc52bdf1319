"""Conversations, their messages, chat turns and usage."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from regintel.api.schemas.common import RequestBody, not_blank
from regintel.domain.chat import MAX_MESSAGE_CHARS, Action, EngineChoice

Title = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]


_ENGINE = ("The engine its turns run on, one of `GET /api/chat/engines` (null: the "
           "deployment's default).")


class ConversationCreate(RequestBody):
    title: Title = ""
    project_id: UUID | None = None
    engine: EngineChoice | None = Field(None, description=_ENGINE)


class ConversationUpdate(RequestBody):
    """A new title, another engine, or both; a field left out is left as it is."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                            max_length=200), not_blank(1)] | None = None
    engine: EngineChoice | None = Field(None, description=_ENGINE)

    @model_validator(mode="after")
    def _something_to_change(self) -> ConversationUpdate:
        if not self.model_fields_set:
            raise ValueError("give a `title`, an `engine` or both")
        return self


class ConversationPublic(BaseModel):
    id: UUID
    title: str = Field(description="From the first message unless renamed.")
    project_id: UUID | None = None
    engine: EngineChoice | None = Field(None, description=_ENGINE)
    created_at: datetime
    last_message_at: datetime | None = None


class ConversationsPublic(BaseModel):
    data: list[ConversationPublic]
    count: int


class MessagePublic(BaseModel):
    id: UUID
    role: Literal["user", "assistant", "system", "tool"]
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict,
                                     description="For answers: the stored response contract.")
    created_at: datetime


class MessagesPublic(BaseModel):
    data: list[MessagePublic]
    count: int


class ChatCreate(RequestBody):
    """One chat turn, or (with ``resume``) the user's choice for a pending question."""

    # What the service refuses, said in the schema: a turn is either a question (with a
    # non-blank message) or an answer to the pending question of a thread.
    model_config = ConfigDict(json_schema_extra={"anyOf": [
        {"required": ["message"], "properties": {"message": {"pattern": r"\S"}},
         "not": {"required": ["resume"]}},
        {"required": ["resume", "thread_id"],
         "properties": {"resume": {"type": "string"}, "thread_id": {"type": "string"}}},
    ]})

    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)] = ""
    thread_id: UUID | None = Field(None, description="Omit to start a new conversation.")
    tagged_doc_ids: Annotated[list[UUID], Field(max_length=50)] = Field(default_factory=list)
    tagged_set_ids: Annotated[list[UUID], Field(max_length=50)] = Field(default_factory=list)
    action: Action | None = None
    enable_web_search: bool = False
    use_memory: bool = True
    project_id: UUID | None = None
    resume: Annotated[str, Field(min_length=1, max_length=2000)] | None = Field(
        None, description="Answer to the pending question of `thread_id` (an option id from "
        "the last `meta.needs_input`, or free text); resumes the interrupted turn.")
    source_text: Annotated[str, Field(max_length=200_000)] | None = Field(
        None, description="Pasted text to audit instead of a document.")

    @model_validator(mode="after")
    def _resume_needs_thread(self) -> ChatCreate:
        if self.resume is not None and self.thread_id is None:
            raise ValueError("`resume` answers a pending question: give its `thread_id`")
        return self


class EnginePublic(BaseModel):
    id: EngineChoice
    label: str = Field(description="Engine and model, as a selector shows it.")
    model: str | None = Field(None, description="The model of its answers (null: offline).")
    default: bool = Field(description="What a conversation without an engine uses.")


class EnginesPublic(BaseModel):
    data: list[EnginePublic]
    count: int


class UsageTotals(BaseModel):
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class ConversationUsage(UsageTotals):
    conversation_id: UUID


class TenantUsagePublic(BaseModel):
    total: UsageTotals
    by_conversation: list[ConversationUsage]
